//! What every server-side subcommand opens — the store named by `--database` and the reference
//! data — and the options that name them ([`ServerArgs`]), which only those subcommands take
//! (`gridprint query` talks to a server over HTTP and has none of them) — and the async runtime
//! the networked subcommands start ([`runtime`]).

use anyhow::{Context, bail};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args};
use gridprint_core::reference::{ReferenceData, ReferenceFiles, ZoneSet};
use gridprint_store::SharedStore;
use std::path::PathBuf;
use std::sync::Arc;

/// The database and reference data of a server-side subcommand (serve, import, compute, access,
/// migrate, ingest, worker, forecast-eval). They may also stand before the subcommand
/// (`gridprint --database URL serve`); see [`ServerArgs::with_leading`].
#[derive(Debug, Args, Clone)]
pub struct ServerArgs {
    /// Database: `sqlite://PATH` (embedded) or `postgres://…`. Default: gridprint.db in the user's data directory
    /// (`$XDG_DATA_HOME/gridprint/`, usually `~/.local/share/gridprint/`), the same file from
    /// every working directory.
    #[arg(long, env = "GRIDPRINT_DATABASE_URL", hide_env_values = true)]
    pub database: Option<String>,
    /// Open the database read-only (replicas that must not write): nothing is migrated, data and
    /// token checks work, registering and issuing tokens answer 503, writing commands fail.
    #[arg(long, env = "GRIDPRINT_READ_ONLY")]
    pub read_only: bool,
    /// Largest number of PostgreSQL connections this process opens.
    #[arg(long, env = "GRIDPRINT_DB_MAX_CONNECTIONS", default_value_t = 8)]
    pub db_max_connections: u32,
    /// Zone set: `selected` (52 zones in use) or `full` (60 zones).
    #[arg(long, env = "GRIDPRINT_ZONE_SET", default_value = "selected", value_parser = zone_set_name)]
    pub zone_set: String,
    /// Directory with reference data files overriding the embedded ones (same layout as data/reference).
    #[arg(long, env = "GRIDPRINT_REFERENCE_DIR")]
    pub reference_dir: Option<PathBuf>,
}

/// Checks `--zone-set` when the command line is parsed, so that every subcommand refuses an
/// unknown set alike (not only those that load the reference data).
fn zone_set_name(s: &str) -> Result<String, String> {
    match ZoneSet::parse(s) {
        Some(_) => Ok(s.to_string()),
        None => Err("use selected (52 zones) or full (60 zones)".to_string()),
    }
}

/// A server-side subcommand's own arguments with the [`ServerArgs`] it takes.
#[derive(Debug, Args)]
pub struct OnServer<A: Args> {
    #[command(flatten, next_help_heading = "Database and reference data")]
    pub server: ServerArgs,
    #[command(flatten)]
    pub args: A,
}

/// The argument ids of [`ServerArgs`] (clap names them after the fields).
const SERVER_ARG_IDS: [&str; 5] = [
    "database",
    "read_only",
    "db_max_connections",
    "zone_set",
    "reference_dir",
];

fn on_command_line(m: &ArgMatches, id: &str) -> bool {
    m.value_source(id) == Some(ValueSource::CommandLine)
}

impl ServerArgs {
    /// These options with those written before the subcommand (`leading`, parsed from
    /// `leading_matches`) applied, unless the subcommand's own matches (`own`) name them too.
    pub fn with_leading(
        &self,
        leading: &ServerArgs,
        leading_matches: &ArgMatches,
        own: &ArgMatches,
    ) -> ServerArgs {
        let take = |id: &str| on_command_line(leading_matches, id) && !on_command_line(own, id);
        let mut out = self.clone();
        if take("database") {
            out.database = leading.database.clone();
        }
        if take("read_only") {
            out.read_only = leading.read_only;
        }
        if take("db_max_connections") {
            out.db_max_connections = leading.db_max_connections;
        }
        if take("zone_set") {
            out.zone_set = leading.zone_set.clone();
        }
        if take("reference_dir") {
            out.reference_dir = leading.reference_dir.clone();
        }
        out
    }

    /// The first of these options written on the command line in `matches`, as `--flag-name`.
    pub fn first_given(matches: &ArgMatches) -> Option<String> {
        SERVER_ARG_IDS
            .iter()
            .find(|id| on_command_line(matches, id))
            .map(|id| format!("--{}", id.replace('_', "-")))
    }
}

impl ServerArgs {
    /// The database URL: `--database` as given, or the SQLite file in the user's data directory,
    /// whose folder is created.
    pub fn database_url(&self) -> anyhow::Result<String> {
        match self.database.as_deref().map(str::trim) {
            Some(url) => Ok(url.to_string()),
            None => {
                let dir = dirs::data_dir()
                    .context("no data directory for the default database (set HOME or XDG_DATA_HOME, or pass --database)")?
                    .join("gridprint");
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
                Ok(format!("sqlite://{}", dir.join("gridprint.db").display()))
            }
        }
    }
}

/// Opens the configured database (applying migrations) and names it in the log.
pub fn open_store(g: &ServerArgs) -> anyhow::Result<SharedStore> {
    let url = g.database_url()?;
    let url = url.as_str();
    tracing::info!("database {}", gridprint_store::redact_url(url));
    if url.starts_with("sqlite:") {
        let store = gridprint_store_sqlite::SqliteStore::open_url_with(url, g.read_only)
            .with_context(|| format!("opening database {}", gridprint_store::redact_url(url)))?;
        Ok(Arc::new(store))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let store =
            gridprint_store_postgres::PgStore::connect_with(url, g.db_max_connections, g.read_only)
                .with_context(|| {
                    format!("opening database {}", gridprint_store::redact_url(url))
                })?;
        Ok(Arc::new(store))
    } else {
        bail!(
            "unsupported database URL {} (use sqlite://PATH or postgres://…)",
            gridprint_store::redact_url(url)
        )
    }
}

/// Loads reference data: embedded, or from `--reference-dir`.
pub fn load_reference(g: &ServerArgs) -> anyhow::Result<Arc<ReferenceData>> {
    let set = ZoneSet::parse(&g.zone_set)
        .with_context(|| format!("unknown zone set '{}' (use selected or full)", g.zone_set))?;
    let mut files = ReferenceFiles::embedded(set);
    if let Some(dir) = &g.reference_dir {
        for (name, text) in [
            &mut files.zones,
            &mut files.crossborders,
            &mut files.carbon,
            &mut files.water,
            &mut files.aware,
            &mut files.geojson,
        ] {
            let path = dir.join(&*name);
            *text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
        }
    }
    Ok(Arc::new(ReferenceData::load(&files)?))
}

/// The async runtime of a subcommand (`builder`: multi- or current-thread), with I/O and timers.
pub fn runtime(mut builder: tokio::runtime::Builder) -> anyhow::Result<tokio::runtime::Runtime> {
    builder
        .enable_all()
        .build()
        .context("starting the async runtime")
}
