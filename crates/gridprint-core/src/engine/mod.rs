//! The flow-tracing engine: one 15-minute slot of inputs for all zones in, every computed number
//! out (docs/api.md §5; explained in docs/methodology.md §1).
//!
//! [`trace_slot`] prepares the slot (its documentation lists the repairs it makes; a repaired zone
//! is `preview`, docs/api.md §6), hands total generation and flows to the tracer ([`mod@trace`]:
//! flow repairs and the matrix X of who consumes whose generation) and derives footprints, water
//! impact, scores and consumption mixes from X ([`footprint`]). The pure functions [`trace()`] and
//! [`global_from_local`] work on plain numbers, without reference data.
//!
//! Numeric outputs are finite and non-negative except the documented NaNs: local footprints, local
//! impact and local score when G = 0; global footprints, global impact and global score of a zone
//! without data (an external source) and of a zone with data when no zone generates anything.

pub mod footprint;
pub mod trace;

#[cfg(test)]
mod tests;

pub use footprint::{
    SCORE_CARBON_REFERENCE, SCORE_WATER_REFERENCE, aware_factors, consumption_mix,
    generation_total, global_from_local, local_footprint, production_shares, score, sum_through_x,
};
pub use trace::{Flow, Traced, trace};

use crate::inputs::{FlowInput, SlotInputs};
use crate::production::{N_TYPES, ProductionType};
use crate::reference::{FootprintType, ReferenceData, Scope};
use crate::slot::Slot;

/// Everything computed for one zone in one slot.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneResult {
    /// G: total generation (pumped storage excluded, unless counted as `storage`), MW.
    pub generation: f64,
    /// I: imports after repair, MW.
    pub imports: f64,
    /// E: exports after repair, MW.
    pub exports: f64,
    /// L = G + I − E: consumption, MW.
    pub consumption: f64,
    /// Local footprints `[footprint type][scope]` (indices of `FootprintType`/`Scope`); NaN when G = 0.
    pub footprint_local: [[f64; 2]; 2],
    /// Global (flow-traced) footprints; when L = 0 those of what the zone draws on (`drawn`), NaN
    /// when there is nothing (no generation anywhere, or a zone without data).
    pub footprint_global: [[f64; 2]; 2],
    /// Water impact (operational water footprint × AWARE monthly factor), stress-l/kWh; NaN when G = 0.
    pub impact_local: f64,
    /// Flow-traced water impact, stress-l/kWh; NaN where the global footprints are.
    pub impact_global: f64,
    /// Score 0..100 from local operational carbon footprint and water impact; NaN when G = 0.
    pub score_local: f64,
    /// Score 0..100 from global values; NaN where the global footprints are.
    pub score_global: f64,
    /// Flow-traced consumption mix per production type, MW (pumped storage always 0; sums to L).
    pub mix: [f64; N_TYPES],
    /// Whether the engine had to repair this zone's inputs (exports scaled down or dropped, imports from
    /// an external source, invalid generation values, or the zone is an external source).
    pub repaired: bool,
    /// Whether the zone had no generation data and was modelled as an external source.
    pub external: bool,
    /// Storage output counted in `generation` because the zone's exports exceeded the rest of its
    /// supply, MW (0 otherwise; `repaired`).
    pub storage: f64,
    /// Whether the zone consumes nothing (L = 0) and its global values describe what it draws on
    /// instead: its throughput, or the slot's average when nothing passes through (`repaired`).
    pub drawn: bool,
}

/// Result of one slot.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotResult {
    pub slot: Slot,
    /// Per zone index; `None` for a zone that took no part (no data and no flows to zones with data).
    pub zones: Vec<Option<ZoneResult>>,
    /// X, dense row-major n×n: `x[i * n + j]` is the MW generated in zone j and consumed in zone i.
    pub x: Vec<f64>,
    /// Flows as used after repair (scaled values; dropped flows left out).
    pub flows: Vec<FlowInput>,
}

impl SlotResult {
    /// Number of zones.
    pub fn n(&self) -> usize {
        self.zones.len()
    }
    /// `X[i][j]`: MW generated in zone j and consumed in zone i.
    pub fn x_at(&self, i: usize, j: usize) -> f64 {
        self.x[i * self.zones.len() + j]
    }
}

const CARBON: usize = 0;
const WATER: usize = 1;
const OPERATIONAL: usize = 1;
/// Values traced through X per source zone: the 16 production shares, the water impact, and one pad.
const TRACED: usize = N_TYPES + 2;
const IMPACT: usize = N_TYPES;

/// Traces one slot for every zone of `reference` (inputs indexed like `reference.zones`; missing
/// entries read as "no data").
///
/// Preparing the slot's inputs, and the repairs it makes:
///
/// - Generation values that are negative or not finite read as 0 (`repaired` on that zone).
/// - Flows that are negative, NaN, zero, from a zone to itself or name an unknown zone are ignored;
///   duplicate `(from, to)` entries are summed (worst data state kept).
/// - A zone without generation data (`generation[i] == None`) that exports to zones with data is
///   an **external source**: a node whose generation equals those exports (so it consumes
///   nothing), with the slot's generation-weighted average production mix of all zones with data.
///   Its **substitute footprint** is therefore the generation-weighted average local footprint of
///   every zone with data in the slot (and its water impact uses its own AWARE factor). It is
///   marked `external` and `repaired`, and every zone importing from it is `repaired`. If no zone
///   with data generates anything in the slot there is no average mix: the external source's flows
///   are dropped instead (importers `repaired`).
/// - Any other flow touching a zone without generation data (into it, or between two such zones)
///   is dropped, and its exporter, if it has data, is `repaired`.
/// - Zones with generation data always get a result (even isolated or with G = 0); zones without
///   data that are not external sources get `None`.
/// - **Storage discharging**: a zone with data whose reported exports exceed its generation plus
///   imports counts its pumped-storage output in its generation for the slot, with the mix of its
///   other generation (the slot's average mix if it has none); `repaired`, `storage` says how much.
/// - Exports that still exceed generation plus imports, and flows from loops no generation reaches,
///   are scaled down by [`trace()`]; the exporter is `repaired`.
/// - **A zone with data that consumes nothing** (its exports capped, a zero-generation report)
///   gets the global values of what it draws on: the composition of its throughput
///   ([`Traced::pool_rows`]), or, when nothing passes through it, the slot's generation-weighted
///   average of the zones with data (the substitute). `drawn` and `repaired`; its consumption
///   mix stays 0 MW (it consumes nothing). docs/methodology.md §1, "Exports larger than supply".
pub fn trace_slot(reference: &ReferenceData, inputs: &SlotInputs) -> SlotResult {
    debug_assert_eq!(FootprintType::Carbon.index(), CARBON);
    debug_assert_eq!(FootprintType::Water.index(), WATER);
    debug_assert_eq!(Scope::Operational.index(), OPERATIONAL);
    let n = reference.zones.len();

    // Generation per zone and type.
    let mut mix = vec![[0.0; N_TYPES]; n];
    let mut has_data = vec![false; n];
    let mut repaired = vec![false; n];
    for i in 0..n {
        if let Some(Some(gen_i)) = inputs.generation.get(i) {
            has_data[i] = true;
            for (m, &v) in mix[i].iter_mut().zip(gen_i) {
                if v.is_finite() && v >= 0.0 {
                    *m = v;
                } else {
                    repaired[i] = true;
                }
            }
        }
    }

    // Flows: clean, merge duplicates, classify by whether their ends have data.
    let mut flows: Vec<FlowInput> = inputs
        .flows
        .iter()
        .filter(|f| f.from < n && f.to < n && f.from != f.to && f.mw.is_finite() && f.mw > 0.0)
        .copied()
        .collect();
    flows.sort_by_key(|f| (f.from, f.to));
    flows.dedup_by(|b, a| {
        let same = (a.from, a.to) == (b.from, b.to);
        if same {
            a.mw += b.mw;
            a.state = a.state.max(b.state);
        }
        same
    });
    let mut external = vec![false; n];
    flows.retain(|f| match (has_data[f.from], has_data[f.to]) {
        (true, true) => true,
        (false, true) => {
            external[f.from] = true;
            true
        }
        (true, false) => {
            repaired[f.from] = true;
            false
        }
        (false, false) => false,
    });

    // The slot's production mix of all zones with data, summed (MW per type): the mix of external
    // sources, of storage output where a zone generates nothing else, and of the substitute.
    let mut avg = [0.0; N_TYPES];
    for i in (0..n).filter(|&i| has_data[i]) {
        for t in ProductionType::ALL.iter().filter(|t| t.counts_in_total()) {
            avg[t.index()] += mix[i][t.index()];
        }
    }
    let avg_total = generation_total(&avg);

    // External sources: generation = exports, mix = the slot's average mix of zones with data.
    let mut generation: Vec<f64> = (0..n)
        .map(|i| {
            if has_data[i] {
                generation_total(&mix[i])
            } else {
                0.0
            }
        })
        .collect();
    if external.iter().any(|&e| e) {
        if avg_total > 0.0 {
            for f in &flows {
                if external[f.from] {
                    generation[f.from] += f.mw;
                    repaired[f.to] = true;
                }
            }
            for i in (0..n).filter(|&i| external[i]) {
                repaired[i] = true;
                for (m, a) in mix[i].iter_mut().zip(&avg) {
                    *m = a / avg_total * generation[i];
                }
            }
        } else {
            flows.retain(|f| {
                if external[f.from] {
                    repaired[f.to] = true;
                }
                !external[f.from]
            });
            external.iter_mut().for_each(|e| *e = false);
        }
    }
    let storage = discharge_storage(
        &has_data,
        &flows,
        (&avg, avg_total),
        &mut generation,
        &mut mix,
    );
    for (r, &s) in repaired.iter_mut().zip(&storage) {
        *r |= s > 0.0;
    }

    let traced = trace::trace_prepared(
        generation,
        flows.iter().map(|f| (f.from, f.to, f.mw)).collect(),
    );
    for (r, &e) in repaired.iter_mut().zip(&traced.exports_repaired) {
        *r |= e;
    }
    let present: Vec<bool> = (0..n).map(|i| has_data[i] || external[i]).collect();

    // Local values per zone, then global ones through X.
    let aware = aware_factors(&reference.aware, n, inputs.slot.month());
    let mut local = [
        [vec![f64::NAN; n], vec![f64::NAN; n]],
        [vec![f64::NAN; n], vec![f64::NAN; n]],
    ];
    for ft in FootprintType::ALL {
        for sc in Scope::ALL {
            let table = reference.factors.table(ft, sc);
            let col = &mut local[ft.index()][sc.index()];
            for i in (0..n).filter(|&i| present[i]) {
                col[i] = local_footprint(&mix[i], table);
            }
        }
    }
    let impact_local: Vec<f64> = (0..n)
        .map(|i| local[WATER][OPERATIONAL][i] * aware[i])
        .collect();
    // One pass over X traces the production shares and the water impact of every source together;
    // global footprints then follow from the consumption mix, Σ_p mix_i[p]·factor[p] / L_i, which equals
    // Σ_j (X[i][j]/L_i)·local_j (see `global_from_local`).
    let sources: Vec<[f64; TRACED]> = (0..n)
        .map(|j| {
            let mut v = [0.0; TRACED];
            v[..N_TYPES].copy_from_slice(&footprint::production_shares(&mix[j]));
            v[IMPACT] = if traced.generation[j] > 0.0 {
                impact_local[j]
            } else {
                0.0
            };
            v
        })
        .collect();
    let sums = footprint::sum_through_x(&traced.x, &sources);
    // Zones with data that consume nothing: global values from what passes through them, or, with
    // nothing passing through, from the slot's generation-weighted average (the substitute).
    let mut drawn: Vec<Option<[f64; TRACED]>> = vec![None; n];
    for (i, row) in &traced.pool_rows {
        if has_data[*i] && !external[*i] {
            drawn[*i] = Some(footprint::sum_over(row, &sources));
        }
    }
    let with_data_total: f64 = (0..n)
        .filter(|&j| has_data[j])
        .map(|j| traced.generation[j])
        .sum();
    for i in 0..n {
        if has_data[i]
            && drawn[i].is_none()
            && traced.consumption[i] <= 0.0
            && with_data_total > 0.0
        {
            let average: Vec<f64> = (0..n)
                .map(|j| {
                    if has_data[j] {
                        traced.generation[j] / with_data_total
                    } else {
                        0.0
                    }
                })
                .collect();
            drawn[i] = Some(footprint::sum_over(&average, &sources));
        }
    }
    let tables = FootprintType::ALL.map(|ft| Scope::ALL.map(|sc| reference.factors.table(ft, sc)));
    let zones = (0..n)
        .map(|i| {
            if !present[i] {
                return None;
            }
            let footprint_local = [
                [local[0][0][i], local[0][1][i]],
                [local[1][0][i], local[1][1][i]],
            ];
            let l = traced.consumption[i];
            let mut mix_i = [0.0; N_TYPES];
            mix_i.copy_from_slice(&sums[i][..N_TYPES]);
            // Consumed MW over L, or, for a zone that consumes nothing, the composition it draws on
            // (already per unit).
            let (traced_i, per) = match (l > 0.0, drawn[i]) {
                (true, _) => (sums[i], l),
                (false, Some(d)) => (d, 1.0),
                (false, None) => ([f64::NAN; TRACED], 1.0),
            };
            let footprint_global = tables.map(|by_scope| {
                by_scope.map(|table| {
                    traced_i[..N_TYPES]
                        .iter()
                        .zip(table)
                        .map(|(m, f)| m * f)
                        .sum::<f64>()
                        / per
                })
            });
            let impact_global = traced_i[IMPACT] / per;
            Some(ZoneResult {
                generation: traced.generation[i],
                imports: traced.imports[i],
                exports: traced.exports[i],
                consumption: traced.consumption[i],
                footprint_local,
                footprint_global,
                impact_local: impact_local[i],
                impact_global,
                score_local: score(footprint_local[CARBON][OPERATIONAL], impact_local[i]),
                score_global: score(footprint_global[CARBON][OPERATIONAL], impact_global),
                mix: mix_i,
                repaired: repaired[i] || drawn[i].is_some(),
                external: external[i],
                storage: storage[i],
                drawn: drawn[i].is_some(),
            })
        })
        .collect();

    let flows = flows
        .iter()
        .zip(&traced.flows)
        .filter(|(_, t)| t.2 > 0.0)
        .map(|(f, t)| FlowInput { mw: t.2, ..*f })
        .collect();
    SlotResult {
        slot: inputs.slot,
        zones,
        x: traced.x,
        flows,
    }
}

/// Storage discharging where the flows show more leaving a zone with data than it has: when a zone's
/// reported exports exceed its generation (pumped storage excluded) plus its imports, its pumped-storage
/// output joins its generation for the slot, with the mix of its other generation (stored power is
/// taken to be what the zone generates), or the slot's average mix (`avg`: summed mix and its
/// total) when it generates nothing else. Returns the MW added per zone.
fn discharge_storage(
    has_data: &[bool],
    flows: &[FlowInput],
    (avg, avg_total): (&[f64; N_TYPES], f64),
    generation: &mut [f64],
    mix: &mut [[f64; N_TYPES]],
) -> Vec<f64> {
    let n = generation.len();
    let mut supply = generation.to_vec();
    let mut exports = vec![0.0; n];
    for f in flows {
        exports[f.from] += f.mw;
        supply[f.to] += f.mw;
    }
    let ps = ProductionType::HydroPumpedStorage.index();
    let mut added = vec![0.0; n];
    for i in (0..n).filter(|&i| has_data[i] && exports[i] > supply[i]) {
        let s = mix[i][ps];
        let g = generation[i];
        if s <= 0.0 || (g <= 0.0 && avg_total <= 0.0) {
            continue;
        }
        for t in ProductionType::ALL.iter().filter(|t| t.counts_in_total()) {
            let m = &mut mix[i][t.index()];
            *m = if g > 0.0 {
                *m * (g + s) / g
            } else {
                avg[t.index()] / avg_total * s
            };
        }
        generation[i] = g + s;
        added[i] = s;
    }
    added
}
