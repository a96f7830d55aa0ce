//! Gap estimation: values for the slots of a series where the provider published nothing, so that a
//! zone with a late or patchy provider is `preview` instead of `missing` (docs/methodology.md §6).
//!
//! Pure functions over one [`Series`] of official values (the anchors): [`estimate_gaps`] fills a
//! gap (a run of slots without official data) by linear interpolation up to 2 hours, and otherwise
//! up to 7 days with the profile of the same slots on the previous days, scaled to meet the
//! official values (its documentation has the rules). Gaps before the first official value and
//! longer gaps are left to the forecast ([`crate::forecast`]). Estimates never replace official
//! data: they are produced only where the series has none, and the store refuses to downgrade a
//! point anyway.
//!
//! [`estimate_points`] runs the estimators over a set of stored points (the worker's cycle);
//! [`fill_stored_gaps`] does it over the store for given ranges and stores the estimates (imports
//! and `gridprint compute`, before the compute assumes 0 MW for the flows still absent).

use crate::series::{Series, group};
use gridprint_compute::input_days::InputDays;
use gridprint_core::inputs::{InputKey, InputPoint, is_estimation_datasource};
use gridprint_core::quality::DataState;
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_store::{Store, StoreError};
use time::OffsetDateTime;

/// Longest gap filled by linear interpolation (2 hours).
pub const LINEAR_MAX_GAP_SLOTS: usize = 8;
/// Longest gap filled at all (7 days).
pub const PROFILE_MAX_GAP_SLOTS: usize = 7 * SLOTS_PER_DAY as usize;
/// Days of history the profile averages.
pub const PROFILE_DAYS: i64 = 7;
/// Datasource of linearly interpolated points.
pub const DATASOURCE_LINEAR: &str = "wattnet-hybrid-estimation:gridprint-linear";
/// Datasource of profile-filled points.
pub const DATASOURCE_PROFILE: &str = "wattnet-hybrid-estimation:gridprint-profile";
const _: () = assert!(
    is_estimation_datasource(DATASOURCE_LINEAR) && is_estimation_datasource(DATASOURCE_PROFILE)
);

/// How a value was estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Linear,
    Profile,
}

impl Method {
    pub fn datasource(self) -> &'static str {
        match self {
            Method::Linear => DATASOURCE_LINEAR,
            Method::Profile => DATASOURCE_PROFILE,
        }
    }
}

/// One estimated value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub slot: Slot,
    pub mw: f64,
    pub method: Method,
}

/// Mean of the official values at the same slot on the previous [`PROFILE_DAYS`] days.
pub fn profile(series: &Series, slot: Slot) -> Option<f64> {
    let vals: Vec<f64> = (1..=PROFILE_DAYS)
        .filter_map(|k| series.get(slot.offset(-k * SLOTS_PER_DAY)))
        .collect();
    (!vals.is_empty()).then(|| vals.iter().sum::<f64>() / vals.len() as f64)
}

/// The scale that maps the profile onto an official value, clamped to [0.5, 2]; `None` when the
/// profile has nothing there.
fn scale_at(series: &Series, slot: Slot) -> Option<f64> {
    let y = series.get(slot)?;
    let p = profile(series, slot)?;
    if p.abs() < 1.0 {
        // A near-zero profile (solar at night): the profile itself is right, no scaling.
        return Some(1.0);
    }
    Some((y / p).clamp(0.5, 2.0))
}

/// Estimates every slot of `target` that lies in a fillable gap of `series` (official values only).
/// The series must span the history the profile needs (7 days before `target`).
///
/// - A gap between two official values and at most 2 hours long: linear interpolation
///   ([`DATASOURCE_LINEAR`]).
/// - A gap between two official values and up to 7 days long: the [`profile`] of the same slots,
///   scaled so it meets the official value at both ends — the scale moves linearly from the ratio
///   at the left edge to the ratio at the right edge ([`DATASOURCE_PROFILE`]).
///
/// After the last official value nothing is estimated here: the hours the provider has not
/// published yet are the forecast model's ([`crate::forecast::forecast_series`], one method for
/// them and the days ahead). Scales are clamped to [0.5, 2] so a single odd value cannot blow the
/// profile up between two official values, and a profile without history falls back to the
/// linear interpolation.
pub fn estimate_gaps(series: &Series, target: SlotRange) -> Vec<Estimate> {
    let mut out = Vec::new();
    let n = series.values.len();
    let mut i = 0;
    while i < n {
        if series.values[i].is_some() {
            i += 1;
            continue;
        }
        let a = i;
        while i < n && series.values[i].is_none() {
            i += 1;
        }
        let b = i; // gap = [a, b)
        if a == 0 {
            continue; // nothing official before: the forecast's job
        }
        let left = series.start.offset(a as i64 - 1);
        let y_left = series.values[a - 1].expect("run is maximal");
        let gap_start = series.start.offset(a as i64);
        let gap_end = series.start.offset(b as i64);
        let fill = SlotRange::new(gap_start.max(target.start), gap_end.min(target.end));
        if fill.is_empty() {
            continue;
        }
        let len = b - a;
        if b < n {
            // Interior gap.
            let right = gap_end;
            let y_right = series.values[b].expect("run is maximal");
            let span = (right.0 - left.0) as f64;
            let linear = |s: Slot| y_left + (y_right - y_left) * (s.0 - left.0) as f64 / span;
            if len <= LINEAR_MAX_GAP_SLOTS {
                out.extend(fill.iter().map(|s| Estimate {
                    slot: s,
                    mw: linear(s).max(0.0),
                    method: Method::Linear,
                }));
            } else if len <= PROFILE_MAX_GAP_SLOTS {
                let (sl, sr) = (scale_at(series, left), scale_at(series, right));
                for s in fill.iter() {
                    let frac = (s.0 - left.0) as f64 / span;
                    let mw = match (profile(series, s), sl, sr) {
                        (Some(p), Some(a), Some(b)) => p * (a + (b - a) * frac),
                        (Some(p), Some(a), None) | (Some(p), None, Some(a)) => p * a,
                        _ => linear(s),
                    };
                    out.push(Estimate {
                        slot: s,
                        mw: mw.max(0.0),
                        method: Method::Profile,
                    });
                }
            }
        }
        // A trailing gap (the provider has not published yet) is the forecast's: it starts
        // from the last official value (crate::forecast::model).
    }
    out
}

/// Estimates as input points of `key` (state estimated, datasource by method).
pub fn to_points(key: &InputKey, estimates: &[Estimate]) -> Vec<InputPoint> {
    estimates
        .iter()
        .map(|e| InputPoint {
            key: key.clone(),
            slot: e.slot,
            mw: e.mw,
            state: DataState::Estimated,
            datasource: e.method.datasource().to_string(),
        })
        .collect()
}

/// The estimates of every series among `points` for the slots of `target`, anchored on the
/// official values. `history` is the span the series cover: from [`PROFILE_DAYS`] before `target`
/// to where provider data could end (a trailing gap is filled up to its end).
pub fn estimate_points<'a>(
    points: impl IntoIterator<Item = &'a InputPoint>,
    history: SlotRange,
    target: SlotRange,
) -> Vec<InputPoint> {
    group(points, history, |p| p.state == DataState::Official)
        .iter()
        .flat_map(|(key, series)| to_points(key, &estimate_gaps(series, target)))
        .collect()
}

/// Days estimated per batch by [`fill_stored_gaps`] (bounds memory on long ranges).
const FILL_BATCH_DAYS: i64 = 7;

/// Runs the estimators over the stored inputs of `ranges` (zones of the reference zone set) and
/// stores the estimates at `now`; returns how many points were inserted or updated. Each batch
/// looks [`PROFILE_DAYS`] back for the profile and up to 7 days ahead (never past `now`) for the
/// official value that closes a gap. Only gaps between two official values are filled
/// ([`estimate_gaps`]): after a series' last official value nothing is estimated (stored history
/// does not end because the provider is late; the worker's forecast fills the recent trailing
/// gap), so such a slot stays a hole that aggregates count as `missing`.
pub fn fill_stored_gaps(
    store: &dyn Store,
    reference: &ReferenceData,
    ranges: &[SlotRange],
    now: OffsetDateTime,
) -> Result<usize, StoreError> {
    fill_stored_gaps_from(&mut InputDays::new(store), reference, ranges, now)
}

/// [`fill_stored_gaps`] reading the inputs through `inputs`: each day is read once for all the
/// batches whose history covers it, and the days read are left there, with the estimates written,
/// for the compute that follows.
pub fn fill_stored_gaps_from(
    inputs: &mut InputDays,
    reference: &ReferenceData,
    ranges: &[SlotRange],
    now: OffsetDateTime,
) -> Result<usize, StoreError> {
    let current = Slot::containing(now);
    let mut changed = 0;
    for r in ranges {
        let mut start = r.start;
        while start < r.end.min(current) {
            let end = start
                .offset(FILL_BATCH_DAYS * SLOTS_PER_DAY)
                .min(r.end)
                .min(current);
            let target = SlotRange::new(start, end);
            let history = SlotRange::new(
                start.offset(-PROFILE_DAYS * SLOTS_PER_DAY),
                end.offset(PROFILE_MAX_GAP_SLOTS as i64)
                    .min(current)
                    .max(end),
            );
            let stored = inputs.in_range(history)?;
            let known = stored
                .iter()
                .map(|s| &s.point)
                .filter(|p| reference.zones.index_of(p.key.zone()).is_some());
            let known: Vec<&InputPoint> = known.collect();
            let estimates = estimate_points(known.iter().copied(), history, target);
            if !estimates.is_empty() {
                let s = inputs.upsert(&estimates, now.unix_timestamp())?;
                changed += s.inserted + s.updated;
            }
            start = end;
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: usize = SLOTS_PER_DAY as usize;

    fn daily(days: usize, f: impl Fn(usize) -> f64) -> Vec<Option<f64>> {
        (0..days * D).map(|i| Some(f(i % D))).collect()
    }

    #[test]
    fn short_gaps_are_interpolated_linearly() {
        let mut v: Vec<Option<f64>> = (0..20).map(|i| Some(i as f64 * 10.0)).collect();
        for x in &mut v[5..9] {
            *x = None;
        }
        let s = Series::from_values(Slot(0), v);
        let e = estimate_gaps(&s, s.range());
        assert_eq!(e.len(), 4);
        assert!(e.iter().all(|e| e.method == Method::Linear));
        for e in &e {
            assert!((e.mw - e.slot.0 as f64 * 10.0).abs() < 1e-9, "{e:?}");
        }
    }

    #[test]
    fn long_gaps_follow_the_daily_profile_and_meet_both_ends() {
        let shape =
            |i: usize| 1000.0 + 500.0 * ((i as f64) / D as f64 * std::f64::consts::TAU).sin();
        let mut v = daily(9, shape);
        // Day 8 is 10 % higher than the profile; a 6-hour gap in it.
        for (i, x) in v.iter_mut().enumerate().skip(8 * D) {
            *x = Some(shape(i % D) * 1.1);
        }
        let gap = 8 * D + 20..8 * D + 44;
        for x in &mut v[gap.clone()] {
            *x = None;
        }
        let s = Series::from_values(Slot(0), v);
        let e = estimate_gaps(&s, s.range());
        assert_eq!(e.len(), gap.len());
        assert!(e.iter().all(|e| e.method == Method::Profile));
        for e in &e {
            let truth = shape(e.slot.0 as usize % D) * 1.1;
            assert!((e.mw - truth).abs() / truth < 0.01, "{e:?} vs {truth}");
        }
    }

    #[test]
    fn trailing_gaps_are_left_to_the_forecast() {
        let mut v = daily(2, |i| i as f64);
        v.extend(std::iter::repeat_n(None, 10));
        let s = Series::from_values(Slot(0), v);
        assert!(estimate_gaps(&s, s.range()).is_empty());
    }

    #[test]
    fn never_before_the_first_official_value_and_only_inside_target() {
        let mut v = vec![None; 5];
        v.extend([Some(1.0), None, Some(3.0)]);
        let s = Series::from_values(Slot(0), v);
        let e = estimate_gaps(&s, s.range());
        assert_eq!(
            e,
            vec![Estimate {
                slot: Slot(6),
                mw: 2.0,
                method: Method::Linear
            }]
        );
        assert!(estimate_gaps(&s, SlotRange::new(Slot(7), Slot(8))).is_empty());
    }

    #[test]
    fn gaps_longer_than_seven_days_are_left_alone() {
        let mut v = daily(1, |_| 5.0);
        v.extend(std::iter::repeat_n(None, 7 * D + 1));
        v.push(Some(5.0));
        let s = Series::from_values(Slot(0), v);
        assert!(estimate_gaps(&s, s.range()).is_empty());
    }
}
