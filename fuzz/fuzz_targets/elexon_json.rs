//! Fuzz target: the Elexon Insights JSON parsers (FUELHH generation, demand outturn) never panic and,
//! when they accept an answer, return only finite, non-negative points inside the requested range.
#![no_main]

use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let gb = ZoneCode::parse("GB").unwrap();
    // 2024-09-01 .. 2024-09-04, around the seed documents.
    let start = Slot(1_725_148_800 / 900);
    let range = SlotRange::new(start, start.offset(3 * 96));
    for parsed in [
        gridprint_ingest::elexon::parse_fuelhh(data, &gb, range),
        gridprint_ingest::elexon::parse_demand_outturn(data, &gb, range),
    ] {
        if let Ok(doc) = parsed {
            for p in &doc.points {
                assert!(p.mw.is_finite() && p.mw >= 0.0, "bad point {p:?}");
                assert!(range.contains(p.slot), "point outside the range {p:?}");
            }
        }
    }
});
