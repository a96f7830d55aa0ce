//! Command-line definition (clap derive): the subcommands, each with its arguments beside its
//! command module, and the logging options every subcommand takes. Every flag has a `GRIDPRINT_*`
//! environment variable.
//!
//! The server-side options ([`ServerArgs`]: database, read-only, zone set…) belong to the
//! subcommands that open the store; they are accepted before the subcommand as well
//! (`gridprint --database URL serve`), but `gridprint query`, a client, takes none of them.

use crate::open::{OnServer, ServerArgs};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;

#[derive(Debug, Parser)]
#[command(
    name = "gridprint",
    version,
    about = "Carbon and water footprint of electricity per European bidding zone, every 15 minutes."
)]
pub struct Cli {
    #[command(flatten, next_help_heading = "Logging")]
    pub log: LogArgs,
    /// Server options written before the subcommand; see [`ServerArgs::with_leading`].
    #[command(
        flatten,
        next_help_heading = "Database and reference data (server commands; also accepted after the command)"
    )]
    pub leading: ServerArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Logging options every subcommand takes.
#[derive(Debug, Args, Clone)]
pub struct LogArgs {
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
    Serve(OnServer<crate::cmd::serve::ServeArgs>),
    /// Import ENTSO-E XML documents or File Library CSV files (files or folders), or the bundled demo data.
    Import(OnServer<crate::cmd::import::ImportArgs>),
    /// Compute every derived output (flow tracing, footprints, shares, scores) for a time range.
    Compute(OnServer<crate::cmd::compute::ComputeArgs>),
    /// Grant, revoke, reset and list access (the operator's out-of-band channel).
    Access(OnServer<crate::cmd::access::AccessArgs>),
    /// Apply pending database migrations and exit.
    Migrate(ServerArgs),
    /// Query a gridprint server (or any server of this interface): table, CSV or JSON.
    Query(crate::cmd::query::QueryArgs),
    /// Backfill a provider's history (ENTSO-E, Elexon or EPIAS) into the store, resumably, then compute it.
    Ingest(OnServer<crate::cmd::ingest::IngestArgs>),
    /// Run the live ingestion loop: fetch, estimate gaps, forecast, recompute, every interval.
    Worker(OnServer<crate::cmd::worker::WorkerArgs>),
    /// Backtest the forecast on stored history against the seasonal-naive baseline.
    ForecastEval(OnServer<crate::cmd::forecast_eval::ForecastEvalArgs>),
}

/// Sets up tracing to stderr, with colours only when stderr is a terminal (a log file or a
/// journal gets plain text).
pub fn init_logging(g: &LogArgs) {
    let filter = tracing_subscriber::EnvFilter::try_new(&g.log)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    match g.log_format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}
