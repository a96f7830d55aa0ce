//! The flow-tracing engine: one 15-minute slot of inputs for all zones in, every computed number out
//! (contract §5).
//!
//! (Being implemented: see `trace_slot`.)

use crate::inputs::{FlowInput, SlotInputs};
use crate::production::N_TYPES;
use crate::reference::ReferenceData;
use crate::slot::Slot;

/// WI_ref of the score, in stress-l/kWh.
pub const SCORE_WATER_REFERENCE: f64 = 100.0;
/// CF reference of the score, in gCO2/kWh (operational carbon footprint of coal).
pub const SCORE_CARBON_REFERENCE: f64 = 760.0;

/// Everything computed for one zone in one slot.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneResult {
    /// G: total generation (pumped storage excluded), MW.
    pub generation: f64,
    /// I: imports after repair, MW.
    pub imports: f64,
    /// E: exports after repair, MW.
    pub exports: f64,
    /// L = G + I − E: consumption, MW.
    pub consumption: f64,
    /// Local footprints `[footprint type][scope]` (indices of `FootprintType`/`Scope`); NaN when G = 0.
    pub footprint_local: [[f64; 2]; 2],
    /// Global (flow-traced) footprints; NaN when L = 0.
    pub footprint_global: [[f64; 2]; 2],
    /// Water impact (operational water footprint × AWARE monthly factor), stress-l/kWh.
    pub impact_local: f64,
    pub impact_global: f64,
    /// Score 0..100 from operational carbon footprint and water impact.
    pub score_local: f64,
    pub score_global: f64,
    /// Flow-traced consumption mix per production type, MW.
    pub mix: [f64; N_TYPES],
    /// Whether the engine had to repair this zone's inputs (exports scaled down, imports from an
    /// external source).
    pub repaired: bool,
    /// Whether the zone had no generation data and was modelled as an external source.
    pub external: bool,
}

/// Result of one slot.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotResult {
    pub slot: Slot,
    /// Per zone index; `None` for a zone that took no part (no data and no flows to zones with data).
    pub zones: Vec<Option<ZoneResult>>,
    /// X, dense row-major n×n: `x[i * n + j]` is the MW generated in zone j and consumed in zone i.
    pub x: Vec<f64>,
    /// Flows as used after repair.
    pub flows: Vec<FlowInput>,
}

/// Traces one slot.
pub fn trace_slot(_reference: &ReferenceData, _inputs: &SlotInputs) -> SlotResult {
    todo!("engine")
}
