//! The `gridprint` command: one binary with a subcommand per job (serve, import, compute, access, …).
//!
//! This file only parses the command line and dispatches; each subcommand lives in its own module and
//! the real work lives in the library crates.

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
