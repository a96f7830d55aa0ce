//! One function per `/v1` endpoint: a typed request and the cache in, the response structs out.
//!
//! Rules applied here (api-contract §2–§3), with the choices the contract leaves open:
//!
//! - Results are ordered by zone code, then by type (carbon before water); blocks inside a series
//!   entry by their key (production type, then data state official < estimated < missing, then
//!   datasource name; partner zones by code). A result without any point in the window is left out,
//!   so an unknown zone, an empty store or a filter matching nothing all give `[]`.
//! - Points that are NaN (no value) are never returned; negative values are dropped except on the
//!   share endpoints (flow-share, mix-share, footprint-share, impact-share), which return every finite
//!   value, zeros included.
//! - Flags of derived series come from the zone's stored [`SlotFlags`] (as written by the compute; a
//!   slot without computed flags has no derived value). Raw inputs (generation, load, imports,
//!   exports) take the flags of their zone's slot from the derived flags too; where the zone has no
//!   computed flags for the slot they fall back to the point's own data state (official → complete,
//!   estimated → preview, missing → missing) and `valid` by the contract's rule at the request's "now"
//!   ([`valid_flag`]: final when older than `floor15(now) − 4 h`, else only when complete).
//! - Shares are computed at query time from the stored exchanges (row i of X: `Exchange { origin }`
//!   in zone i's days) and the zones' `Generation` and `Consumption` (contract §5): mix-share
//!   100·X\[i\]\[j\]/L_i, flow-share 100·X\[i\]\[j\]/G_j (read from every destination's exchange naming the
//!   zone), footprint-share X\[i\]\[j\]/L_i × local footprint of j, impact-share X\[i\]\[j\]/L_i × local
//!   impact of j (the origin's local value is read whether or not it has flags: external sources keep
//!   local values without flags). Flags are those of the result's zone. Share columns stored under the
//!   older keys (`MixShare`, `FlowShare`, `FootprintShare`, `ImpactShare`) are not read.
//! - `/mix` reports the flow-traced mix with datasource `flow_tracing` and a data state derived from
//!   the slot's zone status: complete → official, preview → estimated, missing → missing.
//! - Aggregates: the time-weighted mean of the step function of the returned points (each holds until
//!   the next, the last until `end`, clipped to [start, end]); when that covers no time (start == end)
//!   the plain mean of the points. `valid` is true only if every point is valid, `zone_status` is the
//!   worst present. A zone without points in the window gets no aggregate.
//! - `/factors`: factors are constant in time. Without dates the series is one point at the current
//!   slot; with dates one point at the window's first slot; with dates and `aggregate=true` the
//!   aggregate shape with the factor as value, `valid` true and `zone_status` complete.

use crate::cache::{ABSENT, DataCache, DerivedZone, day_spans};
use crate::group::{FlagPair, GroupEntry, Grouper};
use crate::params::{
    FactorsRequest, FlowsRequest, FootprintShareRequest, FootprintsRequest, GenerationRequest,
    ImpactsRequest, LoadRequest, MixRequest, PartnerFilter, ShareRequest, TimeWindow,
};
use gridprint_responses::*;
use gridprint_core::derived::{Coverage, SeriesKey, SlotFlags};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::{DataState, ZoneStatus, valid_flag};
use gridprint_core::reference::{ReferenceData, Scope};
use gridprint_core::slot::{Slot, format_timestamp};
use gridprint_core::zone::{ZoneCode, ZoneIdx};
use time::OffsetDateTime;

/// Datasource of the flow-traced mix.
pub const FLOW_TRACING: &str = "flow_tracing";
/// Unit of power series.
pub const MW: &str = "MW";
/// Unit of shares.
pub const PERCENT: &str = "%";
/// Unit of water impacts.
pub const WATER_IMPACT_UNIT: &str = "stress-l/kWh";
/// The only impact type.
pub const WATER: &str = "water";

fn status_of_state(s: DataState) -> ZoneStatus {
    match s {
        DataState::Official => ZoneStatus::Complete,
        DataState::Estimated => ZoneStatus::Preview,
        DataState::Missing => ZoneStatus::Missing,
    }
}

fn state_of_status(s: ZoneStatus) -> DataState {
    match s {
        ZoneStatus::Complete => DataState::Official,
        ZoneStatus::Preview => DataState::Estimated,
        ZoneStatus::Missing => DataState::Missing,
    }
}

fn pair(f: SlotFlags) -> FlagPair {
    (f.valid(), f.status())
}

fn keep_non_negative(v: f32) -> bool {
    v >= 0.0
}

/// Calls `f(flags, slot, value, state, datasource)` for each non-negative point of a raw series in the
/// window, with the flags of zone's slot (derived, or the fallback documented above).
fn raw_points(
    cache: &DataCache,
    derived: &DerivedZone,
    series: u32,
    window: &TimeWindow,
    mut f: impl FnMut(FlagPair, Slot, f32, DataState, u16),
) {
    let s = cache.input_series(series);
    for span in day_spans(s.days(), window.range) {
        let d = s.day(span.pos);
        let flags = derived.flags_of_day(span.day);
        for i in span.lo..span.hi {
            if d.states[i] == ABSENT {
                continue;
            }
            let v = d.values[i];
            if !(v.is_finite() && v >= 0.0) {
                continue;
            }
            let state = DataState::from_u8(d.states[i]).unwrap_or(DataState::Missing);
            let slot = span.slot(i);
            let p = match flags.map(|fl| fl[i]) {
                Some(fl) if fl.present() => pair(fl),
                _ => {
                    let st = status_of_state(state);
                    (valid_flag(slot, st, window.now), st)
                }
            };
            f(p, slot, v, state, d.sources[i]);
        }
    }
}

/// Pushes every kept value of a derived series into a grouper under `key`.
fn push_derived<K: Copy + PartialEq>(
    g: &mut Grouper<K>,
    derived: &DerivedZone,
    series: &SeriesKey,
    window: &TimeWindow,
    keep: fn(f32) -> bool,
    key: K,
) {
    derived.for_each_value(series, window.range, |slot, fl, v| {
        if keep(v) {
            g.push(
                pair(fl),
                key,
                Point {
                    slot,
                    value: v as f64,
                },
            );
        }
    });
}

/// The flag entries of one derived series (one block per entry).
fn flag_series(derived: &DerivedZone, series: &SeriesKey, window: &TimeWindow) -> Vec<FlagSeries> {
    let mut g = Grouper::new();
    push_derived(&mut g, derived, series, window, keep_non_negative, ());
    g.finish(|_, _| std::cmp::Ordering::Equal)
        .into_iter()
        .map(|e| FlagSeries {
            valid: e.pair.0,
            zone_status: e.pair.1,
            values: Values(e.leaves.into_iter().next().map(|l| l.1).unwrap_or_default()),
        })
        .collect()
}

/// An aggregate before it gets its descriptive fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aggregated {
    pub value: f64,
    pub valid: bool,
    pub zone_status: ZoneStatus,
}

fn seconds(t: OffsetDateTime) -> f64 {
    t.unix_timestamp() as f64 + f64::from(t.nanosecond()) * 1e-9
}

/// Time-weighted mean of a step function: each `(t, v)` (unix seconds, ascending) holds until the next
/// point, the last until `end`, every piece clipped to [start, end]. When the pieces cover no time,
/// the plain mean. `None` without points.
pub fn time_weighted_mean(points: &[(f64, f64)], start: f64, end: f64) -> Option<f64> {
    if points.is_empty() {
        return None;
    }
    let (mut sum, mut weight) = (0.0, 0.0);
    for (k, &(t, v)) in points.iter().enumerate() {
        let until = points.get(k + 1).map_or(end, |n| n.0).min(end);
        let d = until - t.max(start);
        if d > 0.0 {
            sum += v * d;
            weight += d;
        }
    }
    Some(if weight > 0.0 {
        sum / weight
    } else {
        points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64
    })
}

fn aggregate_derived(
    derived: &DerivedZone,
    series: &SeriesKey,
    window: &TimeWindow,
) -> Option<Aggregated> {
    let (start, end) = window.requested?;
    let mut pts = Vec::new();
    let (mut valid, mut status) = (true, ZoneStatus::Complete);
    derived.for_each_value(series, window.range, |slot, fl, v| {
        if keep_non_negative(v) {
            pts.push((slot.unix() as f64, v as f64));
            valid &= fl.valid();
            status = status.min(fl.status());
        }
    });
    let value = time_weighted_mean(&pts, seconds(start), seconds(end))?;
    Some(Aggregated {
        value,
        valid,
        zone_status: status,
    })
}

fn requested_strings(window: &TimeWindow) -> (String, String) {
    let (s, e) = window.requested.expect("aggregates need start and end");
    (format_timestamp(s), format_timestamp(e))
}

fn zones_of(cache: &DataCache, sel: &crate::params::ZoneSelection) -> Vec<(ZoneIdx, ZoneCode)> {
    let zones = &cache.reference().zones;
    sel.indices(zones)
        .into_iter()
        .map(|i| (i, zones.code(i).clone()))
        .collect()
}

/// `/zones`: every zone of the reference data, sorted by code.
pub fn zones(reference: &ReferenceData) -> Vec<ZoneInfo> {
    let mut out: Vec<ZoneInfo> = reference
        .zones
        .iter()
        .map(|z| ZoneInfo {
            zone: z.code.clone(),
            full_name: z.full_name.clone(),
            eic_code: z.eic_code.clone(),
            country_code: z.country_code.clone(),
            country_name: z.country_name.clone(),
            provider: z.provider.as_str(),
            neighbours: z.neighbours.clone(),
        })
        .collect();
    out.sort_by(|a, b| a.zone.cmp(&b.zone));
    out
}

fn ds_cmp<'c>(
    cache: &'c DataCache,
) -> impl Fn(DataState, u16, DataState, u16) -> std::cmp::Ordering + 'c {
    move |sa, da, sb, db| {
        sa.cmp(&sb)
            .then_with(|| cache.datasource(da).cmp(cache.datasource(db)))
    }
}

/// `/generation`: raw generation per production type, grouped by flags, then by type, data state and
/// datasource.
pub fn generation(cache: &DataCache, req: &GenerationRequest) -> Vec<GenerationResult> {
    let cmp = ds_cmp(cache);
    let mut out = Vec::new();
    for (z, code) in zones_of(cache, &req.zones) {
        let derived = cache.derived(z);
        let mut g: Grouper<(ProductionType, DataState, u16)> = Grouper::new();
        for &(pt, id) in &cache.inputs(z).generation {
            if req.production_type.is_some_and(|f| f != pt) {
                continue;
            }
            raw_points(cache, derived, id, &req.window, |p, slot, v, st, ds| {
                g.push(
                    p,
                    (pt, st, ds),
                    Point {
                        slot,
                        value: v as f64,
                    },
                )
            });
        }
        if g.is_empty() {
            continue;
        }
        let series = g
            .finish(|a, b| a.0.cmp(&b.0).then_with(|| cmp(a.1, a.2, b.1, b.2)))
            .into_iter()
            .map(|e| GenerationEntry {
                valid: e.pair.0,
                zone_status: e.pair.1,
                production: e
                    .leaves
                    .into_iter()
                    .map(|((pt, st, ds), pts)| ProductionBlock {
                        production_type: pt,
                        data_state: st,
                        datasource: cache.datasource(ds).to_string(),
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

/// `/load`: raw load, grouped by flags, then data state and datasource.
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

/// `/footprints`: one result per zone and footprint type (series or aggregate).
pub fn footprints(cache: &DataCache, req: &FootprintsRequest) -> Footprints {
    let zones = zones_of(cache, &req.zones);
    let key = |ft| SeriesKey::Footprint {
        footprint_type: ft,
        scope: req.scope,
        coverage: req.coverage,
    };
    if req.aggregate {
        let (start, end) = requested_strings(&req.window);
        let mut out = Vec::new();
        for (z, code) in zones {
            for &ft in &req.footprint_types {
                if let Some(a) = aggregate_derived(cache.derived(z), &key(ft), &req.window) {
                    out.push(FootprintAggregate {
                        footprint_type: ft,
                        scope: req.scope,
                        zone: code.clone(),
                        unit: ft.unit(),
                        coverage: req.coverage,
                        start: start.clone(),
                        end: end.clone(),
                        value: a.value,
                        valid: a.valid,
                        zone_status: a.zone_status,
                        aggregation_method: TIME_WEIGHTED_AVERAGE,
                    });
                }
            }
        }
        return Footprints::Aggregate(out);
    }
    let mut out = Vec::new();
    for (z, code) in zones {
        for &ft in &req.footprint_types {
            let series = flag_series(cache.derived(z), &key(ft), &req.window);
            if !series.is_empty() {
                out.push(FootprintResult {
                    footprint_type: ft,
                    scope: req.scope,
                    zone: code.clone(),
                    unit: ft.unit(),
                    coverage: req.coverage,
                    series,
                });
            }
        }
    }
    Footprints::Series(out)
}

/// `/impacts`: water impact (operational) per zone (series or aggregate).
pub fn impacts(cache: &DataCache, req: &ImpactsRequest) -> Impacts {
    let zones = zones_of(cache, &req.zones);
    let key = SeriesKey::Impact {
        coverage: req.coverage,
    };
    if req.aggregate {
        let (start, end) = requested_strings(&req.window);
        let out = zones
            .into_iter()
            .filter_map(|(z, code)| {
                let a = aggregate_derived(cache.derived(z), &key, &req.window)?;
                Some(ImpactAggregate {
                    impact_type: WATER,
                    scope: Scope::Operational,
                    zone: code,
                    unit: WATER_IMPACT_UNIT,
                    coverage: req.coverage,
                    start: start.clone(),
                    end: end.clone(),
                    value: a.value,
                    valid: a.valid,
                    zone_status: a.zone_status,
                    aggregation_method: TIME_WEIGHTED_AVERAGE,
                })
            })
            .collect();
        return Impacts::Aggregate(out);
    }
    Impacts::Series(
        zones
            .into_iter()
            .filter_map(|(z, code)| {
                let series = flag_series(cache.derived(z), &key, &req.window);
                (!series.is_empty()).then_some(ImpactResult {
                    impact_type: WATER,
                    scope: Scope::Operational,
                    zone: code,
                    unit: WATER_IMPACT_UNIT,
                    coverage: req.coverage,
                    series,
                })
            })
            .collect(),
    )
}

/// `/green-score` and `/environmental-score`: the score (operational) per zone.
pub fn score(cache: &DataCache, req: &ImpactsRequest) -> Scores {
    let zones = zones_of(cache, &req.zones);
    let key = SeriesKey::Score {
        coverage: req.coverage,
    };
    if req.aggregate {
        let (start, end) = requested_strings(&req.window);
        let out = zones
            .into_iter()
            .filter_map(|(z, code)| {
                let a = aggregate_derived(cache.derived(z), &key, &req.window)?;
                Some(ScoreAggregate {
                    scope: Scope::Operational,
                    zone: code,
                    coverage: req.coverage,
                    start: start.clone(),
                    end: end.clone(),
                    value: a.value,
                    valid: a.valid,
                    zone_status: a.zone_status,
                    aggregation_method: TIME_WEIGHTED_AVERAGE,
                })
            })
            .collect();
        return Scores::Aggregate(out);
    }
    Scores::Series(
        zones
            .into_iter()
            .filter_map(|(z, code)| {
                let series = flag_series(cache.derived(z), &key, &req.window);
                (!series.is_empty()).then_some(ScoreResult {
                    scope: Scope::Operational,
                    zone: code,
                    coverage: req.coverage,
                    series,
                })
            })
            .collect(),
    )
}

/// What a consumer-side share multiplies the fraction X\[i\]\[j\]/L_i by.
#[derive(Clone, Copy)]
enum Weight<'k> {
    /// 100: the share in % (mix-share).
    Percent,
    /// The origin's own column at the same slot (its local footprint or local impact), read whether
    /// or not the origin has flags (external sources keep local values without flags).
    OriginColumn(&'k SeriesKey),
}

/// Consumer-side shares of zone `z` (contract §5): for every `Exchange { origin }` column of the zone,
/// X\[z\]\[origin\] / L_z × weight, at the zone's computed slots. Blocks are keyed by position in key
/// order, which is origin-code order.
fn consumer_shares(
    cache: &DataCache,
    z: ZoneIdx,
    window: &TimeWindow,
    partners: &PartnerFilter,
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
        if !partners.accepts(origin) {
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
        for span in day_spans(d.days(), window.range) {
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
pub fn flow_share(cache: &DataCache, req: &ShareRequest) -> Vec<FlowShareResult> {
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
        if g.is_empty() {
            continue;
        }
        let series = g
            .finish(|a, b| a.cmp(b))
            .into_iter()
            .map(|e| FlowShareEntry {
                valid: e.pair.0,
                zone_status: e.pair.1,
                flows: e
                    .leaves
                    .into_iter()
                    .map(|(k, pts)| DestinationBlock {
                        destination: names[k as usize].clone(),
                        values: Values(pts),
                    })
                    .collect(),
            })
            .collect();
        out.push(FlowShareResult {
            zone: code,
            unit: PERCENT,
            series,
        });
    }
    out
}

/// `/mix-share`: % of the zone's consumption coming from each origin (itself included):
/// 100 · X\[zone\]\[origin\] / L_zone.
pub fn mix_share(cache: &DataCache, req: &ShareRequest) -> Vec<MixShareResult> {
    let mut out = Vec::new();
    for (z, code) in zones_of(cache, &req.zones) {
        let (names, entries) =
            consumer_shares(cache, z, &req.window, &req.partners, Weight::Percent);
        if entries.is_empty() {
            continue;
        }
        let series = entries
            .into_iter()
            .map(|e| MixShareEntry {
                valid: e.pair.0,
                zone_status: e.pair.1,
                shares: e
                    .leaves
                    .into_iter()
                    .map(|(k, pts)| OriginBlock {
                        origin: names[k as usize].clone(),
                        values: Values(pts),
                    })
                    .collect(),
            })
            .collect();
        out.push(MixShareResult {
            zone: code,
            unit: PERCENT,
            series,
        });
    }
    out
}

fn source_entries(names: &[ZoneCode], entries: Vec<GroupEntry<u32>>) -> Vec<SourceEntry> {
    entries
        .into_iter()
        .map(|e| SourceEntry {
            valid: e.pair.0,
            zone_status: e.pair.1,
            blocks: e
                .leaves
                .into_iter()
                .map(|(k, pts)| SourceBlock {
                    source: names[k as usize].clone(),
                    values: Values(pts),
                })
                .collect(),
        })
        .collect()
}

/// `/footprint-share`: the zone's global footprint split by source zone, X\[zone\]\[source\] / L_zone ×
/// the source's local footprint (blocks sum to the global footprint).
pub fn footprint_share(
    cache: &DataCache,
    req: &FootprintShareRequest,
) -> Vec<FootprintShareResult> {
    let mut out = Vec::new();
    for (z, code) in zones_of(cache, &req.zones) {
        for &ft in &req.footprint_types {
            let local = SeriesKey::Footprint {
                footprint_type: ft,
                scope: req.scope,
                coverage: Coverage::Local,
            };
            let (names, entries) = consumer_shares(
                cache,
                z,
                &req.window,
                &req.partners,
                Weight::OriginColumn(&local),
            );
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
pub fn impact_share(cache: &DataCache, req: &ShareRequest) -> Vec<ImpactShareResult> {
    let local = SeriesKey::Impact {
        coverage: Coverage::Local,
    };
    let mut out = Vec::new();
    for (z, code) in zones_of(cache, &req.zones) {
        let (names, entries) = consumer_shares(
            cache,
            z,
            &req.window,
            &req.partners,
            Weight::OriginColumn(&local),
        );
        if entries.is_empty() {
            continue;
        }
        out.push(ImpactShareResult {
            zone: code,
            impact_type: WATER,
            scope: Scope::Operational,
            unit: WATER_IMPACT_UNIT,
            series: source_entries(&names, entries),
        });
    }
    out
}

/// `/factors`: emission/consumption factors of the reference data, filtered.
pub fn factors(reference: &ReferenceData, req: &FactorsRequest) -> Factors {
    let list = reference.factors.list().iter().filter(|f| {
        req.factor_types.contains(&f.factor_type)
            && req.scope.is_none_or(|s| s == f.scope)
            && req.production_type.is_none_or(|p| p == f.production_type)
    });
    if req.aggregate && req.window.requested.is_some() {
        let (start, end) = requested_strings(&req.window);
        return Factors::Aggregate(
            list.map(|f| FactorAggregate {
                factor_type: f.factor_type,
                production_type: f.production_type,
                scope: f.scope,
                unit: f.unit.clone(),
                source: f.source.clone(),
                year: f.year,
                source_link: f.source_link.clone(),
                start: start.clone(),
                end: end.clone(),
                value: f.value,
                valid: true,
                zone_status: ZoneStatus::Complete,
                aggregation_method: TIME_WEIGHTED_AVERAGE,
            })
            .collect(),
        );
    }
    let slot = req.window.range.start;
    Factors::Series(
        list.map(|f| FactorResult {
            factor_type: f.factor_type,
            production_type: f.production_type,
            scope: f.scope,
            unit: f.unit.clone(),
            source: f.source.clone(),
            year: f.year,
            source_link: f.source_link.clone(),
            series: vec![PlainSeries {
                values: Values(vec![Point {
                    slot,
                    value: f.value,
                }]),
            }],
        })
        .collect(),
    )
}

/// States of the upstream providers, as the caller tracks them (e.g. `up`, `down`, `unknown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderStates<'a> {
    pub entsoe: &'a str,
    pub elexon: &'a str,
    pub epias: &'a str,
}

/// `/status`: storage up or down and the providers' states.
pub fn status(storage_up: bool, providers: ProviderStates<'_>) -> StatusResponse {
    StatusResponse {
        storage: if storage_up { "up" } else { "down" },
        entsoe: providers.entsoe.to_string(),
        elexon: providers.elexon.to_string(),
        epias: providers.epias.to_string(),
    }
}

/// `/status/{component}`: the one key (`storage`, `entso-e`, `elexon`, `epias`, case-insensitive) as
/// a JSON object; 404 for another name.
pub fn status_component(
    status: &StatusResponse,
    component: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, crate::QueryError> {
    let key = component.trim().to_ascii_lowercase();
    let value = match key.as_str() {
        "storage" => status.storage.to_string(),
        "entso-e" => status.entsoe.clone(),
        "elexon" => status.elexon.clone(),
        "epias" => status.epias.clone(),
        _ => {
            return Err(crate::QueryError::not_found(
                "unknown status component: expected storage, entso-e, elexon or epias",
            ));
        }
    };
    let mut m = serde_json::Map::new();
    m.insert(key, serde_json::Value::String(value));
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_mean_by_hand() {
        // 0..900 s: 10, 900..1800: 20, 1800..end(2000): 40; start at 300.
        let pts = [(0.0, 10.0), (900.0, 20.0), (1800.0, 40.0)];
        let v = time_weighted_mean(&pts, 300.0, 2000.0).unwrap();
        let want = (10.0 * 600.0 + 20.0 * 900.0 + 40.0 * 200.0) / 1700.0;
        assert!((v - want).abs() < 1e-9, "{v} vs {want}");
        assert_eq!(time_weighted_mean(&[(0.0, 7.0)], 0.0, 0.0), Some(7.0));
        assert_eq!(time_weighted_mean(&[], 0.0, 10.0), None);
    }
}
