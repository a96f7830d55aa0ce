//! Throttles: the brute-force guard of the token service and the per-client request rate limit.
//!
//! Both keep their counters **in memory, per process**. Behind a load balancer with several `serve`
//! processes each process counts on its own, so the effective limits are multiplied by the number of
//! processes; that still bounds guessing to a few hundred attempts per email per hour, which Argon2id
//! and a 12-character minimum make useless. The client address is the socket peer
//! (`ConnectInfo<SocketAddr>`); forwarded-for headers are not trusted.
//!
//! * [`FailureGuard`]: more than `max_failures` failed credential attempts (wrong password, unknown
//!   email, registering without a grant or twice) for one email *or* one client address within the
//!   window → 429 with `Retry-After`. A successful `get_token` clears the email's count. Time comes
//!   from the injected [`Clock`](gridprint_core::slot::Clock) so tests can move it.
//! * [`RateLimiter`]: a token bucket per client address (rate and burst from
//!   [`ApiConfig`](crate::ApiConfig)), on the monotonic clock, applied to every route as middleware.

use crate::error::ApiError;
use crate::{AppState, ClientAddr};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use time::OffsetDateTime;

/// Above this many tracked keys, stale ones are swept before inserting.
const SWEEP_ABOVE: usize = 10_000;

/// What failed attempts are counted against.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum FailureKey {
    /// A normalised email.
    Email(String),
    /// A client address.
    Client(IpAddr),
}

impl std::fmt::Debug for FailureKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FailureKey::Email(_) => f.write_str("Email(<redacted>)"),
            FailureKey::Client(ip) => write!(f, "Client({ip})"),
        }
    }
}

/// Sliding-window counter of failed credential attempts per email and per client address.
#[derive(Debug)]
pub struct FailureGuard {
    max_failures: usize,
    window: time::Duration,
    failures: Mutex<HashMap<FailureKey, VecDeque<OffsetDateTime>>>,
}

impl FailureGuard {
    /// A guard allowing `max_failures` failures per key within `window`.
    pub fn new(max_failures: usize, window: Duration) -> FailureGuard {
        FailureGuard {
            max_failures,
            window: time::Duration::try_from(window).unwrap_or(time::Duration::MINUTE * 15),
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// `Err(429)` if any of `keys` already has `max_failures` failures within the window.
    pub fn check(&self, keys: &[FailureKey], now: OffsetDateTime) -> Result<(), ApiError> {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let mut wait: Option<i64> = None;
        for key in keys {
            if let Some(q) = map.get_mut(key) {
                prune(q, now - self.window);
                if q.len() >= self.max_failures {
                    let oldest = q[q.len() - self.max_failures];
                    let secs = (oldest + self.window - now).whole_seconds().max(1);
                    wait = Some(wait.map_or(secs, |w| w.max(secs)));
                }
            }
        }
        match wait {
            Some(secs) => Err(ApiError::too_many_requests(
                format!(
                    "too many failed attempts; try again in {} (after {secs} seconds)",
                    human_minutes(secs)
                ),
                secs as u64,
            )),
            None => Ok(()),
        }
    }

    /// Records one failure against each key; returns the highest count now within the window.
    pub fn record_failure(&self, keys: &[FailureKey], now: OffsetDateTime) -> usize {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > SWEEP_ABOVE {
            let horizon = now - self.window;
            map.retain(|_, q| {
                prune(q, horizon);
                !q.is_empty()
            });
        }
        let mut highest = 0;
        for key in keys {
            let q = map.entry(key.clone()).or_default();
            prune(q, now - self.window);
            q.push_back(now);
            // Only the most recent `max_failures` matter for the decision.
            while q.len() > self.max_failures {
                q.pop_front();
            }
            highest = highest.max(q.len());
        }
        highest
    }

    /// Forgets the failures of one key (after a success).
    pub fn clear(&self, key: &FailureKey) {
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
    }
}

fn prune(q: &mut VecDeque<OffsetDateTime>, horizon: OffsetDateTime) {
    while q.front().is_some_and(|t| *t <= horizon) {
        q.pop_front();
    }
}

fn human_minutes(secs: i64) -> String {
    if secs < 60 {
        format!("{secs} seconds")
    } else {
        let m = (secs + 59) / 60;
        format!("{m} minute{}", if m == 1 { "" } else { "s" })
    }
}

/// A token bucket per client address.
#[derive(Debug)]
pub struct RateLimiter {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimiter {
    /// `rate` requests per second sustained, up to `burst` at once. A rate of 0 or less disables it.
    pub fn new(rate: f64, burst: u32) -> RateLimiter {
        RateLimiter {
            rate,
            burst: f64::from(burst.max(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `ip`; `Err(seconds to wait)` when the bucket is empty.
    pub fn acquire(&self, ip: IpAddr, now: Instant) -> Result<(), u64> {
        if self.rate <= 0.0 || !self.rate.is_finite() {
            return Ok(());
        }
        let mut map = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > SWEEP_ABOVE {
            let full_after = self.burst / self.rate;
            map.retain(|_, b| now.duration_since(b.at).as_secs_f64() < full_after);
        }
        let b = map.entry(ip).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * self.rate).min(self.burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err(((1.0 - b.tokens) / self.rate).ceil().max(1.0) as u64)
        }
    }
}

/// Middleware: answers 429 with `Retry-After` when the client's bucket is empty.
pub(crate) async fn rate_limit(
    State(state): State<AppState>,
    client: ClientAddr,
    req: Request,
    next: Next,
) -> Response {
    match state.inner.rate.acquire(client.0, Instant::now()) {
        Ok(()) => next.run(req).await,
        Err(secs) => axum::response::IntoResponse::into_response(ApiError::too_many_requests(
            format!("rate limit exceeded; retry after {secs} seconds"),
            secs,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn guard_blocks_after_max_failures_and_forgets_after_the_window() {
        let g = FailureGuard::new(10, Duration::from_secs(900));
        let t0 = OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000);
        let k = [FailureKey::Email("a@b.cd".into())];
        for i in 0..10 {
            assert!(g.check(&k, t0 + time::Duration::seconds(i)).is_ok());
            g.record_failure(&k, t0 + time::Duration::seconds(i));
        }
        let e = g.check(&k, t0 + time::Duration::seconds(10)).unwrap_err();
        assert_eq!(e.status(), axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(e.retry_after(), Some(890));
        assert!(g.check(&k, t0 + time::Duration::seconds(900)).is_ok());
        g.clear(&k[0]);
        assert!(g.check(&k, t0 + time::Duration::seconds(11)).is_ok());
    }

    #[test]
    fn bucket_refills() {
        let r = RateLimiter::new(2.0, 3);
        let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let t = Instant::now();
        for _ in 0..3 {
            assert!(r.acquire(ip, t).is_ok());
        }
        assert_eq!(r.acquire(ip, t), Err(1));
        assert!(r.acquire(ip, t + Duration::from_millis(500)).is_ok());
    }
}
