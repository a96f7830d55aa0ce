//! The in-memory cache every query is answered from: derived outputs and raw inputs of every zone,
//! columnar, in day chunks of 96 slots, loaded once from the store and swapped whole on refresh.
//! Why it is laid out so, and what a year of history costs: docs/memory.md.
//!
//! - **Derived** ([`DerivedZone`], one per zone): flags per slot and, per series, a chunk per day
//!   in one [`ChunkPool`] shared by the zones (bit-packed losslessly: the exact bits come back).
//!   Share series are computed from the stored exchanges at query time ([`crate::endpoints`]).
//! - **Raw inputs** ([`InputSeries`]): one series per generation type, load and directed flow, with
//!   data states and datasources as runs; a flow is stored once and indexed twice ([`ZoneInputs`]).
//! - The [`CacheVersion`] it was built from, and per day the version of the last publication that
//!   changed it, which entity tags follow ([`DataCache::window_version`]).
//!
//! [`SharedCache`] holds the current cache behind an `ArcSwap`: readers take an `Arc` snapshot
//! without locking, and [`SharedCache::refresh`] swaps in the next one ([`DataCache::refresh`]:
//! incremental when it can).
//!
//! Split by job: `chunk` (the value codec and its pool), `blocks` (per-day indexes in shared
//! blocks, copied on write), `span` (days of a query window), `derived` (derived columns of a
//! zone), `inputs` (raw input series), `input_builder` (filling them from the store), `loader`
//! (building a [`DataCache`] from the store) and `swap` (the [`SharedCache`] readers share).

mod blocks;
mod chunk;
mod derived;
mod input_builder;
mod inputs;
mod loader;
mod span;
mod swap;
#[cfg(test)]
mod tests;

pub use chunk::{Chunk, ChunkPool, NO_CHUNK, Spill};
pub use derived::{Column, DerivedZone};
pub use inputs::{ABSENT, InputDay, InputSeries, PlainDay, ZoneInputs};
pub use loader::{CacheStats, CacheVersion, DataCache, LoadOptions};
pub use span::{DaySpan, day_spans};
pub use swap::SharedCache;
