//! What the binary's integration tests share: the binary as a command (no database URL from the
//! environment, warnings only), running it to success, the fixtures folder, the rows of a SQLite
//! database, the stderr lines of a running child with the address its `serve` listens on, and a
//! JSON answer over HTTP (with or without a key).
//! Each test file includes it with `mod common;`; not every file uses every item.

#![allow(dead_code)]

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// The `gridprint` binary, without `GRIDPRINT_DATABASE_URL` and logging at `warn`.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gridprint"));
    c.env_remove("GRIDPRINT_DATABASE_URL")
        .env("GRIDPRINT_LOG", "warn");
    c
}

/// The output of a finished command, asserting it succeeded (else `what`: its stderr).
pub fn succeeded(out: Output, what: impl std::fmt::Display) -> Output {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs the binary on the database at `db_url`, asserting success; its stdout then its stderr.
pub fn ok_on(db_url: &str, args: &[&str]) -> String {
    let run = bin().arg("--database").arg(db_url).args(args).output();
    let out = succeeded(run.unwrap(), format_args!("{args:?} failed"));
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The registration code an `access grant` or `access reset` printed (its `code: …` line).
pub fn code_of(output: &str) -> String {
    output
        .lines()
        .find_map(|l| l.strip_prefix("code: "))
        .unwrap_or_else(|| panic!("no `code:` line in {output}"))
        .to_string()
}

/// `data/fixtures` of the repository.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/fixtures")
}

/// The first column of every row of `sql` on the SQLite file `db`, as `Debug` of the value.
pub fn sqlite_rows(db: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn.prepare(sql).unwrap();
    st.query_map([], |r| {
        let v: rusqlite::types::Value = r.get(0)?;
        Ok(format!("{v:?}"))
    })
    .unwrap()
    .map(|r| r.unwrap())
    .collect()
}

/// The lines `child` (spawned with a piped stderr) writes to its stderr, as they come. A thread
/// reads them until the pipe closes, also once the receiver is gone, so the child's writes never
/// fail.
pub fn stderr_lines(child: &mut Child) -> Receiver<String> {
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    rx
}

/// The address (`host:port`) in `serve`'s start-up line `listening on http://ADDR …`, if `line` is
/// that line.
pub fn listening_addr(line: &str) -> Option<&str> {
    let rest = line.split("listening on http://").nth(1)?;
    rest.split(|c: char| c == '/' || c.is_whitespace()).next()
}

/// Waits at most `timeout` for `serve`'s start-up line among `lines`; the address it names.
pub fn wait_listening(lines: &Receiver<String>, timeout: Duration) -> Option<String> {
    let deadline = Instant::now() + timeout;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        let line = lines.recv_timeout(left).ok()?;
        if let Some(addr) = listening_addr(&line) {
            return Some(addr.to_string());
        }
    }
    None
}

/// The JSON body of a GET of `url`.
pub async fn get_json(http: &reqwest::Client, url: String) -> serde_json::Value {
    http.get(url).send().await.unwrap().json().await.unwrap()
}

/// The JSON body of a GET of `url` with `key` (a token or an API key) as `Authorization: Bearer`.
pub async fn get_json_with(http: &reqwest::Client, url: String, key: &str) -> serde_json::Value {
    let answer = http.get(url).bearer_auth(key).send().await.unwrap();
    answer.json().await.unwrap()
}
