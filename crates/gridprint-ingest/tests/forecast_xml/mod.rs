//! The TSOs' forecast documents of the API (`gridprint_ingest::entsoe_xml::parse_forecast`) against
//! the documents in `data/fixtures/entsoe-api-forecasts/`, built from the real website exports of
//! `data/fixtures/transparency-csv/` (ENTSO-E Transparency Platform, CC BY 4.0): the API parser and
//! the export parser must read the same values; and inline documents for what the fixtures lack.

use super::{slot, zone, zones};
use gridprint_core::production::ProductionType;
use gridprint_core::tso_forecast::{TsoForecastKind, TsoForecastPoint, TsoForecastSeries};
use gridprint_ingest::entsoe_xml::{self, ForecastDocument};
use gridprint_ingest::{ParseError, transparency_csv};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/fixtures/entsoe-api-forecasts"
);
const CSV_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/fixtures/transparency-csv"
);

fn document(name: &str) -> ForecastDocument {
    let bytes = std::fs::read(format!("{DIR}/{name}")).unwrap_or_else(|e| panic!("{name}: {e}"));
    entsoe_xml::parse_forecast(&bytes, zones()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The forecasts of a website export of `kind` (all kinds when `None`).
fn export(name: &str, kind: Option<TsoForecastKind>) -> Vec<TsoForecastPoint> {
    let bytes =
        std::fs::read(format!("{CSV_DIR}/{name}")).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut f = transparency_csv::parse(name, &bytes, zones())
        .unwrap()
        .forecasts;
    f.retain(|p| kind.is_none_or(|k| p.kind == k));
    f
}

#[test]
fn the_api_documents_read_the_values_the_website_exports_hold() {
    let csv = "wind-solar-forecasts_DK1_2023-03-25to26.csv";
    for (doc, kind, n) in [
        (
            "A69_A01_DK1_2023-03-25to26_PT60M.xml",
            TsoForecastKind::DayAhead,
            3 * 48 * 4,
        ),
        (
            "A69_A40_DK1_2023-03-25to26_PT60M.xml",
            TsoForecastKind::Intraday,
            96 * 4,
        ),
    ] {
        let d = document(doc);
        assert_eq!(d.forecasts, export(csv, Some(kind)), "{doc}");
        assert_eq!(d.forecasts.len(), n, "{doc}");
        assert!(d.skipped.is_empty(), "{doc}: {:?}", d.skipped);
    }
    let load = document("A65_A01_DK1_2023-10-28to29_PT60M.xml");
    assert_eq!(
        load.forecasts,
        export("total-load_DK1_2023-10-28to29.csv", None)
    );
    assert!(
        load.forecasts
            .iter()
            .all(|p| p.series == TsoForecastSeries::Load { zone: zone("DK1") })
    );
    let scheduled = document("A71_A01_DK2_2023-04-17to18_PT60M.xml");
    assert_eq!(
        scheduled.forecasts,
        export("day-ahead-generation-forecast_DK2_2023-04-17to18.csv", None)
    );
    assert_eq!(
        scheduled.created,
        Some(gridprint_core::slot::parse_timestamp("2023-04-18T12:00:00Z").unwrap())
    );
    // A first value, as written: solar 0 MW, onshore wind 1704 MW at 00:00 on 25 March.
    let da = document("A69_A01_DK1_2023-03-25to26_PT60M.xml");
    let at = |t: ProductionType, ts: &str| {
        da.forecasts
            .iter()
            .find(|p| {
                p.slot == slot(ts)
                    && p.series
                        == TsoForecastSeries::Generation {
                            zone: zone("DK1"),
                            production_type: t,
                        }
            })
            .map(|p| p.mw)
    };
    assert_eq!(
        at(ProductionType::WindOnshore, "2023-03-25T00:45Z"),
        Some(1704.0)
    );
    assert_eq!(
        at(ProductionType::WindOffshore, "2023-03-25T00:00Z"),
        Some(1028.0)
    );
}

/// A one-series `GL_MarketDocument` of `doc_type` and `process` with `series` inside.
fn inline(doc_type: &str, process: &str, series: &str) -> Result<ForecastDocument, ParseError> {
    let xml = format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<GL_MarketDocument xmlns="urn:iec62325.351:tc57wg16:451-6:generationloaddocument:3:0">
  <mRID>x</mRID><type>{doc_type}</type><process.processType>{process}</process.processType>
  <createdDateTime>2023-04-16T12:00:00Z</createdDateTime>
  <TimeSeries><mRID>1</mRID>{series}<quantity_Measure_Unit.name>MAW</quantity_Measure_Unit.name>
    <curveType>A01</curveType>
    <Period><timeInterval><start>2023-04-17T00:00Z</start><end>2023-04-17T02:00Z</end></timeInterval>
      <resolution>PT60M</resolution>
      <Point><position>1</position><quantity>40</quantity></Point>
      <Point><position>2</position><quantity>-3</quantity></Point>
    </Period></TimeSeries>
</GL_MarketDocument>"#
    );
    entsoe_xml::parse_forecast(xml.as_bytes(), zones())
}

#[test]
fn scheduled_consumption_negative_values_and_wrong_documents() {
    let dk2 = r#"<outBiddingZone_Domain.mRID codingScheme="A01">10YDK-2--------M</outBiddingZone_Domain.mRID>"#;
    let d = inline("A71", "A01", dk2).unwrap();
    assert_eq!(
        d.forecasts.len(),
        4,
        "40 MW over the four slots of the first hour"
    );
    assert!(d.forecasts.iter().all(|p| p.series
        == TsoForecastSeries::ScheduledConsumption { zone: zone("DK2") }
        && p.mw == 40.0));
    assert_eq!(d.skipped.values().sum::<usize>(), 1, "{:?}", d.skipped);
    // Actual values are no forecast, and a forecast is no actual value.
    assert!(matches!(
        inline("A65", "A16", dk2),
        Err(ParseError::UnsupportedDocument { .. })
    ));
    assert!(matches!(
        entsoe_xml::parse(
            &std::fs::read(format!("{DIR}/A65_A01_DK1_2023-10-28to29_PT60M.xml")).unwrap(),
            zones()
        ),
        Err(ParseError::UnsupportedDocument { .. })
    ));
    // A69 without a psrType names the field.
    let dk1 = r#"<inBiddingZone_Domain.mRID codingScheme="A01">10YDK-1--------W</inBiddingZone_Domain.mRID>"#;
    let e = inline("A69", "A01", dk1).unwrap_err().to_string();
    assert!(e.contains("psrType"), "{e}");
    // A65 day-ahead names its area in outBiddingZone_Domain.
    let e = inline("A65", "A01", dk1).unwrap_err().to_string();
    assert!(e.contains("outBiddingZone_Domain"), "{e}");
    // "No matching data" is an empty answer.
    let ack = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/fixtures/entsoe-api/ACK_999_no_matching_data.xml"
    ))
    .unwrap();
    assert!(
        entsoe_xml::parse_forecast(&ack, zones())
            .unwrap()
            .forecasts
            .is_empty()
    );
}
