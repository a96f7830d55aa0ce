//! Typed requests: one struct per `/v1` endpoint (docs/api.md §3), each turning into exactly the
//! query parameters the contract names.
//!
//! Every struct has public fields and `Default`, so a request reads like the URL it becomes:
//!
//! ```
//! use gridprint_client::{FootprintsRequest, FootprintType, Location, TimeWindow};
//! let req = FootprintsRequest {
//!     location: Some(Location::zone("DE")),
//!     window: Some(TimeWindow::parse("2024-06-15T00:00Z", "2024-06-15T02:00Z").unwrap()),
//!     footprint_type: Some(FootprintType::Carbon),
//!     ..Default::default()
//! };
//! # use gridprint_client::ApiRequest;
//! assert_eq!(req.path(), "footprints");
//! ```
//!
//! `None` leaves a parameter out, so the server's default applies (all zones, the current slot, both
//! footprint types, …). A [`Location`] is zone codes (`zone=DE` or `zone=ES,FR`) or a point
//! (`lat`/`lon`); secondary locations get their prefix (`source_`, `destination_`, `origin_`).
//! [`Aggregate`] wraps a request that supports `aggregate=true`.
//!
//! Each struct's query parameters are written here; its path (and whether it is [`Aggregatable`])
//! comes from the endpoint table shared with the server, in `typed.rs`.

use crate::error::Error;
use gridprint_core::production::ProductionType;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{format_timestamp, parse_timestamp};
use time::OffsetDateTime;

/// A request for one `/v1` endpoint: its path (after `/v1/`) and its query parameters.
pub trait ApiRequest {
    /// The path under `/v1/`, such as `footprints` or `flow-share`.
    fn path(&self) -> &'static str;
    /// The query parameters, in a stable order.
    fn query(&self) -> Vec<(String, String)>;
}

/// Marker for requests that accept `aggregate=true` (footprints, impacts, scores, factors).
pub trait Aggregatable: ApiRequest {}

/// A request with `aggregate=true` added: one time-weighted average per zone and type instead of a
/// series (start and end are required by the server).
#[derive(Debug, Clone, Copy)]
pub struct Aggregate<'a, R: ?Sized>(pub &'a R);

impl<R: Aggregatable + ?Sized> ApiRequest for Aggregate<'_, R> {
    fn path(&self) -> &'static str {
        self.0.path()
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = self.0.query();
        q.push(("aggregate".into(), "true".into()));
        q
    }
}

/// Where: zone codes, or a point inside a zone's polygon.
#[derive(Debug, Clone, PartialEq)]
pub enum Location {
    /// One or several zone codes (`zone=ES,FR,DE`); an empty list means every zone.
    Zones(Vec<String>),
    /// A point, looked up in the zone polygons by the server (404 if it lies in no zone).
    LatLon { lat: f64, lon: f64 },
}

impl Location {
    /// One zone.
    pub fn zone(code: impl Into<String>) -> Location {
        Location::Zones(vec![code.into()])
    }

    /// Several zones in one call.
    pub fn zones<I, S>(codes: I) -> Location
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Location::Zones(codes.into_iter().map(Into::into).collect())
    }

    /// The zone containing a point.
    pub fn lat_lon(lat: f64, lon: f64) -> Location {
        Location::LatLon { lat, lon }
    }

    fn push(&self, prefix: &str, q: &mut Vec<(String, String)>) {
        match self {
            Location::Zones(codes) => {
                let joined = codes
                    .iter()
                    .map(|c| c.trim())
                    .filter(|c| !c.is_empty())
                    .collect::<Vec<_>>()
                    .join(",");
                if !joined.is_empty() {
                    q.push((format!("{prefix}zone"), joined));
                }
            }
            Location::LatLon { lat, lon } => {
                q.push((format!("{prefix}lat"), lat.to_string()));
                q.push((format!("{prefix}lon"), lon.to_string()));
            }
        }
    }
}

/// A time window `[start, end]`, sent as `start` and `end` in UTC (`YYYY-MM-DDThh:mm:ssZ`). The server
/// widens it to whole 15-minute slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeWindow {
    pub start: OffsetDateTime,
    pub end: OffsetDateTime,
}

impl TimeWindow {
    /// A window from two instants.
    pub fn new(start: OffsetDateTime, end: OffsetDateTime) -> TimeWindow {
        TimeWindow { start, end }
    }

    /// A window from two ISO 8601 strings, read like the server reads them (`Z` or an offset,
    /// naive = UTC, date-only = midnight UTC, seconds optional).
    pub fn parse(start: &str, end: &str) -> Result<TimeWindow, Error> {
        let read = |name: &str, v: &str| {
            parse_timestamp(v).map_err(|e| Error::Configuration(format!("{name}: {e}")))
        };
        Ok(TimeWindow {
            start: read("start", start)?,
            end: read("end", end)?,
        })
    }

    fn push(&self, q: &mut Vec<(String, String)>) {
        q.push(("start".into(), format_timestamp(self.start)));
        q.push(("end".into(), format_timestamp(self.end)));
    }
}

/// The only impact type of the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ImpactType {
    #[default]
    Water,
}

impl ImpactType {
    pub fn as_str(self) -> &'static str {
        "water"
    }
}

/// Builds the query pairs of one request.
#[derive(Default)]
struct Query(Vec<(String, String)>);

impl Query {
    fn location(mut self, prefix: &str, loc: &Option<Location>) -> Query {
        if let Some(l) = loc {
            l.push(prefix, &mut self.0);
        }
        self
    }
    fn window(mut self, w: &Option<TimeWindow>) -> Query {
        if let Some(w) = w {
            w.push(&mut self.0);
        }
        self
    }
    fn opt(mut self, key: &str, v: Option<&str>) -> Query {
        if let Some(v) = v {
            self.0.push((key.to_string(), v.to_string()));
        }
        self
    }
    fn flag(self, key: &str, v: Option<bool>) -> Query {
        self.opt(key, v.map(|b| if b { "true" } else { "false" }))
    }
}

/// The query pairs of a request of the endpoint table; its [`ApiRequest`] implementation (the
/// path, from the table) is derived in `typed.rs` and calls this.
pub(crate) trait QueryPairs {
    fn pairs(&self) -> Vec<(String, String)>;
}

/// Implements [`QueryPairs`]: `|s| query` builds the request `s`'s [`Query`].
macro_rules! query_pairs {
    ($ty:ident, |$s:ident| $body:expr) => {
        impl QueryPairs for $ty {
            fn pairs(&self) -> Vec<(String, String)> {
                let $s = self;
                let q: Query = $body;
                q.0
            }
        }
    };
}

/// `/zones`: metadata and neighbours of every zone (no parameters).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ZonesRequest;
query_pairs!(ZonesRequest, |_s| Query::default());

/// `/generation`: MW per production type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GenerationRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
    /// One type only (pumped storage is refused as a filter by the server).
    pub production_type: Option<ProductionType>,
}
query_pairs!(GenerationRequest, |s| Query::default()
    .location("", &s.location)
    .window(&s.window)
    .opt("production_type", s.production_type.map(|t| t.as_str())));

/// `/load`: MW consumed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
}
query_pairs!(LoadRequest, |s| Query::default()
    .location("", &s.location)
    .window(&s.window));

/// `/availability`: which time ranges each zone holds, per input and for its outputs. Without a
/// window: everything held.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AvailabilityRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
}
query_pairs!(AvailabilityRequest, |s| Query::default()
    .location("", &s.location)
    .window(&s.window));

/// `/imports`: MW received from each neighbour.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportsRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
    /// Only these sources (`source_zone` / `source_lat` + `source_lon`).
    pub source: Option<Location>,
}
query_pairs!(ImportsRequest, |s| Query::default()
    .location("", &s.location)
    .location("source_", &s.source)
    .window(&s.window));

/// `/exports`: MW sent to each neighbour.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExportsRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
    /// Only these destinations (`destination_zone` / `destination_lat` + `destination_lon`).
    pub destination: Option<Location>,
}
query_pairs!(ExportsRequest, |s| Query::default()
    .location("", &s.location)
    .location("destination_", &s.destination)
    .window(&s.window));

/// `/mix`: MW of each production type consumed in the zone after flow tracing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MixRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
    pub production_type: Option<ProductionType>,
}
query_pairs!(MixRequest, |s| Query::default()
    .location("", &s.location)
    .window(&s.window)
    .opt("production_type", s.production_type.map(|t| t.as_str())));

/// `/footprints`: carbon (gCO2/kWh) and water (l/kWh) footprints of consumption.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FootprintsRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
    /// Carbon or water; `None`: both.
    pub footprint_type: Option<FootprintType>,
    /// `None`: life-cycle.
    pub scope: Option<Scope>,
    /// `Some(false)`: local footprints (the zone's own generation only); `None`: global.
    pub use_global: Option<bool>,
}
query_pairs!(FootprintsRequest, |s| Query::default()
    .location("", &s.location)
    .window(&s.window)
    .opt("footprint_type", s.footprint_type.map(|t| t.as_str()))
    .opt("scope", s.scope.map(|t| t.as_str()))
    .flag("use_global", s.use_global));

/// `/impacts`: water impact (stress-l/kWh), operational scope.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImpactsRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
    /// Only water exists; `None` leaves it to the server.
    pub impact_type: Option<ImpactType>,
    /// Only operational is accepted by the server.
    pub scope: Option<Scope>,
    pub use_global: Option<bool>,
}
query_pairs!(ImpactsRequest, |s| Query::default()
    .location("", &s.location)
    .window(&s.window)
    .opt("impact_type", s.impact_type.map(|t| t.as_str()))
    .opt("scope", s.scope.map(|t| t.as_str()))
    .flag("use_global", s.use_global));

/// `/green-score` (or `/environmental-score`, the same answer): 0–100, higher is better.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
    /// Only operational is accepted by the server.
    pub scope: Option<Scope>,
    pub use_global: Option<bool>,
}
query_pairs!(ScoreRequest, |s| Query::default()
    .location("", &s.location)
    .window(&s.window)
    .opt("scope", s.scope.map(|t| t.as_str()))
    .flag("use_global", s.use_global));

/// What `/best-window` ranks a job by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Metric {
    /// A footprint (`footprint_type`, `scope`); lower is better.
    #[default]
    Footprint,
    /// The water impact; lower is better.
    Impact,
    /// The 0–100 score; higher is better.
    Score,
}

impl Metric {
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Footprint => "footprint",
            Metric::Impact => "impact",
            Metric::Score => "score",
        }
    }
}

/// `/best-window`: the best placements of a job of `duration` over the zones (or countries) and the
/// forecast. `start` and `end` may each be left to the server (the current slot; the data's end).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BestWindowRequest {
    pub location: Option<Location>,
    /// Whole minutes (`"120"`) or ISO 8601 (`"PT2H"`); the server rounds up to whole slots.
    pub duration: String,
    pub start: Option<OffsetDateTime>,
    pub end: Option<OffsetDateTime>,
    /// `None`: footprint.
    pub metric: Option<Metric>,
    /// With the footprint metric; `None`: carbon.
    pub footprint_type: Option<FootprintType>,
    pub scope: Option<Scope>,
    pub use_global: Option<bool>,
    /// How many placements (1–100); `None`: 3.
    pub n: Option<u32>,
}
query_pairs!(BestWindowRequest, |s| Query::default()
    .location("", &s.location)
    .opt("duration", Some(s.duration.as_str()))
    .opt("start", s.start.map(format_timestamp).as_deref())
    .opt("end", s.end.map(format_timestamp).as_deref())
    .opt("metric", s.metric.map(|m| m.as_str()))
    .opt("footprint_type", s.footprint_type.map(|t| t.as_str()))
    .opt("scope", s.scope.map(|t| t.as_str()))
    .flag("use_global", s.use_global)
    .opt("n", s.n.map(|n| n.to_string()).as_deref()));

/// `/flow-share`: % of the zone's generation consumed in each destination.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlowShareRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
    pub destination: Option<Location>,
}
query_pairs!(FlowShareRequest, |s| Query::default()
    .location("", &s.location)
    .location("destination_", &s.destination)
    .window(&s.window));

/// `/mix-share`: % of the zone's consumption coming from each origin.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MixShareRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
    pub origin: Option<Location>,
}
query_pairs!(MixShareRequest, |s| Query::default()
    .location("", &s.location)
    .location("origin_", &s.origin)
    .window(&s.window));

/// `/footprint-share`: the part of the zone's footprint coming from each source zone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FootprintShareRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
    pub source: Option<Location>,
    pub footprint_type: Option<FootprintType>,
    pub scope: Option<Scope>,
}
query_pairs!(FootprintShareRequest, |s| {
    Query::default()
        .location("", &s.location)
        .location("source_", &s.source)
        .window(&s.window)
        .opt("footprint_type", s.footprint_type.map(|t| t.as_str()))
        .opt("scope", s.scope.map(|t| t.as_str()))
});

/// `/impact-share`: the part of the zone's water impact coming from each source zone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImpactShareRequest {
    pub location: Option<Location>,
    pub window: Option<TimeWindow>,
    pub source: Option<Location>,
    pub impact_type: Option<ImpactType>,
    pub scope: Option<Scope>,
}
query_pairs!(ImpactShareRequest, |s| Query::default()
    .location("", &s.location)
    .location("source_", &s.source)
    .window(&s.window)
    .opt("impact_type", s.impact_type.map(|t| t.as_str()))
    .opt("scope", s.scope.map(|t| t.as_str())));

/// `/factors`: emission and water factors per production type (no location, no flags).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FactorsRequest {
    pub factor_type: Option<FootprintType>,
    /// `None`: both scopes.
    pub scope: Option<Scope>,
    /// `None`: every type (pumped storage is accepted here).
    pub production_type: Option<ProductionType>,
    pub window: Option<TimeWindow>,
}
query_pairs!(FactorsRequest, |s| Query::default()
    .window(&s.window)
    .opt("factor_type", s.factor_type.map(|t| t.as_str()))
    .opt("scope", s.scope.map(|t| t.as_str()))
    .opt("production_type", s.production_type.map(|t| t.as_str())));

/// The public `/status` endpoint and its sub-paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StatusRequest {
    /// `/status`: every component.
    #[default]
    All,
    Storage,
    EntsoE,
    Elexon,
    Epias,
}

impl ApiRequest for StatusRequest {
    fn path(&self) -> &'static str {
        match self {
            StatusRequest::All => "status",
            StatusRequest::Storage => "status/storage",
            StatusRequest::EntsoE => "status/entso-e",
            StatusRequest::Elexon => "status/elexon",
            StatusRequest::Epias => "status/epias",
        }
    }
    fn query(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(r: &dyn ApiRequest) -> String {
        r.query()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    }

    #[test]
    fn parameters_are_the_contracts() {
        let w = TimeWindow::parse("2024-06-15T00:00Z", "2024-06-15T02:00+02:00").unwrap();
        let r = FootprintsRequest {
            location: Some(Location::zones(["ES", "FR"])),
            window: Some(w),
            footprint_type: Some(FootprintType::Water),
            scope: Some(Scope::Operational),
            use_global: Some(false),
        };
        assert_eq!(
            q(&r),
            "zone=ES,FR&start=2024-06-15T00:00:00Z&end=2024-06-15T00:00:00Z&footprint_type=water&scope=operational&use_global=false"
        );
        assert_eq!(q(&Aggregate(&r)), format!("{}&aggregate=true", q(&r)));
        let r = ImportsRequest {
            location: Some(Location::lat_lon(40.4, -3.7)),
            source: Some(Location::zone("PT")),
            window: None,
        };
        assert_eq!(q(&r), "lat=40.4&lon=-3.7&source_zone=PT");
        let r = MixShareRequest {
            origin: Some(Location::lat_lon(52.5, 13.4)),
            ..Default::default()
        };
        assert_eq!(q(&r), "origin_lat=52.5&origin_lon=13.4");
        assert_eq!(
            q(&GenerationRequest {
                production_type: Some(ProductionType::WindOffshore),
                location: Some(Location::Zones(vec![])),
                ..Default::default()
            }),
            "production_type=wind_offshore"
        );
        assert_eq!(
            q(&FactorsRequest {
                factor_type: Some(FootprintType::Carbon),
                scope: Some(Scope::LifeCycle),
                production_type: Some(ProductionType::HydroPumpedStorage),
                window: None,
            }),
            "factor_type=carbon&scope=life-cycle&production_type=hydro_pumped_storage"
        );
        assert_eq!(StatusRequest::EntsoE.path(), "status/entso-e");
        assert!(TimeWindow::parse("yesterday", "2024-01-01").is_err());
    }
}
