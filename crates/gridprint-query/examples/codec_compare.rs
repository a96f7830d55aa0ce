//! Compares lossless codecs for the cache's 96-value day chunks of `f32` (issue #18): bytes per
//! value, encode and decode time per chunk, and a bit-exact round trip of every chunk, on the
//! chunks a [`DataCache`] really holds (read back through its public API) for two data sets,
//! **synthetic** (the load benchmark's data, kept in a SQLite file) and **demo** (the bundled
//! ENTSO-E demo set). What is compared, how it is measured and the results: `docs/memory.md`,
//! "Value codecs compared".
//!
//! Codecs: the cache's own frame-of-reference packing (through the `testing` feature:
//! [`ChunkPool::push_values`] / [`ChunkPool::values`]); delta and XOR of consecutive bit patterns
//! with per-chunk bit-packing; `pco` (pcodec) per chunk, on `f32` and on the `u32` bit patterns;
//! and `pco` over longer runs of one series (30 days, and the whole series), to show what chunking
//! costs.
//!
//! ```sh
//! cargo run --release -p gridprint-query --example codec_compare -- \
//!     [--synthetic-db /tmp/codec-synth-60d.db] [--days 60] [--repeats 9] [--encode-repeats 3]
//! ```

use gridprint_compute::synthetic::{SyntheticInputs, inputs_of_slot};
use gridprint_core::inputs::InputPoint;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{Slot, SlotRange, parse_timestamp};
use gridprint_query::DataCache;
use gridprint_query::cache::{Chunk, ChunkPool};
use gridprint_store::Store;
use gridprint_store_sqlite::SqliteStore;
use std::cell::RefCell;
use std::collections::HashSet;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Values per chunk.
const N: usize = 96;

struct Args {
    synthetic_db: PathBuf,
    days: i64,
    repeats: usize,
    encode_repeats: usize,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        synthetic_db: PathBuf::from("/tmp/codec-synth-60d.db"),
        days: 60,
        repeats: 9,
        encode_repeats: 3,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut v = || it.next().ok_or(format!("{k} needs a value"));
        match k.as_str() {
            "--synthetic-db" => a.synthetic_db = PathBuf::from(v()?),
            "--days" => a.days = v()?.parse().map_err(|_| "--days needs a number")?,
            "--repeats" => a.repeats = v()?.parse().map_err(|_| "--repeats needs a number")?,
            "--encode-repeats" => {
                a.encode_repeats = v()?
                    .parse()
                    .map_err(|_| "--encode-repeats needs a number")?
            }
            _ => {
                return Err(
                    "usage: codec_compare [--synthetic-db PATH] [--days N] [--repeats N] [--encode-repeats N]".into(),
                );
            }
        }
    }
    Ok(a)
}

/// The chunks of a data set: per series (a derived column of a zone, or a raw input series) its
/// day chunks in day order, and which kind of series it is.
struct DataSet {
    name: &'static str,
    series: Vec<(Kind, Vec<Chunk>)>,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Derived,
    Input,
}

impl DataSet {
    /// Every chunk the cache holds, read back through its public API.
    fn of_cache(name: &'static str, cache: &DataCache) -> DataSet {
        let mut series = Vec::new();
        for zone in 0..cache.reference().zones.len() {
            let d = cache.derived(zone);
            for (_, column) in d.columns() {
                let chunks: Vec<Chunk> = (0..column.len())
                    .filter_map(|pos| d.chunk(column, pos))
                    .collect();
                if !chunks.is_empty() {
                    series.push((Kind::Derived, chunks));
                }
            }
        }
        for id in 0..cache.stats().input_series {
            let s = cache.input_series(id as u32);
            let chunks: Vec<Chunk> = (0..s.days().len()).map(|pos| s.day(pos).values).collect();
            if !chunks.is_empty() {
                series.push((Kind::Input, chunks));
            }
        }
        DataSet { name, series }
    }

    fn chunks(&self) -> impl Iterator<Item = &Chunk> {
        self.series.iter().flat_map(|(_, c)| c.iter())
    }

    fn count(&self, kind: Option<Kind>) -> usize {
        self.series
            .iter()
            .filter(|(k, _)| kind.is_none_or(|want| *k == want))
            .map(|(_, c)| c.len())
            .sum()
    }
}

/// The synthetic data set: as `synth_year --inputs --days N` writes it (same generator, same
/// compute), into `path` when the file does not exist yet.
fn synthetic(path: &Path, days: i64, reference: &ReferenceData) -> SqliteStore {
    if path.exists() {
        eprintln!("synthetic: reading {}", path.display());
        return SqliteStore::open(path).expect("open the synthetic database");
    }
    eprintln!("synthetic: writing {days} days into {}", path.display());
    let store = SyntheticInputs {
        inner: Box::new(SqliteStore::open(path).expect("create the synthetic database")),
        reference: reference.clone(),
    };
    let start = Slot::containing(parse_timestamp("2025-01-01T00:00Z").expect("date"));
    let now = parse_timestamp("2026-06-01T00:00Z").expect("date");
    let t = Instant::now();
    for d in 0..days {
        let day = SlotRange::new(start.offset(d * 96), start.offset((d + 1) * 96));
        let points: Vec<InputPoint> = day
            .iter()
            .flat_map(|s| inputs_of_slot(reference, s, true))
            .collect();
        store
            .inner
            .upsert_inputs(&points, now.unix_timestamp())
            .expect("store inputs");
    }
    let range = SlotRange::new(start, start.offset(days * 96));
    gridprint_compute::compute_range(&store, reference, range, now, &mut |_, _| {})
        .expect("compute");
    eprintln!("synthetic: written in {:.1} s", t.elapsed().as_secs_f64());
    SqliteStore::open(path).expect("open the synthetic database")
}

/// The bundled real demo set, imported and computed as `gridprint import --demo` does.
fn demo(reference: &ReferenceData) -> SqliteStore {
    let store = SqliteStore::open_in_memory().expect("in-memory store");
    gridprint_pipeline::demo::import_demo(
        &store,
        reference,
        time::OffsetDateTime::now_utc(),
        &mut (),
    )
    .expect("import the demo set");
    store
}

/// A codec of blocks of values (one chunk, or a run of chunks of one series).
trait Codec {
    fn name(&self) -> String;
    /// Days of one series per block: 1 for a per-chunk codec.
    fn run_days(&self) -> usize {
        1
    }
    /// Appends the encoding of `vals` to `out`.
    fn encode(&self, vals: &[f32], out: &mut Vec<u8>);
    /// Decodes a block of `out.len()` values. `bytes` is followed by at least 8 readable bytes.
    fn decode(&self, bytes: &[u8], out: &mut [f32]);
}

/// Reads the 8 bytes at `i` as a little-endian word.
fn word(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))
}

/// Appends codes of `width` bits, little-endian, bit after bit.
fn pack(codes: &[u32], width: u32, out: &mut Vec<u8>) {
    let (mut acc, mut held) = (0u64, 0);
    for &c in codes {
        acc |= u64::from(c) << held;
        held += width;
        while held >= 8 {
            out.push(acc as u8);
            (acc, held) = (acc >> 8, held - 8);
        }
    }
    if held > 0 {
        out.push(acc as u8);
    }
}

/// The first NaN pattern of a chunk when the chunk also holds other patterns (the cache's rule).
fn sentinel_of(bits: &[u32; N]) -> Option<u32> {
    bits.iter()
        .copied()
        .find(|&b| f32::from_bits(b).is_nan())
        .filter(|&s| bits.iter().any(|&b| b != s))
}

fn bits_of(vals: &[f32]) -> [u32; N] {
    let mut bits = [0u32; N];
    for (b, v) in bits.iter_mut().zip(vals) {
        *b = v.to_bits();
    }
    bits
}

/// Consecutive bit patterns, per 96-value chunk: `Delta` stores the zigzag of the wrapping `i32`
/// difference, `Xor` the XOR with the previous pattern, each code of the chunk's width. Slots
/// holding the sentinel NaN (as in the cache: the first NaN pattern of a chunk mixing NaN with
/// other values) are marked in a 96-bit mask and repeat the previous pattern in the code stream,
/// so gaps do not widen the chunk. Layout: header byte (width, bit 7 = sentinel), the first
/// non-sentinel pattern (`u32`), [sentinel `u32`, mask 12 bytes], 95 codes.
#[derive(Clone, Copy)]
enum Consecutive {
    Delta,
    Xor,
}

impl Codec for Consecutive {
    fn name(&self) -> String {
        match self {
            Consecutive::Delta => "delta (zigzag i32) + bit-packing, per chunk".into(),
            Consecutive::Xor => "XOR previous + bit-packing, per chunk".into(),
        }
    }

    fn encode(&self, vals: &[f32], out: &mut Vec<u8>) {
        let bits = bits_of(vals);
        let sentinel = sentinel_of(&bits);
        let first = bits
            .iter()
            .copied()
            .find(|&b| Some(b) != sentinel)
            .unwrap_or(0);
        let (mut prev, mut mask, mut codes, mut or) = (first, 0u128, [0u32; N], 0u32);
        for (i, &b) in bits.iter().enumerate() {
            let v = if Some(b) == sentinel {
                mask |= 1 << i;
                prev
            } else {
                b
            };
            codes[i] = match self {
                Consecutive::Delta => {
                    let d = v.wrapping_sub(prev) as i32;
                    ((d << 1) ^ (d >> 31)) as u32
                }
                Consecutive::Xor => v ^ prev,
            };
            or |= codes[i];
            prev = v;
        }
        let width = 32 - or.leading_zeros();
        out.push(width as u8 | if sentinel.is_some() { 0x80 } else { 0 });
        out.extend_from_slice(&first.to_le_bytes());
        if let Some(s) = sentinel {
            out.extend_from_slice(&s.to_le_bytes());
            out.extend_from_slice(&mask.to_le_bytes()[..12]);
        }
        // codes[0] is always 0 (first against itself): not stored.
        pack(&codes[1..], width, out);
    }

    fn decode(&self, b: &[u8], out: &mut [f32]) {
        let head = b[0];
        let width = (head & 0x7f) as usize;
        let mut prev = word(b, 1) as u32;
        let (sentinel, mask, data) = if head & 0x80 != 0 {
            let mut m = [0u8; 16];
            m[..12].copy_from_slice(&b[9..21]);
            (word(b, 5) as u32, u128::from_le_bytes(m), 21)
        } else {
            (0, 0, 5)
        };
        let ones = (1u64 << width) - 1;
        out[0] = f32::from_bits(prev);
        for (i, v) in out[1..N].iter_mut().enumerate() {
            let bit = i * width;
            let code = ((word(b, data + bit / 8) >> (bit % 8)) & ones) as u32;
            prev = match self {
                Consecutive::Delta => {
                    prev.wrapping_add(((code >> 1) as i32 ^ -((code & 1) as i32)) as u32)
                }
                Consecutive::Xor => prev ^ code,
            };
            *v = f32::from_bits(prev);
        }
        if mask != 0 {
            for (i, v) in out.iter_mut().enumerate() {
                if mask >> i & 1 != 0 {
                    *v = f32::from_bits(sentinel);
                }
            }
        }
    }
}

/// `pco::standalone::simple_compress` (default config, level 8) of a block, on the `f32` values or
/// on their `u32` bit patterns.
struct Pco {
    bits: bool,
    run_days: usize,
    /// Decoding space for the bit patterns of a run.
    scratch: RefCell<Vec<u32>>,
}

impl Pco {
    fn new(bits: bool, run_days: usize) -> Pco {
        Pco {
            bits,
            run_days,
            scratch: RefCell::new(vec![0; run_days * N]),
        }
    }
}

impl Codec for Pco {
    fn name(&self) -> String {
        let of = if self.bits { "u32 bits" } else { "f32" };
        match self.run_days {
            1 => format!("pco standalone, {of}, per chunk"),
            n => format!("pco standalone, {of}, runs of {n} days of a series (or all it has)"),
        }
    }

    fn run_days(&self) -> usize {
        self.run_days
    }

    fn encode(&self, vals: &[f32], out: &mut Vec<u8>) {
        let config = pco::ChunkConfig::default();
        let bytes = if self.bits {
            let bits: Vec<u32> = vals.iter().map(|v| v.to_bits()).collect();
            pco::standalone::simple_compress(&bits, &config)
        } else {
            pco::standalone::simple_compress(vals, &config)
        };
        out.extend_from_slice(&bytes.expect("pco compresses"));
    }

    fn decode(&self, bytes: &[u8], out: &mut [f32]) {
        if self.bits {
            let mut scratch = self.scratch.borrow_mut();
            let bits = &mut scratch[..out.len()];
            let p = pco::standalone::simple_decompress_into(bytes, bits).expect("pco");
            assert_eq!(p.n_processed, out.len());
            for (v, &b) in out.iter_mut().zip(bits.iter()) {
                *v = f32::from_bits(b);
            }
        } else {
            let p = pco::standalone::simple_decompress_into(bytes, out).expect("pco");
            assert_eq!(p.n_processed, out.len());
        }
    }
}

/// One codec's measures on one data set.
struct Measure {
    codec: String,
    /// Packed bytes: all, derived chunks only, input chunks only.
    bytes: [usize; 3],
    encode_ns_per_chunk: f64,
    decode_ns_per_chunk: f64,
    /// Wall-clock decode time (waits for a core included).
    decode_wall_ns_per_chunk: f64,
    /// For a run codec: median time to decode one run (what reading one day costs).
    decode_ns_per_run: Option<f64>,
    /// Chunks not read back bit for bit.
    mismatches: usize,
}

/// The time of one pass over a data set, per chunk: on-CPU time of this thread (what the codec
/// costs; the machine is shared, and waiting for a core is not the codec's) and wall-clock time.
#[derive(Clone, Copy)]
struct Pass {
    cpu: f64,
    wall: f64,
}

/// Nanoseconds this thread has run on a CPU (`/proc/thread-self/schedstat`, first field).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .expect("/proc/thread-self/schedstat (Linux)")
}

struct Timer {
    wall: Instant,
    cpu: u64,
}

impl Timer {
    fn start() -> Timer {
        let cpu = cpu_ns();
        Timer {
            wall: Instant::now(),
            cpu,
        }
    }

    fn stop(&self, chunks: usize) -> Pass {
        let wall = self.wall.elapsed().as_nanos() as f64;
        let cpu = (cpu_ns() - self.cpu) as f64;
        let n = chunks.max(1) as f64;
        Pass {
            cpu: cpu / n,
            wall: wall / n,
        }
    }
}

fn cpu(v: &[Pass]) -> Vec<f64> {
    v.iter().map(|p| p.cpu).collect()
}

fn wall(v: &[Pass]) -> Vec<f64> {
    v.iter().map(|p| p.wall).collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The cache's own packing, through a [`ChunkPool`] as the loader fills it.
/// One codec under measure on one data set: its encoding of the data set, kept between passes.
trait Bench {
    /// Encodes the whole data set `times` times; returns the time per chunk.
    fn encode_pass(&mut self, times: usize) -> Pass;
    /// Decodes the whole data set `times` times; returns the time per chunk.
    fn decode_pass(&mut self, times: usize) -> Pass;
    /// Sizes and the bit-exact check (after the passes).
    fn result(&mut self, enc: Vec<Pass>, dec: Vec<Pass>) -> Measure;
}

/// The cache's own packing, through a [`ChunkPool`] as the loader fills it (constant chunks shared).
struct PoolBench<'a> {
    chunks: Vec<(Kind, &'a Chunk)>,
    pool: ChunkPool,
    numbers: Vec<u32>,
}

impl<'a> PoolBench<'a> {
    fn new(ds: &'a DataSet) -> PoolBench<'a> {
        PoolBench {
            chunks: ds
                .series
                .iter()
                .flat_map(|(k, c)| c.iter().map(move |c| (*k, c)))
                .collect(),
            pool: ChunkPool::default(),
            numbers: Vec::new(),
        }
    }
}

impl Bench for PoolBench<'_> {
    fn encode_pass(&mut self, times: usize) -> Pass {
        let t = Timer::start();
        for _ in 0..times {
            self.pool = ChunkPool::default();
            self.numbers.clear();
            for (_, c) in &self.chunks {
                self.numbers.push(self.pool.push_values(&c[..]));
            }
        }
        t.stop(self.chunks.len() * times)
    }

    fn decode_pass(&mut self, times: usize) -> Pass {
        let t = Timer::start();
        for _ in 0..times {
            for &c in &self.numbers {
                black_box(self.pool.values(black_box(c)));
            }
        }
        t.stop(self.chunks.len() * times)
    }

    fn result(&mut self, enc: Vec<Pass>, dec: Vec<Pass>) -> Measure {
        // Bytes per kind: each kind packed alone (constant chunks shared within it).
        let mut bytes = [self.pool.packed_bytes(), 0, 0];
        for (slot, kind) in [(1, Kind::Derived), (2, Kind::Input)] {
            let mut p = ChunkPool::default();
            for (_, c) in self.chunks.iter().filter(|(k, _)| *k == kind) {
                p.push_values(&c[..]);
            }
            bytes[slot] = p.packed_bytes();
        }
        let mismatches = self
            .chunks
            .iter()
            .zip(&self.numbers)
            .filter(|((_, c), num)| !same_bits(&c[..], &self.pool.values(**num).expect("chunk")))
            .count();
        Measure {
            codec: "frame of reference + bit-packing, per chunk (the cache's ChunkPool)".into(),
            bytes,
            encode_ns_per_chunk: median(cpu(&enc)),
            decode_ns_per_chunk: median(cpu(&dec)),
            decode_wall_ns_per_chunk: median(wall(&dec)),
            decode_ns_per_run: None,
            mismatches,
        }
    }
}

/// A block codec: each series cut into runs of `run_days` chunks, each run encoded on its own.
struct BlockBench {
    codec: Box<dyn Codec>,
    /// (kind, concatenated values, chunks in it, [constant chunk seen before in the data set, in
    /// its kind]): a per-chunk codec stores a constant chunk once, as the cache does.
    blocks: Vec<(Kind, Vec<f32>, usize, [bool; 2])>,
    chunks: usize,
    buf: Vec<u8>,
    offsets: Vec<usize>,
    out: Vec<f32>,
}

impl BlockBench {
    fn new(ds: &DataSet, codec: Box<dyn Codec>) -> BlockBench {
        let k = codec.run_days();
        let (mut constants, mut constants_of_kind) = (HashSet::new(), HashSet::new());
        let mut blocks = Vec::new();
        for (kind, chunks) in &ds.series {
            for run in chunks.chunks(k) {
                let vals: Vec<f32> = run.iter().flatten().copied().collect();
                let b = run[0][0].to_bits();
                let constant = k == 1 && run[0].iter().all(|v| v.to_bits() == b);
                let shared = [
                    constant && !constants.insert(b),
                    constant && !constants_of_kind.insert((*kind == Kind::Derived, b)),
                ];
                blocks.push((*kind, vals, run.len(), shared));
            }
        }
        BlockBench {
            codec,
            blocks,
            chunks: ds.count(None),
            buf: Vec::new(),
            offsets: Vec::new(),
            out: vec![0.0; k * N],
        }
    }
}

impl Bench for BlockBench {
    fn encode_pass(&mut self, times: usize) -> Pass {
        let t = Timer::start();
        for _ in 0..times {
            self.buf.clear();
            self.offsets.clear();
            for (_, vals, _, _) in &self.blocks {
                self.offsets.push(self.buf.len());
                self.codec.encode(vals, &mut self.buf);
            }
        }
        let ns = t.stop(self.chunks * times);
        self.offsets.push(self.buf.len());
        // Decoders may read 8 bytes at once.
        self.buf.extend_from_slice(&[0; 8]);
        ns
    }

    fn decode_pass(&mut self, times: usize) -> Pass {
        let t = Timer::start();
        for _ in 0..times {
            for (i, (_, vals, _, _)) in self.blocks.iter().enumerate() {
                let dst = &mut self.out[..vals.len()];
                self.codec
                    .decode(black_box(&self.buf[self.offsets[i]..]), dst);
                black_box(dst);
            }
        }
        t.stop(self.chunks * times)
    }

    fn result(&mut self, enc: Vec<Pass>, dec: Vec<Pass>) -> Measure {
        let mut bytes = [0; 3];
        let mut mismatches = 0;
        for (i, (kind, vals, chunks, shared)) in self.blocks.iter().enumerate() {
            let len = self.offsets[i + 1] - self.offsets[i];
            if !shared[0] {
                bytes[0] += len;
            }
            if !shared[1] {
                bytes[if *kind == Kind::Derived { 1 } else { 2 }] += len;
            }
            let dst = &mut self.out[..vals.len()];
            self.codec.decode(&self.buf[self.offsets[i]..], dst);
            if !same_bits(vals, dst) {
                mismatches += chunks;
            }
        }
        let per_run = self.chunks as f64 / self.blocks.len() as f64;
        Measure {
            codec: self.codec.name(),
            bytes,
            encode_ns_per_chunk: median(cpu(&enc)),
            decode_ns_per_chunk: median(cpu(&dec)),
            decode_wall_ns_per_chunk: median(wall(&dec)),
            decode_ns_per_run: (self.codec.run_days() > 1).then(|| median(cpu(&dec)) * per_run),
            mismatches,
        }
    }
}

/// Measures every codec on a data set: `encode_repeats` encode passes, then `repeats` decode
/// passes, the codecs taking turns (so that a busy moment of the machine does not fall on one codec
/// only); medians of the passes. A pass goes over the data set often enough to touch about
/// 100,000 chunks (encode) or 500,000 (decode), at least once: the on-CPU clock advances by
/// scheduler ticks, so a timed pass must last much longer than a tick.
fn measure_all(ds: &DataSet, encode_repeats: usize, repeats: usize) -> Vec<Measure> {
    let n = ds.count(None).max(1);
    let (enc_times, dec_times) = (100_000usize.div_ceil(n), 500_000usize.div_ceil(n));
    let mut benches: Vec<Box<dyn Bench + '_>> = vec![Box::new(PoolBench::new(ds))];
    for c in codecs() {
        benches.push(Box::new(BlockBench::new(ds, c)));
    }
    let mut enc = vec![Vec::new(); benches.len()];
    let mut dec = vec![Vec::new(); benches.len()];
    for r in 0..encode_repeats.max(1) {
        for (b, e) in benches.iter_mut().zip(&mut enc) {
            e.push(b.encode_pass(enc_times));
        }
        eprintln!("  {}: encode pass {} done", ds.name, r + 1);
    }
    for _ in 0..repeats.max(1) {
        for (b, d) in benches.iter_mut().zip(&mut dec) {
            d.push(b.decode_pass(dec_times));
        }
    }
    benches
        .iter_mut()
        .zip(enc.into_iter().zip(dec))
        .map(|(b, (e, d))| b.result(e, d))
        .collect()
}
fn edge_chunks() -> Vec<Chunk> {
    let mut out = Vec::new();
    let ramp = |i: usize| 100.0 + i as f32 * 0.37;
    let mut c = [0f32; N];
    for (i, v) in c.iter_mut().enumerate() {
        *v = if i % 7 == 3 { f32::NAN } else { ramp(i) };
    }
    out.push(c);
    for (i, v) in c.iter_mut().enumerate() {
        *v = match i % 5 {
            0 => f32::from_bits(0x7fc0_0001),
            1 => f32::from_bits(0xffc0_0000),
            2 => f32::from_bits(0x7f80_0001),
            _ => ramp(i),
        };
    }
    out.push(c);
    out.push([f32::NAN; N]);
    out.push([f32::from_bits(0xffff_ffff); N]);
    out.push([-0.0; N]);
    for (i, v) in c.iter_mut().enumerate() {
        *v = match i % 6 {
            0 => -0.0,
            1 => 0.0,
            2 => f32::INFINITY,
            3 => f32::NEG_INFINITY,
            4 => f32::from_bits(1 + i as u32),
            _ => {
                if i % 2 == 0 {
                    f32::MAX
                } else {
                    f32::MIN
                }
            }
        };
    }
    out.push(c);
    for (i, v) in c.iter_mut().enumerate() {
        *v = if i % 2 == 0 { -ramp(i) } else { ramp(i) };
    }
    out.push(c);
    c = [1.5; N];
    c[95] = f32::NAN;
    out.push(c);
    c = [f32::NAN; N];
    c[0] = 2.5;
    out.push(c);
    out
}

fn report(ds: &DataSet, results: &[Measure]) {
    let n = ds.count(None);
    let (nd, ni) = (ds.count(Some(Kind::Derived)), ds.count(Some(Kind::Input)));
    let constant = ds
        .chunks()
        .filter(|c| c.iter().all(|v| v.to_bits() == c[0].to_bits()))
        .count();
    let with_nan = ds.chunks().filter(|c| c.iter().any(|v| v.is_nan())).count();
    let nan_values: usize = ds
        .chunks()
        .map(|c| c.iter().filter(|v| v.is_nan()).count())
        .sum();
    let longest = ds.series.iter().map(|(_, c)| c.len()).max().unwrap_or(0);
    println!(
        "\n## {}: {} series (longest {longest} days), {n} chunks ({nd} derived, {ni} input), {constant} constant, {with_nan} with NaN ({:.1} % of the values)\n",
        ds.name,
        ds.series.len(),
        100.0 * nan_values as f64 / (n.max(1) * N) as f64
    );
    println!(
        "| codec | bytes/value | derived | inputs | encode ns/chunk | decode ns/chunk | decode ns/run | decode wall ns/chunk | lossless |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    let per = |b: usize, n: usize| b as f64 / (n.max(1) * N) as f64;
    println!("| plain f32 | 4.000 | 4.000 | 4.000 | | | | | |");
    for m in results {
        println!(
            "| {} | {:.3} | {:.3} | {:.3} | {:.0} | {:.0} | {} | {:.0} | {} |",
            m.codec,
            per(m.bytes[0], n),
            per(m.bytes[1], nd),
            per(m.bytes[2], ni),
            m.encode_ns_per_chunk,
            m.decode_ns_per_chunk,
            m.decode_ns_per_run
                .map_or(String::new(), |r| format!("{r:.0}")),
            m.decode_wall_ns_per_chunk,
            if m.mismatches == 0 {
                "yes".to_string()
            } else {
                format!("NO ({} chunks differ)", m.mismatches)
            }
        );
    }
}

fn codecs() -> Vec<Box<dyn Codec>> {
    vec![
        Box::new(Consecutive::Delta),
        Box::new(Consecutive::Xor),
        Box::new(Pco::new(false, 1)),
        Box::new(Pco::new(true, 1)),
        Box::new(Pco::new(false, 30)),
        Box::new(Pco::new(true, 30)),
        Box::new(Pco::new(false, 365)),
        Box::new(Pco::new(true, 365)),
    ]
}

/// The machine's load (`/proc/loadavg`): timings are only comparable within one run.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn main() {
    let args = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);

    // Edge chunks first: every codec must give back every bit.
    let edges = DataSet {
        name: "edge cases",
        series: vec![(Kind::Input, edge_chunks())],
    };
    let mut failed = 0;
    for m in measure_all(&edges, 1, 1) {
        if m.mismatches > 0 {
            eprintln!("{}: {} edge chunks differ", m.codec, m.mismatches);
        }
        failed += m.mismatches;
    }
    println!(
        "edge chunks (NaN payloads, -0.0, infinities, subnormals): {}",
        if failed == 0 {
            "every codec bit-exact"
        } else {
            "MISMATCHES (see stderr)"
        }
    );

    let constant = pco::standalone::simple_compress(&[1.5f32; N], &pco::ChunkConfig::default())
        .expect("pco compresses");
    println!(
        "pco standalone bytes for a constant 96-value chunk (its fixed cost): {}",
        constant.len()
    );
    println!("load average at start: {}", load_average());

    let stores: Vec<(&'static str, Box<dyn Store>)> = vec![
        (
            "synthetic",
            Box::new(synthetic(&args.synthetic_db, args.days, &reference)),
        ),
        ("demo", Box::new(demo(&reference))),
    ];
    let reference = Arc::new(reference);
    for (name, store) in stores {
        let cache = DataCache::load(store.as_ref(), reference.clone()).expect("load the cache");
        let ds = DataSet::of_cache(name, &cache);
        drop(cache);
        eprintln!("{name}: {} chunks, measuring", ds.count(None));
        let passes = (args.encode_repeats, args.repeats);
        let results = measure_all(&ds, passes.0, passes.1);
        report(&ds, &results);
        println!(
            "\n(on-CPU time of the measuring thread unless marked wall; medians of {} encode and {} decode passes over the data set, codecs taking turns)",
            passes.0, passes.1
        );
    }
    println!("\nload average at end: {}", load_average());
}
