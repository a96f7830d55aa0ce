//! ENTSO-E File Library extracts (tab-separated CSV) → input points.
//!
//! Two extracts are read, recognised by their header: AggregatedGenerationPerType (`DateTime,
//! ResolutionCode, AreaCode, AreaTypeCode, AreaName, MapCode, ProductionType,
//! ActualGenerationOutput, ActualConsumption, UpdateTime`) and PhysicalFlows (`DateTime,
//! ResolutionCode, OutAreaCode, OutAreaTypeCode, OutAreaName, OutMapCode, InAreaCode,
//! InAreaTypeCode, InAreaName, InMapCode, FlowValue, UpdateTime`). `DateTime` is UTC and starts the
//! interval of `ResolutionCode` (PT15M, PT30M, PT60M), which is spread over 15-minute slots.
//!
//! Areas map to zones by EIC code (`AreaCode`). The same zone often appears several times: as a
//! country (CTY), a bidding zone (BZN) and a control area (CTA) — Austria's control area even has
//! the country's EIC. Per zone (for flows: per pair of zones) only the best area type present in the
//! file is used, BZN before CTY before CTA; the other rows are skipped and counted as
//! `superseded-<TYPE>`. So control-area rows count only where nothing better exists and their EIC is
//! a zone (France→GB is only published between control areas in 2017, the country row names the UK
//! country code, which is not a zone). Rows of areas that are not zones (IT, NO, SE, DK country
//! totals, German TSO control areas) and rows without a value are skipped and counted by area.
//! `ActualConsumption` is not read. Every row is validated (timestamp, resolution, numbers) even when
//! skipped; a negative flow is an error.

use crate::accumulate::Accumulator;
use crate::document::{DocumentKind, ParsedDocument};
use crate::error::ParseError;
use crate::skip;
use crate::time_grid::{RESOLUTIONS_ACCEPTED, Resolution, slot_at};
use gridprint_core::inputs::InputKey;
use gridprint_core::production::ProductionType;
use gridprint_core::slot::Slot;
use gridprint_core::zone::Zones;
use std::collections::HashMap;

/// Parses one File Library extract, mapping areas to `zones` by EIC code.
pub fn parse(bytes: &[u8], zones: &Zones) -> Result<ParsedDocument, ParseError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let headers = reader
        .headers()
        .map_err(|e| row_error(&e, "header"))?
        .clone();
    let layout = Layout::detect(&headers)?;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| row_error(&e, "row"))?;
        let line = record.position().map_or(0, |p| p.line());
        rows.push((line, record));
    }
    match layout {
        Layout::Generation(cols) => parse_generation(&rows, &cols, zones),
        Layout::Flows(cols) => parse_flows(&rows, &cols, zones),
    }
}

fn row_error(e: &csv::Error, what: &str) -> ParseError {
    ParseError::InvalidRow {
        line: e.position().map_or(0, |p| p.line()),
        column: format!("({what})"),
        message: e.to_string(),
    }
}

/// The columns every layout has: time, resolution and value (and the value column's name).
struct ValueColumns {
    datetime: usize,
    resolution: usize,
    value: usize,
    value_name: &'static str,
}

impl ValueColumns {
    fn find(col: &dyn Fn(&str) -> Option<usize>, value_name: &'static str) -> Option<ValueColumns> {
        Some(ValueColumns {
            datetime: col("DateTime")?,
            resolution: col("ResolutionCode")?,
            value: col(value_name)?,
            value_name,
        })
    }
}

struct GenerationColumns {
    values: ValueColumns,
    area: usize,
    area_type: usize,
    production_type: usize,
}

struct FlowColumns {
    values: ValueColumns,
    out_area: usize,
    out_type: usize,
    in_area: usize,
    in_type: usize,
}

enum Layout {
    Generation(GenerationColumns),
    Flows(FlowColumns),
}

impl Layout {
    fn detect(headers: &csv::StringRecord) -> Result<Layout, ParseError> {
        let col = |name: &str| {
            headers
                .iter()
                .position(|h| h.trim_start_matches('\u{feff}') == name)
        };
        let generation = || {
            Some(GenerationColumns {
                values: ValueColumns::find(&col, "ActualGenerationOutput")?,
                area: col("AreaCode")?,
                area_type: col("AreaTypeCode")?,
                production_type: col("ProductionType")?,
            })
        };
        let flows = || {
            Some(FlowColumns {
                values: ValueColumns::find(&col, "FlowValue")?,
                out_area: col("OutAreaCode")?,
                out_type: col("OutAreaTypeCode")?,
                in_area: col("InAreaCode")?,
                in_type: col("InAreaTypeCode")?,
            })
        };
        if let Some(c) = generation() {
            return Ok(Layout::Generation(c));
        }
        if let Some(c) = flows() {
            return Ok(Layout::Flows(c));
        }
        Err(ParseError::UnknownCsvHeader {
            header: header_text(headers),
        })
    }
}

/// A CSV header for an error message: its names joined by `, `, cut after 300 bytes.
pub(crate) fn header_text(headers: &csv::StringRecord) -> String {
    let mut header = headers.iter().collect::<Vec<_>>().join(", ");
    if header.len() > 300 {
        let cut = (0..=300)
            .rev()
            .find(|&i| header.is_char_boundary(i))
            .unwrap_or(0);
        header.truncate(cut);
        header.push('…');
    }
    header
}

/// Preference of an area type: lower is better.
fn area_rank(code: &str) -> Option<u8> {
    match code {
        "BZN" => Some(0),
        "CTY" => Some(1),
        "CTA" => Some(2),
        _ => None,
    }
}

/// The validated time and value of a row.
struct RowValues {
    slot: Slot,
    resolution: Resolution,
    /// `None` for an empty field.
    value: Option<f64>,
}

fn read_row(
    line: u64,
    record: &csv::StringRecord,
    columns: &ValueColumns,
) -> Result<RowValues, ParseError> {
    let ValueColumns {
        datetime,
        resolution,
        value,
        value_name,
    } = *columns;
    let invalid = |column: &str, message: String| ParseError::InvalidRow {
        line,
        column: column.to_string(),
        message,
    };
    let field = |i: usize| record.get(i).unwrap_or("");
    let slot = slot_at(field(datetime)).map_err(|m| invalid("DateTime", m))?;
    let res_text = field(resolution);
    let resolution = Resolution::parse(res_text).ok_or_else(|| {
        invalid(
            "ResolutionCode",
            format!("'{res_text}' is not supported ({RESOLUTIONS_ACCEPTED})"),
        )
    })?;
    let value_text = field(value);
    let value = if value_text.is_empty() {
        None
    } else {
        Some(
            value_text
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| invalid(value_name, format!("'{value_text}' is not a number")))?,
        )
    };
    Ok(RowValues {
        slot,
        resolution,
        value,
    })
}

/// Per key, the best (lowest) rank of the rows that `rank` gives a key and a rank.
fn best_ranks<K: std::hash::Hash + Eq>(
    rows: &[(u64, csv::StringRecord)],
    rank: impl Fn(&csv::StringRecord) -> Option<(K, u8)>,
) -> HashMap<K, u8> {
    let mut best = HashMap::new();
    for (key, r) in rows.iter().filter_map(|(_, record)| rank(record)) {
        best.entry(key)
            .and_modify(|b: &mut u8| *b = (*b).min(r))
            .or_insert(r);
    }
    best
}

fn parse_generation(
    rows: &[(u64, csv::StringRecord)],
    cols: &GenerationColumns,
    zones: &Zones,
) -> Result<ParsedDocument, ParseError> {
    let field = |r: &csv::StringRecord, i: usize| r.get(i).unwrap_or("").to_string();
    let best = best_ranks(rows, |r| {
        let z = zones.index_of_eic(&field(r, cols.area))?;
        Some((z, area_rank(&field(r, cols.area_type))?))
    });
    let mut acc = Accumulator::default();
    for (line, r) in rows {
        let v = read_row(*line, r, &cols.values)?;
        let (area, area_type, name) = (
            field(r, cols.area),
            field(r, cols.area_type),
            field(r, cols.production_type),
        );
        let Some(z) = zones.index_of_eic(&area) else {
            acc.skip(skip::not_a_zone(&area), 1);
            continue;
        };
        let Some(rank) = area_rank(&area_type) else {
            acc.skip(skip::area_type(&area_type), 1);
            continue;
        };
        if best.get(&z).is_some_and(|&b| rank > b) {
            acc.skip(skip::superseded(&area_type, &area), 1);
            continue;
        }
        let Some(production_type) = ProductionType::from_file_library_name(&name) else {
            acc.skip(skip::production_type(&name), 1);
            continue;
        };
        let Some(mw) = v.value else {
            acc.skip(skip::empty_value(&area), 1);
            continue;
        };
        if mw < 0.0 {
            acc.skip(skip::negative_value(&area), 1);
            continue;
        }
        let key = InputKey::Generation {
            zone: zones.code(z).clone(),
            production_type,
        };
        acc.put(&key, &name, v.slot, v.resolution.slots(), mw, &area);
    }
    Ok(acc.finish(DocumentKind::GenerationPerType))
}

fn parse_flows(
    rows: &[(u64, csv::StringRecord)],
    cols: &FlowColumns,
    zones: &Zones,
) -> Result<ParsedDocument, ParseError> {
    let field = |r: &csv::StringRecord, i: usize| r.get(i).unwrap_or("").to_string();
    // Rank of a row: its worse end (a CTY→CTA row is a control-area row).
    let rank_of = |r: &csv::StringRecord| -> Result<(u8, String), String> {
        let (o, i) = (field(r, cols.out_type), field(r, cols.in_type));
        let ro = area_rank(&o).ok_or_else(|| o.clone())?;
        let ri = area_rank(&i).ok_or_else(|| i.clone())?;
        Ok(if ro >= ri { (ro, o) } else { (ri, i) })
    };
    let best = best_ranks(rows, |r| {
        let from = zones.index_of_eic(&field(r, cols.out_area))?;
        let to = zones.index_of_eic(&field(r, cols.in_area))?;
        Some(((from, to), rank_of(r).ok()?.0))
    });
    let mut acc = Accumulator::default();
    for (line, r) in rows {
        let v = read_row(*line, r, &cols.values)?;
        if let Some(mw) = v.value.filter(|mw| *mw < 0.0) {
            return Err(ParseError::InvalidRow {
                line: *line,
                column: "FlowValue".into(),
                message: format!(
                    "negative flow {mw} MW (physical flows are reported per direction, non-negative)"
                ),
            });
        }
        let (out_eic, in_eic) = (field(r, cols.out_area), field(r, cols.in_area));
        let (from, to) = match (zones.index_of_eic(&out_eic), zones.index_of_eic(&in_eic)) {
            (Some(from), Some(to)) => (from, to),
            (None, _) => {
                acc.skip(skip::not_a_zone(&out_eic), 1);
                continue;
            }
            (_, None) => {
                acc.skip(skip::not_a_zone(&in_eic), 1);
                continue;
            }
        };
        let (rank, type_code) = match rank_of(r) {
            Ok(x) => x,
            Err(code) => {
                acc.skip(skip::area_type(&code), 1);
                continue;
            }
        };
        let area = skip::flow_area(&out_eic, &in_eic);
        if from == to {
            acc.skip(skip::internal_flow(&area), 1);
            continue;
        }
        if best.get(&(from, to)).is_some_and(|&b| rank > b) {
            acc.skip(skip::superseded(&type_code, &area), 1);
            continue;
        }
        let Some(mw) = v.value else {
            acc.skip(skip::empty_value(&area), 1);
            continue;
        };
        let key = InputKey::Flow {
            from: zones.code(from).clone(),
            to: zones.code(to).clone(),
        };
        acc.put(&key, "flow", v.slot, v.resolution.slots(), mw, &area);
    }
    Ok(acc.finish(DocumentKind::PhysicalFlows))
}
