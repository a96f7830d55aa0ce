//! gridprint-pipeline: how provider data becomes published footprints — import → compute → publish.
//!
//! The parsers and provider clients live in `gridprint-ingest` and the engine run in
//! `gridprint-compute`; this crate ties them to the store. [`import::import_each_and_compute`] is the one
//! orchestration of a file import (parse and store a file at a time, all in one transaction, then
//! compute and publish the days they touch) that `gridprint import`, the bundled demo set ([`demo`]) and the
//! test suites share; [`compute`] recomputes what is stored (the days that hold inputs, or a range).
//! Live ingestion lives here too: resumable backfills ([`backfill`]), gap estimation ([`estimate`])
//! and the forecast ([`forecast`]) as pure functions over one [`series::Series`], and the worker
//! cycle that fetches, estimates, forecasts, recomputes and archives what it forecast ([`worker`],
//! [`archive`]); the TSOs' forecasts are fetched into the store by [`tso_fetch`]. With the `testing` feature,
//! `testing` imports fixture files for tests.
//!
//! Dependencies point inward: the binary uses this crate; this crate uses ingest, compute and the
//! store; none of those knows about it.

#![forbid(unsafe_code)]

pub mod archive;
pub mod backfill;
pub mod compute;
pub mod days;
pub mod demo;
pub mod estimate;
pub mod forecast;
pub mod import;
pub mod observer;
pub mod report;
pub mod series;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tso_fetch;
pub mod worker;

pub use import::{ImportOptions, PipelineError, import_and_compute};
pub use observer::Observer;
pub use report::ImportReport;
