//! Command-line definition (clap derive). Every flag has a `GRIDPRINT_*` environment variable.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "gridprint",
    version,
    about = "Carbon and water footprint of electricity per European bidding zone, every 15 minutes."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every subcommand takes.
#[derive(Debug, Args, Clone)]
pub struct Global {
    /// Database URL: `sqlite://PATH` (embedded default) or `postgres://…`.
    #[arg(
        long,
        global = true,
        env = "GRIDPRINT_DATABASE_URL",
        default_value = "sqlite://gridprint.db",
        hide_env_values = true
    )]
    pub database: String,
    /// Open the database read-only (replicas that must not write): nothing is migrated, data and
    /// token checks work, registering and issuing tokens answer 503, writing commands fail.
    #[arg(long, global = true, env = "GRIDPRINT_READ_ONLY")]
    pub read_only: bool,
    /// Largest number of PostgreSQL connections this process opens.
    #[arg(
        long,
        global = true,
        env = "GRIDPRINT_DB_MAX_CONNECTIONS",
        default_value_t = 8
    )]
    pub db_max_connections: u32,
    /// Zone set: `selected` (52 zones in use) or `full` (60 zones).
    #[arg(
        long,
        global = true,
        env = "GRIDPRINT_ZONE_SET",
        default_value = "selected"
    )]
    pub zone_set: String,
    /// Directory with reference data files overriding the embedded ones (same layout as data/reference).
    #[arg(long, global = true, env = "GRIDPRINT_REFERENCE_DIR")]
    pub reference_dir: Option<PathBuf>,
    /// Log filter, e.g. `info`, `gridprint=debug`.
    #[arg(long, global = true, env = "GRIDPRINT_LOG", default_value = "info")]
    pub log: String,
    /// Log format.
    #[arg(
        long,
        global = true,
        env = "GRIDPRINT_LOG_FORMAT",
        value_enum,
        default_value = "text"
    )]
    pub log_format: LogFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the token service and the data API.
    Serve(crate::serve::ServeArgs),
    /// Import ENTSO-E XML documents or File Library CSV files (files or folders), or the bundled demo data.
    Import(ImportArgs),
    /// Compute every derived output (flow tracing, footprints, shares, scores) for a time range.
    Compute(ComputeArgs),
    /// Grant, revoke, reset and list access (the operator's out-of-band channel).
    Access(crate::access::AccessArgs),
    /// Apply pending database migrations and exit.
    Migrate,
    /// Query a gridprint server (or any server of this interface): table, CSV or JSON.
    Query(crate::query_cmd::QueryArgs),
    /// Backfill a provider's history (ENTSO-E or Elexon) into the store, resumably, then compute it.
    Ingest(crate::ingest_cmd::IngestArgs),
    /// Run the live ingestion loop: fetch, estimate gaps, forecast, recompute, every interval.
    Worker(crate::worker::WorkerArgs),
    /// Backtest the forecast on stored history against the seasonal-naive baseline.
    ForecastEval(crate::forecast_eval::ForecastEvalArgs),
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files or folders to import (format detected per file).
    #[arg(required_unless_present = "demo")]
    pub paths: Vec<PathBuf>,
    /// Import the bundled real demo data set and compute it.
    #[arg(long, env = "GRIDPRINT_DEMO")]
    pub demo: bool,
    /// Do not compute the imported range afterwards.
    #[arg(long, env = "GRIDPRINT_NO_COMPUTE")]
    pub no_compute: bool,
}

#[derive(Debug, Args)]
pub struct ComputeArgs {
    /// Start of the range (ISO 8601; default: first stored input).
    #[arg(long, env = "GRIDPRINT_FROM")]
    pub from: Option<String>,
    /// End of the range, exclusive (ISO 8601; default: last stored input).
    #[arg(long, env = "GRIDPRINT_TO")]
    pub to: Option<String>,
    /// Pretend the current time is this instant (tests, replays); decides which slots are frozen.
    #[arg(long, env = "GRIDPRINT_NOW", hide = true)]
    pub now: Option<String>,
}

/// Sets up tracing to stderr.
pub fn init_logging(g: &Global) {
    let filter = tracing_subscriber::EnvFilter::try_new(&g.log)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match g.log_format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}
