//! Parameter rules of docs/api.md §2–§3: every 400/404/422 and the accepted forms.

use crate::fixture::Endpoint;
use crate::fixture::*;
use gridprint_core::derived::Coverage;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{Slot, parse_timestamp};
use gridprint_query::ZoneLocator;
use gridprint_query::endpoints::{self, EndpointDef};
use gridprint_query::params::{ParseContext, PartnerFilter, ZoneSelection};
use std::sync::OnceLock;

fn locator() -> &'static ZoneLocator {
    static L: OnceLock<ZoneLocator> = OnceLock::new();
    L.get_or_init(|| {
        let r = reference();
        ZoneLocator::from_geojson(&r.geojson, &r.zones).unwrap()
    })
}

/// A table of cases, one a line: `Variant "query"` or `Variant "query" => status`, each into a
/// tuple `(Endpoint::Variant, "query")` or `(Endpoint::Variant, "query", status)`.
macro_rules! cases {
    ($($ep:ident $query:literal $(=> $status:literal)?,)*) => {
        [$((Endpoint::$ep, $query $(, $status)?)),*]
    };
}

/// Parses `query` as a typed request of endpoint `E` (the reference zones, the locator, `NOW`).
fn parse<E: EndpointDef>(query: &str) -> E::Request {
    let r = reference();
    let ctx = ParseContext {
        zones: &r.zones,
        locator: locator(),
        now: NOW,
    };
    gridprint_query::parse::<E>(&q(query), &ctx).unwrap_or_else(|e| panic!("{query}: {e}"))
}

fn idx(code: &str) -> usize {
    reference().zones.index_of_str(code).unwrap()
}

#[test]
fn every_rule_violation_gets_its_status() {
    let svc = service(&store());
    let cases = cases![
        // Location.
        Footprints "zone=ES&lat=40&lon=-3" => 400,
        Footprints "zone=ES&lat=40" => 400,
        Footprints "lat=40" => 400,
        Footprints "lon=-3" => 400,
        Footprints "lat=abc&lon=1" => 422,
        Footprints "lat=40&lon=abc" => 422,
        Footprints "lat=NaN&lon=1" => 422,
        Footprints "lat=100&lon=1" => 422,
        Footprints "lat=-90.5&lon=1" => 422,
        Footprints "lat=40&lon=200" => 422,
        Footprints "lat=45.0&lon=-30.0" => 404,
        // Time.
        Footprints "zone=ES&start=2024-06-15" => 400,
        Footprints "zone=ES&end=2024-06-15" => 400,
        Footprints "zone=ES&start=2024-06-16&end=2024-06-15" => 400,
        Footprints "zone=ES&start=yesterday&end=2024-06-15" => 422,
        Footprints "zone=ES&start=2024-06-15&end=soon" => 422,
        Footprints "zone=ES&start=2023-01-01&end=2024-06-15" => 400,
        Footprints "start=2024-01-01&end=2024-03-01" => 400,
        Footprints "zone=ES,FR&start=2024-01-01&end=2024-03-01" => 400,
        Footprints "zone=XX,YY&start=2024-01-01&end=2024-03-01" => 400,
        // Booleans and enums.
        Footprints "zone=ES&aggregate=maybe" => 422,
        Footprints "zone=ES&use_global=yess" => 422,
        // Empty values: 422 for numbers, booleans and timestamps, 400 for enums.
        Footprints "zone=ES&lat=" => 422,
        Footprints "zone=ES&aggregate=" => 422,
        Footprints "zone=ES&aggregate" => 422,
        Footprints "zone=ES&use_global=" => 422,
        Footprints "zone=ES&start=&end=" => 422,
        Footprints "zone=ES&start=" => 422,
        Footprints "zone=ES&footprint_type=" => 400,
        Footprints "zone=ES&scope=" => 400,
        Generation "zone=ES&production_type=" => 400,
        Impacts "zone=ES&impact_type=" => 400,
        // Timestamps the reference's framework rejects, and offsets beyond ±14:00.
        Footprints "zone=ES&start=2024-06-15T12:00:60Z&end=2024-06-16" => 422,
        Footprints "zone=ES&start=20240615T100000Z&end=2024-06-16" => 422,
        Footprints "zone=ES&start=2024-W24-6&end=2024-06-16" => 422,
        Footprints "zone=ES&start=2024-02-30&end=2024-03-01" => 422,
        Footprints "zone=ES&start=2024-06-15T10:00+15:00&end=2024-06-16" => 422,
        Footprints "zone=ES&start=2024-06-15T10:00-14:30&end=2024-06-16" => 422,
        // A later bad value overrides an earlier good one (the last wins).
        Imports "zone=ES&source_lat=40&source_lat=abc&source_lon=1" => 422,
        Factors "production_type=hydro_pumped_storage" => 400,
        Factors "start=2020-01-01&end=2024-12-31" => 400,
        Footprints "zone=ES&aggregate=true" => 400,
        Footprints "zone=ES&footprint_type=nitrogen" => 400,
        Footprints "zone=ES&scope=cradle" => 400,
        Generation "zone=ES&production_type=unobtainium" => 400,
        Generation "zone=ES&production_type=hydro_pumped_storage" => 400,
        Generation "zone=ES&production_type=Hydro_Pumped_Storage" => 400,
        Mix "zone=ES&production_type=hydro_pumped_storage" => 400,
        Mix "zone=ES&production_type=fusion" => 400,
        Impacts "zone=ES&impact_type=carbon" => 400,
        Impacts "zone=ES&impact_type=noise" => 400,
        Impacts "zone=ES&scope=life-cycle" => 400,
        Impacts "zone=ES&scope=cradle" => 400,
        Impacts "zone=ES&aggregate=true" => 400,
        Impacts "zone=ES&use_global=2" => 422,
        Score "zone=ES&scope=life-cycle" => 400,
        Score "zone=ES&aggregate=true" => 400,
        Score "zone=ES&aggregate=nope" => 422,
        // Secondary locations.
        Imports "zone=ES&source_zone=FR&source_lat=40&source_lon=-3" => 400,
        Imports "zone=ES&source_lat=40" => 400,
        Imports "zone=ES&source_lat=x&source_lon=1" => 422,
        Imports "zone=ES&source_lat=45&source_lon=-30" => 404,
        Exports "zone=ES&destination_lon=1" => 400,
        Exports "zone=ES&destination_lat=91&destination_lon=1" => 422,
        Exports "zone=ES&destination_lat=45&destination_lon=-30" => 404,
        FlowShare "zone=ES&destination_zone=FR&destination_lon=1" => 400,
        MixShare "zone=ES&origin_lat=1" => 400,
        MixShare "zone=ES&origin_lat=45&origin_lon=-30" => 404,
        FootprintShare "zone=ES&source_lat=40" => 400,
        FootprintShare "zone=ES&footprint_type=x" => 400,
        ImpactShare "zone=ES&impact_type=carbon" => 400,
        ImpactShare "zone=ES&scope=life-cycle" => 400,
        // Load and flows share the location and time rules.
        Load "zone=ES&lat=1&lon=1" => 400,
        Load "start=2024-06-15" => 400,
        // Factors.
        Factors "factor_type=nitrogen" => 400,
        Factors "scope=x" => 400,
        Factors "production_type=x" => 400,
        Factors "aggregate=x" => 422,
        Factors "start=2024-01-01" => 400,
        Factors "start=2024-01-02&end=2024-01-01" => 400,
    ];
    for (ep, query, status) in cases {
        let e = err(&svc, ep, query);
        assert_eq!(e.status, status, "{ep:?}?{query}: {e}");
        assert!(!e.detail.is_empty());
    }
}

#[test]
fn messages_name_the_rule() {
    let svc = service(&store());
    let cases = cases![
        Footprints "zone=ES&start=2023-01-01&end=2024-06-15" => "366 days",
        Footprints "start=2024-01-01&end=2024-03-01" => "31 days",
        Footprints "zone=ES&aggregate=true" => "start and end",
        Generation "zone=ES&production_type=x" => "wind_onshore",
        Footprints "lat=45.0&lon=-30.0" => "no supported zone",
    ];
    for (ep, query, want) in cases {
        let e = err(&svc, ep, query);
        assert!(e.detail.contains(want), "{ep:?}?{query}: {}", e.detail);
    }
}

#[test]
fn accepted_forms() {
    let svc = service(&store());
    let ok = cases![
        Footprints "",
        Footprints "zone=",
        Footprints "zone=ES&start=2024-06-15T00:00Z&end=2024-06-15T00:00Z",
        Footprints "zone=ES&start=2024-01-01&end=2024-12-31",
        Footprints "zone=ES&start=2024-01-01&end=2025-01-01",
        Footprints "start=2024-06-01&end=2024-07-01",
        Footprints "zone=XX",
        Footprints "zone=E$",
        Footprints "zone=es,FR,xx",
        Footprints "zone=ES&footprint_type=Carbon&scope=LIFE-CYCLE&aggregate=TRUE&use_global=0&start=2024-06-15&end=2024-06-16",
        Footprints "zone=ES&aggregate=off&use_global=Yes",
        Footprints "zone=ES&aggregate=N&use_global=t",
        Footprints "zone=ES&start=1718445600&end=1718452800",
        Footprints "zone=ES&start=1718445600.5&end=1718452800000",
        Footprints "zone=ES&start=2024-06-15t10:00:00z&end=2024-06-15 12:00",
        Footprints "zone=ES&start=2024-06-15T10:00+14:00&end=2024-06-15T05:59:59.999Z",
        Footprints "zone=ES&unknown=1&format=csv",
        Footprints "lat=40.4&lon=-3.7",
        Impacts "zone=ES&impact_type=WATER&scope=Operational&use_global=false",
        Score "zone=ES&scope=operational&aggregate=1&start=2024-06-15&end=2024-06-15T06:00Z",
        Generation "zone=ES&production_type=Wind_Onshore",
        Imports "zone=ES&source_zone=fr",
        Imports "zone=ES&source_lat=48.85&source_lon=2.35",
        Exports "zone=ES&destination_zone=FR,PT",
        MixShare "zone=ES&origin_zone=FR",
        FootprintShare "zone=ES&source_zone=FR&footprint_type=water&scope=operational",
        ImpactShare "zone=ES&source_zone=FR&impact_type=water",
        Factors "aggregate=true",
        Factors "factor_type=WATER&scope=Life-Cycle&start=2020-01-01&end=2024-12-31&aggregate=true",
        Zones "zone=ES&lat=1",
    ];
    for (ep, query) in ok {
        if let Err(e) = ep.query(&svc, &q(query), NOW) {
            panic!("{ep:?}?{query}: {e}");
        }
    }
}

#[test]
fn typed_requests() {
    let req = parse::<endpoints::FootprintsEndpoint>("zone=pt");
    assert_eq!(req.base.zones, ZoneSelection::Zones(vec![idx("PT")]));
    assert_eq!(
        req.footprint_types,
        vec![FootprintType::Carbon, FootprintType::Water]
    );
    assert_eq!(req.scope, Scope::LifeCycle);
    assert_eq!(req.base.coverage, Coverage::Global);
    assert!(!req.base.aggregate);
    // Neither start nor end: the current slot.
    assert_eq!(req.base.window.range.start, Slot::containing(NOW));
    assert_eq!(req.base.window.range.len(), 1);
    assert_eq!(req.base.window.requested, None);

    // Comma list: known zones in code order, unknown ones dropped; duplicates: the last wins.
    for (query, want) in [
        (
            "zone=DE&zone=FR,es,XX,ES",
            ZoneSelection::Zones(vec![idx("ES"), idx("FR")]),
        ),
        (
            "zone=FR,es,XX,ES&zone=DE",
            ZoneSelection::Zones(vec![idx("DE")]),
        ),
        ("zone=", ZoneSelection::All),
    ] {
        assert_eq!(
            parse::<endpoints::LoadEndpoint>(query).zones,
            want,
            "{query}"
        );
    }

    // Window rule.
    let req = parse::<endpoints::LoadEndpoint>(
        "zone=ES&start=2024-06-15T00:07:00Z&end=2024-06-15T00:31:00Z",
    );
    assert_eq!(
        req.window.range.start,
        Slot::containing(parse_timestamp("2024-06-15T00:00Z").unwrap())
    );
    assert_eq!(req.window.range.len(), 3);
    let req = parse::<endpoints::LoadEndpoint>(
        "zone=ES&start=2024-06-15T02:00+02:00&end=2024-06-15T00:15",
    );
    assert_eq!(req.window.range.start, Slot::containing(DAY0));
    assert_eq!(req.window.range.len(), 1);

    // use_global=false → local; footprint_type filter; scope operational.
    let req = parse::<endpoints::FootprintsEndpoint>(
        "zone=ES&use_global=FALSE&footprint_type=water&scope=operational",
    );
    assert_eq!(req.base.coverage, Coverage::Local);
    assert_eq!(req.footprint_types, vec![FootprintType::Water]);
    assert_eq!(req.scope, Scope::Operational);

    // Secondary locations by code and by point.
    let req = parse::<endpoints::ImportsEndpoint>("zone=ES&source_zone=fr,pt");
    assert_eq!(req.partners, PartnerFilter::Only(vec![z("FR"), z("PT")]));
    let req =
        parse::<endpoints::ExportsEndpoint>("zone=ES&destination_lat=48.85&destination_lon=2.35");
    assert_eq!(req.partners, PartnerFilter::Only(vec![z("FR")]));
    let req = parse::<endpoints::MixShareEndpoint>("zone=ES");
    assert_eq!(req.partners, PartnerFilter::Any);
}

#[test]
fn lat_lon_resolve_to_zones() {
    let l = locator();
    let r = reference();
    let at = |lat, lon| {
        l.locate(lat, lon)
            .map(|i| r.zones.code(i).as_str().to_string())
    };
    assert_eq!(at(40.4, -3.7).as_deref(), Some("ES")); // Madrid
    assert_eq!(at(48.85, 2.35).as_deref(), Some("FR")); // Paris
    assert_eq!(at(52.52, 13.40).as_deref(), Some("DE")); // Berlin
    assert_eq!(at(38.72, -9.14).as_deref(), Some("PT")); // Lisbon
    assert_eq!(at(59.91, 10.75).as_deref(), Some("NO1")); // Oslo
    assert_eq!(at(45.0, -30.0), None); // Atlantic
    assert_eq!(at(64.1, -21.9), None); // Reykjavik: IS is not a zone
    assert!(l.len() >= 50, "{} zones with polygons", l.len());

    let req = parse::<endpoints::FootprintsEndpoint>("lat=40.4&lon=-3.7");
    assert_eq!(req.base.zones, ZoneSelection::Zones(vec![idx("ES")]));
    let req = parse::<endpoints::FootprintsEndpoint>(
        "lat=48.85&lon=2.35&start=2024-01-01&end=2024-12-31",
    );
    assert_eq!(
        req.base.zones,
        ZoneSelection::Zones(vec![idx("FR")]),
        "a point is one zone: the 366-day limit applies"
    );
}

/// The 422 of wrongly typed parameters is the reference framework's list: one item per failing
/// parameter, in the endpoint's declaration order, with the framework's type, message and context.
#[test]
fn typed_parameter_errors_are_the_frameworks_items() {
    let svc = service(&store());
    let items = |ep, query| {
        let e = err(&svc, ep, query);
        assert_eq!(e.status, 422, "{query}: {e}");
        serde_json::to_value(&e.errors).unwrap()
    };
    assert_eq!(
        items(Endpoint::Footprints, "lat=91&lon=5"),
        serde_json::json!([{"type": "less_than_equal", "loc": ["query", "lat"],
            "msg": "Input should be less than or equal to 90", "input": "91", "ctx": {"le": 90.0}}])
    );
    assert_eq!(
        items(Endpoint::Footprints, "lat=nan&lon=-181")[0]["type"],
        "less_than_equal"
    );
    assert_eq!(
        items(Endpoint::Footprints, "lat=1&lon=-181"),
        serde_json::json!([{"type": "greater_than_equal", "loc": ["query", "lon"],
            "msg": "Input should be greater than or equal to -180", "input": "-181", "ctx": {"ge": -180.0}}])
    );
    assert_eq!(
        items(Endpoint::MixShare, "zone=NL&origin_lat=abc&origin_lon=5"),
        serde_json::json!([{"type": "float_parsing", "loc": ["query", "origin_lat"],
            "msg": "Input should be a valid number, unable to parse string as a number", "input": "abc"}])
    );
    // Every failing parameter, in declaration order (lat, lon, start, end, aggregate, use_global).
    let v = items(
        Endpoint::Footprints,
        "use_global=2&aggregate=&start=&end=yesterday&zone=NL",
    );
    let order: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["loc"][1].as_str().unwrap())
        .collect();
    assert_eq!(order, ["start", "end", "aggregate", "use_global"]);
    assert_eq!(
        v[0]["msg"],
        "Input should be a valid datetime or date, input is too short"
    );
    assert_eq!(v[0]["ctx"]["error"], "input is too short");
    assert_eq!(
        v[2],
        serde_json::json!({"type": "bool_parsing", "loc": ["query", "aggregate"],
            "msg": "Input should be a valid boolean, unable to interpret input", "input": ""})
    );
    for (query, why) in [
        (
            "zone=NL&start=2024-02-30T00:00:00Z&end=2024-03-01",
            "day value is outside expected range",
        ),
        (
            "zone=NL&start=2024-06-15T10:00:60Z&end=2024-06-16",
            "unexpected extra characters at the end of the input",
        ),
        (
            "zone=NL&start=20240615T100000Z&end=2024-06-16",
            "invalid date separator, expected `-`",
        ),
        (
            "zone=NL&start=2024-W24-6&end=2024-06-16",
            "invalid character in month",
        ),
    ] {
        let error = &items(Endpoint::Footprints, query)[0]["ctx"]["error"];
        assert_eq!(error, why, "{query}");
    }
    // A '+' that arrived as a space: the framework's item, plus gridprint's hint.
    let v = items(
        Endpoint::Footprints,
        "zone=NL&start=2024-06-15T12:00:00 02:00&end=2024-06-16",
    );
    assert_eq!(v[0]["input"], "2024-06-15T12:00:00 02:00");
    assert!(v[0]["hint"].as_str().unwrap().contains("%2B"), "{v}");
}

/// Timestamps are read as the reference's framework reads them (Unix seconds, float seconds,
/// milliseconds, lowercase t/z), and the last of repeated values wins.
#[test]
fn timestamps_and_repeats_follow_the_framework() {
    let window = |query: &str| {
        parse::<endpoints::LoadEndpoint>(query)
            .window
            .requested
            .unwrap()
    };
    let want = window("zone=ES&start=2024-06-15T10:00:00Z&end=2024-06-15T12:00:00Z");
    for query in [
        "zone=ES&start=1718445600&end=1718452800",
        "zone=ES&start=1718445600000&end=1718452800000",
        "zone=ES&start=2024-06-15t10:00:00z&end=2024-06-15T14:00:00+02:00",
        "zone=ES&start=2024-06-15T10:00&end=2024-06-15 12:00:00",
        // Repeated: the last value wins, for every single-valued parameter.
        "zone=ES&start=2020-01-01&start=2024-06-15T10:00Z&end=2024-06-15T12:00Z",
    ] {
        assert_eq!(window(query), want, "{query}");
    }
    let (s, _) = window("zone=ES&start=1718445600.5&end=2024-06-16");
    assert_eq!(s.unix_timestamp(), 1_718_445_600);
    assert_eq!(s.millisecond(), 500);
}
