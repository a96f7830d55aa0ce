//! The forecast model ("anchored profile"): one series' values after its last known value, from
//! the seasonal profile of its class and the last observation, whose anomaly fades at a rate fitted
//! per class of series.
//!
//! The same function fills the hours the provider has not published yet (the worker stores those
//! values as estimates) and the days ahead (stored as forecasts): there is one method, anchored on
//! the last value the provider published. [`ForecastConfig::default`] holds the parameters fitted
//! on the first half of 2022 by `gridprint forecast-eval --fit` ([`super::fit`]); docs/forecast.md
//! has the command and the table. Callers: the worker (`crate::worker`) and the yardstick
//! ([`super::eval`]).

use crate::series::Series;
use gridprint_core::inputs::InputKey;
use gridprint_core::production::ProductionType;
use gridprint_core::slot::{SLOTS_PER_DAY, Slot};

/// Slots per week.
pub const SLOTS_PER_WEEK: i64 = 7 * SLOTS_PER_DAY;
/// Default horizon: 96 hours from the current slot (the reference service answers about 4 days
/// ahead; CATS searches up to 2,820 minutes plus its duration, about 94 h). `worker --horizon`
/// overrides it.
pub const DEFAULT_HORIZON_SLOTS: usize = 96 * 4;
/// Longest time after a series' last known value that the model still forecasts it (7 days): a
/// series silent for longer gets no values at all.
pub const MAX_SILENCE_SLOTS: i64 = 7 * SLOTS_PER_DAY;

/// The classes of series whose parameters are fitted apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SeriesClass {
    /// Solar generation: a daily shape scaled by the recent clearness.
    Solar,
    /// Wind on- and offshore: persistence fading into climatology.
    Wind,
    /// Hydro (run-of-river, reservoir, pumped storage) and marine.
    Hydro,
    /// Fossil generation (gas, coal, oil).
    Fossil,
    /// Nuclear, biomass, waste, geothermal, other: mostly steady.
    Steady,
    /// Total load.
    Load,
    /// Cross-border physical flows.
    Flow,
}

impl SeriesClass {
    /// Every class, in index order.
    pub const ALL: [SeriesClass; 7] = [
        SeriesClass::Solar,
        SeriesClass::Wind,
        SeriesClass::Hydro,
        SeriesClass::Fossil,
        SeriesClass::Steady,
        SeriesClass::Load,
        SeriesClass::Flow,
    ];

    /// The class of a series.
    pub fn of(key: &InputKey) -> SeriesClass {
        match key {
            InputKey::Load { .. } => SeriesClass::Load,
            InputKey::Flow { .. } => SeriesClass::Flow,
            InputKey::Generation {
                production_type, ..
            } => match production_type {
                ProductionType::Solar => SeriesClass::Solar,
                ProductionType::WindOnshore | ProductionType::WindOffshore => SeriesClass::Wind,
                ProductionType::HydroPumpedStorage
                | ProductionType::HydroReservoir
                | ProductionType::HydroRiver
                | ProductionType::Marine => SeriesClass::Hydro,
                ProductionType::Coal | ProductionType::Gas | ProductionType::Oil => {
                    SeriesClass::Fossil
                }
                ProductionType::Nuclear
                | ProductionType::Biomass
                | ProductionType::Waste
                | ProductionType::Geothermal
                | ProductionType::Other
                | ProductionType::OtherRenewable => SeriesClass::Steady,
            },
        }
    }

    /// Position in [`SeriesClass::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Lower-case name, as `forecast-eval` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            SeriesClass::Solar => "solar",
            SeriesClass::Wind => "wind",
            SeriesClass::Hydro => "hydro",
            SeriesClass::Fossil => "fossil",
            SeriesClass::Steady => "steady",
            SeriesClass::Load => "load",
            SeriesClass::Flow => "flow",
        }
    }

    /// Whether the anomaly scales the profile (solar: zero at night stays zero) rather than adding
    /// to it.
    pub fn scaled(self) -> bool {
        self == SeriesClass::Solar
    }
}

/// The parameters of one class ([`forecast_series`] has how they are used).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassParams {
    /// Days of the same time of day averaged into the profile.
    pub days: i64,
    /// Weight of each further day back (1 = plain mean: a climatology of `days` days).
    pub day_decay: f64,
    /// Weight of a day of the other type (weekday against Saturday/Sunday) relative to one of the
    /// same type.
    pub other_day_type_weight: f64,
    /// Weight of the same slot a week back, blended in when the profile's first day is less than a
    /// week back.
    pub week_weight: f64,
    /// Half-life of the last observation's anomaly, in slots.
    pub half_life_slots: f64,
    /// Shape of the fade: the anomaly is weighted `2^(−(h / half-life)^shape)` `h` slots after the
    /// last observation (1: exponential; 2: it holds for the first hours, then drops faster).
    pub fade_shape: f64,
    /// How much of the profile's own change since the last observation the anchored part follows
    /// (additive classes): 1 moves the last value with the daily shape, 0 holds it and only blends
    /// towards the profile as the anomaly fades.
    pub profile_follow: f64,
}

impl ClassParams {
    /// The weight of the anomaly `h` slots after the last observation.
    pub fn fade(&self, h: f64) -> f64 {
        0.5f64.powf((h / self.half_life_slots.max(1e-9)).powf(self.fade_shape))
    }
}

/// The model's parameters, one set per [`SeriesClass`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForecastConfig {
    /// Indexed by [`SeriesClass::index`].
    pub classes: [ClassParams; 7],
    /// Slots forecast from the current slot.
    pub horizon_slots: usize,
}

impl ForecastConfig {
    /// The parameters of a class.
    pub fn class(&self, class: SeriesClass) -> &ClassParams {
        &self.classes[class.index()]
    }

    /// Days of history the model reads before its last known value: the longest profile, plus
    /// the day a forecast reaches back from the lag hours.
    pub fn history_days(&self) -> i64 {
        self.classes.iter().map(|c| c.days).max().unwrap_or(0) + 1
    }
}

impl Default for ForecastConfig {
    /// Fitted on 2022-01-01..2022-07-01 of the real recordings (19 countries' generation, 21
    /// countries' flows): `scripts/forecast-bench.sh` runs the fit; docs/forecast.md has the table.
    fn default() -> Self {
        let p = |days, day_decay, other, week, half_life, fade_shape, follow| ClassParams {
            days,
            day_decay,
            other_day_type_weight: other,
            week_weight: week,
            half_life_slots: half_life,
            fade_shape,
            profile_follow: follow,
        };
        ForecastConfig {
            classes: [
                p(14, 0.8, 1.0, 0.0, 16.0, 1.5, 1.0),   // solar
                p(28, 1.0, 1.0, 0.0, 64.0, 1.0, 0.5),   // wind
                p(28, 0.5, 0.3, 0.2, 64.0, 1.0, 1.0),   // hydro
                p(21, 0.7, 0.1, 0.2, 256.0, 1.0, 0.75), // fossil
                p(28, 0.3, 1.0, 0.0, 128.0, 1.0, 0.75), // steady
                p(14, 0.6, 0.1, 0.3, 32.0, 1.0, 1.0),   // load (not in the recordings: not fitted)
                p(28, 0.5, 1.0, 0.2, 32.0, 1.0, 0.5),   // flow
            ],
            horizon_slots: DEFAULT_HORIZON_SLOTS,
        }
    }
}

/// Whether a slot falls on a Saturday or Sunday (UTC).
fn is_weekend(s: Slot) -> bool {
    // 1970-01-01 was a Thursday: day 2 is a Saturday.
    matches!(s.day().rem_euclid(7), 2 | 3)
}

/// The seasonal profile at slot `t` from the values before `known_before`: a weighted mean of the
/// same time of day on the last [`ClassParams::days`] known days (the first day far enough back to
/// be known, then each further day weighted [`ClassParams::day_decay`] times less; days of the
/// other type weighted [`ClassParams::other_day_type_weight`]), blended with the same slot a week
/// back ([`ClassParams::week_weight`]) while the daily part starts less than a week back.
pub fn profile(history: &Series, t: Slot, known_before: Slot, p: &ClassParams) -> Option<f64> {
    // The first day back whose slot is known.
    let k0 = ((t.0 - known_before.0).div_euclid(SLOTS_PER_DAY) + 1).max(1);
    let (mut sum, mut wsum, mut w) = (0.0, 0.0, 1.0);
    let weekend = is_weekend(t);
    for k in k0..k0 + p.days {
        let s = t.offset(-k * SLOTS_PER_DAY);
        if let Some(v) = history.get(s) {
            let wt = if is_weekend(s) == weekend {
                w
            } else {
                w * p.other_day_type_weight
            };
            sum += wt * v;
            wsum += wt;
        }
        w *= p.day_decay;
    }
    let daily = (wsum > 0.0).then(|| sum / wsum);
    if p.week_weight <= 0.0 || k0 >= 7 {
        return daily;
    }
    let weekly = history.get(t.offset(-SLOTS_PER_WEEK));
    match (daily, weekly) {
        (Some(d), Some(wk)) => Some((1.0 - p.week_weight) * d + p.week_weight * wk),
        (d, wk) => d.or(wk),
    }
}

/// How far the last observation stands from the profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Anomaly {
    /// The last observation and the profile there, MW.
    Added { observed: f64, profile: f64 },
    /// Observed over profile, both shrunk towards each other by a prior (solar).
    Scaled(f64),
}

/// Share of the mean of the last day that regularises solar's ratio: `(y + c) / (profile + c)`
/// with `c` this share of the day's mean output, so that a dawn hour with a tiny profile cannot
/// make the ratio explode (no clamp needed).
const SOLAR_RATIO_PRIOR: f64 = 0.25;

/// The anomaly of the last known slot `last` of `history`.
pub fn anomaly(history: &Series, last: Slot, class: SeriesClass, p: &ClassParams) -> Anomaly {
    let y = history.get(last).unwrap_or(0.0);
    let base = profile(history, last, last, p).unwrap_or(y);
    if !class.scaled() {
        return Anomaly::Added {
            observed: y,
            profile: base,
        };
    }
    let (mut s, mut n) = (0.0, 0usize);
    for i in 0..SLOTS_PER_DAY {
        if let Some(v) = history.get(last.offset(-i)) {
            s += v;
            n += 1;
        }
    }
    let c = SOLAR_RATIO_PRIOR * if n > 0 { s / n as f64 } else { 0.0 } + 1.0;
    Anomaly::Scaled((y + c) / (base + c))
}

/// The model's value at `t` from the profile there, the anomaly, its fade (1 at the anchor,
/// halving every half-life) and [`ClassParams::profile_follow`]:
/// `fade · (observed + follow · (base − profile)) + (1 − fade) · base` for additive classes.
pub fn combine(base: f64, anomaly: Anomaly, fade: f64, follow: f64) -> f64 {
    let v = match anomaly {
        Anomaly::Added { observed, profile } => {
            fade * (observed + follow * (base - profile)) + (1.0 - fade) * base
        }
        Anomaly::Scaled(r) => base * (1.0 + (r - 1.0) * fade),
    };
    v.max(0.0)
}

/// Forecasts `history` from the slot after its last value before `known_before` up to `until`
/// (exclusive), using only the values before `known_before`. Returns `(slot, MW)` pairs; empty
/// when the series has no value in the [`MAX_SILENCE_SLOTS`] before `known_before`.
///
/// For a slot `t`, `h` slots after the last known slot `l`:
/// `value = profile(t) + (y(l) − profile(l)) · fade(h)` ([`profile`], [`anomaly`],
/// [`ClassParams::fade`]), less the part `(1 − follow) · fade(h) · (profile(t) − profile(l))` of
/// the profile's own change that [`ClassParams::profile_follow`] leaves out ([`combine`]); solar scales instead: `profile(t) · (1 + (r − 1) · fade(h))` with `r`
/// the regularised ratio of `y(l)` to `profile(l)`. Where the profile has no history, the last value
/// is held. Values are floored at zero (every input is a non-negative power). At `h = 1` the value
/// is the last observation moved by the profile's own change from `l` to `t`, which is what
/// anchors the first hour on the data.
pub fn forecast_series(
    history: &Series,
    known_before: Slot,
    until: Slot,
    class: SeriesClass,
    cfg: &ForecastConfig,
) -> Vec<(Slot, f64)> {
    let Some(last) = history.last_before(known_before) else {
        return Vec::new();
    };
    if known_before.0 - last.0 > MAX_SILENCE_SLOTS {
        return Vec::new();
    }
    let p = cfg.class(class);
    let y_last = history.get(last).unwrap_or(0.0);
    let a = anomaly(history, last, class, p);
    (last.0 + 1..until.0)
        .map(|i| {
            let t = Slot(i);
            let v = match profile(history, t, known_before, p) {
                Some(base) => combine(base, a, p.fade((i - last.0) as f64), p.profile_follow),
                None => y_last,
            };
            (t, v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridprint_core::zone::ZoneCode;

    const D: i64 = SLOTS_PER_DAY;

    fn series(days: i64, f: impl Fn(i64) -> f64) -> Series {
        Series::from_values(Slot(0), (0..days * D).map(|i| Some(f(i))).collect())
    }

    fn gen_key(t: ProductionType) -> InputKey {
        InputKey::Generation {
            zone: ZoneCode::parse("BE").unwrap(),
            production_type: t,
        }
    }

    #[test]
    fn classes_cover_every_type_and_index_in_order() {
        for (i, c) in SeriesClass::ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
        }
        assert_eq!(
            SeriesClass::of(&gen_key(ProductionType::WindOffshore)),
            SeriesClass::Wind
        );
        assert_eq!(
            SeriesClass::of(&gen_key(ProductionType::Solar)),
            SeriesClass::Solar
        );
    }

    #[test]
    fn repeats_a_pure_daily_cycle() {
        let shape =
            |i: i64| 100.0 + 50.0 * ((i % D) as f64 / D as f64 * std::f64::consts::TAU).sin();
        let s = series(29, shape);
        // Following the whole profile change, every class repeats the cycle exactly.
        let mut follow = ForecastConfig::default();
        for c in &mut follow.classes {
            c.profile_follow = 1.0;
        }
        for class in SeriesClass::ALL {
            let fc = forecast_series(&s, Slot(29 * D), Slot(29 * D + 96 * 4), class, &follow);
            assert_eq!(fc.len(), 96 * 4);
            for (t, v) in fc {
                assert!((v - shape(t.0)).abs() < 1e-6, "{class:?} {t:?}: {v}");
            }
        }
    }

    #[test]
    fn the_fade_halves_at_the_half_life_and_combine_moves_from_the_anchor_to_the_profile() {
        for class in SeriesClass::ALL {
            let p = ForecastConfig::default().classes[class.index()];
            assert_eq!(p.fade(0.0), 1.0);
            assert!((p.fade(p.half_life_slots) - 0.5).abs() < 1e-12, "{class:?}");
            assert!(p.fade(10.0) > p.fade(20.0), "{class:?}");
        }
        let a = Anomaly::Added {
            observed: 300.0,
            profile: 100.0,
        };
        // Fully anchored: the observation plus the followed share of the profile's change.
        assert_eq!(combine(150.0, a, 1.0, 0.0), 300.0);
        assert_eq!(combine(150.0, a, 1.0, 1.0), 350.0);
        assert_eq!(combine(150.0, a, 1.0, 0.5), 325.0);
        // Faded: the profile.
        assert_eq!(combine(150.0, a, 0.0, 0.5), 150.0);
        assert_eq!(combine(0.0, Anomaly::Scaled(1.5), 1.0, 1.0), 0.0);
        assert_eq!(combine(100.0, Anomaly::Scaled(1.5), 0.5, 1.0), 125.0);
    }

    #[test]
    fn starts_at_the_last_observation_and_fades_to_the_profile() {
        // A flat profile of 100 MW; the last hour jumps to 300 MW.
        let mut s = series(15, |_| 100.0);
        for i in 15 * D - 4..15 * D {
            s.set(Slot(i), Some(300.0));
        }
        let mut cfg = ForecastConfig::default();
        cfg.classes[SeriesClass::Wind.index()] = ClassParams {
            days: 7,
            day_decay: 1.0,
            other_day_type_weight: 1.0,
            week_weight: 0.0,
            half_life_slots: 16.0,
            fade_shape: 1.0,
            profile_follow: 1.0,
        };
        let fc = forecast_series(&s, Slot(15 * D), Slot(18 * D), SeriesClass::Wind, &cfg);
        assert!(fc[0].1 > 290.0, "{:?}", fc[0]);
        assert!(fc[40].1 < fc[0].1);
        // Three days on, the anomaly has faded (2^-18) and the profile holds one 300 MW hour of
        // seven days at that time of day.
        let last = fc.last().unwrap();
        assert!((last.1 - (100.0 + 200.0 / 7.0)).abs() < 0.1, "{last:?}");
    }

    #[test]
    fn forecasts_the_lag_hours_from_the_last_known_slot() {
        let mut s = series(10, |_| 50.0);
        for i in 10 * D - 4..10 * D {
            s.set(Slot(i), None);
        }
        let fc = forecast_series(
            &s,
            Slot(10 * D),
            Slot(10 * D + 8),
            SeriesClass::Load,
            &ForecastConfig::default(),
        );
        assert_eq!(fc.first().unwrap().0, Slot(10 * D - 4));
        assert_eq!(fc.len(), 12);
    }

    #[test]
    fn solar_stays_zero_at_night_and_scales_a_sunny_day() {
        // Zero at night; the last day 50 % above the profile of the days before.
        let sun = |i: i64| {
            let tod = i % D;
            if !(30..70).contains(&tod) {
                0.0
            } else {
                1000.0 * (((tod - 30) as f64) / 40.0 * std::f64::consts::PI).sin()
            }
        };
        let mut s = series(15, sun);
        for i in 14 * D..14 * D + 55 {
            s.set(Slot(i), Some(1.5 * sun(i)));
        }
        for i in 14 * D + 55..15 * D {
            s.set(Slot(i), None);
        }
        let cfg = ForecastConfig::default();
        let fc = forecast_series(
            &s,
            Slot(14 * D + 55),
            Slot(15 * D),
            SeriesClass::Solar,
            &cfg,
        );
        let night = fc.iter().find(|(t, _)| t.0 % D == 80).unwrap();
        assert_eq!(night.1, 0.0);
        assert!(fc[0].1 > 1.3 * sun(14 * D + 55), "{:?}", fc[0]);
    }

    #[test]
    fn reads_nothing_from_the_origin_on() {
        let s = series(20, |i| 100.0 + (i % 37) as f64);
        let mut changed = s.clone();
        for i in 18 * D..20 * D {
            changed.set(Slot(i), Some(1e6));
        }
        let cfg = ForecastConfig::default();
        for class in SeriesClass::ALL {
            assert_eq!(
                forecast_series(&s, Slot(18 * D), Slot(22 * D), class, &cfg),
                forecast_series(&changed, Slot(18 * D), Slot(22 * D), class, &cfg),
                "{class:?}"
            );
        }
    }

    #[test]
    fn no_recent_history_no_forecast() {
        let s = Series::from_values(Slot(0), vec![None; 10]);
        let cfg = ForecastConfig::default();
        assert!(forecast_series(&s, Slot(10), Slot(20), SeriesClass::Load, &cfg).is_empty());
        let mut s = series(1, |_| 5.0);
        s.values.extend(vec![None; 8 * D as usize]);
        assert!(forecast_series(&s, Slot(9 * D), Slot(10 * D), SeriesClass::Load, &cfg).is_empty());
    }
}
