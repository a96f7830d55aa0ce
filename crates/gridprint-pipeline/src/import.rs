//! File imports: parse provider files (ENTSO-E XML, File Library CSV, the Transparency Platform
//! website's CSV exports), store every point in ONE transaction (a bad file stores nothing), then
//! compute and publish the UTC days the points touch.
//!
//! The website's exports also carry the TSOs' forecasts: they are stored apart
//! ([`gridprint_store::tso`]), each with its publication time from the regulation's deadlines
//! ([`PublicationDeadlines::REGULATION`]); every file is parsed before anything is stored, so a
//! malformed row fails the import with nothing stored.
//! [`import_and_compute`] is the whole orchestration; an [`Observer`] sees its progress (the
//! command line draws bars and prints the report from it, tests pass `&mut ()`).

use crate::compute::compute_ranges;
use crate::observer::Observer;
use crate::report::ImportReport;
use gridprint_compute::ComputeError;
use gridprint_core::reference::ReferenceData;
use gridprint_core::tso_forecast::PublicationDeadlines;
use gridprint_ingest::{DocumentKind, InputFormat, ParseError, ParsedDocument, skip};
use gridprint_ingest::{detect_format, transparency_csv};
use gridprint_store::{PublishedForecast, Store, StoreError};
use std::collections::BTreeMap;
use time::OffsetDateTime;

/// Why an import failed; nothing was stored when parsing failed.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error("{file}: not imported: {source}")]
    Parse {
        file: String,
        #[source]
        source: ParseError,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Compute(#[from] ComputeError),
}

/// How to import.
#[derive(Debug, Clone, Copy)]
pub struct ImportOptions {
    /// Unix seconds stamped on the stored points.
    pub updated_at: i64,
    /// Compute the touched days at this instant (it decides which slots are frozen); `None` stores
    /// the points only.
    pub compute_at: Option<OffsetDateTime>,
}

impl ImportOptions {
    /// Store the points and compute the touched days, both at `now`.
    pub fn at(now: OffsetDateTime) -> ImportOptions {
        ImportOptions {
            updated_at: now.unix_timestamp(),
            compute_at: Some(now),
        }
    }
}

/// What the files of an import hold.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedFiles {
    /// The actual points of every file, merged in file order.
    pub document: ParsedDocument,
    /// The TSO forecasts of the website's exports, each with its publication time.
    pub forecasts: Vec<PublishedForecast>,
    /// Forecast values skipped, by reason and area (keys of [`gridprint_ingest::skip`]).
    pub forecasts_skipped: BTreeMap<String, usize>,
}

/// The bytes of an import file, unpacked when it is gzip-compressed (`.csv.gz`, `.xml.gz`: recognised
/// by its first bytes, whatever its name).
pub fn read_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    unpack(std::fs::read(path)?)
}

/// `bytes` unpacked when they are gzip data (several members are read one after the other), else
/// as they are.
pub fn unpack(bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() * 8);
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&bytes[..]), &mut out)?;
    Ok(out)
}

/// Parses `files` (name, content) in order and merges their points (a later file wins on the same
/// series and slot). Website exports ([`InputFormat::TransparencyExport`]) give their actual
/// values to the points and their forecasts, stamped with [`PublicationDeadlines::REGULATION`],
/// to [`ParsedFiles::forecasts`]; a forecast without a deadline is skipped and counted.
pub fn parse_files(
    reference: &ReferenceData,
    files: &[(String, Vec<u8>)],
    observer: &mut dyn Observer,
) -> Result<ParsedFiles, PipelineError> {
    let total: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    let mut done = 0u64;
    let mut out = ParsedFiles {
        document: ParsedDocument::empty(DocumentKind::Acknowledgement),
        forecasts: Vec::new(),
        forecasts_skipped: BTreeMap::new(),
    };
    for (name, bytes) in files {
        let failed = |e| PipelineError::Parse {
            file: name.clone(),
            source: e,
        };
        if detect_format(bytes) == Some(InputFormat::TransparencyExport) {
            let export = transparency_csv::parse(name, bytes, &reference.zones).map_err(failed)?;
            if let Some(actuals) = export.actuals {
                out.document.merge(actuals);
            }
            for (k, n) in export.forecasts_skipped {
                skip::add(&mut out.forecasts_skipped, k, n);
            }
            for point in export.forecasts {
                let zone = point.series.zone().clone();
                match PublicationDeadlines::REGULATION.published_by(point, None) {
                    Some(f) => out.forecasts.push(f),
                    None => skip::add(
                        &mut out.forecasts_skipped,
                        skip::no_publication_time(zone.as_str()),
                        1,
                    ),
                }
            }
        } else {
            let parsed =
                gridprint_ingest::detect_and_parse(bytes, &reference.zones).map_err(failed)?;
            out.document.merge(parsed);
        }
        done += bytes.len() as u64;
        observer.parsed(name, done, total);
    }
    Ok(out)
}

/// Imports `files` (name, content): parses them all, stores every point in one transaction and
/// the TSO forecasts in another, then — when `options.compute_at` is set and points were imported
/// — computes and publishes the UTC days they touch (the forecasts change no published day).
pub fn import_and_compute(
    store: &dyn Store,
    reference: &ReferenceData,
    files: &[(String, Vec<u8>)],
    options: &ImportOptions,
    observer: &mut dyn Observer,
) -> Result<ImportReport, PipelineError> {
    let parsed = parse_files(reference, files, observer)?;
    let stored = store.upsert_inputs(&parsed.document.points, options.updated_at)?;
    let forecasts_stored = store.upsert_tso_forecasts(&parsed.forecasts, options.updated_at)?;
    let mut report = ImportReport {
        files: files.len(),
        document: parsed.document,
        stored,
        forecasts: parsed.forecasts.len(),
        forecasts_skipped: parsed.forecasts_skipped,
        forecasts_stored,
        computed: None,
    };
    observer.stored(&report);
    if let Some(now) = options.compute_at
        && !report.document.points.is_empty()
    {
        let summary = compute_ranges(store, reference, &report.touched_days(), now, observer)?;
        report.computed = Some(summary);
    }
    Ok(report)
}
