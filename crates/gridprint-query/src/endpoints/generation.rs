//! `/generation`: raw generation per production type (its endpoint type, shared with `/mix`, is in
//! production.rs).

use super::RequestedWindow;
use super::common::{MW, entries, raw_groups, zone_series};
use crate::cache::DataCache;
use crate::group::{FlagPair, GroupEntry};
use crate::params::{TimeWindow, ZoneSelection};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::zone::ZoneIdx;
use gridprint_responses::{GenerationResult, ProductionBlock};
use time::OffsetDateTime;

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

/// `/generation`'s OpenAPI summary and description ([`super::EndpointDef::DOCS`]).
pub(super) const GENERATION_DOCS: &str = "Generation per production type (MW), as reported by the provider or estimated.\n\nEach series entry holds one block per production type, data state and datasource.";

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
