//! Incremental refresh: after many publications taken in day by day, every endpoint answers
//! byte for byte what a fresh full load answers, on SQLite and PostgreSQL; a republished day is
//! served with its new values; the window version of untouched days stays put. The same holds when
//! the cache spills its pages of old days to files ([`Spill`]): the answers read back through the
//! files equal those of a cache held in memory.

use crate::fixture::Endpoint;
use crate::fixture::*;
use gridprint_compute::synthetic::inputs_of_slot;
use gridprint_core::derived::{DerivedDay, SeriesKey};
use gridprint_core::inputs::InputPoint;
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_query::{DataCache, LoadOptions, QueryService, Spill};
use gridprint_store::Store;
use time::OffsetDateTime;

/// Synthetic inputs of whole days (every zone, every border), values scaled by `scale`.
fn inputs(days: std::ops::Range<i64>, scale: f64) -> Vec<InputPoint> {
    let r = reference();
    (days.start * SLOTS_PER_DAY..days.end * SLOTS_PER_DAY)
        .flat_map(|s| inputs_of_slot(&r, Slot(s), true))
        .map(|mut p| {
            p.mw *= scale;
            p
        })
        .collect()
}

fn compute(store: &dyn Store, days: std::ops::Range<i64>) {
    let range = SlotRange::new(Slot::first_of_day(days.start), Slot::first_of_day(days.end));
    gridprint_compute::compute_range(store, &reference(), range, NOW, &mut |_, _| {}).unwrap();
}

/// The published days of `day`, every series multiplied by `k` (a republication with new values).
fn scaled(store: &dyn Store, day: i64, k: f32) -> Vec<DerivedDay> {
    let mut days = store.derived_days(day..day + 1).unwrap();
    for d in &mut days {
        for v in d.series.values_mut() {
            for x in v.iter_mut() {
                *x *= k;
            }
        }
    }
    days
}

fn iso(day: i64, slot: i64) -> String {
    let t = OffsetDateTime::from_unix_timestamp(day * 86_400 + slot * 900).unwrap();
    t.format(&time::format_description::well_known::Rfc3339)
        .unwrap()
}

/// Every data endpoint on a sample of zones and windows, JSON and CSV (or the error), as bytes.
fn answers(svc: &QueryService, first: i64, last: i64) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let windows = [
        (first, 37, last, 50),
        (first + 1, 0, last + 1, 0),
        (last, 10, last, 90),
    ];
    for ep in Endpoint::ALL {
        for zone in ["DE", "FR", "PL"] {
            for &(a, i, b, j) in &windows {
                let query = format!("zone={zone}&start={}&end={}", iso(a, i), iso(b, j));
                let body = match ep.query(svc, &q(&query), NOW) {
                    Ok(r) => [r.to_json(), r.to_csv()].concat(),
                    Err(e) => e.to_string().into_bytes(),
                };
                out.push((format!("{ep:?}?{query}"), body));
            }
        }
    }
    out
}

fn assert_same_as_fresh(store: &dyn Store, svc: &QueryService, first: i64, last: i64) {
    let fresh = QueryService::new(DataCache::load(store, reference()).unwrap()).unwrap();
    assert_eq!(fresh.cache().version(), svc.cache().version());
    let (got, want) = (answers(svc, first, last), answers(&fresh, first, last));
    assert_eq!(got.len(), want.len());
    for ((name, g), (_, w)) in got.iter().zip(&want) {
        assert!(
            g == w,
            "{name}: incremental answer differs from a full load\n{}\n{}",
            String::from_utf8_lossy(g),
            String::from_utf8_lossy(w)
        );
    }
}

fn many_publications(store: &dyn Store, spill: impl Fn(i64) -> Option<Spill>) {
    let d0 = day0();
    store.upsert_inputs(&inputs(d0..d0 + 3, 1.0), 1).unwrap();
    compute(store, d0..d0 + 3);
    let options = LoadOptions {
        spill: spill(d0),
        ..LoadOptions::default()
    };
    let svc =
        QueryService::new(DataCache::load_with(store, reference(), options).unwrap()).unwrap();
    let spilled = svc.cache().stats().spilled_bytes;
    assert_eq!(spilled > 0, spill(d0).is_some(), "{spilled} bytes spilled");
    assert_eq!(svc.cache().stats().incremental_updates, 0);
    let tag_d0 = svc.cache().window_version(d0..d0 + 1);
    let key = carbon_lc_global();
    let de = reference().zones.index_of(&z("DE")).unwrap();
    let value_of = |svc: &QueryService, day: i64| {
        let c = svc.cache();
        let dz = c.derived(de);
        dz.chunk_of_day(dz.column(&key).unwrap(), day).unwrap()[40]
    };
    let before = value_of(&svc, d0 + 1);

    // 1. Day 1 republished with new values.
    store
        .replace_derived_days(&scaled(store, d0 + 1, 2.0))
        .unwrap();
    assert!(svc.refresh(store).unwrap());
    assert_eq!(svc.cache().stats().incremental_updates, 1);
    assert_eq!(
        value_of(&svc, d0 + 1),
        before * 2.0,
        "served with the new value"
    );
    assert_eq!(
        svc.cache().window_version(d0..d0 + 1),
        tag_d0,
        "an unchanged day keeps its version"
    );
    assert!(svc.cache().window_version(d0 + 1..d0 + 2) > tag_d0);
    assert_same_as_fresh(store, &svc, d0, d0 + 2);

    // 2. New inputs for day 1 (other values) and its recomputation; a zone-day deleted on day 2.
    store
        .upsert_inputs(&inputs(d0 + 1..d0 + 2, 1.25), 2)
        .unwrap();
    compute(store, d0 + 1..d0 + 2);
    store
        .replace_derived_days(&[DerivedDay::new(z("FR"), d0 + 2)])
        .unwrap();
    assert!(svc.refresh(store).unwrap());
    assert_same_as_fresh(store, &svc, d0, d0 + 2);

    // 3. New days beyond the input extent, published one by one, and day 0 twice.
    for d in d0 + 3..d0 + 6 {
        store.upsert_inputs(&inputs(d..d + 1, 1.0), 3).unwrap();
        compute(store, d..d + 1);
        assert!(svc.refresh(store).unwrap());
    }
    for k in [0.5, 3.0] {
        store.replace_derived_days(&scaled(store, d0, k)).unwrap();
        assert!(svc.refresh(store).unwrap());
    }
    // A derived series removed from a day (its column may disappear).
    let mut days = store.derived_days(d0 + 4..d0 + 5).unwrap();
    for d in &mut days {
        d.series
            .retain(|k, _| !matches!(k, SeriesKey::Exchange { .. }));
    }
    store.replace_derived_days(&days).unwrap();
    assert!(svc.refresh(store).unwrap());
    assert!(!svc.refresh(store).unwrap(), "nothing new");
    let stats = svc.cache().stats();
    assert!(
        stats.incremental_updates >= 8,
        "every refresh was incremental: {stats:?}"
    );
    assert_same_as_fresh(store, &svc, d0, d0 + 5);
}

#[test]
fn incremental_refresh_equals_a_full_load_sqlite() {
    many_publications(&store(), |_| None);
}

#[test]
fn incremental_refresh_equals_a_full_load_postgres() {
    let db = gridprint_store_postgres::testing::TestDb::new("incremental");
    many_publications(&db.store(), |_| None);
}

/// Every page spilled (all days count as old): every chunk is read back from a file.
#[test]
fn spilled_cache_equals_a_cache_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    many_publications(&store(), |_| Some(Spill::before_day(dir.path(), i64::MAX)));
}

/// The first days' page spilled, the pages of later publications (days from day 3) kept in memory.
#[test]
fn partly_spilled_cache_equals_a_cache_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    many_publications(&store(), |d0| Some(Spill::before_day(dir.path(), d0 + 3)));
}
