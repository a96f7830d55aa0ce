//! Fuzz target: the ENTSO-E TSO forecast XML parser (A69, A65 A01, A71) never panics and, when it
//! accepts a document, returns only finite, non-negative values, one per series, kind and slot.
#![no_main]

use gridprint_core::reference::{ReferenceData, ZoneSet};
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

static REFERENCE: LazyLock<ReferenceData> = LazyLock::new(|| ReferenceData::embedded(ZoneSet::Selected2026));

fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = gridprint_ingest::entsoe_xml::parse_forecast(data, &REFERENCE.zones) {
        for p in &doc.forecasts {
            assert!(p.mw.is_finite() && p.mw >= 0.0, "bad value {p:?}");
        }
        for w in doc.forecasts.windows(2) {
            assert!(
                (&w[0].series, w[0].kind, w[0].slot) < (&w[1].series, w[1].kind, w[1].slot),
                "values not sorted and unique: {w:?}"
            );
        }
    }
});
