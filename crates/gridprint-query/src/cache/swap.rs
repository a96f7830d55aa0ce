//! The current cache behind an `ArcSwap`: readers take snapshots without locking, a refresh
//! builds the new version beside the old cache (incrementally when it can) and swaps it in.

use super::loader::DataCache;
use arc_swap::ArcSwap;
use gridprint_store::{Result as StoreResult, Store};
use std::sync::{Arc, Mutex};

/// The current cache, swappable while readers keep answering from their snapshot.
pub struct SharedCache {
    current: ArcSwap<DataCache>,
    refreshing: Mutex<()>,
}

impl std::fmt::Debug for SharedCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedCache")
            .field("version", &self.current.load().version)
            .finish()
    }
}

impl SharedCache {
    /// Wraps a loaded cache.
    pub fn new(cache: DataCache) -> SharedCache {
        SharedCache {
            current: ArcSwap::from_pointee(cache),
            refreshing: Mutex::new(()),
        }
    }

    /// The current snapshot (lock-free; keep it for the whole request).
    pub fn get(&self) -> Arc<DataCache> {
        self.current.load_full()
    }

    /// Replaces the cache.
    pub fn replace(&self, cache: DataCache) {
        self.current.store(Arc::new(cache));
    }

    /// Brings the cache to the store's version when it changed (incrementally when it can, see
    /// [`DataCache::refresh`]); returns whether a new cache was swapped in.
    /// Concurrent calls are serialised, so only one reload runs at a time.
    pub fn refresh(&self, store: &dyn Store) -> StoreResult<bool> {
        let _guard = self.refreshing.lock().unwrap_or_else(|p| p.into_inner());
        match self.get().refresh(store)? {
            Some(new) => {
                self.replace(new);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}
