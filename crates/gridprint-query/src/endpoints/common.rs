//! The building blocks the endpoint modules share: one result per selected zone, series entries
//! from grouped points, the points of raw or derived series with their flags, and the units.
//! The rules they apply (order, dropped points, flags of raw inputs) are in docs/api.md §3.

use crate::cache::{ABSENT, DataCache, DerivedZone, day_spans};
use crate::country::{Source, ValueSource};
use crate::group::{FlagPair, GroupEntry, Grouper};
use crate::params::{Country, TimeWindow, ZoneSelection};
use gridprint_core::derived::{SeriesKey, SlotFlags};
use gridprint_core::quality::{DataState, ZoneStatus, valid_flag};
use gridprint_core::slot::Slot;
use gridprint_core::zone::{ZoneCode, ZoneIdx};
use gridprint_responses::{FlagEntry, FlagSeries, Point, StaticStr, Values, ZoneSeries};

/// Datasource of the flow-traced mix.
pub const FLOW_TRACING: &str = "flow_tracing";
/// Unit of power series.
pub const MW: &str = "MW";
/// Unit of shares.
pub const PERCENT: &str = "%";
/// Unit of water impacts.
pub const WATER_IMPACT_UNIT: &str = "stress-l/kWh";
/// The only impact type.
pub const WATER: &str = "water";

pub(super) fn status_of_state(s: DataState) -> ZoneStatus {
    match s {
        DataState::Official => ZoneStatus::Complete,
        DataState::Estimated => ZoneStatus::Preview,
        DataState::Missing => ZoneStatus::Missing,
    }
}

pub(super) fn state_of_status(s: ZoneStatus) -> DataState {
    match s {
        ZoneStatus::Complete => DataState::Official,
        ZoneStatus::Preview => DataState::Estimated,
        ZoneStatus::Missing => DataState::Missing,
    }
}

pub(super) fn pair(f: SlotFlags) -> FlagPair {
    (f.valid(), f.status())
}

pub(super) fn keep_non_negative(v: f32) -> bool {
    v >= 0.0
}

/// A point of a stored `f32` value.
fn point(slot: Slot, v: f32) -> Point {
    Point {
        slot,
        value: v as f64,
    }
}

/// One result per selected zone whose entries are not empty (docs/api.md §3: a result without any
/// point in the window is left out): `entries(zone)` groups its points, `result` wraps them.
pub(super) fn per_zone<E, R>(
    cache: &DataCache,
    sel: &ZoneSelection,
    mut entries: impl FnMut(ZoneIdx) -> Vec<E>,
    mut result: impl FnMut(ZoneCode, Vec<E>) -> R,
) -> Vec<R> {
    zones_of(cache, sel)
        .into_iter()
        .filter_map(|(z, code)| {
            let series = entries(z);
            (!series.is_empty()).then(|| result(code, series))
        })
        .collect()
}

/// [`per_zone`] for the `zone, unit, series` items.
pub(super) fn zone_series<R: ZoneSeries>(
    cache: &DataCache,
    sel: &ZoneSelection,
    unit: StaticStr,
    entries: impl FnMut(ZoneIdx) -> Vec<R::Entry>,
) -> Vec<R> {
    per_zone(cache, sel, entries, |zone, series| {
        R::new(zone, unit, series)
    })
}

/// Series entries from grouped points: each group's flags make an entry of its blocks (`block`,
/// from the group's flags, the block key and its points).
pub(super) fn entries<K, E: FlagEntry>(
    groups: Vec<GroupEntry<K>>,
    mut block: impl FnMut(FlagPair, K, Values) -> E::Block,
) -> Vec<E> {
    groups
        .into_iter()
        .map(|g| {
            let blocks = g
                .leaves
                .into_iter()
                .map(|(k, pts)| block(g.pair, k, Values(pts)))
                .collect();
            E::new(g.pair.0, g.pair.1, blocks)
        })
        .collect()
}

/// The state of a zone's inputs per slot, for the raw endpoints where the compute stored no flags
/// (docs/api.md §6): the worst data state among the zone's generation points and the flows on each
/// of its borders in the zone set, both directions, where a border direction without a point counts
/// as estimated when the zone has generation or a flow in the slot (the compute then takes it as
/// 0 MW, `…gridprint-assumed-zero`). So the raw inputs of a
/// zone the compute does not trace (flows but no generation: DE, AT and NL in the 2022
/// recordings) never read `complete` while one of its borders has no data. Memoised per day.
struct ZoneInputStates {
    /// The zone's generation series.
    generation: Vec<u32>,
    /// Per border direction of the zone (in the zone set): its series, if the cache holds one.
    borders: Vec<Option<u32>>,
    days: std::collections::HashMap<i64, [u8; N_SLOTS]>,
}

const N_SLOTS: usize = gridprint_core::slot::SLOTS_PER_DAY as usize;

impl ZoneInputStates {
    fn new(cache: &DataCache, z: ZoneIdx) -> ZoneInputStates {
        let zones = &cache.reference().zones;
        let inputs = cache.inputs(z);
        let find = |side: &[(ZoneCode, u32)], other: ZoneIdx| {
            let code = zones.code(other);
            side.binary_search_by(|(c, _)| c.cmp(code))
                .ok()
                .map(|k| side[k].1)
        };
        let borders = zones
            .neighbours(z)
            .iter()
            .flat_map(|&o| [find(&inputs.imports, o), find(&inputs.exports, o)])
            .collect();
        ZoneInputStates {
            generation: inputs.generation.iter().map(|(_, id)| *id).collect(),
            borders,
            days: std::collections::HashMap::new(),
        }
    }

    /// The worst state of the zone's inputs in slot `i` of `day` (`DataState as u8`; estimated at
    /// best where a border has no point, official only when everything is).
    fn state(&mut self, cache: &DataCache, day: i64, i: usize) -> u8 {
        let (generation, borders) = (&self.generation, &self.borders);
        self.days.entry(day).or_insert_with(|| {
            let official = DataState::Official as u8;
            let mut worst = [official; N_SLOTS];
            // Whether the zone has generation or a flow in the slot: only then does the compute
            // take its borders without a point as 0 MW (a zone with nothing but load does not
            // take part).
            let mut part = [false; N_SLOTS];
            for &g in generation {
                if let Some(st) = cache.input_series(g).states_of_day(day) {
                    // A production type without a point is not a missing input.
                    for ((w, p), &st) in worst.iter_mut().zip(&mut part).zip(&st) {
                        if st != ABSENT {
                            *w = (*w).max(st);
                            *p = true;
                        }
                    }
                }
            }
            let states: Vec<Option<[u8; N_SLOTS]>> = borders
                .iter()
                .map(|b| b.and_then(|id| cache.input_series(id).states_of_day(day)))
                .collect();
            // Recorded flows only (official): the flows the compute assumed 0 MW make nobody
            // take part (gridprint_core::inputs::SlotInputs::takes_part).
            for st in states.iter().flatten() {
                for (p, &st) in part.iter_mut().zip(st) {
                    *p |= st == official;
                }
            }
            let estimated = DataState::Estimated as u8;
            for k in 0..N_SLOTS {
                for st in &states {
                    let st = st.map_or(ABSENT, |s| s[k]);
                    worst[k] = worst[k].max(match st {
                        ABSENT if part[k] => estimated,
                        ABSENT => official,
                        st => st,
                    });
                }
            }
            worst
        })[i]
    }
}

/// Calls `f(flags, slot, value, state, datasource)` for each non-negative point of a raw series in the
/// window, with the flags of the zone's slot (derived, or from the zone's inputs: docs/api.md §6).
fn raw_points(
    cache: &DataCache,
    derived: &DerivedZone,
    fallback: &mut ZoneInputStates,
    series: u32,
    window: &TimeWindow,
    mut f: impl FnMut(FlagPair, Slot, f32, DataState, u16),
) {
    let s = cache.input_series(series);
    for span in day_spans(s.days(), window.range) {
        let d = s.day(span.pos);
        let flags = derived.flags_of_day(span.day);
        for i in span.lo..span.hi {
            if d.states[i] == ABSENT {
                continue;
            }
            let v = d.values[i];
            if !(v.is_finite() && v >= 0.0) {
                continue;
            }
            let state = DataState::from_u8(d.states[i]).unwrap_or(DataState::Missing);
            let slot = span.slot(i);
            let p = match flags.map(|fl| fl[i]) {
                Some(fl) if fl.present() => pair(fl),
                _ => {
                    let zone = fallback.state(cache, span.day, i).max(state as u8);
                    let st =
                        status_of_state(DataState::from_u8(zone).unwrap_or(DataState::Missing));
                    (valid_flag(slot, st, window.now), st)
                }
            };
            f(p, slot, v, state, d.sources[i]);
        }
    }
}

/// The points of some of a zone's raw input series in the window (each `(key, series)`: the key of
/// its blocks — production type, partner position… — and the series' id), grouped by flags, then
/// ordered by key, data state and datasource name.
pub(super) fn raw_groups<K: Copy + Ord>(
    cache: &DataCache,
    z: ZoneIdx,
    window: &TimeWindow,
    series: impl IntoIterator<Item = (K, u32)>,
) -> Vec<GroupEntry<(K, DataState, u16)>> {
    let cmp = ds_cmp(cache);
    let derived = cache.derived(z);
    let mut fallback = ZoneInputStates::new(cache, z);
    let mut g = Grouper::new();
    for (key, id) in series {
        raw_points(
            cache,
            derived,
            &mut fallback,
            id,
            window,
            |p, slot, v, st, ds| g.push(p, (key, st, ds), point(slot, v)),
        );
    }
    g.finish(|a, b| a.0.cmp(&b.0).then_with(|| cmp(a.1, a.2, b.1, b.2)))
}

/// Pushes every kept value of a derived series into a grouper under `key`.
pub(super) fn push_derived<K: Copy + PartialEq>(
    g: &mut Grouper<K>,
    derived: &impl ValueSource,
    series: &SeriesKey,
    window: &TimeWindow,
    keep: fn(f32) -> bool,
    key: K,
) {
    derived.for_each_value(series, window.range, |slot, fl, v| {
        if keep(v) {
            g.push(
                pair(fl),
                key,
                Point {
                    slot,
                    value: v as f64,
                },
            );
        }
    });
}

/// The flag entries of one derived series (one block per entry).
pub(super) fn flag_series(
    derived: &impl ValueSource,
    series: &SeriesKey,
    window: &TimeWindow,
) -> Vec<FlagSeries> {
    let mut g = Grouper::with_block_capacity(window.range.len());
    push_derived(&mut g, derived, series, window, keep_non_negative, ());
    g.finish(|_, _| std::cmp::Ordering::Equal)
        .into_iter()
        .map(|e| FlagSeries {
            valid: e.pair.0,
            zone_status: e.pair.1,
            values: Values(e.leaves.into_iter().next().map(|l| l.1).unwrap_or_default()),
        })
        .collect()
}

/// The selected zones and the requested countries as value sources, by code.
pub(super) fn sources<'a>(
    cache: &'a DataCache,
    sel: &ZoneSelection,
    countries: &'a [Country],
) -> Vec<(Source<'a>, ZoneCode)> {
    let mut out: Vec<(Source<'a>, ZoneCode)> = zones_of(cache, sel)
        .into_iter()
        .map(|(z, code)| (Source::Zone(cache.derived(z)), code))
        .chain(
            countries
                .iter()
                .map(|c| (Source::Country(cache, c), c.code.clone())),
        )
        .collect();
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

pub(super) fn zones_of(cache: &DataCache, sel: &ZoneSelection) -> Vec<(ZoneIdx, ZoneCode)> {
    let zones = &cache.reference().zones;
    sel.indices(zones)
        .into_iter()
        .map(|i| (i, zones.code(i).clone()))
        .collect()
}

fn ds_cmp<'c>(
    cache: &'c DataCache,
) -> impl Fn(DataState, u16, DataState, u16) -> std::cmp::Ordering + 'c {
    move |sa, da, sb, db| {
        sa.cmp(&sb)
            .then_with(|| cache.datasource(da).cmp(cache.datasource(db)))
    }
}
