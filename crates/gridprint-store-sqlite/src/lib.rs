//! gridprint-store-sqlite: the embedded default store, one SQLite file (`sqlite://gridprint.db`).
//!
//! WAL mode lets a worker write while `serve` reads; every import, compute and admin change is one
//! transaction, so a crash (even `kill -9`) leaves the previous state intact. Migrations live in
//! `migrations/` and are applied in order at open, tracked with SQLite's `user_version`.

mod access;
mod forecast;

use gridprint_core::derived::DerivedDay;
use gridprint_core::inputs::InputPoint;
use gridprint_core::quality::DataState;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use gridprint_store::{
    DayChange, DayRevision, DerivedChanges, DerivedStore, InputStore, KeyParser, PublishedForecast,
    Result, Store, StoreError, StoredInput, StoredTsoForecast, UpsertSummary, storable_columns,
};
use gridprint_store::{assumed, tso};
use rusqlite::{Connection, OpenFlags, params};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_inputs_and_derived.sql"),
    include_str!("../migrations/0002_access.sql"),
    include_str!("../migrations/0003_account_limits.sql"),
    include_str!("../migrations/0004_derived_change.sql"),
    include_str!("../migrations/0005_registration_code.sql"),
    include_str!("../migrations/0006_api_keys.sql"),
    include_str!("../migrations/0007_estimation_datasource.sql"),
    include_str!("../migrations/0008_input_day.sql"),
    include_str!("../migrations/0009_assumed_flow.sql"),
    include_str!("../migrations/0010_tso_forecast.sql"),
    include_str!("../migrations/0011_forecast_archive.sql"),
    include_str!("../migrations/0012_api_key_cap.sql"),
];

/// First and last input slot. Two subqueries, not `SELECT MIN(slot), MAX(slot)`: SQLite answers a
/// lone `MIN`/`MAX` from the primary key's first column, but a query with both scans the whole table
/// (seconds on ten years of inputs), and the API's storage check runs this every refresh interval.
const INPUT_EXTENT_SQL: &str =
    "SELECT (SELECT MIN(slot) FROM input_point), (SELECT MAX(slot) FROM input_point)";

/// The SQLite store. One connection behind a mutex: the API serves from memory, so the store sees
/// little contention; separate processes coordinate through SQLite's own locking.
pub struct SqliteStore {
    conn: Mutex<Connection>,
    path: Option<PathBuf>,
}

/// Every row `sql` answers with `params`, each read by `read`, in order (the statement is cached).
pub(crate) fn query_rows<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    read: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<T>> {
    let mut st = conn.prepare_cached(sql).map_err(map_err)?;
    let rows = st.query_map(params, read).map_err(map_err)?;
    rows.collect::<rusqlite::Result<Vec<T>>>().map_err(map_err)
}

pub(crate) fn map_err(e: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode::*;
    match e.sqlite_error_code() {
        // SQLite reports ENOSPC while growing its shared-memory index as a generic I/O error.
        Some(SystemIoFailure) => StoreError::Unavailable(format!(
            "{e} (the disk may be full, failing or not writable)"
        )),
        Some(DatabaseBusy | DatabaseLocked | CannotOpen | PermissionDenied | DiskFull) => {
            StoreError::Unavailable(e.to_string())
        }
        Some(ReadOnly) => StoreError::ReadOnly(e.to_string()),
        Some(DatabaseCorrupt | NotADatabase) => StoreError::Corrupt(e.to_string()),
        Some(ConstraintViolation) => StoreError::Conflict(e.to_string()),
        _ => StoreError::Other(e.to_string()),
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(map_err)?;
        Self::init(conn, Some(path.to_path_buf()))
    }

    /// Opens an existing, migrated database for reading only (`--read-only` replicas): every write
    /// fails with [`StoreError::ReadOnly`] and nothing is migrated.
    pub fn open_read_only(path: &Path) -> Result<SqliteStore> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(map_err)?;
        conn.busy_timeout(Duration::from_secs(10))
            .map_err(map_err)?;
        conn.pragma_update(None, "query_only", "ON")
            .map_err(map_err)?;
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(map_err)?;
        if version as usize != MIGRATIONS.len() {
            return Err(StoreError::Other(format!(
                "database schema version {version}, this gridprint needs {}: run `gridprint migrate` on a writable process first",
                MIGRATIONS.len()
            )));
        }
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            path: Some(path.to_path_buf()),
        })
    }

    /// An in-memory database (tests).
    pub fn open_in_memory() -> Result<SqliteStore> {
        Self::init(Connection::open_in_memory().map_err(map_err)?, None)
    }

    /// Opens from a URL `sqlite://PATH`, `sqlite:PATH` or `sqlite::memory:`, read-only if asked.
    pub fn open_url_with(url: &str, read_only: bool) -> Result<SqliteStore> {
        if !read_only {
            return Self::open_url(url);
        }
        let rest = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .ok_or_else(|| StoreError::Other(format!("not a sqlite URL: {url}")))?;
        if rest == ":memory:" || rest.is_empty() {
            return Err(StoreError::Other(
                "an in-memory database cannot be read-only".into(),
            ));
        }
        Self::open_read_only(Path::new(rest))
    }

    /// Opens from a URL `sqlite://PATH`, `sqlite:PATH` or `sqlite::memory:`.
    pub fn open_url(url: &str) -> Result<SqliteStore> {
        let rest = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .ok_or_else(|| StoreError::Other(format!("not a sqlite URL: {url}")))?;
        if rest == ":memory:" || rest.is_empty() {
            return Self::open_in_memory();
        }
        Self::open(Path::new(rest))
    }

    fn init(conn: Connection, path: Option<PathBuf>) -> Result<SqliteStore> {
        conn.busy_timeout(Duration::from_secs(10))
            .map_err(map_err)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(map_err)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(map_err)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(map_err)?;
        let store = SqliteStore {
            conn: Mutex::new(conn),
            path,
        };
        store.migrate()?;
        Ok(store)
    }

    /// Applies migrations not yet applied, each in its own transaction, and says so in one log line.
    pub fn migrate(&self) -> Result<()> {
        let mut conn = self.lock();
        let current: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(map_err)?;
        if current as usize > MIGRATIONS.len() {
            return Err(StoreError::Other(format!(
                "database schema version {current} is newer than this gridprint ({}); upgrade gridprint",
                MIGRATIONS.len()
            )));
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
            let tx = conn.transaction().map_err(map_err)?;
            tx.execute_batch(sql).map_err(map_err)?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)
                .map_err(map_err)?;
            tx.commit().map_err(map_err)?;
        }
        if (current as usize) < MIGRATIONS.len() {
            tracing::info!(
                from = current + 1,
                to = MIGRATIONS.len(),
                "applied sqlite migrations"
            );
        }
        Ok(())
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl InputStore for SqliteStore {
    fn upsert_input_chunks(
        &self,
        chunks: &mut dyn Iterator<Item = Result<Vec<InputPoint>>>,
        updated_at: i64,
    ) -> Result<UpsertSummary> {
        let mut conn = self.lock();
        // Dropped without commit (a chunk that is an error, a failed write), it rolls back.
        let tx = conn.transaction().map_err(map_err)?;
        let mut summary = UpsertSummary::default();
        let mut changed_days: Vec<i64> = Vec::new();
        for chunk in chunks {
            summary += write_input_chunk(&tx, &chunk?, updated_at, &mut changed_days)?;
            changed_days.sort_unstable();
            changed_days.dedup();
        }
        if !changed_days.is_empty() {
            mark_changed_days(&tx, changed_days)?;
        }
        tx.commit().map_err(map_err)?;
        Ok(summary)
    }

    fn input_revision(&self) -> Result<i64> {
        meta_value(&self.lock(), "input_revision")
    }

    fn day_revisions(&self, days: std::ops::Range<i64>) -> Result<Vec<DayRevision>> {
        query_rows(
            &self.lock(),
            "SELECT day, revision, settled FROM input_day WHERE day >= ?1 AND day < ?2 ORDER BY day",
            params![days.start, days.end],
            |r| {
                Ok(DayRevision {
                    day: r.get(0)?,
                    revision: r.get(1)?,
                    settled: r.get(2)?,
                })
            },
        )
    }

    fn settle_days(&self, days: &[i64], revision: i64) -> Result<()> {
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(map_err)?;
        {
            let mut put = tx
                .prepare_cached(
                    "INSERT INTO input_day (day, revision, settled) VALUES (?1, 0, ?2)
                     ON CONFLICT (day) DO UPDATE SET settled = excluded.settled",
                )
                .map_err(map_err)?;
            for day in days {
                put.execute(params![day, revision]).map_err(map_err)?;
            }
        }
        tx.commit().map_err(map_err)
    }

    fn inputs_in_range(&self, range: SlotRange) -> Result<Vec<StoredInput>> {
        let conn = self.lock();
        let mut st = conn
            .prepare_cached(
                "SELECT slot, kind, zone, other, mw, data_state, datasource, updated_at
                 FROM input_point WHERE slot >= ?1 AND slot < ?2 ORDER BY slot, kind, zone, other",
            )
            .map_err(map_err)?;
        let mut rows = st
            .query(params![range.start.0, range.end.0])
            .map_err(map_err)?;
        let mut keys = KeyParser::default();
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(map_err)? {
            // Zone and type are read as borrowed text: most rows repeat a key already parsed.
            let text = |i: usize| -> Result<&str> {
                r.get_ref(i)
                    .map_err(map_err)?
                    .as_str()
                    .map_err(|e| StoreError::Corrupt(format!("input column {i}: {e}")))
            };
            let kind = r.get::<_, i64>(1).map_err(map_err)?;
            let key = keys.key(kind as i16, text(2)?, text(3)?)?;
            let state = r.get::<_, i64>(5).map_err(map_err)?;
            let state = DataState::from_u8(state as u8)
                .ok_or_else(|| StoreError::Corrupt(format!("bad data_state {state}")))?;
            out.push(StoredInput {
                point: InputPoint {
                    key,
                    slot: Slot(r.get::<_, i64>(0).map_err(map_err)?),
                    mw: r.get::<_, f64>(4).map_err(map_err)?,
                    state,
                    datasource: r.get::<_, String>(6).map_err(map_err)?,
                },
                updated_at: r.get::<_, i64>(7).map_err(map_err)?,
            });
        }
        drop(rows);
        let flows_assumed = assumed_days(&conn, assumed::days_of(range))?;
        Ok(assumed::merge(out, &flows_assumed, range))
    }

    fn input_extent(&self) -> Result<Option<SlotRange>> {
        let conn = self.lock();
        let (min, max): (Option<i64>, Option<i64>) = conn
            .query_row(INPUT_EXTENT_SQL, [], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(map_err)?;
        Ok(match (min, max) {
            (Some(a), Some(b)) => Some(SlotRange::new(Slot(a), Slot(b + 1))),
            _ => None,
        })
    }

    fn upsert_tso_forecasts(
        &self,
        forecasts: &[PublishedForecast],
        updated_at: i64,
    ) -> Result<UpsertSummary> {
        let rows = tso::last_per_row(forecasts)?;
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(map_err)?;
        let mut summary = UpsertSummary::default();
        {
            // Insert a new row; else update where gridprint_store::tso::write_changes says so.
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO tso_forecast (slot, kind, zone, other, forecast, mw, published_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                     ON CONFLICT (slot, kind, zone, other, forecast) DO NOTHING",
                )
                .map_err(map_err)?;
            let mut update = tx
                .prepare_cached(
                    "UPDATE tso_forecast SET mw = ?6, published_at = ?7, updated_at = ?8
                     WHERE slot = ?1 AND kind = ?2 AND zone = ?3 AND other = ?4 AND forecast = ?5
                       AND ((mw <> ?6 AND published_at <= ?7) OR (mw = ?6 AND published_at > ?7))",
                )
                .map_err(map_err)?;
            for f in rows {
                let (slot, kind, zone, other, forecast) = tso::storable(f)?;
                let row = params![
                    slot,
                    kind,
                    zone,
                    other,
                    forecast,
                    f.point.mw,
                    f.published_at,
                    updated_at
                ];
                if insert.execute(row).map_err(map_err)? == 1 {
                    summary.inserted += 1;
                } else if update.execute(row).map_err(map_err)? == 1 {
                    summary.updated += 1;
                }
            }
        }
        tx.commit().map_err(map_err)?;
        summary.unchanged = forecasts.len() - summary.inserted - summary.updated;
        Ok(summary)
    }

    fn tso_forecasts_in_range(
        &self,
        range: SlotRange,
        published_before: i64,
    ) -> Result<Vec<StoredTsoForecast>> {
        let conn = self.lock();
        let mut st = conn
            .prepare_cached(
                "SELECT slot, kind, zone, other, forecast, mw, published_at, updated_at
                 FROM tso_forecast WHERE slot >= ?1 AND slot < ?2 AND published_at < ?3
                 ORDER BY slot, kind, zone, other, forecast",
            )
            .map_err(map_err)?;
        let mut rows = st
            .query(params![range.start.0, range.end.0, published_before])
            .map_err(map_err)?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(map_err)? {
            let text = |i: usize| -> Result<&str> {
                r.get_ref(i)
                    .map_err(map_err)?
                    .as_str()
                    .map_err(|e| StoreError::Corrupt(format!("tso_forecast column {i}: {e}")))
            };
            let int = |i: usize| r.get::<_, i64>(i).map_err(map_err);
            out.push(tso::from_row(
                int(0)?,
                int(1)? as i16,
                text(2)?,
                text(3)?,
                int(4)? as i16,
                r.get::<_, f64>(5).map_err(map_err)?,
                int(6)?,
                int(7)?,
            )?);
        }
        Ok(out)
    }

    fn next_input_day(&self, day: i64) -> Result<Option<i64>> {
        let conn = self.lock();
        let slot: Option<i64> = conn
            .query_row(
                "SELECT MIN(slot) FROM input_point WHERE slot >= ?1",
                [Slot::first_of_day(day).0],
                |r| r.get(0),
            )
            .map_err(map_err)?;
        Ok(slot.map(|s| Slot(s).day()))
    }
}

impl DerivedStore for SqliteStore {
    fn derived_days(&self, days: std::ops::Range<i64>) -> Result<Vec<DerivedDay>> {
        let payloads = query_rows(
            &self.lock(),
            "SELECT payload FROM derived_day WHERE day >= ?1 AND day < ?2 ORDER BY day, zone",
            params![days.start, days.end],
            |r| r.get::<_, Vec<u8>>(0),
        )?;
        payloads
            .iter()
            .map(|bytes| DerivedDay::decode(bytes).map_err(|e| StoreError::Corrupt(e.to_string())))
            .collect()
    }

    /// The hold is a shared OS lock on `<database>.stage.lock`; a run that gets the exclusive lock
    /// first knows no other run is alive and clears the staging area.
    fn begin_staging(&self) -> Result<gridprint_store::StagingClaim> {
        let Some(file) = self.lock_file(".stage.lock")? else {
            return Ok(Box::new(()));
        };
        let io = |e: std::io::Error| StoreError::Unavailable(format!("staging lock: {e}"));
        match file.try_lock() {
            Ok(()) => {
                let cleared = self.lock().execute("DELETE FROM derived_stage", []);
                file.unlock().map_err(io)?;
                cleared.map_err(map_err)?;
            }
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        file.lock_shared().map_err(io)?;
        Ok(Box::new(file))
    }

    fn stage_derived_days(&self, run: i64, days: &[DerivedDay]) -> Result<()> {
        let now = time_now();
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(map_err)?;
        {
            let mut put = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO derived_stage (run, day, zone, payload, staged_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(map_err)?;
            for d in days {
                let payload = (!d.is_empty()).then(|| d.encode());
                put.execute(params![run, d.day, d.zone.as_str(), payload, now])
                    .map_err(map_err)?;
            }
        }
        tx.commit().map_err(map_err)
    }

    fn commit_staged(&self, run: i64) -> Result<usize> {
        let now = time_now();
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(map_err)?;
        tx.execute(
            "INSERT INTO derived_day (day, zone, payload, updated_at)
             SELECT day, zone, payload, ?2 FROM derived_stage WHERE run = ?1 AND payload IS NOT NULL
             ON CONFLICT (day, zone) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at",
            params![run, now],
        )
        .map_err(map_err)?;
        tx.execute(
            "DELETE FROM derived_day WHERE (day, zone) IN
             (SELECT day, zone FROM derived_stage WHERE run = ?1 AND payload IS NULL)",
            params![run],
        )
        .map_err(map_err)?;
        // The new version, and the zone-days it changed (written or deleted), in the change log.
        tx.execute(
            "UPDATE meta SET value = value + 1 WHERE key = 'data_version'
             AND EXISTS (SELECT 1 FROM derived_stage WHERE run = ?1)",
            params![run],
        )
        .map_err(map_err)?;
        tx.execute(
            "INSERT INTO derived_change (day, zone, version)
             SELECT day, zone, (SELECT value FROM meta WHERE key = 'data_version')
             FROM derived_stage WHERE run = ?1
             ON CONFLICT (day, zone) DO UPDATE SET version = excluded.version",
            params![run],
        )
        .map_err(map_err)?;
        let staged = tx
            .execute("DELETE FROM derived_stage WHERE run = ?1", params![run])
            .map_err(map_err)?;
        tx.commit().map_err(map_err)?;
        Ok(staged)
    }

    fn discard_staged(&self, run: i64) -> Result<()> {
        let conn = self.lock();
        conn.execute(
            "DELETE FROM derived_stage WHERE run = ?1 OR staged_at < ?2",
            params![run, time_now() - 86_400],
        )
        .map(|_| ())
        .map_err(map_err)
    }

    fn data_version(&self) -> Result<i64> {
        meta_value(&self.lock(), "data_version")
    }

    fn derived_changes(&self, since: i64) -> Result<DerivedChanges> {
        let conn = self.lock();
        let floor = meta_value(&conn, "derived_change_floor")?;
        let changes = query_rows(
            &conn,
            "SELECT day, zone, version FROM derived_change WHERE version > ?1 ORDER BY day, zone",
            params![since],
            |r| {
                Ok(DayChange {
                    day: r.get(0)?,
                    zone: r.get(1)?,
                    version: r.get(2)?,
                })
            },
        )?;
        Ok(DerivedChanges { floor, changes })
    }
}

pub(crate) fn time_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Leadership on SQLite: an OS lock on `<database>.worker.lock` beside the database file.
struct FileLease(#[allow(dead_code)] std::fs::File);

impl gridprint_store::LeaderLease for FileLease {
    fn still_held(&mut self) -> bool {
        true
    }
}

/// Leadership of an in-memory database: only one process can see it, so it always leads.
struct ProcessLease;

impl gridprint_store::LeaderLease for ProcessLease {
    fn still_held(&mut self) -> bool {
        true
    }
}

impl SqliteStore {
    /// The file `<database><suffix>` beside the database, opened for OS locks; `None` in memory.
    fn lock_file(&self, suffix: &str) -> Result<Option<std::fs::File>> {
        let Some(path) = &self.path else {
            return Ok(None);
        };
        let mut lock_path = path.clone().into_os_string();
        lock_path.push(suffix);
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map(Some)
            .map_err(|e| {
                StoreError::Unavailable(format!(
                    "cannot open {}: {e}",
                    std::path::Path::new(&lock_path).display()
                ))
            })
    }
}

impl Store for SqliteStore {
    fn try_lead(&self) -> Result<Option<Box<dyn gridprint_store::LeaderLease>>> {
        let Some(file) = self.lock_file(".worker.lock")? else {
            return Ok(Some(Box::new(ProcessLease)));
        };
        match file.try_lock() {
            Ok(()) => Ok(Some(Box::new(FileLease(file)))),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(StoreError::Unavailable(e.to_string())),
        }
    }

    fn ping(&self) -> Result<()> {
        meta_value(&self.lock(), "data_version").map(|_| ())
    }

    fn describe(&self) -> String {
        match &self.path {
            Some(p) => format!("sqlite://{}", p.display()),
            None => "sqlite::memory:".into(),
        }
    }
}

/// The number kept under `key` in the `meta` table (`data_version`, `derived_change_floor`,
/// `input_revision`).
fn meta_value(conn: &Connection, key: &str) -> Result<i64> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .map_err(map_err)
}

/// Advances the input revision and gives it to `days` (an upsert that changed them), inside the
/// upsert's transaction.
/// The rows of `assumed_flow` whose day lies in `days` (inclusive), each with its `updated_at`.
fn assumed_days(conn: &Connection, days: (i64, i64)) -> Result<Vec<(assumed::AssumedDay, i64)>> {
    let mut st = conn
        .prepare_cached(
            "SELECT day, zone, other, slots_lo, slots_hi, updated_at FROM assumed_flow
             WHERE day >= ?1 AND day <= ?2",
        )
        .map_err(map_err)?;
    let mut rows = st.query(params![days.0, days.1]).map_err(map_err)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next().map_err(map_err)? {
        let zone = |i: usize| -> Result<ZoneCode> {
            let text: String = r.get(i).map_err(map_err)?;
            ZoneCode::parse(&text)
                .ok_or_else(|| StoreError::Corrupt(format!("bad zone {text:?} in assumed_flow")))
        };
        out.push((
            assumed::AssumedDay {
                day: r.get(0).map_err(map_err)?,
                from: zone(1)?,
                to: zone(2)?,
                mask: assumed::AssumedDay::mask_of(
                    r.get(3).map_err(map_err)?,
                    r.get(4).map_err(map_err)?,
                ),
            },
            r.get(5).map_err(map_err)?,
        ));
    }
    Ok(out)
}

/// Writes one chunk of [`InputStore::upsert_input_chunks`] in `tx` and adds the UTC days it
/// changed to `changed_days`. The points go in in primary-key order (slot first), so that a chunk
/// of a month's file fills the table's pages one after the other instead of revisiting every
/// page of the month once per series.
fn write_input_chunk(
    tx: &rusqlite::Transaction<'_>,
    points: &[InputPoint],
    updated_at: i64,
    changed_days: &mut Vec<i64>,
) -> Result<UpsertSummary> {
    let mut summary = UpsertSummary::default();
    let mut rows = Vec::with_capacity(points.len());
    for p in points.iter().filter(|p| !assumed::is_assumed(p)) {
        rows.push((p.slot.0, storable_columns(p)?, p));
    }
    // Stable: two points of one key and slot keep their order (the later one is written last).
    rows.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    {
        // A new key is inserted by the first statement (one lookup, the common case of a
        // first import and of the flows a compute assumes 0 MW); an existing one is updated by
        // the second only where `gridprint_store::upsert_changes` says so, stated in SQL as
        // PostgreSQL's store does (columns are NOT NULL, values finite).
        let mut insert = tx
            .prepare_cached(
                "INSERT INTO input_point (slot, kind, zone, other, mw, data_state, datasource, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (slot, kind, zone, other) DO NOTHING",
            )
            .map_err(map_err)?;
        let mut update = tx
            .prepare_cached(
                "UPDATE input_point SET mw = ?5, data_state = ?6, datasource = ?7, updated_at = ?8
                 WHERE slot = ?1 AND kind = ?2 AND zone = ?3 AND other = ?4
                   AND data_state >= ?6 AND (mw, data_state, datasource) IS NOT (?5, ?6, ?7)",
            )
            .map_err(map_err)?;
        for (slot, (kind, zone, other), p) in rows {
            let row = params![
                slot,
                kind,
                zone,
                other,
                p.mw,
                p.state as i64,
                p.datasource,
                updated_at
            ];
            if insert.execute(row).map_err(map_err)? == 1 {
                summary.inserted += 1;
            } else if update.execute(row).map_err(map_err)? == 1 {
                summary.updated += 1;
            } else {
                summary.unchanged += 1;
                continue;
            }
            if changed_days.last() != Some(&p.slot.day()) {
                changed_days.push(p.slot.day());
            }
        }
    }
    let read = |days| -> Result<Vec<assumed::AssumedDay>> {
        Ok(assumed_days(tx, days)?
            .into_iter()
            .map(|(a, _)| a)
            .collect())
    };
    if let Some(write) = assumed::plan_batch(points, read)? {
        let mut put = tx
            .prepare_cached(
                "INSERT INTO assumed_flow (day, zone, other, slots_lo, slots_hi, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (day, zone, other) DO UPDATE SET slots_lo = excluded.slots_lo,
                   slots_hi = excluded.slots_hi, updated_at = excluded.updated_at",
            )
            .map_err(map_err)?;
        for a in &write.rows {
            let (lo, hi) = a.columns();
            put.execute(params![
                a.day,
                a.from.as_str(),
                a.to.as_str(),
                lo,
                hi,
                updated_at
            ])
            .map_err(map_err)?;
        }
        summary.inserted += write.inserted;
        summary.unchanged += write.unchanged;
        changed_days.extend(write.days);
    }
    Ok(summary)
}

fn mark_changed_days(tx: &rusqlite::Transaction<'_>, mut days: Vec<i64>) -> Result<()> {
    days.sort_unstable();
    days.dedup();
    let revision: i64 = tx
        .query_row(
            "UPDATE meta SET value = value + 1 WHERE key = 'input_revision' RETURNING value",
            [],
            |r| r.get(0),
        )
        .map_err(map_err)?;
    let mut put = tx
        .prepare_cached(
            "INSERT INTO input_day (day, revision) VALUES (?1, ?2)
             ON CONFLICT (day) DO UPDATE SET revision = excluded.revision",
        )
        .map_err(map_err)?;
    for day in days {
        put.execute(params![day, revision]).map_err(map_err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The storage check's extent query reads the primary key's ends, never the whole table.
    #[test]
    fn input_extent_does_not_scan_the_table() {
        let store = SqliteStore::open_in_memory().unwrap();
        let conn = store.lock();
        let plan_of = |sql: &str| -> Vec<String> {
            let mut st = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            st.query_map([], |r| r.get::<_, String>(3))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap()
        };
        let plan = plan_of(INPUT_EXTENT_SQL);
        assert!(!plan.is_empty());
        for step in &plan {
            assert!(
                !step.starts_with("SCAN input_point"),
                "full scan in the extent query's plan: {plan:?}"
            );
        }
        let naive = plan_of("SELECT MIN(slot), MAX(slot) FROM input_point");
        assert!(
            naive.iter().any(|s| s.starts_with("SCAN input_point")),
            "the check above would not see a scan: {naive:?}"
        );
    }

    /// Migration 0005 renames the stored datasources of estimates and forecasts written before it,
    /// and leaves provider names alone.
    #[test]
    fn estimation_datasources_are_renamed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.db");
        {
            let mut conn = Connection::open(&path).unwrap();
            for (i, sql) in MIGRATIONS.iter().take(4).enumerate() {
                let tx = conn.transaction().unwrap();
                tx.execute_batch(sql).unwrap();
                tx.pragma_update(None, "user_version", (i + 1) as i64)
                    .unwrap();
                tx.commit().unwrap();
            }
            for (slot, ds) in [
                (0, "ENTSO-E"),
                (1, "gridprint-estimation:linear"),
                (2, "gridprint-estimation:assumed-zero"),
                (3, "gridprint-forecast:seasonal-blend"),
            ] {
                conn.execute(
                    "INSERT INTO input_point VALUES (?1, 0, 'DE', 'solar', 1.0, 1, ?2, 0)",
                    rusqlite::params![slot, ds],
                )
                .unwrap();
            }
        }
        let store = SqliteStore::open(&path).unwrap();
        let conn = store.lock();
        let names: Vec<String> = conn
            .prepare("SELECT datasource FROM input_point ORDER BY slot")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            names,
            [
                "ENTSO-E",
                "wattnet-hybrid-estimation:gridprint-linear",
                "wattnet-hybrid-estimation:gridprint-assumed-zero",
                "wattnet-hybrid-estimation:gridprint-seasonal-blend",
            ]
        );
    }
}
