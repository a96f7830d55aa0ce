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
//! cargo run --release -p gridprint-api --example synth_year -- --database /tmp/year.db [--inputs] [--days 365] [--start 2025-01-01]
//! ```
//!
//! Data starts on `--start` (2025-01-01 by default) and is computed as of 2026-06-01 or the end of
//! the data, whichever is later, so every slot is final. Ten years ending today, as
//! `scripts/load-bench.sh --years 10` writes them: `--start` ten years before today, `--days 3653`.

use gridprint_compute::synthetic::{SyntheticInputs, inputs_of_slot};
use gridprint_core::inputs::InputPoint;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{Slot, SlotRange, parse_timestamp};
use gridprint_store_sqlite::SqliteStore;
use std::time::Instant;

struct Args {
    /// A SQLite path, or a `postgres://` URL.
    database: String,
    days: i64,
    inputs: bool,
    /// First day of the data (`YYYY-MM-DD`).
    start: String,
    /// Instead of writing data: publish this day (`YYYY-MM-DD`) again with every value × 1.01.
    republish: Option<String>,
}

fn args() -> std::result::Result<Args, String> {
    let mut database = None;
    let mut days = 365;
    let mut inputs = false;
    let mut start = "2025-01-01".to_string();
    let mut republish = None;
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
            "--start" => start = it.next().ok_or("--start needs a date YYYY-MM-DD")?,
            "--republish" => {
                republish = Some(it.next().ok_or("--republish needs a date YYYY-MM-DD")?)
            }
            "-h" | "--help" => {
                return Err(
                    "usage: synth_year --database PATH|postgres://URL [--days N] [--start YYYY-MM-DD] [--inputs] [--republish YYYY-MM-DD]"
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
        start,
        republish,
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
    let store = SyntheticInputs {
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
    if let Some(day) = &args.republish {
        let Ok(t) = parse_timestamp(&format!("{day}T00:00Z")) else {
            eprintln!("--republish {day} is not a date YYYY-MM-DD");
            std::process::exit(2);
        };
        let d = Slot::containing(t).day();
        let mut days = store.inner.derived_days(d..d + 1).expect("read the day");
        for day in &mut days {
            for v in day.series.values_mut() {
                for x in v.iter_mut() {
                    *x *= 1.01;
                }
            }
        }
        store.inner.replace_derived_days(&days).expect("publish");
        eprintln!("republished {} zone-days of {day}", days.len());
        return;
    }
    let start = match parse_timestamp(&format!("{}T00:00Z", args.start)) {
        Ok(t) => Slot::containing(t),
        Err(_) => {
            eprintln!("--start {} is not a date YYYY-MM-DD", args.start);
            std::process::exit(2);
        }
    };
    let range = SlotRange::new(start, start.offset(args.days * 96));
    let now = parse_timestamp("2026-06-01T00:00Z")
        .expect("date")
        .max(range.end.start());

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
        "computed {} slots × {} zones ({} zone-days) in {:.2} s into {}",
        s.slots,
        reference.zones.len(),
        s.days_published,
        t.elapsed().as_secs_f64(),
        args.database
    );
}
