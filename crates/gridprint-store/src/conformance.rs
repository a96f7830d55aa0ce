//! The store conformance suite: behaviour every backend must show, run by each backend's tests
//! against a fresh, empty database.

use crate::test_points::{assumed_point as assumed, flow_point, z};
use crate::{PublishedForecast, Secret, Store, TokenRecord};
use gridprint_core::derived::{DerivedDay, SeriesKey, SlotFlags};
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::{DataState, ZoneStatus};
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::tso_forecast::{TsoForecastKind, TsoForecastPoint, TsoForecastSeries};

fn gen_point(zone: &str, slot: i64, mw: f64, state: DataState, ds: &str) -> InputPoint {
    InputPoint {
        key: InputKey::Generation {
            zone: z(zone),
            production_type: ProductionType::Coal,
        },
        slot: Slot(slot),
        mw,
        state,
        datasource: ds.to_string(),
    }
}

/// One leader at a time; leadership returns when the holder lets go.
pub fn leadership(a: &dyn Store, b: &dyn Store) {
    let mut lease = a.try_lead().unwrap().expect("first process leads");
    assert!(lease.still_held());
    assert!(b.try_lead().unwrap().is_none(), "a second process waits");
    drop(lease);
    let lease = b.try_lead().unwrap();
    assert!(
        lease.is_some(),
        "leadership is free again once the holder drops it"
    );
}

/// Rows staged by a run that died (its claim gone with its process) are cleared by the next run
/// that begins staging; rows of a live run are never touched by another (issue #28 item 10).
/// `a` and `b` are two handles on one database, as two processes would hold.
pub fn abandoned_staging(a: &dyn Store, b: &dyn Store) {
    let day = DerivedDay::new(z("AT"), 20_100);
    let live = a.begin_staging().unwrap();
    let run = crate::new_run_id();
    a.stage_derived_days(run, std::slice::from_ref(&day))
        .unwrap();
    // Another run begins while the first is alive: the first's rows stay.
    let other = b.begin_staging().unwrap();
    drop(other);
    // The first run dies without publishing (its claim goes, as a killed process's lock does).
    drop(live);
    let rerun = b.begin_staging().unwrap();
    assert_eq!(
        a.commit_staged(run).unwrap(),
        0,
        "the dead run's staged rows did not survive the rerun"
    );
    // The rerun stages and publishes as usual while it holds its claim.
    let again = crate::new_run_id();
    b.stage_derived_days(again, &[day]).unwrap();
    let third = a.begin_staging().unwrap();
    assert_eq!(b.commit_staged(again).unwrap(), 1, "a live run's rows kept");
    drop((third, rerun));
}

/// A read-only handle reads what a writable one wrote and refuses every write with `ReadOnly`.
pub fn read_only(writable: &dyn Store, read_only: &dyn Store) {
    writable
        .upsert_inputs(
            &[gen_point("SI", 7000, 1.0, DataState::Official, "ENTSO-E")],
            1,
        )
        .unwrap();
    writable.grant("ro@example.org", None, 1).unwrap();
    let got = read_only
        .inputs_in_range(SlotRange::new(Slot(7000), Slot(7001)))
        .unwrap();
    assert_eq!(got.len(), 1);
    assert!(read_only.has_grant("ro@example.org").unwrap());
    read_only.ping().unwrap();
    let ro =
        |r: crate::Result<()>| assert!(matches!(r, Err(crate::StoreError::ReadOnly(_))), "{r:?}");
    ro(read_only
        .upsert_inputs(
            &[gen_point("SI", 7001, 1.0, DataState::Official, "ENTSO-E")],
            2,
        )
        .map(|_| ()));
    ro(read_only.grant("x@example.org", None, 2).map(|_| ()));
    ro(read_only.register("ro@example.org", "$argon2id$x", 3));
    ro(read_only.replace_derived_days(&[]));
    ro(read_only.settle_days(&[1], 1));
    ro(read_only
        .upsert_tso_forecasts(&[tso_point("SI", 7000, 1.0, 1)], 2)
        .map(|_| ()));
    ro(read_only.archive_forecasts(&[archived("SI", 7000, 1.0)]));
}

/// Runs every check; panics with a message on the first failure.
pub fn run_all(store: &dyn Store) {
    inputs_roundtrip_and_idempotence(store);
    quality_never_degrades(store);
    input_day_revisions(store);
    input_chunks(store);
    assumed_flows(store);
    tso_forecasts(store);
    derived_days_roundtrip(store);
    derived_change_log(store);
    access_lifecycle(store);
    api_keys(store);
    api_key_cap(store);
    forecast_archive(store);
    forecast_accuracy(store);
    store.ping().expect("ping");
}

/// Upserts are idempotent and report what changed.
pub fn inputs_roundtrip_and_idempotence(store: &dyn Store) {
    let pts = vec![
        gen_point("DE", 1000, 10.0, DataState::Official, "ENTSO-E"),
        gen_point("DE", 1001, 11.0, DataState::Official, "ENTSO-E"),
        InputPoint {
            key: InputKey::Load { zone: z("FR") },
            slot: Slot(1000),
            mw: 50.0,
            state: DataState::Official,
            datasource: "ENTSO-E".into(),
        },
        InputPoint {
            key: InputKey::Flow {
                from: z("DE"),
                to: z("FR"),
            },
            slot: Slot(1000),
            mw: 5.0,
            state: DataState::Official,
            datasource: "ENTSO-E".into(),
        },
    ];
    let s = store.upsert_inputs(&pts, 1).unwrap();
    assert_eq!((s.inserted, s.updated, s.unchanged), (4, 0, 0));
    let s = store.upsert_inputs(&pts, 2).unwrap();
    assert_eq!(
        (s.inserted, s.updated, s.unchanged),
        (0, 0, 4),
        "re-import changes nothing"
    );
    let got = store
        .inputs_in_range(SlotRange::new(Slot(1000), Slot(1002)))
        .unwrap();
    assert_eq!(got.len(), 4);
    assert!(
        got.iter().all(|p| p.updated_at == 1),
        "updated_at unchanged by identical re-import"
    );
    let mut points: Vec<_> = got.into_iter().map(|p| p.point).collect();
    points.sort_by(|a, b| (a.slot, &a.key).cmp(&(b.slot, &b.key)));
    let mut want = pts.clone();
    want.sort_by(|a, b| (a.slot, &a.key).cmp(&(b.slot, &b.key)));
    assert_eq!(points, want);
    let mut changed = pts[0].clone();
    changed.mw = 12.5;
    let s = store.upsert_inputs(&[changed], 3).unwrap();
    assert_eq!(s.updated, 1);
    assert_eq!(
        store.input_extent().unwrap(),
        Some(SlotRange::new(Slot(1000), Slot(1002)))
    );
    assert!(
        store
            .inputs_in_range(SlotRange::new(Slot(2000), Slot(2001)))
            .unwrap()
            .is_empty()
    );
}

/// Chunks are written in order in one transaction: a later chunk's point replaces an earlier
/// one's, assumed flows go where `upsert_inputs` sends them, the input revision advances once
/// for the whole call, and a chunk that is an error rolls back every chunk before it.
pub fn input_chunks(store: &dyn Store) {
    let day = 700_i64;
    let slot = day * 96;
    let range = SlotRange::new(Slot(slot), Slot(slot + 2 * 96));
    let r0 = store.input_revision().unwrap();
    let first = vec![
        gen_point("CZ", slot, 1.0, DataState::Official, "ENTSO-E"),
        gen_point("CZ", slot + 1, 2.0, DataState::Official, "ENTSO-E"),
    ];
    let second = vec![
        gen_point("CZ", slot, 3.0, DataState::Official, "ENTSO-E"),
        gen_point("CZ", slot + 96, 4.0, DataState::Official, "ENTSO-E"),
        assumed("CZ", "SK", slot + 96),
    ];
    let chunks = vec![Ok(first.clone()), Ok(second)];
    let s = store
        .upsert_input_chunks(&mut chunks.into_iter(), 1)
        .unwrap();
    assert_eq!((s.inserted, s.updated, s.unchanged), (4, 1, 0));
    assert_eq!(
        store.input_revision().unwrap(),
        r0 + 1,
        "one call, one step"
    );
    let got: Vec<(i64, f64)> = store
        .inputs_in_range(range)
        .unwrap()
        .into_iter()
        .filter(|p| p.point.state == DataState::Official)
        .map(|p| (p.point.slot.0 - slot, p.point.mw))
        .collect();
    assert_eq!(
        got,
        vec![(0, 3.0), (1, 2.0), (96, 4.0)],
        "the later chunk won"
    );
    let days: Vec<i64> = store
        .day_revisions(day..day + 2)
        .unwrap()
        .iter()
        .map(|d| d.day)
        .collect();
    assert_eq!(days, vec![day, day + 1]);

    // A failing chunk after a good one: nothing of the call is stored.
    let chunks = vec![
        Ok(vec![gen_point(
            "CZ",
            slot + 2 * 96,
            5.0,
            DataState::Official,
            "ENTSO-E",
        )]),
        Err(crate::StoreError::Other("the third file is bad".into())),
        Ok(vec![gen_point(
            "CZ",
            slot + 3 * 96,
            6.0,
            DataState::Official,
            "ENTSO-E",
        )]),
    ];
    let err = store
        .upsert_input_chunks(&mut chunks.into_iter(), 2)
        .unwrap_err();
    assert!(err.to_string().contains("the third file is bad"), "{err}");
    assert!(
        store
            .inputs_in_range(SlotRange::new(Slot(slot + 2 * 96), Slot(slot + 4 * 96)))
            .unwrap()
            .is_empty(),
        "rolled back"
    );
    assert_eq!(store.input_revision().unwrap(), r0 + 1);
    // No chunk at all changes nothing.
    let s = store
        .upsert_input_chunks(&mut std::iter::empty(), 3)
        .unwrap();
    assert_eq!(s, crate::UpsertSummary::default());
    assert_eq!(store.input_revision().unwrap(), r0 + 1);
}

/// Every upsert that changes a point advances the input revision by one and gives it to the days it
/// changed; an upsert that changes nothing leaves both alone; settling marks days, and a later
/// change unsettles them.
pub fn input_day_revisions(store: &dyn Store) {
    let day = 500_i64;
    let slot = day * 96;
    let days = day..day + 3;
    let r0 = store.input_revision().unwrap();
    let pts = [
        gen_point("PL", slot, 1.0, DataState::Official, "ENTSO-E"),
        gen_point("PL", slot + 96, 1.0, DataState::Official, "ENTSO-E"),
    ];
    store.upsert_inputs(&pts, 1).unwrap();
    let r1 = store.input_revision().unwrap();
    assert_eq!(r1, r0 + 1, "one changing upsert, one step");
    let got = store.day_revisions(days.clone()).unwrap();
    let want = |d: i64, revision: i64, settled: Option<i64>| crate::DayRevision {
        day: d,
        revision,
        settled,
    };
    assert_eq!(got, vec![want(day, r1, None), want(day + 1, r1, None)]);
    assert!(got.iter().all(|d| !d.is_settled()));
    store.upsert_inputs(&pts, 2).unwrap();
    assert_eq!(
        store.input_revision().unwrap(),
        r1,
        "an idempotent upsert changes nothing"
    );
    // A day without a row (here day + 2) gets one when settled.
    store.settle_days(&[day, day + 2], r1).unwrap();
    let got = store.day_revisions(days.clone()).unwrap();
    assert_eq!(
        got,
        vec![
            want(day, r1, Some(r1)),
            want(day + 1, r1, None),
            want(day + 2, 0, Some(r1)),
        ]
    );
    assert!(got[0].is_settled() && !got[1].is_settled() && got[2].is_settled());
    let mut changed = pts[0].clone();
    changed.mw = 2.0;
    store.upsert_inputs(&[changed], 3).unwrap();
    let r2 = store.input_revision().unwrap();
    assert_eq!(r2, r1 + 1);
    let got = store.day_revisions(day..day + 1).unwrap();
    assert_eq!(got, vec![want(day, r2, Some(r1))]);
    assert!(
        !got[0].is_settled(),
        "a change after settling unsettles the day"
    );
}

/// Flows assumed 0 MW (kept as border-day masks, `crate::assumed`) read back as the points written,
/// in slot and key order among the provider points; rewriting them changes nothing; a new bit
/// changes its day's revision; a provider point at the same key stands over the assumption.
pub fn assumed_flows(store: &dyn Store) {
    let day = 900_i64;
    let s0 = day * 96;
    let official =
        |from, to, slot, mw| flow_point(from, to, slot, mw, DataState::Official, "ENTSO-E");
    let real = [
        official("AT", "DE", s0, 3.0),
        official("AT", "DE", s0 + 1, 3.0),
        official("DE", "FR", s0, 2.0),
    ];
    store.upsert_inputs(&real, 1).unwrap();
    let r0 = store.input_revision().unwrap();
    // The last slot of the day (bit 95) and a slot of the next day.
    let zeros = [
        assumed("DE", "AT", s0),
        assumed("DE", "AT", s0 + 1),
        assumed("DE", "AT", s0 + 95),
        assumed("DE", "FR", s0 + 1),
        assumed("DE", "AT", s0 + 104),
    ];
    let s = store.upsert_inputs(&zeros, 5).unwrap();
    assert_eq!((s.inserted, s.updated, s.unchanged), (5, 0, 0));
    let r1 = store.input_revision().unwrap();
    assert_eq!(r1, r0 + 1, "one changing upsert, one step");
    let revisions: Vec<i64> = store
        .day_revisions(day..day + 2)
        .unwrap()
        .iter()
        .map(|d| d.revision)
        .collect();
    assert_eq!(revisions, vec![r1, r1], "both days changed");
    let s = store.upsert_inputs(&zeros, 6).unwrap();
    assert_eq!((s.inserted, s.updated, s.unchanged), (0, 0, 5));
    assert_eq!(
        store.input_revision().unwrap(),
        r1,
        "a rewrite changes nothing"
    );

    let read = |range: SlotRange| -> Vec<(InputPoint, i64)> {
        store
            .inputs_in_range(range)
            .unwrap()
            .into_iter()
            .map(|s| (s.point, s.updated_at))
            .collect()
    };
    let want = vec![
        (real[0].clone(), 1),
        (zeros[0].clone(), 5),
        (real[2].clone(), 1),
        (real[1].clone(), 1),
        (zeros[1].clone(), 5),
        (zeros[3].clone(), 5),
        (zeros[2].clone(), 5),
        (zeros[4].clone(), 5),
    ];
    assert_eq!(read(SlotRange::new(Slot(s0), Slot(s0 + 192))), want);
    assert_eq!(
        read(SlotRange::new(Slot(s0 + 1), Slot(s0 + 2))),
        want[3..6].to_vec(),
        "a range inside a day reads only its slots"
    );

    // Provider data arriving later stands over the assumption.
    let arrived = official("DE", "AT", s0 + 1, 1.5);
    let s = store
        .upsert_inputs(std::slice::from_ref(&arrived), 7)
        .unwrap();
    assert_eq!((s.inserted, s.updated, s.unchanged), (1, 0, 0));
    let got = read(SlotRange::new(Slot(s0 + 1), Slot(s0 + 2)));
    assert_eq!(
        got,
        vec![(real[1].clone(), 1), (arrived, 7), (zeros[3].clone(), 5)]
    );
}

/// A day-ahead wind forecast of `zone`.
fn tso_point(zone: &str, slot: i64, mw: f64, published_at: i64) -> PublishedForecast {
    PublishedForecast {
        point: TsoForecastPoint {
            series: TsoForecastSeries::Generation {
                zone: z(zone),
                production_type: ProductionType::WindOnshore,
            },
            kind: TsoForecastKind::DayAhead,
            slot: Slot(slot),
            mw,
        },
        published_at,
    }
}

/// TSO forecasts (`crate::tso`) read back with their publication time, ordered by slot, series and
/// kind, only those published before the time asked; they never show among the inputs nor move
/// the input revision; rewriting changes nothing; a later revision replaces a value, an older one
/// does not; a bad value stores nothing of its batch.
pub fn tso_forecasts(store: &dyn Store) {
    let s0 = 3000 * 96;
    let range = SlotRange::new(Slot(s0), Slot(s0 + 96));
    let (r0, extent) = (
        store.input_revision().unwrap(),
        store.input_extent().unwrap(),
    );
    let load = PublishedForecast {
        point: TsoForecastPoint {
            series: TsoForecastSeries::Load { zone: z("DK1") },
            kind: TsoForecastKind::DayAhead,
            slot: Slot(s0),
            mw: 2500.0,
        },
        published_at: 90,
    };
    let mut intraday = tso_point("DK1", s0, 700.0, 200);
    intraday.point.kind = TsoForecastKind::Intraday;
    let scheduled = PublishedForecast {
        point: TsoForecastPoint {
            series: TsoForecastSeries::ScheduledGeneration { zone: z("DK2") },
            kind: TsoForecastKind::DayAhead,
            slot: Slot(s0 + 1),
            mw: 0.0,
        },
        published_at: 100,
    };
    let written = vec![
        tso_point("DK1", s0 + 1, 650.5, 100),
        intraday.clone(),
        load.clone(),
        tso_point("DK1", s0, 600.0, 100),
        scheduled.clone(),
        tso_point("DK2", s0, 300.0, 100),
    ];
    let s = store.upsert_tso_forecasts(&written, 10).unwrap();
    assert_eq!((s.inserted, s.updated, s.unchanged), (6, 0, 0));
    let s = store.upsert_tso_forecasts(&written, 11).unwrap();
    assert_eq!(
        (s.inserted, s.updated, s.unchanged),
        (0, 0, 6),
        "a rewrite changes nothing"
    );
    let read = |published_before: i64| -> Vec<(PublishedForecast, i64)> {
        store
            .tso_forecasts_in_range(range, published_before)
            .unwrap()
            .into_iter()
            .map(|s| (s.forecast, s.updated_at))
            .collect()
    };
    let all = vec![
        (tso_point("DK1", s0, 600.0, 100), 10),
        (intraday.clone(), 10),
        (tso_point("DK2", s0, 300.0, 100), 10),
        (load.clone(), 10),
        (tso_point("DK1", s0 + 1, 650.5, 100), 10),
        (scheduled.clone(), 10),
    ];
    assert_eq!(read(i64::MAX), all);
    assert_eq!(
        read(101),
        [&all[..1], &all[2..]].concat(),
        "the intraday value, published at 200, is not known at 101"
    );
    assert_eq!(read(100), vec![all[3].clone()], "before 100: only the load");
    assert!(
        store
            .tso_forecasts_in_range(SlotRange::new(Slot(s0 + 2), Slot(s0 + 96)), i64::MAX)
            .unwrap()
            .is_empty()
    );
    // Never among the inputs, never a change of the inputs.
    assert!(store.inputs_in_range(range).unwrap().is_empty());
    assert_eq!(store.input_revision().unwrap(), r0);
    assert_eq!(store.input_extent().unwrap(), extent);

    // Revisions: a later publication of another value replaces it, an older one does not; the same
    // value seen published earlier moves the time back.
    let s = store
        .upsert_tso_forecasts(
            &[
                tso_point("DK1", s0, 610.0, 150),
                tso_point("DK2", s0, 999.0, 50),
                tso_point("DK1", s0 + 1, 650.5, 80),
            ],
            12,
        )
        .unwrap();
    assert_eq!((s.inserted, s.updated, s.unchanged), (0, 2, 1));
    let got = read(i64::MAX);
    assert_eq!(got[0], (tso_point("DK1", s0, 610.0, 150), 12));
    assert_eq!(got[2], (tso_point("DK2", s0, 300.0, 100), 10));
    assert_eq!(got[4], (tso_point("DK1", s0 + 1, 650.5, 80), 12));

    // A value that is no power fails the whole batch.
    let bad = store.upsert_tso_forecasts(
        &[
            tso_point("DK1", s0 + 5, 1.0, 100),
            tso_point("DK1", s0 + 6, f64::NAN, 100),
        ],
        13,
    );
    assert!(bad.is_err(), "{bad:?}");
    let bad = store.upsert_tso_forecasts(&[tso_point("DK1", s0 + 7, -1.0, 100)], 13);
    assert!(bad.is_err(), "{bad:?}");
    assert_eq!(read(i64::MAX).len(), 6, "nothing of a failed batch stored");
}

/// A forecast never replaces an estimate, an estimate never replaces provider data; better data
/// replaces worse.
pub fn quality_never_degrades(store: &dyn Store) {
    let slot = 5000;
    let upsert = |mw: f64, state: DataState, ds: &str, at: i64| {
        store
            .upsert_inputs(&[gen_point("AT", slot, mw, state, ds)], at)
            .unwrap()
    };
    upsert(
        1.0,
        DataState::Missing,
        "wattnet-hybrid-estimation:gridprint-x",
        1,
    );
    let s = upsert(
        2.0,
        DataState::Estimated,
        "wattnet-hybrid-estimation:gridprint-y",
        2,
    );
    assert_eq!(s.updated, 1);
    let s = upsert(
        3.0,
        DataState::Missing,
        "wattnet-hybrid-estimation:gridprint-x",
        3,
    );
    assert_eq!(s.unchanged, 1);
    upsert(4.0, DataState::Official, "ENTSO-E", 4);
    let s = upsert(
        5.0,
        DataState::Estimated,
        "wattnet-hybrid-estimation:gridprint-y",
        5,
    );
    assert_eq!(s.unchanged, 1);
    let got = store
        .inputs_in_range(SlotRange::new(Slot(slot), Slot(slot + 1)))
        .unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].point.mw, got[0].point.state),
        (4.0, DataState::Official)
    );
}

/// Derived days come back as written, replaces are atomic per call, and the version moves.
pub fn derived_days_roundtrip(store: &dyn Store) {
    let v0 = store.data_version().unwrap();
    let mut a = DerivedDay::new(z("DE"), 20_000);
    a.flags[0] = SlotFlags::new(ZoneStatus::Complete, true, true);
    a.set(SeriesKey::Mix(ProductionType::Solar), 0, 42.0);
    let mut b = DerivedDay::new(z("FR"), 20_001);
    b.flags[5] = SlotFlags::new(ZoneStatus::Preview, false, false);
    store.replace_derived_days(&[a.clone(), b.clone()]).unwrap();
    let v1 = store.data_version().unwrap();
    assert_ne!(v0, v1);
    assert_eq!(
        store.derived_days(20_000..20_002).unwrap(),
        vec![a.clone(), b.clone()]
    );
    assert_eq!(store.derived_days(20_001..20_002).unwrap(), vec![b]);
    // Replacing with an empty day deletes it.
    store
        .replace_derived_days(&[DerivedDay::new(z("FR"), 20_001)])
        .unwrap();
    assert_eq!(store.derived_days(20_000..20_002).unwrap(), vec![a]);
    assert_ne!(store.data_version().unwrap(), v1);
    // Staged days stay invisible until committed; discarded ones never appear.
    let mut c = DerivedDay::new(z("AT"), 20_000);
    c.flags[1] = SlotFlags::new(ZoneStatus::Complete, true, false);
    let run = crate::new_run_id();
    store.stage_derived_days(run, &[c.clone()]).unwrap();
    assert_eq!(
        store.derived_days(20_000..20_001).unwrap().len(),
        1,
        "staged day not visible"
    );
    store.discard_staged(run).unwrap();
    assert_eq!(store.commit_staged(run).unwrap(), 0);
    let run = crate::new_run_id();
    store.stage_derived_days(run, &[c.clone()]).unwrap();
    store
        .stage_derived_days(run, &[DerivedDay::new(z("DE"), 20_000)])
        .unwrap();
    assert_eq!(store.commit_staged(run).unwrap(), 2);
    assert_eq!(
        store.derived_days(20_000..20_001).unwrap(),
        vec![c],
        "AT published, DE deleted"
    );
}

/// Every publication records the zone-days it wrote or deleted at its new data version, and
/// `derived_changes(v)` lists exactly those changed after `v` (a deleted day included).
pub fn derived_change_log(store: &dyn Store) {
    let change = |day: i64, zone: &str, version: i64| crate::DayChange {
        day,
        zone: zone.to_string(),
        version,
    };
    let v0 = store.data_version().unwrap();
    let log = store.derived_changes(v0).unwrap();
    assert!(log.floor <= v0, "a fresh store's log reaches back");
    assert_eq!(
        log.changes,
        vec![],
        "nothing changed after the current version"
    );
    let mut a = DerivedDay::new(z("DE"), 30_000);
    a.set(SeriesKey::Mix(ProductionType::Solar), 0, 1.0);
    let mut b = DerivedDay::new(z("FR"), 30_001);
    b.set(SeriesKey::Mix(ProductionType::Solar), 3, 2.0);
    store.replace_derived_days(&[a.clone(), b.clone()]).unwrap();
    let v1 = store.data_version().unwrap();
    assert_eq!(
        store.derived_changes(v0).unwrap().changes,
        vec![change(30_000, "DE", v1), change(30_001, "FR", v1)]
    );
    // Republish DE, delete FR: both move to the new version; v1 → only those.
    a.set(SeriesKey::Mix(ProductionType::Solar), 1, 5.0);
    store
        .replace_derived_days(&[a.clone(), DerivedDay::new(z("FR"), 30_001)])
        .unwrap();
    let v2 = store.data_version().unwrap();
    assert!(v2 > v1);
    assert_eq!(
        store.derived_changes(v1).unwrap().changes,
        vec![change(30_000, "DE", v2), change(30_001, "FR", v2)],
        "a deleted day stays in the log"
    );
    let mut c = DerivedDay::new(z("AT"), 29_999);
    c.set(SeriesKey::Mix(ProductionType::Solar), 0, 3.0);
    store.replace_derived_days(&[c]).unwrap();
    let v3 = store.data_version().unwrap();
    assert_eq!(
        store.derived_changes(v2).unwrap().changes,
        vec![change(29_999, "AT", v3)]
    );
    assert_eq!(store.derived_changes(v3).unwrap().changes, vec![]);
    // An empty commit changes nothing.
    assert_eq!(store.commit_staged(crate::new_run_id()).unwrap(), 0);
    assert_eq!(store.data_version().unwrap(), v3);
    let all = store.derived_changes(i64::MIN).unwrap().changes;
    assert!(all.contains(&change(30_001, "FR", v2)));
}

/// Grants, registration, tokens, reset and revoke.
pub fn access_lifecycle(store: &dyn Store) {
    let e = "ada@example.org";
    assert!(!store.has_grant(e).unwrap());
    assert!(store.grant(e, None, 100).unwrap());
    assert!(
        !store.grant(e, Some("c1"), 101).unwrap(),
        "second grant is a no-op"
    );
    assert!(store.has_grant(e).unwrap());
    assert_eq!(store.registration_code(e).unwrap(), Some(None));
    assert_eq!(store.registration_code("nobody@example.org").unwrap(), None);
    // Registration codes: set on an unregistered grant, read back, never on a registered one.
    assert!(store.set_registration_code(e, Some("c2")).unwrap());
    assert_eq!(
        store.registration_code(e).unwrap(),
        Some(Some("c2".to_string()))
    );
    assert!(
        !store
            .set_registration_code("nobody@example.org", Some("c3"))
            .unwrap()
    );
    assert!(store.grant("bob@example.org", Some("c4"), 100).unwrap());
    assert_eq!(
        store.registration_code("bob@example.org").unwrap(),
        Some(Some("c4".to_string()))
    );
    assert!(store.revoke("bob@example.org").unwrap());
    store.register(e, "$argon2id$fake", 110).unwrap();
    assert!(
        !store.set_registration_code(e, Some("c5")).unwrap(),
        "a registered grant keeps its code"
    );
    assert_eq!(
        store.registration_code(e).unwrap(),
        Some(Some("c2".to_string()))
    );
    assert!(matches!(
        store.register(e, "$argon2id$other", 111),
        Err(crate::StoreError::Conflict(_))
    ));
    assert_eq!(
        store.password_hash(e).unwrap().as_deref(),
        Some("$argon2id$fake")
    );
    let t = TokenRecord {
        token_hash: Secret::new("ab".repeat(32)),
        email: e.into(),
        issued_at: 120,
        expires_at: 120 + 86_400,
    };
    store.insert_token(&t).unwrap();
    assert_eq!(
        store.find_token(t.token_hash.expose()).unwrap(),
        Some(t.clone())
    );
    let rows = store.list_grants().unwrap();
    assert_eq!(
        rows,
        vec![crate::GrantRow {
            email: e.into(),
            granted_at: 100,
            registered: true,
            last_token_at: Some(120),
            limit: None,
            max_api_keys: None,
        }]
    );
    // Account tiers: set, read back, listed, removed; unknown emails are not granted one.
    let tier = crate::AccountLimit {
        rate_per_second: 20.0,
        burst: 100,
    };
    assert!(store.set_limit(e, Some(tier)).unwrap());
    assert_eq!(store.account_limit(e).unwrap(), Some(tier));
    assert_eq!(store.list_grants().unwrap()[0].limit, Some(tier));
    assert!(!store.set_limit("nobody@example.org", Some(tier)).unwrap());
    assert!(store.set_limit(e, None).unwrap());
    assert_eq!(store.account_limit(e).unwrap(), None);
    assert!(store.reset(e).unwrap());
    assert_eq!(
        store.find_token(t.token_hash.expose()).unwrap(),
        None,
        "reset drops tokens"
    );
    assert_eq!(store.password_hash(e).unwrap(), None);
    assert!(store.has_grant(e).unwrap(), "reset keeps the grant");
    store.register(e, "$argon2id$new", 130).unwrap();
    store.insert_token(&t).unwrap();
    assert!(store.revoke(e).unwrap());
    assert!(!store.has_grant(e).unwrap());
    assert_eq!(store.find_token(t.token_hash.expose()).unwrap(), None);
    assert!(!store.revoke(e).unwrap());
}

/// API keys: created for a grant only, found by hash as a token record, listed without the hash
/// (in pages), touched, revoked by id (only the owner's, when an owner is named), and gone with the
/// account's reset or revocation.
pub fn api_keys(store: &dyn Store) {
    use crate::access::{API_KEY_PAGE, KeyInsert};
    let e = "kay@example.org";
    let key = |hash: &str, expires_at| crate::NewApiKey {
        key_hash: Secret::new(hash.into()),
        email: e.into(),
        name: "ci".into(),
        created_at: 200,
        expires_at,
    };
    let created = |k: &crate::NewApiKey| match store.insert_api_key(k).unwrap() {
        KeyInsert::Created(id) => id,
        other => panic!("not created: {other:?}"),
    };
    assert!(
        store.insert_api_key(&key(&"cd".repeat(32), None)).is_err(),
        "no key without a grant"
    );
    assert!(store.grant(e, None, 100).unwrap());
    let a = created(&key(&"cd".repeat(32), None));
    let b = created(&key(&"ef".repeat(32), Some(300)));
    assert_ne!(a, b);
    assert_eq!(
        store.find_api_key(&"cd".repeat(32)).unwrap(),
        Some(TokenRecord {
            token_hash: Secret::new("cd".repeat(32)),
            email: e.into(),
            issued_at: 200,
            expires_at: crate::access::NEVER_EXPIRES,
        })
    );
    assert_eq!(
        store
            .find_api_key(&"ef".repeat(32))
            .unwrap()
            .unwrap()
            .expires_at,
        300
    );
    assert_eq!(
        store.find_token(&"cd".repeat(32)).unwrap(),
        None,
        "a key is no token"
    );
    store.touch_api_key(&"cd".repeat(32), 250).unwrap();
    let rows = store.list_api_keys(Some(e), 0, API_KEY_PAGE).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0],
        crate::ApiKeyRow {
            id: a,
            email: e.into(),
            name: "ci".into(),
            created_at: 200,
            expires_at: None,
            last_used_at: Some(250),
        }
    );
    assert_eq!(store.list_api_keys(None, 0, API_KEY_PAGE).unwrap().len(), 2);
    let first = store.list_api_keys(None, 0, 1).unwrap();
    assert_eq!(first.len(), 1, "a page holds at most `limit` keys");
    let next = store.list_api_keys(None, first[0].id, 1).unwrap();
    assert_eq!(next[0].id, b, "the next page starts after the last id");
    assert!(
        store
            .list_api_keys(Some("nobody@example.org"), 0, API_KEY_PAGE)
            .unwrap()
            .is_empty()
    );
    assert!(
        !store.revoke_api_key(b, Some("other@example.org")).unwrap(),
        "only the owner's key is revoked when an owner is named"
    );
    assert!(store.revoke_api_key(b, Some(e)).unwrap());
    assert!(!store.revoke_api_key(b, None).unwrap());
    assert_eq!(store.find_api_key(&"ef".repeat(32)).unwrap(), None);
    store.reset(e).unwrap();
    assert_eq!(
        store.find_api_key(&"cd".repeat(32)).unwrap(),
        None,
        "reset drops keys"
    );
    created(&key(&"cd".repeat(32), None));
    assert!(store.revoke(e).unwrap());
    assert!(
        store
            .list_api_keys(Some(e), 0, API_KEY_PAGE)
            .unwrap()
            .is_empty(),
        "revoke drops keys"
    );
}

/// The cap on an account's active API keys: [`crate::access::DEFAULT_MAX_API_KEYS`] unless the
/// operator set its own; expired keys do not count; the cap is listed with the grant.
pub fn api_key_cap(store: &dyn Store) {
    use crate::access::{DEFAULT_MAX_API_KEYS, KeyInsert};
    let e = "cap@example.org";
    let key = |n: u32, created_at: i64, expires_at: Option<i64>| crate::NewApiKey {
        key_hash: Secret::new(format!("{n:064x}")),
        email: e.into(),
        name: String::new(),
        created_at,
        expires_at,
    };
    assert!(store.grant(e, None, 100).unwrap());
    // One key that expires at 150: active at 140, no longer counted from 150 on.
    assert!(matches!(
        store.insert_api_key(&key(0, 140, Some(150))).unwrap(),
        KeyInsert::Created(_)
    ));
    for n in 1..DEFAULT_MAX_API_KEYS {
        assert!(matches!(
            store.insert_api_key(&key(n, 140, None)).unwrap(),
            KeyInsert::Created(_)
        ));
    }
    assert_eq!(
        store
            .insert_api_key(&key(DEFAULT_MAX_API_KEYS, 140, None))
            .unwrap(),
        KeyInsert::AtLimit(DEFAULT_MAX_API_KEYS),
        "the default cap holds"
    );
    assert!(
        matches!(
            store
                .insert_api_key(&key(DEFAULT_MAX_API_KEYS, 150, None))
                .unwrap(),
            KeyInsert::Created(_)
        ),
        "an expired key does not count"
    );
    assert!(store.set_max_api_keys(e, Some(3)).unwrap());
    assert_eq!(
        store.list_grants().unwrap()[0].max_api_keys,
        Some(3),
        "the account's own cap is listed"
    );
    assert_eq!(
        store
            .insert_api_key(&key(DEFAULT_MAX_API_KEYS + 1, 160, None))
            .unwrap(),
        KeyInsert::AtLimit(3)
    );
    assert!(
        store
            .set_max_api_keys(e, Some(DEFAULT_MAX_API_KEYS + 1))
            .unwrap()
    );
    assert!(matches!(
        store
            .insert_api_key(&key(DEFAULT_MAX_API_KEYS + 1, 160, None))
            .unwrap(),
        KeyInsert::Created(_)
    ));
    assert!(store.set_max_api_keys(e, None).unwrap());
    assert_eq!(store.list_grants().unwrap()[0].max_api_keys, None);
    assert!(
        !store
            .set_max_api_keys("nobody@example.org", Some(1))
            .unwrap()
    );
}

/// A forecast of `zone` issued at `origin`: footprints `base + h` (one NaN), a wind series, the
/// load and an export.
fn archived(zone: &str, origin: i64, base: f64) -> crate::ArchivedForecast {
    use crate::ArchivedSeries;
    let o = Slot(origin);
    let mut footprints: Vec<f64> = (0..384).map(|h| base + h as f64 * 0.25).collect();
    footprints[7] = f64::NAN;
    let inputs = vec![
        ArchivedSeries {
            key: InputKey::Generation {
                zone: z(zone),
                production_type: ProductionType::WindOnshore,
            },
            last_known: o.offset(-5),
            mw: (0..384).map(|h| 1000.0 + h as f64).collect(),
        },
        ArchivedSeries {
            key: InputKey::Load { zone: z(zone) },
            last_known: o.offset(-4),
            mw: vec![5000.5; 384],
        },
        ArchivedSeries {
            key: InputKey::Flow {
                from: z(zone),
                to: z("AT"),
            },
            last_known: o.offset(-8),
            mw: vec![12.3, f64::NAN, 0.0],
        },
    ];
    crate::ArchivedForecast {
        zone: z(zone),
        origin: o,
        issued_at: origin * 900 + 42,
        known_until: crate::forecast::known_until(&inputs, o),
        footprints,
        inputs,
    }
}

/// The forecast archive: issued forecasts come back as stored (to their quanta), by origin range
/// and zone, with or without their inputs; a second issue of a zone and origin replaces the first;
/// pruning drops exactly the forecasts issued before the cut.
pub fn forecast_archive(store: &dyn Store) {
    use crate::ArchiveQuery;
    let all = |from: i64, to: i64, zone: Option<&str>, inputs: bool| {
        store
            .archived_forecasts(&ArchiveQuery {
                origins: SlotRange::new(Slot(from), Slot(to)),
                zone: zone.map(z),
                inputs,
            })
            .unwrap()
    };
    assert_eq!(store.latest_archived_origin().unwrap(), None);
    assert!(all(0, i64::MAX, None, true).is_empty());
    let first = [
        archived("DE", 80_000, 300.0),
        archived("FR", 80_000, 50.0),
        archived("DE", 80_004, 310.0),
    ];
    store.archive_forecasts(&first).unwrap();
    store
        .archive_forecasts(&[archived("FR", 80_008, 60.0)])
        .unwrap();
    assert_eq!(store.latest_archived_origin().unwrap(), Some(Slot(80_008)));
    let got = all(80_000, 80_009, None, true);
    let order: Vec<(i64, &str)> = got.iter().map(|f| (f.origin.0, f.zone.as_str())).collect();
    assert_eq!(
        order,
        [
            (80_000, "DE"),
            (80_000, "FR"),
            (80_004, "DE"),
            (80_008, "FR")
        ]
    );
    let want = archived("DE", 80_004, 310.0);
    let back = &got[2];
    assert_eq!(back.issued_at, want.issued_at);
    assert_eq!(back.footprints.len(), 384);
    assert!(back.footprints[7].is_nan());
    for (a, b) in want.footprints.iter().zip(&back.footprints) {
        assert!(a.is_nan() || (a - b).abs() < 1e-6, "{a} {b}");
    }
    assert_eq!(back.inputs.len(), 3);
    for (a, b) in want.inputs.iter().zip(&back.inputs) {
        assert_eq!((&a.key, a.last_known), (&b.key, b.last_known));
        for (x, y) in a.mw.iter().zip(&b.mw) {
            assert!(x.is_nan() && y.is_nan() || (x - y).abs() < 1e-6, "{x} {y}");
        }
    }
    assert_eq!(back.known_until, Slot(80_001));
    // One zone, without inputs; the end of the range is excluded.
    let de = all(80_000, 80_008, Some("DE"), false);
    assert_eq!(de.len(), 2);
    assert!(
        de.iter()
            .all(|f| f.inputs.is_empty() && f.footprints.len() == 384)
    );
    // A second issue of the same zone and origin replaces the first.
    store
        .archive_forecasts(&[archived("DE", 80_004, 400.0)])
        .unwrap();
    let again = all(80_004, 80_005, Some("DE"), false);
    assert_eq!(again.len(), 1);
    assert!((again[0].footprints[0] - 400.0).abs() < 1e-9);
    // Pruning drops what was issued before the cut, nothing else.
    assert_eq!(store.prune_forecast_archive(Slot(80_004)).unwrap(), 2);
    assert_eq!(store.prune_forecast_archive(Slot(80_004)).unwrap(), 0);
    let left: Vec<i64> = all(0, i64::MAX, None, false)
        .iter()
        .map(|f| f.origin.0)
        .collect();
    assert_eq!(left, [80_004, 80_008]);
    assert_eq!(store.prune_forecast_archive(Slot(i64::MAX)).unwrap(), 2);
    assert_eq!(store.latest_archived_origin().unwrap(), None);
}

/// The published accuracy: replaced as a whole, read back ordered by (zone, window, band), absent
/// measures kept absent; each replacement bumps the data version (serving replicas reload it).
pub fn forecast_accuracy(store: &dyn Store) {
    use crate::forecast::{AccuracyRow, Measures};
    let row = |zone: &str, window_days: i64, from: i64, to: i64, mape: Option<f64>| AccuracyRow {
        zone: z(zone),
        window_days,
        band_from_h: from,
        band_to_h: to,
        computed_at: 1_700_000_000,
        first_origin: mape.map(|_| Slot(80_000)),
        last_origin: mape.map(|_| Slot(80_100)),
        forecasts: if mape.is_some() { 26 } else { 0 },
        points: if mape.is_some() { 2496 } else { 0 },
        ranked: 3,
        model: Measures {
            mape,
            mae: mape.map(|m| m * 3.0),
            rank: Some(-0.25),
            regret: None,
        },
        persistence: Measures {
            mape: Some(20.5),
            mae: None,
            rank: None,
            regret: Some(7.125),
        },
    };
    assert!(store.forecast_accuracy().unwrap().is_empty());
    let v0 = store.data_version().unwrap();
    let rows = vec![
        row("FR", 7, 0, 24, Some(9.5)),
        row("DE", 30, 24, 48, None),
        row("DE", 7, 48, 96, Some(12.25)),
        row("DE", 7, 0, 24, Some(11.0)),
    ];
    store.replace_forecast_accuracy(&rows).unwrap();
    let v1 = store.data_version().unwrap();
    assert!(v1 > v0, "the data version moves");
    let back = store.forecast_accuracy().unwrap();
    assert_eq!(
        back,
        vec![
            rows[3].clone(),
            rows[2].clone(),
            rows[1].clone(),
            rows[0].clone()
        ]
    );
    store
        .replace_forecast_accuracy(&[row("AT", 30, 0, 24, Some(1.0))])
        .unwrap();
    assert!(store.data_version().unwrap() > v1);
    assert_eq!(
        store.forecast_accuracy().unwrap(),
        vec![row("AT", 30, 0, 24, Some(1.0))]
    );
    store.replace_forecast_accuracy(&[]).unwrap();
    assert!(store.forecast_accuracy().unwrap().is_empty());
}
