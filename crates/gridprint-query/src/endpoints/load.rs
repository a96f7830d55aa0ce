//! `/load`: raw load.

use super::*;

/// `/load`: raw load, grouped by flags, then data state and datasource.
pub fn load(cache: &DataCache, req: &LoadRequest) -> Vec<LoadResult> {
    let cmp = ds_cmp(cache);
    let group = |z| {
        let Some(id) = cache.inputs(z).load else {
            return Vec::new();
        };
        let mut g = Grouper::new();
        raw_points(
            cache,
            cache.derived(z),
            id,
            &req.window,
            |p, slot, v, st, ds| g.push(p, (st, ds), point(slot, v)),
        );
        entries(
            g.finish(|a, b| cmp(a.0, a.1, b.0, b.1)),
            |_, (data_state, ds), values| {
                StateBlock::new(data_state, cache.datasource(ds).to_string(), values)
            },
        )
    };
    zone_series(cache, &req.zones, MW, group)
}

endpoint! {
    /// `/load`: location and time.
    Load(LoadParams) -> Vec<LoadResult> = load,
    docs: ["Load (MW)."];
}

/// The parameters of `/load`: location and time only.
pub struct LoadParams;

impl RequestParams for LoadParams {
    type Request = LoadRequest;

    fn parameters() -> Vec<Parameter> {
        [params_of::<LocationParams>(), params_of::<TimeParams>()].concat()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<LoadRequest, QueryError> {
        let (zones, window) = zones_and_window(p, ctx)?;
        Ok(LoadRequest { zones, window })
    }
}
