//! Fuzz target: the Transparency Platform website export parser never panics and, when it accepts
//! a file, returns only finite, non-negative actual points and forecasts.
#![no_main]

use gridprint_core::reference::{ReferenceData, ZoneSet};
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

static REFERENCE: LazyLock<ReferenceData> = LazyLock::new(|| ReferenceData::embedded(ZoneSet::Selected2026));

fuzz_target!(|data: &[u8]| {
    if let Ok(export) = gridprint_ingest::transparency_csv::parse("fuzz.csv", data, &REFERENCE.zones) {
        for p in export.actuals.iter().flat_map(|doc| &doc.points) {
            assert!(p.mw.is_finite() && p.mw >= 0.0, "bad point {p:?}");
        }
        for p in &export.forecasts {
            assert!(p.mw.is_finite() && p.mw >= 0.0, "bad forecast {p:?}");
        }
    }
});
