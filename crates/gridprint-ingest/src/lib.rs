//! gridprint-ingest: how provider data gets into gridprint, as
//! [`InputPoint`](gridprint_core::inputs::InputPoint)s on 15-minute slots.
//!
//! - **Parsers** for the two ENTSO-E formats: Transparency Platform API documents ([`entsoe_xml`]:
//!   generation per type A75, total load A65, physical flows A11 and acknowledgements) and File
//!   Library extracts ([`file_library`]); [`detect_and_parse`] sniffs which one a payload is. Both
//!   produce a [`ParsedDocument`] that also counts, per reason and area, the values skipped
//!   ([`skip`]), so nothing is dropped silently; an invalid document yields a [`ParseError`] naming
//!   the series or row and the field, and no points at all. The website's "Export Data" CSV files
//!   ([`transparency_csv`]) also carry the TSOs' own forecasts, returned apart from the actual
//!   points; [`detect_format`] knows them, callers then name [`transparency_csv::parse`].
//! - **Provider clients**: ENTSO-E's REST API ([`entsoe_api`]), Elexon for Great Britain
//!   ([`elexon`]) and EPIAS for Türkiye ([`epias`]) behind one [`fetch::Fetcher`], sharing retries
//!   and request budgets ([`http`]), with the requests they answer ([`request`]); and cached
//!   provider health for the status endpoints ([`health`]). With the `testing` feature, `replay`
//!   answers like the Transparency Platform from recorded documents, for loopback test servers.
//!
//! This crate knows no store and no compute: what is done with the points — backfills, gap
//! estimates, the forecast, the worker cycle, imports — is `gridprint-pipeline`'s.

#![forbid(unsafe_code)]

mod accumulate;
mod document;
pub mod entsoe_xml;
mod error;
pub mod file_library;
pub mod skip;
mod time_grid;
pub mod transparency_csv;

pub mod elexon;
pub mod entsoe_api;
pub mod epias;
#[cfg(feature = "testing")]
pub mod epias_replay;
pub mod fetch;
pub mod health;
pub mod http;
mod reachability;
#[cfg(feature = "testing")]
pub mod replay;
pub mod request;

pub use document::{DocumentKind, ParsedDocument};
pub use error::ParseError;

use gridprint_core::zone::Zones;

/// The formats [`detect_and_parse`] recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputFormat {
    /// An ENTSO-E Transparency Platform API response (XML).
    EntsoeXml,
    /// An ENTSO-E File Library extract (tab-separated CSV with a header line).
    FileLibraryCsv,
    /// A Transparency Platform website export (comma-separated, quoted; [`transparency_csv`]).
    /// It carries TSO forecasts beside actual values, so [`detect_and_parse`] refuses it: read it
    /// with [`transparency_csv::parse`].
    TransparencyExport,
}

/// Guesses the format of a payload from its first bytes: XML starts with `<` (after an optional
/// byte-order mark and whitespace); a File Library extract starts with a tab-separated header line
/// naming a `DateTime` column; a website export with the quoted first column of one of its views
/// ([`transparency_csv::EXPORT_FIRST_COLUMNS`]). `None` when it is none of them.
pub fn detect_format(bytes: &[u8]) -> Option<InputFormat> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    let bytes = &bytes[start..];
    if bytes.first() == Some(&b'<') {
        return Some(InputFormat::EntsoeXml);
    }
    let line_end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    let header = &bytes[..line_end];
    if transparency_csv::EXPORT_FIRST_COLUMNS
        .iter()
        .any(|c| header.starts_with(format!("\"{c}\",").as_bytes()))
    {
        return Some(InputFormat::TransparencyExport);
    }
    let has_tab = header.contains(&b'\t');
    let names_datetime = header
        .split(|&b| b == b'\t')
        .any(|col| col.trim_ascii() == b"DateTime");
    (has_tab && names_datetime).then_some(InputFormat::FileLibraryCsv)
}

/// Parses an ENTSO-E payload of either format, mapping areas to `zones`.
///
/// Fails with [`ParseError::UnrecognisedFormat`] when the payload is neither XML nor a File Library
/// extract, and otherwise with the error of the format's parser.
pub fn detect_and_parse(bytes: &[u8], zones: &Zones) -> Result<ParsedDocument, ParseError> {
    match detect_format(bytes) {
        Some(InputFormat::EntsoeXml) => entsoe_xml::parse(bytes, zones),
        Some(InputFormat::FileLibraryCsv) => file_library::parse(bytes, zones),
        Some(InputFormat::TransparencyExport) => Err(ParseError::UnrecognisedFormat(
            "a Transparency Platform website export: its forecasts are read apart \
             (transparency_csv::parse)"
                .into(),
        )),
        None => {
            let head: String = String::from_utf8_lossy(&bytes[..bytes.len().min(40)])
                .chars()
                .filter(|c| !c.is_control())
                .collect();
            Err(ParseError::UnrecognisedFormat(format!(
                "neither ENTSO-E XML nor a tab-separated File Library extract (starts with {head:?})"
            )))
        }
    }
}
