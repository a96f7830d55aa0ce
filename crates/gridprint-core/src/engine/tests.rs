//! Tests of the engine: the check value of docs/methodology.md §1, invariants of the tracing on
//! random networks (conservation, shares summing to 100 %, no NaN/inf/negative), the repairs, and
//! whole slots traced with the embedded reference data.

// Invariants read most clearly as index formulas (X[i][j], L_i, G_j).
#![allow(clippy::needless_range_loop)]

use super::trace::invert_m_matrix;
use super::*;
use crate::inputs::FlowInput;
use crate::quality::DataState;
use crate::reference::ZoneSet;
use nalgebra::DMatrix;
use proptest::prelude::*;
use std::sync::OnceLock;

fn reference() -> &'static ReferenceData {
    static R: OnceLock<ReferenceData> = OnceLock::new();
    R.get_or_init(|| ReferenceData::embedded(ZoneSet::Selected2026))
}

fn close(a: f64, b: f64, rel: f64, abs: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()) + abs
}

// ---------------------------------------------------------------------------------------------
// The check value of docs/methodology.md §1.

#[test]
fn contract_chain_check_value() {
    let g = [40000.0, 50000.0, 30000.0, 20000.0];
    let flows = [(0, 1, 5000.0), (1, 2, 4400.0), (2, 3, 8600.0)];
    let t = trace(&g, &flows);
    let rows = [
        [35000.0, 0.0, 0.0, 0.0],
        [4600.0, 46000.0, 0.0, 0.0],
        [300.0, 3000.0, 22500.0, 0.0],
        [100.0, 1000.0, 7500.0, 20000.0],
    ];
    for (i, row) in rows.iter().enumerate() {
        for (j, want) in row.iter().enumerate() {
            assert!(
                close(t.x_at(i, j), *want, 1e-12, 1e-9),
                "X[{i}][{j}] = {} != {want}",
                t.x_at(i, j)
            );
        }
    }
    assert_eq!(t.consumption, vec![35000.0, 50600.0, 25800.0, 28600.0]);
    assert!(t.exports_repaired.iter().all(|r| !r));
    let global = global_from_local(&t.x, &t.consumption, &[100.0, 200.0, 300.0, 400.0]);
    // Exact values from the X rows: 9,660,000/50,600 = 2100/11; 7,380,000/25,800 = 12300/43;
    // 10,460,000/28,600 = 52300/143.
    let want = [100.0, 2100.0 / 11.0, 12300.0 / 43.0, 52300.0 / 143.0];
    for (got, want) in global.iter().zip(want) {
        assert!((got - want).abs() < 1e-6, "{got} != {want}");
    }
    assert!((global[2] - 286.0465).abs() < 1e-4 && (global[3] - 365.7343).abs() < 1e-4);
}

#[test]
fn scores_follow_the_formula() {
    assert_eq!(score(0.0, 0.0), 100.0);
    assert!((score(760.0, 0.0) - 30.0).abs() < 1e-12);
    assert!((score(0.0, 100.0) - 70.0).abs() < 1e-12);
    assert_eq!(score(2000.0, 500.0), 0.0);
    assert!(score(f64::NAN, 1.0).is_nan());
}

#[test]
fn aware_fallback_is_the_monthly_mean() {
    let r = reference();
    let n = r.zones.len();
    // One index past the zones has no entry: it gets the mean over all zones for the month.
    let f = aware_factors(&r.aware, n + 1, 7);
    let mean = (0..n).map(|i| r.aware.monthly(i, 7).unwrap()).sum::<f64>() / n as f64;
    assert!((f[n] - mean).abs() < 1e-12);
    assert_eq!(f[0], r.aware.monthly(0, 7).unwrap());
    assert_eq!(
        aware_factors(&crate::reference::Aware::default(), 3, 1),
        vec![0.0; 3]
    );
}

// ---------------------------------------------------------------------------------------------
// Repairs in the pure tracer.

#[test]
fn exports_beyond_supply_are_scaled_to_fit() {
    // Zone 0 generates 100 but reports 300 of exports; zone 1 passes on more than it gets.
    let t = trace(
        &[100.0, 0.0, 50.0],
        &[(0, 1, 200.0), (0, 2, 100.0), (1, 2, 500.0)],
    );
    assert!(t.exports_repaired[0] && t.exports_repaired[1] && !t.exports_repaired[2]);
    assert!((t.flows[0].2 - 200.0 / 3.0).abs() < 1e-9 && (t.flows[1].2 - 100.0 / 3.0).abs() < 1e-9);
    assert!((t.flows[2].2 - 200.0 / 3.0).abs() < 1e-9);
    assert_eq!(t.consumption[0], 0.0);
    assert!(t.consumption[1].abs() < 1e-9);
    assert!((t.consumption[2] - 150.0).abs() < 1e-9);
    assert!((t.x_at(2, 0) - 100.0).abs() < 1e-9 && (t.x_at(2, 2) - 50.0).abs() < 1e-9);
}

#[test]
fn scaling_reaches_the_fixed_point_of_a_slowly_converging_loop() {
    // a ⇄ b carry 1000 MW each way fed by 0.5 MW from d; b leaks 1 MW to c. Repeated scaling creeps
    // down by ~0.5 MW per round; the fixed point is b→a = 500, a→b = 500.5, b→c = 0.5.
    let (a, b, c, d) = (0, 1, 2, 3);
    let t = trace(
        &[0.0, 0.0, 0.0, 0.5],
        &[(a, b, 1000.0), (b, a, 1000.0), (b, c, 1.0), (d, a, 0.5)],
    );
    assert!((t.flows[0].2 - 500.5).abs() < 1e-9, "{:?}", t.flows);
    assert!((t.flows[1].2 - 500.0).abs() < 1e-9 && (t.flows[2].2 - 0.5).abs() < 1e-12);
    assert!(
        (t.x_at(c, d) - 0.5).abs() < 1e-9 && t.consumption[a] < 1e-9 && t.consumption[b] < 1e-9
    );
}

#[test]
fn loops_without_generation_are_dropped() {
    // 1 ⇄ 2 circulate with no generation reaching them; 0 and 3 are normal.
    let t = trace(
        &[10.0, 0.0, 0.0, 5.0],
        &[(1, 2, 7.0), (2, 1, 7.0), (2, 3, 3.0), (0, 3, 2.0)],
    );
    assert_eq!(
        &t.flows,
        &[(0, 3, 2.0), (1, 2, 0.0), (2, 1, 0.0), (2, 3, 0.0)]
    );
    assert!(t.exports_repaired[1] && t.exports_repaired[2] && !t.exports_repaired[0]);
    assert_eq!(t.consumption, vec![8.0, 0.0, 0.0, 7.0]);
    assert!(t.x.iter().all(|v| v.is_finite()));
}

#[test]
fn invalid_flows_are_ignored_and_duplicates_summed() {
    let t = trace(
        &[10.0, 10.0],
        &[
            (0, 1, -3.0),
            (0, 1, f64::NAN),
            (0, 0, 5.0),
            (0, 7, 1.0),
            (0, 1, 2.0),
            (0, 1, 1.0),
        ],
    );
    assert_eq!(t.flows, vec![(0, 1, 3.0)]);
    assert_eq!(t.consumption, vec![7.0, 13.0]);
}

// ---------------------------------------------------------------------------------------------
// Random networks.

fn generation_value() -> impl Strategy<Value = f64> {
    prop_oneof![2 => Just(0.0), 5 => 0.0..50_000.0, 1 => 1e-3..1.0]
}

fn network() -> impl Strategy<Value = (Vec<f64>, Vec<Flow>)> {
    (2usize..=12).prop_flat_map(|n| {
        let flow = (
            0..n,
            0..n,
            prop_oneof![6 => 0.0..20_000.0, 2 => 0.0..80_000.0, 1 => -100.0..0.0],
        );
        (
            proptest::collection::vec(generation_value(), n),
            proptest::collection::vec(flow, 0..=3 * n),
        )
    })
}

/// Checks every invariant of a traced network; `local` are per-zone local values (NaN where G = 0).
fn check_traced(t: &Traced, local: &[f64]) -> Result<(), TestCaseError> {
    let n = t.n;
    let scale = t
        .generation
        .iter()
        .chain(&t.imports)
        .fold(1.0_f64, |a, b| a.max(*b));
    let abs = 1e-9 * scale;
    for v in
        t.x.iter()
            .chain(&t.consumption)
            .chain(&t.imports)
            .chain(&t.exports)
    {
        prop_assert!(v.is_finite() && *v >= 0.0, "bad value {v}");
    }
    for &(f, to, mw) in &t.flows {
        prop_assert!(mw.is_finite() && mw >= 0.0 && f != to);
    }
    for i in 0..n {
        let p = t.generation[i] + t.imports[i];
        prop_assert!(
            t.exports[i] <= p * (1.0 + 1e-9) + abs,
            "zone {i} exports {} > {p}",
            t.exports[i]
        );
        let row: f64 = (0..n).map(|j| t.x_at(i, j)).sum();
        prop_assert!(
            close(row, t.consumption[i], 1e-6, abs),
            "row {i}: {row} != L {}",
            t.consumption[i]
        );
        let col: f64 = (0..n).map(|k| t.x_at(k, i)).sum();
        prop_assert!(
            close(col, t.generation[i], 1e-6, abs),
            "col {i}: {col} != G {}",
            t.generation[i]
        );
        if t.generation[i] == 0.0 {
            prop_assert!((0..n).all(|k| t.x_at(k, i) == 0.0));
        }
        if t.generation[i] > 0.0 {
            let flow_share: f64 = (0..n).map(|k| 100.0 * t.x_at(k, i) / t.generation[i]).sum();
            prop_assert!(
                (flow_share - 100.0).abs() <= 1e-6,
                "flow shares of {i} sum to {flow_share}"
            );
        }
        if t.consumption[i] > 0.0 {
            let l = t.consumption[i];
            let mix_share: f64 = (0..n).map(|j| 100.0 * t.x_at(i, j) / l).sum();
            prop_assert!(
                (mix_share - 100.0).abs() <= 1e-6,
                "mix shares of {i} sum to {mix_share}"
            );
        }
    }
    let global = global_from_local(&t.x, &t.consumption, local);
    for i in 0..n {
        let l = t.consumption[i];
        if l > 0.0 {
            let blocks: f64 = (0..n)
                .filter(|&j| t.x_at(i, j) > 0.0)
                .map(|j| t.x_at(i, j) / l * local[j])
                .sum();
            prop_assert!(
                global[i].is_finite() && global[i] >= 0.0,
                "global {i} = {}",
                global[i]
            );
            prop_assert!(
                close(blocks, global[i], 1e-9, 1e-9),
                "blocks {blocks} != global {}",
                global[i]
            );
            // A global value is a weighted mean of the locals it draws on.
            let sources = (0..n).filter(|&j| t.x_at(i, j) > 0.0).map(|j| local[j]);
            let (lo, hi) = sources.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
            prop_assert!(
                global[i] >= lo * (1.0 - 1e-6) - 1e-9 && global[i] <= hi * (1.0 + 1e-6) + 1e-9
            );
        } else {
            prop_assert!(global[i].is_nan());
        }
    }
    Ok(())
}

/// X by the formula of docs/api.md §5 with a general LU inverse (nalgebra), from the repaired
/// flows.
fn x_by_nalgebra(t: &Traced) -> Option<Vec<f64>> {
    let n = t.n;
    let p: Vec<f64> = (0..n).map(|i| t.generation[i] + t.imports[i]).collect();
    let mut a = DMatrix::<f64>::identity(n, n);
    for &(f, to, mw) in &t.flows {
        if mw > 0.0 && p[f] > 0.0 {
            a[(to, f)] -= mw / p[f];
        }
    }
    let m = a.try_inverse()?;
    let mut x = vec![0.0; n * n];
    for i in 0..n {
        let c = if p[i] > 0.0 {
            t.consumption[i] / p[i]
        } else {
            0.0
        };
        for j in 0..n {
            x[i * n + j] = c * m[(i, j)] * t.generation[j];
        }
    }
    Some(x)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_networks_keep_every_invariant((g, flows) in network(), seed in 0u64..1000) {
        let t = trace(&g, &flows);
        let local: Vec<f64> = (0..t.n)
            .map(|j| if t.generation[j] > 0.0 { 10.0 + ((seed + 37 * j as u64) % 900) as f64 } else { f64::NAN })
            .collect();
        check_traced(&t, &local)?;
    }

    #[test]
    fn x_agrees_with_a_general_lu_solver((g, flows) in network()) {
        let t = trace(&g, &flows);
        // Skip badly conditioned cases (tiny generation feeding huge loops), where a pivoting LU loses
        // digits that the subtraction-free inversion keeps.
        let tiny = t.generation.iter().any(|&v| v > 0.0 && v < 1.0);
        if let (false, Some(x)) = (tiny, x_by_nalgebra(&t)) {
            let scale = t.generation.iter().chain(&t.imports).fold(1.0_f64, |a, b| a.max(*b));
            for (a, b) in t.x.iter().zip(&x) {
                prop_assert!(close(*a, *b, 1e-6, 1e-8 * scale), "{a} != {b}");
            }
        }
    }

    #[test]
    fn m_matrix_inverse_matches_nalgebra(
        n in 1usize..=10,
        entries in proptest::collection::vec(0.0..1.0f64, 100),
        slack in proptest::collection::vec(0.0..1.0f64, 10),
    ) {
        // Columns j: off-diagonal entries −w_ij scaled so the column sums to slack_j ∈ [0, 1) with at
        // least a little slack somewhere (non-singular).
        let mut a = vec![0.0; n * n];
        let mut sums = vec![0.0; n];
        for j in 0..n {
            let s = if j == 0 { slack[j].max(0.1) } else { slack[j] };
            let total: f64 = (0..n).filter(|&i| i != j).map(|i| entries[i * 10 + j]).sum();
            for i in 0..n {
                a[i * n + j] = if i == j { 1.0 } else if total > 0.0 { -(1.0 - s) * entries[i * 10 + j] / total } else { 0.0 };
            }
            sums[j] = if total > 0.0 { s } else { 1.0 };
        }
        let dm = DMatrix::from_row_slice(n, n, &a);
        let Some(inv) = dm.clone().try_inverse() else { return Ok(()) };
        invert_m_matrix(&mut a, n, sums);
        for i in 0..n {
            for j in 0..n {
                let (got, want) = (a[i * n + j], inv[(i, j)]);
                prop_assert!(got >= 0.0 && close(got, want, 1e-8, 1e-10), "M[{i}][{j}] {got} != {want}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Whole slots with the embedded reference data.

fn idx(code: &str) -> usize {
    reference().zones.index_of_str(code).unwrap()
}

fn slot() -> Slot {
    Slot::containing(time::macros::datetime!(2024-07-15 12:00 UTC))
}

fn mix_of(pairs: &[(ProductionType, f64)]) -> [f64; N_TYPES] {
    let mut m = [0.0; N_TYPES];
    for (t, v) in pairs {
        m[t.index()] = *v;
    }
    m
}

fn flow(from: &str, to: &str, mw: f64) -> FlowInput {
    FlowInput {
        from: idx(from),
        to: idx(to),
        mw,
        state: DataState::Official,
    }
}

fn inputs(gen_by_zone: &[(&str, [f64; N_TYPES])], flows: Vec<FlowInput>) -> SlotInputs {
    let mut s = SlotInputs::empty(slot(), reference().zones.len());
    for (code, mix) in gen_by_zone {
        s.generation[idx(code)] = Some(*mix);
        s.generation_state[idx(code)] = Some(DataState::Official);
    }
    s.flows = flows;
    s
}

fn de_mix() -> [f64; N_TYPES] {
    use ProductionType::*;
    mix_of(&[
        (Coal, 10_000.0),
        (Gas, 8_000.0),
        (WindOnshore, 20_000.0),
        (Solar, 15_000.0),
        (HydroPumpedStorage, 3_000.0),
    ])
}

fn fr_mix() -> [f64; N_TYPES] {
    use ProductionType::*;
    mix_of(&[(Nuclear, 40_000.0), (HydroRiver, 5_000.0), (Gas, 2_000.0)])
}

/// Every numeric field of every zone is finite and non-negative, except the documented NaNs.
/// Traces one slot of `gen_by_zone` and `flows` and checks the invariants every result holds.
fn sane_trace(gen_by_zone: &[(&str, [f64; N_TYPES])], flows: Vec<FlowInput>) -> SlotResult {
    let r = trace_slot(reference(), &inputs(gen_by_zone, flows));
    assert_slot_sane(&r);
    r
}

fn assert_slot_sane(r: &SlotResult) {
    let n = r.n();
    let any_generation = r
        .zones
        .iter()
        .flatten()
        .any(|z| !z.external && z.generation > 0.0);
    assert_eq!(r.x.len(), n * n);
    assert!(r.x.iter().all(|v| v.is_finite() && *v >= 0.0));
    assert!(r.flows.iter().all(|f| f.mw.is_finite() && f.mw > 0.0));
    for z in r.zones.iter().flatten() {
        for v in [z.generation, z.imports, z.exports, z.consumption]
            .iter()
            .chain(&z.mix)
        {
            assert!(v.is_finite() && *v >= 0.0, "{z:?}");
        }
        assert_eq!(z.mix[ProductionType::HydroPumpedStorage.index()], 0.0);
        let mix_sum: f64 = z.mix.iter().sum();
        assert!(
            close(mix_sum, z.consumption, 1e-9, 1e-6),
            "{mix_sum} vs {}",
            z.consumption
        );
        let local = z
            .footprint_local
            .iter()
            .flatten()
            .chain([&z.impact_local, &z.score_local]);
        let global = z
            .footprint_global
            .iter()
            .flatten()
            .chain([&z.impact_global, &z.score_global]);
        // A zone with data that consumes nothing has the global values of what it draws on.
        if z.drawn {
            assert!(z.consumption == 0.0 && !z.external && z.repaired, "{z:?}");
        } else if z.consumption <= 0.0 && !z.external {
            assert!(!any_generation, "{z:?}: consumes nothing, draws on nothing");
        }
        for (vals, defined) in [
            (local.collect::<Vec<_>>(), z.generation > 0.0),
            (global.collect(), z.consumption > 0.0 || z.drawn),
        ] {
            for v in vals {
                if defined {
                    assert!(v.is_finite() && *v >= 0.0, "{z:?}");
                } else {
                    assert!(v.is_nan(), "{z:?}");
                }
            }
        }
        assert!(z.score_local.is_nan() || (0.0..=100.0).contains(&z.score_local));
        assert!(z.score_global.is_nan() || (0.0..=100.0).contains(&z.score_global));
    }
}

/// Asserts that `got` is, per footprint type and scope, the weighted sum of two zones' footprints
/// (`parts`: weight and footprints), within 1e-9.
fn assert_footprints_mix(got: &[[f64; 2]; 2], parts: [(f64, &[[f64; 2]; 2]); 2]) {
    let [(wa, a), (wb, b)] = parts;
    for f in 0..2 {
        for s in 0..2 {
            let want = wa * a[f][s] + wb * b[f][s];
            assert!((got[f][s] - want).abs() < 1e-9, "{f}{s}");
        }
    }
}

#[test]
fn slot_isolated_zone_consumes_its_own_generation() {
    let r = sane_trace(&[("AT", fr_mix())], vec![]);
    let at = idx("AT");
    let z = r.zones[at].as_ref().unwrap();
    assert_eq!(
        (z.generation, z.imports, z.exports, z.consumption),
        (47_000.0, 0.0, 0.0, 47_000.0)
    );
    assert_eq!(r.x_at(at, at), 47_000.0);
    assert_eq!(z.footprint_local, z.footprint_global);
    assert_eq!(z.score_local, z.score_global);
    assert!(!z.repaired && !z.external);
    // Carbon operational: (40000·0 + 5000·0 + 2000·gas) / 47000.
    let gas = reference().factors.value(
        FootprintType::Carbon,
        Scope::Operational,
        ProductionType::Gas,
    );
    assert!((z.footprint_local[0][1] - 2000.0 * gas / 47_000.0).abs() < 1e-9);
    let aware = reference().aware.monthly(at, 7).unwrap();
    assert!((z.impact_local - z.footprint_local[1][1] * aware).abs() < 1e-12);
    assert_eq!(r.zones.iter().flatten().count(), 1);
}

#[test]
fn slot_zero_generation_zone_without_flows() {
    let r = sane_trace(&[("FR", [0.0; N_TYPES])], vec![]);
    let z = r.zones[idx("FR")].as_ref().unwrap();
    assert_eq!((z.generation, z.consumption), (0.0, 0.0));
    assert!(z.footprint_local.iter().flatten().all(|v| v.is_nan()));
    assert!(z.footprint_global.iter().flatten().all(|v| v.is_nan()));
    assert!(z.score_local.is_nan() && z.score_global.is_nan());
    assert!(!z.repaired);
}

#[test]
fn slot_fully_importing_zone() {
    let gens = [("DE", de_mix()), ("FR", fr_mix()), ("CH", [0.0; N_TYPES])];
    let r = trace_slot(
        reference(),
        &inputs(
            &gens,
            vec![flow("DE", "CH", 3000.0), flow("FR", "CH", 1000.0)],
        ),
    );
    assert_slot_sane(&r);
    let (de, fr, ch) = (idx("DE"), idx("FR"), idx("CH"));
    let z = r.zones[ch].as_ref().unwrap();
    assert_eq!(
        (z.generation, z.imports, z.consumption),
        (0.0, 4000.0, 4000.0)
    );
    assert!(z.footprint_local[0][1].is_nan() && z.impact_local.is_nan());
    let zde = r.zones[de].as_ref().unwrap();
    let zfr = r.zones[fr].as_ref().unwrap();
    assert_footprints_mix(
        &z.footprint_global,
        [(0.75, &zde.footprint_local), (0.25, &zfr.footprint_local)],
    );
    let want_impact = 0.75 * zde.impact_local + 0.25 * zfr.impact_local;
    assert!((z.impact_global - want_impact).abs() < 1e-12);
    assert!((r.x_at(ch, de) - 3000.0).abs() < 1e-9 && (r.x_at(ch, fr) - 1000.0).abs() < 1e-9);
    // DE's exports do not include pumped storage in its generation total.
    assert_eq!(zde.generation, 53_000.0);
    assert!(!z.repaired && !zde.repaired);
}

#[test]
fn slot_external_source_gets_the_average_mix() {
    let gens = [("DE", de_mix()), ("FR", fr_mix())];
    // PL has no generation data but exports to DE; DE and FR trade normally.
    let flows = vec![
        flow("PL", "DE", 2000.0),
        flow("DE", "FR", 500.0),
        flow("FR", "DE", 100.0),
    ];
    let r = sane_trace(&gens, flows);
    let (de, fr, pl) = (idx("DE"), idx("FR"), idx("PL"));
    let zpl = r.zones[pl].as_ref().unwrap();
    assert!(zpl.external && zpl.repaired);
    assert_eq!(
        (zpl.generation, zpl.exports, zpl.consumption),
        (2000.0, 2000.0, 0.0)
    );
    assert!(zpl.footprint_global[0][0].is_nan());
    let zde = r.zones[de].as_ref().unwrap();
    let zfr = r.zones[fr].as_ref().unwrap();
    assert!(zde.repaired && !zde.external && !zfr.repaired);
    // Substitute footprint: generation-weighted mean of the local footprints of zones with data.
    let generation = zde.generation + zfr.generation;
    assert_footprints_mix(
        &zpl.footprint_local,
        [
            (zde.generation / generation, &zde.footprint_local),
            (zfr.generation / generation, &zfr.footprint_local),
        ],
    );
    // PL's column of X adds up to its exports, all consumed in DE and FR.
    let col: f64 = (0..r.n()).map(|i| r.x_at(i, pl)).sum();
    assert!((col - 2000.0).abs() < 1e-9 && r.x_at(de, pl) > 0.0 && r.x_at(fr, pl) > 0.0);
    assert_eq!(r.flows.len(), 3);
}

#[test]
fn slot_flows_into_zones_without_data_are_dropped() {
    let gens = [("DE", de_mix()), ("FR", fr_mix())];
    let flows = vec![
        flow("DE", "PL", 700.0),
        flow("CZ", "PL", 50.0),
        flow("FR", "DE", 300.0),
    ];
    let r = sane_trace(&gens, flows);
    assert!(r.zones[idx("PL")].is_none() && r.zones[idx("CZ")].is_none());
    assert!(r.zones[idx("DE")].as_ref().unwrap().repaired);
    assert!(!r.zones[idx("FR")].as_ref().unwrap().repaired);
    assert_eq!(r.flows, vec![flow("FR", "DE", 300.0)]);
    assert_eq!(r.zones[idx("DE")].as_ref().unwrap().exports, 0.0);
}

#[test]
fn slot_exports_beyond_supply_are_scaled_and_marked() {
    use ProductionType::*;
    let gens = [("AT", mix_of(&[(HydroRiver, 1000.0)])), ("DE", de_mix())];
    let flows = vec![flow("AT", "DE", 3000.0), flow("DE", "AT", 500.0)];
    let r = sane_trace(&gens, flows);
    let at = r.zones[idx("AT")].as_ref().unwrap();
    assert!(at.repaired && at.consumption.abs() < 1e-9 && (at.exports - 1500.0).abs() < 1e-9);
    let de = r.zones[idx("DE")].as_ref().unwrap();
    assert!(!de.repaired);
    assert!((r.flows.iter().find(|f| f.from == idx("AT")).unwrap().mw - 1500.0).abs() < 1e-9);
    // AT consumes nothing; its global values are those of its throughput: 1000 MW of its own hydro
    // and 500 MW from DE's pool (which holds DE's generation and what AT sent it: DE's global values).
    assert!(at.drawn && at.storage == 0.0);
    assert_footprints_mix(
        &at.footprint_global,
        [
            (1000.0 / 1500.0, &at.footprint_local),
            (500.0 / 1500.0, &de.footprint_global),
        ],
    );
    let impact = (1000.0 * at.impact_local + 500.0 * de.impact_global) / 1500.0;
    assert!((at.impact_global - impact).abs() < 1e-9);
    assert!((at.score_global - score(at.footprint_global[0][1], impact)).abs() < 1e-9);
}

#[test]
fn slot_storage_discharging_joins_the_supply_where_exports_exceed_the_rest() {
    use ProductionType::*;
    // AT generates 1000 MW besides 900 MW of pumped-storage output and exports 1600 MW to DE.
    let at_mix = mix_of(&[
        (HydroRiver, 600.0),
        (Gas, 400.0),
        (HydroPumpedStorage, 900.0),
    ]);
    let gens = [("AT", at_mix), ("DE", de_mix())];
    let r = sane_trace(&gens, vec![flow("AT", "DE", 1600.0)]);
    let at = r.zones[idx("AT")].as_ref().unwrap();
    assert!(at.repaired && !at.drawn && at.storage == 900.0);
    assert_eq!((at.generation, at.exports), (1900.0, 1600.0));
    assert!((at.consumption - 300.0).abs() < 1e-9);
    // Stored power has the mix of the zone's other generation: the local footprint is unchanged,
    // and what AT consumes is all its own.
    let alone = sane_trace(&[("AT", at_mix)], vec![]);
    let at_alone = alone.zones[idx("AT")].as_ref().unwrap();
    assert_eq!(at_alone.storage, 0.0);
    for f in 0..2 {
        for s in 0..2 {
            assert!((at.footprint_local[f][s] - at_alone.footprint_local[f][s]).abs() < 1e-9);
            assert!((at.footprint_global[f][s] - at.footprint_local[f][s]).abs() < 1e-9);
        }
    }
    let gas = at.mix[Gas.index()];
    assert!((gas - 300.0 * 0.4).abs() < 1e-9, "{gas}");
    // Where exports fit, storage stays out of the supply, as before.
    let r = sane_trace(&gens, vec![flow("AT", "DE", 900.0)]);
    let at = r.zones[idx("AT")].as_ref().unwrap();
    assert!(!at.repaired && at.storage == 0.0 && at.generation == 1000.0);
}

#[test]
fn slot_storage_alone_has_the_average_mix() {
    use ProductionType::*;
    // AT's only output is pumped storage (a zero-generation report otherwise) and it exports.
    let gens = [
        ("AT", mix_of(&[(HydroPumpedStorage, 500.0)])),
        ("FR", fr_mix()),
    ];
    let r = sane_trace(&gens, vec![flow("AT", "FR", 400.0)]);
    let at = r.zones[idx("AT")].as_ref().unwrap();
    let fr = r.zones[idx("FR")].as_ref().unwrap();
    assert!(at.storage == 500.0 && (at.consumption - 100.0).abs() < 1e-9);
    // The slot's average mix is FR's (the only other zone with data).
    for f in 0..2 {
        for s in 0..2 {
            assert!((at.footprint_local[f][s] - fr.footprint_local[f][s]).abs() < 1e-9);
        }
    }
}

#[test]
fn slot_zero_generation_report_draws_on_its_imports() {
    use ProductionType::*;
    // ME reports 0 MW of every type, imports 300 MW from RS and reports 450 MW into BA: exports
    // beyond supply, scaled to 300; ME consumes nothing.
    let me = mix_of(&[(Coal, 0.0), (HydroReservoir, 0.0), (WindOnshore, 0.0)]);
    let rs = mix_of(&[(Coal, 3000.0), (HydroRiver, 1000.0)]);
    let ba = mix_of(&[(Coal, 800.0), (HydroReservoir, 600.0)]);
    let gens = [("ME", me), ("RS", rs), ("BA", ba)];
    let r = sane_trace(
        &gens,
        vec![flow("RS", "ME", 300.0), flow("ME", "BA", 450.0)],
    );
    let zme = r.zones[idx("ME")].as_ref().unwrap();
    let zrs = r.zones[idx("RS")].as_ref().unwrap();
    assert!(zme.drawn && zme.repaired && zme.consumption == 0.0 && zme.generation == 0.0);
    assert!(zme.footprint_local[0][0].is_nan());
    for f in 0..2 {
        for s in 0..2 {
            assert!((zme.footprint_global[f][s] - zrs.footprint_local[f][s]).abs() < 1e-9);
        }
    }
    // Nothing passes through a zone that generates nothing and imports nothing: the slot's
    // generation-weighted average of the zones with data (the substitute).
    let r = sane_trace(&gens, vec![]);
    let zme = r.zones[idx("ME")].as_ref().unwrap();
    let (zrs, zba) = (
        r.zones[idx("RS")].as_ref().unwrap(),
        r.zones[idx("BA")].as_ref().unwrap(),
    );
    assert!(zme.drawn && zme.repaired);
    assert_footprints_mix(
        &zme.footprint_global,
        [
            (4000.0 / 5400.0, &zrs.footprint_local),
            (1400.0 / 5400.0, &zba.footprint_local),
        ],
    );
}

#[test]
fn slot_invalid_generation_values_read_as_zero() {
    use ProductionType::*;
    let mut m = mix_of(&[(Gas, 1000.0), (Coal, -5.0)]);
    m[Solar.index()] = f64::NAN;
    let r = sane_trace(&[("BE", m)], vec![]);
    let z = r.zones[idx("BE")].as_ref().unwrap();
    assert!(z.repaired && z.generation == 1000.0);
}

#[test]
fn slot_without_any_data_is_empty() {
    let mut s = inputs(&[], vec![flow("PL", "DE", 10.0)]);
    s.generation.truncate(3);
    let r = trace_slot(reference(), &s);
    assert_slot_sane(&r);
    assert!(r.zones.iter().all(Option::is_none) && r.flows.is_empty());
}

/// Random slots over the real zones and borders: some zones without data, zeros, oversized flows.
fn random_slot() -> impl Strategy<Value = SlotInputs> {
    let n = reference().zones.len();
    let borders = reference().zones.borders();
    let nb = borders.len();
    let zone_gen = prop_oneof![
        1 => Just(None),
        1 => Just(Some([0.0; N_TYPES])),
        4 => proptest::collection::vec(prop_oneof![2 => Just(0.0), 3 => 0.0..10_000.0], N_TYPES)
            .prop_map(|v| Some(<[f64; N_TYPES]>::try_from(v).unwrap())),
    ];
    (
        proptest::collection::vec(zone_gen, n),
        proptest::collection::vec(
            prop_oneof![2 => Just(0.0), 3 => 0.0..5_000.0, 1 => 0.0..50_000.0],
            nb,
        ),
        0i64..35_040,
    )
        .prop_map(move |(generation, mws, offset)| {
            let mut s = SlotInputs::empty(slot().offset(offset), n);
            s.generation = generation;
            s.flows = borders
                .iter()
                .zip(mws)
                .map(|(&(from, to), mw)| FlowInput {
                    from,
                    to,
                    mw,
                    state: DataState::Official,
                })
                .collect();
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_slots_are_sane_and_conserve(s in random_slot()) {
        let r = trace_slot(reference(), &s);
        assert_slot_sane(&r);
        let n = r.n();
        for (i, z) in r.zones.iter().enumerate() {
            match z {
                None => {
                    prop_assert!(s.generation[i].is_none());
                    prop_assert!((0..n).all(|j| r.x_at(i, j) == 0.0 && r.x_at(j, i) == 0.0));
                }
                Some(z) => {
                    prop_assert_eq!(z.external, s.generation[i].is_none());
                    let row: f64 = (0..n).map(|j| r.x_at(i, j)).sum();
                    let col: f64 = (0..n).map(|k| r.x_at(k, i)).sum();
                    prop_assert!(close(row, z.consumption, 1e-6, 1e-6));
                    prop_assert!(close(col, z.generation, 1e-6, 1e-6));
                }
            }
        }
        // The fused pass over X agrees with global_from_local on the local values.
        let consumption: Vec<f64> = r.zones.iter().map(|z| z.as_ref().map_or(0.0, |z| z.consumption)).collect();
        for f in 0..2 {
            for sc in 0..2 {
                let local: Vec<f64> =
                    r.zones.iter().map(|z| z.as_ref().map_or(f64::NAN, |z| z.footprint_local[f][sc])).collect();
                let global = global_from_local(&r.x, &consumption, &local);
                for (z, g) in r.zones.iter().zip(global) {
                    if let Some(z) = z.as_ref().filter(|z| !z.drawn) {
                        let got = z.footprint_global[f][sc];
                        prop_assert!(got.is_nan() == g.is_nan() && (g.is_nan() || close(got, g, 1e-9, 1e-9)));
                    }
                }
            }
        }
        let impact: Vec<f64> = r.zones.iter().map(|z| z.as_ref().map_or(f64::NAN, |z| z.impact_local)).collect();
        for (z, g) in r.zones.iter().zip(global_from_local(&r.x, &consumption, &impact)) {
            if let Some(z) = z.as_ref().filter(|z| !z.drawn) {
                prop_assert!(z.impact_global.is_nan() == g.is_nan() && (g.is_nan() || close(z.impact_global, g, 1e-9, 1e-12)));
            }
        }
    }
}
