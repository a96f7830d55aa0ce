//! The live ingestion worker: every interval, fetch the recent window from the providers, estimate
//! gaps ([`crate::estimate`]), extend the forecast ([`crate::forecast`], blended with the stored
//! TSO forecasts where they cover a slot: [`crate::forecast::tso`]), recompute every slot that is
//! not final and, once an hour, archive what was forecast ([`crate::archive`]).
//!
//! One cycle is [`Worker::run_cycle`] (its documentation has the steps: seal, fetch, estimate,
//! forecast, store, recompute and archive). It returns a [`CycleReport`] whose `Display` is the
//! one log line the worker writes per cycle. [`Worker::run`] repeats cycles on an interval with an
//! injected [`Clock`] until cancelled; a cycle that fails (the database is down) is logged and the
//! next one runs as usual. What the operator sets (interval, window, horizon, providers) is in
//! docs/providers.md.

use crate::archive;
use crate::estimate;
use crate::forecast::{self, ForecastConfig, SeriesClass, tso};
use crate::series::group;
use crate::tso_fetch;
use futures_util::StreamExt as _;
use gridprint_compute::ComputeSummary;
use gridprint_core::inputs::{DATASOURCE_ASSUMED_ZERO, InputKey, InputPoint};
use gridprint_core::quality::{DataState, freeze_boundary};
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{Clock, SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_core::zone::{Provider, ZoneCode};
use gridprint_ingest::fetch::Fetcher;
use gridprint_ingest::http::FetchError;
use gridprint_ingest::request::{
    DataKind, FetchRequest, ForecastData, ForecastRequest, targets, whole_hours,
};
use gridprint_store::{LeaderLease, SharedStore, StoreError, UpsertSummary};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;

/// What the cycle's forecasting step returns: the points to store, how many are estimates,
/// forecasts and TSO-blended values, and each forecast series' last known slot.
type Forecast = (
    Vec<InputPoint>,
    usize,
    usize,
    usize,
    BTreeMap<InputKey, Slot>,
);

/// How often a standby worker asks for the lease.
pub const STANDBY_POLL: Duration = Duration::from_secs(5);

/// How the worker works.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// Slots of recent data fetched each cycle (default 24 h).
    pub window_slots: i64,
    /// The forecast's parameters, horizon included.
    pub forecast: ForecastConfig,
    /// Requests under way at once.
    pub concurrency: usize,
    /// Only series touching these zones (all when `None`).
    pub zones: Option<Vec<ZoneCode>>,
    /// Slots already final re-sealed each cycle (default 2 days: covers a worker that was down).
    pub seal_slots: i64,
    /// Days an issued forecast stays in the archive (default 30; 0: nothing is archived and no
    /// accuracy is published) — [`crate::archive`].
    pub archive_days: i64,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            window_slots: SLOTS_PER_DAY,
            forecast: ForecastConfig::default(),
            concurrency: 4,
            zones: None,
            seal_slots: 2 * SLOTS_PER_DAY,
            archive_days: archive::DEFAULT_ARCHIVE_DAYS,
        }
    }
}

/// What one cycle did.
#[derive(Debug, Clone, Default)]
pub struct CycleReport {
    pub now: Option<OffsetDateTime>,
    pub requests: usize,
    pub failed: usize,
    /// Series whose request failed (`ENTSO-E A75 NL`), for the log line.
    pub failed_series: BTreeSet<String>,
    pub fetched_points: usize,
    pub stored: UpsertSummary,
    pub estimated: usize,
    pub forecast: usize,
    /// TSO forecast values fetched (step 2b).
    pub tso_fetched: usize,
    /// Of the estimated and forecast values, those blended with a TSO forecast.
    pub tso_blended: usize,
    pub derived: UpsertSummary,
    pub sealed: ComputeSummary,
    pub computed: ComputeSummary,
    /// What the archive step did, when the cycle archived its forecast (at most hourly).
    pub archive: Option<archive::ArchiveReport>,
    pub elapsed: Duration,
}

impl fmt::Display for CycleReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let now = self
            .now
            .map(gridprint_core::slot::format_timestamp)
            .unwrap_or_default();
        write!(
            f,
            "cycle {now}: {} requests ({} failed), {} points fetched ({} new, {} changed){}, {} estimated, {} forecast{}, {} zone-slots computed ({} frozen kept), {} zone-days published, {:.1} s",
            self.requests,
            self.failed,
            self.fetched_points,
            self.stored.inserted,
            self.stored.updated,
            match self.tso_fetched {
                0 => String::new(),
                n => format!(", {n} TSO forecast values fetched"),
            },
            self.estimated,
            self.forecast,
            match self.tso_blended {
                0 => String::new(),
                n => format!(" ({n} with TSO forecasts)"),
            },
            self.computed.computed,
            self.computed.frozen_kept,
            self.computed.days_published + self.sealed.days_published,
            self.elapsed.as_secs_f64()
        )?;
        if !self.failed_series.is_empty() {
            let list: Vec<&str> = self
                .failed_series
                .iter()
                .map(String::as_str)
                .take(8)
                .collect();
            write!(f, "; failing: {}", list.join(", "))?;
            if self.failed_series.len() > 8 {
                write!(f, " and {} more", self.failed_series.len() - 8)?;
            }
        }
        if let Some(a) = &self.archive {
            write!(
                f,
                "; forecast archived for {} zones ({} old ones dropped), accuracy of {} zones published",
                a.archived, a.pruned, a.measured
            )?;
        }
        Ok(())
    }
}

/// Why a cycle failed (provider failures never fail a cycle).
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("compute failed: {0}")]
    Compute(String),
    #[error("worker task failed: {0}")]
    Task(String),
}

/// The worker: a store, the reference data, the provider clients.
#[derive(Clone)]
pub struct Worker {
    store: SharedStore,
    reference: Arc<ReferenceData>,
    fetcher: Fetcher,
    config: WorkerConfig,
    /// Which TSO forecasts the last cycles fell back from, so that each fallback is logged once.
    tso_fallback: Arc<Mutex<TsoFallback>>,
}

/// The TSO forecasts the forecast falls back from to the model alone: a series whose TSO forecast
/// does not cover the current slot (missing, or published late), a read of them that failed, and
/// malformed values. Each is logged when it starts and when it ends, not every cycle.
#[derive(Debug, Default)]
pub struct TsoFallback {
    /// TSO forecasts asked for that failed or brought no value (`ENTSO-E A69/A01 DK1`).
    not_fetched: BTreeSet<String>,
    /// Series with TSO forecasts in the cycle's range but none for the current slot.
    uncovered: BTreeSet<InputKey>,
    read_failed: bool,
    malformed: bool,
}

impl TsoFallback {
    /// Records which of the cycle's TSO forecast requests brought nothing (failed, or none
    /// published) and logs what changed.
    fn fetched(&mut self, report: &tso_fetch::TsoFetchReport) {
        let mut not_fetched = BTreeSet::new();
        for (req, answer) in &report.answers {
            let what = forecast_name(req);
            match answer {
                Ok(n) if *n > 0 => continue,
                Ok(_) => {}
                Err(e) if !self.not_fetched.contains(&what) => {
                    tracing::debug!(error = %e, "TSO forecast request failed")
                }
                Err(_) => {}
            }
            not_fetched.insert(what);
        }
        for what in not_fetched.difference(&self.not_fetched) {
            tracing::warn!(forecast = %what, "no TSO forecast fetched (failed or none published): the model alone forecasts it");
        }
        for what in self.not_fetched.difference(&not_fetched) {
            tracing::info!(forecast = %what, "TSO forecast fetched again");
        }
        self.not_fetched = not_fetched;
    }

    /// Records one cycle's state and logs what changed.
    fn update(
        &mut self,
        uncovered: BTreeSet<InputKey>,
        read_error: Option<&StoreError>,
        malformed: usize,
    ) {
        match (read_error, self.read_failed) {
            (Some(e), false) => tracing::warn!(
                error = %e,
                "cannot read the TSO forecasts: forecasting with the model alone until they can be read"
            ),
            (None, true) => tracing::info!("TSO forecasts readable again"),
            _ => {}
        }
        self.read_failed = read_error.is_some();
        if read_error.is_some() {
            return;
        }
        match (malformed > 0, self.malformed) {
            (true, false) => tracing::warn!(
                values = malformed,
                "malformed TSO forecast values (not a finite, non-negative power): the model's values stand there"
            ),
            (false, true) => tracing::info!("no malformed TSO forecast values any more"),
            _ => {}
        }
        self.malformed = malformed > 0;
        for key in uncovered.difference(&self.uncovered) {
            tracing::warn!(series = ?key, "no TSO forecast published for the current slot (missing or late): the model alone forecasts it");
        }
        for key in self.uncovered.difference(&uncovered) {
            tracing::info!(series = ?key, "TSO forecast back for the current slot");
        }
        self.uncovered = uncovered;
    }
}

/// A TSO forecast request without its range, as the fallback's log lines name it.
fn forecast_name(req: &ForecastRequest) -> String {
    let d = req.describe();
    d.rsplit_once(' ')
        .map_or(d.clone(), |(what, _)| what.to_string())
}

/// Whether `lease` is still held, asked off the async workers: a store's check may block on its
/// connection (PostgreSQL's synchronous client refuses to run inside the async runtime).
async fn still_leading(lease: &mut Option<Box<dyn LeaderLease>>) -> bool {
    let Some(mut held) = lease.take() else {
        return false;
    };
    match tokio::task::spawn_blocking(move || (held.still_held(), held)).await {
        Ok((still, held)) => {
            *lease = Some(held);
            still
        }
        Err(_) => false,
    }
}

impl Worker {
    pub fn new(
        store: SharedStore,
        reference: Arc<ReferenceData>,
        fetcher: Fetcher,
        config: WorkerConfig,
    ) -> Worker {
        Worker {
            store,
            reference,
            fetcher,
            config,
            tso_fallback: Arc::default(),
        }
    }

    pub fn config(&self) -> &WorkerConfig {
        &self.config
    }

    /// The requests of one cycle: every series of every configured provider over the window.
    pub fn cycle_requests(&self, now: OffsetDateTime) -> Vec<FetchRequest> {
        let current = Slot::containing(now);
        let window = whole_hours(SlotRange::new(
            current.offset(-self.config.window_slots),
            current,
        ));
        let mut out = Vec::new();
        // EPIAS (issue 15): TR's generation and load, when an EPIAS account is configured.
        for provider in [Provider::Entsoe, Provider::Elexon, Provider::Epias] {
            if !self.fetcher.serves(provider) {
                continue;
            }
            for (kind, target) in targets(
                &self.reference.zones,
                provider,
                &DataKind::ALL,
                self.config.zones.as_deref(),
            ) {
                out.push(FetchRequest {
                    provider,
                    kind,
                    target,
                    range: window,
                });
            }
        }
        out
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(SharedStore, Arc<ReferenceData>) -> T + Send + 'static,
    ) -> Result<T, WorkerError> {
        let (store, reference) = (self.store.clone(), self.reference.clone());
        tokio::task::spawn_blocking(move || f(store, reference))
            .await
            .map_err(|e| WorkerError::Task(e.to_string()))
    }

    async fn compute(
        &self,
        ranges: Vec<SlotRange>,
        now: OffsetDateTime,
    ) -> Result<ComputeSummary, WorkerError> {
        self.blocking(move |store, reference| {
            gridprint_compute::compute_ranges(&*store, &reference, &ranges, now, &mut |_, _| {})
        })
        .await?
        .map_err(|e| WorkerError::Compute(e.to_string()))
    }

    /// Days of history loaded for the estimator and the forecast: the model's longest profile
    /// ([`ForecastConfig::history_days`]), and at least the estimator's week plus the window.
    fn history_days(&self) -> i64 {
        self.config.forecast.history_days().max(
            estimate::PROFILE_DAYS + (self.config.window_slots + SLOTS_PER_DAY - 1) / SLOTS_PER_DAY,
        )
    }

    /// Runs one cycle at `now`, with `current = floor15(now)` and the freeze boundary
    /// `B = current − 4 h`:
    ///
    /// 1. **Seal.** Slots that became final since the last cycle are computed once more *before*
    ///    anything new is stored, so that they are published with their `frozen` flag and the
    ///    values they had; from then on the compute keeps them as they are and late provider data
    ///    no longer changes them.
    /// 2. **Fetch** the recent window (24 h by default, whole hours up to `current`) for every
    ///    series of every configured provider, a few requests at a time, and store what came back
    ///    in one transaction. A failed request (outage, refusal, malformed answer) is counted and
    ///    logged; the affected series simply lack provider data.
    ///    Then fetch the TSOs' forecasts of every configured provider from `current` over the
    ///    look-ahead ([`tso_fetch`]) and store them apart; one that fails or brings nothing leaves
    ///    the model alone, logged when that starts and when it ends.
    /// 3. **Estimate** the interior gaps of every series in the window (between two official
    ///    values) from its official values of the history loaded.
    /// 4. **Forecast** every series with recent history from the slot after its last value to the
    ///    horizon (96 h by default) with the one model ([`forecast::forecast_series`]): the values
    ///    before `current` (hours the provider has not published yet) are stored as estimates, the
    ///    rest as forecasts.
    /// 5. Store estimates and forecasts in one transaction (the store never lets them replace
    ///    better data) and **recompute** from the start of the window (or `B`, whichever is
    ///    earlier) to the horizon.
    /// 6. **Archive** what was issued (at most once an hour: [`crate::archive`]): per zone, the
    ///    footprints just published from `current` over the horizon and the forecast inputs; drop
    ///    what is older than `archive_days`, and publish the accuracy of the archived forecasts
    ///    against the actuals. A failure here is logged and does not fail the cycle.
    pub async fn run_cycle(&self, now: OffsetDateTime) -> Result<CycleReport, WorkerError> {
        let started = std::time::Instant::now();
        let mut report = CycleReport {
            now: Some(now),
            ..Default::default()
        };
        let current = Slot::containing(now);
        let boundary = freeze_boundary(now);
        let updated_at = now.unix_timestamp();

        // 1. Seal the slots that became final, with the data they had.
        report.sealed = self
            .compute(
                vec![SlotRange::new(
                    boundary.offset(-self.config.seal_slots),
                    boundary,
                )],
                now,
            )
            .await?;

        // 2. Fetch the recent window.
        let requests = self.cycle_requests(now);
        report.requests = requests.len();
        let never = CancellationToken::new();
        let mut fetched: Vec<InputPoint> = Vec::new();
        {
            let mut stream = std::pin::pin!(self.fetcher.fetch_stream(
                requests,
                self.config.concurrency,
                &never
            ));
            while let Some((req, result)) = stream.next().await {
                match result {
                    // Provider data cannot be from the future (the window ends on a whole hour).
                    Ok(points) => fetched.extend(points.into_iter().filter(|p| p.slot < current)),
                    Err(e) => {
                        report.failed += 1;
                        let kind = match req.provider {
                            Provider::Entsoe => req.kind.entsoe_document_type().to_string(),
                            _ => format!("{:?}", req.kind).to_ascii_lowercase(),
                        };
                        report.failed_series.insert(format!(
                            "{} {kind} {}",
                            req.provider.as_str(),
                            req.target
                        ));
                        match &e {
                            FetchError::NotConfigured { .. } => {
                                tracing::debug!(error = %e, "request not sent")
                            }
                            _ => tracing::warn!(error = %e, "request failed"),
                        }
                    }
                }
            }
        }
        report.fetched_points = fetched.len();
        if !fetched.is_empty() {
            report.stored = self
                .blocking(move |store, _| store.upsert_inputs(&fetched, updated_at))
                .await??;
        }

        // 2b. Fetch the TSOs' forecasts of the look-ahead (stored apart from the actuals).
        let tso_requests = tso_fetch::requests(
            &self.fetcher,
            &self.reference.zones,
            &ForecastData::ALL,
            self.config.zones.as_deref(),
            SlotRange::new(current, current.offset(tso_fetch::LOOK_AHEAD_SLOTS)),
        );
        if !tso_requests.is_empty() {
            let fetched = tso_fetch::fetch_and_store(
                &self.fetcher,
                self.store.clone(),
                tso_requests,
                self.config.concurrency,
                updated_at,
                &never,
            )
            .await?;
            self.tso_fallback
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .fetched(&fetched);
            report.tso_fetched = fetched.fetched;
        }

        // Whether this cycle archives what it issues (step 6).
        let archiving = self.config.archive_days > 0
            && archive::due(
                self.blocking(|store, _| store.latest_archived_origin())
                    .await??,
                current,
            );

        // 3 + 4. Estimate and forecast from the stored history.
        let history = SlotRange::new(
            current.offset(-self.history_days() * SLOTS_PER_DAY),
            current,
        );
        let window = SlotRange::new(current.offset(-self.config.window_slots), current);
        let cfg = self.config.forecast;
        let only = self.config.zones.clone();
        let fallback = self.tso_fallback.clone();
        let published_before = now.unix_timestamp();
        let (derived, n_est, n_fc, n_tso, anchors) = self
            .blocking(move |store, reference| -> Result<Forecast, StoreError> {
                let stored = store.inputs_in_range(history)?;
                let points: Vec<&InputPoint> = stored
                    .iter()
                    .map(|s| &s.point)
                    .filter(|p| reference.zones.index_of(p.key.zone()).is_some())
                    .filter(|p| match (&only, &p.key) {
                        (None, _) => true,
                        (Some(o), InputKey::Flow { from, to }) => {
                            o.contains(from) || o.contains(to)
                        }
                        (Some(o), k) => o.contains(k.zone()),
                    })
                    .collect();
                let mut out = estimate::estimate_points(points.iter().copied(), history, window);
                // The model's history: official values and the interior gaps' estimates, not
                // the flows taken as 0 MW because nothing reported them. From each series'
                // last value it estimates the hours not published yet and forecasts the rest.
                let known = group(
                    points
                        .iter()
                        .copied()
                        .filter(|p| p.datasource != DATASOURCE_ASSUMED_ZERO)
                        .filter(|p| p.datasource != forecast::DATASOURCE)
                        .filter(|p| p.datasource != tso::DATASOURCE)
                        .chain(out.iter()),
                    history,
                    |p| p.state != DataState::Missing,
                );
                let until = current.offset(cfg.horizon_slots as i64);
                // The TSO forecasts published by now; any failure to read them leaves the
                // model alone (logged once), never a failed cycle.
                let tso_range = SlotRange::new(window.start, until);
                let read = store.tso_forecasts_in_range(tso_range, published_before);
                let (tso_series, malformed) = match &read {
                    Ok(rows) => tso::series_of(rows, tso_range),
                    Err(_) => Default::default(),
                };
                let uncovered = tso_series
                    .iter()
                    .filter(|(_, s)| s.get(current).is_none())
                    .map(|(k, _)| k.clone())
                    .collect();
                fallback.lock().unwrap_or_else(|p| p.into_inner()).update(
                    uncovered,
                    read.as_ref().err(),
                    malformed,
                );
                let weights = tso::BlendWeights::default();
                let mut n_tso = 0;
                let mut anchors = BTreeMap::new();
                for (key, series) in &known {
                    let class = SeriesClass::of(key);
                    let fc = forecast::forecast_series(series, current, until, class, &cfg);
                    if let Some((first, _)) = fc.first() {
                        anchors.insert(key.clone(), first.offset(-1));
                    }
                    let mut points = forecast::to_points(key, &fc, current);
                    if let (Some(t), Some(last)) =
                        (tso_series.get(key), series.last_before(current))
                    {
                        for (p, (_, mw, blended)) in points
                            .iter_mut()
                            .zip(tso::blend(&fc, t, last, class, &weights))
                        {
                            if blended {
                                p.mw = mw;
                                p.datasource = tso::DATASOURCE.to_string();
                                n_tso += 1;
                            }
                        }
                    }
                    out.extend(points);
                }
                let n_fc = out.iter().filter(|p| p.state == DataState::Missing).count();
                let n_est = out.len() - n_fc;
                Ok((out, n_est, n_fc, n_tso, anchors))
            })
            .await??;
        report.estimated = n_est;
        report.forecast = n_fc;
        report.tso_blended = n_tso;
        let horizon = self.config.forecast.horizon_slots;
        let issued =
            archiving.then(|| archive::issued_inputs(&derived, &anchors, current, horizon));
        if !derived.is_empty() {
            report.derived = self
                .blocking(move |store, _| store.upsert_inputs(&derived, updated_at))
                .await??;
        }

        // 5. Recompute everything that is not final, up to the horizon.
        let horizon_end = current.offset(self.config.forecast.horizon_slots as i64);
        let from = current.offset(-self.config.window_slots).min(boundary);
        report.computed = self
            .compute(vec![SlotRange::new(from, horizon_end)], now)
            .await?;

        // 6. Archive what was issued, drop what is too old, publish the accuracy.
        if let Some(inputs) = issued {
            let zones: Vec<ZoneCode> = match &self.config.zones {
                Some(only) => only.clone(),
                None => self
                    .reference
                    .zones
                    .iter()
                    .map(|z| z.code.clone())
                    .collect(),
            };
            let keep = self.config.archive_days;
            let done = self
                .blocking(move |store, _| {
                    let forecasts = archive::issued_forecasts(
                        &*store, &zones, inputs, current, horizon, updated_at,
                    )?;
                    archive::archive_and_measure(&*store, &forecasts, now, keep)
                })
                .await;
            match done {
                Ok(Ok(r)) => report.archive = Some(r),
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "forecast not archived; the next cycle tries again")
                }
                Err(e) => {
                    tracing::warn!(error = %e, "forecast not archived; the next cycle tries again")
                }
            }
        }
        report.elapsed = started.elapsed();
        Ok(report)
    }

    /// Runs cycles every `interval` (the first one at once) until `shutdown` fires, logging one line
    /// per cycle. Only the holder of the store's worker lease runs cycles: another worker on the same
    /// database stands by and takes over when the leader's lease is released (a killed leader
    /// releases it at once). A cycle under way when `shutdown` fires is abandoned: everything it
    /// stored was stored in transactions, and the next run starts over.
    pub async fn run(
        &self,
        clock: Arc<dyn Clock>,
        interval: Duration,
        shutdown: CancellationToken,
    ) {
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut lease: Option<Box<dyn LeaderLease>> = None;
        let mut standing_by = false;
        loop {
            tokio::select! {
                _ = ticker.tick() => {}
                () = shutdown.cancelled() => break,
            }
            if !still_leading(&mut lease).await {
                if lease.take().is_some() {
                    tracing::warn!("lost the worker lease");
                }
                match self.blocking(|store, _| store.try_lead()).await {
                    Ok(Ok(Some(l))) => {
                        lease = Some(l);
                        standing_by = false;
                    }
                    Ok(Ok(None)) => {
                        if !standing_by {
                            tracing::info!("another worker leads this database; standing by");
                            standing_by = true;
                        }
                        // A standby asks for the lease every few seconds (not every interval), so it
                        // takes over within seconds of the leader dying, then runs a cycle at once.
                        tokio::select! {
                            () = tokio::time::sleep(STANDBY_POLL.min(interval)) => {}
                            () = shutdown.cancelled() => break,
                        }
                        ticker.reset_immediately();
                        continue;
                    }
                    Ok(Err(e)) => {
                        tracing::error!(error = %e, "cannot take the worker lease; retrying next interval");
                        continue;
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "cannot take the worker lease; retrying next interval");
                        continue;
                    }
                }
            }
            let now = clock.now();
            tokio::select! {
                r = self.run_cycle(now) => match r {
                    Ok(report) => tracing::info!("{report}"),
                    Err(e) => tracing::error!(error = %e, "cycle failed; retrying next interval"),
                },
                () = shutdown.cancelled() => break,
            }
        }
        tracing::info!("worker stopped");
    }
}
