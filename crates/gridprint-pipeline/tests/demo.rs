//! The demo replayed onto the present (docs/usage.md, "What the demo holds"): each series' most recent recording of a
//! day or more moved by whole days (one of whole weeks by whole weeks, keeping the weekday), provider
//! data up to an hour before now, then the worker's own cycle (estimates, 96 h forecast, compute),
//! again after every quarter-hour; the two real weeks of 2022 make the present Europe-wide.

use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::{DataState, ZoneStatus};
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{Clock, SLOTS_PER_DAY, Slot, SlotRange, parse_timestamp};
use gridprint_core::zone::ZoneCode;
use gridprint_pipeline::demo::{self, DemoReplay, LiveDemo, PROVIDER_LAG};
use gridprint_pipeline::forecast::DEFAULT_HORIZON_SLOTS;
use gridprint_store::{InputStore, SharedStore, Store};
use gridprint_store_sqlite::SqliteStore;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;

fn reference() -> Arc<ReferenceData> {
    Arc::new(ReferenceData::embedded(ZoneSet::Selected2026))
}

fn t(s: &str) -> OffsetDateTime {
    parse_timestamp(s).unwrap()
}

fn zone(z: &str) -> ZoneCode {
    ZoneCode::parse(z).unwrap()
}

/// The bundled documents at their recorded dates, by (series, slot).
fn recorded(reference: &ReferenceData) -> HashMap<(InputKey, Slot), f64> {
    let store = SqliteStore::open_in_memory().unwrap();
    demo::import_demo(&store, reference, t("2026-01-01T00:00Z"), &mut ()).unwrap();
    let extent = store.input_extent().unwrap().unwrap();
    store
        .inputs_in_range(extent)
        .unwrap()
        .into_iter()
        .filter(|s| s.point.state == DataState::Official)
        .map(|s| ((s.point.key, s.point.slot), s.point.mw))
        .collect()
}

#[test]
fn each_series_replays_its_latest_recording_by_whole_days_or_weeks() {
    let reference = reference();
    let replay = DemoReplay::bundled(&reference).unwrap();
    let shown: Vec<(&str, &str)> = replay
        .recordings()
        .iter()
        .map(|r| (r.recorded.as_str(), r.every.as_str()))
        .collect();
    assert_eq!(
        shown,
        [
            ("2017-02-01", "day"),
            // IE's last hours of the two weeks are missing in the source: one whole week.
            ("2022-11-28/2022-12-04", "week"),
            ("2022-11-28/2022-12-11", "2 weeks"),
            ("2024-01-15/2024-01-21", "week"),
            ("2024-06-15", "day"),
            ("2024-09-02", "day"),
            ("2024-09-02/2024-09-08", "week"),
        ]
    );
    let of = |recorded: &str| {
        replay
            .recordings()
            .iter()
            .filter(|r| r.recorded == recorded)
            .flat_map(|r| r.series.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(of("2024-06-15"), ["generation of DE, ES, FR, IT_NORTH, PL"]);
    assert_eq!(of("2024-01-15/2024-01-21"), ["load of BE"]);
    assert_eq!(of("2024-09-02/2024-09-08"), ["flows DE→NL, NL→DE"]);
    assert_eq!(of("2022-11-28/2022-12-04"), ["generation of IE"]);
    let weeks_2022 = of("2022-11-28/2022-12-11");
    assert_eq!(
        weeks_2022[0],
        "generation of BE, BG, CZ, EE, FI, GR, HU, LT, LV, ME, PT, RO, RS, SI, SK"
    );
    assert!(weeks_2022[1].contains("CZ→SK") && weeks_2022[1].contains("SK→CZ"));

    let recorded = recorded(&reference);
    // Nine days ending on a Thursday afternoon: every replayed point equals its recording's value
    // a whole number of days (daily) or weeks (weekly) earlier.
    let range = SlotRange::new(
        Slot::containing(t("2026-11-18T00:00Z")),
        Slot::containing(t("2026-11-26T13:00Z")),
    );
    let points = replay.points(range);
    assert!(points.iter().all(|p| range.contains(p.slot)));
    let source = |p: &InputPoint, period: i64, recorded_range: SlotRange| {
        let k = (p.slot.0 - recorded_range.start.0).div_euclid(period);
        let s = p.slot.offset(-k * period);
        assert!(recorded_range.contains(s), "{p:?}");
        recorded[&(p.key.clone(), s)]
    };
    let day_of_de = SlotRange::new(
        Slot::containing(t("2024-06-14T22:00Z")),
        Slot::containing(t("2024-06-15T22:00Z")),
    );
    let week_of_be = SlotRange::new(
        Slot::containing(t("2024-01-14T23:00Z")),
        Slot::containing(t("2024-01-21T23:00Z")),
    );
    let de_solar = InputKey::Generation {
        zone: zone("DE"),
        production_type: ProductionType::Solar,
    };
    let be_load = InputKey::Load { zone: zone("BE") };
    let mut seen = (0, 0);
    for p in &points {
        assert_eq!(p.state, DataState::Official);
        assert_eq!(p.datasource, "ENTSO-E");
        if p.key == de_solar {
            assert_eq!(p.mw, source(p, SLOTS_PER_DAY, day_of_de), "{p:?}");
            seen.0 += 1;
        } else if p.key == be_load {
            let s = p.slot.start();
            let v = source(p, 7 * SLOTS_PER_DAY, week_of_be);
            assert_eq!(p.mw, v, "{p:?}");
            // Whole weeks: the same weekday and time of day as recorded.
            let k = (p.slot.0 - week_of_be.start.0).div_euclid(7 * SLOTS_PER_DAY);
            let r = p.slot.offset(-k * 7 * SLOTS_PER_DAY).start();
            assert_eq!((s.weekday(), s.time()), (r.weekday(), r.time()));
            seen.1 += 1;
        }
    }
    assert_eq!(
        seen,
        (range.len(), range.len()),
        "DE solar and BE load replayed on every slot"
    );
    // Zones of the File Library extract that recorded only its last hour are not replayed.
    assert!(
        !points
            .iter()
            .any(|p| p.key.zone().as_str() == "CY" && matches!(p.key, InputKey::Generation { .. }))
    );
}

#[test]
fn provider_data_arrives_an_hour_after_each_quarter() {
    assert_eq!(PROVIDER_LAG, time::Duration::hours(1));
    for (now, end) in [
        ("2026-11-26T14:00:00Z", "2026-11-26T13:00Z"),
        ("2026-11-26T14:07:00Z", "2026-11-26T13:00Z"),
        ("2026-11-26T14:14:59Z", "2026-11-26T13:00Z"),
        ("2026-11-26T14:15:00Z", "2026-11-26T13:15Z"),
    ] {
        assert_eq!(
            demo::provider_data_end(t(now)),
            Slot::containing(t(end)),
            "{now}"
        );
    }
    assert_eq!(
        demo::replay_start(t("2026-11-26T14:07Z")),
        Slot::containing(t("2026-11-19T00:00Z"))
    );
}

/// The two weeks of 2022 repeat every two weeks, shifted by whole weeks: a replayed CZ nuclear value
/// at any slot is the one recorded at the same weekday and time of day.
#[test]
fn the_two_weeks_of_2022_repeat_every_two_weeks_keeping_weekday_and_hour() {
    let reference = reference();
    let replay = DemoReplay::bundled(&reference).unwrap();
    let cz_nuclear = InputKey::Generation {
        zone: zone("CZ"),
        production_type: ProductionType::Nuclear,
    };
    let recorded: HashMap<Slot, f64> = replay
        .points(SlotRange::new(
            Slot::containing(t("2022-11-28T00:00Z")),
            Slot::containing(t("2022-12-12T00:00Z")),
        ))
        .into_iter()
        .filter(|p| p.key == cz_nuclear)
        .map(|p| (p.slot, p.mw))
        .collect();
    assert_eq!(recorded.len() as i64, 14 * SLOTS_PER_DAY);
    let range = SlotRange::new(
        Slot::containing(t("2026-11-12T00:00Z")),
        Slot::containing(t("2026-11-26T13:00Z")),
    );
    let mut seen = 0;
    for p in replay.points(range).iter().filter(|p| p.key == cz_nuclear) {
        let back = (p.slot.0 - recorded.keys().min().unwrap().0).div_euclid(14 * SLOTS_PER_DAY);
        let source = p.slot.offset(-back * 14 * SLOTS_PER_DAY);
        let (a, b) = (p.slot.start(), source.start());
        assert_eq!((a.weekday(), a.time()), (b.weekday(), b.time()));
        assert_eq!(Some(&p.mw), recorded.get(&source), "{p:?}");
        seen += 1;
    }
    assert_eq!(seen, range.len());
}

/// After the first step of the live demo, the last day holds provider data of at least 20 zones, and
/// at the last quarter of provider data a zone with generation reads `complete` exactly when each
/// direction of each of its borders is recorded (CZ, EE, ES, LV, PT, SK); the others read less.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replayed_present_is_europe_complete_where_every_border_is_recorded() {
    let reference = reference();
    let store: SharedStore = Arc::new(SqliteStore::open_in_memory().unwrap());
    let now = t("2026-11-26T14:07:00Z");
    demo::import_demo(&*store, &reference, now, &mut ()).unwrap();
    let live = LiveDemo::new(store.clone(), reference.clone()).unwrap();
    assert!(live.leading().await.unwrap());
    live.step(now).await.unwrap();
    let last = demo::provider_data_end(now).offset(-1);
    let day = SlotRange::new(last.offset(1 - SLOTS_PER_DAY), last.offset(1));
    let official: Vec<InputPoint> = store
        .inputs_in_range(day)
        .unwrap()
        .into_iter()
        .filter(|s| s.point.state == DataState::Official)
        .map(|s| s.point)
        .collect();
    let with_data: BTreeSet<&str> = official
        .iter()
        .flat_map(|p| match &p.key {
            InputKey::Flow { from, to } => vec![from.as_str(), to.as_str()],
            k => vec![k.zone().as_str()],
        })
        .collect();
    assert!(with_data.len() >= 20, "{with_data:?}");
    let at_last: BTreeSet<&InputKey> = official
        .iter()
        .filter(|p| p.slot == last)
        .map(|p| &p.key)
        .collect();
    let generating: BTreeSet<&str> = at_last
        .iter()
        .filter(|k| matches!(k, InputKey::Generation { .. }))
        .map(|k| k.zone().as_str())
        .collect();
    assert!(generating.len() >= 20, "{generating:?}");
    let status: HashMap<String, ZoneStatus> = store
        .derived_days(last.day()..last.day() + 1)
        .unwrap()
        .into_iter()
        .map(|d| (d.zone.to_string(), d.flags[last.index_in_day()].status()))
        .collect();
    let mut complete = Vec::new();
    for z in &generating {
        let neighbours = &reference
            .zones
            .iter()
            .find(|x| x.code.as_str() == *z)
            .unwrap()
            .neighbours;
        let recorded = |from: &ZoneCode, to: &ZoneCode| {
            at_last.contains(&InputKey::Flow {
                from: from.clone(),
                to: to.clone(),
            })
        };
        let all_recorded = neighbours
            .iter()
            .all(|n| recorded(&zone(z), n) && recorded(n, &zone(z)));
        let read = status.get(*z).copied();
        if all_recorded {
            assert_eq!(read, Some(ZoneStatus::Complete), "{z}");
            complete.push(*z);
        } else {
            assert_ne!(read, Some(ZoneStatus::Complete), "{z}");
        }
    }
    assert_eq!(complete, ["CZ", "EE", "ES", "LV", "PT", "SK"]);
}

fn official_end(store: &dyn Store, key: &InputKey, range: SlotRange) -> Option<Slot> {
    store
        .inputs_in_range(range)
        .unwrap()
        .into_iter()
        .filter(|s| &s.point.key == key && s.point.state == DataState::Official)
        .map(|s| s.point.slot.offset(1))
        .max()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_replays_up_to_an_hour_ago_then_runs_the_workers_cycle() {
    let reference = reference();
    let store: SharedStore = Arc::new(SqliteStore::open_in_memory().unwrap());
    let now = t("2026-11-26T14:07:00Z");
    demo::import_demo(&*store, &reference, now, &mut ()).unwrap();
    assert!(demo::holds_the_demo(&*store, &reference).unwrap());
    let live = LiveDemo::new(store.clone(), reference.clone()).unwrap();
    assert!(live.leading().await.unwrap());
    assert_eq!(live.replayed(), None);
    let report = live.step(now).await.unwrap();
    let end = Slot::containing(t("2026-11-26T13:00Z"));
    let start = Slot::containing(t("2026-11-19T00:00Z"));
    assert_eq!(report.replayed, Some(SlotRange::new(start, end)));
    assert_eq!(live.replayed(), Some(SlotRange::new(start, end)));
    assert!(report.stored.inserted > 50_000, "{report}");
    assert!(
        report.computed.is_some(),
        "the days before the cycle's reach"
    );
    assert!(
        report.cycle.forecast > 0 && report.cycle.estimated > 0,
        "{report}"
    );

    let current = Slot::containing(now);
    let de_gas = InputKey::Generation {
        zone: zone("DE"),
        production_type: ProductionType::Gas,
    };
    let all = SlotRange::new(start.offset(-SLOTS_PER_DAY), current.offset(500));
    assert_eq!(official_end(&*store, &de_gas, all), Some(end));
    // The lag hour estimated, the forecast from the current slot for 96 h.
    let stored: HashMap<Slot, DataState> = store
        .inputs_in_range(all)
        .unwrap()
        .into_iter()
        .filter(|s| s.point.key == de_gas)
        .map(|s| (s.point.slot, s.point.state))
        .collect();
    for s in SlotRange::new(end, current).iter() {
        assert_eq!(stored.get(&s), Some(&DataState::Estimated), "{s:?}");
    }
    let horizon = current.offset(DEFAULT_HORIZON_SLOTS as i64);
    for s in SlotRange::new(current, horizon).iter() {
        assert_eq!(stored.get(&s), Some(&DataState::Missing), "{s:?}");
    }
    // DE is computed on every replayed slot, now and over the forecast.
    let days = store.derived_days(start.day()..horizon.day() + 1).unwrap();
    let de: HashMap<i64, _> = days
        .iter()
        .filter(|d| d.zone.as_str() == "DE")
        .map(|d| (d.day, d))
        .collect();
    for s in SlotRange::new(start, horizon).iter() {
        let flags = de.get(&s.day()).map(|d| d.flags[s.index_in_day()]);
        assert!(flags.is_some_and(|f| f.present()), "DE at {s:?}");
    }

    // A quarter later the next quarter has arrived; nothing else is replayed again.
    let later = t("2026-11-26T14:22:00Z");
    let report = live.step(later).await.unwrap();
    assert_eq!(report.replayed, Some(SlotRange::new(end, end.offset(1))));
    assert_eq!(
        official_end(&*store, &de_gas, all),
        Some(end.offset(1)),
        "{report}"
    );
    assert!(report.computed.is_none());
    assert_eq!(live.replayed(), Some(SlotRange::new(start, end.offset(1))));
}

/// A clock that starts at `start` and runs with the real one.
struct Running {
    start: OffsetDateTime,
    real: std::time::Instant,
}

impl Clock for Running {
    fn now(&self) -> OffsetDateTime {
        self.start + self.real.elapsed()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_demo_steps_after_every_quarter_hour() {
    let reference = reference();
    let store: SharedStore = Arc::new(SqliteStore::open_in_memory().unwrap());
    let live = Arc::new(LiveDemo::new(store.clone(), reference).unwrap());
    assert!(live.leading().await.unwrap());
    live.step(t("2026-11-26T14:07:00Z")).await.unwrap();
    // Two seconds before 14:15: the next step runs a few seconds after it.
    let clock = Arc::new(Running {
        start: t("2026-11-26T14:14:58Z"),
        real: std::time::Instant::now(),
    });
    let stop = CancellationToken::new();
    let reports = Arc::new(Mutex::new(Vec::new()));
    let task = {
        let (live, stop, reports) = (live.clone(), stop.clone(), reports.clone());
        tokio::spawn(async move {
            live.run(clock, stop, |r| reports.lock().unwrap().push(r.clone()))
                .await
        })
    };
    // A bound, not a wait for a good moment: a step (one worker cycle over the replayed Europe) takes
    // tens of seconds in a debug build on a busy 2-core machine; the next one is 15 minutes away.
    for _ in 0..3000 {
        if !reports.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    stop.cancel();
    task.await.unwrap();
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 1, "one step after 14:15");
    let r = &reports[0];
    let end = Slot::containing(t("2026-11-26T13:15Z"));
    assert_eq!(r.replayed.map(|r| r.end), Some(end), "{r}");
    assert_eq!(r.cycle.now.map(Slot::containing), Some(end.offset(4)));
}

#[test]
fn a_database_with_other_data_is_not_the_demo() {
    let reference = reference();
    let store = SqliteStore::open_in_memory().unwrap();
    assert!(!demo::holds_the_demo(&store, &reference).unwrap());
    gridprint_pipeline::testing::import_fixtures(
        &store,
        &reference,
        &["entsoe-api/A75_NL_2024-09-02_PT15M_A03.xml"],
        7,
        None,
    );
    assert!(!demo::holds_the_demo(&store, &reference).unwrap());
}
