//! Input points: what providers, importers, the estimator and the forecast feed into gridprint.
//!
//! Every point names its series (generation of a zone and production type, load of a zone, or a
//! physical flow between two zones), its slot, its value in MW, its [`DataState`] and its datasource.
//! Importers produce them, stores keep them, and [`SlotInputs`] gathers one slot for the engine.

use crate::production::{N_TYPES, ProductionType};
use crate::quality::DataState;
use crate::slot::Slot;
use crate::zone::{ZoneCode, ZoneIdx, Zones};
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
    /// `ENTSO-E`, `Elexon`, `EPIAS`, or `wattnet-hybrid-estimation:gridprint-<method>` for points
    /// gridprint estimated or forecast ([`DATASOURCE_ESTIMATION_PREFIX`]).
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

/// Prefix of the datasource of every point gridprint estimated or forecast, followed by the method
/// (`wattnet-hybrid-estimation:gridprint-linear`): the reference's response models accept for
/// `datasource` only `ENTSO-E`, `Elexon`, `EPIAS` or `^wattnet-hybrid-estimation:.*$`, and
/// `gridprint-` says whose method it is (docs/compatibility.md). Whether a point is an estimate or
/// a forecast is its state (`estimated`, `missing`), not its datasource.
pub const DATASOURCE_ESTIMATION_PREFIX: &str = "wattnet-hybrid-estimation:gridprint-";

/// Whether `datasource` is [`DATASOURCE_ESTIMATION_PREFIX`] followed by a method name; `const`, so
/// that each estimation datasource constant is checked when compiled.
pub const fn is_estimation_datasource(datasource: &str) -> bool {
    let (prefix, d) = (
        DATASOURCE_ESTIMATION_PREFIX.as_bytes(),
        datasource.as_bytes(),
    );
    if d.len() <= prefix.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if d[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Datasource of a border flow that no provider reported and no estimator could fill: taken as 0 MW
/// and recorded as estimated, so the zones on that border are `preview`, never `complete`.
pub const DATASOURCE_ASSUMED_ZERO: &str = "wattnet-hybrid-estimation:gridprint-assumed-zero";
const _: () = assert!(is_estimation_datasource(DATASOURCE_ASSUMED_ZERO));

impl SlotInputs {
    /// Per zone, whether it has inputs in this slot: generation data, or a recorded flow on any of
    /// its borders (a zone without generation data whose flows are recorded: DE in the 2022
    /// recordings). A recorded flow is an official one or one of more than 0 MW: the flows assumed
    /// 0 MW ([`SlotInputs::assume_absent_flows`]) do not make their other end take part, or each
    /// compute would reach one border further.
    pub fn takes_part(&self) -> Vec<bool> {
        let mut part: Vec<bool> = self.generation.iter().map(Option::is_some).collect();
        let recorded = |f: &&FlowInput| f.state == DataState::Official || f.mw > 0.0;
        for f in self.flows.iter().filter(recorded) {
            for z in [f.from, f.to] {
                if let Some(p) = part.get_mut(z) {
                    *p = true;
                }
            }
        }
        part
    }

    /// Adds a 0 MW [`DataState::Estimated`] flow for each direction of each border (inside the zone
    /// set) of a zone with inputs in this slot ([`SlotInputs::takes_part`]: generation data or a
    /// recorded flow) that has no flow yet, and returns the `(from, to)` pairs it added. An absent
    /// flow is thereby never a silent zero: the flags of both zones, and the raw inputs of a zone
    /// without generation data, see an estimated input. Borders to zones outside the zone set are
    /// not part of the traced network and are not added.
    pub fn assume_absent_flows(&mut self, zones: &Zones) -> Vec<(ZoneIdx, ZoneIdx)> {
        // Borders and flows both in (from, to) order: one walk finds the borders with no flow.
        if !self.flows.is_sorted_by_key(|f| (f.from, f.to)) {
            self.flows.sort_by_key(|f| (f.from, f.to));
        }
        let part = self.takes_part();
        let mut present = self.flows.iter().map(|f| (f.from, f.to)).peekable();
        let mut added: Vec<(ZoneIdx, ZoneIdx)> = Vec::new();
        for &border in zones.borders() {
            while present.next_if(|&p| p < border).is_some() {}
            if present.peek() == Some(&border) {
                continue;
            }
            let (from, to) = border;
            if part[from] || part[to] {
                added.push(border);
            }
        }
        if added.is_empty() {
            return added;
        }
        self.flows.extend(added.iter().map(|&(from, to)| FlowInput {
            from,
            to,
            mw: 0.0,
            state: DataState::Estimated,
        }));
        self.flows.sort_by_key(|f| (f.from, f.to));
        added
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{ReferenceData, ZoneSet};

    #[test]
    fn absent_borders_of_zones_with_inputs_become_estimated_zero_flows() {
        let r = ReferenceData::embedded(ZoneSet::Selected2026);
        let z = &r.zones;
        let de = z.index_of_str("DE").unwrap();
        let fr = z.index_of_str("FR").unwrap();
        let mut s = SlotInputs::empty(Slot(0), z.len());
        s.generation[de] = Some([1.0; N_TYPES]);
        s.generation_state[de] = Some(DataState::Official);
        s.flows.push(FlowInput {
            from: de,
            to: fr,
            mw: 500.0,
            state: DataState::Official,
        });
        let added = s.assume_absent_flows(z);
        // every direction of every border of DE, and of FR (it has a recorded flow), but the
        // reported DE→FR one
        let touches = |x: usize| x == de || x == fr;
        let expected: Vec<_> = z
            .borders()
            .iter()
            .copied()
            .filter(|&(a, b)| (touches(a) || touches(b)) && (a, b) != (de, fr))
            .collect();
        assert_eq!(added, expected);
        assert!(added.contains(&(fr, de)));
        assert_eq!(s.flows.len(), expected.len() + 1);
        let reported = s.flows.iter().find(|f| (f.from, f.to) == (de, fr)).unwrap();
        assert_eq!((reported.mw, reported.state), (500.0, DataState::Official));
        assert!(
            s.flows
                .iter()
                .filter(|f| (f.from, f.to) != (de, fr))
                .all(|f| f.mw == 0.0 && f.state == DataState::Estimated)
        );
        // a second pass adds nothing: the assumed flows do not make their other ends take part
        assert!(s.assume_absent_flows(z).is_empty());
    }

    #[test]
    fn a_zone_with_flows_but_no_generation_gets_its_other_borders_assumed() {
        let r = ReferenceData::embedded(ZoneSet::Selected2026);
        let z = &r.zones;
        let (de, at) = (z.index_of_str("DE").unwrap(), z.index_of_str("AT").unwrap());
        let mut s = SlotInputs::empty(Slot(0), z.len());
        s.flows.push(FlowInput {
            from: at,
            to: de,
            mw: 900.0,
            state: DataState::Official,
        });
        let added = s.assume_absent_flows(z);
        // Every direction of every border of DE and of AT but the reported AT→DE one: DK1's too.
        let dk1 = z.index_of_str("DK1").unwrap();
        assert!(
            added.contains(&(dk1, de)) && added.contains(&(de, dk1)) && added.contains(&(de, at))
        );
        assert!(!added.contains(&(at, de)));
        let expected = z
            .borders()
            .iter()
            .filter(|&&(a, b)| [a, b].iter().any(|&x| x == de || x == at) && (a, b) != (at, de))
            .count();
        assert_eq!(added.len(), expected);
        assert!(s.assume_absent_flows(z).is_empty());
    }

    #[test]
    fn zones_without_data_on_either_side_get_nothing() {
        let r = ReferenceData::embedded(ZoneSet::Selected2026);
        let mut s = SlotInputs::empty(Slot(0), r.zones.len());
        assert!(s.assume_absent_flows(&r.zones).is_empty());
        assert!(s.flows.is_empty());
    }
}
