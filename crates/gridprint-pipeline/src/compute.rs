//! Computing what is stored: a set of slot ranges, or every UTC day that holds inputs, published in
//! one transaction, with the progress reported to an [`Observer`].

use crate::observer::Observer;
use gridprint_compute::{ComputeError, ComputeSummary};
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::SlotRange;
use gridprint_store::Store;
use time::OffsetDateTime;

/// Computes and publishes `ranges` (widened to whole UTC days) at `now`.
pub fn compute_ranges(
    store: &dyn Store,
    reference: &ReferenceData,
    ranges: &[SlotRange],
    now: OffsetDateTime,
    observer: &mut dyn Observer,
) -> Result<ComputeSummary, ComputeError> {
    let summary = gridprint_compute::compute_ranges(store, reference, ranges, now, &mut |d, t| {
        observer.computing(d, t)
    })?;
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
    let summary =
        gridprint_compute::compute_days_with_inputs(store, reference, extent, now, &mut |d, t| {
            observer.computing(d, t)
        })?;
    observer.computed(&summary);
    Ok(Some(summary))
}
