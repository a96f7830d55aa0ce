//! `/load`: raw load.

use super::*;

pub fn load(cache: &DataCache, req: &LoadRequest) -> Vec<LoadResult> {
    let cmp = ds_cmp(cache);
    let mut out = Vec::new();
    for (z, code) in zones_of(cache, &req.zones) {
        let Some(id) = cache.inputs(z).load else {
            continue;
        };
        let mut g: Grouper<(DataState, u16)> = Grouper::new();
        raw_points(
            cache,
            cache.derived(z),
            id,
            &req.window,
            |p, slot, v, st, ds| {
                g.push(
                    p,
                    (st, ds),
                    Point {
                        slot,
                        value: v as f64,
                    },
                )
            },
        );
        if g.is_empty() {
            continue;
        }
        let series = g
            .finish(|a, b| cmp(a.0, a.1, b.0, b.1))
            .into_iter()
            .map(|e| LoadEntry {
                valid: e.pair.0,
                zone_status: e.pair.1,
                blocks: e
                    .leaves
                    .into_iter()
                    .map(|((st, ds), pts)| StateBlock {
                        data_state: st,
                        datasource: cache.datasource(ds).to_string(),
                        values: Values(pts),
                    })
                    .collect(),
            })
            .collect();
        out.push(LoadResult {
            zone: code,
            unit: MW,
            series,
        });
    }
    out
}

/// `/load`: location and time.
pub struct Load;

impl EndpointDef for Load {
    type Request = LoadRequest;
    type Response = Vec<LoadResult>;

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<LoadRequest, QueryError> {
        let (zones, window) = zones_and_window(p, ctx)?;
        Ok(LoadRequest { zones, window })
    }

    fn answer(cache: &DataCache, req: &LoadRequest) -> Vec<LoadResult> {
        load(cache, req)
    }
}
