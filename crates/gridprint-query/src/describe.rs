//! The query parameters several endpoints share (location, window, partner filters, production
//! filter, format) as `IntoParams` structs (the three partner filters from one template, by
//! [`Partner`]), as the OpenAPI document lists them, and the functions that put them in each
//! endpoint's order. Parameters of one endpoint only are declared in that endpoint's module
//! (crate::endpoints); the rules that read them are in crate::params and docs/api.md §2.

use gridprint_responses::{Format, schema};
use utoipa::IntoParams;
use utoipa::openapi::path::Parameter;

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

/// The location parameters, the partner location's (sources, destinations or origins), then the
/// time parameters (the order of the flow and share endpoints).
pub fn location_partner_time(partner: Partner) -> Vec<Parameter> {
    [
        params_of::<LocationParams>(),
        partner.params(),
        params_of::<TimeParams>(),
    ]
    .concat()
}

/// The location, `source_*` location and time parameters, then those of `P` (the order of
/// `/footprint-share` and `/impact-share`).
pub fn sources_time_and<P: IntoParams>() -> Vec<Parameter> {
    [location_partner_time(Partner::Source), params_of::<P>()].concat()
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

/// The second location of the flow and share endpoints: `/imports`, `/footprint-share` and
/// `/impact-share` filter by source, `/exports` and `/flow-share` by destination, `/mix-share` by
/// origin. Its parameters are the primary location's under the partner's prefix (`source_zone` XOR
/// `source_lat` + `source_lon`; same rules as the primary location).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partner {
    Source,
    Destination,
    Origin,
}

impl Partner {
    /// `source`, `destination` or `origin`, as the descriptions say it.
    fn word(self) -> &'static str {
        match self {
            Partner::Source => "source",
            Partner::Destination => "destination",
            Partner::Origin => "origin",
        }
    }

    /// The parameters' prefix: `source_`, `destination_` or `origin_`.
    pub fn prefix(self) -> &'static str {
        match self {
            Partner::Source => "source_",
            Partner::Destination => "destination_",
            Partner::Origin => "origin_",
        }
    }

    /// The OpenAPI parameters `<prefix>zone`, `<prefix>lat` and `<prefix>lon`.
    pub fn params(self) -> Vec<Parameter> {
        let (w, prefix) = (self.word(), self.prefix());
        let descriptions = [
            format!(
                "Only these {w} zones (a code or a comma-separated list; unknown codes match nothing). Not together with `{prefix}lat`/`{prefix}lon` (400)."
            ),
            format!("Latitude of a point inside the {w} zone, in [-90, 90]; with `{prefix}lon`."),
            format!(
                "Longitude of a point inside the {w} zone, in [-180, 180]; with `{prefix}lat`."
            ),
        ];
        params_of::<PartnerLocation>()
            .into_iter()
            .zip(descriptions)
            .map(|(mut param, description)| {
                param.name = format!("{prefix}{}", param.name);
                param.description = Some(description);
                param
            })
            .collect()
    }
}

/// The types and ranges of a partner's parameters, named and described by [`Partner::params`].
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct PartnerLocation {
    zone: Option<String>,
    #[param(minimum = -90, maximum = 90)]
    lat: Option<f64>,
    #[param(minimum = -180, maximum = 180)]
    lon: Option<f64>,
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
