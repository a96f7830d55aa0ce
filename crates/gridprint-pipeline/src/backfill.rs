//! Backfill: fetch a provider's history for a range into the store, resumably.
//!
//! [`plan`] looks at what the store already holds, one UTC day at a time: a series (a zone's
//! generation, a zone's load, one direction of a border) whose day is fully present as official data
//! — an official point in every slot of the day that lies in the range — is skipped. The missing days
//! of each series are joined into runs of at most `chunk_days` days, one request each, ordered by time.
//! [`run`] fetches them a few at a time and stores each answer in its own transaction as soon as it
//! arrives, so a backfill that is killed or fails half-way keeps everything it got, and a rerun asks
//! only for what is still missing; upserts are idempotent, so the rerun ends with the same database
//! content as an uninterrupted run. There is no separate fetch log: the store's inputs are the log.
//!
//! Days a provider genuinely has no data for are asked for again on every rerun (an empty answer
//! leaves no trace); that costs requests, never correctness.

use futures_util::StreamExt as _;
use gridprint_core::quality::DataState;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::{Provider, ZoneCode, Zones};
use gridprint_ingest::fetch::Fetcher;
use gridprint_ingest::http::FetchError;
use gridprint_ingest::request::{DataKind, FetchRequest, Target, series_of, targets, whole_hours};
use gridprint_store::{SharedStore, Store, StoreError, UpsertSummary};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use tokio_util::sync::CancellationToken;

/// What to backfill.
#[derive(Debug, Clone)]
pub struct BackfillOptions {
    pub provider: Provider,
    pub kinds: Vec<DataKind>,
    /// Only series touching these zones (all when `None`).
    pub zones: Option<Vec<ZoneCode>>,
    /// Slots to cover (widened to whole hours).
    pub range: SlotRange,
    /// Longest request, in days.
    pub chunk_days: i64,
}

/// The requests a backfill still needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BackfillPlan {
    pub requests: Vec<FetchRequest>,
    /// Series considered.
    pub series: usize,
    /// (series, day) pairs already fully present as official data.
    pub days_present: usize,
    /// (series, day) pairs to fetch.
    pub days_missing: usize,
}

/// Plans a backfill from what `store` holds.
pub fn plan(
    store: &dyn Store,
    zones: &Zones,
    opts: &BackfillOptions,
) -> Result<BackfillPlan, StoreError> {
    let range = whole_hours(opts.range);
    let series = targets(zones, opts.provider, &opts.kinds, opts.zones.as_deref());
    let wanted: HashSet<&(DataKind, Target)> = series.iter().collect();
    let chunk = opts.chunk_days.max(1);
    // Missing day-ranges per series, in day order.
    let mut missing: BTreeMap<&(DataKind, Target), Vec<SlotRange>> = BTreeMap::new();
    let mut out = BackfillPlan {
        series: series.len(),
        ..Default::default()
    };
    for day in range.days() {
        let day_range = SlotRange::new(
            Slot::first_of_day(day).max(range.start),
            Slot::first_of_day(day + 1).min(range.end),
        );
        if day_range.is_empty() {
            continue;
        }
        let mut present: HashMap<(DataKind, Target), HashSet<Slot>> = HashMap::new();
        for sp in store.inputs_in_range(day_range)? {
            if sp.point.state != DataState::Official {
                continue;
            }
            let s = series_of(&sp.point.key);
            if wanted.contains(&s) {
                present.entry(s).or_default().insert(sp.point.slot);
            }
        }
        for s in &series {
            if present.get(s).map_or(0, |p| p.len()) == day_range.len() {
                out.days_present += 1;
            } else {
                out.days_missing += 1;
                missing.entry(s).or_default().push(day_range);
            }
        }
    }
    for ((kind, target), ranges) in missing {
        let mut runs: Vec<SlotRange> = Vec::new();
        for r in ranges {
            match runs.last_mut() {
                Some(last)
                    if last.end == r.start
                        && (r.end.0 - last.start.0)
                            <= chunk * gridprint_core::slot::SLOTS_PER_DAY =>
                {
                    last.end = r.end;
                }
                _ => runs.push(r),
            }
        }
        for r in runs {
            out.requests.push(FetchRequest {
                provider: opts.provider,
                kind: *kind,
                target: target.clone(),
                range: r,
            });
        }
    }
    out.requests.sort_by(|a, b| {
        (a.range.start, a.kind, &a.target).cmp(&(b.range.start, b.kind, &b.target))
    });
    Ok(out)
}

/// What a backfill run did.
#[derive(Debug, Clone, Default)]
pub struct BackfillReport {
    pub requests: usize,
    pub succeeded: usize,
    pub failed: Vec<FetchError>,
    pub points: usize,
    pub stored: UpsertSummary,
    /// UTC days that received points (to compute afterwards).
    pub touched_days: BTreeSet<i64>,
    pub cancelled: bool,
}

impl BackfillReport {
    /// Contiguous runs of whole touched days, for the compute that follows.
    pub fn touched_ranges(&self) -> Vec<SlotRange> {
        crate::days::day_runs(self.touched_days.iter().copied())
    }
}

/// Fetches every planned request, `concurrency` at a time, storing each answer as it arrives.
/// `progress(done, total)` is called after each request. A failed request is recorded and the run
/// goes on; a store failure stops the run (what was stored stays). `updated_at` stamps the stored
/// points (unix seconds).
pub async fn run(
    fetcher: &Fetcher,
    store: SharedStore,
    plan: BackfillPlan,
    concurrency: usize,
    updated_at: i64,
    cancel: &CancellationToken,
    mut progress: impl FnMut(u64, u64),
) -> Result<BackfillReport, StoreError> {
    let total = plan.requests.len() as u64;
    let mut report = BackfillReport {
        requests: plan.requests.len(),
        ..Default::default()
    };
    let mut stream = std::pin::pin!(fetcher.fetch_stream(plan.requests, concurrency, cancel));
    let mut done = 0u64;
    while let Some((req, result)) = stream.next().await {
        done += 1;
        match result {
            Ok(points) => {
                report.succeeded += 1;
                report.points += points.len();
                report
                    .touched_days
                    .extend(points.iter().map(|p| p.slot.day()));
                if !points.is_empty() {
                    let store = store.clone();
                    let summary = tokio::task::spawn_blocking(move || {
                        store.upsert_inputs(&points, updated_at)
                    })
                    .await
                    .map_err(|e| StoreError::Other(format!("store task failed: {e}")))??;
                    report.stored.inserted += summary.inserted;
                    report.stored.updated += summary.updated;
                    report.stored.unchanged += summary.unchanged;
                }
                tracing::debug!(request = %req.describe(), "fetched");
            }
            Err(FetchError::Cancelled { .. }) => report.cancelled = true,
            Err(e) => {
                tracing::warn!(error = %e, "request failed; a rerun will ask again");
                report.failed.push(e);
            }
        }
        progress(done, total);
    }
    report.cancelled |= cancel.is_cancelled();
    Ok(report)
}
