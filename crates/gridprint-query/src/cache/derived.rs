//! Derived columns of one zone: its days, one flags byte per slot and a chunk number per series
//! and day.

use super::chunk::{Chunk, ChunkPool, N, NO_CHUNK};
use super::span::day_spans;
use gridprint_core::derived::{DerivedDay, SeriesKey, SlotFlags};
use gridprint_core::slot::{Slot, SlotRange};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Derived outputs of one zone, columnar (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct DerivedZone {
    pub(super) days: Vec<i64>,
    flags: Vec<SlotFlags>,
    columns: BTreeMap<SeriesKey, Vec<u32>>,
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
        &self.flags[pos * N..(pos + 1) * N]
    }

    /// The 96 flags of a day number, if the zone has that day.
    pub fn flags_of_day(&self, day: i64) -> Option<&[SlotFlags]> {
        self.days
            .binary_search(&day)
            .ok()
            .map(|pos| self.flags(pos))
    }

    /// The column of a series: one chunk number per day position.
    pub fn column(&self, key: &SeriesKey) -> Option<&[u32]> {
        self.columns.get(key).map(|c| c.as_slice())
    }

    /// Every series key the zone has, in key order.
    pub fn columns(&self) -> impl Iterator<Item = (&SeriesKey, &[u32])> {
        self.columns.iter().map(|(k, c)| (k, c.as_slice()))
    }

    /// The 96 values of a column at a day position, if that day has any.
    pub fn chunk(&self, column: &[u32], pos: usize) -> Option<Chunk> {
        match column.get(pos) {
            Some(&c) if c != NO_CHUNK => self.pool.get(c),
            _ => None,
        }
    }

    /// The 96 values of a column on a day number, if the zone has that day and the column a value.
    pub fn chunk_of_day(&self, column: &[u32], day: i64) -> Option<Chunk> {
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
        self.flags
            .extend(std::iter::repeat_n(SlotFlags::default(), N));
        for col in self.columns.values_mut() {
            col.push(NO_CHUNK);
        }
        self.write_day(pool, pos, day);
    }

    /// Writes the flags and series of `day` at position `pos`, whose columns hold [`NO_CHUNK`].
    fn write_day(&mut self, pool: &mut ChunkPool, pos: usize, day: &DerivedDay) {
        if day.flags.len() == N {
            self.flags[pos * N..(pos + 1) * N].copy_from_slice(&day.flags);
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
                .or_insert_with(|| vec![NO_CHUNK; len]);
            col[pos] = chunk;
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
                self.flags.drain(pos * N..(pos + 1) * N);
                for col in self.columns.values_mut() {
                    dropped += usize::from(col.remove(pos) != NO_CHUNK);
                }
            }
            (Ok(pos), Some(d)) => {
                self.flags[pos * N..(pos + 1) * N].fill(SlotFlags::default());
                for col in self.columns.values_mut() {
                    dropped += usize::from(std::mem::replace(&mut col[pos], NO_CHUNK) != NO_CHUNK);
                }
                self.write_day(pool, pos, d);
            }
            (Err(pos), Some(d)) => {
                self.days.insert(pos, day);
                self.flags.splice(
                    pos * N..pos * N,
                    std::iter::repeat_n(SlotFlags::default(), N),
                );
                for col in self.columns.values_mut() {
                    col.insert(pos, NO_CHUNK);
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
            self.columns.retain(|_, c| c.iter().any(|&x| x != NO_CHUNK));
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
        self.flags = keep
            .iter()
            .flat_map(|&p| self.flags[p * N..(p + 1) * N].iter().copied())
            .collect();
        for col in self.columns.values_mut() {
            *col = keep.iter().map(|&p| col[p]).collect();
        }
        self.columns.retain(|_, c| c.iter().any(|&x| x != NO_CHUNK));
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
            + self.flags.capacity()
            + self
                .columns
                .iter()
                .map(|(k, c)| key_bytes(k) + 24 + c.capacity() * 4)
                .sum::<usize>()
    }
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
