//! Benchmarks of the flow-tracing engine on the real 52-zone topology of the default zone set, with
//! synthetic but deterministic inputs (a linear congruential generator; every border carries a flow in
//! both directions, which is the hardest case for the tracer: one strongly connected network).
//!
//! Run with `cargo bench -p gridprint-core --bench engine`. The year benches trace 35,040 slots, each
//! with fresh inputs generated in place (no allocation); `inputs_only_year` measures that generation
//! alone so it can be subtracted.

use gridprint_core::engine::trace_slot;
use gridprint_core::inputs::{FlowInput, SlotInputs};
use gridprint_core::production::N_TYPES;
use gridprint_core::quality::DataState;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::Slot;
use gridprint_core::testing::Lcg;
use rayon::prelude::*;

fn main() {
    divan::main();
}

/// Slots in a (non-leap) year.
const YEAR: i64 = 35_040;
/// 2025-01-01T00:00Z.
const FIRST: Slot = Slot(1_735_689_600 / 900);

/// Reusable inputs for one slot: generation for every zone, a flow on every border.
struct Synthetic {
    inputs: SlotInputs,
    /// Size of each zone (MW), fixed.
    size: Vec<f64>,
}

impl Synthetic {
    fn new(reference: &ReferenceData) -> Synthetic {
        let n = reference.zones.len();
        let mut rng = Lcg(42);
        let size = (0..n)
            .map(|_| 500.0 + 40_000.0 * rng.next_f64().powi(2))
            .collect();
        let mut inputs = SlotInputs::empty(FIRST, n);
        inputs.flows = reference
            .zones
            .borders()
            .iter()
            .copied()
            .map(|(from, to)| FlowInput {
                from,
                to,
                mw: 0.0,
                state: DataState::Official,
            })
            .collect();
        inputs.generation_state = vec![Some(DataState::Official); n];
        let mut s = Synthetic { inputs, size };
        s.fill(FIRST);
        s
    }

    /// Overwrites the inputs with the slot's synthetic values, in place.
    fn fill(&mut self, slot: Slot) {
        let mut rng = Lcg(slot.0 as u64 ^ 0x9e37_79b9_7f4a_7c15);
        self.inputs.slot = slot;
        for (g, size) in self.inputs.generation.iter_mut().zip(&self.size) {
            let mut mix = [0.0; N_TYPES];
            for v in mix.iter_mut() {
                let r = rng.next_f64();
                // About a third of the types are absent in a zone and slot (branch-free).
                *v = size * r / 8.0 * f64::from(u8::from(r >= 0.35));
            }
            *g = Some(mix);
        }
        for f in self.inputs.flows.iter_mut() {
            let small = self.size[f.from].min(self.size[f.to]);
            f.mw = 0.15 * small * rng.next_f64();
        }
    }
}

/// Fills the inputs of every slot of a year in turn and sums what `read` takes of each, so that
/// none of the work can be optimised away.
fn year_checksum(s: &mut Synthetic, mut read: impl FnMut(&SlotInputs) -> f64) -> f64 {
    let mut checksum = 0.0;
    for k in 0..YEAR {
        s.fill(FIRST.offset(k));
        checksum += read(&s.inputs);
    }
    checksum
}

fn reference() -> ReferenceData {
    ReferenceData::embedded(ZoneSet::Selected2026)
}

#[divan::bench]
fn one_slot(bencher: divan::Bencher) {
    let r = reference();
    let s = Synthetic::new(&r);
    bencher.bench(|| trace_slot(divan::black_box(&r), divan::black_box(&s.inputs)));
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn one_year_single_thread(bencher: divan::Bencher) {
    let r = reference();
    let mut s = Synthetic::new(&r);
    bencher.bench_local(|| divan::black_box(year_checksum(&mut s, |i| trace_slot(&r, i).x[0])));
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn one_year_rayon(bencher: divan::Bencher) {
    let r = reference();
    bencher.bench(|| {
        (0..YEAR)
            .into_par_iter()
            .map_init(
                || Synthetic::new(&r),
                |s, k| {
                    s.fill(FIRST.offset(k));
                    trace_slot(&r, &s.inputs).x[0]
                },
            )
            .sum::<f64>()
    });
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn inputs_only_year(bencher: divan::Bencher) {
    let r = reference();
    let mut s = Synthetic::new(&r);
    bencher.bench_local(|| divan::black_box(year_checksum(&mut s, |i| i.flows[0].mw)));
}
