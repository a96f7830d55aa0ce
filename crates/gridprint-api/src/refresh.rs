//! Keeping the in-memory cache in step with the store.
//!
//! [`load`] fills the query service's cache at start-up (on the blocking pool; a year of 52 zones takes
//! seconds). [`spawn_refresher`] then runs a background task that, every
//! [`ApiConfig::refresh_interval`](crate::ApiConfig) (2 s by default), asks the store for its data
//! version and, when a computation has published new days, rebuilds the cache and swaps it in
//! atomically (`QueryService::refresh`; requests in flight finish on the snapshot they hold). So every
//! replica serves newly computed data within a few seconds, and no request ever waits for the store.
//! The outcome of each check is the storage health `/v1/status/storage` reports and the data routes
//! obey (503 while down). The task also publishes gauges: `gridprint_cache_bytes`,
//! `gridprint_cache_data_version`, `gridprint_storage_up`.

use crate::AppState;
use gridprint_query::CacheStats;
use gridprint_store::StoreError;
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

/// Loads (or reloads) the cache from the store now; returns its sizes.
pub async fn load(state: &AppState) -> Result<CacheStats, StoreError> {
    let started = Instant::now();
    let (store, svc) = (state.store().clone(), state.query().clone());
    let stats = tokio::task::spawn_blocking(move || {
        let cache = gridprint_query::DataCache::load(&*store, svc.reference().clone())?;
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
        data_version = state.query().cache().data_version(),
        millis = started.elapsed().as_millis() as u64,
        "data cache loaded"
    );
    Ok(stats)
}

/// One refresh: reloads when the store's version changed; records the storage health.
pub async fn refresh_once(state: &AppState) -> Result<bool, StoreError> {
    let (store, svc) = (state.store().clone(), state.query().clone());
    let started = Instant::now();
    let outcome = tokio::task::spawn_blocking(move || svc.refresh(&*store))
        .await
        .map_err(|e| StoreError::Other(format!("cache refresh task failed: {e}")))?;
    let health = &state.inner.health;
    match outcome {
        Ok(changed) => {
            if !health.record(true) {
                tracing::info!("storage is up again");
            }
            metrics::gauge!("gridprint_storage_up").set(1.0);
            if changed || !health.loaded() {
                health.mark_loaded();
                let stats = state.query().cache().stats();
                publish_gauges(state, &stats);
                tracing::info!(
                    data_version = state.query().cache().data_version(),
                    zone_days = stats.derived_zone_days,
                    megabytes = stats.bytes / (1 << 20),
                    millis = started.elapsed().as_millis() as u64,
                    "data cache refreshed"
                );
            }
            Ok(changed)
        }
        Err(e) => {
            if health.record(false) {
                tracing::warn!(error = %e, "storage is down; data requests answer 503 until it is back");
            }
            metrics::gauge!("gridprint_storage_up").set(0.0);
            Err(e)
        }
    }
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
        loop {
            tick.tick().await;
            // Errors are recorded as storage health and logged on transitions.
            let _ = refresh_once(&state).await;
        }
    })
}
