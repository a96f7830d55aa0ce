//! Test support (feature `testing`): the one fixture helper of the test suites — "import these
//! files of `data/fixtures` and compute them" — through the same [`import_and_compute`] as
//! `gridprint import`. Panics on any failure, naming the file.

use crate::import::{ImportOptions, import_and_compute};
use crate::report::ImportReport;
use gridprint_core::reference::ReferenceData;
use gridprint_store::Store;
use time::OffsetDateTime;

/// The repository's `data/fixtures` directory.
pub const FIXTURES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/fixtures");

/// The 2017-02-01 ENTSO-E File Library extract (generation and physical flows of the whole day), as
/// paths for [`import_fixtures`].
pub const FILE_LIBRARY_DAY_2017: &[&str] = &[
    "entsoe-file-library/2017_02_01_AM_AggregGen.csv",
    "entsoe-file-library/2017_02_01_PM_AggregGen.csv",
    "entsoe-file-library/2017_02_01_AM_PhysicalFlows.csv",
    "entsoe-file-library/2017_02_01_PM_PhysicalFlows.csv",
];

/// The bytes of a fixture file, by its path under `data/fixtures` (`entsoe-api/A75_….xml`), unpacked
/// when it is gzip-compressed (`….csv.gz`).
pub fn fixture(path: &str) -> Vec<u8> {
    crate::import::read_file(std::path::Path::new(&format!("{FIXTURES_DIR}/{path}")))
        .unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

/// Imports the fixture files (paths under `data/fixtures`) into `store` in one transaction and,
/// with `compute_at`, computes and publishes the days they touch at that instant. Points are
/// stamped `updated_at`.
pub fn import_fixtures(
    store: &dyn Store,
    reference: &ReferenceData,
    paths: &[&str],
    updated_at: i64,
    compute_at: Option<OffsetDateTime>,
) -> ImportReport {
    let files: Vec<(String, Vec<u8>)> = paths.iter().map(|p| (p.to_string(), fixture(p))).collect();
    let options = ImportOptions {
        updated_at,
        compute_at,
    };
    import_and_compute(store, reference, &files, &options, &mut ())
        .unwrap_or_else(|e| panic!("importing fixtures: {e}"))
}
