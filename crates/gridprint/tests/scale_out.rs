//! Scale-out on PostgreSQL with real processes: two `serve` replicas, two `worker`s, Redis for the
//! shared rate limit, an ENTSO-E stand-in replaying the real NL 2024-09-02 document.
//!
//! Checks: a token from replica A works on B; data computed by the worker appears on both replicas;
//! requests of one token split over both replicas are limited at the configured total rate (± 10 %);
//! killing the active worker (SIGKILL) makes the standby take over and run the next cycle within 30 s;
//! an account tier set with `gridprint access set-limit` is applied on both replicas within 60 s, and
//! two tokens of the account (one from each replica) share that one budget across both; the
//! brute-force guard counts across replicas (10 failures for one email from one address, split
//! over A and B, lock that pair on both); a revocation stops the token on both replicas within 60 s. Needs PostgreSQL and Redis
//! (throwaway servers are started when none answers at the configured URLs); it fails, never skips,
//! without them.

use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_ingest::replay::{Replay, ReplayResponder};
use gridprint_store_postgres::testing::TestDb;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};
use wiremock::{Mock, MockServer, matchers::method};

mod common;
use common::*;

const TOKEN: &str = "scale-out-test-token";
const RATE: f64 = 10.0;
const BURST: u32 = 10;

/// A child process whose stderr lines arrive on a channel; killed on drop.
struct Proc {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Proc {
    fn spawn(args: &[&str], envs: &[(&str, String)]) -> Proc {
        let mut cmd = bin();
        cmd.args(args)
            .env("GRIDPRINT_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let lines = stderr_lines(&mut child);
        Proc {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits for a stderr line containing `needle`, returning it.
    fn wait_for(&mut self, needle: &str, timeout: Duration) -> Option<String> {
        tokio::task::block_in_place(|| self.wait_for_blocking(needle, timeout))
    }

    fn wait_for_blocking(&mut self, needle: &str, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(line) = self.lines.recv_timeout(Duration::from_millis(100)) {
                self.seen.push(line.clone());
                if line.contains(needle) {
                    return Some(line);
                }
            }
        }
        None
    }

    fn log(&mut self) -> String {
        while let Ok(l) = self.lines.try_recv() {
            self.seen.push(l);
        }
        self.seen.join("\n")
    }

    /// Sends SIGTERM and waits (at most `timeout`) for the exit status.
    fn sigterm(&mut self, timeout: Duration) -> std::process::ExitStatus {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                return st;
            }
            assert!(Instant::now() < deadline, "no exit: {}", self.log());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Issue #28 item 8: `serve` and `worker` on PostgreSQL exit 0 at SIGTERM (they panicked, exit 101,
/// when the pool's connections or the leader lease were dropped on a thread running the runtime).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_and_worker_on_postgres_exit_0_at_sigterm() {
    let db = tokio::task::block_in_place(|| TestDb::new("sigterm"));
    let url = db.url.clone();
    cli(&url, &["migrate"]);
    let mut serve = Proc::spawn(
        &[
            "--database",
            &url,
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--check-providers",
            "false",
        ],
        &[],
    );
    let base = base_url(
        &serve
            .wait_for("listening on", Duration::from_secs(60))
            .unwrap_or_else(|| panic!("serve: {}", serve.log())),
    );
    // A request that takes a pooled connection (unknown email: 401).
    let http = gridprint_ingest::http::http_client(Duration::from_secs(30)).unwrap();
    let creds = serde_json::json!({"email": "x@example.org", "password": "not the password"});
    let r = post(&http, format!("{base}/token-request/get_token"), &creds).await;
    assert_eq!(r.status(), 401);
    let mut worker = Proc::spawn(
        &[
            "--database",
            &url,
            "worker",
            "--interval",
            "3s",
            "--zones",
            "NL",
            "--no-entsoe",
            "--no-elexon",
            "--no-epias",
            "--now",
            "2024-09-02T23:00Z",
        ],
        &[],
    );
    // The worker holds the leader lease (a dedicated connection) once it ran a cycle, and has
    // checked it from its async loop before the second.
    for n in ["first", "second"] {
        worker
            .wait_for("cycle ", Duration::from_secs(60))
            .unwrap_or_else(|| panic!("worker ran no {n} cycle: {}", worker.log()));
    }
    let st = tokio::task::block_in_place(|| serve.sigterm(Duration::from_secs(60)));
    assert_eq!(st.code(), Some(0), "serve: {}", serve.log());
    let st = tokio::task::block_in_place(|| worker.sigterm(Duration::from_secs(60)));
    assert_eq!(st.code(), Some(0), "worker: {}", worker.log());
    assert!(!serve.log().contains("panicked") && !worker.log().contains("panicked"));
}

fn base_url(line: &str) -> String {
    let addr = listening_addr(line).expect("listening line names the address");
    format!("http://{addr}")
}

/// Runs the binary against `db`; its standard output.
fn cli(db: &str, args: &[&str]) -> String {
    tokio::task::block_in_place(|| cli_blocking(db, args))
}

fn cli_blocking(db: &str, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_gridprint"))
        .args(["--database", db])
        .args(args)
        .env_remove("GRIDPRINT_DATABASE_URL")
        .output();
    let out = succeeded(out.unwrap(), format_args!("{args:?}"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Posts `body` as JSON to `url`.
async fn post(http: &reqwest::Client, url: String, body: &serde_json::Value) -> reqwest::Response {
    http.post(url).json(body).send().await.unwrap()
}

/// A token for `creds` from the replica at `base`.
async fn get_token(http: &reqwest::Client, base: &str, creds: &serde_json::Value) -> String {
    let r = post(http, format!("{base}/token-request/get_token"), creds).await;
    assert_eq!(r.status(), 200);
    r.json::<serde_json::Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Runs `check` every `every_ms` until it holds; fails with `what` once `within_s` seconds have
/// passed since `since`.
async fn eventually(
    since: Instant,
    within_s: u64,
    every_ms: u64,
    what: &str,
    mut check: impl AsyncFnMut() -> bool,
) {
    while !check().await {
        assert!(since.elapsed() < Duration::from_secs(within_s), "{what}");
        tokio::time::sleep(Duration::from_millis(every_ms)).await;
    }
}

/// `ok` requests were allowed since `start` under a limit of `burst` plus `rate` per second: within
/// 10 % (and one request) of that, else fails naming `whose` limit.
fn assert_rate(ok: u32, start: Instant, (burst, rate): (u32, f64), whose: &str) {
    let elapsed = start.elapsed().as_secs_f64();
    let expected = f64::from(burst) + rate * elapsed;
    assert!(
        (f64::from(ok) - expected).abs() <= 0.1 * expected + 1.0,
        "{ok} allowed in {elapsed:.2} s {whose} allows {expected:.1} (± 10 %)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_and_workers_share_one_postgres() {
    let db = tokio::task::block_in_place(|| TestDb::new("scale"));
    let url = db.url.clone();
    let redis = tokio::task::block_in_place(gridprint_testsvc::redis_url);

    // ENTSO-E stand-in with the real NL generation of 2024-09-02.
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let mut replay = Replay::new(reference.zones.clone(), TOKEN);
    replay
        .add_file(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/fixtures/entsoe-api/A75_NL_2024-09-02_PT15M_A03.xml"
        ))
        .unwrap();
    let upstream = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ReplayResponder(replay))
        .mount(&upstream)
        .await;

    cli(&url, &["migrate"]);
    let code = code_of(&cli(&url, &["access", "grant", "ada@example.org"]));
    cli(
        &url,
        &[
            "access",
            "grant",
            "bob@example.org",
            "--rate-limit",
            "1.5",
            "--burst",
            "7",
        ],
    );

    let serve_args = |_: ()| {
        vec![
            "--database".to_string(),
            url.clone(),
            "serve".into(),
            "--listen".into(),
            "127.0.0.1:0".into(),
            "--rate-limit-per-second".into(),
            RATE.to_string(),
            "--rate-limit-burst".into(),
            BURST.to_string(),
            "--redis-url".into(),
            redis.clone(),
        ]
    };
    let a_args = serve_args(());
    let mut a = Proc::spawn(&a_args.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let mut b = Proc::spawn(&a_args.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let a_url = base_url(
        &a.wait_for("listening on", Duration::from_secs(60))
            .unwrap_or_else(|| panic!("replica A: {}", a.log())),
    );
    let b_url = base_url(
        &b.wait_for("listening on", Duration::from_secs(60))
            .unwrap_or_else(|| panic!("replica B: {}", b.log())),
    );

    let worker_args = [
        "--database",
        url.as_str(),
        "worker",
        "--interval",
        "3s",
        "--zones",
        "NL",
        "--no-elexon",
        "--now",
        "2024-09-02T23:00Z",
        "--http-retries",
        "1",
    ];
    let worker_env = [
        ("GRIDPRINT_ENTSOE_URL", format!("{}/api", upstream.uri())),
        ("GRIDPRINT_ENTSOE_TOKEN", TOKEN.to_string()),
    ];
    let mut w1 = Proc::spawn(&worker_args, &worker_env);
    // Let the first worker take the lease before the second starts.
    let first_cycle = w1
        .wait_for("cycle ", Duration::from_secs(60))
        .unwrap_or_else(|| panic!("worker 1 ran no cycle: {}", w1.log()));
    assert!(first_cycle.contains("requests"), "{first_cycle}");
    let mut w2 = Proc::spawn(&worker_args, &worker_env);
    assert!(
        w2.wait_for("standing by", Duration::from_secs(30))
            .is_some(),
        "worker 2 stands by: {}",
        w2.log()
    );

    // Register and get a token on A; use it on B.
    let http = gridprint_ingest::http::http_client(Duration::from_secs(30)).unwrap();
    let creds =
        serde_json::json!({"email": "ada@example.org", "password": "correct horse battery"});
    let mut register = creds.clone();
    register["code"] = code.clone().into();
    let r = post(&http, format!("{a_url}/token-request/register"), &register).await;
    assert_eq!(r.status(), 200);
    let token = get_token(&http, &a_url, &creds).await;
    let get = |base: &str, path: &str| http.get(format!("{base}{path}")).bearer_auth(&token).send();
    assert_eq!(
        get(&b_url, "/v1/zones").await.unwrap().status(),
        200,
        "token from A works on B"
    );

    // Data computed by the worker appears on both replicas (each refreshes from the database).
    let path = "/v1/footprints?zone=NL&footprint_type=carbon&start=2024-09-02T08:00Z&end=2024-09-02T09:00Z";
    for base in [&a_url, &b_url] {
        let what = format!("worker data not served by {base}");
        eventually(Instant::now(), 30, 500, &what, async || {
            let r = get(base, path).await.unwrap();
            if r.status() != 200 {
                return false;
            }
            let v: serde_json::Value = r.json().await.unwrap();
            if v.as_array().is_none_or(|a| a.is_empty()) {
                return false;
            }
            let values = &v[0]["series"][0]["values"];
            assert_eq!(values.as_array().unwrap().len(), 4, "{v}");
            true
        })
        .await;
    }

    // Shared rate limit: one token, requests alternating between A and B for ~3 s.
    tokio::time::sleep(Duration::from_secs(2)).await; // let the bucket refill
    let start = Instant::now();
    let (mut ok, mut limited, mut retry_after_seen) = (0u32, 0u32, false);
    let mut i = 0;
    while start.elapsed() < Duration::from_secs(3) {
        let base = if i % 2 == 0 { &a_url } else { &b_url };
        i += 1;
        let r = get(base, "/v1/zones").await.unwrap();
        match r.status().as_u16() {
            200 => ok += 1,
            429 => {
                limited += 1;
                retry_after_seen |= r.headers().contains_key("retry-after");
            }
            s => panic!("unexpected status {s}"),
        }
    }
    assert!(
        limited > 0 && retry_after_seen,
        "429 with Retry-After once over the limit"
    );
    assert_rate(
        ok,
        start,
        (BURST, RATE),
        "over two replicas; the shared limit",
    );

    // Account tier: set by the operator, applied on both replicas within 60 s (each re-checks the
    // account's tokens every 30 s), shared by a second token got from B.
    const TIER_RATE: f64 = 5.0;
    const TIER_BURST: u32 = 30;
    cli(
        &url,
        &[
            "access",
            "set-limit",
            "ada@example.org",
            "--rate-limit",
            &TIER_RATE.to_string(),
            "--burst",
            &TIER_BURST.to_string(),
        ],
    );
    let set = Instant::now();
    let list = cli(&url, &["access", "list"]);
    let row = |email: &str| {
        list.lines()
            .find(|l| l.starts_with(email))
            .unwrap_or_else(|| panic!("{email} listed: {list}"))
            .to_string()
    };
    // The rate limit column, then the key cap column (both accounts keep the default cap).
    assert!(
        row("ada@example.org").ends_with("  5/s burst 30              default (20)"),
        "{list}"
    );
    assert!(
        row("bob@example.org").ends_with("  1.5/s burst 7             default (20)"),
        "{list}"
    );
    for base in [&a_url, &b_url] {
        let what = format!("{base} did not apply the tier within 60 s");
        eventually(set, 60, 500, &what, async || {
            let r = get(base, "/v1/zones").await.unwrap();
            r.headers()
                .get("ratelimit-limit")
                .and_then(|v| v.to_str().ok())
                == Some(&TIER_BURST.to_string())
        })
        .await;
    }
    let second = get_token(&http, &b_url, &creds).await;
    tokio::time::sleep(Duration::from_secs_f64(
        f64::from(TIER_BURST) / TIER_RATE + 1.0,
    ))
    .await;
    let start = Instant::now();
    let (mut ok, mut i) = (0u32, 0u32);
    while start.elapsed() < Duration::from_secs(3) {
        let base = if i % 2 == 0 { &a_url } else { &b_url };
        let t = if i % 3 == 0 { &second } else { &token };
        i += 1;
        let r = http
            .get(format!("{base}/v1/zones"))
            .bearer_auth(t)
            .send()
            .await
            .unwrap();
        match r.status().as_u16() {
            200 => ok += 1,
            429 => {}
            s => panic!("unexpected status {s}"),
        }
    }
    assert_rate(
        ok,
        start,
        (TIER_BURST, TIER_RATE),
        "for one account (two tokens, two replicas); its tier",
    );

    // Brute force across replicas: 10 failures from this address split over A and B lock the pair.
    // A fresh email per run: the counters live 15 minutes in the shared Redis.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let wrong = serde_json::json!({"email": format!("guess-{nanos}@example.org"), "password": "wrong password!!"});
    // Each attempt waits first: below the per-address request rate (10/s), so only the brute-force
    // guard answers 429.
    let attempt = async |base: &str| {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let r = post(&http, format!("{base}/token-request/get_token"), &wrong).await;
        r.status()
    };
    for i in 0..10 {
        let base = if i % 2 == 0 { &a_url } else { &b_url };
        assert_eq!(attempt(base).await, 401, "failure {i}");
    }
    for base in [&a_url, &b_url] {
        assert_eq!(attempt(base).await, 429, "{base} sees the shared count");
    }

    // Kill the active worker; the standby takes over and runs the next cycle within 30 s.
    let killed = Instant::now();
    w1.child.kill().unwrap();
    w1.child.wait().unwrap();
    let line = w2
        .wait_for("cycle ", Duration::from_secs(30))
        .unwrap_or_else(|| panic!("standby did not take over: {}", w2.log()));
    assert!(killed.elapsed() < Duration::from_secs(30), "{line}");

    // Revoke: the token stops working on both replicas within 60 s.
    cli(&url, &["access", "revoke", "ada@example.org"]);
    let revoked = Instant::now();
    for base in [&a_url, &b_url] {
        let what = format!("{base} still accepts a revoked token");
        eventually(revoked, 60, 1000, &what, async || {
            get(base, "/v1/zones").await.unwrap().status() == 401
        })
        .await;
    }
    drop((a, b, w2));
    tokio::task::block_in_place(|| drop(db));
}
