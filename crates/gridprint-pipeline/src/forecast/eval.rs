//! The yardstick: how well the forecast predicts the footprint itself (flow-traced carbon
//! footprint, life-cycle), replayed on recorded history as a fresh server would have made it.
//!
//! For each origin, every series is forecast from only its values before `origin − lag` (the
//! provider's publication lag), the forecast inputs of all zones are traced slot by slot exactly as
//! the compute does (`gather_slot_inputs`, `trace_slot`), and the footprints are compared with
//! those traced from what really happened. Beside the model: persistence (the same slot on the
//! last known day) and, for the first hour, the last known footprint held. [`evaluate`] returns the
//! scores per zone and horizon band ([`evaluate_with`] also blends in the TSOs' forecasts, and
//! [`Footprint::Local`] scores the zone's own generation); `gridprint forecast-eval` prints them
//! and docs/forecast.md quotes them.

use super::errors::{ErrorSums, Errors};
use super::model::{ForecastConfig, SeriesClass, forecast_series};
use super::tso::{BlendWeights, PublishedInputs, blend};
use crate::series::Series;
use gridprint_compute::gather_slot_inputs;
use gridprint_core::engine::trace_slot;
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::quality::DataState;
use gridprint_core::reference::{FootprintType, ReferenceData, Scope};
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use gridprint_store::StoredInput;
use rayon::iter::{IntoParallelRefIterator, ParallelIterator};
use std::collections::BTreeMap;

/// The horizon bands scored: name, first and last slot after the origin (exclusive).
pub const BANDS: [(&str, i64, i64); 3] = [
    ("0-24 h", 0, 96),
    ("24-48 h", 96, 192),
    ("48-96 h", 192, 384),
];
/// Slots of the first hour (scored against the last known value held).
const FIRST_HOUR: i64 = 4;
/// Slots of the job placed by the regret measure (3 hours).
pub const JOB_SLOTS: usize = 12;

/// Which carbon footprint (life-cycle) is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Footprint {
    /// Flow-traced: what a zone consumes.
    #[default]
    Global,
    /// Of the zone's own generation (data without flows).
    Local,
}

/// How the replay is run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvalOptions {
    /// Slots before the origin that are not published yet at the origin.
    pub lag_slots: i64,
    /// Slots scored after each origin (the last band's end at most).
    pub horizon_slots: i64,
    /// The footprint scored.
    pub footprint: Footprint,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            lag_slots: 4,
            horizon_slots: BANDS[2].2,
            footprint: Footprint::Global,
        }
    }
}

/// The TSO forecasts a replay blends in ([`super::tso`]), with their publication times, and the
/// weights.
pub struct TsoInputs<'a> {
    pub published: &'a PublishedInputs,
    pub weights: &'a BlendWeights,
}

/// One zone's scores.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneScore {
    pub zone: ZoneCode,
    /// Origins with at least one scored slot.
    pub origins: usize,
    /// Per band of [`BANDS`]: the model.
    pub model: [Errors; 3],
    /// Per band: persistence (the same slot on the last known day).
    pub persistence: [Errors; 3],
    /// The first hour: the model, and the last known footprint held.
    pub first_hour: Errors,
    pub first_hour_held: Errors,
    /// Mean Spearman rank correlation between forecast and truth within the first 24 h (model,
    /// persistence).
    pub rank: (f64, f64),
    /// Mean extra emissions, in %, of a 3-hour job started at the forecast's best window of the
    /// first 24 h against the truly best one (model, persistence).
    pub regret: (f64, f64),
}

/// The carbon footprint (global, life-cycle) of every zone in every slot of `range` traced from
/// `points`; `[slot offset][zone index]`, NaN where the zone has no footprint.
pub fn traced_footprints(
    reference: &ReferenceData,
    range: SlotRange,
    points: &[StoredInput],
) -> Vec<Vec<f64>> {
    footprints(reference, range, points, Footprint::Global)
}

/// [`traced_footprints`], of the footprint asked for.
pub fn footprints(
    reference: &ReferenceData,
    range: SlotRange,
    points: &[StoredInput],
    footprint: Footprint,
) -> Vec<Vec<f64>> {
    let refs: Vec<&StoredInput> = points.iter().collect();
    let inputs = gather_slot_inputs(reference, range, &refs);
    let (c, s) = (FootprintType::Carbon.index(), Scope::LifeCycle.index());
    inputs
        .par_iter()
        .map(|si| {
            trace_slot(reference, si)
                .zones
                .iter()
                .map(|z| {
                    z.as_ref().map_or(f64::NAN, |z| match footprint {
                        Footprint::Global => z.footprint_global[c][s],
                        Footprint::Local => z.footprint_local[c][s],
                    })
                })
                .collect()
        })
        .collect()
}

fn stored(key: &InputKey, slot: Slot, mw: f64) -> StoredInput {
    StoredInput {
        point: InputPoint {
            key: key.clone(),
            slot,
            mw,
            state: DataState::Official,
            datasource: String::new(),
        },
        updated_at: 0,
    }
}

/// The recorded series' values in `range` as stored points.
fn recorded(series: &BTreeMap<InputKey, Series>, range: SlotRange) -> Vec<StoredInput> {
    let mut out = Vec::new();
    for (key, s) in series {
        for t in range.iter() {
            if let Some(v) = s.get(t) {
                out.push(stored(key, t, v));
            }
        }
    }
    out
}

/// Spearman's rank correlation (ties share their mean rank); NaN when either side is constant.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    fn ranks(v: &[f64]) -> Vec<f64> {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
        let mut r = vec![0.0; v.len()];
        let mut i = 0;
        while i < idx.len() {
            let mut j = i;
            while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
                j += 1;
            }
            let mean = (i + j) as f64 / 2.0;
            for &k in &idx[i..=j] {
                r[k] = mean;
            }
            i = j + 1;
        }
        r
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    sab / (saa * sbb).sqrt()
}

/// Extra emissions, in %, of a [`JOB_SLOTS`]-long job started where `forecast`'s window mean is
/// lowest, against the start where `truth`'s is; `None` when fewer slots than a job.
pub fn regret(forecast: &[f64], truth: &[f64]) -> Option<f64> {
    if truth.len() < JOB_SLOTS {
        return None;
    }
    let mean = |v: &[f64], i: usize| v[i..i + JOB_SLOTS].iter().sum::<f64>() / JOB_SLOTS as f64;
    let starts = 0..=truth.len() - JOB_SLOTS;
    let chosen = starts
        .clone()
        .min_by(|&i, &j| mean(forecast, i).total_cmp(&mean(forecast, j)))?;
    let best = starts.map(|i| mean(truth, i)).fold(f64::INFINITY, f64::min);
    (best > 0.0).then(|| 100.0 * (mean(truth, chosen) - best) / best)
}

/// One slot of a forecast compared: what happened, the model's value and persistence's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Compared {
    pub truth: f64,
    pub model: f64,
    pub persistence: f64,
}

/// The sums of one horizon band over forecasts (origins): the model's and persistence's errors
/// over every compared slot, and per forecast whose whole band was compared, the rank correlation
/// and the 3-hour regret. The yardstick ([`evaluate`]) and the published accuracy
/// (`super::accuracy`) both score with it.
#[derive(Debug, Default, Clone)]
pub struct BandSums {
    /// Forecasts with at least one slot compared.
    pub forecasts: usize,
    /// Forecasts whose every slot of the band was compared.
    pub complete: usize,
    pub model: ErrorSums,
    pub persistence: ErrorSums,
    /// Sum and count of the rank correlations (model, persistence).
    pub rank: [(f64, usize); 2],
    /// Sum and count of the regrets, in % (model, persistence).
    pub regret: [(f64, usize); 2],
}

impl BandSums {
    /// Adds one forecast's slots of the band (`None`: not compared), `band_len` slots long.
    pub fn add_forecast(&mut self, slots: &[Option<Compared>], band_len: usize) {
        let (mut y, mut f, mut p) = (Vec::new(), Vec::new(), Vec::new());
        for c in slots.iter().flatten() {
            self.model.add(c.truth, c.model);
            self.persistence.add(c.truth, c.persistence);
            y.push(c.truth);
            f.push(c.model);
            p.push(c.persistence);
        }
        if y.is_empty() {
            return;
        }
        self.forecasts += 1;
        // Rank and regret need the whole band.
        if y.len() == band_len {
            self.complete += 1;
            for (m, pred) in [&f, &p].into_iter().enumerate() {
                let r = spearman(pred, &y);
                if r.is_finite() {
                    self.rank[m].0 += r;
                    self.rank[m].1 += 1;
                }
                if let Some(g) = regret(pred, &y) {
                    self.regret[m].0 += g;
                    self.regret[m].1 += 1;
                }
            }
        }
    }

    /// Adds another set of sums.
    pub fn merge(&mut self, other: &BandSums) {
        self.forecasts += other.forecasts;
        self.complete += other.complete;
        self.model.merge(&other.model);
        self.persistence.merge(&other.persistence);
        for m in 0..2 {
            self.rank[m].0 += other.rank[m].0;
            self.rank[m].1 += other.rank[m].1;
            self.regret[m].0 += other.regret[m].0;
            self.regret[m].1 += other.regret[m].1;
        }
    }

    /// The mean rank correlation of the model (0) or persistence (1); NaN without one.
    pub fn rank(&self, m: usize) -> f64 {
        mean(self.rank[m])
    }

    /// The mean regret of the model (0) or persistence (1), in %; NaN without one.
    pub fn regret(&self, m: usize) -> f64 {
        mean(self.regret[m])
    }
}

#[derive(Default, Clone)]
struct ZoneSums {
    origins: usize,
    bands: [BandSums; 3],
    first_hour: ErrorSums,
    first_hour_held: ErrorSums,
}

fn mean((s, n): (f64, usize)) -> f64 {
    if n > 0 { s / n as f64 } else { f64::NAN }
}

/// The footprints traced from what happened, over the slots a set of origins is scored on.
pub struct Truth {
    range: SlotRange,
    footprints: Vec<Vec<f64>>,
}

impl Truth {
    /// Traces the recorded `series` from a day before the first origin (persistence looks back a
    /// day) to the horizon after the last.
    pub fn new(
        reference: &ReferenceData,
        series: &BTreeMap<InputKey, Series>,
        origins: &[Slot],
        opts: &EvalOptions,
    ) -> Truth {
        let first = origins.iter().min().copied().unwrap_or(Slot(0));
        let last = origins.iter().max().copied().unwrap_or(Slot(0));
        let range = SlotRange::new(
            first.offset(-opts.lag_slots - SLOTS_PER_DAY),
            last.offset(opts.horizon_slots),
        );
        let mut footprints = Vec::with_capacity(range.len());
        let mut day = range.start;
        while day < range.end {
            let end = day.offset(7 * SLOTS_PER_DAY).min(range.end);
            let r = SlotRange::new(day, end);
            footprints.extend(self::footprints(
                reference,
                r,
                &recorded(series, r),
                opts.footprint,
            ));
            day = end;
        }
        Truth { range, footprints }
    }

    /// The footprint of zone `z` at `t`; NaN outside the range or without one.
    pub fn at(&self, t: Slot, z: usize) -> f64 {
        let i = t.0 - self.range.start.0;
        if i < 0 || i as usize >= self.footprints.len() {
            f64::NAN
        } else {
            self.footprints[i as usize][z]
        }
    }
}

/// Scores the forecast made at each of `origins` from `series`, the recorded values of every
/// series (spanning the profile's longest window, 28 days, before the first origin), against
/// `truth` (built for the same origins and options). Zones are those of `reference` with a
/// recorded footprint; `progress` is called once per origin done.
pub fn evaluate(
    reference: &ReferenceData,
    series: &BTreeMap<InputKey, Series>,
    truth: &Truth,
    origins: &[Slot],
    cfg: &ForecastConfig,
    opts: &EvalOptions,
    progress: &(dyn Fn() + Sync),
) -> Vec<ZoneScore> {
    evaluate_with(reference, series, truth, origins, cfg, opts, None, progress)
}

/// [`evaluate`], blending in the TSO forecasts `tso` published before each origin
/// ([`super::tso::blend`]) when given.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_with(
    reference: &ReferenceData,
    series: &BTreeMap<InputKey, Series>,
    truth: &Truth,
    origins: &[Slot],
    cfg: &ForecastConfig,
    opts: &EvalOptions,
    tso: Option<&TsoInputs<'_>>,
    progress: &(dyn Fn() + Sync),
) -> Vec<ZoneScore> {
    let n = reference.zones.len();
    let horizon = opts.horizon_slots;
    let truth_at = |t: Slot, z: usize| truth.at(t, z);
    let per_origin: Vec<Vec<ZoneSums>> = origins
        .par_iter()
        .map(|&t0| {
            let known = t0.offset(-opts.lag_slots);
            let range = SlotRange::new(t0, t0.offset(horizon));
            let mut points = Vec::new();
            for (key, s) in series {
                let class = SeriesClass::of(key);
                let mut fc = forecast_series(s, known, range.end, class, cfg);
                if let (Some(tso), Some(last)) = (tso, s.last_before(known))
                    && let Some(p) = tso.published.series.get(key)
                {
                    let known_tso = p.known_at(t0, SlotRange::new(last, range.end));
                    fc = blend(&fc, &known_tso, last, class, tso.weights)
                        .into_iter()
                        .map(|(t, v, _)| (t, v))
                        .collect();
                }
                for (t, v) in fc {
                    if t >= t0 {
                        points.push(stored(key, t, v));
                    }
                }
            }
            let fc = footprints(reference, range, &points, opts.footprint);
            let mut sums = vec![ZoneSums::default(); n];
            for (z, zs) in sums.iter_mut().enumerate() {
                let held = truth_at(known.offset(-1), z);
                let mut compared = Vec::with_capacity(horizon as usize);
                for h in 0..horizon {
                    let t = t0.offset(h);
                    let (y, f) = (truth_at(t, z), fc[h as usize][z]);
                    let k = ((t.0 - known.0).div_euclid(SLOTS_PER_DAY) + 1).max(1);
                    let p = truth_at(t.offset(-k * SLOTS_PER_DAY), z);
                    let c = (y.is_finite() && f.is_finite() && p.is_finite()).then_some(Compared {
                        truth: y,
                        model: f,
                        persistence: p,
                    });
                    if let Some(c) = c
                        && h < FIRST_HOUR
                        && held.is_finite()
                    {
                        zs.first_hour.add(c.truth, c.model);
                        zs.first_hour_held.add(c.truth, held);
                    }
                    compared.push(c);
                }
                zs.origins = compared.iter().any(Option::is_some) as usize;
                for (b, (_, from, to)) in BANDS.iter().enumerate() {
                    let slots =
                        &compared[(*from).min(horizon) as usize..(*to).min(horizon) as usize];
                    zs.bands[b].add_forecast(slots, (to - from) as usize);
                }
            }
            progress();
            sums
        })
        .collect();
    let mut total = vec![ZoneSums::default(); n];
    for sums in per_origin {
        for (t, s) in total.iter_mut().zip(sums) {
            t.origins += s.origins;
            for b in 0..3 {
                t.bands[b].merge(&s.bands[b]);
            }
            t.first_hour.merge(&s.first_hour);
            t.first_hour_held.merge(&s.first_hour_held);
        }
    }
    total
        .into_iter()
        .enumerate()
        .filter(|(_, t)| t.origins > 0)
        .map(|(z, t)| ZoneScore {
            zone: reference.zones.code(z).clone(),
            origins: t.origins,
            model: t.bands.clone().map(|b| b.model.finish()),
            persistence: t.bands.clone().map(|b| b.persistence.finish()),
            first_hour: t.first_hour.finish(),
            first_hour_held: t.first_hour_held.finish(),
            rank: (t.bands[0].rank(0), t.bands[0].rank(1)),
            regret: (t.bands[0].regret(0), t.bands[0].regret(1)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_of_monotone_and_reversed() {
        let a = [1.0, 2.0, 3.0, 4.0];
        assert!((spearman(&a, &[10.0, 20.0, 30.0, 40.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&a, &[4.0, 3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        assert!(spearman(&a, &[1.0, 1.0, 1.0, 1.0]).is_nan());
        // Ties share a rank.
        assert!((spearman(&[1.0, 1.0, 2.0], &[0.0, 0.0, 5.0]) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn regret_is_zero_for_a_perfect_forecast_and_positive_for_a_wrong_one() {
        let truth: Vec<f64> = (0..96).map(|i| 100.0 + i as f64).collect();
        assert_eq!(regret(&truth, &truth), Some(0.0));
        let reversed: Vec<f64> = truth.iter().rev().copied().collect();
        let g = regret(&reversed, &truth).unwrap();
        // The job lands on the last 12 slots: mean 189.5 against 105.5.
        assert!((g - 100.0 * (189.5 - 105.5) / 105.5).abs() < 1e-9, "{g}");
        assert_eq!(regret(&truth[..5], &truth[..5]), None);
    }
}
