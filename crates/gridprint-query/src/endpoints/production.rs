//! `/generation` and `/mix` as one endpoint type: both read the same request (location, time,
//! `production_type`, pumped storage rejected as a filter) and answer the same shape, so
//! [`ProductionEndpoint`] differs between them only by its OpenAPI text and by which answer it
//! gives, both kept in the endpoint's own module ([`super::generation`], [`super::mix`]). Like `ScoreEndpoint`
//! (score.rs), a const parameter tells the two apart.

use super::EndpointDef;
use super::generation::{GENERATION_DOCS, ProductionRequest, generation};
use super::mix::{MIX_DOCS, mix};
use crate::cache::DataCache;
use crate::describe::{ProductionFilter, location_time_and};
use crate::error::QueryError;
use crate::params::{ParseContext, QueryParams, production_type, zones_and_window};
use gridprint_responses::GenerationResult;
use utoipa::openapi::path::Parameter;

/// `/generation` (`ProductionEndpoint<false>`) and `/mix` (`ProductionEndpoint<true>`): location,
/// time, `production_type` (pumped storage rejected as a filter).
pub struct ProductionEndpoint<const MIX: bool>;

/// `/generation`: raw generation per production type.
pub type GenerationEndpoint = ProductionEndpoint<false>;

/// `/mix`: the flow-traced consumed mix, in the shape of [`GenerationEndpoint`]'s answers.
pub type MixEndpoint = ProductionEndpoint<true>;

impl<const MIX: bool> EndpointDef for ProductionEndpoint<MIX> {
    type Request = ProductionRequest;
    type Response = Vec<GenerationResult>;
    const DOCS: &'static str = if MIX { MIX_DOCS } else { GENERATION_DOCS };

    fn parameters() -> Vec<Parameter> {
        location_time_and::<ProductionFilter>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<ProductionRequest, QueryError> {
        let (zones, window) = zones_and_window(p, ctx)?;
        Ok(ProductionRequest {
            zones,
            window,
            production_type: production_type(p, false)?,
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
