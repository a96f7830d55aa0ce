//! File imports: parse provider files (ENTSO-E XML, File Library CSV, the Transparency Platform
//! website's CSV exports) one at a time and store each file's points as one chunk of ONE
//! transaction (a bad file stores nothing), then compute and publish the UTC days they touch.
//!
//! Memory holds one file and its points at a time, whatever the number of files: the files come
//! from an iterator ([`import_paths_and_compute`] reads each path when it comes to it) and the
//! store takes the chunks as they are parsed ([`InputStore::upsert_input_chunks`]); what the
//! import keeps across files is counts, the touched days and the TSO forecasts. The website's
//! exports carry the TSOs' forecasts: they are stored apart ([`gridprint_store::tso`]) after the
//! points, each with its publication time from the regulation's deadlines
//! ([`PublicationDeadlines::REGULATION`]). [`import_each_and_compute`] is the whole
//! orchestration; an [`Observer`] sees its progress (the command line draws bars and prints the
//! report from it, tests pass `&mut ()`).

use crate::compute::compute_ranges;
use crate::observer::Observer;
use crate::report::ImportReport;
use gridprint_compute::ComputeError;
use gridprint_core::reference::ReferenceData;
use gridprint_core::tso_forecast::PublicationDeadlines;
use gridprint_ingest::{DocumentKind, InputFormat, ParseError, ParsedDocument, skip};
use gridprint_ingest::{detect_format, transparency_csv};
use gridprint_store::{InputStore, PublishedForecast, Store, StoreError};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;
use time::OffsetDateTime;

/// Why an import failed; nothing was stored when parsing failed.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error("cannot read {file}: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
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

/// A file of an import: its name and its content (unpacked), read when the import comes to it.
pub type ImportFile<'a> = (String, Cow<'a, [u8]>);

/// Parses one file. Website exports ([`InputFormat::TransparencyExport`]) give their actual values
/// to the document and their forecasts, stamped with [`PublicationDeadlines::REGULATION`], to
/// [`ParsedFiles::forecasts`]; a forecast without a deadline is skipped and counted.
pub fn parse_file(
    reference: &ReferenceData,
    name: &str,
    bytes: &[u8],
) -> Result<ParsedFiles, PipelineError> {
    let failed = |e| PipelineError::Parse {
        file: name.to_string(),
        source: e,
    };
    let mut out = ParsedFiles {
        document: ParsedDocument::empty(DocumentKind::Acknowledgement),
        forecasts: Vec::new(),
        forecasts_skipped: BTreeMap::new(),
    };
    if detect_format(bytes) != Some(InputFormat::TransparencyExport) {
        out.document =
            gridprint_ingest::detect_and_parse(bytes, &reference.zones).map_err(failed)?;
        return Ok(out);
    }
    let export = transparency_csv::parse(name, bytes, &reference.zones).map_err(failed)?;
    if let Some(actuals) = export.actuals {
        out.document = actuals;
    }
    out.forecasts_skipped = export.forecasts_skipped;
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
    Ok(out)
}

/// Parses `files` (name, content) in order ([`parse_file`]) and merges their points in memory (a
/// later file wins on the same series and slot): for small sets such as the bundled demo; imports
/// store file by file instead ([`import_each_and_compute`]).
pub fn parse_files(
    reference: &ReferenceData,
    files: &[(String, Vec<u8>)],
    observer: &mut dyn Observer,
) -> Result<ParsedFiles, PipelineError> {
    let mut out = ParsedFiles {
        document: ParsedDocument::empty(DocumentKind::Acknowledgement),
        forecasts: Vec::new(),
        forecasts_skipped: BTreeMap::new(),
    };
    for (i, (name, bytes)) in files.iter().enumerate() {
        let parsed = parse_file(reference, name, bytes)?;
        out.document.merge(parsed.document);
        out.forecasts.extend(parsed.forecasts);
        for (k, n) in parsed.forecasts_skipped {
            skip::add(&mut out.forecasts_skipped, k, n);
        }
        observer.parsed(
            name,
            i as u64 + 1,
            files.len() as u64,
            out.document.points.len() as u64,
        );
    }
    Ok(out)
}

/// Imports `files` (name, content), as [`import_each_and_compute`] does.
pub fn import_and_compute(
    store: &dyn Store,
    reference: &ReferenceData,
    files: &[(String, Vec<u8>)],
    options: &ImportOptions,
    observer: &mut dyn Observer,
) -> Result<ImportReport, PipelineError> {
    let mut each = files
        .iter()
        .map(|(name, bytes)| Ok((name.clone(), Cow::Borrowed(&bytes[..]))));
    import_each_and_compute(store, reference, &mut each, files.len(), options, observer)
}

/// Imports the files at `paths`, each read (and unpacked, [`read_file`]) when the import comes to
/// it, as [`import_each_and_compute`] does; a file that cannot be read fails the import with
/// nothing stored.
pub fn import_paths_and_compute(
    store: &dyn Store,
    reference: &ReferenceData,
    paths: &[PathBuf],
    options: &ImportOptions,
    observer: &mut dyn Observer,
) -> Result<ImportReport, PipelineError> {
    let mut each = paths.iter().map(|path| {
        let file = path.display().to_string();
        match read_file(path) {
            Ok(bytes) => Ok((file, Cow::Owned(bytes))),
            Err(source) => Err(PipelineError::Read { file, source }),
        }
    });
    import_each_and_compute(store, reference, &mut each, paths.len(), options, observer)
}

/// Imports the `total_files` files `files` yields ([`store_files`]), then — when
/// `options.compute_at` is set and points were imported — computes and publishes the UTC days
/// they touch (the forecasts change no published day).
pub fn import_each_and_compute(
    store: &dyn Store,
    reference: &ReferenceData,
    files: &mut dyn Iterator<Item = Result<ImportFile<'_>, PipelineError>>,
    total_files: usize,
    options: &ImportOptions,
    observer: &mut dyn Observer,
) -> Result<ImportReport, PipelineError> {
    let mut report = store_files(
        store,
        reference,
        files,
        total_files,
        options.updated_at,
        observer,
    )?;
    observer.stored(&report);
    if let Some(now) = options.compute_at
        && report.points > 0
    {
        let summary = compute_ranges(store, reference, &report.touched_days(), now, observer)?;
        report.computed = Some(summary);
    }
    Ok(report)
}

/// Parses the files `files` yields one at a time and stores each file's points as one chunk of
/// one transaction ([`InputStore::upsert_input_chunks`]: the next file is read only when the
/// store asks for its chunk), then the TSO forecasts in another. A file that cannot be read or
/// parsed stops the import with nothing stored, and is named.
pub fn store_files(
    store: &dyn InputStore,
    reference: &ReferenceData,
    files: &mut dyn Iterator<Item = Result<ImportFile<'_>, PipelineError>>,
    total_files: usize,
    updated_at: i64,
    observer: &mut dyn Observer,
) -> Result<ImportReport, PipelineError> {
    let mut report = ImportReport::default();
    let mut forecasts: Vec<PublishedForecast> = Vec::new();
    let mut failure: Option<PipelineError> = None;
    // The chunks borrow the report and the failure until the store is done with them.
    let mut chunks = std::iter::from_fn(|| {
        let parsed = files
            .next()?
            .and_then(|(name, bytes)| Ok((parse_file(reference, &name, &bytes)?, name)));
        match parsed {
            Ok((parsed, name)) => {
                let document = parsed.document;
                report.files += 1;
                report.points += document.points.len();
                report
                    .days
                    .extend(document.points.iter().map(|p| p.slot.day()));
                for (k, n) in document.skipped {
                    skip::add(&mut report.skipped, k, n);
                }
                for (k, n) in parsed.forecasts_skipped {
                    skip::add(&mut report.forecasts_skipped, k, n);
                }
                forecasts.extend(parsed.forecasts);
                observer.parsed(
                    &name,
                    report.files as u64,
                    total_files as u64,
                    report.points as u64,
                );
                Some(Ok(document.points))
            }
            Err(e) => {
                let stop = StoreError::Other(format!("import stopped: {e}"));
                failure = Some(e);
                Some(Err(stop))
            }
        }
    });
    let stored = store.upsert_input_chunks(&mut chunks, updated_at);
    report.stored = match (stored, failure) {
        (_, Some(e)) => return Err(e),
        (stored, None) => stored?,
    };
    report.forecasts = forecasts.len();
    report.forecasts_stored = store.upsert_tso_forecasts(&forecasts, updated_at)?;
    Ok(report)
}
