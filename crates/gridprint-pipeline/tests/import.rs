//! The import orchestration: parse every file, store all points in one transaction, compute and
//! publish exactly the days they touch; a bad file stores nothing.

use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::parse_timestamp;
use gridprint_pipeline::testing::{fixture, import_fixtures};
use gridprint_pipeline::{ImportOptions, PipelineError, import_and_compute};
use gridprint_store::{DerivedStore, InputStore, Store};
use gridprint_store_sqlite::SqliteStore;
use std::collections::BTreeSet;

const FILES: &[&str] = &[
    "entsoe-api/A75_NL_2024-09-02_PT15M_A03.xml",
    "entsoe-api/A65_A16_NL_2024-09-02_PT15M_A03.xml",
    "entsoe-file-library/2017_02_01_AM_AggregGen.csv",
];

fn reference() -> ReferenceData {
    ReferenceData::embedded(ZoneSet::Selected2026)
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
    assert_eq!(report.stored.inserted, report.document.points.len());
    let touched: BTreeSet<i64> = report
        .touched_days()
        .iter()
        .flat_map(|r| r.days())
        .collect();
    let point_days: BTreeSet<i64> = report
        .document
        .points
        .iter()
        .map(|p| p.slot.day())
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
    use gridprint_core::inputs::{InputKey, InputPoint};
    use gridprint_core::production::ProductionType;
    use gridprint_core::quality::DataState;
    use gridprint_core::slot::{Slot, SlotRange};
    use gridprint_core::zone::ZoneCode;
    let store = SqliteStore::open_in_memory().unwrap();
    let day = Slot::containing(parse_timestamp("2024-06-15T00:00Z").unwrap());
    let key = InputKey::Generation {
        zone: ZoneCode::parse("AT").unwrap(),
        production_type: ProductionType::HydroRiver,
    };
    let official: Vec<InputPoint> = (0..4)
        .chain(8..12)
        .map(|i| InputPoint {
            key: key.clone(),
            slot: day.offset(i),
            mw: 100.0 + i as f64,
            state: DataState::Official,
            datasource: "ENTSO-E".into(),
        })
        .collect();
    store.upsert_inputs(&official, 1).unwrap();
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
