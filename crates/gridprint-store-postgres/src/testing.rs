//! Test support: a throwaway PostgreSQL database per test, created on the server named by
//! `GRIDPRINT_TEST_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`) and dropped
//! afterwards. When no server answers there, `gridprint-testsvc` starts a throwaway cluster for the
//! test process; a test fails (never skips) when neither is possible.

use crate::PgStore;

/// The administrative URL tests create their databases from.
pub fn admin_url() -> String {
    gridprint_testsvc::postgres_url()
}

/// A fresh database for one test, dropped on drop.
pub struct TestDb {
    pub name: String,
    pub url: String,
}

impl TestDb {
    /// Creates the database; panics with a clear message when PostgreSQL is not reachable.
    pub fn new(tag: &str) -> TestDb {
        // On a thread of its own: the blocking client must not run inside an async runtime.
        let tag = tag.to_string();
        std::thread::spawn(move || TestDb::create(&tag))
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
    }

    fn create(tag: &str) -> TestDb {
        let admin = admin_url();
        let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap_or_else(|e| {
            panic!(
                "PostgreSQL is required for this test (GRIDPRINT_TEST_POSTGRES_URL={admin}): {e}"
            )
        });
        let name = format!(
            "gridprint_test_{tag}_{}_{}",
            std::process::id(),
            gridprint_store::new_run_id().unsigned_abs() % 1_000_000
        );
        c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
        let url = match admin.rfind('/') {
            Some(i) if admin[..i].contains("://") && i > admin.find("://").unwrap() + 2 => {
                format!("{}/{name}", &admin[..i])
            }
            _ => format!("{admin}/{name}"),
        };
        TestDb { name, url }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        // On a thread of its own: the blocking client must not run inside an async runtime.
        let name = self.name.clone();
        let _ = std::thread::spawn(move || {
            if let Ok(mut c) = postgres::Client::connect(&admin_url(), postgres::NoTls) {
                let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
            }
        })
        .join();
    }
}

impl TestDb {
    /// A store on this database.
    pub fn store(&self) -> PgStore {
        PgStore::connect(&self.url, 4).expect("connect to the test database")
    }
}
