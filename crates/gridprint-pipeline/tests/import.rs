//! The import orchestration: parse every file, store all points in one transaction, compute and
//! publish exactly the days they touch; a bad file stores nothing. Settled days: a
//! compute that saw every input write settles the final days it covered, and the next compute
//! skips them until their inputs change, or those of a neighbour within the estimators' reach; a
//! write by another process during a run settles nothing.

use gridprint_compute::synthetic::official_generation;
use gridprint_core::inputs::InputPoint;
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{Slot, SlotRange, parse_timestamp};
use gridprint_pipeline::compute::{compute_ranges, compute_stored};
use gridprint_pipeline::observer::Observer;
use gridprint_pipeline::testing::{fixture, import_fixtures};
use gridprint_pipeline::{ImportOptions, PipelineError, import_and_compute};
use gridprint_store::{DerivedStore, InputStore, Store};
use gridprint_store_sqlite::SqliteStore;
use std::collections::BTreeSet;
use time::OffsetDateTime;

const FILES: &[&str] = &[
    "entsoe-api/A75_NL_2024-09-02_PT15M_A03.xml",
    "entsoe-api/A65_A16_NL_2024-09-02_PT15M_A03.xml",
    "entsoe-file-library/2017_02_01_AM_AggregGen.csv",
];

fn reference() -> ReferenceData {
    ReferenceData::embedded(ZoneSet::Selected2026)
}

/// An official river-hydro value of ENTSO-E.
fn official(zone: &str, slot: Slot, mw: f64) -> InputPoint {
    official_generation(zone, ProductionType::HydroRiver, slot, mw)
}

/// Stores AT's official river hydro at these slot offsets from 2024-06-15 00:00 UTC (`mw` of each
/// offset) as one write; answers that first slot.
fn store_at_hydro(
    store: &SqliteStore,
    offsets: impl Iterator<Item = i64>,
    mw: impl Fn(i64) -> f64,
) -> Slot {
    let d0 = Slot::containing(parse_timestamp("2024-06-15T00:00Z").unwrap());
    let points: Vec<InputPoint> = offsets
        .map(|i| official("AT", d0.offset(i), mw(i)))
        .collect();
    store.upsert_inputs(&points, 1).unwrap();
    d0
}

/// The value of the estimated point in `slot`.
fn estimate_at(store: &SqliteStore, slot: Slot) -> f64 {
    let got = store.inputs_in_range(SlotRange::new(slot, slot.offset(1)));
    let got = got.unwrap();
    let p = got
        .iter()
        .find(|p| p.point.state == DataState::Estimated)
        .expect("an estimate");
    p.point.mw
}

fn published_days(store: &dyn Store) -> BTreeSet<i64> {
    let extent = store.input_extent().unwrap().unwrap();
    store
        .derived_days(extent.days())
        .unwrap()
        .iter()
        .map(|d| d.day)
        .collect()
}

#[test]
fn imports_and_publishes_exactly_the_touched_days() {
    let store = SqliteStore::open_in_memory().unwrap();
    let now = parse_timestamp("2026-01-01T00:00Z").unwrap();
    let report = import_fixtures(&store, &reference(), FILES, 7, Some(now));
    assert_eq!(report.files, 3);
    assert_eq!(report.stored.inserted, report.points);
    let touched: BTreeSet<i64> = report
        .touched_days()
        .iter()
        .flat_map(|r| r.days())
        .collect();
    let extent = store.input_extent().unwrap().unwrap();
    let point_days: BTreeSet<i64> = store
        .inputs_in_range(extent)
        .unwrap()
        .iter()
        .filter(|p| p.point.state == DataState::Official)
        .map(|p| p.point.slot.day())
        .collect();
    assert_eq!(touched, point_days);
    let computed = report.computed.expect("computed");
    assert!(computed.computed > 0);
    assert_eq!(published_days(&store), touched);
    assert_eq!(
        computed.days_published,
        store.derived_days(0..100_000).unwrap().len()
    );
}

#[test]
fn without_compute_nothing_is_published() {
    let store = SqliteStore::open_in_memory().unwrap();
    let report = import_fixtures(&store, &reference(), FILES, 7, None);
    assert!(report.computed.is_none());
    assert!(store.input_extent().unwrap().is_some());
    assert!(store.derived_days(0..100_000).unwrap().is_empty());
}

#[test]
fn a_bad_file_stores_nothing_and_is_named() {
    let store = SqliteStore::open_in_memory().unwrap();
    let files = vec![
        ("good.xml".to_string(), fixture(FILES[0])),
        (
            "bad.xml".to_string(),
            fixture("invalid/hexagon_invalid.xml"),
        ),
    ];
    let now = parse_timestamp("2026-01-01T00:00Z").unwrap();
    let err = import_and_compute(
        &store,
        &reference(),
        &files,
        &ImportOptions::at(now),
        &mut (),
    )
    .unwrap_err();
    assert!(
        matches!(&err, PipelineError::Parse { file, .. } if file == "bad.xml"),
        "{err}"
    );
    assert!(err.to_string().contains("bad.xml"));
    assert!(store.input_extent().unwrap().is_none(), "nothing stored");
}

/// Issue #13: the demo has DE's generation on 2024-06-15 but no flow on any of its borders. The
/// absent flows are taken as 0 MW and stored as estimated, so DE is `preview` (never `complete`)
/// and its imports show the estimated blocks; the footprint itself is DE's local one, as before.
#[test]
fn the_demo_marks_des_absent_borders_instead_of_calling_it_complete() {
    use gridprint_core::inputs::{DATASOURCE_ASSUMED_ZERO, InputKey};
    use gridprint_core::quality::{DataState, ZoneStatus};
    use gridprint_core::slot::{Slot, SlotRange};
    let store = SqliteStore::open_in_memory().unwrap();
    let reference = reference();
    let now = parse_timestamp("2026-01-01T00:00Z").unwrap();
    gridprint_pipeline::demo::import_demo(&store, &reference, now, &mut ()).unwrap();
    let ten = Slot::containing(parse_timestamp("2024-06-15T10:00Z").unwrap());
    let de = store
        .derived_days(ten.day()..ten.day() + 1)
        .unwrap()
        .into_iter()
        .find(|d| d.zone.as_str() == "DE")
        .expect("DE computed on 2024-06-15");
    let present: Vec<_> = de.flags.iter().filter(|f| f.present()).collect();
    assert!(present.len() >= 88, "{} slots", present.len());
    assert!(
        present.iter().all(|f| f.status() != ZoneStatus::Complete),
        "no DE slot of 2024-06-15 is complete"
    );
    let f = de.flags[ten.index_in_day()];
    assert_eq!((f.status(), f.valid()), (ZoneStatus::Preview, true));
    let de_neighbours = reference
        .zones
        .neighbours(reference.zones.index_of_str("DE").unwrap())
        .len();
    let imports: Vec<_> = store
        .inputs_in_range(SlotRange::new(ten, ten.offset(1)))
        .unwrap()
        .into_iter()
        .map(|s| s.point)
        .filter(|p| matches!(&p.key, InputKey::Flow { to, .. } if to.as_str() == "DE"))
        .collect();
    assert_eq!(imports.len(), de_neighbours, "one import per border");
    assert!(imports.iter().all(|p| p.state == DataState::Estimated
        && p.datasource == DATASOURCE_ASSUMED_ZERO
        && p.mw == 0.0));
}

/// The estimators after an import fill the gaps between two official values, never after a series'
/// last one (old history does not end because the provider is late: that stays a hole).
#[test]
fn stored_gaps_between_official_values_are_estimated_trailing_ones_are_not() {
    let store = SqliteStore::open_in_memory().unwrap();
    let day = store_at_hydro(&store, (0..4).chain(8..12), |i| 100.0 + i as f64);
    let now = parse_timestamp("2026-01-01T00:00Z").unwrap();
    let range = SlotRange::new(day, day.offset(96));
    let n = gridprint_pipeline::estimate::fill_stored_gaps(&store, &reference(), &[range], now)
        .unwrap();
    assert_eq!(n, 4);
    let estimated: Vec<(i64, f64, String)> = store
        .inputs_in_range(range)
        .unwrap()
        .into_iter()
        .filter(|p| p.point.state == DataState::Estimated)
        .map(|p| (p.point.slot.0 - day.0, p.point.mw, p.point.datasource))
        .collect();
    let linear = gridprint_pipeline::estimate::DATASOURCE_LINEAR.to_string();
    assert_eq!(
        estimated,
        (4..8)
            .map(|i| (
                i,
                103.0 + (108.0 - 103.0) * (i - 3) as f64 / 5.0,
                linear.clone()
            ))
            .collect::<Vec<_>>()
    );
}

fn now() -> OffsetDateTime {
    parse_timestamp("2026-01-01T00:00Z").unwrap()
}

fn input_days(store: &dyn Store) -> Vec<i64> {
    let extent = store.input_extent().unwrap().unwrap();
    let mut days: Vec<i64> = store
        .inputs_in_range(extent)
        .unwrap()
        .iter()
        .map(|p| p.point.slot.day())
        .collect();
    days.dedup();
    days
}

#[test]
fn a_compute_right_after_an_import_skips_every_settled_day_and_republishes_nothing() {
    let store = SqliteStore::open_in_memory().unwrap();
    import_fixtures(&store, &reference(), FILES, 7, Some(now()));
    let days = input_days(&store);
    let version = store.data_version().unwrap();
    let derived = store
        .derived_days(days[0]..days[days.len() - 1] + 1)
        .unwrap();
    assert!(!derived.is_empty());

    let s = compute_stored(&store, &reference(), now(), &mut ())
        .unwrap()
        .unwrap();
    assert_eq!(
        s.days_settled,
        days.len(),
        "every day of the import is settled"
    );
    assert_eq!((s.days_published, s.computed, s.slots), (0, 0, 0));
    assert_eq!(
        store.data_version().unwrap(),
        version,
        "nothing republished"
    );
    assert_eq!(
        store
            .derived_days(days[0]..days[days.len() - 1] + 1)
            .unwrap(),
        derived
    );

    // Forced, every day is computed again: final slots recomputed, settled or not.
    let all = SlotRange::new(
        Slot::first_of_day(days[0]),
        Slot::first_of_day(days[days.len() - 1] + 1),
    );
    let forced = gridprint_pipeline::compute::compute_ranges_as(
        &store,
        &reference(),
        &[all],
        gridprint_compute::Mode::RECOMPUTE_FINAL,
        now(),
        &mut (),
    )
    .unwrap();
    assert_eq!(forced.days_settled, 0);
    assert!(forced.computed > 0);
}

#[test]
fn a_changed_day_is_computed_again_and_so_is_the_estimate_of_its_neighbour() {
    let store = SqliteStore::open_in_memory().unwrap();
    // AT's river hydro on two days: official everywhere but the 6 slots around midnight, which
    // the estimators interpolate between the last official value of day 0 and the first of day 1.
    let d0 = store_at_hydro(&store, (0..93).chain(99..192), |_| 100.0);
    let two_days = SlotRange::new(d0, d0.offset(192));
    let first = compute_ranges(&store, &reference(), &[two_days], now(), &mut ()).unwrap();
    assert_eq!(first.days_settled, 0);
    assert_eq!(estimate_at(&store, d0.offset(95)), 100.0);

    let again = compute_ranges(&store, &reference(), &[two_days], now(), &mut ()).unwrap();
    assert_eq!((again.days_settled, again.days_published), (2, 0));

    // Day 1's first official value after the gap changes: day 1 is computed again, and day 0's
    // estimates, which reach it, are estimated again and follow.
    store
        .upsert_inputs(&[official("AT", d0.offset(99), 160.0)], 2)
        .unwrap();
    let changed = compute_ranges(&store, &reference(), &[two_days], now(), &mut ()).unwrap();
    assert_eq!(
        changed.days_settled, 0,
        "day 1 changed, day 0's estimates with it"
    );
    assert!(changed.days_published > 0);
    assert_eq!(estimate_at(&store, d0.offset(95)), 100.0 + 60.0 * 3.0 / 7.0);

    let settled = compute_ranges(&store, &reference(), &[two_days], now(), &mut ()).unwrap();
    assert_eq!((settled.days_settled, settled.days_published), (2, 0));
}

#[test]
fn a_change_ten_days_back_reaches_the_profile_estimate_that_scales_on_it() {
    let store = SqliteStore::open_in_memory().unwrap();
    // AT's river hydro official at 100 MW on days 0–14 but for a gap from day 8 to the middle of
    // day 14 (624 slots: the profile estimator's). Its scale at the gap's left end divides the
    // last official value (day 7, slot 95) by the profile there: slot 95 of days 0–6.
    let gap = 768..1392;
    let d0 = store_at_hydro(&store, (0..1440).filter(|i| !gap.contains(i)), |_| 100.0);
    let fifteen_days = SlotRange::new(d0, d0.offset(1440));
    let in_day_10 = 1000;
    compute_ranges(&store, &reference(), &[fifteen_days], now(), &mut ()).unwrap();
    assert_eq!(estimate_at(&store, d0.offset(in_day_10)), 100.0);
    let again = compute_ranges(&store, &reference(), &[fifteen_days], now(), &mut ()).unwrap();
    assert_eq!((again.days_settled, again.days_published), (15, 0));

    // Day 0 changes: the profile at the left end becomes 770 / 7, and the estimates of day 10,
    // ten days later (beyond the week the gap-closing values lie ahead), follow, though day 10
    // itself did not change. A reach back shorter than ten days would leave them at 100.
    store
        .upsert_inputs(&[official("AT", d0.offset(95), 170.0)], 2)
        .unwrap();
    compute_ranges(&store, &reference(), &[fifteen_days], now(), &mut ()).unwrap();
    let scale_left = 100.0 / (770.0 / 7.0);
    let frac = (in_day_10 - 767) as f64 / (1392 - 767) as f64;
    let expected = 100.0 * (scale_left + (1.0 - scale_left) * frac);
    assert!(
        (estimate_at(&store, d0.offset(in_day_10)) - expected).abs() < 1e-9,
        "{} against {expected}",
        estimate_at(&store, d0.offset(in_day_10))
    );
}

/// Writes one changed input through another connection when the compute reports its first batch:
/// a write the run did not make.
struct WritesDuringTheRun {
    other: SqliteStore,
    point: InputPoint,
    written: bool,
}

impl Observer for WritesDuringTheRun {
    fn computing(&mut self, _done: u64, _total: u64) {
        if !self.written {
            let point = std::slice::from_ref(&self.point);
            self.other.upsert_inputs(point, 3).unwrap();
            self.written = true;
        }
    }
}

#[test]
fn a_write_by_another_process_during_the_run_settles_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gridprint.db");
    let store = SqliteStore::open(&path).unwrap();
    let d0 = store_at_hydro(&store, 0..192, |_| 100.0);
    let two_days = SlotRange::new(d0, d0.offset(192));
    let mut observer = WritesDuringTheRun {
        other: SqliteStore::open(&path).unwrap(),
        point: official("AT", d0.offset(150), 120.0),
        written: false,
    };
    compute_ranges(&store, &reference(), &[two_days], now(), &mut observer).unwrap();
    assert!(observer.written);
    let revisions = store.day_revisions(two_days.days()).unwrap();
    assert!(
        revisions.iter().all(|d| !d.is_settled()),
        "{revisions:?}: the run did not see every write"
    );
    let next = compute_ranges(&store, &reference(), &[two_days], now(), &mut ()).unwrap();
    assert_eq!(next.days_settled, 0);
    assert!(next.days_published > 0);
    let last = compute_ranges(&store, &reference(), &[two_days], now(), &mut ()).unwrap();
    assert_eq!(last.days_settled, 2);
}
