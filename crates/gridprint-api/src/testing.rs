//! Test helpers: a [`Clock`] that tests move forward, to check token expiry, cache re-checks and
//! brute-force windows without waiting; a configuration without failure delay or rate limit; and a
//! real server on an ephemeral port for the tests of clients and of the binary.

use gridprint_core::slot::Clock;
use std::sync::{Arc, Mutex};
use time::OffsetDateTime;

/// A clock showing a settable instant; clones share the same time.
#[derive(Debug, Clone)]
pub struct MutableClock(Arc<Mutex<OffsetDateTime>>);

impl MutableClock {
    /// A clock starting at `start`.
    pub fn new(start: OffsetDateTime) -> MutableClock {
        MutableClock(Arc::new(Mutex::new(start)))
    }

    /// Moves the clock forward (or back, with a negative duration).
    pub fn advance(&self, by: time::Duration) {
        let mut t = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *t += by;
    }

    /// Sets the clock.
    pub fn set(&self, to: OffsetDateTime) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = to;
    }
}

impl Clock for MutableClock {
    fn now(&self) -> OffsetDateTime {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The default configuration without the failure delay and the rate limit.
pub fn quiet_config() -> crate::state::ApiConfig {
    crate::state::ApiConfig {
        failure_delay: std::time::Duration::ZERO,
        rate_limit_per_second: 0.0,
        ..crate::state::ApiConfig::default()
    }
}

/// A server running in the current runtime; it stops when dropped.
pub struct TestServer {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// Loads the cache of `state` and serves it on 127.0.0.1 at a port the kernel picks.
pub async fn serve_ephemeral(state: crate::state::AppState) -> TestServer {
    crate::refresh::load(&state).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(crate::serve(listener, state, async move {
        let _ = stopped.await;
    }));
    TestServer {
        url: format!("http://{addr}"),
        _stop: stop,
    }
}
