//! Parser tests against the real ENTSO-E fixtures in `data/fixtures/` (ENTSO-E Transparency Platform
//! data, recorded by ENTSOE.jl, entsoe-api-client and EcoDynElec, all MIT) and small inline documents
//! for the error cases the fixtures do not cover. The website exports (`transparency_csv`, CC BY
//! 4.0) are tested in `transparency_csv/`.

use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{Slot, parse_timestamp};
use gridprint_core::zone::{ZoneCode, Zones};
use gridprint_ingest::{
    DocumentKind, InputFormat, ParseError, ParsedDocument, detect_and_parse, detect_format,
    entsoe_xml, file_library,
};
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::sync::OnceLock;

mod forecast_xml;
mod transparency_csv;

const API_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/fixtures/entsoe-api"
);
/// Documents that must be refused (kept apart so that docs/usage.md's import of the fixture folders succeeds).
const INVALID_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/fixtures/invalid");
const FILE_LIBRARY_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/fixtures/entsoe-file-library"
);

fn zones() -> &'static Zones {
    static REF: OnceLock<ReferenceData> = OnceLock::new();
    &REF.get_or_init(|| ReferenceData::embedded(ZoneSet::Selected2026))
        .zones
}

fn read(dir: &str, name: &str) -> Vec<u8> {
    std::fs::read(format!("{dir}/{name}")).unwrap_or_else(|e| panic!("{dir}/{name}: {e}"))
}

fn api(name: &str) -> ParsedDocument {
    detect_and_parse(&read(API_DIR, name), zones()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn library(name: &str) -> ParsedDocument {
    detect_and_parse(&read(FILE_LIBRARY_DIR, name), zones())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn zone(code: &str) -> ZoneCode {
    ZoneCode::parse(code).unwrap()
}

fn slot(ts: &str) -> Slot {
    Slot::containing(parse_timestamp(ts).unwrap())
}

fn generation(z: &str, production_type: ProductionType) -> InputKey {
    InputKey::Generation {
        zone: zone(z),
        production_type,
    }
}

fn flow(from: &str, to: &str) -> InputKey {
    InputKey::Flow {
        from: zone(from),
        to: zone(to),
    }
}

fn value(doc: &ParsedDocument, key: &InputKey, at: &str) -> Option<f64> {
    let s = slot(at);
    doc.points
        .iter()
        .find(|p| &p.key == key && p.slot == s)
        .map(|p| p.mw)
}

fn series<'a>(doc: &'a ParsedDocument, key: &InputKey) -> Vec<&'a InputPoint> {
    doc.points.iter().filter(|p| &p.key == key).collect()
}

/// Asserts that `doc` skipped exactly `want`, in key order.
fn assert_skips(doc: &ParsedDocument, want: &[(&str, usize)]) {
    let got: Vec<(&str, usize)> = doc.skipped.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    assert_eq!(got, want);
}

/// The value of `production_type` generation in `zone` at `at`.
fn generation_value(
    doc: &ParsedDocument,
    zone: &str,
    production_type: ProductionType,
    at: &str,
) -> Option<f64> {
    value(doc, &generation(zone, production_type), at)
}

/// How many values of `key` `doc` skipped.
fn skipped(doc: &ParsedDocument, key: &str) -> Option<usize> {
    doc.skipped.get(key).copied()
}

/// Whether every point of `doc` passes `check`.
fn all_points(doc: &ParsedDocument, check: impl Fn(&InputPoint) -> bool) -> bool {
    doc.points.iter().all(check)
}

fn assert_close(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap_or_else(|| panic!("{what}: no value"));
    assert!((got - want).abs() < 1e-9, "{what}: got {got}, want {want}");
}

// ------------------------------------------------------------------------------------------------
// Every fixture

/// What a fixture must give.
enum Expect {
    Ok {
        kind: DocumentKind,
        points: usize,
        skipped_total: usize,
        skipped: Vec<(&'static str, usize)>,
    },
    Err(fn(&ParseError) -> bool),
}

/// A successful import: its kind, point count, skip total and the skip counts it must contain.
fn ok(
    kind: DocumentKind,
    points: usize,
    skipped_total: usize,
    skipped: &[(&'static str, usize)],
) -> Expect {
    Expect::Ok {
        kind,
        points,
        skipped_total,
        skipped: skipped.to_vec(),
    }
}

/// A generation document whose only skips are `n` values under `key`.
fn generation_skipping(points: usize, key: &'static str, n: usize) -> Expect {
    ok(DocumentKind::GenerationPerType, points, n, &[(key, n)])
}

fn expectation(name: &str) -> Expect {
    use DocumentKind::*;
    let not_data: fn(&ParseError) -> bool = |e| matches!(e, ParseError::UnrecognisedFormat(_));
    match name {
        // The Amprion control area is not a zone: its 96 values are counted, none dropped silently.
        "A11_DE-AmprionCTA-to-BE_2023-08-24_PT15M_A03.xml" => {
            ok(PhysicalFlows, 0, 96, &[("not-a-zone:10YDE-RWENET---I", 96)])
        }
        "A11_DE-LU-to-NL_2024-09-02_PT15M_A03.xml" => ok(PhysicalFlows, 96, 0, &[]),
        "A11_DE-LU-to-NL_2024-09-02to08_PT15M_A03.xml"
        | "A11_NL-to-DE-LU_2024-09-02to08_PT15M_A03.xml" => ok(PhysicalFlows, 7 * 96, 0, &[]),
        "A65_A16_BE_2024-01-15to21_PT15M_A03.xml" => ok(ActualTotalLoad, 7 * 96, 0, &[]),
        // 3 days at PT60M: 72 values × 4 slots.
        "A65_A16_CZ_2023-03-03to06_PT60M_A03.xml" => ok(ActualTotalLoad, 288, 0, &[]),
        "A65_A16_NL_2024-09-02_PT15M_A03.xml" => ok(ActualTotalLoad, 96, 0, &[]),
        // 16 generation series folding into 14 types; 3 consumption series (B10, B16, B19) × 96.
        "A75_DE-LU_2024-06-15_PT15M_A03.xml" => {
            generation_skipping(14 * 96, "consumption:10Y1001A1001A82H", 288)
        }
        "A75_DE-country_B01only_2023-08-16_PT15M_A03.xml" => ok(GenerationPerType, 96, 0, &[]),
        "A75_ES_2024-06-15_PT15M_A03.xml" => {
            generation_skipping(16 * 96, "consumption:10YES-REE------0", 96)
        }
        // 11 types for the whole day, pumped storage generating for 8 hours (32 slots), pumping for 16.
        "A75_FR_2024-06-15_PT60M_A03.xml" => {
            generation_skipping(11 * 96 + 32, "consumption:10YFR-RTE------C", 16)
        }
        "A75_IT-NORTH_2024-06-15_PT60M_A03.xml" => {
            generation_skipping(10 * 96 + 88, "consumption:10Y1001A1001A73I", 2)
        }
        "A75_NL_2024-06-15_PT15M_A03.xml" | "A75_NL_2024-09-02_PT15M_A03.xml" => {
            generation_skipping(10 * 96, "consumption:10YNL----------L", 960)
        }
        "A75_PL_2024-06-15_PT15M_A03.xml" => ok(GenerationPerType, 11 * 96, 0, &[]),
        "ACK_999_no_matching_data.xml" | "hexagon_ACK_999_no_matching_data_2016.xml" => {
            ok(Acknowledgement, 0, 0, &[])
        }
        // Curve type A01 with only position 1 of a year: one hourly value (4 slots); the other
        // positions are missing data, not repeats (that is A03's rule).
        "hexagon_A65_CZ_2016_single_point_A01.xml" => ok(ActualTotalLoad, 4, 0, &[]),
        // An unknown root is rejected even though it carries reason 999 (see entsoe_xml docs).
        "hexagon_invalid.xml" => Expect::Err(
            |e| matches!(e, ParseError::UnknownDocument { root } if root == "Unknown_MarketDocument"),
        ),
        "2017_02_01_AM_AggregGen.csv" => ok(
            GenerationPerType,
            2908,
            1397,
            &[
                ("not-a-zone:10YIT-GRTN-----B", 338),
                ("superseded-CTA:10YAT-APG------L", 637),
                ("superseded-CTA:10YCH-SWISSGRIDZ", 78),
                ("superseded-CTA:10YCZ-CEPS-----N", 195),
                ("superseded-CTA:10YFR-RTE------C", 143),
                ("empty-value:10YFR-RTE------C", 6),
            ],
        ),
        "2017_02_01_PM_AggregGen.csv" => ok(
            GenerationPerType,
            3497,
            1416,
            &[
                ("not-a-zone:10YIT-GRTN-----B", 338),
                ("not-a-zone:10Y1001A1001A65H", 8),
                ("not-a-zone:10YNO-0--------C", 5),
                ("not-a-zone:10YSE-1--------K", 4),
                ("superseded-CTA:10YAT-APG------L", 637),
                ("empty-value:10YHU-MAVIR----U", 2),
            ],
        ),
        "2017_02_01_AM_PhysicalFlows.csv" => ok(
            PhysicalFlows,
            1196,
            533,
            &[
                ("not-a-zone:10YIT-GRTN-----B", 234),
                ("not-a-zone:10YDE-ENBW-----N", 39),
                ("superseded-CTA:10YAT-APG------L->10YCH-SWISSGRIDZ", 13),
            ],
        ),
        "2017_02_01_PM_PhysicalFlows.csv" => ok(
            PhysicalFlows,
            1448,
            570,
            &[("not-a-zone:RU", 8), ("not-a-zone:10YIT-GRTN-----B", 236)],
        ),
        "LICENSE-ENTSOE.jl-MIT.txt"
        | "LICENSE-entsoe-api-client-MIT.txt"
        | "LICENSE-EcoDynElec-MIT.md" => Expect::Err(not_data),
        other => panic!("fixture {other} has no documented outcome: add it to this table"),
    }
}

#[test]
fn every_fixture_imports_or_fails_as_documented() {
    let mut seen = 0;
    for dir in [API_DIR, FILE_LIBRARY_DIR, INVALID_DIR] {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            seen += 1;
            let result = detect_and_parse(&read(dir, &name), zones());
            match (expectation(&name), result) {
                (
                    Expect::Ok {
                        kind,
                        points,
                        skipped_total,
                        skipped,
                    },
                    Ok(doc),
                ) => {
                    assert_eq!(doc.kind, kind, "{name}: kind");
                    assert_eq!(doc.points.len(), points, "{name}: points");
                    assert_eq!(
                        doc.skipped_total(),
                        skipped_total,
                        "{name}: skipped {:?}",
                        doc.skipped
                    );
                    for (key, n) in skipped {
                        assert_eq!(
                            doc.skipped.get(key),
                            Some(&n),
                            "{name}: skipped[{key}] in {:?}",
                            doc.skipped
                        );
                    }
                    check_invariants(&name, &doc);
                }
                (Expect::Err(is_expected), Err(e)) => {
                    assert!(is_expected(&e), "{name}: unexpected error {e}")
                }
                (Expect::Ok { .. }, Err(e)) => panic!("{name}: expected to import, failed: {e}"),
                (Expect::Err(_), Ok(doc)) => {
                    panic!("{name}: expected an error, got {:?}", doc.kind)
                }
            }
        }
    }
    assert_eq!(seen, 26, "fixture count changed: review the table");
}

/// What every successful parse guarantees.
fn check_invariants(name: &str, doc: &ParsedDocument) {
    let mut seen = BTreeSet::new();
    for p in &doc.points {
        assert!(p.mw.is_finite() && p.mw >= 0.0, "{name}: {p:?}");
        assert_eq!(p.state, DataState::Official, "{name}");
        assert_eq!(p.datasource, "ENTSO-E", "{name}");
        assert!(
            seen.insert((p.key.clone(), p.slot)),
            "{name}: duplicate point {p:?}"
        );
    }
    assert!(
        doc.points
            .windows(2)
            .all(|w| (&w[0].key, w[0].slot) < (&w[1].key, w[1].slot)),
        "{name}: points not sorted"
    );
    assert!(
        doc.skipped.values().all(|&n| n > 0),
        "{name}: zero skip counts"
    );
}

// ------------------------------------------------------------------------------------------------
// API documents

#[test]
fn a03_runs_repeat_the_previous_value_geothermal_and_other_renewable_de_lu() {
    let doc = api("A75_DE-LU_2024-06-15_PT15M_A03.xml");
    // TimeSeries mRID 10, psrType B09 (only B09 is geothermal), period from 2024-06-14T22:00Z:
    //   <position>15</position> <quantity>19.38</quantity>     line 2947
    //   <position>16</position> <quantity>19.36</quantity>
    //   (position 17 omitted)
    //   <position>18</position> <quantity>19.47</quantity>
    //   ...
    //   <position>65</position> <quantity>15.38</quantity>     line 3143
    //   <position>66</position> <quantity>15.4</quantity>
    //   (position 67 omitted)
    //   <position>68</position> <quantity>15.48</quantity>
    let geo = generation("DE", ProductionType::Geothermal);
    let mw = |t| value(&doc, &geo, t);
    assert_close(mw("2024-06-15T01:30Z"), 19.38, "position 15");
    assert_close(mw("2024-06-15T01:45Z"), 19.36, "position 16");
    assert_close(mw("2024-06-15T02:00Z"), 19.36, "position 17 repeats 16");
    assert_close(mw("2024-06-15T02:15Z"), 19.47, "position 18");
    assert_close(mw("2024-06-15T14:00Z"), 15.38, "position 65");
    assert_close(mw("2024-06-15T14:15Z"), 15.4, "position 66");
    assert_close(mw("2024-06-15T14:30Z"), 15.4, "position 67 repeats 66");
    assert_close(mw("2024-06-15T14:45Z"), 15.48, "position 68");
    assert_eq!(series(&doc, &geo).len(), 96);

    // TimeSeries mRID 14, psrType B15 (other renewable): 6 → 76.33, 7 → 76.52, 8 omitted, 9 → 77.08.
    let other = generation("DE", ProductionType::OtherRenewable);
    for (t, want, what) in [
        ("2024-06-14T23:15Z", 76.33, "position 6"),
        ("2024-06-14T23:30Z", 76.52, "position 7"),
        ("2024-06-14T23:45Z", 76.52, "position 8 repeats 7"),
        ("2024-06-15T00:00Z", 77.08, "position 9"),
    ] {
        assert_close(value(&doc, &other, t), want, what);
    }
}

#[test]
fn a03_runs_repeat_up_to_the_period_end_nl() {
    let doc = api("A75_NL_2024-06-15_PT15M_A03.xml");
    // TimeSeries mRID 15, inBiddingZone NL, psrType B14 (nuclear), from 2024-06-14T22:00Z (line 3221):
    //   <position>1</position> <quantity>0</quantity>
    //   (positions 2..=66 omitted)
    //   <position>67</position> <quantity>32.87</quantity>
    //   <position>68</position> <quantity>47.43</quantity>
    let nuclear = generation("NL", ProductionType::Nuclear);
    let nuclear_points = series(&doc, &nuclear);
    assert_eq!(nuclear_points.len(), 96);
    assert!(
        nuclear_points[..66].iter().all(|p| p.mw == 0.0),
        "positions 1..=66 are 0"
    );
    assert_eq!(nuclear_points[65].slot, slot("2024-06-15T14:15Z"));
    let mw = |t| value(&doc, &nuclear, t);
    assert_close(mw("2024-06-15T14:30Z"), 32.87, "position 67");
    assert_close(mw("2024-06-15T14:45Z"), 47.43, "position 68");

    // TimeSeries mRID 16, psrType B16 (solar), ends (line 3635):
    //   <position>89</position> <quantity>0.01</quantity>
    //   <position>90</position> <quantity>0</quantity>
    //   (positions 91..=96 omitted: 0 until the period end)
    let solar = generation("NL", ProductionType::Solar);
    let mw = |t| value(&doc, &solar, t);
    assert_close(mw("2024-06-15T20:00Z"), 0.01, "position 89");
    assert_close(mw("2024-06-15T20:15Z"), 0.0, "position 90");
    for t in [
        "2024-06-15T20:30Z",
        "2024-06-15T21:00Z",
        "2024-06-15T21:45Z",
    ] {
        assert_close(value(&doc, &solar, t), 0.0, t);
    }
    assert_eq!(
        value(&doc, &solar, "2024-06-15T22:00Z"),
        None,
        "nothing after the period end"
    );
    assert_eq!(series(&doc, &solar).len(), 96);
}

#[test]
fn hourly_values_fill_four_slots_fr() {
    let doc = api("A75_FR_2024-06-15_PT60M_A03.xml");
    // TimeSeries psrType B01 (biomass), PT60M from 2024-06-14T22:00Z:
    //   position 1 → 356, 2 → 355, (3 and 4 omitted: 355), 5 → 356
    let biomass = generation("FR", ProductionType::Biomass);
    for (hour, want) in [
        ("2024-06-14T22", 356.0),
        ("2024-06-14T23", 355.0),
        ("2024-06-15T00", 355.0),
        ("2024-06-15T01", 355.0),
        ("2024-06-15T02", 356.0),
    ] {
        for minute in ["00", "15", "30", "45"] {
            let t = format!("{hour}:{minute}Z");
            assert_close(value(&doc, &biomass, &t), want, &t);
        }
    }
    // Every hourly value holds for its 4 slots, each hour starting on a full hour.
    for key in doc
        .points
        .iter()
        .map(|p| p.key.clone())
        .collect::<BTreeSet<_>>()
    {
        let points = series(&doc, &key);
        assert_eq!(points.len() % 4, 0, "{key:?}");
        for chunk in points.chunks(4) {
            assert_eq!(chunk[0].slot.0 % 4, 0, "{key:?} hour starts on the hour");
            assert!(
                chunk.iter().all(|p| p.mw == chunk[0].mw),
                "{key:?}: {chunk:?}"
            );
            assert_eq!(chunk[3].slot.0 - chunk[0].slot.0, 3);
        }
    }
    // Pumped storage generates in two periods of the one series: 22:00–01:00 and 17:00–22:00.
    let pumped = generation("FR", ProductionType::HydroPumpedStorage);
    assert_eq!(series(&doc, &pumped).len(), 32);
    assert_close(value(&doc, &pumped, "2024-06-14T22:45Z"), 2057.0, "B10");
    assert_eq!(value(&doc, &pumped, "2024-06-15T01:00Z"), None);
}

#[test]
fn folded_psr_types_are_summed_and_consumption_is_not_generation() {
    let doc = api("A75_DE-LU_2024-06-15_PT15M_A03.xml");
    // Position 1 of B02 (lignite) 6295.58 and B05 (hard coal) 954.37; no B08 in the document.
    let mw = generation_value(&doc, "DE", ProductionType::Coal, "2024-06-14T22:00Z");
    assert_close(mw, 6295.58 + 954.37, "coal");
    // B03 (coal-derived gas) 580.02 + B04 (fossil gas) 3326.95.
    let mw = generation_value(&doc, "DE", ProductionType::Gas, "2024-06-14T22:00Z");
    assert_close(mw, 580.02 + 3326.95, "gas");
    // B10 appears twice: inBiddingZone (generation, 1090.31) and outBiddingZone (pumping, 240.74).
    let pumped = ProductionType::HydroPumpedStorage;
    let mw = generation_value(&doc, "DE", pumped, "2024-06-14T22:00Z");
    assert_close(mw, 1090.31, "pumped storage generation only");
    assert_eq!(skipped(&doc, "consumption:10Y1001A1001A82H"), Some(288));
}

#[test]
fn a65_be_week_is_672_contiguous_load_slots() {
    let doc = api("A65_A16_BE_2024-01-15to21_PT15M_A03.xml");
    let load = InputKey::Load { zone: zone("BE") };
    let points = series(&doc, &load);
    assert_eq!(points.len(), 7 * 96);
    assert_eq!(points[0].slot, slot("2024-01-14T23:00Z"));
    assert!(points.windows(2).all(|w| w[1].slot.0 == w[0].slot.0 + 1));
    assert_eq!(points.last().unwrap().slot, slot("2024-01-21T22:45Z"));
}

#[test]
fn a11_de_lu_to_nl_is_a_flow_from_de_to_nl() {
    let doc = api("A11_DE-LU-to-NL_2024-09-02_PT15M_A03.xml");
    let key = flow("DE", "NL");
    assert_eq!(series(&doc, &key).len(), 96);
    let mw = |t| value(&doc, &key, t);
    assert_close(mw("2024-09-01T22:00Z"), 1269.56, "position 1");
    assert_close(mw("2024-09-01T22:15Z"), 1173.96, "position 2");
    let back = api("A11_NL-to-DE-LU_2024-09-02to08_PT15M_A03.xml");
    assert!(all_points(&back, |p| p.key == flow("NL", "DE")));
}

#[test]
fn de_country_eic_maps_to_de() {
    let doc = api("A75_DE-country_B01only_2023-08-16_PT15M_A03.xml");
    assert!(all_points(&doc, |p| p.key == generation("DE", ProductionType::Biomass)));
    assert_eq!(doc.points.len(), 96);
}

#[test]
fn acknowledgements_are_empty_answers() {
    for name in [
        "ACK_999_no_matching_data.xml",
        "hexagon_ACK_999_no_matching_data_2016.xml",
    ] {
        let doc = api(name);
        assert_eq!(
            doc,
            ParsedDocument::empty(DocumentKind::Acknowledgement),
            "{name}"
        );
    }
}

#[test]
fn hexagon_invalid_is_an_unknown_document() {
    let err = entsoe_xml::parse(&read(INVALID_DIR, "hexagon_invalid.xml"), zones()).unwrap_err();
    assert_eq!(
        err,
        ParseError::UnknownDocument {
            root: "Unknown_MarketDocument".into()
        }
    );
    assert!(err.to_string().contains("Unknown_MarketDocument"));
}

#[test]
fn single_point_a01_is_not_forward_filled() {
    let doc = api("hexagon_A65_CZ_2016_single_point_A01.xml");
    let load = InputKey::Load { zone: zone("CZ") };
    let points = series(&doc, &load);
    assert_eq!(points.len(), 4);
    assert_eq!(points[0].slot, slot("2015-12-31T23:00Z"));
    assert!(points.iter().all(|p| p.mw == 6288.0));
}

// ------------------------------------------------------------------------------------------------
// Inline API documents

fn gl(doc_type: &str, series: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<GL_MarketDocument xmlns="urn:iec62325.351:tc57wg16:451-6:generationloaddocument:3:0">
  <mRID>test</mRID>
  <type>{doc_type}</type>
  <process.processType>A16</process.processType>
  {series}
</GL_MarketDocument>"#
    )
}

/// A TimeSeries with `area` like `inBiddingZone_Domain.mRID>10YBE----------2`, optional psrType,
/// and `(position, quantity)` points.
#[allow(clippy::too_many_arguments)] // one argument per TimeSeries field, in document order
fn ts(
    mrid: u32,
    domain: &str,
    eic: &str,
    psr: Option<&str>,
    curve: &str,
    resolution: &str,
    start: &str,
    end: &str,
    points: &[(u32, &str)],
) -> String {
    let psr = psr
        .map(|p| format!("<MktPSRType><psrType>{p}</psrType></MktPSRType>"))
        .unwrap_or_default();
    let points: String = points
        .iter()
        .map(|(p, q)| format!("<Point><position>{p}</position><quantity>{q}</quantity></Point>"))
        .collect();
    format!(
        r#"<TimeSeries><mRID>{mrid}</mRID><businessType>A01</businessType>
  <{domain} codingScheme="A01">{eic}</{domain}>
  <quantity_Measure_Unit.name>MAW</quantity_Measure_Unit.name><curveType>{curve}</curveType>{psr}
  <Period><timeInterval><start>{start}</start><end>{end}</end></timeInterval>
  <resolution>{resolution}</resolution>{points}</Period></TimeSeries>"#
    )
}

/// A TimeSeries of the Belgian zone over `T0..T1`, the shape of most inline cases.
fn be_ts(
    mrid: u32,
    domain: &str,
    psr: Option<&str>,
    curve: &str,
    resolution: &str,
    points: &[(u32, &str)],
) -> String {
    ts(mrid, domain, BE, psr, curve, resolution, T0, T1, points)
}

const IN: &str = "inBiddingZone_Domain.mRID";
const OUT: &str = "outBiddingZone_Domain.mRID";
const BE: &str = "10YBE----------2";
const T0: &str = "2024-01-01T00:00Z";
const T1: &str = "2024-01-01T01:00Z";

fn parse_xml(xml: &str) -> Result<ParsedDocument, ParseError> {
    entsoe_xml::parse(xml.as_bytes(), zones())
}

#[test]
fn inline_consumption_unknown_psr_and_foreign_areas_are_counted() {
    let gas = [(1, "10"), (2, "11"), (3, "12"), (4, "13")];
    let pumping = [(1, "5"), (2, "5"), (3, "5"), (4, "5")];
    let italy = "10YIT-GRTN-----B";
    let xml = gl(
        "A75",
        &[
            be_ts(1, IN, Some("B04"), "A01", "PT15M", &gas),
            be_ts(2, OUT, Some("B10"), "A01", "PT15M", &pumping),
            be_ts(3, IN, Some("B25"), "A03", "PT15M", &[(1, "7")]),
            ts(
                4,
                IN,
                italy,
                Some("B04"),
                "A03",
                "PT60M",
                T0,
                T1,
                &[(1, "100")],
            ),
        ]
        .concat(),
    );
    let doc = parse_xml(&xml).unwrap();
    assert_eq!(doc.points.len(), 4);
    assert!(all_points(&doc, |p| p.key == generation("BE", ProductionType::Gas)));
    assert_skips(
        &doc,
        &[
            ("consumption:10YBE----------2", 4),
            ("not-a-zone:10YIT-GRTN-----B", 1),
            ("psr-type:B25", 4),
        ],
    );
}

#[test]
fn inline_three_coal_codes_are_summed_per_slot() {
    let xml = gl(
        "A75",
        &[
            be_ts(1, IN, Some("B02"), "A01", "PT30M", &[(1, "1"), (2, "2")]),
            be_ts(2, IN, Some("B05"), "A03", "PT15M", &[(1, "10"), (3, "20")]),
            be_ts(3, IN, Some("B08"), "A03", "PT60M", &[(1, "100")]),
        ]
        .concat(),
    );
    let doc = parse_xml(&xml).unwrap();
    let coal: Vec<f64> = doc.points.iter().map(|p| p.mw).collect();
    // B02 at PT30M: 1,1,2,2; B05 A03: 10,10,20,20; B08 hourly: 100 ×4.
    assert_eq!(coal, vec![111.0, 111.0, 122.0, 122.0]);
    assert!(all_points(&doc, |p| p.key == generation("BE", ProductionType::Coal)));
}

#[test]
fn inline_same_series_twice_keeps_the_later_value_and_counts_it() {
    let xml = gl(
        "A65",
        &[
            be_ts(1, OUT, None, "A01", "PT60M", &[(1, "100")]),
            be_ts(2, OUT, None, "A01", "PT60M", &[(1, "200")]),
        ]
        .concat(),
    );
    let doc = parse_xml(&xml).unwrap();
    let load = InputKey::Load { zone: zone("BE") };
    assert!(all_points(&doc, |p| p.mw == 200.0 && p.key == load));
    assert_eq!(skipped(&doc, "duplicate:10YBE----------2"), Some(1));
}

#[test]
fn inline_negative_generation_is_skipped_and_counted() {
    let xml = gl(
        "A75",
        &be_ts(1, IN, Some("B16"), "A01", "PT60M", &[(1, "-0.5")]),
    );
    let doc = parse_xml(&xml).unwrap();
    assert!(doc.points.is_empty());
    assert_eq!(skipped(&doc, "negative-value:10YBE----------2"), Some(1));
}

fn publication(series: &str) -> String {
    format!(
        r#"<Publication_MarketDocument xmlns="urn:iec62325.351:tc57wg16:451-3:publicationdocument:7:0">
  <type>A11</type>{series}</Publication_MarketDocument>"#
    )
}

fn flow_ts(out_eic: &str, in_eic: &str, quantities: &[&str]) -> String {
    let points: String = quantities
        .iter()
        .enumerate()
        .map(|(i, q)| {
            format!(
                "<Point><position>{}</position><quantity>{q}</quantity></Point>",
                i + 1
            )
        })
        .collect();
    format!(
        r#"<TimeSeries><mRID>1</mRID><businessType>A66</businessType>
  <in_Domain.mRID codingScheme="A01">{in_eic}</in_Domain.mRID>
  <out_Domain.mRID codingScheme="A01">{out_eic}</out_Domain.mRID>
  <quantity_Measure_Unit.name>MAW</quantity_Measure_Unit.name><curveType>A03</curveType>
  <Period><timeInterval><start>{T0}</start><end>{T1}</end></timeInterval>
  <resolution>PT15M</resolution>{points}</Period></TimeSeries>"#
    )
}

fn series_error(result: Result<ParsedDocument, ParseError>) -> (String, String, String) {
    match result {
        Err(ParseError::InvalidSeries {
            series,
            field,
            message,
        }) => (series, field, message),
        other => panic!("expected InvalidSeries, got {other:?}"),
    }
}

#[test]
fn inline_negative_flow_is_an_error_naming_the_point() {
    let xml = publication(&flow_ts("10YNL----------L", BE, &["5", "-3.5"]));
    let (series, field, message) = series_error(parse_xml(&xml));
    assert!(
        series.contains("10YNL----------L->10YBE----------2"),
        "{series}"
    );
    assert_eq!(field, "Period 1 / Point 2 / quantity");
    assert!(message.contains("negative flow -3.5"), "{message}");
}

#[test]
fn inline_invalid_series_fields_are_errors_with_context() {
    let series = |q: &str| be_ts(7, IN, Some("B04"), "A01", "PT15M", &[(1, "1"), (2, q)]);
    let (label, field, message) = series_error(parse_xml(&gl("A75", &series("12,5"))));
    assert_eq!(label, "#1 (mRID 7, psrType B04, 10YBE----------2)");
    assert_eq!(field, "Period 1 / Point 2 / quantity");
    assert!(message.contains("'12,5' is not a number"), "{message}");
    for bad in ["NaN", "inf", ""] {
        let (_, field, _) = series_error(parse_xml(&gl("A75", &series(bad))));
        assert_eq!(field, "Period 1 / Point 2 / quantity", "{bad:?}");
    }

    let good = be_ts(1, IN, Some("B04"), "A01", "PT60M", &[(1, "1")]);
    let cases: &[(&str, &str, &str)] = &[
        (
            "<start>2024-01-01T00:00Z</start>",
            "",
            "Period 1 / timeInterval / start",
        ),
        (
            "<end>2024-01-01T01:00Z</end>",
            "",
            "Period 1 / timeInterval / end",
        ),
        (
            "<resolution>PT60M</resolution>",
            "",
            "Period 1 / resolution",
        ),
        (
            "<resolution>PT60M</resolution>",
            "<resolution>PT5M</resolution>",
            "Period 1 / resolution",
        ),
        (
            "<start>2024-01-01T00:00Z</start>",
            "<start>2024-01-01T00:07Z</start>",
            "Period 1 / timeInterval / start",
        ),
        (
            "<end>2024-01-01T01:00Z</end>",
            "<end>2023-01-01T01:00Z</end>",
            "Period 1 / timeInterval",
        ),
        (
            "<end>2024-01-01T01:00Z</end>",
            "<end>2024-01-01T01:15Z</end>",
            "Period 1 / timeInterval",
        ),
        (
            "<position>1</position>",
            "<position>0</position>",
            "Period 1 / Point 1 / position",
        ),
        (
            "<position>1</position>",
            "<position>5</position>",
            "Period 1 / Point 1 / position",
        ),
        (
            "<position>1</position>",
            "",
            "Period 1 / Point 1 / position",
        ),
        (
            "<curveType>A01</curveType>",
            "<curveType>A02</curveType>",
            "curveType",
        ),
        (
            "<quantity_Measure_Unit.name>MAW</quantity_Measure_Unit.name>",
            "<quantity_Measure_Unit.name>MWH</quantity_Measure_Unit.name>",
            "quantity_Measure_Unit.name",
        ),
        (
            "<MktPSRType><psrType>B04</psrType></MktPSRType>",
            "",
            "MktPSRType / psrType",
        ),
        (
            "<inBiddingZone_Domain.mRID",
            "<outBiddingZone_Domain.mRID codingScheme=\"A01\">x</outBiddingZone_Domain.mRID><inBiddingZone_Domain.mRID",
            "inBiddingZone_Domain.mRID",
        ),
        (
            "<quantity>1</quantity>",
            "<quantity>1</quantity><quantity>2</quantity>",
            "Period 1 / Point 1 / quantity",
        ),
    ];
    for (from, to, want_field) in cases {
        assert!(good.contains(from), "{from}");
        let xml = gl("A75", &good.replacen(from, to, 1));
        let Err(ParseError::InvalidSeries { field, message, .. }) = parse_xml(&xml) else {
            panic!("replacing {from} by {to}: {:?}", parse_xml(&xml));
        };
        assert_eq!(&field, want_field, "replacing {from} by {to}: {message}");
    }
}

#[test]
fn inline_duplicate_positions_are_errors() {
    let xml = gl(
        "A65",
        &be_ts(1, OUT, None, "A01", "PT15M", &[(1, "1"), (1, "2")]),
    );
    let (_, field, message) = series_error(parse_xml(&xml));
    assert_eq!(field, "Period 1 / Point 2 / position");
    assert!(message.contains("appears twice"));
}

#[test]
fn inline_document_level_errors() {
    // Not well-formed.
    for bad in [
        "<GL_MarketDocument><type>A65</type></GL_Market>",
        "<GL_MarketDocument><type>A65</type>",
        "<GL_MarketDocument><type>A65</type><TimeSeries>",
        "",
        "   ",
        "<a/><b/>",
        "<GL_MarketDocument>&bogus;</GL_MarketDocument>",
    ] {
        assert!(
            matches!(parse_xml(bad), Err(ParseError::MalformedXml { .. })),
            "{bad:?}: {:?}",
            parse_xml(bad)
        );
    }
    assert!(matches!(
        entsoe_xml::parse(b"<a>\xff</a>", zones()),
        Err(ParseError::MalformedXml { .. })
    ));
    // Known roots of other types, forecasts.
    assert!(matches!(
        parse_xml(&gl("A69", "")),
        Err(ParseError::UnsupportedDocument { .. })
    ));
    assert!(matches!(
        parse_xml(&publication("").replace("A11", "A44")),
        Err(ParseError::UnsupportedDocument { .. })
    ));
    let forecast = gl("A65", "").replace("<process.processType>A16", "<process.processType>A01");
    let err = parse_xml(&forecast).unwrap_err();
    assert!(err.to_string().contains("processType A01"), "{err}");
    // Unknown roots.
    assert_eq!(
        parse_xml("<html><body>Bad gateway</body></html>").unwrap_err(),
        ParseError::UnknownDocument {
            root: "html".into()
        }
    );
    // A valid data document with no series is an empty answer of its kind.
    assert_eq!(
        parse_xml(&gl("A75", "")).unwrap(),
        ParsedDocument::empty(DocumentKind::GenerationPerType)
    );
}

fn ack(code: &str, text: &str) -> String {
    format!(
        "<Acknowledgement_MarketDocument xmlns=\"urn:iec62325.351:tc57wg16:451-1:acknowledgementdocument:7:0\">\
         <Reason><code>{code}</code><text>{text}</text></Reason></Acknowledgement_MarketDocument>"
    )
}

#[test]
fn acknowledgements_other_than_no_matching_data_are_rejections() {
    let err = parse_xml(&ack(
        "999",
        "The number of instances (149) exceeds the allowed maximum (100).",
    ))
    .unwrap_err();
    assert_eq!(
        err,
        ParseError::Rejected {
            code: "999".into(),
            text: "The number of instances (149) exceeds the allowed maximum (100).".into()
        }
    );
    assert!(
        parse_xml(&ack(
            "999",
            "No matching data found for Data item X &amp; Y"
        ))
        .unwrap()
        .points
        .is_empty()
    );
    assert!(matches!(
        parse_xml("<Acknowledgement_MarketDocument/>"),
        Err(ParseError::Rejected { .. })
    ));
    // A data root that only carries the reason is the same empty answer.
    let reason_only = gl(
        "A75",
        "<Reason><code>999</code><text>No matching data found</text></Reason>",
    );
    assert_eq!(
        parse_xml(&reason_only).unwrap().kind,
        DocumentKind::Acknowledgement
    );
}

// ------------------------------------------------------------------------------------------------
// File Library

/// The morning and afternoon files of 2017-02-01's `what` merged, checked to be of `kind` and sound.
fn library_day(what: &str, kind: DocumentKind) -> ParsedDocument {
    let mut day = library(&format!("2017_02_01_AM_{what}.csv"));
    day.merge(library(&format!("2017_02_01_PM_{what}.csv")));
    assert_eq!(day.kind, kind);
    check_invariants(&format!("AM+PM {what}"), &day);
    day
}

#[test]
fn file_library_day_gives_generation_for_de_fr_at_ch_cz_and_skips_italy() {
    let day = library_day("AggregGen", DocumentKind::GenerationPerType);

    // A type each zone reports all day: 96 slots of 2017-02-01 (noon comes in both files, once here),
    // and the afternoon file also has midnight of 2017-02-02.
    let day_end = slot("2017-02-02T00:00Z");
    for (z, t) in [
        ("DE", ProductionType::Coal),
        ("AT", ProductionType::HydroRiver),
        ("FR", ProductionType::Nuclear),
        ("CH", ProductionType::Nuclear),
        ("CZ", ProductionType::Coal),
    ] {
        let points: Vec<_> = series(&day, &generation(z, t))
            .into_iter()
            .filter(|p| p.slot < day_end)
            .collect();
        assert_eq!(points.len(), 96, "{z} {t}");
        assert_eq!(points[0].slot, slot("2017-02-01T00:00Z"), "{z} {t}");
        assert_eq!(points[95].slot, slot("2017-02-01T23:45Z"), "{z} {t}");
    }
    // DE coal at 00:00 = hard coal 14236.08 + lignite 15955.53 (CTY rows; no peat).
    let mw = generation_value(&day, "DE", ProductionType::Coal, "2017-02-01T00:00Z");
    assert_close(mw, 14236.08 + 15955.53, "DE coal");
    // AT's CTA rows have the AT EIC and the same values as the CTY rows: counted once, not summed.
    let mw = generation_value(&day, "AT", ProductionType::Gas, "2017-02-01T00:00Z");
    assert_close(mw, 2703.6, "AT gas");
    assert_eq!(
        skipped(&day, "superseded-CTA:10YAT-APG------L"),
        Some(637 * 2)
    );
    // FR nuclear at noon, hourly: 4 slots of 54353.
    let fr_nuclear = generation("FR", ProductionType::Nuclear);
    for t in ["2017-02-01T12:00Z", "2017-02-01T12:45Z"] {
        assert_close(value(&day, &fr_nuclear, t), 54353.0, t);
    }
    // Italy is not a zone (its bidding zones are): 169 CTY + 169 CTA rows per file, counted.
    assert_eq!(skipped(&day, "not-a-zone:10YIT-GRTN-----B"), Some(338 * 2));
    let italian = |p: &InputPoint| p.key.zone().as_str().starts_with("IT");
    assert!(all_points(&day, |p| !italian(p)));
    // Country totals of multi-zone countries are not zones either.
    assert_eq!(skipped(&day, "not-a-zone:10YNO-0--------C"), Some(5));
}

#[test]
fn file_library_flows_between_zones() {
    let day = library_day("PhysicalFlows", DocumentKind::PhysicalFlows);
    // DE CTY → CH CTY at 00:00, PT60M: 4643.24 for four slots.
    for t in ["2017-02-01T00:00Z", "2017-02-01T00:45Z"] {
        assert_close(value(&day, &flow("DE", "CH"), t), 4643.24, t);
    }
    // 2017-02-01 hourly and 2017-02-02T00:00 from the afternoon file: 25 hours.
    assert_eq!(series(&day, &flow("DE", "CH")).len(), 25 * 4);
    // AT → CH exists as CTY and CTA rows with the same values: used once.
    assert_close(
        value(&day, &flow("AT", "CH"), "2017-02-01T12:00Z"),
        254.45,
        "AT→CH",
    );
    // FR → GB: the CTY row names the UK country code, which maps to GB (Northern Ireland is NIE).
    assert_close(
        value(&day, &flow("FR", "GB"), "2017-02-01T02:00Z"),
        882.0,
        "FR→GB",
    );
    // Flows to German TSO control areas are not zone flows.
    assert_eq!(skipped(&day, "not-a-zone:10YDE-ENBW-----N"), Some(39 * 2));
    assert!(all_points(&day, |p| matches!(p.key, InputKey::Flow { .. })));
}

const GEN_HEADER: &str = "DateTime\tResolutionCode\tAreaCode\tAreaTypeCode\tAreaName\tMapCode\tProductionType\tActualGenerationOutput\tActualConsumption\tUpdateTime\n";
const FLOW_HEADER: &str = "DateTime\tResolutionCode\tOutAreaCode\tOutAreaTypeCode\tOutAreaName\tOutMapCode\tInAreaCode\tInAreaTypeCode\tInAreaName\tInMapCode\tFlowValue\tUpdateTime\n";

fn csv(header: &str, rows: &[&str]) -> Vec<u8> {
    let mut s = header.to_string();
    for r in rows {
        s.push_str(&r.replace('|', "\t"));
        s.push('\n');
    }
    s.into_bytes()
}

#[test]
fn file_library_prefers_bzn_over_cty_and_uses_lone_cta_rows() {
    let bytes = csv(
        GEN_HEADER,
        &[
            "2024-01-01 00:00:00|PT30M|10Y1001A1001A82H|BZN|DE-LU BZN|DE_LU|Solar|10.0||x",
            "2024-01-01 00:00:00|PT30M|10Y1001A1001A83F|CTY|DE CTY|DE|Solar|9.0||x",
            "2024-01-01 00:00:00|PT15M|10YBE----------2|CTA|BE CTA|BE|Fossil Oil|3.0||x",
            "2024-01-01 00:00:00|PT15M|10YBE----------2|CTA|BE CTA|BE|Fossil Oil shale|4.0||x",
            "2024-01-01 00:00:00|PT15M|10YBE----------2|CTA|BE CTA|BE|Energy storage|4.0||x",
            "2024-01-01 00:00:00|PT15M|10YBE----------2|SCA|BE SCA|BE|Solar|4.0||x",
            "2024-01-01 00:00:00|PT15M|10YNL----------L|CTY|NL CTY|NL|Solar|||x",
        ],
    );
    let doc = file_library::parse(&bytes, zones()).unwrap();
    assert_eq!(doc.points.len(), 3);
    let mw = generation_value(&doc, "DE", ProductionType::Solar, "2024-01-01T00:15Z");
    assert_close(mw, 10.0, "BZN wins");
    let mw = generation_value(&doc, "BE", ProductionType::Oil, "2024-01-01T00:00Z");
    assert_close(mw, 7.0, "lone CTA, summed");
    assert_skips(
        &doc,
        &[
            ("area-type:SCA", 1),
            ("empty-value:10YNL----------L", 1),
            ("production-type:Energy storage", 1),
            ("superseded-CTY:10Y1001A1001A83F", 1),
        ],
    );
}

/// The line and column of the `InvalidRow` error that `rows` under `header` must give.
fn invalid_row(header: &str, rows: &[&str]) -> (u64, String) {
    match file_library::parse(&csv(header, rows), zones()) {
        Err(ParseError::InvalidRow { line, column, .. }) => (line, column),
        other => panic!("expected InvalidRow, got {other:?}"),
    }
}

#[test]
fn file_library_errors_name_line_and_column() {
    let bad_time = [
        "2024-01-01 00:00:00|PT15M|10YBE----------2|CTY|BE|BE|Solar|1||x",
        "yesterday|PT15M|10YBE----------2|CTY|BE|BE|Solar|1||x",
    ];
    let (line, column) = invalid_row(GEN_HEADER, &bad_time);
    assert_eq!((line, column.as_str()), (3, "DateTime"));
    let bad_value = "2024-01-01 00:00:00|PT15M|10YIT-GRTN-----B|CTY|IT|IT|Solar|n/a||x";
    let (line, column) = invalid_row(GEN_HEADER, &[bad_value]);
    assert_eq!((line, column.as_str()), (2, "ActualGenerationOutput"));
    let bad_resolution = "2024-01-01 00:00:00|P1D|10YBE----------2|CTY|BE|BE|Solar|1||x";
    let (_, column) = invalid_row(GEN_HEADER, &[bad_resolution]);
    assert_eq!(column, "ResolutionCode");
    let negative =
        "2024-01-01 00:00:00|PT60M|10YBE----------2|CTY|BE|BE|10YNL----------L|CTY|NL|NL|-1.0|x";
    let (line, column) = invalid_row(FLOW_HEADER, &[negative]);
    assert_eq!((line, column.as_str()), (2, "FlowValue"));
    let ragged = "2024-01-01 00:00:00|PT60M|10YBE----------2";
    invalid_row(FLOW_HEADER, &[ragged]);
    let unknown = b"DateTime\tResolutionCode\tAreaCode\tTotalLoadValue\n".to_vec();
    assert!(matches!(
        file_library::parse(&unknown, zones()),
        Err(ParseError::UnknownCsvHeader { .. })
    ));
}

// ------------------------------------------------------------------------------------------------
// Sniffing and merging

#[test]
fn detects_formats() {
    assert_eq!(
        detect_format(b"\xEF\xBB\xBF  <?xml version=\"1.0\"?><a/>"),
        Some(InputFormat::EntsoeXml)
    );
    assert_eq!(
        detect_format(GEN_HEADER.as_bytes()),
        Some(InputFormat::FileLibraryCsv)
    );
    assert_eq!(detect_format(b"DateTime,ResolutionCode\n"), None);
    assert_eq!(detect_format(b""), None);
    assert!(matches!(
        detect_and_parse(b"{\"json\": true}", zones()),
        Err(ParseError::UnrecognisedFormat(_))
    ));
}

#[test]
fn merge_replaces_same_slot_values_and_adds_skips() {
    let a = parse_xml(&gl(
        "A65",
        &be_ts(1, OUT, None, "A01", "PT30M", &[(1, "1"), (2, "2")]),
    ))
    .unwrap();
    let (start, end) = ("2024-01-01T00:30Z", "2024-01-01T01:30Z");
    let later = ts(
        1,
        OUT,
        BE,
        None,
        "A01",
        "PT30M",
        start,
        end,
        &[(1, "20"), (2, "30")],
    );
    let b = parse_xml(&gl("A65", &later)).unwrap();
    let mut merged = a.clone();
    merged.merge(b);
    let values: Vec<f64> = merged.points.iter().map(|p| p.mw).collect();
    assert_eq!(values, vec![1.0, 1.0, 20.0, 20.0, 30.0, 30.0]);
    assert_eq!(merged.kind, DocumentKind::ActualTotalLoad);

    let mut with_ack = ParsedDocument::empty(DocumentKind::Acknowledgement);
    with_ack.merge(a.clone());
    assert_eq!(with_ack, a);

    let mut mixed = a;
    mixed.merge(api("A75_DE-LU_2024-06-15_PT15M_A03.xml"));
    assert_eq!(mixed.kind, DocumentKind::Mixed);
    assert_eq!(skipped(&mixed, "consumption:10Y1001A1001A82H"), Some(288));
    check_invariants("mixed", &mixed);
}

// ------------------------------------------------------------------------------------------------
// Robustness: the parsers never panic, whatever the bytes.

const SMALL_XML: &[&[u8]] = &[
    include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/fixtures/entsoe-api/A11_DE-LU-to-NL_2024-09-02_PT15M_A03.xml"
    )),
    include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/fixtures/entsoe-api/A65_A16_CZ_2023-03-03to06_PT60M_A03.xml"
    )),
    include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/fixtures/entsoe-api/hexagon_A65_CZ_2016_single_point_A01.xml"
    )),
    include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/fixtures/entsoe-api/ACK_999_no_matching_data.xml"
    )),
    include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/fixtures/invalid/hexagon_invalid.xml"
    )),
];

const SNIPPETS: &[&[u8]] = &[
    b"<Point>",
    b"</Point>",
    b"</Period>",
    b"<Period>",
    b"<TimeSeries>",
    b"-1",
    b"NaN",
    b"1e308",
    b"99999999999999999999",
    b"<position>0</position>",
    b"<position>40000</position>",
    b"PT5M",
    b"PT1H",
    b"A03",
    b"A01",
    b"&amp;",
    b"&#0;",
    b"&#x110000;",
    b"<![CDATA[7]]>",
    b"<!-- c -->",
    b"\xff\xfe",
    b"0001-01-01T00:00Z",
    b"9999-12-31T23:45Z",
    b"<psrType>B25</psrType>",
    b"<outBiddingZone_Domain.mRID>10YBE----------2</outBiddingZone_Domain.mRID>",
    b"\t",
];

#[derive(Debug, Clone)]
enum Edit {
    Replace(prop::sample::Index, u8),
    Delete(prop::sample::Index, usize),
    Insert(prop::sample::Index, prop::sample::Index),
    Truncate(prop::sample::Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    let interesting = prop::sample::select(b"<>/&;#-.0123456789eE+ AZ\"'\n\tx".to_vec());
    prop_oneof![
        (
            any::<prop::sample::Index>(),
            prop_oneof![interesting, any::<u8>()]
        )
            .prop_map(|(i, b)| Edit::Replace(i, b)),
        (any::<prop::sample::Index>(), 1usize..64).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<prop::sample::Index>(), any::<prop::sample::Index>())
            .prop_map(|(i, s)| Edit::Insert(i, s)),
        any::<prop::sample::Index>().prop_map(Edit::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        if bytes.is_empty() {
            break;
        }
        match e {
            Edit::Replace(i, b) => {
                let i = i.index(bytes.len());
                bytes[i] = *b;
            }
            Edit::Delete(i, n) => {
                let i = i.index(bytes.len());
                let end = (i + n).min(bytes.len());
                bytes.drain(i..end);
            }
            Edit::Insert(i, s) => {
                let i = i.index(bytes.len());
                let snippet = SNIPPETS[s.index(SNIPPETS.len())];
                bytes.splice(i..i, snippet.iter().copied());
            }
            Edit::Truncate(i) => bytes.truncate(i.index(bytes.len())),
        }
    }
    bytes
}

fn small_csv(name: &str, lines: usize) -> Vec<u8> {
    let text = String::from_utf8(read(FILE_LIBRARY_DIR, name)).unwrap();
    text.lines()
        .take(lines)
        .flat_map(|l| l.bytes().chain(std::iter::once(b'\n')))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..1024)) {
        let _ = detect_and_parse(&bytes, zones());
        let _ = entsoe_xml::parse(&bytes, zones());
        let _ = file_library::parse(&bytes, zones());
    }

    #[test]
    fn mutated_xml_fixtures_never_panic(which in 0..SMALL_XML.len(), edits in prop::collection::vec(edit(), 1..10)) {
        let bytes = apply(SMALL_XML[which].to_vec(), &edits);
        if let Ok(doc) = entsoe_xml::parse(&bytes, zones()) {
            check_invariants("mutated", &doc);
        }
    }

    #[test]
    fn mutated_file_library_extracts_never_panic(flows in any::<bool>(), edits in prop::collection::vec(edit(), 1..10)) {
        let name = if flows { "2017_02_01_PM_PhysicalFlows.csv" } else { "2017_02_01_PM_AggregGen.csv" };
        let bytes = apply(small_csv(name, 60), &edits);
        if let Ok(doc) = detect_and_parse(&bytes, zones()) {
            check_invariants("mutated", &doc);
        }
    }
}
