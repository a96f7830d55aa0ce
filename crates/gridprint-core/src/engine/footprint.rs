//! Footprints, water impact, scores and consumption mixes: what the engine derives from the traced
//! matrix X and the production mix of each zone (docs/api.md §5).
//!
//! Local values describe what a zone generates, global values what it consumes: a global value is the
//! consumption-weighted average of the local values of every zone the consumed power comes from,
//! `global_i = Σ_j (X[i][j]/L_i)·local_j` (for a zone that consumes nothing, the engine weights by
//! what it draws on instead: [`sum_over`]). Undefined values are NaN, never 0: a local value when
//! the zone generates nothing (G = 0). A zone with G = 0 has an all-zero column in X, so its NaN
//! local value never enters anyone's global value.
//!
//! Water impact multiplies the operational water footprint by the zone's AWARE 2.0 factor for the
//! slot's month. A zone without an AWARE entry uses the mean of the available zones' factors for that
//! month (and 0 if no zone has one), so that its water still counts rather than vanishing or poisoning
//! its importers' values with NaN.

use crate::production::{N_TYPES, ProductionType};
use crate::reference::Aware;

/// WI_ref of the score, in stress-l/kWh.
pub const SCORE_WATER_REFERENCE: f64 = 100.0;
/// CF reference of the score, in gCO2/kWh (operational carbon footprint of coal).
pub const SCORE_CARBON_REFERENCE: f64 = 760.0;

/// 1 for production types that count in G, 0 for pumped storage; multiplying by it keeps the loops
/// below branch-free (and vectorised).
const COUNTS: [f64; N_TYPES] = {
    let mut m = [1.0; N_TYPES];
    m[ProductionType::HydroPumpedStorage as usize] = 0.0;
    m
};

/// Total generation G of a production mix: every type except pumped storage.
pub fn generation_total(mix: &[f64; N_TYPES]) -> f64 {
    mix.iter().zip(&COUNTS).map(|(v, c)| v * c).sum()
}

/// Local footprint of a production mix, `Σ_p G[p]·factor[p] / G` (pumped storage excluded); NaN when
/// G = 0.
pub fn local_footprint(mix: &[f64; N_TYPES], factors: &[f64; N_TYPES]) -> f64 {
    let g = generation_total(mix);
    let weighted: f64 = mix
        .iter()
        .zip(factors)
        .zip(&COUNTS)
        .map(|((v, f), c)| v * f * c)
        .sum();
    if g > 0.0 { weighted / g } else { f64::NAN }
}

/// Global values from local ones: `global_i = Σ_j (X[i][j]/L_i)·local_j` for `x` dense row-major n×n
/// with `n = consumption.len()`; NaN where `L_i = 0`. Entries with `X[i][j] = 0` are skipped, so a NaN
/// local value of a zone that generates nothing does not spread.
pub fn global_from_local(x: &[f64], consumption: &[f64], local: &[f64]) -> Vec<f64> {
    let n = consumption.len();
    debug_assert_eq!(x.len(), n * n);
    debug_assert_eq!(local.len(), n);
    (0..n)
        .map(|i| {
            let l = consumption[i];
            if l.is_nan() || l <= 0.0 {
                return f64::NAN;
            }
            let row = &x[i * n..(i + 1) * n];
            let sum: f64 = row
                .iter()
                .zip(local)
                .filter(|(xij, _)| **xij > 0.0)
                .map(|(xij, loc)| xij * loc)
                .sum();
            sum / l
        })
        .collect()
}

/// Production shares of a mix, `G[p]/G` per type (pumped storage 0); all 0 when G = 0.
pub fn production_shares(mix: &[f64; N_TYPES]) -> [f64; N_TYPES] {
    let g = generation_total(mix);
    let r = if g > 0.0 { 1.0 / g } else { 0.0 };
    let mut s = [0.0; N_TYPES];
    for ((s, v), c) in s.iter_mut().zip(mix).zip(&COUNTS) {
        *s = v * c * r;
    }
    s
}

/// Sums per-source vectors through X: `out_i = Σ_j X[i][j]·values_j` for `x` dense row-major n×n with
/// `n = values.len()`. Entries with `X[i][j] = 0` are skipped (so NaN values of zones that generate
/// nothing do not spread). One pass over X for K quantities at once.
pub fn sum_through_x<const K: usize>(x: &[f64], values: &[[f64; K]]) -> Vec<[f64; K]> {
    let n = values.len();
    debug_assert_eq!(x.len(), n * n);
    x.chunks_exact(n.max(1))
        .take(n)
        .map(|row| sum_over(row, values))
        .collect()
}

/// One row of [`sum_through_x`]: `Σ_j w[j]·values_j`, skipping `w[j] = 0`.
pub fn sum_over<const K: usize>(w: &[f64], values: &[[f64; K]]) -> [f64; K] {
    let mut acc = [0.0; K];
    for (&wj, v) in w.iter().zip(values) {
        if wj != 0.0 {
            for k in 0..K {
                acc[k] += wj * v[k];
            }
        }
    }
    acc
}

/// Flow-traced consumption mix per zone, `mix_i[p] = Σ_j X[i][j]·G_j[p]/G_j` in MW (pumped storage
/// excluded, so the types sum to L_i).
pub fn consumption_mix(x: &[f64], generation_mix: &[[f64; N_TYPES]]) -> Vec<[f64; N_TYPES]> {
    let shares: Vec<[f64; N_TYPES]> = generation_mix.iter().map(production_shares).collect();
    sum_through_x(x, &shares)
}

/// AWARE monthly factor per zone index `0..n` for a month (1..=12), with the documented fallback for
/// zones without an entry: the mean of the available factors for that month (0 if there are none).
pub fn aware_factors(aware: &Aware, n: usize, month: u8) -> Vec<f64> {
    let found: Vec<Option<f64>> = (0..n).map(|i| aware.monthly(i, month)).collect();
    let (sum, count) = found
        .iter()
        .flatten()
        .fold((0.0, 0usize), |(s, c), v| (s + v, c + 1));
    let mean = if count > 0 { sum / count as f64 } else { 0.0 };
    found.into_iter().map(|v| v.unwrap_or(mean)).collect()
}

/// The score, `100·(1 − min(1, 0.7·CF/760 + 0.3·WI/100))` clamped to 0..=100, from the operational
/// carbon footprint (gCO2/kWh) and the water impact (stress-l/kWh); NaN if either is NaN.
pub fn score(carbon_operational: f64, water_impact: f64) -> f64 {
    if carbon_operational.is_nan() || water_impact.is_nan() {
        return f64::NAN;
    }
    let load = 0.7 * carbon_operational / SCORE_CARBON_REFERENCE
        + 0.3 * water_impact / SCORE_WATER_REFERENCE;
    (100.0 * (1.0 - load.min(1.0))).clamp(0.0, 100.0)
}
