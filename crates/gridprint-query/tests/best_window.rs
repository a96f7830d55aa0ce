//! `/best-window` and the country codes, answered from a cache loaded from an in-memory store of
//! hand-made derived days (every zone with its own values; a forecast part with `zone_status`
//! missing after a boundary). The search itself is property-tested against brute force in
//! `gridprint_core::best_window`.

use gridprint_core::derived::{Coverage, DerivedDay, SeriesKey, SlotFlags};
use gridprint_core::engine::footprint::score;
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::{FootprintType, ReferenceData, Scope, ZoneSet};
use gridprint_core::zone::ZoneCode;
use gridprint_query::endpoints::{
    BestWindowEndpoint, FootprintsEndpoint, GreenScoreEndpoint, ImpactsEndpoint,
};
use gridprint_query::{EndpointDef, QueryError, QueryService};
use gridprint_store::DerivedStore;
use gridprint_store_sqlite::SqliteStore;
use serde_json::Value;
use std::sync::Arc;
use time::macros::datetime;

const DAY: i64 = 19_889; // 2024-06-15
/// Slots 0..FORECAST_FROM of the day hold provider data, the rest is forecast.
const FORECAST_FROM: usize = 48;

fn carbon(scope: Scope, coverage: Coverage) -> SeriesKey {
    SeriesKey::Footprint {
        footprint_type: FootprintType::Carbon,
        scope,
        coverage,
    }
}

/// The value of zone `z` (a small number per zone) at slot `i` in column `c` (a number per column).
/// Column 4 (the global water impact) is kept small so that the score does not saturate.
fn value(z: usize, c: usize, i: usize) -> f64 {
    let v = 100.0 + 37.0 * z as f64 + 11.0 * c as f64 + ((i * 7 + z * 13 + c * 5) % 23) as f64;
    if c == 4 { v / 10.0 } else { v }
}

fn day(code: &str, z: usize) -> DerivedDay {
    let mut d = DerivedDay::new(ZoneCode::parse(code).unwrap(), DAY);
    for i in 0..96 {
        d.flags[i] = if i < FORECAST_FROM {
            SlotFlags::new(ZoneStatus::Complete, true, false)
        } else {
            SlotFlags::new(ZoneStatus::Missing, false, false)
        };
        let cols = [
            carbon(Scope::LifeCycle, Coverage::Global),
            carbon(Scope::LifeCycle, Coverage::Local),
            carbon(Scope::Operational, Coverage::Global),
            carbon(Scope::Operational, Coverage::Local),
            SeriesKey::Impact {
                coverage: Coverage::Global,
            },
            SeriesKey::Impact {
                coverage: Coverage::Local,
            },
            SeriesKey::Consumption,
            SeriesKey::Generation,
        ];
        for (c, key) in cols.into_iter().enumerate() {
            d.set(key, i, value(z, c, i));
        }
        for cov in [Coverage::Global, Coverage::Local] {
            let cf = d.series[&carbon(Scope::Operational, cov)][i] as f64;
            let wi = d.series[&SeriesKey::Impact { coverage: cov }][i] as f64;
            d.set(SeriesKey::Score { coverage: cov }, i, score(cf, wi));
        }
    }
    d
}

fn service() -> QueryService {
    let reference = Arc::new(ReferenceData::embedded(ZoneSet::Selected2026));
    let store = SqliteStore::open_in_memory().unwrap();
    let days: Vec<DerivedDay> = ["DE", "FR", "DK1", "DK2"]
        .iter()
        .enumerate()
        .map(|(z, c)| day(c, z))
        .collect();
    store.replace_derived_days(&days).unwrap();
    QueryService::load(&store, reference).unwrap()
}

fn query<E: EndpointDef>(s: &QueryService, q: &str) -> Result<Value, QueryError> {
    let pairs: Vec<(String, String)> = q
        .split('&')
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect();
    let now = datetime!(2024-06-15 06:00 UTC);
    s.query::<E>(&pairs, now)
        .map(|r| serde_json::from_slice(&r.to_json()).unwrap())
}

const WINDOW: &str = "start=2024-06-15T00:00:00Z&end=2024-06-16T00:00:00Z";

/// The answer to a query that must succeed.
fn ok<E: EndpointDef>(s: &QueryService, q: &str) -> Value {
    query::<E>(s, q).unwrap_or_else(|err| panic!("{}?{q}: {err}", std::any::type_name::<E>()))
}

/// The error of a query that must fail.
fn bad<E: EndpointDef>(s: &QueryService, q: &str) -> QueryError {
    match query::<E>(s, q) {
        Ok(v) => panic!("{}?{q} should fail, got {v}", std::any::type_name::<E>()),
        Err(err) => err,
    }
}

/// The answer to a query over the day `WINDOW` (the query's own parameters, then `&{WINDOW}`).
fn in_window<E: EndpointDef>(s: &QueryService, q: &str) -> Value {
    ok::<E>(s, &format!("{q}&{WINDOW}"))
}

/// The string field `key` of every item of a JSON array, in order.
fn strings<'a>(v: &'a Value, key: &str) -> Vec<&'a str> {
    let items = v.as_array().unwrap();
    items.iter().map(|r| r[key].as_str().unwrap()).collect()
}

#[test]
fn a_job_longer_than_the_window_is_a_400() {
    let s = service();
    let two_hours_in_105_minutes =
        "zone=DE&duration=PT2H&start=2024-06-15T00:00:00Z&end=2024-06-15T01:45:00Z";
    let e = bad::<BestWindowEndpoint>(&s, two_hours_in_105_minutes);
    assert_eq!(e.status, 400);
    assert!(e.detail.contains("longer than the window"), "{}", e.detail);
    // the same job fits from 22:00
    let fits = ok::<BestWindowEndpoint>(&s, "zone=DE&duration=120&start=2024-06-15T22:00:00Z");
    assert_eq!(fits.as_array().unwrap().len(), 1);
    for (query, status) in [
        // without `end` the window ends with the data (end of the day): 23:00 + 2 h does not fit
        ("zone=DE&duration=120&start=2024-06-15T23:00:00Z", 400),
        ("zone=DE&duration=abc", 422),
        ("zone=DE&duration=P1M", 422),
        ("zone=DE&duration=0", 422),
        ("zone=DE&duration=60&n=1000", 400),
        ("zone=DE", 400),
    ] {
        let e = bad::<BestWindowEndpoint>(&s, query);
        assert_eq!(e.status, status, "{query}: {}", e.detail);
    }
}

#[test]
fn alternatives_are_best_first_and_do_not_overlap_within_a_zone() {
    let s = service();
    let got = in_window::<BestWindowEndpoint>(&s, "zone=DE,FR&duration=60&n=5");
    let items = got.as_array().unwrap();
    assert_eq!(items.len(), 5);
    // brute force over both zones: the best 1-hour job is the minimum of the 4-slot means
    let mut best = (f64::INFINITY, 0usize, 0usize);
    for (z, code_z) in [(0usize, 0usize), (1, 1)] {
        for start in 0..=92 {
            let mean = (start..start + 4)
                .map(|i| value(code_z, 0, i) as f32 as f64)
                .sum::<f64>()
                / 4.0;
            if mean < best.0 {
                best = (mean, z, start);
            }
        }
    }
    let first = &items[0];
    assert!((first["value"].as_f64().unwrap() - best.0).abs() < 0.006);
    assert_eq!(first["zone"], ["DE", "FR"][best.1]);
    let mut prev = f64::NEG_INFINITY;
    let mut starts: Vec<(String, i64)> = Vec::new();
    for it in items {
        let v = it["value"].as_f64().unwrap();
        assert!(v >= prev, "best first");
        prev = v;
        let t = time::OffsetDateTime::parse(
            it["start"].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap()
        .unix_timestamp();
        let zone = it["zone"].as_str().unwrap().to_string();
        for (z, s0) in &starts {
            assert!(
                z != &zone || (t - s0).abs() >= 3600,
                "{zone} jobs at {t} and {s0} overlap"
            );
        }
        starts.push((zone, t));
        assert_eq!(it["duration_minutes"], 60);
        assert_eq!(it["duration_rounded_up"], false);
        // now_value is the job starting at the window's start in the same zone
        let z = ["DE", "FR"]
            .iter()
            .position(|c| *c == it["zone"].as_str().unwrap())
            .unwrap();
        let now = (0..4).map(|i| value(z, 0, i) as f32 as f64).sum::<f64>() / 4.0;
        assert!((it["now_value"].as_f64().unwrap() - now).abs() < 0.006);
        let saving = (now - v) / now * 100.0;
        assert!((it["saving_percent"].as_f64().unwrap() - saving).abs() < 0.02);
    }
}

#[test]
fn flags_and_forecast_across_the_boundary() {
    let s = service();
    // 40 minutes → 3 slots; a window of 11:30–12:30 holds 2 provider slots then the forecast
    let got = ok::<BestWindowEndpoint>(
        &s,
        "zone=DE&duration=40&n=2&start=2024-06-15T11:30:00Z&end=2024-06-15T12:30:00Z",
    );
    let items = got.as_array().unwrap();
    assert!(!items.is_empty());
    for it in items {
        assert_eq!(it["duration_minutes"], 45);
        assert_eq!(it["duration_rounded_up"], true);
        // every 3-slot job of this window reaches 12:00 (slot 48), the first forecast slot
        assert_eq!(it["forecast"], true, "{it}");
        assert_eq!(it["valid"], false);
        assert_eq!(it["zone_status"], "missing");
    }
    let past = ok::<BestWindowEndpoint>(
        &s,
        "zone=DE&duration=PT45M&n=1&start=2024-06-15T00:00:00Z&end=2024-06-15T12:00:00Z",
    );
    assert_eq!(past[0]["forecast"], false);
    assert_eq!(past[0]["valid"], true);
    assert_eq!(past[0]["zone_status"], "complete");
    // score: higher is better, so the chosen job has the highest mean score
    let sc = in_window::<BestWindowEndpoint>(&s, "zone=DE&metric=score&duration=15&n=1");
    let best = (0..96)
        .map(|i| score(value(0, 2, i) as f32 as f64, value(0, 4, i) as f32 as f64) as f32 as f64)
        .fold(f64::NEG_INFINITY, f64::max);
    assert!((sc[0]["value"].as_f64().unwrap() - best).abs() < 0.006);
    // CSV has one row per placement
    let csv = s
        .query::<BestWindowEndpoint>(
            &[
                ("zone".into(), "DE".into()),
                ("duration".into(), "60".into()),
                ("start".into(), "2024-06-15T00:00:00Z".into()),
                ("end".into(), "2024-06-16T00:00:00Z".into()),
            ],
            datetime!(2024-06-15 06:00 UTC),
        )
        .unwrap()
        .to_csv();
    let text = String::from_utf8(csv).unwrap();
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(text.starts_with("zone,metric,start,end,value,unit,now_value"));
}

/// Σ w·v / Σ w over DK1 (zone index 2 of [`service`]) and DK2 (3) at slot `i`.
fn weighted(col: usize, weight_col: usize, i: usize) -> f64 {
    let v = |z, c| value(z, c, i) as f32 as f64;
    (v(2, weight_col) * v(2, col) + v(3, weight_col) * v(3, col))
        / (v(2, weight_col) + v(3, weight_col))
}

#[test]
fn country_footprints_are_weighted_means_of_their_zones() {
    let s = service();
    let g = in_window::<FootprintsEndpoint>(&s, "zone=DK&footprint_type=carbon");
    assert_eq!(g[0]["zone"], "DK");
    let l = in_window::<FootprintsEndpoint>(&s, "zone=DK&footprint_type=carbon&use_global=false");
    let points = |v: &Value| -> Vec<f64> {
        v[0]["series"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|e| e["values"].as_array().unwrap().clone())
            .map(|p| p[1].as_f64().unwrap())
            .collect()
    };
    let (gp, lp) = (points(&g), points(&l));
    assert_eq!(gp.len(), 96);
    for i in 0..96 {
        // members differ at every slot, and the consumption (column 6) and generation (7) weights too
        assert_ne!(value(2, 0, i), value(3, 0, i));
        assert!((gp[i] - weighted(0, 6, i)).abs() <= 0.01, "global slot {i}");
        assert!((lp[i] - weighted(1, 7, i)).abs() <= 0.01, "local slot {i}");
    }
    // flags are the worst member's: provider slots complete, forecast slots missing
    let statuses = strings(&g[0]["series"], "zone_status");
    assert_eq!(statuses, ["complete", "missing"]);
    // the score comes from the weighted CF and WI, not from the members' scores
    let sc = in_window::<GreenScoreEndpoint>(&s, "zone=DK");
    let first = sc[0]["series"][0]["values"][0][1].as_f64().unwrap();
    let want = score(weighted(2, 6, 0), weighted(4, 6, 0));
    assert!((first - want).abs() <= 0.01, "{first} vs {want}");
    let im = in_window::<ImpactsEndpoint>(&s, "zone=DK");
    let first = im[0]["series"][0]["values"][0][1].as_f64().unwrap();
    assert!((first - weighted(4, 6, 0)).abs() <= 0.01);
    // a zone code wins, countries come in code order among zones, and `zone=` adds none
    let both = in_window::<FootprintsEndpoint>(&s, "zone=FR,DK,DE&footprint_type=carbon");
    assert_eq!(strings(&both, "zone"), ["DE", "DK", "FR"]);
    let all = in_window::<FootprintsEndpoint>(&s, "zone=&footprint_type=carbon");
    assert!(strings(&all, "zone").iter().all(|z| *z != "DK"));
    // best-window over a country
    let bw = in_window::<BestWindowEndpoint>(&s, "zone=DK&duration=15&n=1");
    assert_eq!(bw[0]["zone"], "DK");
    let best = (0..96)
        .map(|i| weighted(0, 6, i))
        .fold(f64::INFINITY, f64::min);
    assert!((bw[0]["value"].as_f64().unwrap() - best).abs() <= 0.01);
}

#[test]
fn a_member_without_a_value_is_left_out_and_makes_the_slot_preview() {
    let reference = Arc::new(ReferenceData::embedded(ZoneSet::Selected2026));
    let store = SqliteStore::open_in_memory().unwrap();
    let mut dk2 = day("DK2", 3);
    for col in dk2.series.values_mut() {
        col[0] = f32::NAN;
    }
    store.replace_derived_days(&[day("DK1", 2), dk2]).unwrap();
    let s = QueryService::load(&store, reference).unwrap();
    let g = in_window::<FootprintsEndpoint>(&s, "zone=DK&footprint_type=carbon");
    let entries = g[0]["series"].as_array().unwrap();
    assert_eq!(entries[0]["zone_status"], "preview");
    assert_eq!(entries[0]["valid"], false);
    let v0 = entries[0]["values"][0][1].as_f64().unwrap();
    assert!((v0 - value(2, 0, 0) as f32 as f64).abs() <= 0.01);
}
