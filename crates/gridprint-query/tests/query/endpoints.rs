//! Endpoint answers on hand-made data: nesting and field names, values, flags grouping, aggregates,
//! dropped points, CSV, refresh.

use crate::fixture::*;
use gridprint_core::derived::{Coverage, SeriesKey, SlotFlags};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::{DataState, ZoneStatus};
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_query::endpoints::{ProviderStates, status, status_component};
use gridprint_query::{Endpoint, LoadOptions, QueryService};
use gridprint_store_sqlite::SqliteStore;
use serde_json::{Value, json};

const W: &str = "start=2024-06-15T00:00:00Z&end=2024-06-16T00:00:00Z";

/// ES and FR with derived values, ES/FR/PT with raw inputs (PT without derived flags).
///
/// Exchanges (MW generated in the origin, consumed in the zone): ES consumes 900 of its own, 100 from
/// FR and 0 from PT (L = 1000, G = 1200); FR consumes 1600 of its own and 300 from ES (L = 1900,
/// G = 2000). Local carbon life-cycle footprints: ES 50, FR 60; local impacts: ES 2, FR 5.
fn basic_store() -> SqliteStore {
    let s = store();
    let local_carbon = footprint(FootprintType::Carbon, Scope::LifeCycle, Coverage::Local);
    let local_impact = SeriesKey::Impact {
        coverage: Coverage::Local,
    };
    let exchange = |o: &str| SeriesKey::Exchange { origin: z(o) };
    let mut es = derived_day("ES");
    for i in 0..96 {
        es.set(carbon_lc_global(), i, 100.0 + i as f64);
        es.set(local_carbon.clone(), i, 50.0);
        es.set(
            footprint(FootprintType::Water, Scope::LifeCycle, Coverage::Global),
            i,
            1.5,
        );
        es.set(
            SeriesKey::Impact {
                coverage: Coverage::Global,
            },
            i,
            3.0,
        );
        es.set(local_impact.clone(), i, 2.0);
        es.set(
            SeriesKey::Score {
                coverage: Coverage::Global,
            },
            i,
            80.0,
        );
        es.set(SeriesKey::Mix(ProductionType::Solar), i, 1000.0);
        es.set(SeriesKey::Mix(ProductionType::Gas), i, 500.0);
        es.set(SeriesKey::Generation, i, 1200.0);
        es.set(SeriesKey::Consumption, i, 1000.0);
        es.set(exchange("ES"), i, 900.0);
        es.set(exchange("FR"), i, 100.0);
        es.set(exchange("PT"), i, 0.0);
    }
    // Water: a negative and a NaN point are never served.
    es.set(
        footprint(FootprintType::Water, Scope::LifeCycle, Coverage::Global),
        0,
        -1.0,
    );
    es.set(
        footprint(FootprintType::Water, Scope::LifeCycle, Coverage::Global),
        1,
        f64::NAN,
    );
    let mut fr = derived_day("FR");
    for i in 0..96 {
        fr.set(carbon_lc_global(), i, 50.0);
        fr.set(local_carbon.clone(), i, 60.0);
        fr.set(local_impact.clone(), i, 5.0);
        fr.set(SeriesKey::Generation, i, 2000.0);
        fr.set(SeriesKey::Consumption, i, 1900.0);
        fr.set(exchange("FR"), i, 1600.0);
        fr.set(exchange("ES"), i, 300.0);
    }
    put_days(&s, &[es, fr]);
    let mut pts = Vec::new();
    for i in 0..4 {
        pts.push(gen_point(
            "ES",
            ProductionType::Coal,
            slot(i),
            1000.0 + i as f64,
            DataState::Official,
            "ENTSO-E",
        ));
        pts.push(load_point(
            "ES",
            slot(i),
            30_000.0,
            DataState::Official,
            "ENTSO-E",
        ));
        pts.push(flow_point(
            "FR",
            "ES",
            slot(i),
            300.0,
            DataState::Official,
            "ENTSO-E",
        ));
        pts.push(flow_point(
            "ES",
            "PT",
            slot(i),
            200.0,
            DataState::Official,
            "ENTSO-E",
        ));
    }
    for i in 0..2 {
        pts.push(gen_point(
            "ES",
            ProductionType::Gas,
            slot(i),
            700.0,
            DataState::Estimated,
            "gridprint-estimation:linear",
        ));
    }
    // A negative generation point is dropped.
    pts.push(gen_point(
        "ES",
        ProductionType::Gas,
        slot(2),
        -5.0,
        DataState::Official,
        "ENTSO-E",
    ));
    put_inputs(&s, &pts);
    s
}

#[test]
fn empty_store_gives_empty_arrays() {
    let svc = service(&store());
    use Endpoint::*;
    for ep in [
        Generation,
        Load,
        Imports,
        Exports,
        Mix,
        Footprints,
        Impacts,
        Score,
        FlowShare,
        MixShare,
        FootprintShare,
        ImpactShare,
    ] {
        for query in [
            "",
            "zone=ES",
            &format!("zone=ES&{W}"),
            &format!("zone=ES,FR&{W}"),
        ] {
            assert_eq!(get(&svc, ep, query), json!([]), "{ep:?}?{query}");
        }
    }
    for ep in [Footprints, Impacts, Score] {
        assert_eq!(
            get(&svc, ep, &format!("zone=ES&aggregate=true&{W}")),
            json!([]),
            "{ep:?}"
        );
    }
    assert_eq!(svc.cache().stats().derived_zone_days, 0);
}

#[test]
fn generation_nesting_and_values() {
    let svc = service(&basic_store());
    let v = get(&svc, Endpoint::Generation, &format!("zone=ES&{W}"));
    assert_eq!(v.as_array().unwrap().len(), 1);
    let r = &v[0];
    assert_eq!(r["zone"], "ES");
    assert_eq!(r["unit"], "MW");
    assert_eq!(r["series"].as_array().unwrap().len(), 1);
    let e = &r["series"][0];
    assert_eq!(
        (e["valid"].clone(), e["zone_status"].clone()),
        (json!(true), json!("complete"))
    );
    let p = &e["production"];
    assert_eq!(p[0]["production_type"], "coal");
    assert_eq!(p[0]["data_state"], "official");
    assert_eq!(p[0]["datasource"], "ENTSO-E");
    assert_eq!(
        values(&p[0]["values"]),
        vec![
            ("2024-06-15T00:00:00Z".to_string(), 1000.0),
            ("2024-06-15T00:15:00Z".to_string(), 1001.0),
            ("2024-06-15T00:30:00Z".to_string(), 1002.0),
            ("2024-06-15T00:45:00Z".to_string(), 1003.0),
        ]
    );
    assert_eq!(p[1]["production_type"], "gas");
    assert_eq!(p[1]["data_state"], "estimated");
    assert_eq!(p[1]["datasource"], "gridprint-estimation:linear");
    assert_eq!(
        values(&p[1]["values"]).len(),
        2,
        "the negative gas point is dropped"
    );
    assert_eq!(p.as_array().unwrap().len(), 2);

    let v = get(
        &svc,
        Endpoint::Generation,
        &format!("zone=ES&production_type=GAS&{W}"),
    );
    assert_eq!(v[0]["series"][0]["production"].as_array().unwrap().len(), 1);
    assert_eq!(v[0]["series"][0]["production"][0]["production_type"], "gas");
    assert_eq!(
        get(
            &svc,
            Endpoint::Generation,
            &format!("zone=ES&production_type=nuclear&{W}")
        ),
        json!([])
    );
}

#[test]
fn load_imports_exports_nesting() {
    let svc = service(&basic_store());
    let v = get(&svc, Endpoint::Load, &format!("zone=ES&{W}"));
    assert_eq!(v[0]["unit"], "MW");
    assert_eq!(v[0]["series"][0]["blocks"][0]["data_state"], "official");
    assert_eq!(v[0]["series"][0]["blocks"][0]["datasource"], "ENTSO-E");
    assert_eq!(
        values(&v[0]["series"][0]["blocks"][0]["values"])[0].1,
        30_000.0
    );

    let v = get(&svc, Endpoint::Imports, &format!("zone=ES&{W}"));
    assert_eq!(v[0]["series"][0]["imports"][0]["source"], "FR");
    assert_eq!(
        values(&v[0]["series"][0]["imports"][0]["values"])[0].1,
        300.0
    );
    let v = get(&svc, Endpoint::Exports, &format!("zone=ES&{W}"));
    assert_eq!(v[0]["series"][0]["exports"][0]["destination"], "PT");
    // The same flow seen from the other side.
    let v = get(&svc, Endpoint::Exports, &format!("zone=FR&{W}"));
    assert_eq!(v[0]["series"][0]["exports"][0]["destination"], "ES");

    // Filters by partner: code, lower case, point; a partner without flows gives [].
    let v = get(
        &svc,
        Endpoint::Imports,
        &format!("zone=ES&source_zone=fr&{W}"),
    );
    assert_eq!(v[0]["series"][0]["imports"][0]["source"], "FR");
    let v = get(
        &svc,
        Endpoint::Imports,
        &format!("zone=ES&source_lat=48.85&source_lon=2.35&{W}"),
    );
    assert_eq!(v[0]["series"][0]["imports"][0]["source"], "FR");
    assert_eq!(
        get(
            &svc,
            Endpoint::Imports,
            &format!("zone=ES&source_zone=PT&{W}")
        ),
        json!([])
    );
    assert_eq!(
        get(
            &svc,
            Endpoint::Exports,
            &format!("zone=ES&destination_zone=XX&{W}")
        ),
        json!([])
    );
}

#[test]
fn zone_codes_are_upper_cased_and_raw_flags_fall_back_to_data_state() {
    let svc = service(&basic_store());
    // PT has inputs (imports from ES) but no derived flags: official → complete, old → valid.
    let v = get(&svc, Endpoint::Imports, &format!("zone=pt&{W}"));
    assert_eq!(v[0]["zone"], "PT");
    assert_eq!(v[0]["series"][0]["imports"][0]["source"], "ES");
    assert_eq!(
        (
            v[0]["series"][0]["valid"].clone(),
            v[0]["series"][0]["zone_status"].clone()
        ),
        (json!(true), json!("complete"))
    );
    let v = get(
        &svc,
        Endpoint::Footprints,
        &format!("zone=es&footprint_type=carbon&{W}"),
    );
    assert_eq!(v[0]["zone"], "ES");
}

#[test]
fn recent_raw_points_without_flags_are_not_valid_unless_complete() {
    let s = store();
    let now_slot = gridprint_core::slot::Slot::containing(NOW);
    put_inputs(
        &s,
        &[
            load_point(
                "PT",
                now_slot,
                5000.0,
                DataState::Estimated,
                "gridprint-estimation:profile",
            ),
            load_point(
                "PT",
                now_slot.offset(1),
                5000.0,
                DataState::Official,
                "ENTSO-E",
            ),
        ],
    );
    let svc = service(&s);
    let q = "zone=PT&start=2024-06-20T12:00Z&end=2024-06-20T12:30Z";
    let v = get(&svc, Endpoint::Load, q);
    let series = v[0]["series"].as_array().unwrap();
    assert_eq!(series.len(), 2);
    assert_eq!(
        (series[0]["valid"].clone(), series[0]["zone_status"].clone()),
        (json!(false), json!("preview"))
    );
    assert_eq!(series[0]["blocks"][0]["data_state"], "estimated");
    assert_eq!(
        (series[1]["valid"].clone(), series[1]["zone_status"].clone()),
        (json!(true), json!("complete"))
    );
}

#[test]
fn derived_endpoints_nesting_and_values() {
    let svc = service(&basic_store());
    let v = get(&svc, Endpoint::Footprints, &format!("zone=ES&{W}"));
    assert_eq!(
        v.as_array().unwrap().len(),
        2,
        "carbon and water by default"
    );
    assert_eq!(v[0]["footprint_type"], "carbon");
    assert_eq!(v[0]["scope"], "life-cycle");
    assert_eq!(v[0]["unit"], "gCO2/kWh");
    assert_eq!(v[0]["coverage"], "global");
    let vals = values(&v[0]["series"][0]["values"]);
    assert_eq!(vals.len(), 96);
    assert_eq!(vals[5], ("2024-06-15T01:15:00Z".to_string(), 105.0));
    assert_eq!(v[1]["footprint_type"], "water");
    assert_eq!(v[1]["unit"], "l/kWh");
    let water = values(&v[1]["series"][0]["values"]);
    assert_eq!(water.len(), 94, "negative and NaN points are dropped");
    assert_eq!(water[0], ("2024-06-15T00:30:00Z".to_string(), 1.5));

    let v = get(
        &svc,
        Endpoint::Footprints,
        &format!("zone=ES&footprint_type=carbon&use_global=false&{W}"),
    );
    assert_eq!(v[0]["coverage"], "local");
    assert_eq!(values(&v[0]["series"][0]["values"])[0].1, 50.0);
    assert_eq!(
        get(
            &svc,
            Endpoint::Footprints,
            &format!("zone=ES&scope=operational&{W}")
        ),
        json!([])
    );

    let v = get(&svc, Endpoint::Impacts, &format!("zone=ES&{W}"));
    assert_eq!(
        (
            &v[0]["impact_type"],
            &v[0]["scope"],
            &v[0]["unit"],
            &v[0]["coverage"]
        ),
        (
            &json!("water"),
            &json!("operational"),
            &json!("stress-l/kWh"),
            &json!("global")
        )
    );
    assert_eq!(values(&v[0]["series"][0]["values"])[0].1, 3.0);

    let v = get(&svc, Endpoint::Score, &format!("zone=ES&{W}"));
    assert_eq!(v[0]["scope"], "operational");
    assert!(v[0].get("unit").is_none(), "the score has no unit");
    assert_eq!(values(&v[0]["series"][0]["values"])[0].1, 80.0);

    let v = get(&svc, Endpoint::Mix, &format!("zone=ES&{W}"));
    let prod = &v[0]["series"][0]["production"];
    assert_eq!(prod[0]["production_type"], "gas");
    assert_eq!(prod[1]["production_type"], "solar");
    assert_eq!(prod[0]["data_state"], "official");
    assert_eq!(prod[0]["datasource"], "flow_tracing");
    assert_eq!(
        get(
            &svc,
            Endpoint::Mix,
            &format!("zone=ES&production_type=solar&{W}")
        )[0]["series"][0]["production"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Shares are computed from the exchanges (docs/api.md §5).
    let first = |v: &Value| values(v)[0].1;
    let v = get(&svc, Endpoint::FlowShare, &format!("zone=ES&{W}"));
    assert_eq!(v[0]["unit"], "%");
    let flows = &v[0]["series"][0]["flows"];
    assert_eq!(flows[0]["destination"], "ES");
    assert_eq!(
        first(&flows[0]["values"]),
        75.0,
        "900 of G = 1200 stay in ES"
    );
    assert_eq!(flows[1]["destination"], "FR");
    assert_eq!(first(&flows[1]["values"]), 25.0, "300 of G = 1200 go to FR");
    assert_eq!(flows.as_array().unwrap().len(), 2);
    let v = get(
        &svc,
        Endpoint::FlowShare,
        &format!("zone=ES&destination_zone=FR&{W}"),
    );
    assert_eq!(v[0]["series"][0]["flows"].as_array().unwrap().len(), 1);
    assert_eq!(v[0]["series"][0]["flows"][0]["destination"], "FR");

    let v = get(&svc, Endpoint::MixShare, &format!("zone=ES&{W}"));
    assert_eq!(v[0]["unit"], "%");
    let shares = &v[0]["series"][0]["shares"];
    assert_eq!(shares[0]["origin"], "ES");
    assert_eq!(first(&shares[0]["values"]), 90.0);
    assert_eq!(shares[1]["origin"], "FR");
    assert_eq!(first(&shares[1]["values"]), 10.0);
    assert_eq!(shares[2]["origin"], "PT");
    assert_eq!(first(&shares[2]["values"]), 0.0, "zero shares are served");
    let v = get(
        &svc,
        Endpoint::MixShare,
        &format!("zone=FR&origin_zone=es&{W}"),
    );
    assert_eq!(v[0]["series"][0]["shares"][0]["origin"], "ES");
    assert!((first(&v[0]["series"][0]["shares"][0]["values"]) - 15.79).abs() < 1e-9);

    let v = get(&svc, Endpoint::FootprintShare, &format!("zone=ES&{W}"));
    assert_eq!(
        v.as_array().unwrap().len(),
        1,
        "only carbon life-cycle local footprints exist"
    );
    assert_eq!(v[0]["zone"], "ES");
    assert_eq!(v[0]["footprint_type"], "carbon");
    assert_eq!(v[0]["scope"], "life-cycle");
    assert_eq!(v[0]["unit"], "gCO2/kWh");
    let blocks = &v[0]["series"][0]["blocks"];
    assert_eq!(blocks[0]["source"], "ES");
    assert_eq!(first(&blocks[0]["values"]), 45.0, "0.9 × 50");
    assert_eq!(blocks[1]["source"], "FR");
    assert_eq!(first(&blocks[1]["values"]), 6.0, "0.1 × 60");
    assert_eq!(
        blocks.as_array().unwrap().len(),
        2,
        "PT has no local footprint"
    );
    let v = get(
        &svc,
        Endpoint::FootprintShare,
        &format!("zone=ES&source_zone=FR&{W}"),
    );
    assert_eq!(v[0]["series"][0]["blocks"].as_array().unwrap().len(), 1);

    let v = get(&svc, Endpoint::ImpactShare, &format!("zone=ES&{W}"));
    assert_eq!(
        (&v[0]["impact_type"], &v[0]["scope"], &v[0]["unit"]),
        (
            &json!("water"),
            &json!("operational"),
            &json!("stress-l/kWh")
        )
    );
    let blocks = &v[0]["series"][0]["blocks"];
    assert_eq!(blocks[0]["source"], "ES");
    assert_eq!(first(&blocks[0]["values"]), 1.8, "0.9 × 2");
    assert_eq!(blocks[1]["source"], "FR");
    assert_eq!(first(&blocks[1]["values"]), 0.5, "0.1 × 5");
}

#[test]
fn results_are_ordered_by_zone_and_located_by_point() {
    let svc = service(&basic_store());
    let v = get(
        &svc,
        Endpoint::Footprints,
        &format!("footprint_type=carbon&{W}"),
    );
    let zones: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["zone"].as_str().unwrap())
        .collect();
    assert_eq!(zones, vec!["ES", "FR"]);
    let v = get(
        &svc,
        Endpoint::Footprints,
        &format!("zone=FR,ES&footprint_type=carbon&{W}"),
    );
    assert_eq!(v[0]["zone"], "ES");
    assert_eq!(v[1]["zone"], "FR");
    let v = get(
        &svc,
        Endpoint::Footprints,
        &format!("lat=40.4&lon=-3.7&footprint_type=carbon&{W}"),
    );
    assert_eq!(v[0]["zone"], "ES");
    let v = get(
        &svc,
        Endpoint::Footprints,
        &format!("lat=48.85&lon=2.35&footprint_type=carbon&{W}"),
    );
    assert_eq!(v[0]["zone"], "FR");
    assert_eq!(
        get(&svc, Endpoint::Footprints, &format!("zone=XX&{W}")),
        json!([])
    );
    // Duplicated parameters: the last wins, as on the reference (zone too).
    let v = get(
        &svc,
        Endpoint::Footprints,
        &format!("zone=FR&zone=ES&footprint_type=carbon&{W}"),
    );
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["zone"], "ES");
}

/// ES carbon with flags changing over the first slots.
fn flags_store() -> SqliteStore {
    let s = store();
    let mut es = derived_day("ES");
    let f = |st, v| SlotFlags::new(st, v, v);
    let flags = [
        f(ZoneStatus::Complete, true),
        f(ZoneStatus::Complete, true),
        f(ZoneStatus::Preview, false),
        f(ZoneStatus::Complete, true),
        f(ZoneStatus::Missing, false),
        f(ZoneStatus::Preview, false),
    ];
    for (i, fl) in flags.into_iter().enumerate() {
        es.flags[i] = fl;
        es.set(carbon_lc_global(), i, 10.0 * (i + 1) as f64);
    }
    for i in 6..96 {
        es.flags[i] = SlotFlags::default();
    }
    put_days(&s, &[es]);
    s
}

#[test]
fn series_are_grouped_by_flags_in_order_of_first_appearance() {
    let svc = service(&flags_store());
    let v = get(
        &svc,
        Endpoint::Footprints,
        &format!("zone=ES&footprint_type=carbon&{W}"),
    );
    let series = v[0]["series"].as_array().unwrap();
    let got: Vec<(bool, &str, Vec<f64>)> = series
        .iter()
        .map(|e| {
            (
                e["valid"].as_bool().unwrap(),
                e["zone_status"].as_str().unwrap(),
                values(&e["values"]).into_iter().map(|p| p.1).collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (true, "complete", vec![10.0, 20.0, 40.0]),
            (false, "preview", vec![30.0, 60.0]),
            (false, "missing", vec![50.0]),
        ]
    );
    // A window starting later sees the preview entry first.
    let v = get(
        &svc,
        Endpoint::Footprints,
        "zone=ES&footprint_type=carbon&start=2024-06-15T00:30Z&end=2024-06-15T01:00Z",
    );
    let s = v[0]["series"].as_array().unwrap();
    assert_eq!(s[0]["zone_status"], "preview");
    assert_eq!(s[1]["zone_status"], "complete");
    let resp = svc
        .query(
            Endpoint::Footprints,
            &q(&format!("zone=ES&footprint_type=carbon&{W}")),
            NOW,
        )
        .unwrap();
    assert!(!resp.is_final());
}

#[test]
fn aggregate_is_the_time_weighted_mean() {
    let svc = service(&flags_store());
    // Window 00:05–01:05: 10 holds 00:05–00:15 (600 s), 20/30/40 a full slot each (900 s), 50 holds
    // 01:00–01:05 (300 s): (6000 + 81000 + 15000) / 3600 = 28.333…, rounded as the reference rounds
    // (half-to-even, to the one decimal the served values 10.0 … 50.0 have): 28.3.
    let v = get(
        &svc,
        Endpoint::Footprints,
        "zone=ES&footprint_type=carbon&aggregate=true&start=2024-06-15T00:05:00Z&end=2024-06-15T01:05:00Z",
    );
    assert_eq!(
        v,
        json!([{
            "footprint_type": "carbon",
            "scope": "life-cycle",
            "zone": "ES",
            "unit": "gCO2/kWh",
            "coverage": "global",
            "start": "2024-06-15T00:05:00Z",
            "end": "2024-06-15T01:05:00Z",
            "value": 28.3,
            "valid": false,
            "zone_status": "missing",
            "points": 5,
            "slots": 5,
            "aggregation_method": "time-weighted-average"
        }])
    );
    // Offsets are converted to UTC; only complete, valid points → valid, complete.
    let pairs = vec![
        ("zone".to_string(), "ES".to_string()),
        ("footprint_type".to_string(), "carbon".to_string()),
        ("aggregate".to_string(), "true".to_string()),
        ("start".to_string(), "2024-06-15T02:00:00+02:00".to_string()),
        ("end".to_string(), "2024-06-15T00:30:00Z".to_string()),
    ];
    let v: Value = serde_json::from_slice(
        &svc.query(Endpoint::Footprints, &pairs, NOW)
            .unwrap()
            .to_json(),
    )
    .unwrap();
    assert_eq!(v[0]["start"], "2024-06-15T00:00:00Z");
    assert_eq!(v[0]["value"], 15.0);
    assert_eq!(v[0]["valid"], true);
    assert_eq!(v[0]["zone_status"], "complete");
    // start == end: one slot, the value of its point.
    let v = get(
        &svc,
        Endpoint::Footprints,
        "zone=ES&aggregate=true&start=2024-06-15T00:20Z&end=2024-06-15T00:20Z",
    );
    assert_eq!(v[0]["value"], 20.0);
    // Issue #13: a hole in the window (00:00–02:00: the store holds the first 6 of its 8 slots) →
    // valid false, missing, points < slots.
    let v = get(
        &svc,
        Endpoint::Footprints,
        "zone=ES&footprint_type=carbon&aggregate=true&start=2024-06-15T00:00Z&end=2024-06-15T02:00Z",
    );
    assert_eq!(v[0]["points"], 6);
    assert_eq!(v[0]["slots"], 8);
    assert_eq!(v[0]["valid"], false);
    assert_eq!(v[0]["zone_status"], "missing");
    // The same zone over a window without a hole whose points are all complete and valid.
    let v = get(
        &svc,
        Endpoint::Footprints,
        "zone=ES&footprint_type=carbon&aggregate=true&start=2024-06-15T00:00Z&end=2024-06-15T00:30Z",
    );
    assert_eq!(
        (v[0]["points"].clone(), v[0]["slots"].clone()),
        (json!(2), json!(2))
    );
    assert_eq!(v[0]["valid"], true);
    assert_eq!(v[0]["zone_status"], "complete");
    // No point in the window: no aggregate.
    let v = get(
        &svc,
        Endpoint::Footprints,
        "zone=ES&aggregate=true&start=2024-06-15T12:00Z&end=2024-06-15T13:00Z",
    );
    assert_eq!(v, json!([]));
}

#[test]
fn impacts_and_score_aggregate() {
    let svc = service(&basic_store());
    let v = get(
        &svc,
        Endpoint::Impacts,
        &format!("zone=ES&aggregate=true&{W}"),
    );
    assert_eq!(v[0]["impact_type"], "water");
    assert_eq!(v[0]["value"], 3.0);
    assert_eq!(v[0]["valid"], true);
    assert_eq!(v[0]["aggregation_method"], "time-weighted-average");
    let v = get(
        &svc,
        Endpoint::Score,
        &format!("zone=ES&aggregate=true&{W}"),
    );
    assert_eq!(v[0]["value"], 80.0);
    assert_eq!(v[0]["scope"], "operational");
    assert!(v[0].get("unit").is_none());
    let resp = svc
        .query(
            Endpoint::Score,
            &q(&format!("zone=ES&aggregate=true&{W}")),
            NOW,
        )
        .unwrap();
    assert!(resp.is_final());
}

/// Flattens a JSON answer of a series endpoint into rows (descriptive fields…, timestamp, value).
fn json_rows(v: &Value, block_field: Option<(&str, &[&str])>, top: &[&str]) -> Vec<Vec<String>> {
    let s = |x: &Value| match x {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut rows = Vec::new();
    for r in v.as_array().unwrap() {
        for e in r["series"].as_array().unwrap() {
            let mut pre: Vec<String> = top.iter().map(|k| s(&r[*k])).collect();
            pre.push(s(&e["valid"]));
            pre.push(s(&e["zone_status"]));
            match block_field {
                None => {
                    for (t, val) in values(&e["values"]) {
                        rows.push([pre.clone(), vec![t, val.to_string()]].concat());
                    }
                }
                Some((field, keys)) => {
                    for b in e[field].as_array().unwrap() {
                        let mut pre = pre.clone();
                        pre.extend(keys.iter().map(|k| s(&b[*k])));
                        for (t, val) in values(&b["values"]) {
                            rows.push([pre.clone(), vec![t, val.to_string()]].concat());
                        }
                    }
                }
            }
        }
    }
    rows
}

/// Reads a CSV body; numbers re-formatted through f64 so `100` and `100.0` compare equal.
fn csv_rows(body: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(body);
    let header = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            let n = rec.len();
            rec.iter()
                .enumerate()
                .map(|(i, f)| match f.parse::<f64>() {
                    Ok(x) if i == n - 1 => x.to_string(),
                    _ => f.to_string(),
                })
                .collect()
        })
        .collect();
    (header, rows)
}

#[test]
fn csv_equals_json() {
    let svc = service(&basic_store());
    let run = |ep, query: &str| {
        let resp = svc.query(ep, &q(query), NOW).unwrap();
        (
            serde_json::from_slice::<Value>(&resp.to_json()).unwrap(),
            resp.to_csv(),
        )
    };

    let (v, body) = run(Endpoint::Footprints, &format!("zone=ES&{W}"));
    let (header, rows) = csv_rows(&body);
    assert_eq!(
        header,
        [
            "zone",
            "footprint_type",
            "scope",
            "unit",
            "coverage",
            "valid",
            "zone_status",
            "timestamp",
            "value"
        ]
    );
    assert_eq!(
        rows,
        json_rows(
            &v,
            None,
            &["zone", "footprint_type", "scope", "unit", "coverage"]
        )
    );
    assert_eq!(rows.len(), 96 + 94);

    let (v, body) = run(Endpoint::Generation, &format!("zone=ES&{W}"));
    let (header, rows) = csv_rows(&body);
    assert_eq!(
        header,
        [
            "zone",
            "unit",
            "valid",
            "zone_status",
            "production_type",
            "data_state",
            "datasource",
            "timestamp",
            "value"
        ]
    );
    assert_eq!(
        rows,
        json_rows(
            &v,
            Some((
                "production",
                &["production_type", "data_state", "datasource"]
            )),
            &["zone", "unit"]
        )
    );
    assert_eq!(rows.len(), 6);

    let (v, body) = run(Endpoint::Imports, &format!("zone=ES&{W}"));
    assert_eq!(
        csv_rows(&body).1,
        json_rows(
            &v,
            Some(("imports", &["source", "data_state", "datasource"])),
            &["zone", "unit"]
        )
    );
    let (v, body) = run(Endpoint::MixShare, &format!("zone=ES&{W}"));
    assert_eq!(
        csv_rows(&body).1,
        json_rows(&v, Some(("shares", &["origin"])), &["zone", "unit"])
    );
    let (v, body) = run(Endpoint::FootprintShare, &format!("zone=ES&{W}"));
    assert_eq!(
        csv_rows(&body).1,
        json_rows(
            &v,
            Some(("blocks", &["source"])),
            &["zone", "footprint_type", "scope", "unit"]
        )
    );

    let (v, body) = run(Endpoint::Footprints, &format!("zone=ES&aggregate=true&{W}"));
    let (header, rows) = csv_rows(&body);
    assert_eq!(header.last().unwrap(), "aggregation_method");
    assert_eq!(rows.len(), v.as_array().unwrap().len());
    assert_eq!(
        rows[0][7].parse::<f64>().unwrap(),
        v[0]["value"].as_f64().unwrap()
    );

    // Every endpoint renders CSV with a header, also when empty (best-window needs a duration; the
    // others ignore it).
    for ep in gridprint_query::Endpoint::ALL {
        let (_, body) = run(ep, "zone=XX&duration=60");
        assert!(csv_rows(&body).0.len() >= 3, "{ep:?}");
    }
}

#[test]
fn factors_are_constant_series_or_aggregates() {
    let svc = service(&store());
    let v = get(&svc, Endpoint::Factors, "");
    let all = v.as_array().unwrap();
    assert!(all.len() >= 60, "{} factors", all.len());
    let coal = get(
        &svc,
        Endpoint::Factors,
        "factor_type=carbon&scope=operational&production_type=coal",
    );
    assert_eq!(coal.as_array().unwrap().len(), 1);
    let c = &coal[0];
    assert_eq!(
        (&c["factor_type"], &c["production_type"], &c["scope"]),
        (&json!("carbon"), &json!("coal"), &json!("operational"))
    );
    assert_eq!(c["unit"], "gCO2/kWh");
    assert!(c["source"].is_string());
    assert!(c.get("valid").is_none(), "factor series carry no flags");
    // Without dates: one point at the current slot.
    assert_eq!(
        values(&c["series"][0]["values"]),
        vec![("2024-06-20T12:00:00Z".to_string(), 760.0)]
    );
    // With dates: one point per slot of the window (the reference's storage holds factors as a
    // time series), from the slot containing start.
    let c = get(
        &svc,
        Endpoint::Factors,
        "factor_type=carbon&scope=operational&production_type=coal&start=2024-01-01T00:10Z&end=2024-02-01",
    );
    let pts = values(&c[0]["series"][0]["values"]);
    assert_eq!(pts.len(), 31 * 96);
    assert_eq!(pts[0], ("2024-01-01T00:00:00Z".to_string(), 760.0));
    assert_eq!(
        pts[pts.len() - 1],
        ("2024-01-31T23:45:00Z".to_string(), 760.0)
    );
    assert!(
        c[0]["source_link"].is_string(),
        "source_link is a string, as on the reference"
    );
    let c = get(
        &svc,
        Endpoint::Factors,
        "factor_type=carbon&scope=operational&production_type=coal&start=2024-01-01&end=2024-02-01&aggregate=true",
    );
    assert_eq!(c[0]["value"], 760.0);
    assert_eq!(c[0]["start"], "2024-01-01T00:00:00Z");
    assert_eq!(c[0]["end"], "2024-02-01T00:00:00Z");
    assert!(c[0].get("valid").is_none() && c[0].get("zone_status").is_none());
    assert_eq!(c[0]["aggregation_method"], "time-weighted-average");
    // aggregate without dates: series.
    let c = get(
        &svc,
        Endpoint::Factors,
        "factor_type=carbon&scope=operational&production_type=coal&aggregate=true",
    );
    assert!(c[0]["series"].is_array());
}

#[test]
fn zones_list_is_sorted_with_metadata() {
    let svc = service(&store());
    let v = get(&svc, Endpoint::Zones, "");
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 52);
    let codes: Vec<&str> = list.iter().map(|z| z["zone"].as_str().unwrap()).collect();
    let mut sorted = codes.clone();
    sorted.sort();
    assert_eq!(codes, sorted);
    let es = list.iter().find(|z| z["zone"] == "ES").unwrap();
    assert_eq!(es["provider"], "ENTSO-E");
    assert_eq!(es["eic_code"].as_str().unwrap().len(), 16);
    assert!(es["neighbours"].as_array().unwrap().contains(&json!("FR")));
    for k in ["full_name", "country_code", "country_name"] {
        assert!(es[k].is_string(), "{k}");
    }
}

#[test]
fn status_reports_storage_and_providers() {
    let s = status(
        false,
        ProviderStates {
            entsoe: "up",
            elexon: "unknown",
            epias: "down",
        },
    );
    assert_eq!(
        serde_json::to_value(&s).unwrap(),
        json!({"storage": "down", "entso-e": "up", "elexon": "unknown", "epias": "down"})
    );
    assert_eq!(
        Value::Object(status_component(&s, "ENTSO-E").unwrap()),
        json!({"entso-e": "up"})
    );
    assert_eq!(
        Value::Object(status_component(&s, "storage").unwrap()),
        json!({"storage": "down"})
    );
    assert_eq!(status_component(&s, "nope").unwrap_err().status, 404);
}

#[test]
fn refresh_swaps_in_new_data() {
    let s = store();
    let svc = service(&s);
    assert!(!svc.refresh(&s).unwrap(), "unchanged store: no reload");
    let old = svc.cache();
    let mut es = derived_day("ES");
    es.set(carbon_lc_global(), 0, 123.0);
    put_days(&s, &[es]);
    assert!(svc.refresh(&s).unwrap());
    assert!(!svc.refresh(&s).unwrap());
    let v = get(&svc, Endpoint::Footprints, &format!("zone=ES&{W}"));
    assert_eq!(values(&v[0]["series"][0]["values"])[0].1, 123.0);
    // The old snapshot is untouched.
    assert_eq!(old.stats().derived_zone_days, 0);
    assert!(svc.cache().data_version() > old.data_version());
    // New inputs alone (no derived commit) change the input extent: also a reload.
    put_inputs(
        &s,
        &[load_point(
            "ES",
            slot(10),
            1.0,
            DataState::Official,
            "ENTSO-E",
        )],
    );
    assert!(svc.refresh(&s).unwrap());
}

#[test]
fn load_window_limits_what_is_cached() {
    let s = basic_store();
    let opts = LoadOptions {
        days: Some(day0() + 1..day0() + 2),
        ..LoadOptions::default()
    };
    let cache = gridprint_query::DataCache::load_with(&s, reference(), opts).unwrap();
    let svc = QueryService::new(cache).unwrap();
    assert_eq!(
        get(&svc, Endpoint::Footprints, &format!("zone=ES&{W}")),
        json!([])
    );
    assert_eq!(
        get(&svc, Endpoint::Load, &format!("zone=ES&{W}")),
        json!([])
    );
}
