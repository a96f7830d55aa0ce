//! What the binary's integration tests share: the binary as a command (no database URL from the
//! environment, warnings only), running it to success, the fixtures folder, and the rows of a
//! SQLite database. Each test file
//! includes it with `mod common;`; not every file uses every item.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
