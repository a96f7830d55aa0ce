//! `/generation`: raw generation per production type.

use super::*;

/// `/generation`: raw generation per production type, grouped by flags, then by type, data state and
/// datasource.
pub fn generation(cache: &DataCache, req: &GenerationRequest) -> Vec<GenerationResult> {
    let cmp = ds_cmp(cache);
    let group = |z| {
        let derived = cache.derived(z);
        let mut g = Grouper::new();
        for &(pt, id) in &cache.inputs(z).generation {
            if req.production_type.is_none_or(|f| f == pt) {
                raw_points(cache, derived, id, &req.window, |p, slot, v, st, ds| {
                    g.push(p, (pt, st, ds), point(slot, v))
                });
            }
        }
        let groups = g.finish(|a, b| a.0.cmp(&b.0).then_with(|| cmp(a.1, a.2, b.1, b.2)));
        entries(
            groups,
            |_, (production_type, data_state, ds), values| ProductionBlock {
                production_type,
                data_state,
                datasource: cache.datasource(ds).to_string(),
                values,
            },
            |valid, zone_status, production| GenerationEntry {
                valid,
                zone_status,
                production,
            },
        )
    };
    per_zone(cache, &req.zones, group, |zone, series| GenerationResult {
        zone,
        unit: MW,
        series,
    })
}

/// `/generation`: location, time, `production_type` (pumped storage rejected as a filter).
pub struct Generation;

impl EndpointDef for Generation {
    type Request = GenerationRequest;
    type Response = Vec<GenerationResult>;
    const DOCS: &'static [&'static str] = &[
        "Generation per production type (MW), as reported by the provider or estimated.\n\nEach series entry holds one block per production type, data state and datasource.",
    ];

    fn parameters() -> Vec<Parameter> {
        [
            params_of::<LocationParams>(),
            params_of::<TimeParams>(),
            params_of::<ProductionFilter>(),
        ]
        .concat()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<GenerationRequest, QueryError> {
        let (zones, window) = zones_and_window(p, ctx)?;
        Ok(GenerationRequest {
            zones,
            window,
            production_type: production_type(p, false)?,
        })
    }

    fn answer(cache: &DataCache, req: &GenerationRequest) -> Vec<GenerationResult> {
        generation(cache, req)
    }
}
