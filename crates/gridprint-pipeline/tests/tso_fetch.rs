//! The TSOs' forecasts fetched from the loopback ENTSO-E and Elexon servers: the requests carry the
//! public APIs' parameters, the values are stored with their publication times apart from the
//! actual inputs, and the worker fetches and blends them.

mod common;

use common::{FORECAST_DIR, entsoe_client, slot, store, wind_solar_gas_history};
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{SlotRange, parse_timestamp};
use gridprint_core::tso_forecast::{PublicationDeadlines, TsoForecastKind, TsoForecastSeries};
use gridprint_core::zone::ZoneCode;
use gridprint_ingest::elexon::{ElexonClient, ElexonConfig};
use gridprint_ingest::fetch::Fetcher;
use gridprint_ingest::replay::{Replay, ReplayResponder};
use gridprint_ingest::request::ForecastData;
use gridprint_pipeline::tso_fetch;
use gridprint_pipeline::worker::{Worker, WorkerConfig};
use gridprint_store::SharedStore;
use std::collections::HashMap;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const ELEXON_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/fixtures/elexon");

fn reference() -> ReferenceData {
    ReferenceData::embedded(ZoneSet::Selected2026)
}

fn zone(s: &str) -> ZoneCode {
    ZoneCode::parse(s).unwrap()
}

fn unix(ts: &str) -> i64 {
    parse_timestamp(ts).unwrap().unix_timestamp()
}

/// A loopback Transparency Platform answering the built forecast documents.
async fn entsoe_server() -> MockServer {
    let mut replay = Replay::new(reference().zones.clone(), "test-token");
    for f in [
        "A69_A01_DK1_2023-03-25to26_PT60M.xml",
        "A69_A40_DK1_2023-03-25to26_PT60M.xml",
        "A65_A01_DK1_2023-10-28to29_PT60M.xml",
        "A71_A01_DK2_2023-04-17to18_PT60M.xml",
    ] {
        replay.add_file(format!("{FORECAST_DIR}/{f}")).unwrap();
    }
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api"))
        .respond_with(ReplayResponder(replay))
        .mount(&server)
        .await;
    server
}

/// Fetches `data` of `zones` over `from..to` into `store`; the query of every request sent.
async fn fetch(
    fetcher: &Fetcher,
    server: &MockServer,
    store: &SharedStore,
    data: ForecastData,
    zones: &[&str],
    from: &str,
    to: &str,
) -> Vec<HashMap<String, String>> {
    let before = server.received_requests().await.unwrap_or_default().len();
    let only: Vec<ZoneCode> = zones.iter().map(|z| zone(z)).collect();
    let requests = tso_fetch::requests(
        fetcher,
        &reference().zones,
        &[data],
        Some(&only),
        SlotRange::new(slot(from), slot(to)),
    );
    let report = tso_fetch::fetch_and_store(
        fetcher,
        store.clone(),
        requests,
        2,
        1,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(report.failed().count(), 0, "{:?}", report.answers);
    assert!(report.fetched > 0, "{data:?}: nothing fetched");
    server.received_requests().await.unwrap()[before..]
        .iter()
        .map(|r| r.url.query_pairs().into_owned().collect())
        .collect()
}

fn query(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain([("securityToken".to_string(), "test-token".to_string())])
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entsoe_forecasts_are_asked_for_and_stored_with_their_publication_time() {
    let server = entsoe_server().await;
    let fetcher = Fetcher {
        entsoe: Some(entsoe_client(&server)),
        ..Fetcher::default()
    };
    let store = store();
    let asked = fetch(
        &fetcher,
        &server,
        &store,
        ForecastData::WindSolarDayAhead,
        &["DK1"],
        "2023-03-25T00:00Z",
        "2023-03-27T00:00Z",
    )
    .await;
    assert_eq!(
        asked,
        vec![query(&[
            ("documentType", "A69"),
            ("processType", "A01"),
            ("in_Domain", "10YDK-1--------W"),
            ("periodStart", "202303250000"),
            ("periodEnd", "202303270000"),
        ])]
    );
    let asked = fetch(
        &fetcher,
        &server,
        &store,
        ForecastData::WindSolarIntraday,
        &["DK1"],
        "2023-03-25T00:00Z",
        "2023-03-27T00:00Z",
    )
    .await;
    assert_eq!(asked[0]["processType"], "A40");
    let asked = fetch(
        &fetcher,
        &server,
        &store,
        ForecastData::LoadDayAhead,
        &["DK1"],
        "2023-10-28T00:00Z",
        "2023-10-30T00:00Z",
    )
    .await;
    assert_eq!(
        asked,
        vec![query(&[
            ("documentType", "A65"),
            ("processType", "A01"),
            ("outBiddingZone_Domain", "10YDK-1--------W"),
            ("periodStart", "202310280000"),
            ("periodEnd", "202310300000"),
        ])]
    );
    let asked = fetch(
        &fetcher,
        &server,
        &store,
        ForecastData::ScheduledGeneration,
        &["DK2"],
        "2023-04-17T00:00Z",
        "2023-04-19T00:00Z",
    )
    .await;
    assert_eq!(asked[0]["documentType"], "A71");
    assert_eq!(asked[0]["in_Domain"], "10YDK-2--------M");

    // Apart from the actual inputs, each value dated by the rule of the CSV import or, when
    // earlier, by the document's creation (noon on the second day).
    let everything = SlotRange::new(slot("2023-01-01T00:00Z"), slot("2024-01-01T00:00Z"));
    assert!(store.inputs_in_range(everything).unwrap().is_empty());
    let stored = store.tso_forecasts_in_range(everything, i64::MAX).unwrap();
    // Wind and solar day-ahead 48 h and intraday 32 h, load 48 h, scheduled generation 24 h.
    assert_eq!(stored.len(), 3 * 48 * 4 + 3 * 32 * 4 + 48 * 4 + 24 * 4);
    let deadlines = PublicationDeadlines::REGULATION;
    for s in &stored {
        let f = &s.forecast;
        let deadline = f
            .point
            .publication_time(&deadlines)
            .unwrap()
            .unix_timestamp();
        let created = match f.point.series {
            TsoForecastSeries::ScheduledGeneration { .. } => unix("2023-04-18T12:00Z"),
            TsoForecastSeries::Load { .. } => unix("2023-10-29T12:00Z"),
            _ => unix("2023-03-26T12:00Z"),
        };
        assert_eq!(f.published_at, deadline.min(created), "{f:?}");
    }
    let at = |ts: &str, kind| {
        stored
            .iter()
            .find(|s| {
                s.forecast.point.slot == slot(ts)
                    && s.forecast.point.kind == kind
                    && s.forecast.point.series
                        == TsoForecastSeries::Generation {
                            zone: zone("DK1"),
                            production_type:
                                gridprint_core::production::ProductionType::WindOnshore,
                        }
            })
            .map(|s| s.forecast.published_at)
    };
    // Day-ahead for 26 March by 18:00 Brussels (CET) the day before; intraday by 08:00 CEST on it.
    assert_eq!(
        at("2023-03-26T12:00Z", TsoForecastKind::DayAhead),
        Some(unix("2023-03-25T17:00Z"))
    );
    assert_eq!(
        at("2023-03-26T12:00Z", TsoForecastKind::Intraday),
        Some(unix("2023-03-26T06:00Z"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elexon_windfor_and_ndf_are_asked_by_publication_time() {
    let server = MockServer::start().await;
    for dataset in ["WINDFOR", "NDF"] {
        let body = std::fs::read(format!("{ELEXON_DIR}/{dataset}_2024-09-02.json")).unwrap();
        Mock::given(method("GET"))
            .and(path(format!("/bmrs/api/v1/datasets/{dataset}")))
            .respond_with(ResponseTemplate::new(200).set_body_raw(body, "application/json"))
            .mount(&server)
            .await;
    }
    let fetcher = Fetcher {
        elexon: Some(
            ElexonClient::new(ElexonConfig {
                base_url: format!("{}/bmrs/api/v1", server.uri()),
                ..ElexonConfig::default()
            })
            .unwrap(),
        ),
        ..Fetcher::default()
    };
    let store = store();
    let day = ("2024-09-02T00:00Z", "2024-09-03T00:00Z");
    for data in [ForecastData::WindSolarDayAhead, ForecastData::LoadDayAhead] {
        let asked = fetch(&fetcher, &server, &store, data, &["GB"], day.0, day.1).await;
        let mut windows: Vec<(String, String)> = asked
            .iter()
            .map(|q| {
                (
                    q["publishDateTimeFrom"].clone(),
                    q["publishDateTimeTo"].clone(),
                )
            })
            .collect();
        windows.sort();
        assert_eq!(
            windows,
            vec![
                ("2024-09-01T00:00:00Z".into(), "2024-09-02T00:00:00Z".into()),
                ("2024-09-02T00:00:00Z".into(), "2024-09-03T00:00:00Z".into()),
            ],
            "{data:?}"
        );
    }
    let stored = store
        .tso_forecasts_in_range(SlotRange::new(slot(day.0), slot(day.1)), i64::MAX)
        .unwrap();
    assert_eq!(stored.len(), 2 * 96);
    let windfor = |ts: &str| {
        stored
            .iter()
            .find(|s| {
                s.forecast.point.slot == slot(ts)
                    && matches!(
                        s.forecast.point.series,
                        TsoForecastSeries::Generation { .. }
                    )
            })
            .map(|s| s.forecast.published_at)
            .unwrap()
    };
    // The latest publication before each hour: 10:00 the day before, 03:00 from 04:00 on, noon
    // from 13:00 on.
    assert_eq!(windfor("2024-09-02T03:45Z"), unix("2024-09-01T10:00Z"));
    assert_eq!(windfor("2024-09-02T04:00Z"), unix("2024-09-02T03:00Z"));
    assert_eq!(windfor("2024-09-02T12:45Z"), unix("2024-09-02T03:00Z"));
    assert_eq!(windfor("2024-09-02T13:00Z"), unix("2024-09-02T12:00Z"));
    let ndf: Vec<_> = stored
        .iter()
        .filter(|s| s.forecast.point.series == TsoForecastSeries::Load { zone: zone("GB") })
        .collect();
    assert_eq!(ndf.len(), 96);
    assert!(ndf.iter().all(|s| s.forecast.published_at
        == if s.forecast.point.slot < slot("2024-09-02T10:00Z") {
            unix("2024-09-01T09:30Z")
        } else {
            unix("2024-09-02T09:30Z")
        }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_fetches_the_forecasts_of_its_zones_and_blends_them() {
    let server = entsoe_server().await;
    let store = store();
    let now = "2023-03-25T12:07:00Z";
    store
        .upsert_inputs(
            &wind_solar_gas_history(&zone("DK1"), slot(now).offset(-4)),
            1,
        )
        .unwrap();
    let worker = Worker::new(
        store.clone(),
        Arc::new(reference()),
        Fetcher {
            entsoe: Some(entsoe_client(&server)),
            ..Fetcher::default()
        },
        WorkerConfig {
            zones: Some(vec![zone("DK1")]),
            archive_days: 0,
            ..WorkerConfig::default()
        },
    );
    let report = worker
        .run_cycle(parse_timestamp(now).unwrap())
        .await
        .unwrap();
    let asked: Vec<HashMap<String, String>> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| r.url.query_pairs().into_owned().collect())
        .collect();
    let forecasts: Vec<(&str, &str)> = asked
        .iter()
        .filter(|q| q.get("processType").is_some_and(|p| p != "A16"))
        .map(|q| (q["documentType"].as_str(), q["periodEnd"].as_str()))
        .collect();
    assert_eq!(forecasts.len(), 4, "{forecasts:?}");
    assert!(forecasts.iter().all(|(_, end)| *end == "202303271200"));
    // From the current slot on: day-ahead 12 h of the 25th and the 26th, intraday 11 h and 16 h.
    assert_eq!(report.tso_fetched, 3 * (12 + 24) * 4 + 3 * (11 + 16) * 4);
    assert!(report.tso_blended > 0, "{report}");
    assert!(
        report.to_string().contains("TSO forecast values fetched"),
        "{report}"
    );
}
