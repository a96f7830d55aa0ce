//! The server-wide cap on open connections (`serve --max-connections`).
//!
//! Every accepted connection takes a [`Seat`] for as long as it is open. At the cap, a new
//! connection takes the seat of the oldest connection that has not delivered a whole request yet
//! (that one is told to close: a slow or silent client, usually), so that clients who send their
//! requests promptly keep being served while slow ones hold every seat; when no such connection
//! exists, the new one is closed as soon as it is accepted. Either way it is counted as a refusal
//! ([`crate::http::refusals`]), never logged one by one. Below the cap the process never runs out
//! of file descriptors, so `accept` does not fail in a loop.
//!
//! The default of `serve` comes from the process's file limit ([`max_connections_for_file_limit`]).
//! The per-address cap ([`crate::http::server`]) applies first. docs/reliability.md, "Slow clients",
//! has the figures.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio_util::sync::CancellationToken;

/// File descriptors kept for everything but client connections, at least: the store (SQLite's
/// files or the PostgreSQL pool), the data cache's spill files, the log files, the listeners
/// (API, metrics), Redis, the provider checks and the runtime's own.
pub const RESERVED_FILES_MIN: u64 = 256;

/// The default connection cap for a file limit (`RLIMIT_NOFILE`) of `nofile`: the limit less
/// `max(256, nofile / 8)` kept for everything else (20,000 → 17,500; 65,536 → 57,344;
/// 1,024 → 768), at least 1.
pub fn max_connections_for_file_limit(nofile: u64) -> usize {
    let reserve = (nofile / 8).max(RESERVED_FILES_MIN);
    usize::try_from(nofile.saturating_sub(reserve))
        .unwrap_or(usize::MAX)
        .max(1)
}

/// The seats of all open connections.
pub(crate) struct ConnectionCap {
    max: usize,
    seats: Mutex<Seats>,
}

#[derive(Default)]
struct Seats {
    /// Connections holding a seat.
    open: usize,
    /// The serial of the next connection (connections are ordered by it, oldest first).
    next: u64,
    /// Connections that have not delivered a whole request yet, oldest first, with the token
    /// that tells each to close.
    waiting: BTreeMap<u64, CancellationToken>,
    /// Connections told to close whose seat went to a newer one: their drop frees nothing.
    moved: HashSet<u64>,
}

/// One connection's seat, given back when dropped (with the connection's task).
pub(crate) struct Seat {
    cap: Arc<ConnectionCap>,
    serial: u64,
    started: AtomicBool,
    evicted: CancellationToken,
}

/// What [`ConnectionCap::admit`] decided.
pub(crate) enum Admission {
    /// A free seat.
    Free(Seat),
    /// The seat of an older connection that had not delivered a request; it is told to close.
    Taken(Seat),
    /// At the cap with every connection busy: close the new one.
    Full,
}

impl ConnectionCap {
    /// A cap of `max` open connections; 0: no cap.
    pub(crate) fn new(max: usize) -> Arc<ConnectionCap> {
        Arc::new(ConnectionCap {
            max: if max == 0 { usize::MAX } else { max },
            seats: Mutex::new(Seats::default()),
        })
    }

    /// A seat for a newly accepted connection (see [`Admission`]).
    pub(crate) fn admit(self: &Arc<Self>) -> Admission {
        let mut s = self.seats.lock().unwrap_or_else(PoisonError::into_inner);
        let taken = if s.open < self.max {
            s.open += 1;
            false
        } else if let Some((oldest, close)) = s.waiting.pop_first() {
            close.cancel();
            s.moved.insert(oldest);
            true
        } else {
            return Admission::Full;
        };
        let serial = s.next;
        s.next += 1;
        let evicted = CancellationToken::new();
        s.waiting.insert(serial, evicted.clone());
        let seat = Seat {
            cap: self.clone(),
            serial,
            started: AtomicBool::new(false),
            evicted,
        };
        if taken {
            Admission::Taken(seat)
        } else {
            Admission::Free(seat)
        }
    }

    /// Connections holding a seat now.
    #[cfg(test)]
    fn open(&self) -> usize {
        self.seats
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .open
    }
}

impl Seat {
    /// Cancelled when a newer connection took this seat: the connection must close.
    pub(crate) fn evicted(&self) -> &CancellationToken {
        &self.evicted
    }

    /// The connection delivered a whole request: its seat is no longer given away. Cheap after the
    /// first call.
    pub(crate) fn started(&self) {
        if !self.started.swap(true, Ordering::Relaxed) {
            let mut s = self
                .cap
                .seats
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            s.waiting.remove(&self.serial);
        }
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut s = self
            .cap
            .seats
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        s.waiting.remove(&self.serial);
        if !s.moved.remove(&self.serial) {
            s.open -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Admission, ConnectionCap, max_connections_for_file_limit};

    fn seat(a: Admission) -> super::Seat {
        match a {
            Admission::Free(s) | Admission::Taken(s) => s,
            Admission::Full => panic!("full"),
        }
    }

    #[test]
    fn at_the_cap_the_oldest_waiting_connection_gives_its_seat_and_busy_ones_keep_theirs() {
        let cap = ConnectionCap::new(2);
        let busy = seat(cap.admit());
        busy.started();
        let slow = seat(cap.admit());
        let newer = match cap.admit() {
            Admission::Taken(s) => s,
            _ => panic!("the slow one's seat"),
        };
        assert!(slow.evicted().is_cancelled());
        assert!(!busy.evicted().is_cancelled());
        drop(slow);
        assert_eq!(cap.open(), 2, "the moved seat is not freed twice");
        newer.started();
        assert!(matches!(cap.admit(), Admission::Full), "both busy");
        drop(busy);
        assert_eq!(cap.open(), 1);
        assert!(matches!(cap.admit(), Admission::Free(_)));
        let unlimited = ConnectionCap::new(0);
        let all: Vec<_> = (0..100).map(|_| seat(unlimited.admit())).collect();
        assert_eq!(unlimited.open(), all.len(), "0: no cap");
    }

    #[test]
    fn the_default_leaves_room_for_everything_else() {
        assert_eq!(max_connections_for_file_limit(20_000), 17_500);
        assert_eq!(max_connections_for_file_limit(65_536), 57_344);
        assert_eq!(max_connections_for_file_limit(1_024), 768);
        assert_eq!(max_connections_for_file_limit(100), 1);
    }
}
