//! Benchmark: compute + persist one year (35,040 slots) of all outputs for the real 52-zone topology
//! into a SQLite file, with synthetic inputs, and report the time and the database size.
//!
//! Inputs are generated on the fly by a store wrapper (so the figure is compute + persist, not the
//! cost of storing a year of raw inputs first). Run: `cargo bench -p gridprint-compute --bench compute_year`
//! (`GRIDPRINT_BENCH_DAYS=N` for a shorter run).

use gridprint_core::derived::DerivedDay;
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{Slot, SlotRange, parse_timestamp};
use gridprint_store::{
    AccessStore, DerivedStore, GrantRow, InputStore, Result, Store, StoredInput, TokenRecord,
    UpsertSummary,
};
use gridprint_store_sqlite::SqliteStore;
use std::time::Instant;

/// Serves synthetic inputs; everything else goes to the real SQLite store.
struct Synthetic {
    inner: SqliteStore,
    reference: ReferenceData,
}

const TYPES: [ProductionType; 7] = [
    ProductionType::Nuclear,
    ProductionType::Coal,
    ProductionType::Gas,
    ProductionType::HydroRiver,
    ProductionType::WindOnshore,
    ProductionType::Solar,
    ProductionType::Biomass,
];

fn lcg(x: u64) -> u64 {
    x.wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
}

impl InputStore for Synthetic {
    fn upsert_inputs(&self, _: &[InputPoint], _: i64) -> Result<UpsertSummary> {
        Ok(UpsertSummary::default())
    }
    fn inputs_in_range(&self, range: SlotRange) -> Result<Vec<StoredInput>> {
        let zones = &self.reference.zones;
        let borders = zones.borders();
        let mut out = Vec::new();
        for slot in range.iter() {
            let day_phase = (slot.index_in_day() as f64 / 96.0 * std::f64::consts::TAU).sin();
            let mut r = lcg(slot.0 as u64);
            for i in 0..zones.len() {
                for (k, pt) in TYPES.iter().enumerate() {
                    r = lcg(r);
                    let base = 200.0 + 100.0 * ((i * 7 + k * 3) % 11) as f64;
                    let mw = match pt {
                        ProductionType::Solar => (base * day_phase).max(0.0),
                        _ => base * (0.8 + 0.4 * (r >> 40) as f64 / (1u64 << 24) as f64),
                    };
                    out.push(StoredInput {
                        point: InputPoint {
                            key: InputKey::Generation {
                                zone: zones.code(i).clone(),
                                production_type: *pt,
                            },
                            slot,
                            mw,
                            state: DataState::Official,
                            datasource: "ENTSO-E".into(),
                        },
                        updated_at: 0,
                    });
                }
            }
            for &(a, b) in &borders {
                r = lcg(r);
                out.push(StoredInput {
                    point: InputPoint {
                        key: InputKey::Flow {
                            from: zones.code(a).clone(),
                            to: zones.code(b).clone(),
                        },
                        slot,
                        mw: 50.0 + 300.0 * (r >> 40) as f64 / (1u64 << 24) as f64,
                        state: DataState::Official,
                        datasource: "ENTSO-E".into(),
                    },
                    updated_at: 0,
                });
            }
        }
        Ok(out)
    }
    fn input_extent(&self) -> Result<Option<SlotRange>> {
        Ok(None)
    }
}

impl DerivedStore for Synthetic {
    fn derived_days(&self, days: std::ops::Range<i64>) -> Result<Vec<DerivedDay>> {
        self.inner.derived_days(days)
    }
    fn stage_derived_days(&self, run: i64, days: &[DerivedDay]) -> Result<()> {
        self.inner.stage_derived_days(run, days)
    }
    fn commit_staged(&self, run: i64) -> Result<usize> {
        self.inner.commit_staged(run)
    }
    fn discard_staged(&self, run: i64) -> Result<()> {
        self.inner.discard_staged(run)
    }
    fn data_version(&self) -> Result<i64> {
        self.inner.data_version()
    }
}

impl AccessStore for Synthetic {
    fn grant(&self, e: &str, n: i64) -> Result<bool> {
        self.inner.grant(e, n)
    }
    fn revoke(&self, e: &str) -> Result<bool> {
        self.inner.revoke(e)
    }
    fn reset(&self, e: &str) -> Result<bool> {
        self.inner.reset(e)
    }
    fn list_grants(&self) -> Result<Vec<GrantRow>> {
        self.inner.list_grants()
    }
    fn has_grant(&self, e: &str) -> Result<bool> {
        self.inner.has_grant(e)
    }
    fn register(&self, e: &str, h: &str, n: i64) -> Result<()> {
        self.inner.register(e, h, n)
    }
    fn password_hash(&self, e: &str) -> Result<Option<String>> {
        self.inner.password_hash(e)
    }
    fn insert_token(&self, t: &TokenRecord) -> Result<()> {
        self.inner.insert_token(t)
    }
    fn find_token(&self, h: &str) -> Result<Option<TokenRecord>> {
        self.inner.find_token(h)
    }
}

impl Store for Synthetic {
    fn try_lead(&self) -> Result<Option<Box<dyn gridprint_store::LeaderLease>>> {
        self.inner.try_lead()
    }
    fn ping(&self) -> Result<()> {
        self.inner.ping()
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
}

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
    let store = Synthetic {
        inner: SqliteStore::open(&path).unwrap(),
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
