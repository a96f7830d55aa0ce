//! Flow tracing proper: from total generation per zone and physical flows to the matrix X of "MW
//! generated in zone j and consumed in zone i" (docs/api.md §5, explained in docs/methodology.md
//! §1), with the flow repairs it needs first ([`trace`] lists the steps).
//!
//! This module knows nothing of production types, factors or reference data, so it can be used and
//! tested with plain numbers.
//!
//! A is an M-matrix (Z-matrix with column sums `C_j = L_j/P_j ≥ 0`), so M is inverted by
//! Gauss–Jordan elimination without pivoting, with each pivot recomputed from column sums and
//! off-diagonal entries (the Grassmann–Taksar–Heyman trick): every operation then adds numbers of
//! one sign, so the inverse is accurate to a few ulps even for transit zones with `L = 0`, and is
//! about twice as fast as a general LU plus inversion on the 52 × 52 matrices of the default zone
//! set. Only zones that take part (generation or flows) enter the matrix.

use nalgebra::{DMatrix, DVector};

/// One directed flow: exporter index, importer index, MW.
pub type Flow = (usize, usize, f64);

/// The result of tracing one network.
#[derive(Debug, Clone, PartialEq)]
pub struct Traced {
    /// Number of zones.
    pub n: usize,
    /// G per zone, MW (negative or non-finite inputs read as 0).
    pub generation: Vec<f64>,
    /// I per zone after repair, MW.
    pub imports: Vec<f64>,
    /// E per zone after repair, MW.
    pub exports: Vec<f64>,
    /// L = G + I − E per zone after repair, MW (never negative).
    pub consumption: Vec<f64>,
    /// X, dense row-major n×n: `x[i * n + j]` is the MW generated in j and consumed in i.
    pub x: Vec<f64>,
    /// The flows after repair, in the order given to the tracer; a dropped flow has 0 MW.
    pub flows: Vec<Flow>,
    /// Zones whose exports the repair scaled down or dropped.
    pub exports_repaired: Vec<bool>,
    /// The composition of the throughput of every zone that consumes nothing but has power passing
    /// through it (`L = 0 < P`): `(i, row)` with `row[j] = M[i][j]·G_j / P_i`, summing to 1. X has
    /// no row for such a zone; this is what a kWh drawn from its pool would be made of, the limit of
    /// `X[i][·]/L_i` as `L_i → 0` (docs/methodology.md §1, "Exports larger than supply").
    pub pool_rows: Vec<(usize, Vec<f64>)>,
}

impl Traced {
    /// `X[i][j]`.
    pub fn x_at(&self, i: usize, j: usize) -> f64 {
        self.x[i * self.n + j]
    }
}

/// Traces a network given total generation per zone and flows `(from, to, MW)`, repairing the flows
/// first:
///
/// 1. **Clean-up**: flows that are negative, NaN, infinite, zero, from a zone to itself or name a
///    zone out of range are ignored; duplicate `(from, to)` pairs are summed.
/// 2. **Phantom flows**: flows leaving a zone that no generation can reach (a set of zones without
///    generation that only feed each other) carry power from nowhere; they are dropped (scaled to
///    0). Without this, such a loop would make A singular.
/// 3. **Scaling**: a zone whose exports exceed its generation plus imports has all its exports
///    scaled by one factor so they fit. Scaling reduces other zones' imports, so this is iterated
///    until no zone violates; the result is the greatest fixed point of that iteration (what
///    repeated scaling converges to), reached in at most n rounds: each round adds the newly
///    violating zones to the "binding" set and solves the binding zones'
///    `exports = generation + imports` equations exactly.
/// 4. **Tracing**: `A[i][i] = 1`, `A[i][j] = −F(j→i)/P_j`, `M = A⁻¹`, `X[i][j] = C_i·M[i][j]·G_j`.
pub fn trace(generation_totals: &[f64], flows: &[Flow]) -> Traced {
    let n = generation_totals.len();
    let g = generation_totals
        .iter()
        .map(|&v| if v.is_finite() && v > 0.0 { v } else { 0.0 })
        .collect();
    let mut clean: Vec<Flow> = flows
        .iter()
        .copied()
        .filter(|&(f, t, mw)| f < n && t < n && f != t && mw.is_finite() && mw > 0.0)
        .collect();
    clean.sort_by_key(|&(f, t, _)| (f, t));
    clean.dedup_by(|b, a| {
        let same = (a.0, a.1) == (b.0, b.1);
        if same {
            a.2 += b.2;
        }
        same
    });
    trace_prepared(g, clean)
}

/// Traces a network whose flows are already clean: in range, `from != to`, finite and positive MW, at
/// most one flow per `(from, to)`; generation finite and non-negative. The returned flows keep the
/// given order (dropped ones at 0 MW).
pub(crate) fn trace_prepared(generation: Vec<f64>, mut flows: Vec<Flow>) -> Traced {
    let n = generation.len();
    let mut exports_repaired = vec![false; n];
    drop_phantom_flows(&generation, &mut flows, &mut exports_repaired);
    let capped = scale_exports(&generation, &mut flows, &mut exports_repaired);

    let mut imports = vec![0.0; n];
    let mut exports = vec![0.0; n];
    for &(f, t, mw) in &flows {
        exports[f] += mw;
        imports[t] += mw;
    }
    let through: Vec<f64> = (0..n).map(|i| generation[i] + imports[i]).collect();
    // A zone whose exports were capped consumes nothing (exactly, not a rounding residue).
    let consumption: Vec<f64> = (0..n)
        .map(|i| {
            if capped[i] {
                0.0
            } else {
                (through[i] - exports[i]).max(0.0)
            }
        })
        .collect();

    let (x, pool_rows) = solve_x(&generation, &flows, &through, &consumption);
    Traced {
        n,
        generation,
        imports,
        exports,
        consumption,
        x,
        flows,
        exports_repaired,
        pool_rows,
    }
}

/// Step 2: drops every flow leaving a zone that no zone with generation reaches through flows.
fn drop_phantom_flows(g: &[f64], flows: &mut [Flow], repaired: &mut [bool]) {
    let n = g.len();
    let mut reached: Vec<bool> = g.iter().map(|&v| v > 0.0).collect();
    // Flows are few (a few hundred); relaxing until nothing changes is at most n passes and usually 2.
    let mut changed = true;
    while changed {
        changed = false;
        for &(f, t, mw) in flows.iter() {
            if mw > 0.0 && reached[f] && !reached[t] {
                reached[t] = true;
                changed = true;
            }
        }
    }
    debug_assert_eq!(reached.len(), n);
    for fl in flows.iter_mut() {
        if fl.2 > 0.0 && !reached[fl.0] {
            fl.2 = 0.0;
            repaired[fl.0] = true;
        }
    }
}

/// Step 3: scales exports so that no zone exports more than its generation plus imports. Returns the
/// zones whose exports were capped (they export all their supply).
fn scale_exports(g: &[f64], flows: &mut [Flow], repaired: &mut [bool]) -> Vec<bool> {
    let n = g.len();
    let mut e0 = vec![0.0; n];
    for &(f, _, mw) in flows.iter() {
        e0[f] += mw;
    }
    // s[i]: factor applied to zone i's exports; binding[i]: whether zone i's exports are capped.
    let mut s = vec![1.0_f64; n];
    let mut binding = vec![false; n];
    let mut through = vec![0.0; n];
    for _round in 0..=n {
        through.copy_from_slice(g);
        for &(f, t, mw) in flows.iter() {
            through[t] += s[f] * mw;
        }
        let mut new = false;
        for i in 0..n {
            if !binding[i] && e0[i] > 0.0 && through[i] < e0[i] * s[i] {
                binding[i] = true;
                new = true;
            }
        }
        if !new {
            break;
        }
        if !solve_binding(g, flows, &e0, &binding, &mut s) {
            // Should not happen (the system is a non-singular M-matrix once phantom flows are gone);
            // fall back to one plain scaling step, which keeps everything finite and shrinking.
            for i in 0..n {
                if binding[i] && e0[i] > 0.0 {
                    s[i] = s[i].min(through[i] / e0[i]).max(0.0);
                }
            }
        }
    }
    for fl in flows.iter_mut() {
        let k = s[fl.0];
        if k < 1.0 {
            fl.2 *= k;
            repaired[fl.0] = true;
        }
    }
    (0..n).map(|i| binding[i] && s[i] < 1.0).collect()
}

/// Solves `e0_i·s_i − Σ_{j binding} F(j→i)·s_j = G_i + Σ_{j not binding} F(j→i)·s_j` for the binding
/// zones and lowers `s` to the solution (clamped to `[0, s]`). Returns false if the solve failed.
fn solve_binding(g: &[f64], flows: &[Flow], e0: &[f64], binding: &[bool], s: &mut [f64]) -> bool {
    let idx: Vec<usize> = (0..g.len()).filter(|&i| binding[i]).collect();
    let mut pos = vec![usize::MAX; g.len()];
    for (k, &i) in idx.iter().enumerate() {
        pos[i] = k;
    }
    let b = idx.len();
    let mut a = DMatrix::<f64>::zeros(b, b);
    let mut rhs = DVector::<f64>::zeros(b);
    for (k, &i) in idx.iter().enumerate() {
        a[(k, k)] = e0[i];
        rhs[k] = g[i];
    }
    for &(f, t, mw) in flows {
        let kt = pos[t];
        if kt == usize::MAX {
            continue;
        }
        match pos[f] {
            usize::MAX => rhs[kt] += s[f] * mw,
            kf => a[(kt, kf)] -= mw,
        }
    }
    let Some(sol) = a.lu().solve(&rhs) else {
        return false;
    };
    if sol.iter().any(|v| !v.is_finite()) {
        return false;
    }
    for (k, &i) in idx.iter().enumerate() {
        s[i] = sol[k].clamp(0.0, s[i]);
    }
    true
}

/// Step 4: X from clean, feasible flows (dense n×n, row-major), and the throughput's composition of
/// every zone with `L = 0 < P` ([`Traced::pool_rows`]).
fn solve_x(
    g: &[f64],
    flows: &[Flow],
    through: &[f64],
    consumption: &[f64],
) -> (Vec<f64>, Vec<(usize, Vec<f64>)>) {
    let n = g.len();
    let mut x = vec![0.0; n * n];
    let mut pool_rows = Vec::new();
    // Compact to the zones that take part.
    let mut active = vec![false; n];
    for &(f, t, mw) in flows {
        if mw > 0.0 {
            active[f] = true;
            active[t] = true;
        }
    }
    for (i, &gi) in g.iter().enumerate() {
        active[i] |= gi > 0.0;
    }
    let idx: Vec<usize> = (0..n).filter(|&i| active[i]).collect();
    let m = idx.len();
    if m == 0 {
        return (x, pool_rows);
    }
    let mut pos = vec![usize::MAX; n];
    for (k, &i) in idx.iter().enumerate() {
        pos[i] = k;
    }
    // share[k] = C of compact zone k (column sums of A), 1 for a zone with nothing passing through.
    let share: Vec<f64> = idx
        .iter()
        .map(|&i| {
            if through[i] > 0.0 {
                (consumption[i] / through[i]).min(1.0)
            } else {
                1.0
            }
        })
        .collect();
    let mut a = vec![0.0; m * m];
    for k in 0..m {
        a[k * m + k] = 1.0;
    }
    for &(f, t, mw) in flows {
        if mw > 0.0 && through[f] > 0.0 {
            a[pos[t] * m + pos[f]] -= mw / through[f];
        }
    }
    invert_m_matrix(&mut a, m, share.clone());
    for (ki, &i) in idx.iter().enumerate() {
        let ci = if through[i] > 0.0 { share[ki] } else { 0.0 };
        let row = &a[ki * m..(ki + 1) * m];
        if ci == 0.0 {
            if through[i] > 0.0 {
                // Consumes nothing: keep what its pool is made of (M[i][·]·G / P_i).
                let mut pool = vec![0.0; n];
                for (kj, &j) in idx.iter().enumerate() {
                    pool[j] = row[kj] * g[j] / through[i];
                }
                pool_rows.push((i, pool));
            }
            continue;
        }
        let xrow = &mut x[i * n..(i + 1) * n];
        if m == n {
            // Every zone takes part (the usual case): contiguous, vectorised.
            for ((xv, mv), gv) in xrow.iter_mut().zip(row).zip(g) {
                *xv = ci * (mv * gv);
            }
        } else {
            for (kj, &j) in idx.iter().enumerate() {
                xrow[j] = ci * (row[kj] * g[j]);
            }
        }
    }
    (x, pool_rows)
}

/// Inverts in place the m×m row-major M-matrix `a` (unit diagonal, non-positive off-diagonal entries)
/// whose column sums are `col_sums` (given, not computed, so that `1 − E/P` never cancels).
///
/// Gauss–Jordan without pivoting; the pivot of step k is recomputed as the Schur complement's column
/// sum plus the magnitudes of its off-diagonal entries (GTH), and the column sums are updated without
/// subtraction. Public within the crate for tests against nalgebra.
pub(crate) fn invert_m_matrix(a: &mut [f64], m: usize, mut col_sums: Vec<f64>) {
    let mut pivot_row = vec![0.0; m];
    for k in 0..m {
        let mut piv = col_sums[k];
        for i in k + 1..m {
            piv -= a[i * m + k];
        }
        debug_assert!(
            piv.is_finite() && piv > 0.0,
            "singular flow matrix (pivot {piv})"
        );
        if !(piv.is_finite() && piv > 0.0) {
            // Singular: impossible after the repairs; keep the result finite rather than panic.
            piv = 1.0;
        }
        let r = 1.0 / piv;
        {
            let row = &mut a[k * m..(k + 1) * m];
            row[k] = 1.0;
            for v in row.iter_mut() {
                *v *= r;
            }
            pivot_row.copy_from_slice(row);
        }
        let sk = col_sums[k];
        if sk != 0.0 {
            for j in k + 1..m {
                col_sums[j] -= sk * pivot_row[j];
            }
        }
        for i in 0..m {
            if i == k {
                continue;
            }
            let row = &mut a[i * m..(i + 1) * m];
            let f = row[k];
            if f == 0.0 {
                continue;
            }
            row[k] = 0.0;
            for (v, p) in row.iter_mut().zip(&pivot_row) {
                *v -= f * p;
            }
        }
    }
}
