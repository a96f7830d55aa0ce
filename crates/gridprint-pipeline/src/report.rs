//! What an import did: how many points and TSO forecasts it read, what it skipped, the days it
//! touched, what storing them did and what the compute did.

use crate::days::day_runs;
use gridprint_compute::ComputeSummary;
use gridprint_core::slot::SlotRange;
use gridprint_store::UpsertSummary;
use std::collections::{BTreeMap, BTreeSet};

/// What an import did.
#[derive(Debug, Default)]
pub struct ImportReport {
    /// Files read.
    pub files: usize,
    /// Points read, summed over the files (a point two files hold counts twice).
    pub points: usize,
    /// Skipped source values of every file, by reason and area (keys of
    /// [`gridprint_ingest::skip`]).
    pub skipped: BTreeMap<String, usize>,
    /// The UTC day numbers of the points read.
    pub days: BTreeSet<i64>,
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
        day_runs(self.days.iter().copied())
    }
}
