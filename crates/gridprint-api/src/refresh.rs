//! Keeping the in-memory cache in step with the store.
//!
//! [`load`] fills the query service's cache at start-up (on the blocking pool; a year of 52 zones takes
//! seconds). [`spawn_refresher`] then runs a background task that, every
//! [`ApiConfig::refresh_interval`](crate::ApiConfig) (2 s by default), asks the store for its data
//! version and, when a computation has published new days, loads only the days changed since the
//! cache's version (the store's change log; a full reload when the log does not reach back) and
//! swaps the new cache in atomically (`QueryService::refresh`; requests in flight finish on the
//! snapshot they hold). So every
//! replica serves newly computed data within a few seconds, and no request ever waits for the store.
//! The outcome of each check is the storage health `/v1/status/storage` reports and the data routes
//! obey (503 while down). A check is bounded by `ApiConfig::storage_timeout` (5 s by default): a
//! store that hangs instead of failing (a stalled network, a stopped server process) counts as down
//! until it answers; reloads run beside the checks, so a long reload does not delay them. The task also publishes gauges: `gridprint_cache_bytes`,
//! `gridprint_cache_data_version`, `gridprint_storage_up`.

use crate::state::AppState;
use gridprint_query::{CacheStats, CacheVersion};
use gridprint_store::StoreError;
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

/// Loads (or reloads) the cache from the store now; returns its sizes.
pub async fn load(state: &AppState) -> Result<CacheStats, StoreError> {
    let started = Instant::now();
    let (store, svc) = (state.store().clone(), state.query().clone());
    let options = state.config().cache_load.clone();
    let stats = tokio::task::spawn_blocking(move || {
        let cache =
            gridprint_query::DataCache::load_with(&*store, svc.reference().clone(), options)?;
        let stats = cache.stats();
        svc.shared_cache().replace(cache);
        Ok::<_, StoreError>(stats)
    })
    .await
    .map_err(|e| StoreError::Other(format!("cache load task failed: {e}")))??;
    state.inner.health.record(true);
    state.inner.health.mark_loaded();
    publish_gauges(state, &stats);
    tracing::info!(
        zone_days = stats.derived_zone_days,
        input_series = stats.input_series,
        megabytes = stats.bytes / (1 << 20),
        spilled_megabytes = stats.spilled_bytes / (1 << 20),
        data_version = state.query().cache().data_version(),
        millis = started.elapsed().as_millis() as u64,
        "data cache loaded"
    );
    Ok(stats)
}

/// One refresh: checks the store's version and, when it changed, reloads the cache and waits for the
/// reload; records the storage health. A check not answered within
/// [`ApiConfig::storage_timeout`](crate::ApiConfig) is an error (storage down).
#[cfg(any(test, feature = "testing"))]
pub async fn refresh_once(state: &AppState) -> Result<bool, StoreError> {
    Checker::default().check(state, true).await
}

/// The refresher's work in progress between ticks: a version check that has not answered yet (a
/// hung store), and a reload still running (a year takes seconds). Neither is started twice, so a
/// hung store holds at most one blocking thread.
#[derive(Default)]
struct Checker {
    probe: Option<JoinHandle<Result<CacheVersion, StoreError>>>,
    /// The reload's task; it returns whether the cache changed and how long the reload took.
    reload: Option<JoinHandle<Result<(bool, Duration), StoreError>>>,
}

impl Checker {
    /// One tick: collects a finished reload, checks the version (bounded by the storage timeout;
    /// the outcome is the storage health) and starts a reload when the version changed. With
    /// `wait`, waits for that reload; otherwise it runs on while later ticks keep checking health.
    async fn check(&mut self, state: &AppState, wait: bool) -> Result<bool, StoreError> {
        let reloaded = match self.reload.take_if(|r| r.is_finished()) {
            Some(r) => finish_reload(state, r.await),
            None => Ok(false),
        };
        let version = self.probe(state).await;
        let health = &state.inner.health;
        let outcome = match (version, reloaded) {
            (Err(e), _) | (Ok(_), Err(e)) => Err(e),
            (Ok(version), Ok(reloaded)) => {
                if version != state.query().cache().version() && self.reload.is_none() {
                    let (store, svc) = (state.store().clone(), state.query().clone());
                    let task = tokio::task::spawn_blocking(move || {
                        let started = Instant::now();
                        svc.refresh(&*store)
                            .map(|changed| (changed, started.elapsed()))
                    });
                    self.reload = Some(task);
                }
                match self.reload.take_if(|_| wait) {
                    Some(r) => finish_reload(state, r.await),
                    None => Ok(reloaded),
                }
            }
        };
        let up = outcome.is_ok();
        let was_up = health.record(up);
        metrics::gauge!("gridprint_storage_up").set(if up { 1.0 } else { 0.0 });
        match &outcome {
            Ok(_) if !was_up => tracing::info!("storage is up again"),
            Err(e) if was_up => {
                tracing::warn!(error = %e, "storage is down; data requests answer 503 until it is back")
            }
            _ => {}
        }
        outcome
    }

    /// The store's current version, or an error when it fails or does not answer in time (the
    /// unanswered check is kept and awaited again on the next tick).
    async fn probe(&mut self, state: &AppState) -> Result<CacheVersion, StoreError> {
        let timeout = state.config().storage_timeout;
        let mut probe = self.probe.take().unwrap_or_else(|| {
            let store = state.store().clone();
            tokio::task::spawn_blocking(move || CacheVersion::of(&*store))
        });
        match tokio::time::timeout(timeout, &mut probe).await {
            Ok(Ok(version)) => version,
            Ok(Err(e)) => Err(StoreError::Other(format!("storage check failed: {e}"))),
            Err(_) => {
                self.probe = Some(probe);
                Err(StoreError::Unavailable(format!(
                    "the storage did not answer within {timeout:?}"
                )))
            }
        }
    }
}

/// Logs and publishes a finished reload.
fn finish_reload(
    state: &AppState,
    joined: Result<Result<(bool, Duration), StoreError>, tokio::task::JoinError>,
) -> Result<bool, StoreError> {
    let (changed, took) =
        joined.map_err(|e| StoreError::Other(format!("cache refresh task failed: {e}")))??;
    let health = &state.inner.health;
    if changed || !health.loaded() {
        health.mark_loaded();
        let stats = state.query().cache().stats();
        publish_gauges(state, &stats);
        tracing::info!(
            data_version = state.query().cache().data_version(),
            zone_days = stats.derived_zone_days,
            megabytes = stats.bytes / (1 << 20),
            spilled_megabytes = stats.spilled_bytes / (1 << 20),
            incremental_updates = stats.incremental_updates,
            millis = took.as_millis() as u64,
            "data cache refreshed"
        );
    }
    Ok(changed)
}

fn publish_gauges(state: &AppState, stats: &CacheStats) {
    metrics::gauge!("gridprint_cache_bytes").set(stats.bytes as f64);
    metrics::gauge!("gridprint_cache_data_version")
        .set(state.query().cache().data_version() as f64);
}

/// Refreshes every `refresh_interval` until the returned task is aborted (or the runtime stops).
pub fn spawn_refresher(state: AppState) -> JoinHandle<()> {
    let every = state
        .config()
        .refresh_interval
        .max(Duration::from_millis(50));
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await;
        let mut checker = Checker::default();
        loop {
            tick.tick().await;
            // Errors are recorded as storage health and logged on transitions.
            let _ = checker.check(&state, false).await;
        }
    })
}
