//! gridprint-client: a Rust client for the gridprint API (and any server of the same interface);
//! see [`Client`] for an example.
//!
//! - **Tokens**: obtained from `{token_url}/get_token` with the configured email and password,
//!   kept (optionally in a [`TokenStore`]) and reused until 30 s before `expires_at`; a 401 gets one
//!   new token and one retry.
//! - **Retries**: 429 after `Retry-After`; 5xx and connection errors after an exponential backoff
//!   with jitter ([`RetryPolicy`]).
//! - **Types**: requests are the structs of [`request`], the methods per path are in `typed.rs`;
//!   answers are read into the server's own types ([`responses`], gridprint-responses).
//! - **Caching**: `/zones` and `/factors` answers are kept for an hour ([`DEFAULT_CACHE_TTL`]).
//! - **Errors**: one [`Error`] enum; passwords and tokens never appear in `Debug`, errors or logs.
//!
//! TLS is rustls on the `ring` provider, installed process-wide on first use if none is installed.

#![forbid(unsafe_code)]

pub mod error;
pub mod request;
pub mod token;
mod typed;

pub use error::Error;
pub use gridprint_core::production::ProductionType;
pub use gridprint_core::reference::{FootprintType, Scope};
pub use gridprint_core::slot::{Clock, SystemClock};
pub use gridprint_responses as responses;
pub use gridprint_responses::{Format, FormatParam};
pub use request::{
    Aggregatable, Aggregate, ApiRequest, AvailabilityQuery, BestWindowQuery, ExportsQuery,
    FactorsQuery, FlowShareQuery, FootprintShareQuery, FootprintsQuery, ForecastAccuracyQuery,
    GenerationQuery, ImpactShareQuery, ImpactType, ImpactsQuery, ImportsQuery, LoadQuery, Location,
    Metric, MixQuery, MixShareQuery, Period, ScoreQuery, StatusRequest, ZonesQuery,
};
pub use token::{AccessToken, FileTokenStore, Secret, TokenKey, TokenStore};

use backon::{ExponentialBuilder, Retryable};
use error::detail_of;
use gridprint_reqwest_error::describe_reqwest;
use reqwest::Url;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER};
use responses::StatusResponse;
use serde::de::DeserializeOwned;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use time::OffsetDateTime;

/// Result of a client call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How long `/zones` and `/factors` answers are reused.
pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(3600);
/// Timeout of one attempt (connect, request, whole body).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Most cached answers kept at once.
const CACHE_CAPACITY: usize = 64;

/// When and how often to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0: never retry).
    pub retries: usize,
    /// First backoff delay; doubled for each retry, with jitter.
    pub min_delay: Duration,
    /// Longest backoff delay.
    pub max_delay: Duration,
    /// A 429 or 5xx asking to wait longer than this (`Retry-After`) is not retried: the error is
    /// returned at once.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            retries: 3,
            min_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

/// Builds a [`Client`]; see [`Client::builder`].
pub struct ClientBuilder {
    base_url: Option<String>,
    token_url: Option<String>,
    email: Option<String>,
    password: Option<Secret>,
    retry: RetryPolicy,
    timeout: Duration,
    clock: Arc<dyn Clock>,
    store: Option<Arc<dyn TokenStore>>,
    cache_ttl: Duration,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("token_url", &self.token_url)
            .field("email", &self.email)
            .field("password", &self.password)
            .field("retry", &self.retry)
            .field("timeout", &self.timeout)
            .field("cache_ttl", &self.cache_ttl)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// The server: `http(s)://HOST[:PORT]` (a trailing `/v1` is accepted and removed). The data API
    /// is then `…/v1/` and the token service `…/token-request/`.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The token service, when it is not `{base}/token-request`.
    pub fn token_url(mut self, url: impl Into<String>) -> Self {
        self.token_url = Some(url.into());
        self
    }

    /// The email and password registered with the token service.
    pub fn credentials(mut self, email: impl Into<String>, password: impl Into<String>) -> Self {
        self.email = Some(email.into());
        self.password = Some(Secret::new(password.into()));
        self
    }

    /// Retries after the first attempt for 429, 5xx and connection errors.
    pub fn retries(mut self, n: usize) -> Self {
        self.retry.retries = n;
        self
    }

    /// First and longest backoff delay between retries.
    pub fn backoff(mut self, min: Duration, max: Duration) -> Self {
        self.retry.min_delay = min;
        self.retry.max_delay = max.max(min);
        self
    }

    /// Longest `Retry-After` the client is willing to wait.
    pub fn max_retry_after(mut self, d: Duration) -> Self {
        self.retry.max_retry_after = d;
        self
    }

    /// The whole retry policy.
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Timeout of one attempt.
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = d;
        self
    }

    /// The clock token expiry and cache ages are measured with (tests inject one).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// A persistent token cache (e.g. [`FileTokenStore`]) shared with other clients and processes.
    pub fn token_store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// How long `/zones` and `/factors` answers are reused (zero: never).
    pub fn cache_ttl(mut self, d: Duration) -> Self {
        self.cache_ttl = d;
        self
    }

    /// Checks the configuration and builds the client.
    pub fn build(self) -> Result<Client> {
        let base = self
            .base_url
            .ok_or_else(|| Error::Configuration("no base URL given".into()))?;
        let root = root_url(&base)?;
        let api = root
            .join("v1/")
            .map_err(|e| Error::Configuration(format!("invalid base URL '{base}': {e}")))?;
        let token_url = match &self.token_url {
            Some(t) => directory_url(t)?,
            None => root
                .join("token-request/")
                .map_err(|e| Error::Configuration(format!("invalid base URL '{base}': {e}")))?,
        };
        if let Some(e) = &self.email
            && e.trim().is_empty()
        {
            return Err(Error::Configuration("the email is empty".into()));
        }
        // Fails only when a provider is already installed, which is what we want anyway.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .user_agent(concat!("gridprint-client/", env!("CARGO_PKG_VERSION")))
            .timeout(self.timeout)
            .connect_timeout(self.timeout.min(Duration::from_secs(15)))
            .build()
            .map_err(|e| {
                Error::Configuration(format!(
                    "cannot build the HTTP client: {}",
                    describe_reqwest(&e)
                ))
            })?;
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                root,
                api,
                token_url,
                email: self.email.map(|e| e.trim().to_string()),
                password: self.password,
                retry: self.retry,
                clock: self.clock,
                token: tokio::sync::Mutex::new(None),
                store: self.store,
                cache: std::sync::Mutex::new(HashMap::new()),
                cache_ttl: self.cache_ttl,
                token_requests: AtomicUsize::new(0),
            }),
        })
    }
}

/// `http(s)://host[:port]/prefix/` from what the user typed (a trailing `/v1` removed).
fn root_url(base: &str) -> Result<Url> {
    let mut url = directory_url(base)?;
    let path = url.path().trim_end_matches('/').to_string();
    if let Some(stripped) = path.strip_suffix("/v1") {
        url.set_path(&format!("{stripped}/"));
    }
    Ok(url)
}

/// Parses an http(s) URL and makes its path end with `/`, so relative joins stay below it.
fn directory_url(s: &str) -> Result<Url> {
    let mut url = Url::parse(s.trim())
        .map_err(|e| Error::Configuration(format!("invalid URL '{s}': {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::Configuration(format!(
            "invalid URL '{s}': only http and https are supported"
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::Configuration(
            "the URL must not contain credentials; configure the email and password instead".into(),
        ));
    }
    url.set_query(None);
    url.set_fragment(None);
    if !url.path().ends_with('/') {
        let p = format!("{}/", url.path());
        url.set_path(&p);
    }
    Ok(url)
}

/// A cached answer body and the instant it stops being used.
type CachedBody = (OffsetDateTime, Arc<Vec<u8>>);

/// A client of one server; cheap to clone (clones share the token and the caches).
///
/// ```no_run
/// # async fn demo() -> Result<(), gridprint_client::Error> {
/// use gridprint_client::{Client, FootprintsQuery, Location, Period};
/// let client = Client::builder()
///     .base_url("http://127.0.0.1:8000")
///     .credentials("ada@example.org", "correct horse battery")
///     .build()?;
/// let answer = client
///     .footprints(&FootprintsQuery {
///         location: Some(Location::zone("DE")),
///         window: Some(Period::parse("2024-06-15T00:00Z", "2024-06-15T02:00Z")?),
///         ..Default::default()
///     })
///     .await?;
/// for item in answer {
///     println!("{} {:?} {} series", item.zone, item.footprint_type, item.series.len());
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    root: Url,
    api: Url,
    token_url: Url,
    email: Option<String>,
    password: Option<Secret>,
    retry: RetryPolicy,
    clock: Arc<dyn Clock>,
    token: tokio::sync::Mutex<Option<AccessToken>>,
    store: Option<Arc<dyn TokenStore>>,
    cache: std::sync::Mutex<HashMap<String, CachedBody>>,
    cache_ttl: Duration,
    token_requests: AtomicUsize,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        f.debug_struct("Client")
            .field("base_url", &i.root.as_str())
            .field("token_url", &i.token_url.as_str())
            .field("email", &i.email)
            .field("password", &i.password)
            .field("retry", &i.retry)
            .field("token_store", &i.store.is_some())
            .finish_non_exhaustive()
    }
}

/// One answer: status, `Retry-After` and body.
struct Answer {
    status: u16,
    retry_after: Option<Duration>,
    body: Vec<u8>,
}

impl Answer {
    fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    fn into_api_error(self) -> Error {
        Error::Api {
            status: self.status,
            detail: detail_of(self.status, &self.body),
        }
    }
}

/// Why one attempt should be retried.
enum AttemptError {
    Transport(String),
    Status(Answer),
}

impl fmt::Debug for AttemptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttemptError::Transport(m) => write!(f, "{m}"),
            AttemptError::Status(a) => write!(f, "status {}", a.status),
        }
    }
}

fn retryable_status(status: u16) -> bool {
    status == 429 || ((500..600).contains(&status) && status != 501 && status != 505)
}

/// The answer of `get_token` (only what the client needs; no `Debug`: it holds the token).
#[derive(serde::Deserialize)]
struct TokenAnswer {
    access_token: String,
    #[serde(default)]
    expires_at: Option<String>,
    #[serde(default)]
    expires_in: Option<i64>,
}

fn is_public(path: &str) -> bool {
    path == "status" || path.starts_with("status/") || path == "openapi.json"
}

fn is_cacheable(path: &str) -> bool {
    path == "zones" || path == "factors"
}

impl Client {
    /// Starts a builder with the defaults: 3 retries, backoff 0.5 s → 30 s, 60 s timeout, the system
    /// clock, no persistent token store, a one-hour cache for zones and factors.
    pub fn builder() -> ClientBuilder {
        ClientBuilder {
            base_url: None,
            token_url: None,
            email: None,
            password: None,
            retry: RetryPolicy::default(),
            timeout: DEFAULT_TIMEOUT,
            clock: Arc::new(SystemClock),
            store: None,
            cache_ttl: DEFAULT_CACHE_TTL,
        }
    }

    /// The server root (`http://host:port/`).
    pub fn base_url(&self) -> &Url {
        &self.inner.root
    }

    /// The token service URL (`…/token-request/`).
    pub fn token_url(&self) -> &Url {
        &self.inner.token_url
    }

    /// The key under which this client's token is stored, when credentials are configured.
    pub fn token_key(&self) -> Option<TokenKey> {
        self.inner.email.as_ref().map(|email| TokenKey {
            token_url: self.inner.token_url.to_string(),
            email: email.clone(),
        })
    }

    /// How many tokens this client has requested from the token service so far.
    pub fn token_requests(&self) -> usize {
        self.inner.token_requests.load(Ordering::Relaxed)
    }

    fn now(&self) -> OffsetDateTime {
        self.inner.clock.now()
    }

    // ----- transport --------------------------------------------------------------------------

    /// Sends the request `make` builds, retrying 429, 5xx and connection errors by the policy.
    /// Returns the first answer that is not retried (any status), or the last one when the retries
    /// are used up; a transport error only when no attempt got an answer.
    async fn execute<F>(&self, label: &str, make: F) -> Result<Answer>
    where
        F: Fn() -> reqwest::RequestBuilder,
    {
        let policy = self.inner.retry;
        let attempts = AtomicUsize::new(0);
        let attempt = || async {
            attempts.fetch_add(1, Ordering::Relaxed);
            let response = make()
                .send()
                .await
                .map_err(|e| AttemptError::Transport(describe_reqwest(&e)))?;
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let body = response
                .bytes()
                .await
                .map_err(|e| AttemptError::Transport(describe_reqwest(&e)))?
                .to_vec();
            let answer = Answer {
                status,
                retry_after,
                body,
            };
            if retryable_status(status) {
                Err(AttemptError::Status(answer))
            } else {
                Ok(answer)
            }
        };
        let backoff = ExponentialBuilder::default()
            .with_min_delay(policy.min_delay)
            .with_max_delay(policy.max_delay)
            .with_max_times(policy.retries)
            .with_jitter();
        let result = attempt
            .retry(backoff)
            .sleep(tokio::time::sleep)
            .when(|e: &AttemptError| match e {
                AttemptError::Transport(_) => true,
                AttemptError::Status(a) => a
                    .retry_after
                    .is_none_or(|ra| ra <= policy.max_retry_after),
            })
            .adjust(|e: &AttemptError, d: Option<Duration>| match (e, d) {
                (_, None) => None,
                (AttemptError::Status(a), Some(d)) => Some(match a.retry_after {
                    Some(ra) if a.status == 429 => ra,
                    Some(ra) => ra.max(d),
                    None => d,
                }),
                (AttemptError::Transport(_), Some(d)) => Some(d),
            })
            .notify(|e: &AttemptError, d: Duration| {
                tracing::debug!(request = label, error = ?e, retry_in_ms = d.as_millis() as u64, "retrying");
            })
            .await;
        match result {
            Ok(a) | Err(AttemptError::Status(a)) => Ok(a),
            Err(AttemptError::Transport(message)) => Err(Error::Transport {
                message,
                attempts: attempts.load(Ordering::Relaxed),
            }),
        }
    }

    // ----- tokens -----------------------------------------------------------------------------

    fn credentials(&self) -> Result<(&str, &Secret)> {
        match (&self.inner.email, &self.inner.password) {
            (Some(e), Some(p)) => Ok((e, p)),
            _ => Err(Error::Configuration(
                "this endpoint needs a token: configure an email and password (ClientBuilder::credentials)"
                    .into(),
            )),
        }
    }

    async fn post_credentials(&self, op: &str, code: Option<&str>) -> Result<Answer> {
        let (email, password) = self.credentials()?;
        let url = self
            .inner
            .token_url
            .join(op)
            .map_err(|e| Error::Configuration(format!("invalid token URL: {e}")))?;
        let mut body = serde_json::json!({ "email": email, "password": password.expose() });
        if let Some(code) = code {
            body["code"] = code.into();
        }
        let body = body.to_string();
        self.execute(op, || {
            self.inner
                .http
                .post(url.clone())
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, "application/json")
                .body(body.clone())
        })
        .await
    }

    /// Registers the configured email and password with the registration `code` that came with the
    /// grant (once per email; `None` only for an email granted with `access grant --no-code`). 403
    /// (no grant, wrong or missing code) and 409 (already registered) come back as [`Error::Api`].
    pub async fn register(&self, code: Option<&str>) -> Result<()> {
        let a = self.post_credentials("register", code).await?;
        if a.is_success() {
            Ok(())
        } else {
            Err(a.into_api_error())
        }
    }

    /// Asks the token service for a new token.
    async fn request_token(&self) -> Result<AccessToken> {
        self.inner.token_requests.fetch_add(1, Ordering::Relaxed);
        let a = self.post_credentials("get_token", None).await?;
        let (email, _) = self.credentials()?;
        match a.status {
            200..=299 => {}
            401 | 403 => {
                let detail = detail_of(a.status, &a.body);
                return Err(Error::Authentication {
                    status: Some(a.status),
                    message: format!(
                        "the token service at {} refused the email and password for {email} ({} {detail}). \
                         Check both; the email must have been granted access by an operator and registered once \
                         (POST {}register) before a token can be obtained",
                        self.inner.token_url, a.status, self.inner.token_url
                    ),
                });
            }
            _ => return Err(a.into_api_error()),
        }
        let t: TokenAnswer = serde_json::from_slice(&a.body).map_err(|e| Error::Decode {
            path: "get_token".into(),
            message: e.to_string(),
        })?;
        let now = self.now();
        let expires_at = t
            .expires_at
            .as_deref()
            .and_then(|s| gridprint_core::slot::parse_timestamp(s).ok())
            .or_else(|| t.expires_in.map(|s| now + time::Duration::seconds(s)))
            .unwrap_or(now + time::Duration::days(1));
        Ok(AccessToken::new(t.access_token, expires_at))
    }

    /// A token valid for at least 30 more seconds: the one in memory, else the stored one, else a
    /// new one from the token service (then kept in memory and in the store).
    pub async fn access_token(&self) -> Result<AccessToken> {
        self.credentials()?;
        let key = self.token_key();
        let mut slot = self.inner.token.lock().await;
        let now = self.now();
        if let Some(t) = slot.as_ref().filter(|t| t.is_fresh(now)) {
            return Ok(t.clone());
        }
        if let (Some(store), Some(key)) = (&self.inner.store, &key)
            && let Some(t) = store.load(key).filter(|t| t.is_fresh(now))
        {
            *slot = Some(t.clone());
            return Ok(t);
        }
        let t = self.request_token().await?;
        if let (Some(store), Some(key)) = (&self.inner.store, &key) {
            store.save(key, &t);
        }
        *slot = Some(t.clone());
        Ok(t)
    }

    /// Drops a token the server rejected (unless another call already replaced it).
    async fn forget_token(&self, rejected: &AccessToken) {
        let mut slot = self.inner.token.lock().await;
        if slot.as_ref() == Some(rejected) {
            *slot = None;
        }
        if let (Some(store), Some(key)) = (&self.inner.store, self.token_key())
            && store.load(&key).as_ref() == Some(rejected)
        {
            store.remove(&key);
        }
    }

    // ----- requests ---------------------------------------------------------------------------

    fn data_url(&self, path: &str, pairs: &[(String, String)], format: Format) -> Result<Url> {
        let path = path.trim_matches('/');
        let mut url = self
            .inner
            .api
            .join(path)
            .map_err(|e| Error::Configuration(format!("invalid path '{path}': {e}")))?;
        // JSON is the default: only CSV is asked for.
        let csv = FormatParam {
            format: (format == Format::Csv).then_some(Format::Csv),
        }
        .to_pairs();
        let pairs: Vec<(&str, &str)> = pairs
            .iter()
            .filter(|(k, _)| k != "format")
            .chain(&csv)
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        if !pairs.is_empty() {
            url.query_pairs_mut().extend_pairs(pairs);
        }
        Ok(url)
    }

    fn cached(&self, key: &str) -> Option<Arc<Vec<u8>>> {
        let now = self.now();
        let cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .get(key)
            .filter(|(until, _)| now < *until)
            .map(|(_, body)| body.clone())
    }

    fn remember(&self, key: String, body: Arc<Vec<u8>>) {
        if self.inner.cache_ttl.is_zero() {
            return;
        }
        let now = self.now();
        let mut cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CACHE_CAPACITY {
            cache.retain(|_, (until, _)| now < *until);
            if cache.len() >= CACHE_CAPACITY {
                cache.clear();
            }
        }
        cache.insert(key, (now + self.inner.cache_ttl, body));
    }

    /// GETs `/v1/{path}` with the given query pairs and returns the body: the token is added (except
    /// for the public `/status*`), refreshed once on 401, and 429/5xx are retried. `/zones` and
    /// `/factors` are served from the cache while fresh. Any `format` pair is replaced by `format`.
    pub async fn get_bytes(
        &self,
        path: &str,
        pairs: &[(String, String)],
        format: Format,
    ) -> Result<Arc<Vec<u8>>> {
        let url = self.data_url(path, pairs, format)?;
        let path = path.trim_matches('/');
        let cache_key = is_cacheable(path).then(|| url.to_string());
        if let Some(body) = cache_key.as_deref().and_then(|k| self.cached(k)) {
            return Ok(body);
        }
        let accept = match format {
            Format::Json => "application/json",
            Format::Csv => "text/csv",
        };
        let send = |token: Option<&AccessToken>| {
            let url = url.clone();
            let token = token.map(|t| format!("Bearer {}", t.secret()));
            async move {
                self.execute(path, || {
                    let r = self.inner.http.get(url.clone()).header(ACCEPT, accept);
                    match &token {
                        Some(t) => r.header(AUTHORIZATION, t),
                        None => r,
                    }
                })
                .await
            }
        };
        let answer = if is_public(path) {
            send(None).await?
        } else {
            let token = self.access_token().await?;
            let first = send(Some(&token)).await?;
            if first.status == 401 {
                tracing::debug!(
                    path,
                    "token rejected; requesting a new one and retrying once"
                );
                self.forget_token(&token).await;
                let token = self.access_token().await?;
                let second = send(Some(&token)).await?;
                if second.status == 401 {
                    return Err(Error::Authentication {
                        status: Some(401),
                        message: format!(
                            "the server rejected a newly issued token for /v1/{path} ({})",
                            detail_of(401, &second.body)
                        ),
                    });
                }
                second
            } else {
                first
            }
        };
        if !answer.is_success() {
            return Err(answer.into_api_error());
        }
        let body = Arc::new(answer.body);
        if let Some(k) = cache_key {
            self.remember(k, body.clone());
        }
        Ok(body)
    }

    /// [`Client::get_bytes`] as text: for passing the server's JSON or CSV through verbatim.
    pub async fn get_raw(
        &self,
        path: &str,
        pairs: &[(String, String)],
        format: Format,
    ) -> Result<String> {
        let body = self.get_bytes(path, pairs, format).await?;
        String::from_utf8(body.to_vec()).map_err(|e| Error::Decode {
            path: path.to_string(),
            message: format!("not UTF-8: {e}"),
        })
    }

    /// Sends any typed request and deserialises the JSON answer into `T`.
    pub async fn get<T: DeserializeOwned>(
        &self,
        request: &(impl ApiRequest + ?Sized),
    ) -> Result<T> {
        self.get_at(request.path(), &request.query()).await
    }

    /// GETs `/v1/{path}` and deserialises the JSON answer into `T`.
    async fn get_at<T: DeserializeOwned>(
        &self,
        path: &str,
        pairs: &[(String, String)],
    ) -> Result<T> {
        let body = self.get_bytes(path, pairs, Format::Json).await?;
        serde_json::from_slice(&body).map_err(|e| Error::Decode {
            path: path.to_string(),
            message: e.to_string(),
        })
    }

    /// The server's long-format CSV for any request (one row per point, flags as columns).
    pub async fn csv(&self, request: &(impl ApiRequest + ?Sized)) -> Result<String> {
        self.get_raw(request.path(), &request.query(), Format::Csv)
            .await
    }

    /// The server's JSON text for any request, unparsed.
    pub async fn json(&self, request: &(impl ApiRequest + ?Sized)) -> Result<String> {
        self.get_raw(request.path(), &request.query(), Format::Json)
            .await
    }

    // ----- typed endpoints (docs/api.md §3): the data paths are in `typed.rs`, `/status` here --

    /// `/status` (public: no credentials needed).
    pub async fn status(&self) -> Result<StatusResponse> {
        self.get(&StatusRequest::All).await
    }

    /// `/status` or one of its sub-paths, as its key/value pairs (public).
    pub async fn status_component(&self, r: StatusRequest) -> Result<BTreeMap<String, String>> {
        self.get(&r).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_normalised() {
        let c = Client::builder()
            .base_url("http://127.0.0.1:8000/v1/")
            .build()
            .unwrap();
        assert_eq!(c.base_url().as_str(), "http://127.0.0.1:8000/");
        assert_eq!(
            c.token_url().as_str(),
            "http://127.0.0.1:8000/token-request/"
        );
        let u = c
            .data_url(
                "footprints",
                &[
                    ("zone".into(), "DE".into()),
                    ("format".into(), "json".into()),
                    ("start".into(), "2024-06-15T00:00:00Z".into()),
                ],
                Format::Csv,
            )
            .unwrap();
        assert_eq!(
            u.as_str(),
            "http://127.0.0.1:8000/v1/footprints?zone=DE&start=2024-06-15T00%3A00%3A00Z&format=csv"
        );
        let c = Client::builder()
            .base_url("https://example.org/gridprint")
            .build()
            .unwrap();
        assert_eq!(
            c.token_url().as_str(),
            "https://example.org/gridprint/token-request/"
        );
        assert_eq!(
            c.data_url("zones", &[], Format::Json).unwrap().as_str(),
            "https://example.org/gridprint/v1/zones"
        );
        for bad in ["ftp://x", "not a url", "http://u:p@host/"] {
            assert!(matches!(
                Client::builder().base_url(bad).build(),
                Err(Error::Configuration(_))
            ));
        }
    }

    #[test]
    fn debug_hides_the_password() {
        let b = Client::builder()
            .base_url("http://127.0.0.1:1")
            .credentials("ada@example.org", "correct horse battery staple");
        let s = format!("{b:?}");
        assert!(!s.contains("horse"), "{s}");
        let c = b.build().unwrap();
        let s = format!("{c:?}");
        assert!(!s.contains("horse") && s.contains("ada@example.org"), "{s}");
    }

    #[tokio::test]
    async fn protected_endpoint_without_credentials_is_a_configuration_error() {
        let c = Client::builder()
            .base_url("http://127.0.0.1:1")
            .build()
            .unwrap();
        assert!(matches!(c.zones().await, Err(Error::Configuration(_))));
    }
}
