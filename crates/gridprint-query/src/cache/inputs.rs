//! Raw input series: per series and day a value chunk and runs of equal (data state, datasource)
//! slots, and the index of each zone's series.

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

/// One raw input series (generation of a type, load, or one directed flow), columnar by day (see
/// the module documentation): per day a value chunk in the cache's [`ChunkPool`] and runs of equal
/// (data state, datasource) slots.
#[derive(Debug, Clone, Default)]
pub struct InputSeries {
    pub(super) days: Vec<i64>,
    /// Value chunk of each day (absent slots hold NaN).
    chunks: Vec<u32>,
    /// End of each day's runs in `runs` (a day's runs start where the previous day's end).
    run_ends: Vec<u32>,
    /// Runs of slots with the same state and datasource, in slot order within a day: see [`run`].
    pub(super) runs: Vec<u32>,
    /// Days written during the load and not yet packed (empty once loaded).
    pending: BTreeMap<i64, Box<PlainDay>>,
    /// The chunks of every zone and series (shared by the whole cache).
    pub(super) pool: Arc<ChunkPool>,
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
        let start = if pos == 0 { 0 } else { self.run_ends[pos - 1] };
        &self.runs[start as usize..self.run_ends[pos] as usize]
    }

    fn unpack(&self, pool: &ChunkPool, pos: usize) -> PlainDay {
        let mut d = PlainDay {
            values: pool.get(self.chunks[pos]).unwrap_or([f32::NAN; N]),
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

    /// Packs the pending days (appended when they follow the stored ones, merged otherwise).
    pub(super) fn flush(&mut self, pool: &mut ChunkPool) {
        let pending = std::mem::take(&mut self.pending);
        let Some((&first, _)) = pending.first_key_value() else {
            return;
        };
        if self.days.last().is_none_or(|&l| l < first) {
            for (day, d) in pending {
                self.push_day(pool, day, &d);
            }
            return;
        }
        // A day before or among the stored ones (rare: points out of batch order): rebuild.
        let old = std::mem::take(self);
        self.pool = old.pool.clone();
        let mut news = pending.into_iter().peekable();
        for (pos, &day) in old.days.iter().enumerate() {
            while let Some((d, plain)) = news.next_if(|(d, _)| *d <= day) {
                self.push_day(pool, d, &plain);
            }
            if self.days.last() != Some(&day) {
                self.days.push(day);
                self.chunks.push(old.chunks[pos]);
                self.runs.extend_from_slice(old.day_runs(pos));
                self.run_ends.push(self.runs.len() as u32);
            }
        }
        for (d, plain) in news {
            self.push_day(pool, d, &plain);
        }
    }

    /// Removes the days in `days` (an incremental refresh then writes their points again);
    /// returns how many were removed.
    pub(super) fn remove_days(&mut self, days: std::ops::Range<i64>) -> usize {
        let lo = self.days.partition_point(|&d| d < days.start);
        let hi = self.days.partition_point(|&d| d < days.end);
        if lo == hi {
            return 0;
        }
        let run_start = if lo == 0 { 0 } else { self.run_ends[lo - 1] };
        let run_end = self.run_ends[hi - 1];
        self.runs.drain(run_start as usize..run_end as usize);
        for e in &mut self.run_ends[hi..] {
            *e -= run_end - run_start;
        }
        self.run_ends.drain(lo..hi);
        self.chunks.drain(lo..hi);
        self.days.drain(lo..hi);
        hi - lo
    }

    fn push_day(&mut self, pool: &mut ChunkPool, day: i64, d: &PlainDay) {
        self.days.push(day);
        self.chunks.push(pool.push(day, &d.values));
        for i in 0..N {
            if i == 0 || (d.states[i], d.sources[i]) != (d.states[i - 1], d.sources[i - 1]) {
                self.runs.push(run(i, d.states[i], d.sources[i]));
            }
        }
        self.run_ends.push(self.runs.len() as u32);
    }

    pub(super) fn shrink(&mut self) {
        self.days.shrink_to_fit();
        self.chunks.shrink_to_fit();
        self.run_ends.shrink_to_fit();
        self.runs.shrink_to_fit();
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.days.capacity() * 8
            + (self.chunks.capacity() + self.run_ends.capacity() + self.runs.capacity()) * 4
    }
}

/// Index of a zone's raw input series (numbers into [`DataCache::input_series`](super::DataCache::input_series)).
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
