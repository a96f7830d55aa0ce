//! `/mix`: the flow-traced consumed mix (its endpoint type, shared with `/generation`, is in
//! production.rs).

use super::common::{FLOW_TRACING, keep_non_negative, push_derived, state_of_status};
use super::generation::{ProductionRequest, production_answer};
use crate::cache::DataCache;
use crate::group::Grouper;
use gridprint_core::derived::SeriesKey;
use gridprint_core::production::ProductionType;
use gridprint_responses::MixResult;

/// `/mix`'s OpenAPI summary and description ([`super::EndpointDef::DOCS`]).
pub(super) const MIX_DOCS: &str = "The consumed mix (MW of each production type consumed in the zone after flow tracing).\n\nSame shape as `/generation`, datasource `flow_tracing`.";

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
