//! Building a [`DataCache`] from the store in day batches, and reading it: the version it was built
//! from, the load options, sizes, and the accessors the query functions use.

use super::chunk::ChunkPool;
use super::derived::DerivedZone;
use super::inputs::{InputSeries, ZoneInputs};
use gridprint_core::derived::{DerivedDay, SeriesKey};
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::ZoneIdx;
use gridprint_store::{Result as StoreResult, Store};
use std::collections::HashMap;
use std::sync::Arc;

/// What a cache was built from; a refresh reloads when the store reports something else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheVersion {
    /// `DerivedStore::data_version` (bumped by every published computation).
    pub data_version: i64,
    /// `InputStore::input_extent` (changes when inputs are added beyond the known range).
    pub input_extent: Option<SlotRange>,
}

impl CacheVersion {
    /// Reads the store's current version (two cheap queries).
    pub fn of(store: &dyn Store) -> StoreResult<CacheVersion> {
        Ok(CacheVersion {
            data_version: store.data_version()?,
            input_extent: store.input_extent()?,
        })
    }
}

/// How much to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOptions {
    /// Only these day numbers (days since 1970-01-01); `None`: every stored day. Without a window,
    /// derived days are read over the input extent (the compute writes days only where inputs
    /// exist); a store without inputs is read whole.
    pub days: Option<std::ops::Range<i64>>,
    /// Days per store query while loading (bounds the transient memory of a load).
    pub batch_days: i64,
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions {
            days: None,
            batch_days: 1,
        }
    }
}

/// Sizes of a cache, for logs and the memory report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Zone-days with derived data.
    pub derived_zone_days: usize,
    /// Chunks (96 values each) held in the pool: days of derived columns and, since they share the
    /// pool, of raw input series (a shared constant chunk counts once).
    pub derived_chunks: usize,
    /// Raw input series (generation types, loads, directed flows).
    pub input_series: usize,
    /// Series-days of raw inputs held.
    pub input_series_days: usize,
    /// Distinct datasource strings.
    pub datasources: usize,
    /// Approximate bytes held (heap and inline).
    pub bytes: usize,
}

/// Everything the query functions read: derived outputs and raw inputs of every zone.
#[derive(Debug)]
pub struct DataCache {
    reference: Arc<ReferenceData>,
    pub(super) version: CacheVersion,
    options: LoadOptions,
    derived: Vec<DerivedZone>,
    pool: Arc<ChunkPool>,
    /// For each origin zone, the zones whose days hold an `Exchange { origin }` column (ascending).
    destinations: Vec<Vec<ZoneIdx>>,
    inputs: Vec<ZoneInputs>,
    series: Vec<InputSeries>,
    datasources: Vec<String>,
}

/// For each origin zone, the zones that hold an exchange column naming it.
fn exchange_destinations(reference: &ReferenceData, derived: &[DerivedZone]) -> Vec<Vec<ZoneIdx>> {
    let mut out = vec![Vec::new(); reference.zones.len()];
    for (i, d) in derived.iter().enumerate() {
        for (k, _) in d.columns() {
            if let SeriesKey::Exchange { origin } = k
                && let Some(j) = reference.zones.index_of(origin)
            {
                out[j].push(i);
            }
        }
    }
    out
}

/// Builds the raw-input side of a cache point by point.
struct InputsBuilder<'r> {
    reference: &'r ReferenceData,
    inputs: Vec<ZoneInputs>,
    series: Vec<InputSeries>,
    by_key: HashMap<InputKey, u32>,
    datasources: Vec<String>,
    ds_ids: HashMap<String, u16>,
}

impl<'r> InputsBuilder<'r> {
    fn new(reference: &'r ReferenceData) -> Self {
        InputsBuilder {
            reference,
            inputs: vec![ZoneInputs::default(); reference.zones.len()],
            series: Vec::new(),
            by_key: HashMap::new(),
            datasources: Vec::new(),
            ds_ids: HashMap::new(),
        }
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
    fn flush(&mut self, pool: &mut ChunkPool) {
        for s in &mut self.series {
            s.flush(pool);
        }
    }
}

impl DataCache {
    /// Loads every stored day (see [`LoadOptions`]) from the store.
    pub fn load(store: &dyn Store, reference: Arc<ReferenceData>) -> StoreResult<DataCache> {
        Self::load_with(store, reference, LoadOptions::default())
    }

    /// Loads with explicit options.
    pub fn load_with(
        store: &dyn Store,
        reference: Arc<ReferenceData>,
        options: LoadOptions,
    ) -> StoreResult<DataCache> {
        // The version is read first: a change published during the load shows up as a newer version
        // at the next refresh, never as a missed one.
        let version = CacheVersion::of(store)?;
        let batch = options.batch_days.max(1);
        let zones = &reference.zones;

        // One pool for the chunks of derived columns and input series (constant chunks shared).
        let mut pool = ChunkPool::default();
        let mut b = InputsBuilder::new(&reference);
        let input_days = version
            .input_extent
            .map(|e| clip_days(e.days(), options.days.as_ref()));
        if let Some(days) = &input_days {
            for (a, z) in batches(days.clone(), batch) {
                let range = SlotRange::new(Slot::first_of_day(a), Slot::first_of_day(z));
                for p in store.inputs_in_range(range)? {
                    b.add(&pool, p.point);
                }
                b.flush(&mut pool);
            }
        }
        let InputsBuilder {
            mut inputs,
            mut series,
            datasources,
            ..
        } = b;
        for zi in &mut inputs {
            zi.generation.sort_by_key(|(t, _)| *t);
            zi.imports.sort();
            zi.exports.sort();
        }
        for s in &mut series {
            s.shrink();
        }

        let mut derived = vec![DerivedZone::default(); zones.len()];
        let mut add_days = |days: Vec<DerivedDay>| {
            for d in days {
                if let Some(z) = zones.index_of(&d.zone) {
                    derived[z].add_day(&mut pool, &d);
                }
            }
        };
        match (&options.days, &input_days) {
            (Some(days), _) | (None, Some(days)) => {
                for (a, z) in batches(days.clone(), batch) {
                    add_days(store.derived_days(a..z)?);
                }
            }
            (None, None) => {
                // No input extent to bound the read: scan the plausible span (1970 to two years
                // from now) in batches, so a load never holds the decoded store at once, then read
                // whatever lies outside it (normally nothing).
                let span = 0..today() + 731;
                add_days(store.derived_days(i64::MIN..span.start)?);
                for (a, z) in batches(span.clone(), batch) {
                    add_days(store.derived_days(a..z)?);
                }
                add_days(store.derived_days(span.end..i64::MAX)?);
            }
        }
        pool.shrink();
        let pool = Arc::new(pool);
        for d in &mut derived {
            d.finish();
            d.pool = pool.clone();
        }
        for s in &mut series {
            s.pool = pool.clone();
        }
        let destinations = exchange_destinations(&reference, &derived);
        Ok(DataCache {
            reference,
            version,
            options,
            derived,
            pool,
            destinations,
            inputs,
            series,
            datasources,
        })
    }

    /// A cache without any data (start-up before the first load, tests).
    pub fn empty(reference: Arc<ReferenceData>) -> DataCache {
        let n = reference.zones.len();
        DataCache {
            reference,
            version: CacheVersion {
                data_version: i64::MIN,
                input_extent: None,
            },
            options: LoadOptions::default(),
            derived: vec![DerivedZone::default(); n],
            pool: Arc::default(),
            destinations: vec![Vec::new(); n],
            inputs: vec![ZoneInputs::default(); n],
            series: Vec::new(),
            datasources: Vec::new(),
        }
    }

    /// Rebuilds from the store if its version differs from this cache's; `None` when unchanged.
    /// (A full reload: cheap enough for a year of 52 zones, and always consistent.)
    pub fn refresh(&self, store: &dyn Store) -> StoreResult<Option<DataCache>> {
        if CacheVersion::of(store)? == self.version {
            return Ok(None);
        }
        DataCache::load_with(store, self.reference.clone(), self.options.clone()).map(Some)
    }

    /// The reference data the cache was built with.
    pub fn reference(&self) -> &Arc<ReferenceData> {
        &self.reference
    }

    /// The store version the cache was built from.
    pub fn version(&self) -> CacheVersion {
        self.version
    }

    /// The store's `data_version` the cache was built from (for ETags).
    pub fn data_version(&self) -> i64 {
        self.version.data_version
    }

    /// Derived outputs of a zone.
    pub fn derived(&self, zone: ZoneIdx) -> &DerivedZone {
        &self.derived[zone]
    }

    /// The zones consuming generation of `origin` somewhere in the cache: those whose days hold an
    /// `Exchange { origin }` column, ascending (flow-share reads them).
    pub fn exchange_destinations(&self, origin: ZoneIdx) -> &[ZoneIdx] {
        &self.destinations[origin]
    }

    /// Raw-input index of a zone.
    pub fn inputs(&self, zone: ZoneIdx) -> &ZoneInputs {
        &self.inputs[zone]
    }

    /// A raw input series by number.
    pub fn input_series(&self, id: u32) -> &InputSeries {
        &self.series[id as usize]
    }

    /// The datasource string of an id.
    pub fn datasource(&self, id: u16) -> &str {
        self.datasources
            .get(id as usize)
            .map(String::as_str)
            .unwrap_or("")
    }

    /// Sizes and approximate memory held.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            derived_zone_days: self.derived.iter().map(|d| d.days.len()).sum(),
            derived_chunks: self.pool.chunks(),
            input_series: self.series.len(),
            input_series_days: self.series.iter().map(|s| s.days.len()).sum(),
            datasources: self.datasources.len(),
            bytes: self.memory_bytes(),
        }
    }

    /// Approximate bytes held by the cache (vector capacities plus key strings; allocator overhead
    /// and the shared reference data not counted).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self
                .derived
                .iter()
                .map(|d| std::mem::size_of::<DerivedZone>() + d.memory_bytes())
                .sum::<usize>()
            + self.pool.memory_bytes()
            + self
                .inputs
                .iter()
                .map(|z| std::mem::size_of::<ZoneInputs>() + z.memory_bytes())
                .sum::<usize>()
            + self
                .series
                .iter()
                .map(|s| std::mem::size_of::<InputSeries>() + s.memory_bytes())
                .sum::<usize>()
            + self
                .datasources
                .iter()
                .map(|s| 24 + s.capacity())
                .sum::<usize>()
    }
}

/// Today's day number (UTC).
fn today() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64 / 86_400)
        .unwrap_or(0)
}

fn clip_days(
    days: std::ops::Range<i64>,
    window: Option<&std::ops::Range<i64>>,
) -> std::ops::Range<i64> {
    match window {
        Some(w) => days.start.max(w.start)..days.end.min(w.end).max(days.start.max(w.start)),
        None => days,
    }
}

fn batches(days: std::ops::Range<i64>, size: i64) -> impl Iterator<Item = (i64, i64)> {
    let end = days.end;
    (days.start..days.end)
        .step_by(size as usize)
        .map(move |a| (a, (a + size).min(end)))
}
