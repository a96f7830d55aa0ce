//! Refusals counted and summarised: what the server turned away under load, never one log line each.
//!
//! A refusal is a request or connection the server declined to serve to protect everybody else:
//! a connection past the server-wide cap ([`crate::http::server`]), an accept the operating system
//! failed (out of file descriptors), a rate limit's 429, a body not sent within the body deadline
//! (408), an answer past the response-memory budget (503) or a request past the request timeout
//! (503). Each one increments the Prometheus counter [`REFUSALS_TOTAL`] (label `kind`, one of
//! [`Refusal::label`]) at once, and a pending count per kind; each running server flushes those
//! counts into at most one warning per kind and interval (`--refusal-log-interval`, a minute by
//! default), e.g. "refused 492 requests in the last 60 s: response-memory budget". A client
//! therefore never sets how fast the log grows. The pending counts are process-wide, like the
//! metrics. Responses carry their kind as an extension ([`crate::http::error::ApiError`] sets it),
//! which [`crate::http::layers`] counts.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Metric: refusals, by `kind`.
pub const REFUSALS_TOTAL: &str = "http_refusals_total";

/// What was refused, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A connection closed at a connection cap: its address's, or the server-wide one (refused at
    /// accept, or closed before its first request to make room for a newer one).
    ConnectionCap,
    /// `accept` failed for a reason other than the one connection (out of file descriptors).
    AcceptFailed,
    /// A 429 of a rate limit (per account, per client address, token issue, failed attempts).
    RateLimit,
    /// A 408: the request body was not sent within the body deadline.
    BodyDeadline,
    /// A 503 of the response-memory budget.
    ResponseMemory,
    /// A 503 of the request timeout.
    RequestTimeout,
}

const KINDS: [Refusal; 6] = [
    Refusal::ConnectionCap,
    Refusal::AcceptFailed,
    Refusal::RateLimit,
    Refusal::BodyDeadline,
    Refusal::ResponseMemory,
    Refusal::RequestTimeout,
];

/// Refusals of each kind (indexed by [`Refusal::index`]) not yet written to the log.
static PENDING: [AtomicU64; KINDS.len()] = [const { AtomicU64::new(0) }; KINDS.len()];

impl Refusal {
    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Refusal::ConnectionCap => "connection_cap",
            Refusal::AcceptFailed => "accept_failed",
            Refusal::RateLimit => "rate_limit",
            Refusal::BodyDeadline => "body_deadline",
            Refusal::ResponseMemory => "response_memory",
            Refusal::RequestTimeout => "request_timeout",
        }
    }

    /// What was refused (plural) and why, for the summary line.
    fn phrase(self) -> (&'static str, &'static str) {
        match self {
            Refusal::ConnectionCap => (
                "connections",
                "connection caps (--max-connections, --max-connections-per-address)",
            ),
            Refusal::AcceptFailed => (
                "connections",
                "accept failed (out of file descriptors? lower --max-connections or raise the file limit)",
            ),
            Refusal::RateLimit => ("requests", "rate limits (429)"),
            Refusal::BodyDeadline => ("requests", "body not sent within --body-read-timeout (408)"),
            Refusal::ResponseMemory => ("requests", "response-memory budget (503)"),
            Refusal::RequestTimeout => ("requests", "request timeout (503)"),
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Counts one refusal of `kind`: the metric now, the log line at the next summary.
pub fn record(kind: Refusal) {
    metrics::counter!(REFUSALS_TOTAL, "kind" => kind.label()).increment(1);
    PENDING[kind.index()].fetch_add(1, Ordering::Relaxed);
}

/// Writes one warning per kind refused since the last call, with its count.
fn flush(interval: Duration) {
    for kind in KINDS {
        let n = PENDING[kind.index()].swap(0, Ordering::Relaxed);
        if n > 0 {
            let (what, why) = kind.phrase();
            tracing::warn!(
                kind = kind.label(),
                refused = n,
                "refused {n} {what} in the last {} s: {why}",
                interval.as_secs()
            );
        }
    }
}

/// Summarises the refusals every `interval` until `stop` is cancelled, then once more.
pub(crate) async fn summarise(interval: Duration, stop: tokio_util::sync::CancellationToken) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await; // the first tick is immediate
    loop {
        tokio::select! {
            _ = tick.tick() => flush(interval),
            () = stop.cancelled() => break,
        }
    }
    flush(interval);
}

#[cfg(test)]
mod tests {
    use super::{KINDS, Refusal};

    #[test]
    fn every_kind_has_its_own_slot_and_label() {
        for (i, k) in KINDS.iter().enumerate() {
            assert_eq!(k.index(), i, "{k:?}");
        }
        let labels: std::collections::HashSet<_> = KINDS.iter().map(|k| k.label()).collect();
        assert_eq!(labels.len(), KINDS.len());
        assert_eq!(Refusal::ResponseMemory.label(), "response_memory");
    }
}
