//! The share endpoints, computed at query time from the stored exchanges: `/flow-share`,
//! `/mix-share`, `/footprint-share`, `/impact-share`.

use super::EndpointDef;
use super::common::{PERCENT, WATER, WATER_IMPACT_UNIT, per_zone};
use super::common::{entries, pair, zone_series, zones_of};
use super::flows::{PartnerEndpointDef, PartnerRequest, partner_request};
use super::footprints::{FootprintRequest, footprint_choice};
use crate::cache::DataCache;
use crate::cache::day_spans;
use crate::error::QueryError;
use crate::group::{GroupEntry, Grouper};
use crate::params::ParseContext;
use gridprint_core::derived::{Coverage, SeriesKey};
use gridprint_core::reference::Scope;
use gridprint_core::zone::{ZoneCode, ZoneIdx};
use gridprint_responses::query::partners::PartnerParts;
use gridprint_responses::query::{
    FlowShareQuery, FootprintShareQuery, ImpactShareQuery, MixShareQuery,
};
use gridprint_responses::{DestinationBlock, OriginBlock, Point, SourceBlock, SourceEntry};
use gridprint_responses::{
    FlowShareResult, FootprintShareResult, ImpactShareResult, MixShareResult,
};

/// What a consumer-side share multiplies the fraction X\[i\]\[j\]/L_i by.
#[derive(Clone, Copy)]
enum Weight<'k> {
    /// 100: the share in % (mix-share).
    Percent,
    /// The origin's own column at the same slot (its local footprint or local impact), read whether
    /// or not the origin has flags (external sources keep local values without flags).
    OriginColumn(&'k SeriesKey),
}

/// Consumer-side shares of zone `z` (docs/api.md §5): for every `Exchange { origin }` column of the zone
/// whose origin `req` accepts, X\[z\]\[origin\] / L_z × weight, at the zone's computed slots in `req`'s
/// window. Blocks are keyed by position in key order, which is origin-code order.
fn consumer_shares(
    cache: &DataCache,
    z: ZoneIdx,
    req: &PartnerRequest,
    weight: Weight<'_>,
) -> (Vec<ZoneCode>, Vec<GroupEntry<u32>>) {
    let zones = &cache.reference().zones;
    let d = cache.derived(z);
    let mut g: Grouper<u32> = Grouper::new();
    let mut names = Vec::new();
    let Some(lcol) = d.column(&SeriesKey::Consumption) else {
        return (names, Vec::new());
    };
    for (key, xcol) in d.columns() {
        let SeriesKey::Exchange { origin } = key else {
            continue;
        };
        if !req.partners.accepts(origin) {
            continue;
        }
        let origin_col = match weight {
            Weight::Percent => None,
            Weight::OriginColumn(k) => {
                let Some(od) = zones.index_of(origin).map(|o| cache.derived(o)) else {
                    continue;
                };
                let Some(oc) = od.column(k) else { continue };
                Some((od, oc))
            }
        };
        let k = names.len() as u32;
        names.push(origin.clone());
        for span in day_spans(d.days(), req.window.range) {
            let (Some(x), Some(l)) = (d.chunk(xcol, span.pos), d.chunk(lcol, span.pos)) else {
                continue;
            };
            let w = match origin_col {
                None => None,
                Some((od, oc)) => match od.chunk_of_day(oc, span.day) {
                    Some(c) => Some(c),
                    None => continue,
                },
            };
            let flags = d.flags(span.pos);
            for i in span.lo..span.hi {
                if !flags[i].present() {
                    continue;
                }
                let f = f64::from(x[i]) / f64::from(l[i]);
                let v = match w {
                    None => 100.0 * f,
                    Some(w) => f * f64::from(w[i]),
                };
                if v.is_finite() {
                    g.push(
                        pair(flags[i]),
                        k,
                        Point {
                            slot: span.slot(i),
                            value: v,
                        },
                    );
                }
            }
        }
    }
    (names, g.finish(|a, b| a.cmp(b)))
}

/// `/flow-share`: % of the zone's generation consumed in each destination (itself included):
/// 100 · X\[destination\]\[zone\] / G_zone, read from the destinations' `Exchange { origin: zone }`
/// columns, with the zone's flags.
pub fn flow_share(cache: &DataCache, req: &PartnerRequest) -> Vec<FlowShareResult> {
    let zones = &cache.reference().zones;
    let mut out = Vec::new();
    for (j, code) in zones_of(cache, &req.zones) {
        let d = cache.derived(j);
        let Some(gcol) = d.column(&SeriesKey::Generation) else {
            continue;
        };
        let me = SeriesKey::Exchange {
            origin: code.clone(),
        };
        let mut g: Grouper<u32> = Grouper::new();
        let mut names = Vec::new();
        for &i in cache.exchange_destinations(j) {
            let dest = zones.code(i);
            if !req.partners.accepts(dest) {
                continue;
            }
            let di = cache.derived(i);
            let Some(xcol) = di.column(&me) else { continue };
            let k = names.len() as u32;
            names.push(dest.clone());
            for span in day_spans(d.days(), req.window.range) {
                let (Some(gen_), Some(x)) =
                    (d.chunk(gcol, span.pos), di.chunk_of_day(xcol, span.day))
                else {
                    continue;
                };
                let flags = d.flags(span.pos);
                for s in span.lo..span.hi {
                    let v = 100.0 * f64::from(x[s]) / f64::from(gen_[s]);
                    if flags[s].present() && v.is_finite() {
                        g.push(
                            pair(flags[s]),
                            k,
                            Point {
                                slot: span.slot(s),
                                value: v,
                            },
                        );
                    }
                }
            }
        }
        let series = entries(g.finish(|a, b| a.cmp(b)), |_, k, values| DestinationBlock {
            destination: names[k as usize].clone(),
            values,
        });
        if !series.is_empty() {
            out.push(FlowShareResult {
                zone: code,
                unit: PERCENT,
                series,
            });
        }
    }
    out
}

/// `/mix-share`: % of the zone's consumption coming from each origin (itself included):
/// 100 · X\[zone\]\[origin\] / L_zone.
pub fn mix_share(cache: &DataCache, req: &PartnerRequest) -> Vec<MixShareResult> {
    let group = |z| {
        let (names, groups) = consumer_shares(cache, z, req, Weight::Percent);
        entries(groups, |_, k, values| OriginBlock {
            origin: names[k as usize].clone(),
            values,
        })
    };
    zone_series(cache, &req.zones, PERCENT, group)
}

fn source_entries(names: &[ZoneCode], groups: Vec<GroupEntry<u32>>) -> Vec<SourceEntry> {
    entries(groups, |_, k, values| SourceBlock {
        source: names[k as usize].clone(),
        values,
    })
}

/// `/footprint-share`: the zone's global footprint split by source zone, X\[zone\]\[source\] / L_zone ×
/// the source's local footprint (blocks sum to the global footprint).
pub fn footprint_share(
    cache: &DataCache,
    req: &FootprintRequest<PartnerRequest>,
) -> Vec<FootprintShareResult> {
    let mut out = Vec::new();
    for (z, code) in zones_of(cache, &req.base.zones) {
        for &ft in &req.footprint_types {
            let local = SeriesKey::Footprint {
                footprint_type: ft,
                scope: req.scope,
                coverage: Coverage::Local,
            };
            let (names, entries) =
                consumer_shares(cache, z, &req.base, Weight::OriginColumn(&local));
            if entries.is_empty() {
                continue;
            }
            out.push(FootprintShareResult {
                zone: code.clone(),
                footprint_type: ft,
                scope: req.scope,
                unit: ft.unit(),
                series: source_entries(&names, entries),
            });
        }
    }
    out
}

/// `/impact-share`: the zone's global water impact split by source zone, X\[zone\]\[source\] / L_zone ×
/// the source's local impact.
pub fn impact_share(cache: &DataCache, req: &PartnerRequest) -> Vec<ImpactShareResult> {
    let local = SeriesKey::Impact {
        coverage: Coverage::Local,
    };
    let group = |z| {
        let weight = Weight::OriginColumn(&local);
        let (names, groups) = consumer_shares(cache, z, req, weight);
        source_entries(&names, groups)
    };
    per_zone(cache, &req.zones, group, |zone, series| ImpactShareResult {
        zone,
        impact_type: WATER,
        scope: Scope::Operational,
        unit: WATER_IMPACT_UNIT,
        series,
    })
}

/// `/flow-share`: location, `destination_*` location, time.
pub struct FlowShareEndpoint;

impl PartnerEndpointDef for FlowShareEndpoint {
    type Query = FlowShareQuery;
    const PREFIX: &'static str = "destination_";
    fn parts(q: FlowShareQuery) -> PartnerParts {
        (q.location, q.destination, q.window)
    }
    const DOCS: &'static str =
        "Where the zone's generation is consumed: % per destination zone (itself included).";
    type Response = Vec<FlowShareResult>;

    fn answer(cache: &DataCache, req: &PartnerRequest) -> Vec<FlowShareResult> {
        flow_share(cache, req)
    }
}

/// `/mix-share`: location, `origin_*` location, time.
pub struct MixShareEndpoint;

impl PartnerEndpointDef for MixShareEndpoint {
    type Query = MixShareQuery;
    const PREFIX: &'static str = "origin_";
    fn parts(q: MixShareQuery) -> PartnerParts {
        (q.location, q.origin, q.window)
    }
    const DOCS: &'static str =
        "Where the zone's consumption is generated: % per origin zone (itself included).";
    type Response = Vec<MixShareResult>;

    fn answer(cache: &DataCache, req: &PartnerRequest) -> Vec<MixShareResult> {
        mix_share(cache, req)
    }
}

/// `/footprint-share`: location, `source_*` location, time, `footprint_type` (default both),
/// `scope` (default life-cycle).
pub struct FootprintShareEndpoint;

impl EndpointDef for FootprintShareEndpoint {
    type Query = FootprintShareQuery;
    type Request = FootprintRequest<PartnerRequest>;
    type Response = Vec<FootprintShareResult>;
    const DOCS: &'static str = "The zone's global footprint split by the zone the power comes from (blocks sum to the footprint).";

    fn request(
        q: FootprintShareQuery,
        ctx: &ParseContext<'_>,
    ) -> Result<FootprintRequest<PartnerRequest>, QueryError> {
        let base = partner_request((q.location, q.source, q.window), "source_", ctx)?;
        Ok(FootprintRequest::new(
            base,
            footprint_choice(q.footprint_type, q.scope),
        ))
    }

    fn answer(
        cache: &DataCache,
        req: &FootprintRequest<PartnerRequest>,
    ) -> Result<Vec<FootprintShareResult>, QueryError> {
        Ok(footprint_share(cache, req))
    }
}

/// `/impact-share`: location, `source_*` location, time, `impact_type` (water), `scope`
/// (operational): the sources' parameters, then `impact_type` and `scope`, which only accept their
/// one value.
pub struct ImpactShareEndpoint;

impl EndpointDef for ImpactShareEndpoint {
    type Query = ImpactShareQuery;
    type Request = PartnerRequest;
    type Response = Vec<ImpactShareResult>;
    const DOCS: &'static str =
        "The zone's global water impact split by the zone the power comes from.";

    /// The impact type and scope have one value each: the query only checked them.
    fn request(q: ImpactShareQuery, ctx: &ParseContext<'_>) -> Result<PartnerRequest, QueryError> {
        partner_request((q.location, q.source, q.window), "source_", ctx)
    }

    fn answer(
        cache: &DataCache,
        req: &PartnerRequest,
    ) -> Result<Vec<ImpactShareResult>, QueryError> {
        Ok(impact_share(cache, req))
    }
}
