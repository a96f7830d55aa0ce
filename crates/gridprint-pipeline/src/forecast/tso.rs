//! The TSOs' forecasts as inputs: for the slots a TSO's day-ahead forecast covers (values published
//! before the origin only), the wind and solar of those production types and the load are a blend
//! of the TSO's value and the model's, `w · tso + (1 − w) · model`; every other series is the
//! model's alone.
//!
//! The weight `w` depends on the class (solar, wind, load) and on how long after the series' last
//! known value the slot is ([`LEAD_BUCKETS`]): near it the model, anchored on that value, knows
//! more; further on the TSO's forecast, which sees the weather. [`BlendWeights::default`] holds the
//! weights measured by least squares on 2023-H1 of DK1 and DK2 (`gridprint forecast-eval --tso
//! --fit`, [`fit_weights`]); docs/forecast.md has the scores on 2023-H2. A missing, late (published
//! after the origin) or malformed (not a finite, non-negative power) TSO value leaves the model's
//! value as it is: [`blend`] with no TSO value is the model. Callers: the worker
//! (`crate::worker`) and the yardstick ([`super::eval`]). The fit also measures the TSO's forecast
//! of a zone's thermal generation ([`thermal_forecast`]) against the model's, in MW only: blended
//! in, it made the footprint worse (docs/forecast.md), so nothing blends it.

use super::errors::ErrorSums;
use super::model::{ForecastConfig, SeriesClass, forecast_series};
use crate::series::Series;
use gridprint_core::inputs::{InputKey, is_estimation_datasource};
use gridprint_core::slot::{SLOT_SECONDS, SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_core::tso_forecast::{TsoForecastKind, TsoForecastSeries};
use gridprint_core::zone::ZoneCode;
use gridprint_store::StoredTsoForecast;
use rayon::iter::{IntoParallelRefIterator, ParallelIterator};
use std::collections::BTreeMap;

/// Datasource of the values blended with a TSO forecast.
pub const DATASOURCE: &str = "wattnet-hybrid-estimation:gridprint-tso-blend";
const _: () = assert!(is_estimation_datasource(DATASOURCE));

/// The lead-time buckets the weights are measured in: their first slot after the series' last
/// known value (1 h, 2 h, 4 h, 8 h, 16 h, 24 h and later).
pub const LEAD_BUCKETS: [i64; 7] = [0, 4, 8, 16, 32, 64, 96];

/// The TSO forecast kind the blend reads (the one measured): day-ahead.
pub const KIND: TsoForecastKind = TsoForecastKind::DayAhead;

/// What a weight blends: the series of a class the TSOs forecast, or a zone's thermal total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Blended {
    Solar,
    Wind,
    Load,
    /// The zone's generation of every type but wind and solar ([`is_thermal`]), against the TSO's
    /// scheduled generation less its wind and solar forecasts ([`thermal_forecast`]): measured by
    /// the fit, blended nowhere.
    Thermal,
}

impl Blended {
    /// What a series of `class` is blended as; `None` for the classes the TSOs do not forecast.
    pub fn of(class: SeriesClass) -> Option<Blended> {
        match class {
            SeriesClass::Solar => Some(Blended::Solar),
            SeriesClass::Wind => Some(Blended::Wind),
            SeriesClass::Load => Some(Blended::Load),
            _ => None,
        }
    }

    /// Lower-case name, as `forecast-eval` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Blended::Solar => "solar",
            Blended::Wind => "wind",
            Blended::Load => "load",
            Blended::Thermal => "thermal",
        }
    }
}

/// The weight of the TSO's value per class and lead-time bucket.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlendWeights {
    pub solar: [f64; 7],
    pub wind: [f64; 7],
    pub load: [f64; 7],
}

impl Default for BlendWeights {
    /// Measured on 2023-01-30..2023-07-01 of DK1 and DK2 (115 origins every 31 h, lag 1 h; least
    /// squares per class and bucket on the MW, clamped to 0..1): `scripts/forecast-bench.sh --dk
    /// --fit`; docs/forecast.md has the table.
    fn default() -> Self {
        BlendWeights {
            solar: [0.18, 0.32, 0.59, 0.79, 0.82, 0.74, 0.73],
            wind: [0.15, 0.30, 0.55, 0.89, 1.00, 1.00, 1.00],
            load: [0.66, 0.84, 0.91, 0.95, 0.97, 0.96, 0.89],
        }
    }
}

/// The bucket of a slot `h` slots after the last known value.
pub fn bucket(h: i64) -> usize {
    LEAD_BUCKETS.iter().rposition(|&b| h >= b).unwrap_or(0)
}

impl BlendWeights {
    /// The weights of a class; `None` for the classes the TSOs do not forecast.
    pub fn of(&self, class: SeriesClass) -> Option<&[f64; 7]> {
        match Blended::of(class)? {
            Blended::Solar => Some(&self.solar),
            Blended::Wind => Some(&self.wind),
            Blended::Load => Some(&self.load),
            Blended::Thermal => None,
        }
    }

    fn get_mut(&mut self, b: Blended) -> Option<&mut [f64; 7]> {
        match b {
            Blended::Solar => Some(&mut self.solar),
            Blended::Wind => Some(&mut self.wind),
            Blended::Load => Some(&mut self.load),
            Blended::Thermal => None,
        }
    }
}

/// Whether a series is part of its zone's thermal generation: generation of any type but wind and
/// solar (in DK1 and DK2 gas, coal, oil, biomass, waste and a little hydro).
pub fn is_thermal(key: &InputKey) -> bool {
    matches!(key, InputKey::Generation { .. })
        && !matches!(SeriesClass::of(key), SeriesClass::Solar | SeriesClass::Wind)
}

/// The TSO's forecast of a zone's thermal generation over `range`: its scheduled total generation
/// less its wind and solar forecasts (`wind_solar`: every one it publishes for the zone), clamped
/// at 0. A slot where any of them lacks a usable value has none.
pub fn thermal_forecast(scheduled: &Series, wind_solar: &[Series], range: SlotRange) -> Series {
    let mut out = Series::empty(range);
    for t in range.iter() {
        let Some(total) = scheduled.get(t).filter(|v| usable(*v)) else {
            continue;
        };
        let mut rest = total;
        for s in wind_solar {
            match s.get(t).filter(|v| usable(*v)) {
                Some(v) => rest -= v,
                None => {
                    rest = f64::NAN;
                    break;
                }
            }
        }
        if rest.is_finite() {
            out.set(t, Some(rest.max(0.0)));
        }
    }
    out
}

/// Whether a TSO value can be used: a finite, non-negative power.
pub fn usable(mw: f64) -> bool {
    mw.is_finite() && mw >= 0.0
}

/// Blends the model's values `model` of a series of `class`, whose last known value is at `last`,
/// with the TSO's `tso` (the values published before the origin); slots without a usable TSO
/// value, and classes without weights, keep the model's value. Returns each slot's value and
/// whether it was blended.
pub fn blend(
    model: &[(Slot, f64)],
    tso: &Series,
    last: Slot,
    class: SeriesClass,
    weights: &BlendWeights,
) -> Vec<(Slot, f64, bool)> {
    let w = weights.of(class);
    model
        .iter()
        .map(|&(t, m)| match (w, tso.get(t).filter(|v| usable(*v))) {
            (Some(w), Some(f)) => {
                let w = w[bucket(t.0 - last.0)];
                (t, (w * f + (1.0 - w) * m).max(0.0), true)
            }
            _ => (t, m, false),
        })
        .collect()
}

/// The actual series a stored TSO forecast forecasts, when the blend reads it: wind and solar
/// generation and load, of kind [`KIND`].
pub fn blend_key(f: &StoredTsoForecast) -> Option<InputKey> {
    let p = &f.forecast.point;
    match (&p.series, p.kind) {
        (TsoForecastSeries::Generation { .. } | TsoForecastSeries::Load { .. }, KIND) => {
            p.series.input_key()
        }
        _ => None,
    }
}

/// The zone of a stored TSO forecast, when it is the scheduled total generation the thermal rule
/// reads ([`thermal_forecast`]), of kind [`KIND`].
pub fn scheduled_zone(f: &StoredTsoForecast) -> Option<ZoneCode> {
    let p = &f.forecast.point;
    match (&p.series, p.kind) {
        (TsoForecastSeries::ScheduledGeneration { zone }, KIND) => Some(zone.clone()),
        _ => None,
    }
}

/// The stored TSO forecasts (already published before the origin) as one series per actual key
/// over `range`; malformed values are left out and counted.
pub fn series_of(
    stored: &[StoredTsoForecast],
    range: SlotRange,
) -> (BTreeMap<InputKey, Series>, usize) {
    let mut out: BTreeMap<InputKey, Series> = BTreeMap::new();
    let mut malformed = 0;
    for f in stored {
        let Some(key) = blend_key(f) else { continue };
        let p = &f.forecast.point;
        if !usable(p.mw) {
            malformed += 1;
            continue;
        }
        out.entry(key)
            .or_insert_with(|| Series::empty(range))
            .set(p.slot, Some(p.mw));
    }
    (out, malformed)
}

/// A TSO forecast series over a period with each value's publication time, to replay what was
/// known at each origin ([`Published::known_at`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    pub values: Series,
    /// Unix seconds of each value's publication (`i64::MAX` where there is none).
    pub published_at: Vec<i64>,
}

impl Published {
    /// An empty series over `range`.
    pub fn empty(range: SlotRange) -> Published {
        Published {
            values: Series::empty(range),
            published_at: vec![i64::MAX; range.len()],
        }
    }

    /// Sets a value and its publication time (ignored outside the range).
    pub fn set(&mut self, slot: Slot, mw: f64, published_at: i64) {
        let i = slot.0 - self.values.start.0;
        if i >= 0 && (i as usize) < self.published_at.len() {
            self.values.set(slot, Some(mw));
            self.published_at[i as usize] = published_at;
        }
    }

    /// The values over `range` published before the start of slot `origin`.
    pub fn known_at(&self, origin: Slot, range: SlotRange) -> Series {
        let before = origin.0 * SLOT_SECONDS;
        let mut out = Series::empty(range);
        for t in range.iter() {
            let i = t.0 - self.values.start.0;
            if i >= 0
                && (i as usize) < self.published_at.len()
                && self.published_at[i as usize] < before
            {
                out.set(t, self.values.get(t));
            }
        }
        out
    }
}

/// Least-squares sums of one class and bucket: the weight minimising
/// `Σ (y − (w·f + (1 − w)·m))²` is `Σ (y − m)(f − m) / Σ (f − m)²`.
#[derive(Debug, Clone, Copy, Default)]
pub struct WeightSums {
    num: f64,
    den: f64,
    /// Samples.
    n: usize,
}

/// Samples for [`fit_weights`]: per what is blended and bucket; and, for the thermal totals after
/// the origin, the errors of the model and of persistence.
#[derive(Debug, Clone, Default)]
pub struct WeightSamples {
    sums: BTreeMap<(Blended, usize), WeightSums>,
    samples: Vec<(Blended, usize, f64, f64, f64)>,
    /// Thermal totals after the origin, in the slots the TSO's thermal forecast covers (`[0]`) and
    /// in the others (`[1]`): the model's errors and persistence's (the same slot on the last known
    /// day).
    pub thermal_persistence: [(ErrorSums, ErrorSums); 2],
}

impl WeightSamples {
    /// One slot `h` slots after the last known value of what `b` blends: truth `y`, model `m`,
    /// TSO `f`.
    pub fn add(&mut self, b: Blended, h: i64, y: f64, m: f64, f: f64) {
        let key = (b, bucket(h));
        let s = self.sums.entry(key).or_default();
        s.num += (y - m) * (f - m);
        s.den += (f - m) * (f - m);
        s.n += 1;
        self.samples.push((key.0, key.1, y, m, f));
    }

    /// Adds another set of samples.
    pub fn merge(&mut self, other: WeightSamples) {
        for (k, s) in other.sums {
            let t = self.sums.entry(k).or_default();
            t.num += s.num;
            t.den += s.den;
            t.n += s.n;
        }
        self.samples.extend(other.samples);
        for (a, b) in self
            .thermal_persistence
            .iter_mut()
            .zip(&other.thermal_persistence)
        {
            a.0.merge(&b.0);
            a.1.merge(&b.1);
        }
    }
}

/// One class and bucket of a fit: the weight and the MAE (MW) of the model, the TSO and the blend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightFit {
    pub class: Blended,
    pub bucket: usize,
    pub weight: f64,
    pub n: usize,
    pub model_mae: f64,
    pub tso_mae: f64,
    pub blend_mae: f64,
    /// Mean of truth − TSO (MW).
    pub tso_bias: f64,
}

/// The least-squares weights of the samples, clamped to 0..1 (buckets without samples keep
/// `start`'s), with each bucket's errors; the thermal ones are only reported.
pub fn fit_weights(samples: &WeightSamples, start: BlendWeights) -> (BlendWeights, Vec<WeightFit>) {
    let mut out = start;
    let mut fits = Vec::new();
    for (&(c, b), s) in &samples.sums {
        let fitted = (s.den > 0.0).then(|| (s.num / s.den).clamp(0.0, 1.0));
        let weight = match (out.get_mut(c), fitted) {
            (Some(w), Some(f)) => {
                w[b] = f;
                f
            }
            (Some(w), None) => w[b],
            (None, f) => f.unwrap_or(0.0),
        };
        let (mut em, mut ef, mut eb) = (
            ErrorSums::default(),
            ErrorSums::default(),
            ErrorSums::default(),
        );
        let mut bias = 0.0;
        for &(_, _, y, m, f) in samples.samples.iter().filter(|x| (x.0, x.1) == (c, b)) {
            bias += y - f;
            em.add(y, m);
            ef.add(y, f);
            eb.add(y, weight * f + (1.0 - weight) * m);
        }
        fits.push(WeightFit {
            class: c,
            bucket: b,
            weight,
            n: s.n,
            model_mae: em.finish().mae,
            tso_mae: ef.finish().mae,
            blend_mae: eb.finish().mae,
            tso_bias: bias / s.n.max(1) as f64,
        });
    }
    (out, fits)
}

/// The TSO forecasts a replay reads, each value with its publication time: per actual series
/// (wind, solar, load) and each zone's scheduled total generation.
#[derive(Debug, Clone, Default)]
pub struct PublishedInputs {
    pub series: BTreeMap<InputKey, Published>,
    pub scheduled: BTreeMap<ZoneCode, Published>,
}

impl PublishedInputs {
    /// Whether there is nothing to blend.
    pub fn is_empty(&self) -> bool {
        self.series.is_empty() && self.scheduled.is_empty()
    }

    /// The TSO's thermal forecast of `zone` ([`thermal_forecast`]) known at `origin`, over `range`;
    /// `None` without a scheduled generation.
    pub fn thermal_known_at(
        &self,
        zone: &ZoneCode,
        origin: Slot,
        range: SlotRange,
    ) -> Option<Series> {
        let scheduled = self.scheduled.get(zone)?.known_at(origin, range);
        let wind_solar: Vec<Series> = self
            .series
            .iter()
            .filter(|(k, _)| {
                k.zone() == zone
                    && matches!(SeriesClass::of(k), SeriesClass::Solar | SeriesClass::Wind)
            })
            .map(|(_, p)| p.known_at(origin, range))
            .collect();
        Some(thermal_forecast(&scheduled, &wind_solar, range))
    }
}

/// The samples of a fit: for every origin, every series with a TSO forecast is forecast by the
/// model from its values before `origin − lag_slots`, and each slot up to `horizon_slots` after the
/// origin that has a TSO value published before the origin and a true value is a sample; likewise
/// each zone's thermal total, where its thermal series all have a forecast and a true value.
pub fn collect_samples(
    series: &BTreeMap<InputKey, Series>,
    tso: &PublishedInputs,
    origins: &[Slot],
    cfg: &ForecastConfig,
    lag_slots: i64,
    horizon_slots: i64,
) -> WeightSamples {
    origins
        .par_iter()
        .map(|&t0| {
            let mut samples = WeightSamples::default();
            let known = t0.offset(-lag_slots);
            let end = t0.offset(horizon_slots);
            for (key, p) in &tso.series {
                let Some(s) = series.get(key) else { continue };
                let Some(last) = s.last_before(known) else {
                    continue;
                };
                let class = SeriesClass::of(key);
                let Some(b) = Blended::of(class) else {
                    continue;
                };
                let f = p.known_at(t0, SlotRange::new(last, end));
                for (t, m) in forecast_series(s, known, end, class, cfg) {
                    if let (Some(y), Some(fv)) = (s.get(t), f.get(t).filter(|v| usable(*v))) {
                        samples.add(b, t.0 - last.0, y, m, fv);
                    }
                }
            }
            for zone in tso.scheduled.keys() {
                let thermal: Vec<(&Series, Vec<(Slot, f64)>)> = series
                    .iter()
                    .filter(|(k, _)| k.zone() == zone && is_thermal(k))
                    .map(|(k, s)| (s, forecast_series(s, known, end, SeriesClass::of(k), cfg)))
                    .filter(|(_, fc)| !fc.is_empty())
                    .collect();
                let Some(last) = thermal
                    .iter()
                    .filter_map(|(s, _)| s.last_before(known))
                    .max()
                else {
                    continue;
                };
                let Some(f) = tso.thermal_known_at(zone, t0, SlotRange::new(last, end)) else {
                    continue;
                };
                let mut totals: BTreeMap<Slot, (f64, f64, usize)> = BTreeMap::new();
                for (s, fc) in &thermal {
                    for &(t, m) in fc {
                        if let Some(y) = s.get(t) {
                            let e = totals.entry(t).or_default();
                            e.0 += y;
                            e.1 += m;
                            e.2 += 1;
                        }
                    }
                }
                for (t, (y, m, n)) in totals {
                    if n != thermal.len() {
                        continue;
                    }
                    let fv = f.get(t);
                    if let Some(fv) = fv {
                        samples.add(Blended::Thermal, t.0 - last.0, y, m, fv);
                    }
                    let k = (t.0 - known.0).div_euclid(SLOTS_PER_DAY) + 1;
                    let back = t.offset(-k * SLOTS_PER_DAY);
                    let p: Option<f64> = thermal.iter().map(|(s, _)| s.get(back)).sum();
                    if let (Some(p), true) = (p, t >= t0) {
                        let e = &mut samples.thermal_persistence[fv.is_none() as usize];
                        e.0.add(y, m);
                        e.1.add(y, p);
                    }
                }
            }
            samples
        })
        .reduce(WeightSamples::default, |mut a, b| {
            a.merge(b);
            a
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_the_lead_time() {
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(3), 0);
        assert_eq!(bucket(4), 1);
        assert_eq!(bucket(95), 5);
        assert_eq!(bucket(400), 6);
    }

    #[test]
    fn without_a_usable_tso_value_the_blend_is_the_model() {
        let model: Vec<(Slot, f64)> = (10..20).map(|i| (Slot(i), 100.0 + i as f64)).collect();
        let unblended: Vec<(Slot, f64, bool)> = model.iter().map(|&(t, v)| (t, v, false)).collect();
        let w = BlendWeights::default();
        let none = Series::empty(SlotRange::new(Slot(0), Slot(30)));
        assert_eq!(
            blend(&model, &none, Slot(9), SeriesClass::Wind, &w),
            unblended
        );
        let mut bad = none.clone();
        bad.set(Slot(12), Some(f64::NAN));
        bad.set(Slot(13), Some(-5.0));
        assert_eq!(
            blend(&model, &bad, Slot(9), SeriesClass::Wind, &w),
            unblended
        );
        let mut good = none.clone();
        good.set(Slot(15), Some(0.0));
        // Fossil generation has no TSO forecast: the model's, whatever the series holds.
        assert_eq!(
            blend(&model, &good, Slot(9), SeriesClass::Fossil, &w),
            unblended
        );
        let out = blend(&model, &good, Slot(9), SeriesClass::Wind, &w);
        let wt = w.wind[bucket(6)];
        assert!(out[5].2 && (out[5].1 - (1.0 - wt) * 115.0).abs() < 1e-9);
        assert_eq!(out.iter().filter(|x| x.2).count(), 1);
        assert_eq!(out[4], unblended[4]);
    }

    #[test]
    fn the_fitted_weight_is_the_least_squares_one() {
        // Truth halfway between model and TSO: weight 0.5; the TSO always right: weight 1.
        let mut s = WeightSamples::default();
        for i in 0..10 {
            let m = 100.0 + i as f64;
            s.add(Blended::Wind, 50, m + 10.0, m, m + 20.0);
            s.add(Blended::Solar, 2, m + 7.0, m, m + 7.0);
            s.add(Blended::Thermal, 50, m + 10.0, m, m + 20.0);
        }
        let (w, fits) = fit_weights(&s, BlendWeights::default());
        assert!((w.wind[bucket(50)] - 0.5).abs() < 1e-12);
        assert!((w.solar[0] - 1.0).abs() < 1e-12);
        assert_eq!(w.load, BlendWeights::default().load);
        let solar = fits.iter().find(|f| f.class == Blended::Solar).unwrap();
        assert!(solar.blend_mae < 1e-9 && (solar.model_mae - 7.0).abs() < 1e-9);
        // The thermal weight is measured and reported, never a weight of the blend.
        let thermal = fits.iter().find(|f| f.class == Blended::Thermal).unwrap();
        assert!((thermal.weight - 0.5).abs() < 1e-12 && (thermal.tso_bias + 10.0).abs() < 1e-9);
        assert_eq!(w.of(SeriesClass::Fossil), None);
        assert_eq!(w.wind[..4], BlendWeights::default().wind[..4]);
    }

    #[test]
    fn the_thermal_forecast_is_the_schedule_less_wind_and_solar() {
        let range = SlotRange::new(Slot(0), Slot(4));
        let series = |v: [Option<f64>; 4]| Series::from_values(Slot(0), v.to_vec());
        // Scheduled 1000 MW, wind 300 + 100, solar 200: 400 MW thermal; slot 2 lacks its solar
        // forecast, slot 3 its schedule; wind above the schedule is no negative thermal.
        let scheduled = series([Some(1000.0), Some(1000.0), Some(1000.0), None]);
        let wind = [
            series([Some(300.0), Some(1200.0), Some(300.0), Some(300.0)]),
            series([Some(100.0); 4]),
            series([Some(200.0), Some(0.0), None, Some(200.0)]),
        ];
        let f = thermal_forecast(&scheduled, &wind, range);
        assert_eq!(
            range.iter().map(|t| f.get(t)).collect::<Vec<_>>(),
            [Some(400.0), Some(0.0), None, None]
        );
    }

    #[test]
    fn a_value_is_known_only_after_its_publication() {
        let range = SlotRange::new(Slot(100), Slot(110));
        let mut p = Published::empty(range);
        p.set(Slot(105), 7.0, 104 * SLOT_SECONDS);
        p.set(Slot(106), 8.0, 105 * SLOT_SECONDS);
        let known = p.known_at(Slot(105), range);
        assert_eq!(known.get(Slot(105)), Some(7.0));
        assert_eq!(
            known.get(Slot(106)),
            None,
            "published at the origin: not before it"
        );
    }
}
