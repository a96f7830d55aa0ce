//! Computing what is stored: a set of slot ranges, or every UTC day that holds inputs, published in
//! one transaction, with the progress reported to an [`Observer`]. The worker's gap estimators run
//! first ([`crate::estimate::fill_stored_gaps`]), so a compute after an import fills the same gaps
//! the worker would; the flows still absent are then taken as 0 MW, estimated
//! (`gridprint-compute`). Both steps read the inputs through one `InputDays`, so each day is read
//! once unless the estimators wrote to it.

use crate::estimate::fill_stored_gaps_from;
use crate::observer::Observer;
use gridprint_compute::input_days::InputDays;
use gridprint_compute::{ComputeError, ComputeSummary, Mode};
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::SlotRange;
use gridprint_store::Store;
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
    // One reader for both steps: the compute reads again only the days the estimators wrote to.
    let mut inputs = InputDays::new(store);
    fill_stored_gaps_from(&mut inputs, reference, ranges, now)?;
    let summary = gridprint_compute::compute_publish_from(
        &mut inputs,
        reference,
        ranges,
        mode,
        now,
        &mut |d, t| observer.computing(d, t),
    )?;
    observer.computed(&summary);
    Ok(summary)
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
    let mode = Mode::DAYS_WITH_INPUTS;
    let summary = compute_ranges_as(store, reference, &[extent], mode, now, observer)?;
    Ok(Some(summary))
}
