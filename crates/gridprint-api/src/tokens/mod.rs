//! The token service with its API keys: who may read the data, and how they prove it.
//!
//! [`token`] registers granted emails (`registration_code`: the one-time codes of `gridprint access
//! grant`) and issues Bearer tokens under `/token-request`; [`api_keys`] lets a user create, list
//! and revoke API keys; [`page`] is the service's browser page; [`brute_force`] guards the
//! password checks. On the data routes [`auth`] checks a token or key against [`token_cache`]
//! (memory first, the store behind it). [`routes`] gathers the service's routes; the rules a client
//! sees are docs/api.md §4.

pub mod api_keys;
pub mod auth;
pub mod brute_force;
pub mod page;
pub mod registration_code;
pub mod token;
pub mod token_cache;

use crate::state::AppState;
use axum::Router;
use axum::http::{HeaderValue, header};
use axum::routing::get;
use tower_http::set_header::SetResponseHeaderLayer;

/// The token service routes (`/token-request…`), every response marked `Cache-Control: no-store`.
pub(crate) fn routes() -> Router<AppState> {
    let (operations, _) = token::token_router()
        .merge(api_keys::router())
        .split_for_parts();
    Router::new()
        .route("/token-request", get(page::redirect))
        .route("/token-request/", get(page::index))
        .route("/token-request/page.js", get(page::script))
        .route("/token-request/page.css", get(page::style))
        .route("/token-request/favicon.svg", get(page::icon))
        .merge(operations)
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
}
