//! `gridprint compute`: recompute derived outputs for a time range, with a progress bar.

use crate::cli::{ComputeArgs, Global};
use anyhow::Context;
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{Slot, SlotRange, parse_timestamp};
use gridprint_store::Store;
use indicatif::{ProgressBar, ProgressStyle};
use time::OffsetDateTime;

/// Parses `--now` or takes the system time.
pub fn now_from(arg: Option<&str>) -> anyhow::Result<OffsetDateTime> {
    match arg {
        Some(s) => Ok(parse_timestamp(s)?),
        None => Ok(OffsetDateTime::now_utc()),
    }
}

/// Runs a compute over `ranges` with a progress bar on stderr; prints a summary line.
pub fn compute_with_progress(
    store: &dyn Store,
    reference: &ReferenceData,
    ranges: &[SlotRange],
    now: OffsetDateTime,
) -> anyhow::Result<gridprint_compute::ComputeSummary> {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("computing {bar:40} {pos}/{len} days ({eta} left)")
            .expect("valid template"),
    );
    let started = std::time::Instant::now();
    let summary =
        gridprint_compute::compute_ranges(store, reference, ranges, now, &mut |done, total| {
            bar.set_length(total);
            bar.set_position(done);
        })?;
    bar.finish_and_clear();
    eprintln!(
        "computed {} zone-slots over {} slots ({} frozen kept), published {} zone-days in {:.1} s",
        summary.computed,
        summary.slots,
        summary.frozen_kept,
        summary.days_published,
        started.elapsed().as_secs_f64()
    );
    Ok(summary)
}

pub fn run(g: &Global, args: &ComputeArgs) -> anyhow::Result<()> {
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    let now = now_from(args.now.as_deref())?;
    let extent = store.input_extent()?;
    let start = match &args.from {
        Some(s) => Slot::containing(parse_timestamp(s).context("--from")?),
        None => match extent {
            Some(e) => e.start,
            None => {
                eprintln!("no inputs stored; nothing to compute (import data first)");
                return Ok(());
            }
        },
    };
    let end = match &args.to {
        Some(s) => {
            let t = parse_timestamp(s).context("--to")?;
            Slot::from_unix_exact(t.unix_timestamp())
                .filter(|_| t.nanosecond() == 0)
                .unwrap_or(Slot::containing(t).offset(1))
        }
        None => extent.map(|e| e.end).unwrap_or(start.offset(1)),
    };
    anyhow::ensure!(end > start, "--to must be after --from");
    compute_with_progress(&*store, &reference, &[SlotRange::new(start, end)], now)?;
    Ok(())
}
