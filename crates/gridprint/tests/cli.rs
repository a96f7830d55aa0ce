//! The binary end to end: import (files, folders, demo), compute, access, and crash safety (kill -9
//! during a compute leaves the previous outputs intact and the rerun completes).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

mod common;
use common::*;

/// The database URL of the SQLite file `db`.
fn url(db: &Path) -> String {
    format!("sqlite://{}", db.display())
}

/// A temporary directory and the path of the database `g.db` in it (not created yet).
fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    (dir, db)
}

/// The ENTSO-E File Library fixtures folder.
fn library() -> PathBuf {
    fixtures().join("entsoe-file-library")
}

/// [`temp_db`] with the File Library folder imported (and computed).
fn library_db() -> (tempfile::TempDir, PathBuf) {
    let (dir, db) = temp_db();
    ok(&db, &["import", library().to_str().unwrap()]);
    (dir, db)
}

fn ok(db: &Path, args: &[&str]) -> String {
    ok_on(&url(db), args)
}

/// The binary on the database `db` with `args`.
fn on(db: &Path, args: &[&str]) -> Command {
    let mut c = bin();
    c.arg("--database").arg(url(db)).args(args);
    c
}

fn run(db: &Path, args: &[&str]) -> Output {
    on(db, args).output().unwrap()
}

/// Whether the binary on `db` with `args` fails.
fn fails(db: &Path, args: &[&str]) -> bool {
    !run(db, args).status.success()
}

/// The binary on `db` with `args` started with no stdout and `stderr`.
fn spawn(db: &Path, args: &[&str], stderr: Stdio) -> Child {
    on(db, args)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

#[test]
fn every_subcommand_has_help() {
    for sub in [
        &["--help"][..],
        &["import", "--help"],
        &["compute", "--help"],
        &["access", "--help"],
        &["access", "grant", "--help"],
        &["serve", "--help"],
        &["migrate", "--help"],
    ] {
        let out = bin().args(sub).output().unwrap();
        assert!(out.status.success(), "{sub:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage"), "{sub:?}: {text}");
    }
    let out = bin().args(["--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("GRIDPRINT_DATABASE_URL"));
}

/// The server options belong to the server commands: `query` (a client) neither shows nor accepts
/// them; `serve` shows them, and they still work before the subcommand (issue #14).
#[test]
fn server_options_only_on_server_commands() {
    const SERVER_FLAGS: [&str; 5] = [
        "--database",
        "--read-only",
        "--zone-set",
        "--db-max-connections",
        "--reference-dir",
    ];
    let help = |args: &[&str]| {
        let out = bin().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let client = help(&["query", "--help"]);
    let serve = help(&["serve", "--help"]);
    for flag in SERVER_FLAGS {
        assert!(
            !client.contains(flag),
            "query --help shows {flag}:\n{client}"
        );
        assert!(serve.contains(flag), "serve --help lacks {flag}:\n{serve}");
    }
    assert!(
        client.contains("--url") && client.contains("--log"),
        "{client}"
    );
    let out = bin()
        .args(["query", "--database", "sqlite://x.db", "zones"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "query refuses --database");
    let before = bin()
        .args(["--database", "sqlite://x.db", "query", "zones"])
        .output()
        .unwrap();
    assert!(!before.status.success());
    assert!(
        String::from_utf8_lossy(&before.stderr).contains("--database is an option of the server"),
        "{}",
        String::from_utf8_lossy(&before.stderr)
    );
    // Before or after the subcommand, the same database is used; after wins over before.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let url = |p: &Path| format!("sqlite://{}", p.display());
    let run = |args: &[&str]| {
        let out = bin().args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "--database",
        &url(&a),
        "access",
        "grant",
        "before@example.org",
    ]);
    run(&[
        "access",
        "--database",
        &url(&b),
        "grant",
        "after@example.org",
    ]);
    run(&[
        "--database",
        &url(&a),
        "access",
        "--database",
        &url(&b),
        "grant",
        "both@example.org",
    ]);
    let emails = |p: &Path| sqlite_rows(p, "SELECT email FROM access_grant ORDER BY email");
    assert_eq!(emails(&a), vec!["Text(\"before@example.org\")"]);
    assert_eq!(
        emails(&b),
        vec!["Text(\"after@example.org\")", "Text(\"both@example.org\")"]
    );
}

#[test]
fn import_folder_reports_skips_and_reimport_changes_nothing() {
    let (_dir, db) = temp_db();
    let folder = library();
    let first = ok(&db, &["import", folder.to_str().unwrap()]);
    assert!(first.contains("imported 4 files"), "{first}");
    assert!(
        first.contains("not-a-zone:10YIT-GRTN-----B"),
        "Italian country rows are counted: {first}"
    );
    assert!(first.contains("computed"), "{first}");
    let before = sqlite_rows(
        &db,
        "SELECT hex(payload) FROM derived_day ORDER BY day, zone",
    );
    assert!(!before.is_empty());
    let again = ok(&db, &["import", folder.to_str().unwrap()]);
    assert!(again.contains("0 new, 0 changed"), "{again}");
    assert_eq!(
        sqlite_rows(
            &db,
            "SELECT hex(payload) FROM derived_day ORDER BY day, zone"
        ),
        before
    );
}

#[test]
fn an_invalid_document_stores_nothing() {
    let (_dir, db) = temp_db();
    let good = fixtures().join("entsoe-api/A75_NL_2024-06-15_PT15M_A03.xml");
    let bad = fixtures().join("invalid/hexagon_invalid.xml");
    let out = run(
        &db,
        &["import", good.to_str().unwrap(), bad.to_str().unwrap()],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("hexagon_invalid.xml"),
        "error names the file: {err}"
    );
    assert_eq!(
        sqlite_rows(&db, "SELECT COUNT(*) FROM input_point"),
        vec!["Integer(0)"]
    );
    let missing = run(&db, &["import", "/nonexistent/file.xml"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/file.xml"));
}

/// The Transparency Platform website's exports (real two-day cuts, ENTSO-E Transparency Platform,
/// CC BY 4.0): actual generation and load become inputs, the TSOs' forecasts are stored apart with
/// their publication deadline, the `Current` forecast (no publication time) is counted, not stored;
/// a re-import changes nothing.
#[test]
fn website_exports_import_actuals_as_inputs_and_forecasts_apart() {
    let (_dir, db) = temp_db();
    let folder = fixtures().join("transparency-csv");
    let out = ok(&db, &["import", folder.to_str().unwrap()]);
    assert!(out.contains("imported 4 files"), "{out}");
    assert!(out.contains("TSO forecasts:"), "{out}");
    assert!(out.contains("no-publication-time:DK1"), "{out}");
    let one = |sql: &str| sqlite_rows(&db, sql).join(",");
    // DK1 onshore wind, day-ahead, 25 March 2023 00:00 UTC: 1704 MW, due by 18:00 Brussels (CET)
    // the day before.
    let wind = "FROM tso_forecast WHERE slot = 1679702400 / 900 AND kind = 0 AND zone = 'DK1' \
                AND other = 'wind_onshore'";
    assert_eq!(
        one(&format!(
            "SELECT mw || ' ' || published_at {wind} AND forecast = 0"
        )),
        format!("Text(\"1704.0 {}\")", 1679677200)
    );
    assert_eq!(
        one(&format!("SELECT COUNT(*) {wind}")),
        "Integer(1)",
        "the intraday value is N/A there, the current one is not stored"
    );
    // DK1 load, 28 October 2023 00:00 UTC: forecast 2116 MW due by 10:00 Brussels (CEST) the day
    // before; the actual 2168 MW is an input.
    assert_eq!(
        one(
            "SELECT mw || ' ' || published_at FROM tso_forecast WHERE slot = 1698451200 / 900 \
             AND kind = 1 AND zone = 'DK1'"
        ),
        format!("Text(\"2116.0 {}\")", 1698393600)
    );
    assert_eq!(
        one(
            "SELECT mw FROM input_point WHERE slot = 1698451200 / 900 AND kind = 1 AND zone = 'DK1'"
        ),
        "Real(2168.0)"
    );
    // Forecasts never among the inputs: no input of the days the wind and solar export covers
    // (the generation export holds 10-11 April).
    assert_eq!(
        one(
            "SELECT COUNT(*) FROM input_point WHERE slot >= 1679702400 / 900 \
             AND slot < 1679702400 / 900 + 2 * 96"
        ),
        "Integer(0)"
    );
    assert!(
        one("SELECT COUNT(*) FROM input_point WHERE kind = 0 AND zone = 'DK1'") != "Integer(0)"
    );
    let again = ok(&db, &["import", folder.to_str().unwrap()]);
    assert!(again.contains("0 new, 0 changed"), "{again}");
    assert!(
        again.contains("TSO forecasts:") && again.matches("(0 new, 0 changed").count() == 2,
        "{again}"
    );
}

/// A malformed row of a website export fails the import, naming the file and line, and nothing of
/// any file is stored: neither inputs nor forecasts.
#[test]
fn a_malformed_website_export_row_stores_nothing() {
    let (dir, db) = temp_db();
    let folder = dir.path().join("exports");
    std::fs::create_dir(&folder).unwrap();
    let source = fixtures().join("transparency-csv");
    for name in [
        "actual-generation-per-type_DK1_2023-04-10to11.csv",
        "wind-solar-forecasts_DK1_2023-03-25to26.csv",
    ] {
        std::fs::copy(source.join(name), folder.join(name)).unwrap();
    }
    let load = std::fs::read_to_string(source.join("total-load_DK1_2023-10-28to29.csv")).unwrap();
    let broken = load.replacen("\"2106\",\"2194\"", "\"2106\",\"21x94\"", 1);
    assert_ne!(broken, load);
    std::fs::write(folder.join("z-total-load.csv"), broken).unwrap();
    let out = run(&db, &["import", folder.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("z-total-load.csv") && err.contains("line 3") && err.contains("21x94"),
        "the error names the file, line and value: {err}"
    );
    for table in ["input_point", "tso_forecast"] {
        assert_eq!(
            sqlite_rows(&db, &format!("SELECT COUNT(*) FROM {table}")),
            vec!["Integer(0)"],
            "{table}"
        );
    }
}

/// `forecast-eval --tso --local` on a real week of DK1 (data/fixtures/transparency-csv-week): a row
/// with the model with the TSO's forecasts, without them and persistence; `--tso --fit` prints the
/// measured weights; without stored TSO forecasts `--tso` says what to import.
#[test]
fn forecast_eval_scores_the_tso_blend_on_a_real_week() {
    let (_dir, db) = temp_db();
    let week = fixtures().join("transparency-csv-week");
    let range = [
        "--from",
        "2023-09-02T00:00:00Z",
        "--to",
        "2023-09-08T00:00:00Z",
        "--every",
        "5h",
        "--local",
    ];
    ok(
        &db,
        &[
            "import",
            "--no-compute",
            week.join("actual-generation-per-type_DK1_2023-09-01to07.csv")
                .to_str()
                .unwrap(),
        ],
    );
    let none = run(&db, &[&["forecast-eval", "--tso"][..], &range].concat());
    assert!(!none.status.success());
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("no TSO day-ahead forecasts stored"),
        "{}",
        String::from_utf8_lossy(&none.stderr)
    );
    ok(&db, &["import", "--no-compute", week.to_str().unwrap()]);
    let out = ok(&db, &[&["forecast-eval", "--tso"][..], &range].concat());
    assert!(out.contains("local carbon footprint"), "{out}");
    let dk1: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("| DK1 | 10 |"))
        .collect();
    assert_eq!(dk1.len(), 1, "{out}");
    // Each measure: with the TSO's forecasts (without them) (persistence).
    let cells: Vec<&str> = dk1[0].split(" | ").collect();
    assert_eq!(cells[2].matches('(').count(), 2, "{out}");
    assert_ne!(
        cells[2].split(' ').next(),
        cells[2]
            .split(' ')
            .nth(1)
            .map(|s| s.trim_matches(['(', ')'])),
        "the blend moved the forecast: {out}"
    );
    let fit = ok(
        &db,
        &[&["forecast-eval", "--tso", "--fit"][..], &range].concat(),
    );
    assert!(fit.contains("| wind | 8-16 |"), "{fit}");
    assert!(fit.contains("BlendWeights { solar: ["), "{fit}");
}

#[test]
fn demo_import_computes_real_data() {
    let (_dir, db) = temp_db();
    ok(&db, &["import", "--demo"]);
    let zones = sqlite_rows(&db, "SELECT DISTINCT zone FROM derived_day ORDER BY zone");
    for z in ["AT", "CH", "CZ", "DE", "FR", "NL", "ES", "PL"] {
        assert!(
            zones.contains(&format!("Text(\"{z}\")")),
            "{z} in {zones:?}"
        );
    }
}

#[test]
fn access_commands() {
    let (_dir, db) = temp_db();
    // One `email:` and one `code:` line per email; the codes differ.
    let granted = ok(
        &db,
        &["access", "grant", " Ada@Example.ORG ", "bob@example.org"],
    );
    let lines: Vec<&str> = granted.lines().collect();
    assert!(lines.contains(&"email: ada@example.org"), "{granted}");
    assert!(lines.contains(&"email: bob@example.org"), "{granted}");
    let codes: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("code: "))
        .collect();
    assert_eq!(codes.len(), 2, "{granted}");
    assert_ne!(codes[0], codes[1]);
    assert_eq!(codes[0].replace('-', "").len(), 32, "128 bits in hex");
    // Only the code's hash is stored.
    let stored = sqlite_rows(
        &db,
        "SELECT registration_code_hash FROM access_grant ORDER BY email",
    );
    assert!(
        stored
            .iter()
            .all(|h| !h.contains(codes[0]) && !h.contains(codes[1]) && h.len() > 64),
        "{stored:?}"
    );
    // Granting again before registration: a new code replaces the old one; `--no-code`: none.
    let again = code_of(&ok(&db, &["access", "grant", "bob@example.org"]));
    assert_ne!(again, codes[1]);
    let none = ok(&db, &["access", "grant", "--no-code", "carl@example.org"]);
    assert!(
        !none.lines().any(|l| l.starts_with("code: ")) && none.contains("no registration code"),
        "{none}"
    );
    // Registered: granting again prints no code; `access reset` prints a new one.
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "INSERT INTO registration (email, password_hash, registered_at) VALUES ('bob@example.org', '$argon2id$x', 0)",
            [],
        )
        .unwrap();
    let granted = ok(&db, &["access", "grant", "bob@example.org"]);
    assert!(
        !granted.lines().any(|l| l.starts_with("code: ")) && granted.contains("is registered"),
        "{granted}"
    );
    let reset = code_of(&ok(&db, &["access", "reset", "bob@example.org"]));
    assert_ne!(reset, again);
    let list = ok(&db, &["access", "list"]);
    assert!(
        list.contains("ada@example.org")
            && list.contains("bob@example.org")
            && list.contains("REGISTERED"),
        "{list}"
    );
    assert!(fails(&db, &["access", "grant", "not-an-email"]));
    assert!(ok(&db, &["access", "reset", "ada@example.org"]).contains("not registered"));
    assert!(ok(&db, &["access", "revoke", "ADA@example.org"]).contains("revoked ada@example.org"));
    assert!(fails(&db, &["access", "revoke", "ada@example.org"]));
}

#[test]
fn access_key_commands() {
    let (_dir, db) = temp_db();
    assert!(
        fails(&db, &["access", "key", "create", "ada@example.org"]),
        "no grant"
    );
    ok(&db, &["access", "grant", "ada@example.org"]);
    let out = ok(
        &db,
        &[
            "access",
            "key",
            "create",
            "Ada@example.org",
            "--name",
            "ha",
            "--expires-days",
            "30",
        ],
    );
    let key = out.lines().last().unwrap();
    assert!(
        key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit()),
        "the last line is the key alone: {out}"
    );
    // Stored only as its SHA-256.
    let stored = sqlite_rows(&db, "SELECT key_hash FROM api_key");
    assert!(!format!("{stored:?}").contains(key), "{stored:?}");
    let list = ok(&db, &["access", "key", "list", "ada@example.org"]);
    assert!(
        list.contains("ha") && list.contains("LAST USED") && !list.contains(key),
        "{list}"
    );
    assert!(ok(&db, &["access", "key", "list"]).contains("ada@example.org"));
    assert!(fails(
        &db,
        &[
            "access",
            "key",
            "create",
            "ada@example.org",
            "--expires-days",
            "0"
        ]
    ));
    let id = list
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    assert!(ok(&db, &["access", "key", "revoke", id]).contains("revoked key"));
    assert!(fails(&db, &["access", "key", "revoke", id]));
    assert_eq!(
        ok(&db, &["access", "key", "list"]).lines().count(),
        1,
        "header only"
    );
}

#[test]
fn access_key_caps_and_the_default_expiry() {
    let (_dir, db) = temp_db();
    const CREATE: [&str; 4] = ["access", "key", "create", "ada@example.org"];
    let create = |extra: &[&str]| ok(&db, &[&CREATE[..], extra].concat());
    let out = ok(
        &db,
        &["access", "grant", "ada@example.org", "--max-keys", "2"],
    );
    assert!(out.contains("API key cap of ada@example.org: 2"), "{out}");
    let out = create(&["--api-key-default-expiry-days", "7"]);
    assert!(out.contains("expiring in 7 days"), "{out}");
    let out = create(&["--api-key-default-expiry-days", "7", "--expires-days", "30"]);
    assert!(
        out.contains("expiring in 30 days"),
        "an explicit expiry wins: {out}"
    );
    assert!(fails(&db, &CREATE), "the account's cap of 2");
    let out = ok(
        &db,
        &["access", "set-limit", "ada@example.org", "--max-keys", "3"],
    );
    assert!(out.contains("API key cap of ada@example.org: 3"), "{out}");
    assert!(
        !out.contains("rate limit"),
        "the rate limit is left alone: {out}"
    );
    let out = create(&[]);
    assert!(
        out.contains("created key") && !out.contains("expiring"),
        "{out}"
    );
    let list = ok(&db, &["access", "list"]);
    assert!(list.contains("API KEYS AT MOST"), "{list}");
    assert!(
        list.lines().nth(1).unwrap().trim_end().ends_with(" 3"),
        "{list}"
    );
    ok(
        &db,
        &["access", "set-limit", "ada@example.org", "--default"],
    );
    let list = ok(&db, &["access", "list"]);
    assert!(list.contains("default (20)"), "{list}");
    // Listing pages: `--after` the last id shown lists nothing more.
    let keys = ok(&db, &["access", "key", "list"]);
    let last = keys
        .lines()
        .last()
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    let after = ok(&db, &["access", "key", "list", "--after", last]);
    assert_eq!(after.lines().count(), 1, "header only: {after}");
}

#[test]
fn kill_during_compute_keeps_previous_outputs_and_rerun_completes() {
    let (dir, db) = temp_db();
    let folder = library();
    ok(&db, &["import", "--no-compute", folder.to_str().unwrap()]);
    // A long compute: the data days first (staged early), then years of empty slots. We kill it with
    // SIGKILL once it has staged outputs but before it publishes them.
    let compute = ["compute", "--from", "2017-02-01", "--to", "2035-01-01"];
    let mut child = spawn(&db, &compute, Stdio::null());
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while sqlite_rows(&db, "SELECT COUNT(*) FROM derived_stage") == vec!["Integer(0)"] {
        assert!(
            std::time::Instant::now() < deadline,
            "compute staged nothing within 60 s"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "compute finished before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    // Nothing was published: the previous state (no outputs) is intact, and the database is healthy.
    assert_eq!(
        sqlite_rows(&db, "SELECT COUNT(*) FROM derived_day"),
        vec!["Integer(0)"]
    );
    assert_eq!(
        sqlite_rows(&db, "PRAGMA integrity_check"),
        vec!["Text(\"ok\")"]
    );
    // The rerun completes and equals an uninterrupted run on a fresh database, and what the killed
    // run staged does not survive it (issue #28 item 10).
    ok(
        &db,
        &["compute", "--from", "2017-02-01", "--to", "2017-02-03"],
    );
    assert_eq!(
        sqlite_rows(&db, "SELECT COUNT(*) FROM derived_stage"),
        vec!["Integer(0)"],
        "the killed run's staged rows were cleared by the rerun"
    );
    let fresh = dir.path().join("fresh.db");
    ok(&fresh, &["import", folder.to_str().unwrap()]);
    let q = "SELECT zone || day || hex(payload) FROM derived_day ORDER BY day, zone";
    assert_eq!(sqlite_rows(&db, q), sqlite_rows(&fresh, q));
}

#[test]
fn read_only_mode_reads_and_refuses_writes() {
    let (dir, db) = library_db();
    let code = code_of(&ok(&db, &["access", "grant", "ro@example.org"]));
    let ro = |args: &[&str]| on(&db, &["--read-only"]).args(args).output().unwrap();
    assert!(
        ro(&["migrate"]).status.success(),
        "a current schema checks out read-only"
    );
    for args in [
        &["access", "grant", "x@example.org"][..],
        &["import", "--demo"],
        &["compute"],
    ] {
        let out = ro(args);
        assert!(!out.status.success(), "{args:?} must fail read-only");
        let err = String::from_utf8_lossy(&out.stderr).to_lowercase();
        assert!(
            err.contains("read-only") || err.contains("readonly"),
            "{args:?}: {err}"
        );
    }
    assert!(ro(&["access", "list"]).status.success(), "reading works");
    let missing = dir.path().join("missing.db");
    let out = run(&missing, &["--read-only", "migrate"]);
    assert!(
        !out.status.success() && !missing.exists(),
        "read-only never creates a database"
    );

    // A read-only replica serves data but refuses to register or issue tokens.
    let serve = "--read-only serve --listen 127.0.0.1:0 --check-providers false";
    let serve: Vec<&str> = serve.split(' ').collect();
    let mut child = spawn(&db, &serve, Stdio::piped());
    // Keep reading the server's log so its writes never fail.
    let lines = stderr_lines(&mut child);
    let addr = wait_listening(&lines, Duration::from_secs(60)).expect("listening line");
    let post = |path: &str, body: &str| {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    let body = format!(
        r#"{{"email":"ro@example.org","password":"correct horse battery","code":"{code}"}}"#
    );
    let answer = post("/token-request/register", &body);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("read-only replica"), "{answer}");
}

/// `gridprint compute` keeps final slots; `--force` (with `--from` and `--to`, also
/// `GRIDPRINT_FORCE`) recomputes them; `--force` alone is refused.
#[test]
fn compute_force_recomputes_final_slots() {
    let (_dir, db) = library_db();
    let window = ["--from", "2017-02-01T00:00Z", "--to", "2017-02-01T12:00Z"];
    let kept = ok(&db, &[&["compute"][..], &window].concat());
    assert!(kept.contains("computed 0 zone-slots"), "{kept}");
    assert!(!kept.contains("(0 frozen kept)"), "{kept}");
    let forced = ok(&db, &[&["compute", "--force"][..], &window].concat());
    assert!(forced.contains("(0 frozen kept)"), "{forced}");
    assert!(!forced.contains("computed 0 zone-slots"), "{forced}");
    let by_env = on(&db, &[&["compute"][..], &window].concat())
        .env("GRIDPRINT_FORCE", "true")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&by_env.stderr).contains("(0 frozen kept)"));
    let alone = run(&db, &["compute", "--force"]);
    assert!(!alone.status.success());
}

/// Without `--database`, every command uses the one file in the user's data directory, whatever
/// the working directory, and names it in its log.
#[test]
fn the_default_database_is_the_same_from_every_directory() {
    let home = tempfile::tempdir().unwrap();
    let (one, two) = (home.path().join("one"), home.path().join("two"));
    std::fs::create_dir_all(&one).unwrap();
    std::fs::create_dir_all(&two).unwrap();
    let in_dir = |dir: &Path, args: &[&str]| {
        let out = bin()
            .env("HOME", home.path())
            .env_remove("XDG_DATA_HOME")
            .env("GRIDPRINT_LOG", "info")
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap();
        let out = succeeded(out, format_args!("{args:?} in {}", dir.display()));
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (_, log) = in_dir(&one, &["access", "grant", "ada@example.org"]);
    let file = home.path().join(".local/share/gridprint/gridprint.db");
    assert!(file.is_file(), "no database at {}", file.display());
    assert!(
        log.contains(&format!("database sqlite://{}", file.display())),
        "the log does not name the database: {log}"
    );
    let (list, _) = in_dir(&two, &["access", "list"]);
    assert!(list.contains("ada@example.org"), "{list}");
    assert!(!one.join("gridprint.db").exists() && !two.join("gridprint.db").exists());
}

/// Every server command refuses an unknown zone set when its command line is read, including
/// those that never load the reference data.
#[test]
fn every_command_refuses_an_unknown_zone_set() {
    let (_dir, db) = temp_db();
    for args in [
        &["access", "--zone-set", "al", "list"][..],
        &["compute", "--zone-set", "al"],
        &["migrate", "--zone-set", "al"],
    ] {
        let out = run(&db, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("use selected (52 zones) or full (60 zones)"),
            "{args:?}: {err}"
        );
    }
    assert!(!db.exists(), "a refused command created the database");
}

/// Commands on PostgreSQL log no server notices (the idempotent `CREATE … IF NOT EXISTS` of the
/// migrations and the staging table used to print `NOTICE: relation … already exists` each time).
#[test]
fn postgres_commands_log_no_notices() {
    let db = gridprint_store_postgres::testing::TestDb::new("notices");
    for args in [&["migrate"][..], &["migrate"], &["import", "--demo"]] {
        let out = bin()
            .env("GRIDPRINT_LOG", "info")
            .arg("--database")
            .arg(&db.url)
            .args(args)
            .output()
            .unwrap();
        let out = succeeded(out, format_args!("{args:?} on PostgreSQL"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("NOTICE"), "{args:?}: {err}");
    }
}

/// Issue #28 item 10: a password in a database URL (`user:…@`, `?password=`, `&sslpassword=`, or
/// a key=value `password=`) never appears in an error.
#[test]
fn database_passwords_never_appear_in_errors() {
    for url in [
        "postgres://u:topsecret1@127.0.0.1:1/db",
        "postgres://u@127.0.0.1:1/db?password=topsecret1&connect_timeout=2",
        "postgresql://u@127.0.0.1:1/db?connect_timeout=2&sslpassword=topsecret1",
        "host=127.0.0.1 port=1 password=topsecret1",
        "postgres://u@127.0.0.1:1/db?password=topsecret1&bogus_option=1",
    ] {
        let out = bin()
            .args(["--database", url, "access", "list"])
            .env_remove("GRIDPRINT_DATABASE_URL")
            .output()
            .unwrap();
        assert!(!out.status.success(), "{url}");
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!all.contains("topsecret1"), "{url}: {all}");
        assert!(
            all.contains("***"),
            "{url}: the URL is named, redacted: {all}"
        );
    }
}

#[test]
fn forecast_eval_scores_the_real_slice_and_refuses_what_it_cannot_score() {
    let (_dir, db) = temp_db();
    // Nothing stored yet: a sentence saying what to do.
    let empty = run(&db, &["forecast-eval"]);
    assert!(!empty.status.success());
    assert!(
        String::from_utf8_lossy(&empty.stderr).contains("import or ingest history first"),
        "{}",
        String::from_utf8_lossy(&empty.stderr)
    );
    ok(
        &db,
        &[
            "import",
            "--no-compute",
            fixtures().join("recordings-2022-slice").to_str().unwrap(),
        ],
    );
    // Origins every 7 h over three days of the two real weeks: one row per zone with generation,
    // and the mean.
    let out = ok(
        &db,
        &[
            "forecast-eval",
            "--from",
            "2022-10-08T00:00:00Z",
            "--to",
            "2022-10-15T00:00:00Z",
            "--every",
            "7h",
        ],
    );
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(rows.len(), 4, "{out}"); // header, BE, FR, mean
    assert!(rows[1].starts_with("| BE | 11 |"), "{out}");
    assert!(rows[2].starts_with("| FR | 11 |"), "{out}");
    assert!(rows[3].starts_with("| **mean** |"), "{out}");
    // A range shorter than one horizon (96 h) has nothing to score.
    let short = run(
        &db,
        &[
            "forecast-eval",
            "--from",
            "2022-10-12T00:00:00Z",
            "--to",
            "2022-10-15T00:00:00Z",
        ],
    );
    assert!(!short.status.success());
    assert!(
        String::from_utf8_lossy(&short.stderr).contains("shorter than one horizon"),
        "{}",
        String::from_utf8_lossy(&short.stderr)
    );
}
