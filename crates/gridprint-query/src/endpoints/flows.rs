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
            g.push(
                p,
                (k as u32, st, ds),
                Point {
                    slot,
                    value: v as f64,
                },
            )
        });
    }
    // Partners are sorted by code, so their position orders them.
    g.finish(|a, b| a.0.cmp(&b.0).then_with(|| cmp(a.1, a.2, b.1, b.2)))
}

/// `/imports`: flows into the zone, by source.
pub fn imports(cache: &DataCache, req: &FlowsRequest) -> Vec<ImportsResult> {
    let mut out = Vec::new();
    for (z, code) in zones_of(cache, &req.zones) {
        let flows = &cache.inputs(z).imports;
        let entries = flow_entries(cache, z, flows, req);
        if entries.is_empty() {
            continue;
        }
        let series = entries
            .into_iter()
            .map(|e| ImportsEntry {
                valid: e.pair.0,
                zone_status: e.pair.1,
                imports: e
                    .leaves
                    .into_iter()
                    .map(|((k, st, ds), pts)| ImportBlock {
                        source: flows[k as usize].0.clone(),
                        data_state: st,
                        datasource: cache.datasource(ds).to_string(),
                        values: Values(pts),
                    })
                    .collect(),
            })
            .collect();
        out.push(ImportsResult {
            zone: code,
            unit: MW,
            series,
        });
    }
    out
}

/// `/exports`: flows out of the zone, by destination.
pub fn exports(cache: &DataCache, req: &FlowsRequest) -> Vec<ExportsResult> {
    let mut out = Vec::new();
    for (z, code) in zones_of(cache, &req.zones) {
        let flows = &cache.inputs(z).exports;
        let entries = flow_entries(cache, z, flows, req);
        if entries.is_empty() {
            continue;
        }
        let series = entries
            .into_iter()
            .map(|e| ExportsEntry {
                valid: e.pair.0,
                zone_status: e.pair.1,
                exports: e
                    .leaves
                    .into_iter()
                    .map(|((k, st, ds), pts)| ExportBlock {
                        destination: flows[k as usize].0.clone(),
                        data_state: st,
                        datasource: cache.datasource(ds).to_string(),
                        values: Values(pts),
                    })
                    .collect(),
            })
            .collect();
        out.push(ExportsResult {
            zone: code,
            unit: MW,
            series,
        });
    }
    out
}

/// `/imports`: location, `source_*` location, time.
pub struct Imports;

impl EndpointDef for Imports {
    type Request = FlowsRequest;
    type Response = Vec<ImportsResult>;

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<FlowsRequest, QueryError> {
        let (zones, requested) = primary(p, ctx)?;
        let partners = partner(p, ctx, "source_")?;
        Ok(FlowsRequest {
            zones,
            window: window(p, ctx, requested)?,
            partners,
        })
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

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<FlowsRequest, QueryError> {
        let (zones, requested) = primary(p, ctx)?;
        let partners = partner(p, ctx, "destination_")?;
        Ok(FlowsRequest {
            zones,
            window: window(p, ctx, requested)?,
            partners,
        })
    }

    fn answer(cache: &DataCache, req: &FlowsRequest) -> Vec<ExportsResult> {
        exports(cache, req)
    }
}
