//! The real server of the end-to-end tests of the client (`crates/gridprint-client/tests/client.rs`)
//! and of `gridprint query` (`crates/gridprint/tests/query.rs`, which includes this file through
//! `#[path]`): the account, one in-memory SQLite store per test binary holding real ENTSO-E
//! documents from `data/fixtures` (imported and computed once, access granted), a server over it on
//! an ephemeral port, and registration.

use gridprint_api::testing::{MutableClock, TestServer, serve_ephemeral};
use gridprint_api::{ApiConfig, AppState};
use gridprint_client::{Client, Error};
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_store::SharedStore;
use gridprint_store_sqlite::SqliteStore;
use std::sync::{Arc, OnceLock};
use time::OffsetDateTime;

/// The account of the tests.
pub const EMAIL: &str = "ada@example.org";
pub const PASSWORD: &str = "correct horse battery";
/// The registration code of the test account's grant.
pub const CODE: &str = "0123-4567-89AB-CDEF-0123-4567-89AB-CDEF";

fn reference() -> Arc<ReferenceData> {
    static REF: OnceLock<Arc<ReferenceData>> = OnceLock::new();
    REF.get_or_init(|| Arc::new(ReferenceData::embedded(ZoneSet::Selected2026)))
        .clone()
}

/// One store for the whole test binary: `fixtures` (paths under `data/fixtures`; the same list at
/// every call of a binary) imported and computed at the first call, access granted to [`EMAIL`].
fn store(fixtures: &[&str]) -> SharedStore {
    static STORE: OnceLock<SharedStore> = OnceLock::new();
    STORE
        .get_or_init(|| {
            let reference = reference();
            let store: SharedStore = Arc::new(SqliteStore::open_in_memory().unwrap());
            let now = OffsetDateTime::now_utc();
            gridprint_pipeline::testing::import_fixtures(
                &*store,
                &reference,
                fixtures,
                now.unix_timestamp(),
                Some(now),
            );
            store
                .grant(
                    EMAIL,
                    Some(&gridprint_api::tokens::registration_code::code_hash(CODE)),
                    0,
                )
                .unwrap();
            store
        })
        .clone()
}

/// A server on 127.0.0.1:0 in the calling test's runtime; stops when dropped.
pub struct Server {
    pub url: String,
    /// The server's clock, starting at the real now.
    #[allow(dead_code)] // `gridprint query`'s tests leave it alone
    pub clock: MutableClock,
    _server: TestServer,
}

/// A server over the store of `fixtures` (see [`store`]) with `config`.
pub async fn server(fixtures: &[&str], config: ApiConfig) -> Server {
    let clock = MutableClock::new(OffsetDateTime::now_utc());
    let state = AppState::new(
        store(fixtures),
        reference(),
        Arc::new(clock.clone()),
        config,
    );
    let server = serve_ephemeral(state).await;
    Server {
        url: server.url.clone(),
        clock,
        _server: server,
    }
}

/// Registers with the grant's code (once per store; 409 afterwards is fine).
pub async fn registered(client: &Client) {
    match client.register(Some(CODE)).await {
        Ok(()) | Err(Error::Api { status: 409, .. }) => {}
        Err(e) => panic!("register: {e}"),
    }
}
