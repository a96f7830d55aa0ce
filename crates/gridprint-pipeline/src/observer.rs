//! What the caller of an import or a compute sees while it runs: an [`Observer`] of its steps (the
//! command line draws bars and prints reports from it, tests pass `&mut ()`).

use crate::report::ImportReport;
use gridprint_compute::ComputeSummary;

/// Sees an import as it goes; every method does nothing by default.
pub trait Observer {
    /// After each parsed file: files parsed so far out of all files, and the points they held.
    fn parsed(&mut self, _file: &str, _done_files: u64, _total_files: u64, _points: u64) {}
    /// Once the points are stored, before the compute starts.
    fn stored(&mut self, _report: &ImportReport) {}
    /// After each batch of computed days.
    fn computing(&mut self, _done_days: u64, _total_days: u64) {}
    /// When the compute has published.
    fn computed(&mut self, _summary: &ComputeSummary) {}
}

impl Observer for () {}
