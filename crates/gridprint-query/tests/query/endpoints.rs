//! Endpoint answers on hand-made data: nesting and field names, values, flags grouping, aggregates,
//! dropped points, CSV, refresh.

use crate::fixture::Endpoint;
use crate::fixture::*;
use gridprint_core::derived::{Coverage, SeriesKey, SlotFlags};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::{DataState, ZoneStatus};
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_query::endpoints::status::{ProviderStates, status, status_component};
use gridprint_query::{LoadOptions, QueryService};
use gridprint_store_sqlite::SqliteStore;
use serde_json::{Value, json};

const W: &str = "start=2024-06-15T00:00:00Z&end=2024-06-16T00:00:00Z";

/// Runs `query` over the day `W` (the query's own parameters, then `&{W}`).
fn in_w(svc: &QueryService, ep: Endpoint, query: &str) -> Value {
    get(svc, ep, &format!("{query}&{W}"))
}

/// Asserts that `query` over the day `W` answers `[]`.
fn assert_empty(svc: &QueryService, ep: Endpoint, query: &str) {
    assert_eq!(in_w(svc, ep, query), json!([]), "{ep:?}?{query}&{W}");
}

/// Asserts each field of `want` (a JSON object) on `v`, naming `what` and the field.
fn assert_fields(what: &str, v: &Value, want: &Value) {
    for (k, w) in want.as_object().unwrap() {
        assert_eq!(&v[k], w, "{what}: {k}");
    }
}

/// Whether the answer to `query` over the day `W` is final.
fn is_final_in_w(svc: &QueryService, ep: Endpoint, query: &str) -> bool {
    let pairs = q(&format!("{query}&{W}"));
    ep.query(svc, &pairs, NOW).unwrap().is_final()
}

/// Asserts the leading blocks of `blocks`: the partner in field `key` and the first value, in
/// order, each as `(partner, value, why)`.
fn assert_first_values(blocks: &Value, key: &str, want: &[(&str, f64, &str)]) {
    for (i, (partner, value, why)) in want.iter().enumerate() {
        assert_eq!(blocks[i][key], *partner, "{key} of block {i}");
        assert_eq!(
            values(&blocks[i]["values"])[0].1,
            *value,
            "{partner}: {why}"
        );
    }
}

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
            "wattnet-hybrid-estimation:gridprint-linear",
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
    // Every endpoint that answers zone by zone from the stored data (not `/zones` and `/factors`,
    // which answer from the reference, nor `/best-window` and `/availability`).
    let per_zone = Endpoint::ALL
        .into_iter()
        .filter(|ep| !matches!(ep, Zones | Factors | BestWindow | Availability));
    for ep in per_zone {
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
    let v = in_w(&svc, Endpoint::Generation, "zone=ES");
    assert_eq!(len(&v), 1);
    let r = &v[0];
    assert_eq!(r["zone"], "ES");
    assert_eq!(r["unit"], "MW");
    assert_eq!(len(&r["series"]), 1);
    let e = &r["series"][0];
    let want = json!({"valid": true, "zone_status": "complete"});
    assert_fields("generation", e, &want);
    let p = &e["production"];
    let want =
        json!({"production_type": "coal", "data_state": "official", "datasource": "ENTSO-E"});
    assert_fields("coal", &p[0], &want);
    assert_eq!(
        values(&p[0]["values"]),
        vec![
            ("2024-06-15T00:00:00Z".to_string(), 1000.0),
            ("2024-06-15T00:15:00Z".to_string(), 1001.0),
            ("2024-06-15T00:30:00Z".to_string(), 1002.0),
            ("2024-06-15T00:45:00Z".to_string(), 1003.0),
        ]
    );
    let want = json!({"production_type": "gas", "data_state": "estimated",
        "datasource": "wattnet-hybrid-estimation:gridprint-linear"});
    assert_fields("gas", &p[1], &want);
    assert_eq!(
        values(&p[1]["values"]).len(),
        2,
        "the negative gas point is dropped"
    );
    assert_eq!(len(p), 2);

    let v = in_w(&svc, Endpoint::Generation, "zone=ES&production_type=GAS");
    assert_eq!(len(&v[0]["series"][0]["production"]), 1);
    assert_eq!(v[0]["series"][0]["production"][0]["production_type"], "gas");
    assert_empty(
        &svc,
        Endpoint::Generation,
        "zone=ES&production_type=nuclear",
    );
}

/// The partner of the first flow block of the answer to `query` over the day `W` (imports: the
/// source, exports: the destination).
fn first_partner(svc: &QueryService, ep: Endpoint, query: &str) -> Value {
    let (field, key) = match ep {
        Endpoint::Imports => ("imports", "source"),
        Endpoint::Exports => ("exports", "destination"),
        other => panic!("{other:?} has no partners"),
    };
    in_w(svc, ep, query)[0]["series"][0][field][0][key].clone()
}

#[test]
fn load_imports_exports_nesting() {
    let svc = service(&basic_store());
    let v = in_w(&svc, Endpoint::Load, "zone=ES");
    assert_eq!(v[0]["unit"], "MW");
    let block = &v[0]["series"][0]["blocks"][0];
    let want = json!({"data_state": "official", "datasource": "ENTSO-E"});
    assert_fields("load", block, &want);
    assert_eq!(values(&block["values"])[0].1, 30_000.0);

    let v = in_w(&svc, Endpoint::Imports, "zone=ES");
    let block = &v[0]["series"][0]["imports"][0];
    assert_eq!(block["source"], "FR");
    assert_eq!(values(&block["values"])[0].1, 300.0);
    for (ep, query, partner) in [
        (Endpoint::Exports, "zone=ES", "PT"),
        // The same flow seen from the other side.
        (Endpoint::Exports, "zone=FR", "ES"),
        // Filters by partner: code, lower case, point.
        (Endpoint::Imports, "zone=ES&source_zone=fr", "FR"),
        (
            Endpoint::Imports,
            "zone=ES&source_lat=48.85&source_lon=2.35",
            "FR",
        ),
    ] {
        assert_eq!(first_partner(&svc, ep, query), partner, "{ep:?}?{query}");
    }
    // A partner without flows gives [].
    assert_empty(&svc, Endpoint::Imports, "zone=ES&source_zone=PT");
    assert_empty(&svc, Endpoint::Exports, "zone=ES&destination_zone=XX");
}

#[test]
fn zone_codes_are_upper_cased_and_raw_flags_fall_back_to_the_zones_inputs() {
    let s = basic_store();
    let svc = service(&s);
    // PT has inputs (imports from ES) but no derived flags: its flags are those of its inputs.
    // Nothing came for PT→ES, the other direction of its only border: estimated (the compute
    // takes it as 0 MW), so PT's imports read `preview` although the ES→PT points are official.
    let v = in_w(&svc, Endpoint::Imports, "zone=pt");
    assert_eq!(v[0]["zone"], "PT");
    assert_eq!(v[0]["series"][0]["imports"][0]["source"], "ES");
    assert_eq!(v[0]["series"][0]["imports"][0]["data_state"], "official");
    let want = json!({"valid": true, "zone_status": "preview"});
    assert_fields("PT imports", &v[0]["series"][0], &want);
    // With PT→ES reported too, every border of PT is official: complete, old → valid.
    let points: Vec<_> = (0..96)
        .map(|i| flow_point("PT", "ES", slot(i), 0.0, DataState::Official, "ENTSO-E"))
        .collect();
    put_inputs(&s, &points);
    let svc = service(&s);
    let v = in_w(&svc, Endpoint::Imports, "zone=pt");
    let want = json!({"valid": true, "zone_status": "complete"});
    assert_fields("PT imports", &v[0]["series"][0], &want);
    assert_eq!(len(&v[0]["series"]), 1);
    let v = in_w(&svc, Endpoint::Footprints, "zone=es&footprint_type=carbon");
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
                "wattnet-hybrid-estimation:gridprint-profile",
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
    let want = json!({"valid": false, "zone_status": "preview"});
    assert_fields("estimated", &series[0], &want);
    assert_eq!(series[0]["blocks"][0]["data_state"], "estimated");
    let want = json!({"valid": true, "zone_status": "complete"});
    assert_fields("official", &series[1], &want);
}

#[test]
fn derived_endpoints_nesting_and_values() {
    let svc = service(&basic_store());
    let v = in_w(&svc, Endpoint::Footprints, "zone=ES");
    assert_eq!(len(&v), 2, "carbon and water by default");
    let want = json!({"footprint_type": "carbon", "scope": "life-cycle", "unit": "gCO2/kWh",
        "coverage": "global"});
    assert_fields("footprints", &v[0], &want);
    let vals = values(&v[0]["series"][0]["values"]);
    assert_eq!(vals.len(), 96);
    assert_eq!(vals[5], ("2024-06-15T01:15:00Z".to_string(), 105.0));
    assert_eq!(v[1]["footprint_type"], "water");
    assert_eq!(v[1]["unit"], "l/kWh");
    let water = values(&v[1]["series"][0]["values"]);
    assert_eq!(water.len(), 94, "negative and NaN points are dropped");
    assert_eq!(water[0], ("2024-06-15T00:30:00Z".to_string(), 1.5));

    let v = in_w(
        &svc,
        Endpoint::Footprints,
        "zone=ES&footprint_type=carbon&use_global=false",
    );
    assert_eq!(v[0]["coverage"], "local");
    assert_eq!(values(&v[0]["series"][0]["values"])[0].1, 50.0);
    assert_empty(&svc, Endpoint::Footprints, "zone=ES&scope=operational");

    let v = in_w(&svc, Endpoint::Impacts, "zone=ES");
    let want = json!({"impact_type": "water", "scope": "operational", "unit": "stress-l/kWh",
        "coverage": "global"});
    assert_fields("impacts", &v[0], &want);
    assert_eq!(values(&v[0]["series"][0]["values"])[0].1, 3.0);

    let v = in_w(&svc, Endpoint::Score, "zone=ES");
    assert_eq!(v[0]["scope"], "operational");
    assert!(v[0].get("unit").is_none(), "the score has no unit");
    assert_eq!(values(&v[0]["series"][0]["values"])[0].1, 80.0);

    let v = in_w(&svc, Endpoint::Mix, "zone=ES");
    let prod = &v[0]["series"][0]["production"];
    assert_eq!(prod[0]["production_type"], "gas");
    assert_eq!(prod[1]["production_type"], "solar");
    assert_eq!(prod[0]["data_state"], "official");
    assert_eq!(prod[0]["datasource"], "flow_tracing");
    assert_eq!(
        in_w(&svc, Endpoint::Mix, "zone=ES&production_type=solar")[0]["series"][0]["production"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Shares are computed from the exchanges (docs/api.md §5).
    let first = |v: &Value| values(v)[0].1;
    let v = in_w(&svc, Endpoint::FlowShare, "zone=ES");
    assert_eq!(v[0]["unit"], "%");
    let flows = &v[0]["series"][0]["flows"];
    assert_first_values(
        flows,
        "destination",
        &[
            ("ES", 75.0, "900 of G = 1200 stay in ES"),
            ("FR", 25.0, "300 of G = 1200 go to FR"),
        ],
    );
    assert_eq!(len(flows), 2);
    let v = in_w(&svc, Endpoint::FlowShare, "zone=ES&destination_zone=FR");
    assert_eq!(len(&v[0]["series"][0]["flows"]), 1);
    assert_eq!(v[0]["series"][0]["flows"][0]["destination"], "FR");

    let v = in_w(&svc, Endpoint::MixShare, "zone=ES");
    assert_eq!(v[0]["unit"], "%");
    assert_first_values(
        &v[0]["series"][0]["shares"],
        "origin",
        &[
            ("ES", 90.0, "900 of L = 1000"),
            ("FR", 10.0, "100 of L = 1000"),
            ("PT", 0.0, "zero shares are served"),
        ],
    );
    let v = in_w(&svc, Endpoint::MixShare, "zone=FR&origin_zone=es");
    assert_eq!(v[0]["series"][0]["shares"][0]["origin"], "ES");
    assert!((first(&v[0]["series"][0]["shares"][0]["values"]) - 15.79).abs() < 1e-9);

    let v = in_w(&svc, Endpoint::FootprintShare, "zone=ES");
    assert_eq!(len(&v), 1, "only carbon life-cycle local footprints exist");
    let want = json!({"zone": "ES", "footprint_type": "carbon", "scope": "life-cycle",
        "unit": "gCO2/kWh"});
    assert_fields("footprint-share", &v[0], &want);
    let blocks = &v[0]["series"][0]["blocks"];
    assert_first_values(
        blocks,
        "source",
        &[("ES", 45.0, "0.9 × 50"), ("FR", 6.0, "0.1 × 60")],
    );
    assert_eq!(len(blocks), 2, "PT has no local footprint");
    let v = in_w(&svc, Endpoint::FootprintShare, "zone=ES&source_zone=FR");
    assert_eq!(len(&v[0]["series"][0]["blocks"]), 1);

    let v = in_w(&svc, Endpoint::ImpactShare, "zone=ES");
    let want = json!({"impact_type": "water", "scope": "operational", "unit": "stress-l/kWh"});
    assert_fields("impact-share", &v[0], &want);
    assert_first_values(
        &v[0]["series"][0]["blocks"],
        "source",
        &[("ES", 1.8, "0.9 × 2"), ("FR", 0.5, "0.1 × 5")],
    );
}

#[test]
fn results_are_ordered_by_zone_and_located_by_point() {
    let svc = service(&basic_store());
    let cases: &[(&str, &[&str])] = &[
        ("footprint_type=carbon", &["ES", "FR"]),
        ("zone=FR,ES&footprint_type=carbon", &["ES", "FR"]),
        ("lat=40.4&lon=-3.7&footprint_type=carbon", &["ES"]),
        ("lat=48.85&lon=2.35&footprint_type=carbon", &["FR"]),
        ("zone=XX", &[]),
        // Duplicated parameters: the last wins, as on the reference (zone too).
        ("zone=FR&zone=ES&footprint_type=carbon", &["ES"]),
    ];
    for (query, want) in cases {
        let v = in_w(&svc, Endpoint::Footprints, query);
        assert_eq!(zones(&v), *want, "{query}");
    }
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
    let v = in_w(&svc, Endpoint::Footprints, "zone=ES&footprint_type=carbon");
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
    assert!(!is_final_in_w(
        &svc,
        Endpoint::Footprints,
        "zone=ES&footprint_type=carbon"
    ));
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
    let cases = [
        // Offsets are converted to UTC; only complete, valid points → valid, complete.
        (
            "footprint_type=carbon&aggregate=true&start=2024-06-15T02:00:00+02:00&end=2024-06-15T00:30:00Z",
            json!({"start": "2024-06-15T00:00:00Z", "value": 15.0, "valid": true,
                "zone_status": "complete"}),
        ),
        // start == end: one slot, the value of its point.
        (
            "aggregate=true&start=2024-06-15T00:20Z&end=2024-06-15T00:20Z",
            json!({"value": 20.0}),
        ),
        // Issue #13: a hole in the window (00:00–02:00: the store holds the first 6 of its 8
        // slots) → valid false, missing, points < slots.
        (
            "footprint_type=carbon&aggregate=true&start=2024-06-15T00:00Z&end=2024-06-15T02:00Z",
            json!({"points": 6, "slots": 8, "valid": false, "zone_status": "missing"}),
        ),
        // The same zone over a window without a hole whose points are all complete and valid.
        (
            "footprint_type=carbon&aggregate=true&start=2024-06-15T00:00Z&end=2024-06-15T00:30Z",
            json!({"points": 2, "slots": 2, "valid": true, "zone_status": "complete"}),
        ),
    ];
    for (query, want) in &cases {
        let v = get(&svc, Endpoint::Footprints, &format!("zone=ES&{query}"));
        assert_fields(query, &v[0], want);
    }
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
    let v = in_w(&svc, Endpoint::Impacts, "zone=ES&aggregate=true");
    let want = json!({
        "impact_type": "water", "value": 3.0, "valid": true,
        "aggregation_method": "time-weighted-average"
    });
    assert_fields("impacts aggregate", &v[0], &want);
    let v = in_w(&svc, Endpoint::Score, "zone=ES&aggregate=true");
    assert_fields(
        "score aggregate",
        &v[0],
        &json!({"value": 80.0, "scope": "operational"}),
    );
    assert!(v[0].get("unit").is_none());
    assert!(is_final_in_w(
        &svc,
        Endpoint::Score,
        "zone=ES&aggregate=true"
    ));
}

/// Flattens a JSON answer of a series endpoint into rows (descriptive fields…, timestamp, value):
/// `top` names the top-level fields, `block_field` the block array and its fields (comma-separated).
fn json_rows(v: &Value, block_field: Option<(&str, &str)>, top: &str) -> Vec<Vec<String>> {
    let s = |x: &Value| match x {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut rows = Vec::new();
    for r in v.as_array().unwrap() {
        for e in r["series"].as_array().unwrap() {
            let mut pre: Vec<String> = top.split(',').map(|k| s(&r[k])).collect();
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
                        pre.extend(keys.split(',').map(|k| s(&b[k])));
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

/// One answer as JSON and as CSV.
fn json_and_csv(svc: &QueryService, ep: Endpoint, query: &str) -> (Value, Vec<u8>) {
    let resp = ep.query(svc, &q(query), NOW).unwrap();
    (
        serde_json::from_slice::<Value>(&resp.to_json()).unwrap(),
        resp.to_csv(),
    )
}

/// Asserts that the CSV answer of `ep` for ES over the day `W` holds the rows of its JSON answer
/// (see [`json_rows`]); returns the CSV header and the number of rows.
fn es_csv_equals_json(
    svc: &QueryService,
    ep: Endpoint,
    block_field: Option<(&str, &str)>,
    top: &str,
) -> (Vec<String>, usize) {
    let (v, body) = json_and_csv(svc, ep, &format!("zone=ES&{W}"));
    let (header, rows) = csv_rows(&body);
    assert_eq!(rows, json_rows(&v, block_field, top), "{ep:?}");
    (header, rows.len())
}

/// The fields of a comma-separated list.
fn fields(list: &str) -> Vec<&str> {
    list.split(',').collect()
}

#[test]
fn csv_equals_json() {
    let svc = service(&basic_store());
    let footprints = "zone,footprint_type,scope,unit,coverage";
    let (header, rows) = es_csv_equals_json(&svc, Endpoint::Footprints, None, footprints);
    assert_eq!(
        header,
        fields("zone,footprint_type,scope,unit,coverage,valid,zone_status,timestamp,value")
    );
    assert_eq!(rows, 96 + 94);

    let production = Some(("production", "production_type,data_state,datasource"));
    let (header, rows) = es_csv_equals_json(&svc, Endpoint::Generation, production, "zone,unit");
    assert_eq!(
        header,
        fields("zone,unit,valid,zone_status,production_type,data_state,datasource,timestamp,value")
    );
    assert_eq!(rows, 6);

    let imports = Some(("imports", "source,data_state,datasource"));
    es_csv_equals_json(&svc, Endpoint::Imports, imports, "zone,unit");
    es_csv_equals_json(
        &svc,
        Endpoint::MixShare,
        Some(("shares", "origin")),
        "zone,unit",
    );
    let blocks = Some(("blocks", "source"));
    es_csv_equals_json(
        &svc,
        Endpoint::FootprintShare,
        blocks,
        "zone,footprint_type,scope,unit",
    );

    let query = format!("zone=ES&aggregate=true&{W}");
    let (v, body) = json_and_csv(&svc, Endpoint::Footprints, &query);
    let (header, rows) = csv_rows(&body);
    assert_eq!(header.last().unwrap(), "aggregation_method");
    assert_eq!(rows.len(), len(&v));
    assert_eq!(
        rows[0][7].parse::<f64>().unwrap(),
        v[0]["value"].as_f64().unwrap()
    );

    // Every endpoint renders CSV with a header, also when empty (best-window needs a duration; the
    // others ignore it).
    for ep in Endpoint::ALL {
        let (_, body) = json_and_csv(&svc, ep, "zone=XX&duration=60");
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
    assert_eq!(len(&coal), 1);
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
    let v = in_w(&svc, Endpoint::Footprints, "zone=ES");
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
    assert_empty(&svc, Endpoint::Footprints, "zone=ES");
    assert_empty(&svc, Endpoint::Load, "zone=ES");
}
