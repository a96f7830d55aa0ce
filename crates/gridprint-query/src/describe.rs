//! The query parameters several endpoints share (location, window, partner filters, production
//! filter, format) as `IntoParams` structs, as the OpenAPI document lists them, and the functions
//! that put them in each endpoint's order. Parameters of one endpoint only are declared in that
//! endpoint's module (crate::endpoints); the rules that read them are in crate::params and
//! docs/api.md §2.

use gridprint_responses::schema;
use utoipa::openapi::path::Parameter;
use utoipa::{IntoParams, ToSchema};

/// The OpenAPI parameters of one `IntoParams` struct (all of them are query parameters).
pub fn params_of<P: IntoParams>() -> Vec<Parameter> {
    P::into_params(|| None)
}

/// The location and time parameters, then those of `P` (the order of most data endpoints).
pub fn location_time_and<P: IntoParams>() -> Vec<Parameter> {
    [
        params_of::<LocationParams>(),
        params_of::<TimeParams>(),
        params_of::<P>(),
    ]
    .concat()
}

/// The location parameters, the partner location's (`P`: sources, destinations or origins), then
/// the time parameters (the order of the flow and share endpoints).
pub fn location_partner_time<P: IntoParams>() -> Vec<Parameter> {
    [
        params_of::<LocationParams>(),
        params_of::<P>(),
        params_of::<TimeParams>(),
    ]
    .concat()
}

/// `json` or `csv`.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Csv,
}

/// `format`: the representation (JSON by default; also chosen by `Accept: text/csv`).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FormatParam {
    /// `json` (default) or `csv` (long format: one row per point, flags as columns). Without it,
    /// `Accept: text/csv` also selects CSV. Case-insensitive.
    pub format: Option<Format>,
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
    /// the point (404 when none does). `lat` without `lon` or the reverse → 400. Not with `zone`.
    #[param(minimum = -90, maximum = 90)]
    pub lat: Option<f64>,
    /// Longitude of the point in [-180, 180] (else 422).
    #[param(minimum = -180, maximum = 180)]
    pub lon: Option<f64>,
}

/// The source filter (`source_zone` XOR `source_lat` + `source_lon`; same rules as the primary location).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SourceParams {
    /// Only these source zones (a code or a comma-separated list; unknown codes match nothing). Not together with `source_lat`/`source_lon` (400).
    pub source_zone: Option<String>,
    /// Latitude of a point inside the source zone, in [-90, 90]; with `source_lon`.
    #[param(minimum = -90, maximum = 90)]
    pub source_lat: Option<f64>,
    /// Longitude of a point inside the source zone, in [-180, 180]; with `source_lat`.
    #[param(minimum = -180, maximum = 180)]
    pub source_lon: Option<f64>,
}

/// The destination filter (`destination_zone` XOR `destination_lat` + `destination_lon`; same rules as the primary location).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DestinationParams {
    /// Only these destination zones (a code or a comma-separated list; unknown codes match nothing). Not together with `destination_lat`/`destination_lon` (400).
    pub destination_zone: Option<String>,
    /// Latitude of a point inside the destination zone, in [-90, 90]; with `destination_lon`.
    #[param(minimum = -90, maximum = 90)]
    pub destination_lat: Option<f64>,
    /// Longitude of a point inside the destination zone, in [-180, 180]; with `destination_lat`.
    #[param(minimum = -180, maximum = 180)]
    pub destination_lon: Option<f64>,
}

/// The origin filter (`origin_zone` XOR `origin_lat` + `origin_lon`; same rules as the primary location).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OriginParams {
    /// Only these origin zones (a code or a comma-separated list; unknown codes match nothing). Not together with `origin_lat`/`origin_lon` (400).
    pub origin_zone: Option<String>,
    /// Latitude of a point inside the origin zone, in [-90, 90]; with `origin_lon`.
    #[param(minimum = -90, maximum = 90)]
    pub origin_lat: Option<f64>,
    /// Longitude of a point inside the origin zone, in [-180, 180]; with `origin_lat`.
    #[param(minimum = -180, maximum = 180)]
    pub origin_lon: Option<f64>,
}

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
