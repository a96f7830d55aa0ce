//! `/imports` and `/exports`: physical flows into and out of a zone, per partner zone.

use super::*;
use crate::cache::ZoneInputs;

/// Groups the flows of one zone (imports or exports) by flags, then partner, data state, datasource.
fn flow_entries(
    cache: &DataCache,
    z: ZoneIdx,
    flows: &[(ZoneCode, u32)],
    req: &FlowsRequest,
) -> Vec<GroupEntry<(u32, DataState, u16)>> {
    let cmp = ds_cmp(cache);
    let derived = cache.derived(z);
    let mut g: Grouper<(u32, DataState, u16)> = Grouper::new();
    for (k, (partner, id)) in flows.iter().enumerate() {
        if !req.partners.accepts(partner) {
            continue;
        }
        raw_points(cache, derived, *id, &req.window, |p, slot, v, st, ds| {
            g.push(p, (k as u32, st, ds), point(slot, v))
        });
    }
    // Partners are sorted by code, so their position orders them.
    g.finish(|a, b| a.0.cmp(&b.0).then_with(|| cmp(a.1, a.2, b.1, b.2)))
}

/// One `zone, unit, series` item per zone of the flows `side` picks (imports or exports), each
/// block made by `block(partner, data state, datasource, points)`.
fn flow_answer<R: ZoneSeries>(
    cache: &DataCache,
    req: &FlowsRequest,
    side: fn(&ZoneInputs) -> &[(ZoneCode, u32)],
    block: fn(ZoneCode, DataState, String, Values) -> <R::Entry as FlagEntry>::Block,
) -> Vec<R>
where
    R::Entry: FlagEntry,
{
    let group = |z| {
        let flows = side(cache.inputs(z));
        entries(
            flow_entries(cache, z, flows, req),
            |_, (k, state, ds), values| {
                let partner = flows[k as usize].0.clone();
                block(partner, state, cache.datasource(ds).to_string(), values)
            },
        )
    };
    zone_series(cache, &req.zones, MW, group)
}

/// `/imports`: flows into the zone, by source.
pub fn imports(cache: &DataCache, req: &FlowsRequest) -> Vec<ImportsResult> {
    flow_answer(cache, req, |i| &i.imports, ImportBlock::new)
}

/// `/exports`: flows out of the zone, by destination.
pub fn exports(cache: &DataCache, req: &FlowsRequest) -> Vec<ExportsResult> {
    flow_answer(cache, req, |i| &i.exports, ExportBlock::new)
}

endpoint! {
    /// `/imports`: location, `source_*` location, time.
    Imports(Partners<SourceParams>) -> Vec<ImportsResult> = imports,
    docs: ["Physical flows into the zone (MW), per source zone."];
    /// `/exports`: location, `destination_*` location, time.
    Exports(Partners<DestinationParams>) -> Vec<ExportsResult> = exports,
    docs: ["Physical flows out of the zone (MW), per destination zone."];
}
