//! The tags of data requests answered before, found again by the request as sent: its path, whether
//! it is the CSV twin, its `Accept` header, its query string byte for byte, the current slot and the
//! data version. A request seen again goes from this memo to the response cache without reading its
//! query (no typed parse, no `Gridprint-Ignored` scan, no SHA-256 tag), a good part of the cost of
//! a cached answer (docs/performance.md).
//!
//! Everything the tag, the format and the header depend on is in the key (the parse reads "now" only
//! by its slot), so a hit names what the full path in [`crate::v1::answer`] would compute; a miss, or a
//! body evicted since, takes the full path, which fills the memo again once the answer is kept (a
//! request answered once, as in a flood of distinct windows, is not memoized). Errors are never kept.
//! Bounded by bytes and entries like the response cache ([`crate::kept::response_cache::ResponseCache`]).

use crate::kept::response_cache::{ResponseCache, Weigh};
use axum::http::{HeaderMap, HeaderValue, header};
use gridprint_core::slot::Slot;
use std::fmt::Write;
use std::sync::Arc;

/// Bytes of keys and tags the memo holds at most (when the response cache is on): some thousands
/// of requests; a flood of distinct ones only turns it over.
pub const MEMO_BYTES: usize = 2 << 20;

/// What a request's full reading produced, kept under its [`key`].
#[derive(Debug)]
pub struct Tagged {
    /// The entity tag: the response-cache key of a final answer.
    pub etag: String,
    /// The response-cache key of an answer that can still change.
    pub changing: String,
    /// The `Gridprint-Ignored` header value, when something was ignored.
    pub ignored: Option<HeaderValue>,
    /// Bytes of the key (held twice by the cache: its map and its recency order), the strings
    /// above and the entry, against [`MEMO_BYTES`].
    weight: usize,
}

impl Tagged {
    /// A kept reading; `key` is the memo key it will be kept under (its length is weighed).
    pub fn new(
        key: &str,
        etag: String,
        changing: String,
        ignored: Option<HeaderValue>,
    ) -> Arc<Tagged> {
        let weight = 2 * key.len()
            + etag.len()
            + changing.len()
            + ignored.as_ref().map_or(0, |v| v.len())
            + std::mem::size_of::<Tagged>();
        Arc::new(Tagged {
            etag,
            changing,
            ignored,
            weight,
        })
    }
}

impl Weigh for Arc<Tagged> {
    fn weight(&self) -> usize {
        self.weight
    }
}

/// The memo: readings by [`key`].
pub type TagMemo = ResponseCache<Arc<Tagged>>;

/// A memo bounded by [`MEMO_BYTES`], or one that keeps nothing when the response cache is off
/// (`enabled` false: a memo hit would find no body anyway).
pub fn tag_memo(enabled: bool) -> TagMemo {
    TagMemo::with_max_bytes(if enabled { MEMO_BYTES } else { 0 })
}

/// The memo key of a request: fields joined by newlines, which neither a request target nor a
/// header value can hold; the query string comes last but one field per `Accept` value follows it,
/// each after its own newline, so no two requests share a key. `None` when an `Accept` value is not
/// visible ASCII (such a request takes the full path).
pub fn key(
    path: &str,
    csv: bool,
    headers: &HeaderMap,
    query: Option<&str>,
    slot: Slot,
    data_version: i64,
) -> Option<String> {
    let query = query.unwrap_or("");
    let mut key = String::with_capacity(path.len() + query.len() + 48);
    // Writing to a String cannot fail.
    let _ = write!(
        key,
        "{path}\n{}\n{}\n{data_version}\n{query}",
        u8::from(csv),
        slot.0
    );
    for accept in headers.get_all(header::ACCEPT) {
        key.push('\n');
        key.push_str(accept.to_str().ok()?);
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(header::ACCEPT, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn keys_differ_in_every_field() {
        let none = HeaderMap::new();
        let k = |path, csv, h: &HeaderMap, q, slot, v| key(path, csv, h, q, Slot(slot), v).unwrap();
        let base = k("/v1/load", false, &none, Some("zone=ES"), 7, 1);
        assert_ne!(base, k("/v1/mix", false, &none, Some("zone=ES"), 7, 1));
        assert_ne!(base, k("/v1/load", true, &none, Some("zone=ES"), 7, 1));
        assert_ne!(base, k("/v1/load", false, &none, Some("zone=FR"), 7, 1));
        assert_ne!(base, k("/v1/load", false, &none, Some("zone=ES"), 8, 1));
        assert_ne!(base, k("/v1/load", false, &none, Some("zone=ES"), 7, 2));
        assert_ne!(
            base,
            k(
                "/v1/load",
                false,
                &accept(&["text/csv"]),
                Some("zone=ES"),
                7,
                1
            )
        );
        // No query and an empty one are the same request.
        assert_eq!(
            k("/v1/load", false, &none, None, 7, 1),
            k("/v1/load", false, &none, Some(""), 7, 1)
        );
        // Two Accept values are not one value with a newline: a header value cannot hold one, and
        // the query cannot either, so the boundary between query and Accept values is fixed.
        assert_ne!(
            k("/v1/load", false, &accept(&["a", "b"]), Some("q"), 7, 1),
            k("/v1/load", false, &accept(&["a, b"]), Some("q"), 7, 1)
        );
        let opaque = {
            let mut h = HeaderMap::new();
            h.insert(
                header::ACCEPT,
                HeaderValue::from_bytes(b"text/\xffcsv").unwrap(),
            );
            h
        };
        assert!(key("/v1/load", false, &opaque, None, Slot(7), 1).is_none());
    }

    #[test]
    fn the_memo_keeps_nothing_when_the_response_cache_is_off() {
        let t = || Tagged::new("k", "W/\"a\"".into(), "c".into(), None);
        let off = tag_memo(false);
        off.insert("k".into(), t());
        assert!(off.get("k").is_none());
        let on = tag_memo(true);
        on.insert("k".into(), t());
        assert_eq!(on.get("k").unwrap().etag, "W/\"a\"");
    }
}
