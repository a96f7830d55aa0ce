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
