//! The dashboard routes' response cache: rendered bodies by key, for a bounded number of entries.
//!
//! A key already names the data version it was computed from (see [`crate::data`]), so an entry of
//! an answer whose every point is final stays right until it is evicted; an answer that can still
//! change expires after the server's refresh interval, so the page never shows data older than the
//! `/v1` routes would. When full, expired entries go first, then the oldest.

use axum::body::Bytes;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One kept answer.
#[derive(Debug, Clone)]
pub struct Entry {
    pub body: Bytes,
    /// Every point final: may be cached for long.
    pub is_final: bool,
    /// Entity tag of the body.
    pub etag: String,
    expires: Option<Instant>,
    inserted: Instant,
}

/// Rendered dashboard answers by key.
#[derive(Debug)]
pub struct ResponseCache {
    capacity: usize,
    map: Mutex<HashMap<String, Entry>>,
}

impl ResponseCache {
    /// A cache of at most `capacity` entries (0: nothing is kept).
    pub fn new(capacity: usize) -> ResponseCache {
        ResponseCache {
            capacity,
            map: Mutex::new(HashMap::new()),
        }
    }

    /// The unexpired entry under `key`.
    pub fn get(&self, key: &str) -> Option<Entry> {
        let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        let e = map.get(key)?;
        match e.expires {
            Some(at) if at <= Instant::now() => None,
            _ => Some(e.clone()),
        }
    }

    /// Keeps `body`; a changing answer (`!is_final`) for `ttl` only.
    pub fn insert(&self, key: String, body: Bytes, is_final: bool, ttl: Duration) -> Entry {
        let now = Instant::now();
        let entry = Entry {
            etag: etag_of(&body),
            body,
            is_final,
            expires: (!is_final).then(|| now + ttl),
            inserted: now,
        };
        if self.capacity == 0 {
            return entry;
        }
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= self.capacity && !map.contains_key(&key) {
            map.retain(|_, e| e.expires.is_none_or(|at| at > now));
            while map.len() >= self.capacity {
                let Some(oldest) = map
                    .iter()
                    .min_by_key(|(_, e)| e.inserted)
                    .map(|(k, _)| k.clone())
                else {
                    break;
                };
                map.remove(&oldest);
            }
        }
        map.insert(key, entry.clone());
        entry
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.map.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Whether `If-None-Match` names `etag` (weak comparison: a `W/` prefix is ignored).
pub fn if_none_match(headers: &axum::http::HeaderMap, etag: &str) -> bool {
    headers
        .get_all(axum::http::header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().trim_start_matches("W/") == etag)
}

/// A strong entity tag of a body (SHA-256, 16 bytes in hex).
pub fn etag_of(body: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    format!("\"{}\"", hex::encode(&Sha256::digest(body)[..16]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changing_answers_expire_and_capacity_is_kept() {
        let c = ResponseCache::new(2);
        c.insert("a".into(), Bytes::from_static(b"1"), true, Duration::ZERO);
        c.insert("b".into(), Bytes::from_static(b"2"), false, Duration::ZERO);
        assert!(c.get("a").is_some(), "final answers do not expire");
        assert!(
            c.get("b").is_none(),
            "a changing answer expires after its ttl"
        );
        c.insert("c".into(), Bytes::from_static(b"3"), true, Duration::ZERO);
        assert_eq!(c.len(), 2, "the expired entry made room");
        assert!(c.get("a").is_some() && c.get("c").is_some());
        c.insert("d".into(), Bytes::from_static(b"4"), true, Duration::ZERO);
        assert_eq!(c.len(), 2);
        assert!(c.get("a").is_none(), "the oldest went first");
        let off = ResponseCache::new(0);
        off.insert("a".into(), Bytes::from_static(b"1"), true, Duration::ZERO);
        assert!(off.get("a").is_none());
    }
}
