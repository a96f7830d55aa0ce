//! The subcommands of `gridprint`, one module each: its clap arguments and its `run`.
//!
//! `main.rs` dispatches to them; [`crate::cli`] lists them with their help lines. The server-side
//! ones open the store through [`crate::open`] and draw bars with [`crate::progress`]; `query` is a
//! client and opens nothing. A few helpers are shared between siblings: the provider options,
//! durations, zone lists and the shutdown signal of [`ingest`] (also used by `worker`,
//! `forecast-eval` and `serve`), and [`compute::now_from`] / [`compute::compute_with_progress`].

pub mod access;
pub mod compute;
pub mod demo;
pub mod forecast_eval;
pub mod import;
pub mod ingest;
pub mod migrate;
pub mod query;
pub mod serve;
pub mod worker;
