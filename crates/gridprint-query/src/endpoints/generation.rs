//! `/generation`: raw generation per production type.

use super::*;

pub fn generation(cache: &DataCache, req: &GenerationRequest) -> Vec<GenerationResult> {
    let cmp = ds_cmp(cache);
    let mut out = Vec::new();
    for (z, code) in zones_of(cache, &req.zones) {
        let derived = cache.derived(z);
        let mut g: Grouper<(ProductionType, DataState, u16)> = Grouper::new();
        for &(pt, id) in &cache.inputs(z).generation {
            if req.production_type.is_some_and(|f| f != pt) {
                continue;
            }
            raw_points(cache, derived, id, &req.window, |p, slot, v, st, ds| {
                g.push(
                    p,
                    (pt, st, ds),
                    Point {
                        slot,
                        value: v as f64,
                    },
                )
            });
        }
        if g.is_empty() {
            continue;
        }
        let series = g
            .finish(|a, b| a.0.cmp(&b.0).then_with(|| cmp(a.1, a.2, b.1, b.2)))
            .into_iter()
            .map(|e| GenerationEntry {
                valid: e.pair.0,
                zone_status: e.pair.1,
                production: e
                    .leaves
                    .into_iter()
                    .map(|((pt, st, ds), pts)| ProductionBlock {
                        production_type: pt,
                        data_state: st,
                        datasource: cache.datasource(ds).to_string(),
                        values: Values(pts),
                    })
                    .collect(),
            })
            .collect();
        out.push(GenerationResult {
            zone: code,
            unit: MW,
            series,
        });
    }
    out
}

/// `/generation`: location, time, `production_type` (pumped storage rejected as a filter).
pub struct Generation;

impl EndpointDef for Generation {
    type Request = GenerationRequest;
    type Response = Vec<GenerationResult>;

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
