//! `gridprint compute`: recompute derived outputs — every day that holds inputs, or a time range —
//! with a progress bar. The gap estimators run first. Final slots (older than 4 h) are kept as
//! they are, unless `--force` (with `--from` and `--to`) recomputes them under today's rules.

use crate::open::ServerArgs;
use crate::progress::Bars;
use anyhow::Context;
use clap::Args;
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{Slot, SlotRange, parse_timestamp};
use gridprint_store::Store;
use time::OffsetDateTime;

/// `--from` and `--to`: a range of the stored inputs (`compute`, `forecast-eval`).
#[derive(Debug, Args)]
pub struct RangeArgs {
    /// Start of the range (ISO 8601; default: the first stored input).
    #[arg(long, env = "GRIDPRINT_FROM")]
    pub from: Option<String>,
    /// End of the range, exclusive (ISO 8601; default: the last stored input).
    #[arg(long, env = "GRIDPRINT_TO")]
    pub to: Option<String>,
}

impl RangeArgs {
    /// The slot holding `--from`, if given.
    pub fn start(&self) -> anyhow::Result<Option<Slot>> {
        self.from
            .as_deref()
            .map(|s| Ok(Slot::containing(parse_timestamp(s).context("--from")?)))
            .transpose()
    }

    /// The exclusive end of the range, if `--to` is given: the slot boundary at `--to`, or else the
    /// end of the slot holding it (a slot that starts before `--to` is in the range).
    pub fn end(&self) -> anyhow::Result<Option<Slot>> {
        self.to
            .as_deref()
            .map(|s| {
                let t = parse_timestamp(s).context("--to")?;
                Ok(Slot::from_unix_exact(t.unix_timestamp())
                    .filter(|_| t.nanosecond() == 0)
                    .unwrap_or(Slot::containing(t).offset(1)))
            })
            .transpose()
    }
}

#[derive(Debug, Args)]
pub struct ComputeArgs {
    // Without --from and --to, every day that holds inputs is computed.
    #[command(flatten)]
    pub range: RangeArgs,
    /// Pretend the current time is this instant (tests, replays); decides which slots are frozen.
    #[arg(long, env = "GRIDPRINT_NOW", hide = true)]
    pub now: Option<String>,
    /// Recompute final slots too (older than 4 hours; the worker never changes them), from the
    /// stored inputs and under the current rules: after an upgrade or a data correction. Needs
    /// --from and --to.
    #[arg(long, env = "GRIDPRINT_FORCE", requires_all = ["from", "to"])]
    pub force: bool,
}

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
    Ok(gridprint_pipeline::compute::compute_ranges(
        store,
        reference,
        ranges,
        now,
        &mut Bars::new(false),
    )?)
}

pub fn run(g: &ServerArgs, args: &ComputeArgs) -> anyhow::Result<()> {
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    let now = now_from(args.now.as_deref())?;
    if args.range.from.is_none() && args.range.to.is_none() {
        let computed = gridprint_pipeline::compute::compute_stored(
            &*store,
            &reference,
            now,
            &mut Bars::new(false),
        )?;
        if computed.is_none() {
            eprintln!("no inputs stored; nothing to compute (import data first)");
        }
        return Ok(());
    }
    let extent = store.input_extent()?;
    let start = match (args.range.start()?, extent) {
        (Some(s), _) => s,
        (None, Some(e)) => e.start,
        (None, None) => {
            eprintln!("no inputs stored; nothing to compute (import data first)");
            return Ok(());
        }
    };
    let end = match args.range.end()? {
        Some(end) => end,
        None => extent.map(|e| e.end).unwrap_or(start.offset(1)),
    };
    anyhow::ensure!(end > start, "--to must be after --from");
    let range = [SlotRange::new(start, end)];
    if args.force {
        gridprint_pipeline::compute::compute_ranges_as(
            &*store,
            &reference,
            &range,
            gridprint_compute::Mode::RECOMPUTE_FINAL,
            now,
            &mut Bars::new(false),
        )?;
    } else {
        compute_with_progress(&*store, &reference, &range, now)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::RangeArgs;
    use gridprint_core::slot::{Slot, parse_timestamp};

    fn end(to: &str) -> Slot {
        let args = RangeArgs {
            from: None,
            to: Some(to.to_string()),
        };
        args.end().unwrap().unwrap()
    }

    #[test]
    fn to_is_an_exclusive_end_rounded_up_to_a_slot_boundary() {
        let noon = Slot::containing(parse_timestamp("2024-06-15T12:00:00Z").unwrap());
        // On a boundary: the slot starting there is out.
        assert_eq!(end("2024-06-15T12:00:00Z"), noon);
        // Inside a slot: that slot is in (it starts before --to).
        assert_eq!(end("2024-06-15T12:07:00Z"), noon.offset(1));
        assert_eq!(end("2024-06-15T12:00:00.5Z"), noon.offset(1));
        let bad = RangeArgs {
            from: None,
            to: Some("noon".into()),
        };
        assert!(format!("{:#}", bad.end().unwrap_err()).contains("--to"));
    }
}
