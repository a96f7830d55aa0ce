//! Typed requests: the wire queries of gridprint-responses' `query`, one struct per `/v1` endpoint
//! (the structs the server reads and OpenAPI lists), each with its path here ([`ApiRequest`]) and
//! written by its own `to_pairs`, so the client sends exactly the parameters the server reads.
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
//! that supports `aggregate=true`. The client's methods for them are in `typed.rs`.

pub use gridprint_responses::query::{
    AvailabilityQuery, BestWindowQuery, ExportsQuery, FactorsQuery, FlowShareQuery,
    FootprintShareQuery, FootprintsQuery, ForecastAccuracyQuery, GenerationQuery, ImpactShareQuery,
    ImpactType, ImpactsQuery, ImportsQuery, LoadQuery, Location, Metric, MixQuery, MixShareQuery,
    Period, ScoreQuery, WireQuery, ZonesQuery,
};

/// A request for one `/v1` endpoint: its path (after `/v1/`) and its query parameters.
pub trait ApiRequest {
    /// The path under `/v1/`, such as `footprints` or `flow-share`.
    fn path(&self) -> &'static str;
    /// The query parameters, in a stable order.
    fn query(&self) -> Vec<(String, String)>;
}

/// Requests that accept `aggregate=true` (footprints, impacts, scores, factors).
pub trait Aggregatable: ApiRequest {
    /// The query parameters of the request with `aggregate=true`.
    fn aggregate_query(&self) -> Vec<(String, String)>;
}

/// A request with `aggregate=true` set: one time-weighted average per zone and type instead of a
/// series (start and end are required by the server).
#[derive(Debug, Clone, Copy)]
pub struct Aggregate<'a, R: ?Sized>(pub &'a R);

impl<R: Aggregatable + ?Sized> ApiRequest for Aggregate<'_, R> {
    fn path(&self) -> &'static str {
        self.0.path()
    }
    fn query(&self) -> Vec<(String, String)> {
        self.0.aggregate_query()
    }
}

/// `/zones`: every zone with its metadata and neighbours, sorted by zone.
impl ApiRequest for ZonesQuery {
    fn path(&self) -> &'static str {
        "zones"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/generation`: MW per production type.
impl ApiRequest for GenerationQuery {
    fn path(&self) -> &'static str {
        "generation"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/load`: MW consumed.
impl ApiRequest for LoadQuery {
    fn path(&self) -> &'static str {
        "load"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/imports`: MW received per source zone.
impl ApiRequest for ImportsQuery {
    fn path(&self) -> &'static str {
        "imports"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/exports`: MW sent per destination zone.
impl ApiRequest for ExportsQuery {
    fn path(&self) -> &'static str {
        "exports"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/mix`: MW per production type consumed after flow tracing.
impl ApiRequest for MixQuery {
    fn path(&self) -> &'static str {
        "mix"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/footprints`: carbon and water footprints.
impl ApiRequest for FootprintsQuery {
    fn path(&self) -> &'static str {
        "footprints"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/impacts`: water impact.
impl ApiRequest for ImpactsQuery {
    fn path(&self) -> &'static str {
        "impacts"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/green-score` (same answer as `/environmental-score`): the 0–100 score.
impl ApiRequest for ScoreQuery {
    fn path(&self) -> &'static str {
        "green-score"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/flow-share`: % of generation consumed per destination.
impl ApiRequest for FlowShareQuery {
    fn path(&self) -> &'static str {
        "flow-share"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/mix-share`: % of consumption per origin.
impl ApiRequest for MixShareQuery {
    fn path(&self) -> &'static str {
        "mix-share"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/footprint-share`: footprint parts per source zone.
impl ApiRequest for FootprintShareQuery {
    fn path(&self) -> &'static str {
        "footprint-share"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/impact-share`: water-impact parts per source zone.
impl ApiRequest for ImpactShareQuery {
    fn path(&self) -> &'static str {
        "impact-share"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/factors`: factors per production type and scope.
impl ApiRequest for FactorsQuery {
    fn path(&self) -> &'static str {
        "factors"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/best-window`: the best placements of a job, best first.
impl ApiRequest for BestWindowQuery {
    fn path(&self) -> &'static str {
        "best-window"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/availability`: which zones and time ranges hold data.
impl ApiRequest for AvailabilityQuery {
    fn path(&self) -> &'static str {
        "availability"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

/// `/forecast-accuracy`: how far off the forecast has been.
impl ApiRequest for ForecastAccuracyQuery {
    fn path(&self) -> &'static str {
        "forecast-accuracy"
    }
    fn query(&self) -> Vec<(String, String)> {
        self.to_pairs()
    }
}

impl Aggregatable for FootprintsQuery {
    fn aggregate_query(&self) -> Vec<(String, String)> {
        let aggregated = FootprintsQuery {
            aggregate: Some(true),
            ..self.clone()
        };
        aggregated.to_pairs()
    }
}

impl Aggregatable for ImpactsQuery {
    fn aggregate_query(&self) -> Vec<(String, String)> {
        let aggregated = ImpactsQuery {
            aggregate: Some(true),
            ..self.clone()
        };
        aggregated.to_pairs()
    }
}

impl Aggregatable for ScoreQuery {
    fn aggregate_query(&self) -> Vec<(String, String)> {
        let aggregated = ScoreQuery {
            aggregate: Some(true),
            ..self.clone()
        };
        aggregated.to_pairs()
    }
}

impl Aggregatable for FactorsQuery {
    fn aggregate_query(&self) -> Vec<(String, String)> {
        let aggregated = FactorsQuery {
            aggregate: Some(true),
            ..self.clone()
        };
        aggregated.to_pairs()
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
    use gridprint_core::production::ProductionType;
    use gridprint_core::reference::{FootprintType, Scope};

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
            aggregate: None,
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
                aggregate: None,
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
            impact_type: None,
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
