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

/// A batch of inputs lands in the heap in primary-key order, whatever order the caller gives: each
/// day's rows then share a few pages, so the cache load's day-by-day reads touch few pages (rows in
/// hash-map order made a cold start on a year of data 2.0× SQLite's; docs/performance.md).
#[test]
fn inputs_are_written_in_key_order() {
    use gridprint_core::inputs::{InputKey, InputPoint};
    use gridprint_core::quality::DataState;
    use gridprint_core::slot::Slot;
    use gridprint_core::zone::ZoneCode;
    use gridprint_store::InputStore;
    let db = TestDb::new("order");
    let store = db.store();
    let zones = [
        "AT", "BE", "CH", "CZ", "DE", "DK-DK1", "ES", "FR", "IT-NO", "NL", "PL",
    ];
    let mut points = Vec::new();
    for slot in (0..3 * 96).rev() {
        for zone in zones.iter().rev() {
            points.push(InputPoint {
                key: InputKey::Load {
                    zone: ZoneCode::parse(zone).unwrap(),
                },
                slot: Slot(1_900_000 + slot),
                mw: 1000.0 + slot as f64,
                state: DataState::Official,
                datasource: "ENTSO-E".to_string(),
            });
        }
    }
    assert_eq!(
        store.upsert_inputs(&points, 1).unwrap().inserted,
        points.len()
    );
    let in_heap: Vec<(i64, String)> = store
        .with_connection(|c| {
            Ok(
                c.query("SELECT slot, zone FROM input_point ORDER BY ctid", &[])
                    .unwrap()
                    .iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect(),
            )
        })
        .unwrap();
    assert_eq!(in_heap.len(), points.len());
    let mut sorted = in_heap.clone();
    sorted.sort();
    assert!(in_heap == sorted, "heap order is not key order");
}
