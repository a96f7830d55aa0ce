//! Derived columns of one zone: its days, one flags byte per slot and a chunk number per series
//! and day (flags and chunk numbers in shared blocks of days, [`DayBlocks`], so a refresh copies
//! only the blocks of the days it replaces).

use super::blocks::DayBlocks;
use super::chunk::{Chunk, ChunkPool, N, NO_CHUNK};
use super::span::day_spans;
use gridprint_core::derived::{DerivedDay, SeriesKey, SlotFlags};
use gridprint_core::slot::{Slot, SlotRange};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A series' chunk number per day position ([`NO_CHUNK`] where the day has no value).
pub type Column = DayBlocks<u32>;

/// Derived outputs of one zone, columnar: the zone's days sorted, one byte of `SlotFlags` per slot,
/// and per `SeriesKey` a column of chunk numbers (one `u32` per day, [`NO_CHUNK`] where the day has
/// no value) into the [`ChunkPool`] shared by the zones. All-NaN columns of a day take no chunk.
/// The columns are those the compute stores: footprints, impacts, scores, `Generation`,
/// `Consumption`, `Mix(type)` and `Exchange { origin }` (row i of X); the cache also indexes, per
/// origin zone, the zones holding an exchange column naming it, for flow-share
/// ([`DataCache::exchange_destinations`](super::DataCache::exchange_destinations)).
#[derive(Debug, Clone)]
pub struct DerivedZone {
    pub(super) days: Vec<i64>,
    flags: DayBlocks<SlotFlags>,
    columns: BTreeMap<SeriesKey, Column>,
    /// The chunks of every zone (shared by the zones of one cache).
    pub(super) pool: Arc<ChunkPool>,
}

impl DerivedZone {
    /// Day numbers held, ascending.
    pub fn days(&self) -> &[i64] {
        &self.days
    }

    /// The 96 flags of the day at position `pos`.
    pub fn flags(&self, pos: usize) -> &[SlotFlags] {
        self.flags.day(pos)
    }

    /// The 96 flags of a day number, if the zone has that day.
    pub fn flags_of_day(&self, day: i64) -> Option<&[SlotFlags]> {
        self.days
            .binary_search(&day)
            .ok()
            .map(|pos| self.flags(pos))
    }

    /// The column of a series: one chunk number per day position.
    pub fn column(&self, key: &SeriesKey) -> Option<&Column> {
        self.columns.get(key)
    }

    /// Every series key the zone has, in key order.
    pub fn columns(&self) -> impl Iterator<Item = (&SeriesKey, &Column)> {
        self.columns.iter()
    }

    /// The 96 values of a column at a day position, if that day has any.
    pub fn chunk(&self, column: &Column, pos: usize) -> Option<Chunk> {
        match column.get(pos) {
            Some(&[c]) if c != NO_CHUNK => self.pool.get(c),
            _ => None,
        }
    }

    /// The 96 values of a column on a day number, if the zone has that day and the column a value.
    pub fn chunk_of_day(&self, column: &Column, day: i64) -> Option<Chunk> {
        self.days
            .binary_search(&day)
            .ok()
            .and_then(|pos| self.chunk(column, pos))
    }

    /// Calls `f(slot, flags, value)` for every computed slot of the window where the series has a
    /// finite value, in time order.
    pub fn for_each_value(
        &self,
        key: &SeriesKey,
        range: SlotRange,
        mut f: impl FnMut(Slot, SlotFlags, f32),
    ) {
        let Some(col) = self.column(key) else { return };
        for span in day_spans(&self.days, range) {
            let Some(vals) = self.chunk(col, span.pos) else {
                continue;
            };
            let flags = self.flags(span.pos);
            for i in span.lo..span.hi {
                let v = vals[i];
                if v.is_finite() && flags[i].present() {
                    f(span.slot(i), flags[i], v);
                }
            }
        }
    }

    pub(super) fn add_day(&mut self, pool: &mut ChunkPool, day: &DerivedDay) {
        let pos = self.days.len();
        self.days.push(day.day);
        self.flags.push(&[SlotFlags::default(); N]);
        for col in self.columns.values_mut() {
            col.push(&[NO_CHUNK]);
        }
        self.write_day(pool, pos, day);
    }

    /// Writes the flags and series of `day` at position `pos`, whose columns hold [`NO_CHUNK`].
    fn write_day(&mut self, pool: &mut ChunkPool, pos: usize, day: &DerivedDay) {
        if day.flags.len() == N {
            self.flags.day_mut(pos).copy_from_slice(&day.flags);
        }
        for (key, vals) in &day.series {
            if vals.len() != N || !vals.iter().any(|v| v.is_finite()) {
                continue;
            }
            let chunk = pool.push(day.day, vals);
            let len = self.days.len();
            let col = self
                .columns
                .entry(key.clone())
                .or_insert_with(|| Column::filled(1, len, NO_CHUNK));
            col.day_mut(pos)[0] = chunk;
        }
    }

    /// Replaces the zone's day `day` with `new` (inserting it in order, or removing it when `None`),
    /// as a load would have built it; returns the chunk references dropped. Call
    /// [`DerivedZone::finish`] after the last replacement.
    pub(super) fn replace_day(
        &mut self,
        pool: &mut ChunkPool,
        day: i64,
        new: Option<&DerivedDay>,
    ) -> usize {
        let mut dropped = 0;
        match (self.days.binary_search(&day), new) {
            (Err(_), None) => {}
            (Ok(pos), None) => {
                self.days.remove(pos);
                self.flags.remove(pos);
                for col in self.columns.values_mut() {
                    dropped += usize::from(col.day(pos)[0] != NO_CHUNK);
                    col.remove(pos);
                }
            }
            (Ok(pos), Some(d)) => {
                self.flags.day_mut(pos).fill(SlotFlags::default());
                for col in self.columns.values_mut() {
                    if col.day(pos)[0] != NO_CHUNK {
                        dropped += 1;
                        col.day_mut(pos)[0] = NO_CHUNK;
                    }
                }
                self.write_day(pool, pos, d);
            }
            (Err(pos), Some(d)) => {
                self.days.insert(pos, day);
                self.flags.insert(pos, &[SlotFlags::default(); N]);
                for col in self.columns.values_mut() {
                    col.insert(pos, &[NO_CHUNK]);
                }
                self.write_day(pool, pos, d);
            }
        }
        dropped
    }

    /// Sorts days that arrived out of order (of a day given twice the last one wins) and drops
    /// columns without any chunk.
    pub(super) fn finish(&mut self) {
        if self.days.windows(2).all(|w| w[0] < w[1]) {
            self.columns.retain(|_, c| has_chunk(c));
            self.shrink();
            return;
        }
        let mut order: Vec<usize> = (0..self.days.len()).collect();
        // Stable sort by day, then keep the last of equal days.
        order.sort_by_key(|&p| self.days[p]);
        let mut keep: Vec<usize> = Vec::with_capacity(order.len());
        for p in order {
            match keep.last() {
                Some(&q) if self.days[q] == self.days[p] => {
                    *keep.last_mut().expect("non-empty") = p
                }
                _ => keep.push(p),
            }
        }
        self.days = keep.iter().map(|&p| self.days[p]).collect();
        let flags: Vec<SlotFlags> = keep
            .iter()
            .flat_map(|&p| self.flags.day(p).iter().copied())
            .collect();
        self.flags = DayBlocks::from_vec(N, flags);
        for col in self.columns.values_mut() {
            *col = Column::from_vec(1, keep.iter().map(|&p| col.day(p)[0]).collect());
        }
        self.columns.retain(|_, c| has_chunk(c));
        self.shrink();
    }

    fn shrink(&mut self) {
        self.days.shrink_to_fit();
        self.flags.shrink_to_fit();
        for c in self.columns.values_mut() {
            c.shrink_to_fit();
        }
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.days.capacity() * 8
            + self.flags.memory_bytes()
            + self
                .columns
                .iter()
                .map(|(k, c)| key_bytes(k) + c.memory_bytes())
                .sum::<usize>()
    }
}

#[cfg(test)]
impl DerivedZone {
    /// Of this zone's day cells (flags, then every column), how many share their block with
    /// `other`'s, and how many there are.
    pub(super) fn days_shared_with(&self, other: &DerivedZone) -> (usize, usize) {
        let mut shared = 0;
        let mut total = 0;
        let mut count = |a: &dyn Fn(usize) -> bool, n: usize| {
            shared += (0..n).filter(|&p| a(p)).count();
            total += n;
        };
        let n = self.flags.len().min(other.flags.len());
        count(&|p| self.flags.shares_day_with(&other.flags, p), n);
        for (k, c) in &self.columns {
            match other.columns.get(k) {
                Some(o) => count(&|p| c.shares_day_with(o, p), c.len().min(o.len())),
                None => count(&|_| false, c.len()),
            }
        }
        (shared, total)
    }
}

impl Default for DerivedZone {
    fn default() -> DerivedZone {
        DerivedZone {
            days: Vec::new(),
            flags: DayBlocks::new(N),
            columns: BTreeMap::new(),
            pool: Arc::default(),
        }
    }
}

/// Whether a column names any chunk.
fn has_chunk(c: &Column) -> bool {
    (0..c.len()).any(|p| c.day(p)[0] != NO_CHUNK)
}

/// Heap and inline bytes of a series key (inline size plus zone-code strings), for memory accounting.
fn key_bytes(k: &SeriesKey) -> usize {
    let heap = match k {
        SeriesKey::MixShare { origin: z }
        | SeriesKey::FlowShare { destination: z }
        | SeriesKey::FootprintShare { source: z, .. }
        | SeriesKey::ImpactShare { source: z }
        | SeriesKey::Exchange { origin: z } => z.as_str().len(),
        _ => 0,
    };
    std::mem::size_of::<SeriesKey>() + heap
}
