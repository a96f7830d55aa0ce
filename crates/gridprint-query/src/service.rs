//! The endpoint table and the entry point for the HTTP layer. [`Endpoint`] is derived from the table
//! below (one line per endpoint: its definition in [`crate::endpoints`], its paths, whether it needs
//! the data cache); [`QueryService`] holds the reference data, the polygon index and the swappable
//! cache, and [`QueryService::query`] turns an [`Endpoint`] plus the raw query pairs into a
//! [`QueryResponse`] (or a [`QueryError`]).
//!
//! A handler is then three lines: take the pairs from the URL, call `query` with the clock's "now",
//! render `to_json()` or `to_csv()`. Everything here is synchronous and reads memory only; the
//! handler may call it directly on the async worker for small answers or in `spawn_blocking` for
//! long ranges.

use crate::answer::QueryResponse;
use crate::cache::{DataCache, SharedCache};
use crate::endpoints::{self, EndpointDef};
use crate::error::QueryError;
use crate::geo::{GeoError, ZoneLocator};
use crate::params::{ParseContext, QueryParams};
use gridprint_core::reference::ReferenceData;
use gridprint_store::{Result as StoreResult, Store};
use std::sync::Arc;
use time::OffsetDateTime;

/// Declares the endpoint table: one line per endpoint (its [`Endpoint`] variant, the module type
/// implementing [`EndpointDef`], its paths under `/v1`, and whether it is answered from the reference
/// data alone); the enum, its path lookups and the dispatch are derived from it.
macro_rules! endpoint_table {
    ($($(#[$doc:meta])* $variant:ident => $def:ty, [$($path:literal),+] $(, $reference:ident)?;)*) => {
        /// The data endpoints answered from the cache (`/status` is separate: see
        /// [`endpoints::status`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Endpoint {
            $($(#[$doc])* $variant,)*
        }

        impl Endpoint {
            /// Every endpoint, in table order.
            pub const ALL: [Endpoint; [$(stringify!($variant)),*].len()] = [$(Endpoint::$variant),*];

            /// The paths under `/v1` served by this endpoint.
            pub fn paths(self) -> &'static [&'static str] {
                match self {
                    $(Endpoint::$variant => &[$($path),+],)*
                }
            }

            /// Whether the endpoint answers from the reference data alone (served while the store
            /// is down or the cache is loading).
            pub fn from_reference(self) -> bool {
                match self {
                    $(Endpoint::$variant => endpoint_table!(@reference $($reference)?),)*
                }
            }

            fn run(
                self,
                cache: &DataCache,
                p: &QueryParams<'_>,
                ctx: &ParseContext<'_>,
            ) -> Result<QueryResponse, QueryError> {
                match self {
                    $(Endpoint::$variant => answer::<$def>(cache, p, ctx),)*
                }
            }
        }
    };
    (@reference reference) => { true };
    (@reference) => { false };
}

endpoint_table! {
    Zones => endpoints::Zones, ["zones"], reference;
    Generation => endpoints::Generation, ["generation"];
    Load => endpoints::Load, ["load"];
    Imports => endpoints::Imports, ["imports"];
    Exports => endpoints::Exports, ["exports"];
    Mix => endpoints::Mix, ["mix"];
    Footprints => endpoints::FootprintsEndpoint, ["footprints"];
    Impacts => endpoints::ImpactsEndpoint, ["impacts"];
    /// `/green-score` and `/environmental-score`.
    Score => endpoints::Score, ["green-score", "environmental-score"];
    FlowShare => endpoints::FlowShare, ["flow-share"];
    MixShare => endpoints::MixShare, ["mix-share"];
    FootprintShare => endpoints::FootprintShare, ["footprint-share"];
    ImpactShare => endpoints::ImpactShare, ["impact-share"];
    Factors => endpoints::FactorsEndpoint, ["factors"], reference;
    Availability => endpoints::Availability, ["availability"];
}

impl Endpoint {
    /// The endpoint of a path segment after `/v1/` (`green-score` and `environmental-score` are both
    /// [`Endpoint::Score`]).
    pub fn from_path(segment: &str) -> Option<Endpoint> {
        let segment = segment.trim_matches('/');
        Endpoint::ALL
            .into_iter()
            .find(|e| e.paths().contains(&segment))
    }
}

/// Parses and answers with one endpoint's definition.
fn answer<E: EndpointDef>(
    cache: &DataCache,
    p: &QueryParams<'_>,
    ctx: &ParseContext<'_>,
) -> Result<QueryResponse, QueryError> {
    Ok(E::answer(cache, &E::parse(p, ctx)?).into())
}

/// Parses the request of one endpoint (without answering it).
pub fn parse<E: EndpointDef>(
    pairs: &[(String, String)],
    ctx: &ParseContext<'_>,
) -> Result<E::Request, QueryError> {
    E::parse(&QueryParams::new(pairs), ctx)
}

/// Parses and answers one request from a cache snapshot.
pub fn run(
    cache: &DataCache,
    locator: &ZoneLocator,
    endpoint: Endpoint,
    pairs: &[(String, String)],
    now: OffsetDateTime,
) -> Result<QueryResponse, QueryError> {
    let ctx = ParseContext {
        zones: &cache.reference().zones,
        locator,
        now,
    };
    endpoint.run(cache, &QueryParams::new(pairs), &ctx)
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
