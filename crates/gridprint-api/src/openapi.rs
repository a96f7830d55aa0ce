//! The OpenAPI 3.1 description of the data API, generated from the handlers (utoipa + utoipa-axum).
//!
//! Every data and status handler carries a `#[utoipa::path]` attribute; [`data_router`] and
//! [`status_router`] register the handlers with `utoipa_axum::routes!`, which takes the path *and*
//! the method from that same attribute, so a route cannot be served without being described (nor
//! described under another path). [`spec`] merges the two with [`ApiDoc`] (title, the method and
//! limits in the description, the Bearer scheme) and states the configured rate limit.
//!
//! **Schemas.** The answers are built by `gridprint-query`, which knows nothing of OpenAPI, so the
//! published schemas are *mirror types* in [`schemas`] deriving `utoipa::ToSchema` with the same field
//! names and value sets. They are kept from drifting by tests, not by discipline: the integration
//! suite (`tests/data_api.rs`) requests every endpoint and variant (series, aggregate, empty) on real
//! data and validates each body against the schema *this document publishes* for that operation,
//! rejecting missing required fields, wrong types, values outside an enum and any property the schema
//! does not declare; it also checks that every value of the core enums (production types, data
//! states, zone statuses, scopes) is listed. A field added to a response without its mirror — or a
//! mirror field the response lacks — fails the suite, and the snapshot test shows the change to the
//! published document in review.

use crate::AppState;
use crate::status;
use std::sync::OnceLock;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{OpenApi as Spec, RefOr, Schema};
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
        schemas::ProductionType,
        schemas::ProductionFilterType,
        schemas::FootprintType,
        schemas::Scope,
        schemas::OperationalScope,
        schemas::ImpactType,
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
    pub production_type: Option<schemas::ProductionFilterType>,
}

/// `/footprints`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FootprintParams {
    /// `carbon` (gCO2/kWh) or `water` (l/kWh); default both.
    pub footprint_type: Option<schemas::FootprintType>,
    /// `life-cycle` (default) or `operational`.
    pub scope: Option<schemas::Scope>,
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
    pub impact_type: Option<schemas::ImpactType>,
    /// Only `operational` (default); `life-cycle` → 400.
    pub scope: Option<schemas::OperationalScope>,
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
    pub scope: Option<schemas::OperationalScope>,
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
    pub footprint_type: Option<schemas::FootprintType>,
    /// `life-cycle` (default) or `operational`.
    pub scope: Option<schemas::Scope>,
}

/// `/impact-share`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImpactShareParams {
    /// Only `water` (default); `carbon` → 400.
    pub impact_type: Option<schemas::ImpactType>,
    /// Only `operational` (default); `life-cycle` → 400.
    pub scope: Option<schemas::OperationalScope>,
}

/// `/factors` (no location; `start`/`end` optional).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FactorParams {
    /// `carbon` or `water`; default both.
    pub factor_type: Option<schemas::FootprintType>,
    /// `life-cycle` or `operational`; default both.
    pub scope: Option<schemas::Scope>,
    /// Only this production type (pumped storage accepted here).
    pub production_type: Option<schemas::ProductionType>,
    /// `true` with start and end: one time-weighted average per factor over the window; without
    /// start and end the factors are answered as series.
    pub aggregate: Option<bool>,
}

/// The published schemas of the answers: mirrors of `gridprint-query`'s response types (see the
/// module documentation of [`crate::openapi`] for how they are kept in step).
pub mod schemas {
    use super::*;
    use utoipa::openapi::schema::{
        AnyOfBuilder, ArrayBuilder, ArrayItems, KnownFormat, ObjectBuilder, SchemaFormat, Type,
    };

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

    /// A string enum of production types in API spelling, listed from
    /// [`gridprint_core::production::ProductionType::ALL`] so the schema cannot drift from the core.
    fn production_types(description: &str, filter: bool) -> RefOr<Schema> {
        use gridprint_core::production::ProductionType as Core;
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(
                Core::ALL
                    .iter()
                    .filter(|t| !filter || **t != Core::HydroPumpedStorage)
                    .map(|t| t.as_str()),
            ))
            .description(Some(description))
            .into()
    }

    /// A production type (API spelling).
    #[derive(Debug)]
    pub struct ProductionType;

    impl utoipa::PartialSchema for ProductionType {
        fn schema() -> RefOr<Schema> {
            production_types("A production type (API spelling).", false)
        }
    }

    impl ToSchema for ProductionType {}

    /// A production type accepted as a filter of `/generation` and `/mix` (every type except
    /// `hydro_pumped_storage`).
    #[derive(Debug)]
    pub struct ProductionFilterType;

    impl utoipa::PartialSchema for ProductionFilterType {
        fn schema() -> RefOr<Schema> {
            production_types(
                "A production type accepted as a filter of `/generation` and `/mix` (every type \
                 except `hydro_pumped_storage`).",
                true,
            )
        }
    }

    impl ToSchema for ProductionFilterType {}

    /// Where a point comes from: provider data, our estimate of a provider gap, or missing (the
    /// forecast fills the slot).
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum DataState {
        Official,
        Estimated,
        Missing,
    }

    /// Quality of a zone's slot: `missing` (no provider data, forecast used), `preview` (some input
    /// estimated or repaired), `complete`.
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum ZoneStatus {
        Missing,
        Preview,
        Complete,
    }

    /// `carbon` or `water`.
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum FootprintType {
        Carbon,
        Water,
    }

    /// `life-cycle` or `operational`.
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "kebab-case")]
    pub enum Scope {
        LifeCycle,
        Operational,
    }

    /// Only `operational`.
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "kebab-case")]
    pub enum OperationalScope {
        Operational,
    }

    /// Only `water`.
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum ImpactType {
        Water,
    }

    /// `global` (traced through imports) or `local` (the zone's own generation).
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum Coverage {
        Global,
        Local,
    }

    /// The provider of a zone's data.
    #[derive(Debug, ToSchema)]
    pub enum Provider {
        #[serde(rename = "ENTSO-E")]
        Entsoe,
        Elexon,
        #[serde(rename = "EPIAS")]
        Epias,
    }

    /// How an aggregate is computed.
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "kebab-case")]
    pub enum AggregationMethod {
        /// The mean of the step function (each point holds until the next, the last until `end`),
        /// clipped to `[start, end]`.
        TimeWeightedAverage,
    }

    /// One value: `[timestamp, number]`, the timestamp (`YYYY-MM-DDThh:mm:ssZ`) the start of a
    /// 15-minute slot, the number rounded to 2 decimals.
    #[derive(Debug)]
    pub struct Point;

    impl utoipa::PartialSchema for Point {
        fn schema() -> RefOr<Schema> {
            ArrayBuilder::new()
                .prefix_items([
                    Schema::Object(
                        ObjectBuilder::new()
                            .schema_type(Type::String)
                            .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
                            .description(Some("start of the slot, UTC"))
                            .build(),
                    ),
                    Schema::Object(
                        ObjectBuilder::new()
                            .schema_type(Type::Number)
                            .description(Some("the value, rounded to 2 decimals"))
                            .build(),
                    ),
                ])
                .items(ArrayItems::False)
                .min_items(Some(2))
                .max_items(Some(2))
                .description(Some(
                    "`[timestamp, number]`: the start of a 15-minute slot (UTC) and the value",
                ))
                .examples([serde_json::json!(["2024-06-15T12:00:00Z", 123.45])])
                .into()
        }
    }

    impl ToSchema for Point {}

    /// `anyOf` two array schemas (an empty array matches both, so not `oneOf`).
    fn any_of_arrays<A: ToSchema, B: ToSchema>(description: &str) -> RefOr<Schema> {
        let arr = |name: std::borrow::Cow<'static, str>| {
            ArrayBuilder::new().items(utoipa::openapi::Ref::from_schema_name(name))
        };
        AnyOfBuilder::new()
            .item(arr(A::name()))
            .item(arr(B::name()))
            .description(Some(description))
            .into()
    }

    macro_rules! either_answer {
        ($(#[$doc:meta])* $name:ident, $series:ty, $agg:ty) => {
            $(#[$doc])*
            #[derive(Debug)]
            pub struct $name;

            impl utoipa::PartialSchema for $name {
                fn schema() -> RefOr<Schema> {
                    any_of_arrays::<$series, $agg>(
                        "series (default) or, with `aggregate=true`, one aggregate per item",
                    )
                }
            }

            impl ToSchema for $name {
                fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
                    schemas.push((<$series>::name().into(), <$series as utoipa::PartialSchema>::schema()));
                    <$series as ToSchema>::schemas(schemas);
                    schemas.push((<$agg>::name().into(), <$agg as utoipa::PartialSchema>::schema()));
                    <$agg as ToSchema>::schemas(schemas);
                }
            }
        };
    }

    /// Item of `/zones`.
    #[derive(Debug, ToSchema)]
    pub struct ZoneInfo {
        /// Zone code, e.g. `DE-LU`.
        pub zone: String,
        pub full_name: String,
        pub eic_code: String,
        pub country_code: String,
        pub country_name: String,
        pub provider: Provider,
        /// Neighbouring zones (physical borders).
        pub neighbours: Vec<String>,
    }

    /// Points of one production type with one data state and datasource.
    #[derive(Debug, ToSchema)]
    pub struct ProductionBlock {
        pub production_type: ProductionType,
        pub data_state: DataState,
        /// `ENTSO-E`, `Elexon`, `EPIAS`, `gridprint-estimation:<method>`,
        /// `gridprint-forecast:<method>`, or `flow_tracing` (mix).
        pub datasource: String,
        pub values: Vec<Point>,
    }

    /// Series entry of `/generation` and `/mix`: one per (valid, zone_status) in the window.
    #[derive(Debug, ToSchema)]
    pub struct GenerationEntry {
        /// Final (older than now − 4 h), or complete and newer.
        pub valid: bool,
        pub zone_status: ZoneStatus,
        pub production: Vec<ProductionBlock>,
    }

    /// Item of `/generation` (provider data, MW) and `/mix` (MW of each type consumed in the zone
    /// after flow tracing; datasource `flow_tracing`).
    #[derive(Debug, ToSchema)]
    pub struct GenerationResult {
        pub zone: String,
        /// `MW`.
        pub unit: String,
        pub series: Vec<GenerationEntry>,
    }

    /// Points with one data state and datasource.
    #[derive(Debug, ToSchema)]
    pub struct StateBlock {
        pub data_state: DataState,
        pub datasource: String,
        pub values: Vec<Point>,
    }

    /// Series entry of `/load`.
    #[derive(Debug, ToSchema)]
    pub struct LoadEntry {
        pub valid: bool,
        pub zone_status: ZoneStatus,
        pub blocks: Vec<StateBlock>,
    }

    /// Item of `/load`.
    #[derive(Debug, ToSchema)]
    pub struct LoadResult {
        pub zone: String,
        /// `MW`.
        pub unit: String,
        pub series: Vec<LoadEntry>,
    }

    /// Imports from one source zone with one data state and datasource.
    #[derive(Debug, ToSchema)]
    pub struct ImportBlock {
        pub source: String,
        pub data_state: DataState,
        pub datasource: String,
        pub values: Vec<Point>,
    }

    /// Series entry of `/imports`.
    #[derive(Debug, ToSchema)]
    pub struct ImportsEntry {
        pub valid: bool,
        pub zone_status: ZoneStatus,
        pub imports: Vec<ImportBlock>,
    }

    /// Item of `/imports` (physical flows into the zone, MW).
    #[derive(Debug, ToSchema)]
    pub struct ImportsResult {
        pub zone: String,
        pub unit: String,
        pub series: Vec<ImportsEntry>,
    }

    /// Exports to one destination zone with one data state and datasource.
    #[derive(Debug, ToSchema)]
    pub struct ExportBlock {
        pub destination: String,
        pub data_state: DataState,
        pub datasource: String,
        pub values: Vec<Point>,
    }

    /// Series entry of `/exports`.
    #[derive(Debug, ToSchema)]
    pub struct ExportsEntry {
        pub valid: bool,
        pub zone_status: ZoneStatus,
        pub exports: Vec<ExportBlock>,
    }

    /// Item of `/exports` (physical flows out of the zone, MW).
    #[derive(Debug, ToSchema)]
    pub struct ExportsResult {
        pub zone: String,
        pub unit: String,
        pub series: Vec<ExportsEntry>,
    }

    /// A series entry with flags and values.
    #[derive(Debug, ToSchema)]
    pub struct FlagSeries {
        pub valid: bool,
        pub zone_status: ZoneStatus,
        pub values: Vec<Point>,
    }

    /// Item of `/footprints`.
    #[derive(Debug, ToSchema)]
    pub struct FootprintResult {
        pub footprint_type: FootprintType,
        pub scope: Scope,
        pub zone: String,
        /// `gCO2/kWh` (carbon) or `l/kWh` (water).
        pub unit: String,
        pub coverage: Coverage,
        pub series: Vec<FlagSeries>,
    }

    /// Item of `/footprints?aggregate=true`.
    #[derive(Debug, ToSchema)]
    pub struct FootprintAggregate {
        pub footprint_type: FootprintType,
        pub scope: Scope,
        pub zone: String,
        pub unit: String,
        pub coverage: Coverage,
        /// The request's `start`, in UTC.
        #[schema(format = DateTime)]
        pub start: String,
        /// The request's `end`, in UTC.
        #[schema(format = DateTime)]
        pub end: String,
        /// Time-weighted average, rounded to 2 decimals.
        pub value: f64,
        /// `true` only if every point is valid.
        pub valid: bool,
        /// The worst status present (missing < preview < complete).
        pub zone_status: ZoneStatus,
        pub aggregation_method: AggregationMethod,
    }

    /// Item of `/impacts`.
    #[derive(Debug, ToSchema)]
    pub struct ImpactResult {
        pub impact_type: ImpactType,
        pub scope: OperationalScope,
        pub zone: String,
        /// `stress-l/kWh`.
        pub unit: String,
        pub coverage: Coverage,
        pub series: Vec<FlagSeries>,
    }

    /// Item of `/impacts?aggregate=true`.
    #[derive(Debug, ToSchema)]
    pub struct ImpactAggregate {
        pub impact_type: ImpactType,
        pub scope: OperationalScope,
        pub zone: String,
        pub unit: String,
        pub coverage: Coverage,
        #[schema(format = DateTime)]
        pub start: String,
        #[schema(format = DateTime)]
        pub end: String,
        pub value: f64,
        pub valid: bool,
        pub zone_status: ZoneStatus,
        pub aggregation_method: AggregationMethod,
    }

    /// Item of `/green-score` and `/environmental-score` (unitless 0–100, no `unit` field).
    #[derive(Debug, ToSchema)]
    pub struct ScoreResult {
        pub scope: OperationalScope,
        pub zone: String,
        pub coverage: Coverage,
        pub series: Vec<FlagSeries>,
    }

    /// Item of the score endpoints with `aggregate=true`.
    #[derive(Debug, ToSchema)]
    pub struct ScoreAggregate {
        pub scope: OperationalScope,
        pub zone: String,
        pub coverage: Coverage,
        #[schema(format = DateTime)]
        pub start: String,
        #[schema(format = DateTime)]
        pub end: String,
        pub value: f64,
        pub valid: bool,
        pub zone_status: ZoneStatus,
        pub aggregation_method: AggregationMethod,
    }

    /// Shares towards one destination zone (`%`).
    #[derive(Debug, ToSchema)]
    pub struct DestinationBlock {
        pub destination: String,
        pub values: Vec<Point>,
    }

    /// Series entry of `/flow-share`.
    #[derive(Debug, ToSchema)]
    pub struct FlowShareEntry {
        pub valid: bool,
        pub zone_status: ZoneStatus,
        pub flows: Vec<DestinationBlock>,
    }

    /// Item of `/flow-share`: share of the zone's generation consumed in each destination (itself
    /// included).
    #[derive(Debug, ToSchema)]
    pub struct FlowShareResult {
        pub zone: String,
        /// `%`.
        pub unit: String,
        pub series: Vec<FlowShareEntry>,
    }

    /// Shares from one origin zone (`%`).
    #[derive(Debug, ToSchema)]
    pub struct OriginBlock {
        pub origin: String,
        pub values: Vec<Point>,
    }

    /// Series entry of `/mix-share`.
    #[derive(Debug, ToSchema)]
    pub struct MixShareEntry {
        pub valid: bool,
        pub zone_status: ZoneStatus,
        pub shares: Vec<OriginBlock>,
    }

    /// Item of `/mix-share`: share of the zone's consumption generated in each origin (itself
    /// included).
    #[derive(Debug, ToSchema)]
    pub struct MixShareResult {
        pub zone: String,
        pub unit: String,
        pub series: Vec<MixShareEntry>,
    }

    /// The part of a footprint or impact coming from one source zone.
    #[derive(Debug, ToSchema)]
    pub struct SourceBlock {
        pub source: String,
        pub values: Vec<Point>,
    }

    /// Series entry of `/footprint-share` and `/impact-share`.
    #[derive(Debug, ToSchema)]
    pub struct SourceEntry {
        pub valid: bool,
        pub zone_status: ZoneStatus,
        pub blocks: Vec<SourceBlock>,
    }

    /// Item of `/footprint-share`: the blocks of a slot sum to the zone's global footprint.
    #[derive(Debug, ToSchema)]
    pub struct FootprintShareResult {
        pub zone: String,
        pub footprint_type: FootprintType,
        pub scope: Scope,
        pub unit: String,
        pub series: Vec<SourceEntry>,
    }

    /// Item of `/impact-share`: the blocks of a slot sum to the zone's global water impact.
    #[derive(Debug, ToSchema)]
    pub struct ImpactShareResult {
        pub zone: String,
        pub impact_type: ImpactType,
        pub scope: OperationalScope,
        pub unit: String,
        pub series: Vec<SourceEntry>,
    }

    /// A series without flags (factors are constant).
    #[derive(Debug, ToSchema)]
    pub struct PlainSeries {
        pub values: Vec<Point>,
    }

    /// Item of `/factors`.
    #[derive(Debug, ToSchema)]
    pub struct FactorResult {
        pub factor_type: FootprintType,
        pub production_type: ProductionType,
        pub scope: Scope,
        pub unit: String,
        /// Where the factor comes from.
        pub source: String,
        pub year: Option<i32>,
        pub source_link: Option<String>,
        pub series: Vec<PlainSeries>,
    }

    /// Item of `/factors?aggregate=true` with start and end.
    #[derive(Debug, ToSchema)]
    pub struct FactorAggregate {
        pub factor_type: FootprintType,
        pub production_type: ProductionType,
        pub scope: Scope,
        pub unit: String,
        pub source: String,
        pub year: Option<i32>,
        pub source_link: Option<String>,
        #[schema(format = DateTime)]
        pub start: String,
        #[schema(format = DateTime)]
        pub end: String,
        pub value: f64,
        pub valid: bool,
        pub zone_status: ZoneStatus,
        pub aggregation_method: AggregationMethod,
    }

    either_answer!(
        /// `/footprints`: series, or aggregates with `aggregate=true`.
        FootprintsAnswer,
        FootprintResult,
        FootprintAggregate
    );
    either_answer!(
        /// `/impacts`: series, or aggregates with `aggregate=true`.
        ImpactsAnswer,
        ImpactResult,
        ImpactAggregate
    );
    either_answer!(
        /// Score endpoints: series, or aggregates with `aggregate=true`.
        ScoresAnswer,
        ScoreResult,
        ScoreAggregate
    );
    either_answer!(
        /// `/factors`: series, or aggregates with `aggregate=true` and dates.
        FactorsAnswer,
        FactorResult,
        FactorAggregate
    );

    /// `up` or `down`.
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum UpDown {
        Up,
        Down,
    }

    /// A provider's health: `unknown` until checked (or when this process does not check it).
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum ProviderState {
        Up,
        Down,
        Unknown,
    }

    /// Body of `/status`.
    #[derive(Debug, ToSchema)]
    pub struct Status {
        pub storage: UpDown,
        #[serde(rename = "entso-e")]
        pub entsoe: ProviderState,
        pub elexon: ProviderState,
        pub epias: ProviderState,
    }
}
