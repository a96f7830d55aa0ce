//! Throttles: the brute-force guard of the token service, and the request rate limits.
//!
//! The client address is the socket peer (`ConnectInfo<SocketAddr>`); forwarded-for headers are not
//! trusted.
//!
//! * [`FailureGuard`]: more than `max_failures` failed credential attempts (wrong password, unknown
//!   email, registering without a grant or twice) for one email *or* one client address within the
//!   window → 429 with `Retry-After`. A successful `get_token` clears the email's count. Time comes
//!   from the injected [`Clock`](gridprint_core::slot::Clock) so tests can move it.
//!   Its counters live **in memory, per process**: behind a load balancer with several `serve`
//!   processes each counts on its own, which still bounds guessing to a few hundred attempts per
//!   email per hour — useless against Argon2id and a 12-character minimum.
//! * Rate limits use the one implementation of `gridprint-ratelimit` (GCRA; per process, or shared by
//!   every replica through Redis with `--redis-url`), rate and burst from
//!   [`ApiConfig`](crate::ApiConfig): [`data_guard`] limits each **token** on the data routes and
//!   adds `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` to every answer;
//!   [`client_rate_limit`] limits each **client address** on the public routes (token service,
//!   status, docs), and data requests whose token needs a store lookup count against their client
//!   address too. Over the limit → 429 with `Retry-After`.

use crate::auth;
use crate::error::ApiError;
use crate::{AppState, ClientAddr};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use gridprint_ratelimit::Decision;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;
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

/// The `ip:` key of a client address.
fn client_key(ip: IpAddr) -> String {
    format!("ip:{ip}")
}

/// The `token:` key of a token (its SHA-256, as the token cache keys it).
fn token_key(hash: &str) -> String {
    format!("token:{hash}")
}

/// Whether a rate limit is configured (without one, no `RateLimit-*` headers are sent).
fn limited(state: &AppState) -> bool {
    let rate = state.config().rate_limit_per_second;
    rate > 0.0 && rate.is_finite()
}

/// Writes `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.
pub(crate) fn rate_headers(h: &mut HeaderMap, d: &Decision) {
    h.insert("ratelimit-limit", HeaderValue::from(d.limit));
    h.insert("ratelimit-remaining", HeaderValue::from(d.remaining));
    h.insert("ratelimit-reset", HeaderValue::from(d.reset_secs));
}

/// The 429 of a refused decision, with `Retry-After` and the `RateLimit-*` headers.
fn refused(d: &Decision) -> Response {
    let mut resp = ApiError::too_many_requests(
        format!(
            "rate limit exceeded; retry after {} seconds",
            d.retry_after_secs.max(1)
        ),
        d.retry_after_secs,
    )
    .into_response();
    rate_headers(resp.headers_mut(), d);
    resp
}

/// Counts one request of a client address against the limit; `Err(429)` when over it.
pub(crate) async fn check_client(state: &AppState, ip: IpAddr) -> Result<(), Response> {
    let d = state.inner.limits.check(&client_key(ip)).await;
    if d.allowed { Ok(()) } else { Err(refused(&d)) }
}

/// Middleware of the public routes (token service, status, docs): a rate limit per client address.
pub(crate) async fn client_rate_limit(
    State(state): State<AppState>,
    client: ClientAddr,
    req: Request,
    next: Next,
) -> Response {
    match check_client(&state, client.0).await {
        Ok(()) => next.run(req).await,
        Err(resp) => resp,
    }
}

/// Middleware of the protected data routes: authenticates the Bearer token (401), counts the request
/// against the token's rate limit (429 with `Retry-After`), hands the [`AuthUser`] to the handler and
/// adds the `RateLimit-*` headers to the answer.
///
/// A token the in-memory cache does not know (or has not confirmed for a while) costs a store lookup;
/// such requests count against the client address's limit first, so random tokens cannot flood the
/// database.
pub(crate) async fn data_guard(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
    let client = ClientAddr::of(req.extensions());
    let user = match auth::authenticate(&state, req.headers(), client).await {
        Ok(u) => u,
        Err(resp) => return resp,
    };
    let d = state.inner.limits.check(&token_key(&user.token_hash)).await;
    if !d.allowed {
        return refused(&d);
    }
    req.extensions_mut().insert(user.user);
    let mut resp = next.run(req).await;
    if limited(&state) {
        rate_headers(resp.headers_mut(), &d);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
