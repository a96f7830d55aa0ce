//! The EPIAS client against a loopback platform (wiremock), since no machine here reaches EPIAS: the
//! hand-written day files of `data/fixtures/epias/` (documented shape, illustrative values) served
//! page by page. Covers the login (TGT obtained once and reused, renewed before expiry and after a
//! 401), paging, the per-item UTC offsets, the mapping table of docs/providers.md, the `total` check, retries, a
//! wrong password (one clear error, nothing stored), and the EPIAS health probe.

use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::{Provider, ZoneCode};
use gridprint_ingest::epias::{self, DATASOURCE_EPIAS, EpiasClient, EpiasConfig, EpiasCredentials};
use gridprint_ingest::epias_replay::{EpiasReplay, EpiasResponder, GENERATION_PATH};
use gridprint_ingest::fetch::Fetcher;
use gridprint_ingest::health::{HealthState, ProviderHealth};
use gridprint_ingest::http::{FetchError, FetchRetry};
use gridprint_ingest::request::{DataKind, FetchRequest, Target};
use gridprint_pipeline::backfill::{self, BackfillOptions, BackfillPlan, BackfillReport};
use gridprint_store::SharedStore;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

mod common;
use common::*;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/fixtures/epias");
const USER: &str = "analyst@example.org";
const PASSWORD: &str = "pw-7Hq!x2 &=+";
/// The fixture day, 2025-07-28 in Türkiye (+03:00), in UTC.
const DAY_START: &str = "2025-07-27T21:00:00Z";
const DAY_END: &str = "2025-07-28T21:00:00Z";

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}/{name}")).unwrap()
}

fn fixture_items(name: &str) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let v: serde_json::Value = serde_json::from_slice(&read(name)).unwrap();
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_object().unwrap().clone())
        .collect()
}

fn tr() -> ZoneCode {
    ZoneCode::parse("TR").unwrap()
}

fn day() -> SlotRange {
    SlotRange::new(slot(DAY_START), slot(DAY_END))
}

fn replay() -> Arc<EpiasReplay> {
    Arc::new(
        EpiasReplay::new(
            USER,
            PASSWORD,
            &read("realtime-generation_2025-07-28.json"),
            &read("realtime-consumption_2025-07-28.json"),
            &String::from_utf8(read("tgt_expired_401.json")).unwrap(),
        )
        .unwrap(),
    )
}

/// A loopback platform replaying the fixture day, and its replay (to count logins and pages).
async fn platform() -> (Arc<EpiasReplay>, MockServer) {
    let replay = replay();
    let server = answering("POST", EpiasResponder(replay.clone())).await;
    (replay, server)
}

fn fast_retry() -> FetchRetry {
    FetchRetry {
        max_retries: 2,
        min_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
        max_retry_after: Duration::from_millis(20),
        timeout: Duration::from_secs(5),
    }
}

fn client_with(server: &MockServer, password: &str, page_size: u32) -> EpiasClient {
    EpiasClient::new(EpiasConfig {
        base_url: format!("{}/electricity-service", server.uri()),
        auth_url: server.uri(),
        credentials: EpiasCredentials::new(USER, password),
        retry: fast_retry(),
        requests_per_minute: 60_000,
        page_size,
        ..EpiasConfig::default()
    })
    .unwrap()
}

fn client(server: &MockServer) -> EpiasClient {
    client_with(server, PASSWORD, 500)
}

fn request(kind: DataKind, range: SlotRange) -> FetchRequest {
    FetchRequest {
        provider: Provider::Epias,
        kind,
        target: Target::Zone(tr()),
        range,
    }
}

/// What `c` answers for TR's `kind` over the fixture day, which must not fail.
async fn fetch_day(c: &EpiasClient, kind: DataKind) -> Vec<InputPoint> {
    c.fetch(&request(kind, day())).await.unwrap()
}

/// Runs `plan` with `fetcher` into `store` (two at a time, never cancelled).
async fn run_plan(fetcher: &Fetcher, store: &SharedStore, plan: BackfillPlan) -> BackfillReport {
    backfill::run(
        fetcher,
        store.clone(),
        plan,
        2,
        0,
        &CancellationToken::new(),
        |_, _| {},
    )
    .await
    .unwrap()
}

/// A backfill of TR over the fixture day.
fn tr_options(kinds: Vec<DataKind>, zones: Option<Vec<ZoneCode>>) -> BackfillOptions {
    BackfillOptions {
        provider: Provider::Epias,
        kinds,
        zones,
        range: day(),
        chunk_days: 31,
    }
}

/// The mapping of the issue, written out independently of the client's table.
fn issue_mapping(field: &str) -> Option<ProductionType> {
    use ProductionType as P;
    Some(match field {
        "naturalGas" | "lng" => P::Gas,
        "dammedHydro" => P::HydroReservoir,
        "river" => P::HydroRiver,
        "lignite" | "importCoal" | "blackCoal" | "asphaltiteCoal" => P::Coal,
        "fueloil" | "gasOil" | "naphta" => P::Oil,
        "wind" => P::WindOnshore,
        "sun" => P::Solar,
        "geothermal" => P::Geothermal,
        "biomass" => P::Biomass,
        "wasteheat" => P::Other,
        "nucklear" => P::Nuclear,
        _ => return None,
    })
}

fn value(points: &[InputPoint], key: &InputKey, s: Slot) -> Option<f64> {
    points
        .iter()
        .find(|p| &p.key == key && p.slot == s)
        .map(|p| p.mw)
}

fn generation(pt: ProductionType) -> InputKey {
    InputKey::Generation {
        zone: tr(),
        production_type: pt,
    }
}

#[tokio::test]
async fn tgt_is_obtained_once_and_reused() {
    let (replay, server) = platform().await;
    let c = client(&server);
    let g = fetch_day(&c, DataKind::Generation).await;
    let l = fetch_day(&c, DataKind::Load).await;
    // A clone shares the ticket too.
    let again = fetch_day(&c.clone(), DataKind::Load).await;
    assert!(!g.is_empty() && !l.is_empty());
    assert_eq!(again, l);
    assert_eq!(replay.logins(), 1, "one login for every request");
    assert_eq!(c.logins(), 1);
    assert_eq!(replay.refused(), 0);
    // Data requests carried the TGT and the documented JSON body.
    let received = server.received_requests().await.unwrap();
    let data: Vec<_> = received
        .iter()
        .filter(|r| r.url.path() == GENERATION_PATH)
        .collect();
    assert!(!data.is_empty());
    for r in &data {
        assert_eq!(r.headers.get("TGT").unwrap(), "TGT-1-replay");
        let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(body["startDate"], "2025-07-28T00:00:00+03:00");
        assert_eq!(body["endDate"], "2025-07-29T00:00:00+03:00");
        assert_eq!(body["page"]["sort"]["field"], "date");
        assert_eq!(body["page"]["sort"]["direction"], "ASC");
        assert!(body["page"]["number"].as_u64().unwrap() >= 1);
    }
    let login = received
        .iter()
        .find(|r| r.url.path() == "/cas/v1/tickets")
        .unwrap();
    assert_eq!(
        login.headers.get("content-type").unwrap(),
        "application/x-www-form-urlencoded"
    );
}

#[tokio::test]
async fn tgt_is_renewed_after_a_401_and_before_it_expires() {
    let (replay, server) = platform().await;
    let c = client(&server);
    fetch_day(&c, DataKind::Load).await;
    assert_eq!(replay.logins(), 1);
    // The platform expires the ticket: the next request gets a 401, logs in again once, succeeds.
    replay.expire_tickets();
    let l = fetch_day(&c, DataKind::Load).await;
    assert_eq!(l.len(), 96);
    assert_eq!(replay.refused(), 1);
    assert_eq!(replay.logins(), 2);
    let last_tgt = server
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .rev()
        .find(|r| r.headers.contains_key("TGT"))
        .unwrap();
    assert_eq!(last_tgt.headers.get("TGT").unwrap(), "TGT-2-replay");

    // A ticket older than tgt_renew_after is replaced before it is used (no 401 needed).
    let young = EpiasClient::new(EpiasConfig {
        base_url: format!("{}/electricity-service", server.uri()),
        auth_url: server.uri(),
        credentials: EpiasCredentials::new(USER, PASSWORD),
        retry: fast_retry(),
        requests_per_minute: 60_000,
        tgt_renew_after: Duration::from_millis(150),
        ..EpiasConfig::default()
    })
    .unwrap();
    young.check_login().await.unwrap();
    young.check_login().await.unwrap();
    assert_eq!(young.logins(), 1, "a fresh ticket is reused");
    tokio::time::sleep(Duration::from_millis(200)).await;
    fetch_day(&young, DataKind::Load).await;
    assert_eq!(young.logins(), 2, "an old ticket is renewed before use");
    assert_eq!(replay.refused(), 1, "without a 401");
}

#[tokio::test]
async fn a_ticket_refused_twice_is_an_error_not_a_loop() {
    let server = MockServer::start().await;
    Mock::given(path("/cas/v1/tickets"))
        .respond_with(ResponseTemplate::new(201).set_body_string("TGT-always-stale"))
        .expect(2)
        .mount(&server)
        .await;
    Mock::given(path(GENERATION_PATH))
        .respond_with(
            ResponseTemplate::new(401)
                .set_body_raw(read("tgt_expired_401.json"), "application/json"),
        )
        .expect(2)
        .mount(&server)
        .await;
    let e = client(&server)
        .fetch(&request(DataKind::Generation, day()))
        .await
        .unwrap_err();
    assert!(matches!(e, FetchError::Refused { status: 401, .. }), "{e}");
}

#[tokio::test]
async fn paging_reads_every_item_until_an_empty_page() {
    let (replay, server) = platform().await;
    // 24 hourly items in pages of 10: 10 + 10 + 4, then an empty page.
    let c = client_with(&server, PASSWORD, 10);
    let g = fetch_day(&c, DataKind::Generation).await;
    let pages: Vec<u64> = replay
        .pages()
        .into_iter()
        .filter(|(p, _)| p == GENERATION_PATH)
        .map(|(_, n)| n)
        .collect();
    assert_eq!(pages, [1, 2, 3, 4]);
    // Every hour of the day is there: 96 slots of gas (a field present in every item).
    let gas: Vec<Slot> = g
        .iter()
        .filter(|p| p.key == generation(ProductionType::Gas))
        .map(|p| p.slot)
        .collect();
    assert_eq!(gas, day().iter().collect::<Vec<_>>());
    // Same points as in one page.
    let one = fetch_day(&client(&server), DataKind::Generation).await;
    assert_eq!(g, one);
    // The fixture's empty page is what the replay serves past the end.
    let empty: serde_json::Value = serde_json::from_slice(&read("empty_page.json")).unwrap();
    assert_eq!(empty["items"].as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn plus_three_hours_land_on_their_utc_slots_and_each_fills_four() {
    let (_, server) = platform().await;
    let c = client(&server);
    let l = fetch_day(&c, DataKind::Load).await;
    let items = fixture_items("realtime-consumption_2025-07-28.json");
    let load = InputKey::Load { zone: tr() };
    assert_eq!(l.len(), 96);
    for (h, item) in items.iter().enumerate() {
        let mw = item["consumption"].as_f64().unwrap();
        // 2025-07-28 HH:00+03:00 is HH-3 UTC: 00:00+03:00 → 2025-07-27T21:00Z.
        let first = slot(DAY_START).offset(4 * h as i64);
        for q in 0..4 {
            assert_eq!(value(&l, &load, first.offset(q)), Some(mw), "hour {h} q{q}");
        }
    }
    assert_eq!(
        value(&l, &load, slot("2025-07-27T21:45:00Z")),
        items[0]["consumption"].as_f64()
    );
    assert!(l.iter().all(|p| p.datasource == DATASOURCE_EPIAS));
    assert!(l.iter().all(|p| p.state == DataState::Official));

    // A part of the day: only the asked-for slots (the 03:00+03:00 hour is 00:00Z).
    let part = SlotRange::new(slot("2025-07-28T00:00:00Z"), slot("2025-07-28T01:00:00Z"));
    let l = c.fetch(&request(DataKind::Load, part)).await.unwrap();
    assert_eq!(l.len(), 4);
    assert!(
        l.iter()
            .all(|p| p.mw == items[3]["consumption"].as_f64().unwrap())
    );
}

#[test]
fn each_item_keeps_its_own_offset() {
    // Before 2016 Türkiye had +02:00 in winter: the same local hour is another UTC hour.
    let items: Vec<serde_json::Map<String, serde_json::Value>> = serde_json::from_str(
        r#"[{"date": "2015-01-01T00:00:00+02:00", "consumption": 100.0},
            {"date": "2015-07-01T00:00:00.000+03:00", "consumption": 200.0}]"#,
    )
    .unwrap();
    let range = SlotRange::new(slot("2014-12-31T00:00Z"), slot("2015-07-02T00:00Z"));
    let doc = epias::parse_consumption(&items, &tr(), range).unwrap();
    let load = InputKey::Load { zone: tr() };
    assert_eq!(
        value(&doc.points, &load, slot("2014-12-31T22:00Z")),
        Some(100.0)
    );
    assert_eq!(value(&doc.points, &load, slot("2014-12-31T21:00Z")), None);
    assert_eq!(
        value(&doc.points, &load, slot("2015-06-30T21:45Z")),
        Some(200.0)
    );
    // An hour that is not whole in UTC is an error, not a guess.
    let bad: Vec<serde_json::Map<String, serde_json::Value>> =
        serde_json::from_str(r#"[{"date": "2015-01-01T00:00:00+02:30", "consumption": 1}]"#)
            .unwrap();
    assert!(epias::parse_consumption(&bad, &tr(), range).is_err());
}

#[tokio::test]
async fn mapping_is_exactly_the_issues_table() {
    let (_, server) = platform().await;
    let g = fetch_day(&client(&server), DataKind::Generation).await;
    let items = fixture_items("realtime-generation_2025-07-28.json");
    let mut expected: BTreeMap<(ProductionType, Slot), f64> = BTreeMap::new();
    for (h, item) in items.iter().enumerate() {
        let hour = slot(DAY_START).offset(4 * h as i64);
        for (field, v) in item {
            let Some(pt) = issue_mapping(field) else {
                continue;
            };
            for q in 0..4 {
                *expected.entry((pt, hour.offset(q))).or_insert(0.0) += v.as_f64().unwrap();
            }
        }
    }
    let got: BTreeMap<(ProductionType, Slot), f64> = g
        .iter()
        .map(|p| match &p.key {
            InputKey::Generation {
                production_type, ..
            } => ((*production_type, p.slot), p.mw),
            k => panic!("not generation: {k:?}"),
        })
        .collect();
    assert_eq!(got.len(), expected.len());
    for (k, v) in &expected {
        let g = got.get(k).unwrap_or_else(|| panic!("missing {k:?}"));
        assert!((g - v).abs() < 1e-6, "{k:?}: {g} != {v}");
    }
    // total and importExport are not generation; no other type appears.
    let types: std::collections::BTreeSet<ProductionType> = got.keys().map(|(pt, _)| *pt).collect();
    use ProductionType as P;
    assert_eq!(
        types,
        [
            P::Gas,
            P::HydroReservoir,
            P::HydroRiver,
            P::Coal,
            P::Oil,
            P::WindOnshore,
            P::Solar,
            P::Geothermal,
            P::Biomass,
            P::Other,
            P::Nuclear
        ]
        .into_iter()
        .collect()
    );
    // The 05:00+03:00 item has no geothermal: no value for those slots (not a zero).
    let h5 = slot("2025-07-28T02:00:00Z");
    assert_eq!(value(&g, &generation(P::Geothermal), h5), None);
    assert!(value(&g, &generation(P::Geothermal), h5.offset(4)).is_some());
}

#[test]
fn total_is_checked_against_the_mapped_sum() {
    let items = fixture_items("realtime-generation_2025-07-28.json");
    let doc = epias::parse_generation(&items, &tr(), day()).unwrap();
    // Only the hour with the missing field disagrees (its total still counts geothermal).
    assert_eq!(
        doc.total_mismatches,
        vec![time::macros::datetime!(2025-07-28 05:00 +03:00)]
    );
    assert_eq!(doc.skipped.get("missing-field:geothermal"), Some(&1));
    assert!(epias::total_matches(34968.0, 34968.004));
    assert!(!epias::total_matches(34968.0, 33487.4));
}

#[tokio::test]
async fn server_errors_and_429_are_retried() {
    let replay = replay();
    let server = MockServer::start().await;
    Mock::given(path(GENERATION_PATH))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(path(GENERATION_PATH))
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "0"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(EpiasResponder(replay.clone()))
        .mount(&server)
        .await;
    let g = fetch_day(&client(&server), DataKind::Generation).await;
    assert!(!g.is_empty());
    // Persistent outage: an error after the retries.
    let down = answering("POST", ResponseTemplate::new(502)).await;
    let e = client(&down).check_login().await.unwrap_err();
    assert!(
        matches!(
            e,
            FetchError::Unavailable {
                status: 502,
                attempts: 3,
                ..
            }
        ),
        "{e}"
    );
}

#[tokio::test]
async fn wrong_password_is_one_clear_error_and_stores_nothing() {
    let (replay, server) = platform().await;
    let c = client_with(&server, "not-the-password", 500);
    let e = c.check_login().await.unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("rejected the username or password"), "{msg}");
    assert!(msg.contains("GRIDPRINT_EPIAS_PASSWORD"), "{msg}");
    assert!(
        !msg.contains("not-the-password") && !msg.contains(USER),
        "{msg}"
    );

    // A backfill of TR with it: every request fails with that same error, nothing is stored, and the
    // platform saw a single login (no retry of bad credentials, which could lock the account).
    let store = store();
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let opts = tr_options(
        vec![DataKind::Generation, DataKind::Load, DataKind::Flows],
        Some(vec![tr()]),
    );
    let plan = backfill::plan(&*store, &reference.zones, &opts).unwrap();
    assert_eq!(
        plan.requests.len(),
        2,
        "generation and load; TR's flows are ENTSO-E's"
    );
    let fetcher = Fetcher {
        epias: Some(c),
        ..Fetcher::default()
    };
    let report = run_plan(&fetcher, &store, plan).await;
    assert_eq!(report.failed.len(), 2);
    assert!(
        report
            .failed
            .iter()
            .all(|f| f.to_string().contains("rejected the username or password"))
    );
    assert_eq!(report.points, 0);
    assert!(store.inputs_in_range(day()).unwrap().is_empty());
    assert_eq!(replay.logins(), 1);
    assert!(
        replay.pages().is_empty(),
        "no data request without a ticket"
    );
}

#[tokio::test]
async fn backfill_stores_tr_generation_and_load_and_resumes() {
    let (_, server) = platform().await;
    let store = store();
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let opts = tr_options(vec![DataKind::Generation, DataKind::Load], None);
    let fetcher = Fetcher {
        epias: Some(client(&server)),
        ..Fetcher::default()
    };
    assert!(fetcher.serves(Provider::Epias));
    let plan = backfill::plan(&*store, &reference.zones, &opts).unwrap();
    assert_eq!(plan.requests.len(), 2);
    let report = run_plan(&fetcher, &store, plan).await;
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    let stored = store.inputs_in_range(day()).unwrap();
    assert_eq!(stored.len(), report.points);
    assert!(
        stored
            .iter()
            .all(|s| s.point.datasource == "EPIAS" && s.point.key.zone() == &tr())
    );
    // Everything present: a rerun plans nothing.
    let again = backfill::plan(&*store, &reference.zones, &opts).unwrap();
    assert!(again.requests.is_empty(), "{:?}", again.requests);
}

#[tokio::test]
async fn health_probe_checks_the_data_service_and_the_login() {
    let up = answering("GET", ResponseTemplate::new(405)).await;
    let cfg = health_config(Duration::from_secs(30));
    let h =
        ProviderHealth::spawn_epias(&format!("{}/electricity-service", up.uri()), &up.uri(), cfg)
            .unwrap();
    assert_eq!(wait_known(&h).await, HealthState::Up);
    let paths: Vec<String> = up
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| r.url.path().to_string())
        .collect();
    assert!(
        paths.contains(&"/electricity-service".to_string()),
        "{paths:?}"
    );
    assert!(paths.contains(&"/cas/v1/tickets".to_string()), "{paths:?}");

    // The login service answering 503 makes EPIAS down even though the data service answers.
    let auth_down = answering("GET", ResponseTemplate::new(503)).await;
    let h = ProviderHealth::spawn_epias(
        &format!("{}/electricity-service", up.uri()),
        &auth_down.uri(),
        cfg,
    )
    .unwrap();
    assert_eq!(wait_known(&h).await, HealthState::Down);
    assert_eq!(h.report().detail.as_deref(), Some("HTTP 503"));
}

async fn wait_known(h: &ProviderHealth) -> HealthState {
    for _ in 0..200 {
        let s = h.state();
        if s != HealthState::Unknown {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("health never checked")
}

#[test]
fn the_zone_files_provider_wins_where_both_hold_tr_generation() {
    use gridprint_store::StoredInput;
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let tr_idx = reference.zones.index_of(&tr()).unwrap();
    assert_eq!(reference.zones.get(tr_idx).provider, Provider::Epias);
    let (s1, s2) = (slot("2025-07-28T00:00Z"), slot("2025-07-28T00:15Z"));
    let point = |pt: ProductionType, s: Slot, mw: f64, ds: &str| StoredInput {
        point: InputPoint {
            key: generation(pt),
            slot: s,
            mw,
            state: DataState::Official,
            datasource: ds.to_string(),
        },
        updated_at: 0,
    };
    let points = [
        // s1: both providers; ENTSO-E's hydro_pumped_storage and coal must not add to EPIAS's mix.
        point(ProductionType::Gas, s1, 100.0, DATASOURCE_EPIAS),
        point(ProductionType::Coal, s1, 50.0, "ENTSO-E"),
        point(ProductionType::HydroPumpedStorage, s1, 7.0, "ENTSO-E"),
        // An estimate of the zone is not another provider: it stays.
        point(
            ProductionType::Solar,
            s1,
            3.0,
            "wattnet-hybrid-estimation:gridprint-profile",
        ),
        // s2: ENTSO-E only: used, better than nothing.
        point(ProductionType::Coal, s2, 40.0, "ENTSO-E"),
    ];
    let range = SlotRange::new(s1, s2.offset(1));
    let points: Vec<&StoredInput> = points.iter().collect();
    let slots = gridprint_compute::gather_slot_inputs(&reference, range, &points);
    let g1 = slots[0].generation[tr_idx].unwrap();
    assert_eq!(g1[ProductionType::Gas.index()], 100.0);
    assert_eq!(
        g1[ProductionType::Coal.index()],
        0.0,
        "ENTSO-E gives way to EPIAS"
    );
    assert_eq!(g1[ProductionType::HydroPumpedStorage.index()], 0.0);
    assert_eq!(g1[ProductionType::Solar.index()], 3.0);
    let g2 = slots[1].generation[tr_idx].unwrap();
    assert_eq!(g2[ProductionType::Coal.index()], 40.0);
}

#[tokio::test]
async fn an_oversized_answer_is_refused_without_retrying() {
    let server = MockServer::start().await;
    Mock::given(path("/cas/v1/tickets"))
        .respond_with(
            ResponseTemplate::new(201).set_body_string(format!("TGT-{}", "x".repeat(200_000))),
        )
        .expect(1)
        .mount(&server)
        .await;
    let e = client(&server).check_login().await.unwrap_err();
    assert!(
        matches!(&e, FetchError::Malformed { message, .. } if message.contains("larger than")),
        "{e}"
    );
}
