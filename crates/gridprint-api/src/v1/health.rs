//! What `/v1/status` reports, kept where every part of the server can record it: the storage health
//! ([`StorageHealth`]: whether the store answered its last check, when that was, whether the cache
//! was ever loaded) and the upstream providers' probes ([`Providers`]).
//!
//! [`crate::refresh`] records each storage check here and the data routes refuse with 503 while the
//! store is down; [`crate::v1::status`] serves both. The binary wires in the ingest crate's background
//! health checker as the probes; without probes every provider is `unknown`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A provider's state as `/v1/status` prints it (`up`, `down` or `unknown`); called per request, so
/// it must return at once (read a cached state).
pub type ProbeFn = Arc<dyn Fn() -> &'static str + Send + Sync>;

/// What the replaying demo says about itself (`serve --demo`), read by `/v1/status` and the
/// dashboard on every request: it must return at once.
pub type DemoFn = Arc<dyn Fn() -> gridprint_responses::DemoStatus + Send + Sync>;

/// Where `/v1/status` reads the upstream providers' states.
#[derive(Clone)]
pub struct Providers {
    pub entsoe: ProbeFn,
    pub elexon: ProbeFn,
    pub epias: ProbeFn,
}

impl Providers {
    /// A probe that always says the same.
    pub fn fixed(state: &'static str) -> ProbeFn {
        Arc::new(move || state)
    }
}

impl Default for Providers {
    /// Every provider `unknown` (nothing checks them).
    fn default() -> Providers {
        Providers {
            entsoe: Providers::fixed("unknown"),
            elexon: Providers::fixed("unknown"),
            epias: Providers::fixed("unknown"),
        }
    }
}

impl std::fmt::Debug for Providers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Providers")
            .field("entso-e", &(self.entsoe)())
            .field("elexon", &(self.elexon)())
            .field("epias", &(self.epias)())
            .finish()
    }
}

/// Whether the store answers, as last checked, and whether the cache was ever loaded.
#[derive(Debug)]
pub struct StorageHealth {
    up: AtomicBool,
    loaded: AtomicBool,
    checked_at: Mutex<Option<Instant>>,
}

impl StorageHealth {
    pub(crate) fn new(loaded: bool) -> StorageHealth {
        StorageHealth {
            up: AtomicBool::new(true),
            loaded: AtomicBool::new(loaded),
            checked_at: Mutex::new(None),
        }
    }

    /// Records the outcome of a check; returns the previous state.
    pub fn record(&self, up: bool) -> bool {
        *self.checked_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        self.up.swap(up, Ordering::Relaxed)
    }

    /// Records that the cache now holds the store's data.
    pub fn mark_loaded(&self) {
        self.loaded.store(true, Ordering::Relaxed);
    }

    /// The last recorded state (`true` before any check).
    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    /// Whether the cache has been loaded at least once.
    pub fn loaded(&self) -> bool {
        self.loaded.load(Ordering::Relaxed)
    }

    /// The last state if it was checked within `max_age`.
    pub(crate) fn recent(&self, max_age: Duration) -> Option<bool> {
        let at = *self.checked_at.lock().unwrap_or_else(|e| e.into_inner());
        at.filter(|t| t.elapsed() <= max_age).map(|_| self.is_up())
    }
}
