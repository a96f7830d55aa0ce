//! Scale: memory per zone-day with realistic derived days (from the real engine on the 52-zone
//! topology) and the one-zone one-year footprints answer (35,040 points).

use crate::fixture::Endpoint;
use crate::fixture::*;
use gridprint_core::derived::{DayBuilder, DerivedDay, SlotFlags, write_slot};
use gridprint_core::engine::trace_slot;
use gridprint_core::inputs::{FlowInput, InputKey, InputPoint, SlotInputs};
use gridprint_core::production::{N_TYPES, ProductionType};
use gridprint_core::quality::{DataState, ZoneStatus};
use gridprint_core::slot::Slot;
use gridprint_core::testing::Lcg;
use gridprint_query::{DataCache, LoadOptions};
use std::time::Instant;

/// Every zone with 8 production types, load, and a flow on every border (one direction per slot),
/// traced by the real engine; two days, so the fixed per-series overhead can be told apart from the
/// cost of one more zone-day.
#[test]
fn memory_per_zone_day_with_realistic_data() {
    let r = reference();
    let n = r.zones.len();
    let s = store();
    let mut rng = Lcg(7);
    let types = [
        ProductionType::Biomass,
        ProductionType::Coal,
        ProductionType::Gas,
        ProductionType::HydroRiver,
        ProductionType::Nuclear,
        ProductionType::Solar,
        ProductionType::WindOnshore,
        ProductionType::Other,
    ];
    let borders = r.zones.borders();
    for d in 0..2 {
        let mut days: Vec<DayBuilder> = (0..n)
            .map(|i| DayBuilder::from_day(&r, None, r.zones.code(i).clone(), day0() + d))
            .collect();
        let mut points = Vec::new();
        for k in 0..96 {
            let sl = slot(d * 96 + k);
            let mut inputs = SlotInputs::empty(sl, n);
            for i in 0..n {
                let code = r.zones.code(i).as_str();
                let mut g = [0.0; N_TYPES];
                for t in types {
                    g[t.index()] = 100.0 + 3000.0 * rng.next_f64();
                    points.push(gen_point(
                        code,
                        t,
                        sl,
                        g[t.index()],
                        DataState::Official,
                        "ENTSO-E",
                    ));
                }
                points.push(load_point(
                    code,
                    sl,
                    20_000.0,
                    DataState::Official,
                    "ENTSO-E",
                ));
                inputs.generation[i] = Some(g);
                inputs.generation_state[i] = Some(DataState::Official);
            }
            for &(from, to) in borders {
                if from < to {
                    let mw = 500.0 * rng.next_f64();
                    inputs.flows.push(FlowInput {
                        from,
                        to,
                        mw,
                        state: DataState::Official,
                    });
                    points.push(InputPoint {
                        key: InputKey::Flow {
                            from: r.zones.code(from).clone(),
                            to: r.zones.code(to).clone(),
                        },
                        slot: sl,
                        mw,
                        state: DataState::Official,
                        datasource: "ENTSO-E".into(),
                    });
                }
            }
            let result = trace_slot(&r, &inputs);
            let flags = vec![Some(SlotFlags::new(ZoneStatus::Complete, true, true)); n];
            write_slot(&result, &flags, &vec![false; n], &mut days);
        }
        let generation: Vec<_> = days.iter().map(|b| b.generation()).collect();
        let days: Vec<DerivedDay> = days
            .into_iter()
            .map(|b| b.finish(&r, |j, k| generation[j][k]))
            .collect();
        put_days(&s, &days);
        put_inputs(&s, &points);
    }
    let one = DataCache::load_with(
        &s,
        reference(),
        LoadOptions {
            days: Some(day0()..day0() + 1),
            ..LoadOptions::default()
        },
    )
    .unwrap()
    .stats();
    let svc = service(&s);
    let two = svc.cache().stats();
    assert_eq!((one.derived_zone_days, two.derived_zone_days), (n, 2 * n));
    let marginal = (two.bytes - one.bytes) as f64 / n as f64;
    eprintln!(
        "memory: one day {} bytes ({:.0} per zone-day incl. fixed overhead), one more zone-day {marginal:.0} bytes \
         ({:.1} derived columns and {:.1} raw series per zone)",
        one.bytes,
        one.bytes as f64 / n as f64,
        one.derived_chunks as f64 / n as f64,
        one.input_series as f64 / n as f64,
    );
    assert!(marginal < 48_000.0, "{marginal} bytes per zone-day");

    // Shares of a realistic slot sum to 100 %.
    let w = "start=2024-06-15T06:00Z&end=2024-06-15T06:15Z";
    let v = get(&svc, Endpoint::MixShare, &format!("zone=DE&{w}"));
    let sum: f64 = v[0]["series"][0]["shares"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| values(&b["values"])[0].1)
        .sum();
    assert!((sum - 100.0).abs() < 0.1, "mix shares sum to {sum}");
}

#[test]
fn one_year_of_footprints_serializes_fast() {
    let s = store();
    let first = Slot::containing(DAY0);
    let days: Vec<DerivedDay> = (0..365)
        .map(|d| {
            let mut day = DerivedDay::new(z("ES"), day0() + d);
            for i in 0..96 {
                day.flags[i] = complete();
                day.set(
                    carbon_lc_global(),
                    i,
                    100.0 + (d * 96 + i as i64) as f64 * 0.001,
                );
            }
            day
        })
        .collect();
    put_days(&s, &days);
    let svc = service(&s);
    let end = gridprint_core::slot::format_timestamp(first.offset(365 * 96).start());
    let pairs = q(&format!(
        "zone=ES&footprint_type=carbon&start=2024-06-15&end={end}"
    ));
    let t = Instant::now();
    let resp = Endpoint::Footprints.query(&svc, &pairs, NOW).unwrap();
    let built = t.elapsed();
    let json = resp.to_json();
    let total = t.elapsed();
    eprintln!(
        "one year, one zone: query {built:?}, query + JSON {total:?}, {} bytes",
        json.len()
    );
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let vals = values(&v[0]["series"][0]["values"]);
    assert_eq!(vals.len(), 35_040);
    assert_eq!(vals[0], ("2024-06-15T00:00:00Z".to_string(), 100.0));
    assert_eq!(
        vals[35_039].1,
        ((100.0 + 35_039.0 * 0.001f64) * 100.0).round() / 100.0
    );
    assert!(resp.is_final());
}
