//! `gridprint query` end to end: the binary against the real server running in-process on an
//! ephemeral port (in-memory SQLite store with real ENTSO-E documents from `data/fixtures`, imported
//! and computed), with a private HOME so config and token cache land in a temporary directory.

use gridprint_api::testing::quiet_config;
use gridprint_client::{Client, Format};
use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "../../gridprint-client/tests/live/mod.rs"]
mod live;
use live::{EMAIL, PASSWORD, Server};

const FIXTURES: &[&str] = &[
    "entsoe-api/A75_DE-LU_2024-06-15_PT15M_A03.xml",
    "entsoe-api/A75_FR_2024-06-15_PT60M_A03.xml",
    "entsoe-api/A75_NL_2024-06-15_PT15M_A03.xml",
    "entsoe-api/A75_PL_2024-06-15_PT15M_A03.xml",
];
const WINDOW: [&str; 4] = ["--start", "2024-06-15T00:00Z", "--end", "2024-06-15T02:00Z"];

/// The server over [`FIXTURES`] with the account registered, and an empty home directory for the
/// command.
async fn server_and_home() -> (Server, tempfile::TempDir) {
    let s = live::server(FIXTURES, quiet_config()).await;
    live::registered(&client(&s.url)).await;
    (s, tempfile::tempdir().unwrap())
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

/// The stderr of a run that must fail.
fn failed(out: &Output) -> String {
    assert!(!out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
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

/// Runs `gridprint query ARGS` over [`WINDOW`] with the credentials for the server at `url`; it
/// must succeed: its stdout.
async fn in_window(home: &Path, url: &str, args: &[&str]) -> String {
    let args = [args, &WINDOW[..]].concat();
    ok(&query(home, &args, &creds(url)).await)
}

/// The server's own `/footprints` answer for DE over [`WINDOW`], with the `extra` pairs.
async fn servers_footprints(url: &str, extra: &[(&str, &str)], format: Format) -> String {
    let pairs: Vec<(String, String)> = [("zone", "DE"), ("start", WINDOW[1]), ("end", WINDOW[3])]
        .iter()
        .chain(extra)
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    client(url)
        .get_raw("footprints", &pairs, format)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_csv_equals_the_servers_csv() {
    let (s, home) = server_and_home().await;
    let mut args = vec!["footprints", "--zone", "DE", "--format", "csv"];
    let out = in_window(home.path(), &s.url, &args).await;
    assert_eq!(out, servers_footprints(&s.url, &[], Format::Csv).await);
    assert_eq!(out.lines().count(), 1 + 2 * 8, "{out}");

    // Other parameters pass through --param.
    args.extend([
        "--param",
        "footprint_type=carbon",
        "-p",
        "scope=operational",
    ]);
    let out = in_window(home.path(), &s.url, &args).await;
    let extra = [("footprint_type", "carbon"), ("scope", "operational")];
    assert_eq!(out, servers_footprints(&s.url, &extra, Format::Csv).await);
    assert!(
        out.lines()
            .skip(1)
            .all(|l| l.contains(",carbon,operational,")),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_json_is_the_servers_json() {
    let (s, home) = server_and_home().await;
    let args = ["footprints", "--zone", "DE", "--format", "json"];
    let out = in_window(home.path(), &s.url, &args).await;
    let server_json = servers_footprints(&s.url, &[], Format::Json).await;
    assert_eq!(out.trim_end(), server_json);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_shows_one_row_per_point_with_its_flags() {
    let (s, home) = server_and_home().await;
    let out = in_window(home.path(), &s.url, &["footprints", "--zone", "DE"]).await;
    let lines: Vec<&str> = out.lines().collect();
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    let columns = "zone footprint_type scope coverage timestamp value unit zone_status valid";
    assert_eq!(header, columns.split(' ').collect::<Vec<_>>(), "{out}");
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
    let (s, home) = server_and_home().await;
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
    let (s, home) = server_and_home().await;
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
    let env = [("XDG_CONFIG_HOME", xdg.to_str().unwrap())];
    let err = failed(&query(home.path(), &["zones"], &env).await);
    assert!(err.contains("no credentials"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_password_fails_with_a_clear_message() {
    let (s, home) = server_and_home().await;
    let wrong = [
        ("GRIDPRINT_URL", s.url.as_str()),
        ("GRIDPRINT_EMAIL", EMAIL),
        ("GRIDPRINT_PASSWORD", "definitely wrong password"),
    ];
    let err = failed(&query(home.path(), &["zones"], &wrong).await);
    assert!(
        err.contains("authentication failed") && err.contains("refused the email and password"),
        "{err}"
    );
    assert!(!err.contains("definitely wrong"), "{err}");
    assert!(token_files(home.path()).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_show_the_servers_detail() {
    let (s, home) = server_and_home().await;
    let args = ["footprints", "--zone", "DE", "--param", "start=2024-06-15"];
    let err = failed(&query(home.path(), &args, &creds(&s.url)).await);
    assert!(
        err.contains("400") && err.contains("start and end"),
        "{err}"
    );
    let out = query(home.path(), &["nonsense"], &creds(&s.url)).await;
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown endpoint"));
}

/// Issue #28 item 7: `gridprint query --register --code` sends the grant's registration code; a
/// wrong code is refused (403), the right one registers (or says the email is already registered).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_sends_the_registration_code() {
    let s = live::server(FIXTURES, quiet_config()).await;
    let home = tempfile::tempdir().unwrap();
    let env = creds(&s.url);
    let wrong = "FFFF-FFFF-FFFF-FFFF-FFFF-FFFF-FFFF-FFFF";
    let err = failed(&query(home.path(), &["--register", "--code", wrong], &env).await);
    assert!(err.contains("403"), "{err}");
    let out = query(home.path(), &["--register", "--code", live::CODE], &env).await;
    ok(&out);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("registered"), "{said}");
}

/// An unknown zone is an error on the command line (the API answers it `200 []`); a country code
/// the server serves (`DK`) is not unknown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_zone_fails_with_a_clear_message() {
    let (s, home) = server_and_home().await;
    let args = [
        "footprints",
        "--zone",
        "DE,XX",
        "--start",
        WINDOW[1],
        "--end",
        WINDOW[3],
    ];
    let err = failed(&query(home.path(), &args, &creds(&s.url)).await);
    assert!(err.contains("unknown zone XX"), "{err}");
    assert!(!err.contains("DE"), "{err}");
    in_window(home.path(), &s.url, &["footprints", "--zone", "dk"]).await;
}
