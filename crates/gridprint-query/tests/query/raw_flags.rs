//! The flags of raw inputs on real hours of 2022 (data/fixtures/recordings-2022-hours): for every
//! zone of the recordings — computed or not — `/imports` and `/exports` show its borders without
//! data as assumed 0 MW, estimated, and never read `complete` in a slot where one of its borders
//! has no official value (docs/api.md §6). DE, AT and NL have flows but no generation data; DE's
//! borders with DK1, DK2, NO2 and SE4 have no data at all.

use crate::fixture::{Endpoint, q, reference};
use gridprint_core::inputs::{DATASOURCE_ASSUMED_ZERO, InputKey};
use gridprint_core::quality::DataState;
use gridprint_core::slot::{Slot, SlotRange, parse_timestamp};
use gridprint_query::QueryService;
use gridprint_store::InputStore;
use gridprint_store_sqlite::SqliteStore;
use serde_json::Value;
use std::collections::BTreeSet;

const HOURS: &[&str] = &[
    "recordings-2022-hours/2022_02_01+04_AggregatedGenerationPerType_16.1.B_C.csv.gz",
    "recordings-2022-hours/2022_02_01+04_PhysicalFlows_12.1.G.csv.gz",
];

/// The 22 zones of the recordings: 19 with generation, and AT, DE, NL with flows only.
const ZONES: &[&str] = &[
    "AT", "BE", "BG", "CZ", "DE", "EE", "ES", "FI", "FR", "GR", "HU", "IE", "LT", "LV", "ME", "NL",
    "PL", "PT", "RO", "RS", "SI", "SK",
];

const WINDOW: &str = "start=2022-02-01T00:00Z&end=2022-02-01T12:00Z";

fn slot(ts: &str) -> Slot {
    Slot::containing(parse_timestamp(ts).unwrap())
}

/// The hours imported and computed as of 2026 (every slot final), the service on them, and the
/// (from, to, slot) of every official flow stored.
fn loaded() -> (QueryService, BTreeSet<(String, String, Slot)>) {
    let store = SqliteStore::open_in_memory().unwrap();
    let now = parse_timestamp("2026-01-01T00:00Z").unwrap();
    gridprint_pipeline::testing::import_fixtures(&store, &reference(), HOURS, 1, Some(now));
    let range = SlotRange::new(slot("2022-02-01T00:00Z"), slot("2022-02-05T00:00Z"));
    let official = store
        .inputs_in_range(range)
        .unwrap()
        .into_iter()
        .filter(|p| p.point.state == DataState::Official)
        .filter_map(|p| match p.point.key {
            InputKey::Flow { from, to } => Some((from.to_string(), to.to_string(), p.point.slot)),
            _ => None,
        })
        .collect();
    (QueryService::load(&store, reference()).unwrap(), official)
}

fn answer(svc: &QueryService, ep: Endpoint, zone: &str) -> Value {
    let now = parse_timestamp("2026-01-01T00:00Z").unwrap();
    let resp = ep
        .query(svc, &q(&format!("zone={zone}&{WINDOW}")), now)
        .unwrap();
    serde_json::from_slice(&resp.to_json()).unwrap()
}

/// `(partner, data_state, datasource, slots)` of every block of every entry, with the entry's
/// `zone_status`.
fn blocks(
    v: &Value,
    field: &str,
    partner: &str,
) -> Vec<(String, String, String, String, Vec<Slot>)> {
    let mut out = Vec::new();
    for entry in v[0]["series"].as_array().into_iter().flatten() {
        for b in entry[field].as_array().unwrap() {
            let slots = b["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| slot(p[0].as_str().unwrap()))
                .collect();
            out.push((
                entry["zone_status"].as_str().unwrap().to_string(),
                b[partner].as_str().unwrap().to_string(),
                b["data_state"].as_str().unwrap().to_string(),
                b["datasource"].as_str().unwrap().to_string(),
                slots,
            ));
        }
    }
    out
}

#[test]
fn imports_and_exports_of_every_zone_flag_its_borders_without_data() {
    let (svc, official) = loaded();
    let zones = &reference().zones;
    let mut complete_slots = 0;
    for &zone in ZONES {
        let z = zones.index_of_str(zone).unwrap();
        let neighbours: Vec<String> = zones
            .neighbours(z)
            .iter()
            .map(|&n| zones.code(n).to_string())
            .collect();
        // Whether every direction of every border of the zone has an official value in `s`.
        let all_official = |s: Slot| {
            neighbours.iter().all(|n| {
                official.contains(&(n.clone(), zone.to_string(), s))
                    && official.contains(&(zone.to_string(), n.clone(), s))
            })
        };
        for (ep, field, partner) in [
            (Endpoint::Imports, "imports", "source"),
            (Endpoint::Exports, "exports", "destination"),
        ] {
            let v = answer(&svc, ep, zone);
            let got = blocks(&v, field, partner);
            assert!(!got.is_empty(), "{zone} {field}: no answer");
            // Every border of the zone in the zone set appears: with data, or assumed 0 MW.
            let shown: BTreeSet<&str> = got.iter().map(|b| b.1.as_str()).collect();
            for n in &neighbours {
                assert!(shown.contains(n.as_str()), "{zone} {field}: no {n} block");
            }
            for (status, p, state, ds, slots) in &got {
                if status == "complete" {
                    complete_slots += slots.len();
                    for s in slots {
                        assert!(all_official(*s), "{zone} {field} complete at {s:?} ({p})");
                    }
                }
                if ds == DATASOURCE_ASSUMED_ZERO {
                    assert_eq!(state, "estimated");
                    assert_ne!(
                        status, "complete",
                        "{zone} {field}: {p} assumed yet complete"
                    );
                }
            }
        }
    }
    // Where every border of a zone is reported (PT's one border with ES), `complete` is still
    // served: the rule is not vacuous.
    assert!(complete_slots > 0);
}

#[test]
fn germany_without_generation_shows_its_four_borders_without_data() {
    let (svc, _) = loaded();
    let v = answer(&svc, Endpoint::Imports, "DE");
    let got = blocks(&v, "imports", "source");
    for n in ["DK1", "DK2", "NO2", "SE4"] {
        let b: Vec<_> = got.iter().filter(|b| b.1 == n).collect();
        assert_eq!(b.len(), 1, "DE imports from {n}: {b:?}");
        let (status, _, state, ds, slots) = b[0];
        assert_eq!(
            (state.as_str(), ds.as_str()),
            ("estimated", DATASOURCE_ASSUMED_ZERO)
        );
        assert_eq!(status, "preview");
        assert_eq!(
            slots.len(),
            48,
            "DE imports from {n}: every slot of the window"
        );
    }
    // Its recorded borders keep their provider values, in entries that read `preview` too.
    let at = got
        .iter()
        .find(|b| b.1 == "AT" && b.2 == "official")
        .expect("AT → DE");
    assert_eq!(at.0, "preview");
    assert!(
        v[0]["series"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["zone_status"] != "complete")
    );
}
