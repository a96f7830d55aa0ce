//! What the pipeline's integration tests share: slots from timestamps, an empty in-memory store, a
//! loopback server that gives one answer to every request, and the health-probe settings. Each test
//! file includes it with `mod common;`; not every file uses every item.

#![allow(dead_code)]

use gridprint_core::slot::{Slot, parse_timestamp};
use gridprint_ingest::health::HealthConfig;
use gridprint_store::SharedStore;
use std::sync::Arc;
use std::time::Duration;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Respond};

/// The slot holding the timestamp `ts`.
pub fn slot(ts: &str) -> Slot {
    Slot::containing(parse_timestamp(ts).unwrap())
}

/// An empty SQLite store in memory.
pub fn store() -> SharedStore {
    Arc::new(gridprint_store_sqlite::SqliteStore::open_in_memory().unwrap())
}

/// A loopback server answering every `http_method` request (any path) with `answer`.
pub async fn answering(http_method: &str, answer: impl Respond + 'static) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method(http_method))
        .respond_with(answer)
        .mount(&server)
        .await;
    server
}

/// Health probes every `interval`, each waiting at most 2 s.
pub fn health_config(interval: Duration) -> HealthConfig {
    HealthConfig {
        interval,
        timeout: Duration::from_secs(2),
    }
}

/// Ten days of generation of `zone` up to the slot `end`: onshore wind that varies, solar by day,
/// gas steady (official, ENTSO-E).
pub fn wind_solar_gas_history(
    zone: &gridprint_core::zone::ZoneCode,
    end: Slot,
) -> Vec<gridprint_core::inputs::InputPoint> {
    use gridprint_core::inputs::{InputKey, InputPoint};
    use gridprint_core::production::ProductionType;
    use gridprint_core::quality::DataState;
    let mut out = Vec::new();
    for i in end.0 - 10 * 96..end.0 {
        let tod = (i % 96) as f64 / 96.0;
        for (t, mw) in [
            (
                ProductionType::WindOnshore,
                1500.0 + 800.0 * ((i as f64) / 37.0).sin(),
            ),
            (
                ProductionType::Solar,
                (600.0 * (std::f64::consts::PI * (tod - 0.25) / 0.5).sin()).max(0.0),
            ),
            (ProductionType::Gas, 300.0 + (i % 7) as f64),
        ] {
            out.push(InputPoint {
                key: InputKey::Generation {
                    zone: zone.clone(),
                    production_type: t,
                },
                slot: Slot(i),
                mw,
                state: DataState::Official,
                datasource: "ENTSO-E".into(),
            });
        }
    }
    out
}

/// The folder of the TSO forecast documents built for the API (`data/fixtures/entsoe-api-forecasts`).
pub const FORECAST_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/fixtures/entsoe-api-forecasts"
);

/// An ENTSO-E client of the loopback `server` (path `/api`, token `test-token`), retrying fast.
pub fn entsoe_client(server: &MockServer) -> gridprint_ingest::entsoe_api::EntsoeClient {
    use gridprint_ingest::entsoe_api::{EntsoeClient, EntsoeConfig, EntsoeToken};
    let zones = gridprint_core::reference::ReferenceData::embedded(
        gridprint_core::reference::ZoneSet::Selected2026,
    )
    .zones;
    EntsoeClient::new(
        EntsoeConfig {
            base_url: format!("{}/api", server.uri()),
            token: EntsoeToken::new("test-token"),
            retry: gridprint_ingest::http::FetchRetry {
                max_retries: 1,
                min_delay: Duration::from_millis(10),
                max_delay: Duration::from_millis(20),
                max_retry_after: Duration::from_secs(1),
                timeout: Duration::from_secs(2),
            },
            requests_per_minute: 60_000,
        },
        Arc::new(zones),
    )
    .unwrap()
}
