//! gridprint-api: the HTTP interface of gridprint — the token service (`/token-request`), its browser
//! page, and the `/v1` data API — as an axum [`Router`].
//!
//! [`router`] builds the route table from an [`AppState`] (store, reference data, clock, config);
//! [`serve`] runs it on an already-bound listener with graceful shutdown, so the binary and the tests
//! share one code path and tests can bind port 0. Handlers never name a database driver: they use the
//! [`Store`](gridprint_store::Store) trait on the blocking pool, and the hot path of data requests
//! (token verification) is served from memory.
//!
//! Modules: [`error`] (the one error type), [`token`] (the token service), [`auth`] (the Bearer
//! extractor and token cache), [`extract`] (`Query`/`Json` rejecting through `ApiError`), [`page`] (the HTML page), [`data`] (the `/v1` handlers), [`limit`]
//! (brute-force guard and rate limit), [`testing`] (a clock tests can move).

#![forbid(unsafe_code)]

pub mod auth;
pub mod data;
pub mod error;
pub mod extract;
pub mod limit;
pub mod page;
pub mod testing;
pub mod token;

pub use auth::AuthUser;
pub use error::ApiError;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::Clock;
use gridprint_store::SharedStore;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use time::OffsetDateTime;
use tower_http::compression::CompressionLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

/// Largest request body accepted (the token service's JSON or form bodies), in bytes.
pub const MAX_BODY_BYTES: usize = 4096;

/// Tunables of the HTTP interface. `ApiConfig::default()` holds the production values.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// Sustained requests per second per client address (token bucket); 0 disables the limit.
    pub rate_limit_per_second: f64,
    /// Requests a client may send at once before the sustained rate applies.
    pub rate_limit_burst: u32,
    /// A request taking longer is answered 503.
    pub request_timeout: Duration,
    /// Failed credential attempts allowed per email or client address within `failure_window`;
    /// the next attempt is answered 429.
    pub max_failed_attempts: usize,
    /// The sliding window of the brute-force guard.
    pub failure_window: Duration,
    /// Extra delay added to a failed attempt per recent failure (capped at 2 s); slows guessing
    /// before the 429 applies. Tests set it to zero.
    pub failure_delay: Duration,
    /// Argon2id computations allowed at once (each takes ~19 MiB and a core for tens of ms).
    pub max_concurrent_hashes: usize,
}

impl Default for ApiConfig {
    fn default() -> ApiConfig {
        ApiConfig {
            rate_limit_per_second: 20.0,
            rate_limit_burst: 100,
            request_timeout: Duration::from_secs(30),
            max_failed_attempts: 10,
            failure_window: Duration::from_secs(15 * 60),
            failure_delay: Duration::from_millis(100),
            max_concurrent_hashes: 4,
        }
    }
}

/// Everything the handlers share; cheap to clone (one `Arc`).
#[derive(Clone)]
pub struct AppState {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) store: SharedStore,
    pub(crate) reference: Arc<ReferenceData>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) config: ApiConfig,
    pub(crate) tokens: auth::TokenCache,
    pub(crate) failures: limit::FailureGuard,
    pub(crate) rate: limit::RateLimiter,
    pub(crate) hash_permits: tokio::sync::Semaphore,
    pub(crate) dummy_hash: OnceLock<String>,
    pub(crate) zones_json: Bytes,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("store", &self.inner.store.describe())
            .field("zones", &self.inner.reference.zones.len())
            .field("config", &self.inner.config)
            .field("tokens", &self.inner.tokens)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// Builds the shared state. `clock` decides token expiry, cache ages and brute-force windows.
    pub fn new(
        store: SharedStore,
        reference: Arc<ReferenceData>,
        clock: Arc<dyn Clock>,
        config: ApiConfig,
    ) -> AppState {
        let zones_json = Bytes::from(data::zones_json(&reference));
        AppState {
            inner: Arc::new(Inner {
                store,
                clock,
                tokens: auth::TokenCache::default(),
                failures: limit::FailureGuard::new(
                    config.max_failed_attempts,
                    config.failure_window,
                ),
                rate: limit::RateLimiter::new(
                    config.rate_limit_per_second,
                    config.rate_limit_burst,
                ),
                hash_permits: tokio::sync::Semaphore::new(config.max_concurrent_hashes.max(1)),
                dummy_hash: OnceLock::new(),
                zones_json,
                reference,
                config,
            }),
        }
    }

    /// The store.
    pub fn store(&self) -> &SharedStore {
        &self.inner.store
    }

    /// The reference data (zones, factors, polygons).
    pub fn reference(&self) -> &Arc<ReferenceData> {
        &self.inner.reference
    }

    /// The injected clock.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.clock
    }

    /// The current time according to the injected clock.
    pub fn now(&self) -> OffsetDateTime {
        self.inner.clock.now()
    }

    /// The configuration.
    pub fn config(&self) -> &ApiConfig {
        &self.inner.config
    }

    /// The in-memory cache of verified tokens.
    pub fn token_cache(&self) -> &auth::TokenCache {
        &self.inner.tokens
    }
}

/// The client's address: the socket peer when served with [`serve`], `0.0.0.0` otherwise (in-process
/// tests without `ConnectInfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<ClientAddr, Infallible> {
        Ok(ClientAddr(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip())
                .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
        ))
    }
}

/// The token service routes (`/token-request…`), every response marked `Cache-Control: no-store`.
fn token_routes() -> Router<AppState> {
    Router::new()
        .route("/token-request", get(page::redirect))
        .route("/token-request/", get(page::index))
        .route("/token-request/page.js", get(page::script))
        .route("/token-request/page.css", get(page::style))
        .route("/token-request/favicon.svg", get(page::icon))
        .route("/token-request/register", post(token::register))
        .route("/token-request/get_token", post(token::get_token))
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
}

/// The whole HTTP interface: token service, page and data API, with request ids, tracing,
/// compression, a request timeout, the per-client rate limit and the 4 KB body limit.
pub fn router(state: AppState) -> Router {
    let request_id = HeaderName::from_static("x-request-id");
    Router::new()
        .merge(token_routes())
        .merge(data::routes())
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(state.clone(), limit::rate_limit))
        .layer(middleware::from_fn_with_state(state.clone(), timeout))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(CompressionLayer::new())
        .layer(TraceLayer::new_for_http().make_span_with(|req: &Request| {
            // Path only: never headers (Authorization) or bodies (passwords).
            let id = req.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or("-");
            tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
        }))
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
        .with_state(state)
}

/// Answers 503 when a request takes longer than [`ApiConfig::request_timeout`].
async fn timeout(State(state): State<AppState>, req: Request, next: Next) -> Response {
    match tokio::time::timeout(state.config().request_timeout, next.run(req)).await {
        Ok(resp) => resp,
        Err(_) => {
            ApiError::unavailable("the request took too long; please retry", 1).into_response()
        }
    }
}

/// Serves [`router`] on `listener` until `shutdown` resolves, then finishes in-flight requests.
/// Client addresses (for the brute-force guard and rate limit) come from the socket.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router(state);
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}
