//! The representation of a data or status answer: JSON or CSV, chosen by the `format` parameter or
//! else by `Accept` (docs/api.md §2, §7), and the query pairs a request carries.

use crate::http::error::ApiError;
use axum::http::{HeaderMap, HeaderValue, header};
use gridprint_responses::query::QueryParams;
use gridprint_responses::{Format, FormatParam};

/// Media type of CSV answers.
pub const CSV: &str = "text/csv; charset=utf-8";

/// The query pairs of a request, percent-decoded, in order.
pub(crate) fn pairs_of(query: Option<&str>) -> Result<Vec<(String, String)>, ApiError> {
    serde_urlencoded::from_str::<Vec<(String, String)>>(query.unwrap_or(""))
        .map_err(|e| ApiError::bad_request(format!("unreadable query string: {e}")))
}

pub(crate) fn format_from(
    pairs: &[(String, String)],
    headers: &HeaderMap,
) -> Result<Format, ApiError> {
    if let Some(format) = FormatParam::from_pairs(&QueryParams::new(pairs))?.format {
        return Ok(format);
    }
    // The first of text/csv or application/json named in Accept (with q > 0) decides.
    for accept in headers.get_all(header::ACCEPT) {
        let Ok(accept) = accept.to_str() else {
            continue;
        };
        for range in accept.split(',') {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            if refused {
                continue;
            }
            match media.as_str() {
                "text/csv" => return Ok(Format::Csv),
                "application/json" => return Ok(Format::Json),
                _ => {}
            }
        }
    }
    Ok(Format::Json)
}

/// The format a request asks for (`format` parameter, else `Accept`).
pub(crate) fn format_of(query: Option<&str>, headers: &HeaderMap) -> Result<Format, ApiError> {
    format_from(&pairs_of(query)?, headers)
}

pub(crate) fn content_type(format: Format) -> HeaderValue {
    HeaderValue::from_static(match format {
        Format::Json => "application/json",
        Format::Csv => CSV,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The pairs of a query string (tests of this crate).
    pub(crate) fn pairs(s: &str) -> Vec<(String, String)> {
        pairs_of(Some(s)).unwrap()
    }

    #[test]
    fn format_from_parameter_then_accept() {
        let prefers_csv = Some("text/csv;q=0.9, application/json");
        // (query, Accept, the format or None: refused)
        let cases = [
            ("zone=ES", None, Some(Format::Json)),
            ("format=CSV", None, Some(Format::Csv)),
            ("format=xml", None, None),
            ("format=", None, None),
            ("format=xml&format=csv", None, Some(Format::Csv)),
            ("", prefers_csv, Some(Format::Csv)),
            ("format=json", prefers_csv, Some(Format::Json)),
            ("", Some("text/csv;q=0, */*"), Some(Format::Json)),
        ];
        for (query, accept, expected) in cases {
            let mut h = HeaderMap::new();
            if let Some(a) = accept {
                h.insert(header::ACCEPT, HeaderValue::from_static(a));
            }
            let format = format_from(&pairs(query), &h).ok();
            assert_eq!(format, expected, "{query} {accept:?}");
        }
    }
}
