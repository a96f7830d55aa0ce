//! The WattTime API v3 — the average (attributional) signal `co2_aoer` only, in lbs CO2/MWh — so
//! that the WattTime SDK (PyPI `watttime`) and other WattTime clients work against gridprint by
//! changing only their base URL (the SDK: `WATTTIME_API_URL`) and credentials.
//!
//! [`public_router`] holds `GET /login`: HTTP Basic with a registered account's email and
//! password → `{"token": …}`, an ordinary token issued by the token service's own code path
//! (`crate::tokens::token::do_get_token`: the brute-force guard, the per-account issue limit).
//! [`router`] lists the protected paths (a token or an API key, as `Authorization: Bearer` or
//! `auth-token`; the account's rate limit), one line per path; each path's OpenAPI operation (tag
//! `WattTime`) is built beside it. The answers are in [`answer`], the error answers (WattTime's
//! shape, not problem+json) in [`errors`]; docs/compatibility.md lists the paths, fields, units,
//! region names and what is not supported.

pub mod answer;
pub mod errors;

use crate::compat::{RouteDoc, respond};
use crate::http::error::ApiError;
use crate::http::front::ClientAddr;
use crate::state::AppState;
use crate::tokens::auth::AuthUser;
use crate::v1::format::pairs_of;
use answer::{
    MAX_HORIZON_HOURS, WattTimeAccess, WattTimeData, WattTimeHistoricalForecasts, WattTimeRegion,
};
use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gridprint_responses::query::QueryParams;
use gridprint_store::access::normalize_email;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::{HttpMethod, Operation, Parameter, Paths};
use utoipa::openapi::response::{Response as OpenApiResponse, ResponseBuilder};
use utoipa::openapi::{Ref, RefOr, Schema};
use utoipa::{IntoParams, PartialSchema, ToSchema};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};

/// The OpenAPI tag of the WattTime routes.
pub const TAG: &str = "WattTime";
/// The OpenAPI security scheme of `GET /login` (HTTP Basic).
pub const BASIC_SCHEME: &str = "basic";

/// The protected routes, one line per path with its handler and what its OpenAPI operation says.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(route(
            "/v3/region-from-loc",
            answer::region_from_loc,
            Doc::RegionFromLoc,
        ))
        .routes(route("/v3/my-access", answer::my_access, Doc::MyAccess))
        .routes(route("/v3/forecast", answer::forecast, Doc::Forecast))
        .routes(route("/v3/historical", answer::historical, Doc::Historical))
        .routes(route(
            "/v3/signal-index",
            answer::signal_index,
            Doc::SignalIndex,
        ))
        .routes(forecast_historical_route())
}

/// The public route: the login, limited per client address like the token service.
pub fn public_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(utoipa_axum::routes!(login))
}

/// `GET /login`'s answer.
#[derive(Serialize, ToSchema)]
pub struct WattTimeLogin {
    /// A token of the token service (valid one day; `Authorization: Bearer <token>`).
    pub token: String,
}

/// The email and password of `Authorization: Basic …` (exactly one such header).
fn basic_credentials(headers: &HeaderMap) -> Result<(String, String), ApiError> {
    let missing = || {
        ApiError::unauthorized(
            "send the email and password of a registered account with HTTP Basic authentication ('Authorization: Basic …')",
        )
    };
    let mut all = headers.get_all(header::AUTHORIZATION).iter();
    let (Some(value), None) = (all.next(), all.next()) else {
        return Err(missing());
    };
    let value = value.to_str().map_err(|_| missing())?.trim();
    let (scheme, encoded) = value.split_once(' ').ok_or_else(missing)?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(missing());
    }
    let decoded = STANDARD
        .decode(encoded.trim())
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(missing)?;
    let (email, password) = decoded.split_once(':').ok_or_else(missing)?;
    Ok((email.to_string(), password.to_string()))
}

/// Log in with a registered account's email and password (HTTP Basic), for a token.
///
/// WattTime's login: the token is an ordinary gridprint token (`POST /token-request/get_token`
/// gives the same), valid one day, under the same brute-force rules and per-account issue limit.
#[utoipa::path(
    get,
    path = "/login",
    tag = "WattTime",
    operation_id = "watttime_login",
    security(("basic" = [])),
    responses(
        (status = 200, description = "A new token", body = WattTimeLogin,
            headers(("Cache-Control" = String, description = "`no-store`"))),
        (status = 401, description = "No Basic credentials, unknown email or wrong password (one answer for both), as plain text: WattTime's clients read a login answer that is not JSON as refused credentials", body = String, content_type = "text/plain"),
        (status = 429, description = "Too many attempts or tokens (`Retry-After`)", body = errors::WattTimeError, content_type = "application/json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    )
)]
pub(crate) async fn login(
    State(state): State<AppState>,
    client: ClientAddr,
    headers: HeaderMap,
) -> Response {
    let token = match basic_credentials(&headers) {
        Ok((email, password)) => {
            let email = normalize_email(&email);
            crate::tokens::token::do_get_token(&state, client, email.as_deref(), password).await
        }
        Err(e) => Err(e),
    };
    let mut resp = match token {
        Ok(t) => Json(WattTimeLogin {
            token: t.access_token.into_inner(),
        })
        .into_response(),
        Err(e) => e.into_response(),
    };
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if resp.status() == StatusCode::UNAUTHORIZED {
        resp.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"gridprint\""),
        );
    }
    resp
}

/// A route's handler: the JSON body of its answer to the query `p`.
type Handler = fn(&AppState, &QueryParams<'_>) -> Result<Value, ApiError>;

/// What a route's OpenAPI operation says ([`operation`]): its summary, parameters and answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Doc {
    RegionFromLoc,
    MyAccess,
    Forecast,
    Historical,
    ForecastHistorical,
    SignalIndex,
}

/// One route: `GET path` answered by `handler` once `signal_type` is checked (every route reads
/// it first), with its OpenAPI operation (`doc`).
fn route(path: &'static str, handler: Handler, doc: Doc) -> UtoipaMethodRouter<AppState> {
    let (schemas, paths) = described(path, doc);
    let method = get(
        move |_user: AuthUser,
              State(state): State<AppState>,
              RawQuery(q): RawQuery,
              headers: HeaderMap| async move {
            let body = pairs_of(q.as_deref()).and_then(|pairs| {
                let p = QueryParams::new(&pairs);
                answer::check_signal(&p)?;
                handler(&state, &p)
            });
            respond(&state, &headers, body)
        },
    );
    (schemas, paths, method)
}

/// `GET /v3/forecast/historical`, the one route whose handler awaits (it reads the forecast
/// archive from the store): [`answer::forecast_historical`], which checks `signal_type` first.
fn forecast_historical_route() -> UtoipaMethodRouter<AppState> {
    let (schemas, paths) = described("/v3/forecast/historical", Doc::ForecastHistorical);
    let method = get(
        move |_user: AuthUser,
              State(state): State<AppState>,
              RawQuery(q): RawQuery,
              headers: HeaderMap| async move {
            let body = match pairs_of(q.as_deref()) {
                Ok(pairs) => answer::forecast_historical(&state, &QueryParams::new(&pairs)).await,
                Err(e) => Err(e),
            };
            respond(&state, &headers, body)
        },
    );
    (schemas, paths, method)
}

/// A WattTime error answer of the OpenAPI document: [`errors::WattTimeError`] as JSON.
fn error_response(description: &str) -> RefOr<OpenApiResponse> {
    RefOr::T(
        ResponseBuilder::new()
            .description(description)
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(RefOr::Ref(Ref::from_schema_name(
                        errors::WattTimeError::name(),
                    ))))
                    .build(),
            )
            .build(),
    )
}

/// A route's OpenAPI operation and the answer schemas the routes name.
fn described(path: &'static str, doc: Doc) -> (Vec<(String, RefOr<Schema>)>, Paths) {
    let mut paths = Paths::new();
    paths.add_path_operation(path, vec![HttpMethod::Get], operation(path, doc));
    let mut schemas = Vec::new();
    body_schemas::<WattTimeData>(&mut schemas);
    body_schemas::<WattTimeHistoricalForecasts>(&mut schemas);
    body_schemas::<WattTimeRegion>(&mut schemas);
    body_schemas::<WattTimeAccess>(&mut schemas);
    body_schemas::<errors::WattTimeError>(&mut schemas);
    (schemas, paths)
}

/// `T`'s schema and the schemas it names.
fn body_schemas<T: ToSchema>(out: &mut Vec<(String, RefOr<Schema>)>) {
    out.push((T::name().into(), T::schema()));
    T::schemas(out);
}

/// `signal_type` as the OpenAPI document names its one value.
#[derive(serde::Serialize, ToSchema)]
#[allow(dead_code)]
enum SignalType {
    #[serde(rename = "co2_aoer")]
    Co2Aoer,
}

/// `region-from-loc`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct LocationParams {
    /// Latitude in degrees.
    #[param(minimum = -90.0, maximum = 90.0, example = 52.52)]
    latitude: f64,
    /// Longitude in degrees.
    #[param(minimum = -180.0, maximum = 180.0, example = 13.40)]
    longitude: f64,
    /// `co2_aoer` (default): gridprint serves the average signal only (`co2_moer`,
    /// `health_damage` → 400).
    #[param(inline)]
    signal_type: Option<SignalType>,
}

/// The region and signal every data route reads.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct RegionParams {
    /// A gridprint zone code (`DE`, `DK1`, `IT_NORTH`, any case); `GET /v3/my-access` lists them.
    #[param(example = "DE")]
    region: String,
    /// `co2_aoer` (default): gridprint serves the average signal only (`co2_moer`,
    /// `health_damage` → 400).
    #[param(inline)]
    signal_type: Option<SignalType>,
    /// gridprint's one model, `2026-01-01` (another → 400).
    model: Option<String>,
}

/// `historical`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct WindowParams {
    /// Start, included (ISO 8601; a space for the `T` accepted: `2025-01-15 10:00:00+00:00`).
    #[param(example = "2024-06-15T00:00:00+00:00")]
    start: String,
    /// End, included; at most 32 days after `start` (`/v3/historical`), 1 day
    /// (`/v3/forecast/historical`).
    #[param(example = "2024-06-15T06:00:00+00:00")]
    end: String,
}

/// `historical`'s marker.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct MarkerParams {
    /// `true`: each point says whether gridprint estimated or forecast it (`imputed_data_used`).
    include_imputed_marker: Option<bool>,
}

/// `forecast` and `forecast/historical`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct HorizonParams {
    /// Hours ahead, 0 (the current slot alone) to 96 (default 24).
    #[param(minimum = 0.0, maximum = 96.0)]
    horizon_hours: Option<f64>,
}

/// The operation of `path`: the compatibility routes' shared parts ([`crate::compat::operation`]),
/// its summary, parameters, answer schema and error answers.
fn operation(path: &str, doc: Doc) -> Operation {
    let region = RegionParams::into_params(|| None);
    let window = WindowParams::into_params(|| None);
    let horizon = HorizonParams::into_params(|| None);
    let (summary, parameters, body): (String, Vec<Parameter>, Cow<'static, str>) = match doc {
        Doc::RegionFromLoc => (
            "The region (gridprint zone) whose area holds a point".into(),
            LocationParams::into_params(|| None),
            WattTimeRegion::name(),
        ),
        Doc::MyAccess => (
            "The regions, signal (co2_aoer), endpoints and model served".into(),
            Vec::new(),
            WattTimeAccess::name(),
        ),
        Doc::Forecast => (
            format!(
                "co2_aoer (lbs/MWh) from the current 15-minute slot, up to {MAX_HORIZON_HOURS} hours ahead"
            ),
            [region, horizon].concat(),
            WattTimeData::name(),
        ),
        Doc::Historical => (
            "co2_aoer (lbs/MWh) from start to end (both included, at most 32 days, up to now)"
                .into(),
            [region, window, MarkerParams::into_params(|| None)].concat(),
            WattTimeData::name(),
        ),
        Doc::SignalIndex => (
            format!(
                "The current 15-minute slot's percentile (0-100) against the forecast of the next {} hours: the share of the slots ahead with a lower co2_aoer",
                answer::INDEX_LOOK_AHEAD_HOURS
            ),
            region,
            WattTimeData::name(),
        ),
        Doc::ForecastHistorical => (
            "For each 15-minute slot from start to end (at most 1 day), the following horizon_hours of the forecast issued then (the worker's archive; where it holds none, the values gridprint holds now, said in meta.warnings)".into(),
            [region, window, horizon].concat(),
            WattTimeHistoricalForecasts::name(),
        ),
    };
    crate::compat::operation(RouteDoc {
        tag: TAG,
        operation_id: format!(
            "watttime_{}",
            path.trim_start_matches("/v3/").replace(['/', '-'], "_")
        ),
        summary,
        parameters,
        answer: (
            "The answer in WattTime's shape (docs/compatibility.md)",
            RefOr::Ref(Ref::from_schema_name(body)),
        ),
        errors: vec![
            (
                "400",
                error_response(
                    "A parameter cannot be read or is out of range, a window is too long, or a signal other than co2_aoer (error `Invalid query parameters`, see `message`)",
                ),
            ),
            (
                "401",
                RefOr::T(
                    ResponseBuilder::new()
                        .description("Missing, malformed, expired or revoked token or key, as plain text (not JSON: WattTime's clients log in again on it)")
                        .content("text/plain", ContentBuilder::new().schema(Some(String::schema())).build())
                        .build(),
                ),
            ),
            (
                "404",
                error_response(
                    "Unknown region, or coordinates in no served zone (error `No coverage available for these coordinates and signal_type`)",
                ),
            ),
            ("429", error_response("Rate limit of the account exceeded (`Retry-After`)")),
            ("503", error_response("Data or storage not available yet (`Retry-After`)")),
        ],
    })
}
