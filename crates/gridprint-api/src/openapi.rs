//! The OpenAPI 3.1 description of the data API, generated from the handlers (utoipa + utoipa-axum).
//!
//! Every data and status handler carries a `#[utoipa::path]` attribute; [`data_router`] and
//! [`status_router`] register the handlers with `utoipa_axum::routes!`, which takes the path *and*
//! the method from that same attribute, so a route cannot be served without being described (nor
//! described under another path). [`spec`] merges the two with [`ApiDoc`] (title, the method and
//! limits in the description, the Bearer scheme) and states the configured rate limit.
//!
//! **Schemas.** The answers' schemas are derived from the very types the server serializes and the
//! client reads (`gridprint-responses`, `ToSchema` beside `Serialize`), so they cannot drift from the
//! answers; [`schemas`] holds only the HTTP layer's own bodies. The integration suite
//! (`tests/data_api.rs`) still validates every endpoint's real bodies against the published document,
//! and the snapshot test shows any change to the document in review.

use crate::AppState;
use crate::status;
use gridprint_responses::schema;
use std::sync::OnceLock;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::OpenApi as Spec;
use utoipa::{IntoParams, Modify, OpenApi, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Name of the security scheme (an HTTP Bearer token from the token service).
pub const BEARER: &str = "bearer";

/// The fixed parts of the document; paths come from the handlers.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "gridprint API",
        description = include_str!("../assets/openapi-description.md"),
        license(name = "AGPL-3.0-or-later", identifier = "AGPL-3.0-or-later"),
    ),
    modifiers(&SecurityAddon),
    tags(
        (name = "data", description = "Electricity data and its footprints per bidding zone and 15-minute slot (Bearer token required)"),
        (name = "status", description = "Health of the service (public)"),
    ),
    // Schemas named only by query parameters (IntoParams does not register them).
    components(schemas(
        schemas::Problem,
        schemas::Format,
        schema::ProductionType,
        schema::ProductionFilterType,
        schema::FootprintType,
        schema::Scope,
        schema::OperationalScope,
        schema::ImpactType,
    ))
)]
pub struct ApiDoc;

struct SecurityAddon;

impl Modify for SecurityAddon {
    fn modify(&self, openapi: &mut Spec) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A token from the token service (`POST /token-request/get_token`, or the \
                         page at `/token-request/`), valid for one day.",
                    ))
                    .build(),
            ),
        );
    }
}

/// The protected data routes with their descriptions (paths include `/v1`).
pub fn data_router() -> OpenApiRouter<AppState> {
    use crate::data::*;
    OpenApiRouter::new()
        .routes(routes!(zones))
        .routes(routes!(generation))
        .routes(routes!(load))
        .routes(routes!(imports))
        .routes(routes!(exports))
        .routes(routes!(mix))
        .routes(routes!(footprints))
        .routes(routes!(impacts))
        .routes(routes!(green_score))
        .routes(routes!(environmental_score))
        .routes(routes!(flow_share))
        .routes(routes!(mix_share))
        .routes(routes!(footprint_share))
        .routes(routes!(impact_share))
        .routes(routes!(factors))
}

/// The public status routes with their descriptions.
pub fn status_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(status::status))
        .routes(routes!(status::status_component))
}

/// The whole document, stating the rate limit (`rate` per second, bursts of `burst`; `rate` ≤ 0:
/// no limit).
pub fn spec(rate: f64, burst: u32) -> Spec {
    let mut doc = ApiDoc::openapi();
    doc.merge(data_router().into_openapi());
    doc.merge(status_router().into_openapi());
    doc.info.version = env!("CARGO_PKG_VERSION").to_string();
    let limit = if rate > 0.0 && rate.is_finite() {
        format!(
            "This server allows **{rate} requests per second per token, with bursts of up to {burst}** \
             (every data answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`; \
             over the limit → 429 with `Retry-After` in seconds). Public routes are limited per client \
             address in the same way."
        )
    } else {
        "This server applies no request rate limit.".to_string()
    };
    if let Some(d) = doc.info.description.as_mut() {
        *d = d.replace("{RATE_LIMIT}", &limit);
    }
    doc
}

/// The JSON of [`spec`] for a configuration, rendered once per process and configuration.
pub(crate) fn spec_json(rate: f64, burst: u32) -> axum::body::Bytes {
    static CACHE: OnceLock<std::sync::Mutex<Vec<(u64, u32, axum::body::Bytes)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut list = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, b)) = list
        .iter()
        .find(|(r, b, _)| *r == rate.to_bits() && *b == burst)
    {
        return b.clone();
    }
    let bytes = axum::body::Bytes::from(
        serde_json::to_vec_pretty(&spec(rate, burst)).unwrap_or_else(|_| b"{}".to_vec()),
    );
    list.push((rate.to_bits(), burst, bytes.clone()));
    bytes
}

/// `format`: the representation (JSON by default; also chosen by `Accept: text/csv`).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FormatParam {
    /// `json` (default) or `csv` (long format: one row per point, flags as columns). Without it,
    /// `Accept: text/csv` also selects CSV. Case-insensitive.
    pub format: Option<schemas::Format>,
}

/// The primary location: `zone` XOR `lat` + `lon`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LocationParams {
    /// A zone code or a comma-separated list (`ES` or `es,FR,DE`; case-insensitive, answered
    /// upper-case). Absent or empty: all zones. Unknown codes select nothing (`200 []`). Not together
    /// with `lat`/`lon` (400).
    #[param(example = "ES")]
    pub zone: Option<String>,
    /// Latitude of a point in [-90, 90] (else 422); with `lon`, selects the zone whose polygon contains
    /// the point (404 when none does). `lat` without `lon` or the reverse → 400.
    #[param(example = 40.4)]
    pub lat: Option<f64>,
    /// Longitude of the point in [-180, 180] (else 422).
    #[param(example = -3.7)]
    pub lon: Option<f64>,
}

macro_rules! partner_params {
    ($name:ident, $what:literal, $z:ident, $la:ident, $lo:ident) => {
        #[doc = concat!("The ", $what, " filter (`", stringify!($z), "` XOR `", stringify!($la), "` + `", stringify!($lo), "`; same rules as the primary location).")]
        #[derive(Debug, IntoParams)]
        #[into_params(parameter_in = Query)]
        pub struct $name {
            #[doc = concat!("Only these ", $what, " zones (a code or a comma-separated list; unknown codes match nothing). Not together with `", stringify!($la), "`/`", stringify!($lo), "` (400).")]
            pub $z: Option<String>,
            #[doc = concat!("Latitude of a point inside the ", $what, " zone; with `", stringify!($lo), "`.")]
            pub $la: Option<f64>,
            #[doc = concat!("Longitude of a point inside the ", $what, " zone; with `", stringify!($la), "`.")]
            pub $lo: Option<f64>,
        }
    };
}

partner_params!(SourceParams, "source", source_zone, source_lat, source_lon);
partner_params!(
    DestinationParams,
    "destination",
    destination_zone,
    destination_lat,
    destination_lon
);
partner_params!(OriginParams, "origin", origin_zone, origin_lat, origin_lon);

/// The time window.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TimeParams {
    /// Start of the window: ISO 8601 with `Z` or an offset (converted to UTC), naive (taken as UTC) or
    /// a date (`2024-06-15` = midnight UTC). `start` and `end` both or neither (one alone → 400;
    /// start after end → 400). Neither: the current 15-minute slot. The window is
    /// `[floor15(start), E)` with `E = end` on a slot boundary, else the end of `end`'s slot; an empty
    /// window is one slot. At most 366 days for one zone, 31 days for several or all zones (400).
    #[param(example = "2024-06-15T00:00:00Z")]
    pub start: Option<String>,
    /// End of the window (same formats as `start`).
    #[param(example = "2024-06-16T00:00:00Z")]
    pub end: Option<String>,
}

/// `/generation` and `/mix`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProductionFilter {
    /// Only this production type (case-insensitive). `hydro_pumped_storage` is not accepted as a
    /// filter here (400): pumped storage is not counted as generation in the flow tracing.
    pub production_type: Option<schema::ProductionFilterType>,
}

/// `/footprints`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FootprintParams {
    /// `carbon` (gCO2/kWh) or `water` (l/kWh); default both.
    pub footprint_type: Option<schema::FootprintType>,
    /// `life-cycle` (default) or `operational`.
    pub scope: Option<schema::Scope>,
    /// `true`: one time-weighted average per zone and type over `[start, end]` instead of series
    /// (start and end required, else 400).
    pub aggregate: Option<bool>,
    /// `true` (default): global values, traced through imports (`coverage: global`); `false`: local
    /// values from the zone's own generation (`coverage: local`).
    pub use_global: Option<bool>,
}

/// `/impacts`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImpactParams {
    /// Only `water` exists (default); `carbon` → 400.
    pub impact_type: Option<schema::ImpactType>,
    /// Only `operational` (default); `life-cycle` → 400.
    pub scope: Option<schema::OperationalScope>,
    /// `true`: time-weighted average over `[start, end]` (start and end required).
    pub aggregate: Option<bool>,
    /// `true` (default): global values; `false`: local.
    pub use_global: Option<bool>,
}

/// `/green-score` and `/environmental-score`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ScoreParams {
    /// Only `operational` (default); `life-cycle` → 400.
    pub scope: Option<schema::OperationalScope>,
    /// `true`: time-weighted average over `[start, end]` (start and end required).
    pub aggregate: Option<bool>,
    /// `true` (default): the score of the global values; `false`: of the local values.
    pub use_global: Option<bool>,
}

/// `/footprint-share`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FootprintShareParams {
    /// `carbon` or `water`; default both.
    pub footprint_type: Option<schema::FootprintType>,
    /// `life-cycle` (default) or `operational`.
    pub scope: Option<schema::Scope>,
}

/// `/impact-share`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImpactShareParams {
    /// Only `water` (default); `carbon` → 400.
    pub impact_type: Option<schema::ImpactType>,
    /// Only `operational` (default); `life-cycle` → 400.
    pub scope: Option<schema::OperationalScope>,
}

/// `/factors` (no location; `start`/`end` optional).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FactorParams {
    /// `carbon` or `water`; default both.
    pub factor_type: Option<schema::FootprintType>,
    /// `life-cycle` or `operational`; default both.
    pub scope: Option<schema::Scope>,
    /// Only this production type (pumped storage accepted here).
    pub production_type: Option<schema::ProductionType>,
    /// `true` with start and end: one time-weighted average per factor over the window; without
    /// start and end the factors are answered as series.
    pub aggregate: Option<bool>,
}

/// The schemas of the HTTP layer's own bodies (errors, the format parameter); the answers' schemas
/// come with their types from `gridprint-responses`.
pub mod schemas {
    use super::*;

    /// An error (RFC 9457 problem details). Clients read `detail`.
    #[derive(Debug, ToSchema)]
    #[schema(example = json!({"type": "about:blank", "title": "Bad Request", "status": 400,
        "detail": "start and end must be given together (or neither, for the current slot)"}))]
    pub struct Problem {
        /// Always `about:blank`.
        #[serde(rename = "type")]
        pub type_: String,
        /// The status' reason phrase.
        pub title: String,
        /// The HTTP status.
        pub status: u16,
        /// What was wrong, in words (a plain string).
        pub detail: String,
    }

    /// `json` or `csv`.
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum Format {
        Json,
        Csv,
    }
}
