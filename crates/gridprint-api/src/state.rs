//! The state every handler shares ([`AppState`]) and the configuration it carries ([`ApiConfig`]).
//!
//! [`AppState`] is one `Arc` around the store, the reference data, the injected clock, the
//! configuration, the token cache, the brute-force guard, the rate limits, the permits of the
//! blocking pool, the in-memory [`QueryService`], the storage health and the response cache;
//! [`AppStateBuilder`] assembles it with its optional parts (a shared rate limit, provider probes, a
//! query service built elsewhere). Handlers take it as axum `State`; the router that hands it to
//! them is assembled in [`crate::http::router`]. The parts it holds live in their own
//! modules, none of which needs the state: [`crate::tokens::token_cache`], [`crate::tokens::brute_force`],
//! [`crate::v1::health`], [`crate::kept`]. [`crate::refresh`] loads the query service's cache.

use crate::http::error::ApiError;
use crate::http::front::{ClientIpHeader, TrustedProxies};
use crate::kept::tag_memo::{TagMemo, tag_memo};
use crate::tokens::brute_force::FailureGuard;
use crate::tokens::token_cache::TokenCache;
use crate::v1::health::{DemoFn, Providers, StorageHealth};
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::Clock;
use gridprint_query::{DataCache, QueryService, ServiceError};
use gridprint_ratelimit::{AttemptPolicy, RateLimit};
use gridprint_store::SharedStore;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use time::OffsetDateTime;

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
    /// A client that leaves an answer unread this long (the socket's send buffer full) is
    /// disconnected and the answer's memory freed.
    pub send_timeout: Duration,
    /// Open connections one client address may hold at once (an IPv6 client by its /64; trusted
    /// proxies are not capped); a connection past it is closed as soon as it is accepted. 0: no cap.
    pub max_connections_per_address: usize,
    /// Open connections all clients together may hold at once; at the cap a new connection takes
    /// the place of the oldest one that has not sent a whole request yet, or is closed as soon as
    /// it is accepted when there is none ([`crate::http::connection_cap`]). 0: no cap. `gridprint serve`
    /// derives its default from the process's file limit
    /// ([`max_connections_for_file_limit`](crate::http::connection_cap::max_connections_for_file_limit)).
    pub max_connections: usize,
    /// A request body not complete this long after its head was read is answered 408 and its
    /// connection closed ([`crate::http::layers`]).
    pub body_read_timeout: Duration,
    /// Refusals (connection cap, 429, 408, 503 of the budgets) are summarised in the log at most
    /// once per kind and interval ([`crate::http::refusals`]).
    pub refusal_log_interval: Duration,
    /// Bytes of rendered answers (larger than [`crate::kept::response_memory::SMALL_ANSWER_BYTES`]) that may wait
    /// for their clients at once, all connections together; an answer past it is refused with 503
    /// and `Retry-After` instead of being held.
    pub response_memory_bytes: usize,
    /// A storage check not answered within this time counts as storage down (data routes 503) until
    /// the store answers again; see [`crate::refresh`].
    pub storage_timeout: Duration,
    /// Failed credential attempts allowed per (email, client address) within `failure_window`;
    /// then that pair is locked for `failure_window` (429). Attempts count at admission.
    pub max_failed_attempts: u32,
    /// Failed attempts allowed per email from all addresses together (then the email's attempts are
    /// verified one per `failure_window / max_failed_per_email`, the fewest-failure address first).
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
    /// Days until a new API key expires when its creation gives no expiry; `None`: such keys never
    /// expire.
    pub api_key_default_expiry_days: Option<u32>,
    /// Peers whose forwarded client address is believed ([`crate::http::front`]).
    pub trusted_proxies: TrustedProxies,
    /// The header those proxies write the client's address in (the other one is ignored).
    pub client_ip_header: ClientIpHeader,
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
    /// ([`crate::kept::response_cache`]); 0 disables it.
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
            send_timeout: Duration::from_secs(20),
            max_connections_per_address: 256,
            max_connections: 0,
            body_read_timeout: Duration::from_secs(10),
            refusal_log_interval: Duration::from_secs(60),
            response_memory_bytes: 512 << 20,
            storage_timeout: Duration::from_secs(5),
            max_failed_attempts: 10,
            max_failed_per_email: 100,
            max_failed_per_address: 100,
            failure_window: Duration::from_secs(15 * 60),
            token_requests_per_minute: 30.0,
            token_request_burst: 10,
            api_key_default_expiry_days: None,
            trusted_proxies: TrustedProxies::default(),
            client_ip_header: ClientIpHeader::default(),
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

/// How long a client may keep the server waiting, and how many connections it may hold
/// ([`crate::serve_router`]).
#[derive(Debug, Clone)]
pub struct ClientLimits {
    /// To send its whole request head (after connecting, or after its previous answer).
    pub header_read: Duration,
    /// To accept more bytes of an answer while the socket's send buffer is full.
    pub send: Duration,
    /// Open connections per client address (`server::OpenPerAddress`); 0: no cap.
    pub max_connections_per_address: usize,
    /// Open connections of all clients together (`connection_cap::ConnectionCap`); 0: no cap.
    pub max_connections: usize,
    /// How often refusals are summarised in the log ([`crate::http::refusals`]).
    pub refusal_log_interval: Duration,
    /// Peers not capped: a reverse proxy carries many clients on its connections.
    pub trusted_proxies: TrustedProxies,
}

impl ApiConfig {
    /// The connection limits of [`crate::serve_router`].
    pub fn client_limits(&self) -> ClientLimits {
        ClientLimits {
            header_read: self.header_read_timeout,
            send: self.send_timeout,
            max_connections_per_address: self.max_connections_per_address,
            max_connections: self.max_connections,
            refusal_log_interval: self.refusal_log_interval,
            trusted_proxies: self.trusted_proxies.clone(),
        }
    }

    /// The brute-force guard's policy ([`FailureGuard`]): the failure limits per (email, address),
    /// per email and per address, and `failure_window` as both the counting window and the lockout.
    pub fn attempt_policy(&self) -> AttemptPolicy {
        AttemptPolicy {
            per_pair: self.max_failed_attempts,
            per_email: self.max_failed_per_email,
            per_address: self.max_failed_per_address,
            window: self.failure_window,
            lockout: self.failure_window,
            // The slow lane keeps the per-email limit's long-run pace (15 min / 100 = 9 s), at
            // most 20 s apart so that the owner's attempt is verified within the request timeout.
            slow_interval: (self.failure_window / self.max_failed_per_email.max(1))
                .min(Duration::from_secs(20)),
            ..AttemptPolicy::default()
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
    pub(crate) tokens: TokenCache,
    pub(crate) failures: FailureGuard,
    /// Per token (`token:` keys) and per client address (`ip:` keys).
    pub(crate) limits: RateLimit,
    pub(crate) hash_permits: Arc<tokio::sync::Semaphore>,
    pub(crate) long_answer_permits: Arc<tokio::sync::Semaphore>,
    /// The memory budget of rendered answers waiting for their clients, in KiB
    /// ([`ApiConfig::response_memory_bytes`]; [`crate::kept::response_memory`]).
    pub(crate) response_memory: Arc<tokio::sync::Semaphore>,
    pub(crate) dummy_hash: OnceLock<String>,
    pub(crate) query: Arc<QueryService>,
    pub(crate) health: StorageHealth,
    pub(crate) providers: Providers,
    /// `serve --demo`: what `/v1/status` and the dashboard say about the replay.
    pub(crate) demo: Option<DemoFn>,
    pub(crate) responses: crate::kept::Store,
    /// The tags of requests answered before, by the request as sent (`crate::kept::tag_memo`).
    pub(crate) tag_memo: TagMemo,
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
    demo: Option<DemoFn>,
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

    /// Marks this server as the replaying demo (`serve --demo`): `/v1/status` carries `demo`, read
    /// from `demo` on every request (it must return at once).
    pub fn demo(mut self, demo: DemoFn) -> Self {
        self.demo = Some(demo);
        self
    }

    /// Serves from this query service (already loaded, or shared between states in tests) instead
    /// of a new one with an empty cache.
    #[cfg(any(test, feature = "testing"))]
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
                tokens: TokenCache::default(),
                failures: FailureGuard::new(config.attempt_policy(), &limits),
                limits,
                hash_permits: Arc::new(tokio::sync::Semaphore::new(
                    config.max_concurrent_hashes.max(1),
                )),
                long_answer_permits: Arc::new(tokio::sync::Semaphore::new(
                    config.max_concurrent_long_answers.max(1),
                )),
                response_memory: Arc::new(tokio::sync::Semaphore::new(
                    (config.response_memory_bytes >> 10).min(tokio::sync::Semaphore::MAX_PERMITS),
                )),
                dummy_hash: OnceLock::new(),
                query,
                health: StorageHealth::new(loaded),
                providers: self.providers,
                demo: self.demo,
                responses: crate::kept::Store::with_max_bytes(config.response_cache_bytes),
                tag_memo: tag_memo(config.response_cache_bytes > 0),
                reference: self.reference,
                config,
            }),
        })
    }
}

/// Runs `f` on tokio's blocking pool once one of `permits` is free (permits bound how many such
/// jobs run at once: password hashes, long answers; waiting is in arrival order). The job holds its
/// permit until it returns, even when the request is dropped meanwhile (a request timeout, a client
/// gone): a started job cannot be stopped, and freeing its permit early let the jobs of timed-out
/// requests pile up beyond the bound (hundreds of
/// large requests at once took gigabytes and seconds of latency for everybody). A request dropped while it waits never starts its job.
pub(crate) async fn on_blocking_pool<T: Send + 'static>(
    permits: &Arc<tokio::sync::Semaphore>,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    let permit = permits
        .clone()
        .acquire_owned()
        .await
        .map_err(ApiError::internal)?;
    Ok(tokio::task::spawn_blocking(move || {
        let _permit = permit;
        f()
    })
    .await?)
}

impl AppState {
    /// Runs a costly answer `f` on the bounded pool: the blocking pool, at most
    /// [`ApiConfig::max_concurrent_long_answers`] at once ([`on_blocking_pool`]). The data routes'
    /// long and costly answers and the dashboard's builds go through it, so that no account or
    /// address can take more than that many threads of CPU.
    pub async fn on_bounded_pool<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        on_blocking_pool(&self.inner.long_answer_permits, f).await
    }

    /// Builds the shared state with an empty data cache (load it with
    /// [`crate::refresh::load`]) and a per-process rate limit. `clock` decides token expiry, cache ages,
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
            demo: None,
            query: None,
        }
    }

    /// What the replaying demo says about itself (`serve --demo`); `None` on any other server.
    pub fn demo(&self) -> Option<gridprint_responses::DemoStatus> {
        self.inner.demo.as_ref().map(|f| f())
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
    pub fn token_cache(&self) -> &TokenCache {
        &self.inner.tokens
    }

    /// The query service answering the data routes from memory.
    pub fn query(&self) -> &Arc<QueryService> {
        &self.inner.query
    }

    /// The request limiter (per account, per client address; shared through Redis when
    /// configured), for routes outside this crate that count against it (the dashboard).
    pub fn rate_limit(&self) -> &RateLimit {
        &self.inner.limits
    }

    /// The rendered answers kept for reuse ([`crate::kept`]).
    pub fn response_cache(&self) -> &crate::kept::Store {
        &self.inner.responses
    }

    /// The budget of rendered answer bytes waiting for their clients, in KiB
    /// ([`crate::kept::response_memory`]): every route that serves large answers counts them here.
    pub fn response_memory(&self) -> &Arc<tokio::sync::Semaphore> {
        &self.inner.response_memory
    }

    /// Bytes of rendered answers now counted against the response memory budget
    /// ([`crate::kept::response_memory`]), rounded up to KiB per answer.
    #[cfg(any(test, feature = "testing"))]
    pub fn response_memory_in_use(&self) -> usize {
        let total = (self.inner.config.response_memory_bytes >> 10)
            .min(tokio::sync::Semaphore::MAX_PERMITS);
        (total - self.inner.response_memory.available_permits()) << 10
    }

    /// Whether the cache has been loaded from the store at least once.
    pub fn is_loaded(&self) -> bool {
        self.inner.health.loaded()
    }
}

#[cfg(test)]
mod tests {
    use super::on_blocking_pool;
    use std::sync::Arc;
    use std::time::Duration;
    use tokio::sync::Semaphore;

    /// A request dropped while its job runs (a request timeout) keeps the job's permit
    /// taken until the job returns, so timed-out jobs cannot pile up past the bound; a request
    /// dropped while it waits never starts its job.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dropped_request_keeps_its_running_job_counted() {
        let permits = Arc::new(Semaphore::new(1));
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let (started, mut running) = tokio::sync::mpsc::unbounded_channel::<()>();
        let held = permits.clone();
        let dropped = tokio::spawn(async move {
            on_blocking_pool(&held, move || {
                started.send(()).unwrap();
                wait.recv().unwrap();
            })
            .await
        });
        running.recv().await.unwrap();
        dropped.abort(); // the request goes away; its job cannot be stopped
        let _ = dropped.await;
        assert_eq!(permits.available_permits(), 0, "the running job is counted");
        let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let r = ran.clone();
        let waiting = on_blocking_pool(&permits, move || {
            r.store(true, std::sync::atomic::Ordering::SeqCst)
        });
        assert!(
            tokio::time::timeout(Duration::from_millis(50), waiting)
                .await
                .is_err()
        );
        release.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), async {
            while permits.available_permits() < 1 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the permit returns when the job does");
        assert!(
            !ran.load(std::sync::atomic::Ordering::SeqCst),
            "a request dropped while waiting never ran"
        );
    }
}
