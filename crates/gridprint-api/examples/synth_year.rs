//! Writes a SQLite database holding one year × every zone of the selected set (52) of synthetic data,
//! computed by the real engine, for the load benchmark (`scripts/load-bench.sh`).
//!
//! Inputs (7 production types per zone with a daily solar cycle, and a flow on every border, every
//! slot) are generated on the fly by a store wrapper and traced by `gridprint_compute::compute_range`,
//! which publishes every derived output (footprints, impacts, scores, mix, exchanges) as `gridprint
//! import` + `compute` would. With `--inputs` the raw inputs are stored too (plus a load per zone), as
//! a database fed by the worker would hold them; they make the file and the server's cache larger.
//!
//! ```sh
//! cargo run --release -p gridprint-api --example synth_year -- --database /tmp/year.db [--inputs] [--days 365]
//! ```
//!
//! Data starts 2025-01-01 and is computed as of 2026-06-01, so every slot is final.

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
    x.wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407)
}

fn unit(r: u64) -> f64 {
    (r >> 40) as f64 / (1u64 << 24) as f64
}

/// The synthetic inputs of one slot (deterministic in the slot).
fn inputs_of_slot(reference: &ReferenceData, slot: Slot, with_load: bool) -> Vec<InputPoint> {
    let zones = &reference.zones;
    let day_phase = (slot.index_in_day() as f64 / 96.0 * std::f64::consts::TAU).sin();
    let season = 1.0 + 0.2 * (slot.day() as f64 / 365.25 * std::f64::consts::TAU).cos();
    let mut r = lcg(slot.0 as u64);
    let mut out = Vec::with_capacity(zones.len() * 9 + 100);
    let point = |key, mw| InputPoint {
        key,
        slot,
        mw,
        state: DataState::Official,
        datasource: "ENTSO-E".into(),
    };
    for i in 0..zones.len() {
        let mut total = 0.0;
        for (k, pt) in TYPES.iter().enumerate() {
            r = lcg(r);
            let base = 200.0 + 100.0 * ((i * 7 + k * 3) % 11) as f64;
            let mw = match pt {
                ProductionType::Solar => (base * 2.0 * day_phase).max(0.0),
                _ => base * season * (0.8 + 0.4 * unit(r)),
            };
            total += mw;
            out.push(point(
                InputKey::Generation {
                    zone: zones.code(i).clone(),
                    production_type: *pt,
                },
                mw,
            ));
        }
        if with_load {
            out.push(point(
                InputKey::Load {
                    zone: zones.code(i).clone(),
                },
                total * 0.95,
            ));
        }
    }
    for &(a, b) in &zones.borders() {
        r = lcg(r);
        let (from, to) = if r & 1 == 0 { (a, b) } else { (b, a) };
        out.push(point(
            InputKey::Flow {
                from: zones.code(from).clone(),
                to: zones.code(to).clone(),
            },
            50.0 + 300.0 * unit(r),
        ));
    }
    out
}

/// Serves synthetic inputs to the compute; everything else goes to the real SQLite store.
struct Synthetic {
    inner: Box<dyn Store>,
    reference: ReferenceData,
}

impl InputStore for Synthetic {
    fn upsert_inputs(&self, points: &[InputPoint], at: i64) -> Result<UpsertSummary> {
        self.inner.upsert_inputs(points, at)
    }
    fn inputs_in_range(&self, range: SlotRange) -> Result<Vec<StoredInput>> {
        Ok(range
            .iter()
            .flat_map(|slot| inputs_of_slot(&self.reference, slot, false))
            .map(|point| StoredInput {
                point,
                updated_at: 0,
            })
            .collect())
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

struct Args {
    /// A SQLite path, or a `postgres://` URL.
    database: String,
    days: i64,
    inputs: bool,
}

fn args() -> std::result::Result<Args, String> {
    let mut database = None;
    let mut days = 365;
    let mut inputs = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--database" => {
                let v = it
                    .next()
                    .ok_or("--database needs a path or postgres:// URL")?;
                database = Some(v.trim_start_matches("sqlite://").to_string());
            }
            "--days" => {
                days = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--days needs a number")?;
            }
            "--inputs" => inputs = true,
            "-h" | "--help" => {
                return Err(
                    "usage: synth_year --database PATH|postgres://URL [--days N] [--inputs]"
                        .to_string(),
                );
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(Args {
        database: database.ok_or("--database PATH is required")?,
        days,
        inputs,
    })
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
    let store = Synthetic {
        inner: if args.database.starts_with("postgres://")
            || args.database.starts_with("postgresql://")
        {
            Box::new(
                gridprint_store_postgres::PgStore::connect(&args.database, 4)
                    .expect("open the database"),
            )
        } else {
            Box::new(
                SqliteStore::open(std::path::Path::new(&args.database)).expect("open the database"),
            )
        },
        reference: reference.clone(),
    };
    let start = Slot::containing(parse_timestamp("2025-01-01T00:00Z").expect("date"));
    let range = SlotRange::new(start, start.offset(args.days * 96));
    let now = parse_timestamp("2026-06-01T00:00Z").expect("date");

    if args.inputs {
        let t = Instant::now();
        let mut n = 0usize;
        for d in 0..args.days {
            let day = SlotRange::new(start.offset(d * 96), start.offset((d + 1) * 96));
            let points: Vec<InputPoint> = day
                .iter()
                .flat_map(|s| inputs_of_slot(&reference, s, true))
                .collect();
            n += points.len();
            store
                .inner
                .upsert_inputs(&points, now.unix_timestamp())
                .expect("store inputs");
        }
        eprintln!(
            "stored {n} input points in {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }

    let t = Instant::now();
    let mut last = 0;
    let s = gridprint_compute::compute_range(&store, &reference, range, now, &mut |done, total| {
        if done * 10 / total.max(1) != last {
            last = done * 10 / total.max(1);
            eprintln!("computed {done}/{total} days");
        }
    })
    .expect("compute");
    eprintln!(
        "computed {} slots × {} zones ({} zone-days) in {:.1} s into {}",
        s.slots,
        reference.zones.len(),
        s.days_published,
        t.elapsed().as_secs_f64(),
        args.database
    );
}
