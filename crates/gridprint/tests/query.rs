//! `gridprint query` end to end: the binary against the real server running in-process on an
//! ephemeral port (in-memory SQLite store with real ENTSO-E documents from `data/fixtures`, imported
//! and computed), with a private HOME so config and token cache land in a temporary directory.

use gridprint_api::AppState;
use gridprint_api::testing::{MutableClock, TestServer, quiet_config, serve_ephemeral};
use gridprint_client::{Client, Error, Format};
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_store::SharedStore;
use gridprint_store_sqlite::SqliteStore;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Arc, OnceLock};
use time::OffsetDateTime;

const EMAIL: &str = "ada@example.org";
const PASSWORD: &str = "correct horse battery";
const FIXTURES: &[&str] = &[
    "entsoe-api/A75_DE-LU_2024-06-15_PT15M_A03.xml",
    "entsoe-api/A75_FR_2024-06-15_PT60M_A03.xml",
    "entsoe-api/A75_NL_2024-06-15_PT15M_A03.xml",
    "entsoe-api/A75_PL_2024-06-15_PT15M_A03.xml",
];
const WINDOW: [&str; 4] = ["--start", "2024-06-15T00:00Z", "--end", "2024-06-15T02:00Z"];

fn reference() -> Arc<ReferenceData> {
    static REF: OnceLock<Arc<ReferenceData>> = OnceLock::new();
    REF.get_or_init(|| Arc::new(ReferenceData::embedded(ZoneSet::Selected2026)))
        .clone()
}

fn store() -> SharedStore {
    static STORE: OnceLock<SharedStore> = OnceLock::new();
    STORE
        .get_or_init(|| {
            let reference = reference();
            let store: SharedStore = Arc::new(SqliteStore::open_in_memory().unwrap());
            let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/fixtures/");
            let mut points = Vec::new();
            for f in FIXTURES {
                let bytes = std::fs::read(format!("{root}{f}")).unwrap();
                points.extend(
                    gridprint_ingest::detect_and_parse(&bytes, &reference.zones)
                        .unwrap()
                        .points,
                );
            }
            store
                .upsert_inputs(&points, OffsetDateTime::now_utc().unix_timestamp())
                .unwrap();
            let days: BTreeSet<i64> = points.iter().map(|p| p.slot.day()).collect();
            let ranges: Vec<SlotRange> = days
                .iter()
                .map(|d| SlotRange::new(Slot::first_of_day(*d), Slot::first_of_day(d + 1)))
                .collect();
            gridprint_compute::compute_ranges(
                &*store,
                &reference,
                &ranges,
                OffsetDateTime::now_utc(),
                &mut |_, _| {},
            )
            .unwrap();
            store.grant(EMAIL, 0).unwrap();
            store
        })
        .clone()
}

async fn server() -> TestServer {
    let clock = MutableClock::new(OffsetDateTime::now_utc());
    let state = AppState::new(store(), reference(), Arc::new(clock), quiet_config());
    let s = serve_ephemeral(state).await;
    match client(&s.url).register().await {
        Ok(()) | Err(Error::Api { status: 409, .. }) => {}
        Err(e) => panic!("register: {e}"),
    }
    s
}

fn client(url: &str) -> Client {
    Client::builder()
        .base_url(url)
        .credentials(EMAIL, PASSWORD)
        .build()
        .unwrap()
}

/// Runs `gridprint query ARGS` with a clean environment: HOME (and so the config and cache
/// directories) in `home`, plus `env`.
async fn query(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_gridprint"));
    cmd.env_clear()
        .env("HOME", home)
        .env("GRIDPRINT_LOG", "warn")
        .arg("query")
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

fn creds(url: &str) -> Vec<(&str, &str)> {
    vec![
        ("GRIDPRINT_URL", url),
        ("GRIDPRINT_EMAIL", EMAIL),
        ("GRIDPRINT_PASSWORD", PASSWORD),
    ]
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn token_files(home: &Path) -> Vec<PathBuf> {
    let dir = home.join(".cache/gridprint/tokens");
    std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn footprint_pairs() -> Vec<(String, String)> {
    [("zone", "DE"), ("start", WINDOW[1]), ("end", WINDOW[3])]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_csv_equals_the_servers_csv() {
    let s = server().await;
    let home = tempfile::tempdir().unwrap();
    let mut args = vec!["footprints", "--zone", "DE", "--format", "csv"];
    args.extend(WINDOW);
    let out = ok(&query(home.path(), &args, &creds(&s.url)).await);
    let server_csv = client(&s.url)
        .get_raw("footprints", &footprint_pairs(), Format::Csv)
        .await
        .unwrap();
    assert_eq!(out, server_csv);
    assert_eq!(out.lines().count(), 1 + 2 * 8, "{out}");

    // Other parameters pass through --param.
    let mut args = vec![
        "footprints",
        "--zone",
        "DE",
        "--format",
        "csv",
        "--param",
        "footprint_type=carbon",
        "-p",
        "scope=operational",
    ];
    args.extend(WINDOW);
    let out = ok(&query(home.path(), &args, &creds(&s.url)).await);
    let mut pairs = footprint_pairs();
    pairs.push(("footprint_type".into(), "carbon".into()));
    pairs.push(("scope".into(), "operational".into()));
    let server_csv = client(&s.url)
        .get_raw("footprints", &pairs, Format::Csv)
        .await
        .unwrap();
    assert_eq!(out, server_csv);
    assert!(
        out.lines()
            .skip(1)
            .all(|l| l.contains(",carbon,operational,")),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_json_is_the_servers_json() {
    let s = server().await;
    let home = tempfile::tempdir().unwrap();
    let mut args = vec!["footprints", "--zone", "DE", "--format", "json"];
    args.extend(WINDOW);
    let out = ok(&query(home.path(), &args, &creds(&s.url)).await);
    let server_json = client(&s.url)
        .get_raw("footprints", &footprint_pairs(), Format::Json)
        .await
        .unwrap();
    assert_eq!(out.trim_end(), server_json);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_shows_one_row_per_point_with_its_flags() {
    let s = server().await;
    let home = tempfile::tempdir().unwrap();
    let mut args = vec!["footprints", "--zone", "DE"];
    args.extend(WINDOW);
    let out = ok(&query(home.path(), &args, &creds(&s.url)).await);
    let lines: Vec<&str> = out.lines().collect();
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "zone",
            "footprint_type",
            "scope",
            "coverage",
            "timestamp",
            "value",
            "unit",
            "zone_status",
            "valid"
        ],
        "{out}"
    );
    assert_eq!(lines.len(), 1 + 16, "{out}");
    let first: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(first[0], "DE");
    assert_eq!(first[1], "carbon");
    assert_eq!(first[4], "2024-06-15T00:00:00Z");
    assert!(first[5].parse::<f64>().is_ok(), "{out}");
    assert!(["true", "false"].contains(&first[8]), "{out}");

    // Status is public: no credentials needed.
    let out = ok(&query(home.path(), &["status"], &[("GRIDPRINT_URL", &s.url)]).await);
    assert!(out.contains("storage") && out.contains("up"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_cache_is_private_and_reused_between_runs() {
    let s = server().await;
    let home = tempfile::tempdir().unwrap();
    let args = ["zones", "--format", "csv"];
    ok(&query(home.path(), &args, &creds(&s.url)).await);
    let files = token_files(home.path());
    assert_eq!(files.len(), 1, "{files:?}");
    #[cfg(unix)]
    {
        assert_eq!(mode(&files[0]), 0o600);
        assert_eq!(mode(files[0].parent().unwrap()), 0o700);
    }
    let first = std::fs::read(&files[0]).unwrap();
    let text = String::from_utf8_lossy(&first);
    assert!(
        text.contains("expires_at") && text.contains(EMAIL),
        "{text}"
    );
    ok(&query(home.path(), &args, &creds(&s.url)).await);
    assert_eq!(
        std::fs::read(&files[0]).unwrap(),
        first,
        "the second run reused the cached token"
    );
    // A broken cached token is replaced after the server's 401.
    let broken = text.replace(
        &serde_json::from_slice::<serde_json::Value>(&first).unwrap()["access_token"]
            .as_str()
            .unwrap()
            .to_string(),
        &"0".repeat(64),
    );
    std::fs::write(&files[0], broken).unwrap();
    ok(&query(home.path(), &args, &creds(&s.url)).await);
    let third = std::fs::read_to_string(&files[0]).unwrap();
    assert!(!third.contains(&"0".repeat(64)), "{third}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saved_config_is_private_and_used() {
    let s = server().await;
    let home = tempfile::tempdir().unwrap();
    let out = query(home.path(), &["--save-config"], &creds(&s.url)).await;
    ok(&out);
    let path = home.path().join(".config/gridprint/config.toml");
    #[cfg(unix)]
    assert_eq!(mode(&path), 0o600);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(&s.url) && text.contains(EMAIL), "{text}");
    // No environment: everything comes from the file.
    let out = ok(&query(home.path(), &["zones", "--format", "csv"], &[]).await);
    assert!(out.starts_with("zone,full_name"), "{out}");
    // XDG_CONFIG_HOME wins over HOME.
    let xdg = home.path().join("xdg");
    let out = query(
        home.path(),
        &["zones"],
        &[("XDG_CONFIG_HOME", xdg.to_str().unwrap())],
    )
    .await;
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no credentials"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_password_fails_with_a_clear_message() {
    let s = server().await;
    let home = tempfile::tempdir().unwrap();
    let out = query(
        home.path(),
        &["zones"],
        &[
            ("GRIDPRINT_URL", &s.url),
            ("GRIDPRINT_EMAIL", EMAIL),
            ("GRIDPRINT_PASSWORD", "definitely wrong password"),
        ],
    )
    .await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("authentication failed") && err.contains("refused the email and password"),
        "{err}"
    );
    assert!(!err.contains("definitely wrong"), "{err}");
    assert!(token_files(home.path()).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_show_the_servers_detail() {
    let s = server().await;
    let home = tempfile::tempdir().unwrap();
    let out = query(
        home.path(),
        &["footprints", "--zone", "DE", "--param", "start=2024-06-15"],
        &creds(&s.url),
    )
    .await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("400") && err.contains("start and end"),
        "{err}"
    );
    let out = query(home.path(), &["nonsense"], &creds(&s.url)).await;
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown endpoint"));
}
