//! The in-memory cache every query is answered from: derived outputs and raw inputs of every zone,
//! columnar, in day chunks of 96 slots, loaded once from the store and swapped whole on refresh.
//!
//! Layout ([`DataCache::memory_bytes`] reports the size; a year of 52 zones computed by the real
//! engine from `gridprint_compute::synthetic` inputs, 897,260 derived chunks, takes 270 MiB, against
//! 334 MiB as plain `f32`s):
//!
//! - **Derived** ([`DerivedZone`], one per zone index): the zone's days sorted, one byte of
//!   `SlotFlags` per slot, and per `SeriesKey` a column of chunk numbers (one `u32` per day,
//!   [`NO_CHUNK`] where the day has no value) into one [`ChunkPool`] of 96-value chunks shared by
//!   the zones. A chunk is bit-packed losslessly (frame of reference on the `f32` bit patterns,
//!   about 24 bits a value; see [`ChunkPool`]) and read back as a [`Chunk`] array with the exact
//!   bits; constant chunks (all zero, say) are stored once per cache. All-NaN columns of a day take
//!   no chunk. The columns are those the compute stores: footprints, impacts,
//!   scores, `Generation`, `Consumption`, `Mix(type)` and `Exchange { origin }` (row i of X); share
//!   series are computed from them at query time ([`crate::endpoints`]). For flow-share, the cache
//!   also indexes, per origin zone, the zones holding an exchange column naming it
//!   ([`DataCache::exchange_destinations`]).
//! - **Raw inputs** ([`InputSeries`]): one series per generation type of a zone, per zone load and per
//!   directed flow, each with its days sorted; per day the 96 values as a chunk of the same
//!   [`ChunkPool`] (NaN where absent), and the per-slot `u8` data state ([`ABSENT`] = no point) and
//!   `u16` datasource id (interned strings) as runs of equal (state, datasource) slots, 4 bytes a
//!   run: one run for the usual day with a single state and source. Read back as a [`PlainDay`]
//!   with the exact bits. Points are written into plain pending days during the load and packed
//!   after each batch. A flow `from → to` is stored
//!   once and indexed twice: as an export of `from` ([`ZoneInputs::exports`]) and an import of `to`
//!   ([`ZoneInputs::imports`]). Points of zones that are not in the reference data are kept only as
//!   the partner side of a known zone's flow.
//! - The [`CacheVersion`] it was built from: the store's `data_version` and its input extent; per
//!   day, the data version of the last publication that changed it (the store's change log,
//!   `DerivedStore::derived_changes`), which entity tags follow ([`DataCache::window_version`]).
//!
//! Loading reads inputs and derived days in batches of [`LoadOptions::batch_days`] days (one by
//! default: with 7-day batches a year's load left ~15 MiB more RSS behind), so the transient
//! memory of a load stays small. [`SharedCache`] holds the current cache behind an `ArcSwap`:
//! readers take an `Arc` snapshot without locking, [`SharedCache::refresh`] builds the cache of the
//! store's new version and swaps it in atomically (in-flight requests finish on the old snapshot).
//! A refresh is **incremental**: it reads only the days the change log names since the cache's
//! version (and those the input extent grew over), appends their chunks to new pages of a pool
//! that shares the old pool's pages, and replaces those days in copies of the per-day indexes
//! (derived columns, input series); so its extra memory is the changed days plus the indexes (a
//! few percent of the cache), not the history. It falls back to a full reload — built beside the
//! old cache, peak about twice the cache — on the first load, when the log does not reach back to
//! the cache's version, when the input extent shrank, and when the chunks of replaced days (left
//! unreferenced in the shared pages) pass an eighth of the pool.

//!
//! The module is split by job: `chunk` (the value codec and its pool), `blocks` (per-day indexes
//! in shared blocks, copied on write), `span` (days of a query
//! window), `derived` (derived columns of a zone), `inputs` (raw input series), `input_builder` (filling them from the store), `loader`
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
