//! The bundled real demo set — the 2017-02-01 File Library extract and 2024 ENTSO-E API documents,
//! imported at their recorded dates, and two real weeks of 2022 for every zone the recordings cover
//! (generation per type and physical flows, [`EUROPE_2022`]), all embedded in the binary — and its
//! replay onto the present (`gridprint import --demo`, `serve --demo`).
//!
//! The recorded dates are years old, so on their own they hold nothing for "now". [`DemoReplay`]
//! moves each series' most recent recording of a day or more onto the recent days (by whole days; a
//! recording of a week or more by whole weeks, keeping the weekday), and [`LiveDemo`] stores the
//! replayed provider data up to about an hour before now ([`PROVIDER_LAG`], as a provider publishes)
//! and then runs the worker's own cycle ([`Worker::run_cycle`] with no provider configured: estimates,
//! the 96-hour forecast, the compute) — once at start, then after every quarter-hour while
//! `serve --demo` runs, so "now" never goes stale. The 2022 weeks are only replayed (made by
//! `scripts/demo-extract.sh`; data/demo/README.md says what they hold).

use crate::estimate::fill_stored_gaps;
use crate::import::{ImportOptions, PipelineError, import_and_compute, parse_files, unpack};
use crate::observer::Observer;
use crate::report::ImportReport;
use crate::worker::{CycleReport, Worker, WorkerConfig, WorkerError};
use gridprint_compute::ComputeSummary;
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::quality::{DataState, freeze_boundary};
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{Clock, SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use gridprint_ingest::fetch::Fetcher;
use gridprint_store::{LeaderLease, SharedStore, Store, StoreError, UpsertSummary};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;

/// The bundled real demo set: the 2017-02-01 File Library extract and the 2024 ENTSO-E API documents.
pub const FILES: &[(&str, &[u8])] = &[
    (
        "2017_02_01_AM_AggregGen.csv",
        include_bytes!("../../../data/fixtures/entsoe-file-library/2017_02_01_AM_AggregGen.csv"),
    ),
    (
        "2017_02_01_PM_AggregGen.csv",
        include_bytes!("../../../data/fixtures/entsoe-file-library/2017_02_01_PM_AggregGen.csv"),
    ),
    (
        "2017_02_01_AM_PhysicalFlows.csv",
        include_bytes!(
            "../../../data/fixtures/entsoe-file-library/2017_02_01_AM_PhysicalFlows.csv"
        ),
    ),
    (
        "2017_02_01_PM_PhysicalFlows.csv",
        include_bytes!(
            "../../../data/fixtures/entsoe-file-library/2017_02_01_PM_PhysicalFlows.csv"
        ),
    ),
    (
        "A75_DE-LU_2024-06-15_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_DE-LU_2024-06-15_PT15M_A03.xml"),
    ),
    (
        "A75_ES_2024-06-15_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_ES_2024-06-15_PT15M_A03.xml"),
    ),
    (
        "A75_FR_2024-06-15_PT60M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_FR_2024-06-15_PT60M_A03.xml"),
    ),
    (
        "A75_IT-NORTH_2024-06-15_PT60M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_IT-NORTH_2024-06-15_PT60M_A03.xml"),
    ),
    (
        "A75_NL_2024-06-15_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_NL_2024-06-15_PT15M_A03.xml"),
    ),
    (
        "A75_PL_2024-06-15_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_PL_2024-06-15_PT15M_A03.xml"),
    ),
    (
        "A75_NL_2024-09-02_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_NL_2024-09-02_PT15M_A03.xml"),
    ),
    (
        "A65_A16_NL_2024-09-02_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A65_A16_NL_2024-09-02_PT15M_A03.xml"),
    ),
    (
        "A65_A16_BE_2024-01-15to21_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A65_A16_BE_2024-01-15to21_PT15M_A03.xml"),
    ),
    (
        "A11_DE-LU-to-NL_2024-09-02to08_PT15M_A03.xml",
        include_bytes!(
            "../../../data/fixtures/entsoe-api/A11_DE-LU-to-NL_2024-09-02to08_PT15M_A03.xml"
        ),
    ),
    (
        "A11_NL-to-DE-LU_2024-09-02to08_PT15M_A03.xml",
        include_bytes!(
            "../../../data/fixtures/entsoe-api/A11_NL-to-DE-LU_2024-09-02to08_PT15M_A03.xml"
        ),
    ),
];

/// Two real weeks of 2022, 2022-11-28 to 2022-12-11 (Monday to Sunday, UTC), of every zone the
/// recordings cover: generation per production type of 19 zones and the physical flows into 21, in
/// the File Library layout, gzipped (`data/demo/`, made by `scripts/demo-extract.sh`). Replayed onto
/// the present only, not imported at the recorded dates.
pub const EUROPE_2022: &[(&str, &[u8])] = &[
    (
        "2022_11_28-12_11_AggregatedGenerationPerType_16.1.B_C.csv.gz",
        include_bytes!(
            "../../../data/demo/2022_11_28-12_11_AggregatedGenerationPerType_16.1.B_C.csv.gz"
        ),
    ),
    (
        "2022_11_28-12_11_PhysicalFlows_12.1.G.csv.gz",
        include_bytes!("../../../data/demo/2022_11_28-12_11_PhysicalFlows_12.1.G.csv.gz"),
    ),
];

/// Imports the demo set into `store` and computes it at `now`.
pub fn import_demo(
    store: &dyn Store,
    reference: &ReferenceData,
    now: OffsetDateTime,
    observer: &mut dyn Observer,
) -> Result<ImportReport, PipelineError> {
    import_and_compute(
        store,
        reference,
        &bundled_files(),
        &ImportOptions::at(now),
        observer,
    )
}

/// The bundled documents as (name, content).
fn bundled_files() -> Vec<(String, Vec<u8>)> {
    FILES
        .iter()
        .map(|(n, b)| (n.to_string(), b.to_vec()))
        .collect()
}

/// The two weeks of [`EUROPE_2022`] as (name, unpacked content).
fn europe_2022_files() -> Vec<(String, Vec<u8>)> {
    EUROPE_2022
        .iter()
        .map(|(n, b)| {
            // Embedded at build time and read by every demo test: gzip data or a broken build.
            let bytes = unpack(b.to_vec()).expect("the embedded demo weeks are gzip data");
            (n.to_string(), bytes)
        })
        .collect()
}

/// How late replayed provider data arrives: a quarter is delivered once it ended at least this long
/// ago, so provider data ends between 60 and 75 minutes before now (ENTSO-E's usual lag).
pub const PROVIDER_LAG: time::Duration = time::Duration::hours(1);
/// Whole UTC days before today that the replay fills at start (today's, up to the lag, as well).
pub const REPLAY_DAYS: i64 = 7;
/// How long after a quarter-hour boundary the live demo's cycle runs.
pub const CYCLE_DELAY: std::time::Duration = std::time::Duration::from_secs(5);

/// Which series move together: a zone's whole generation mix, its load, one direction of a border.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Group {
    Generation(ZoneCode),
    Load(ZoneCode),
    Flow(ZoneCode, ZoneCode),
}

impl Group {
    fn of(key: &InputKey) -> Group {
        match key {
            InputKey::Generation { zone, .. } => Group::Generation(zone.clone()),
            InputKey::Load { zone } => Group::Load(zone.clone()),
            InputKey::Flow { from, to } => Group::Flow(from.clone(), to.clone()),
        }
    }
}

/// One group's recording as it is replayed: its points within one period (from the recording's
/// first slot), each repeated every `period` slots.
#[derive(Debug, Clone)]
struct Track {
    period: i64,
    points: Vec<InputPoint>,
}

/// One recording of the bundled documents as the replay uses it: the recorded dates, how often it is
/// repeated and which series it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    /// The recorded day (`2024-06-15`) or week (`2024-09-02/2024-09-08`), as dates of the providers'
    /// local days (their documents start at 22:00 or 23:00 UTC the day before).
    pub recorded: String,
    /// `day` (replayed onto every day), `week` (onto every week: the weekday is kept) or `N weeks`
    /// (a recording of N whole weeks, repeated every N weeks: the weekday is kept).
    pub every: String,
    /// The series it carries, in words: `generation of DE, ES`, `load of BE`, `flows DE→NL, NL→DE`.
    pub series: Vec<String>,
}

/// The bundled documents replayed onto the present (`serve --demo`, `import --demo`).
///
/// Each series group — a zone's generation mix, a zone's load, one direction of a border — replays
/// its most recent recording that covers at least a whole day: a recording of N whole weeks or more
/// repeats its first N weeks every N weeks (shifted by whole weeks: the weekday and the hour are
/// kept), a shorter one repeats its first day every day (shifted by whole days). Recordings shorter than a day (most zones of the File
/// Library extract hold only its last hour) are not replayed. Points keep their values, their state
/// (official) and their datasource; only their dates move.
#[derive(Debug, Clone)]
pub struct DemoReplay {
    tracks: Vec<Track>,
    recordings: Vec<Recording>,
}

/// The date of a UTC instant, `YYYY-MM-DD`.
fn date_of(t: OffsetDateTime) -> String {
    gridprint_core::slot::format_timestamp(t)[..10].to_string()
}

impl DemoReplay {
    /// The replay of the bundled demo set: its documents and the two weeks of [`EUROPE_2022`].
    pub fn bundled(reference: &ReferenceData) -> Result<DemoReplay, PipelineError> {
        let mut points = bundled_points(reference)?;
        points.extend(
            parse_files(reference, &europe_2022_files(), &mut ())?
                .document
                .points,
        );
        Ok(DemoReplay::of_points(&points))
    }

    /// The replay of provider points (official ones only), grouped and chosen as the type's
    /// documentation says.
    pub fn of_points(points: &[InputPoint]) -> DemoReplay {
        let mut groups: BTreeMap<Group, Vec<&InputPoint>> = BTreeMap::new();
        for p in points.iter().filter(|p| p.state == DataState::Official) {
            groups.entry(Group::of(&p.key)).or_default().push(p);
        }
        let mut tracks = Vec::new();
        // (recorded, every) → group descriptions
        let mut described: BTreeMap<(String, String), Vec<Group>> = BTreeMap::new();
        for (group, mut pts) in groups {
            pts.sort_by_key(|p| p.slot);
            // Runs of slots without a gap longer than a day; the newest one lasting a day or more.
            let mut runs: Vec<(Slot, Slot)> = Vec::new();
            for p in &pts {
                match runs.last_mut() {
                    Some((_, last)) if p.slot.0 - last.0 <= SLOTS_PER_DAY => *last = p.slot,
                    _ => runs.push((p.slot, p.slot)),
                }
            }
            let Some(&(first, last)) = runs
                .iter()
                .rev()
                .find(|(first, last)| last.0 - first.0 + 1 >= SLOTS_PER_DAY)
            else {
                continue;
            };
            let week = 7 * SLOTS_PER_DAY;
            let weeks = (last.0 - first.0 + 1) / week;
            let period = if weeks >= 1 {
                weeks * week
            } else {
                SLOTS_PER_DAY
            };
            let end = first.offset(period);
            let kept: Vec<InputPoint> = pts
                .iter()
                .filter(|p| p.slot >= first && p.slot < end)
                .map(|p| (*p).clone())
                .collect();
            // Named by the providers' local dates: documents start at 22:00 or 23:00 UTC.
            let from = date_of(first.start() + time::Duration::hours(3));
            let to = date_of(end.start() - time::Duration::hours(3));
            let recorded = if from == to {
                from
            } else {
                format!("{from}/{to}")
            };
            let every = match weeks {
                0 => "day".to_string(),
                1 => "week".to_string(),
                n => format!("{n} weeks"),
            };
            described.entry((recorded, every)).or_default().push(group);
            tracks.push(Track {
                period,
                points: kept,
            });
        }
        let recordings = described
            .into_iter()
            .map(|((recorded, every), groups)| Recording {
                recorded,
                every,
                series: describe_groups(&groups),
            })
            .collect();
        DemoReplay { tracks, recordings }
    }

    /// What is replayed, oldest recording first.
    pub fn recordings(&self) -> &[Recording] {
        &self.recordings
    }

    /// The replayed points whose slots lie in `range`.
    pub fn points(&self, range: SlotRange) -> Vec<InputPoint> {
        let mut out = Vec::new();
        for track in &self.tracks {
            for p in &track.points {
                // The first repetition at or after range.start: p.slot + k·period.
                let k = (range.start.0 - p.slot.0).div_euclid(track.period)
                    + i64::from((range.start.0 - p.slot.0).rem_euclid(track.period) != 0);
                let mut t = p.slot.offset(k * track.period);
                while t < range.end {
                    out.push(InputPoint {
                        slot: t,
                        ..p.clone()
                    });
                    t = t.offset(track.period);
                }
            }
        }
        out
    }
}

/// `generation of AT, CH`, `load of BE`, `flows DE→NL, NL→DE`: the groups of one recording in words.
fn describe_groups(groups: &[Group]) -> Vec<String> {
    let mut generation = Vec::new();
    let mut load = Vec::new();
    let mut flows = Vec::new();
    for g in groups {
        match g {
            Group::Generation(z) => generation.push(z.to_string()),
            Group::Load(z) => load.push(z.to_string()),
            Group::Flow(a, b) => flows.push(format!("{a}→{b}")),
        }
    }
    let mut out = Vec::new();
    if !generation.is_empty() {
        out.push(format!("generation of {}", generation.join(", ")));
    }
    if !load.is_empty() {
        out.push(format!("load of {}", load.join(", ")));
    }
    if !flows.is_empty() {
        out.push(format!("flows {}", flows.join(", ")));
    }
    out
}

/// The last slot whose provider data has arrived at `now` is the one before this: quarters that
/// ended at least [`PROVIDER_LAG`] ago.
pub fn provider_data_end(now: OffsetDateTime) -> Slot {
    Slot::containing(now - PROVIDER_LAG)
}

/// Where the replay starts when it fills the recent days at `now`: [`REPLAY_DAYS`] before today.
pub fn replay_start(now: OffsetDateTime) -> Slot {
    Slot::first_of_day(Slot::containing(now).day() - REPLAY_DAYS)
}

/// The bundled documents' points (parsed as `import --demo` parses them).
fn bundled_points(reference: &ReferenceData) -> Result<Vec<InputPoint>, PipelineError> {
    Ok(parse_files(reference, &bundled_files(), &mut ())?
        .document
        .points)
}

/// The official points `store` holds in `range`, in MW by key and slot: what the demo's recorded
/// points are compared with (an equal point is the demo's own, already stored).
fn official_points(
    store: &dyn Store,
    range: SlotRange,
) -> Result<HashMap<(InputKey, Slot), f64>, StoreError> {
    Ok(store
        .inputs_in_range(range)?
        .into_iter()
        .filter(|s| s.point.state == DataState::Official)
        .map(|s| ((s.point.key, s.point.slot), s.point.mw))
        .collect())
}

/// Whether `store` holds the demo set's own recorded data (a database `import --demo` or
/// `serve --demo` filled): the stored points of the demo's first recorded hour equal the demo's.
pub fn holds_the_demo(store: &dyn Store, reference: &ReferenceData) -> Result<bool, PipelineError> {
    let points = bundled_points(reference)?;
    let Some(first) = points.iter().map(|p| p.slot).min() else {
        return Ok(false);
    };
    let hour = SlotRange::new(first, first.offset(4));
    let stored = official_points(store, hour)?;
    Ok(points
        .iter()
        .filter(|p| hour.contains(p.slot))
        .all(|p| stored.get(&(p.key.clone(), p.slot)) == Some(&p.mw)))
}

/// What one step of the live demo did ([`LiveDemo::step`]).
#[derive(Debug, Clone, Default)]
pub struct StepReport {
    /// The replayed provider data now stored (those already stored alike are not counted).
    pub stored: UpsertSummary,
    /// The replayed range: provider data from its start, up to its end (exclusive).
    pub replayed: Option<SlotRange>,
    /// The compute of replayed days older than the worker's cycle computes (the first step only).
    pub computed: Option<ComputeSummary>,
    /// The worker's cycle that followed (estimates, forecast, compute).
    pub cycle: CycleReport,
}

impl std::fmt::Display for StepReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let until = self
            .replayed
            .map(|r| gridprint_core::slot::format_timestamp(r.end.start()))
            .unwrap_or_default();
        write!(
            f,
            "demo replay: provider data up to {until} ({} points new, {} changed); {}",
            self.stored.inserted, self.stored.updated, self.cycle
        )
    }
}

/// The live demo: the replay of the bundled documents onto the present, then the worker's cycle
/// (estimates, forecast, compute — exactly `gridprint worker --once` without providers), every
/// quarter-hour.
pub struct LiveDemo {
    store: SharedStore,
    reference: Arc<ReferenceData>,
    replay: DemoReplay,
    worker: Worker,
    lease: Mutex<Option<Box<dyn LeaderLease>>>,
    /// Where the replay started (its first step's range) and the end of the provider data so far.
    progress: Mutex<Option<SlotRange>>,
}

impl LiveDemo {
    /// The live demo of the bundled documents on `store`: the worker with no provider configured and
    /// its default window, history and 96-hour horizon.
    pub fn new(
        store: SharedStore,
        reference: Arc<ReferenceData>,
    ) -> Result<LiveDemo, PipelineError> {
        let replay = DemoReplay::bundled(&reference)?;
        let worker = Worker::new(
            store.clone(),
            reference.clone(),
            Fetcher::default(),
            WorkerConfig::default(),
        );
        Ok(LiveDemo {
            store,
            reference,
            replay,
            worker,
            lease: Mutex::new(None),
            progress: Mutex::new(None),
        })
    }

    /// The same live demo with its worker keeping issued forecasts `days` days
    /// ([`WorkerConfig::archive_days`]; `serve --demo --forecast-archive-days`).
    pub fn archive_days(self, days: i64) -> LiveDemo {
        let worker = Worker::new(
            self.store.clone(),
            self.reference.clone(),
            Fetcher::default(),
            WorkerConfig {
                archive_days: days,
                ..WorkerConfig::default()
            },
        );
        LiveDemo { worker, ..self }
    }

    /// What is replayed.
    pub fn replay(&self) -> &DemoReplay {
        &self.replay
    }

    /// The replayed provider data so far: from where the replay started to where it has arrived.
    pub fn replayed(&self) -> Option<SlotRange> {
        *self.progress.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether this process holds the worker lease of the database (taking it if free): only its
    /// holder runs cycles, as for `gridprint worker`.
    pub async fn leading(&self) -> Result<bool, WorkerError> {
        let held = self.lease.lock().unwrap_or_else(|e| e.into_inner()).take();
        let store = self.store.clone();
        let lease = tokio::task::spawn_blocking(move || match held {
            Some(mut l) => {
                if l.still_held() {
                    Ok(Some(l))
                } else {
                    store.try_lead()
                }
            }
            None => store.try_lead(),
        })
        .await
        .map_err(|e| WorkerError::Task(e.to_string()))??;
        let leading = lease.is_some();
        *self.lease.lock().unwrap_or_else(|e| e.into_inner()) = lease;
        Ok(leading)
    }

    /// One step at `now`: stores the replayed provider data of the recent days ([`REPLAY_DAYS`]
    /// before today, up to [`provider_data_end`]) that the store does not hold yet, computes the
    /// replayed days older than the worker's cycle reaches (only the first step has any), then runs
    /// the worker's cycle at `now`.
    pub async fn step(&self, now: OffsetDateTime) -> Result<StepReport, WorkerError> {
        let end = provider_data_end(now);
        // The first step fills the recent days; later ones add what arrived since.
        let replayed = self.replayed();
        let from = replayed
            .map_or_else(|| replay_start(now), |r| r.end)
            .min(end);
        let range = SlotRange::new(from, end);
        let points = self.replay.points(range);
        let store = self.store.clone();
        let reference = self.reference.clone();
        let config = self.worker.config().clone();
        let (stored, computed) = tokio::task::spawn_blocking(
            move || -> Result<(UpsertSummary, Option<ComputeSummary>), WorkerError> {
                let held = official_points(store.as_ref(), range)?;
                let new: Vec<InputPoint> = points
                    .into_iter()
                    .filter(|p| held.get(&(p.key.clone(), p.slot)) != Some(&p.mw))
                    .collect();
                if new.is_empty() {
                    return Ok((UpsertSummary::default(), None));
                }
                let stored = store.upsert_inputs(&new, now.unix_timestamp())?;
                // Gaps of the replayed slots before the cycle's window are estimated as after an
                // import (the cycle estimates its window), and the slots before those the cycle
                // seals and computes are computed here.
                let first = new.iter().map(|p| p.slot).min().unwrap_or(range.start);
                let window = Slot::containing(now).offset(-config.window_slots);
                if first < window {
                    fill_stored_gaps(&*store, &reference, &[SlotRange::new(first, window)], now)?;
                }
                let cycle_from = freeze_boundary(now).offset(-config.seal_slots);
                let computed = if first < cycle_from {
                    let older = [SlotRange::new(first, cycle_from.min(range.end))];
                    Some(
                        gridprint_compute::compute_ranges(
                            &*store,
                            &reference,
                            &older,
                            now,
                            &mut |_, _| {},
                        )
                        .map_err(|e| WorkerError::Compute(e.to_string()))?,
                    )
                } else {
                    None
                };
                Ok((stored, computed))
            },
        )
        .await
        .map_err(|e| WorkerError::Task(e.to_string()))??;
        let cycle = self.worker.run_cycle(now).await?;
        let start = replayed.map_or(range.start, |r| r.start);
        *self.progress.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(SlotRange::new(start, range.end.max(start)));
        Ok(StepReport {
            stored,
            replayed: Some(range),
            computed,
            cycle,
        })
    }

    /// Runs a step a few seconds ([`CYCLE_DELAY`]) after every quarter-hour boundary of `clock`
    /// until `shutdown`, handing each report to `report` (a failed step is logged and the next one
    /// runs as usual). Steps run only while this process holds the worker lease.
    pub async fn run(
        &self,
        clock: Arc<dyn Clock>,
        shutdown: CancellationToken,
        mut report: impl FnMut(&StepReport),
    ) {
        let mut standing_by = false;
        loop {
            let now = clock.now();
            let next = Slot::containing(now).offset(1).start() + CYCLE_DELAY;
            // Waits in short pieces: the wall clock may jump (a suspended machine, faketime).
            let wait = (next - now)
                .clamp(time::Duration::ZERO, time::Duration::minutes(1))
                .unsigned_abs();
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = shutdown.cancelled() => break,
            }
            if clock.now() < next {
                continue;
            }
            match self.leading().await {
                Ok(true) => standing_by = false,
                Ok(false) => {
                    if !standing_by {
                        tracing::info!(
                            "another worker leads this database; the demo replay stands by"
                        );
                        standing_by = true;
                    }
                    continue;
                }
                Err(e) => {
                    tracing::error!(error = %e, "cannot take the worker lease; retrying next quarter-hour");
                    continue;
                }
            }
            tokio::select! {
                r = self.step(clock.now()) => match r {
                    Ok(r) => report(&r),
                    Err(e) => tracing::error!(error = %e, "demo replay step failed; retrying next quarter-hour"),
                },
                () = shutdown.cancelled() => break,
            }
        }
    }
}
