//! ENTSO-E Transparency Platform website exports ("Export Data" → CSV) → actual input points and
//! TSO forecasts ([`TsoForecastPoint`]).
//!
//! Four data views are read, recognised by their header alone ([`ExportView`]); the file name is
//! only quoted in errors. The zone is the `BZN|<code>` the header names (the `Area` column of the
//! generation view), looked up among the reference zones; anything else is an error. `MTU` cells are
//! UTC intervals `dd.mm.yyyy HH:MM - dd.mm.yyyy HH:MM` (marked ` (UTC)` in the cell or the header)
//! of 15, 30 or 60 minutes, spread over 15-minute slots like the File Library's. Cells: a number
//! (MW), `n/e` (no such series: nothing), `N/A` or empty (not available: counted as `empty-value`).
//! Negative values are skipped and counted, as the other parsers do; pumped-storage "Actual
//! Consumption" is never a point (counted as `consumption`) and production types gridprint does not
//! know are counted as `production-type`.
//!
//! Actual generation and actual load become a [`ParsedDocument`] like the API's A75 and A65; the
//! forecasts (day-ahead, intraday and current wind and solar, day-ahead load, scheduled generation
//! and consumption) stay apart. The whole file is read before anything is returned: a bad row is a
//! [`ParseError::InvalidExport`] naming the file and line, and no points. `gridprint import` reads
//! these files (`gridprint_pipeline::import`), stamping each forecast with its publication time
//! from [`gridprint_core::tso_forecast::PublicationDeadlines`].

use crate::accumulate::Accumulator;
use crate::document::{DocumentKind, ForecastValues, ParsedDocument};
use crate::error::ParseError;
use crate::file_library::header_text;
use crate::skip;
use crate::time_grid::{Resolution, interval_at};
use gridprint_core::inputs::InputKey;
use gridprint_core::production::ProductionType;
use gridprint_core::slot::Slot;
use gridprint_core::tso_forecast::{TsoForecastKind, TsoForecastPoint, TsoForecastSeries};
use gridprint_core::zone::{ZoneCode, Zones};
use std::collections::BTreeMap;
use time::PrimitiveDateTime;
use time::format_description::BorrowedFormatItem;

/// The data views of the Transparency Platform website this module reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExportView {
    /// 16.1.B&C Actual Generation per Production Type (A75): `Area`, `MTU`, then
    /// `<type> - Actual Aggregated [MW]` and `<type> - Actual Consumption [MW]`.
    ActualGenerationPerType,
    /// 14.1.D Generation Forecasts for Wind and Solar (A69): `MTU (UTC)`, then
    /// `Generation - <type> [MW] <Day Ahead|Intraday|Current>/ BZN|<zone>`.
    WindSolarForecasts,
    /// 14.1.C Generation Forecast – Day ahead (A71): `MTU`, `Scheduled Generation [MW] (D) -
    /// BZN|<zone>`, `Scheduled Consumption [MW] (D) - BZN|<zone>`.
    DayAheadGenerationForecast,
    /// 6.1.A and 6.1.B Total Load – Day Ahead / Actual (A65): `Time (UTC)`, `Day-ahead Total Load
    /// Forecast [MW] - BZN|<zone>`, `Actual Total Load [MW] - BZN|<zone>`.
    TotalLoad,
}

/// The first column's name of each view's header (`gridprint_ingest::detect_format` sniffs it).
pub const EXPORT_FIRST_COLUMNS: [&str; 4] = ["Area", "MTU (UTC)", "MTU", "Time (UTC)"];

/// What one export holds.
#[derive(Debug, Clone, PartialEq)]
pub struct TransparencyExport {
    pub view: ExportView,
    pub zone: ZoneCode,
    /// The actual values, as the API parser returns them (kind [`DocumentKind::GenerationPerType`]
    /// or [`DocumentKind::ActualTotalLoad`], state official, datasource `ENTSO-E`); `None` for the
    /// forecast-only views (wind and solar, day-ahead generation).
    pub actuals: Option<ParsedDocument>,
    /// The forecasts, sorted by series, kind and slot, at most one per (series, kind, slot).
    pub forecasts: Vec<TsoForecastPoint>,
    /// Forecast values skipped, by reason and area (keys of [`crate::skip`]).
    pub forecasts_skipped: BTreeMap<String, usize>,
}

/// Parses one website export, mapping its zone to `zones`. `file` names it in errors.
pub fn parse(file: &str, bytes: &[u8], zones: &Zones) -> Result<TransparencyExport, ParseError> {
    let invalid = |line: u64, column: &str, message: String| ParseError::InvalidExport {
        file: file.to_string(),
        line,
        column: column.to_string(),
        message,
    };
    let csv_error = |e: csv::Error, column: &str| {
        let line = e.position().map_or(1, |p| p.line());
        invalid(line, column, e.to_string())
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| csv_error(e, "(header)"))?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect();
    let layout = Layout::detect(&headers).ok_or_else(|| {
        let record = csv::StringRecord::from(headers.clone());
        invalid(
            1,
            "(header)",
            format!(
                "unrecognised header [{}]: expected one of the views Actual Generation per \
                 Production Type, Generation Forecasts for Wind and Solar, Generation Forecast - \
                 Day ahead, Total Load - Day Ahead / Actual, exported with times in UTC",
                header_text(&record)
            ),
        )
    })?;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(e, "(row)"))?;
        let line = record.position().map_or(0, |p| p.line());
        if record.len() != headers.len() {
            return Err(invalid(
                line,
                "(row)",
                format!("{} fields, the header has {}", record.len(), headers.len()),
            ));
        }
        rows.push((line, record));
    }
    // The zone: named in the header, or (generation view) in the first row's Area cell.
    let (area, area_line, area_column) = match &layout.zone {
        ZoneSource::Header(area) => (area.clone(), 1, "(header)"),
        ZoneSource::Column(col) => {
            let Some((line, first)) = rows.first() else {
                return Err(invalid(
                    1,
                    "(header)",
                    "no data rows: this view names its zone only in the Area column".into(),
                ));
            };
            (first[*col].to_string(), *line, headers[*col].as_str())
        }
    };
    let zone = zone_of(&area, zones).map_err(|m| invalid(area_line, area_column, m))?;
    let zone = zones.code(zone).clone();
    let targets: Vec<(usize, Target)> = layout
        .columns
        .iter()
        .map(|(i, c)| (*i, c.target(&zone, &area)))
        .collect();

    let mut acc = Accumulator::default();
    let mut forecast_values = ForecastValues::default();
    let mut forecasts_skipped = BTreeMap::new();
    for (line, record) in &rows {
        let line = *line;
        if let ZoneSource::Column(col) = layout.zone
            && record[col] != area
        {
            return Err(invalid(
                line,
                &headers[col],
                format!(
                    "'{}': the file's first row names '{area}' (one zone per export)",
                    &record[col]
                ),
            ));
        }
        let mtu = &record[layout.time_column];
        let (first, resolution) = read_mtu(mtu, layout.utc_in_header)
            .map_err(|m| invalid(line, &headers[layout.time_column], m))?;
        for (col, target) in &targets {
            let value = match read_cell(&record[*col]) {
                Ok(Cell::NoSeries) => continue,
                Ok(Cell::NotAvailable) => None,
                Ok(Cell::Value(mw)) => Some(mw),
                Err(m) => return Err(invalid(line, &headers[*col], m)),
            };
            match target {
                Target::Actual { key, code } => match value {
                    None => acc.skip(skip::empty_value(&area), 1),
                    Some(mw) if mw < 0.0 => acc.skip(skip::negative_value(&area), 1),
                    Some(mw) => acc.put(key, code, first, resolution.slots(), mw, &area),
                },
                Target::NotRead(reason) => {
                    if value.is_some() {
                        acc.skip(reason.clone(), 1);
                    }
                }
                Target::Forecast(series, kind) => {
                    let reason = match value {
                        None => Some(skip::empty_value(&area)),
                        Some(mw) if mw < 0.0 => Some(skip::negative_value(&area)),
                        Some(mw) => forecast_values
                            .put(series, *kind, first, resolution.slots(), mw)
                            .then(|| skip::duplicate(&area)),
                    };
                    if let Some(reason) = reason {
                        skip::add(&mut forecasts_skipped, reason, 1);
                    }
                }
            }
        }
    }
    let actuals = layout.view.actual_kind().map(|kind| acc.finish(kind));
    let forecasts = forecast_values.finish();
    Ok(TransparencyExport {
        view: layout.view,
        zone,
        actuals,
        forecasts,
        forecasts_skipped,
    })
}

impl ExportView {
    /// The kind of the actual values a view holds, if any.
    fn actual_kind(self) -> Option<DocumentKind> {
        match self {
            ExportView::ActualGenerationPerType => Some(DocumentKind::GenerationPerType),
            ExportView::TotalLoad => Some(DocumentKind::ActualTotalLoad),
            ExportView::WindSolarForecasts | ExportView::DayAheadGenerationForecast => None,
        }
    }
}

/// The zone of an area as the website writes it (`BZN|DK1`): only bidding zones that are
/// gridprint zones.
fn zone_of(area: &str, zones: &Zones) -> Result<usize, String> {
    let code = area
        .strip_prefix("BZN|")
        .ok_or_else(|| format!("'{area}' is not a bidding zone (expected BZN|<zone>)"))?;
    zones
        .index_of_str(code)
        .ok_or_else(|| format!("'{area}': '{code}' is not a gridprint zone"))
}

/// `dd.mm.yyyy HH:MM`, as the website writes both ends of an MTU.
const MTU_TIME: &[BorrowedFormatItem<'_>] =
    time::macros::format_description!("[day].[month].[year] [hour]:[minute]");

/// The first slot and resolution of an MTU cell. The times must be UTC: marked ` (UTC)` in the
/// cell or in the column's name (`utc_in_header`).
fn read_mtu(text: &str, utc_in_header: bool) -> Result<(Slot, Resolution), String> {
    let (interval, marked) = match text.strip_suffix("(UTC)") {
        Some(rest) => (rest.trim_end(), true),
        None => (text, utc_in_header),
    };
    if !marked {
        return Err(format!(
            "'{text}' is not marked (UTC): export the view with times in UTC"
        ));
    }
    let expected = || format!("'{text}' is not an interval 'dd.mm.yyyy HH:MM - dd.mm.yyyy HH:MM'");
    let (start, end) = interval.split_once(" - ").ok_or_else(expected)?;
    let at = |s: &str| {
        PrimitiveDateTime::parse(s.trim(), MTU_TIME)
            .map(PrimitiveDateTime::assume_utc)
            .map_err(|_| expected())
    };
    interval_at(at(start)?, at(end)?, text)
}

/// What a value cell says.
enum Cell {
    /// `n/e`: the series does not exist in this zone.
    NoSeries,
    /// `N/A` or empty: the value is not available.
    NotAvailable,
    /// A number of MW.
    Value(f64),
}

/// Reads a value cell; an error is a message naming what it holds.
fn read_cell(text: &str) -> Result<Cell, String> {
    if text.eq_ignore_ascii_case("n/e") {
        return Ok(Cell::NoSeries);
    }
    if text.is_empty() || text.eq_ignore_ascii_case("N/A") {
        return Ok(Cell::NotAvailable);
    }
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(Cell::Value)
        .ok_or_else(|| format!("'{text}' is not a number, n/e or N/A"))
}

/// What a value column holds, before the zone is known.
#[derive(Debug, Clone, PartialEq)]
enum Column {
    /// Actual generation of a File Library production type name (`Fossil Hard coal`).
    Generation(String),
    /// Actual consumption of a production type (pumping): not read.
    Consumption,
    /// Actual total load.
    Load,
    /// A TSO forecast of wind or solar generation.
    WindSolar(ProductionType, TsoForecastKind),
    /// The day-ahead total load forecast.
    LoadForecast,
    ScheduledGeneration,
    ScheduledConsumption,
}

/// What becomes of a column's values.
enum Target {
    Actual {
        key: InputKey,
        code: String,
    },
    /// Counted under the skip key, never a point.
    NotRead(String),
    Forecast(TsoForecastSeries, TsoForecastKind),
}

impl Column {
    /// The target of the column's values in `zone`, whose area the file writes `area`.
    fn target(&self, zone: &ZoneCode, area: &str) -> Target {
        let forecast = |series, kind| Target::Forecast(series, kind);
        let zone = zone.clone();
        match self {
            Column::Generation(name) => match ProductionType::from_file_library_name(name) {
                Some(production_type) => Target::Actual {
                    key: InputKey::Generation {
                        zone,
                        production_type,
                    },
                    code: name.clone(),
                },
                None => Target::NotRead(skip::production_type(name)),
            },
            Column::Consumption => Target::NotRead(skip::consumption(area)),
            Column::Load => Target::Actual {
                key: InputKey::Load { zone },
                code: "load".to_string(),
            },
            Column::WindSolar(production_type, kind) => forecast(
                TsoForecastSeries::Generation {
                    zone,
                    production_type: *production_type,
                },
                *kind,
            ),
            Column::LoadForecast => {
                forecast(TsoForecastSeries::Load { zone }, TsoForecastKind::DayAhead)
            }
            Column::ScheduledGeneration => forecast(
                TsoForecastSeries::ScheduledGeneration { zone },
                TsoForecastKind::DayAhead,
            ),
            Column::ScheduledConsumption => forecast(
                TsoForecastSeries::ScheduledConsumption { zone },
                TsoForecastKind::DayAhead,
            ),
        }
    }
}

/// Where a view names its zone.
enum ZoneSource {
    /// In every value column's name (`… - BZN|DK1`).
    Header(String),
    /// In a column of every row (`Area`).
    Column(usize),
}

/// Where a view keeps its time, zone and values.
struct Layout {
    view: ExportView,
    time_column: usize,
    /// Whether the time column's name says `(UTC)`.
    utc_in_header: bool,
    zone: ZoneSource,
    columns: Vec<(usize, Column)>,
}

impl Layout {
    /// The layout of a header, or `None` when it is none of the four views (or its value columns
    /// name different areas).
    fn detect(headers: &[String]) -> Option<Layout> {
        let (first, rest) = headers.split_first()?;
        let values = |offset, read| value_columns(rest, offset, read);
        let (view, time_column, utc_in_header, area_column, ValueColumns { area, columns }) =
            match first.as_str() {
                "Area" if rest.first().map(String::as_str) == Some("MTU") => (
                    ExportView::ActualGenerationPerType,
                    1,
                    false,
                    Some(0),
                    values(1, actual_generation_column)?,
                ),
                "MTU (UTC)" => (
                    ExportView::WindSolarForecasts,
                    0,
                    true,
                    None,
                    values(0, wind_solar_column)?,
                ),
                "MTU" => (
                    ExportView::DayAheadGenerationForecast,
                    0,
                    false,
                    None,
                    values(0, scheduled_column)?,
                ),
                "Time (UTC)" => (
                    ExportView::TotalLoad,
                    0,
                    true,
                    None,
                    values(0, load_column)?,
                ),
                _ => return None,
            };
        let zone = match (area, area_column) {
            (Some(area), None) => ZoneSource::Header(area),
            (None, Some(col)) => ZoneSource::Column(col),
            _ => return None,
        };
        Some(Layout {
            view,
            time_column,
            utc_in_header,
            zone,
            columns,
        })
    }
}

/// Reads one value column's name: what it holds and the area it names, if it names one.
type ColumnReader = fn(&str) -> Option<(Column, Option<&str>)>;

/// The value columns of a header after its time column (`rest`, from `offset` on; indices count
/// from the header's start) and the one area they name; `None` when a name is not one `read`
/// knows, when two name different areas, or when there are none.
fn value_columns(rest: &[String], offset: usize, read: ColumnReader) -> Option<ValueColumns> {
    let mut area: Option<String> = None;
    let mut columns = Vec::new();
    for (i, h) in rest.iter().enumerate().skip(offset) {
        let (column, named) = read(h)?;
        if let Some(named) = named {
            match &area {
                Some(a) if a != named => return None,
                Some(_) => {}
                None => area = Some(named.to_string()),
            }
        }
        columns.push((i + 1, column));
    }
    (!columns.is_empty()).then_some(ValueColumns { area, columns })
}

/// The value columns of a header, by index, and the area they name.
struct ValueColumns {
    area: Option<String>,
    columns: Vec<(usize, Column)>,
}

/// `<type> - Actual Aggregated [MW]` or `<type> - Actual Consumption [MW]`.
fn actual_generation_column(h: &str) -> Option<(Column, Option<&str>)> {
    if let Some(name) = h.strip_suffix(" - Actual Aggregated [MW]") {
        return Some((Column::Generation(name.to_string()), None));
    }
    h.strip_suffix(" - Actual Consumption [MW]")
        .map(|_| (Column::Consumption, None))
}

/// `Generation - <type> [MW] <Day Ahead|Intraday|Current>/ BZN|<zone>` (the website writes no
/// space before the `/` after `Day Ahead` and one after `Intraday` and `Current`).
fn wind_solar_column(h: &str) -> Option<(Column, Option<&str>)> {
    let (name, rest) = h.strip_prefix("Generation - ")?.split_once(" [MW] ")?;
    let (kind, area) = rest.split_once('/')?;
    let kind = match kind.trim() {
        "Day Ahead" => TsoForecastKind::DayAhead,
        "Intraday" => TsoForecastKind::Intraday,
        "Current" => TsoForecastKind::Current,
        _ => return None,
    };
    let production_type = ProductionType::from_file_library_name(name)?;
    Some((Column::WindSolar(production_type, kind), Some(area.trim())))
}

/// `Scheduled Generation [MW] (D) - BZN|<zone>` or `Scheduled Consumption [MW] (D) - BZN|<zone>`.
fn scheduled_column(h: &str) -> Option<(Column, Option<&str>)> {
    if let Some(area) = h.strip_prefix("Scheduled Generation [MW] (D) - ") {
        return Some((Column::ScheduledGeneration, Some(area)));
    }
    h.strip_prefix("Scheduled Consumption [MW] (D) - ")
        .map(|area| (Column::ScheduledConsumption, Some(area)))
}

/// `Day-ahead Total Load Forecast [MW] - BZN|<zone>` or `Actual Total Load [MW] - BZN|<zone>`.
fn load_column(h: &str) -> Option<(Column, Option<&str>)> {
    if let Some(area) = h.strip_prefix("Day-ahead Total Load Forecast [MW] - ") {
        return Some((Column::LoadForecast, Some(area)));
    }
    h.strip_prefix("Actual Total Load [MW] - ")
        .map(|area| (Column::Load, Some(area)))
}
