//! The `gridprint` command: one binary with a subcommand per job (serve, import, compute, access, …).
//!
//! This file only parses the command line and dispatches; each subcommand lives in its own module and
//! the real work lives in the library crates. It also sets the process's global allocator
//! (jemalloc, see `ALLOC`).

mod access;
mod cli;
mod compute;
mod forecast_eval;
mod import;
mod ingest_cmd;
mod open;
mod query_cmd;
mod serve;
mod worker;

use clap::Parser;
use cli::{Cli, Command};
use std::process::ExitCode;

/// jemalloc (with its background purging threads) instead of glibc's malloc: under load without the
/// response cache, glibc's per-thread arenas kept the per-request buffers of one-year answers and
/// the server's RSS grew from 361 to 550 MiB; with jemalloc freed pages go back to the OS within
/// ~20 s and the RSS returns to its size after loading (`scripts/load-bench.sh`, README).
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli::init_logging(&cli.global);
    let result = match &cli.command {
        Command::Import(args) => import::run(&cli.global, args),
        Command::Compute(args) => compute::run(&cli.global, args),
        Command::Access(args) => access::run(&cli.global, args),
        Command::Serve(args) => serve::run(&cli.global, args),
        Command::Query(args) => query_cmd::run(args),
        Command::Ingest(args) => ingest_cmd::run(&cli.global, args),
        Command::Worker(args) => worker::run(&cli.global, args),
        Command::ForecastEval(args) => forecast_eval::run(&cli.global, args),
        Command::Migrate => open::open_store(&cli.global).map(|s| {
            println!("database {} is up to date", s.describe());
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
