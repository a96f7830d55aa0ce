//! Fuzz target: the ENTSO-E File Library CSV parser never panics and, when it accepts a file,
//! returns only finite, non-negative points.
#![no_main]

use gridprint_core::reference::{ReferenceData, ZoneSet};
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

static REFERENCE: LazyLock<ReferenceData> = LazyLock::new(|| ReferenceData::embedded(ZoneSet::Selected2026));

fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = gridprint_ingest::file_library::parse(data, &REFERENCE.zones) {
        for p in &doc.points {
            assert!(p.mw.is_finite() && p.mw >= 0.0, "bad point {p:?}");
        }
    }
});
