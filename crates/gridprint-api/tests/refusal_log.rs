//! Refusals in the log: many answers refused for the response-memory budget write no ERROR line and
//! at most one summary line per interval, whose counts add up to the refusals (never a line per
//! refused request). One test in its own binary, because it captures the
//! process's whole log.

use gridprint_api::testing::MutableClock;
use gridprint_api::{ApiConfig, AppState};
use gridprint_store::{SharedStore, TokenRecord};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use time::macros::datetime;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod common;
use common::*;

/// The log written so far.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One real day (NL, 2024-09-02) imported and computed, and the valid token.
fn store() -> SharedStore {
    let r = reference();
    let store: SharedStore =
        Arc::new(gridprint_store_sqlite::SqliteStore::open_in_memory().unwrap());
    gridprint_pipeline::testing::import_fixtures(
        &*store,
        &r,
        &[
            "entsoe-api/A75_NL_2024-09-02_PT15M_A03.xml",
            "entsoe-api/A65_A16_NL_2024-09-02_PT15M_A03.xml",
        ],
        1,
        Some(datetime!(2026-01-01 00:00:00 UTC)),
    );
    let now = NOW.unix_timestamp();
    store.grant(EMAIL, None, now).unwrap();
    store
        .register(EMAIL, "$argon2id$not-a-real-hash", now)
        .unwrap();
    store
        .insert_token(&TokenRecord {
            token_hash: gridprint_api::tokens::auth::token_hash(TOKEN),
            email: EMAIL.into(),
            issued_at: now,
            expires_at: now + 86_400,
        })
        .unwrap();
    store
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budget_refusals_are_counted_and_summarised_not_logged_one_by_one() {
    const REFUSED: usize = 40;
    const INTERVAL: Duration = Duration::from_secs(1);
    let log = Captured::default();
    let writer = log.clone();
    tracing::subscriber::set_global_default(
        tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .with_writer(move || writer.clone())
            .finish(),
    )
    .unwrap();
    let state = AppState::builder(
        store(),
        reference(),
        Arc::new(MutableClock::new(NOW)),
        ApiConfig {
            response_memory_bytes: 1 << 20,
            refusal_log_interval: INTERVAL,
            ..quiet_config()
        },
    )
    .build()
    .unwrap();
    gridprint_api::refresh::load(&state).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(gridprint_api::serve(listener, state, async {
        let _ = stopped.await;
    }));
    let started = Instant::now();
    let request = format!(
        "GET /v1/factors?start=2024-08-01T00:00Z&end=2024-08-21T00:00Z&format=csv HTTP/1.1\r\n\
         Host: x\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
    );
    for _ in 0..REFUSED {
        let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
        c.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        c.read_to_end(&mut answer).await.unwrap();
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    }
    // The summary of the last interval is written at the next tick, the rest when the server stops.
    tokio::time::sleep(INTERVAL * 2).await;
    let _ = stop.send(());
    server.await.unwrap().unwrap();
    let elapsed = started.elapsed();
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    assert!(!text.contains("ERROR"), "{text}");
    let summaries: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("kind=\"response_memory\""))
        .collect();
    let counted: usize = summaries
        .iter()
        .map(|l| {
            let n = l.split("refused=").nth(1).unwrap();
            n.split_whitespace()
                .next()
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(counted, REFUSED, "{text}");
    let intervals = elapsed.as_secs_f64() / INTERVAL.as_secs_f64();
    assert!(
        summaries.len() as f64 <= intervals.ceil() + 1.0,
        "{} summary lines in {elapsed:?}: {text}",
        summaries.len()
    );
    assert!(
        summaries[0].contains("WARN")
            && summaries[0].contains("in the last 1 s: response-memory budget (503)"),
        "{}",
        summaries[0]
    );
}
