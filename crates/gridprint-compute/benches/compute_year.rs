//! Benchmark: compute + persist one year (35,040 slots) of all outputs for the real 52-zone topology
//! into a SQLite file, with synthetic inputs, and report the time and the database size.
//!
//! Inputs are generated on the fly by `gridprint_compute::synthetic::SyntheticInputs` (so the figure
//! is compute + persist, not the cost of storing a year of raw inputs first). Run: `cargo bench -p gridprint-compute --bench compute_year`
//! (`GRIDPRINT_BENCH_DAYS=N` for a shorter run).

use gridprint_compute::synthetic::SyntheticInputs;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{Slot, SlotRange, parse_timestamp};
use gridprint_store_sqlite::SqliteStore;
use std::time::Instant;

fn main() {
    let days: i64 = std::env::var("GRIDPRINT_BENCH_DAYS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(365);
    let threads: Option<usize> = std::env::var("GRIDPRINT_BENCH_THREADS")
        .ok()
        .and_then(|s| s.parse().ok());
    if let Some(t) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("year.db");
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let store = SyntheticInputs {
        inner: Box::new(SqliteStore::open(&path).unwrap()),
        reference: reference.clone(),
    };
    let start = Slot::containing(parse_timestamp("2025-01-01T00:00Z").unwrap());
    let range = SlotRange::new(start, start.offset(days * 96));
    let now = parse_timestamp("2026-06-01T00:00Z").unwrap();
    let t = Instant::now();
    let s =
        gridprint_compute::compute_range(&store, &reference, range, now, &mut |_, _| {}).unwrap();
    let elapsed = t.elapsed();
    drop(store);
    let size: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "compute+persist: {} slots x {} zones ({} zone-slots, {} zone-days) in {:.2} s ({} rayon threads); SQLite size {:.1} MB",
        s.slots,
        reference.zones.len(),
        s.computed,
        s.days_published,
        elapsed.as_secs_f64(),
        rayon::current_num_threads(),
        size as f64 / 1e6
    );
}
