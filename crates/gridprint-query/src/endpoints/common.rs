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

/// Calls `f(flags, slot, value, state, datasource)` for each non-negative point of a raw series in the
/// window, with the flags of the zone's slot (derived, or the fallback of docs/api.md §3).
fn raw_points(
    cache: &DataCache,
    derived: &DerivedZone,
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
                    let st = status_of_state(state);
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
    let mut g = Grouper::new();
    for (key, id) in series {
        raw_points(cache, derived, id, window, |p, slot, v, st, ds| {
            g.push(p, (key, st, ds), point(slot, v))
        });
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
