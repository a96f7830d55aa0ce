//! gridprint-query: answers every `/v1` data endpoint from memory, without HTTP.
//!
//! The flow is: [`DataCache`] loads derived days and raw inputs once from the store into compact
//! columns ([`cache`]); each endpoint module in [`endpoints`] resolves its wire query (read from
//! the pairs by gridprint-responses' `query`, docs/api.md §2) into its typed request with
//! [`params`] (lat/lon through the polygon index of [`geo`]) and builds its answer from the cache as one of the [`responses`] types, which serialize to JSON
//! quickly or to long-format [`csv`]. [`QueryService`] bundles it:
//! `service.query::<FootprintsEndpoint>(&pairs, now)?.to_json()`.
//!
//! Nothing here does I/O per request; the only store access is loading and refreshing the cache.

#![forbid(unsafe_code)]

pub mod answer;
pub mod cache;
pub mod country;
pub mod csv;
pub mod endpoints;
pub mod error;
pub mod geo;
mod group;
pub mod params;
pub mod service;

pub use answer::QueryResponse;
pub use cache::{CacheStats, CacheVersion, DataCache, LoadOptions, SharedCache, Spill};
pub use endpoints::{EndpointDef, RequestedWindow};
pub use error::{FieldError, QueryError};
pub use geo::{GeoError, ZoneLocator};
/// The response types (shared with the client).
pub use gridprint_responses as responses;
pub use service::{QueryService, ServiceError, parse, run};

#[cfg(test)]
mod tests {
    /// The HTTP layer shares one service between its workers.
    #[test]
    fn service_is_shareable() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<crate::QueryService>();
        assert_send_sync::<crate::DataCache>();
        assert_send_sync::<crate::QueryResponse>();
    }
}
