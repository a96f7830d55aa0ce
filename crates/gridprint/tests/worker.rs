//! The live worker, driven through its cycle function with an injected clock against a loopback
//! ENTSO-E server replaying real recorded documents (ENTSO-E Transparency Platform data recorded by
//! ENTSOE.jl, MIT): a zone's slot goes forecast → estimated → provider data → frozen, a provider
//! outage is survived, and the `gridprint worker` binary stops cleanly on SIGTERM without ever
//! printing its token.

use gridprint_core::derived::{DerivedDay, SeriesKey};
use gridprint_core::inputs::InputKey;
use gridprint_core::quality::{DataState, ZoneStatus};
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{Slot, SlotRange, parse_timestamp};
use gridprint_core::zone::ZoneCode;
use gridprint_ingest::entsoe_api::{EntsoeClient, EntsoeConfig, EntsoeToken};
use gridprint_ingest::fetch::Fetcher;
use gridprint_ingest::http::FetchRetry;
use gridprint_ingest::replay::{Replay, ReplayResponder};
use gridprint_pipeline::worker::{CycleReport, Worker, WorkerConfig};
use gridprint_store::SharedStore;
use std::io::BufRead;
use std::sync::Arc;
use std::time::Duration;
use time::OffsetDateTime;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const API_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/fixtures/entsoe-api"
);
const TOKEN: &str = "worker-test-token-5f1c";

fn reference() -> Arc<ReferenceData> {
    Arc::new(ReferenceData::embedded(ZoneSet::Selected2026))
}

fn t(s: &str) -> OffsetDateTime {
    parse_timestamp(s).unwrap()
}

fn nl() -> ZoneCode {
    ZoneCode::parse("NL").unwrap()
}

/// The real A75 NL document of 2024-09-02 (22:00Z to 22:00Z).
fn nl_generation() -> String {
    std::fs::read_to_string(format!("{API_DIR}/A75_NL_2024-09-02_PT15M_A03.xml")).unwrap()
}

/// The same document moved one day earlier: the history the forecast starts from.
fn nl_generation_day_before() -> String {
    nl_generation()
        .replace("2024-09-01T22:00Z", "2024-08-31T22:00Z")
        .replace("2024-09-02T22:00Z", "2024-09-01T22:00Z")
}

/// The 2024-09-02 document with every quantity changed: a late correction by the provider.
fn nl_generation_corrected() -> String {
    nl_generation().replace("<quantity>", "<quantity>1")
}

/// Makes the server publish exactly these documents from now on.
async fn publish(server: &MockServer, docs: &[String]) {
    let mut replay = Replay::new(reference().zones.clone(), TOKEN);
    for d in docs {
        replay.add(d.clone().into_bytes()).unwrap();
    }
    server.reset().await;
    Mock::given(method("GET"))
        .respond_with(ReplayResponder(replay))
        .mount(server)
        .await;
}

fn worker(server: &MockServer, store: &SharedStore) -> Worker {
    worker_keeping(server, store, WorkerConfig::default().archive_days)
}

/// [`worker`], keeping issued forecasts `archive_days` days.
fn worker_keeping(server: &MockServer, store: &SharedStore, archive_days: i64) -> Worker {
    let retry = FetchRetry {
        max_retries: 1,
        min_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(10),
        max_retry_after: Duration::from_millis(10),
        timeout: Duration::from_secs(5),
    };
    let client = EntsoeClient::new(
        EntsoeConfig {
            base_url: format!("{}/api", server.uri()),
            token: EntsoeToken::new(TOKEN),
            retry,
            requests_per_minute: 60_000,
        },
        Arc::new(reference().zones.clone()),
    )
    .unwrap();
    let config = WorkerConfig {
        zones: Some(vec![nl()]),
        archive_days,
        ..WorkerConfig::default()
    };
    Worker::new(
        store.clone(),
        reference(),
        Fetcher {
            entsoe: Some(client),
            elexon: None,
            epias: None,
        },
        config,
    )
}

fn store() -> SharedStore {
    Arc::new(gridprint_store_sqlite::SqliteStore::open_in_memory().unwrap())
}

fn nl_day(store: &SharedStore, s: Slot) -> DerivedDay {
    store
        .derived_days(s.day()..s.day() + 1)
        .unwrap()
        .into_iter()
        .find(|d| d.zone == nl())
        .expect("NL computed")
}

/// (zone_status, valid, frozen, total generation) of NL in slot `s`.
fn nl_slot(store: &SharedStore, s: Slot) -> (ZoneStatus, bool, bool, f32) {
    let d = nl_day(store, s);
    let f = d.flags[s.index_in_day()];
    assert!(f.present(), "NL {s} not computed");
    (
        f.status(),
        f.valid(),
        f.frozen(),
        d.value(&SeriesKey::Generation, s.index_in_day())
            .unwrap_or(f32::NAN),
    )
}

/// States of NL's generation points in slot `s`.
fn nl_states(store: &SharedStore, s: Slot) -> Vec<(DataState, String)> {
    let mut v: Vec<_> = store
        .inputs_in_range(SlotRange::new(s, s.offset(1)))
        .unwrap()
        .into_iter()
        .filter(|p| matches!(&p.point.key, InputKey::Generation { zone, .. } if *zone == nl()))
        .map(|p| (p.point.state, p.point.datasource))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The datasource of the forecast model's inputs (docs/methodology.md §6): the forecast, and the
/// past slots after a series' last provider value, which the same model estimates.
const MODEL_DATASOURCE: &str = "wattnet-hybrid-estimation:gridprint-anchored-profile";

/// Every generation point of NL in slot `s` has this `state` and `datasource`.
fn assert_nl_inputs(store: &SharedStore, s: Slot, state: DataState, datasource: &str) {
    let expected = vec![(state, datasource.to_string())];
    assert_eq!(nl_states(store, s), expected, "NL generation inputs at {s}");
}

/// Runs `w`'s cycle at the timestamp `at`, printing its report.
async fn cycle_at(w: &Worker, at: &str) -> CycleReport {
    let r = w.run_cycle(t(at)).await.unwrap();
    eprintln!("{r}");
    r
}

/// Official 0 MW flows on every direction of every border of NL over `range`.
fn report_nl_borders(store: &SharedStore, range: SlotRange) {
    let r = reference();
    let z = &r.zones;
    let i = z.index_of(&nl()).unwrap();
    let points: Vec<_> = z
        .borders()
        .iter()
        .copied()
        .filter(|&(a, b)| a == i || b == i)
        .flat_map(|(a, b)| {
            range
                .iter()
                .map(move |slot| gridprint_core::inputs::InputPoint {
                    key: InputKey::Flow {
                        from: z.code(a).clone(),
                        to: z.code(b).clone(),
                    },
                    slot,
                    mw: 0.0,
                    state: DataState::Official,
                    datasource: "ENTSO-E".into(),
                })
        })
        .collect();
    assert!(!points.is_empty());
    store.upsert_inputs(&points, 1).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slot_goes_forecast_estimated_official_then_frozen() {
    let server = MockServer::start().await;
    let store = store();
    let w = worker(&server, &store);
    let s = Slot::containing(t("2024-09-02T06:00Z"));

    // 00:05 — the provider has published the day before only: the slot is a forecast.
    publish(&server, &[nl_generation_day_before()]).await;
    let r = cycle_at(&w, "2024-09-02T00:05Z").await;
    assert!(r.fetched_points > 0 && r.forecast > 0, "{r}");
    assert_nl_inputs(&store, s, DataState::Missing, MODEL_DATASOURCE);
    let (status, valid, frozen, g_forecast) = nl_slot(&store, s);
    assert_eq!((status, valid, frozen), (ZoneStatus::Missing, false, false));
    assert!(g_forecast > 1000.0, "forecast generation {g_forecast}");
    // Every endpoint answers 72 h ahead.
    let (status, valid, _, _) = nl_slot(&store, Slot::containing(t("2024-09-05T00:00Z")));
    assert_eq!((status, valid), (ZoneStatus::Missing, false));

    // 07:00 — still nothing new published: the slot, now past, is estimated.
    let r = cycle_at(&w, "2024-09-02T07:00Z").await;
    assert!(r.estimated > 0, "{r}");
    assert_nl_inputs(&store, s, DataState::Estimated, MODEL_DATASOURCE);
    // Its flags are those of NL's tail (docs/methodology.md, "Now and the forecast in one series"):
    // every slot after the last complete one reads like the forecast after it, so that a window
    // starting now is one series; the input states above still say estimated.
    let (status, valid, frozen, _) = nl_slot(&store, s);
    assert_eq!((status, valid, frozen), (ZoneStatus::Missing, false, false));

    // 09:00 — the provider publishes the day, and NL's borders have reported (stored directly:
    // the mock provider serves generation only; issue #13: a zone is complete only when every
    // border reported): provider data, complete and valid.
    report_nl_borders(&store, SlotRange::new(s.offset(-24), s.offset(8)));
    publish(&server, &[nl_generation()]).await;
    cycle_at(&w, "2024-09-02T09:00Z").await;
    assert_nl_inputs(&store, s, DataState::Official, "ENTSO-E");
    let (status, valid, frozen, g_official) = nl_slot(&store, s);
    assert_eq!((status, valid, frozen), (ZoneStatus::Complete, true, false));
    let want: f64 =
        gridprint_ingest::detect_and_parse(nl_generation().as_bytes(), &reference().zones)
            .unwrap()
            .points
            .iter()
            .filter(|p| {
                p.slot == s
                    && !matches!(
                        p.key,
                        InputKey::Generation {
                            production_type: gridprint_core::ProductionType::HydroPumpedStorage,
                            ..
                        }
                    )
            })
            .map(|p| p.mw)
            .sum();
    assert!(
        (g_official as f64 - want).abs() < 0.01 * want,
        "{g_official} vs {want}"
    );

    // 10:30 — the slot is older than now − 4 h: final. A late correction is stored as input but no
    // longer changes the slot's outputs.
    publish(&server, &[nl_generation_corrected()]).await;
    let r = cycle_at(&w, "2024-09-02T10:30Z").await;
    assert!(r.stored.updated > 0, "the correction was stored: {r}");
    let (status, valid, frozen, g_final) = nl_slot(&store, s);
    assert_eq!((status, valid, frozen), (ZoneStatus::Complete, true, true));
    assert_eq!(g_final, g_official, "frozen slot unchanged by late data");
    // A slot that is not final yet does take the correction.
    let later = Slot::containing(t("2024-09-02T08:00Z"));
    let stored: f64 = store
        .inputs_in_range(SlotRange::new(later, later.offset(1)))
        .unwrap()
        .iter()
        .filter(|p| matches!(&p.point.key, InputKey::Generation { zone, production_type } if *zone == nl() && *production_type != gridprint_core::ProductionType::HydroPumpedStorage))
        .map(|p| p.point.mw)
        .sum();
    let (_, _, frozen, g_later) = nl_slot(&store, later);
    assert!(!frozen);
    assert!(
        (g_later as f64 - stored).abs() < 0.01 * stored,
        "{g_later} vs stored {stored}"
    );

    // And again later: still the same.
    w.run_cycle(t("2024-09-02T12:00Z")).await.unwrap();
    assert_eq!(
        nl_slot(&store, s),
        (ZoneStatus::Complete, true, true, g_official)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_outage_is_survived() {
    let server = MockServer::start().await;
    let store = store();
    let w = worker(&server, &store);
    publish(&server, &[nl_generation_day_before(), nl_generation()]).await;
    w.run_cycle(t("2024-09-01T23:00Z")).await.unwrap();
    w.run_cycle(t("2024-09-02T22:00Z")).await.unwrap();

    // ENTSO-E goes down for good.
    server.reset().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let r = cycle_at(&w, "2024-09-03T03:00Z").await;
    assert_eq!(r.failed, r.requests, "{r}");
    assert!(
        r.to_string().contains("failing: ENTSO-E A11") && r.to_string().contains("and 4 more"),
        "{r}"
    );
    // The hours since the last provider value are estimated, the future forecast; both are NL's
    // tail, one run of flags with the forecast (docs/methodology.md, "Now and the forecast in one
    // series").
    let past = Slot::containing(t("2024-09-03T01:00Z"));
    assert_nl_inputs(&store, past, DataState::Estimated, MODEL_DATASOURCE);
    let (status, valid, _, g) = nl_slot(&store, past);
    assert_eq!((status, valid), (ZoneStatus::Missing, false));
    assert!(g > 1000.0);
    let ahead = Slot::containing(t("2024-09-04T12:00Z"));
    assert_eq!(nl_slot(&store, ahead).0, ZoneStatus::Missing);
}

/// Issue #46 items 4 and 5: the first cycle of each hour archives what it issued (the footprints
/// it published from its current slot over the horizon, and the inputs it forecast), the others
/// do not; issued forecasts older than the period kept are dropped; and the accuracy of the
/// archived forecasts against the actuals that came in since is published.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issued_forecasts_are_archived_hourly_pruned_and_measured() {
    use gridprint_store::ArchiveQuery;
    let server = MockServer::start().await;
    let store = store();
    let w = worker_keeping(&server, &store, 1);
    let archived = |store: &SharedStore| {
        store
            .archived_forecasts(&ArchiveQuery {
                origins: SlotRange::new(Slot(0), Slot(i64::MAX)),
                zone: Some(nl()),
                inputs: true,
            })
            .unwrap()
    };
    // At 06:05 the provider has published the day before only (up to 22:00). NL's borders
    // report (stored directly: the mock provider serves generation only), so that NL's slots with
    // provider generation are complete.
    report_nl_borders(
        &store,
        SlotRange::new(
            Slot::containing(t("2024-08-31T22:00Z")),
            Slot::containing(t("2024-09-03T00:00Z")),
        ),
    );
    publish(&server, &[nl_generation_day_before()]).await;
    let r = cycle_at(&w, "2024-09-02T06:05Z").await;
    let a = r.archive.expect("the first cycle archives");
    assert_eq!(a.archived, 1, "NL only (--zones NL)");
    assert!(
        r.to_string().contains("forecast archived for 1 zones"),
        "{r}"
    );
    let got = archived(&store);
    assert_eq!(got.len(), 1);
    let f = &got[0];
    let origin = Slot::containing(t("2024-09-02T06:00Z"));
    assert_eq!(f.origin, origin);
    assert_eq!(f.footprints.len(), 384, "96 hours of footprints");
    assert!(f.footprints.iter().all(|v| v.is_finite() && *v > 0.0));
    // The footprint archived is the one published.
    let day = nl_day(&store, origin);
    let published = day
        .value(
            &gridprint_pipeline::forecast::accuracy::FOOTPRINT,
            origin.index_in_day(),
        )
        .unwrap();
    assert!((f.footprints[0] - f64::from(published)).abs() < 0.006);
    // Its inputs: NL's generation series, each from the provider's last value (21:45 the day
    // before) on, and its exports (reported up to now); persistence counts from the slot after
    // the generation's last value.
    let generation: Vec<_> = f
        .inputs
        .iter()
        .filter(|s| matches!(s.key, InputKey::Generation { .. }))
        .collect();
    assert!(generation.len() >= 5, "{:?}", generation.len());
    assert!(f.inputs.iter().all(|s| s.key.zone() == &nl()));
    let last = Slot::containing(t("2024-09-01T21:45Z"));
    assert!(generation.iter().all(|s| s.last_known == last));
    assert!(
        f.inputs
            .iter()
            .any(|s| matches!(s.key, InputKey::Flow { .. }) && s.last_known == origin.offset(-1))
    );
    assert_eq!(f.known_until, last.offset(1));
    assert!(f.inputs.iter().all(|s| s.mw.len() == 384));

    // Within the hour nothing more is archived; the next hour is. At 13:00 the provider has
    // published the day up to then.
    assert!(cycle_at(&w, "2024-09-02T06:35Z").await.archive.is_none());
    publish(&server, &[nl_generation()]).await;
    assert!(cycle_at(&w, "2024-09-02T13:00Z").await.archive.is_some());

    // At 18:00 the provider data from 09:00 to 13:00 is final and complete (sealed before this
    // cycle's fetch): the forecast of 06:00 is compared with it, beside persistence (the day
    // before). The slots before 09:00 were sealed at 13:00 before the provider's data came in:
    // they hold gridprint's estimates, not what happened, and are not counted.
    let r = cycle_at(&w, "2024-09-02T18:00Z").await;
    assert_eq!(r.archive.unwrap().measured, 1);
    let rows = store.forecast_accuracy().unwrap();
    assert_eq!(rows.len(), 6, "NL: 2 windows × 3 bands");
    let first = &rows[0];
    assert_eq!(
        (first.window_days, first.band_from_h, first.band_to_h),
        (7, 0, 24)
    );
    assert_eq!(first.forecasts, 1);
    assert_eq!(first.points, 16, "09:00 to 13:00");
    assert_eq!(first.first_origin, Some(origin));
    let mape = first.model.mape.unwrap();
    assert!((0.0..100.0).contains(&mape), "{mape}");
    assert!(first.persistence.mape.is_some());
    assert_eq!(first.ranked, 0, "no forecast's first day has happened yet");
    assert_eq!(rows[2].points, 0, "nothing 48 hours ahead has happened yet");

    // Two days later the forecasts of the 2nd are older than the day kept: dropped.
    let r = cycle_at(&w, "2024-09-04T12:00Z").await;
    assert_eq!(r.archive.unwrap().pruned, 3);
    let left: Vec<Slot> = archived(&store).iter().map(|f| f.origin).collect();
    assert_eq!(left, [Slot::containing(t("2024-09-04T12:00Z"))]);
}

#[test]
fn worker_binary_stops_on_sigterm_and_never_prints_its_token() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(async {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(503))
            .mount(&server)
            .await;
        server
    });
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("worker.db");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gridprint"))
        .args([
            "--database",
            &format!("sqlite://{}", db.display()),
            "worker",
            "--interval",
            "1h",
            "--zones",
            "NL",
            "--http-retries",
            "1",
        ])
        .env_remove("GRIDPRINT_DATABASE_URL")
        .env("GRIDPRINT_LOG", "debug")
        .env("GRIDPRINT_ENTSOE_URL", format!("{}/api", server.uri()))
        .env("GRIDPRINT_ENTSOE_TOKEN", TOKEN)
        .env(
            "GRIDPRINT_ELEXON_URL",
            format!("{}/bmrs/api/v1", server.uri()),
        )
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in std::io::BufReader::new(stderr).lines() {
            let line = line.unwrap_or_default();
            all.push_str(&line);
            all.push('\n');
            let _ = tx.send(line);
        }
        all
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let mut cycle_line = None;
    while std::time::Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(line) if line.contains("cycle ") && line.contains("requests") => {
                cycle_line = Some(line);
                break;
            }
            _ => {}
        }
    }
    let cycle_line = cycle_line.expect("one cycle logged");
    assert!(cycle_line.contains("failed"), "{cycle_line}");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "worker did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = reader.join().unwrap();
    assert!(exit.success(), "exit {exit:?}\n{log}");
    assert!(log.contains("worker stopped"), "{log}");
    assert!(
        !log.contains(TOKEN),
        "the token leaked into the log:\n{log}"
    );
    let cycles = log.lines().filter(|l| l.contains("cycle 20")).count();
    assert_eq!(cycles, 1, "one line per cycle:\n{log}");
}

#[test]
fn ingest_command_backfills_resumably_then_computes() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(async {
        let server = MockServer::start().await;
        let mut replay = Replay::new(reference().zones.clone(), TOKEN);
        replay.add(nl_generation().into_bytes()).unwrap();
        replay
            .add_file(format!("{API_DIR}/A65_A16_NL_2024-09-02_PT15M_A03.xml"))
            .unwrap();
        Mock::given(method("GET"))
            .respond_with(ReplayResponder(replay))
            .mount(&server)
            .await;
        server
    });
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ingest.db");
    // The command's stderr, once it succeeded.
    let run = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gridprint"))
            .args(["--database", &format!("sqlite://{}", db.display())])
            .args([
                "ingest",
                "entsoe",
                "--from",
                "2024-09-01T22:00Z",
                "--to",
                "2024-09-02T22:00Z",
                "--zones",
                "NL",
                "--kinds",
                "generation,load",
            ])
            .args(["--now", "2026-01-01T00:00Z"])
            .env_remove("GRIDPRINT_DATABASE_URL")
            .env("GRIDPRINT_LOG", "warn")
            .env("GRIDPRINT_ENTSOE_URL", format!("{}/api", server.uri()))
            .env("GRIDPRINT_ENTSOE_TOKEN", TOKEN)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{text}");
        text
    };
    let text = run();
    assert!(
        text.contains("0 series-days already present, 4 to fetch in 2 requests"),
        "{text}"
    );
    assert!(text.contains("published"), "computed afterwards: {text}");
    assert!(!text.contains(TOKEN));
    let text = run();
    assert!(
        text.contains("4 series-days already present, 0 to fetch in 0 requests"),
        "{text}"
    );

    let store: SharedStore = Arc::new(gridprint_store_sqlite::SqliteStore::open(&db).unwrap());
    let s = Slot::containing(t("2024-09-02T10:00Z"));
    assert!(nl_slot(&store, s).3 > 1000.0);
    // Generation and load only: NL's borders did not report, so they are assumed 0 MW and
    // estimated, and NL is preview (issue #13), not complete.
    assert_eq!(nl_slot(&store, s).0, ZoneStatus::Preview);

    // Without a token the command refuses to start.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gridprint"))
        .args([
            "--database",
            &format!("sqlite://{}", db.display()),
            "ingest",
            "entsoe",
            "--from",
            "2024-09-01",
        ])
        .env_remove("GRIDPRINT_DATABASE_URL")
        .env_remove("GRIDPRINT_ENTSOE_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("GRIDPRINT_ENTSOE_TOKEN"));
}

#[test]
fn ingest_kinds_backfills_the_tso_forecasts_apart_from_the_actuals() {
    let forecasts = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/fixtures/entsoe-api-forecasts"
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(async {
        let server = MockServer::start().await;
        let mut replay = Replay::new(reference().zones.clone(), TOKEN);
        for f in [
            "A69_A01_DK1_2023-03-25to26_PT60M.xml",
            "A65_A01_DK1_2023-10-28to29_PT60M.xml",
        ] {
            replay.add_file(format!("{forecasts}/{f}")).unwrap();
        }
        Mock::given(method("GET"))
            .respond_with(ReplayResponder(replay))
            .mount(&server)
            .await;
        server
    });
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ingest.db");
    let ingest = |kinds: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_gridprint"))
            .args(["--database", &format!("sqlite://{}", db.display())])
            .args(["ingest", "entsoe", "--from", "2023-03-25T00:00Z"])
            .args(["--to", "2023-03-27T00:00Z", "--zones", "DK1"])
            .env("GRIDPRINT_KINDS", kinds)
            .env_remove("GRIDPRINT_DATABASE_URL")
            .env("GRIDPRINT_LOG", "warn")
            .env("GRIDPRINT_ENTSOE_URL", format!("{}/api", server.uri()))
            .env("GRIDPRINT_ENTSOE_TOKEN", TOKEN)
            .env("GRIDPRINT_HTTP_RETRIES", "0")
            .output()
            .unwrap()
    };
    let out = ingest("wind-solar-day-ahead,load-day-ahead");
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{text}");
    // DK1's wind and solar of the two days; no day-ahead load for those days.
    assert!(
        text.contains("2 TSO forecast requests: 0 failed; 576 values (576 new"),
        "{text}"
    );
    assert!(!text.contains(TOKEN));
    use gridprint_store::InputStore as _;
    let store = gridprint_store_sqlite::SqliteStore::open(&db).unwrap();
    let range = SlotRange::new(Slot(0), Slot(i64::MAX / 2));
    assert_eq!(
        store.tso_forecasts_in_range(range, i64::MAX).unwrap().len(),
        576
    );
    assert!(
        store.inputs_in_range(range).unwrap().is_empty(),
        "no actual value"
    );
    // An unknown kind names the known ones; --help lists them.
    let out = ingest("wind");
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success());
    assert!(
        text.contains("unknown kind 'wind'") && text.contains("wind-solar-intraday"),
        "{text}"
    );
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_gridprint"))
        .args(["ingest", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for name in [
        "wind-solar-day-ahead",
        "wind-solar-intraday",
        "load-day-ahead",
        "scheduled-generation",
        "GRIDPRINT_KINDS",
    ] {
        assert!(help.contains(name), "--help lists {name}: {help}");
    }
}
