//! The entry point for the HTTP layer. [`Endpoint`] is derived from the endpoint table shared with
//! the client ([`gridprint_responses::endpoint_table`]: per endpoint its definition in
//! [`crate::endpoints`], its paths, its answer type, whether it needs the data cache);
//! [`QueryService`] holds the reference data, the polygon index and the swappable cache, and
//! [`QueryService::query`] turns an [`Endpoint`] plus the raw query pairs into a [`QueryResponse`]
//! (or a [`QueryError`]).
//!
//! A handler is then three lines: take the pairs from the URL, call `query` with the clock's "now",
//! render `to_json()` or `to_csv()`. Everything here is synchronous and reads memory only; the
//! handler may call it directly on the async worker for small answers or in `spawn_blocking` for
//! long ranges.

use crate::answer::QueryResponse;
use crate::cache::{DataCache, SharedCache};
use crate::describe::Description;
use crate::endpoints::{self, EndpointDef};
use crate::error::QueryError;
use crate::geo::{GeoError, ZoneLocator};
use crate::params::{ParseContext, QueryParams};
use gridprint_core::reference::ReferenceData;
use gridprint_store::{Result as StoreResult, Store};
use std::sync::Arc;
use time::OffsetDateTime;

/// Derives everything from the endpoint table ([`gridprint_responses::endpoint_table`], one entry
/// per endpoint: its [`Endpoint`] variant, the type implementing [`EndpointDef`] in
/// [`crate::endpoints`] and whether it is answered from the reference data alone, its paths under
/// `/v1`, its answer type; the client's parts are for gridprint-client): the enum, its path
/// lookups, its OpenAPI description and the dispatch, and a compile-time check that each
/// definition answers the table's type.
macro_rules! endpoint_enum {
    ($(
        $(#[$doc:meta])*
        $variant:ident {
            server: $($def:ident)::+ $(, $reference:ident)?;
            client: $request:ident $(, $unit:ident)? $({ $($fields:tt)* })?;
            paths: [$($method:ident: $path:literal),+];
            answer: $answer:ty;
            $(series: $series:ty; aggregate: $agg_method:ident -> $agg:ty;)?
        }
    )*) => {
        /// The data endpoints answered from the cache (`/status` is separate: see
        /// [`endpoints::status`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Endpoint {
            $($(#[$doc])* $variant,)*
        }

        // Each definition answers the type the table declares.
        $(const _: fn(<endpoints::$($def)::+ as EndpointDef>::Response) -> $answer = |r| r;)*

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
                    $(Endpoint::$variant => endpoint_enum!(@reference $($reference)?),)*
                }
            }

            /// What the OpenAPI document publishes for the endpoint (docs per path, parameters,
            /// body schema), from its [`EndpointDef`] and the table's answer type.
            pub fn description(self) -> Description {
                match self {
                    $(Endpoint::$variant => {
                        Description::new::<$answer>(
                            <endpoints::$($def)::+ as EndpointDef>::DOCS,
                            <endpoints::$($def)::+ as EndpointDef>::parameters(),
                        )
                    })*
                }
            }

            fn run(
                self,
                cache: &DataCache,
                p: &QueryParams<'_>,
                ctx: &ParseContext<'_>,
            ) -> Result<QueryResponse, QueryError> {
                match self {
                    $(Endpoint::$variant => answer::<endpoints::$($def)::+>(cache, p, ctx),)*
                }
            }
        }
    };
    (@reference reference) => { true };
    (@reference) => { false };
}

gridprint_responses::endpoint_table!(endpoint_enum);

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
    Ok(E::try_answer(cache, &E::parse(p, ctx)?)?.into())
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
