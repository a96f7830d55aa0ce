//! The one error type of the parsers: why a provider document was rejected, with enough context
//! (document root, TimeSeries, Period and Point, or CSV file, line and column) to find the problem
//! in the file.
//!
//! A parser either returns every point of a document or this error and nothing: a half-read document
//! would look like complete data with gaps.

/// Why a document could not be imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The payload is neither XML nor a File Library extract.
    #[error("unrecognised input: {0}")]
    UnrecognisedFormat(String),

    /// The XML is not well-formed: not UTF-8, a syntax error, mismatched or missing end tags.
    #[error("malformed XML near byte {position}: {message}")]
    MalformedXml { position: u64, message: String },

    /// The root element is not one of the ENTSO-E documents gridprint reads.
    #[error(
        "unknown ENTSO-E document <{root}>: expected GL_MarketDocument, Publication_MarketDocument \
         or Acknowledgement_MarketDocument"
    )]
    UnknownDocument { root: String },

    /// A known document root whose type or process type gridprint does not import (e.g. a day-ahead
    /// price document, or a load forecast rather than actual load).
    #[error("unsupported {root}: {message}")]
    UnsupportedDocument { root: String, message: String },

    /// An acknowledgement whose reason is not "no matching data": ENTSO-E refused the query (too many
    /// documents requested, invalid parameters…). Code 999 is used for all of these, so the text
    /// decides.
    #[error("ENTSO-E rejected the request (reason code {code}): {text}")]
    Rejected { code: String, text: String },

    /// A TimeSeries with a missing or invalid field. `series` identifies it (`#ordinal` in the
    /// document, its mRID, psrType and area), `field` the element (`Period 1 / Point 7 / quantity`).
    #[error("TimeSeries {series}: {field}: {message}")]
    InvalidSeries {
        series: String,
        field: String,
        message: String,
    },

    /// A File Library header that is not AggregatedGenerationPerType or PhysicalFlows.
    #[error(
        "File Library CSV: unrecognised header [{header}]: expected the AggregatedGenerationPerType \
         or PhysicalFlows columns"
    )]
    UnknownCsvHeader { header: String },

    /// A File Library row that cannot be read; `line` is 1-based and counts the header.
    #[error("File Library CSV line {line}: {column}: {message}")]
    InvalidRow {
        line: u64,
        column: String,
        message: String,
    },

    /// A Transparency Platform website export ("Export Data" CSV) that cannot be read: `file` is
    /// the name the caller gave, `line` is 1-based (1 is the header), `column` the header's name of
    /// the field, or `(header)` and `(row)` for the whole line.
    #[error("Transparency Platform export {file}, line {line}: {column}: {message}")]
    InvalidExport {
        file: String,
        line: u64,
        column: String,
        message: String,
    },
}
