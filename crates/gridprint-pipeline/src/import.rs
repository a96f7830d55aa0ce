//! File imports: parse provider files (ENTSO-E XML, File Library CSV), store every point in ONE
//! transaction (a bad file stores nothing), then compute and publish the UTC days the points touch.
//!
//! [`import_and_compute`] is the whole orchestration; an [`Observer`] sees its progress (the
//! command line draws bars and prints the report from it, tests pass `&mut ()`).

use crate::compute::compute_ranges;
use crate::observer::Observer;
use crate::report::ImportReport;
use gridprint_compute::ComputeError;
use gridprint_core::reference::ReferenceData;
use gridprint_ingest::{DocumentKind, ParseError, ParsedDocument};
use gridprint_store::{Store, StoreError};
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
/// series and slot).
pub fn parse_files(
    reference: &ReferenceData,
    files: &[(String, Vec<u8>)],
    observer: &mut dyn Observer,
) -> Result<ParsedDocument, PipelineError> {
    let total: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    let mut done = 0u64;
    let mut doc = ParsedDocument::empty(DocumentKind::Acknowledgement);
    for (name, bytes) in files {
        let parsed = gridprint_ingest::detect_and_parse(bytes, &reference.zones).map_err(|e| {
            PipelineError::Parse {
                file: name.clone(),
                source: e,
            }
        })?;
        doc.merge(parsed);
        done += bytes.len() as u64;
        observer.parsed(name, done, total);
    }
    Ok(doc)
}

/// Imports `files` (name, content): parses them all, stores every point in one transaction, then —
/// when `options.compute_at` is set and points were imported — computes and publishes the UTC days
/// they touch.
pub fn import_and_compute(
    store: &dyn Store,
    reference: &ReferenceData,
    files: &[(String, Vec<u8>)],
    options: &ImportOptions,
    observer: &mut dyn Observer,
) -> Result<ImportReport, PipelineError> {
    let document = parse_files(reference, files, observer)?;
    let stored = store.upsert_inputs(&document.points, options.updated_at)?;
    let mut report = ImportReport {
        files: files.len(),
        document,
        stored,
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
