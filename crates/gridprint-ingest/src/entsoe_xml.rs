//! ENTSO-E Transparency Platform API documents (XML) → input points ([`parse`]) or, for the TSOs'
//! forecast documents A69, A65 with processType A01 and A71, forecast values ([`parse_forecast`]);
//! both read the XML and decode the series the same way, and neither accepts the other's documents.
//!
//! Three data documents are read: `GL_MarketDocument` of type A75 (actual generation per production
//! type) and A65 (actual total load), and `Publication_MarketDocument` of type A11 (physical flows,
//! `out_Domain` → `in_Domain`). An `Acknowledgement_MarketDocument` whose reason says "No matching
//! data" is a valid empty answer; any other acknowledgement is ENTSO-E refusing the query and an
//! error, as is every other root (the `hexagon_invalid.xml` fixture, an `Unknown_MarketDocument`, is
//! rejected even though it carries a reason: its root is not an ENTSO-E document, and taking it as
//! "no data" would record a window as answered when we did not understand the answer).
//!
//! In A75 documents generation series name their area in `inBiddingZone_Domain.mRID`; series with
//! `outBiddingZone_Domain.mRID` are consumption (pumping, auxiliary consumption) and are skipped and
//! counted — that is how the fixtures recorded from the live API look (pumped-storage B10 appears
//! once per direction, the `out` one with night-time pumping). Curve type A01 lists every position
//! (a missing one is missing data); A03 omits runs of equal values, so a missing position repeats
//! the previous value up to the end of the period. Every series is decoded and validated, including
//! those that are skipped, so that a document either imports whole or fails with a
//! [`ParseError`] naming the series and field.

use crate::accumulate::Accumulator;
use crate::document::{DocumentKind, ForecastValues, ParsedDocument};
use crate::error::ParseError;
use crate::skip;
use crate::time_grid::{RESOLUTIONS_ACCEPTED, Resolution, slot_at};
use gridprint_core::inputs::InputKey;
use gridprint_core::production::ProductionType;
use gridprint_core::slot::{Slot, parse_timestamp};
use gridprint_core::tso_forecast::{TsoForecastKind, TsoForecastPoint, TsoForecastSeries};
use gridprint_core::zone::{ZoneCode, Zones};
use quick_xml::events::Event;
use quick_xml::reader::Reader;
use std::collections::BTreeMap;
use time::OffsetDateTime;

/// Longest period accepted (ENTSO-E answers at most a year per query): guards against absurd
/// intervals in corrupt documents allocating without bound.
const MAX_PERIOD_SECONDS: i64 = 400 * 86_400;

/// Parses one ENTSO-E API response, mapping areas to `zones` by EIC code.
pub fn parse(bytes: &[u8], zones: &Zones) -> Result<ParsedDocument, ParseError> {
    let raw = read_document(bytes)?;
    interpret(&raw, zones)
}

/// A TSO forecast document: its values and when the document was made.
#[derive(Debug, Clone, PartialEq)]
pub struct ForecastDocument {
    /// Sorted by series, kind and slot, one per (series, kind, slot).
    pub forecasts: Vec<TsoForecastPoint>,
    /// The document's `createdDateTime`, when it has one.
    pub created: Option<OffsetDateTime>,
    /// Values skipped, by reason and area (keys of [`crate::skip`]).
    pub skipped: BTreeMap<String, usize>,
}

/// Parses one ENTSO-E API response holding TSO forecasts (never actual values): `GL_MarketDocument`
/// of type A69 (wind and solar generation; processType A01 day-ahead, A40 intraday, A18 current),
/// A65 with processType A01 (day-ahead total load) or A71 (day-ahead scheduled generation, and
/// the scheduled consumption the same document gives with `outBiddingZone_Domain`). "No matching
/// data" is a document without values; a document of actual values is an error, as
/// [`parse`] refuses these.
pub fn parse_forecast(bytes: &[u8], zones: &Zones) -> Result<ForecastDocument, ParseError> {
    let doc = read_document(bytes)?;
    let empty = |created| ForecastDocument {
        forecasts: Vec::new(),
        created,
        skipped: BTreeMap::new(),
    };
    let root = doc.root.as_str();
    let created = match doc.created.as_deref() {
        None => None,
        Some(t) => Some(
            parse_timestamp(t).map_err(|e| ParseError::UnsupportedDocument {
                root: root.to_string(),
                message: format!("createdDateTime: {e}"),
            })?,
        ),
    };
    match root {
        "Acknowledgement_MarketDocument" => return acknowledgement(&doc).map(|_| empty(created)),
        "GL_MarketDocument" if doc.series.is_empty() && doc.reason_code.is_some() => {
            return acknowledgement(&doc).map(|_| empty(created));
        }
        "GL_MarketDocument" => {}
        other => {
            return Err(ParseError::UnknownDocument {
                root: other.to_string(),
            });
        }
    }
    let unsupported = |message: String| ParseError::UnsupportedDocument {
        root: root.to_string(),
        message,
    };
    let doc_type = doc.doc_type.as_deref().unwrap_or("(none)");
    let process = doc.process_type.as_deref().unwrap_or("(none)");
    let family = match (doc_type, process) {
        ("A69", "A01") => ForecastFamily::WindSolar(TsoForecastKind::DayAhead),
        ("A69", "A40") => ForecastFamily::WindSolar(TsoForecastKind::Intraday),
        ("A69", "A18") => ForecastFamily::WindSolar(TsoForecastKind::Current),
        ("A65", "A01") => ForecastFamily::Load,
        ("A71", "A01") => ForecastFamily::Scheduled,
        _ => {
            return Err(unsupported(format!(
                "type {doc_type} with processType {process} is no TSO forecast gridprint reads \
                 (A69 with A01, A40 or A18; A65 with A01; A71 with A01)"
            )));
        }
    };
    let mut values = ForecastValues::default();
    let mut skipped = BTreeMap::new();
    for (i, series) in doc.series.iter().enumerate() {
        let label = series.label(i + 1);
        let invalid = |field: &str, message: String| ParseError::InvalidSeries {
            series: label.clone(),
            field: field.to_string(),
            message,
        };
        let decoded = decode_series(series, &label)?;
        let (in_zone, out_zone) = (&series.in_bidding_zone, &series.out_bidding_zone);
        let (eic, target) = match (family, in_zone, out_zone) {
            (_, Some(_), Some(_)) => {
                return Err(invalid(
                    "inBiddingZone_Domain.mRID",
                    "both inBiddingZone_Domain and outBiddingZone_Domain are given".into(),
                ));
            }
            (ForecastFamily::WindSolar(kind), Some(eic), None) => {
                let psr = series
                    .psr_type
                    .as_deref()
                    .ok_or_else(|| invalid("MktPSRType / psrType", "missing".into()))?;
                match ProductionType::from_psr_type(psr) {
                    Some(pt) => (eic, Ok((Some(pt), kind))),
                    None => (eic, Err(skip::psr_type(psr))),
                }
            }
            (ForecastFamily::Load, None, Some(eic))
            | (ForecastFamily::Scheduled, Some(eic), None)
            | (ForecastFamily::Scheduled, None, Some(eic)) => {
                (eic, Ok((None, TsoForecastKind::DayAhead)))
            }
            (ForecastFamily::Load, _, _) => {
                return Err(invalid("outBiddingZone_Domain.mRID", "missing".into()));
            }
            (_, _, _) => {
                return Err(invalid("inBiddingZone_Domain.mRID", "missing".into()));
            }
        };
        let Some(zone) = zone_of(zones, eic) else {
            skip::add(&mut skipped, skip::not_a_zone(eic), decoded.len());
            continue;
        };
        let (production_type, kind) = match target {
            Ok(t) => t,
            Err(reason) => {
                skip::add(&mut skipped, reason, decoded.len());
                continue;
            }
        };
        let forecast_series = match (family, production_type) {
            (_, Some(production_type)) => TsoForecastSeries::Generation {
                zone,
                production_type,
            },
            (ForecastFamily::Load | ForecastFamily::WindSolar(_), None) => {
                TsoForecastSeries::Load { zone }
            }
            (ForecastFamily::Scheduled, None) if in_zone.is_some() => {
                TsoForecastSeries::ScheduledGeneration { zone }
            }
            (ForecastFamily::Scheduled, None) => TsoForecastSeries::ScheduledConsumption { zone },
        };
        for v in decoded {
            let reason = if v.mw < 0.0 {
                Some(skip::negative_value(eic))
            } else {
                values
                    .put(&forecast_series, kind, v.first, v.n_slots, v.mw)
                    .then(|| skip::duplicate(eic))
            };
            if let Some(reason) = reason {
                skip::add(&mut skipped, reason, 1);
            }
        }
    }
    Ok(ForecastDocument {
        forecasts: values.finish(),
        created,
        skipped,
    })
}

/// Which forecast document a `GL_MarketDocument` is.
#[derive(Debug, Clone, Copy)]
enum ForecastFamily {
    /// A69: wind and solar per production type, of one kind.
    WindSolar(TsoForecastKind),
    /// A65 A01: day-ahead total load.
    Load,
    /// A71: day-ahead scheduled generation (and consumption).
    Scheduled,
}

// ---------------------------------------------------------------------------------------------------
// Reading: XML events → raw document (strings only, nothing interpreted yet).

#[derive(Debug, Default)]
struct RawDocument {
    root: String,
    doc_type: Option<String>,
    process_type: Option<String>,
    created: Option<String>,
    reason_code: Option<String>,
    reason_text: Option<String>,
    series: Vec<RawSeries>,
}

#[derive(Debug, Default)]
struct RawSeries {
    mrid: Option<String>,
    curve_type: Option<String>,
    unit: Option<String>,
    psr_type: Option<String>,
    in_bidding_zone: Option<String>,
    out_bidding_zone: Option<String>,
    in_domain: Option<String>,
    out_domain: Option<String>,
    periods: Vec<RawPeriod>,
}

#[derive(Debug, Default)]
struct RawPeriod {
    start: Option<String>,
    end: Option<String>,
    resolution: Option<String>,
    points: Vec<RawPoint>,
}

#[derive(Debug, Default)]
struct RawPoint {
    position: Option<String>,
    quantity: Option<String>,
}

impl RawSeries {
    /// Identifies the series in error messages: `#3 (mRID 3, psrType B04, 10YNL----------L)`.
    fn label(&self, ordinal: usize) -> String {
        let mut parts = Vec::new();
        if let Some(m) = &self.mrid {
            parts.push(format!("mRID {m}"));
        }
        if let Some(p) = &self.psr_type {
            parts.push(format!("psrType {p}"));
        }
        for area in [&self.in_bidding_zone, &self.out_bidding_zone]
            .into_iter()
            .flatten()
        {
            parts.push(area.clone());
        }
        if let (Some(o), Some(i)) = (&self.out_domain, &self.in_domain) {
            parts.push(skip::flow_area(o, i));
        }
        if parts.is_empty() {
            format!("#{ordinal}")
        } else {
            format!("#{ordinal} ({})", parts.join(", "))
        }
    }
}

fn malformed(position: u64, message: impl Into<String>) -> ParseError {
    ParseError::MalformedXml {
        position,
        message: message.into(),
    }
}

/// Reads the XML into a [`RawDocument`], checking well-formedness (one root, matching and complete
/// tags, known entities).
fn read_document(bytes: &[u8]) -> Result<RawDocument, ParseError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| malformed(e.valid_up_to() as u64, format!("not UTF-8: {e}")))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = Reader::from_str(text);
    reader.config_mut().expand_empty_elements = true;

    let mut doc = RawDocument::default();
    let mut stack: Vec<String> = Vec::new();
    let mut buf = String::new();
    let mut root_closed = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| malformed(reader.error_position(), e.to_string()))?;
        let pos = reader.buffer_position();
        match event {
            Event::Start(e) => {
                let name = e.local_name().into_inner().to_string();
                if stack.is_empty() {
                    if root_closed {
                        return Err(malformed(pos, format!("second root element <{name}>")));
                    }
                    doc.root = name.clone();
                }
                on_start(&mut doc, &stack, &name);
                stack.push(name);
                buf.clear();
            }
            Event::End(_) => {
                if stack.is_empty() {
                    return Err(malformed(pos, "end tag without start tag"));
                }
                on_end(&mut doc, &stack, buf.trim())?;
                stack.pop();
                buf.clear();
                root_closed |= stack.is_empty();
            }
            Event::Text(t) => {
                let content = t.xml10_content();
                if stack.is_empty() {
                    if !content.trim().is_empty() {
                        return Err(malformed(pos, "text outside the root element"));
                    }
                } else {
                    buf.push_str(&content);
                }
            }
            Event::CData(c) => {
                if stack.is_empty() {
                    return Err(malformed(pos, "CDATA outside the root element"));
                }
                buf.push_str(&c.xml10_content());
            }
            Event::GeneralRef(r) => {
                let ch = match r.resolve_char_ref() {
                    Ok(Some(ch)) => ch,
                    Ok(None) => match &*r {
                        "amp" => '&',
                        "lt" => '<',
                        "gt" => '>',
                        "quot" => '"',
                        "apos" => '\'',
                        other => return Err(malformed(pos, format!("unknown entity &{other};"))),
                    },
                    Err(e) => return Err(malformed(pos, e.to_string())),
                };
                if stack.is_empty() {
                    return Err(malformed(pos, "reference outside the root element"));
                }
                buf.push(ch);
            }
            Event::Eof => break,
            Event::Empty(_)
            | Event::Comment(_)
            | Event::Decl(_)
            | Event::PI(_)
            | Event::DocType(_) => {}
        }
    }
    if let Some(open) = stack.last() {
        return Err(malformed(
            text.len() as u64,
            format!("document ends inside <{open}> (truncated?)"),
        ));
    }
    if doc.root.is_empty() {
        return Err(malformed(0, "no root element"));
    }
    Ok(doc)
}

/// Opens the containers we collect into. `stack` holds the open elements, root first.
fn on_start(doc: &mut RawDocument, stack: &[String], name: &str) {
    let path: Vec<&str> = stack.iter().skip(1).map(String::as_str).collect();
    match (path.as_slice(), name) {
        ([], "TimeSeries") => doc.series.push(RawSeries::default()),
        (["TimeSeries"], "Period") => {
            if let Some(s) = doc.series.last_mut() {
                s.periods.push(RawPeriod::default());
            }
        }
        (["TimeSeries", "Period"], "Point") => {
            if let Some(p) = doc.series.last_mut().and_then(|s| s.periods.last_mut()) {
                p.points.push(RawPoint::default());
            }
        }
        _ => {}
    }
}

/// Stores the text of a closing leaf element we care about. `stack` still includes it.
fn on_end(doc: &mut RawDocument, stack: &[String], text: &str) -> Result<(), ParseError> {
    let path: Vec<&str> = stack.iter().skip(1).map(String::as_str).collect();
    let value = || Some(text.to_string());
    match path.as_slice() {
        ["type"] => doc.doc_type = value(),
        ["process.processType"] => doc.process_type = value(),
        ["createdDateTime"] => doc.created = value(),
        ["Reason", "code"] => doc.reason_code = value(),
        ["Reason", "text"] => doc.reason_text = value(),
        ["TimeSeries", rest @ ..] => {
            let ordinal = doc.series.len();
            let Some(series) = doc.series.last_mut() else {
                return Ok(());
            };
            let n_periods = series.periods.len();
            let field: Option<(&mut Option<String>, String)> = match rest {
                ["mRID"] => Some((&mut series.mrid, "mRID".into())),
                ["curveType"] => Some((&mut series.curve_type, "curveType".into())),
                ["quantity_Measure_Unit.name"] => {
                    Some((&mut series.unit, "quantity_Measure_Unit.name".into()))
                }
                ["MktPSRType", "psrType"] => Some((&mut series.psr_type, "psrType".into())),
                ["inBiddingZone_Domain.mRID"] => Some((
                    &mut series.in_bidding_zone,
                    "inBiddingZone_Domain.mRID".into(),
                )),
                ["outBiddingZone_Domain.mRID"] => Some((
                    &mut series.out_bidding_zone,
                    "outBiddingZone_Domain.mRID".into(),
                )),
                ["in_Domain.mRID"] => Some((&mut series.in_domain, "in_Domain.mRID".into())),
                ["out_Domain.mRID"] => Some((&mut series.out_domain, "out_Domain.mRID".into())),
                ["Period", leaf @ ..] => {
                    let Some(period) = series.periods.last_mut() else {
                        return Ok(());
                    };
                    let n_points = period.points.len();
                    match leaf {
                        ["resolution"] => Some((
                            &mut period.resolution,
                            format!("Period {n_periods} / resolution"),
                        )),
                        ["timeInterval", "start"] => Some((
                            &mut period.start,
                            format!("Period {n_periods} / timeInterval / start"),
                        )),
                        ["timeInterval", "end"] => Some((
                            &mut period.end,
                            format!("Period {n_periods} / timeInterval / end"),
                        )),
                        ["Point", which @ ("position" | "quantity")] => {
                            let Some(point) = period.points.last_mut() else {
                                return Ok(());
                            };
                            let target = if *which == "position" {
                                &mut point.position
                            } else {
                                &mut point.quantity
                            };
                            Some((
                                target,
                                format!("Period {n_periods} / Point {n_points} / {which}"),
                            ))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some((target, field)) = field {
                if target.is_some() {
                    // Labels need the series again; rebuild it after the mutable borrow ends.
                    let label = doc
                        .series
                        .last()
                        .map(|s| s.label(ordinal))
                        .unwrap_or_default();
                    return Err(ParseError::InvalidSeries {
                        series: label,
                        field,
                        message: "appears twice".into(),
                    });
                }
                *target = value();
            }
        }
        _ => {}
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------
// Interpreting: raw document → points.

/// One decoded value: its period, the position where its number was written (under A03 an earlier
/// position than the one it stands for) and the slots it covers.
#[derive(Debug, Clone, Copy)]
struct Decoded {
    period: usize,
    source_position: usize,
    first: Slot,
    n_slots: i64,
    mw: f64,
}

fn interpret(doc: &RawDocument, zones: &Zones) -> Result<ParsedDocument, ParseError> {
    let root = doc.root.as_str();
    let kind = match root {
        "Acknowledgement_MarketDocument" => return acknowledgement(doc),
        "GL_MarketDocument" | "Publication_MarketDocument" => {
            if doc.series.is_empty() && doc.reason_code.is_some() {
                return acknowledgement(doc);
            }
            let unsupported = |message: String| ParseError::UnsupportedDocument {
                root: root.to_string(),
                message,
            };
            let doc_type = doc
                .doc_type
                .as_deref()
                .ok_or_else(|| unsupported("no <type>".into()))?;
            let kind = match (root, doc_type) {
                ("GL_MarketDocument", "A75") => DocumentKind::GenerationPerType,
                ("GL_MarketDocument", "A65") => DocumentKind::ActualTotalLoad,
                ("Publication_MarketDocument", "A11") => DocumentKind::PhysicalFlows,
                _ => {
                    return Err(unsupported(format!(
                        "type {doc_type} (gridprint reads GL_MarketDocument A75 and A65, \
                         Publication_MarketDocument A11)"
                    )));
                }
            };
            if let Some(pt) = doc.process_type.as_deref().filter(|pt| *pt != "A16") {
                return Err(unsupported(format!(
                    "type {doc_type} with processType {pt}: only realised data (A16) is imported"
                )));
            }
            kind
        }
        other => {
            return Err(ParseError::UnknownDocument {
                root: other.to_string(),
            });
        }
    };

    let mut acc = Accumulator::default();
    for (i, series) in doc.series.iter().enumerate() {
        let label = series.label(i + 1);
        let invalid = |field: &str, message: String| ParseError::InvalidSeries {
            series: label.clone(),
            field: field.to_string(),
            message,
        };
        let values = decode_series(series, &label)?;
        match kind {
            DocumentKind::GenerationPerType => {
                let (eic, is_generation) = match (&series.in_bidding_zone, &series.out_bidding_zone)
                {
                    (Some(eic), None) => (eic, true),
                    (None, Some(eic)) => (eic, false),
                    (Some(_), Some(_)) => {
                        return Err(invalid(
                            "inBiddingZone_Domain.mRID",
                            "both inBiddingZone_Domain and outBiddingZone_Domain are given".into(),
                        ));
                    }
                    (None, None) => {
                        return Err(invalid(
                            "inBiddingZone_Domain.mRID",
                            "missing (a generation series names its area there)".into(),
                        ));
                    }
                };
                let psr = series
                    .psr_type
                    .as_deref()
                    .ok_or_else(|| invalid("MktPSRType / psrType", "missing".into()))?;
                if !is_generation {
                    acc.skip(skip::consumption(eic), values.len());
                    continue;
                }
                let Some(zone) = zone_of(zones, eic) else {
                    acc.skip(skip::not_a_zone(eic), values.len());
                    continue;
                };
                let Some(production_type) = ProductionType::from_psr_type(psr) else {
                    acc.skip(skip::psr_type(psr), values.len());
                    continue;
                };
                let key = InputKey::Generation {
                    zone,
                    production_type,
                };
                put_values(&mut acc, &key, psr, eic, &values);
            }
            DocumentKind::ActualTotalLoad => {
                let eic = series
                    .out_bidding_zone
                    .as_deref()
                    .ok_or_else(|| invalid("outBiddingZone_Domain.mRID", "missing".into()))?;
                let Some(zone) = zone_of(zones, eic) else {
                    acc.skip(skip::not_a_zone(eic), values.len());
                    continue;
                };
                put_values(&mut acc, &InputKey::Load { zone }, "load", eic, &values);
            }
            // Only PhysicalFlows gets here: the other kinds are never chosen above.
            DocumentKind::PhysicalFlows | DocumentKind::Acknowledgement | DocumentKind::Mixed => {
                let out_eic = series
                    .out_domain
                    .as_deref()
                    .ok_or_else(|| invalid("out_Domain.mRID", "missing".into()))?;
                let in_eic = series
                    .in_domain
                    .as_deref()
                    .ok_or_else(|| invalid("in_Domain.mRID", "missing".into()))?;
                if let Some(v) = values.iter().find(|v| v.mw < 0.0) {
                    return Err(invalid(
                        &format!(
                            "Period {} / Point {} / quantity",
                            v.period, v.source_position
                        ),
                        format!(
                            "negative flow {} MW (physical flows are reported per direction, \
                             non-negative)",
                            v.mw
                        ),
                    ));
                }
                let (from, to) = match (zone_of(zones, out_eic), zone_of(zones, in_eic)) {
                    (Some(from), Some(to)) => (from, to),
                    (None, _) => {
                        acc.skip(skip::not_a_zone(out_eic), values.len());
                        continue;
                    }
                    (_, None) => {
                        acc.skip(skip::not_a_zone(in_eic), values.len());
                        continue;
                    }
                };
                let area = skip::flow_area(out_eic, in_eic);
                if from == to {
                    acc.skip(skip::internal_flow(&area), values.len());
                    continue;
                }
                put_values(
                    &mut acc,
                    &InputKey::Flow { from, to },
                    "flow",
                    &area,
                    &values,
                );
            }
        }
    }
    Ok(acc.finish(kind))
}

/// An acknowledgement (or a data root carrying only a reason): "no matching data" is an empty
/// answer, any other reason a refusal.
fn acknowledgement(doc: &RawDocument) -> Result<ParsedDocument, ParseError> {
    let code = doc.reason_code.clone().unwrap_or_default();
    let text = doc.reason_text.clone().unwrap_or_default();
    if code == "999" && text.to_ascii_lowercase().contains("no matching data") {
        return Ok(ParsedDocument::empty(DocumentKind::Acknowledgement));
    }
    let or_none = |s: String| {
        if s.is_empty() {
            "(none)".to_string()
        } else {
            s
        }
    };
    Err(ParseError::Rejected {
        code: or_none(code),
        text: or_none(text),
    })
}

fn zone_of(zones: &Zones, eic: &str) -> Option<ZoneCode> {
    zones.index_of_eic(eic).map(|i| zones.code(i).clone())
}

/// Adds a series' values; negative values (generation, load) are skipped and counted.
fn put_values(acc: &mut Accumulator, key: &InputKey, code: &str, area: &str, values: &[Decoded]) {
    for v in values {
        if v.mw < 0.0 {
            acc.skip(skip::negative_value(area), 1);
        } else {
            acc.put(key, code, v.first, v.n_slots, v.mw, area);
        }
    }
}

/// Decodes and validates every period of a series into values on the slot grid.
fn decode_series(series: &RawSeries, label: &str) -> Result<Vec<Decoded>, ParseError> {
    let invalid = |field: String, message: String| ParseError::InvalidSeries {
        series: label.to_string(),
        field,
        message,
    };
    let a03 = match series.curve_type.as_deref() {
        None | Some("A01") => false,
        Some("A03") => true,
        Some(other) => {
            return Err(invalid(
                "curveType".into(),
                format!("'{other}' is not supported (expected A01 or A03)"),
            ));
        }
    };
    if let Some(unit) = series.unit.as_deref().filter(|u| *u != "MAW") {
        return Err(invalid(
            "quantity_Measure_Unit.name".into(),
            format!("'{unit}' is not MAW (MW)"),
        ));
    }
    let mut out = Vec::new();
    for (pi, period) in series.periods.iter().enumerate() {
        let pn = pi + 1;
        let field = |leaf: &str| format!("Period {pn} / {leaf}");
        let timestamp = |value: &Option<String>, leaf: &str| -> Result<Slot, ParseError> {
            let s = value
                .as_deref()
                .ok_or_else(|| invalid(field(leaf), "missing".into()))?;
            slot_at(s).map_err(|m| invalid(field(leaf), m))
        };
        let start = timestamp(&period.start, "timeInterval / start")?;
        let end = timestamp(&period.end, "timeInterval / end")?;
        let res_text = period
            .resolution
            .as_deref()
            .ok_or_else(|| invalid(field("resolution"), "missing".into()))?;
        let res = Resolution::parse(res_text).ok_or_else(|| {
            invalid(
                field("resolution"),
                format!("'{res_text}' is not supported ({RESOLUTIONS_ACCEPTED})"),
            )
        })?;
        let seconds = end.unix() - start.unix();
        if seconds <= 0 || seconds > MAX_PERIOD_SECONDS {
            return Err(invalid(
                field("timeInterval"),
                format!("{start} to {end} is not a positive period of at most 400 days"),
            ));
        }
        if seconds % res.seconds() != 0 {
            return Err(invalid(
                field("timeInterval"),
                format!("{start} to {end} is not a whole number of {res_text} intervals"),
            ));
        }
        let n = (seconds / res.seconds()) as usize;
        let mut given: Vec<Option<(f64, usize)>> = vec![None; n];
        for (qi, point) in period.points.iter().enumerate() {
            let point_field = |leaf: &str| format!("Period {pn} / Point {} / {leaf}", qi + 1);
            let pos_text = point
                .position
                .as_deref()
                .ok_or_else(|| invalid(point_field("position"), "missing".into()))?;
            let position: usize = pos_text
                .parse()
                .ok()
                .filter(|p| (1..=n).contains(p))
                .ok_or_else(|| {
                    invalid(
                        point_field("position"),
                        format!("'{pos_text}' is not a position between 1 and {n}"),
                    )
                })?;
            let qty_text = point
                .quantity
                .as_deref()
                .ok_or_else(|| invalid(point_field("quantity"), "missing".into()))?;
            let mw = qty_text
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    invalid(
                        point_field("quantity"),
                        format!("'{qty_text}' is not a number"),
                    )
                })?;
            let cell = &mut given[position - 1];
            if cell.is_some() {
                return Err(invalid(
                    point_field("position"),
                    format!("position {position} appears twice"),
                ));
            }
            *cell = Some((mw, position));
        }
        let mut carried: Option<(f64, usize)> = None;
        for (i, cell) in given.into_iter().enumerate() {
            let value = match cell {
                Some(v) => {
                    carried = Some(v);
                    Some(v)
                }
                None if a03 => carried,
                None => None,
            };
            if let Some((mw, source_position)) = value {
                out.push(Decoded {
                    period: pn,
                    source_position,
                    first: start.offset(i as i64 * res.slots()),
                    n_slots: res.slots(),
                    mw,
                });
            }
        }
    }
    Ok(out)
}
