#!/usr/bin/env python3
"""Computes the worked examples of docs/methodology.md (standard library only, exact fractions).

1. The 4-zone chain check value of docs/methodology.md §1: X = diag(C)·(A⁻¹)·diag(G), global footprints.
2. Scope: an illustrative mix whose operational carbon footprint exceeds its life-cycle one.
3. Best window: gridprint's measure (mean of whole 15-minute slots of the step series) against CATS'
   (trapezoidal mean of the piecewise-linear series over [start, start + duration]).

Run: python3 scripts/methodology-examples.py
"""
from fractions import Fraction as Fr


def invert(a):
    """Gauss-Jordan inverse of a small square matrix of Fractions."""
    n = len(a)
    m = [row[:] + [Fr(int(i == j)) for j in range(n)] for i, row in enumerate(a)]
    for k in range(n):
        p = next(r for r in range(k, n) if m[r][k] != 0)
        m[k], m[p] = m[p], m[k]
        piv = m[k][k]
        m[k] = [v / piv for v in m[k]]
        for r in range(n):
            if r != k and m[r][k] != 0:
                f = m[r][k]
                m[r] = [a - f * b for a, b in zip(m[r], m[k])]
    return [row[n:] for row in m]


def chain():
    g = [Fr(40000), Fr(50000), Fr(30000), Fr(20000)]
    flows = {(0, 1): Fr(5000), (1, 2): Fr(4400), (2, 3): Fr(8600)}  # (from, to): MW
    local = [Fr(100), Fr(200), Fr(300), Fr(400)]
    n = len(g)
    imp = [sum(v for (f, t), v in flows.items() if t == i) for i in range(n)]
    exp = [sum(v for (f, t), v in flows.items() if f == i) for i in range(n)]
    p = [g[i] + imp[i] for i in range(n)]
    l = [p[i] - exp[i] for i in range(n)]
    c = [l[i] / p[i] for i in range(n)]
    a = [[Fr(1) if i == j else -flows.get((j, i), Fr(0)) / p[j] for j in range(n)] for i in range(n)]
    m = invert(a)
    x = [[c[i] * m[i][j] * g[j] for j in range(n)] for i in range(n)]
    print("Chain check value (docs/methodology.md §1)")
    for i in range(n):
        glob = sum(x[i][j] * local[j] for j in range(n)) / l[i]
        row = ", ".join(str(v) for v in x[i])
        print(f"  zone {i + 1}: L = {l[i]}, X row = [{row}], global = {glob} = {float(glob):.6f}")


def scope_example():
    # share of generation, (life-cycle, operational) gCO2/kWh from data/reference/footprint/Carbon.yaml
    mix = {"biomass": (Fr(10, 100), 230, 1030), "coal": (Fr(15, 100), 936, 760),
           "gas": (Fr(15, 100), 434, 370), "wind_onshore": (Fr(30, 100), Fr("12.4"), 0),
           "solar": (Fr(30, 100), Fr("36.95"), 0)}
    lc = sum(s * f for s, f, _ in mix.values())
    op = sum(s * f for s, _, f in mix.values())
    print(f"\nScope example: life-cycle {float(lc):.3f}, operational {float(op):.3f} gCO2/kWh")


def step_mean(v, s, k):
    """gridprint: each value holds for its whole slot; mean over slots s .. s+k-1."""
    return Fr(sum(v[s:s + k]), k)


def trapezoid_mean(v, s, k):
    """CATS: values are points joined by straight lines; mean over [t_s, t_(s+k)] (needs v[s+k])."""
    if s + k >= len(v):
        return None
    return (Fr(v[s], 2) + sum(v[s + 1:s + k]) + Fr(v[s + k], 2)) / k


def best_window():
    times = ["00:00", "00:15", "00:30", "00:45", "01:00", "01:15", "01:30", "01:45"]
    v = [300, 240, 150, 390, 180, 120, 110, 260]  # gCO2/kWh, one value per 15-minute slot
    k = 2  # a 30-minute job = 2 slots
    print("\nBest window, 30-minute job")
    print("  start  gridprint(step)  CATS(trapezoid)")
    best = {}
    for s in range(len(v) - k + 1):
        a, b = step_mean(v, s, k), trapezoid_mean(v, s, k)
        print(f"  {times[s]}  {float(a):15.2f}  {'—' if b is None else f'{float(b):15.2f}'}")
        for name, val in (("step", a), ("trapezoid", b)):
            if val is not None and (name not in best or val < best[name][0]):  # ties: earliest
                best[name] = (val, times[s])
    for name, (val, t) in best.items():
        print(f"  best by {name}: start {t}, mean {float(val):.2f}")


if __name__ == "__main__":
    chain()
    scope_example()
    best_window()
