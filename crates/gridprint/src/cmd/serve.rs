//! `gridprint serve`: the token service and the data API in one process.
//!
//! Start-up: with `--demo`, imports the bundled demo data into an empty database, replays it onto
//! the present and runs one worker cycle, and keeps the replay going every quarter-hour while it
//! serves (`crate::cmd::demo`; `/v1/status` then carries `demo`); opens the store and
//! the reference data; builds the tokio runtime; binds `--listen` (and `--metrics-listen`); loads every
//! computed day into memory; starts the background refresh (new computed data is served within a few
//! seconds) and, unless disabled, the health checks of the configured providers; then serves [`gridprint_api::router`]
//! until SIGTERM or Ctrl-C, lets in-flight requests finish (at most `--shutdown-grace`), and exits 0.
//! Once the data is loaded, one line on stderr starts with `listening on http://ADDR` (scripts start it
//! on port 0 and read the port there) and names the docs page and the next step ([`startup_line`]);
//! with `--demo` the lines before it summarise the demo's coverage (zones per recorded date) and what
//! is replayed onto which days. Every flag has a
//! `GRIDPRINT_*` variable.
//!
//! A provider is checked only when it is configured ([`provider_checks`]): ENTSO-E with the worker's
//! token set, EPIAS with its account set, Elexon (which needs no credential) unless `--demo`. The
//! others are "not configured": never contacted, one info line at start, `unknown` in `/v1/status`,
//! so an offline `serve --demo` logs no warning. A checked provider that cannot be reached is
//! logged once when its state changes (gridprint_ingest::health).

use crate::open::ServerArgs;
use anyhow::Context;
use clap::Args;
use gridprint_api::{ApiConfig, AppState, Providers};
use gridprint_core::slot::SystemClock;
use gridprint_ingest::health::{HealthConfig, HealthState, ProviderHealth};
use gridprint_ratelimit::RateLimit;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "GRIDPRINT_LISTEN", default_value = "127.0.0.1:8000")]
    pub listen: String,
    /// Import the bundled demo data into an empty database first, and replay it onto the present
    /// (the last days up to an hour ago, then the worker's estimates and forecast, renewed every
    /// quarter-hour; marked as a replay in `/v1/status` and on the dashboard).
    #[arg(long, env = "GRIDPRINT_DEMO")]
    pub demo: bool,
    /// With `--demo`: days the replay's worker keeps each issued forecast in the forecast archive
    /// (as `worker --forecast-archive-days`; 0: nothing is archived). Without `--demo`, `serve`
    /// runs no worker and this is not used.
    #[arg(long, env = "GRIDPRINT_FORECAST_ARCHIVE_DAYS", default_value_t = 30)]
    pub forecast_archive_days: u32,
    /// Sustained requests per second allowed per account (data routes, all its tokens together,
    /// unless `gridprint access set-limit` gave it its own) and per client address (token service,
    /// status, docs); 0 disables the default limit.
    #[arg(long, env = "GRIDPRINT_RATE_LIMIT_PER_SECOND", default_value_t = 20.0)]
    pub rate_limit_per_second: f64,
    /// Requests an account or client may send at once before the sustained rate applies.
    #[arg(long, env = "GRIDPRINT_RATE_LIMIT_BURST", default_value_t = 100)]
    pub rate_limit_burst: u32,
    /// Redis URL (`redis://host:6379`) to share the rate limits and the brute-force counters
    /// between every `serve` replica; without it each process limits and counts on its own.
    #[arg(long, env = "GRIDPRINT_REDIS_URL", hide_env_values = true)]
    pub redis_url: Option<String>,
    /// Proxies (comma-separated CIDR blocks or addresses, e.g. `10.0.0.0/8,::1`) whose forwarded
    /// client address (`--client-ip-header`) is believed; other peers are the client.
    #[arg(long, env = "GRIDPRINT_TRUSTED_PROXIES", default_value = "")]
    pub trusted_proxies: gridprint_api::http::front::TrustedProxies,
    /// The header the trusted proxies write the client's address in: `x-forwarded-for` (nginx's
    /// `$proxy_add_x_forwarded_for`, most load balancers) or `forwarded` (RFC 7239). Only that
    /// header is read, right to left: the right-most address that is not a trusted proxy.
    #[arg(
        long,
        env = "GRIDPRINT_CLIENT_IP_HEADER",
        default_value = "x-forwarded-for"
    )]
    pub client_ip_header: gridprint_api::http::front::ClientIpHeader,
    /// Failed credential attempts per (email, client address) in 15 minutes before that pair is
    /// locked for 15 minutes.
    #[arg(long, env = "GRIDPRINT_FAILED_ATTEMPTS_PER_PAIR", default_value_t = 10)]
    pub failed_attempts_per_pair: u32,
    /// Failed attempts per email, from all addresses together, before the email is slowed (never
    /// locked): then one of its attempts is verified per 15 minutes / N (at most 20 s), the waiting address with
    /// the fewest failures for it first, so guessers cannot lock the owner out.
    #[arg(
        long,
        env = "GRIDPRINT_FAILED_ATTEMPTS_PER_EMAIL",
        default_value_t = 100
    )]
    pub failed_attempts_per_email: u32,
    /// Failed attempts per client address, over all emails, before the address is locked.
    #[arg(
        long,
        env = "GRIDPRINT_FAILED_ATTEMPTS_PER_ADDRESS",
        default_value_t = 100
    )]
    pub failed_attempts_per_address: u32,
    /// Tokens one account may get per minute (sustained).
    #[arg(
        long,
        env = "GRIDPRINT_TOKEN_REQUESTS_PER_MINUTE",
        default_value_t = 30.0
    )]
    pub token_requests_per_minute: f64,
    /// Tokens one account may get at once before the per-minute rate applies.
    #[arg(long, env = "GRIDPRINT_TOKEN_REQUEST_BURST", default_value_t = 10)]
    pub token_request_burst: u32,
    /// Days until an API key expires when it is created without an expiry (token service; also
    /// `access key create`); unset: such keys never expire.
    #[arg(long, env = "GRIDPRINT_API_KEY_DEFAULT_EXPIRY_DAYS", value_parser = clap::value_parser!(u32).range(1..=36_500))]
    pub api_key_default_expiry_days: Option<u32>,
    /// Seconds after which a request is answered 503.
    #[arg(long, env = "GRIDPRINT_REQUEST_TIMEOUT", default_value_t = 30.0)]
    pub request_timeout: f64,
    /// Seconds a client may take to send its request head (after connecting, or after its previous
    /// answer on a kept-alive connection) before it is disconnected.
    #[arg(long, env = "GRIDPRINT_HEADER_READ_TIMEOUT", default_value_t = 10.0)]
    pub header_read_timeout: f64,
    /// Seconds a client may leave an answer unread (its socket's send buffer full) before it is
    /// disconnected and the answer's memory freed.
    #[arg(long, env = "GRIDPRINT_SEND_TIMEOUT", default_value_t = 20.0)]
    pub send_timeout: f64,
    /// Open connections one client address may hold at once (an IPv6 client by its /64); past it a
    /// new connection is closed as soon as it is accepted. Trusted proxies (`--trusted-proxies`)
    /// are not capped. 0: no cap.
    #[arg(
        long,
        env = "GRIDPRINT_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 256
    )]
    pub max_connections_per_address: usize,
    /// Open connections of all clients together. At the cap a new connection takes the place of the
    /// oldest one that has not sent a whole request yet (a slow or silent client), or is closed as
    /// soon as it is accepted; refusals are counted, never logged one by one. Default: the
    /// process's file limit (`ulimit -n`, systemd's `LimitNOFILE`) less max(256, an eighth of it),
    /// kept for the store, logs and cache files (20,000 → 17,500). 0: no cap.
    #[arg(long, env = "GRIDPRINT_MAX_CONNECTIONS")]
    pub max_connections: Option<usize>,
    /// Seconds a client may take to send its request body, counted from the end of its request
    /// head; past it the request is answered 408 and the connection closed.
    #[arg(long, env = "GRIDPRINT_BODY_READ_TIMEOUT", default_value_t = 10.0)]
    pub body_read_timeout: f64,
    /// Seconds between the log's summaries of refusals (connection caps, 429, 408, 503 of the
    /// response-memory budget and the request timeout): one warning per kind with its count.
    #[arg(long, env = "GRIDPRINT_REFUSAL_LOG_INTERVAL", default_value_t = 60.0)]
    pub refusal_log_interval: f64,
    /// MiB of rendered answers (over 64 KiB each) that may wait for their clients at once, all
    /// connections together; past it a large answer is refused with 503 and `Retry-After`.
    #[arg(long, env = "GRIDPRINT_RESPONSE_MEMORY_MB", default_value_t = 512)]
    pub response_memory_mb: usize,
    /// Seconds the storage may take to answer a health check before it counts as down (data routes
    /// answer 503 until it answers again).
    #[arg(long, env = "GRIDPRINT_STORAGE_TIMEOUT", default_value_t = 5.0)]
    pub storage_timeout: f64,
    /// Seconds between checks for newly computed data (and of the storage's health).
    #[arg(long, env = "GRIDPRINT_REFRESH_INTERVAL", default_value_t = 2.0)]
    pub refresh_interval: f64,
    /// MiB of rendered answers kept in memory and served again without recomputation (a quarter
    /// of it for the public dashboard's); 0 disables it.
    #[arg(long, env = "GRIDPRINT_RESPONSE_CACHE_MB", default_value_t = 64)]
    pub response_cache_mb: usize,
    /// Answers over long windows (more than a few days) rendered at the same time; the others wait
    /// their turn in arrival order. 0: twice the number of cores.
    #[arg(long, env = "GRIDPRINT_MAX_LONG_ANSWERS", default_value_t = 0)]
    pub max_long_answers: usize,
    /// Directory on a disk where the data cache moves its packed pages of old days (unnamed files,
    /// gone when the process exits), so memory does not grow with the years of history; default:
    /// the system's temporary directory. Avoid a `tmpfs`, whose files live in memory.
    #[arg(long, env = "GRIDPRINT_CACHE_DIR")]
    pub cache_dir: Option<std::path::PathBuf>,
    /// Days before today whose data always stays in memory; pages holding only older days are moved
    /// to `--cache-dir` and read from there (through the kernel's page cache).
    #[arg(long, env = "GRIDPRINT_CACHE_HOT_DAYS", default_value_t = 92)]
    pub cache_hot_days: u32,
    /// Keep the whole data cache in memory (no files in `--cache-dir`).
    #[arg(long, env = "GRIDPRINT_CACHE_IN_MEMORY", default_value_t = false, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub cache_in_memory: bool,
    /// Serve Prometheus metrics at `http://ADDR/metrics` on this separate address (off by default).
    #[arg(long, env = "GRIDPRINT_METRICS_LISTEN")]
    pub metrics_listen: Option<String>,
    /// Allow this one browser origin (e.g. `https://dashboard.example.org`) to call the API
    /// cross-origin; CORS is off without it.
    #[arg(long, env = "GRIDPRINT_CORS_ORIGIN")]
    pub cors_origin: Option<String>,
    /// Seconds to let in-flight requests finish after SIGTERM before exiting anyway.
    #[arg(long, env = "GRIDPRINT_SHUTDOWN_GRACE", default_value_t = 30.0)]
    pub shutdown_grace: f64,
    /// Check the configured providers (ENTSO-E, Elexon, EPIAS) every 30 s for `/v1/status` (`false`:
    /// report `unknown`).
    #[arg(long, env = "GRIDPRINT_CHECK_PROVIDERS", default_value_t = true, action = clap::ArgAction::Set)]
    pub check_providers: bool,
    /// The worker's ENTSO-E token (the same variable): `serve` keeps only whether it is set. Without it
    /// ENTSO-E is not configured: not checked, `/v1/status/entso-e` is `unknown`.
    #[arg(long, env = "GRIDPRINT_ENTSOE_TOKEN", hide_env_values = true, value_name = "TOKEN", value_parser = credential)]
    pub entsoe_token: Option<Credential>,
    /// The worker's EPIAS user name (the same variable; only whether it is set is kept). EPIAS is
    /// checked only with both the user name and the password set.
    #[arg(long, env = "GRIDPRINT_EPIAS_USERNAME", hide_env_values = true, value_name = "USER", value_parser = credential)]
    pub epias_username: Option<Credential>,
    /// The worker's EPIAS password (the same variable; only whether it is set is kept).
    #[arg(long, env = "GRIDPRINT_EPIAS_PASSWORD", hide_env_values = true, value_name = "PASSWORD", value_parser = credential)]
    pub epias_password: Option<Credential>,
    /// ENTSO-E API base URL checked for `/v1/status/entso-e`.
    #[arg(long, env = "GRIDPRINT_ENTSOE_URL", default_value = gridprint_ingest::entsoe_api::DEFAULT_BASE_URL)]
    pub entsoe_url: String,
    /// Elexon API base URL checked for `/v1/status/elexon`.
    #[arg(long, env = "GRIDPRINT_ELEXON_URL", default_value = gridprint_ingest::elexon::DEFAULT_BASE_URL)]
    pub elexon_url: String,
    /// EPIAS data service URL checked for `/v1/status/epias` (with the login service below).
    #[arg(long, env = "GRIDPRINT_EPIAS_URL", default_value = gridprint_ingest::epias::DEFAULT_BASE_URL)]
    pub epias_url: String,
    /// EPIAS login service URL checked for `/v1/status/epias` (`/cas/v1/tickets`, without credentials).
    #[arg(long, env = "GRIDPRINT_EPIAS_AUTH_URL", default_value = gridprint_ingest::epias::DEFAULT_AUTH_URL)]
    pub epias_auth_url: String,
    /// The web dashboard at `/`: `public` (anyone may view it, through bounded, rate-limited data
    /// routes), `login` (the page asks for email and password and reads `/v1` with a token) or `off`
    /// (`/` is the links page).
    #[arg(long, env = "GRIDPRINT_DASHBOARD", default_value = "public")]
    pub dashboard: gridprint_dashboard::DashboardMode,
    /// Days before today an anonymous visitor of the public dashboard may look at; older days need
    /// an account (`--dashboard login`, or `/v1`). 0: no bound. Default: 31, or no bound with
    /// `--demo` (its recorded days are years old). The dashboard's per-address limits are derived
    /// from `--rate-limit-*` (a tenth of the rate, two fifths of the burst) and its kept answers take
    /// a quarter of `--response-cache-mb`.
    #[arg(long, env = "GRIDPRINT_DASHBOARD_HISTORY_DAYS")]
    pub dashboard_history_days: Option<u32>,
}

fn seconds(name: &str, v: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(v)
        .ok()
        .filter(|d| !d.is_zero())
        .with_context(|| format!("--{name} must be a positive number of seconds, got {v}"))
}

impl ServeArgs {
    /// The cache's load options: spilling pages of old days to `--cache-dir` unless
    /// `--cache-in-memory`.
    fn cache_load(&self) -> anyhow::Result<gridprint_query::LoadOptions> {
        let spill = if self.cache_in_memory {
            None
        } else {
            let dir = self.cache_dir.clone().unwrap_or_else(std::env::temp_dir);
            anyhow::ensure!(
                dir.is_dir(),
                "--cache-dir {} is not a directory (create it, or pass --cache-in-memory)",
                dir.display()
            );
            Some(gridprint_query::Spill::older_than(dir, self.cache_hot_days))
        };
        Ok(gridprint_query::LoadOptions {
            spill,
            ..Default::default()
        })
    }

    fn api_config(&self) -> anyhow::Result<ApiConfig> {
        anyhow::ensure!(
            self.rate_limit_per_second >= 0.0 && self.rate_limit_per_second.is_finite(),
            "--rate-limit-per-second must be 0 (no limit) or positive"
        );
        anyhow::ensure!(
            self.rate_limit_burst > 0,
            "--rate-limit-burst must be at least 1"
        );
        Ok(ApiConfig {
            rate_limit_per_second: self.rate_limit_per_second,
            rate_limit_burst: self.rate_limit_burst,
            request_timeout: seconds("request-timeout", self.request_timeout)?,
            header_read_timeout: seconds("header-read-timeout", self.header_read_timeout)?,
            send_timeout: seconds("send-timeout", self.send_timeout)?,
            max_connections_per_address: self.max_connections_per_address,
            max_connections: self.max_connections.unwrap_or_else(|| {
                gridprint_api::http::connection_cap::max_connections_for_file_limit(file_limit())
            }),
            body_read_timeout: seconds("body-read-timeout", self.body_read_timeout)?,
            refusal_log_interval: seconds("refusal-log-interval", self.refusal_log_interval)?,
            response_memory_bytes: self.response_memory_mb.saturating_mul(1 << 20),
            storage_timeout: seconds("storage-timeout", self.storage_timeout)?,
            refresh_interval: seconds("refresh-interval", self.refresh_interval)?,
            cors_origin: self.cors_origin.clone().filter(|o| !o.trim().is_empty()),
            response_cache_bytes: self.response_cache_mb.saturating_mul(1 << 20),
            max_concurrent_long_answers: match self.max_long_answers {
                0 => ApiConfig::default().max_concurrent_long_answers,
                n => n,
            },
            cache_load: self.cache_load()?,
            trusted_proxies: self.trusted_proxies.clone(),
            client_ip_header: self.client_ip_header,
            max_failed_attempts: self.failed_attempts_per_pair.max(1),
            max_failed_per_email: self.failed_attempts_per_email.max(1),
            max_failed_per_address: self.failed_attempts_per_address.max(1),
            token_requests_per_minute: self.token_requests_per_minute,
            token_request_burst: self.token_request_burst.max(1),
            api_key_default_expiry_days: self.api_key_default_expiry_days,
            ..ApiConfig::default()
        })
    }
}

/// The process's file limit (the soft `RLIMIT_NOFILE`, which `open` and `accept` obey); unlimited
/// reads as `u64::MAX`.
fn file_limit() -> u64 {
    rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .unwrap_or(u64::MAX)
}

/// Zones listed per line of the start-up summary before "… and N more".
const ZONES_SHOWN: usize = 8;

/// The start-up summary of what the store holds (the demo's coverage): one line per UTC date with
/// the zones computed that day, before the replay's days when the demo is replayed (`replayed`;
/// [`crate::cmd::demo::startup_lines`] summarise those), then [`startup_line`] follows with the
/// URL and the next step.
fn coverage_lines(
    store: &dyn gridprint_store::Store,
    replayed: Option<gridprint_core::slot::SlotRange>,
) -> anyhow::Result<Vec<String>> {
    let Some(extent) = store.input_extent()? else {
        return Ok(Vec::new());
    };
    let days = match replayed {
        Some(r) => extent.days().start..r.start.day().max(extent.days().start),
        None => extent.days(),
    };
    let mut by_day: std::collections::BTreeMap<i64, Vec<String>> = Default::default();
    for d in store.derived_days(days)? {
        if d.flags.iter().any(|f| f.present()) {
            by_day.entry(d.day).or_default().push(d.zone.to_string());
        }
    }
    let mut lines = vec![format!(
        "demo data at its recorded dates: {} days computed",
        by_day.len()
    )];
    for (day, mut zones) in by_day {
        zones.sort();
        let date = gridprint_core::slot::Slot::first_of_day(day).start().date();
        let more = zones.len().saturating_sub(ZONES_SHOWN);
        zones.truncate(ZONES_SHOWN);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        lines.push(format!("  {date}: {}{tail}", zones.join(", ")));
    }
    Ok(lines)
}

pub fn run(g: &ServerArgs, args: &ServeArgs) -> anyhow::Result<()> {
    let mut config = args.api_config()?;
    let history_days = match args.dashboard_history_days {
        Some(0) => None,
        Some(days) => Some(days),
        None if args.demo => None,
        None => Some(31),
    };
    let dashboard =
        gridprint_dashboard::DashboardConfig::from_api(args.dashboard, &config, history_days);
    config.response_cache_bytes = dashboard.api_cache_bytes(config.response_cache_bytes);
    let grace = seconds("shutdown-grace", args.shutdown_grace)?;
    let live = if args.demo {
        crate::cmd::demo::prepare(g, args.forecast_archive_days)
            .context("importing the demo data")?
    } else {
        None
    };
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    let mut start_up = if args.demo {
        coverage_lines(&*store, live.as_ref().and_then(|l| l.replayed()))?
    } else {
        Vec::new()
    };
    if let Some(live) = &live {
        start_up.extend(crate::cmd::demo::startup_lines(live));
    }
    let runtime = crate::open::runtime(tokio::runtime::Builder::new_multi_thread())?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let addr = listener.local_addr().context("reading the bound address")?;
        let stop = CancellationToken::new();
        if let Some(metrics_addr) = &args.metrics_listen {
            start_metrics(metrics_addr, stop.clone()).await?;
        }
        let description = store.describe();
        let mut builder = AppState::builder(store, reference, Arc::new(SystemClock), config.clone());
        if let Some(url) = &args.redis_url {
            let limit = RateLimit::redis(url, config.rate_limit_per_second, config.rate_limit_burst)
                .await
                .map_err(|e| anyhow::anyhow!("rate limit through Redis: {e}"))?;
            tracing::info!("rate limits shared through Redis");
            builder = builder.rate_limit(limit);
        }
        if args.check_providers {
            builder = builder.providers(provider_checks(args)?);
        }
        if let Some(live) = &live {
            let live = live.clone();
            builder = builder.demo(Arc::new(move || crate::cmd::demo::status(&live)));
        }
        let state = builder.build().context("indexing the zone polygons")?;

        match gridprint_api::refresh::load(&state).await {
            Ok(_) => {}
            // Keep serving (tokens, status, docs; data answers 503) and let the refresh retry.
            Err(e) => tracing::warn!(error = %e, "cannot load the computed data yet; retrying in the background"),
        }
        let refresher = gridprint_api::refresh::spawn_refresher(state.clone());

        tracing::debug!(%addr, database = %description, max_connections = config.max_connections, "serving the token service and the data API");
        for line in &start_up {
            eprintln!("{line}");
        }
        eprintln!("{}", startup_line(addr, how_to_run()));
        if let Some(live) = live {
            crate::cmd::demo::keep_alive(live, stop.clone())?;
        }
        let signal = stop.clone();
        tokio::spawn(async move {
            crate::cmd::ingest::shutdown_signal().await;
            tracing::info!("shutting down: finishing in-flight requests");
            signal.cancel();
        });
        let home = gridprint_dashboard::router(&state, dashboard);
        let app = gridprint_api::router_with_home(state.clone(), home);
        let server = gridprint_api::serve_router(listener, app, config.client_limits(), stop.clone().cancelled_owned());
        tokio::pin!(server);
        let result = tokio::select! {
            r = &mut server => r,
            () = async { stop.cancelled().await; tokio::time::sleep(grace).await } => {
                tracing::warn!(grace_secs = grace.as_secs_f64(), "in-flight requests did not finish in time; exiting");
                Ok(())
            }
        };
        refresher.abort();
        result.context("serving HTTP")?;
        tracing::info!("stopped");
        Ok(())
    })
}

/// The one line printed once `serve` answers: where, the docs page and the next step. It starts
/// with `listening on http://ADDR` (scripts and tests read the address from it). `command` is
/// how the reader runs this binary ([`how_to_run`]).
pub fn startup_line(addr: std::net::SocketAddr, command: &str) -> String {
    format!(
        "listening on http://{addr} — API docs: http://{addr}/v1/docs — next: grant access with \
         `{command} access grant EMAIL` (same --database), then get a token at http://{addr}/token-request/ (`{command} query availability` lists what is held)"
    )
}

/// How the person who started this process runs it again: `cargo run --release --` when the
/// binary sits in a cargo target directory (started by `cargo run`), `gridprint` otherwise.
pub fn how_to_run() -> &'static str {
    let in_target = std::env::current_exe().is_ok_and(|exe| {
        exe.parent()
            .and_then(|profile| profile.parent())
            .and_then(|target| target.file_name())
            .is_some_and(|name| name == "target")
    });
    if in_target {
        "cargo run --release --"
    } else {
        "gridprint"
    }
}

/// Whether a credential is set, without the credential: `serve` reads the worker's variables only
/// to know which providers are configured, and never holds their values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Credential {
    pub set: bool,
}

fn credential(value: &str) -> Result<Credential, String> {
    Ok(Credential {
        set: !value.trim().is_empty(),
    })
}

fn is_set(c: Option<Credential>) -> bool {
    c.is_some_and(|c| c.set)
}

/// Background health checks of the configured providers (see the module doc); the others report
/// `unknown` and are named once in an info line.
fn provider_checks(args: &ServeArgs) -> anyhow::Result<Providers> {
    let config = HealthConfig::default();
    let mut not_configured = Vec::new();
    let entsoe = if is_set(args.entsoe_token) {
        ProviderHealth::spawn("entso-e", &args.entsoe_url, config)
            .map_err(|e| anyhow::anyhow!(e))?
    } else {
        not_configured.push("entso-e (no GRIDPRINT_ENTSOE_TOKEN)");
        ProviderHealth::fixed("entso-e", HealthState::Unknown)
    };
    let elexon = if !args.demo {
        ProviderHealth::spawn("elexon", &args.elexon_url, config).map_err(|e| anyhow::anyhow!(e))?
    } else {
        not_configured.push("elexon (--demo)");
        ProviderHealth::fixed("elexon", HealthState::Unknown)
    };
    let epias = if is_set(args.epias_username) && is_set(args.epias_password) {
        ProviderHealth::spawn_epias(&args.epias_url, &args.epias_auth_url, config)
            .map_err(|e| anyhow::anyhow!(e))?
    } else {
        not_configured.push("epias (no GRIDPRINT_EPIAS_USERNAME and GRIDPRINT_EPIAS_PASSWORD)");
        ProviderHealth::fixed("epias", HealthState::Unknown)
    };
    if !not_configured.is_empty() {
        tracing::info!(
            "providers not configured, not checked (`unknown` in /v1/status): {}",
            not_configured.join(", ")
        );
    }
    Ok(Providers {
        entsoe: Arc::new(move || entsoe.state().as_str()),
        elexon: Arc::new(move || elexon.state().as_str()),
        epias: Arc::new(move || epias.state().as_str()),
    })
}

/// Installs the Prometheus recorder and serves `GET /metrics` on `addr` until `stop`.
async fn start_metrics(addr: &str, stop: CancellationToken) -> anyhow::Result<()> {
    use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Full(gridprint_api::http::layers::REQUEST_DURATION.to_string()),
            &[
                0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
            ],
        )
        .context("metrics buckets")?
        .install_recorder()
        .context("installing the metrics recorder")?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr} for metrics"))?;
    let bound = listener
        .local_addr()
        .context("reading the metrics address")?;
    let upkeep = handle.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(5));
        loop {
            tick.tick().await;
            upkeep.run_upkeep();
        }
    });
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let handle = handle.clone();
            async move {
                (
                    [(
                        axum::http::header::CONTENT_TYPE,
                        "text/plain; version=0.0.4",
                    )],
                    handle.render(),
                )
            }
        }),
    );
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await
        {
            tracing::error!(error = %e, "metrics listener failed");
        }
    });
    tracing::info!(addr = %bound, "serving Prometheus metrics at /metrics");
    eprintln!("metrics on http://{bound}/metrics");
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn startup_line_names_the_url_the_docs_and_the_next_step() {
        let line = super::startup_line("127.0.0.1:8000".parse().unwrap(), "gridprint");
        assert!(!line.contains('\n'));
        assert!(
            line.starts_with("listening on http://127.0.0.1:8000 "),
            "{line}"
        );
        assert!(line.contains("http://127.0.0.1:8000/v1/docs"), "{line}");
        assert!(line.contains("`gridprint access grant EMAIL`"), "{line}");
        let line = super::startup_line("127.0.0.1:8000".parse().unwrap(), "cargo run --release --");
        assert!(
            line.contains("`cargo run --release -- access grant EMAIL`"),
            "{line}"
        );
        assert!(
            line.contains("http://127.0.0.1:8000/token-request/"),
            "{line}"
        );
    }
}
