//! Raw input series: per series and day a value chunk and runs of equal (data state, datasource)
//! slots, and the index of each zone's series.

use super::blocks::BLOCK_DAYS;
use super::chunk::{Chunk, ChunkPool, N};
use super::span::day_spans;
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Data state byte meaning "no input point in this slot".
pub const ABSENT: u8 = u8::MAX;

/// One raw input series (generation of a type, load, or one directed flow), columnar by day: per
/// day the 96 values as a chunk in the cache's [`ChunkPool`] (NaN where absent), and the per-slot
/// `u8` data state ([`ABSENT`] = no point) and `u16` datasource id (interned strings) as runs of
/// equal (state, datasource) slots, 4 bytes a run: one run for the usual day with a single state
/// and source. Read back as a [`PlainDay`] with the exact bits. Points are written into plain
/// pending days during the load and packed after each batch. The per-day columns live in shared
/// blocks of `BLOCK_DAYS` days, so an incremental refresh that rewrites a day copies only that
/// day's block (`Arc::make_mut`), not the series' history.
#[derive(Debug, Clone, Default)]
pub struct InputSeries {
    pub(super) days: Vec<i64>,
    /// Block `b` holds the columns of the days at positions `b·BLOCK_DAYS ..`.
    blocks: Vec<Arc<SeriesBlock>>,
    /// Days written during the load and not yet packed (empty once loaded).
    pending: BTreeMap<i64, Box<PlainDay>>,
    /// The chunks of every zone and series (shared by the whole cache).
    pub(super) pool: Arc<ChunkPool>,
}

/// The columns of up to [`BLOCK_DAYS`] consecutive days of a series.
#[derive(Debug, Clone, Default)]
struct SeriesBlock {
    /// Value chunk of each day (absent slots hold NaN).
    chunks: Vec<u32>,
    /// End of each day's runs in `runs` (a day's runs start where the previous day's end).
    run_ends: Vec<u32>,
    /// Runs of slots with the same state and datasource, in slot order within a day: see [`run`].
    runs: Vec<u32>,
}

impl SeriesBlock {
    fn day_runs(&self, i: usize) -> &[u32] {
        let start = if i == 0 { 0 } else { self.run_ends[i - 1] };
        &self.runs[start as usize..self.run_ends[i] as usize]
    }

    fn push(&mut self, chunk: u32, runs: &[u32]) {
        self.chunks.push(chunk);
        self.runs.extend_from_slice(runs);
        self.run_ends.push(self.runs.len() as u32);
    }

    /// Replaces day `i`'s chunk and runs.
    fn replace(&mut self, i: usize, chunk: u32, runs: &[u32]) {
        let start = if i == 0 { 0 } else { self.run_ends[i - 1] } as usize;
        let end = self.run_ends[i] as usize;
        self.runs.splice(start..end, runs.iter().copied());
        let delta = runs.len() as i64 - (end - start) as i64;
        for e in &mut self.run_ends[i..] {
            *e = (*e as i64 + delta) as u32;
        }
        self.chunks[i] = chunk;
    }

    fn memory_bytes(&self) -> usize {
        16 + std::mem::size_of::<SeriesBlock>()
            + (self.chunks.capacity() + self.run_ends.capacity() + self.runs.capacity()) * 4
    }
}

/// A run: first slot index (bits 24..32), data state byte (16..24), datasource id (0..16).
fn run(first: usize, state: u8, source: u16) -> u32 {
    ((first as u32) << 24) | (u32::from(state) << 16) | u32::from(source)
}

/// A day of an input series, plain: as written during the load and as read back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlainDay {
    /// Values; NaN where absent.
    pub values: Chunk,
    /// `DataState as u8`, or [`ABSENT`].
    pub states: [u8; N],
    /// Datasource ids (see [`DataCache::datasource`](super::DataCache::datasource)); 0 where absent.
    pub sources: [u16; N],
}

impl Default for PlainDay {
    fn default() -> PlainDay {
        PlainDay {
            values: [f32::NAN; N],
            states: [ABSENT; N],
            sources: [0; N],
        }
    }
}

/// One day of an [`InputSeries`], unpacked.
pub type InputDay = PlainDay;

impl InputSeries {
    /// Day numbers held, ascending.
    pub fn days(&self) -> &[i64] {
        &self.days
    }

    /// The columns of the day at position `pos`.
    pub fn day(&self, pos: usize) -> InputDay {
        self.unpack(&self.pool, pos)
    }

    pub(super) fn day_runs(&self, pos: usize) -> &[u32] {
        self.blocks[pos / BLOCK_DAYS].day_runs(pos % BLOCK_DAYS)
    }

    /// The per-slot data states of `day` (`DataState as u8`, or [`ABSENT`]), read from its runs
    /// alone; `None` when the series holds nothing that day.
    pub fn states_of_day(&self, day: i64) -> Option<[u8; N]> {
        let pos = self.days.binary_search(&day).ok()?;
        let mut states = [ABSENT; N];
        let runs = self.day_runs(pos);
        for (k, &r) in runs.iter().enumerate() {
            let end = runs.get(k + 1).map_or(N, |&next| (next >> 24) as usize);
            states[(r >> 24) as usize..end].fill((r >> 16) as u8);
        }
        Some(states)
    }

    fn chunk_at(&self, pos: usize) -> u32 {
        self.blocks[pos / BLOCK_DAYS].chunks[pos % BLOCK_DAYS]
    }

    fn unpack(&self, pool: &ChunkPool, pos: usize) -> PlainDay {
        let mut d = PlainDay {
            values: pool.get(self.chunk_at(pos)).unwrap_or([f32::NAN; N]),
            ..PlainDay::default()
        };
        let runs = self.day_runs(pos);
        for (k, &r) in runs.iter().enumerate() {
            let end = runs.get(k + 1).map_or(N, |&next| (next >> 24) as usize);
            let first = (r >> 24) as usize;
            d.states[first..end].fill((r >> 16) as u8);
            d.sources[first..end].fill(r as u16);
        }
        d
    }

    /// Calls `f(slot, value, state, datasource id)` for every point of the window, in time order.
    pub fn for_each_point(&self, range: SlotRange, mut f: impl FnMut(Slot, f32, DataState, u16)) {
        for span in day_spans(&self.days, range) {
            let d = self.day(span.pos);
            for i in span.lo..span.hi {
                if let Some(st) = DataState::from_u8(d.states[i]) {
                    f(span.slot(i), d.values[i], st, d.sources[i]);
                }
            }
        }
    }

    /// Writes one point during the load into its pending day (a day already packed is unpacked
    /// into a pending one first); [`InputSeries::flush`] packs them.
    pub(super) fn set(
        &mut self,
        pool: &ChunkPool,
        slot: Slot,
        mw: f64,
        state: DataState,
        source: u16,
    ) {
        let day = slot.day();
        if !self.pending.contains_key(&day) {
            let plain = match self.days.binary_search(&day) {
                Ok(pos) => self.unpack(pool, pos),
                Err(_) => PlainDay::default(),
            };
            self.pending.insert(day, Box::new(plain));
        }
        let d = self.pending.get_mut(&day).expect("just inserted");
        let i = slot.index_in_day();
        d.values[i] = if mw.is_finite() { mw as f32 } else { f32::NAN };
        d.states[i] = state as u8;
        d.sources[i] = source;
    }

    /// Packs the pending days: a stored day is replaced in place (copying its block only), a day
    /// after the stored ones is appended, a day among them is inserted (the blocks from there on
    /// are rebuilt: rare). A pending day without any point removes the stored day (see
    /// [`InputSeries::reset_days`]).
    pub(super) fn flush(&mut self, pool: &mut ChunkPool) {
        let pending = std::mem::take(&mut self.pending);
        let mut inserts: Vec<(i64, Box<PlainDay>)> = Vec::new();
        let mut removals: Vec<usize> = Vec::new();
        for (day, d) in pending {
            let empty = d.states.iter().all(|&st| st == ABSENT);
            match self.days.binary_search(&day) {
                Ok(pos) if empty => removals.push(pos),
                Ok(pos) => {
                    let (chunk, runs) = pack(pool, day, &d);
                    Arc::make_mut(&mut self.blocks[pos / BLOCK_DAYS]).replace(
                        pos % BLOCK_DAYS,
                        chunk,
                        &runs,
                    );
                }
                Err(_) if empty => {}
                Err(pos) if pos == self.days.len() && inserts.is_empty() => {
                    self.push_day(pool, day, &d)
                }
                Err(_) => inserts.push((day, d)),
            }
        }
        if inserts.is_empty() && removals.is_empty() {
            return;
        }
        // Rebuild from the first position that moves.
        let first = removals
            .iter()
            .copied()
            .chain(
                inserts
                    .iter()
                    .map(|(day, _)| self.days.partition_point(|d| d < day)),
            )
            .min()
            .expect("a removal or an insert");
        let from = first / BLOCK_DAYS * BLOCK_DAYS;
        let kept: Vec<(i64, u32, Vec<u32>)> = (from..self.days.len())
            .filter(|pos| !removals.contains(pos))
            .map(|pos| {
                (
                    self.days[pos],
                    self.chunk_at(pos),
                    self.day_runs(pos).to_vec(),
                )
            })
            .collect();
        self.days.truncate(from);
        self.blocks.truncate(from / BLOCK_DAYS);
        let mut news = inserts.into_iter().peekable();
        for (day, chunk, runs) in kept {
            while let Some((d, plain)) = news.next_if(|(d, _)| *d < day) {
                self.push_day(pool, d, &plain);
            }
            self.push_packed(day, chunk, &runs);
        }
        for (d, plain) in news {
            self.push_day(pool, d, &plain);
        }
    }

    /// Marks every stored day of `days` to be written again: each becomes a pending day without
    /// points, which the points loaded next fill; [`InputSeries::flush`] then replaces the stored
    /// day, or removes it if no point came. Returns how many stored days were marked (their old
    /// chunks become stale).
    pub(super) fn reset_days(&mut self, days: std::ops::Range<i64>) -> usize {
        let lo = self.days.partition_point(|&d| d < days.start);
        let hi = self.days.partition_point(|&d| d < days.end);
        for &day in &self.days[lo..hi] {
            self.pending.insert(day, Box::default());
        }
        hi - lo
    }

    fn push_day(&mut self, pool: &mut ChunkPool, day: i64, d: &PlainDay) {
        let (chunk, runs) = pack(pool, day, d);
        self.push_packed(day, chunk, &runs);
    }

    fn push_packed(&mut self, day: i64, chunk: u32, runs: &[u32]) {
        if self.days.len().is_multiple_of(BLOCK_DAYS) {
            self.blocks.push(Arc::default());
        }
        self.days.push(day);
        let last = self.blocks.last_mut().expect("a block was just ensured");
        Arc::make_mut(last).push(chunk, runs);
    }

    /// How many of this series' blocks are shared with `other`'s (tests: copy-on-write).
    #[cfg(test)]
    pub(super) fn blocks_shared_with(&self, other: &InputSeries) -> (usize, usize) {
        let shared = self
            .blocks
            .iter()
            .zip(&other.blocks)
            .filter(|(a, b)| Arc::ptr_eq(a, b))
            .count();
        (shared, self.blocks.len())
    }

    /// Runs of the series (all days together).
    #[cfg(test)]
    pub(super) fn run_count(&self) -> usize {
        self.blocks.iter().map(|b| b.runs.len()).sum()
    }

    pub(super) fn shrink(&mut self) {
        self.days.shrink_to_fit();
        self.blocks.shrink_to_fit();
        // Only the last block can have room left (a load appends); the others are shared or full.
        if let Some(last) = self.blocks.last_mut()
            && let Some(b) = Arc::get_mut(last)
        {
            b.chunks.shrink_to_fit();
            b.run_ends.shrink_to_fit();
            b.runs.shrink_to_fit();
        }
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.days.capacity() * 8
            + self.blocks.capacity() * 8
            + self.blocks.iter().map(|b| b.memory_bytes()).sum::<usize>()
    }
}

/// A day's value chunk (stored in `pool`) and its runs of equal (state, datasource) slots.
fn pack(pool: &mut ChunkPool, day: i64, d: &PlainDay) -> (u32, Vec<u32>) {
    let chunk = pool.push(day, &d.values);
    let mut runs = Vec::with_capacity(1);
    for i in 0..N {
        if i == 0 || (d.states[i], d.sources[i]) != (d.states[i - 1], d.sources[i - 1]) {
            runs.push(run(i, d.states[i], d.sources[i]));
        }
    }
    (chunk, runs)
}

/// Index of a zone's raw input series (numbers into [`DataCache::input_series`](super::DataCache::input_series)).
/// A flow `from → to` is stored once and indexed twice: as an export of `from` and an import of
/// `to`. Points of zones that are not in the reference data are kept only as the partner side of a
/// known zone's flow.
#[derive(Debug, Clone, Default)]
pub struct ZoneInputs {
    /// Generation per production type, sorted by type.
    pub generation: Vec<(ProductionType, u32)>,
    /// Load.
    pub load: Option<u32>,
    /// Flows into the zone, by source zone code (sorted).
    pub imports: Vec<(ZoneCode, u32)>,
    /// Flows out of the zone, by destination zone code (sorted).
    pub exports: Vec<(ZoneCode, u32)>,
}

impl ZoneInputs {
    pub(super) fn memory_bytes(&self) -> usize {
        self.generation.capacity() * 8
            + (self.imports.capacity() + self.exports.capacity()) * 32
            + self
                .imports
                .iter()
                .chain(&self.exports)
                .map(|(z, _)| z.as_str().len())
                .sum::<usize>()
    }
}
