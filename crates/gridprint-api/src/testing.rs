//! Test helpers: a [`Clock`] that tests move forward, to check token expiry, cache re-checks and
//! brute-force windows without waiting.

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
