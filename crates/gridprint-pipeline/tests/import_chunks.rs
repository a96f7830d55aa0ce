//! Imports in bounded memory: the importer reads its files one at a time from an iterator and
//! hands the store one chunk per file, each taken only when the store asks for it, all in one
//! store call (one transaction); a multi-file import from paths (gzip-compressed among them) stores
//! exactly what its files hold.

use gridprint_core::inputs::InputPoint;
use gridprint_core::quality::DataState;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::SlotRange;
use gridprint_pipeline::PipelineError;
use gridprint_pipeline::import::{
    ImportFile, ImportOptions, import_paths_and_compute, parse_file, parse_files, store_files,
};
use gridprint_pipeline::testing::{FILE_LIBRARY_DAY_2017, FIXTURES_DIR, fixture};
use gridprint_store::{InputStore, Result, StoredInput, UpsertSummary};
use gridprint_store_sqlite::SqliteStore;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::path::PathBuf;

fn reference() -> ReferenceData {
    ReferenceData::embedded(ZoneSet::Selected2026)
}

/// What one call of the chunk writer saw: per chunk, (points of the chunk, files read when it
/// came), or the error it carried.
type Call = Vec<std::result::Result<(usize, usize), String>>;

/// An input store that writes nothing and records, per call of the chunk writer, each chunk's
/// size and how many files the importer had read when the chunk came.
#[derive(Default)]
struct CountingStore<'a> {
    files_read: Option<&'a Cell<usize>>,
    calls: RefCell<Vec<Call>>,
}

impl InputStore for CountingStore<'_> {
    fn upsert_input_chunks(
        &self,
        chunks: &mut dyn Iterator<Item = Result<Vec<InputPoint>>>,
        _updated_at: i64,
    ) -> Result<UpsertSummary> {
        let mut seen = Vec::new();
        let mut summary = UpsertSummary::default();
        for chunk in chunks {
            let read = self.files_read.map_or(0, Cell::get);
            match chunk {
                Ok(points) => {
                    summary.inserted += points.len();
                    seen.push(Ok((points.len(), read)));
                }
                Err(e) => {
                    seen.push(Err(e.to_string()));
                    self.calls.borrow_mut().push(seen);
                    return Err(e);
                }
            }
        }
        self.calls.borrow_mut().push(seen);
        Ok(summary)
    }
    fn inputs_in_range(&self, _range: SlotRange) -> Result<Vec<StoredInput>> {
        Ok(Vec::new())
    }
    fn input_extent(&self) -> Result<Option<SlotRange>> {
        Ok(None)
    }
}

/// The fixture files (paths under `data/fixtures`) as the importer's iterator, counting the files
/// it has read into `read`.
fn counted_files<'a>(
    paths: &'a [&'a str],
    read: &'a Cell<usize>,
) -> impl Iterator<Item = std::result::Result<ImportFile<'static>, PipelineError>> + 'a {
    paths.iter().map(move |p| {
        read.set(read.get() + 1);
        Ok((p.to_string(), Cow::Owned(fixture(p))))
    })
}

#[test]
fn the_store_gets_one_chunk_per_file_each_read_only_when_asked_for() {
    let reference = reference();
    let paths = FILE_LIBRARY_DAY_2017;
    let read = Cell::new(0);
    let store = CountingStore {
        files_read: Some(&read),
        ..Default::default()
    };
    let mut files = counted_files(paths, &read);
    let report = store_files(&store, &reference, &mut files, paths.len(), 1, &mut ()).unwrap();
    let calls = store.calls.into_inner();
    assert_eq!(
        calls.len(),
        1,
        "one call of the chunk writer: one transaction"
    );
    let own_points: Vec<usize> = paths
        .iter()
        .map(|p| {
            parse_file(&reference, p, &fixture(p))
                .unwrap()
                .document
                .points
                .len()
        })
        .collect();
    let want: Vec<_> = own_points
        .iter()
        .enumerate()
        .map(|(i, n)| Ok((*n, i + 1)))
        .collect();
    assert_eq!(
        calls[0], want,
        "chunk i holds file i's points alone, and file i+1 is not read before the chunk is taken"
    );
    assert!(own_points.iter().all(|n| *n > 0));
    assert_eq!(report.files, paths.len());
    assert_eq!(report.points, own_points.iter().sum::<usize>());
}

#[test]
fn a_bad_file_is_an_error_chunk_and_stops_the_reading() {
    let reference = reference();
    let paths = [
        FILE_LIBRARY_DAY_2017[0],
        "invalid/hexagon_invalid.xml",
        FILE_LIBRARY_DAY_2017[1],
    ];
    let read = Cell::new(0);
    let store = CountingStore {
        files_read: Some(&read),
        ..Default::default()
    };
    let mut files = counted_files(&paths, &read);
    let err = store_files(&store, &reference, &mut files, paths.len(), 1, &mut ()).unwrap_err();
    assert!(
        matches!(&err, PipelineError::Parse { file, .. } if file == paths[1]),
        "{err}"
    );
    let calls = store.calls.into_inner();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        calls[0].len(),
        2,
        "the good file, then the error: {:?}",
        calls[0]
    );
    assert!(calls[0][1].as_ref().is_err_and(|e| e.contains(paths[1])));
    assert_eq!(read.get(), 2, "the file after the bad one is never read");
}

/// The stored official points of `store`, ordered by key and slot.
fn stored_official(store: &SqliteStore) -> Vec<InputPoint> {
    let Some(extent) = store.input_extent().unwrap() else {
        return Vec::new();
    };
    let mut got: Vec<InputPoint> = store
        .inputs_in_range(extent)
        .unwrap()
        .into_iter()
        .map(|s| s.point)
        .filter(|p| p.state == DataState::Official)
        .collect();
    got.sort_by(|a, b| (&a.key, a.slot).cmp(&(&b.key, b.slot)));
    got
}

#[test]
fn a_multi_file_import_from_paths_stores_what_the_files_hold() {
    let reference = reference();
    // The 2017 day's morning and afternoon extracts share the noon hour; the 2022 hours are
    // gzip-compressed.
    let names: Vec<&str> = FILE_LIBRARY_DAY_2017
        .iter()
        .copied()
        .chain([
            "recordings-2022-hours/2022_02_01+04_AggregatedGenerationPerType_16.1.B_C.csv.gz",
            "recordings-2022-hours/2022_02_01+04_PhysicalFlows_12.1.G.csv.gz",
        ])
        .collect();
    let paths: Vec<PathBuf> = names
        .iter()
        .map(|p| PathBuf::from(format!("{FIXTURES_DIR}/{p}")))
        .collect();
    let store = SqliteStore::open_in_memory().unwrap();
    let options = ImportOptions {
        updated_at: 1,
        compute_at: None,
    };
    let report = import_paths_and_compute(&store, &reference, &paths, &options, &mut ()).unwrap();
    let files: Vec<(String, Vec<u8>)> = names.iter().map(|p| (p.to_string(), fixture(p))).collect();
    let merged = parse_files(&reference, &files, &mut ()).unwrap().document;
    assert_eq!(stored_official(&store), merged.points);
    assert_eq!(report.files, names.len());
    let shared = report.points - merged.points.len();
    assert!(shared > 0, "the noon hour is in two files");
    assert_eq!(
        (
            report.stored.inserted,
            report.stored.updated + report.stored.unchanged
        ),
        (merged.points.len(), shared)
    );
    assert_eq!(report.skipped, merged.skipped);
    let days: Vec<i64> = merged.points.iter().map(|p| p.slot.day()).collect();
    assert_eq!(report.days.iter().copied().collect::<Vec<_>>(), {
        let mut d = days;
        d.sort_unstable();
        d.dedup();
        d
    });
}

#[test]
fn an_unreadable_path_fails_the_import_with_nothing_stored() {
    let store = SqliteStore::open_in_memory().unwrap();
    let paths = vec![
        PathBuf::from(format!("{FIXTURES_DIR}/{}", FILE_LIBRARY_DAY_2017[0])),
        PathBuf::from(format!("{FIXTURES_DIR}/no-such-file.csv")),
    ];
    let options = ImportOptions {
        updated_at: 1,
        compute_at: None,
    };
    let err =
        import_paths_and_compute(&store, &reference(), &paths, &options, &mut ()).unwrap_err();
    assert!(
        matches!(&err, PipelineError::Read { file, .. } if file.ends_with("no-such-file.csv")),
        "{err}"
    );
    assert!(store.input_extent().unwrap().is_none(), "nothing stored");
}
