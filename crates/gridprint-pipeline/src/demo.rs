//! The bundled real demo set — the 2017-02-01 File Library extract and 2024 ENTSO-E API documents,
//! embedded in the binary — and its import (`gridprint import --demo`, `serve --demo`).

use crate::import::{ImportOptions, PipelineError, import_and_compute};
use crate::observer::Observer;
use crate::report::ImportReport;
use gridprint_core::reference::ReferenceData;
use gridprint_store::Store;
use time::OffsetDateTime;

/// The bundled real demo set: the 2017-02-01 File Library extract and the 2024 ENTSO-E API documents.
pub const FILES: &[(&str, &[u8])] = &[
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

/// Imports the demo set into `store` and computes it at `now`.
pub fn import_demo(
    store: &dyn Store,
    reference: &ReferenceData,
    now: OffsetDateTime,
    observer: &mut dyn Observer,
) -> Result<ImportReport, PipelineError> {
    let files: Vec<(String, Vec<u8>)> = FILES
        .iter()
        .map(|(n, b)| (n.to_string(), b.to_vec()))
        .collect();
    import_and_compute(store, reference, &files, &ImportOptions::at(now), observer)
}
