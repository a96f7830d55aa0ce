//! The token service under `/token-request`: registration of granted emails and issuing of Bearer
//! tokens. What a client sends and gets back (answers, bodies, limits) is docs/api.md §4; the
//! tokens are checked on the data routes by [`crate::auth`].
//!
//! `credentials_request` reads the body (`read_credentials`: JSON, or the token page's form,
//! answered with the page of [`crate::page`]) and runs `do_register` or `do_get_token`. Passwords
//! are hashed with Argon2id (the argon2 crate's defaults: 19 MiB, 2 passes) on the blocking pool,
//! at most [`ApiConfig::max_concurrent_hashes`](crate::ApiConfig) at a time so a flood cannot
//! exhaust memory. A wrong password and an unknown email both cost one verification (unknown emails
//! against a dummy hash made once), so timing does not tell them apart either. Tokens are 32 bytes
//! from the operating system's RNG, written as 64 lowercase hex digits, stored only as their
//! SHA-256 and valid exactly 24 hours from the injected clock. Every credential attempt is admitted
//! by the brute-force guard ([`crate::brute_force::FailureGuard`]) before it is verified. Passwords and
//! tokens never reach logs or `Debug` output.

use crate::auth::{TOKEN_LEN, token_hash};
use crate::error::ApiError;
use crate::front::ClientAddr;
use crate::page::{View, outcome_page};
use crate::state::{AppState, on_blocking_pool};
use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, post};
use gridprint_core::slot::format_timestamp;
use gridprint_ratelimit::Ticket;
use gridprint_store::access::normalize_email;
use gridprint_store::{StoreError, TokenRecord};
use serde::{Deserialize, Serialize};

/// Validity of a token in seconds (exactly one day).
pub const TOKEN_TTL_SECS: i64 = 86_400;
/// Minimum password length in characters.
pub const MIN_PASSWORD_CHARS: usize = 12;
/// Maximum password length in characters (Argon2 takes any length; this bounds the work per request).
pub const MAX_PASSWORD_CHARS: usize = 1024;
/// The one detail of every credential failure of `get_token`.
pub const BAD_CREDENTIALS: &str = "invalid email or password";

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
    /// UTC without an offset: `YYYY-MM-DDThh:mm:ss`.
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
enum Format {
    Json,
    Form,
}

/// What a token operation produced, rendered as JSON or as the page.
enum Outcome {
    Registered {
        email: String,
        already: bool,
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

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty())
}

/// The media type of a `Content-Type` value, without parameters.
fn media_type(ct: &str) -> &str {
    ct.split(';').next().unwrap_or("").trim()
}

/// Reads the request body and chooses the answer's format (JSON or the page), by the rules of
/// docs/api.md §4 (bodies).
async fn read_credentials(req: Request) -> (Format, Result<Credentials, ApiError>) {
    let content_type = header_str(req.headers(), header::CONTENT_TYPE);
    let accept = header_str(req.headers(), header::ACCEPT);
    let bytes = match Bytes::from_request(req, &()).await {
        Ok(b) => b,
        Err(r) => return (Format::Json, Err(r.into())),
    };
    let looks_json = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| matches!(b, b'{' | b'[' | b'"'));
    let media = content_type.as_deref().map(media_type);
    match media {
        None => (Format::Json, parse_json(&bytes)),
        Some("application/json") => (Format::Json, parse_json(&bytes)),
        Some(m) if m.starts_with("application/") && m.ends_with("+json") => {
            (Format::Json, parse_json(&bytes))
        }
        Some("application/x-www-form-urlencoded") if looks_json => (
            Format::Json,
            Err(ApiError::unprocessable(
                "the body is JSON but was sent as a form: send it with 'Content-Type: application/json'",
            )),
        ),
        Some("application/x-www-form-urlencoded") => {
            let wants_html = accept.as_deref().is_none_or(|a| {
                a.contains("text/html") || a.contains("*/*") || !a.contains("json")
            });
            let format = if wants_html {
                Format::Form
            } else {
                Format::Json
            };
            (format, parse_form(&bytes))
        }
        Some(other) => (
            Format::Json,
            Err(ApiError::unprocessable(format!(
                "unsupported content type '{other}': send a JSON object with the fields email and password as 'application/json'"
            ))),
        ),
    }
}

/// A JSON object with string fields `email` and `password` (other fields ignored).
pub(crate) fn parse_json(bytes: &[u8]) -> Result<Credentials, ApiError> {
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::bad_request(format!("request body is not valid JSON: {e}")))?;
    let serde_json::Value::Object(map) = value else {
        return Err(ApiError::unprocessable(
            "the body must be a JSON object with the fields email and password",
        ));
    };
    let field = |name: &str| match map.get(name) {
        Some(serde_json::Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(ApiError::unprocessable(format!(
            "field '{name}' must be a string"
        ))),
        None => Err(ApiError::unprocessable(format!(
            "field '{name}' is required"
        ))),
    };
    Ok(Credentials {
        email: field("email")?,
        password: field("password")?,
    })
}

/// The page's form: `email` and `password`.
fn parse_form(bytes: &[u8]) -> Result<Credentials, ApiError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(bytes)
        .map_err(|_| ApiError::unprocessable("the form could not be read"))?;
    let field = |name: &str| {
        pairs
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| ApiError::unprocessable(format!("field '{name}' is required")))
    };
    Ok(Credentials {
        email: field("email")?,
        password: field("password")?,
    })
}

fn respond(format: Format, outcome: Outcome) -> Response {
    match format {
        Format::Form => outcome_page(match &outcome {
            Outcome::Registered { email, already } => View::Registered {
                email,
                already: *already,
            },
            Outcome::Token { email, token } => View::Token {
                email,
                token: &token.access_token,
                expires_at: &token.expires_at,
                expires_in: token.expires_in,
            },
            Outcome::Failed { email, error } => View::Failed {
                email: email.as_deref(),
                error,
            },
        }),
        Format::Json => match outcome {
            Outcome::Registered { already, .. } => Json(serde_json::json!({
                "detail": if already { "already registered" } else { "registered" }
            }))
            .into_response(),
            Outcome::Token { token, .. } => Json(token).into_response(),
            Outcome::Failed { error, .. } => error.into_response(),
        },
    }
}

/// What a credentials request asks the token service for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Operation {
    /// `POST /token-request/register`.
    Register,
    /// `POST /token-request/get_token`.
    GetToken,
}

impl Operation {
    /// The `POST` route of the operation: [`credentials_request`].
    pub(crate) fn route(self) -> MethodRouter<AppState> {
        post(
            move |State(state): State<AppState>, client: ClientAddr, req: Request| async move {
                credentials_request(&state, client, req, self).await
            },
        )
    }
}

/// Reads the credentials, normalises the email and runs `op`; unreadable credentials or a
/// refusal answer as a failure naming the email (as normalised, else as given).
async fn credentials_request(
    state: &AppState,
    client: ClientAddr,
    req: Request,
    op: Operation,
) -> Response {
    let (format, creds) = read_credentials(req).await;
    let outcome = match creds {
        Err(error) => Outcome::Failed { email: None, error },
        Ok(c) => {
            let email = normalize_email(&c.email);
            let named = || email.clone().unwrap_or_default();
            let done = match op {
                Operation::Register => do_register(state, client, email.as_deref(), c.password)
                    .await
                    .map(|already| Outcome::Registered {
                        email: named(),
                        already,
                    }),
                Operation::GetToken => do_get_token(state, client, email.as_deref(), c.password)
                    .await
                    .map(|token| Outcome::Token {
                        email: named(),
                        token,
                    }),
            };
            done.unwrap_or_else(|error| Outcome::Failed {
                email: email.or(Some(c.email)),
                error,
            })
        }
    };
    respond(format, outcome)
}

/// Registers; `Ok(true)` when the email was already registered (nothing changed).
async fn do_register(
    state: &AppState,
    client: ClientAddr,
    email: Option<&str>,
    password: String,
) -> Result<bool, ApiError> {
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
    let ticket = state
        .inner
        .failures
        .admit(state.now(), Some(email), client.0)
        .await?;

    let store = state.store().clone();
    let e = email.to_string();
    let (granted, existing) = tokio::task::spawn_blocking(move || -> Result<_, StoreError> {
        Ok((store.has_grant(&e)?, store.password_hash(&e)?.is_some()))
    })
    .await??;
    if !granted {
        fail(state, ticket).await;
        return Err(ApiError::forbidden(
            "this email has not been granted access; ask the operator for access first",
        ));
    }
    if existing {
        ticket.not_counted().await;
        return Ok(true);
    }

    let hash = hash_password(state, password).await?;
    let store = state.store().clone();
    let e = email.to_string();
    let now = state.now().unix_timestamp();
    let stored = tokio::task::spawn_blocking(move || store.register(&e, &hash, now)).await?;
    ticket.not_counted().await;
    match stored {
        Ok(()) => {
            tracing::info!("registration stored");
            Ok(false)
        }
        // Registered concurrently by another request: the first password stays.
        Err(StoreError::Conflict(_)) => Ok(true),
        Err(e) => Err(e.into()),
    }
}

async fn do_get_token(
    state: &AppState,
    client: ClientAddr,
    email: Option<&str>,
    password: String,
) -> Result<TokenResponse, ApiError> {
    let email = check_credentials(state, client, email, password).await?;
    let email = email.as_str();
    crate::limit::check_token_issue(state, email).await?;

    let token = new_token()?;
    issue_token(state, email, token).await
}

/// Verifies an email and password under the brute-force guard (the rules of `get_token`): the
/// normalised email, or 401 with [`BAD_CREDENTIALS`] (429 while the guard refuses).
pub(crate) async fn check_credentials(
    state: &AppState,
    client: ClientAddr,
    email: Option<&str>,
    password: String,
) -> Result<String, ApiError> {
    let ticket = state
        .inner
        .failures
        .admit(state.now(), email, client.0)
        .await?;
    let Some(email) = email else {
        // Not an email at all: nobody can be registered under it; same answer as any bad credential.
        fail(state, ticket).await;
        return Err(ApiError::unauthorized(BAD_CREDENTIALS));
    };

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
        fail(state, ticket).await;
        return Err(ApiError::unauthorized(BAD_CREDENTIALS));
    }
    ticket.succeeded().await;
    Ok(email.to_string())
}

/// Token issue after [`check_credentials`].
async fn issue_token(
    state: &AppState,
    email: &str,
    token: String,
) -> Result<TokenResponse, ApiError> {
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
    let tier = tokio::task::spawn_blocking(move || {
        store.insert_token(&r)?;
        store.account_limit(&r.email)
    })
    .await??;
    state.inner.tokens.insert(record.clone(), tier, now);
    let expires_at =
        time::OffsetDateTime::from_unix_timestamp(record.expires_at).map_err(ApiError::internal)?;
    tracing::info!("token issued");
    Ok(TokenResponse {
        access_token: token,
        token_type: "bearer".into(),
        expires_at: naive_utc(expires_at),
        expires_in: TOKEN_TTL_SECS,
    })
}

/// `YYYY-MM-DDThh:mm:ss` in UTC, without an offset (the reference service's `expires_at`).
pub fn naive_utc(t: time::OffsetDateTime) -> String {
    let s = format_timestamp(t);
    s.strip_suffix('Z').map(str::to_owned).unwrap_or(s)
}

/// A failed attempt (it was counted at admission): slows the answer down by
/// [`ApiConfig::failure_delay`](crate::ApiConfig) while still holding the pair's turn.
async fn fail(state: &AppState, ticket: Ticket) {
    let delay = state.config().failure_delay;
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    ticket.failed();
}

/// 32 bytes from the operating system's RNG as 64 lowercase hex digits (tokens and API keys).
pub fn new_token() -> Result<String, ApiError> {
    use rand::TryRng;
    let mut bytes = [0u8; TOKEN_LEN / 2];
    rand::rngs::SysRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| ApiError::internal(format!("OS RNG failed: {e}")))?;
    Ok(hex::encode(bytes))
}

/// Runs password work (`f`) on the blocking pool, at most as many at once as the state's hash
/// permits allow.
async fn on_hash_pool<T: Send + 'static>(
    state: &AppState,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    on_blocking_pool(&state.inner.hash_permits, f).await
}

/// Argon2id hash (PHC string) of a password, on the blocking pool.
async fn hash_password(state: &AppState, password: String) -> Result<String, ApiError> {
    on_hash_pool(state, move || {
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
    on_hash_pool(state, move || {
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
