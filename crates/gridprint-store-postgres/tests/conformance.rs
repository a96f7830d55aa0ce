//! Runs the store conformance suite on PostgreSQL, in a database of its own that is dropped afterwards.
//! Needs a server: `GRIDPRINT_TEST_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`,
//! which `.ci/run` makes sure is running). Without one this test FAILS; it never skips.

use gridprint_store_postgres::PgStore;
use gridprint_store_postgres::testing::TestDb;

#[test]
fn conformance_on_postgres() {
    let db = TestDb::new("conf");
    eprintln!(
        "running the store conformance suite on PostgreSQL database {}",
        db.name
    );
    let store = PgStore::connect(&db.url, 4).unwrap();
    gridprint_store::conformance::run_all(&store);
    // Connecting again applies no migration twice.
    let again = PgStore::connect(&db.url, 2).unwrap();
    use gridprint_store::InputStore;
    assert!(again.input_extent().unwrap().is_some());
}

#[test]
fn one_leader_per_database() {
    let db = TestDb::new("lead");
    let (a, b) = (db.store(), db.store());
    gridprint_store::conformance::leadership(&a, &b);
}

#[test]
fn staging_left_by_a_dead_run_is_cleared_by_the_next() {
    let db = TestDb::new("stage");
    let (a, b) = (db.store(), db.store());
    gridprint_store::conformance::abandoned_staging(&a, &b);
}

#[test]
fn read_only_replica() {
    let db = TestDb::new("ro");
    let writable = db.store();
    let ro = PgStore::connect_with(&db.url, 2, true).unwrap();
    gridprint_store::conformance::read_only(&writable, &ro);
}
