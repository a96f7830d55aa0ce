//! A TSO forecast missing over several worker cycles is logged once when the fallback to the model
//! starts and once when it ends, not once per cycle or slot. Its own test binary: it installs the
//! process's log subscriber to count the lines.

mod common;

use common::{FORECAST_DIR, entsoe_client, slot, store, wind_solar_gas_history};
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::parse_timestamp;
use gridprint_core::zone::ZoneCode;
use gridprint_ingest::fetch::Fetcher;
use gridprint_ingest::replay::{NO_MATCHING_DATA, Replay, ReplayResponder};
use gridprint_pipeline::worker::{Worker, WorkerConfig};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// Answers "no matching data" until `published` is set, then from the replay.
struct Publishing {
    published: Arc<AtomicBool>,
    replay: ReplayResponder,
}

impl Respond for Publishing {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        if self.published.load(Ordering::SeqCst) {
            self.replay.respond(req)
        } else {
            ResponseTemplate::new(200).set_body_raw(NO_MATCHING_DATA, "application/xml")
        }
    }
}

/// The log lines written, shared with the subscriber.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Lines {
    /// Lines holding every one of `parts`.
    fn count(&self, parts: &[&str]) -> usize {
        String::from_utf8_lossy(&self.0.lock().unwrap())
            .lines()
            .filter(|l| parts.iter().all(|p| l.contains(p)))
            .count()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_tso_forecast_is_logged_when_the_fallback_starts_and_ends() {
    let lines = Lines::default();
    let writer = lines.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();

    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let mut replay = Replay::new(reference.zones.clone(), "test-token");
    replay
        .add_file(format!(
            "{FORECAST_DIR}/A69_A01_DK1_2023-03-25to26_PT60M.xml"
        ))
        .unwrap();
    let published = Arc::new(AtomicBool::new(false));
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api"))
        .respond_with(Publishing {
            published: published.clone(),
            replay: ReplayResponder(replay),
        })
        .mount(&server)
        .await;

    let dk1 = ZoneCode::parse("DK1").unwrap();
    let start = "2023-03-25T12:07:00Z";
    let store = store();
    store
        .upsert_inputs(&wind_solar_gas_history(&dk1, slot(start).offset(-4)), 1)
        .unwrap();
    let worker = Worker::new(
        store,
        Arc::new(reference),
        Fetcher {
            entsoe: Some(entsoe_client(&server)),
            ..Fetcher::default()
        },
        WorkerConfig {
            zones: Some(vec![dk1]),
            archive_days: 0,
            ..WorkerConfig::default()
        },
    );
    // Three cycles without the day-ahead wind and solar, then three with it.
    for cycle in 0..6 {
        published.store(cycle >= 3, Ordering::SeqCst);
        let now = parse_timestamp(start).unwrap() + Duration::minutes(15 * cycle);
        worker.run_cycle(now).await.unwrap();
    }
    let wind_solar = "ENTSO-E A69/A01 DK1";
    assert_eq!(lines.count(&["no TSO forecast fetched", wind_solar]), 1);
    assert_eq!(lines.count(&["TSO forecast fetched again", wind_solar]), 1);
    // The day-ahead load is never published here: one line for six cycles, none that it is back.
    let load = "ENTSO-E A65/A01 DK1";
    assert_eq!(lines.count(&["no TSO forecast fetched", load]), 1);
    assert_eq!(lines.count(&["TSO forecast fetched again", load]), 0);
    assert_eq!(
        lines.count(&["no TSO forecast fetched"]),
        4,
        "one per forecast asked"
    );
}
