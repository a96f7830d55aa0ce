//! Command-line definition (clap derive): the subcommands, each with its arguments beside its
//! command module, and the logging options every subcommand takes. Every flag has a `GRIDPRINT_*`
//! environment variable.
//!
//! The server-side options ([`ServerArgs`]: database, read-only, zone set…) belong to the
//! subcommands that open the store; they are accepted before the subcommand as well
//! (`gridprint --database URL serve`), but `gridprint query`, a client, takes none of them.

use crate::open::{OnServer, ServerArgs};
use anyhow::Context;
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
    /// `serve`: write one line per answered request (method, path, status, latency, request id;
    /// never a query string or header) to this file, or to stdout with `-`, through a non-blocking
    /// writer. Off by default: the request path writes no log line.
    #[arg(long, global = true, env = "GRIDPRINT_ACCESS_LOG", value_name = "PATH")]
    pub access_log: Option<std::path::PathBuf>,
    /// Format of the access log.
    #[arg(
        long,
        global = true,
        env = "GRIDPRINT_ACCESS_LOG_FORMAT",
        value_enum,
        default_value = "text"
    )]
    pub access_log_format: LogFormat,
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
    /// Compute every derived output (flow tracing, footprints, shares, scores) for a time range
    /// (without --from and --to: every day that holds inputs).
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

/// Sets up tracing: the log to stderr, with colours only when stderr is a terminal (a log file or a
/// journal gets plain text), and with `--access-log` the access log (events of the target
/// [`gridprint_api::ACCESS_LOG_TARGET`]) to its own file through a non-blocking writer, coloured
/// only on a terminal. Without `--access-log` those events are disabled at their call site, so the
/// request path writes nothing. The returned guard flushes the access log when dropped at exit.
pub fn init_logging(
    g: &LogArgs,
) -> anyhow::Result<Option<tracing_appender::non_blocking::WorkerGuard>> {
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let access_off = format!("{}=off", gridprint_api::ACCESS_LOG_TARGET)
        .parse()
        .expect("a valid directive");
    let filter = tracing_subscriber::EnvFilter::try_new(&g.log)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"))
        .add_directive(access_off);
    let stderr = tracing_subscriber::fmt::layer()
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let stderr = match g.log_format {
        LogFormat::Text => stderr.with_filter(filter).boxed(),
        LogFormat::Json => stderr.json().with_filter(filter).boxed(),
    };
    let (access, guard) = match &g.access_log {
        None => (None, None),
        Some(path) => {
            let (writer, guard, terminal) = if path.as_os_str() == "-" {
                let (w, g) = tracing_appender::non_blocking(std::io::stdout());
                (w, g, std::io::stdout().is_terminal())
            } else {
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .with_context(|| format!("cannot open the access log {}", path.display()))?;
                let (w, g) = tracing_appender::non_blocking(file);
                (w, g, false)
            };
            // The access events, inside the request span that names method, path and id.
            let only_access = tracing_subscriber::filter::filter_fn(|meta| {
                meta.target() == gridprint_api::ACCESS_LOG_TARGET
                    || (meta.is_span() && meta.name() == gridprint_api::REQUEST_SPAN)
            });
            let layer = tracing_subscriber::fmt::layer()
                .with_ansi(terminal)
                .with_target(false)
                .with_writer(writer);
            let layer = match g.access_log_format {
                LogFormat::Text => layer.with_filter(only_access).boxed(),
                LogFormat::Json => layer.json().with_filter(only_access).boxed(),
            };
            (Some(layer), Some(guard))
        }
    };
    tracing_subscriber::registry()
        .with(stderr)
        .with(access)
        .init();
    Ok(guard)
}
