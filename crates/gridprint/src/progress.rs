//! Progress on the terminal for imports and computes: bars on stderr (importing in files with the
//! points so far, computing in days), the import report and the compute's summary line.

use gridprint_compute::ComputeSummary;
use gridprint_pipeline::{ImportReport, Observer};
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Instant;

/// An import of fewer files than this shows no bar.
const PARSE_BAR_MIN_FILES: u64 = 2;

/// Draws the bars and prints the reports of one import or compute.
pub struct Bars {
    show_parsing: bool,
    /// List the skipped points per reason (else one line; the reasons at debug level).
    skip_details: bool,
    parsing: Option<ProgressBar>,
    computing: Option<ProgressBar>,
    started: Instant,
}

impl Bars {
    /// Bars for a run; `show_parsing` draws a parsing bar for large imports.
    pub fn new(show_parsing: bool) -> Bars {
        Bars {
            show_parsing,
            skip_details: true,
            parsing: None,
            computing: None,
            started: Instant::now(),
        }
    }

    /// The same, with the skipped points summarised in one line (`serve --demo`'s start-up).
    pub fn summary_of_skips(mut self) -> Bars {
        self.skip_details = false;
        self
    }
}

fn bar(template: &str, len: u64) -> ProgressBar {
    let b = ProgressBar::new(len);
    b.set_style(ProgressStyle::with_template(template).expect("valid template"));
    b
}

/// The bar in `slot` (drawn with `template` when it is the first call) at `position` of `len`.
fn advance<'a>(
    slot: &'a mut Option<ProgressBar>,
    template: &str,
    position: u64,
    len: u64,
) -> &'a ProgressBar {
    let b = slot.get_or_insert_with(|| bar(template, len));
    b.set_length(len);
    b.set_position(position);
    b
}

/// Removes the bar in `slot` from the terminal.
fn clear(slot: &mut Option<ProgressBar>) {
    if let Some(b) = slot.take() {
        b.finish_and_clear();
    }
}

impl Observer for Bars {
    fn parsed(&mut self, file: &str, done_files: u64, total_files: u64, points: u64) {
        if !self.show_parsing || total_files < PARSE_BAR_MIN_FILES {
            return;
        }
        let template = "importing {bar:40} {pos}/{len} files, {msg}";
        advance(&mut self.parsing, template, done_files, total_files)
            .set_message(format!("{points} points ({file})"));
    }

    fn stored(&mut self, r: &ImportReport) {
        clear(&mut self.parsing);
        eprintln!(
            "imported {} files: {} points ({} new, {} changed, {} unchanged)",
            r.files, r.points, r.stored.inserted, r.stored.updated, r.stored.unchanged
        );
        if r.forecasts > 0 || !r.forecasts_skipped.is_empty() {
            eprintln!(
                "TSO forecasts: {} values, stored apart from the points ({} new, {} changed, {} unchanged)",
                r.forecasts,
                r.forecasts_stored.inserted,
                r.forecasts_stored.updated,
                r.forecasts_stored.unchanged
            );
            let skipped: usize = r.forecasts_skipped.values().sum();
            if skipped > 0 {
                eprintln!("skipped {skipped} forecast values:");
                for (k, v) in &r.forecasts_skipped {
                    eprintln!("  {v:>7}  {k}");
                }
            }
        }
        let skipped: usize = r.skipped.values().sum();
        if skipped > 0 {
            if self.skip_details {
                eprintln!("skipped {skipped} points:");
                for (k, v) in &r.skipped {
                    eprintln!("  {v:>7}  {k}");
                }
            } else {
                eprintln!(
                    "skipped {skipped} points of {} kinds (details at debug level)",
                    r.skipped.len()
                );
                for (k, v) in &r.skipped {
                    tracing::debug!(points = v, reason = %k, "skipped");
                }
            }
        }
        self.started = Instant::now();
    }

    fn computing(&mut self, done_days: u64, total_days: u64) {
        let template = "computing {bar:40} {pos}/{len} days ({eta} left)";
        advance(&mut self.computing, template, done_days, total_days);
    }

    fn computed(&mut self, summary: &ComputeSummary) {
        clear(&mut self.computing);
        let skipped = match summary.days_settled {
            0 => String::new(),
            n => format!(" ({n} settled days skipped: final, inputs unchanged)"),
        };
        eprintln!(
            "computed {} zone-slots over {} slots ({} frozen kept), published {} zone-days in {:.1} s{skipped}",
            summary.computed,
            summary.slots,
            summary.frozen_kept,
            summary.days_published,
            self.started.elapsed().as_secs_f64()
        );
    }
}
