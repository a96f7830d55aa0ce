//! `POST /token-request/api-key`: a registered user creates, lists and revokes their own API keys
//! with their email and password, under the brute-force rules of `get_token`
//! ([`crate::token::check_credentials`]). The operator's equivalent is `gridprint access key …`.
//!
//! The body is a JSON object: `email`, `password`, `action` (`create`, `list` or `revoke`), and
//! `name` (create, at most 100 characters), `expires_days` (create, 1–36 500; absent: never) or
//! `id` (revoke, one of the caller's keys, else 404), described in the OpenAPI document (tag `token`).
//! A new key is in the answer once
//! (`{"id", "key", "name", "created_at", "expires_at"}`); a list never holds a key. Keys are stored
//! as the SHA-256 of 256 random bits (see `crate::auth::token_hash`). Not yet on the token page.

use crate::error::ApiError;
use crate::front::ClientAddr;
use crate::params::schemas;
use crate::state::AppState;
use crate::token::{check_credentials, new_token, parse_json};
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use gridprint_core::slot::format_timestamp;
use gridprint_store::access::normalize_email;
use gridprint_store::{ApiKeyRow, NewApiKey};
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
    /// `create`: days until the key expires (1 to 36500; absent: never).
    expires_days: Option<i64>,
    /// `revoke`: the id of one of the account's keys.
    id: Option<i64>,
}

/// Create, list or revoke your own API keys (email and password of a registered account).
///
/// `create` answers `{"id", "key", "name", "created_at", "expires_at"}` (the key is shown once);
/// `list` answers `{"keys": [{"id", "name", "created_at", "last_used_at", "expires_at"}]}` (never a
/// key); `revoke` answers `{"detail": "revoked", "id"}`. A key works wherever a token works, as
/// `Authorization: Bearer` or `auth-token`; a revoked key stops on every replica within 60 s.
/// The same brute-force rules as `get_token`.
#[utoipa::path(
    post,
    path = "/token-request/api-key",
    tag = "token",
    operation_id = "api_key",
    request_body(content = ApiKeyRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The new key, the list of keys, or the revocation", body = Object),
        (status = 400, description = "A body that is not JSON", body = schemas::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Unknown email or wrong password (one answer for both)", body = schemas::Problem, content_type = "application/problem+json"),
        (status = 404, description = "`revoke`: you have no key with this id", body = schemas::Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body larger than 4 KB", body = schemas::Problem, content_type = "application/problem+json"),
        (status = 422, description = "A field is missing, not a string, or out of range, or an unknown action", body = schemas::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many failed attempts for this email or client (`Retry-After` in seconds)", body = schemas::Problem, content_type = "application/problem+json"),
    )
)]
pub(crate) async fn request(
    State(state): State<AppState>,
    client: ClientAddr,
    body: Bytes,
) -> Response {
    match answer(&state, client, &body).await {
        Ok(v) => Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn answer(state: &AppState, client: ClientAddr, body: &[u8]) -> Result<Value, ApiError> {
    let creds = parse_json(body)?;
    let fields: serde_json::Map<String, Value> = serde_json::from_slice(body).unwrap_or_default();
    let action = match fields.get("action").and_then(Value::as_str) {
        Some(a @ ("create" | "list" | "revoke")) => a.to_string(),
        _ => {
            return Err(ApiError::unprocessable(
                "field 'action' must be \"create\", \"list\" or \"revoke\"",
            ));
        }
    };
    let email = normalize_email(&creds.email);
    let email = check_credentials(state, client, email.as_deref(), creds.password).await?;
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
            let expires_at = match fields.get("expires_days") {
                None | Some(Value::Null) => None,
                Some(v) => match v.as_i64().filter(|d| (1..=MAX_EXPIRES_DAYS).contains(d)) {
                    Some(d) => Some(now + d * 86_400),
                    None => {
                        return Err(ApiError::unprocessable(format!(
                            "field 'expires_days' must be a whole number from 1 to {MAX_EXPIRES_DAYS}"
                        )));
                    }
                },
            };
            let key = new_token()?;
            let new = NewApiKey {
                key_hash: crate::auth::token_hash(&key),
                email,
                name: name.clone(),
                created_at: now,
                expires_at,
            };
            let id = tokio::task::spawn_blocking(move || store.insert_api_key(&new)).await??;
            tracing::info!(id, "API key created");
            Ok(json!({
                "id": id,
                "key": key,
                "name": name,
                "created_at": stamp(now),
                "expires_at": expires_at.map_or(Value::Null, stamp),
            }))
        }
        "list" => {
            let rows =
                tokio::task::spawn_blocking(move || store.list_api_keys(Some(&email))).await??;
            Ok(json!({"keys": rows.iter().map(row_json).collect::<Vec<_>>()}))
        }
        _ => {
            let id = fields.get("id").and_then(Value::as_i64).ok_or_else(|| {
                ApiError::unprocessable("field 'id' must be a key's id (a number)")
            })?;
            let revoked = tokio::task::spawn_blocking(move || {
                let own = store
                    .list_api_keys(Some(&email))?
                    .iter()
                    .any(|r| r.id == id);
                Ok::<_, gridprint_store::StoreError>(own && store.revoke_api_key(id)?)
            })
            .await??;
            if !revoked {
                return Err(ApiError::not_found(format!(
                    "you have no API key with id {id}"
                )));
            }
            tracing::info!(id, "API key revoked");
            Ok(json!({"detail": "revoked", "id": id}))
        }
    }
}
