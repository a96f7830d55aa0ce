//! `/mix`: the flow-traced consumed mix.

use super::*;

/// `/mix`: flow-traced consumption per production type (datasource `flow_tracing`).
pub fn mix(cache: &DataCache, req: &MixRequest) -> Vec<MixResult> {
    let mut out = Vec::new();
    for (z, code) in zones_of(cache, &req.zones) {
        let derived = cache.derived(z);
        let mut g: Grouper<ProductionType> = Grouper::new();
        for pt in ProductionType::ALL {
            if req.production_type.is_some_and(|f| f != pt) {
                continue;
            }
            push_derived(
                &mut g,
                derived,
                &SeriesKey::Mix(pt),
                &req.window,
                keep_non_negative,
                pt,
            );
        }
        if g.is_empty() {
            continue;
        }
        let series = g
            .finish(|a, b| a.cmp(b))
            .into_iter()
            .map(|e| GenerationEntry {
                valid: e.pair.0,
                zone_status: e.pair.1,
                production: e
                    .leaves
                    .into_iter()
                    .map(|(pt, pts)| ProductionBlock {
                        production_type: pt,
                        data_state: state_of_status(e.pair.1),
                        datasource: FLOW_TRACING.to_string(),
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

/// `/mix`: location, time, `production_type` (pumped storage rejected).
pub struct Mix;

impl EndpointDef for Mix {
    type Request = MixRequest;
    type Response = Vec<MixResult>;

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<MixRequest, QueryError> {
        let (zones, window) = zones_and_window(p, ctx)?;
        Ok(MixRequest {
            zones,
            window,
            production_type: production_type(p, false)?,
        })
    }

    fn answer(cache: &DataCache, req: &MixRequest) -> Vec<MixResult> {
        mix(cache, req)
    }
}
