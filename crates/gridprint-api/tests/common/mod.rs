//! What the API's integration tests share: the embedded reference data, a configuration without
//! failure delay or rate limit (from `gridprint_api::testing`), and one request through the router
//! read back as a [`Reply`].
//! The data suites share their "now", token and 2024 day; the token-service suites (`token`,
//! `access_limits`) their account, their clock's start, the app they drive and a server on a real
//! socket.
//! Each test file includes it with `mod common;`; not every file uses every item.

#![allow(dead_code)]

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode, header};
use gridprint_api::AppState;
use gridprint_api::testing::MutableClock;
pub use gridprint_api::testing::quiet_config;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_store::SharedStore;
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use time::OffsetDateTime;
use time::macros::datetime;
use tower::ServiceExt;

/// The account the token-service tests grant, register and log in with.
pub const EMAIL: &str = "ada@example.org";
pub const PASSWORD: &str = "correct horse battery";
/// "Now" of every request of the data suites (`data_api`, `hostile`): long after the demo data, so
/// every computed slot is final.
pub const NOW: OffsetDateTime = datetime!(2026-03-01 12:00:00 UTC);
/// Where the clock of the token-service tests starts.
pub const START: OffsetDateTime = NOW;
/// The valid token of the data suites (stored as its hash).
pub const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
/// The day of the NL load, generation and DE↔NL flows of 2024.
pub const DAY_NL: &str = "start=2024-09-02T00:00:00Z&end=2024-09-03T00:00:00Z";

/// An app of the token-service tests, its store and the clock the test moves.
pub struct Env {
    pub app: Router,
    pub store: SharedStore,
    pub clock: MutableClock,
}

/// Stores a new API key for [`EMAIL`] as `gridprint access key create` does, created at [`START`]
/// and expiring at `expires_at` (Unix seconds; `None`: never); the key and its id.
pub fn create_key(store: &SharedStore, expires_at: Option<i64>) -> (String, i64) {
    let key = gridprint_api::tokens::token::new_token().unwrap();
    let inserted = store
        .insert_api_key(&gridprint_store::NewApiKey {
            key_hash: gridprint_api::tokens::auth::token_hash(&key),
            email: EMAIL.into(),
            name: "test".into(),
            created_at: START.unix_timestamp(),
            expires_at,
        })
        .unwrap();
    let gridprint_store::KeyInsert::Created(id) = inserted else {
        panic!("key not created: {inserted:?}");
    };
    (key, id)
}

/// The embedded reference data (2026 zones), built once.
pub fn reference() -> Arc<ReferenceData> {
    static REF: OnceLock<Arc<ReferenceData>> = OnceLock::new();
    REF.get_or_init(|| Arc::new(ReferenceData::embedded(ZoneSet::Selected2026)))
        .clone()
}

/// An answer of the router.
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    /// The body as JSON; panics with the body when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
    /// A header's value, `""` when absent or not text.
    pub fn header(&self, name: impl header::AsHeaderName) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
    /// The `detail` string; for the framework's 422 list, its items' `loc` and `msg` joined.
    pub fn detail(&self) -> String {
        let v = self.json();
        if let Some(items) = v["detail"].as_array() {
            return items
                .iter()
                .map(|i| {
                    format!(
                        "{}: {}",
                        i["loc"][1].as_str().unwrap_or(""),
                        i["msg"].as_str().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
        }
        v["detail"]
            .as_str()
            .unwrap_or_else(|| panic!("no string detail: {}", self.text()))
            .to_string()
    }
}

/// Sends one request through the router.
pub async fn send(app: &Router, req: Request<Body>) -> Reply {
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    let body = axum::body::to_bytes(resp.into_body(), 64 << 20)
        .await
        .unwrap()
        .to_vec();
    Reply {
        status,
        headers,
        body,
    }
}

/// A GET of `uri` with the bearer `token` (if any) and the `extra` headers.
pub fn request(uri: &str, token: Option<&str>, extra: &[(&str, &str)]) -> Request<Body> {
    let mut b = Request::builder().uri(uri);
    if let Some(t) = token {
        b = b.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    for (k, v) in extra {
        b = b.header(*k, *v);
    }
    b.body(Body::empty()).unwrap()
}

/// GET of `path` with the bearer `token` (if any).
pub async fn get_as(app: &Router, path: &str, token: Option<&str>) -> Reply {
    send(app, request(path, token, &[])).await
}

/// A server over a store (system clock, quiet configuration) on a port of 127.0.0.1 the kernel
/// picks.
pub struct SocketServer {
    pub addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl SocketServer {
    /// Starts serving `store`.
    pub async fn start(store: SharedStore) -> SocketServer {
        let state = AppState::new(
            store,
            reference(),
            Arc::new(gridprint_core::slot::SystemClock),
            quiet_config(),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(gridprint_api::serve(listener, state, async {
            let _ = stopped.await;
        }));
        SocketServer { addr, stop, task }
    }

    /// Asks the server to shut down and asserts that it ends cleanly.
    pub async fn stop(self) {
        self.stop.send(()).unwrap();
        self.task.await.unwrap().unwrap();
    }
}

/// `b` unzipped (gzip).
pub fn gunzip(b: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(b)
        .read_to_end(&mut out)
        .unwrap();
    out
}
