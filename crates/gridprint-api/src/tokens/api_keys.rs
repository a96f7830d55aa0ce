//! `POST /token-request/api-key`: a registered user creates, lists and revokes their own API keys
//! with their email and password, under the brute-force rules of `get_token`
//! ([`crate::tokens::token::check_credentials`]). The operator's equivalent is `gridprint access key …`.
//!
//! The body is a JSON object: `email`, `password`, `action` (`create`, `list` or `revoke`), and
//! `name` (create, at most 100 characters), `expires_days` (create, 1–36 500; absent: the server's
//! `--api-key-default-expiry-days`, else never), `after_id` (list: the page after this id) or `id`
//! (revoke, one of the caller's keys, else 404), described in the OpenAPI document (tag `token`).
//! A creation counts against the account's token-issue limit (429) and its cap on active keys
//! (409, `gridprint_store::access::DEFAULT_MAX_API_KEYS` unless the operator set its own). A new key
//! is in the answer once (`{"id", "key", "name", "created_at", "expires_at"}`); a list never holds
//! a key and answers at most `API_KEY_PAGE` of them. Keys are stored
//! as the SHA-256 of 256 random bits (see `crate::tokens::auth::token_hash`). The token page's third form
//! posts the same fields (`action` from the button pressed) and gets the page back ([`crate::tokens::page`]).

use crate::http::error::ApiError;
use crate::http::failures::{
    BodyTooLarge, FailedAttempts, NotJson, TokenIssueLimit, WrongCredentials,
};
use crate::http::front::ClientAddr;
use crate::http::params::schemas;
use crate::state::AppState;
use crate::tokens::page::{KeyLine, View, outcome_page};
use crate::tokens::token::{
    Fields, Format, check_credentials, credentials, new_token, read_fields,
};
use axum::Json;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use gridprint_core::slot::format_timestamp;
use gridprint_store::access::{API_KEY_PAGE, normalize_email};
use gridprint_store::{ApiKeyRow, KeyInsert, NewApiKey, Secret};
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Longest key name, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// Longest key validity, in days.
pub const MAX_EXPIRES_DAYS: i64 = 36_500;

/// The route with its OpenAPI operation (mounted with the token service's routes).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(request))
}

fn stamp(t: i64) -> Value {
    time::OffsetDateTime::from_unix_timestamp(t)
        .map(|t| Value::from(format_timestamp(t)))
        .unwrap_or(Value::Null)
}

fn row_json(r: &ApiKeyRow) -> Value {
    json!({
        "id": r.id,
        "name": r.name,
        "created_at": stamp(r.created_at),
        "last_used_at": r.last_used_at.map_or(Value::Null, stamp),
        "expires_at": r.expires_at.map_or(Value::Null, stamp),
    })
}

/// What an API-key operation produced, for the JSON answer or the token page.
pub(crate) enum KeyOutcome {
    /// A new key (shown once).
    Created(NewKeyAnswer),
    /// A page of the caller's keys, never with the keys themselves, and the id the next page
    /// starts after (`None`: this is the last page).
    Listed(Vec<ApiKeyRow>, Option<i64>),
    /// The key with this id is revoked.
    Revoked(i64),
}

/// A key just created.
#[derive(Debug)]
pub(crate) struct NewKeyAnswer {
    pub id: i64,
    pub key: Secret,
    pub name: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
}

/// The body of `POST /token-request/api-key` (as the OpenAPI document describes it; the handler
/// reads the JSON object itself).
#[derive(ToSchema)]
#[schema(example = json!({"email": "alice@example.org", "password": "correct horse battery", "action": "create", "name": "codecarbon"}))]
#[allow(dead_code)]
pub struct ApiKeyRequest {
    /// A registered account's email.
    email: String,
    /// Its password.
    password: String,
    /// `create`, `list` or `revoke`.
    action: String,
    /// `create`: a name for the key (at most 100 characters).
    name: Option<String>,
    /// `create`: days until the key expires (1 to 36500; absent: the server's default expiry, if
    /// it has one, else never).
    expires_days: Option<i64>,
    /// `list`: answer the keys after this id (the previous page's `next_after_id`).
    after_id: Option<i64>,
    /// `revoke`: the id of one of the account's keys.
    id: Option<i64>,
}

/// Create, list or revoke your own API keys (email and password of a registered account).
///
/// `create` answers `{"id", "key", "name", "created_at", "expires_at"}` (the key is shown once); it
/// counts against the account's token-issue limit, and an account holds at most 20 active keys
/// unless the operator set its own cap. `list` answers `{"keys": [{"id", "name", "created_at",
/// "last_used_at", "expires_at"}], "next_after_id"}` (never a key; at most 100 keys a page;
/// `next_after_id` is `null` on the last page, else the `after_id` of the next);
/// `revoke` answers `{"detail": "revoked", "id"}`. A key works wherever a token works, as
/// `Authorization: Bearer` or `auth-token`; a revoked key stops on every replica within 60 s.
/// The same brute-force rules as `get_token`. The token page posts the same fields as an HTML
/// form and gets the page back.
#[utoipa::path(
    post,
    path = "/token-request/api-key",
    tag = "token",
    operation_id = "api_key",
    request_body(content = ApiKeyRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The new key, the list of keys, or the revocation", body = Object),
        NotJson, WrongCredentials,
        (status = 404, description = "`revoke`: you have no key with this id", body = schemas::Problem, content_type = "application/problem+json"),
        (status = 409, description = "`create`: the account holds as many active keys as it may (revoke one first)", body = schemas::Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        (status = 422, description = "A field is missing, not a string, or out of range, or an unknown action", body = schemas::Problem, content_type = "application/problem+json"),
        FailedAttempts, TokenIssueLimit,
    )
)]
pub(crate) async fn request(
    State(state): State<AppState>,
    client: ClientAddr,
    req: Request,
) -> Response {
    let (format, fields) = read_fields(req).await;
    let email = fields
        .as_ref()
        .ok()
        .and_then(|f| f.get("email"))
        .and_then(Value::as_str)
        .map(|e| normalize_email(e).unwrap_or_else(|| e.to_string()));
    let outcome = match fields {
        Ok(fields) => answer(&state, client, &fields, format == Format::Form).await,
        Err(e) => Err(e),
    };
    match (format, outcome) {
        (Format::Json, Ok(o)) => Json(outcome_json(&o)).into_response(),
        (Format::Json, Err(e)) => e.into_response(),
        (Format::Form, Ok(o)) => key_page(email.as_deref().unwrap_or_default(), &o),
        (Format::Form, Err(error)) => outcome_page(View::Failed {
            email: email.as_deref(),
            error: &error,
        }),
    }
}

fn outcome_json(o: &KeyOutcome) -> Value {
    match o {
        KeyOutcome::Created(k) => json!({
            "id": k.id,
            "key": k.key.expose(),
            "name": k.name,
            "created_at": stamp(k.created_at),
            "expires_at": k.expires_at.map_or(Value::Null, stamp),
        }),
        KeyOutcome::Listed(rows, next) => json!({
            "keys": rows.iter().map(row_json).collect::<Vec<_>>(),
            "next_after_id": next,
        }),
        KeyOutcome::Revoked(id) => json!({"detail": "revoked", "id": id}),
    }
}

fn key_page(email: &str, o: &KeyOutcome) -> Response {
    let when = |t: i64| stamp(t).as_str().unwrap_or_default().to_string();
    match o {
        KeyOutcome::Created(k) => outcome_page(View::KeyCreated {
            email,
            id: k.id,
            key: k.key.expose(),
            name: &k.name,
            expires_at: k.expires_at.map(when),
        }),
        KeyOutcome::Listed(rows, _) => outcome_page(View::KeyList {
            email,
            keys: rows
                .iter()
                .map(|r| KeyLine {
                    id: r.id,
                    name: r.name.clone(),
                    created_at: when(r.created_at),
                    last_used_at: r.last_used_at.map(when),
                    expires_at: r.expires_at.map(when),
                })
                .collect(),
        }),
        KeyOutcome::Revoked(id) => outcome_page(View::KeyRevoked { email, id: *id }),
    }
}

/// A whole number field: a JSON number, or (from the page's form) its digits; `None` when absent,
/// null or (form) blank.
fn whole_number(fields: &Fields, name: &str, from_form: bool) -> Option<Result<i64, ()>> {
    match fields.get(name) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if from_form && s.trim().is_empty() => None,
        Some(Value::String(s)) if from_form => Some(s.trim().parse().map_err(|_| ())),
        Some(v) => Some(v.as_i64().ok_or(())),
    }
}

async fn answer(
    state: &AppState,
    client: ClientAddr,
    fields: &Fields,
    from_form: bool,
) -> Result<KeyOutcome, ApiError> {
    let creds = credentials(fields)?;
    let action = match fields.get("action").and_then(Value::as_str) {
        Some(a @ ("create" | "list" | "revoke")) => a.to_string(),
        _ => {
            return Err(ApiError::unprocessable(
                "field 'action' must be \"create\", \"list\" or \"revoke\"",
            ));
        }
    };
    let email = normalize_email(&creds.email);
    let email =
        check_credentials(state, client, email.as_deref(), creds.password.into_inner()).await?;
    let store = state.store().clone();
    let now = state.now().unix_timestamp();
    match action.as_str() {
        "create" => {
            let name = match fields.get("name") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) if s.chars().count() <= MAX_NAME_CHARS => s.clone(),
                Some(_) => {
                    return Err(ApiError::unprocessable(format!(
                        "field 'name' must be a string of at most {MAX_NAME_CHARS} characters"
                    )));
                }
            };
            let days = match whole_number(fields, "expires_days", from_form) {
                None => state.config().api_key_default_expiry_days.map(i64::from),
                Some(Ok(d)) if (1..=MAX_EXPIRES_DAYS).contains(&d) => Some(d),
                Some(_) => {
                    return Err(ApiError::unprocessable(format!(
                        "field 'expires_days' must be a whole number from 1 to {MAX_EXPIRES_DAYS}"
                    )));
                }
            };
            crate::http::limit::check_token_issue(state, &email).await?;
            let expires_at = days.map(|d| now + d * 86_400);
            let key = new_token()?;
            let new = NewApiKey {
                key_hash: crate::tokens::auth::token_hash(&key),
                email,
                name: name.clone(),
                created_at: now,
                expires_at,
            };
            let id = match tokio::task::spawn_blocking(move || store.insert_api_key(&new)).await?? {
                KeyInsert::Created(id) => id,
                KeyInsert::AtLimit(max) => {
                    return Err(ApiError::conflict(format!(
                        "this account holds {max} active API keys, as many as it may: revoke one first (action \"revoke\"), or ask an operator for more"
                    )));
                }
            };
            tracing::info!(id, "API key created");
            Ok(KeyOutcome::Created(NewKeyAnswer {
                id,
                key: Secret::new(key),
                name,
                created_at: now,
                expires_at,
            }))
        }
        "list" => {
            let after_id = match whole_number(fields, "after_id", from_form) {
                None => 0,
                Some(Ok(id)) => id,
                Some(Err(())) => {
                    return Err(ApiError::unprocessable(
                        "field 'after_id' must be a key's id (a number)",
                    ));
                }
            };
            let mut rows = tokio::task::spawn_blocking(move || {
                store.list_api_keys(Some(&email), after_id, API_KEY_PAGE + 1)
            })
            .await??;
            let more = rows.len() > API_KEY_PAGE as usize;
            rows.truncate(API_KEY_PAGE as usize);
            let next = rows.last().map(|r| r.id).filter(|_| more);
            Ok(KeyOutcome::Listed(rows, next))
        }
        _ => {
            let id = match whole_number(fields, "id", from_form) {
                Some(Ok(id)) => id,
                _ => {
                    return Err(ApiError::unprocessable(
                        "field 'id' must be a key's id (a number)",
                    ));
                }
            };
            let revoked =
                tokio::task::spawn_blocking(move || store.revoke_api_key(id, Some(&email)))
                    .await??;
            if !revoked {
                return Err(ApiError::not_found(format!(
                    "you have no API key with id {id}"
                )));
            }
            tracing::info!(id, "API key revoked");
            Ok(KeyOutcome::Revoked(id))
        }
    }
}
