//! `/mix`: the flow-traced consumed mix.

use super::generation::production_answer;
use super::*;

/// `/mix`: flow-traced consumption per production type (datasource `flow_tracing`).
pub fn mix(cache: &DataCache, req: &MixRequest) -> Vec<MixResult> {
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

endpoint! {
    /// `/mix`: location, time, `production_type` (pumped storage rejected).
    Mix(ProductionFilter) -> Vec<MixResult> = mix,
    docs: ["The consumed mix (MW of each production type consumed in the zone after flow tracing).\n\nSame shape as `/generation`, datasource `flow_tracing`."];
}
