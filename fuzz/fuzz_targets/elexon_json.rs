//! Fuzz target: the Elexon Insights JSON parsers (FUELHH generation, demand outturn, the WINDFOR and
//! NDF forecasts) never panic and, when they accept an answer, return only finite, non-negative
//! values inside the requested range (a forecast's published before its slot).
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
    for dataset in ["WINDFOR", "NDF"] {
        if let Ok(f) = gridprint_ingest::elexon::parse_forecast(data, dataset, &gb, range) {
            for p in &f.forecasts {
                assert!(p.point.mw.is_finite() && p.point.mw >= 0.0, "bad value {p:?}");
                assert!(range.contains(p.point.slot), "value outside the range {p:?}");
                assert!(p.published_at < p.point.slot.start().unix_timestamp(), "published late {p:?}");
            }
        }
    }
});
