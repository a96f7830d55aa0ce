//! Building the raw-input side of a cache: input points from the store, one series per
//! generation type of a zone, zone load and directed flow, indexed per zone, packed into the
//! cache's chunk pool; or continuing from a loaded cache's series for an incremental refresh.

use super::chunk::ChunkPool;
use super::inputs::{InputSeries, ZoneInputs};
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_store::{Result as StoreResult, Store};
use std::collections::HashMap;
use std::ops::Range;

/// Builds the raw-input side of a cache point by point.
pub(super) struct InputsBuilder<'r> {
    reference: &'r ReferenceData,
    inputs: Vec<ZoneInputs>,
    pub(super) series: Vec<InputSeries>,
    by_key: HashMap<InputKey, u32>,
    datasources: Vec<String>,
    ds_ids: HashMap<String, u16>,
}

impl<'r> InputsBuilder<'r> {
    pub(super) fn new(reference: &'r ReferenceData) -> Self {
        InputsBuilder {
            reference,
            inputs: vec![ZoneInputs::default(); reference.zones.len()],
            series: Vec::new(),
            by_key: HashMap::new(),
            datasources: Vec::new(),
            ds_ids: HashMap::new(),
        }
    }

    /// Continues from the raw inputs of a loaded cache (an incremental refresh writes the changed
    /// days into copies of its series).
    pub(super) fn resume(
        reference: &'r ReferenceData,
        inputs: Vec<ZoneInputs>,
        series: Vec<InputSeries>,
        datasources: Vec<String>,
    ) -> Self {
        let zones = &reference.zones;
        let mut by_key = HashMap::new();
        for (z, zi) in inputs.iter().enumerate() {
            let zone = zones.code(z).clone();
            for (t, id) in &zi.generation {
                let key = InputKey::Generation {
                    zone: zone.clone(),
                    production_type: *t,
                };
                by_key.insert(key, *id);
            }
            if let Some(id) = zi.load {
                by_key.insert(InputKey::Load { zone: zone.clone() }, id);
            }
            for (to, id) in &zi.exports {
                let key = InputKey::Flow {
                    from: zone.clone(),
                    to: to.clone(),
                };
                by_key.insert(key, *id);
            }
            for (from, id) in &zi.imports {
                let key = InputKey::Flow {
                    from: from.clone(),
                    to: zone.clone(),
                };
                by_key.insert(key, *id);
            }
        }
        let ds_ids = datasources
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i as u16))
            .collect();
        InputsBuilder {
            reference,
            inputs,
            series,
            by_key,
            datasources,
            ds_ids,
        }
    }

    /// Reads the input points of `days` from the store and packs them.
    pub(super) fn load_days(
        &mut self,
        store: &dyn Store,
        pool: &mut ChunkPool,
        days: Range<i64>,
    ) -> StoreResult<()> {
        let range = SlotRange::new(Slot::first_of_day(days.start), Slot::first_of_day(days.end));
        for p in store.inputs_in_range(range)? {
            self.add(pool, p.point);
        }
        self.flush(pool);
        Ok(())
    }

    /// The zone index (series without any day left out, sorted) and the series, shrunk.
    pub(super) fn finish(self) -> (Vec<ZoneInputs>, Vec<InputSeries>, Vec<String>) {
        let InputsBuilder {
            mut inputs,
            mut series,
            datasources,
            ..
        } = self;
        let held = |id: &u32| !series[*id as usize].days.is_empty();
        for zi in &mut inputs {
            zi.generation.retain(|(_, id)| held(id));
            zi.imports.retain(|(_, id)| held(id));
            zi.exports.retain(|(_, id)| held(id));
            zi.load = zi.load.filter(held);
            zi.generation.sort_by_key(|(t, _)| *t);
            zi.imports.sort();
            zi.exports.sort();
        }
        for s in &mut series {
            s.shrink();
        }
        (inputs, series, datasources)
    }

    fn datasource(&mut self, s: &str) -> u16 {
        if let Some(&id) = self.ds_ids.get(s) {
            return id;
        }
        // More than 65,535 distinct datasources would be a bug upstream; fold the excess into the last.
        let id = self.datasources.len().min(u16::MAX as usize) as u16;
        if (id as usize) == self.datasources.len() {
            self.datasources.push(s.to_string());
        }
        self.ds_ids.insert(s.to_string(), id);
        id
    }

    fn add(&mut self, pool: &ChunkPool, p: InputPoint) {
        let id = match self.by_key.get(&p.key) {
            Some(&id) => id,
            None => {
                let zones = &self.reference.zones;
                let id = self.series.len() as u32;
                let used = match &p.key {
                    InputKey::Generation {
                        zone,
                        production_type,
                    } => match zones.index_of(zone) {
                        Some(z) => {
                            self.inputs[z].generation.push((*production_type, id));
                            true
                        }
                        None => false,
                    },
                    InputKey::Load { zone } => match zones.index_of(zone) {
                        Some(z) => {
                            self.inputs[z].load = Some(id);
                            true
                        }
                        None => false,
                    },
                    InputKey::Flow { from, to } => {
                        let (f, t) = (zones.index_of(from), zones.index_of(to));
                        if let Some(f) = f {
                            self.inputs[f].exports.push((to.clone(), id));
                        }
                        if let Some(t) = t {
                            self.inputs[t].imports.push((from.clone(), id));
                        }
                        f.is_some() || t.is_some()
                    }
                };
                if !used {
                    return;
                }
                self.series.push(InputSeries::default());
                self.by_key.insert(p.key.clone(), id);
                id
            }
        };
        let ds = self.datasource(&p.datasource);
        self.series[id as usize].set(pool, p.slot, p.mw, p.state, ds);
    }

    /// Packs the days written since the last flush into the pool.
    pub(super) fn flush(&mut self, pool: &mut ChunkPool) {
        for s in &mut self.series {
            s.flush(pool);
        }
    }
}
