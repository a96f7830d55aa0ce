//! `/v1/status` and its sub-paths (public, always 200), from the storage health and provider probes
//! of [`crate::v1::health`].
//!
//! **Storage** is `up` when the store answered its last check. The background refresh task
//! ([`crate::refresh`]) asks the store for its data version every `refresh_interval` and records the
//! outcome in [`StorageHealth`](crate::v1::health::StorageHealth), so a status request normally costs
//! no I/O; only when no check is recent (no refresh task running, as in some tests) does a status
//! request ping the store itself (on the blocking pool, with a 2 s timeout). The same state gates
//! the data routes: while storage is down they answer 503 with `Retry-After` (docs/api.md §2).
//!
//! **Providers** (`entso-e`, `elexon`, `epias`) are whatever the
//! [`Providers`](crate::v1::health::Providers) probes say — the binary wires in the ingest crate's
//! background health checker; without probes they are `unknown`.

use crate::http::error::ApiError;
use crate::http::failures::ClientRateLimited;
use crate::state::AppState;
use crate::v1::format::{CSV, format_of};
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use gridprint_query::endpoints::status::{self as status_answer, ProviderStates};
use gridprint_responses::Format;
use std::time::Duration;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// How long `/v1/status` waits for the storage to answer a ping.
const PING_TIMEOUT: Duration = Duration::from_secs(2);

/// The status routes (public; per-client rate limit).
pub(crate) fn routes() -> axum::Router<AppState> {
    let (router, _) = status_router().split_for_parts();
    router
}

/// Storage state for a status request: the background check's if recent, else a ping now.
pub(crate) async fn storage_up(state: &AppState) -> bool {
    let health = &state.inner.health;
    let max_age = state.config().refresh_interval.saturating_mul(3);
    if let Some(up) = health.recent(max_age) {
        return up;
    }
    let up = ping(state).await;
    health.record(up);
    up
}

/// Pings the store on the blocking pool, with [`PING_TIMEOUT`].
pub(crate) async fn ping(state: &AppState) -> bool {
    let store = state.store().clone();
    let ping = tokio::task::spawn_blocking(move || store.ping());
    match tokio::time::timeout(PING_TIMEOUT, ping).await {
        Ok(Ok(Ok(()))) => true,
        Ok(Ok(Err(e))) => {
            tracing::warn!(error = %e, "storage ping failed");
            false
        }
        _ => false,
    }
}

async fn current(state: &AppState) -> gridprint_responses::StatusResponse {
    let up = storage_up(state).await;
    let p = &state.inner.providers;
    let mut status = status_answer::status(
        up,
        ProviderStates {
            entsoe: (p.entsoe)(),
            elexon: (p.elexon)(),
            epias: (p.epias)(),
        },
    );
    status.demo = state.demo();
    status
}

fn no_cache(mut resp: Response) -> Response {
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// Health of the storage and of the upstream providers.
///
/// Always 200 (public, no token): `storage` is `up` or `down`; each provider is `up`, `down` or
/// `unknown` (not checked by this process). On a server started with `serve --demo`, `demo` says
/// that its recent data are recorded provider data replayed onto the present (absent otherwise).
/// `format=csv` gives one header row and one value row (without `demo`).
#[utoipa::path(
    get,
    path = "/v1/status",
    tag = "status",
    operation_id = "status",
    params(gridprint_responses::FormatParam),
    responses(
        (status = 200, description = "Health of every component",
            content(
                (gridprint_responses::StatusResponse = "application/json"),
                (String = "text/csv")
            )),
        (status = 400, description = "Unknown `format`", body = crate::http::params::schemas::Problem, content_type = "application/problem+json"),
        ClientRateLimited,
    )
)]
pub(crate) async fn status(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let format = format_of(query.as_deref(), &headers)?;
    let s = current(&state).await;
    let resp = match format {
        Format::Json => axum::Json(&s).into_response(),
        Format::Csv => (
            [(header::CONTENT_TYPE, CSV)],
            Bytes::from(gridprint_query::csv::status_csv(&s)),
        )
            .into_response(),
    };
    Ok(no_cache(resp))
}

/// The health of one component: `{"<component>": "up"|"down"|"unknown"}`.
///
/// Components: `storage`, `entso-e`, `elexon`, `epias` (case-insensitive); another name → 404.
#[utoipa::path(
    get,
    path = "/v1/status/{component}",
    tag = "status",
    operation_id = "status_component",
    params(("component" = crate::http::params::schemas::Component, Path, description = "storage, entso-e, elexon or epias")),
    responses(
        (status = 200, description = "The one key", body = std::collections::BTreeMap<String, String>,
            example = json!({"storage": "up"})),
        (status = 404, description = "Unknown component", body = crate::http::params::schemas::Problem, content_type = "application/problem+json"),
        ClientRateLimited,
    )
)]
pub(crate) async fn status_component(
    State(state): State<AppState>,
    component: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Response, ApiError> {
    // A component that is not valid UTF-8 once decoded is no component: problem+json 404, not
    // axum's plain-text rejection.
    let Ok(Path(component)) = component else {
        return Err(ApiError::new(
            axum::http::StatusCode::NOT_FOUND,
            "unknown status component; use storage, entso-e, elexon or epias",
        ));
    };
    let key = component.trim().to_ascii_lowercase();
    // Answer only the component asked for (no needless storage ping for a provider).
    let status = if key == "storage" {
        status_answer::status(
            storage_up(&state).await,
            ProviderStates {
                entsoe: "",
                elexon: "",
                epias: "",
            },
        )
    } else {
        let p = &state.inner.providers;
        status_answer::status(
            state.inner.health.is_up(),
            ProviderStates {
                entsoe: (p.entsoe)(),
                elexon: (p.elexon)(),
                epias: (p.epias)(),
            },
        )
    };
    let map = status_answer::status_component(&status, &key)?;
    Ok(no_cache(axum::Json(map).into_response()))
}

/// The public status routes with their descriptions.
pub fn status_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(status))
        .routes(routes!(status_component))
}
