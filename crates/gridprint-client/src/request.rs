//! Typed requests: one struct per `/v1` endpoint (docs/api.md §3), each turning into exactly the
//! query parameters the server reads, in a stable order.
//!
//! Every struct has public fields and `Default`, so a request reads like the URL it becomes:
//!
//! ```
//! use gridprint_client::{FootprintsQuery, FootprintType, Location, Period};
//! let req = FootprintsQuery {
//!     location: Some(Location::zone("DE")),
//!     window: Some(Period::parse("2024-06-15T00:00Z", "2024-06-15T02:00Z").unwrap()),
//!     footprint_type: Some(FootprintType::Carbon),
//!     ..Default::default()
//! };
//! # use gridprint_client::ApiRequest;
//! assert_eq!(req.path(), "footprints");
//! ```
//!
//! `None` leaves a parameter out, so the server's default applies. [`Aggregate`] wraps a request
//! that supports `aggregate=true`. The client's methods for them are in `typed.rs`; the server
//! reads the same parameters in gridprint-query's `endpoints/`.

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

    fn write_query(&self, prefix: &str, q: &mut Vec<(String, String)>) {
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

/// A period `[start, end]`, sent as `start` and `end` in UTC (`YYYY-MM-DDThh:mm:ssZ`). The server
/// widens it to whole 15-minute slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub start: OffsetDateTime,
    pub end: OffsetDateTime,
}

impl Period {
    /// A period from two instants.
    pub fn new(start: OffsetDateTime, end: OffsetDateTime) -> Period {
        Period { start, end }
    }

    /// A period from two ISO 8601 strings, read like the server reads them (`Z` or an offset,
    /// naive = UTC, date-only = midnight UTC, seconds optional).
    pub fn parse(start: &str, end: &str) -> Result<Period, Error> {
        let read = |name: &str, v: &str| {
            parse_timestamp(v).map_err(|e| Error::Configuration(format!("{name}: {e}")))
        };
        Ok(Period {
            start: read("start", start)?,
            end: read("end", end)?,
        })
    }

    fn write_query(&self, q: &mut Vec<(String, String)>) {
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

/// Writes `name=value` when there is a value (`None` leaves the server's default).
fn push<V: Into<String>>(q: &mut Vec<(String, String)>, name: &str, value: Option<V>) {
    if let Some(v) = value {
        q.push((name.into(), v.into()));
    }
}

/// A location under `prefix` (`""` for the request's own, `source_`, `destination_`, `origin_`).
fn push_location(q: &mut Vec<(String, String)>, prefix: &str, location: &Option<Location>) {
    if let Some(l) = location {
        l.write_query(prefix, q);
    }
}

/// `start` and `end`.
fn push_period(q: &mut Vec<(String, String)>, period: &Option<Period>) {
    if let Some(p) = period {
        p.write_query(q);
    }
}

fn bool_str(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

/// `/zones`: every zone with its metadata and neighbours, sorted by zone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ZonesQuery;

impl ApiRequest for ZonesQuery {
    fn path(&self) -> &'static str {
        "zones"
    }
    fn query(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// `/generation`: MW per production type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GenerationQuery {
    pub location: Option<Location>,
    pub window: Option<Period>,
    /// One type only (pumped storage is refused as a filter by the server).
    pub production_type: Option<ProductionType>,
}

impl ApiRequest for GenerationQuery {
    fn path(&self) -> &'static str {
        "generation"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_period(&mut q, &self.window);
        push(
            &mut q,
            "production_type",
            self.production_type.map(ProductionType::as_str),
        );
        q
    }
}

/// `/load`: MW consumed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadQuery {
    pub location: Option<Location>,
    pub window: Option<Period>,
}

impl ApiRequest for LoadQuery {
    fn path(&self) -> &'static str {
        "load"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_period(&mut q, &self.window);
        q
    }
}

/// `/imports`: MW received per source zone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportsQuery {
    pub location: Option<Location>,
    /// Only these sources (`source_zone` / `source_lat` + `source_lon`).
    pub source: Option<Location>,
    pub window: Option<Period>,
}

impl ApiRequest for ImportsQuery {
    fn path(&self) -> &'static str {
        "imports"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_location(&mut q, "source_", &self.source);
        push_period(&mut q, &self.window);
        q
    }
}

/// `/exports`: MW sent per destination zone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExportsQuery {
    pub location: Option<Location>,
    /// Only these destinations (`destination_zone` / `destination_lat` +
    /// `destination_lon`).
    pub destination: Option<Location>,
    pub window: Option<Period>,
}

impl ApiRequest for ExportsQuery {
    fn path(&self) -> &'static str {
        "exports"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_location(&mut q, "destination_", &self.destination);
        push_period(&mut q, &self.window);
        q
    }
}

/// `/mix`: MW per production type consumed after flow tracing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MixQuery {
    pub location: Option<Location>,
    pub window: Option<Period>,
    pub production_type: Option<ProductionType>,
}

impl ApiRequest for MixQuery {
    fn path(&self) -> &'static str {
        "mix"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_period(&mut q, &self.window);
        push(
            &mut q,
            "production_type",
            self.production_type.map(ProductionType::as_str),
        );
        q
    }
}

/// `/footprints`: carbon and water footprints as series.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FootprintsQuery {
    pub location: Option<Location>,
    pub window: Option<Period>,
    /// Carbon or water; `None`: both.
    pub footprint_type: Option<FootprintType>,
    /// `None`: life-cycle.
    pub scope: Option<Scope>,
    /// `Some(false)`: local footprints (the zone's own generation only); `None`:
    /// global.
    pub use_global: Option<bool>,
}

impl ApiRequest for FootprintsQuery {
    fn path(&self) -> &'static str {
        "footprints"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_period(&mut q, &self.window);
        push(
            &mut q,
            "footprint_type",
            self.footprint_type.map(FootprintType::as_str),
        );
        push(&mut q, "scope", self.scope.map(Scope::as_str));
        push(&mut q, "use_global", self.use_global.map(bool_str));
        q
    }
}

/// `/footprints` takes `aggregate=true`.
impl Aggregatable for FootprintsQuery {}

/// `/impacts`: water impact series.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImpactsQuery {
    pub location: Option<Location>,
    pub window: Option<Period>,
    /// Only water exists; `None` leaves it to the server.
    pub impact_type: Option<ImpactType>,
    /// Only operational is accepted by the server.
    pub scope: Option<Scope>,
    pub use_global: Option<bool>,
}

impl ApiRequest for ImpactsQuery {
    fn path(&self) -> &'static str {
        "impacts"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_period(&mut q, &self.window);
        push(
            &mut q,
            "impact_type",
            self.impact_type.map(ImpactType::as_str),
        );
        push(&mut q, "scope", self.scope.map(Scope::as_str));
        push(&mut q, "use_global", self.use_global.map(bool_str));
        q
    }
}

/// `/impacts` takes `aggregate=true`.
impl Aggregatable for ImpactsQuery {}

/// `/green-score` (same answer as `/environmental-score`): 0–100 series.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreQuery {
    pub location: Option<Location>,
    pub window: Option<Period>,
    /// Only operational is accepted by the server.
    pub scope: Option<Scope>,
    pub use_global: Option<bool>,
}

impl ApiRequest for ScoreQuery {
    fn path(&self) -> &'static str {
        "green-score"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_period(&mut q, &self.window);
        push(&mut q, "scope", self.scope.map(Scope::as_str));
        push(&mut q, "use_global", self.use_global.map(bool_str));
        q
    }
}

/// `/green-score` takes `aggregate=true`.
impl Aggregatable for ScoreQuery {}

/// `/flow-share`: % of generation consumed per destination.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlowShareQuery {
    pub location: Option<Location>,
    pub destination: Option<Location>,
    pub window: Option<Period>,
}

impl ApiRequest for FlowShareQuery {
    fn path(&self) -> &'static str {
        "flow-share"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_location(&mut q, "destination_", &self.destination);
        push_period(&mut q, &self.window);
        q
    }
}

/// `/mix-share`: % of consumption per origin.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MixShareQuery {
    pub location: Option<Location>,
    pub origin: Option<Location>,
    pub window: Option<Period>,
}

impl ApiRequest for MixShareQuery {
    fn path(&self) -> &'static str {
        "mix-share"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_location(&mut q, "origin_", &self.origin);
        push_period(&mut q, &self.window);
        q
    }
}

/// `/footprint-share`: footprint parts per source zone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FootprintShareQuery {
    pub location: Option<Location>,
    pub source: Option<Location>,
    pub window: Option<Period>,
    pub footprint_type: Option<FootprintType>,
    pub scope: Option<Scope>,
}

impl ApiRequest for FootprintShareQuery {
    fn path(&self) -> &'static str {
        "footprint-share"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_location(&mut q, "source_", &self.source);
        push_period(&mut q, &self.window);
        push(
            &mut q,
            "footprint_type",
            self.footprint_type.map(FootprintType::as_str),
        );
        push(&mut q, "scope", self.scope.map(Scope::as_str));
        q
    }
}

/// `/impact-share`: water-impact parts per source zone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImpactShareQuery {
    pub location: Option<Location>,
    pub source: Option<Location>,
    pub window: Option<Period>,
    pub impact_type: Option<ImpactType>,
    pub scope: Option<Scope>,
}

impl ApiRequest for ImpactShareQuery {
    fn path(&self) -> &'static str {
        "impact-share"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_location(&mut q, "source_", &self.source);
        push_period(&mut q, &self.window);
        push(
            &mut q,
            "impact_type",
            self.impact_type.map(ImpactType::as_str),
        );
        push(&mut q, "scope", self.scope.map(Scope::as_str));
        q
    }
}

/// `/factors`: factors per production type and scope.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FactorsQuery {
    pub window: Option<Period>,
    pub factor_type: Option<FootprintType>,
    /// `None`: both scopes.
    pub scope: Option<Scope>,
    /// `None`: every type (pumped storage is accepted here).
    pub production_type: Option<ProductionType>,
}

impl ApiRequest for FactorsQuery {
    fn path(&self) -> &'static str {
        "factors"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_period(&mut q, &self.window);
        push(
            &mut q,
            "factor_type",
            self.factor_type.map(FootprintType::as_str),
        );
        push(&mut q, "scope", self.scope.map(Scope::as_str));
        push(
            &mut q,
            "production_type",
            self.production_type.map(ProductionType::as_str),
        );
        q
    }
}

/// `/factors` takes `aggregate=true`.
impl Aggregatable for FactorsQuery {}

/// `/best-window`: the best placements of a job over zones and the forecast, best
/// first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BestWindowQuery {
    pub location: Option<Location>,
    /// Whole minutes (`"120"`) or ISO 8601 (`"PT2H"`); the server rounds up to
    /// whole slots.
    pub duration: String,
    /// `None`: the current slot.
    pub start: Option<OffsetDateTime>,
    /// `None`: the end of the data (the forecast's end).
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

impl ApiRequest for BestWindowQuery {
    fn path(&self) -> &'static str {
        "best-window"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push(&mut q, "duration", Some(self.duration.as_str()));
        push(&mut q, "start", self.start.map(format_timestamp));
        push(&mut q, "end", self.end.map(format_timestamp));
        push(&mut q, "metric", self.metric.map(Metric::as_str));
        push(
            &mut q,
            "footprint_type",
            self.footprint_type.map(FootprintType::as_str),
        );
        push(&mut q, "scope", self.scope.map(Scope::as_str));
        push(&mut q, "use_global", self.use_global.map(bool_str));
        push(&mut q, "n", self.n.map(|v| v.to_string()));
        q
    }
}

/// `/availability`: which zones and time ranges hold data: the time ranges held per
/// zone, input and for the outputs, as runs of one state, and the forecast's end.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AvailabilityQuery {
    pub location: Option<Location>,
    /// `None`: everything held.
    pub window: Option<Period>,
}

impl ApiRequest for AvailabilityQuery {
    fn path(&self) -> &'static str {
        "availability"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        push_period(&mut q, &self.window);
        q
    }
}

/// `/forecast-accuracy`: how far off the forecast has been, per zone, over the forecasts of the
/// last 7 and 30 days, per horizon band, beside persistence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ForecastAccuracyQuery {
    /// `None`: every zone.
    pub location: Option<Location>,
}

impl ApiRequest for ForecastAccuracyQuery {
    fn path(&self) -> &'static str {
        "forecast-accuracy"
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = Vec::new();
        push_location(&mut q, "", &self.location);
        q
    }
}

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
        let w = Period::parse("2024-06-15T00:00Z", "2024-06-15T02:00+02:00").unwrap();
        let r = FootprintsQuery {
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
        let r = ImportsQuery {
            location: Some(Location::lat_lon(40.4, -3.7)),
            source: Some(Location::zone("PT")),
            window: None,
        };
        assert_eq!(q(&r), "lat=40.4&lon=-3.7&source_zone=PT");
        let r = MixShareQuery {
            origin: Some(Location::lat_lon(52.5, 13.4)),
            ..Default::default()
        };
        assert_eq!(q(&r), "origin_lat=52.5&origin_lon=13.4");
        assert_eq!(
            q(&GenerationQuery {
                production_type: Some(ProductionType::WindOffshore),
                location: Some(Location::Zones(vec![])),
                ..Default::default()
            }),
            "production_type=wind_offshore"
        );
        assert_eq!(
            q(&FactorsQuery {
                factor_type: Some(FootprintType::Carbon),
                scope: Some(Scope::LifeCycle),
                production_type: Some(ProductionType::HydroPumpedStorage),
                window: None,
            }),
            "factor_type=carbon&scope=life-cycle&production_type=hydro_pumped_storage"
        );
        // Fields declared in the endpoint table become their parameters, in the table's order.
        let r = BestWindowQuery {
            location: Some(Location::zones(["DE", "FR"])),
            duration: "PT2H".into(),
            start: Some(w.start),
            end: None,
            metric: Some(Metric::Score),
            footprint_type: None,
            scope: Some(Scope::Operational),
            use_global: Some(true),
            n: Some(5),
        };
        assert_eq!(r.path(), "best-window");
        assert_eq!(
            q(&r),
            "zone=DE,FR&duration=PT2H&start=2024-06-15T00:00:00Z&metric=score&scope=operational&use_global=true&n=5"
        );
        let r = ExportsQuery {
            destination: Some(Location::zones(["AT", " "])),
            window: Some(w),
            ..Default::default()
        };
        assert_eq!(
            q(&r),
            "destination_zone=AT&start=2024-06-15T00:00:00Z&end=2024-06-15T00:00:00Z"
        );
        let r = ImpactsQuery {
            impact_type: Some(ImpactType::Water),
            ..Default::default()
        };
        assert_eq!((r.path(), q(&r)), ("impacts", "impact_type=water".into()));
        assert_eq!(
            (ZonesQuery.path(), q(&ZonesQuery)),
            ("zones", String::new())
        );
        assert_eq!(StatusRequest::EntsoE.path(), "status/entso-e");
        assert!(Period::parse("yesterday", "2024-01-01").is_err());
    }
}
