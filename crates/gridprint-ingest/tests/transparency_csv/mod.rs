//! Transparency Platform website exports (`gridprint_ingest::transparency_csv`) against the real
//! two-day cuts in `data/fixtures/transparency-csv/` (ENTSO-E Transparency Platform, CC BY 4.0), and
//! small inline exports for the cases the cuts do not hold (negative values, bad rows).

use super::{generation, slot, zone, zones};
use gridprint_core::inputs::{DATASOURCE_ENTSOE, InputKey};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::slot::format_timestamp;
use gridprint_core::tso_forecast::{
    PublicationDeadlines, TsoForecastKind, TsoForecastPoint, TsoForecastSeries,
};
use gridprint_ingest::transparency_csv::{self, ExportView, TransparencyExport};
use gridprint_ingest::{DocumentKind, ParseError, ParsedDocument};
use proptest::prelude::*;
use std::collections::BTreeMap;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/fixtures/transparency-csv"
);

const GENERATION: &str = "actual-generation-per-type_DK1_2023-04-10to11.csv";
const WIND_SOLAR: &str = "wind-solar-forecasts_DK1_2023-03-25to26.csv";
const SCHEDULED: &str = "day-ahead-generation-forecast_DK2_2023-04-17to18.csv";
const LOAD: &str = "total-load_DK1_2023-10-28to29.csv";

/// A fixture, parsed under a name that says nothing of its view (the header alone decides).
fn fixture(name: &str) -> TransparencyExport {
    let bytes = std::fs::read(format!("{DIR}/{name}")).unwrap_or_else(|e| panic!("{name}: {e}"));
    transparency_csv::parse("export.csv", &bytes, zones()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn inline(text: &str) -> Result<TransparencyExport, ParseError> {
    transparency_csv::parse("inline.csv", text.as_bytes(), zones())
}

fn actuals(export: &TransparencyExport) -> &ParsedDocument {
    export.actuals.as_ref().expect("a view with actual values")
}

/// The actual value of `key` in each slot of the hour starting at `hour`; `None` when absent.
fn actual_hour(doc: &ParsedDocument, key: &InputKey, hour: &str) -> [Option<f64>; 4] {
    let first = slot(hour);
    std::array::from_fn(|q| {
        doc.points
            .iter()
            .find(|p| &p.key == key && p.slot == first.offset(q as i64))
            .map(|p| p.mw)
    })
}

fn forecast<'a>(
    export: &'a TransparencyExport,
    series: &TsoForecastSeries,
    kind: TsoForecastKind,
    at: &str,
) -> Option<&'a TsoForecastPoint> {
    let s = slot(at);
    export
        .forecasts
        .iter()
        .find(|p| &p.series == series && p.kind == kind && p.slot == s)
}

/// The forecast's value in each slot of the hour starting at `hour`.
fn forecast_hour(
    export: &TransparencyExport,
    series: &TsoForecastSeries,
    kind: TsoForecastKind,
    hour: &str,
) -> [Option<f64>; 4] {
    let first = slot(hour);
    std::array::from_fn(|q| {
        let at = format_timestamp(first.offset(q as i64).start());
        forecast(export, series, kind, &at).map(|p| p.mw)
    })
}

fn wind_solar(z: &str, production_type: ProductionType) -> TsoForecastSeries {
    TsoForecastSeries::Generation {
        zone: zone(z),
        production_type,
    }
}

fn skips(list: &[(&str, usize)]) -> BTreeMap<String, usize> {
    list.iter().map(|(k, n)| (k.to_string(), *n)).collect()
}

fn four(v: f64) -> [Option<f64>; 4] {
    [Some(v); 4]
}

#[test]
fn actual_generation_per_type_dk1() {
    let export = fixture(GENERATION);
    assert_eq!(export.view, ExportView::ActualGenerationPerType);
    assert_eq!(export.zone, zone("DK1"));
    assert!(export.forecasts.is_empty());
    let doc = actuals(&export);
    assert_eq!(doc.kind, DocumentKind::GenerationPerType);
    // row 2: "BZN|DK1","10.04.2023 00:00 - 10.04.2023 01:00 (UTC)","165",n/e×3,"111","122","11",…
    use ProductionType::{
        Biomass, Coal, Gas, HydroRiver, Oil, OtherRenewable, Solar, Waste, WindOffshore,
        WindOnshore,
    };
    let first_hour = [
        (Biomass, 165.0),
        (Gas, 111.0),  // Fossil Gas (coal-derived gas is n/e)
        (Coal, 122.0), // Fossil Hard coal (lignite and peat are n/e)
        (Oil, 11.0),
        (HydroRiver, 2.0),
        (OtherRenewable, 1.0),
        (Solar, 0.0),
        (Waste, 84.0),
        (WindOffshore, 737.0),
        (WindOnshore, 827.0),
    ];
    for (pt, mw) in first_hour {
        let key = generation("DK1", pt);
        assert_eq!(
            actual_hour(doc, &key, "2023-04-10T00:00Z"),
            four(mw),
            "{pt}"
        );
    }
    // row 34: 11.04.2023 08:00–09:00 is N/A for the thermal types, solar and wind have values
    let n_a = [None; 4];
    for pt in [Biomass, Gas, Coal, Oil, HydroRiver, OtherRenewable, Waste] {
        let key = generation("DK1", pt);
        assert_eq!(actual_hour(doc, &key, "2023-04-11T08:00Z"), n_a, "{pt}");
    }
    let dk1 = |pt| generation("DK1", pt);
    assert_eq!(
        actual_hour(doc, &dk1(Solar), "2023-04-11T08:00Z"),
        four(548.0)
    );
    assert_eq!(
        actual_hour(doc, &dk1(WindOffshore), "2023-04-11T08:00Z"),
        four(619.0)
    );
    assert_eq!(
        actual_hour(doc, &dk1(WindOnshore), "2023-04-11T08:00Z"),
        four(998.0)
    );
    // row 35 and the last row, 11.04.2023 23:00–24:00
    assert_eq!(
        actual_hour(doc, &dk1(Biomass), "2023-04-11T09:00Z"),
        four(10.0)
    );
    assert_eq!(
        actual_hour(doc, &dk1(Coal), "2023-04-11T23:00Z"),
        four(326.0)
    );
    // 10 series × 48 hours × 4 slots, less the 7 N/A values of row 34
    assert_eq!(doc.points.len(), 10 * 48 * 4 - 7 * 4);
    assert_eq!(doc.skipped, skips(&[("empty-value:BZN|DK1", 7)]));
    assert!(
        doc.points
            .iter()
            .all(|p| p.state == DataState::Official && p.datasource == DATASOURCE_ENTSOE)
    );
    assert!(doc.points.is_sorted_by_key(|p| (p.key.clone(), p.slot)));
}

#[test]
fn wind_and_solar_forecasts_dk1_over_the_spring_change() {
    let export = fixture(WIND_SOLAR);
    assert_eq!(export.view, ExportView::WindSolarForecasts);
    assert_eq!(export.zone, zone("DK1"));
    assert_eq!(export.actuals, None);
    use ProductionType::{Solar, WindOffshore, WindOnshore};
    use TsoForecastKind::{Current, DayAhead, Intraday};
    let (solar, offshore, onshore) = (
        wind_solar("DK1", Solar),
        wind_solar("DK1", WindOffshore),
        wind_solar("DK1", WindOnshore),
    );
    // row 9: "25.03.2023 07:00 - 25.03.2023 08:00","138","156","156","921","949","939","1261","1339","1339"
    let hour = "2023-03-25T07:00Z";
    let row9 = [
        (&solar, [138.0, 156.0, 156.0]),
        (&offshore, [921.0, 949.0, 939.0]),
        (&onshore, [1261.0, 1339.0, 1339.0]),
    ];
    for (series, [da, id, current]) in row9 {
        assert_eq!(forecast_hour(&export, series, DayAhead, hour), four(da));
        assert_eq!(forecast_hour(&export, series, Intraday, hour), four(id));
        assert_eq!(forecast_hour(&export, series, Current, hour), four(current));
    }
    // The intraday forecast starts at 08:00 Brussels time: 07:00 UTC in winter, 06:00 UTC after the
    // change of 26 March (row 32: "26.03.2023 06:00 - …","245","229","229","815","883","871",…).
    let none = [None; 4];
    assert_eq!(
        forecast_hour(&export, &onshore, Intraday, "2023-03-25T06:00Z"),
        none
    );
    assert_eq!(
        forecast_hour(&export, &onshore, Intraday, "2023-03-26T05:00Z"),
        none
    );
    assert_eq!(
        forecast_hour(&export, &offshore, Intraday, "2023-03-26T06:00Z"),
        four(883.0)
    );
    assert_eq!(
        forecast_hour(&export, &solar, DayAhead, "2023-03-26T06:00Z"),
        four(245.0)
    );
    assert_eq!(
        forecast_hour(&export, &solar, Current, "2023-03-26T06:00Z"),
        four(229.0)
    );
    // row 25, 25.03 23:00 UTC (midnight in Brussels): intraday N/A again
    assert_eq!(
        forecast_hour(&export, &solar, Intraday, "2023-03-25T23:00Z"),
        none
    );
    assert_eq!(
        forecast_hour(&export, &offshore, Current, "2023-03-25T23:00Z"),
        four(703.0)
    );
    // 6 day-ahead and current series of 48 hours, 3 intraday ones of 32 hours, 4 slots an hour
    assert_eq!(export.forecasts.len(), (6 * 48 + 3 * 32) * 4);
    assert_eq!(
        export.forecasts_skipped,
        skips(&[("empty-value:BZN|DK1", 3 * 16)])
    );
    assert!(
        export
            .forecasts
            .is_sorted_by_key(|p| (p.series.clone(), p.kind, p.slot))
    );
    // The first intraday value of each Brussels day is due at its own start (08:00 Brussels).
    let rule = PublicationDeadlines::REGULATION;
    for first in ["2023-03-25T07:00Z", "2023-03-26T06:00Z"] {
        let p = forecast(&export, &onshore, Intraday, first).unwrap();
        assert_eq!(p.publication_time(&rule), Some(p.slot.start()), "{first}");
    }
    // Day-ahead: 18:00 Brussels the day before, which moves with summer time.
    let due = |at: &str| {
        forecast(&export, &solar, DayAhead, at)
            .unwrap()
            .publication_time(&rule)
            .map(format_timestamp)
    };
    assert_eq!(
        due("2023-03-25T12:00Z").as_deref(),
        Some("2023-03-24T17:00:00Z")
    );
    assert_eq!(
        due("2023-03-25T23:00Z").as_deref(),
        Some("2023-03-25T17:00:00Z")
    );
    assert_eq!(
        due("2023-03-26T22:00Z").as_deref(),
        Some("2023-03-26T16:00:00Z")
    );
    let current = forecast(&export, &solar, Current, "2023-03-25T12:00Z").unwrap();
    assert_eq!(current.publication_time(&rule), None);
}

#[test]
fn day_ahead_generation_dk2_with_a_day_missing() {
    let export = fixture(SCHEDULED);
    assert_eq!(export.view, ExportView::DayAheadGenerationForecast);
    assert_eq!(export.zone, zone("DK2"));
    assert_eq!(export.actuals, None);
    let generation = TsoForecastSeries::ScheduledGeneration { zone: zone("DK2") };
    let da = TsoForecastKind::DayAhead;
    // rows 2, 23, 48, 49: "841", "1034", "1366", "1344"; consumption empty
    assert_eq!(
        forecast_hour(&export, &generation, da, "2023-04-17T00:00Z"),
        four(841.0)
    );
    assert_eq!(
        forecast_hour(&export, &generation, da, "2023-04-17T21:00Z"),
        four(1034.0)
    );
    assert_eq!(
        forecast_hour(&export, &generation, da, "2023-04-18T22:00Z"),
        four(1366.0)
    );
    assert_eq!(
        forecast_hour(&export, &generation, da, "2023-04-18T23:00Z"),
        four(1344.0)
    );
    // the Brussels day of 18 April (17.04 22:00 – 18.04 22:00 UTC) is N/A in both columns
    assert!(export.forecasts.iter().all(|p| p.series == generation
        && !(slot("2023-04-17T22:00Z") <= p.slot && p.slot < slot("2023-04-18T22:00Z"))));
    assert_eq!(export.forecasts.len(), 24 * 4);
    // 24 N/A generation cells, 24 N/A and 24 empty consumption cells
    assert_eq!(
        export.forecasts_skipped,
        skips(&[("empty-value:BZN|DK2", 72)])
    );
    let p = forecast(&export, &generation, da, "2023-04-17T00:00Z").unwrap();
    assert_eq!(
        p.publication_time(&PublicationDeadlines::REGULATION)
            .map(format_timestamp)
            .as_deref(),
        Some("2023-04-16T16:00:00Z")
    );
}

#[test]
fn total_load_dk1_over_the_autumn_change() {
    let export = fixture(LOAD);
    assert_eq!(export.view, ExportView::TotalLoad);
    assert_eq!(export.zone, zone("DK1"));
    let doc = actuals(&export);
    assert_eq!(doc.kind, DocumentKind::ActualTotalLoad);
    let load = InputKey::Load { zone: zone("DK1") };
    let forecast_load = TsoForecastSeries::Load { zone: zone("DK1") };
    let da = TsoForecastKind::DayAhead;
    // rows 2, 25, 26, 27, 49: (forecast, actual)
    for (hour, predicted, actual) in [
        ("2023-10-28T00:00Z", 2116.0, 2168.0),
        ("2023-10-28T23:00Z", 2242.0, 2405.0),
        ("2023-10-29T00:00Z", 2258.0, 2437.0),
        ("2023-10-29T01:00Z", 2187.0, 2415.0),
        ("2023-10-29T23:00Z", 2216.0, 2188.0),
    ] {
        assert_eq!(actual_hour(doc, &load, hour), four(actual), "{hour}");
        assert_eq!(
            forecast_hour(&export, &forecast_load, da, hour),
            four(predicted),
            "{hour}"
        );
    }
    assert_eq!(doc.points.len(), 48 * 4);
    assert_eq!(export.forecasts.len(), 48 * 4);
    assert!(doc.skipped.is_empty() && export.forecasts_skipped.is_empty());
    // The forecast is due at 10:00 Brussels the day before (two hours before the day-ahead gate
    // closure): 28.10 22:00 UTC is already the 25-hour day of 29 October in Brussels.
    let due = |at: &str| {
        forecast(&export, &forecast_load, da, at)
            .unwrap()
            .publication_time(&PublicationDeadlines::REGULATION)
            .map(format_timestamp)
    };
    assert_eq!(
        due("2023-10-28T21:45Z").as_deref(),
        Some("2023-10-27T08:00:00Z")
    );
    assert_eq!(
        due("2023-10-28T22:00Z").as_deref(),
        Some("2023-10-28T08:00:00Z")
    );
    assert_eq!(
        due("2023-10-29T22:45Z").as_deref(),
        Some("2023-10-28T08:00:00Z")
    );
    assert_eq!(
        due("2023-10-29T23:00Z").as_deref(),
        Some("2023-10-29T09:00:00Z")
    );
}

const LOAD_HEADER: &str = "\"Time (UTC)\",\"Day-ahead Total Load Forecast [MW] - BZN|DK1\",\"Actual Total Load [MW] - BZN|DK1\"\n";

#[test]
fn not_existing_not_available_and_empty_give_no_point() {
    let text = format!(
        "{LOAD_HEADER}\
         \"01.01.2023 00:00 - 01.01.2023 01:00\",\"n/e\",\"2123\"\n\
         \"01.01.2023 01:00 - 01.01.2023 02:00\",\"N/A\",\"n/e\"\n\
         \"01.01.2023 02:00 - 01.01.2023 03:00\",\"2059.5\",\"\"\n"
    );
    let export = inline(&text).unwrap();
    let doc = actuals(&export);
    let load = InputKey::Load { zone: zone("DK1") };
    assert_eq!(actual_hour(doc, &load, "2023-01-01T00:00Z"), four(2123.0));
    assert_eq!(doc.points.len(), 4);
    // n/e is no value at all; N/A and empty are values not available, counted
    assert_eq!(doc.skipped, skips(&[("empty-value:BZN|DK1", 1)]));
    assert_eq!(export.forecasts.len(), 4);
    assert_eq!(export.forecasts[0].mw, 2059.5);
    assert_eq!(export.forecasts[0].slot, slot("2023-01-01T02:00Z"));
    assert_eq!(
        export.forecasts_skipped,
        skips(&[("empty-value:BZN|DK1", 1)])
    );
}

#[test]
fn negative_values_duplicates_and_consumption_are_counted_not_kept() {
    let load = format!(
        "{LOAD_HEADER}\
         \"01.01.2023 00:00 - 01.01.2023 01:00\",\"-5\",\"-1\"\n\
         \"01.01.2023 01:00 - 01.01.2023 02:00\",\"10\",\"20\"\n\
         \"01.01.2023 01:00 - 01.01.2023 02:00\",\"11\",\"21\"\n"
    );
    let export = inline(&load).unwrap();
    let doc = actuals(&export);
    assert_eq!(
        doc.skipped,
        skips(&[("negative-value:BZN|DK1", 1), ("duplicate:BZN|DK1", 1)])
    );
    assert_eq!(
        export.forecasts_skipped,
        skips(&[("negative-value:BZN|DK1", 1), ("duplicate:BZN|DK1", 1)])
    );
    // the later row wins, as in the other parsers
    let key = InputKey::Load { zone: zone("DK1") };
    assert_eq!(actual_hour(doc, &key, "2023-01-01T01:00Z"), four(21.0));
    assert!(export.forecasts.iter().all(|p| p.mw == 11.0));

    // Pumped storage: Actual Aggregated is generation, Actual Consumption is never a point.
    let generation_view = "\"Area\",\"MTU\",\"Hydro Pumped Storage - Actual Aggregated [MW]\",\
        \"Hydro Pumped Storage - Actual Consumption [MW]\",\"Energy storage - Actual Aggregated [MW]\"\n\
        \"BZN|DK1\",\"01.01.2023 00:00 - 01.01.2023 00:15 (UTC)\",\"30\",\"250\",\"7\"\n\
        \"BZN|DK1\",\"01.01.2023 00:15 - 01.01.2023 00:30 (UTC)\",\"n/e\",\"240\",\"n/e\"\n";
    let export = inline(generation_view).unwrap();
    let doc = actuals(&export);
    assert_eq!(doc.points.len(), 1, "{:?}", doc.points);
    assert_eq!(
        doc.points[0].key,
        generation("DK1", ProductionType::HydroPumpedStorage)
    );
    assert_eq!(
        (doc.points[0].slot, doc.points[0].mw),
        (slot("2023-01-01T00:00Z"), 30.0)
    );
    assert_eq!(
        doc.skipped,
        skips(&[
            ("consumption:BZN|DK1", 2),
            ("production-type:Energy storage", 1)
        ])
    );
}

/// The line and column of the `InvalidExport` error that `text` gives.
fn invalid_at(text: &str) -> (u64, String) {
    match inline(text) {
        Err(ParseError::InvalidExport {
            file, line, column, ..
        }) => {
            assert_eq!(file, "inline.csv");
            (line, column)
        }
        other => panic!("expected InvalidExport, got {other:?}"),
    }
}

#[test]
fn a_malformed_line_is_an_error_naming_file_and_line_and_nothing_is_imported() {
    let good = "\"01.01.2023 00:00 - 01.01.2023 01:00\",\"1\",\"2\"\n";
    let time = "Time (UTC)";
    let actual = "Actual Total Load [MW] - BZN|DK1";
    let cases: [(&str, &str); 8] = [
        ("\"01.01.2023 01:00 - 01.01.2023 02:00\",\"1\"\n", "(row)"),
        (
            "\"01.01.2023 01:00 - 01.01.2023 02:00\",\"1\",\"2\",\"3\"\n",
            "(row)",
        ),
        (
            "\"01.01.2023 01:00 - 01.01.2023 02:00\",\"1\",\"12x\"\n",
            actual,
        ),
        (
            "\"01.01.2023 01:00 - 01.01.2023 02:00\",\"1\",\"inf\"\n",
            actual,
        ),
        (
            "\"32.01.2023 01:00 - 02.02.2023 02:00\",\"1\",\"2\"\n",
            time,
        ),
        (
            "\"01.01.2023 01:05 - 01.01.2023 02:05\",\"1\",\"2\"\n",
            time,
        ),
        (
            "\"01.01.2023 01:00 - 01.01.2023 03:00\",\"1\",\"2\"\n",
            time,
        ),
        ("\"2023-01-01T01:00Z\",\"1\",\"2\"\n", time),
    ];
    for (bad, column) in cases {
        // the bad row is the last of four lines: all good rows before it are not returned either
        let text = format!("{LOAD_HEADER}{good}{good}{bad}");
        assert_eq!(invalid_at(&text), (4, column.to_string()), "{bad}");
    }
    let err = inline(&format!("{LOAD_HEADER}{good}\"x\",\"1\",\"2\"\n")).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("Transparency Platform export inline.csv, line 3: Time (UTC): "),
        "{message}"
    );

    // Times must be UTC: the A71 header says only `MTU`, so the cells must say (UTC).
    let scheduled = "\"MTU\",\"Scheduled Generation [MW] (D) - BZN|DK1\",\"Scheduled Consumption [MW] (D) - BZN|DK1\"\n\
        \"01.01.2023 00:00 - 01.01.2023 01:00 (UTC)\",\"974\",\"\"\n\
        \"01.01.2023 01:00 - 01.01.2023 02:00\",\"1165\",\"\"\n";
    assert_eq!(invalid_at(scheduled), (3, "MTU".to_string()));
    // One zone per export: an Area cell that differs from the first row's.
    let generation = "\"Area\",\"MTU\",\"Solar - Actual Aggregated [MW]\"\n\
        \"BZN|DK1\",\"01.01.2023 00:00 - 01.01.2023 01:00 (UTC)\",\"0\"\n\
        \"BZN|DK2\",\"01.01.2023 01:00 - 01.01.2023 02:00 (UTC)\",\"0\"\n";
    assert_eq!(invalid_at(generation), (3, "Area".to_string()));
}

#[test]
fn headers_and_zones_that_are_not_understood_are_errors() {
    let header = |h: &str| {
        invalid_at(&format!(
            "{h}\n\"01.01.2023 00:00 - 01.01.2023 01:00\",\"1\",\"2\"\n"
        ))
    };
    let at_header = (1, "(header)".to_string());
    // not one of the four views; times in CET/CEST; value columns naming two zones
    assert_eq!(header("\"DateTime\",\"Value\",\"Other\""), at_header);
    assert_eq!(
        header(
            "\"MTU (CET/CEST)\",\"Generation - Solar [MW] Day Ahead/ BZN|DK1\",\"Generation - Solar [MW] Current / BZN|DK1\""
        ),
        at_header
    );
    assert_eq!(
        header(
            "\"Time (UTC)\",\"Day-ahead Total Load Forecast [MW] - BZN|DK1\",\"Actual Total Load [MW] - BZN|DK2\""
        ),
        at_header
    );
    assert_eq!(invalid_at(""), at_header);
    // unknown zone, and an area that is not a bidding zone
    assert_eq!(
        header(
            "\"Time (UTC)\",\"Day-ahead Total Load Forecast [MW] - BZN|XX\",\"Actual Total Load [MW] - BZN|XX\""
        ),
        at_header
    );
    assert_eq!(
        header(
            "\"Time (UTC)\",\"Day-ahead Total Load Forecast [MW] - CTY|DK\",\"Actual Total Load [MW] - CTY|DK\""
        ),
        at_header
    );
    let unknown = "\"Area\",\"MTU\",\"Solar - Actual Aggregated [MW]\"\n\
        \"BZN|DE-LU\",\"01.01.2023 00:00 - 01.01.2023 01:00 (UTC)\",\"0\"\n";
    assert_eq!(invalid_at(unknown), (2, "Area".to_string()));
    let message = inline(unknown).unwrap_err().to_string();
    assert!(
        message.contains("'DE-LU' is not a gridprint zone"),
        "{message}"
    );
    let no_rows = "\"Area\",\"MTU\",\"Solar - Actual Aggregated [MW]\"\n";
    assert_eq!(invalid_at(no_rows), at_header);
}

#[test]
fn a_byte_order_mark_and_15_minute_mtus_are_read() {
    let text = format!(
        "\u{feff}{LOAD_HEADER}\
         \"01.01.2023 00:00 - 01.01.2023 00:15\",\"1\",\"2\"\n\
         \"01.01.2023 00:15 - 01.01.2023 00:30 (UTC)\",\"3\",\"4\"\n"
    );
    let export = inline(&text).unwrap();
    let load = InputKey::Load { zone: zone("DK1") };
    assert_eq!(
        actual_hour(actuals(&export), &load, "2023-01-01T00:00Z"),
        [Some(2.0), Some(4.0), None, None]
    );
    assert_eq!(export.forecasts.len(), 2);
}

proptest! {
    /// Whatever the cells, the parser answers without panicking, and what it accepts is finite and
    /// non-negative.
    #[test]
    fn any_cells_parse_or_fail_cleanly(cells in proptest::collection::vec("[-0-9a-zN/A.e ()]{0,12}", 0..12)) {
        let mut text = LOAD_HEADER.to_string();
        for pair in cells.chunks(2) {
            let second = pair.get(1).map_or("", String::as_str);
            text.push_str(&format!("\"01.01.2023 00:00 - 01.01.2023 01:00\",\"{}\",\"{second}\"\n", pair[0]));
        }
        if let Ok(export) = inline(&text) {
            prop_assert!(actuals(&export).points.iter().all(|p| p.mw.is_finite() && p.mw >= 0.0));
            prop_assert!(export.forecasts.iter().all(|p| p.mw.is_finite() && p.mw >= 0.0));
        }
    }
}

proptest! {
    /// A real export with a few bytes overwritten parses or fails with an error, never a panic, and
    /// what it accepts is finite and non-negative.
    #[test]
    fn damaged_fixtures_parse_or_fail_cleanly(
        which in 0..4usize,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let name = [GENERATION, WIND_SOLAR, SCHEDULED, LOAD][which];
        let mut bytes = std::fs::read(format!("{DIR}/{name}")).unwrap();
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        if let Ok(export) = transparency_csv::parse(name, &bytes, zones()) {
            let actual = export.actuals.iter().flat_map(|d| &d.points).map(|p| p.mw);
            let forecast = export.forecasts.iter().map(|p| p.mw);
            prop_assert!(actual.chain(forecast).all(|mw| mw.is_finite() && mw >= 0.0));
        }
    }
}

#[test]
fn every_view_is_sniffed_as_a_website_export_and_refused_by_detect_and_parse() {
    use gridprint_ingest::{InputFormat, detect_and_parse, detect_format};
    for name in [GENERATION, WIND_SOLAR, SCHEDULED, LOAD] {
        let bytes = std::fs::read(format!("{DIR}/{name}")).unwrap();
        assert_eq!(
            detect_format(&bytes),
            Some(InputFormat::TransparencyExport),
            "{name}"
        );
        assert!(
            matches!(
                detect_and_parse(&bytes, zones()),
                Err(ParseError::UnrecognisedFormat(_))
            ),
            "{name}: its forecasts would be lost"
        );
    }
    assert_eq!(detect_format(b"\"Areas\",\"MTU\"\n"), None);
}
