//! The chunk codec: the 96 `f32` values of one day, bit-packed losslessly into the pages of a
//! [`ChunkPool`] shared by every zone and series of a cache.

use gridprint_core::slot::SLOTS_PER_DAY;
use std::collections::HashMap;
use std::sync::Arc;

/// Values per chunk: the slots of one day.
pub(super) const N: usize = SLOTS_PER_DAY as usize;

/// Chunk number meaning "no value on this day".
pub const NO_CHUNK: u32 = u32::MAX;

/// Bytes per page of a [`ChunkPool`]: 48 MiB, above glibc's largest dynamic mmap threshold (32 MiB),
/// so every page is a mapping of its own, allocated at its final size.
const PAGE_BYTES: usize = 48 << 20;

/// Zero bytes after the last chunk of a page, so that unpacking may always read 8 bytes at once.
/// (A page holds at most `PAGE_BYTES` bytes, its tail included.)
pub(super) const PAGE_TAIL: usize = 8;

/// Flag in a chunk's header byte: the chunk holds a sentinel bit pattern (see [`ChunkPool`]).
const HAS_SENTINEL: u8 = 0x80;

/// The 96 values of one day of a derived column, as [`DerivedZone::chunk`](super::DerivedZone::chunk) returns them.
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
/// grow with the pages: each page keeps the byte offsets of its chunks, `first` gives each page's
/// first chunk number.
///
/// Pages are shared: [`ChunkPool::extend`] starts a pool holding the same pages (no copy) to which
/// an incremental refresh appends the chunks of the changed days on new pages, so a refresh costs
/// the changed days, not the history. Chunks of replaced days stay in the shared pages unreferenced
/// until the next full load.
#[derive(Debug)]
pub struct ChunkPool {
    /// Page size ([`PAGE_BYTES`]; smaller in tests).
    page_bytes: usize,
    pub(super) pages: Vec<Arc<Page>>,
    first: Vec<u32>,
    /// Chunks held, all pages together.
    count: u32,
    /// Constant chunks stored during the load, by bit pattern: shared instead of repeated.
    constants: HashMap<u32, u32>,
}

/// One page of a [`ChunkPool`]: packed chunks and the byte offset of each.
#[derive(Debug, Default)]
pub(super) struct Page {
    pub(super) bytes: Vec<u8>,
    offsets: Vec<u32>,
}

impl Default for ChunkPool {
    fn default() -> ChunkPool {
        ChunkPool::with_page_bytes(PAGE_BYTES)
    }
}

impl ChunkPool {
    pub(super) fn with_page_bytes(page_bytes: usize) -> ChunkPool {
        ChunkPool {
            page_bytes,
            pages: Vec::new(),
            first: Vec::new(),
            count: 0,
            constants: HashMap::new(),
        }
    }

    /// A pool holding the chunks of this one (its pages shared, not copied); chunks pushed to it
    /// go to new pages and get the numbers after this pool's.
    pub(super) fn extend(&self) -> ChunkPool {
        ChunkPool {
            page_bytes: self.page_bytes,
            pages: self.pages.clone(),
            first: self.first.clone(),
            count: self.count,
            constants: HashMap::new(),
        }
    }

    /// Stores a chunk of 96 values and returns its number.
    pub(super) fn push(&mut self, vals: &[f32]) -> u32 {
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
        // A page shared with another pool is never written to: a new page starts instead.
        let fits = self
            .pages
            .last_mut()
            .and_then(Arc::get_mut)
            .is_some_and(|p| p.bytes.len() + len <= self.page_bytes);
        if !fits {
            self.pages.push(Arc::new(Page {
                bytes: Vec::with_capacity(self.page_bytes),
                offsets: Vec::new(),
            }));
            self.first.push(self.count);
        }
        let page = self
            .pages
            .last_mut()
            .and_then(Arc::get_mut)
            .expect("the last page is this pool's own");
        if fits {
            page.bytes.truncate(page.bytes.len() - PAGE_TAIL);
        }
        let at = page.bytes.len();
        page.offsets.push(at as u32);
        let bytes = &mut page.bytes;
        bytes.push(width as u8 | if sentinel.is_some() { HAS_SENTINEL } else { 0 });
        bytes.extend_from_slice(&base.to_le_bytes());
        if let Some(s) = sentinel {
            bytes.extend_from_slice(&s.to_le_bytes());
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
                bytes.push(acc as u8);
                (acc, held) = (acc >> 8, held - 8);
            }
        }
        if held > 0 {
            bytes.push(acc as u8);
        }
        bytes.extend_from_slice(&[0; PAGE_TAIL]);
        let c = self.count;
        self.count += 1;
        if width == 0 {
            self.constants.insert(base, c);
        }
        c
    }

    /// The 96 values of a chunk.
    pub(super) fn get(&self, c: u32) -> Option<Chunk> {
        if c >= self.count {
            return None;
        }
        let k = self.first.partition_point(|&f| f <= c) - 1;
        let page = &self.pages[k];
        let at = page.offsets[(c - self.first[k]) as usize] as usize;
        let page = &page.bytes;
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

    pub(super) fn shrink(&mut self) {
        if let Some(p) = self.pages.last_mut().and_then(Arc::get_mut) {
            p.bytes.shrink_to_fit();
            p.offsets.shrink_to_fit();
        }
        self.pages.shrink_to_fit();
        self.first.shrink_to_fit();
        self.constants = HashMap::new();
    }

    /// Chunks held (a shared constant chunk counts once).
    pub(super) fn chunks(&self) -> usize {
        self.count as usize
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.pages.capacity() * 8
            + self
                .pages
                .iter()
                .map(|p| 48 + p.bytes.capacity() + p.offsets.capacity() * 4)
                .sum::<usize>()
            + self.first.capacity() * 4
    }
}
