//! The `Gridprint-Ignored` response header: what a data request named that had no effect.
//!
//! Typos are answered as before (unknown parameters are ignored, unknown zone codes select nothing,
//! a repeated single-valued parameter takes its last value, as on the reference service), but the
//! answer says what was ignored, so a client can notice `footprint_typ=water` or `zone=XX`:
//!
//! ```text
//! Gridprint-Ignored: param=footprint_typ, zone=XX, earlier=zone%3DES
//! ```
//!
//! `param=NAME` an unknown parameter, `zone=CODE` an unknown code of `zone` (or of a partner
//! `*_zone`), `earlier=NAME%3DVALUE` a value a later occurrence overrode. Names and values are
//! percent-encoded (RFC 3986 unreserved characters kept), so the header is plain ASCII; at most
//! [`MAX_ITEMS`] items. The known names are the endpoint's published parameters (its OpenAPI
//! description), so the header and the documentation cannot disagree.

use axum::http::{HeaderName, HeaderValue};
use gridprint_core::zone::{ZoneCode, Zones};
use gridprint_responses::query::QueryParams;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// The header's name.
pub const GRIDPRINT_IGNORED: HeaderName = HeaderName::from_static("gridprint-ignored");

/// At most this many items are named (a hostile query string cannot make the header large).
pub const MAX_ITEMS: usize = 20;

/// Longest name or value echoed, in characters (longer ones are cut).
const MAX_CHARS: usize = 64;

/// Everything but RFC 3986 unreserved characters is encoded.
const ENCODE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn enc(s: &str) -> String {
    let cut: String = s.chars().take(MAX_CHARS).collect();
    utf8_percent_encode(&cut, ENCODE).to_string()
}

/// The items for a request with these `pairs`, given the endpoint's `known` parameter names and the
/// zone set (empty when nothing was ignored). Without a zone set (routes that answer an unknown zone
/// with 404, such as the Electricity Maps routes) zone codes are not checked.
pub fn ignored(pairs: &[(String, String)], known: &[String], zones: Option<&Zones>) -> Vec<String> {
    let p = QueryParams::new(pairs);
    // Every data request passes here: nothing is allocated unless something is named.
    let mut out = Vec::new();
    for name in p.names() {
        if out.len() >= MAX_ITEMS {
            break;
        }
        if !known.iter().any(|k| k == name) {
            out.push(format!("param={}", enc(name)));
            continue;
        }
        if name != "format" {
            for v in p.overridden(name) {
                out.push(format!("earlier={}", enc(&format!("{name}={v}"))));
            }
        }
        if let Some(zones) = zones.filter(|_| is_zone_param(name)) {
            for code in unknown_codes(p.value(name).unwrap_or(""), zones) {
                out.push(format!("zone={}", enc(code)));
            }
        }
    }
    out.truncate(MAX_ITEMS);
    out
}

/// `zone` or a partner's `*_zone`.
fn is_zone_param(name: &str) -> bool {
    name == "zone" || name.ends_with("_zone")
}

/// The codes of a comma-separated `zone` value that name no zone (empty items are not codes).
fn unknown_codes<'v>(value: &'v str, zones: &Zones) -> impl Iterator<Item = &'v str> {
    value.split(',').map(str::trim).filter(|code| {
        !code.is_empty() && ZoneCode::parse(code).is_none_or(|c| zones.index_of(&c).is_none())
    })
}

/// The header value for `items`, if any.
pub fn header_value(items: &[String]) -> Option<HeaderValue> {
    if items.is_empty() {
        return None;
    }
    HeaderValue::from_str(&items.join(", ")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(q: &str) -> Vec<(String, String)> {
        q.split('&')
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                (k.to_string(), v.to_string())
            })
            .collect()
    }

    #[test]
    fn names_unknown_parameters_codes_and_overridden_values() {
        let zones = gridprint_core::reference::ReferenceData::embedded(
            gridprint_core::reference::ZoneSet::Selected2026,
        )
        .zones;
        let known: Vec<String> = [
            "zone",
            "lat",
            "lon",
            "start",
            "end",
            "footprint_type",
            "format",
        ]
        .map(String::from)
        .to_vec();
        let got = ignored(
            &pairs("zone=ES&zone=FR,XX&footprint_typ=water&x y=1"),
            &known,
            Some(&zones),
        );
        assert_eq!(
            got,
            [
                "earlier=zone%3DES",
                "zone=XX",
                "param=footprint_typ",
                "param=x%20y"
            ]
        );
        assert_eq!(
            header_value(&got).unwrap(),
            "earlier=zone%3DES, zone=XX, param=footprint_typ, param=x%20y"
        );
        assert!(
            ignored(
                &pairs("zone=es,FR&start=2024-06-15&end=2024-06-16"),
                &known,
                Some(&zones)
            )
            .is_empty()
        );
        assert!(header_value(&[]).is_none());
        let many = (0..100)
            .map(|i| format!("p{i}=1"))
            .collect::<Vec<_>>()
            .join("&");
        assert_eq!(
            ignored(&pairs(&many), &known, Some(&zones)).len(),
            MAX_ITEMS
        );
        assert_eq!(ignored(&pairs("zone=XX&x=1"), &known, None), ["param=x"]);
    }
}
