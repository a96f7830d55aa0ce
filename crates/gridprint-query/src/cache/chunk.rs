//! The chunk codec: the 96 `f32` values of one day, bit-packed losslessly into the pages of a
//! [`ChunkPool`] shared by every zone and series of a cache; full pages are moved out of the heap
//! into spill files ([`Spill`]), and the chunks read from them lately are kept decoded in a small
//! table ([`RecentChunks`]) so that overlapping windows over old days do not read them again.

use gridprint_core::slot::SLOTS_PER_DAY;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

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
/// patterns): a chunk is stored as a header byte (bit width `w` of its codes, `HAS_SENTINEL`),
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
/// Pages are shared: `ChunkPool::extend` starts a pool holding the same pages (no copy) to which
/// an incremental refresh appends the chunks of the changed days on new pages, so a refresh costs
/// the changed days, not the history. Chunks of replaced days stay in the shared pages unreferenced
/// until the next full load.
///
/// With a [`Spill`] directory, a page of old days is written to an unnamed file there as soon as it
/// is sealed (a new page starts, or the load ends) and read back with `pread`: the packed history
/// then lives in the kernel's page cache, shared and reclaimable, instead of the process heap, and
/// the heap holds only the small per-chunk offsets. A page that cannot be written (disk full) stays
/// on the heap, so nothing is lost.
#[derive(Debug)]
pub struct ChunkPool {
    /// Page size ([`PAGE_BYTES`]; smaller in tests).
    pub(super) page_bytes: usize,
    /// Where sealed pages go (`None`: they stay on the heap).
    spill: Option<Spill>,
    pub(super) pages: Vec<Arc<Page>>,
    first: Vec<u32>,
    /// Chunks held, all pages together.
    count: u32,
    /// Constant chunks stored during the load, by bit pattern: shared instead of repeated.
    constants: HashMap<u32, u32>,
    /// Chunks of spilled pages read lately (made at the first such read; each pool its own, so
    /// a chunk number always names the same chunk in it).
    recent: OnceLock<RecentChunks>,
}

/// Slots of a [`RecentChunks`] table: 16,384 decoded chunks, 6.3 MiB, about twenty zone-years of
/// one column.
pub(super) const RECENT_SLOTS: usize = 1 << 14;

/// Chunks of spilled pages read lately, decoded, by chunk number: chunk `c` may only sit in slot
/// `c % RECENT_SLOTS` (a newer read replaces it). A read from a spill file is a system call
/// (`pread`) per chunk and day, which cost answers over old days a quarter of their speed (issue
/// #31); a hit is a lock and a copy. One lock per slot, so concurrent readers rarely meet.
#[derive(Debug)]
struct RecentChunks {
    slots: Box<[RecentSlot]>,
}

/// One slot of [`RecentChunks`]: the chunk number it holds and its values, if any.
type RecentSlot = Mutex<Option<(u32, Chunk)>>;

impl RecentChunks {
    fn new() -> RecentChunks {
        RecentChunks {
            slots: (0..RECENT_SLOTS).map(|_| Mutex::new(None)).collect(),
        }
    }

    fn slot(&self, c: u32) -> &RecentSlot {
        &self.slots[c as usize % RECENT_SLOTS]
    }

    /// Chunk `c` if it is held.
    fn get(&self, c: u32) -> Option<Chunk> {
        match *self.slot(c).lock().ok()? {
            Some((held, chunk)) if held == c => Some(chunk),
            _ => None,
        }
    }

    /// Holds chunk `c` (in place of the one in its slot).
    fn put(&self, c: u32, chunk: &Chunk) {
        if let Ok(mut slot) = self.slot(c).lock() {
            *slot = Some((c, *chunk));
        }
    }

    /// Heap bytes held.
    fn memory_bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<RecentSlot>()
    }
}

/// Where and when a [`ChunkPool`] moves sealed pages out of the heap: pages whose chunks all
/// belong to days before `hot_from` are written to an unnamed file (`O_TMPFILE`, or created and
/// unlinked at once) in `dir`, a directory on a disk (a `tmpfs` keeps its files in memory), and read
/// back one chunk at a time with a positioned read (`pread`): the kernel's page cache, shared and
/// reclaimable, holds what is read often. The file disappears when its last reader drops it or the
/// process exits. No `unsafe` (no memory map, so no fault if a disk misbehaves: an I/O error
/// reads as a missing chunk and is logged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spill {
    dir: Arc<Path>,
    hot: Hot,
}

/// Which days are recent enough to stay in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hot {
    /// The last this many days before today (as of each page's sealing).
    LastDays(i64),
    /// From this day number on.
    FromDay(i64),
}

impl Spill {
    /// Pages whose days are all older than the last `days` days go to files in `dir` (which must
    /// exist and be writable).
    pub fn older_than(dir: impl Into<PathBuf>, days: u32) -> Spill {
        Spill {
            dir: dir.into().into(),
            hot: Hot::LastDays(days.into()),
        }
    }

    /// Pages whose days all lie before day number `day` go to files in `dir`.
    pub fn before_day(dir: impl Into<PathBuf>, day: i64) -> Spill {
        Spill {
            dir: dir.into().into(),
            hot: Hot::FromDay(day),
        }
    }

    /// The first day kept in memory.
    fn hot_from(&self) -> i64 {
        match self.hot {
            Hot::LastDays(n) => today() - n,
            Hot::FromDay(d) => d,
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The bytes, written to a new unnamed file.
    fn write(&self, bytes: &[u8]) -> std::io::Result<std::fs::File> {
        let mut file = tempfile::tempfile_in(&self.dir)?;
        file.write_all(bytes)?;
        Ok(file)
    }
}

/// The bytes of a page: on the heap while it is filled (and while it holds recent days), in a
/// spill file once sealed and spilled.
#[derive(Debug)]
pub(super) enum PageBytes {
    Heap(Vec<u8>),
    File { file: std::fs::File, len: usize },
}

impl PageBytes {
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        match self {
            PageBytes::Heap(v) => v.len(),
            PageBytes::File { len, .. } => *len,
        }
    }
}

/// One page of a [`ChunkPool`]: packed chunks, the byte offset of each and the latest day they
/// belong to.
#[derive(Debug)]
pub(super) struct Page {
    pub(super) bytes: PageBytes,
    offsets: Vec<u32>,
    pub(super) last_day: i64,
}

impl Page {
    /// The page's bytes if it is still on the heap.
    fn heap_mut(&mut self) -> Option<&mut Vec<u8>> {
        match &mut self.bytes {
            PageBytes::Heap(v) => Some(v),
            PageBytes::File { .. } => None,
        }
    }

    /// Ends the page's filling: moved to a spill file when all its days are old (on failure it
    /// stays on the heap, logged), else shrunk to its size.
    fn seal(&mut self, spill: Option<&Spill>) {
        let old = spill.filter(|s| self.last_day < s.hot_from());
        let Some(v) = self.heap_mut() else { return };
        if let Some(spill) = old.filter(|_| !v.is_empty()) {
            match spill.write(v) {
                Ok(file) => {
                    let len = v.len();
                    self.bytes = PageBytes::File { file, len };
                    return;
                }
                Err(e) => tracing::warn!(
                    dir = %spill.dir.display(),
                    error = %e,
                    "could not spill a cache page to disk; it stays in memory"
                ),
            }
        }
        v.shrink_to_fit();
    }

    /// Heap bytes held (a spilled page holds none).
    fn heap_bytes(&self) -> usize {
        match &self.bytes {
            PageBytes::Heap(v) => v.capacity(),
            PageBytes::File { .. } => 0,
        }
    }

    /// Bytes held in a spill file.
    fn spilled_bytes(&self) -> usize {
        match &self.bytes {
            PageBytes::Heap(_) => 0,
            PageBytes::File { len, .. } => *len,
        }
    }

    /// The bytes of the chunk at `at` and after it (at most `buf`'s length): a slice of the heap
    /// page, or read from the spill file into `buf`. `None` on an I/O error (logged).
    fn bytes_at<'a>(&'a self, at: usize, buf: &'a mut [u8; MAX_CHUNK]) -> Option<&'a [u8]> {
        match &self.bytes {
            PageBytes::Heap(v) => Some(&v[at..]),
            PageBytes::File { file, len } => {
                use std::os::unix::fs::FileExt;
                let n = MAX_CHUNK.min(len - at);
                match file.read_exact_at(&mut buf[..n], at as u64) {
                    Ok(()) => Some(&buf[..n]),
                    Err(e) => {
                        tracing::error!(error = %e, "could not read a spilled cache page");
                        None
                    }
                }
            }
        }
    }
}

/// Today's day number (days since 1970-01-01, UTC).
pub(super) fn today() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64 / 86_400)
        .unwrap_or(0)
}

/// The most bytes a chunk and the tail read after it take: header, base, sentinel, 96 codes of
/// at most 33 bits, [`PAGE_TAIL`].
const MAX_CHUNK: usize = 9 + (N * 33).div_ceil(8) + PAGE_TAIL;

impl Default for ChunkPool {
    fn default() -> ChunkPool {
        ChunkPool::with_page_bytes(PAGE_BYTES)
    }
}

impl ChunkPool {
    /// An empty pool whose sealed old pages go to `spill` (`None`: they stay on the heap).
    pub(super) fn new(spill: Option<Spill>) -> ChunkPool {
        ChunkPool {
            spill,
            ..ChunkPool::default()
        }
    }

    pub(super) fn with_page_bytes(page_bytes: usize) -> ChunkPool {
        ChunkPool {
            page_bytes,
            spill: None,
            pages: Vec::new(),
            first: Vec::new(),
            count: 0,
            constants: HashMap::new(),
            recent: OnceLock::new(),
        }
    }

    /// A pool holding the chunks of this one (its pages shared, not copied); chunks pushed to it
    /// go to new pages and get the numbers after this pool's.
    pub(super) fn extend(&self) -> ChunkPool {
        ChunkPool {
            page_bytes: self.page_bytes,
            spill: self.spill.clone(),
            pages: self.pages.clone(),
            first: self.first.clone(),
            count: self.count,
            constants: HashMap::new(),
            recent: OnceLock::new(),
        }
    }

    /// Stores a chunk of 96 values of `day` and returns its number.
    pub(super) fn push(&mut self, day: i64, vals: &[f32]) -> u32 {
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
            .and_then(Page::heap_mut)
            .is_some_and(|b| b.len() + len <= self.page_bytes);
        if !fits {
            if let Some(last) = self.pages.last_mut().and_then(Arc::get_mut) {
                last.seal(self.spill.as_ref());
            }
            self.pages.push(Arc::new(Page {
                bytes: PageBytes::Heap(Vec::with_capacity(self.page_bytes)),
                offsets: Vec::new(),
                last_day: i64::MIN,
            }));
            self.first.push(self.count);
        }
        let page = self
            .pages
            .last_mut()
            .and_then(Arc::get_mut)
            .expect("the last page is this pool's own");
        page.last_day = page.last_day.max(day);
        let offsets = &mut page.offsets;
        let bytes = match &mut page.bytes {
            PageBytes::Heap(v) => v,
            PageBytes::File { .. } => unreachable!("a new page is on the heap"),
        };
        if fits {
            bytes.truncate(bytes.len() - PAGE_TAIL);
        }
        let at = bytes.len();
        offsets.push(at as u32);
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
        let spilled = matches!(page.bytes, PageBytes::File { .. });
        let recent = spilled.then(|| self.recent.get_or_init(RecentChunks::new));
        if let Some(chunk) = recent.and_then(|r| r.get(c)) {
            return Some(chunk);
        }
        let mut buf = [0u8; MAX_CHUNK];
        let chunk = decode(page.bytes_at(at, &mut buf)?);
        if let Some(r) = recent {
            r.put(c, &chunk);
        }
        Some(chunk)
    }

    /// Ends a load or refresh: the last page is sealed (spilled, or shrunk to its size on the
    /// heap) and the bookkeeping shrunk.
    pub(super) fn shrink(&mut self) {
        if let Some(p) = self.pages.last_mut().and_then(Arc::get_mut) {
            p.seal(self.spill.as_ref());
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

    /// Heap bytes held (a spilled page counts only its offsets).
    pub(super) fn memory_bytes(&self) -> usize {
        self.pages.capacity() * 8
            + self
                .pages
                .iter()
                .map(|p| 56 + p.heap_bytes() + p.offsets.capacity() * 4)
                .sum::<usize>()
            + self.first.capacity() * 4
            + self.recent.get().map_or(0, RecentChunks::memory_bytes)
    }

    /// Bytes of the pages held in spill files.
    pub(super) fn spilled_bytes(&self) -> usize {
        self.pages.iter().map(|p| p.spilled_bytes()).sum()
    }
}

/// The 96 values of the chunk that starts `page` (followed by at least [`PAGE_TAIL`] bytes).
fn decode(page: &[u8]) -> Chunk {
    let word = |i: usize| u64::from_le_bytes(page[i..i + 8].try_into().expect("8 bytes"));
    let head = page[0];
    let width = (head & !HAS_SENTINEL) as usize;
    let base = word(1) as u32;
    let (sentinel, data) = if head & HAS_SENTINEL != 0 {
        (Some(word(5) as u32), 9)
    } else {
        (None, 5)
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
    out
}
