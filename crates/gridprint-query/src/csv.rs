//! Long-format CSV of every answer (**\[beyond\]** `format=csv`, docs/api.md "CSV"): one row per
//! point, the descriptive fields and flags repeated as columns, numbers rounded to 2 decimals like
//! the JSON, a header row always (also for an empty answer). The columns and rows come from the
//! answer's [`Rows`](gridprint_responses::Rows) walk; this module only writes them with the `csv`
//! crate.

use ::csv::{Writer, WriterBuilder};
use gridprint_responses::stamp::with_slot_stamp;
use gridprint_responses::{Answer, RowSink, StatusResponse, Values, round2};
use std::fmt::Write as _;

/// Writes the rows handed over into a CSV writer, keeping the first error.
struct CsvSink {
    w: Writer<Vec<u8>>,
    /// Reused number formatting.
    num: String,
    error: Option<::csv::Error>,
}

impl CsvSink {
    fn keep(&mut self, r: ::csv::Result<()>) {
        if let (Err(e), None) = (r, &self.error) {
            self.error = Some(e);
        }
    }
}

impl RowSink for CsvSink {
    fn points(&mut self, prefix: &[&str], values: &Values) {
        for p in &values.0 {
            let mut r = prefix.iter().try_for_each(|f| self.w.write_field(f));
            if r.is_ok() {
                r = with_slot_stamp(p.slot, |s| self.w.write_field(s));
            }
            self.num.clear();
            let _ = write!(self.num, "{}", round2(p.value));
            if r.is_ok() {
                r = self.w.write_field(&self.num);
            }
            if r.is_ok() {
                r = self.w.write_record(None::<&[u8]>);
            }
            self.keep(r);
        }
    }

    fn row(&mut self, fields: &[&str]) {
        let r = self.w.write_record(fields);
        self.keep(r);
    }
}

/// Bytes per point the CSV buffer is sized for: rows with their descriptive fields, the longest
/// being a year of factors (271.9 MB for 2.1 million points, 129 bytes each on average). Sized once,
/// the buffer is never copied into a larger one while it grows (a copy briefly holds both); only
/// the pages written take memory. The API reserves as much of its response memory budget before it
/// writes an answer.
pub const CSV_BYTES_PER_POINT: usize = 136;

/// The CSV body of an answer (UTF-8, `\n` line ends, header row first).
pub fn to_csv(answer: &dyn Answer) -> Vec<u8> {
    let mut sink = CsvSink {
        w: WriterBuilder::new()
            .flexible(false)
            .from_writer(Vec::with_capacity(
                4096 + CSV_BYTES_PER_POINT.saturating_mul(answer.points()),
            )),
        num: String::with_capacity(24),
        error: None,
    };
    let header = sink.w.write_record(answer.columns());
    sink.keep(header);
    answer.rows(&mut sink);
    // Writing into a Vec cannot fail except on a column-count mismatch, which the row walk rules out.
    sink.w.into_inner().unwrap_or_default()
}

/// The CSV body of a `/status` answer: `storage,entso-e,elexon,epias` and one row.
pub fn status_csv(s: &StatusResponse) -> Vec<u8> {
    to_csv(&vec![s.clone()])
}
