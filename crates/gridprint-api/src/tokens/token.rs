//! The token service under `/token-request`: registration of granted emails and issuing of Bearer
//! tokens. What a client sends and gets back (answers, bodies, limits) is docs/api.md §4; the
//! tokens are checked on the data routes by [`crate::tokens::auth`].
//!
//! `credentials_request` reads the body (`read_fields`: JSON, or the token page's form,
//! answered with the page of [`crate::tokens::page`]) and runs `do_register` or `do_get_token`. Passwords
//! are hashed with Argon2id (the argon2 crate's defaults: 19 MiB, 2 passes) on the blocking pool,
//! at most [`ApiConfig::max_concurrent_hashes`](crate::ApiConfig) at a time so a flood cannot
//! exhaust memory. A wrong password and an unknown email both cost one verification (unknown emails
//! against a dummy hash made once), so timing does not tell them apart either. Tokens are 32 bytes
//! from the operating system's RNG, written as 64 lowercase hex digits, stored only as their
//! SHA-256 and valid exactly 24 hours from the injected clock. Every credential attempt is admitted
//! by the brute-force guard ([`crate::tokens::brute_force::FailureGuard`]) before it is verified. Passwords and
//! tokens never reach logs or `Debug` output.

use crate::http::error::ApiError;
use crate::http::failures::{
    BodyTooLarge, FailedAttempts, NotJson, TokenIssueLimit, UnreadableFields, WrongCredentials,
};
use crate::http::front::ClientAddr;
use crate::http::params::schemas;
use crate::state::{AppState, on_blocking_pool};
use crate::tokens::auth::{TOKEN_LEN, token_hash};
use crate::tokens::page::{View, outcome_page};
use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use gridprint_core::slot::format_timestamp;
use gridprint_ratelimit::Ticket;
use gridprint_store::access::normalize_email;
use gridprint_store::{Secret, StoreError, TokenRecord};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Validity of a token in seconds (exactly one day).
pub const TOKEN_TTL_SECS: i64 = 86_400;
/// Minimum password length in characters.
pub const MIN_PASSWORD_CHARS: usize = 12;
/// Maximum password length in characters (Argon2 takes any length; this bounds the work per request).
pub const MAX_PASSWORD_CHARS: usize = 1024;
/// The one detail of every credential failure of `get_token`.
pub const BAD_CREDENTIALS: &str = "invalid email or password";
/// The one detail of every refused registration (no grant, a wrong or missing code, or an already
/// registered email without its code), so `register` does not tell who is granted.
pub const REGISTRATION_REFUSED: &str = "registration refused: register with the email an operator granted access to and the registration code that came with the grant";

/// The body of both token operations (`code`: the grant's registration code, read by `register`
/// only).
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({"email": "alice@example.org", "password": "correct horse battery", "code": "3f9c2b6e-…"}))]
pub struct Credentials {
    /// The email the operator granted access to (case and surrounding spaces do not matter).
    pub email: String,
    /// 12 to 1024 characters.
    #[schema(value_type = String)]
    pub password: Secret,
    /// `register` only: the registration code printed by `gridprint access grant` (not needed
    /// for grants made with `--no-code`).
    #[schema(value_type = Option<String>)]
    pub code: Option<Secret>,
}

/// A successful `get_token` answer.
#[derive(Debug, Serialize, Deserialize, Clone, PartialEq, Eq, ToSchema)]
#[schema(example = json!({"access_token": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "token_type": "bearer",
    "expires_at": "2026-01-02T12:00:00", "expires_in": 86400}))]
pub struct TokenResponse {
    /// The Bearer token: 64 lowercase hex digits.
    #[schema(value_type = String)]
    pub access_token: Secret,
    /// Always `bearer`.
    pub token_type: String,
    /// When the token expires, in UTC **without an offset** (`YYYY-MM-DDThh:mm:ss`), as the
    /// reference service writes it (CATS reads it so). New clients should use `expires_in`.
    pub expires_at: String,
    /// Seconds until the token expires (86400: one day). Prefer this to `expires_at`.
    pub expires_in: i64,
}

/// A successful `register` answer.
#[derive(Serialize, ToSchema)]
pub struct Registration {
    /// `registered`, or `already registered` (nothing changed: the first password stays).
    #[schema(example = "registered")]
    pub detail: &'static str,
}

/// How the client talks: JSON in and out, or an HTML form answered with the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
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

/// A token-service body as read once: its fields by name — a JSON object's members, or the token
/// page's form fields as strings; a repeated field is refused — whatever the operation.
pub(crate) type Fields = serde_json::Map<String, serde_json::Value>;

/// Reads the request body and chooses the answer's format (JSON or the page), by the rules of
/// docs/api.md §4 (bodies).
pub(crate) async fn read_fields(req: Request) -> (Format, Result<Fields, ApiError>) {
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
        None => (Format::Json, json_fields(&bytes)),
        Some("application/json") => (Format::Json, json_fields(&bytes)),
        Some(m) if m.starts_with("application/") && m.ends_with("+json") => {
            (Format::Json, json_fields(&bytes))
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
            (format, form_fields(&bytes))
        }
        Some(other) => (
            Format::Json,
            Err(ApiError::unprocessable(format!(
                "unsupported content type '{other}': send a JSON object with the fields email and password as 'application/json'"
            ))),
        ),
    }
}

/// A JSON body as the token service reads it: an object's members, each name at most once, or
/// whatever else the body held (refused by the caller).
enum JsonBody {
    Object(Fields),
    NotAnObject,
}

/// The refusal of a body that names a field twice: serde_json and form decoders keep the last
/// occurrence, so `{"email": "x@…", "email": "bob@…"}` would act on the second while a proxy or log
/// that reads the first sees another account.
fn repeated_field(name: &str) -> String {
    format!("the field '{name}' is repeated: send each field once")
}

impl<'de> Deserialize<'de> for JsonBody {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<JsonBody, D::Error> {
        use serde::de::{Error, IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = JsonBody;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonBody, A::Error> {
                let mut fields = Fields::new();
                while let Some(name) = map.next_key::<String>()? {
                    if fields.contains_key(&name) {
                        return Err(A::Error::custom(repeated_field(&name)));
                    }
                    let value = map.next_value()?;
                    fields.insert(name, value);
                }
                Ok(JsonBody::Object(fields))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonBody, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(JsonBody::NotAnObject)
            }
            fn visit_bool<E: Error>(self, _: bool) -> Result<JsonBody, E> {
                Ok(JsonBody::NotAnObject)
            }
            fn visit_i64<E: Error>(self, _: i64) -> Result<JsonBody, E> {
                Ok(JsonBody::NotAnObject)
            }
            fn visit_u64<E: Error>(self, _: u64) -> Result<JsonBody, E> {
                Ok(JsonBody::NotAnObject)
            }
            fn visit_f64<E: Error>(self, _: f64) -> Result<JsonBody, E> {
                Ok(JsonBody::NotAnObject)
            }
            fn visit_str<E: Error>(self, _: &str) -> Result<JsonBody, E> {
                Ok(JsonBody::NotAnObject)
            }
            fn visit_unit<E: Error>(self) -> Result<JsonBody, E> {
                Ok(JsonBody::NotAnObject)
            }
        }
        d.deserialize_any(Members)
    }
}

/// A JSON object's members; 400 for a body that is not JSON or repeats a field.
fn json_fields(bytes: &[u8]) -> Result<Fields, ApiError> {
    let body: JsonBody = serde_json::from_slice(bytes).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => ApiError::bad_request(e.to_string()),
        _ => ApiError::bad_request(format!("request body is not valid JSON: {e}")),
    })?;
    match body {
        JsonBody::Object(map) => Ok(map),
        JsonBody::NotAnObject => Err(ApiError::unprocessable(
            "the body must be a JSON object with the fields email and password",
        )),
    }
}

/// The page's form fields, as strings; 400 for a repeated field.
fn form_fields(bytes: &[u8]) -> Result<Fields, ApiError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(bytes)
        .map_err(|_| ApiError::unprocessable("the form could not be read"))?;
    let mut fields = Fields::new();
    for (name, value) in pairs {
        if fields.contains_key(&name) {
            return Err(ApiError::bad_request(repeated_field(&name)));
        }
        fields.insert(name, serde_json::Value::String(value));
    }
    Ok(fields)
}

/// The string fields `email` and `password` and the optional `code` (absent, null or blank:
/// none); other fields are left to the operation.
pub(crate) fn credentials(fields: &Fields) -> Result<Credentials, ApiError> {
    let field = |name: &str| match fields.get(name) {
        Some(serde_json::Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(ApiError::unprocessable(format!(
            "field '{name}' must be a string"
        ))),
        None => Err(ApiError::unprocessable(format!(
            "field '{name}' is required"
        ))),
    };
    let code = match fields.get("code") {
        None | Some(serde_json::Value::Null) => None,
        Some(_) => Some(field("code")?).filter(|c| !c.trim().is_empty()),
    };
    Ok(Credentials {
        email: field("email")?,
        password: Secret::new(field("password")?),
        code: code.map(Secret::new),
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
                token: token.access_token.expose(),
                expires_at: &token.expires_at,
                expires_in: token.expires_in,
            },
            Outcome::Failed { email, error } => View::Failed {
                email: email.as_deref(),
                error,
            },
        }),
        Format::Json => match outcome {
            Outcome::Registered { already, .. } => Json(Registration {
                detail: if already {
                    "already registered"
                } else {
                    "registered"
                },
            })
            .into_response(),
            Outcome::Token { token, .. } => Json(token).into_response(),
            Outcome::Failed { error, .. } => error.into_response(),
        },
    }
}

/// What a credentials request asks the token service for.
#[derive(Debug, Clone, Copy)]
enum Operation {
    Register,
    GetToken,
}

/// Register a granted email with a password.
///
/// The operator grants the email first (`gridprint access grant`). Registering an email again
/// changes nothing and answers `already registered`. The token page (`/token-request/`) posts the
/// same fields as an HTML form and gets the page back.
#[utoipa::path(
    post,
    path = "/token-request/register",
    tag = "token",
    operation_id = "register",
    request_body(content = Credentials, content_type = "application/json"),
    responses(
        (status = 200, description = "Registered, or already registered", body = Registration),
        (status = 400, description = "Invalid email, a password of fewer than 12 or more than 1024 characters, or a body that is not JSON", body = schemas::Problem, content_type = "application/problem+json"),
        (status = 403, description = "The email has not been granted access", body = schemas::Problem, content_type = "application/problem+json"),
        BodyTooLarge, UnreadableFields, FailedAttempts,
    )
)]
pub(crate) async fn register(
    State(state): State<AppState>,
    client: ClientAddr,
    req: Request,
) -> Response {
    credentials_request(&state, client, req, Operation::Register).await
}

/// Get a Bearer token for the data routes, valid for one day.
///
/// Send it as `Authorization: Bearer <access_token>`. Use `expires_in` (seconds) to know when to
/// get a new one: `expires_at` is UTC written without an offset, as the reference service writes
/// it, and is easily misread as local time.
#[utoipa::path(
    post,
    path = "/token-request/get_token",
    tag = "token",
    operation_id = "get_token",
    request_body(content = Credentials, content_type = "application/json"),
    responses(
        (status = 200, description = "A new token", body = TokenResponse),
        NotJson, WrongCredentials, BodyTooLarge, UnreadableFields, TokenIssueLimit,
    )
)]
pub(crate) async fn get_token(
    State(state): State<AppState>,
    client: ClientAddr,
    req: Request,
) -> Response {
    credentials_request(&state, client, req, Operation::GetToken).await
}

/// The token service's two operations with their descriptions (the page's routes are in
/// `crate::tokens::routes`).
pub fn token_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(register))
        .routes(routes!(get_token))
}

/// Reads the credentials, normalises the email and runs `op`; unreadable credentials or a
/// refusal answer as a failure naming the email (as normalised, else as given).
async fn credentials_request(
    state: &AppState,
    client: ClientAddr,
    req: Request,
    op: Operation,
) -> Response {
    let (format, fields) = read_fields(req).await;
    let outcome = match fields.and_then(|f| credentials(&f)) {
        Err(error) => Outcome::Failed { email: None, error },
        Ok(c) => {
            let email = normalize_email(&c.email);
            let named = || email.clone().unwrap_or_default();
            let done = match op {
                Operation::Register => do_register(
                    state,
                    client,
                    email.as_deref(),
                    c.password.into_inner(),
                    c.code.map(Secret::into_inner),
                )
                .await
                .map(|already| Outcome::Registered {
                    email: named(),
                    already,
                }),
                Operation::GetToken => {
                    do_get_token(state, client, email.as_deref(), c.password.into_inner())
                        .await
                        .map(|token| Outcome::Token {
                            email: named(),
                            token,
                        })
                }
            };
            done.unwrap_or_else(|error| Outcome::Failed {
                email: email.or(Some(c.email)),
                error,
            })
        }
    };
    respond(format, outcome)
}

/// Checks a new password: 12 to 1024 characters, not all whitespace (400 otherwise).
fn check_password(password: &str) -> Result<(), ApiError> {
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
    if password.chars().all(char::is_whitespace) {
        return Err(ApiError::bad_request(
            "password is only whitespace: use at least 12 characters that are not all spaces",
        ));
    }
    Ok(())
}

/// Registers; `Ok(true)` when an email granted without a code (`access grant --no-code`) was
/// already registered (nothing changed: the reference service's 200).
///
/// A grant with a registration code needs that code: no grant, a wrong or missing code, or an
/// already registered email with a wrong code all get the same 403 ([`REGISTRATION_REFUSED`],
/// counted as a failed attempt by the brute-force guard) after the same work, so `register` does
/// not tell who is granted. The right code of an already registered email → 409 that says so (only
/// the holder of the code learns it); the stored password never changes.
async fn do_register(
    state: &AppState,
    client: ClientAddr,
    email: Option<&str>,
    password: String,
    code: Option<String>,
) -> Result<bool, ApiError> {
    let email = email.ok_or_else(|| ApiError::bad_request("invalid email address"))?;
    check_password(&password)?;
    let ticket = state
        .inner
        .failures
        .admit(state.now(), Some(email), client.0)
        .await?;

    let store = state.store().clone();
    let e = email.to_string();
    let (grant, existing) = tokio::task::spawn_blocking(move || -> Result<_, StoreError> {
        Ok((
            store.registration_code(&e)?,
            store.password_hash(&e)?.is_some(),
        ))
    })
    .await??;
    let code_ok = |stored: &str| {
        code.as_deref()
            .is_some_and(|c| crate::tokens::registration_code::code_hash(c) == stored)
    };
    let with_code = match &grant {
        Some(None) => false,
        Some(Some(stored)) if code_ok(stored) => true,
        None | Some(Some(_)) => {
            fail(state, ticket).await;
            return Err(ApiError::forbidden(REGISTRATION_REFUSED));
        }
    };
    let already = || {
        ApiError::conflict(
            "already registered: get a token with your password (an operator can reset a forgotten one)",
        )
    };
    if existing {
        ticket.not_counted().await;
        return if with_code { Err(already()) } else { Ok(true) };
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
        Err(StoreError::Conflict(_)) if with_code => Err(already()),
        Err(StoreError::Conflict(_)) => Ok(true),
        Err(e) => Err(e.into()),
    }
}

/// `get_token`'s work after the body is read: the credentials under the brute-force guard, the
/// account's token-issue limit, a new token (also WattTime's `GET /login`, [`crate::compat::watttime`]).
pub(crate) async fn do_get_token(
    state: &AppState,
    client: ClientAddr,
    email: Option<&str>,
    password: String,
) -> Result<TokenResponse, ApiError> {
    let email = check_credentials(state, client, email, password).await?;
    let email = email.as_str();
    crate::http::limit::check_token_issue(state, email).await?;

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
        access_token: Secret::new(token),
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
