//! The `/v1` data endpoints, one module each: its typed request, how it resolves its wire query
//! (gridprint-responses' `query`: the parameters as read, written and documented) into that
//! request, and how it answers from the cache.
//!
//! Every endpoint is a unit struct `XxxEndpoint` implementing [`EndpointDef`] (the flow and share
//! endpoints of one partner side through [`flows::PartnerEndpointDef`]); the HTTP layer routes
//! each path to one of them (gridprint-api `data.rs`, `data_router`: one line per path), and
//! [`crate::service::QueryService::query`] answers one by its type. The rules the answers follow
//! are in docs/api.md §2–§6; the pieces the modules share are in [`common`].

pub mod availability;
pub mod best_window;
mod common;
pub mod derived;
pub mod factors;
pub mod flows;
pub mod footprints;
pub mod forecast_accuracy;
pub mod generation;
pub mod impacts;
pub mod load;
pub mod mix;
pub mod production;
pub mod score;
pub mod shares;
pub mod status;
pub mod zones;

pub use availability::AvailabilityEndpoint;
pub use best_window::BestWindowEndpoint;
pub use factors::FactorsEndpoint;
pub use flows::{ExportsEndpoint, ImportsEndpoint};
pub use footprints::FootprintsEndpoint;
pub use forecast_accuracy::ForecastAccuracyEndpoint;
pub use impacts::ImpactsEndpoint;
pub use load::LoadEndpoint;
pub use production::{GenerationEndpoint, MixEndpoint};
pub use score::{EnvironmentalScoreEndpoint, GreenScoreEndpoint};
pub use shares::{
    FlowShareEndpoint, FootprintShareEndpoint, ImpactShareEndpoint, MixShareEndpoint,
};
pub use zones::ZonesEndpoint;

use crate::cache::DataCache;
use crate::error::QueryError;
use crate::params::ParseContext;
use gridprint_responses::query::WireQuery;
use gridprint_responses::{Answer, BodySchema};
use std::hash::Hash;
use time::OffsetDateTime;

/// One `/v1` data endpoint: its wire query, how it resolves that into a typed request and how it
/// answers that request from a cache snapshot.
pub trait EndpointDef {
    /// The query as read from the pairs, written by the client and listed in the OpenAPI document
    /// (its parameters, in order; `format` is added for all).
    type Query: WireQuery;
    /// The typed request, read once from the query string. Its `Hash` is the request's identity
    /// for the response cache and the `ETag`: two queries that read into equal requests share them.
    type Request: RequestedWindow + Hash + Send + 'static;
    /// The answer (a response type of `gridprint-responses`).
    type Response: Answer + BodySchema + Send + 'static;
    /// The OpenAPI summary (first paragraph) and description (the rest).
    const DOCS: &'static str;
    /// Whether the endpoint answers from the reference data alone (served while the store is down
    /// or the cache is loading).
    const FROM_REFERENCE: bool = false;
    /// Whether every answer may cost more than a millisecond or two whatever its window
    /// (availability reads every run of every zone, best-window searches every placement): the
    /// HTTP layer renders those on its bounded pool, like long windows.
    const COSTLY: bool = false;
    /// Resolves the query (read by [`WireQuery::from_pairs`], which reports the first problem
    /// found) into the request: zone indices, countries, slots, "now" ([`crate::params`]).
    fn request(query: Self::Query, ctx: &ParseContext<'_>) -> Result<Self::Request, QueryError>;
    /// Answers the request from a cache snapshot, or refuses one that can only be judged against
    /// the data (best-window: a job longer than a window that ends where the data ends).
    fn answer(cache: &DataCache, req: &Self::Request) -> Result<Self::Response, QueryError>;
}

/// A typed request's `start` and `end` as the request gave them, if it did (the HTTP layer sizes
/// the work and names the data version of the answer by them). Each request type implements it
/// beside its definition.
pub trait RequestedWindow {
    fn requested_window(&self) -> Option<(OffsetDateTime, OffsetDateTime)>;
}

/// `/zones` takes no parameters, hence no window.
impl RequestedWindow for () {
    fn requested_window(&self) -> Option<(OffsetDateTime, OffsetDateTime)> {
        None
    }
}
