//! gridprint-dashboard: the web dashboard served at `/` by `gridprint serve` — a map of the zones'
//! footprints, impacts and scores with border flows, a day slider with forecasts, and a zone panel —
//! and the read-only data routes it reads in public mode.
//!
//! The page is plain HTML, CSS and JavaScript modules compiled into the binary ([`assets`]), with
//! MapLibre GL JS and uPlot vendored at pinned versions beside their licenses
//! (`scripts/vendor-web.sh` refreshes them from the npm registry). Its data comes either from the
//! public dashboard routes of [`data`] (mode [`DashboardMode::Public`]: one day at a time, a fixed set of
//! answers, response-cached and rate-limited per client address) or, in mode [`DashboardMode::Login`], from
//! the token-protected `/v1` routes with a token the page obtains from the token service. Both modes
//! read the very same `/v1` answers: the public routes bundle them verbatim, so every number on the
//! page equals the API's. [`DashboardMode::Off`] mounts nothing and `/` stays the links page.

#![forbid(unsafe_code)]

pub mod assets;
pub mod data;

use axum::Router;
use gridprint_api::{ApiConfig, AppState};
use std::str::FromStr;
use std::time::Duration;

/// How the dashboard is served (`--dashboard`, `GRIDPRINT_DASHBOARD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DashboardMode {
    /// Anyone may view it; data through the bounded public routes.
    #[default]
    Public,
    /// The page asks for email and password, gets a token from the token service and reads `/v1`.
    Login,
    /// No dashboard: `/` is the links page.
    Off,
}

impl DashboardMode {
    /// Every mode, in the order `--help` names them.
    pub const ALL: [DashboardMode; 3] = [
        DashboardMode::Public,
        DashboardMode::Login,
        DashboardMode::Off,
    ];

    /// The name used on the command line and in the page.
    pub fn as_str(self) -> &'static str {
        match self {
            DashboardMode::Public => "public",
            DashboardMode::Login => "login",
            DashboardMode::Off => "off",
        }
    }
}

impl FromStr for DashboardMode {
    type Err = String;

    /// A mode by its name ([`DashboardMode::as_str`]), in any case.
    fn from_str(s: &str) -> Result<DashboardMode, String> {
        let name = s.trim().to_ascii_lowercase();
        DashboardMode::ALL
            .into_iter()
            .find(|m| m.as_str() == name)
            .ok_or_else(|| {
                format!("invalid dashboard mode '{name}': expected public, login or off")
            })
    }
}

impl std::fmt::Display for DashboardMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Tunables of the dashboard. `DashboardConfig::default()` holds the production values;
/// [`DashboardConfig::from_api`] derives them from the API's.
#[derive(Debug, Clone)]
pub struct DashboardConfig {
    pub mode: DashboardMode,
    /// Sustained requests per second per client address (IPv6: per /64) on the dashboard's data
    /// routes, counted by the API's limiter (shared by every replica with `--redis-url`).
    pub rate_per_second: f64,
    /// Requests a client address may send at once before the sustained rate applies.
    pub burst: u32,
    /// Bytes of rendered answers kept; answers that can still change are kept at most
    /// `ApiConfig::refresh_interval`.
    pub cache_bytes: usize,
    /// Days before today an anonymous visitor may look at (`public` mode); older days need the
    /// `login` mode. `None`: no bound (the demo, whose recorded days are years old).
    pub history_days: Option<u32>,
}

/// Share of the API's per-account rate granted to one address on the public dashboard.
const RATE_SHARE: f64 = 0.1;
/// Share of the API's per-account burst granted to one address on the public dashboard.
const BURST_SHARE: f64 = 0.4;

impl Default for DashboardConfig {
    fn default() -> DashboardConfig {
        DashboardConfig::from_api(DashboardMode::Public, &ApiConfig::default(), Some(31))
    }
}

impl DashboardConfig {
    /// The dashboard's limits from the API's: a tenth of the per-account rate and two fifths of
    /// its burst per address (2/s and 40 with the defaults 20/s and 100: a first visit costs 2
    /// requests, a zone 1, a day 1, so scrubbing days by keyboard stays within them and a crawler
    /// of every day does not), and a quarter of the response cache's bytes (the API keeps the
    /// other three, so both together stay within `--response-cache-mb`; see
    /// [`DashboardConfig::api_cache_bytes`]).
    pub fn from_api(
        mode: DashboardMode,
        api: &ApiConfig,
        history_days: Option<u32>,
    ) -> DashboardConfig {
        DashboardConfig {
            mode,
            rate_per_second: api.rate_limit_per_second * RATE_SHARE,
            burst: ((f64::from(api.rate_limit_burst) * BURST_SHARE).round() as u32).max(1),
            cache_bytes: api.response_cache_bytes / 4,
            history_days,
        }
    }

    /// The bytes left to the API's own response cache out of `total` once this dashboard took its
    /// share (all of them when it serves no data of its own).
    pub fn api_cache_bytes(&self, total: usize) -> usize {
        match self.mode {
            DashboardMode::Public => total - self.cache_bytes.min(total),
            DashboardMode::Login | DashboardMode::Off => total,
        }
    }
}

/// The dashboard's routes for `config.mode` (none for [`DashboardMode::Off`]), to be merged at `/` into the
/// API's router. `Login` serves the page and its assets only (data comes from `/v1`).
pub fn router(_state: &AppState, config: DashboardConfig) -> Option<Router<AppState>> {
    match config.mode {
        DashboardMode::Off => None,
        mode => {
            let dash = data::Dash::new(&config);
            let pages = assets::routes(mode, dash.clone());
            let api = data::routes(config, dash);
            Some(pages.merge(api))
        }
    }
}

/// How long an answer that may still change is kept (and may be cached by browsers).
pub(crate) fn changing_ttl(state: &AppState) -> Duration {
    state.config().refresh_interval
}
