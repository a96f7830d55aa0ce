//! gridprint-store: what gridprint keeps, independent of the database that keeps it.
//!
//! The [`Store`] trait groups raw inputs ([`InputStore`], with the TSOs' forecasts kept apart:
//! [`tso`]), derived outputs ([`DerivedStore`]), access control ([`AccessStore`]) and the forecast
//! archive with its accuracy ([`ForecastStore`]). Backends (SQLite embedded, PostgreSQL for
//! scale-out) implement it and run the same conformance suite (module `conformance`, feature
//! `testing`), so the engine, importers, worker and API never name a driver.
//! Methods are synchronous: callers on async runtimes use `spawn_blocking`; the API's hot paths are
//! served from memory and do not touch the store per request. [`Secret`] keeps the hashes of tokens
//! and keys (and the token service's passwords and tokens) out of `Debug` output.

pub mod access;
pub mod assumed;
#[cfg(feature = "testing")]
pub mod conformance;
pub mod forecast;
#[cfg(any(test, feature = "testing"))]
mod test_points;
pub mod tso;

pub use access::{
    AccessStore, AccountLimit, ApiKeyRow, GrantRow, KeyInsert, NewApiKey, TokenRecord,
};
pub use forecast::{AccuracyRow, ArchiveQuery, ArchivedForecast, ArchivedSeries, ForecastStore};
pub use gridprint_core::secret::Secret;
pub use tso::{PublishedForecast, StoredTsoForecast};

use gridprint_core::derived::DerivedDay;
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::quality::DataState;
use gridprint_core::slot::SlotRange;
use std::sync::Arc;

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or used (file unreadable or locked, server down).
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// The database holds something we cannot read.
    #[error("corrupt data: {0}")]
    Corrupt(String),
    /// A uniqueness rule was violated (e.g. registering twice).
    #[error("conflict: {0}")]
    Conflict(String),
    /// A write was attempted on a store opened read-only (`--read-only` replicas).
    #[error("read-only: {0}")]
    ReadOnly(String),
    /// Any other database error.
    #[error("database error: {0}")]
    Other(String),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// What an upsert of input points did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UpsertSummary {
    /// Points that were new.
    pub inserted: usize,
    /// Points whose value, state or datasource changed.
    pub updated: usize,
    /// Points identical to what was stored, or of lower quality than the stored point (a forecast never
    /// replaces an estimate, an estimate never replaces provider data).
    pub unchanged: usize,
}

impl std::ops::AddAssign for UpsertSummary {
    fn add_assign(&mut self, other: UpsertSummary) {
        self.inserted += other.inserted;
        self.updated += other.updated;
        self.unchanged += other.unchanged;
    }
}

/// Raw inputs: generation per zone, production type and slot; load; physical flows per direction.
pub trait InputStore {
    /// Inserts or updates points in one transaction. Re-writing identical points changes nothing
    /// (not even `updated_at`); a point never replaces one of better quality (lower `DataState`).
    /// One chunk of [`InputStore::upsert_input_chunks`].
    fn upsert_inputs(&self, points: &[InputPoint], updated_at: i64) -> Result<UpsertSummary> {
        self.upsert_input_chunks(&mut std::iter::once(Ok(points.to_vec())), updated_at)
    }

    /// Writes the chunks `chunks` yields, each as [`InputStore::upsert_inputs`] writes its points
    /// and in their order (a later chunk's point replaces an earlier one's by the same rule), all in
    /// ONE transaction: only the chunk being written is held in memory, and a chunk that is an
    /// error rolls every chunk back and is returned (an import whose last file is bad stores
    /// nothing). The input revision advances once for the whole call. Chunks are taken one at a
    /// time while the store holds its connection: keep producing them cheap to wait for.
    fn upsert_input_chunks(
        &self,
        chunks: &mut dyn Iterator<Item = Result<Vec<InputPoint>>>,
        updated_at: i64,
    ) -> Result<UpsertSummary>;

    /// All points whose slot lies in `range`, every zone, ordered by slot.
    fn inputs_in_range(&self, range: SlotRange) -> Result<Vec<StoredInput>>;

    /// The range spanned by all stored inputs, if any.
    fn input_extent(&self) -> Result<Option<SlotRange>>;

    /// The first UTC day number at or after `day` that holds a stored input (`None`: none after
    /// it), so that readers skip the empty stretches of the extent. The default answers `day`
    /// itself: correct, only without the skipping.
    fn next_input_day(&self, day: i64) -> Result<Option<i64>> {
        Ok(Some(day))
    }

    /// The input revision: a counter that [`InputStore::upsert_inputs`] advances by one in every
    /// call that inserts or updates a point, and gives to each UTC day it changed
    /// ([`DayRevision::revision`]). A run that counts its own changing upserts and reads this
    /// before and after knows whether anybody else wrote inputs meanwhile. The default (a store
    /// that keeps no revisions) is always 0.
    fn input_revision(&self) -> Result<i64> {
        Ok(0)
    }

    /// The revisions of the UTC days in `days` that have a row (a day gets one when an upsert
    /// changes it, or when it is settled), ordered by day. The default keeps none: every day is
    /// unsettled, and computes do all their work, as before revisions existed.
    fn day_revisions(&self, days: std::ops::Range<i64>) -> Result<Vec<DayRevision>> {
        let _ = days;
        Ok(Vec::new())
    }

    /// Records that the published outputs of `days` are final and follow their inputs as of input
    /// revision `revision` (`gridprint_pipeline::compute`, after a run that saw every write up to
    /// it). A day without a row gets one, with revision 0. The default records nothing.
    fn settle_days(&self, days: &[i64], revision: i64) -> Result<()> {
        let _ = (days, revision);
        Ok(())
    }

    /// Stores TSO forecasts ([`tso`]) in one transaction, apart from the actual inputs: no input
    /// point, input revision or day changes. Per row, [`tso::write_changes`] decides (a later
    /// revision replaces a value, an older publication never does); a value that is not finite and
    /// non-negative fails the whole call. `inserted` counts new rows, `updated` changed ones. The
    /// default (a store that keeps none) refuses.
    fn upsert_tso_forecasts(
        &self,
        forecasts: &[PublishedForecast],
        updated_at: i64,
    ) -> Result<UpsertSummary> {
        let _ = updated_at;
        if forecasts.is_empty() {
            return Ok(UpsertSummary::default());
        }
        Err(StoreError::Other(
            "this store keeps no TSO forecasts".into(),
        ))
    }

    /// The stored TSO forecasts of every zone whose slot lies in `range` and that were published
    /// before `published_before` (Unix seconds, exclusive), ordered by slot, series and kind. The
    /// default (a store that keeps none) has none.
    fn tso_forecasts_in_range(
        &self,
        range: SlotRange,
        published_before: i64,
    ) -> Result<Vec<StoredTsoForecast>> {
        let _ = (range, published_before);
        Ok(Vec::new())
    }
}

/// The input revision of one UTC day ([`InputStore::day_revisions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayRevision {
    pub day: i64,
    /// The input revision of the last upsert that changed a point of the day (0: none since the
    /// revisions came in, migration 0008).
    pub revision: i64,
    /// The input revision its published outputs were last settled at, if ever.
    pub settled: Option<i64>,
}

impl DayRevision {
    /// Whether the day's inputs did not change since its outputs were settled: a compute that
    /// keeps final slots has nothing to do for it.
    pub fn is_settled(&self) -> bool {
        self.settled.is_some_and(|s| s >= self.revision)
    }
}

/// How stores lay out an [`InputKey`] in three columns: `kind` (0 generation, 1 load, 2 flow), `zone`
/// (the exporting zone for flows) and `other` (production type, empty, or the importing zone).
pub fn key_columns(key: &InputKey) -> (i16, &str, &str) {
    match key {
        InputKey::Generation {
            zone,
            production_type,
        } => (0, zone.as_str(), production_type.as_str()),
        InputKey::Load { zone } => (1, zone.as_str(), ""),
        InputKey::Flow { from, to } => (2, from.as_str(), to.as_str()),
    }
}

/// Whether an upsert of `new` changes the stored point `(mw, state, datasource)` of its key: not
/// when the stored point is of better quality (a lower [`DataState`]), nor when it is identical.
/// The rule of [`InputStore::upsert_inputs`] (the SQLite and PostgreSQL stores state it in SQL).
pub fn upsert_changes(stored: (f64, DataState, &str), new: &InputPoint) -> bool {
    let (mw, state, datasource) = stored;
    !(state < new.state || (mw == new.mw && state == new.state && datasource == new.datasource))
}

/// [`key_columns`] of a point about to be stored; a non-finite value is refused.
pub fn storable_columns(p: &InputPoint) -> Result<(i16, &str, &str)> {
    if !p.mw.is_finite() {
        return Err(StoreError::Other(format!(
            "non-finite value for {:?} at {}",
            p.key, p.slot
        )));
    }
    Ok(key_columns(&p.key))
}

/// The inverse of [`key_columns`]; a row that fits no key is corrupt.
pub fn key_from_columns(kind: i16, zone: &str, other: &str) -> Result<InputKey> {
    use gridprint_core::production::ProductionType;
    use gridprint_core::zone::ZoneCode;
    let bad = || StoreError::Corrupt(format!("bad input key ({kind}, {zone}, {other})"));
    let zone = ZoneCode::parse(zone).ok_or_else(bad)?;
    Ok(match kind {
        0 => InputKey::Generation {
            zone,
            production_type: ProductionType::parse_api(other).ok_or_else(bad)?,
        },
        1 => InputKey::Load { zone },
        2 => InputKey::Flow {
            from: zone,
            to: ZoneCode::parse(other).ok_or_else(bad)?,
        },
        _ => return Err(bad()),
    })
}

/// The stored columns of a key ([`key_columns`]), owned.
type KeyColumns = (i16, Box<str>, Box<str>);

/// [`key_from_columns`] for the rows of one read: each distinct `(kind, zone, other)` is parsed once
/// and its key cloned for the rows after (a read of a day holds each key 96 times). Rows come
/// ordered by slot and key, so the key after the last one found is tried first.
#[derive(Debug, Default)]
pub struct KeyParser {
    /// Keys parsed so far, sorted by their columns.
    parsed: Vec<(KeyColumns, InputKey)>,
    /// Where the key after the last one found is.
    next: usize,
}

impl KeyParser {
    /// The key of a row's columns; a row that fits no key is corrupt.
    pub fn key(&mut self, kind: i16, zone: &str, other: &str) -> Result<InputKey> {
        let columns = (kind, zone, other);
        let at_next = self
            .parsed
            .get(self.next)
            .is_some_and(|((k, z, o), _)| (*k, &**z, &**o) == columns);
        let found = if at_next {
            Ok(self.next)
        } else {
            self.parsed
                .binary_search_by(|((k, z, o), _)| (*k, &**z, &**o).cmp(&columns))
        };
        let i = match found {
            Ok(i) => i,
            Err(i) => {
                let key = key_from_columns(kind, zone, other)?;
                self.parsed
                    .insert(i, ((kind, Box::from(zone), Box::from(other)), key));
                i
            }
        };
        self.next = i + 1;
        Ok(self.parsed[i].1.clone())
    }
}

/// An input point with its bookkeeping.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredInput {
    pub point: InputPoint,
    /// Unix seconds of the last change.
    pub updated_at: i64,
}

/// Derived outputs, one [`DerivedDay`] per zone and UTC day.
pub trait DerivedStore {
    /// Days whose day number lies in `days`, all zones, ordered by (day, zone).
    fn derived_days(&self, days: std::ops::Range<i64>) -> Result<Vec<DerivedDay>>;

    /// Replaces the given days (zone, day) in one transaction and bumps the data version. Empty days
    /// ([`DerivedDay::is_empty`]) are deleted.
    fn replace_derived_days(&self, days: &[DerivedDay]) -> Result<()> {
        let _claim = self.begin_staging()?;
        let run = new_run_id();
        self.stage_derived_days(run, days)?;
        self.commit_staged(run).map(|_| ())
    }

    /// Starts a staging run: when no other run holds the staging area, every staged row is left by a
    /// run that died before publishing (a killed import or compute) and is dropped; then the area is
    /// held, shared with other live runs, until the returned claim is dropped. The hold dies with
    /// the process (an OS file lock, a database session), so the next run clears what a killed one
    /// staged. Every run that stages holds a claim from before its first row to its commit or
    /// discard. The default (one process sees the store) holds nothing and drops nothing.
    fn begin_staging(&self) -> Result<StagingClaim> {
        Ok(Box::new(()))
    }

    /// Writes days into a staging area under `run`, invisible to readers. Long computations stage in
    /// batches (bounded memory), then publish everything at once with [`DerivedStore::commit_staged`].
    fn stage_derived_days(&self, run: i64, days: &[DerivedDay]) -> Result<()>;

    /// Publishes every day staged under `run` in one transaction (replacing stored days, deleting days
    /// without computed slots), bumps the data version and clears the staging area. Returns the number
    /// of days published. A crash before this leaves the published data untouched.
    fn commit_staged(&self, run: i64) -> Result<usize>;

    /// Drops what was staged under `run` (and any staging older than a day, left by crashed runs).
    fn discard_staged(&self, run: i64) -> Result<()>;

    /// A number that changes whenever derived data changes, so caches can poll cheaply.
    fn data_version(&self) -> Result<i64>;

    /// The zone-days whose last change (write or deletion) was published after data version
    /// `since`, with that version, ordered by (day, zone); `i64::MIN` lists every zone-day ever
    /// published. The answer is complete for `since >= floor` only (see [`DerivedChanges`]).
    /// The default is a store without a change log (floor `i64::MAX`): caches reload everything and
    /// entity tags follow the data version.
    fn derived_changes(&self, since: i64) -> Result<DerivedChanges> {
        let _ = since;
        Ok(DerivedChanges {
            floor: i64::MAX,
            changes: Vec::new(),
        })
    }
}

/// The change log of derived days since some version ([`DerivedStore::derived_changes`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DerivedChanges {
    /// The log is complete after this version: changes published at or before it may be missing
    /// (a database migrated with data records its days at the version of the migration). A cache
    /// built from a version older than the floor must reload everything.
    pub floor: i64,
    /// The changed zone-days, ordered by (day, zone).
    pub changes: Vec<DayChange>,
}

/// One zone-day and the data version of the publication that last wrote or deleted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayChange {
    pub day: i64,
    pub zone: String,
    pub version: i64,
}

/// A database URL (or key=value connection string) fit for errors and logs: the password of
/// `user:password@`, and every `password=` value (`?password=…`, `&sslpassword=…`,
/// `host=h password='…'`), replaced by `***`. The one redaction every message about a database
/// URL goes through.
pub fn redact_url(url: &str) -> String {
    let mut out = match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s && url[s + 3..at].contains(':') => {
            let user_end = s + 3 + url[s + 3..at].find(':').unwrap_or(0);
            format!("{}:***{}", &url[..user_end], &url[at..])
        }
        _ => url.to_string(),
    };
    let mut from = 0;
    while let Some(found) = out[from..].to_ascii_lowercase().find("password=") {
        let start = from + found + "password=".len();
        let rest = &out[start..];
        let len = if let Some(quoted) = rest.strip_prefix('\'') {
            quoted.find('\'').map_or(rest.len(), |e| e + 2)
        } else {
            rest.find(|c: char| c == '&' || c == '#' || c.is_whitespace())
                .unwrap_or(rest.len())
        };
        out.replace_range(start..start + len, "***");
        from = start + 3;
    }
    out
}

/// A fresh identifier for a staging run (time-based, unique enough within one database).
pub fn new_run_id() -> i64 {
    use std::sync::atomic::{AtomicI64, Ordering};
    static COUNTER: AtomicI64 = AtomicI64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0);
    (nanos & !0xfff)
        ^ (std::process::id() as i64 & 0xff) << 4
        ^ (COUNTER.fetch_add(1, Ordering::Relaxed) & 0xf)
}

/// A staging run's hold on the staging area ([`DerivedStore::begin_staging`]), released when dropped.
pub type StagingClaim = Box<dyn Send>;

/// Exclusive leadership of the worker, held until dropped (or until the process dies: the lock is tied
/// to a database connection or an OS file lock, so a killed leader releases it at once).
pub trait LeaderLease: Send {
    /// Whether this process still holds the lease; a worker checks it before every cycle.
    fn still_held(&mut self) -> bool;
}

/// Everything gridprint keeps.
pub trait Store: InputStore + DerivedStore + AccessStore + ForecastStore + Send + Sync {
    /// Tries to become the one leader `worker` of this database; `None` while another process leads.
    fn try_lead(&self) -> Result<Option<Box<dyn LeaderLease>>>;

    /// Whether the database answers (for `/v1/status/storage`).
    fn ping(&self) -> Result<()>;
    /// A short description without secrets, e.g. `sqlite:///path/gridprint.db`.
    fn describe(&self) -> String;
}

/// A shared handle on a store.
pub type SharedStore = Arc<dyn Store>;

#[cfg(test)]
mod tests {
    use super::{KeyParser, StoreError, key_from_columns};

    #[test]
    fn key_parser_gives_the_key_of_the_columns_each_time_and_refuses_a_bad_row() {
        let rows = [
            (0, "DE", "solar"),
            (2, "DE", "FR"),
            (1, "FR", ""),
            (0, "DE", "solar"),
            (0, "DE", "wind_onshore"),
            (2, "DE", "FR"),
            (0, "AT", "solar"),
        ];
        let mut keys = KeyParser::default();
        for (kind, zone, other) in rows {
            assert_eq!(
                keys.key(kind, zone, other).unwrap(),
                key_from_columns(kind, zone, other).unwrap()
            );
        }
        assert_eq!(keys.parsed.len(), 5);
        assert!(matches!(
            keys.key(0, "DE", "nuclear fusion"),
            Err(StoreError::Corrupt(_))
        ));
        assert!(matches!(
            keys.key(3, "DE", "solar"),
            Err(StoreError::Corrupt(_))
        ));
    }

    use super::redact_url;

    /// Issue #28 item 10: every form of a password in a database URL is redacted.
    #[test]
    fn database_urls_lose_every_password() {
        let cases = [
            ("postgres://u:secret@h/db", "postgres://u:***@h/db"),
            (
                "postgres://u@h/db?password=secret&sslmode=disable",
                "postgres://u@h/db?password=***&sslmode=disable",
            ),
            (
                "postgresql://h/db?sslmode=require&PASSWORD=secret",
                "postgresql://h/db?sslmode=require&PASSWORD=***",
            ),
            (
                "postgres://u:secret@h/db?sslpassword=other",
                "postgres://u:***@h/db?sslpassword=***",
            ),
            (
                "host=h user=u password=secret dbname=db",
                "host=h user=u password=*** dbname=db",
            ),
            ("host=h password='se cret' x=1", "host=h password=*** x=1"),
            ("sqlite://x.db", "sqlite://x.db"),
            ("postgres://u@h/db", "postgres://u@h/db"),
        ];
        for (url, redacted) in cases {
            assert_eq!(redact_url(url), redacted, "{url}");
            assert!(!redact_url(url).contains("secret"));
        }
    }
}
