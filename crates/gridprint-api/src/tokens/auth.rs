//! Bearer authentication of the data routes: the `data_guard` middleware and the [`AuthUser`]
//! extractor. An API key (`gridprint access key create`) works wherever a token does, and either
//! may come in the `auth-token` header the Electricity Maps clients send.
//!
//! A handler that takes an [`AuthUser`] argument is protected: the request must carry
//! `Authorization: Bearer <token>` with a token issued by the token service, not expired and not
//! revoked; otherwise the answer is 401 with `WWW-Authenticate: Bearer` and a `detail` saying why.
//!
//! Tokens are verified from the in-memory [`TokenCache`](crate::tokens::token_cache::TokenCache), so the
//! hot path makes no database round trip; an entry older than 30 s is confirmed again against the
//! store before it is used, so a revocation made by `gridprint access revoke` in another process
//! stops the token within 60 s (30 s cache age + the request that notices). Expiry is checked
//! against the injected clock on every request. Malformed tokens are rejected before any lookup;
//! unknown ones cost one store lookup and are not cached, and count against the client address's
//! rate limit before the lookup. A request with two `Authorization` headers is 401, whatever their
//! order. The cache also holds the account's own
//! rate limit (its tier), re-read with the token, so a tier changed by `gridprint access set-limit`
//! applies on every replica within 60 s. Tokens are never logged and nothing here implements
//! `Debug` with a token in it.

use crate::http::error::ApiError;
use crate::http::front::ClientAddr;
use crate::state::AppState;
use crate::tokens::token_cache::{Cached, STALE_GRACE};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use gridprint_store::{AccountLimit, Secret};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

/// Length of a token: 32 random bytes as lowercase hex.
pub const TOKEN_LEN: usize = 64;

/// The authenticated caller of a data route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthUser {
    /// The normalised email the token was issued to.
    pub email: String,
    /// When the token expires.
    pub expires_at: OffsetDateTime,
}

/// SHA-256 of a token or API key, lowercase hex: the only form in which they are stored or cached.
pub fn token_hash(token: &str) -> Secret {
    Secret::new(hex::encode(Sha256::digest(token.as_bytes())))
}

/// Whether a string has the shape of a token we issue (64 lowercase hex digits).
pub fn is_well_formed(token: &str) -> bool {
    token.len() == TOKEN_LEN
        && token
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// An authenticated request: the caller, the hash of its token and its account's tier.
#[derive(Debug, Clone)]
pub struct Authenticated {
    pub user: AuthUser,
    pub token_hash: Secret,
    /// The account's own rate limit, if the operator set one.
    pub tier: Option<AccountLimit>,
}

/// Verifies a presented token: shape, cache or store, expiry. When the token needs a store lookup
/// and `client` is given, the lookup first counts against that client address's rate limit.
/// `sent_as` names what the client sent (`bearer token`, or [`IN_AUTH_TOKEN`]) in the 401's detail.
pub async fn verify_token(
    state: &AppState,
    token: &str,
    client: Option<ClientAddr>,
    sent_as: &'static str,
) -> Result<Authenticated, Response> {
    if !is_well_formed(token) {
        return Err(ApiError::unauthorized_bearer(format!(
            "malformed {sent_as}; get a new one from the token service"
        ))
        .into_response());
    }
    let hash = token_hash(token).into_inner();
    let now = state.now();
    let cache = &state.inner.tokens;
    let (record, tier) = match cache.lookup(&hash, now) {
        Cached::Fresh(r, tier) => (r, tier),
        cached => {
            if let Some(client) = client {
                crate::http::limit::check_client(state, client.0).await?;
            }
            let store = state.store().clone();
            let h = hash.clone();
            let now_unix = now.unix_timestamp();
            let found = tokio::task::spawn_blocking(move || {
                // A token, else an API key (both 64 hex digits, stored as their SHA-256).
                let record = match store.find_token(&h)? {
                    Some(r) => Some(r),
                    None => {
                        let key = store.find_api_key(&h)?;
                        if key.is_some() {
                            // Best effort: a read-only replica cannot write it.
                            let _ = store.touch_api_key(&h, now_unix);
                        }
                        key
                    }
                };
                let tier = match &record {
                    Some(r) => store.account_limit(&r.email)?,
                    None => None,
                };
                Ok::<_, gridprint_store::StoreError>(record.map(|r| (r, tier)))
            })
            .await
            .map_err(|e| ApiError::from(e).into_response())?;
            match (found, cached) {
                (Ok(Some((r, tier))), _) => {
                    cache.insert(r.clone(), tier, now);
                    (r, tier)
                }
                (Ok(None), _) => {
                    cache.remove(&hash);
                    return Err(ApiError::unauthorized_bearer(format!(
                        "invalid or revoked {sent_as}; get a new one from the token service"
                    ))
                    .into_response());
                }
                // The store is down: keep serving a recently confirmed token, within the revocation promise.
                (Err(e), Cached::Stale(r, tier, checked_at)) if now - checked_at < STALE_GRACE => {
                    tracing::warn!(error = %e, "token re-check failed; using cached confirmation");
                    (r, tier)
                }
                (Err(e), _) => return Err(ApiError::from(e).into_response()),
            }
        }
    };
    if now.unix_timestamp() >= record.expires_at {
        return Err(ApiError::unauthorized_bearer(format!(
            "{sent_as} expired; get a new one from the token service"
        ))
        .into_response());
    }
    let expires_at = OffsetDateTime::from_unix_timestamp(record.expires_at)
        .map_err(|e| ApiError::internal(e).into_response())?;
    Ok(Authenticated {
        user: AuthUser {
            email: record.email,
            expires_at,
        },
        token_hash: Secret::new(hash),
        tier,
    })
}

/// Authenticates a request's `Authorization` header.
pub(crate) async fn authenticate(
    state: &AppState,
    headers: &HeaderMap,
    client: ClientAddr,
) -> Result<Authenticated, Response> {
    let token = bearer(headers).map_err(IntoResponse::into_response)?;
    let sent_as = if headers.contains_key(header::AUTHORIZATION) {
        "bearer token"
    } else {
        IN_AUTH_TOKEN
    };
    verify_token(state, token, Some(client), sent_as).await
}

/// How a 401 names a key sent in the `auth-token` header.
pub const IN_AUTH_TOKEN: &str = "key in the auth-token header";

/// The header Electricity Maps and CO2 Signal clients send their key in (`auth-token: <key>`).
pub const AUTH_TOKEN: &str = "auth-token";

/// Extracts the token from `Authorization: Bearer <token>` (scheme case-insensitive); exactly one
/// such header. Without `Authorization`, from exactly one `auth-token` header (the Electricity Maps
/// clients' form).
fn bearer(headers: &HeaderMap) -> Result<&str, ApiError> {
    if !headers.contains_key(header::AUTHORIZATION) && headers.contains_key(AUTH_TOKEN) {
        let mut all = headers.get_all(AUTH_TOKEN).iter();
        let value = all.next().and_then(|v| v.to_str().ok());
        return match (value, all.next()) {
            (Some(v), None) => Ok(v.trim()),
            _ => Err(ApiError::unauthorized_bearer(
                "malformed auth-token header: send exactly one 'auth-token: <key>'",
            )),
        };
    }
    let mut all = headers.get_all(header::AUTHORIZATION).iter();
    let value = all.next().ok_or_else(|| {
        ApiError::unauthorized_bearer(
            "missing token: send 'Authorization: Bearer <token>' or 'auth-token: <key>' (the Electricity Maps clients' header)",
        )
    })?;
    if all.next().is_some() {
        return Err(ApiError::unauthorized_bearer(
            "more than one Authorization header: send exactly one 'Authorization: Bearer <token>'",
        ));
    }
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthorized_bearer("malformed Authorization header"))?;
    let (scheme, token) = value.trim().split_once(' ').ok_or_else(|| {
        ApiError::unauthorized_bearer("malformed Authorization header: expected 'Bearer <token>'")
    })?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(ApiError::unauthorized_bearer(
            "unsupported authorization scheme: expected 'Bearer <token>'",
        ));
    }
    Ok(token.trim())
}

/// Middleware of the protected data routes: authenticates the Bearer token (401), counts the request
/// against the account's rate limit (429 with `Retry-After`; all tokens of an account share it),
/// hands the [`AuthUser`] to the handler and adds the `RateLimit-*` headers to the answer.
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
    let caller = match authenticate(&state, req.headers(), client).await {
        Ok(a) => a,
        Err(resp) => return resp,
    };
    let decision =
        match crate::http::limit::check_account(&state, &caller.user.email, caller.tier).await {
            Ok(d) => d,
            Err(resp) => return resp,
        };
    req.extensions_mut().insert(caller.user);
    let mut resp = next.run(req).await;
    if let Some(d) = decision {
        crate::http::limit::rate_headers(resp.headers_mut(), &d);
    }
    resp
}

/// Protected handlers name `AuthUser` in their signature. Behind `data_guard` the
/// caller is already authenticated (and rate-limited) and is taken from the request; elsewhere the
/// token is verified here.
impl FromRequestParts<AppState> for AuthUser {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<AuthUser, Response> {
        if let Some(user) = parts.extensions.get::<AuthUser>() {
            return Ok(user.clone());
        }
        let client = ClientAddr::of(&parts.extensions);
        authenticate(state, &parts.headers, client)
            .await
            .map(|a| a.user)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_shape() {
        assert!(is_well_formed(&"ab".repeat(32)));
        assert!(!is_well_formed(&"ab".repeat(31)));
        assert!(!is_well_formed(&"AB".repeat(32)));
        assert!(!is_well_formed(&"zz".repeat(32)));
        assert_eq!(
            token_hash("abc").expose(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
