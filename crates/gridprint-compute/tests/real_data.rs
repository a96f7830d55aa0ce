//! End-to-end checks of import → compute on the real 2017-02-01 File Library extract, plus the
//! data-quality life of a slot (freeze after 4 h) on hand-made inputs.

use gridprint_compute::ComputeSummary;
use gridprint_compute::input_days::InputDays;
use gridprint_core::derived::{Coverage, DerivedDay, SeriesKey};
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::{DataState, ZoneStatus};
use gridprint_core::reference::{FootprintType, ReferenceData, Scope, ZoneSet};
use gridprint_core::slot::{Slot, SlotRange, parse_timestamp};
use gridprint_core::zone::ZoneCode;
use gridprint_store::Store;
use std::collections::BTreeMap;
use time::OffsetDateTime;

const FILES: &[&str] = &[
    "2017_02_01_AM_AggregGen.csv",
    "2017_02_01_PM_AggregGen.csv",
    "2017_02_01_AM_PhysicalFlows.csv",
    "2017_02_01_PM_PhysicalFlows.csv",
];

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../../data/fixtures/entsoe-file-library/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn import_2017(store: &dyn Store, reference: &ReferenceData) {
    for f in FILES {
        let doc = gridprint_ingest::detect_and_parse(&fixture(f), &reference.zones).unwrap();
        store.upsert_inputs(&doc.points, 1).unwrap();
    }
}

/// Computes `range` at `now`, without progress reports.
fn compute(
    store: &dyn Store,
    reference: &ReferenceData,
    range: SlotRange,
    now: OffsetDateTime,
) -> ComputeSummary {
    gridprint_compute::compute_range(store, reference, range, now, &mut |_, _| {}).unwrap()
}

/// Imports the 2017 extract and computes its day as of 2026-01-01; returns that "now".
fn import_and_compute_2017(store: &dyn Store, reference: &ReferenceData) -> OffsetDateTime {
    import_2017(store, reference);
    let now = parse_timestamp("2026-01-01T00:00Z").unwrap();
    compute(store, reference, day_2017(), now);
    now
}

fn day_2017() -> SlotRange {
    let s = Slot::containing(parse_timestamp("2017-02-01T00:00Z").unwrap());
    SlotRange::new(s, s.offset(96))
}

fn carbon(coverage: Coverage) -> SeriesKey {
    SeriesKey::Footprint {
        footprint_type: FootprintType::Carbon,
        scope: Scope::LifeCycle,
        coverage,
    }
}

fn real_2017_extract_gives_plausible_global_footprints(store: &dyn Store) {
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    import_2017(store, &reference);
    let now = parse_timestamp("2026-01-01T00:00Z").unwrap();
    let s = compute(store, &reference, day_2017(), now);
    assert!(s.computed > 0);
    let days: BTreeMap<String, DerivedDay> = store
        .derived_days(day_2017().days())
        .unwrap()
        .into_iter()
        .map(|d| (d.zone.to_string(), d))
        .collect();
    let mut importing_slots = 0;
    for zone in ["DE", "FR", "AT", "CH", "CZ"] {
        let d = days.get(zone).unwrap_or_else(|| panic!("{zone} computed"));
        // Complete hours: all four slots computed.
        let mut hours = 0;
        for h in 0..24 {
            if !(0..4).all(|q| d.flags[h * 4 + q].present()) {
                continue;
            }
            hours += 1;
            for q in 0..4 {
                let i = h * 4 + q;
                assert!(d.flags[i].valid(), "{zone} slot {i}: old data is final");
                let g = d.value(&carbon(Coverage::Global), i).unwrap();
                let l = d.value(&carbon(Coverage::Local), i).unwrap();
                assert!(g > 0.0 && g < 1200.0, "{zone} slot {i}: global {g}");
                // Where the zone imports, its global footprint differs from its local one.
                let consumption = d.value(&SeriesKey::Consumption, i).unwrap();
                let imported: f32 = d
                    .series
                    .iter()
                    .filter(|(k, _)| matches!(k, SeriesKey::Exchange { origin } if origin.as_str() != zone))
                    .map(|(_, c)| if c[i].is_finite() { 100.0 * c[i] / consumption } else { 0.0 })
                    .sum();
                if imported > 0.01 {
                    importing_slots += 1;
                    assert!(
                        (g - l).abs() > 1e-3,
                        "{zone} slot {i}: imports {imported}% but global {g} == local {l}"
                    );
                } else {
                    assert!(
                        (g - l).abs() < 0.5,
                        "{zone} slot {i}: no imports but global {g} != local {l}"
                    );
                }
            }
        }
        assert!(hours >= 10, "{zone}: {hours} complete hours");
    }
    assert!(
        importing_slots > 100,
        "the extract has imports ({importing_slots} importing zone-slots)"
    );
}

fn shares_from_stored_exchanges_add_up(store: &dyn Store) {
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    import_and_compute_2017(store, &reference);
    let days = store.derived_days(day_2017().days()).unwrap();
    let by_zone: BTreeMap<String, &DerivedDay> =
        days.iter().map(|d| (d.zone.to_string(), d)).collect();
    let mut checked = 0;
    for zone in ["DE", "FR", "AT", "CH", "CZ"] {
        let d = by_zone[zone];
        let shares = gridprint_core::derived::share_columns(d, days.iter(), |c| {
            by_zone.get(c.as_str()).copied()
        });
        for i in (0..96).filter(|&i| d.flags[i].present()) {
            let sum = |f: &dyn Fn(&SeriesKey) -> bool| -> f64 {
                shares
                    .iter()
                    .filter(|(k, _)| f(k))
                    .map(|(_, c)| c[i])
                    .filter(|v| v.is_finite())
                    .map(f64::from)
                    .sum()
            };
            let mix = sum(&|k| matches!(k, SeriesKey::MixShare { .. }));
            assert!(
                (mix - 100.0).abs() < 0.01,
                "{zone} slot {i}: mix-shares sum to {mix}"
            );
            let flow = sum(&|k| matches!(k, SeriesKey::FlowShare { .. }));
            assert!(
                (flow - 100.0).abs() < 0.05,
                "{zone} slot {i}: flow-shares sum to {flow}"
            );
            for ft in [FootprintType::Carbon, FootprintType::Water] {
                let blocks = sum(
                    &|k| matches!(k, SeriesKey::FootprintShare { footprint_type, scope: Scope::LifeCycle, .. } if *footprint_type == ft),
                );
                let global = f64::from(
                    d.value(
                        &SeriesKey::Footprint {
                            footprint_type: ft,
                            scope: Scope::LifeCycle,
                            coverage: Coverage::Global,
                        },
                        i,
                    )
                    .unwrap(),
                );
                assert!(
                    (blocks - global).abs() <= 1e-3 * global.max(1.0),
                    "{zone} slot {i} {ft:?}: blocks {blocks} vs global {global}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 200, "{checked} zone-slots checked");
}

fn recompute_is_idempotent_and_frozen_slots_stay(store: &dyn Store) {
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let now = import_and_compute_2017(store, &reference);
    let first = store.derived_days(day_2017().days()).unwrap();
    // Re-importing the same data changes nothing.
    for f in FILES {
        let doc = gridprint_ingest::detect_and_parse(&fixture(f), &reference.zones).unwrap();
        let s = store.upsert_inputs(&doc.points, 2).unwrap();
        assert_eq!((s.inserted, s.updated), (0, 0));
    }
    // Late data for a frozen slot does not change it.
    let slot = day_2017().start.offset(4);
    let late = InputPoint {
        key: InputKey::Generation {
            zone: ZoneCode::parse("DE").unwrap(),
            production_type: ProductionType::Coal,
        },
        slot,
        mw: 99_999.0,
        state: DataState::Official,
        datasource: "ENTSO-E".into(),
    };
    store.upsert_inputs(&[late], 3).unwrap();
    let s = compute(store, &reference, day_2017(), now);
    assert_eq!(s.computed, 0, "everything was frozen");
    assert!(s.frozen_kept > 0);
    assert_eq!(store.derived_days(day_2017().days()).unwrap(), first);
}

fn point(key: InputKey, slot: Slot, mw: f64, state: DataState, ds: &str) -> InputPoint {
    InputPoint {
        key,
        slot,
        mw,
        state,
        datasource: ds.into(),
    }
}

/// The datasources of the seasonal forecast and of the linear gap estimate.
const SEASONAL: &str = "wattnet-hybrid-estimation:gridprint-seasonal";
const LINEAR: &str = "wattnet-hybrid-estimation:gridprint-linear";

fn life_of_a_slot_forecast_estimate_official_frozen(store: &dyn Store) {
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let slot = Slot::containing(parse_timestamp("2025-03-01T12:00Z").unwrap());
    let range = SlotRange::new(slot, slot.offset(1));
    let gen_key = InputKey::Generation {
        zone: ZoneCode::parse("AT").unwrap(),
        production_type: ProductionType::HydroRiver,
    };
    let flags = |store: &dyn Store| {
        let d = derived_day(store, slot, "AT");
        let f = d.flags[slot.index_in_day()];
        (
            f.status(),
            f.valid(),
            d.value(
                &SeriesKey::Mix(ProductionType::HydroRiver),
                slot.index_in_day(),
            ),
        )
    };
    let generation =
        |mw: f64, state: DataState, ds: &str| point(gen_key.clone(), slot, mw, state, ds);
    // 3. Provider data, and every border of AT reported (issue #13: a border without a flow is
    //    never a silent zero).
    let mut official = vec![generation(120.0, DataState::Official, "ENTSO-E")];
    official.extend(border_flows(
        &reference,
        "AT",
        None,
        slot,
        DataState::Official,
    ));
    // Each step stores its points as the next input version, computes at its "now" and reads the
    // slot's flags.
    let steps = [
        // 1. Forecast only, slot in the future: missing, not valid.
        (
            vec![generation(100.0, DataState::Missing, SEASONAL)],
            "2025-03-01T06:00Z",
            (ZoneStatus::Missing, false, Some(100.0)),
        ),
        // 2. Estimated: preview, not valid.
        (
            vec![generation(110.0, DataState::Estimated, LINEAR)],
            "2025-03-01T12:30Z",
            (ZoneStatus::Preview, false, Some(110.0)),
        ),
        // 3. Provider data: complete, valid.
        (
            official,
            "2025-03-01T13:00Z",
            (ZoneStatus::Complete, true, Some(120.0)),
        ),
    ];
    for (version, (points, now, expected)) in (1..).zip(steps) {
        store.upsert_inputs(&points, version).unwrap();
        compute(store, &reference, range, parse_timestamp(now).unwrap());
        assert_eq!(flags(store), expected, "step {version}");
    }
    // 4. After 4 h the slot is frozen; late data no longer changes it.
    let t3 = parse_timestamp("2025-03-01T16:30Z").unwrap();
    compute(store, &reference, range, t3);
    let mut late = point(gen_key, slot, 500.0, DataState::Official, "ENTSO-E");
    late.datasource = "ENTSO-E".into();
    store.upsert_inputs(&[late], 4).unwrap();
    let t4 = parse_timestamp("2025-03-01T18:00Z").unwrap();
    let s = compute(store, &reference, range, t4);
    assert_eq!(s.computed, 0);
    assert_eq!(flags(store), (ZoneStatus::Complete, true, Some(120.0)));
}

/// Flow points of `state` (0 MW, ENTSO-E: a border that reports no exchange, so the neighbours
/// without data need no repair) on every direction of every border of `zone` inside
/// the zone set, except those with `except`.
fn border_flows(
    reference: &ReferenceData,
    zone: &str,
    except: Option<&str>,
    slot: Slot,
    state: DataState,
) -> Vec<InputPoint> {
    let z = &reference.zones;
    let i = z.index_of_str(zone).unwrap();
    let skip = except.map(|e| z.index_of_str(e).unwrap());
    z.borders()
        .iter()
        .copied()
        .filter(|&(a, b)| (a == i || b == i) && skip.is_none_or(|x| a != x && b != x))
        .map(|(a, b)| {
            point(
                InputKey::Flow {
                    from: z.code(a).clone(),
                    to: z.code(b).clone(),
                },
                slot,
                0.0,
                state,
                "ENTSO-E",
            )
        })
        .collect()
}

/// AT's generation at `slot` (official, ENTSO-E).
fn at_generation(slot: Slot, mw: f64) -> InputPoint {
    point(
        InputKey::Generation {
            zone: ZoneCode::parse("AT").unwrap(),
            production_type: ProductionType::HydroRiver,
        },
        slot,
        mw,
        DataState::Official,
        "ENTSO-E",
    )
}

/// AT's generation at `slot` and official flows on all its borders but AT–CH.
fn at_without_the_ch_border(reference: &ReferenceData, slot: Slot) -> Vec<InputPoint> {
    let mut inputs = vec![at_generation(slot, 120.0)];
    inputs.extend(border_flows(
        reference,
        "AT",
        Some("CH"),
        slot,
        DataState::Official,
    ));
    inputs
}

/// The stored outputs of `zone` on the day of `slot`.
fn derived_day(store: &dyn Store, slot: Slot, zone: &str) -> DerivedDay {
    store
        .derived_days(slot.day()..slot.day() + 1)
        .unwrap()
        .into_iter()
        .find(|d| d.zone.as_str() == zone)
        .unwrap_or_else(|| panic!("{zone} computed"))
}

/// AT's flags at `slot`: (status, valid, frozen).
fn at_flags(store: &dyn Store, slot: Slot) -> (ZoneStatus, bool, bool) {
    let d = derived_day(store, slot, "AT");
    let f = d.flags[slot.index_in_day()];
    (f.status(), f.valid(), f.frozen())
}

/// The stored flow points between AT and CH at `slot`.
fn at_ch_flows(store: &dyn Store, slot: Slot) -> Vec<InputPoint> {
    store
        .inputs_in_range(SlotRange::new(slot, slot.offset(1)))
        .unwrap()
        .into_iter()
        .map(|s| s.point)
        .filter(|p| match &p.key {
            InputKey::Flow { from, to } => {
                let mut pair = [from.as_str(), to.as_str()];
                pair.sort();
                pair == ["AT", "CH"]
            }
            _ => false,
        })
        .collect()
}

/// Issue #13: AT has generation and all borders but AT–CH reported. The absent flow is taken as
/// 0 MW and stored as estimated (both directions), so AT is `preview`, never `complete`; when the
/// border reports (the slot is still within the last 4 h), AT becomes `complete`.
fn absent_border_flow_is_an_estimated_zero_until_the_border_reports(store: &dyn Store) {
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let slot = Slot::containing(parse_timestamp("2025-03-01T12:00Z").unwrap());
    let range = SlotRange::new(slot, slot.offset(1));
    let inputs = at_without_the_ch_border(&reference, slot);
    store.upsert_inputs(&inputs, 1).unwrap();
    let t1 = parse_timestamp("2025-03-01T12:30Z").unwrap();
    compute(store, &reference, range, t1);
    assert_eq!(at_flags(store, slot), (ZoneStatus::Preview, false, false));
    let assumed = at_ch_flows(store, slot);
    assert_eq!(assumed.len(), 2, "both directions stored: {assumed:?}");
    for p in &assumed {
        assert_eq!(p.mw, 0.0);
        assert_eq!(p.state, DataState::Estimated);
        assert_eq!(p.datasource, gridprint_compute::DATASOURCE_ASSUMED_ZERO);
    }
    // Recomputing changes nothing: the stored estimate is now an input like any other.
    let before = store.derived_days(range.days()).unwrap();
    compute(store, &reference, range, t1);
    assert_eq!(store.derived_days(range.days()).unwrap(), before);

    // The border reports (the official points replace the estimates): complete and valid.
    let reported: Vec<InputPoint> = border_flows(&reference, "CH", None, slot, DataState::Official)
        .into_iter()
        .filter(|p| matches!(&p.key, InputKey::Flow { from, to } if from.as_str() == "AT" || to.as_str() == "AT"))
        .collect();
    assert_eq!(reported.len(), 2);
    store.upsert_inputs(&reported, 2).unwrap();
    let t2 = parse_timestamp("2025-03-01T14:00Z").unwrap();
    compute(store, &reference, range, t2);
    assert_eq!(at_flags(store, slot), (ZoneStatus::Complete, true, false));
    assert!(
        at_ch_flows(store, slot)
            .iter()
            .all(|p| p.state == DataState::Official && p.datasource == "ENTSO-E")
    );
}

/// Issue #13: a final slot computed under the old rule (an absent flow was a silent zero, the
/// zone `complete`) stays as it is for the worker's compute, and `Mode::RECOMPUTE_FINAL`
/// (`gridprint compute --force`) turns it into `preview` (still final), with the same numbers.
fn forced_recompute_turns_an_old_final_slot_into_preview(store: &dyn Store) {
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let slot = Slot::containing(parse_timestamp("2025-03-01T12:00Z").unwrap());
    let range = SlotRange::new(slot, slot.offset(1));
    let late = parse_timestamp("2025-03-02T00:00Z").unwrap();
    // The old rule's result: the same inputs with the absent AT–CH flows as official 0 MW
    // (the engine ignores 0 MW flows, so the numbers are those the old rule published).
    let old_store = gridprint_store_sqlite::SqliteStore::open_in_memory().unwrap();
    let old: &dyn Store = &old_store;
    let inputs = at_without_the_ch_border(&reference, slot);
    let mut old_inputs = inputs.clone();
    for p in border_flows(&reference, "AT", None, slot, DataState::Official) {
        if let InputKey::Flow { from, to } = &p.key
            && (from.as_str() == "CH" || to.as_str() == "CH")
        {
            old_inputs.push(p);
        }
    }
    old.upsert_inputs(&old_inputs, 1).unwrap();
    compute(old, &reference, range, late);
    assert_eq!(at_flags(old, slot), (ZoneStatus::Complete, true, true));
    let published = old.derived_days(range.days()).unwrap();

    // An existing database: the inputs without the AT–CH flow, the outputs of the old rule.
    store.upsert_inputs(&inputs, 1).unwrap();
    store.replace_derived_days(&published).unwrap();
    let s = compute(store, &reference, range, late);
    assert_eq!(s.computed, 0, "the worker never recomputes a final slot");
    assert_eq!(at_flags(store, slot), (ZoneStatus::Complete, true, true));
    assert!(at_ch_flows(store, slot).is_empty());

    let s = gridprint_compute::compute_publish(
        &mut InputDays::new(store),
        &reference,
        &[range],
        gridprint_compute::Mode::RECOMPUTE_FINAL,
        late,
        &mut |_, _| {},
    )
    .unwrap();
    assert!(s.computed > 0 && s.frozen_kept == 0, "{s:?}");
    assert_eq!(at_flags(store, slot), (ZoneStatus::Preview, true, true));
    assert_eq!(at_ch_flows(store, slot).len(), 2);
    let key = carbon(Coverage::Global);
    let value = |days: &[DerivedDay]| {
        days.iter()
            .find(|d| d.zone.as_str() == "AT")
            .and_then(|d| d.value(&key, slot.index_in_day()))
    };
    let recomputed = store.derived_days(range.days()).unwrap();
    assert!(value(&published).is_some());
    assert_eq!(value(&recomputed), value(&published), "same numbers");
}

/// `Mode::DAYS_WITH_INPUTS` over the whole extent (a day in 2017, a slot in 2025) computes those
/// two days only, and publishes exactly what computing those days explicitly publishes.
fn only_days_with_inputs_are_computed(store: &dyn Store) {
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let stores: [&dyn Store; 2] = [
        store,
        &gridprint_store_sqlite::SqliteStore::open_in_memory().unwrap(),
    ];
    let slot_2025 = Slot::containing(parse_timestamp("2025-03-01T12:00Z").unwrap());
    for s in stores {
        import_2017(s, &reference);
        let key = InputKey::Generation {
            zone: ZoneCode::parse("AT").unwrap(),
            production_type: ProductionType::HydroRiver,
        };
        let p = point(key, slot_2025, 120.0, DataState::Official, "ENTSO-E");
        s.upsert_inputs(&[p], 1).unwrap();
    }
    let now = parse_timestamp("2026-01-01T00:00Z").unwrap();
    let extent = store.input_extent().unwrap().unwrap();
    let mut total_days = 0;
    let mode = gridprint_compute::Mode::DAYS_WITH_INPUTS;
    let s = gridprint_compute::compute_publish(
        &mut InputDays::new(store),
        &reference,
        &[extent],
        mode,
        now,
        &mut |_, t| total_days = t,
    )
    .unwrap();
    assert!(
        total_days > 2900,
        "progress covers the extent: {total_days} days"
    );
    // The UTC days the inputs touch (the 2017 extract starts at 23:00 UTC the day before), clipped
    // to the extent.
    let days: std::collections::BTreeSet<i64> = store
        .inputs_in_range(extent)
        .unwrap()
        .iter()
        .map(|p| p.point.slot.day())
        .collect();
    assert!(days.len() <= 3, "{days:?}");
    let ranges: Vec<SlotRange> = days
        .iter()
        .map(|&d| {
            SlotRange::new(
                Slot::first_of_day(d).max(extent.start),
                Slot::first_of_day(d + 1).min(extent.end),
            )
        })
        .collect();
    assert_eq!(s.slots, ranges.iter().map(|r| r.len()).sum::<usize>());
    let published: std::collections::BTreeSet<i64> = store
        .derived_days(extent.days())
        .unwrap()
        .iter()
        .map(|d| d.day)
        .collect();
    assert!(published.is_subset(&days), "{published:?} within {days:?}");
    assert!(published.contains(&day_2017().start.day()) && published.contains(&slot_2025.day()));
    // The same as computing those days explicitly.
    let explicit = stores[1];
    gridprint_compute::compute_ranges(explicit, &reference, &ranges, now, &mut |_, _| {}).unwrap();
    assert_eq!(
        store.derived_days(extent.days()).unwrap(),
        explicit.derived_days(extent.days()).unwrap()
    );
}

/// Writes, for each case `f`, the tests `sqlite::f` (an in-memory SQLite store) and `postgres::f` (a
/// throwaway PostgreSQL database): every case runs on both backends.
macro_rules! on_both_backends {
    ($($case:ident),*) => {
        mod sqlite {
            $(#[test] fn $case() { super::$case(&gridprint_store_sqlite::SqliteStore::open_in_memory().unwrap()) })*
        }
        mod postgres {
            $(#[test] fn $case() {
                let db = gridprint_store_postgres::testing::TestDb::new("compute");
                super::$case(&db.store())
            })*
        }
    };
}

on_both_backends!(
    real_2017_extract_gives_plausible_global_footprints,
    shares_from_stored_exchanges_add_up,
    recompute_is_idempotent_and_frozen_slots_stay,
    life_of_a_slot_forecast_estimate_official_frozen,
    only_days_with_inputs_are_computed,
    absent_border_flow_is_an_estimated_zero_until_the_border_reports,
    forced_recompute_turns_an_old_final_slot_into_preview
);
