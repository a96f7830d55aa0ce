//! Input points: what providers, importers, the estimator and the forecast feed into gridprint.
//!
//! Every point names its series (generation of a zone and production type, load of a zone, or a
//! physical flow between two zones), its slot, its value in MW, its [`DataState`] and its datasource.
//! Importers produce them, stores keep them, and [`SlotInputs`] gathers one slot for the engine.

use crate::production::{N_TYPES, ProductionType};
use crate::quality::DataState;
use crate::slot::Slot;
use crate::zone::{ZoneCode, ZoneIdx};
use serde::{Deserialize, Serialize};

/// Which series an input point belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum InputKey {
    Generation {
        zone: ZoneCode,
        production_type: ProductionType,
    },
    Load {
        zone: ZoneCode,
    },
    Flow {
        from: ZoneCode,
        to: ZoneCode,
    },
}

impl InputKey {
    /// The zone a point is reported for (the exporting zone for a flow).
    pub fn zone(&self) -> &ZoneCode {
        match self {
            InputKey::Generation { zone, .. } | InputKey::Load { zone } => zone,
            InputKey::Flow { from, .. } => from,
        }
    }
}

/// Datasource of provider data from ENTSO-E.
pub const DATASOURCE_ENTSOE: &str = "ENTSO-E";
/// Datasource of provider data from Elexon.
pub const DATASOURCE_ELEXON: &str = "Elexon";

/// One value of one series in one slot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputPoint {
    pub key: InputKey,
    pub slot: Slot,
    /// Power in MW, finite and non-negative.
    pub mw: f64,
    pub state: DataState,
    /// `ENTSO-E`, `Elexon`, `gridprint-estimation:<method>`, `gridprint-forecast:<method>`.
    pub datasource: String,
}

/// One physical flow in a slot, by zone index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowInput {
    pub from: ZoneIdx,
    pub to: ZoneIdx,
    pub mw: f64,
    pub state: DataState,
}

/// Everything the engine needs for one slot, all zones together (indexed as in [`crate::zone::Zones`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SlotInputs {
    pub slot: Slot,
    /// Generation per zone and production type in MW; `None` when the zone has no generation data in
    /// the slot (neither provider data, nor an estimate, nor a forecast).
    pub generation: Vec<Option<[f64; N_TYPES]>>,
    /// Worst data state among each zone's generation points (`None` with no data).
    pub generation_state: Vec<Option<DataState>>,
    /// Physical flows; at most one entry per (from, to).
    pub flows: Vec<FlowInput>,
}

impl SlotInputs {
    /// An empty slot for `n` zones.
    pub fn empty(slot: Slot, n: usize) -> SlotInputs {
        SlotInputs {
            slot,
            generation: vec![None; n],
            generation_state: vec![None; n],
            flows: Vec::new(),
        }
    }
}
