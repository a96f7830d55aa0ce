//! A quiet offline start: `serve --demo` with every provider URL at a dead loopback
//! port, as on a machine without internet, logs no warning: providers without credentials are not
//! configured (never contacted, `unknown` in `/v1/status`). A configured provider that cannot be
//! reached is logged once, when its state changes. The serve side is `src/cmd/serve.rs`
//! (`provider_checks`); the health checker is gridprint_ingest::health.

mod common;

use common::{bin, listening_addr, stderr_lines};
use std::process::{Child, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

/// A loopback URL where nothing listens (a port bound and released).
fn dead_url(path: &str) -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("http://127.0.0.1:{port}{path}")
}

/// `serve --demo` on a fresh SQLite database, logging at `info`, every provider URL dead, with the
/// extra environment `env`; the child, its stderr lines up to the start-up line and after it, and
/// the address it listens on.
fn serve_demo(
    db: &std::path::Path,
    env: &[(&str, &str)],
) -> (Child, Vec<String>, Receiver<String>, String) {
    let mut cmd = bin();
    cmd.env("GRIDPRINT_LOG", "info");
    for var in [
        "GRIDPRINT_ENTSOE_TOKEN",
        "GRIDPRINT_EPIAS_USERNAME",
        "GRIDPRINT_EPIAS_PASSWORD",
        "GRIDPRINT_CHECK_PROVIDERS",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .arg("--database")
        .arg(format!("sqlite://{}", db.display()))
        .args(["serve", "--demo", "--listen", "127.0.0.1:0"])
        .args(["--entsoe-url", &dead_url("/api")])
        .args(["--elexon-url", &dead_url("/bmrs/api/v1")])
        .args(["--epias-url", &dead_url("/electricity-service")])
        .args(["--epias-auth-url", &dead_url("")])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = stderr_lines(&mut child);
    let mut before = Vec::new();
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(300))
            .unwrap_or_else(|_| panic!("serve --demo did not start: {before:#?}"));
        if let Some(addr) = listening_addr(&line) {
            let addr = addr.to_string();
            return (child, before, lines, addr);
        }
        before.push(line);
    }
}

/// Stops `child` with SIGTERM and returns every line it wrote: `before` then the rest.
fn stop(mut child: Child, before: Vec<String>, lines: Receiver<String>) -> Vec<String> {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert!(exit.success(), "serve exited with {exit:?}");
    before.into_iter().chain(lines.iter()).collect()
}

async fn status(addr: &str) -> serde_json::Value {
    let http = gridprint_ingest::http::http_client(Duration::from_secs(5)).unwrap();
    common::get_json(&http, format!("http://{addr}/v1/status")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_demo_start_logs_no_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (child, before, lines, addr) = serve_demo(&dir.path().join("g.db"), &[]);
    let s = status(&addr).await;
    assert_eq!(s["storage"], "up", "{s}");
    for p in ["entso-e", "elexon", "epias"] {
        assert_eq!(s[p], "unknown", "{p}: {s}");
    }
    let log = stop(child, before, lines);
    let warnings: Vec<&String> = log
        .iter()
        .filter(|l| l.contains("WARN") || l.contains("ERROR"))
        .collect();
    assert!(warnings.is_empty(), "warnings: {warnings:#?}");
    assert!(
        log.iter().any(|l| l.contains("providers not configured")),
        "{log:#?}"
    );
    // No access log unless asked (issue #31): the status requests above wrote no line.
    assert!(
        !log.iter().any(|l| l.contains("path=/v1/status")),
        "{log:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_access_log_is_opt_in_and_goes_to_its_own_file_without_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let access = dir.path().join("access.log");
    let (child, before, lines, addr) = serve_demo(
        &dir.path().join("g.db"),
        &[("GRIDPRINT_ACCESS_LOG", access.to_str().unwrap())],
    );
    let http = gridprint_ingest::http::http_client(Duration::from_secs(5)).unwrap();
    status(&addr).await;
    let r = http
        .get(format!("http://{addr}/v1/zones?password=hunter2hunter2"))
        .header("Authorization", "Bearer 0123456789abcdef")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let log = stop(child, before, lines);
    assert!(
        !log.iter().any(|l| l.contains("path=/v1/")),
        "no request line on stderr: {log:#?}"
    );
    let written = std::fs::read_to_string(&access).unwrap();
    let requests: Vec<&str> = written.lines().collect();
    assert_eq!(requests.len(), 2, "{written}");
    assert!(
        requests[0].contains("path=/v1/status") && requests[0].contains("status=200"),
        "{written}"
    );
    assert!(
        requests[1].contains("path=/v1/zones") && requests[1].contains("status=401"),
        "{written}"
    );
    assert!(
        requests
            .iter()
            .all(|l| l.contains("latency_us=") && l.contains("request_id="))
    );
    // A file gets no colours; no query string or header reaches it.
    assert!(!written.contains('\x1b'), "{written}");
    assert!(
        !written.contains("hunter2") && !written.contains("0123456789abcdef"),
        "{written}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_provider_that_is_unreachable_is_logged_once() {
    let dir = tempfile::tempdir().unwrap();
    let (child, before, lines, addr) = serve_demo(
        &dir.path().join("g.db"),
        &[("GRIDPRINT_ENTSOE_TOKEN", "not-a-real-token")],
    );
    // The first check runs at start; a refused loopback connection fails at once. The status is
    // read until it reports that check (bounded: the check's own timeout is 10 s).
    let mut s = status(&addr).await;
    for _ in 0..150 {
        if s["entso-e"] != "unknown" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        s = status(&addr).await;
    }
    assert_eq!(s["entso-e"], "down", "{s}");
    assert_eq!(s["elexon"], "unknown", "{s}");
    assert_eq!(s["epias"], "unknown", "{s}");
    let log = stop(child, before, lines);
    let down: Vec<&String> = log
        .iter()
        .filter(|l| l.contains("provider is down"))
        .collect();
    assert_eq!(down.len(), 1, "{log:#?}");
    assert!(down[0].contains("entso-e"), "{down:?}");
    assert!(!down[0].contains("not-a-real-token"), "{down:?}");
}
