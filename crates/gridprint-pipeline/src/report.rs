//! What an import did: the parsed points and TSO forecasts, what storing them did and what the
//! compute did.

use crate::days::day_runs;
use gridprint_compute::ComputeSummary;
use gridprint_core::slot::SlotRange;
use gridprint_ingest::ParsedDocument;
use gridprint_store::UpsertSummary;
use std::collections::BTreeMap;

/// What an import did.
#[derive(Debug)]
pub struct ImportReport {
    /// Files read.
    pub files: usize,
    /// Every file's points and skip counts, merged in file order.
    pub document: ParsedDocument,
    /// What storing the points did.
    pub stored: UpsertSummary,
    /// TSO forecast values read (website exports), stored apart from the points.
    pub forecasts: usize,
    /// Forecast values skipped, by reason and area.
    pub forecasts_skipped: BTreeMap<String, usize>,
    /// What storing the forecasts did.
    pub forecasts_stored: UpsertSummary,
    /// What the compute did (`None` when not asked for, or when nothing was imported).
    pub computed: Option<ComputeSummary>,
}

impl ImportReport {
    /// Contiguous runs of whole UTC days touched by the imported points.
    pub fn touched_days(&self) -> Vec<SlotRange> {
        day_runs(self.document.points.iter().map(|p| p.slot.day()))
    }
}
