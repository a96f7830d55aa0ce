//! [`QueryService`]: the reference data, the polygon index and the swappable cache, and
//! [`QueryService::query`], which reads one request of an endpoint type from the query pairs and
//! answers it (a [`QueryResponse`] or a [`QueryError`]); [`QueryService::ask`] answers a typed
//! query built as a value (the dashboard). Callers outside HTTP name the endpoint type and hand
//! over the pairs (`query::<FootprintsEndpoint>`: tests, benches); the
//! HTTP layer (gridprint-api's `/v1` routes) reads the request itself ([`parse`]) so it can size
//! and tag it before answering.
//!
//! Everything here is synchronous and reads memory only.

use crate::answer::QueryResponse;
use crate::cache::{DataCache, SharedCache};
use crate::endpoints::EndpointDef;
use crate::error::QueryError;
use crate::geo::{GeoError, ZoneLocator};
use crate::params::ParseContext;
use gridprint_core::reference::ReferenceData;
use gridprint_responses::query::{QueryParams, WireQuery};
use gridprint_store::{Result as StoreResult, Store};
use std::sync::Arc;
use time::OffsetDateTime;

/// Reads one request of endpoint `E` from the query pairs (the last occurrence of a name wins):
/// its wire query, then the request it resolves to.
pub fn parse<E: EndpointDef>(
    pairs: &[(String, String)],
    ctx: &ParseContext<'_>,
) -> Result<E::Request, QueryError> {
    let query = E::Query::from_pairs(&QueryParams::new(pairs), ctx)?;
    E::request(query, ctx)
}

/// Reads and answers one request of endpoint `E` from a cache snapshot.
pub fn run<E: EndpointDef>(
    cache: &DataCache,
    locator: &ZoneLocator,
    pairs: &[(String, String)],
    now: OffsetDateTime,
) -> Result<QueryResponse, QueryError> {
    let ctx = ParseContext {
        zones: &cache.reference().zones,
        locator,
        now,
    };
    let request = parse::<E>(pairs, &ctx)?;
    Ok(E::answer(cache, &request)?.into())
}

/// Reference data, polygon index and the current cache: everything a data handler needs.
#[derive(Debug)]
pub struct QueryService {
    reference: Arc<ReferenceData>,
    locator: ZoneLocator,
    cache: SharedCache,
}

/// Building the service failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error(transparent)]
    Geo(#[from] GeoError),
    #[error(transparent)]
    Store(#[from] gridprint_store::StoreError),
}

impl QueryService {
    /// Builds the polygon index and wraps an already loaded cache.
    pub fn new(cache: DataCache) -> Result<QueryService, GeoError> {
        let reference = cache.reference().clone();
        let locator = ZoneLocator::from_geojson(&reference.geojson, &reference.zones)?;
        Ok(QueryService {
            reference,
            locator,
            cache: SharedCache::new(cache),
        })
    }

    /// Loads the cache from the store and builds the polygon index.
    pub fn load(
        store: &dyn Store,
        reference: Arc<ReferenceData>,
    ) -> Result<QueryService, ServiceError> {
        Ok(QueryService::new(DataCache::load(store, reference)?)?)
    }

    /// Reloads the cache if the store's version changed (call it periodically, off the async
    /// workers); returns whether a new cache is in use.
    pub fn refresh(&self, store: &dyn Store) -> StoreResult<bool> {
        self.cache.refresh(store)
    }

    /// The current cache snapshot.
    pub fn cache(&self) -> Arc<DataCache> {
        self.cache.get()
    }

    /// The swappable cache.
    pub fn shared_cache(&self) -> &SharedCache {
        &self.cache
    }

    /// The polygon index.
    pub fn locator(&self) -> &ZoneLocator {
        &self.locator
    }

    /// The reference data.
    pub fn reference(&self) -> &Arc<ReferenceData> {
        &self.reference
    }

    /// Answers one typed query of endpoint `E` (built as a value, as the dashboard builds its
    /// parts) against the current snapshot: resolved as a query read from pairs is.
    pub fn ask<E: EndpointDef>(
        &self,
        query: E::Query,
        now: OffsetDateTime,
    ) -> Result<QueryResponse, QueryError> {
        let cache = self.cache.get();
        let ctx = ParseContext {
            zones: &cache.reference().zones,
            locator: &self.locator,
            now,
        };
        let request = E::request(query, &ctx)?;
        Ok(E::answer(&cache, &request)?.into())
    }

    /// Reads and answers one request of endpoint `E` against the current snapshot.
    pub fn query<E: EndpointDef>(
        &self,
        pairs: &[(String, String)],
        now: OffsetDateTime,
    ) -> Result<QueryResponse, QueryError> {
        run::<E>(&self.cache.get(), &self.locator, pairs, now)
    }
}
