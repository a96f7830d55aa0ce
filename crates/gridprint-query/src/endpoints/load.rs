//! `/load`: raw load.

use super::common::{MW, entries, raw_groups, zone_series};
use super::{EndpointDef, RequestedWindow};
use crate::cache::DataCache;
use crate::error::QueryError;
use crate::params::{ParseContext, TimeWindow, ZoneSelection, selection, time_window};
use gridprint_responses::query::LoadQuery;
use gridprint_responses::{LoadResult, StateBlock};
use time::OffsetDateTime;

/// `/load`: the zones and the window.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct LoadRequest {
    pub zones: ZoneSelection,
    pub window: TimeWindow,
}

impl RequestedWindow for LoadRequest {
    fn requested_window(&self) -> Option<(OffsetDateTime, OffsetDateTime)> {
        self.window.requested
    }
}

/// `/load`: raw load, grouped by flags, then data state and datasource.
pub fn load(cache: &DataCache, req: &LoadRequest) -> Vec<LoadResult> {
    let group = |z| {
        let series = cache.inputs(z).load.map(|id| ((), id));
        entries(
            raw_groups(cache, z, &req.window, series),
            |_, ((), data_state, ds), values| {
                StateBlock::new(data_state, cache.datasource(ds).to_string(), values)
            },
        )
    };
    zone_series(cache, &req.zones, MW, group)
}

/// `/load`: location and time.
pub struct LoadEndpoint;

impl EndpointDef for LoadEndpoint {
    type Query = LoadQuery;
    type Request = LoadRequest;
    type Response = Vec<LoadResult>;
    const DOCS: &'static str = "Load (MW).";

    fn request(q: LoadQuery, ctx: &ParseContext<'_>) -> Result<LoadRequest, QueryError> {
        Ok(LoadRequest {
            zones: selection(&q.location, ctx)?,
            window: time_window(q.window, ctx),
        })
    }

    fn answer(cache: &DataCache, req: &LoadRequest) -> Result<Vec<LoadResult>, QueryError> {
        Ok(load(cache, req))
    }
}
