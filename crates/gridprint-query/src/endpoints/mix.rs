//! `/mix`: the flow-traced consumed mix.

use super::EndpointDef;
use super::common::{FLOW_TRACING, keep_non_negative, push_derived, state_of_status};
use super::generation::{
    ProductionRequest, parse_production, production_answer, production_parameters,
};
use crate::cache::DataCache;
use crate::error::QueryError;
use crate::group::Grouper;
use crate::params::{ParseContext, QueryParams};
use gridprint_core::derived::SeriesKey;
use gridprint_core::production::ProductionType;
use gridprint_responses::MixResult;
use utoipa::openapi::path::Parameter;

/// `/mix`: flow-traced consumption per production type (datasource `flow_tracing`).
pub fn mix(cache: &DataCache, req: &ProductionRequest) -> Vec<MixResult> {
    let groups = |z| {
        let derived = cache.derived(z);
        let mut g = Grouper::new();
        for pt in ProductionType::ALL {
            if req.production_type.is_none_or(|f| f == pt) {
                let key = SeriesKey::Mix(pt);
                push_derived(&mut g, derived, &key, &req.window, keep_non_negative, pt);
            }
        }
        g.finish(|a, b| a.cmp(b))
    };
    production_answer(cache, &req.zones, groups, |(_, status), pt| {
        (pt, state_of_status(status), FLOW_TRACING.to_string())
    })
}

/// `/mix`: location, time, `production_type` (pumped storage rejected).
pub struct MixEndpoint;

impl EndpointDef for MixEndpoint {
    type Request = ProductionRequest;
    type Response = Vec<MixResult>;
    const DOCS: &'static str = "The consumed mix (MW of each production type consumed in the zone after flow tracing).\n\nSame shape as `/generation`, datasource `flow_tracing`.";

    fn parameters() -> Vec<Parameter> {
        production_parameters()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<ProductionRequest, QueryError> {
        parse_production(p, ctx)
    }

    fn answer(cache: &DataCache, req: &ProductionRequest) -> Result<Vec<MixResult>, QueryError> {
        Ok(mix(cache, req))
    }
}
