//! `serve --demo` on a fresh database answers for "now" (docs/usage.md, "What the demo holds"): the bundled documents
//! replayed onto the last days up to an hour ago, then the worker's estimates and 96-hour forecast,
//! marked as a replay in the start-up lines, `/v1/status` and the dashboard's meta. The replay and
//! its quarter-hourly steps are gridprint_pipeline::demo (its tests: crates/gridprint-pipeline/
//! tests/demo.rs); the serve side is `src/cmd/demo.rs`.

mod common;

use common::{bin, ok_on, stderr_lines};
use gridprint_core::slot::{Slot, format_timestamp, parse_timestamp};
use std::process::{Child, Stdio};
use std::time::Duration;
use time::OffsetDateTime;

/// A server process that is killed when dropped (a failed assertion leaves no server running).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn floor15(t: OffsetDateTime) -> String {
    format_timestamp(Slot::containing(t).start())
}

/// Starts `serve --demo` on `db` (providers not checked) with the default log level, as a user
/// sees it; the server, its stderr lines up to the start-up line, and the address it listens on.
fn start_serve_demo(db: &str) -> (Server, Vec<String>, String) {
    let child = bin()
        .env_remove("GRIDPRINT_LOG")
        .args([
            "--database",
            db,
            "serve",
            "--demo",
            "--listen",
            "127.0.0.1:0",
        ])
        .args(["--check-providers", "false"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut server = Server(child);
    let lines = stderr_lines(&mut server.0);
    let mut before = Vec::new();
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(300))
            .unwrap_or_else(|_| panic!("serve --demo did not start: {before:#?}"));
        if let Some(a) = common::listening_addr(&line) {
            let addr = a.to_string();
            return (server, before, addr);
        }
        before.push(line);
    }
}

/// Asserts that one of the start-up `lines` is `wanted`.
fn assert_a_line(lines: &[String], wanted: impl Fn(&str) -> bool) {
    assert!(lines.iter().any(|l| wanted(l)), "{lines:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_demo_answers_for_now_on_a_fresh_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("g.db").display());
    let (mut server, before, addr) = start_serve_demo(&db);
    // The start-up log, its last line included, stays short: the migrations in one line.
    assert!(
        before.len() + 1 < 25,
        "{} lines: {before:#?}",
        before.len() + 1
    );
    assert_eq!(
        before.iter().filter(|l| l.contains("migration")).count(),
        1,
        "{before:#?}"
    );
    assert_a_line(&before, |l| {
        l.starts_with("demo replay (not live data): provider data from ")
    });
    assert_a_line(&before, |l| {
        l.contains("recorded 2022-11-28/2022-12-11 replayed every 2 weeks (same weekday): generation of BE")
    });
    assert_a_line(&before, |l| {
        l.contains("recorded 2024-06-15 replayed every day: generation of DE")
    });

    ok_on(&db, &["access", "grant", "demo@example.org"]);
    let created = ok_on(&db, &["access", "key", "create", "demo@example.org"]);
    let key = created
        .lines()
        .map(str::trim)
        .find(|l| l.len() >= 32 && l.chars().all(|c| c.is_ascii_alphanumeric()))
        .unwrap_or_else(|| panic!("no key in {created}"))
        .to_string();
    let http = gridprint_ingest::http::http_client(Duration::from_secs(30)).unwrap();
    let base = format!("http://{addr}");

    // /v1/status says it is a replay, with provider data up to about an hour ago.
    let status = common::get_json(&http, format!("{base}/v1/status")).await;
    let demo = &status["demo"];
    assert_eq!(demo["mode"], "replay", "{status}");
    assert!(
        demo["note"]
            .as_str()
            .unwrap()
            .starts_with("Demo: recorded provider data of 2017-02-01"),
        "{status}"
    );
    let until = parse_timestamp(demo["provider_data_until"].as_str().unwrap()).unwrap();
    let lag = OffsetDateTime::now_utc() - until;
    assert!(
        lag >= time::Duration::minutes(60) && lag < time::Duration::minutes(80),
        "provider data until {until}, {lag} ago"
    );
    let meta = common::get_json(&http, format!("{base}/dashboard/api/meta")).await;
    assert_eq!(meta["demo"]["note"], demo["note"], "{meta}");

    // /v1/availability: a forecast 96 h ahead for the replayed zones.
    let availability =
        common::get_json_with(&http, format!("{base}/v1/availability?zone=DE,FR,NL"), &key).await;
    for item in availability.as_array().unwrap() {
        let end = item["forecast_end"]
            .as_str()
            .unwrap_or_else(|| panic!("no forecast: {item}"));
        let ahead = parse_timestamp(end).unwrap() - OffsetDateTime::now_utc();
        assert!(ahead > time::Duration::hours(95), "{item}");
    }

    // Electricity Maps' latest, with the key as `auth-token`: the current slot.
    let asked = OffsetDateTime::now_utc();
    let r = http
        .get(format!("{base}/v3/carbon-intensity/latest?zone=DE"))
        .header("auth-token", &key)
        .send()
        .await
        .unwrap();
    let answered = OffsetDateTime::now_utc();
    assert_eq!(r.status(), 200);
    let latest: serde_json::Value = r.json().await.unwrap();
    let slot = latest["datetime"].as_str().unwrap().to_string();
    assert!(
        slot == floor15(asked) || slot == floor15(answered),
        "{latest}"
    );
    assert!(
        latest["carbonIntensity"].as_f64().unwrap() > 0.0,
        "{latest}"
    );
    assert_eq!(latest["zone"], "DE");

    // Electricity Maps clients that ask for provider data only get the last day of the zones whose
    // borders are all recorded.
    for zone in ["CZ", "EE", "ES", "LV", "PT", "SK"] {
        let r = http
            .get(format!(
                "{base}/v3/carbon-intensity/history?zone={zone}&disableEstimations=true"
            ))
            .header("auth-token", &key)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{zone}");
        let history: serde_json::Value = r.json().await.unwrap();
        let points = history["history"].as_array().unwrap();
        assert!(points.len() >= 12, "{zone}: {history}");
        assert!(
            points.iter().all(|p| p["isEstimated"] == false),
            "{zone}: {history}"
        );
    }

    // The dashboard opens at now: on the last quarter of provider data, an hour or so ago.
    let opening = parse_timestamp(meta["opening_slot"].as_str().unwrap()).unwrap();
    assert!(
        opening == Slot::containing(until).offset(-1).start()
            || opening == Slot::containing(until).start(),
        "{meta}"
    );

    // /v1 for the current slot, as CATS and the dashboard's "Now" read it.
    let now_url = format!("{base}/v1/footprints?zone=DE&footprint_type=carbon");
    let now = common::get_json_with(&http, now_url, &key).await;
    let values = &now[0]["series"][0]["values"];
    assert_eq!(values.as_array().map(Vec::len), Some(1), "{now}");

    let status = std::process::Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(server.0.wait().unwrap().success());
}

/// `import --demo` replays too (then a plain `serve` of that database answers for now, unmarked),
/// and a second `serve --demo` on it keeps replaying without importing again.
#[test]
fn import_demo_replays_and_serve_demo_continues_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("g.db").display());
    let out = ok_on(&db, &["import", "--demo"]);
    assert!(
        out.contains("demo replay (not live data): provider data from "),
        "{out}"
    );
    let (server, before, _) = start_serve_demo(&db);
    assert!(
        !before.iter().any(|l| l.contains("imported 15 files")),
        "not imported again: {before:#?}"
    );
    assert_a_line(&before, |l| l.starts_with("demo replay (not live data)"));
    drop(server);
}
