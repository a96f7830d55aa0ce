//! Handlers of the `/v1` data API (api-contract §3).
//!
//! [`routes`] is the table of every data route; add new endpoints there. Protected handlers take an
//! [`AuthUser`] argument; `/v1/status*` is public. For now: `/v1/zones` (from the reference data, the
//! JSON rendered once at start-up) and `/v1/status` with its sub-paths.

use crate::AppState;
use crate::auth::AuthUser;
use crate::error::ApiError;
use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use gridprint_core::reference::ReferenceData;
use serde::Serialize;
use std::time::Duration;

/// How long `/v1/status` waits for the storage to answer a ping.
const PING_TIMEOUT: Duration = Duration::from_secs(2);

/// The routes of the data API, relative to the server root (paths include `/v1`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/zones", get(zones))
        .route("/v1/status", get(status))
        .route("/v1/status/{component}", get(status_component))
}

/// One item of `/v1/zones`.
#[derive(Debug, Serialize)]
pub struct ZoneInfo<'a> {
    pub zone: &'a str,
    pub full_name: &'a str,
    pub eic_code: &'a str,
    pub country_code: &'a str,
    pub country_name: &'a str,
    pub provider: &'a str,
    pub neighbours: Vec<&'a str>,
}

/// The `/v1/zones` body, sorted by zone (rendered once per process).
pub(crate) fn zones_json(reference: &ReferenceData) -> Vec<u8> {
    let mut list: Vec<ZoneInfo<'_>> = reference
        .zones
        .iter()
        .map(|z| ZoneInfo {
            zone: z.code.as_str(),
            full_name: &z.full_name,
            eic_code: &z.eic_code,
            country_code: &z.country_code,
            country_name: &z.country_name,
            provider: z.provider.as_str(),
            neighbours: z.neighbours.iter().map(|n| n.as_str()).collect(),
        })
        .collect();
    list.sort_by(|a, b| a.zone.cmp(b.zone));
    serde_json::to_vec(&list).unwrap_or_else(|_| b"[]".to_vec())
}

/// `GET /v1/zones`: metadata and neighbours of every zone.
async fn zones(_user: AuthUser, State(state): State<AppState>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        state.inner.zones_json.clone(),
    )
        .into_response()
}

async fn storage_up(state: &AppState) -> bool {
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

fn up_down(up: bool) -> &'static str {
    if up { "up" } else { "down" }
}

/// `GET /v1/status`: always 200; `storage` is probed, the providers are not tracked yet.
async fn status(State(state): State<AppState>) -> Json<serde_json::Value> {
    let storage = up_down(storage_up(&state).await);
    Json(serde_json::json!({
        "storage": storage,
        "entso-e": "unknown",
        "elexon": "unknown",
        "epias": "unknown",
    }))
}

/// `GET /v1/status/{storage|entso-e|elexon|epias}`: that one key.
async fn status_component(
    State(state): State<AppState>,
    Path(component): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let key = component.to_ascii_lowercase();
    let value = match key.as_str() {
        "storage" => up_down(storage_up(&state).await),
        "entso-e" | "elexon" | "epias" => "unknown",
        _ => {
            return Err(ApiError::not_found(
                "unknown status component (storage, entso-e, elexon, epias)",
            ));
        }
    };
    Ok(Json(serde_json::json!({ key: value })))
}
