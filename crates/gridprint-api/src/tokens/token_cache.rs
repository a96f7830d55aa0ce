//! The in-memory cache of verified tokens, so the data routes' hot path makes no database round trip.
//!
//! Keyed by the SHA-256 of the token (the only form tokens are kept in), an entry holds the stored
//! record, the account's own rate limit (its tier) and the time the store last confirmed it. An entry
//! older than [`RECHECK_AFTER`] is confirmed again before use; while the store cannot be reached, one
//! younger than [`STALE_GRACE`] is still accepted. [`crate::tokens::auth`] verifies tokens through it; the
//! token service ([`crate::tokens::token`]) puts the tokens it issues in it.

use gridprint_store::{AccountLimit, TokenRecord};
use std::collections::HashMap;
use std::sync::Mutex;
use time::OffsetDateTime;

/// How long a confirmed token is trusted from memory before the store is asked again.
pub const RECHECK_AFTER: time::Duration = time::Duration::seconds(30);
/// If the store cannot be reached, a cached token is still accepted while its last confirmation is
/// younger than this (the revocation promise is 60 s).
pub const STALE_GRACE: time::Duration = time::Duration::seconds(60);
/// Above this many cached tokens, expired and stale entries are swept before inserting.
const SWEEP_ABOVE: usize = 50_000;

#[derive(Clone)]
struct Entry {
    record: TokenRecord,
    tier: Option<AccountLimit>,
    checked_at: OffsetDateTime,
}

/// In-memory map from token hash to its stored record and the time the store last confirmed it.
#[derive(Default)]
pub struct TokenCache {
    entries: Mutex<HashMap<String, Entry>>,
}

impl std::fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.entries.lock().map(|m| m.len()).unwrap_or(0);
        f.debug_struct("TokenCache").field("entries", &n).finish()
    }
}

/// What the cache knows of a token hash.
pub(crate) enum Cached {
    Fresh(TokenRecord, Option<AccountLimit>),
    Stale(TokenRecord, Option<AccountLimit>, OffsetDateTime),
    Missing,
}

impl TokenCache {
    /// Remembers a record the store has just confirmed (or that was just issued), with its
    /// account's tier.
    pub fn insert(&self, record: TokenRecord, tier: Option<AccountLimit>, now: OffsetDateTime) {
        let mut map = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > SWEEP_ABOVE {
            let t = now.unix_timestamp();
            map.retain(|_, e| e.record.expires_at > t && now - e.checked_at < STALE_GRACE);
        }
        map.insert(
            record.token_hash.expose().clone(),
            Entry {
                record,
                tier,
                checked_at: now,
            },
        );
    }

    /// Forgets a token hash.
    pub fn remove(&self, hash: &str) {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(hash);
    }

    /// Number of cached tokens.
    pub fn len(&self) -> usize {
        self.entries.lock().map(|m| m.len()).unwrap_or(0)
    }

    /// Whether no token is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entry of `hash`: confirmed within [`RECHECK_AFTER`] of `now`, older, or missing.
    pub(crate) fn lookup(&self, hash: &str, now: OffsetDateTime) -> Cached {
        let map = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match map.get(hash) {
            Some(e) if now - e.checked_at < RECHECK_AFTER => {
                Cached::Fresh(e.record.clone(), e.tier)
            }
            Some(e) => Cached::Stale(e.record.clone(), e.tier, e.checked_at),
            None => Cached::Missing,
        }
    }
}
