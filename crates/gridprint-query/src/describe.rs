//! The OpenAPI side of the endpoint table: the query parameters several endpoints share (location,
//! window, partner filters, production filter, format) as `IntoParams` structs, and [`Description`],
//! everything the HTTP layer needs to publish one endpoint (each path's summary, the parameters in
//! order, the body's schema and the named schemas it refers to). Parameters of one endpoint only are
//! declared in that endpoint's module. The rules themselves: docs/api.md §2.

use gridprint_responses::{BodySchema, NamedSchemas, schema};
use utoipa::openapi::RefOr;
use utoipa::openapi::path::Parameter;
use utoipa::openapi::schema::Schema;
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

/// What the HTTP layer publishes for one endpoint (see [`crate::Endpoint::description`]).
#[derive(Clone)]
pub struct Description {
    /// Per path of the endpoint (in the table's order): the first paragraph is the operation's
    /// summary, the rest its description.
    pub docs: &'static [&'static str],
    /// The query parameters, in order (`format` last, for every endpoint).
    pub parameters: Vec<Parameter>,
    /// The schema of a JSON `200` body.
    pub body: RefOr<Schema>,
    /// The named schemas the body refers to.
    pub schemas: NamedSchemas,
}

impl Description {
    /// The description from an endpoint's docs, its own parameters and its response type.
    pub fn new<B: BodySchema>(
        docs: &'static [&'static str],
        mut parameters: Vec<Parameter>,
    ) -> Self {
        parameters.extend(params_of::<FormatParam>());
        let mut schemas = Vec::new();
        B::named_schemas(&mut schemas);
        Description {
            docs,
            parameters,
            body: B::body_schema(),
            schemas,
        }
    }
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

/// A partner location filter (sources, destinations or origins): its parameters are the primary
/// location's under [`Self::PREFIX`].
pub trait PartnerParams: IntoParams {
    /// `source_`, `destination_` or `origin_`.
    const PREFIX: &'static str;
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

        impl PartnerParams for $name {
            const PREFIX: &'static str = concat!($what, "_");
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
