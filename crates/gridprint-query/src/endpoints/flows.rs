//! `/imports` and `/exports`: physical flows into and out of a zone, per partner zone.

use super::*;

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

/// `/imports`: flows into the zone, by source.
pub fn imports(cache: &DataCache, req: &FlowsRequest) -> Vec<ImportsResult> {
    let group = |z| {
        let flows = &cache.inputs(z).imports;
        entries(
            flow_entries(cache, z, flows, req),
            |_, (k, data_state, ds), values| ImportBlock {
                source: flows[k as usize].0.clone(),
                data_state,
                datasource: cache.datasource(ds).to_string(),
                values,
            },
        )
    };
    zone_series(cache, &req.zones, MW, group)
}

/// `/exports`: flows out of the zone, by destination.
pub fn exports(cache: &DataCache, req: &FlowsRequest) -> Vec<ExportsResult> {
    let group = |z| {
        let flows = &cache.inputs(z).exports;
        entries(
            flow_entries(cache, z, flows, req),
            |_, (k, data_state, ds), values| ExportBlock {
                destination: flows[k as usize].0.clone(),
                data_state,
                datasource: cache.datasource(ds).to_string(),
                values,
            },
        )
    };
    zone_series(cache, &req.zones, MW, group)
}

/// `/imports`: location, `source_*` location, time.
pub struct Imports;

impl EndpointDef for Imports {
    type Request = FlowsRequest;
    type Response = Vec<ImportsResult>;
    const DOCS: &'static [&'static str] = &["Physical flows into the zone (MW), per source zone."];

    fn parameters() -> Vec<Parameter> {
        location_partner_time::<SourceParams>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<FlowsRequest, QueryError> {
        with_partners(p, ctx, "source_")
    }

    fn answer(cache: &DataCache, req: &FlowsRequest) -> Vec<ImportsResult> {
        imports(cache, req)
    }
}

/// `/exports`: location, `destination_*` location, time.
pub struct Exports;

impl EndpointDef for Exports {
    type Request = FlowsRequest;
    type Response = Vec<ExportsResult>;
    const DOCS: &'static [&'static str] =
        &["Physical flows out of the zone (MW), per destination zone."];

    fn parameters() -> Vec<Parameter> {
        location_partner_time::<DestinationParams>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<FlowsRequest, QueryError> {
        with_partners(p, ctx, "destination_")
    }

    fn answer(cache: &DataCache, req: &FlowsRequest) -> Vec<ExportsResult> {
        exports(cache, req)
    }
}
