//! The in-memory cache every query is answered from: derived outputs and raw inputs of every zone,
//! columnar, in day chunks of 96 slots, loaded once from the store and swapped whole on refresh.
//!
//! Layout ([`DataCache::memory_bytes`] reports the size; a year of 52 zones computed by the real
//! engine from `gridprint_compute::synthetic` inputs, 897,260 derived chunks, takes 270 MiB, against
//! 334 MiB as plain `f32`s):
//!
//! - **Derived** ([`DerivedZone`], one per zone index): the zone's days sorted, one byte of
//!   [`SlotFlags`] per slot, and per [`SeriesKey`] a column of chunk numbers (one `u32` per day,
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
//! - The [`CacheVersion`] it was built from: the store's `data_version` and its input extent.
//!
//! Loading reads inputs and derived days in batches of [`LoadOptions::batch_days`] days (one by
//! default: with 7-day batches a year's load left ~15 MiB more RSS behind), so the transient
//! memory of a load stays small. A reload builds the new cache beside the old one, so
//! its peak is about twice the cache. [`SharedCache`] holds the current cache behind an
//! `ArcSwap`: readers take an `Arc` snapshot without locking, [`SharedCache::refresh`] rebuilds when
//! the store's version changed and swaps the new cache in atomically (a full reload; in-flight
//! requests finish on the old snapshot).

use arc_swap::ArcSwap;
use gridprint_core::derived::{DerivedDay, SeriesKey, SlotFlags};
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_core::zone::{ZoneCode, ZoneIdx};
use gridprint_store::{Result as StoreResult, Store};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

const N: usize = SLOTS_PER_DAY as usize;

/// Chunk number meaning "no value on this day".
pub const NO_CHUNK: u32 = u32::MAX;

/// Data state byte meaning "no input point in this slot".
pub const ABSENT: u8 = u8::MAX;

/// What a cache was built from; a refresh reloads when the store reports something else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheVersion {
    /// `DerivedStore::data_version` (bumped by every published computation).
    pub data_version: i64,
    /// `InputStore::input_extent` (changes when inputs are added beyond the known range).
    pub input_extent: Option<SlotRange>,
}

impl CacheVersion {
    /// Reads the store's current version (two cheap queries).
    pub fn of(store: &dyn Store) -> StoreResult<CacheVersion> {
        Ok(CacheVersion {
            data_version: store.data_version()?,
            input_extent: store.input_extent()?,
        })
    }
}

/// How much to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOptions {
    /// Only these day numbers (days since 1970-01-01); `None`: every stored day. Without a window,
    /// derived days are read over the input extent (the compute writes days only where inputs
    /// exist); a store without inputs is read whole.
    pub days: Option<std::ops::Range<i64>>,
    /// Days per store query while loading (bounds the transient memory of a load).
    pub batch_days: i64,
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions {
            days: None,
            batch_days: 1,
        }
    }
}

/// One day of a zone or series inside a query window: position `pos` in the day list, and the slot
/// indices `lo..hi` of that day that lie in the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DaySpan {
    pub pos: usize,
    pub day: i64,
    pub lo: usize,
    pub hi: usize,
}

impl DaySpan {
    /// The slot at index `i` of this day.
    pub fn slot(&self, i: usize) -> Slot {
        Slot(self.day * SLOTS_PER_DAY + i as i64)
    }
}

/// The days of a sorted day list that intersect `range`, with the slot bounds inside each day.
pub fn day_spans(days: &[i64], range: SlotRange) -> impl Iterator<Item = DaySpan> + '_ {
    let (first_day, last_slot) = if range.is_empty() {
        (i64::MAX, Slot(i64::MIN))
    } else {
        (range.start.day(), range.end.offset(-1))
    };
    let last_day = last_slot.day();
    let from = days.partition_point(|&d| d < first_day);
    days[from..]
        .iter()
        .enumerate()
        .take_while(move |(_, d)| **d <= last_day)
        .map(move |(k, &day)| DaySpan {
            pos: from + k,
            day,
            lo: if day == first_day {
                range.start.index_in_day()
            } else {
                0
            },
            hi: if day == last_day {
                last_slot.index_in_day() + 1
            } else {
                N
            },
        })
}

/// Derived outputs of one zone, columnar (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct DerivedZone {
    days: Vec<i64>,
    flags: Vec<SlotFlags>,
    columns: BTreeMap<SeriesKey, Vec<u32>>,
    /// The chunks of every zone (shared by the zones of one cache).
    pool: Arc<ChunkPool>,
}

/// Bytes per page of a [`ChunkPool`]: 48 MiB, above glibc's largest dynamic mmap threshold (32 MiB),
/// so every page is a mapping of its own, allocated at its final size.
const PAGE_BYTES: usize = 48 << 20;

/// Zero bytes after the last chunk of a page, so that unpacking may always read 8 bytes at once.
/// (A page holds at most `PAGE_BYTES` bytes, its tail included.)
const PAGE_TAIL: usize = 8;

/// Flag in a chunk's header byte: the chunk holds a sentinel bit pattern (see [`ChunkPool`]).
const HAS_SENTINEL: u8 = 0x80;

/// The 96 values of one day of a derived column, as [`DerivedZone::chunk`] returns them.
pub type Chunk = [f32; N];

/// The `f32` chunks of every zone of a cache, bit-packed losslessly ("frame of reference" on the bit
/// patterns): a chunk is stored as a header byte (bit width `w` of its codes, [`HAS_SENTINEL`]),
/// the smallest bit pattern `base` of its values (`u32`, little-endian), with the sentinel the
/// `u32` bit pattern it stands for, then 96 codes of `w` bits each, `bits - base`. The one value
/// left out of the range (the first NaN pattern of a chunk that mixes NaN with numbers) takes the
/// code of all ones, so gaps do not widen a chunk to 32 bits. Values of one day of a series lie
/// within a few binary orders of magnitude, so their patterns share the sign, exponent and top
/// mantissa bits: about 24 bits a value instead of 32; a constant chunk (e.g. all zero) takes its
/// 5-byte header only and is stored once per cache (later ones share its number). Decoding gives
/// back the exact bits.
///
/// Chunks are appended to pages that never grow (loading a year neither reallocates nor fragments
/// the heap; one doubling vector per zone left a load's RSS at 2.4 times the live bytes); a chunk
/// never straddles two pages, and only the last page is shrunk when the load ends. Chunk numbers
/// grow with the pages: `offsets` maps a chunk number to its byte offset in its page, `first`
/// gives each page's first chunk number.
#[derive(Debug)]
pub struct ChunkPool {
    /// Page size ([`PAGE_BYTES`]; smaller in tests).
    page_bytes: usize,
    pages: Vec<Vec<u8>>,
    first: Vec<u32>,
    offsets: Vec<u32>,
    /// Constant chunks stored during the load, by bit pattern: shared instead of repeated.
    constants: HashMap<u32, u32>,
}

impl Default for ChunkPool {
    fn default() -> ChunkPool {
        ChunkPool::with_page_bytes(PAGE_BYTES)
    }
}

impl ChunkPool {
    fn with_page_bytes(page_bytes: usize) -> ChunkPool {
        ChunkPool {
            page_bytes,
            pages: Vec::new(),
            first: Vec::new(),
            offsets: Vec::new(),
            constants: HashMap::new(),
        }
    }

    /// Stores a chunk of 96 values and returns its number.
    fn push(&mut self, vals: &[f32]) -> u32 {
        let mut bits = [0u32; N];
        for (b, v) in bits.iter_mut().zip(vals) {
            *b = v.to_bits();
        }
        // The first NaN pattern is the sentinel when the chunk also holds other values.
        let sentinel = bits
            .iter()
            .copied()
            .find(|&b| f32::from_bits(b).is_nan())
            .filter(|&s| bits.iter().any(|&b| b != s));
        let others = || bits.iter().copied().filter(move |&b| Some(b) != sentinel);
        let base = others().min().unwrap_or(0);
        let span = u64::from(others().max().unwrap_or(0) - base);
        let top = span + u64::from(sentinel.is_some());
        let width = 64 - top.leading_zeros();
        if width == 0
            && let Some(&c) = self.constants.get(&base)
        {
            return c;
        }
        let len = 5 + if sentinel.is_some() { 4 } else { 0 } + (N * width as usize).div_ceil(8);
        // Every page ends with PAGE_TAIL zero bytes; the next chunk of the page goes over them.
        let page = match self.pages.last_mut() {
            Some(p) if p.len() + len <= self.page_bytes => {
                p.truncate(p.len() - PAGE_TAIL);
                p
            }
            _ => {
                self.pages.push(Vec::with_capacity(self.page_bytes));
                self.first.push(self.offsets.len() as u32);
                self.pages.last_mut().expect("just pushed")
            }
        };
        let at = page.len();
        page.push(width as u8 | if sentinel.is_some() { HAS_SENTINEL } else { 0 });
        page.extend_from_slice(&base.to_le_bytes());
        if let Some(s) = sentinel {
            page.extend_from_slice(&s.to_le_bytes());
        }
        let all_ones = (1u64 << width) - 1;
        // Codes little-endian, bit after bit; at most 7 + 33 bits wait in `acc`.
        let (mut acc, mut held) = (0u64, 0);
        for &b in &bits {
            let code = if Some(b) == sentinel {
                all_ones
            } else {
                u64::from(b - base)
            };
            acc |= code << held;
            held += width;
            while held >= 8 {
                page.push(acc as u8);
                (acc, held) = (acc >> 8, held - 8);
            }
        }
        if held > 0 {
            page.push(acc as u8);
        }
        page.extend_from_slice(&[0; PAGE_TAIL]);
        let c = self.offsets.len() as u32;
        self.offsets.push(at as u32);
        if width == 0 {
            self.constants.insert(base, c);
        }
        c
    }

    /// The 96 values of a chunk.
    fn get(&self, c: u32) -> Option<Chunk> {
        let at = *self.offsets.get(c as usize)? as usize;
        let page = &self.pages[self.first.partition_point(|&f| f <= c) - 1];
        let word = |i: usize| u64::from_le_bytes(page[i..i + 8].try_into().expect("8 bytes"));
        let head = page[at];
        let width = (head & !HAS_SENTINEL) as usize;
        let base = word(at + 1) as u32;
        let (sentinel, data) = if head & HAS_SENTINEL != 0 {
            (Some(word(at + 5) as u32), at + 9)
        } else {
            (None, at + 5)
        };
        let all_ones = (1u64 << width) - 1;
        let mut out = [0.0; N];
        for (i, v) in out.iter_mut().enumerate() {
            let bit = i * width;
            let code = (word(data + bit / 8) >> (bit % 8)) & all_ones;
            *v = f32::from_bits(match sentinel {
                Some(s) if code == all_ones => s,
                _ => base.wrapping_add(code as u32),
            });
        }
        Some(out)
    }

    fn shrink(&mut self) {
        if let Some(p) = self.pages.last_mut() {
            p.shrink_to_fit();
        }
        self.pages.shrink_to_fit();
        self.first.shrink_to_fit();
        self.offsets.shrink_to_fit();
        self.constants = HashMap::new();
    }

    /// Chunks held (a shared constant chunk counts once).
    fn chunks(&self) -> usize {
        self.offsets.len()
    }

    fn memory_bytes(&self) -> usize {
        self.pages.capacity() * 24
            + self.pages.iter().map(|p| p.capacity()).sum::<usize>()
            + (self.first.capacity() + self.offsets.capacity()) * 4
    }
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

    fn add_day(&mut self, pool: &mut ChunkPool, day: &DerivedDay) {
        let pos = self.days.len();
        self.days.push(day.day);
        if day.flags.len() == N {
            self.flags.extend_from_slice(&day.flags);
        } else {
            self.flags
                .extend(std::iter::repeat_n(SlotFlags::default(), N));
        }
        for col in self.columns.values_mut() {
            col.push(NO_CHUNK);
        }
        for (key, vals) in &day.series {
            if vals.len() != N || !vals.iter().any(|v| v.is_finite()) {
                continue;
            }
            let chunk = pool.push(vals);
            let col = self
                .columns
                .entry(key.clone())
                .or_insert_with(|| vec![NO_CHUNK; pos + 1]);
            col[pos] = chunk;
        }
    }

    /// Sorts days that arrived out of order; of a day given twice the last one wins.
    fn finish(&mut self) {
        if self.days.windows(2).all(|w| w[0] < w[1]) {
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

    fn memory_bytes(&self) -> usize {
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

/// One raw input series (generation of a type, load, or one directed flow), columnar by day (see
/// the module documentation): per day a value chunk in the cache's [`ChunkPool`] and runs of equal
/// (data state, datasource) slots.
#[derive(Debug, Clone, Default)]
pub struct InputSeries {
    days: Vec<i64>,
    /// Value chunk of each day (absent slots hold NaN).
    chunks: Vec<u32>,
    /// End of each day's runs in `runs` (a day's runs start where the previous day's end).
    run_ends: Vec<u32>,
    /// Runs of slots with the same state and datasource, in slot order within a day: see [`run`].
    runs: Vec<u32>,
    /// Days written during the load and not yet packed (empty once loaded).
    pending: BTreeMap<i64, Box<PlainDay>>,
    /// The chunks of every zone and series (shared by the whole cache).
    pool: Arc<ChunkPool>,
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
    /// Datasource ids (see [`DataCache::datasource`]); 0 where absent.
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

    fn day_runs(&self, pos: usize) -> &[u32] {
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
    fn set(&mut self, pool: &ChunkPool, slot: Slot, mw: f64, state: DataState, source: u16) {
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
    fn flush(&mut self, pool: &mut ChunkPool) {
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

    fn push_day(&mut self, pool: &mut ChunkPool, day: i64, d: &PlainDay) {
        self.days.push(day);
        self.chunks.push(pool.push(&d.values));
        for i in 0..N {
            if i == 0 || (d.states[i], d.sources[i]) != (d.states[i - 1], d.sources[i - 1]) {
                self.runs.push(run(i, d.states[i], d.sources[i]));
            }
        }
        self.run_ends.push(self.runs.len() as u32);
    }

    fn shrink(&mut self) {
        self.days.shrink_to_fit();
        self.chunks.shrink_to_fit();
        self.run_ends.shrink_to_fit();
        self.runs.shrink_to_fit();
    }

    fn memory_bytes(&self) -> usize {
        self.days.capacity() * 8
            + (self.chunks.capacity() + self.run_ends.capacity() + self.runs.capacity()) * 4
    }
}

/// Index of a zone's raw input series (numbers into [`DataCache::input_series`]).
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
    fn memory_bytes(&self) -> usize {
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

/// Sizes of a cache, for logs and the memory report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Zone-days with derived data.
    pub derived_zone_days: usize,
    /// Chunks (96 values each) held in the pool: days of derived columns and, since they share the
    /// pool, of raw input series (a shared constant chunk counts once).
    pub derived_chunks: usize,
    /// Raw input series (generation types, loads, directed flows).
    pub input_series: usize,
    /// Series-days of raw inputs held.
    pub input_series_days: usize,
    /// Distinct datasource strings.
    pub datasources: usize,
    /// Approximate bytes held (heap and inline).
    pub bytes: usize,
}

/// Everything the query functions read: derived outputs and raw inputs of every zone.
#[derive(Debug)]
pub struct DataCache {
    reference: Arc<ReferenceData>,
    version: CacheVersion,
    options: LoadOptions,
    derived: Vec<DerivedZone>,
    pool: Arc<ChunkPool>,
    /// For each origin zone, the zones whose days hold an `Exchange { origin }` column (ascending).
    destinations: Vec<Vec<ZoneIdx>>,
    inputs: Vec<ZoneInputs>,
    series: Vec<InputSeries>,
    datasources: Vec<String>,
}

/// For each origin zone, the zones that hold an exchange column naming it.
fn exchange_destinations(reference: &ReferenceData, derived: &[DerivedZone]) -> Vec<Vec<ZoneIdx>> {
    let mut out = vec![Vec::new(); reference.zones.len()];
    for (i, d) in derived.iter().enumerate() {
        for (k, _) in d.columns() {
            if let SeriesKey::Exchange { origin } = k
                && let Some(j) = reference.zones.index_of(origin)
            {
                out[j].push(i);
            }
        }
    }
    out
}

/// Builds the raw-input side of a cache point by point.
struct InputsBuilder<'r> {
    reference: &'r ReferenceData,
    inputs: Vec<ZoneInputs>,
    series: Vec<InputSeries>,
    by_key: HashMap<InputKey, u32>,
    datasources: Vec<String>,
    ds_ids: HashMap<String, u16>,
}

impl<'r> InputsBuilder<'r> {
    fn new(reference: &'r ReferenceData) -> Self {
        InputsBuilder {
            reference,
            inputs: vec![ZoneInputs::default(); reference.zones.len()],
            series: Vec::new(),
            by_key: HashMap::new(),
            datasources: Vec::new(),
            ds_ids: HashMap::new(),
        }
    }

    fn datasource(&mut self, s: &str) -> u16 {
        if let Some(&id) = self.ds_ids.get(s) {
            return id;
        }
        // More than 65,535 distinct datasources would be a bug upstream; fold the excess into the last.
        let id = self.datasources.len().min(u16::MAX as usize) as u16;
        if (id as usize) == self.datasources.len() {
            self.datasources.push(s.to_string());
        }
        self.ds_ids.insert(s.to_string(), id);
        id
    }

    fn add(&mut self, pool: &ChunkPool, p: InputPoint) {
        let id = match self.by_key.get(&p.key) {
            Some(&id) => id,
            None => {
                let zones = &self.reference.zones;
                let id = self.series.len() as u32;
                let used = match &p.key {
                    InputKey::Generation {
                        zone,
                        production_type,
                    } => match zones.index_of(zone) {
                        Some(z) => {
                            self.inputs[z].generation.push((*production_type, id));
                            true
                        }
                        None => false,
                    },
                    InputKey::Load { zone } => match zones.index_of(zone) {
                        Some(z) => {
                            self.inputs[z].load = Some(id);
                            true
                        }
                        None => false,
                    },
                    InputKey::Flow { from, to } => {
                        let (f, t) = (zones.index_of(from), zones.index_of(to));
                        if let Some(f) = f {
                            self.inputs[f].exports.push((to.clone(), id));
                        }
                        if let Some(t) = t {
                            self.inputs[t].imports.push((from.clone(), id));
                        }
                        f.is_some() || t.is_some()
                    }
                };
                if !used {
                    return;
                }
                self.series.push(InputSeries::default());
                self.by_key.insert(p.key.clone(), id);
                id
            }
        };
        let ds = self.datasource(&p.datasource);
        self.series[id as usize].set(pool, p.slot, p.mw, p.state, ds);
    }

    /// Packs the days written since the last flush into the pool.
    fn flush(&mut self, pool: &mut ChunkPool) {
        for s in &mut self.series {
            s.flush(pool);
        }
    }
}

impl DataCache {
    /// Loads every stored day (see [`LoadOptions`]) from the store.
    pub fn load(store: &dyn Store, reference: Arc<ReferenceData>) -> StoreResult<DataCache> {
        Self::load_with(store, reference, LoadOptions::default())
    }

    /// Loads with explicit options.
    pub fn load_with(
        store: &dyn Store,
        reference: Arc<ReferenceData>,
        options: LoadOptions,
    ) -> StoreResult<DataCache> {
        // The version is read first: a change published during the load shows up as a newer version
        // at the next refresh, never as a missed one.
        let version = CacheVersion::of(store)?;
        let batch = options.batch_days.max(1);
        let zones = &reference.zones;

        // One pool for the chunks of derived columns and input series (constant chunks shared).
        let mut pool = ChunkPool::default();
        let mut b = InputsBuilder::new(&reference);
        let input_days = version
            .input_extent
            .map(|e| clip_days(e.days(), options.days.as_ref()));
        if let Some(days) = &input_days {
            for (a, z) in batches(days.clone(), batch) {
                let range = SlotRange::new(Slot::first_of_day(a), Slot::first_of_day(z));
                for p in store.inputs_in_range(range)? {
                    b.add(&pool, p.point);
                }
                b.flush(&mut pool);
            }
        }
        let InputsBuilder {
            mut inputs,
            mut series,
            datasources,
            ..
        } = b;
        for zi in &mut inputs {
            zi.generation.sort_by_key(|(t, _)| *t);
            zi.imports.sort();
            zi.exports.sort();
        }
        for s in &mut series {
            s.shrink();
        }

        let mut derived = vec![DerivedZone::default(); zones.len()];
        let mut add_days = |days: Vec<DerivedDay>| {
            for d in days {
                if let Some(z) = zones.index_of(&d.zone) {
                    derived[z].add_day(&mut pool, &d);
                }
            }
        };
        match (&options.days, &input_days) {
            (Some(days), _) | (None, Some(days)) => {
                for (a, z) in batches(days.clone(), batch) {
                    add_days(store.derived_days(a..z)?);
                }
            }
            (None, None) => {
                // No input extent to bound the read: scan the plausible span (1970 to two years
                // from now) in batches, so a load never holds the decoded store at once, then read
                // whatever lies outside it (normally nothing).
                let span = 0..today() + 731;
                add_days(store.derived_days(i64::MIN..span.start)?);
                for (a, z) in batches(span.clone(), batch) {
                    add_days(store.derived_days(a..z)?);
                }
                add_days(store.derived_days(span.end..i64::MAX)?);
            }
        }
        pool.shrink();
        let pool = Arc::new(pool);
        for d in &mut derived {
            d.finish();
            d.pool = pool.clone();
        }
        for s in &mut series {
            s.pool = pool.clone();
        }
        let destinations = exchange_destinations(&reference, &derived);
        Ok(DataCache {
            reference,
            version,
            options,
            derived,
            pool,
            destinations,
            inputs,
            series,
            datasources,
        })
    }

    /// A cache without any data (start-up before the first load, tests).
    pub fn empty(reference: Arc<ReferenceData>) -> DataCache {
        let n = reference.zones.len();
        DataCache {
            reference,
            version: CacheVersion {
                data_version: i64::MIN,
                input_extent: None,
            },
            options: LoadOptions::default(),
            derived: vec![DerivedZone::default(); n],
            pool: Arc::default(),
            destinations: vec![Vec::new(); n],
            inputs: vec![ZoneInputs::default(); n],
            series: Vec::new(),
            datasources: Vec::new(),
        }
    }

    /// Rebuilds from the store if its version differs from this cache's; `None` when unchanged.
    /// (A full reload: cheap enough for a year of 52 zones, and always consistent.)
    pub fn refresh(&self, store: &dyn Store) -> StoreResult<Option<DataCache>> {
        if CacheVersion::of(store)? == self.version {
            return Ok(None);
        }
        DataCache::load_with(store, self.reference.clone(), self.options.clone()).map(Some)
    }

    /// The reference data the cache was built with.
    pub fn reference(&self) -> &Arc<ReferenceData> {
        &self.reference
    }

    /// The store version the cache was built from.
    pub fn version(&self) -> CacheVersion {
        self.version
    }

    /// The store's `data_version` the cache was built from (for ETags).
    pub fn data_version(&self) -> i64 {
        self.version.data_version
    }

    /// Derived outputs of a zone.
    pub fn derived(&self, zone: ZoneIdx) -> &DerivedZone {
        &self.derived[zone]
    }

    /// The zones consuming generation of `origin` somewhere in the cache: those whose days hold an
    /// `Exchange { origin }` column, ascending (flow-share reads them).
    pub fn exchange_destinations(&self, origin: ZoneIdx) -> &[ZoneIdx] {
        &self.destinations[origin]
    }

    /// Raw-input index of a zone.
    pub fn inputs(&self, zone: ZoneIdx) -> &ZoneInputs {
        &self.inputs[zone]
    }

    /// A raw input series by number.
    pub fn input_series(&self, id: u32) -> &InputSeries {
        &self.series[id as usize]
    }

    /// The datasource string of an id.
    pub fn datasource(&self, id: u16) -> &str {
        self.datasources
            .get(id as usize)
            .map(String::as_str)
            .unwrap_or("")
    }

    /// Sizes and approximate memory held.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            derived_zone_days: self.derived.iter().map(|d| d.days.len()).sum(),
            derived_chunks: self.pool.chunks(),
            input_series: self.series.len(),
            input_series_days: self.series.iter().map(|s| s.days.len()).sum(),
            datasources: self.datasources.len(),
            bytes: self.memory_bytes(),
        }
    }

    /// Approximate bytes held by the cache (vector capacities plus key strings; allocator overhead
    /// and the shared reference data not counted).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self
                .derived
                .iter()
                .map(|d| std::mem::size_of::<DerivedZone>() + d.memory_bytes())
                .sum::<usize>()
            + self.pool.memory_bytes()
            + self
                .inputs
                .iter()
                .map(|z| std::mem::size_of::<ZoneInputs>() + z.memory_bytes())
                .sum::<usize>()
            + self
                .series
                .iter()
                .map(|s| std::mem::size_of::<InputSeries>() + s.memory_bytes())
                .sum::<usize>()
            + self
                .datasources
                .iter()
                .map(|s| 24 + s.capacity())
                .sum::<usize>()
    }
}

/// Today's day number (UTC).
fn today() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64 / 86_400)
        .unwrap_or(0)
}

fn clip_days(
    days: std::ops::Range<i64>,
    window: Option<&std::ops::Range<i64>>,
) -> std::ops::Range<i64> {
    match window {
        Some(w) => days.start.max(w.start)..days.end.min(w.end).max(days.start.max(w.start)),
        None => days,
    }
}

fn batches(days: std::ops::Range<i64>, size: i64) -> impl Iterator<Item = (i64, i64)> {
    let end = days.end;
    (days.start..days.end)
        .step_by(size as usize)
        .map(move |a| (a, (a + size).min(end)))
}

/// The current cache, swappable while readers keep answering from their snapshot.
pub struct SharedCache {
    current: ArcSwap<DataCache>,
    refreshing: Mutex<()>,
}

impl std::fmt::Debug for SharedCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedCache")
            .field("version", &self.current.load().version)
            .finish()
    }
}

impl SharedCache {
    /// Wraps a loaded cache.
    pub fn new(cache: DataCache) -> SharedCache {
        SharedCache {
            current: ArcSwap::from_pointee(cache),
            refreshing: Mutex::new(()),
        }
    }

    /// The current snapshot (lock-free; keep it for the whole request).
    pub fn get(&self) -> Arc<DataCache> {
        self.current.load_full()
    }

    /// Replaces the cache.
    pub fn replace(&self, cache: DataCache) {
        self.current.store(Arc::new(cache));
    }

    /// Reloads when the store's version changed; returns whether a new cache was swapped in.
    /// Concurrent calls are serialised, so only one reload runs at a time.
    pub fn refresh(&self, store: &dyn Store) -> StoreResult<bool> {
        let _guard = self.refreshing.lock().unwrap_or_else(|p| p.into_inner());
        match self.get().refresh(store)? {
            Some(new) => {
                self.replace(new);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_spans_cut_the_window() {
        let days = [10, 11, 13];
        let r = SlotRange::new(Slot(10 * 96 + 5), Slot(13 * 96 + 2));
        let spans: Vec<_> = day_spans(&days, r).collect();
        assert_eq!(spans.len(), 3);
        assert_eq!((spans[0].pos, spans[0].lo, spans[0].hi), (0, 5, 96));
        assert_eq!((spans[1].pos, spans[1].lo, spans[1].hi), (1, 0, 96));
        assert_eq!((spans[2].pos, spans[2].lo, spans[2].hi), (2, 0, 2));
        let r = SlotRange::new(Slot(12 * 96), Slot(13 * 96));
        assert_eq!(day_spans(&days, r).count(), 0);
        let r = SlotRange::new(Slot(11 * 96 + 3), Slot(11 * 96 + 4));
        let s: Vec<_> = day_spans(&days, r).collect();
        assert_eq!((s[0].pos, s[0].lo, s[0].hi), (1, 3, 4));
    }

    #[test]
    fn derived_days_out_of_order_are_sorted_and_the_last_duplicate_wins() {
        use gridprint_core::quality::ZoneStatus;
        let code = gridprint_core::zone::ZoneCode::parse("ES").unwrap();
        let key = SeriesKey::Mix(ProductionType::Coal);
        let day = |d: i64, v: f64| {
            let mut x = DerivedDay::new(code.clone(), d);
            x.flags[0] = SlotFlags::new(ZoneStatus::Complete, true, true);
            x.set(key.clone(), 0, v);
            x
        };
        let mut z = DerivedZone::default();
        let mut pool = ChunkPool::default();
        for (d, v) in [(5, 1.0), (3, 2.0), (5, 3.0)] {
            z.add_day(&mut pool, &day(d, v));
        }
        z.finish();
        z.pool = Arc::new(pool);
        assert_eq!(z.days(), &[3, 5]);
        let col = z.column(&key).unwrap();
        assert_eq!(z.chunk(col, 0).unwrap()[0], 2.0);
        assert_eq!(z.chunk(col, 1).unwrap()[0], 3.0);
        assert!(z.flags(1)[0].present() && !z.flags(1)[1].present());
    }

    /// Bit patterns of values, for exact comparisons (NaN payloads and the sign of zero included).
    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    fn chunk_of(f: impl Fn(usize) -> f32) -> Vec<f32> {
        (0..N).map(f).collect()
    }

    #[test]
    fn chunk_pool_gives_back_the_exact_bits() {
        let nan2 = f32::from_bits(0x7fc0_0001);
        let cases: Vec<Vec<f32>> = vec![
            chunk_of(|i| 100.0 + i as f32 * 0.37),
            chunk_of(|i| 1e-3 * (i as f32 + 1.0).powi(3)),
            chunk_of(|i| {
                if i % 2 == 0 {
                    -5.5 * i as f32
                } else {
                    7.25 * i as f32
                }
            }),
            chunk_of(|i| if i < 40 { f32::NAN } else { 300.0 - i as f32 }),
            chunk_of(|i| {
                if i == 3 {
                    f32::NAN
                } else if i == 9 {
                    nan2
                } else {
                    1.5
                }
            }),
            chunk_of(|i| match i % 5 {
                0 => f32::INFINITY,
                1 => f32::NEG_INFINITY,
                2 => -0.0,
                3 => 0.0,
                _ => f32::MIN_POSITIVE,
            }),
            chunk_of(|i| if i % 3 == 0 { 0.0 } else { i as f32 }),
            chunk_of(|i| f32::from_bits(0x8000_0000u32.wrapping_sub(i as u32))),
            chunk_of(|i| f32::from_bits(u32::MAX - i as u32 * 7)),
            chunk_of(|_| 42.0),
            chunk_of(|i| if i == 95 { f32::NAN } else { 42.0 }),
        ];
        let mut pool = ChunkPool::with_page_bytes(2_000);
        let ids: Vec<u32> = cases.iter().map(|c| pool.push(c)).collect();
        pool.shrink();
        assert!(
            pool.pages.len() > 1,
            "small pages: chunks spread over several"
        );
        for (c, id) in cases.iter().zip(&ids) {
            assert_eq!(bits(&pool.get(*id).unwrap()), bits(c));
        }
        assert_eq!(pool.get(ids.len() as u32), None);
        // Narrow values take fewer bytes than 96 × 4.
        let mut small = ChunkPool::default();
        small.push(&cases[0]);
        small.shrink();
        assert!(
            small.pages[0].len() < 96 * 3,
            "{} bytes",
            small.pages[0].len()
        );
    }

    #[test]
    fn constant_chunks_are_stored_once() {
        let mut pool = ChunkPool::default();
        let zero = pool.push(&[0.0; N]);
        let other = pool.push(&chunk_of(|i| i as f32));
        assert_eq!(pool.push(&[0.0; N]), zero);
        let neg_zero = pool.push(&[-0.0; N]);
        assert_ne!(neg_zero, zero, "-0.0 and 0.0 differ in their bits");
        assert_eq!(pool.push(&[-0.0; N]), neg_zero);
        pool.shrink();
        assert_eq!(pool.chunks(), 3);
        assert_eq!(bits(&pool.get(zero).unwrap()), bits(&[0.0; N]));
        assert_eq!(bits(&pool.get(neg_zero).unwrap()), bits(&[-0.0; N]));
        assert_eq!(pool.get(other).unwrap()[95], 95.0);
    }

    #[test]
    fn days_without_a_value_keep_no_chunk() {
        use gridprint_core::quality::ZoneStatus;
        let code = gridprint_core::zone::ZoneCode::parse("ES").unwrap();
        let (a, b) = (SeriesKey::Generation, SeriesKey::Consumption);
        let mut z = DerivedZone::default();
        let mut pool = ChunkPool::default();
        for d in 0..3 {
            let mut x = DerivedDay::new(code.clone(), d);
            x.flags[0] = SlotFlags::new(ZoneStatus::Complete, true, true);
            if d != 1 {
                for i in 0..N {
                    x.set(a.clone(), i, 0.0);
                }
            }
            if d == 2 {
                x.set(b.clone(), 5, 7.0);
            }
            z.add_day(&mut pool, &x);
        }
        z.finish();
        pool.shrink();
        z.pool = Arc::new(pool);
        let (ca, cb) = (z.column(&a).unwrap(), z.column(&b).unwrap());
        assert_eq!(
            ca,
            &[ca[0], NO_CHUNK, ca[0]],
            "all-zero days share one chunk"
        );
        assert_eq!(&cb[..2], &[NO_CHUNK, NO_CHUNK]);
        assert!(z.chunk(ca, 1).is_none() && z.chunk(cb, 0).is_none());
        assert_eq!(bits(&z.chunk(ca, 2).unwrap()), bits(&[0.0; N]));
        assert!(z.chunk(cb, 2).unwrap()[4].is_nan());
        assert_eq!(z.chunk_of_day(cb, 2).unwrap()[5], 7.0);
        assert!(z.chunk_of_day(cb, 7).is_none());
    }

    /// Packs the pending days of a test series into `pool` and shares the pool with it.
    fn finish_series(s: &mut InputSeries, mut pool: ChunkPool) {
        s.flush(&mut pool);
        s.shrink();
        pool.shrink();
        s.pool = Arc::new(pool);
    }

    #[test]
    fn input_series_inserts_out_of_order_days() {
        let mut s = InputSeries::default();
        let mut pool = ChunkPool::default();
        s.set(&pool, Slot(5 * 96 + 1), 1.0, DataState::Official, 0);
        s.flush(&mut pool);
        // A day before the packed one, and a point into the packed day (unpacked, then repacked).
        s.set(&pool, Slot(3 * 96 + 2), 2.0, DataState::Estimated, 1);
        s.set(&pool, Slot(5 * 96 + 3), 3.0, DataState::Official, 0);
        s.flush(&mut pool);
        s.set(&pool, Slot(4 * 96), 4.0, DataState::Missing, 2);
        finish_series(&mut s, pool);
        assert_eq!(s.days(), &[3, 4, 5]);
        let mut got = Vec::new();
        s.for_each_point(SlotRange::new(Slot(0), Slot(1000)), |sl, v, st, ds| {
            got.push((sl.0, v, st, ds))
        });
        assert_eq!(
            got,
            vec![
                (3 * 96 + 2, 2.0, DataState::Estimated, 1),
                (4 * 96, 4.0, DataState::Missing, 2),
                (5 * 96 + 1, 1.0, DataState::Official, 0),
                (5 * 96 + 3, 3.0, DataState::Official, 0)
            ]
        );
    }

    /// The day a series must read back: what `set` was given, NaN / ABSENT / 0 elsewhere.
    fn expect_day(points: &[(usize, f64, DataState, u16)]) -> PlainDay {
        let mut d = PlainDay::default();
        for &(i, mw, st, ds) in points {
            d.values[i] = if mw.is_finite() { mw as f32 } else { f32::NAN };
            d.states[i] = st as u8;
            d.sources[i] = ds;
        }
        d
    }

    fn assert_same_day(got: &PlainDay, want: &PlainDay) {
        assert_eq!(bits(&got.values), bits(&want.values));
        assert_eq!(got.states, want.states);
        assert_eq!(got.sources, want.sources);
    }

    #[test]
    fn input_days_round_trip_bit_exact_with_mixed_states_and_sources() {
        use DataState::*;
        let full = |st: DataState, ds: u16| -> Vec<(usize, f64, DataState, u16)> {
            (0..N)
                .map(|i| (i, 1000.0 + i as f64 * 0.123, st, ds))
                .collect()
        };
        let mut days: Vec<Vec<(usize, f64, DataState, u16)>> = vec![
            // Constant state and source: one run.
            full(Official, 3),
            // Estimated gap in the middle of official data.
            full(Official, 3)
                .into_iter()
                .map(|(i, v, st, ds)| {
                    (i, v, if (40..52).contains(&i) { Estimated } else { st }, ds)
                })
                .collect(),
            // Datasource changes mid-day (same state).
            full(Official, 1)
                .into_iter()
                .map(|(i, v, st, ds)| (i, v, st, if i >= 48 { 7 } else { ds }))
                .collect(),
            // ABSENT slots: the day starts late, has a hole, and ends early.
            full(Estimated, 2)
                .into_iter()
                .filter(|p| (5..30).contains(&p.0) || (33..90).contains(&p.0))
                .collect(),
            // A single point; values that need care (negative zero, NaN, infinities, tiny, huge).
            vec![(17, -0.0, Missing, 0)],
            vec![
                (0, -0.0, Official, 0),
                (1, 0.0, Official, 0),
                (2, f64::NAN, Missing, 0),
                (3, f64::INFINITY, Estimated, 9),
                (4, -1e-40, Official, u16::MAX),
                (5, 3e38, Official, u16::MAX),
                (95, -123.456, Estimated, 1),
            ],
            // Every slot a different (state, source).
            (0..N)
                .map(|i| {
                    (
                        i,
                        i as f64,
                        DataState::from_u8((i % 3) as u8).unwrap(),
                        i as u16,
                    )
                })
                .collect(),
            // Missing points with a value of zero, and a constant value.
            full(Missing, 0)
                .into_iter()
                .map(|(i, _, st, ds)| (i, 0.0, st, ds))
                .collect(),
        ];
        // A pseudo-random day as well.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        days.push(
            (0..N)
                .filter_map(|i| {
                    let r = rnd();
                    (r % 5 != 0).then(|| {
                        let st = DataState::from_u8(((r >> 8) % 3) as u8).unwrap();
                        let ds = ((r >> 16) % 3) as u16;
                        (i, (r >> 32) as f64 / 1e3 - 2e6, st, ds)
                    })
                })
                .collect(),
        );
        // Written in both day orders, with a flush after every day, after all, or in between.
        for (order, flush_every) in [(false, 1), (true, 1), (false, 100), (true, 3)] {
            let mut s = InputSeries::default();
            let mut pool = ChunkPool::with_page_bytes(1_000);
            let mut idx: Vec<usize> = (0..days.len()).collect();
            if order {
                idx.reverse();
            }
            for (k, &d) in idx.iter().enumerate() {
                // Points of a day in reverse slot order: order within a day does not matter.
                for &(i, mw, st, ds) in days[d].iter().rev() {
                    s.set(&pool, Slot(d as i64 * 96 + i as i64), mw, st, ds);
                }
                if (k + 1) % flush_every == 0 {
                    s.flush(&mut pool);
                }
            }
            finish_series(&mut s, pool);
            assert_eq!(s.days(), (0..days.len() as i64).collect::<Vec<_>>());
            for (pos, pts) in days.iter().enumerate() {
                assert_same_day(&s.day(pos), &expect_day(pts));
            }
            // for_each_point: exactly the points written, in time order, none for ABSENT slots.
            let mut got = Vec::new();
            s.for_each_point(
                SlotRange::new(Slot(-5), Slot(days.len() as i64 * 96 + 5)),
                |sl, v, st, ds| got.push((sl.0, v.to_bits(), st, ds)),
            );
            let want: Vec<_> = days
                .iter()
                .enumerate()
                .flat_map(|(d, pts)| {
                    let mut pts = pts.clone();
                    pts.sort_by_key(|p| p.0);
                    pts.into_iter().map(move |(i, mw, st, ds)| {
                        let v = if mw.is_finite() { mw as f32 } else { f32::NAN };
                        ((d * 96 + i) as i64, v.to_bits(), st, ds)
                    })
                })
                .collect();
            assert_eq!(got, want);
            // Runs: one for a constant day, three for the gap, two for the source change.
            let runs = |pos: usize| s.day_runs(pos).len();
            assert_eq!((runs(0), runs(1), runs(2), runs(7)), (1, 3, 2, 1));
            assert_eq!(runs(3), 5, "absent, estimated, absent, estimated, absent");
            assert_eq!(runs(6), N);
        }
    }

    #[test]
    fn rewritten_points_replace_the_packed_ones() {
        let mut s = InputSeries::default();
        let mut pool = ChunkPool::default();
        for i in 0..N {
            s.set(
                &pool,
                Slot(10 * 96 + i as i64),
                5.0,
                DataState::Estimated,
                1,
            );
        }
        s.set(&pool, Slot(11 * 96), 6.0, DataState::Official, 2);
        s.flush(&mut pool);
        // A later batch brings the official value of one slot of the packed day 10.
        s.set(&pool, Slot(10 * 96 + 50), 7.5, DataState::Official, 2);
        finish_series(&mut s, pool);
        assert_eq!(s.days(), &[10, 11]);
        let d = s.day(0);
        assert_eq!((d.values[49], d.states[49], d.sources[49]), (5.0, 1, 1));
        assert_eq!((d.values[50], d.states[50], d.sources[50]), (7.5, 0, 2));
        assert_eq!((d.values[51], d.states[51], d.sources[51]), (5.0, 1, 1));
        let e = s.day(1);
        assert_eq!((e.values[0], e.states[0], e.sources[0]), (6.0, 0, 2));
        assert!(e.values[1].is_nan() && e.states[1] == ABSENT && e.sources[1] == 0);
        assert_eq!(s.day_runs(1).len(), 2);
    }

    #[test]
    fn constant_input_days_share_one_chunk_and_take_one_run() {
        let mut s = InputSeries::default();
        let mut pool = ChunkPool::default();
        for day in 0..30 {
            for i in 0..N {
                s.set(
                    &pool,
                    Slot(day * 96 + i as i64),
                    0.0,
                    DataState::Official,
                    4,
                );
            }
            s.flush(&mut pool);
        }
        assert_eq!(pool.chunks(), 1, "all-zero days share one chunk");
        finish_series(&mut s, pool);
        assert_eq!(s.runs.len(), 30);
        assert_eq!(s.memory_bytes(), 30 * (8 + 4 + 4 + 4));
        assert_same_day(
            &s.day(29),
            &expect_day(
                &(0..N)
                    .map(|i| (i, 0.0, DataState::Official, 4))
                    .collect::<Vec<_>>(),
            ),
        );
    }
}
