//! Computing what is stored: a set of slot ranges, or every UTC day that holds inputs, published in
//! one transaction, with the progress reported to an [`Observer`]. The worker's gap estimators run
//! first ([`crate::estimate::fill_stored_gaps`]), so a compute after an import fills the same gaps
//! the worker would; the flows still absent are then taken as 0 MW, estimated
//! (`gridprint-compute`). Both steps read the inputs through one `InputDays`, so each day is read
//! once unless the estimators wrote to it. A run that saw every input write settles the final days
//! it covered (`gridprint_store::InputStore::settle_days`); the next run skips a settled day whose
//! inputs, and whose neighbours' within the estimators' reach, did not change since: a compute
//! right after an import costs a few queries (docs/usage.md, "Settled days"; its time:
//! docs/performance.md).

use crate::estimate::{PROFILE_DAYS, PROFILE_MAX_GAP_SLOTS, fill_stored_gaps_from};
use crate::observer::Observer;
use gridprint_compute::input_days::InputDays;
use gridprint_compute::{ComputeError, ComputeSummary, Frozen, Mode};
use gridprint_core::quality::freeze_boundary;
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{SLOTS_PER_DAY, SlotRange};
use gridprint_store::{DayRevision, Store, StoreError};
use std::collections::BTreeMap;
use time::OffsetDateTime;

/// Estimates the gaps of `ranges`, then computes and publishes them (widened to whole UTC days) at
/// `now`; final slots already computed are kept.
pub fn compute_ranges(
    store: &dyn Store,
    reference: &ReferenceData,
    ranges: &[SlotRange],
    now: OffsetDateTime,
    observer: &mut dyn Observer,
) -> Result<ComputeSummary, ComputeError> {
    compute_ranges_as(store, reference, ranges, Mode::KEEP_FINAL, now, observer)
}

/// Like [`compute_ranges`], with the treatment of days and final slots given (`Mode::RECOMPUTE_FINAL`
/// for `gridprint compute --force`; the worker never recomputes final slots).
pub fn compute_ranges_as(
    store: &dyn Store,
    reference: &ReferenceData,
    ranges: &[SlotRange],
    mode: Mode,
    now: OffsetDateTime,
    observer: &mut dyn Observer,
) -> Result<ComputeSummary, ComputeError> {
    let revision = store.input_revision()?;
    // One reader for both steps: the compute reads again only the days the estimators wrote to.
    let mut inputs = InputDays::new(store);
    let estimated = match mode.frozen {
        Frozen::Keep => without_quiet_days(store, ranges)?,
        Frozen::Recompute => ranges.to_vec(),
    };
    fill_stored_gaps_from(&mut inputs, reference, &estimated, now)?;
    let summary = gridprint_compute::compute_publish(
        &mut inputs,
        reference,
        ranges,
        mode,
        now,
        &mut |d, t| observer.computing(d, t),
    )?;
    // Every write since `revision` was this run's, so it saw all of them: the final days it
    // covered whole are settled at the revision it ends with. Otherwise (an import wrote
    // meanwhile) nothing is, and the next run looks again.
    let end = store.input_revision()?;
    if end == revision + inputs.changing_upserts() {
        let last_final = freeze_boundary(now).day();
        let days: Vec<i64> = ranges
            .iter()
            .flat_map(|r| r.days().filter(|d| *d < last_final && r.covers_day(*d)))
            .collect();
        store.settle_days(&days, end)?;
    }
    observer.computed(&summary);
    Ok(summary)
}

/// How far the estimates of one day reach into the inputs of other days: the official values
/// that close a gap lie up to [`PROFILE_MAX_GAP_SLOTS`] ahead, and the profile at the start of a
/// gap of up to a week looks [`PROFILE_DAYS`] further back (one day more each way for slots
/// that do not start at midnight).
const REACH_BACK_DAYS: i64 = 2 * PROFILE_DAYS + 1;
const REACH_AHEAD_DAYS: i64 = PROFILE_MAX_GAP_SLOTS as i64 / SLOTS_PER_DAY + 1;

/// `ranges` without their quiet days: settled days whose neighbours within the estimators'
/// reach did not change after them (then the estimates would come out as stored). The
/// estimators look at the official values only, so the day's settled revision covering every
/// neighbour's revision means none of them changed since the day was estimated.
fn without_quiet_days(
    store: &dyn Store,
    ranges: &[SlotRange],
) -> Result<Vec<SlotRange>, StoreError> {
    let mut out = Vec::new();
    for r in ranges {
        let days = r.days();
        let read = days.start - REACH_BACK_DAYS..days.end + REACH_AHEAD_DAYS;
        let revisions: BTreeMap<i64, DayRevision> = store
            .day_revisions(read)?
            .into_iter()
            .map(|d| (d.day, d))
            .collect();
        let quiet = |day: i64| {
            let Some(settled) = revisions.get(&day).and_then(|d| d.settled) else {
                return false;
            };
            revisions
                .range(day - REACH_BACK_DAYS..=day + REACH_AHEAD_DAYS)
                .all(|(_, n)| n.revision <= settled)
        };
        out.extend(r.without_whole_days(quiet).0);
    }
    Ok(out)
}

/// Computes and publishes every UTC day that holds stored inputs (days between them without inputs
/// are left as they are); `None` when nothing is stored.
pub fn compute_stored(
    store: &dyn Store,
    reference: &ReferenceData,
    now: OffsetDateTime,
    observer: &mut dyn Observer,
) -> Result<Option<ComputeSummary>, ComputeError> {
    let Some(extent) = store.input_extent()? else {
        return Ok(None);
    };
    // Whole days: the first and last day of the extent can be settled (and then skipped) too.
    let days = [extent.whole_days()];
    let summary = compute_ranges_as(
        store,
        reference,
        &days,
        Mode::DAYS_WITH_INPUTS,
        now,
        observer,
    )?;
    Ok(Some(summary))
}
