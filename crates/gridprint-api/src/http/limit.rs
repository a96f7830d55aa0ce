//! Request rate limits (per account on the data routes, per client address on the public ones).
//!
//! The client address is the one [`crate::http::front`] resolved (the socket peer, or the address a
//! trusted proxy forwarded). The brute-force guard of the token service is [`crate::tokens::brute_force`].
//!
//! Rate limits use the one implementation of `gridprint-ratelimit` (GCRA; per process, or shared by
//! every replica through Redis with `--redis-url`): [`check_account`] limits each **account** on the
//! data routes (all its tokens together; the account's own tier, set with `gridprint access
//! set-limit`, or the server's default rate and burst); [`check_token_issue`] limits how many tokens
//! an account gets (default 30 a minute, bursts of 10); [`client_rate_limit`] limits each **client
//! address** on the public routes (token service, status, docs), and data requests whose token needs
//! a store lookup count against their client address too. Over a limit → 429 with `Retry-After`.

use crate::http::error::{ApiError, seconds};
use crate::http::front::ClientAddr;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use gridprint_ratelimit::{Decision, Quota};
use gridprint_store::AccountLimit;
use std::net::IpAddr;

/// The `ip:` key of a client address (an IPv6 client by its /64: [`crate::http::front::address_key`]).
fn client_key(ip: IpAddr) -> String {
    format!("ip:{}", crate::http::front::address_key(ip))
}

/// Writes `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.
pub(crate) fn rate_headers(h: &mut HeaderMap, d: &Decision) {
    h.insert("ratelimit-limit", HeaderValue::from(d.limit));
    h.insert("ratelimit-remaining", HeaderValue::from(d.remaining));
    h.insert("ratelimit-reset", HeaderValue::from(d.reset_secs));
}

/// The 429 of a refused decision, with `Retry-After` and the `RateLimit-*` headers.
fn refused(d: &Decision, what: &str) -> Response {
    let wait = d.retry_after_secs.max(1);
    let mut resp =
        ApiError::too_many_requests(format!("{what}; retry after {}", seconds(wait)), wait)
            .into_response();
    rate_headers(resp.headers_mut(), d);
    resp
}

/// Counts one request of a client address against the limit; `Err(429)` when over it.
pub(crate) async fn check_client(state: &AppState, ip: IpAddr) -> Result<(), Response> {
    let d = state.inner.limits.check(&client_key(ip)).await;
    if d.allowed {
        Ok(())
    } else {
        Err(refused(&d, "rate limit exceeded"))
    }
}

/// Counts one data request of an account (all its tokens share the budget) against its tier or
/// the default quota. `Ok(None)`: no limit applies (no `RateLimit-*` headers then).
pub(crate) async fn check_account(
    state: &AppState,
    email: &str,
    tier: Option<AccountLimit>,
) -> Result<Option<Decision>, Response> {
    let quota = match tier {
        Some(t) => Quota::new(t.rate_per_second, t.burst),
        None => state.inner.limits.default_quota(),
    };
    if !quota.is_limited() {
        return Ok(None);
    }
    count(state, &format!("account:{email}"), quota)
        .await
        .map(Some)
        .map_err(|d| refused(&d, "rate limit of this account exceeded"))
}

/// Counts one request under `key` against `quota`: `Ok` the decision when allowed, `Err` when not.
async fn count(state: &AppState, key: &str, quota: Quota) -> Result<Decision, Decision> {
    let d = state.inner.limits.check_quota(key, quota).await;
    if d.allowed { Ok(d) } else { Err(d) }
}

/// Counts one token issued to an account; `Err(429)` when it asked for too many.
pub(crate) async fn check_token_issue(state: &AppState, email: &str) -> Result<(), ApiError> {
    let c = state.config();
    let quota = Quota::new(c.token_requests_per_minute / 60.0, c.token_request_burst);
    let Err(d) = count(state, &format!("get_token:{email}"), quota).await else {
        return Ok(());
    };
    let wait = d.retry_after_secs.max(1);
    Err(ApiError::too_many_requests(
        format!(
            "too many tokens requested for this account; a token stays valid for 24 hours, so reuse it (retry after {})",
            seconds(wait)
        ),
        wait,
    ))
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
