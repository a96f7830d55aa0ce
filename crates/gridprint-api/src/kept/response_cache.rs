//! The one response cache of the server — rendered answers kept in memory and served again without
//! recomputation — and the one `If-None-Match` test, shared by the `/v1` routes ([`crate::v1::answer`])
//! and the dashboard (`gridprint-dashboard`).
//!
//! A [`ResponseCache`] is bounded by the bytes it holds, by its number of entries, or both; beyond a
//! bound, expired entries go first, then the least recently used. An entry is kept until evicted
//! ([`ResponseCache::insert`]: an answer whose every point is final never changes while its key
//! stays the same) or for a time ([`ResponseCache::insert_for`]: an answer that can still change).
//! The `/v1` routes key final answers by their entity tag, which already names the data they were
//! computed from, within [`ApiConfig::response_cache_bytes`](crate::state::ApiConfig) (0: off); the
//! dashboard keys by data version and request, within a number of entries. One mutex guards the
//! map; a lookup is a hash probe and a tick update.
//!
//! [`matches_if_none_match`] is the conditional-request test of both (RFC 9110 §13.1.2: weak
//! comparison, and `*` matches any current representation, so a GET gets 304); [`etag_of`] is the
//! strong tag of a body, for answers whose tag is not derived from the data version. A body larger
//! than a quarter of the byte budget is not kept (large answers are usually kept gzipped instead:
//! [`crate::kept::precompress`]).

use axum::body::Bytes;
use axum::http::{HeaderMap, header};
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a kept value costs against a byte budget.
pub trait Weigh {
    /// Bytes the value holds.
    fn weight(&self) -> usize;
}

impl Weigh for Bytes {
    fn weight(&self) -> usize {
        self.len()
    }
}

struct Kept<V> {
    value: V,
    /// The tick of its last use: its place in `Lru::order`.
    tick: u64,
    expires: Option<Instant>,
}

struct Lru<V> {
    entries: HashMap<String, Kept<V>>,
    /// Keys by last use, least recent first.
    order: BTreeMap<u64, String>,
    tick: u64,
    bytes: usize,
    /// Entries with an expiry (when none, evicting skips looking for expired ones).
    expiring: usize,
}

impl<V: Weigh> Lru<V> {
    fn remove(&mut self, key: &str) -> Option<Kept<V>> {
        let kept = self.entries.remove(key)?;
        self.order.remove(&kept.tick);
        self.bytes -= kept.value.weight();
        self.expiring -= usize::from(kept.expires.is_some());
        Some(kept)
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }
}

/// Rendered answers by key (`V`: the rendered body, or a body with what the caller keeps beside it).
pub struct ResponseCache<V = Bytes> {
    max_bytes: usize,
    max_entries: usize,
    lru: Mutex<Lru<V>>,
}

impl<V> std::fmt::Debug for ResponseCache<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lru = self.lru.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("ResponseCache")
            .field("max_bytes", &self.max_bytes)
            .field("max_entries", &self.max_entries)
            .field("entries", &lru.entries.len())
            .field("bytes", &lru.bytes)
            .finish()
    }
}

impl<V: Clone + Weigh> ResponseCache<V> {
    /// A cache of at most `max_bytes` bytes of values in at most `max_entries` entries (either 0:
    /// nothing is kept). A value weighing more than a quarter of `max_bytes` is not kept.
    pub fn new(max_bytes: usize, max_entries: usize) -> ResponseCache<V> {
        ResponseCache {
            max_bytes,
            max_entries,
            lru: Mutex::new(Lru {
                entries: HashMap::new(),
                order: BTreeMap::new(),
                tick: 0,
                bytes: 0,
                expiring: 0,
            }),
        }
    }

    /// A cache bounded by bytes only.
    pub fn with_max_bytes(max_bytes: usize) -> ResponseCache<V> {
        ResponseCache::new(max_bytes, usize::MAX)
    }

    /// A cache bounded by its number of entries only.
    #[cfg(test)]
    pub fn with_max_entries(max_entries: usize) -> ResponseCache<V> {
        ResponseCache::new(usize::MAX, max_entries)
    }

    /// Whether the cache keeps anything.
    pub fn enabled(&self) -> bool {
        self.max_bytes > 0 && self.max_entries > 0
    }

    /// The unexpired value kept under `key`, marking it recently used.
    pub fn get(&self, key: &str) -> Option<V> {
        if !self.enabled() {
            return None;
        }
        let mut lru = self.lru.lock().unwrap_or_else(|e| e.into_inner());
        let lru = &mut *lru;
        let expired = lru
            .entries
            .get(key)?
            .expires
            .is_some_and(|at| at <= Instant::now());
        if expired {
            lru.remove(key);
            return None;
        }
        let tick = lru.next_tick();
        let kept = lru.entries.get_mut(key)?;
        let old = std::mem::replace(&mut kept.tick, tick);
        let value = kept.value.clone();
        if let Some(k) = lru.order.remove(&old) {
            lru.order.insert(tick, k);
        }
        Some(value)
    }

    /// Keeps `value` under `key` until it is evicted.
    pub fn insert(&self, key: String, value: V) {
        self.keep(key, value, None);
    }

    /// Keeps `value` under `key` for `ttl` at most.
    pub fn insert_for(&self, key: String, value: V, ttl: Duration) {
        self.keep(key, value, Some(Instant::now() + ttl));
    }

    fn keep(&self, key: String, value: V, expires: Option<Instant>) {
        let weight = value.weight();
        if !self.enabled() || weight > self.max_bytes / 4 {
            return;
        }
        let mut lru = self.lru.lock().unwrap_or_else(|e| e.into_inner());
        let lru = &mut *lru;
        lru.remove(&key);
        let tick = lru.next_tick();
        lru.bytes += weight;
        lru.expiring += usize::from(expires.is_some());
        lru.order.insert(tick, key.clone());
        lru.entries.insert(
            key,
            Kept {
                value,
                tick,
                expires,
            },
        );
        let over =
            |lru: &Lru<V>| lru.bytes > self.max_bytes || lru.entries.len() > self.max_entries;
        if over(lru) && lru.expiring > 0 {
            let now = Instant::now();
            let expired: Vec<String> = lru
                .entries
                .iter()
                .filter(|(_, k)| k.expires.is_some_and(|at| at <= now))
                .map(|(key, _)| key.clone())
                .collect();
            for key in expired {
                lru.remove(&key);
            }
        }
        while over(lru) {
            let Some(key) = lru.order.first_key_value().map(|(_, k)| k.clone()) else {
                break;
            };
            lru.remove(&key);
        }
    }

    /// Entries and bytes held.
    #[cfg(any(test, feature = "testing"))]
    pub fn usage(&self) -> (usize, usize) {
        let lru = self.lru.lock().unwrap_or_else(|e| e.into_inner());
        (lru.entries.len(), lru.bytes)
    }
}

/// Whether the request's `If-None-Match` matches `etag`: it names it (weak comparison: a `W/` prefix
/// is ignored on either side) or is `*` (RFC 9110 §13.1.2: any current representation).
pub fn matches_if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    let opaque = |t: &str| {
        let t = t.trim();
        t.strip_prefix("W/").unwrap_or(t).to_owned()
    };
    let mine = opaque(etag);
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim() == "*" || opaque(t) == mine)
}

/// A strong entity tag of a body (SHA-256, 16 bytes in hex).
pub fn etag_of(body: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    format!("\"{}\"", hex::encode(&Sha256::digest(body)[..16]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn evicts_the_least_recently_used_beyond_the_byte_budget() {
        let c = ResponseCache::with_max_bytes(400);
        c.insert("a".into(), Bytes::from(vec![0; 100]));
        c.insert("b".into(), Bytes::from(vec![0; 100]));
        c.insert("c".into(), Bytes::from(vec![0; 100]));
        assert!(c.get("a").is_some()); // a is now the most recent
        c.insert("d".into(), Bytes::from(vec![0; 100]));
        c.insert("e".into(), Bytes::from(vec![0; 100]));
        assert!(c.get("b").is_none(), "b was the least recently used");
        assert!(c.get("a").is_some() && c.get("e").is_some());
        assert_eq!(c.usage(), (4, 400));
        c.insert("big".into(), Bytes::from(vec![0; 101]));
        assert!(
            c.get("big").is_none(),
            "larger than a quarter of the budget"
        );
        c.insert("a".into(), Bytes::from(vec![0; 50]));
        assert_eq!(c.usage(), (4, 350));
        let off = ResponseCache::with_max_bytes(0);
        off.insert("a".into(), Bytes::from_static(b"x"));
        assert!(off.get("a").is_none());
    }

    #[test]
    fn expired_entries_go_first_then_the_least_recently_used() {
        let c = ResponseCache::with_max_entries(2);
        c.insert("a".into(), Bytes::from_static(b"1"));
        c.insert_for("b".into(), Bytes::from_static(b"2"), Duration::ZERO);
        assert!(c.get("a").is_some(), "kept until evicted");
        c.insert("c".into(), Bytes::from_static(b"3"));
        assert_eq!(c.usage().0, 2, "the expired entry made room");
        assert!(c.get("b").is_none(), "expired after its ttl");
        assert!(c.get("a").is_some() && c.get("c").is_some());
        c.insert("d".into(), Bytes::from_static(b"4"));
        assert_eq!(c.usage().0, 2);
        assert!(c.get("a").is_none(), "the least recently used went first");
        let off = ResponseCache::with_max_entries(0);
        off.insert("a".into(), Bytes::from_static(b"1"));
        assert!(off.get("a").is_none());
    }

    #[test]
    fn if_none_match_compares_weakly_and_star_matches() {
        let with = |v: &'static str| {
            let mut h = HeaderMap::new();
            h.insert(header::IF_NONE_MATCH, HeaderValue::from_static(v));
            h
        };
        let tag = "W/\"abc\"";
        assert!(matches_if_none_match(&with("\"x\", W/\"abc\""), tag));
        assert!(matches_if_none_match(&with("\"abc\""), tag));
        assert!(matches_if_none_match(&with("W/\"abc\""), "\"abc\""));
        assert!(matches_if_none_match(&with("*"), tag));
        assert!(!matches_if_none_match(&with("\"abd\""), tag));
        assert!(!matches_if_none_match(&HeaderMap::new(), tag));
        assert_eq!(etag_of(b"x").len(), 34);
    }
}
