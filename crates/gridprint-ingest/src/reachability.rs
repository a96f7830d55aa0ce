//! Whether each provider host answered at its last attempt, so that a host that cannot be reached
//! is said once, at its first failed attempt and before the retries (a worker without internet
//! used to spend its first cycle in silent retries), and said again only when it answers again.
//!
//! One process-wide table keyed by host name, written by `crate::http`'s retry loop; the health
//! probes of `serve` keep their own state (`crate::health`).

use std::collections::BTreeSet;
use std::sync::Mutex;

/// Hosts whose last attempt got no answer.
static UNREACHABLE: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Notes that `host` gave no answer; true when it answered (or was never tried) before, i.e.
/// when this is news to log.
pub(crate) fn note_unreachable(host: &str) -> bool {
    UNREACHABLE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(host.to_string())
}

/// Notes that `host` answered; true when it was unreachable before.
pub(crate) fn note_answered(host: &str) -> bool {
    let mut set = UNREACHABLE.lock().unwrap_or_else(|e| e.into_inner());
    !set.is_empty() && set.remove(host)
}

#[cfg(test)]
mod tests {
    use super::{note_answered, note_unreachable};

    #[test]
    fn a_host_is_news_once_per_change() {
        let host = "unreachable.test.invalid";
        assert!(!note_answered(host), "never failed: nothing to say");
        assert!(note_unreachable(host), "first failure: say it");
        assert!(!note_unreachable(host), "second failure: already said");
        assert!(!note_unreachable(host));
        assert!(note_answered(host), "answers again: say it");
        assert!(!note_answered(host));
        assert!(note_unreachable(host), "fails again: say it again");
        assert!(note_answered(host));
    }
}
