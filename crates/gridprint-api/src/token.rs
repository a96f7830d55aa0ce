//! The token service under `/token-request`: registration of granted emails and issuing of Bearer
//! tokens (api-contract §4).
//!
//! * `POST /token-request/register` `{email, password}` → 200 `{"detail":"registered"}`; 403 without
//!   a grant, 409 if already registered (the stored password is kept), 400 for an invalid email or a
//!   password shorter than 12 characters.
//! * `POST /token-request/get_token` `{email, password}` → 200 `{access_token, token_type:"bearer",
//!   expires_at, expires_in: 86400}`; a wrong password and an unknown email both answer 401 with the
//!   same detail, and both cost one Argon2id verification (unknown emails are verified against a dummy
//!   hash made once) so timing does not tell them apart either.
//!
//! Both accept a JSON body (API clients) or an HTML form body (`application/x-www-form-urlencoded`,
//! the browser page at `/token-request/`, which works without JavaScript); form posts are answered
//! with the page showing the outcome, JSON with JSON. Bodies are limited to 4 KB. Every response of
//! the service carries `Cache-Control: no-store`.
//!
//! Passwords are hashed with Argon2id (the argon2 crate's defaults: 19 MiB, 2 passes) on the blocking
//! pool, at most [`ApiConfig::max_concurrent_hashes`](crate::ApiConfig) at a time so a flood cannot
//! exhaust memory. Tokens are 32 bytes from the operating system's RNG, written as 64 lowercase hex
//! digits, stored only as their SHA-256 and valid exactly 24 hours from the injected clock. Failed
//! attempts feed the brute-force guard ([`crate::limit::FailureGuard`]). Passwords and tokens never
//! reach logs or `Debug` output.

use crate::auth::{TOKEN_LEN, token_hash};
use crate::error::{ApiError, from_json_error};
use crate::limit::FailureKey;
use crate::{AppState, ClientAddr, page};
use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use gridprint_core::slot::format_timestamp;
use gridprint_store::access::normalize_email;
use gridprint_store::{StoreError, TokenRecord};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Validity of a token in seconds (exactly one day).
pub const TOKEN_TTL_SECS: i64 = 86_400;
/// Minimum password length in characters.
pub const MIN_PASSWORD_CHARS: usize = 12;
/// Maximum password length in characters (Argon2 takes any length; this bounds the work per request).
pub const MAX_PASSWORD_CHARS: usize = 1024;
/// The one detail of every credential failure of `get_token`.
pub const BAD_CREDENTIALS: &str = "invalid email or password";
/// Longest slow-down added to a failed attempt.
const MAX_FAILURE_DELAY: Duration = Duration::from_secs(2);

/// The body of both token operations.
#[derive(Deserialize)]
pub struct Credentials {
    pub email: String,
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("email", &self.email)
            .field("password", &"<redacted>")
            .finish()
    }
}

/// A successful `get_token` answer.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq)]
pub struct TokenResponse {
    pub access_token: String,
    pub token_type: String,
    /// `YYYY-MM-DDThh:mm:ssZ`.
    pub expires_at: String,
    pub expires_in: i64,
}

impl std::fmt::Debug for TokenResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenResponse")
            .field("access_token", &"<redacted>")
            .field("token_type", &self.token_type)
            .field("expires_at", &self.expires_at)
            .field("expires_in", &self.expires_in)
            .finish()
    }
}

/// How the client talks: JSON in and out, or an HTML form answered with the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Json,
    Form,
}

/// What a token operation produced, rendered as JSON or as the page.
pub(crate) enum Outcome {
    Registered {
        email: String,
    },
    Token {
        email: String,
        token: TokenResponse,
    },
    Failed {
        email: Option<String>,
        error: ApiError,
    },
}

/// Reads the request body as JSON or as a form, according to `Content-Type` (JSON when absent).
async fn read_credentials(req: Request) -> (Format, Result<Credentials, ApiError>) {
    let is_form = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            ct.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/x-www-form-urlencoded")
        });
    let format = if is_form { Format::Form } else { Format::Json };
    let bytes = match Bytes::from_request(req, &()).await {
        Ok(b) => b,
        Err(r) => return (format, Err(r.into())),
    };
    let parsed = match format {
        Format::Json => {
            serde_json::from_slice::<Credentials>(&bytes).map_err(|e| from_json_error(&e))
        }
        Format::Form => serde_urlencoded::from_bytes::<Credentials>(&bytes)
            .map_err(|e| ApiError::unprocessable(format!("invalid form: {e}"))),
    };
    (format, parsed)
}

fn respond(format: Format, outcome: Outcome) -> Response {
    match format {
        Format::Form => page::outcome_page(outcome),
        Format::Json => match outcome {
            Outcome::Registered { .. } => {
                Json(serde_json::json!({ "detail": "registered" })).into_response()
            }
            Outcome::Token { token, .. } => Json(token).into_response(),
            Outcome::Failed { error, .. } => error.into_response(),
        },
    }
}

/// `POST /token-request/register`.
pub(crate) async fn register(
    State(state): State<AppState>,
    client: ClientAddr,
    req: Request,
) -> Response {
    let (format, creds) = read_credentials(req).await;
    let outcome = match creds {
        Err(error) => Outcome::Failed { email: None, error },
        Ok(c) => {
            let email = normalize_email(&c.email);
            match do_register(&state, client, email.as_deref(), c.password).await {
                Ok(()) => Outcome::Registered {
                    email: email.unwrap_or_default(),
                },
                Err(error) => Outcome::Failed {
                    email: email.or(Some(c.email)),
                    error,
                },
            }
        }
    };
    respond(format, outcome)
}

/// `POST /token-request/get_token`.
pub(crate) async fn get_token(
    State(state): State<AppState>,
    client: ClientAddr,
    req: Request,
) -> Response {
    let (format, creds) = read_credentials(req).await;
    let outcome = match creds {
        Err(error) => Outcome::Failed { email: None, error },
        Ok(c) => {
            let email = normalize_email(&c.email);
            match do_get_token(&state, client, email.as_deref(), c.password).await {
                Ok(token) => Outcome::Token {
                    email: email.unwrap_or_default(),
                    token,
                },
                Err(error) => Outcome::Failed {
                    email: email.or(Some(c.email)),
                    error,
                },
            }
        }
    };
    respond(format, outcome)
}

async fn do_register(
    state: &AppState,
    client: ClientAddr,
    email: Option<&str>,
    password: String,
) -> Result<(), ApiError> {
    let email = email.ok_or_else(|| ApiError::bad_request("invalid email address"))?;
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        return Err(ApiError::bad_request(format!(
            "password too short: use at least {MIN_PASSWORD_CHARS} characters"
        )));
    }
    if chars > MAX_PASSWORD_CHARS {
        return Err(ApiError::bad_request(format!(
            "password too long: use at most {MAX_PASSWORD_CHARS} characters"
        )));
    }
    let keys = [
        FailureKey::Email(email.to_string()),
        FailureKey::Client(client.0),
    ];
    let guard = &state.inner.failures;
    guard.check(&keys, state.now())?;

    let store = state.store().clone();
    let e = email.to_string();
    let (granted, existing) = tokio::task::spawn_blocking(move || -> Result<_, StoreError> {
        Ok((store.has_grant(&e)?, store.password_hash(&e)?.is_some()))
    })
    .await??;
    if !granted {
        fail(state, &keys).await;
        return Err(ApiError::forbidden(
            "this email has not been granted access; ask the operator for access first",
        ));
    }
    if existing {
        fail(state, &keys).await;
        return Err(already_registered());
    }

    let hash = hash_password(state, password).await?;
    let store = state.store().clone();
    let e = email.to_string();
    let now = state.now().unix_timestamp();
    match tokio::task::spawn_blocking(move || store.register(&e, &hash, now)).await? {
        Ok(()) => {
            tracing::info!("registration stored");
            Ok(())
        }
        Err(StoreError::Conflict(_)) => {
            fail(state, &keys).await;
            Err(already_registered())
        }
        Err(e) => Err(e.into()),
    }
}

fn already_registered() -> ApiError {
    ApiError::conflict(
        "this email is already registered; get a token with its password, or ask the operator to reset it",
    )
}

async fn do_get_token(
    state: &AppState,
    client: ClientAddr,
    email: Option<&str>,
    password: String,
) -> Result<TokenResponse, ApiError> {
    let client_key = FailureKey::Client(client.0);
    let guard = &state.inner.failures;
    let Some(email) = email else {
        // Not an email at all: nobody can be registered under it; same answer as any bad credential.
        guard.check(std::slice::from_ref(&client_key), state.now())?;
        fail(state, std::slice::from_ref(&client_key)).await;
        return Err(ApiError::unauthorized(BAD_CREDENTIALS));
    };
    let email_key = FailureKey::Email(email.to_string());
    let keys = [email_key.clone(), client_key];
    guard.check(&keys, state.now())?;

    let store = state.store().clone();
    let e = email.to_string();
    let stored = tokio::task::spawn_blocking(move || store.password_hash(&e)).await??;
    let known = stored.is_some();
    let stored = match stored {
        Some(h) => h,
        None => dummy_hash(state).await?,
    };
    let ok = verify_password(state, password, stored).await? && known;
    if !ok {
        fail(state, &keys).await;
        return Err(ApiError::unauthorized(BAD_CREDENTIALS));
    }
    guard.clear(&email_key);

    let token = new_token()?;
    let now = state.now();
    let issued_at = now.unix_timestamp();
    let record = TokenRecord {
        token_hash: token_hash(&token),
        email: email.to_string(),
        issued_at,
        expires_at: issued_at + TOKEN_TTL_SECS,
    };
    let store = state.store().clone();
    let r = record.clone();
    tokio::task::spawn_blocking(move || store.insert_token(&r)).await??;
    state.inner.tokens.insert(record.clone(), now);
    let expires_at =
        time::OffsetDateTime::from_unix_timestamp(record.expires_at).map_err(ApiError::internal)?;
    tracing::info!("token issued");
    Ok(TokenResponse {
        access_token: token,
        token_type: "bearer".into(),
        expires_at: format_timestamp(expires_at),
        expires_in: TOKEN_TTL_SECS,
    })
}

/// Records a failure and slows the answer down a little more with each recent failure.
async fn fail(state: &AppState, keys: &[FailureKey]) {
    let n = state.inner.failures.record_failure(keys, state.now());
    let delay = state
        .config()
        .failure_delay
        .saturating_mul(n as u32)
        .min(MAX_FAILURE_DELAY);
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
}

/// 32 bytes from the operating system's RNG as 64 lowercase hex digits.
fn new_token() -> Result<String, ApiError> {
    use rand::TryRng;
    let mut bytes = [0u8; TOKEN_LEN / 2];
    rand::rngs::SysRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| ApiError::internal(format!("OS RNG failed: {e}")))?;
    Ok(hex::encode(bytes))
}

/// Argon2id hash (PHC string) of a password, on the blocking pool.
async fn hash_password(state: &AppState, password: String) -> Result<String, ApiError> {
    let _permit = state
        .inner
        .hash_permits
        .acquire()
        .await
        .map_err(ApiError::internal)?;
    tokio::task::spawn_blocking(move || {
        let h: PasswordHash = Argon2::default().hash_password(password.as_bytes())?;
        Ok::<_, argon2::password_hash::Error>(h.to_string())
    })
    .await?
    .map_err(|e| ApiError::internal(format!("password hashing failed: {e}")))
}

/// Whether `password` matches the PHC string `stored`, on the blocking pool.
async fn verify_password(
    state: &AppState,
    password: String,
    stored: String,
) -> Result<bool, ApiError> {
    let _permit = state
        .inner
        .hash_permits
        .acquire()
        .await
        .map_err(ApiError::internal)?;
    tokio::task::spawn_blocking(move || {
        let parsed = PasswordHash::new(&stored)
            .map_err(|e| ApiError::internal(format!("stored password hash unreadable: {e}")))?;
        Ok(Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok())
    })
    .await?
}

/// A hash of a random password, made once per process, that unknown emails are verified against.
async fn dummy_hash(state: &AppState) -> Result<String, ApiError> {
    if let Some(h) = state.inner.dummy_hash.get() {
        return Ok(h.clone());
    }
    let h = hash_password(state, new_token()?).await?;
    Ok(state.inner.dummy_hash.get_or_init(|| h).clone())
}

/// `StatusCode` of an outcome, for the page.
pub(crate) fn outcome_status(outcome: &Outcome) -> StatusCode {
    match outcome {
        Outcome::Failed { error, .. } => error.status(),
        _ => StatusCode::OK,
    }
}
