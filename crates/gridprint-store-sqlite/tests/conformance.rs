//! Runs the store conformance suite on SQLite: in memory and on a real file.

use gridprint_store_sqlite::SqliteStore;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A fresh temporary directory and the path of a database file in it; the directory is removed
/// when the `TempDir` is dropped.
fn temp_db() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    (dir, path)
}

/// Opens (creating or migrating) the database file at `path`.
fn open(path: &Path) -> SqliteStore {
    SqliteStore::open(path).unwrap()
}

#[test]
fn conformance_in_memory() {
    gridprint_store::conformance::run_all(&SqliteStore::open_in_memory().unwrap());
}

#[test]
fn conformance_on_file_and_reopen() {
    let (_dir, path) = temp_db();
    gridprint_store::conformance::run_all(&open(&path));
    // Reopening applies no migration twice and keeps the data.
    let again = open(&path);
    use gridprint_store::InputStore;
    assert!(again.input_extent().unwrap().is_some());
}

#[test]
fn one_leader_per_database_file() {
    let (_dir, path) = temp_db();
    gridprint_store::conformance::leadership(&open(&path), &open(&path));
}

#[test]
fn staging_left_by_a_dead_run_is_cleared_by_the_next() {
    let (_dir, path) = temp_db();
    gridprint_store::conformance::abandoned_staging(&open(&path), &open(&path));
}

#[test]
fn read_only_replica() {
    let (dir, path) = temp_db();
    let writable = open(&path);
    let ro = SqliteStore::open_read_only(&path).unwrap();
    gridprint_store::conformance::read_only(&writable, &ro);
    let fresh = dir.path().join("fresh.db");
    assert!(
        SqliteStore::open_read_only(&fresh).is_err(),
        "a missing database is not created"
    );
}
