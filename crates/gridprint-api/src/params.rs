//! The query parameters of the data and status routes as the OpenAPI document publishes them
//! (`IntoParams` structs named by the handlers' `#[utoipa::path]`), and the schemas of the HTTP
//! layer's own bodies (errors, the format parameter). The rules themselves: docs/api.md §2.

use gridprint_responses::schema;
use utoipa::{IntoParams, ToSchema};

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
    /// the point (404 when none does). `lat` without `lon` or the reverse → 400. Not with `zone`.
    #[param(minimum = -90, maximum = 90)]
    pub lat: Option<f64>,
    /// Longitude of the point in [-180, 180] (else 422).
    #[param(minimum = -180, maximum = 180)]
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
            #[doc = concat!("Latitude of a point inside the ", $what, " zone, in [-90, 90]; with `", stringify!($lo), "`.")]
            #[param(minimum = -90, maximum = 90)]
            pub $la: Option<f64>,
            #[doc = concat!("Longitude of a point inside the ", $what, " zone, in [-180, 180]; with `", stringify!($la), "`.")]
            #[param(minimum = -180, maximum = 180)]
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
    /// Start of the window, read as the reference's framework reads a datetime: RFC 3339
    /// (`T`, `t`, `_` or a space; `Z`/`z` or an offset up to ±14:00, converted to UTC), naive (taken
    /// as UTC), a date (`2024-06-15` = midnight UTC), or Unix seconds / milliseconds (`1718445600`).
    /// `:60` seconds, the basic format and week dates → 422. `start` and `end` both or neither (one alone → 400;
    /// start after end → 400). Neither: the current 15-minute slot. The window is
    /// `[floor15(start), E)` with `E = end` on a slot boundary, else the end of `end`'s slot; an empty
    /// window is one slot. At most 366 days for one zone, 31 days for several or all zones (400).
    #[param(
        example = "2024-06-15T00:00:00Z",
        pattern = r"^(\d{4}-\d{2}-\d{2}([Tt_ ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}(:?\d{2})?)?)?|[+-]?\d+(\.\d*)?)$"
    )]
    pub start: Option<String>,
    /// End of the window (same formats as `start`).
    #[param(
        example = "2024-06-16T00:00:00Z",
        pattern = r"^(\d{4}-\d{2}-\d{2}([Tt_ ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}(:?\d{2})?)?)?|[+-]?\d+(\.\d*)?)$"
    )]
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
    /// Only this production type (not `hydro_pumped_storage`: 400).
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

    /// A 422 for wrongly typed parameters: the reference framework's list, one item per failing
    /// parameter in declaration order.
    #[derive(Debug, ToSchema)]
    #[schema(example = json!({"detail": [{"type": "less_than_equal", "loc": ["query", "lat"],
        "msg": "Input should be less than or equal to 90", "input": "91", "ctx": {"le": 90.0}}]}))]
    pub struct ValidationError {
        /// The failing parameters.
        pub detail: Vec<ValidationItem>,
    }

    /// One failing parameter of a [`ValidationError`].
    #[derive(Debug, ToSchema)]
    pub struct ValidationItem {
        /// `float_parsing`, `bool_parsing`, `less_than_equal`, `greater_than_equal`,
        /// `datetime_from_date_parsing`, …
        #[serde(rename = "type")]
        pub type_: String,
        /// `["query", name]`.
        pub loc: Vec<String>,
        /// The framework's message.
        pub msg: String,
        /// The value as received.
        pub input: String,
        /// Context of the message (`{"le": 90.0}`, `{"error": "input is too short"}`).
        #[schema(value_type = Option<Object>)]
        pub ctx: Option<serde_json::Value>,
        /// gridprint's advice, e.g. to encode `+` as `%2B`.
        pub hint: Option<String>,
    }

    /// A component of `/v1/status/{component}`.
    #[derive(Debug, ToSchema)]
    pub enum Component {
        #[schema(rename = "storage")]
        Storage,
        #[schema(rename = "entso-e")]
        EntsoE,
        #[schema(rename = "elexon")]
        Elexon,
        #[schema(rename = "epias")]
        Epias,
    }

    /// `json` or `csv`.
    #[derive(Debug, ToSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum Format {
        Json,
        Csv,
    }
}
