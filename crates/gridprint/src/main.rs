//! The `gridprint` command: one binary with a subcommand per job (serve, import, compute, access, …).
//!
//! This file only parses the command line ([`cli`]) and dispatches; each subcommand lives in its own
//! module under [`cmd`] and the real work lives in the library crates. It also sets the process's
//! global allocator (jemalloc, see `ALLOC`).

mod cli;
mod cmd;
mod open;
mod progress;

use clap::{CommandFactory, FromArgMatches};
use cli::{Cli, Command};
use cmd::{access, compute, forecast_eval, import, ingest, migrate, query, serve, worker};
use open::{OnServer, ServerArgs};
use std::process::ExitCode;

/// jemalloc (with its background purging threads) instead of glibc's malloc: under load without the
/// response cache, glibc's per-thread arenas kept the per-request buffers of one-year answers and
/// the server's RSS grew from 361 to 550 MiB; with jemalloc the RSS returns to its size after
/// loading (measured with `scripts/load-bench.sh --response-cache-mb 0`). Its options are set when
/// it is built, in `.cargo/config.toml`: freed pages go back to the OS within about a second.
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let _access_log = match cli::init_logging(&cli.log) {
        Ok(guard) => guard,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    let Some((_, own)) = matches.subcommand() else {
        unreachable!("clap requires a subcommand")
    };
    // The server options of a server-side subcommand, with those written before it applied.
    let server = |s: &ServerArgs| s.with_leading(&cli.leading, &matches, own);
    let result = match &cli.command {
        Command::Import(OnServer { server: s, args }) => import::run(&server(s), args),
        Command::Compute(OnServer { server: s, args }) => compute::run(&server(s), args),
        Command::Access(OnServer { server: s, args }) => access::run(&server(s), args),
        Command::Serve(OnServer { server: s, args }) => serve::run(&server(s), args),
        Command::Ingest(OnServer { server: s, args }) => ingest::run(&server(s), args),
        Command::Worker(OnServer { server: s, args }) => worker::run(&server(s), args),
        Command::ForecastEval(OnServer { server: s, args }) => forecast_eval::run(&server(s), args),
        Command::Migrate(s) => migrate::run(&server(s)),
        Command::Query(args) => match ServerArgs::first_given(&matches) {
            Some(flag) => Err(anyhow::anyhow!(
                "{flag} is an option of the server commands; `gridprint query` asks a server over \
                 HTTP (see `gridprint query --help`)"
            )),
            None => query::run(args),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
