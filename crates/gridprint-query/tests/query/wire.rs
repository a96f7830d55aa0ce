//! The wire queries round-trip: each `/v1` endpoint's query, as a client fills it in, written to
//! pairs (`to_pairs`, what the client sends) and read back by the server's parser (`from_pairs`,
//! then the request it resolves to) is the same query; and every pair it writes is a parameter its
//! OpenAPI list names.

use crate::fixture::*;
use gridprint_core::production::ProductionType;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::parse_timestamp;
use gridprint_query::ZoneLocator;
use gridprint_query::endpoints::{self, EndpointDef};
use gridprint_query::params::ParseContext;
use gridprint_responses::query::{
    AvailabilityQuery, BestWindowQuery, ExportsQuery, FactorsQuery, FlowShareQuery,
    FootprintShareQuery, FootprintsQuery, ForecastAccuracyQuery, GenerationQuery, ImpactShareQuery,
    ImpactType, ImpactsQuery, ImportsQuery, LoadQuery, Location, Metric, MixQuery, MixShareQuery,
    Period, QueryParams, ScoreQuery, WireQuery, ZonesQuery,
};
use std::fmt::Debug;
use std::sync::OnceLock;

fn locator() -> &'static ZoneLocator {
    static L: OnceLock<ZoneLocator> = OnceLock::new();
    L.get_or_init(|| {
        let r = reference();
        ZoneLocator::from_geojson(&r.geojson, &r.zones).unwrap()
    })
}

/// Writes `query`, reads the pairs back as endpoint `E`'s server does, and checks both the query
/// read and that the request resolves; every name written is one of the published parameters.
fn round_trip<E>(query: E::Query)
where
    E: EndpointDef,
    E::Query: Clone + PartialEq + Debug,
{
    let r = reference();
    let ctx = ParseContext {
        zones: &r.zones,
        locator: locator(),
        now: NOW,
    };
    let pairs = query.to_pairs();
    let published: Vec<String> = E::Query::parameters().into_iter().map(|p| p.name).collect();
    for (name, _) in &pairs {
        assert!(published.contains(name), "{name} is not published");
    }
    let read = E::Query::from_pairs(&QueryParams::new(&pairs), &ctx)
        .unwrap_or_else(|e| panic!("{pairs:?}: {e}"));
    assert_eq!(read, query, "{pairs:?}");
    gridprint_query::parse::<E>(&pairs, &ctx).unwrap_or_else(|e| panic!("{pairs:?}: {e}"));
}

fn period(start: &str, end: &str) -> Option<Period> {
    Some(Period::parse(start, end).unwrap())
}

#[test]
fn every_endpoint_query_round_trips() {
    let de_fr = Some(Location::zones(["DE", "FR"]));
    let berlin = Some(Location::lat_lon(52.52, 13.4));
    let day = period("2024-06-15T00:00:00Z", "2024-06-16T00:00:00Z");
    let at = |s: &str| Some(parse_timestamp(s).unwrap());

    round_trip::<endpoints::ZonesEndpoint>(ZonesQuery);
    for location in [None, de_fr.clone(), berlin.clone()] {
        round_trip::<endpoints::LoadEndpoint>(LoadQuery {
            location: location.clone(),
            window: day,
        });
        round_trip::<endpoints::AvailabilityEndpoint>(AvailabilityQuery {
            location: location.clone(),
            window: day,
        });
        round_trip::<endpoints::ForecastAccuracyEndpoint>(ForecastAccuracyQuery { location });
    }
    round_trip::<endpoints::GenerationEndpoint>(GenerationQuery {
        location: berlin.clone(),
        window: day,
        production_type: Some(ProductionType::WindOffshore),
    });
    round_trip::<endpoints::MixEndpoint>(MixQuery {
        location: de_fr.clone(),
        window: None,
        production_type: Some(ProductionType::Solar),
    });
    round_trip::<endpoints::ImportsEndpoint>(ImportsQuery {
        location: de_fr.clone(),
        source: berlin.clone(),
        window: day,
    });
    round_trip::<endpoints::ExportsEndpoint>(ExportsQuery {
        location: berlin.clone(),
        destination: Some(Location::zone("NL")),
        window: day,
    });
    round_trip::<endpoints::FlowShareEndpoint>(FlowShareQuery {
        location: de_fr.clone(),
        destination: de_fr.clone(),
        window: None,
    });
    round_trip::<endpoints::MixShareEndpoint>(MixShareQuery {
        location: de_fr.clone(),
        origin: berlin.clone(),
        window: day,
    });
    round_trip::<endpoints::FootprintShareEndpoint>(FootprintShareQuery {
        location: de_fr.clone(),
        source: Some(Location::zone("PL")),
        window: day,
        footprint_type: Some(FootprintType::Water),
        scope: Some(Scope::Operational),
    });
    round_trip::<endpoints::ImpactShareEndpoint>(ImpactShareQuery {
        location: berlin.clone(),
        source: de_fr.clone(),
        window: day,
        impact_type: Some(ImpactType::Water),
        scope: Some(Scope::Operational),
    });
    round_trip::<endpoints::FootprintsEndpoint>(FootprintsQuery {
        location: Some(Location::zones(["DE", "DK"])),
        window: day,
        footprint_type: Some(FootprintType::Carbon),
        scope: Some(Scope::LifeCycle),
        aggregate: Some(true),
        use_global: Some(false),
    });
    round_trip::<endpoints::FootprintsEndpoint>(FootprintsQuery::default());
    round_trip::<endpoints::ImpactsEndpoint>(ImpactsQuery {
        location: berlin.clone(),
        window: day,
        impact_type: Some(ImpactType::Water),
        scope: Some(Scope::Operational),
        aggregate: Some(false),
        use_global: Some(true),
    });
    let score = ScoreQuery {
        location: de_fr.clone(),
        window: day,
        scope: Some(Scope::Operational),
        aggregate: Some(true),
        use_global: Some(false),
    };
    round_trip::<endpoints::GreenScoreEndpoint>(score.clone());
    round_trip::<endpoints::EnvironmentalScoreEndpoint>(score);
    round_trip::<endpoints::FactorsEndpoint>(FactorsQuery {
        window: day,
        factor_type: Some(FootprintType::Water),
        scope: Some(Scope::LifeCycle),
        production_type: Some(ProductionType::Coal),
        aggregate: Some(true),
    });
    round_trip::<endpoints::BestWindowEndpoint>(BestWindowQuery {
        location: Some(Location::zones(["DE", "SE"])),
        duration: "PT2H".into(),
        start: at("2024-06-20T12:00:00Z"),
        end: at("2024-06-21T12:00:00Z"),
        metric: Some(Metric::Footprint),
        footprint_type: Some(FootprintType::Water),
        impact_type: None,
        scope: Some(Scope::Operational),
        use_global: Some(false),
        n: Some(5),
    });
    round_trip::<endpoints::BestWindowEndpoint>(BestWindowQuery {
        location: berlin,
        duration: "90".into(),
        metric: Some(Metric::Impact),
        impact_type: Some(ImpactType::Water),
        scope: Some(Scope::Operational),
        ..Default::default()
    });
    round_trip::<endpoints::BestWindowEndpoint>(BestWindowQuery {
        duration: "45".into(),
        end: at("2024-06-22T00:00:00Z"),
        metric: Some(Metric::Score),
        ..Default::default()
    });
}
