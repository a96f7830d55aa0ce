//! `gridprint import`: read provider files (ENTSO-E XML, File Library CSV) or the bundled demo set into
//! the store in one transaction, report what was skipped, then compute the imported days.

use crate::cli::{Global, ImportArgs};
use anyhow::{Context, bail};
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_ingest::ParsedDocument;
use gridprint_store::Store;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The bundled real demo set: the 2017-02-01 File Library extract and the 2024 ENTSO-E API documents.
pub const DEMO_FILES: &[(&str, &[u8])] = &[
    (
        "2017_02_01_AM_AggregGen.csv",
        include_bytes!("../../../data/fixtures/entsoe-file-library/2017_02_01_AM_AggregGen.csv"),
    ),
    (
        "2017_02_01_PM_AggregGen.csv",
        include_bytes!("../../../data/fixtures/entsoe-file-library/2017_02_01_PM_AggregGen.csv"),
    ),
    (
        "2017_02_01_AM_PhysicalFlows.csv",
        include_bytes!(
            "../../../data/fixtures/entsoe-file-library/2017_02_01_AM_PhysicalFlows.csv"
        ),
    ),
    (
        "2017_02_01_PM_PhysicalFlows.csv",
        include_bytes!(
            "../../../data/fixtures/entsoe-file-library/2017_02_01_PM_PhysicalFlows.csv"
        ),
    ),
    (
        "A75_DE-LU_2024-06-15_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_DE-LU_2024-06-15_PT15M_A03.xml"),
    ),
    (
        "A75_ES_2024-06-15_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_ES_2024-06-15_PT15M_A03.xml"),
    ),
    (
        "A75_FR_2024-06-15_PT60M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_FR_2024-06-15_PT60M_A03.xml"),
    ),
    (
        "A75_IT-NORTH_2024-06-15_PT60M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_IT-NORTH_2024-06-15_PT60M_A03.xml"),
    ),
    (
        "A75_NL_2024-06-15_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_NL_2024-06-15_PT15M_A03.xml"),
    ),
    (
        "A75_PL_2024-06-15_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_PL_2024-06-15_PT15M_A03.xml"),
    ),
    (
        "A75_NL_2024-09-02_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A75_NL_2024-09-02_PT15M_A03.xml"),
    ),
    (
        "A65_A16_NL_2024-09-02_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A65_A16_NL_2024-09-02_PT15M_A03.xml"),
    ),
    (
        "A65_A16_BE_2024-01-15to21_PT15M_A03.xml",
        include_bytes!("../../../data/fixtures/entsoe-api/A65_A16_BE_2024-01-15to21_PT15M_A03.xml"),
    ),
    (
        "A11_DE-LU-to-NL_2024-09-02to08_PT15M_A03.xml",
        include_bytes!(
            "../../../data/fixtures/entsoe-api/A11_DE-LU-to-NL_2024-09-02to08_PT15M_A03.xml"
        ),
    ),
    (
        "A11_NL-to-DE-LU_2024-09-02to08_PT15M_A03.xml",
        include_bytes!(
            "../../../data/fixtures/entsoe-api/A11_NL-to-DE-LU_2024-09-02to08_PT15M_A03.xml"
        ),
    ),
];

/// What an import did.
#[derive(Debug)]
pub struct ImportReport {
    pub files: usize,
    pub document: ParsedDocument,
    pub summary: gridprint_store::UpsertSummary,
}

fn collect_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).with_context(|| format!("cannot read {}", p.display()))?;
        if meta.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("cannot list {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            entries.sort();
            for e in entries {
                let ext = e
                    .extension()
                    .and_then(|x| x.to_str())
                    .unwrap_or("")
                    .to_ascii_lowercase();
                if e.is_dir() {
                    out.extend(collect_files(&[e])?);
                } else if matches!(ext.as_str(), "xml" | "csv") {
                    out.push(e);
                }
            }
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Parses every input, then stores all points in ONE transaction: a bad file stores nothing.
pub fn import_bytes(
    store: &dyn Store,
    reference: &ReferenceData,
    files: &[(String, Vec<u8>)],
    show_progress: bool,
) -> anyhow::Result<ImportReport> {
    let total: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    let bar = if show_progress && total > 4 << 20 {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("parsing {bar:40} {bytes}/{total_bytes} {msg}")
            .expect("valid template"),
    );
    let mut doc = ParsedDocument::empty(gridprint_ingest::DocumentKind::Acknowledgement);
    for (name, bytes) in files {
        bar.set_message(name.clone());
        let parsed = gridprint_ingest::detect_and_parse(bytes, &reference.zones)
            .with_context(|| format!("{name}: not imported"))?;
        doc.merge(parsed);
        bar.inc(bytes.len() as u64);
    }
    bar.finish_and_clear();
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let summary = store.upsert_inputs(&doc.points, now)?;
    Ok(ImportReport {
        files: files.len(),
        document: doc,
        summary,
    })
}

/// Contiguous runs of whole days touched by the imported points.
pub fn touched_day_ranges(doc: &ParsedDocument) -> Vec<SlotRange> {
    let days: BTreeSet<i64> = doc.points.iter().map(|p| p.slot.day()).collect();
    let mut out: Vec<SlotRange> = Vec::new();
    for d in days {
        match out.last_mut() {
            Some(r) if r.end == Slot::first_of_day(d) => r.end = Slot::first_of_day(d + 1),
            _ => out.push(SlotRange::new(
                Slot::first_of_day(d),
                Slot::first_of_day(d + 1),
            )),
        }
    }
    out
}

/// The report of `gridprint import`: counts, and every skip key with its count.
fn print_report(r: &ImportReport) {
    print_counts(r);
    let skipped: usize = r.document.skipped.values().sum();
    if skipped > 0 {
        eprintln!("skipped {skipped} points:");
        for (k, v) in &r.document.skipped {
            eprintln!("  {v:>7}  {k}");
        }
    }
}

fn print_counts(r: &ImportReport) {
    eprintln!(
        "imported {} files: {} points ({} new, {} changed, {} unchanged)",
        r.files,
        r.document.points.len(),
        r.summary.inserted,
        r.summary.updated,
        r.summary.unchanged
    );
}

/// Imports the demo set into the configured database and computes it.
pub fn import_demo(
    store: &dyn Store,
    reference: &ReferenceData,
    now: time::OffsetDateTime,
) -> anyhow::Result<ImportReport> {
    let files: Vec<(String, Vec<u8>)> = DEMO_FILES
        .iter()
        .map(|(n, b)| (n.to_string(), b.to_vec()))
        .collect();
    let report = import_bytes(store, reference, &files, false)?;
    crate::compute::compute_with_progress(
        store,
        reference,
        &touched_day_ranges(&report.document),
        now,
    )?;
    Ok(report)
}

/// `gridprint import --demo` for other subcommands (serve --demo): imports only into an empty database.
pub fn run_demo(g: &Global) -> anyhow::Result<()> {
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    if store.input_extent()?.is_some() {
        eprintln!("database already holds data; demo import skipped");
        return Ok(());
    }
    let r = import_demo(&*store, &reference, time::OffsetDateTime::now_utc())?;
    // Before a server starts: the skip list as one summary line (details at debug).
    print_counts(&r);
    gridprint_ingest::skip::log(&r.document.skipped);
    Ok(())
}

pub fn run(g: &Global, args: &ImportArgs) -> anyhow::Result<()> {
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    let now = time::OffsetDateTime::now_utc();
    if args.demo {
        let r = import_demo(&*store, &reference, now)?;
        print_report(&r);
        return Ok(());
    }
    let paths = collect_files(&args.paths)?;
    if paths.is_empty() {
        bail!(
            "no .xml or .csv files found in {}",
            args.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let files = paths
        .iter()
        .map(|p| {
            Ok((
                p.display().to_string(),
                std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?,
            ))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let report = import_bytes(&*store, &reference, &files, true)?;
    print_report(&report);
    if !args.no_compute && !report.document.points.is_empty() {
        crate::compute::compute_with_progress(
            &*store,
            &reference,
            &touched_day_ranges(&report.document),
            now,
        )?;
    }
    Ok(())
}
