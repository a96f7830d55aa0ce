//! gridprint-api: the HTTP interface of gridprint — the token service (`/token-request`), its browser
//! page, and the `/v1` data API — as an axum [`Router`].
//!
//! [`router`] builds the route table from an [`AppState`] (store, reference data, clock, config, the
//! in-memory [`QueryService`]); [`serve`] runs it on an already-bound listener with graceful shutdown,
//! so the binary and the tests share one code path and tests can bind port 0. Handlers never name a
//! database driver, and data requests touch neither the database nor files: answers come from the
//! query service's columnar cache, which [`refresh`] loads at start-up and reloads in the background
//! when the store's data version changes; tokens are verified from an in-memory cache.
//!
//! Modules: [`error`] (the one error type), [`token`] (the token service), [`auth`] (the Bearer
//! extractor and token cache), [`extract`] (`Query`/`Json` rejecting through `ApiError`), [`page`]
//! (the token page), [`data`] (the `/v1` data handlers), [`status`] (`/v1/status*`, storage and
//! provider health), [`format`] (JSON or CSV, from `format` or `Accept`), [`params`] (the published
//! query parameters and error schema), [`limit`] (brute-force guard, per-account and per-client rate
//! limits), [`front`] (in front of the router: client address behind trusted proxies, `/latest` and
//! root aliases, trailing-slash redirects, favicon), [`refresh`] (loading and refreshing the cache),
//! [`openapi`] (the generated OpenAPI description; the answers' schemas come with their types from
//! `gridprint-responses`), [`docs`] (the offline docs page and the index page), [`layers`]
//! (request-size limits, metrics, timeout, CORS), [`response_cache`] (rendered final answers kept for
//! reuse), [`server`] (the connection loop: header-read timeout, graceful drain), `testing` (feature `testing`: a clock tests can move).

#![forbid(unsafe_code)]

pub mod auth;
pub mod data;
pub mod docs;
pub mod error;
pub mod extract;
pub mod format;
pub mod front;
pub mod ignored;
pub mod layers;
pub mod limit;
pub mod openapi;
pub mod page;
pub mod params;
pub mod refresh;
pub mod response_cache;
pub mod server;
pub mod status;
#[cfg(feature = "testing")]
pub mod testing;
pub mod token;

pub use auth::AuthUser;
pub use data::data_paths;
pub use error::ApiError;
pub use status::{ProbeFn, Providers};

use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, header};
use axum::middleware;
use axum::routing::get;
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::Clock;
use gridprint_query::{DataCache, QueryService, ServiceError};
use gridprint_ratelimit::RateLimit;
use gridprint_store::SharedStore;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use time::OffsetDateTime;
use tower_http::compression::{CompressionLayer, CompressionLevel};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::{DefaultOnResponse, TraceLayer};

/// Largest request body accepted (the token service's JSON or form bodies), in bytes.
pub const MAX_BODY_BYTES: usize = 4096;

/// Tunables of the HTTP interface. `ApiConfig::default()` holds the production values.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// Sustained requests per second per account on the data routes (all its tokens together;
    /// an account's own tier overrides it), and per client address on the public routes (token
    /// service, status, docs); 0 disables both default limits.
    pub rate_limit_per_second: f64,
    /// Requests an account (or client) may send at once before the sustained rate applies.
    pub rate_limit_burst: u32,
    /// A request taking longer is answered 503.
    pub request_timeout: Duration,
    /// A client that has not sent its whole request head this long after connecting (or after its
    /// previous answer, on a kept-alive connection) is disconnected.
    pub header_read_timeout: Duration,
    /// A storage check not answered within this time counts as storage down (data routes 503) until
    /// the store answers again; see [`refresh`].
    pub storage_timeout: Duration,
    /// Failed credential attempts allowed per (email, client address) within `failure_window`;
    /// then that pair is locked for `failure_window` (429). Attempts count at admission.
    pub max_failed_attempts: u32,
    /// Failed attempts allowed per email from all addresses together (then the email is locked).
    pub max_failed_per_email: u32,
    /// Failed attempts allowed per client address over all emails (then the address is locked).
    pub max_failed_per_address: u32,
    /// How long failures are remembered, and how long a lock lasts.
    pub failure_window: Duration,
    /// Delay added to each failed attempt; slows guessing before the 429 applies. Tests set it to
    /// zero.
    pub failure_delay: Duration,
    /// Tokens an account may get per minute (sustained), and in a burst.
    pub token_requests_per_minute: f64,
    pub token_request_burst: u32,
    /// Peers whose `Forwarded`/`X-Forwarded-For` client address is believed ([`front`]).
    pub trusted_proxies: front::TrustedProxies,
    /// Argon2id computations allowed at once (each takes ~19 MiB and a core for tens of ms).
    pub max_concurrent_hashes: usize,
    /// Long answers (windows over `data::BLOCKING_ABOVE_DAYS` days) rendered at once; the others
    /// wait their turn in arrival order. Default: twice the number of cores, so that a burst of year
    /// requests is served a few at a time at full speed (a short tail of latency, few answer buffers
    /// alive) instead of all of them sharing the cores. Measured on ten years, 32 connections of
    /// distinct one-year windows, 2 cores: unlimited p99 47–51 ms, RSS 597 MB; 4 at once p99
    /// 34–37 ms, RSS 525 MB, the same throughput; 2 at once 17 % fewer answers per second.
    pub max_concurrent_long_answers: usize,
    /// How often the background task asks the store whether computed data changed (and reloads the
    /// cache when it did); also the storage health check of `/v1/status/storage`.
    pub refresh_interval: Duration,
    /// The one browser origin allowed to call the API cross-origin (CORS); `None`: CORS off.
    pub cors_origin: Option<String>,
    /// Longest request target (path and query) accepted; longer → 414.
    pub max_uri_bytes: usize,
    /// Largest total size of the request headers accepted; larger → 431.
    pub max_header_bytes: usize,
    /// Bytes of rendered final answers kept in memory and served again without recomputation
    /// ([`response_cache`]); 0 disables it.
    pub response_cache_bytes: usize,
    /// How the data cache is loaded, in particular where its pages of old days are spilled
    /// (`gridprint_query::LoadOptions::spill`; none by default: everything in memory).
    pub cache_load: gridprint_query::LoadOptions,
}

impl Default for ApiConfig {
    fn default() -> ApiConfig {
        ApiConfig {
            rate_limit_per_second: 20.0,
            rate_limit_burst: 100,
            request_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            storage_timeout: Duration::from_secs(5),
            max_failed_attempts: 10,
            max_failed_per_email: 100,
            max_failed_per_address: 100,
            failure_window: Duration::from_secs(15 * 60),
            token_requests_per_minute: 30.0,
            token_request_burst: 10,
            trusted_proxies: front::TrustedProxies::default(),
            failure_delay: Duration::from_millis(100),
            max_concurrent_hashes: 4,
            max_concurrent_long_answers: 2 * std::thread::available_parallelism()
                .map_or(2, |n| n.get()),
            refresh_interval: Duration::from_secs(2),
            cors_origin: None,
            max_uri_bytes: 8 * 1024,
            max_header_bytes: 16 * 1024,
            response_cache_bytes: 64 << 20,
            cache_load: gridprint_query::LoadOptions::default(),
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
    /// Per token (`token:` keys) and per client address (`ip:` keys).
    pub(crate) limits: RateLimit,
    pub(crate) hash_permits: tokio::sync::Semaphore,
    pub(crate) long_answer_permits: tokio::sync::Semaphore,
    pub(crate) dummy_hash: OnceLock<String>,
    pub(crate) query: Arc<QueryService>,
    pub(crate) health: status::StorageHealth,
    pub(crate) providers: Providers,
    pub(crate) responses: response_cache::ResponseCache,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("store", &self.inner.store.describe())
            .field("zones", &self.inner.reference.zones.len())
            .field("config", &self.inner.config)
            .field("tokens", &self.inner.tokens)
            .field("limits", &self.inner.limits)
            .field("data_version", &self.inner.query.cache().data_version())
            .finish_non_exhaustive()
    }
}

/// Builds an [`AppState`] with optional parts (a shared rate limit, provider probes, a query service
/// built elsewhere).
pub struct AppStateBuilder {
    store: SharedStore,
    reference: Arc<ReferenceData>,
    clock: Arc<dyn Clock>,
    config: ApiConfig,
    limits: Option<RateLimit>,
    providers: Providers,
    query: Option<Arc<QueryService>>,
}

impl AppStateBuilder {
    /// Uses this rate limiter (e.g. [`RateLimit::redis`], shared by every replica) instead of a
    /// per-process one built from the configured rate and burst.
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.limits = Some(limit);
        self
    }

    /// How `/v1/status` learns the upstream providers' health (default: `unknown`).
    pub fn providers(mut self, providers: Providers) -> Self {
        self.providers = providers;
        self
    }

    /// Serves from this query service (already loaded, or shared between states in tests) instead
    /// of a new one with an empty cache.
    pub fn query_service(mut self, query: Arc<QueryService>) -> Self {
        self.query = Some(query);
        self
    }

    /// The state. Fails only when the reference data's zone polygons cannot be indexed.
    pub fn build(self) -> Result<AppState, ServiceError> {
        let loaded = self.query.is_some();
        let query = match self.query {
            Some(q) => q,
            None => Arc::new(QueryService::new(DataCache::empty(self.reference.clone()))?),
        };
        let config = self.config;
        let limits = self.limits.unwrap_or_else(|| {
            RateLimit::local(config.rate_limit_per_second, config.rate_limit_burst)
        });
        Ok(AppState {
            inner: Arc::new(Inner {
                store: self.store,
                clock: self.clock,
                tokens: auth::TokenCache::default(),
                failures: limit::FailureGuard::new(&config, &limits),
                limits,
                hash_permits: tokio::sync::Semaphore::new(config.max_concurrent_hashes.max(1)),
                long_answer_permits: tokio::sync::Semaphore::new(
                    config.max_concurrent_long_answers.max(1),
                ),
                dummy_hash: OnceLock::new(),
                query,
                health: status::StorageHealth::new(loaded),
                providers: self.providers,
                responses: response_cache::ResponseCache::new(config.response_cache_bytes),
                reference: self.reference,
                config,
            }),
        })
    }
}

/// Runs `f` on tokio's blocking pool once one of `permits` is free (permits bound how many such
/// jobs run at once: password hashes, long answers; waiting is in arrival order).
pub(crate) async fn on_blocking_pool<T: Send + 'static>(
    permits: &tokio::sync::Semaphore,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, error::ApiError> {
    let _permit = permits.acquire().await.map_err(error::ApiError::internal)?;
    Ok(tokio::task::spawn_blocking(f).await?)
}

impl AppState {
    /// Builds the shared state with an empty data cache (load it with
    /// [`refresh::load`]) and a per-process rate limit. `clock` decides token expiry, cache ages,
    /// brute-force windows and the "now" of data requests.
    ///
    /// # Panics
    /// When the reference data's zone polygons cannot be indexed (the embedded data always can; use
    /// [`AppState::builder`] to handle the error for reference data read from files).
    pub fn new(
        store: SharedStore,
        reference: Arc<ReferenceData>,
        clock: Arc<dyn Clock>,
        config: ApiConfig,
    ) -> AppState {
        AppState::builder(store, reference, clock, config)
            .build()
            .expect("the reference data's zone polygons can be indexed")
    }

    /// A builder for states with a shared rate limit, provider probes or a prepared query service.
    pub fn builder(
        store: SharedStore,
        reference: Arc<ReferenceData>,
        clock: Arc<dyn Clock>,
        config: ApiConfig,
    ) -> AppStateBuilder {
        AppStateBuilder {
            store,
            reference,
            clock,
            config,
            limits: None,
            providers: Providers::default(),
            query: None,
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

    /// The query service answering the data routes from memory.
    pub fn query(&self) -> &Arc<QueryService> {
        &self.inner.query
    }

    /// The rendered final answers kept for reuse.
    pub fn response_cache(&self) -> &response_cache::ResponseCache {
        &self.inner.responses
    }

    /// Whether the cache has been loaded from the store at least once.
    pub fn is_loaded(&self) -> bool {
        self.inner.health.loaded()
    }
}

/// The client's address as [`front`] resolved it: the socket peer when served with [`serve`] (or
/// the forwarded address when the peer is a trusted proxy), `0.0.0.0` in in-process tests without
/// `ConnectInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

impl ClientAddr {
    /// The address of a request (see the type's documentation).
    pub fn of(extensions: &axum::http::Extensions) -> ClientAddr {
        if let Some(resolved) = extensions.get::<ClientAddr>() {
            return *resolved; // resolved by `front` (trusted proxies)
        }
        ClientAddr(
            extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip())
                .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
        )
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<ClientAddr, Infallible> {
        Ok(ClientAddr::of(&parts.extensions))
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
        .route(
            "/token-request/register",
            token::Operation::Register.route(),
        )
        .route(
            "/token-request/get_token",
            token::Operation::GetToken.route(),
        )
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
}

/// The whole HTTP interface: token service, pages, data API and its OpenAPI description, with
/// request ids, structured request logs, metrics, compression, a request timeout, request-size
/// limits, rate limits (per token on data routes, per client elsewhere), security headers and, when
/// configured, CORS for one origin.
pub fn router(state: AppState) -> Router {
    router_with_home(state, None)
}

/// [`router`] with `home` (the dashboard, `gridprint-dashboard`) mounted at `/` in place of the
/// links page, under the same public per-client limit and layers.
pub fn router_with_home(state: AppState, home: Option<Router<AppState>>) -> Router {
    let request_id = HeaderName::from_static("x-request-id");
    let (data_routes, _spec) = data::data_router().split_for_parts();
    let protected = data_routes.route_layer(middleware::from_fn_with_state(
        state.clone(),
        auth::data_guard,
    ));
    let public = Router::new()
        .merge(token_routes())
        .merge(status::routes())
        .merge(docs::routes(home.is_none()))
        .merge(home.unwrap_or_default())
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            limit::client_rate_limit,
        ));
    let mut app = Router::new()
        .merge(protected)
        .merge(public)
        .route_layer(middleware::from_fn(layers::tag_route))
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            layers::timeout,
        ))
        .layer(CompressionLayer::new().quality(CompressionLevel::Precise(4)))
        .layer(middleware::from_fn(layers::record_metrics))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            layers::limit_request_size,
        ));
    if let Some(cors) = layers::cors(state.config()) {
        app = app.layer(cors);
    }
    let trusted = state.config().trusted_proxies.clone();
    // Outside the size limits and CORS, so their answers (414, 431, preflights) carry them too.
    let app = app.layer(SetResponseHeaderLayer::if_not_present(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    ))
    .layer(SetResponseHeaderLayer::if_not_present(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    ))
    .layer(
        TraceLayer::new_for_http()
            .make_span_with(|req: &Request| {
                // Path only: never headers (Authorization), query strings or bodies (passwords).
                let id = req
                    .headers()
                    .get("x-request-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("-");
                tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
            })
            .on_response(
                DefaultOnResponse::new()
                    .level(tracing::Level::INFO)
                    .latency_unit(tower_http::LatencyUnit::Micros),
            ),
    )
    .layer(PropagateRequestIdLayer::new(request_id.clone()))
    .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
    .with_state(state);
    front::wrap(trusted, app)
}

/// Serves [`router`] on `listener` until `shutdown` resolves, then finishes the requests clients had
/// already sent ([`server`] describes the drain). Client addresses (for the brute-force guard and
/// rate limit) come from the socket.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let header_read_timeout = state.config().header_read_timeout;
    server::serve(listener, router(state), header_read_timeout, shutdown).await
}

/// [`serve`] for a router already built (e.g. by [`router_with_home`]).
pub async fn serve_router(
    listener: tokio::net::TcpListener,
    app: Router,
    header_read_timeout: Duration,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    server::serve(listener, app, header_read_timeout, shutdown).await
}
