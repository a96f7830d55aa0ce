//! `gridprint import`: read provider files (ENTSO-E XML, File Library CSV, the Transparency
//! Platform website's CSV exports, whose TSO forecasts are stored apart; each also gzip-compressed)
//! or the bundled demo set into the store in one transaction, a file at a time, report what was
//! skipped, then compute the imported days
//! ([`gridprint_pipeline::import::import_paths_and_compute`] does the work). `--demo` also replays the demo set
//! onto the present and runs one worker cycle ([`crate::cmd::demo`]).

use crate::open::ServerArgs;
use crate::progress::Bars;
use anyhow::{Context, bail};
use clap::Args;
use gridprint_pipeline::{ImportOptions, demo};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files or folders to import (format detected per file; in folders: `.xml`, `.csv` and their
    /// gzip-compressed `.xml.gz`, `.csv.gz`).
    #[arg(required_unless_present = "demo")]
    pub paths: Vec<PathBuf>,
    /// Import the bundled real demo data set and compute it, at its recorded dates and replayed onto
    /// the last days up to an hour ago (then one worker cycle: estimates, 96 h forecast).
    #[arg(long, env = "GRIDPRINT_DEMO")]
    pub demo: bool,
    /// Do not compute the imported range afterwards.
    #[arg(long, env = "GRIDPRINT_NO_COMPUTE")]
    pub no_compute: bool,
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
                let name = e
                    .file_name()
                    .and_then(|x| x.to_str())
                    .unwrap_or("")
                    .to_ascii_lowercase();
                let name = name.strip_suffix(".gz").unwrap_or(&name);
                if e.is_dir() {
                    out.extend(collect_files(&[e])?);
                } else if name.ends_with(".xml") || name.ends_with(".csv") {
                    out.push(e);
                }
            }
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

pub fn run(g: &ServerArgs, args: &ImportArgs) -> anyhow::Result<()> {
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    let now = time::OffsetDateTime::now_utc();
    if args.demo {
        // At the recorded dates, then replayed onto the present with one worker cycle.
        demo::import_demo(&*store, &reference, now, &mut Bars::new(false))?;
        if !args.no_compute {
            let live = demo::LiveDemo::new(store, reference)?;
            if crate::cmd::demo::first_step(&live)?.is_some() {
                for line in crate::cmd::demo::startup_lines(&live) {
                    eprintln!("{line}");
                }
            }
        }
        return Ok(());
    }
    let paths = collect_files(&args.paths)?;
    if paths.is_empty() {
        bail!(
            "no .xml or .csv files (or .gz of them) found in {}",
            args.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let options = ImportOptions {
        compute_at: (!args.no_compute).then_some(now),
        ..ImportOptions::at(now)
    };
    gridprint_pipeline::import::import_paths_and_compute(
        &*store,
        &reference,
        &paths,
        &options,
        &mut Bars::new(true),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::collect_files;

    /// Folders give their `.xml` and `.csv` files and the gzip-compressed `.xml.gz` and `.csv.gz`
    /// (the File Library's extracts as downloaded), sorted, sub-folders walked; nothing else.
    #[test]
    fn folders_give_their_xml_csv_and_gz_files() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        for name in [
            "b.csv.gz",
            "a.xml",
            "c.CSV",
            "notes.txt",
            "d.gz",
            "e.xml.gz",
        ] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        std::fs::write(sub.join("f.csv"), b"x").unwrap();
        let names: Vec<String> = collect_files(&[dir.path().to_path_buf()])
            .unwrap()
            .iter()
            .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            ["a.xml", "b.csv.gz", "c.CSV", "e.xml.gz", "sub/f.csv"]
        );
    }
}
