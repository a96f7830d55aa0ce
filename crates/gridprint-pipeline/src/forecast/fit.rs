//! Fitting the model on one series at a time: the per-series backtest against the seasonal-naive
//! baseline, and the search for each class's parameters ([`fit_class`]) that
//! `gridprint forecast-eval --fit` runs on a fitting period.
//!
//! Errors here are in MW on the inputs; the footprint itself is scored by [`super::eval`]. The
//! search is a grid over the profile's parameters and the anomaly's half-life, scored by the
//! absolute error summed over every series of the class and every origin (so the large series,
//! which move the footprint most, weigh most). The grid is [`PROFILE_GRID`] × [`HALF_LIVES`].

use super::errors::{ErrorSums, Errors};
use super::eval::{EvalOptions, Truth, ZoneScore, evaluate};
use super::model::{
    ClassParams, ForecastConfig, SeriesClass, anomaly, combine, forecast_series, profile,
};
use crate::series::Series;
use gridprint_core::inputs::InputKey;
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{SLOTS_PER_DAY, Slot};
use rayon::iter::{IntoParallelRefIterator, ParallelIterator};
use std::collections::BTreeMap;

/// The seasonal-naive baseline: the value at the same time of day on the last day known before
/// `known_before`.
pub fn seasonal_naive(history: &Series, known_before: Slot, t: Slot) -> Option<f64> {
    let k = ((t.0 - known_before.0).div_euclid(SLOTS_PER_DAY) + 1).max(1);
    history.get(t.offset(-k * SLOTS_PER_DAY))
}

/// The model and the baseline on the same points.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Backtest {
    pub origins: usize,
    pub model: Errors,
    pub naive: Errors,
}

/// Replays the model on `series` from every origin in `origins`, knowing only the values before
/// `origin − lag_slots`, and scores it and the seasonal-naive baseline on the same points: the
/// slots from the origin to `horizon` slots after it where the actual value and both predictions
/// exist.
pub fn backtest(
    series: &Series,
    class: SeriesClass,
    cfg: &ForecastConfig,
    origins: impl IntoIterator<Item = Slot>,
    lag_slots: i64,
    horizon: usize,
) -> Backtest {
    let (mut model, mut naive) = (ErrorSums::default(), ErrorSums::default());
    let mut count = 0;
    for t0 in origins {
        let known = t0.offset(-lag_slots);
        let fc = forecast_series(series, known, t0.offset(horizon as i64), class, cfg);
        let mut used = false;
        for (t, p) in fc.into_iter().filter(|(t, _)| *t >= t0) {
            let (Some(y), Some(nv)) = (series.get(t), seasonal_naive(series, known, t)) else {
                continue;
            };
            model.add(y, p);
            naive.add(y, nv);
            used = true;
        }
        count += used as usize;
    }
    Backtest {
        origins: count,
        model: model.finish(),
        naive: naive.finish(),
    }
}

/// The profile parameters searched: `(days, day_decay, other_day_type_weight, week_weight)`.
pub const PROFILE_GRID: [(i64, f64, f64, f64); 10] = [
    (7, 0.3, 0.1, 0.3),
    (7, 0.6, 0.3, 0.2),
    (14, 0.6, 0.1, 0.3),
    (14, 0.6, 0.3, 0.2),
    (14, 0.6, 1.0, 0.0),
    (14, 0.8, 0.5, 0.2),
    (14, 0.8, 1.0, 0.0),
    (28, 0.9, 1.0, 0.0),
    (28, 0.95, 1.0, 0.0),
    (28, 1.0, 1.0, 0.0),
];
/// The half-lives searched, in slots (1 hour to 8 days).
pub const HALF_LIVES: [f64; 9] = [4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 768.0];

/// The best parameters of one class and their error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassFit {
    pub params: ClassParams,
    /// Mean absolute error of the best parameters over the scored points, MW.
    pub mae: f64,
    /// Mean absolute error of the seasonal-naive baseline on the same points, MW.
    pub naive_mae: f64,
    /// Points scored.
    pub n: usize,
}

/// Searches the parameters of `class` on `series` (all of that class): for every origin, the
/// values known before `origin − lag_slots`, scored over the `horizon` slots from the origin.
/// `None` when nothing could be scored.
pub fn fit_class(
    series: &[&Series],
    class: SeriesClass,
    origins: &[Slot],
    lag_slots: i64,
    horizon: usize,
) -> Option<ClassFit> {
    let scored: Vec<(ClassParams, [f64; HALF_LIVES.len()], f64, usize)> = PROFILE_GRID
        .par_iter()
        .map(|&(days, day_decay, other, week)| {
            let base = ClassParams {
                days,
                day_decay,
                other_day_type_weight: other,
                week_weight: week,
                half_life_slots: 1.0,
                fade_shape: 1.0,
                profile_follow: 1.0,
            };
            let mut abs = [0.0; HALF_LIVES.len()];
            let (mut naive, mut n) = (0.0, 0usize);
            for s in series {
                for &t0 in origins {
                    let known = t0.offset(-lag_slots);
                    let Some(last) = s.last_before(known) else {
                        continue;
                    };
                    let a = anomaly(s, last, class, &base);
                    for i in t0.0..t0.0 + horizon as i64 {
                        let t = Slot(i);
                        let (Some(y), Some(nv)) = (s.get(t), seasonal_naive(s, known, t)) else {
                            continue;
                        };
                        let p = profile(s, t, known, &base);
                        let h = (i - last.0) as f64;
                        for (k, hl) in HALF_LIVES.iter().enumerate() {
                            let v = match p {
                                Some(b) => combine(b, a, 0.5f64.powf(h / hl), 1.0),
                                None => s.get(last).unwrap_or(0.0),
                            };
                            abs[k] += (y - v).abs();
                        }
                        naive += (y - nv).abs();
                        n += 1;
                    }
                }
            }
            (base, abs, naive, n)
        })
        .collect();
    let mut best: Option<ClassFit> = None;
    for (base, abs, naive, n) in scored {
        if n == 0 {
            continue;
        }
        for (k, hl) in HALF_LIVES.iter().enumerate() {
            let mae = abs[k] / n as f64;
            if best.is_none_or(|b| mae < b.mae) {
                best = Some(ClassFit {
                    params: ClassParams {
                        half_life_slots: *hl,
                        ..base
                    },
                    mae,
                    naive_mae: naive / n as f64,
                    n,
                });
            }
        }
    }
    best
}

/// Sets one parameter of a class.
pub type Setter = fn(&mut ClassParams, f64);

/// The parameters [`descend`] moves, with the values it tries for each.
pub const PARAMETERS: [(&str, &[f64], Setter); 7] = [
    ("days", &[7.0, 14.0, 21.0, 28.0], |p, v| p.days = v as i64),
    (
        "day_decay",
        &[0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0],
        |p, v| p.day_decay = v,
    ),
    ("other_day_type_weight", &[0.1, 0.3, 0.5, 1.0], |p, v| {
        p.other_day_type_weight = v
    }),
    ("week_weight", &[0.0, 0.1, 0.2, 0.3, 0.5], |p, v| {
        p.week_weight = v
    }),
    ("half_life_slots", &HALF_LIVES, |p, v| p.half_life_slots = v),
    // No shape below 1: an anomaly never fades faster at first than exponentially, so the first
    // hours stay on the last observation.
    ("fade_shape", &[1.0, 1.5, 2.0, 3.0], |p, v| p.fade_shape = v),
    ("profile_follow", &[0.0, 0.25, 0.5, 0.75, 1.0], |p, v| {
        p.profile_follow = v
    }),
];

/// Weight of the first-hour penalty in [`objective`].
const FIRST_HOUR_PENALTY: f64 = 10.0;

/// The footprint objective [`descend`] minimises: the mean over zones of the carbon footprint's
/// MAPE over the first 48 hours (the first two bands, equally weighted), plus, for every zone
/// whose first hour is worse than the last known value held, [`FIRST_HOUR_PENALTY`] times the
/// excess (percentage points, averaged over zones): the first hour must never be worse than it.
pub fn objective(scores: &[ZoneScore]) -> f64 {
    let v: Vec<f64> = scores
        .iter()
        .map(|z| {
            let excess = (z.first_hour.mape - z.first_hour_held.mape).max(0.0);
            (z.model[0].mape + z.model[1].mape) / 2.0
                + FIRST_HOUR_PENALTY * if excess.is_finite() { excess } else { 0.0 }
        })
        .filter(|v| v.is_finite())
        .collect();
    if v.is_empty() {
        f64::INFINITY
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Coordinate descent on the footprint: starting from `start`, each parameter of each class that
/// has series is set in turn to the value of its list that gives the lowest [`objective`] on the
/// yardstick ([`evaluate`]), for `passes` passes. Returns the parameters and their objective;
/// `progress` gets each step's class, parameter name and objective.
pub fn descend(
    reference: &ReferenceData,
    series: &BTreeMap<InputKey, Series>,
    origins: &[Slot],
    opts: &EvalOptions,
    start: ForecastConfig,
    passes: usize,
    progress: &dyn Fn(SeriesClass, &str, f64),
) -> (ForecastConfig, f64) {
    let truth = Truth::new(reference, series, origins, opts);
    let score = |cfg: &ForecastConfig| {
        objective(&evaluate(
            reference,
            series,
            &truth,
            origins,
            cfg,
            opts,
            &|| {},
        ))
    };
    let mut cfg = start;
    let mut best = score(&cfg);
    let present: Vec<SeriesClass> = SeriesClass::ALL
        .into_iter()
        .filter(|c| series.keys().any(|k| SeriesClass::of(k) == *c))
        .collect();
    for _ in 0..passes {
        for &class in &present {
            let i = class.index();
            for (name, values, set) in PARAMETERS {
                for &v in values {
                    let mut trial = cfg;
                    set(&mut trial.classes[i], v);
                    if trial.classes[i] == cfg.classes[i] {
                        continue;
                    }
                    let o = score(&trial);
                    if o < best {
                        best = o;
                        cfg = trial;
                    }
                }
                progress(class, name, best);
            }
        }
    }
    (cfg, best)
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: i64 = SLOTS_PER_DAY;

    #[test]
    fn backtest_counts_the_same_points_for_both() {
        let s = Series::from_values(
            Slot(0),
            (0..4 * D).map(|i| Some((i % D) as f64 + 10.0)).collect(),
        );
        let b = backtest(
            &s,
            SeriesClass::Load,
            &ForecastConfig::default(),
            [Slot(2 * D)],
            0,
            96,
        );
        assert_eq!(b.model.n, b.naive.n);
        assert_eq!(b.model.n, 96);
        assert!(b.model.mae < 1e-9 && b.naive.mae < 1e-9);
    }

    #[test]
    fn the_fit_finds_a_long_half_life_for_a_level_shift_that_lasts() {
        // A daily cycle that steps up by 200 MW on day 10 and stays there: the anomaly at each
        // origin should persist, so the longest half-lives win.
        let s = Series::from_values(
            Slot(0),
            (0..30 * D)
                .map(|i| Some((i % D) as f64 + if (i / D) % 10 >= 5 { 200.0 } else { 0.0 }))
                .collect(),
        );
        let origins: Vec<Slot> = (15..25).map(|d| Slot(d * D + 40)).collect();
        let fit = fit_class(&[&s], SeriesClass::Fossil, &origins, 4, 96).unwrap();
        assert!(fit.params.half_life_slots >= 256.0, "{fit:?}");
        assert!(fit.mae < fit.naive_mae, "{fit:?}");
    }
}
