//! The published accuracy: how the forecasts the worker issued (the archive,
//! `gridprint_store::forecast`) did against what happened since, per zone, over the forecasts of
//! the last [`WINDOWS_DAYS`] days, per horizon band ([`super::eval::BANDS`]), beside persistence.
//!
//! The truth is the carbon footprint (global, life-cycle) the compute published for slots that are
//! final and complete — every input of the zone from the provider, so that a forecast is never
//! compared with gridprint's own estimates ([`Actuals`]); persistence is that truth at the same
//! slot on the last day known at the origin (as the yardstick's, counted from
//! `ArchivedForecast::known_until`). Every measure is the yardstick's ([`BandSums`]): MAPE and MAE
//! over every compared slot, and per forecast whose whole band has happened, the rank correlation
//! and the 3-hour regret. The worker computes it ([`crate::worker`]) and stores the rows; the API
//! serves them (`/v1/forecast-accuracy`); docs/methodology.md §9 describes it.

use super::eval::{BANDS, BandSums, Compared};
use gridprint_core::derived::{Coverage, DerivedDay, SeriesKey};
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use gridprint_store::forecast::{AccuracyRow, ArchivedForecast, Measures};
use std::collections::BTreeMap;

/// The windows of origins measured, in days.
pub const WINDOWS_DAYS: [i64; 2] = [7, 30];

/// The series archived and measured: carbon footprint, global, life-cycle.
pub const FOOTPRINT: SeriesKey = SeriesKey::Footprint {
    footprint_type: FootprintType::Carbon,
    scope: Scope::LifeCycle,
    coverage: Coverage::Global,
};

/// What happened: the published footprint ([`FOOTPRINT`]) of each zone per slot of a range, for the
/// slots that are final and complete (zone status `complete`: every input of the zone from the
/// provider; a slot sealed while some input was estimated holds gridprint's estimate, not what
/// happened).
#[derive(Debug, Default)]
pub struct Actuals {
    range: Option<SlotRange>,
    /// Slots from here on may still change: not counted.
    final_before: Option<Slot>,
    zones: BTreeMap<ZoneCode, Vec<f64>>,
}

impl Actuals {
    /// No actuals yet over `range`; only slots before `final_before` (the freeze boundary: later
    /// ones may still change) will count.
    pub fn new(range: SlotRange, final_before: Slot) -> Actuals {
        Actuals {
            range: Some(range),
            final_before: Some(final_before),
            zones: BTreeMap::new(),
        }
    }

    /// [`Actuals::new`] filled from `days`.
    pub fn from_days(days: &[DerivedDay], range: SlotRange, final_before: Slot) -> Actuals {
        let mut a = Actuals::new(range, final_before);
        a.add_days(days);
        a
    }

    /// Takes the footprints of `days` (derived days as stored) in the range.
    pub fn add_days(&mut self, days: &[DerivedDay]) {
        let (Some(range), Some(final_before)) = (self.range, self.final_before) else {
            return;
        };
        for d in days {
            let first = d.first_slot();
            for (i, flags) in d.flags.iter().enumerate() {
                let t = first.offset(i as i64);
                if !range.contains(t) || t >= final_before || !flags.present() {
                    continue;
                }
                if flags.status() != ZoneStatus::Complete {
                    continue;
                }
                if let Some(v) = d.value(&FOOTPRINT, i) {
                    let col = self
                        .zones
                        .entry(d.zone.clone())
                        .or_insert_with(|| vec![f64::NAN; range.len()]);
                    col[(t.0 - range.start.0) as usize] = f64::from(v);
                }
            }
        }
    }

    /// The actual footprint of `zone` at `t`; NaN when unknown.
    pub fn at(&self, zone: &ZoneCode, t: Slot) -> f64 {
        let (Some(range), Some(col)) = (self.range, self.zones.get(zone)) else {
            return f64::NAN;
        };
        if range.contains(t) {
            col[(t.0 - range.start.0) as usize]
        } else {
            f64::NAN
        }
    }
}

/// The slots of actuals the accuracy at `current` reads: a day before the first origin of the
/// longest window (persistence looks back a day or more) up to `current`.
pub fn actuals_range(current: Slot) -> SlotRange {
    let longest = WINDOWS_DAYS.iter().max().copied().unwrap_or(0);
    SlotRange::new(current.offset(-(longest + 2) * SLOTS_PER_DAY), current)
}

/// The origins the accuracy at `current` reads: those of the longest window.
pub fn origins_range(current: Slot) -> SlotRange {
    let longest = WINDOWS_DAYS.iter().max().copied().unwrap_or(0);
    SlotRange::new(current.offset(-longest * SLOTS_PER_DAY), current)
}

/// One forecast's slots compared with `actuals`, from its origin on (`None`: no truth, no
/// forecast value or no persistence value).
fn compared(forecast: &ArchivedForecast, actuals: &Actuals) -> Vec<Option<Compared>> {
    let known = forecast.known_until;
    forecast
        .footprints
        .iter()
        .enumerate()
        .map(|(h, &f)| {
            let t = forecast.origin.offset(h as i64);
            let y = actuals.at(&forecast.zone, t);
            let k = ((t.0 - known.0).div_euclid(SLOTS_PER_DAY) + 1).max(1);
            let p = actuals.at(&forecast.zone, t.offset(-k * SLOTS_PER_DAY));
            (y.is_finite() && f.is_finite() && p.is_finite()).then_some(Compared {
                truth: y,
                model: f,
                persistence: p,
            })
        })
        .collect()
}

fn some(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// The rows of one zone, window and band from its sums.
fn row(
    zone: &ZoneCode,
    window_days: i64,
    band: usize,
    sums: &BandSums,
    origins: Option<(Slot, Slot)>,
    computed_at: i64,
) -> AccuracyRow {
    let (_, from, to) = BANDS[band];
    let measures = |m: usize| {
        let e = if m == 0 {
            &sums.model
        } else {
            &sums.persistence
        }
        .finish();
        Measures {
            mape: some(e.mape),
            mae: some(e.mae),
            rank: some(sums.rank(m)),
            regret: some(sums.regret(m)),
        }
    };
    AccuracyRow {
        zone: zone.clone(),
        window_days,
        band_from_h: from / 4,
        band_to_h: to / 4,
        computed_at,
        first_origin: origins.map(|o| o.0),
        last_origin: origins.map(|o| o.1),
        forecasts: sums.forecasts as i64,
        points: sums.model.finish().n as i64,
        ranked: sums.complete as i64,
        model: measures(0),
        persistence: measures(1),
    }
}

/// The accuracy at `current` of the archived `forecasts` (their footprints; origins before
/// `current`) against `actuals`: for every zone with an archived forecast, every window of
/// [`WINDOWS_DAYS`] and every band of [`BANDS`], one row (its counts 0 and its measures `None`
/// where nothing could be compared yet). Ordered by (zone, window, band).
pub fn accuracy(
    forecasts: &[ArchivedForecast],
    actuals: &Actuals,
    current: Slot,
    computed_at: i64,
) -> Vec<AccuracyRow> {
    // Per zone and window: the bands' sums and the first and last origin scored.
    type Sums = ([BandSums; 3], Option<(Slot, Slot)>);
    let mut by_zone: BTreeMap<&ZoneCode, [Sums; WINDOWS_DAYS.len()]> = BTreeMap::new();
    for f in forecasts.iter().filter(|f| f.origin < current) {
        let slots = compared(f, actuals);
        let windows = by_zone.entry(&f.zone).or_default();
        for (w, days) in WINDOWS_DAYS.iter().enumerate() {
            if f.origin < current.offset(-days * SLOTS_PER_DAY) {
                continue;
            }
            let (bands, origins) = &mut windows[w];
            let mut scored = false;
            for (b, (_, from, to)) in BANDS.iter().enumerate() {
                let (from, to) = (*from as usize, *to as usize);
                let part = &slots[from.min(slots.len())..to.min(slots.len())];
                let before = bands[b].forecasts;
                bands[b].add_forecast(part, to - from);
                scored |= bands[b].forecasts > before;
            }
            if scored {
                *origins = Some(match *origins {
                    None => (f.origin, f.origin),
                    Some((a, z)) => (a.min(f.origin), z.max(f.origin)),
                });
            }
        }
    }
    let mut out = Vec::new();
    for (zone, windows) in by_zone {
        for (w, (bands, origins)) in windows.iter().enumerate() {
            for (b, sums) in bands.iter().enumerate() {
                out.push(row(zone, WINDOWS_DAYS[w], b, sums, *origins, computed_at));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridprint_core::derived::SlotFlags;
    use gridprint_core::inputs::InputKey;
    use gridprint_store::forecast::ArchivedSeries;

    fn z(s: &str) -> ZoneCode {
        ZoneCode::parse(s).unwrap()
    }

    /// A smooth daily truth with a weekly drift: `200 + 50 sin(day phase) + slot / 100`.
    fn truth(t: Slot) -> f64 {
        let phase = t.index_in_day() as f64 / SLOTS_PER_DAY as f64 * std::f64::consts::TAU;
        200.0 + 50.0 * phase.sin() + (t.0 % 10_000) as f64 / 100.0
    }

    /// Published days of `zone` over `days`, every slot final, with provider data, holding
    /// [`truth`].
    fn published(zone: &str, days: std::ops::Range<i64>) -> Vec<DerivedDay> {
        days.map(|day| {
            let mut d = DerivedDay::new(z(zone), day);
            for i in 0..SLOTS_PER_DAY as usize {
                d.flags[i] = SlotFlags::new(ZoneStatus::Complete, true, true);
                d.set(FOOTPRINT, i, truth(d.first_slot().offset(i as i64)));
            }
            d
        })
        .collect()
    }

    /// A forecast of `zone` issued at `origin` whose every value is the truth times `1 + error`,
    /// its own generation known up to the slot before the origin.
    fn issued(zone: &str, origin: Slot, error: f64) -> ArchivedForecast {
        ArchivedForecast {
            zone: z(zone),
            origin,
            issued_at: origin.unix(),
            known_until: origin,
            // The truth as published (f32), so that the error is exactly `error`.
            footprints: (0..384)
                .map(|h| f64::from(truth(origin.offset(h)) as f32) * (1.0 + error))
                .collect(),
            inputs: vec![ArchivedSeries {
                key: InputKey::Load { zone: z(zone) },
                last_known: origin.offset(-1),
                mw: vec![],
            }],
        }
    }

    /// Issue #46 item 5: on a synthetic history whose errors are known, the published measures are
    /// those errors: a forecast 10 % high has a MAPE of 10 % and an MAE of a tenth of the mean
    /// truth; it ranks the slots as the truth does (rank correlation 1, regret 0); persistence
    /// ("the same slot yesterday") misses by the drift of a day.
    #[test]
    fn known_errors_come_out_as_measured() {
        let day0 = 20_000;
        let current = Slot::first_of_day(day0 + 40);
        let actuals = Actuals::from_days(
            &published("FR", day0..day0 + 40),
            actuals_range(current),
            current.offset(-16),
        );
        // Hourly origins over the last 30 days.
        let forecasts: Vec<ArchivedForecast> = (1..=30 * 24)
            .map(|h| issued("FR", current.offset(-4 * h), 0.10))
            .collect();
        let rows = accuracy(&forecasts, &actuals, current, 1);
        assert_eq!(rows.len(), 6, "2 windows × 3 bands");
        let r = &rows[0];
        assert_eq!((r.window_days, r.band_from_h, r.band_to_h), (7, 0, 24));
        // Forecasts of the last 7 days with a final slot in their first day: issued at least
        // 4 h + 15 min before now.
        assert_eq!(r.forecasts, 7 * 24 - 4);
        assert!((r.model.mape.unwrap() - 10.0).abs() < 1e-9, "{:?}", r.model);
        let m = r.model.mae.unwrap();
        assert!((180.0..=320.0).contains(&(m * 10.0)), "MAE {m}");
        assert!((r.model.rank.unwrap() - 1.0).abs() < 1e-9);
        assert!(r.model.regret.unwrap().abs() < 1e-9);
        // Persistence: the truth a day earlier is 0.96 g/kWh lower (96 slots / 100).
        assert!(
            (r.persistence.mae.unwrap() - 0.96).abs() < 1e-4,
            "{:?}",
            r.persistence
        );
        assert!(r.persistence.rank.unwrap() > 0.99);
        // Whole bands only for rank and regret: issued 28 h (24 h and the 4 h not final yet)
        // before now or earlier: origins 28 to 168 hours back.
        assert_eq!(r.ranked, 141);
        assert_eq!(r.first_origin, Some(current.offset(-7 * 96)));
        assert_eq!(r.last_origin, Some(current.offset(-20)));
        // The 30-day window holds more forecasts, with the same errors.
        let w30 = &rows[3];
        assert_eq!((w30.window_days, w30.band_from_h), (30, 0));
        assert_eq!(w30.forecasts, 30 * 24 - 4);
        assert!((w30.model.mape.unwrap() - 10.0).abs() < 1e-9);
        // The 48-96 h band of the 7-day window: forecasts issued 53 hours back or earlier have a
        // final slot there, those 100 hours back or earlier the whole band.
        let far = &rows[2];
        assert_eq!((far.band_from_h, far.band_to_h), (48, 96));
        assert_eq!(far.forecasts, 168 - 52);
        assert_eq!(far.ranked, 168 - 99);
        // A forecast that holds the truth exactly errs by nothing.
        let exact: Vec<ArchivedForecast> = (1..=48)
            .map(|h| issued("FR", current.offset(-4 * h), 0.0))
            .collect();
        let rows = accuracy(&exact, &actuals, current, 1);
        assert_eq!(rows[0].model.mape, Some(0.0));
        assert_eq!(rows[0].model.mae, Some(0.0));
    }

    /// Without actuals nothing is measured, and the rows say so (counts 0, no measures).
    #[test]
    fn too_little_history_gives_empty_rows() {
        let current = Slot::first_of_day(20_040);
        let forecasts = vec![issued("DE", current.offset(-4), 0.1)];
        let rows = accuracy(&forecasts, &Actuals::default(), current, 1);
        assert_eq!(rows.len(), 6);
        for r in rows {
            assert_eq!((r.forecasts, r.points, r.ranked), (0, 0, 0));
            assert_eq!(r.model, Measures::default());
            assert_eq!(r.first_origin, None);
        }
        // A forecast from the future of `current` is not scored at all.
        assert!(
            accuracy(
                &[issued("DE", current, 0.1)],
                &Actuals::default(),
                current,
                1
            )
            .is_empty()
        );
    }
}
