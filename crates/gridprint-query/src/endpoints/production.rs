//! `/generation` and `/mix` as one endpoint type: both read the same request (location, time,
//! `production_type`, pumped storage rejected as a filter) and answer the same shape, so
//! [`ProductionEndpoint`] differs between them only by its OpenAPI text and by which answer it
//! gives, both kept in the endpoint's own module ([`super::generation`], [`super::mix`]). Like `ScoreEndpoint`
//! (score.rs), a const parameter tells the two apart.

use super::EndpointDef;
use super::generation::{GENERATION_DOCS, ProductionRequest, generation};
use super::mix::{MIX_DOCS, mix};
use crate::cache::DataCache;
use crate::error::QueryError;
use crate::params::{ParseContext, selection, time_window};
use gridprint_responses::GenerationResult;
use gridprint_responses::query::series::ProductionQuery;

/// `/generation` (`ProductionEndpoint<false>`) and `/mix` (`ProductionEndpoint<true>`): location,
/// time, `production_type` (pumped storage rejected as a filter).
pub struct ProductionEndpoint<const MIX: bool>;

/// `/generation`: raw generation per production type.
pub type GenerationEndpoint = ProductionEndpoint<false>;

/// `/mix`: the flow-traced consumed mix, in the shape of [`GenerationEndpoint`]'s answers.
pub type MixEndpoint = ProductionEndpoint<true>;

impl<const MIX: bool> EndpointDef for ProductionEndpoint<MIX> {
    type Query = ProductionQuery<MIX>;
    type Request = ProductionRequest;
    type Response = Vec<GenerationResult>;
    const DOCS: &'static str = if MIX { MIX_DOCS } else { GENERATION_DOCS };

    fn request(
        q: ProductionQuery<MIX>,
        ctx: &ParseContext<'_>,
    ) -> Result<ProductionRequest, QueryError> {
        Ok(ProductionRequest {
            zones: selection(&q.location, ctx)?,
            window: time_window(q.window, ctx),
            production_type: q.production_type,
        })
    }

    fn answer(
        cache: &DataCache,
        req: &ProductionRequest,
    ) -> Result<Vec<GenerationResult>, QueryError> {
        Ok(if MIX {
            mix(cache, req)
        } else {
            generation(cache, req)
        })
    }
}
