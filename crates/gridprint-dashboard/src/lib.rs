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
use gridprint_api::AppState;
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

    fn from_str(s: &str) -> Result<DashboardMode, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "public" => Ok(DashboardMode::Public),
            "login" => Ok(DashboardMode::Login),
            "off" => Ok(DashboardMode::Off),
            other => Err(format!(
                "invalid dashboard mode '{other}': expected public, login or off"
            )),
        }
    }
}

impl std::fmt::Display for DashboardMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Tunables of the dashboard. `DashboardConfig::default()` holds the production values.
#[derive(Debug, Clone)]
pub struct DashboardConfig {
    pub mode: DashboardMode,
    /// Sustained requests per second per client address on the dashboard's data routes.
    pub rate_per_second: f64,
    /// Requests a client address may send at once before the sustained rate applies.
    pub burst: u32,
    /// Rendered answers kept (entries); answers that can still change are kept at most
    /// `ApiConfig::refresh_interval`.
    pub cache_entries: usize,
}

impl Default for DashboardConfig {
    fn default() -> DashboardConfig {
        DashboardConfig {
            mode: DashboardMode::Public,
            // A first visit costs 2 requests, a zone 1, a day 1: scrubbing days by keyboard stays
            // well within 40 at once and 2 a second; a crawler of every day does not.
            rate_per_second: 2.0,
            burst: 40,
            cache_entries: 256,
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
