//! Provider health for `/v1/status/entso-e`, `/v1/status/elexon` and `/v1/status/epias` (what `up`,
//! `down` and `unknown` mean: docs/api.md §3, `/status`): a background task pings a provider's base
//! URL (EPIAS: its data service and its login endpoint, [`ProviderHealth::spawn_epias`]) at most
//! every 30 seconds and caches the outcome; readers get the cached report at once and never wait
//! for the network.
//!
//! Usage (inside a tokio runtime):
//!
//! ```no_run
//! # async fn demo() {
//! use gridprint_ingest::health::{ProviderHealth, HealthState};
//! let entsoe = ProviderHealth::spawn("entso-e", "https://web-api.tp.entsoe.eu/api", Default::default()).unwrap();
//! // in a handler: never blocks
//! let state: HealthState = entsoe.state();
//! let body = serde_json::json!({ "entso-e": state.as_str() });
//! # }
//! ```
//!
//! The task holds only a weak reference to the cache: it stops by itself once every
//! [`ProviderHealth`] clone is dropped (or when its [`ProviderHealth::stop`] token fires).

use arc_swap::ArcSwap;
use std::sync::{Arc, Weak};
use std::time::Duration;
use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;

/// Shortest interval between two pings.
pub const MIN_INTERVAL: Duration = Duration::from_secs(30);

/// Whether a provider answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HealthState {
    /// Not checked yet.
    Unknown,
    /// The server answered with a status below 500 (the ping carries no token, so ENTSO-E's 401
    /// still proves it reachable and serving).
    Up,
    /// A timeout, a connection failure or a 5xx.
    Down,
}

impl HealthState {
    /// `up`, `down` or `unknown`, as the status endpoints print it.
    pub fn as_str(self) -> &'static str {
        match self {
            HealthState::Unknown => "unknown",
            HealthState::Up => "up",
            HealthState::Down => "down",
        }
    }
}

/// The outcome of the last check.
#[derive(Debug, Clone, PartialEq)]
pub struct HealthReport {
    pub state: HealthState,
    /// When the last check finished (`None` before the first).
    pub checked_at: Option<OffsetDateTime>,
    /// Round-trip time of the last check.
    pub latency: Option<Duration>,
    /// Why the provider is down (`HTTP 503`, `timeout`…); `None` when up.
    pub detail: Option<String>,
}

impl HealthReport {
    fn unknown() -> HealthReport {
        HealthReport {
            state: HealthState::Unknown,
            checked_at: None,
            latency: None,
            detail: None,
        }
    }
}

/// How to check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HealthConfig {
    /// Time between pings; raised to [`MIN_INTERVAL`] if shorter.
    pub interval: Duration,
    /// Timeout of one ping.
    pub timeout: Duration,
}

impl Default for HealthConfig {
    fn default() -> Self {
        HealthConfig {
            interval: MIN_INTERVAL,
            timeout: Duration::from_secs(10),
        }
    }
}

/// A cached provider health, cheap to clone and to read.
#[derive(Debug, Clone)]
pub struct ProviderHealth {
    name: &'static str,
    current: Arc<ArcSwap<HealthReport>>,
    stop: CancellationToken,
}

impl ProviderHealth {
    /// Starts checking `url` in a background task (must be called inside a tokio runtime). `name`
    /// labels log lines (`entso-e`, `elexon`).
    pub fn spawn(
        name: &'static str,
        url: &str,
        config: HealthConfig,
    ) -> Result<ProviderHealth, String> {
        let url = reqwest::Url::parse(url.trim())
            .map_err(|e| format!("invalid {name} URL '{url}': {e}"))?;
        Self::spawn_urls(name, vec![url], config)
    }

    /// The EPIAS probe: the data service (`base_url`) and the login endpoint
    /// (`{auth_url}/cas/v1/tickets`) are both pinged without credentials, and EPIAS is up only when
    /// both answer below 500. It proves the platform reachable and serving, not that an account
    /// works (logging in every 30 s would burn tickets, and works without an account); a wrong
    /// password shows in the worker's log instead.
    pub fn spawn_epias(
        base_url: &str,
        auth_url: &str,
        config: HealthConfig,
    ) -> Result<ProviderHealth, String> {
        let base = reqwest::Url::parse(base_url.trim())
            .map_err(|e| format!("invalid EPIAS URL '{base_url}': {e}"))?;
        let tickets = crate::epias::tickets_url(auth_url)?;
        Self::spawn_urls("epias", vec![base, tickets], config)
    }

    /// Checks every URL of `urls` in turn; up when all are.
    fn spawn_urls(
        name: &'static str,
        urls: Vec<reqwest::Url>,
        config: HealthConfig,
    ) -> Result<ProviderHealth, String> {
        let client = crate::http::http_client(config.timeout)?;
        let health = ProviderHealth::fixed(name, HealthState::Unknown);
        let weak = Arc::downgrade(&health.current);
        let stop = health.stop.clone();
        let interval = config.interval.max(MIN_INTERVAL);
        tokio::spawn(async move {
            loop {
                let mut report = None;
                for url in &urls {
                    let r = check(&client, url).await;
                    let down = r.state == HealthState::Down;
                    report = Some(r);
                    if down {
                        break;
                    }
                }
                let Some(report) = report else { break };
                if !store(&weak, name, report) {
                    break;
                }
                tokio::select! {
                    () = tokio::time::sleep(interval) => {}
                    () = stop.cancelled() => break,
                }
            }
        });
        Ok(health)
    }

    /// A health that never changes (a provider that is not configured, tests).
    pub fn fixed(name: &'static str, state: HealthState) -> ProviderHealth {
        let report = HealthReport {
            state,
            ..HealthReport::unknown()
        };
        ProviderHealth {
            name,
            current: Arc::new(ArcSwap::from_pointee(report)),
            stop: CancellationToken::new(),
        }
    }

    /// The provider's name as given.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The last report; never waits.
    pub fn report(&self) -> Arc<HealthReport> {
        self.current.load_full()
    }

    /// The last state; never waits.
    pub fn state(&self) -> HealthState {
        self.current.load().state
    }

    /// Replaces the cached report (the worker may record what it saw; tests).
    pub fn set(&self, report: HealthReport) {
        self.current.store(Arc::new(report));
    }

    /// Stops the background task (the cached report stays readable).
    pub fn stop(&self) {
        self.stop.cancel();
    }
}

/// Stores a report if anyone still holds the cache; `false` when nobody does. Logs only a change of
/// state (once when a provider goes down, once when it is back), never every check.
fn store(weak: &Weak<ArcSwap<HealthReport>>, name: &str, report: HealthReport) -> bool {
    let Some(cell) = weak.upgrade() else {
        return false;
    };
    let before = cell.load().state;
    if before != report.state {
        match report.state {
            HealthState::Down => tracing::warn!(
                provider = name,
                detail = report.detail.as_deref().unwrap_or(""),
                "provider is down"
            ),
            HealthState::Up => tracing::info!(provider = name, "provider is up"),
            HealthState::Unknown => {}
        }
    }
    cell.store(Arc::new(report));
    true
}

/// One ping.
pub async fn check(client: &reqwest::Client, url: &reqwest::Url) -> HealthReport {
    let started = std::time::Instant::now();
    let outcome = client.get(url.clone()).send().await;
    let latency = Some(started.elapsed());
    let checked_at = Some(OffsetDateTime::now_utc());
    match outcome {
        Ok(r) if r.status().as_u16() < 500 => HealthReport {
            state: HealthState::Up,
            checked_at,
            latency,
            detail: None,
        },
        Ok(r) => HealthReport {
            state: HealthState::Down,
            checked_at,
            latency,
            detail: Some(format!("HTTP {}", r.status().as_u16())),
        },
        Err(e) => {
            let detail = if e.is_timeout() {
                "timeout".to_string()
            } else if e.is_connect() {
                "connection failed".into()
            } else {
                "request failed".into()
            };
            HealthReport {
                state: HealthState::Down,
                checked_at,
                latency,
                detail: Some(detail),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skip::capture;

    #[test]
    fn a_provider_state_is_logged_only_when_it_changes() {
        let health = ProviderHealth::fixed("entso-e", HealthState::Unknown);
        let weak = Arc::downgrade(&health.current);
        let report = |state| HealthReport {
            state,
            checked_at: Some(OffsetDateTime::now_utc()),
            latency: Some(Duration::from_millis(3)),
            detail: (state == HealthState::Down).then(|| "connection failed".to_string()),
        };
        use HealthState::{Down, Up};
        let lines = capture::lines(tracing::Level::INFO, || {
            for state in [Down, Down, Down, Up, Up, Up, Down, Down] {
                assert!(store(&weak, "entso-e", report(state)));
            }
        });
        let want = [
            ("WARN", "provider is down"),
            ("INFO", "provider is up"),
            ("WARN", "provider is down"),
        ];
        assert_eq!(lines.len(), want.len(), "{lines:?}");
        for (line, (level, message)) in lines.iter().zip(want) {
            assert!(
                line.contains(level)
                    && line.contains(message)
                    && line.contains("provider=\"entso-e\""),
                "{lines:?}"
            );
        }
        assert_eq!(health.state(), Down);
    }
}
