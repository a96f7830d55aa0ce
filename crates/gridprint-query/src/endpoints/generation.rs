//! `/generation`: raw generation per production type.

use super::*;

/// `/generation`: raw generation per production type, grouped by flags, then by type, data state and
/// datasource.
pub fn generation(cache: &DataCache, req: &GenerationRequest) -> Vec<GenerationResult> {
    let cmp = ds_cmp(cache);
    let groups = |z| {
        let derived = cache.derived(z);
        let mut g = Grouper::new();
        for &(pt, id) in &cache.inputs(z).generation {
            if req.production_type.is_none_or(|f| f == pt) {
                raw_points(cache, derived, id, &req.window, |p, slot, v, st, ds| {
                    g.push(p, (pt, st, ds), point(slot, v))
                });
            }
        }
        g.finish(|a, b| a.0.cmp(&b.0).then_with(|| cmp(a.1, a.2, b.1, b.2)))
    };
    production_answer(cache, &req.zones, groups, |_, (pt, st, ds)| {
        (pt, st, cache.datasource(ds).to_string())
    })
}

/// The answer of `/generation` and `/mix`: per zone, series entries of production blocks.
/// `groups(zone)` groups the zone's points; `block(flags, key)` gives the production type, data
/// state and datasource of a group's block.
pub(super) fn production_answer<K>(
    cache: &DataCache,
    zones: &ZoneSelection,
    mut groups: impl FnMut(ZoneIdx) -> Vec<GroupEntry<K>>,
    block: impl Fn(FlagPair, K) -> (ProductionType, DataState, String),
) -> Vec<GenerationResult> {
    let group = |z| {
        entries(groups(z), |flags, key, values| {
            let (production_type, data_state, datasource) = block(flags, key);
            ProductionBlock::new(production_type, data_state, datasource, values)
        })
    };
    zone_series(cache, zones, MW, group)
}

endpoint! {
    /// `/generation`: location, time, `production_type` (pumped storage rejected as a filter).
    Generation(ProductionFilter) -> Vec<GenerationResult> = generation,
    docs: ["Generation per production type (MW), as reported by the provider or estimated.\n\nEach series entry holds one block per production type, data state and datasource."];
}

/// The parameters of `/generation` and `/mix`: location, time, `production_type` (pumped storage
/// rejected as a filter).
impl RequestParams for ProductionFilter {
    type Request = GenerationRequest;

    fn parameters() -> Vec<Parameter> {
        location_time_and::<Self>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<GenerationRequest, QueryError> {
        let (zones, window) = zones_and_window(p, ctx)?;
        Ok(GenerationRequest {
            zones,
            window,
            production_type: production_type(p, false)?,
        })
    }
}
