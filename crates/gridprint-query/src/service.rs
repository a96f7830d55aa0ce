//! The entry point for the HTTP layer: [`QueryService`] holds the reference data, the polygon index
//! and the swappable cache, and [`QueryService::query`] turns an [`Endpoint`] plus the raw query pairs
//! into a [`QueryResponse`] (or a [`QueryError`]).
//!
//! A handler is then three lines: take the pairs from the URL, call `query` with the clock's "now",
//! render `to_json()` or `to_csv()`. Everything here is synchronous and reads memory only; the
//! handler may call it directly on the async worker for small answers or in `spawn_blocking` for
//! long ranges.

use crate::cache::{DataCache, SharedCache};
use crate::endpoints;
use crate::error::QueryError;
use crate::geo::{GeoError, ZoneLocator};
use crate::params::{self, ParseContext};
use crate::answer::QueryResponse;
use gridprint_core::reference::ReferenceData;
use gridprint_store::{Result as StoreResult, Store};
use std::sync::Arc;
use time::OffsetDateTime;

/// The data endpoints answered from the cache (`/status` is separate: see [`endpoints::status`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endpoint {
    Zones,
    Generation,
    Load,
    Imports,
    Exports,
    Mix,
    Footprints,
    Impacts,
    /// `/green-score` and `/environmental-score`.
    Score,
    FlowShare,
    MixShare,
    FootprintShare,
    ImpactShare,
    Factors,
}

impl Endpoint {
    /// Every endpoint, for route tables.
    pub const ALL: [Endpoint; 14] = [
        Endpoint::Zones,
        Endpoint::Generation,
        Endpoint::Load,
        Endpoint::Imports,
        Endpoint::Exports,
        Endpoint::Mix,
        Endpoint::Footprints,
        Endpoint::Impacts,
        Endpoint::Score,
        Endpoint::FlowShare,
        Endpoint::MixShare,
        Endpoint::FootprintShare,
        Endpoint::ImpactShare,
        Endpoint::Factors,
    ];

    /// The endpoint of a path segment after `/v1/` (`green-score` and `environmental-score` are both
    /// [`Endpoint::Score`]).
    pub fn from_path(segment: &str) -> Option<Endpoint> {
        Some(match segment.trim_matches('/') {
            "zones" => Endpoint::Zones,
            "generation" => Endpoint::Generation,
            "load" => Endpoint::Load,
            "imports" => Endpoint::Imports,
            "exports" => Endpoint::Exports,
            "mix" => Endpoint::Mix,
            "footprints" => Endpoint::Footprints,
            "impacts" => Endpoint::Impacts,
            "green-score" | "environmental-score" => Endpoint::Score,
            "flow-share" => Endpoint::FlowShare,
            "mix-share" => Endpoint::MixShare,
            "footprint-share" => Endpoint::FootprintShare,
            "impact-share" => Endpoint::ImpactShare,
            "factors" => Endpoint::Factors,
            _ => return None,
        })
    }

    /// The paths under `/v1` served by this endpoint.
    pub fn paths(self) -> &'static [&'static str] {
        match self {
            Endpoint::Zones => &["zones"],
            Endpoint::Generation => &["generation"],
            Endpoint::Load => &["load"],
            Endpoint::Imports => &["imports"],
            Endpoint::Exports => &["exports"],
            Endpoint::Mix => &["mix"],
            Endpoint::Footprints => &["footprints"],
            Endpoint::Impacts => &["impacts"],
            Endpoint::Score => &["green-score", "environmental-score"],
            Endpoint::FlowShare => &["flow-share"],
            Endpoint::MixShare => &["mix-share"],
            Endpoint::FootprintShare => &["footprint-share"],
            Endpoint::ImpactShare => &["impact-share"],
            Endpoint::Factors => &["factors"],
        }
    }
}

/// Parses and answers one request from a cache snapshot.
pub fn run(
    cache: &DataCache,
    locator: &ZoneLocator,
    endpoint: Endpoint,
    pairs: &[(String, String)],
    now: OffsetDateTime,
) -> Result<QueryResponse, QueryError> {
    let reference = cache.reference();
    let ctx = ParseContext {
        zones: &reference.zones,
        locator,
        now,
    };
    Ok(match endpoint {
        Endpoint::Zones => QueryResponse::from(endpoints::zones(reference)),
        Endpoint::Generation => QueryResponse::from(endpoints::generation(
            cache,
            &params::parse_generation(pairs, &ctx)?,
        )),
        Endpoint::Load => {
            QueryResponse::from(endpoints::load(cache, &params::parse_load(pairs, &ctx)?))
        }
        Endpoint::Imports => QueryResponse::from(endpoints::imports(
            cache,
            &params::parse_imports(pairs, &ctx)?,
        )),
        Endpoint::Exports => QueryResponse::from(endpoints::exports(
            cache,
            &params::parse_exports(pairs, &ctx)?,
        )),
        Endpoint::Mix => {
            QueryResponse::from(endpoints::mix(cache, &params::parse_mix(pairs, &ctx)?))
        }
        Endpoint::Footprints => QueryResponse::from(endpoints::footprints(
            cache,
            &params::parse_footprints(pairs, &ctx)?,
        )),
        Endpoint::Impacts => QueryResponse::from(endpoints::impacts(
            cache,
            &params::parse_impacts(pairs, &ctx)?,
        )),
        Endpoint::Score => {
            QueryResponse::from(endpoints::score(cache, &params::parse_score(pairs, &ctx)?))
        }
        Endpoint::FlowShare => QueryResponse::from(endpoints::flow_share(
            cache,
            &params::parse_flow_share(pairs, &ctx)?,
        )),
        Endpoint::MixShare => QueryResponse::from(endpoints::mix_share(
            cache,
            &params::parse_mix_share(pairs, &ctx)?,
        )),
        Endpoint::FootprintShare => QueryResponse::from(endpoints::footprint_share(
            cache,
            &params::parse_footprint_share(pairs, &ctx)?,
        )),
        Endpoint::ImpactShare => QueryResponse::from(endpoints::impact_share(
            cache,
            &params::parse_impact_share(pairs, &ctx)?,
        )),
        Endpoint::Factors => QueryResponse::from(endpoints::factors(
            reference,
            &params::parse_factors(pairs, &ctx)?,
        )),
    })
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

    /// Parses and answers one request against the current snapshot.
    pub fn query(
        &self,
        endpoint: Endpoint,
        pairs: &[(String, String)],
        now: OffsetDateTime,
    ) -> Result<QueryResponse, QueryError> {
        run(&self.cache.get(), &self.locator, endpoint, pairs, now)
    }
}
