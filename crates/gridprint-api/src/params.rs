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
    /// with `lat`/`lon` (400). `/footprints`, `/impacts`, the score endpoints and `/best-window` also
    /// accept the country codes `DK`, `IT`, `NO`, `SE` (global: the members' consumption-weighted
    /// mean; local: generation-weighted; flags of the worst member); a bidding-zone code always wins.
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

/// `/best-window` (its own window rules: `start` and `end` may each be omitted).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BestWindowParams {
    /// The job's length: whole minutes (`90`) or ISO 8601 (`PT2H`, `PT1H30M`, `P1D`; no years or
    /// months). Rounded **up** to whole 15-minute slots; the answer says so (`duration_minutes`,
    /// `duration_rounded_up`). Required (400); unreadable or 0 → 422; longer than the window → 400.
    #[param(required = true, example = "PT2H")]
    pub duration: Option<String>,
    /// First moment the job may start (same formats as the data endpoints). Unlike them it may be
    /// omitted alone: default the current 15-minute slot.
    #[param(example = "2024-06-15T00:00:00Z")]
    pub start: Option<String>,
    /// When the job must be done. Unlike the data endpoints it may be omitted alone: default the end
    /// of the data of the requested zones (the forecast's end), at most 31 days after `start`. An
    /// explicit window longer than 31 days → 400.
    #[param(example = "2024-06-16T00:00:00Z")]
    pub end: Option<String>,
    /// What the job is ranked by: `footprint` (default; lower is better), `impact` (water, lower is
    /// better) or `score` (higher is better).
    #[param(example = "footprint")]
    pub metric: Option<String>,
    /// With `metric=footprint`: `carbon` (default) or `water`.
    pub footprint_type: Option<schema::FootprintType>,
    /// With `metric=impact`: only `water`.
    pub impact_type: Option<schema::ImpactType>,
    /// `life-cycle` (default for footprints) or `operational` (the only scope of impact and score).
    pub scope: Option<schema::Scope>,
    /// `true` (default): global values; `false`: local.
    pub use_global: Option<bool>,
    /// How many placements, best first, over all requested zones together, never overlapping within a
    /// zone: 1 to 100, default 3 (else 400).
    #[param(example = 3)]
    pub n: Option<u32>,
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
