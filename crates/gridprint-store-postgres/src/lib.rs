//! gridprint-store-postgres: the scale-out store. Several `serve` replicas and one leader `worker`
//! share one PostgreSQL database through it.
//!
//! It implements the same traits as the SQLite store and passes the same conformance suite. Bulk input
//! writes go through binary `COPY` into a temporary table and one `INSERT … ON CONFLICT` that never
//! replaces better-quality data; long computations stage derived days and publish them in one
//! transaction. Calls are blocking (the `postgres` client): async callers use `spawn_blocking`.
//! Migrations in `migrations/` are applied in order under an advisory lock, tracked in
//! `schema_migrations`.

mod access;
mod forecast;
#[cfg(feature = "testing")]
pub mod testing;

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
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;
use postgres::{Config, GenericClient, NoTls};
use r2d2_postgres::PostgresConnectionManager;
use std::collections::HashMap;
use std::time::Duration;

type Pool = r2d2::Pool<PostgresConnectionManager<NoTls>>;
pub(crate) type Conn = r2d2::PooledConnection<PostgresConnectionManager<NoTls>>;

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

/// Advisory lock key under which migrations run (so concurrent starts don't race).
const MIGRATION_LOCK: i64 = 0x6772_6964_7072_0001;

/// The PostgreSQL store: a small connection pool (`None` only while it is dropped).
pub struct PgStore {
    pool: Option<Pool>,
    described: String,
}

/// Runs `f` on a thread of its own and waits for its result. The `postgres` client blocks on a
/// runtime of its own for every query and when it closes a connection, which panics on a thread
/// already running a tokio runtime ("Cannot start a runtime from within a runtime"): an async
/// task, or the end of `serve`'s and `worker`'s `block_on` at SIGTERM. So the store and the leader
/// lease close their connections there, wherever they are dropped, and the lease checks itself
/// there (the worker asks from its async loop).
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        s.spawn(f)
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

impl Drop for PgStore {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.take() {
            off_runtime(move || drop(pool));
        }
    }
}

pub(crate) fn map_err(e: postgres::Error) -> StoreError {
    if let Some(db) = e.as_db_error() {
        let code = db.code().code();
        return match &code[..2] {
            "23" => StoreError::Conflict(db.message().to_string()),
            "25" if code == "25006" => StoreError::ReadOnly(db.message().to_string()),
            "08" | "53" | "57" => StoreError::Unavailable(db.message().to_string()),
            _ => StoreError::Other(format!("{}: {}", code, db.message())),
        };
    }
    if e.is_closed() || e.to_string().contains("connect") || e.to_string().contains("timed out") {
        StoreError::Unavailable(e.to_string())
    } else {
        StoreError::Other(e.to_string())
    }
}

fn pool_err(e: r2d2::Error) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

/// The highest applied migration (0 before the first).
fn schema_version(c: &mut postgres::Client) -> Result<i32> {
    Ok(c.query_one(
        "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
        &[],
    )
    .map_err(map_err)?
    .get(0))
}

impl PgStore {
    /// Connects (pool of up to `max_connections`) and applies pending migrations.
    pub fn connect(url: &str, max_connections: u32) -> Result<PgStore> {
        Self::connect_with(url, max_connections, false)
    }

    /// Connects; with `read_only` every session runs with `default_transaction_read_only`, so the
    /// server itself refuses writes ([`StoreError::ReadOnly`]), and nothing is migrated (the schema
    /// must be current).
    pub fn connect_with(url: &str, max_connections: u32, read_only: bool) -> Result<PgStore> {
        let mut config: Config = url
            .parse()
            .map_err(|e: postgres::Error| StoreError::Other(format!("bad PostgreSQL URL: {e}")))?;
        config.connect_timeout(Duration::from_secs(5));
        if config.get_application_name().is_none() {
            config.application_name("gridprint");
        }
        // Notices (`relation … already exists, skipping` from the idempotent CREATE … IF NOT
        // EXISTS statements) are not news for the operator: only warnings and errors are sent.
        let mut options = format!(
            "{} -c client_min_messages=warning",
            config.get_options().unwrap_or("")
        );
        if read_only {
            options.push_str(" -c default_transaction_read_only=on");
        }
        config.options(options.trim());
        // One direct connection first, so a wrong database or role is reported as such (the pool only
        // says it timed out).
        config.connect(NoTls).map_err(|e| match e.as_db_error() {
            Some(db) => StoreError::Unavailable(db.message().to_string()),
            None => StoreError::Unavailable(e.to_string()),
        })?;
        let manager = PostgresConnectionManager::new(config, NoTls);
        let pool = r2d2::Pool::builder()
            .max_size(max_connections.max(1))
            .min_idle(Some(0))
            .connection_timeout(Duration::from_secs(5))
            .error_handler(Box::new(r2d2::NopErrorHandler))
            .build(manager)
            .map_err(pool_err)?;
        let store = PgStore {
            pool: Some(pool),
            described: gridprint_store::redact_url(url),
        };
        if read_only {
            let current = schema_version(&mut *store.conn()?)?;
            if current as usize != MIGRATIONS.len() {
                return Err(StoreError::Other(format!(
                    "database schema version {current}, this gridprint needs {}: run `gridprint migrate` on a writable process first",
                    MIGRATIONS.len()
                )));
            }
        } else {
            store.migrate()?;
        }
        Ok(store)
    }

    pub(crate) fn conn(&self) -> Result<Conn> {
        let pool = self
            .pool
            .as_ref()
            .ok_or_else(|| StoreError::Unavailable("the PostgreSQL store is closed".into()))?;
        pool.get().map_err(pool_err)
    }

    /// Every row `sql` answers with `params`, on a connection of the pool.
    pub(crate) fn rows(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<postgres::Row>> {
        self.conn()?.query(sql, params).map_err(map_err)
    }

    /// Applies migrations not yet applied, each in its own transaction, under an advisory lock.
    pub fn migrate(&self) -> Result<()> {
        let mut c = self.conn()?;
        c.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
            .map_err(map_err)?;
        let result = (|| {
            c.batch_execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
                .map_err(map_err)?;
            let current = schema_version(&mut c)?;
            if current as usize > MIGRATIONS.len() {
                return Err(StoreError::Other(format!(
                    "database schema version {current} is newer than this gridprint ({}); upgrade gridprint",
                    MIGRATIONS.len()
                )));
            }
            for (i, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
                let mut tx = c.transaction().map_err(map_err)?;
                tx.batch_execute(sql).map_err(map_err)?;
                tx.execute(
                    "INSERT INTO schema_migrations (version) VALUES ($1)",
                    &[&((i + 1) as i32)],
                )
                .map_err(map_err)?;
                tx.commit().map_err(map_err)?;
            }
            if (current as usize) < MIGRATIONS.len() {
                tracing::info!(
                    from = current + 1,
                    to = MIGRATIONS.len(),
                    "applied postgres migrations"
                );
            }
            Ok(())
        })();
        c.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
            .map_err(map_err)?;
        result
    }

    /// Runs `f` with a dedicated connection (feature `testing`: the conformance tests read the
    /// database directly with it).
    #[cfg(any(test, feature = "testing"))]
    pub fn with_connection<T>(
        &self,
        f: impl FnOnce(&mut postgres::Client) -> Result<T>,
    ) -> Result<T> {
        let mut c = self.conn()?;
        f(&mut c)
    }
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The primary key of an `input_point` row of `inputs_in_range`'s query.
fn input_row_key(r: &postgres::Row) -> (i64, i16, &str, &str) {
    (r.get(0), r.get(1), r.get(2), r.get(3))
}

impl InputStore for PgStore {
    fn upsert_input_chunks(
        &self,
        chunks: &mut dyn Iterator<Item = Result<Vec<InputPoint>>>,
        updated_at: i64,
    ) -> Result<UpsertSummary> {
        let mut c = self.conn()?;
        // Dropped without commit (a chunk that is an error, a failed write), it rolls back.
        let mut tx = c.transaction().map_err(map_err)?;
        tx.batch_execute(
            "CREATE TEMP TABLE IF NOT EXISTS input_incoming
               (slot BIGINT, kind SMALLINT, zone TEXT, other TEXT, mw DOUBLE PRECISION, data_state SMALLINT, datasource TEXT)
               ON COMMIT DELETE ROWS",
        )
        .map_err(map_err)?;
        let mut summary = UpsertSummary::default();
        let mut changed_days: Vec<i64> = Vec::new();
        for chunk in chunks {
            summary += write_input_chunk(&mut tx, &chunk?, updated_at, &mut changed_days)?;
            changed_days.sort_unstable();
            changed_days.dedup();
        }
        if !changed_days.is_empty() {
            // Advances the input revision and gives it to the days changed, in the upsert's
            // transaction (InputStore::input_revision).
            let revision: i64 = tx
                .query_one(
                    "UPDATE meta SET value = value + 1 WHERE key = 'input_revision' RETURNING value",
                    &[],
                )
                .map_err(map_err)?
                .get(0);
            tx.execute(
                "INSERT INTO input_day (day, revision) SELECT unnest($1::BIGINT[]), $2
                 ON CONFLICT (day) DO UPDATE SET revision = excluded.revision",
                &[&changed_days, &revision],
            )
            .map_err(map_err)?;
        }
        tx.commit().map_err(map_err)?;
        Ok(summary)
    }

    fn inputs_in_range(&self, range: SlotRange) -> Result<Vec<StoredInput>> {
        let mut c = self.conn()?;
        let mut rows = c
            .query(
                "SELECT slot, kind, zone, other, mw, data_state, datasource, updated_at
                 FROM input_point WHERE slot >= $1 AND slot < $2",
                &[&range.start.0, &range.end.0],
            )
            .map_err(map_err)?;
        // Sorted here by the key, bytewise as SQLite orders it, not by the server: its sort of a day's
        // rows cost a third of its time for the query, while the rows mostly arrive in key order
        // (batches are written so), which the stable sort merely checks.
        rows.sort_by(|a, b| input_row_key(a).cmp(&input_row_key(b)));
        let mut keys = KeyParser::default();
        let real = rows
            .iter()
            .map(|r| {
                let state: i16 = r.get(5);
                Ok(StoredInput {
                    point: InputPoint {
                        key: keys.key(r.get(1), r.get(2), r.get(3))?,
                        slot: Slot(r.get(0)),
                        mw: r.get(4),
                        state: DataState::from_u8(state as u8).ok_or_else(|| {
                            StoreError::Corrupt(format!("bad data_state {state}"))
                        })?,
                        datasource: r.get(6),
                    },
                    updated_at: r.get(7),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let flows_assumed = assumed_days(&mut *c, assumed::days_of(range))?;
        Ok(assumed::merge(real, &flows_assumed, range))
    }

    fn input_extent(&self) -> Result<Option<SlotRange>> {
        let mut c = self.conn()?;
        let r = c
            .query_one("SELECT MIN(slot), MAX(slot) FROM input_point", &[])
            .map_err(map_err)?;
        let (a, b): (Option<i64>, Option<i64>) = (r.get(0), r.get(1));
        Ok(match (a, b) {
            (Some(a), Some(b)) => Some(SlotRange::new(Slot(a), Slot(b + 1))),
            _ => None,
        })
    }

    fn next_input_day(&self, day: i64) -> Result<Option<i64>> {
        let mut c = self.conn()?;
        let r = c
            .query_one(
                "SELECT MIN(slot) FROM input_point WHERE slot >= $1",
                &[&Slot::first_of_day(day).0],
            )
            .map_err(map_err)?;
        let slot: Option<i64> = r.get(0);
        Ok(slot.map(|s| Slot(s).day()))
    }

    fn input_revision(&self) -> Result<i64> {
        meta_value(&mut *self.conn()?, "input_revision")
    }

    fn upsert_tso_forecasts(
        &self,
        forecasts: &[PublishedForecast],
        updated_at: i64,
    ) -> Result<UpsertSummary> {
        let rows = tso::last_per_row(forecasts)?;
        if rows.is_empty() {
            return Ok(UpsertSummary::default());
        }
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(map_err)?;
        tx.batch_execute(
            "CREATE TEMP TABLE IF NOT EXISTS tso_incoming
               (slot BIGINT, kind SMALLINT, zone TEXT, other TEXT, forecast SMALLINT,
                mw DOUBLE PRECISION, published_at BIGINT)
               ON COMMIT DELETE ROWS",
        )
        .map_err(map_err)?;
        {
            let sink = tx
                .copy_in("COPY tso_incoming (slot, kind, zone, other, forecast, mw, published_at) FROM STDIN BINARY")
                .map_err(map_err)?;
            let mut w = BinaryCopyInWriter::new(
                sink,
                &[
                    Type::INT8,
                    Type::INT2,
                    Type::TEXT,
                    Type::TEXT,
                    Type::INT2,
                    Type::FLOAT8,
                    Type::INT8,
                ],
            );
            for f in &rows {
                let (slot, kind, zone, other, forecast) = tso::storable(f)?;
                w.write(&[
                    &slot,
                    &kind,
                    &zone,
                    &other,
                    &forecast,
                    &f.point.mw,
                    &f.published_at,
                ])
                .map_err(map_err)?;
            }
            w.finish().map_err(map_err)?;
        }
        // Insert, or update where gridprint_store::tso::write_changes says so.
        let changed = tx
            .query(
                "INSERT INTO tso_forecast AS t (slot, kind, zone, other, forecast, mw, published_at, updated_at)
                 SELECT slot, kind, zone, other, forecast, mw, published_at, $1 FROM tso_incoming
                 ON CONFLICT (slot, kind, zone, other, forecast) DO UPDATE SET
                   mw = excluded.mw, published_at = excluded.published_at, updated_at = excluded.updated_at
                 WHERE (t.mw <> excluded.mw AND t.published_at <= excluded.published_at)
                    OR (t.mw = excluded.mw AND t.published_at > excluded.published_at)
                 RETURNING (xmax = 0) AS inserted",
                &[&updated_at],
            )
            .map_err(map_err)?;
        tx.commit().map_err(map_err)?;
        let inserted = changed.iter().filter(|r| r.get::<_, bool>(0)).count();
        let updated = changed.len() - inserted;
        Ok(UpsertSummary {
            inserted,
            updated,
            unchanged: forecasts.len() - inserted - updated,
        })
    }

    fn tso_forecasts_in_range(
        &self,
        range: SlotRange,
        published_before: i64,
    ) -> Result<Vec<StoredTsoForecast>> {
        let rows = self.rows(
            "SELECT slot, kind, zone, other, forecast, mw, published_at, updated_at
             FROM tso_forecast WHERE slot >= $1 AND slot < $2 AND published_at < $3
             ORDER BY slot, kind, zone COLLATE \"C\", other COLLATE \"C\", forecast",
            &[&range.start.0, &range.end.0, &published_before],
        )?;
        rows.iter()
            .map(|r| {
                tso::from_row(
                    r.get(0),
                    r.get(1),
                    r.get(2),
                    r.get(3),
                    r.get(4),
                    r.get(5),
                    r.get(6),
                    r.get(7),
                )
            })
            .collect()
    }

    fn day_revisions(&self, days: std::ops::Range<i64>) -> Result<Vec<DayRevision>> {
        let rows = self.rows(
            "SELECT day, revision, settled FROM input_day WHERE day >= $1 AND day < $2 ORDER BY day",
            &[&days.start, &days.end],
        )?;
        Ok(rows
            .iter()
            .map(|r| DayRevision {
                day: r.get(0),
                revision: r.get(1),
                settled: r.get(2),
            })
            .collect())
    }

    fn settle_days(&self, days: &[i64], revision: i64) -> Result<()> {
        let mut c = self.conn()?;
        c.execute(
            "INSERT INTO input_day (day, revision, settled) SELECT unnest($1::BIGINT[]), 0, $2
             ON CONFLICT (day) DO UPDATE SET settled = excluded.settled",
            &[&days, &revision],
        )
        .map_err(map_err)?;
        Ok(())
    }
}

/// The number kept under `key` in the `meta` table (`data_version`, `derived_change_floor`,
/// `input_revision`).
fn meta_value(c: &mut postgres::Client, key: &str) -> Result<i64> {
    Ok(
        c.query_one("SELECT value FROM meta WHERE key = $1", &[&key])
            .map_err(map_err)?
            .get(0),
    )
}

impl DerivedStore for PgStore {
    fn derived_days(&self, days: std::ops::Range<i64>) -> Result<Vec<DerivedDay>> {
        let rows = self.rows(
            "SELECT payload FROM derived_day WHERE day >= $1 AND day < $2 ORDER BY day, zone",
            &[&days.start, &days.end],
        )?;
        rows.iter()
            .map(|r| {
                DerivedDay::decode(r.get::<_, &[u8]>(0))
                    .map_err(|e| StoreError::Corrupt(e.to_string()))
            })
            .collect()
    }

    /// The hold is a shared advisory lock ([`StageClaim`]); a run that gets it exclusively first
    /// knows no other run is alive and clears the staging area.
    fn begin_staging(&self) -> Result<gridprint_store::StagingClaim> {
        let mut c = self.conn()?;
        let alone: bool = c
            .query_one("SELECT pg_try_advisory_lock($1)", &[&STAGE_LOCK])
            .map_err(map_err)?
            .get(0);
        if alone {
            let cleared = c.execute("DELETE FROM derived_stage", &[]);
            c.execute("SELECT pg_advisory_unlock($1)", &[&STAGE_LOCK])
                .map_err(map_err)?;
            cleared.map_err(map_err)?;
        }
        c.execute("SELECT pg_advisory_lock_shared($1)", &[&STAGE_LOCK])
            .map_err(map_err)?;
        Ok(Box::new(StageClaim(Some(c))))
    }

    fn stage_derived_days(&self, run: i64, days: &[DerivedDay]) -> Result<()> {
        let now = now_secs();
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(map_err)?;
        {
            let sink = tx
                .copy_in(
                    "COPY derived_stage (run, day, zone, payload, staged_at) FROM STDIN BINARY",
                )
                .map_err(map_err)?;
            let mut w = BinaryCopyInWriter::new(
                sink,
                &[Type::INT8, Type::INT8, Type::TEXT, Type::BYTEA, Type::INT8],
            );
            for d in days {
                let payload: Option<Vec<u8>> = (!d.is_empty()).then(|| d.encode());
                w.write(&[&run, &d.day, &d.zone.as_str(), &payload, &now])
                    .map_err(map_err)?;
            }
            w.finish().map_err(map_err)?;
        }
        tx.commit().map_err(map_err)
    }

    fn commit_staged(&self, run: i64) -> Result<usize> {
        let now = now_secs();
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(map_err)?;
        tx.execute(
            "INSERT INTO derived_day (day, zone, payload, updated_at)
             SELECT DISTINCT ON (day, zone) day, zone, payload, $2 FROM derived_stage
             WHERE run = $1 AND payload IS NOT NULL
             ON CONFLICT (day, zone) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at",
            &[&run, &now],
        )
        .map_err(map_err)?;
        tx.execute(
            "DELETE FROM derived_day d USING derived_stage s
             WHERE s.run = $1 AND s.payload IS NULL AND d.day = s.day AND d.zone = s.zone",
            &[&run],
        )
        .map_err(map_err)?;
        // The new version, and the zone-days it changed (written or deleted), in the change log.
        let bumped = tx
            .execute(
                "UPDATE meta SET value = value + 1 WHERE key = 'data_version'
                 AND EXISTS (SELECT 1 FROM derived_stage WHERE run = $1)",
                &[&run],
            )
            .map_err(map_err)?;
        if bumped > 0 {
            tx.execute(
                "INSERT INTO derived_change (day, zone, version)
                 SELECT DISTINCT day, zone, (SELECT value FROM meta WHERE key = 'data_version')
                 FROM derived_stage WHERE run = $1
                 ON CONFLICT (day, zone) DO UPDATE SET version = excluded.version",
                &[&run],
            )
            .map_err(map_err)?;
            tx.execute("NOTIFY gridprint_data", &[]).map_err(map_err)?;
        }
        let staged = tx
            .execute("DELETE FROM derived_stage WHERE run = $1", &[&run])
            .map_err(map_err)?;
        tx.commit().map_err(map_err)?;
        Ok(staged as usize)
    }

    fn discard_staged(&self, run: i64) -> Result<()> {
        let mut c = self.conn()?;
        c.execute(
            "DELETE FROM derived_stage WHERE run = $1 OR staged_at < $2",
            &[&run, &(now_secs() - 86_400)],
        )
        .map(|_| ())
        .map_err(map_err)
    }

    fn data_version(&self) -> Result<i64> {
        meta_value(&mut *self.conn()?, "data_version")
    }

    fn derived_changes(&self, since: i64) -> Result<DerivedChanges> {
        let mut c = self.conn()?;
        let floor = meta_value(&mut c, "derived_change_floor")?;
        let changes = c
            .query(
                "SELECT day, zone, version FROM derived_change WHERE version > $1 ORDER BY day, zone",
                &[&since],
            )
            .map_err(map_err)?
            .iter()
            .map(|r| DayChange {
                day: r.get(0),
                zone: r.get(1),
                version: r.get(2),
            })
            .collect();
        Ok(DerivedChanges { floor, changes })
    }
}

/// Advisory lock key of the leader worker.
const LEADER_LOCK: i64 = 0x6772_6964_7072_0002;

/// Leadership on PostgreSQL: a session advisory lock held on a dedicated connection. If the process
/// dies the connection closes and the server releases the lock at once.
struct AdvisoryLease(Option<Conn>);

impl gridprint_store::LeaderLease for AdvisoryLease {
    fn still_held(&mut self) -> bool {
        let Some(c) = self.0.as_mut() else {
            return false;
        };
        off_runtime(move || {
            c.query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
                 AND granted AND ((classid::bigint << 32) | objid::bigint) = $1)",
                &[&LEADER_LOCK],
            )
            .map(|r| r.get::<_, bool>(0))
            .unwrap_or(false)
        })
    }
}

/// Advisory lock key of the staging area (shared by live staging runs).
const STAGE_LOCK: i64 = 0x6772_6964_7072_0003;

/// A staging run's hold on PostgreSQL: a shared session advisory lock on a dedicated connection,
/// released by the server at once if the process dies.
struct StageClaim(Option<Conn>);

impl Drop for StageClaim {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            off_runtime(move || {
                let _ = c.execute("SELECT pg_advisory_unlock_shared($1)", &[&STAGE_LOCK]);
            });
        }
    }
}

impl Drop for AdvisoryLease {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            off_runtime(move || {
                let _ = c.execute("SELECT pg_advisory_unlock($1)", &[&LEADER_LOCK]);
            });
        }
    }
}

impl Store for PgStore {
    fn try_lead(&self) -> Result<Option<Box<dyn gridprint_store::LeaderLease>>> {
        let mut c = self.conn()?;
        let got: bool = c
            .query_one("SELECT pg_try_advisory_lock($1)", &[&LEADER_LOCK])
            .map_err(map_err)?
            .get(0);
        Ok(got.then(|| Box::new(AdvisoryLease(Some(c))) as Box<dyn gridprint_store::LeaderLease>))
    }

    fn ping(&self) -> Result<()> {
        let mut c = self.conn()?;
        c.query_one("SELECT 1", &[]).map(|_| ()).map_err(map_err)
    }

    fn describe(&self) -> String {
        self.described.clone()
    }
}

/// The rows of `assumed_flow` whose day lies in `days` (inclusive), each with its `updated_at`.
/// Writes one chunk of [`InputStore::upsert_input_chunks`] in `tx` (through the temporary table
/// `input_incoming`, emptied first) and adds the UTC days it changed to `changed_days`. The server
/// counts the rows it inserted and updated and lists their days: no row comes back per point.
fn write_input_chunk(
    tx: &mut postgres::Transaction<'_>,
    points: &[InputPoint],
    updated_at: i64,
    changed_days: &mut Vec<i64>,
) -> Result<UpsertSummary> {
    // Within one chunk, keep per key the point an in-order upsert would end with.
    let mut latest: HashMap<(i64, i16, &str, &str), &InputPoint> = HashMap::new();
    for p in points.iter().filter(|p| !assumed::is_assumed(p)) {
        let (kind, zone, other) = storable_columns(p)?;
        latest
            .entry((p.slot.0, kind, zone, other))
            .and_modify(|q| {
                if p.state <= q.state {
                    *q = p
                }
            })
            .or_insert(p);
    }
    // Rows go in in key order: the table's heap then holds each day's rows together, as the
    // primary key orders them, instead of in the hash map's order scattered over every page the
    // batch fills. A day's read (the cache load reads day by day) then touches ~70 heap pages
    // instead of ~450 with the estimator's multi-day batches, and a replica's cold start on a
    // year of data comes closer to SQLite's (docs/performance.md, "Replica cold start").
    let mut in_key_order: Vec<_> = latest.into_iter().collect();
    in_key_order.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    tx.batch_execute("TRUNCATE input_incoming")
        .map_err(map_err)?;
    {
        let sink = tx
            .copy_in("COPY input_incoming (slot, kind, zone, other, mw, data_state, datasource) FROM STDIN BINARY")
            .map_err(map_err)?;
        let mut w = BinaryCopyInWriter::new(
            sink,
            &[
                Type::INT8,
                Type::INT2,
                Type::TEXT,
                Type::TEXT,
                Type::FLOAT8,
                Type::INT2,
                Type::TEXT,
            ],
        );
        for ((slot, kind, zone, other), p) in &in_key_order {
            let state = p.state as i16;
            w.write(&[slot, kind, zone, other, &p.mw, &state, &p.datasource])
                .map_err(map_err)?;
        }
        w.finish().map_err(map_err)?;
    }
    let counts = tx
        .query_one(
            "WITH up AS (
               INSERT INTO input_point AS t (slot, kind, zone, other, mw, data_state, datasource, updated_at)
               SELECT slot, kind, zone, other, mw, data_state, datasource, $1 FROM input_incoming
               ON CONFLICT (slot, kind, zone, other) DO UPDATE SET
                 mw = excluded.mw, data_state = excluded.data_state,
                 datasource = excluded.datasource, updated_at = excluded.updated_at
               WHERE t.data_state >= excluded.data_state
                 AND (t.mw, t.data_state, t.datasource) IS DISTINCT FROM (excluded.mw, excluded.data_state, excluded.datasource)
               RETURNING (xmax = 0) AS inserted, slot)
             SELECT count(*) FILTER (WHERE inserted), count(*) FILTER (WHERE NOT inserted),
                    COALESCE(array_agg(DISTINCT floor(slot / 96.0)::BIGINT), '{}')
             FROM up",
            &[&updated_at],
        )
        .map_err(map_err)?;
    let (mut inserted, updated) = (
        counts.get::<_, i64>(0) as usize,
        counts.get::<_, i64>(1) as usize,
    );
    changed_days.extend(counts.get::<_, Vec<i64>>(2));
    let read = |days| -> Result<Vec<assumed::AssumedDay>> {
        Ok(assumed_days(tx, days)?
            .into_iter()
            .map(|(a, _)| a)
            .collect())
    };
    if let Some(write) = assumed::plan_batch(points, read)? {
        // Nothing new (every bit already stored): no statement.
        if !write.rows.is_empty() {
            let (lo, hi): (Vec<i64>, Vec<i64>) = write.rows.iter().map(|a| a.columns()).unzip();
            let day: Vec<i64> = write.rows.iter().map(|a| a.day).collect();
            let from: Vec<&str> = write.rows.iter().map(|a| a.from.as_str()).collect();
            let to: Vec<&str> = write.rows.iter().map(|a| a.to.as_str()).collect();
            tx.execute(
                "INSERT INTO assumed_flow (day, zone, other, slots_lo, slots_hi, updated_at)
                 SELECT d, z, o, l, h, $6
                   FROM unnest($1::BIGINT[], $2::TEXT[], $3::TEXT[], $4::BIGINT[], $5::BIGINT[])
                     AS u(d, z, o, l, h)
                 ON CONFLICT (day, zone, other) DO UPDATE SET slots_lo = excluded.slots_lo,
                   slots_hi = excluded.slots_hi, updated_at = excluded.updated_at",
                &[&day, &from, &to, &lo, &hi, &updated_at],
            )
            .map_err(map_err)?;
        }
        inserted += write.inserted;
        changed_days.extend(write.days);
    }
    Ok(UpsertSummary {
        inserted,
        updated,
        unchanged: points.len() - inserted - updated,
    })
}

fn assumed_days(
    c: &mut impl GenericClient,
    days: (i64, i64),
) -> Result<Vec<(assumed::AssumedDay, i64)>> {
    let rows = c
        .query(
            "SELECT day, zone, other, slots_lo, slots_hi, updated_at FROM assumed_flow
             WHERE day >= $1 AND day <= $2",
            &[&days.0, &days.1],
        )
        .map_err(map_err)?;
    rows.iter()
        .map(|r| {
            let zone = |i: usize| -> Result<ZoneCode> {
                let text: &str = r.get(i);
                ZoneCode::parse(text).ok_or_else(|| {
                    StoreError::Corrupt(format!("bad zone {text:?} in assumed_flow"))
                })
            };
            Ok((
                assumed::AssumedDay {
                    day: r.get(0),
                    from: zone(1)?,
                    to: zone(2)?,
                    mask: assumed::AssumedDay::mask_of(r.get(3), r.get(4)),
                },
                r.get(5),
            ))
        })
        .collect()
}
