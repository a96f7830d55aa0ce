//! A bounded, in-memory cache of rendered answers whose every point is final.
//!
//! A final answer ([`QueryResponse::is_final`](gridprint_query::QueryResponse::is_final)) never
//! changes while the days it covers stay the same: frozen slots are never recomputed, and `valid`
//! only ever turns from false to true as time passes. So the rendered body can be kept under its
//! entity tag — which already hashes the version of the window's days (the latest publication that
//! changed one of them, see `data.rs`), the endpoint, the normalized query and the format — and
//! served again without running the query or serializing anything. A publication of other days
//! keeps the tag and the entry; one of the window's days gives a new tag, and the old entry simply
//! ages out.
//!
//! Eviction is least-recently-used by total body bytes
//! ([`ApiConfig::response_cache_bytes`](crate::ApiConfig); 0 disables the cache); a body larger than a quarter of the budget is not kept.
//! One mutex guards the map; a lookup is a hash probe and a tick update.

use axum::body::Bytes;
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

#[derive(Default)]
struct Lru {
    entries: HashMap<String, (Bytes, u64)>,
    order: BTreeMap<u64, String>,
    tick: u64,
    bytes: usize,
}

/// Rendered final answers by entity tag.
pub struct ResponseCache {
    budget: usize,
    lru: Mutex<Lru>,
}

impl std::fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (n, bytes) = self.usage();
        f.debug_struct("ResponseCache")
            .field("budget", &self.budget)
            .field("entries", &n)
            .field("bytes", &bytes)
            .finish()
    }
}

impl ResponseCache {
    /// A cache holding at most `budget` bytes of bodies (0: nothing is kept).
    pub fn new(budget: usize) -> ResponseCache {
        ResponseCache {
            budget,
            lru: Mutex::new(Lru::default()),
        }
    }

    /// Whether the cache keeps anything.
    pub fn enabled(&self) -> bool {
        self.budget > 0
    }

    /// The body kept under `key`, marking it recently used.
    pub fn get(&self, key: &str) -> Option<Bytes> {
        if !self.enabled() {
            return None;
        }
        let mut lru = self.lru.lock().unwrap_or_else(|e| e.into_inner());
        let lru = &mut *lru;
        lru.tick += 1;
        let tick = lru.tick;
        let (body, at) = lru.entries.get_mut(key)?;
        let old = std::mem::replace(at, tick);
        let body = body.clone();
        if let Some(k) = lru.order.remove(&old) {
            lru.order.insert(tick, k);
        }
        Some(body)
    }

    /// Keeps `body` under `key`, evicting the least recently used bodies beyond the budget.
    pub fn insert(&self, key: String, body: Bytes) {
        if !self.enabled() || body.len() > self.budget / 4 {
            return;
        }
        let mut lru = self.lru.lock().unwrap_or_else(|e| e.into_inner());
        let lru = &mut *lru;
        lru.tick += 1;
        let tick = lru.tick;
        lru.bytes += body.len();
        if let Some((old, at)) = lru.entries.insert(key.clone(), (body, tick)) {
            lru.bytes -= old.len();
            lru.order.remove(&at);
        }
        lru.order.insert(tick, key);
        while lru.bytes > self.budget {
            let Some((_, k)) = lru.order.pop_first() else {
                break;
            };
            if let Some((b, _)) = lru.entries.remove(&k) {
                lru.bytes -= b.len();
            }
        }
    }

    /// Entries and body bytes held.
    pub fn usage(&self) -> (usize, usize) {
        let lru = self.lru.lock().unwrap_or_else(|e| e.into_inner());
        (lru.entries.len(), lru.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used_beyond_the_budget() {
        let c = ResponseCache::new(400);
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
        let off = ResponseCache::new(0);
        off.insert("a".into(), Bytes::from_static(b"x"));
        assert!(off.get("a").is_none());
    }
}
