//! `/generation`: raw generation per production type.

use super::common::{MW, entries, raw_groups, zone_series};
use super::{EndpointDef, RequestedWindow};
use crate::cache::DataCache;
use crate::describe::{ProductionFilter, location_time_and};
use crate::error::QueryError;
use crate::group::{FlagPair, GroupEntry};
use crate::params::{
    ParseContext, QueryParams, TimeWindow, ZoneSelection, production_type, zones_and_window,
};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::zone::ZoneIdx;
use gridprint_responses::{GenerationResult, ProductionBlock};
use time::OffsetDateTime;
use utoipa::openapi::path::Parameter;

/// `/generation` and `/mix`: the zones, the window and an optional production type.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct ProductionRequest {
    pub zones: ZoneSelection,
    pub window: TimeWindow,
    pub production_type: Option<ProductionType>,
}

impl RequestedWindow for ProductionRequest {
    fn requested_window(&self) -> Option<(OffsetDateTime, OffsetDateTime)> {
        self.window.requested
    }
}

/// `/generation`: raw generation per production type, grouped by flags, then by type, data state and
/// datasource.
pub fn generation(cache: &DataCache, req: &ProductionRequest) -> Vec<GenerationResult> {
    let groups = |z| {
        let series = cache.inputs(z).generation.iter().copied();
        let wanted = series.filter(|&(pt, _)| req.production_type.is_none_or(|f| f == pt));
        raw_groups(cache, z, &req.window, wanted)
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

/// `/generation`: location, time, `production_type` (pumped storage rejected as a filter).
pub struct GenerationEndpoint;

impl EndpointDef for GenerationEndpoint {
    type Request = ProductionRequest;
    type Response = Vec<GenerationResult>;
    const DOCS: &'static str = "Generation per production type (MW), as reported by the provider or estimated.\n\nEach series entry holds one block per production type, data state and datasource.";

    fn parameters() -> Vec<Parameter> {
        production_parameters()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<ProductionRequest, QueryError> {
        parse_production(p, ctx)
    }

    fn answer(
        cache: &DataCache,
        req: &ProductionRequest,
    ) -> Result<Vec<GenerationResult>, QueryError> {
        Ok(generation(cache, req))
    }
}

/// The parameters of `/generation` and `/mix`: location, time, `production_type`.
pub(super) fn production_parameters() -> Vec<Parameter> {
    location_time_and::<ProductionFilter>()
}

/// Reads the request of `/generation` and `/mix` (pumped storage is rejected as a filter).
pub(super) fn parse_production(
    p: &QueryParams<'_>,
    ctx: &ParseContext<'_>,
) -> Result<ProductionRequest, QueryError> {
    let (zones, window) = zones_and_window(p, ctx)?;
    Ok(ProductionRequest {
        zones,
        window,
        production_type: production_type(p, false)?,
    })
}
