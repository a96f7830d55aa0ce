//! `/forecast-accuracy`: how far off the forecasts gridprint issued were, per zone, over the
//! forecasts of the last 7 and 30 days, per horizon band (0–24, 24–48, 48–96 h), beside
//! persistence — MAPE, MAE, rank correlation and the 3-hour regret.
//!
//! The worker computes the figures once an hour from its forecast archive and the actuals that came
//! in since (`gridprint_pipeline::forecast::accuracy`); the cache holds the stored rows
//! ([`DataCache::forecast_accuracy`]) and this endpoint only reads them, publishing a band's figures
//! once [`MIN_FORECASTS`] forecasts have been compared, and saying in plain words what is missing
//! before that.

use super::{EndpointDef, RequestedWindow};
use crate::cache::DataCache;
use crate::error::QueryError;
use crate::params::{ParseContext, ZoneSelection, selection};
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{Slot, format_timestamp};
use gridprint_core::zone::ZoneCode;
use gridprint_responses::ForecastAccuracy;
use gridprint_responses::query::ForecastAccuracyQuery;
use gridprint_store::AccuracyRow;
use time::OffsetDateTime;

/// Forecasts a band needs compared before its figures are published (a day of hourly forecasts).
pub const MIN_FORECASTS: u64 = 24;
/// The windows of days and the horizon bands (hours) every zone answers, in order.
pub const WINDOWS_DAYS: [u32; 2] = [7, 30];
pub const BANDS_HOURS: [(u32, u32); 3] = [(0, 24), (24, 48), (48, 96)];

/// `/forecast-accuracy`: the zones asked for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ForecastAccuracyRequest {
    pub zones: ZoneSelection,
}

impl RequestedWindow for ForecastAccuracyRequest {
    fn requested_window(&self) -> Option<(OffsetDateTime, OffsetDateTime)> {
        None
    }
}

fn stamp(s: Option<Slot>) -> Option<String> {
    s.map(|s| format_timestamp(s.start()))
}

/// "the next 24 hours", "24 to 48 hours ahead".
fn horizon_words(from: u32, to: u32) -> String {
    if from == 0 {
        format!("the next {to} hours")
    } else {
        format!("{from} to {to} hours ahead")
    }
}

/// The plain-words note of one row.
fn note(row: Option<&AccuracyRow>, window_days: u32, from: u32, to: u32, unit: &str) -> String {
    let what = format!("the forecast for {}", horizon_words(from, to));
    let Some(r) = row else {
        return format!(
            "Too little archived yet: no forecast of this zone has been archived or compared with \
             what happened (the worker archives one an hour and publishes {what} once \
             {MIN_FORECASTS} of them have been compared)."
        );
    };
    if (r.forecasts as u64) < MIN_FORECASTS {
        return format!(
            "Too little archived yet: {} of the forecasts issued in the last {window_days} days \
             could be compared with what happened {}; the figures are published from \
             {MIN_FORECASTS} on.",
            r.forecasts,
            horizon_words(from, to).replace("the next", "over the next")
        );
    }
    let m = &r.model;
    let mut s = format!("Over the last {window_days} days {what} was off by");
    match (m.mape, m.mae) {
        (Some(p), Some(a)) => s += &format!(" {p:.1} % on average ({a:.1} {unit})"),
        (None, Some(a)) => s += &format!(" {a:.1} {unit} on average"),
        _ => s += " an unknown amount",
    }
    if let Some(p) = r.persistence.mape {
        s += &format!("; the same time on the last known day would have been off by {p:.1} %");
    }
    s.push('.');
    s
}

/// One zone's six items (windows × bands) from `rows`, the cache's accuracy rows.
fn items(zone: &ZoneCode, rows: &[AccuracyRow]) -> Vec<ForecastAccuracy> {
    let unit = FootprintType::Carbon.unit();
    let mut out = Vec::with_capacity(WINDOWS_DAYS.len() * BANDS_HOURS.len());
    for w in WINDOWS_DAYS {
        for (from, to) in BANDS_HOURS {
            let row = rows.iter().find(|r| {
                r.zone == *zone && r.window_days == i64::from(w) && r.band_from_h == i64::from(from)
            });
            let enough = row.is_some_and(|r| r.forecasts as u64 >= MIN_FORECASTS);
            let ranked = enough && row.is_some_and(|r| r.ranked as u64 >= MIN_FORECASTS);
            let fig = |v: Option<f64>| if enough { v } else { None };
            let rank = |v: Option<f64>| if ranked { v } else { None };
            let count = |f: fn(&AccuracyRow) -> i64| row.map_or(0, |r| f(r).max(0) as u64);
            out.push(ForecastAccuracy {
                zone: zone.clone(),
                footprint_type: FootprintType::Carbon,
                scope: Scope::LifeCycle,
                unit,
                window_days: w,
                horizon_from_hours: from,
                horizon_to_hours: to,
                enough_data: enough,
                forecasts: count(|r| r.forecasts),
                points: count(|r| r.points),
                complete_forecasts: count(|r| r.ranked),
                first_forecast: stamp(row.and_then(|r| r.first_origin)),
                last_forecast: stamp(row.and_then(|r| r.last_origin)),
                computed_at: row
                    .and_then(|r| OffsetDateTime::from_unix_timestamp(r.computed_at).ok())
                    .map(format_timestamp),
                mape_percent: fig(row.and_then(|r| r.model.mape)),
                mae: fig(row.and_then(|r| r.model.mae)),
                rank_correlation: rank(row.and_then(|r| r.model.rank)),
                regret_percent: rank(row.and_then(|r| r.model.regret)),
                persistence_mape_percent: fig(row.and_then(|r| r.persistence.mape)),
                persistence_mae: fig(row.and_then(|r| r.persistence.mae)),
                persistence_rank_correlation: rank(row.and_then(|r| r.persistence.rank)),
                persistence_regret_percent: rank(row.and_then(|r| r.persistence.regret)),
                note: note(row, w, from, to, unit),
            });
        }
    }
    out
}

/// `/forecast-accuracy`: six items per zone asked for (every zone when none is named), by zone.
pub fn forecast_accuracy(
    cache: &DataCache,
    req: &ForecastAccuracyRequest,
) -> Vec<ForecastAccuracy> {
    let zones = &cache.reference().zones;
    let rows = cache.forecast_accuracy();
    req.zones
        .indices(zones)
        .into_iter()
        .flat_map(|i| items(zones.code(i), rows))
        .collect()
}

/// `/forecast-accuracy`: location (`zone` or `lat`/`lon`) only.
pub struct ForecastAccuracyEndpoint;

impl EndpointDef for ForecastAccuracyEndpoint {
    type Query = ForecastAccuracyQuery;
    type Request = ForecastAccuracyRequest;
    type Response = Vec<ForecastAccuracy>;
    const DOCS: &'static str = "How far off gridprint's forecast has been: per zone, over the forecasts issued in the last 7 and 30 days, 0–24, 24–48 and 48–96 hours ahead, the MAPE, MAE, rank correlation and 3-hour regret of the carbon footprint (global, life-cycle), beside persistence.\n\nThe worker archives the forecast it issues once an hour and compares it with the published footprint once final and complete; it recomputes these figures every hour (never on a request). Six items per zone (2 windows × 3 bands). A band's figures are published once 24 forecasts have been compared (`enough_data`), the rank correlation and regret once 24 forecasts' whole band has happened; until then they are `null` and `note` says what is missing. docs/methodology.md §9 has the method.";

    fn request(
        q: ForecastAccuracyQuery,
        ctx: &ParseContext<'_>,
    ) -> Result<ForecastAccuracyRequest, QueryError> {
        Ok(ForecastAccuracyRequest {
            zones: selection(&q.location, ctx)?,
        })
    }

    fn answer(
        cache: &DataCache,
        req: &ForecastAccuracyRequest,
    ) -> Result<Vec<ForecastAccuracy>, QueryError> {
        Ok(forecast_accuracy(cache, req))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridprint_store::forecast::Measures;

    fn z(s: &str) -> ZoneCode {
        ZoneCode::parse(s).unwrap()
    }

    fn row(forecasts: i64, ranked: i64) -> AccuracyRow {
        AccuracyRow {
            zone: z("FR"),
            window_days: 30,
            band_from_h: 0,
            band_to_h: 24,
            computed_at: 1_780_000_000,
            first_origin: Some(Slot(1_977_000)),
            last_origin: Some(Slot(1_977_900)),
            forecasts,
            points: forecasts * 90,
            ranked,
            model: Measures {
                mape: Some(11.84),
                mae: Some(8.4),
                rank: Some(0.56),
                regret: Some(5.9),
            },
            persistence: Measures {
                mape: Some(15.0),
                mae: Some(10.7),
                rank: Some(0.43),
                regret: Some(8.6),
            },
        }
    }

    #[test]
    fn figures_are_published_once_enough_forecasts_were_compared() {
        let got = items(&z("FR"), &[row(700, 690)]);
        assert_eq!(got.len(), 6);
        let i = got
            .iter()
            .position(|a| a.window_days == 30 && a.horizon_from_hours == 0)
            .unwrap();
        let a = &got[i];
        assert!(a.enough_data);
        assert_eq!(
            (a.forecasts, a.points, a.complete_forecasts),
            (700, 63_000, 690)
        );
        assert_eq!(a.mape_percent, Some(11.84));
        assert_eq!(a.persistence_regret_percent, Some(8.6));
        assert_eq!(a.unit, "gCO2/kWh");
        assert!(
            a.note.starts_with(
                "Over the last 30 days the forecast for the next 24 hours was off by 11.8 % on average (8.4 gCO2/kWh)"
            ),
            "{}",
            a.note
        );
        // The other bands and windows have no row: nothing archived for them, said so.
        let other = &got[0];
        assert!(!other.enough_data && other.mape_percent.is_none() && other.forecasts == 0);
        assert!(
            other.note.starts_with("Too little archived yet"),
            "{}",
            other.note
        );
    }

    #[test]
    fn too_few_forecasts_publish_no_figure_and_say_how_many() {
        let a = &items(&z("FR"), &[row(5, 0)])[3];
        assert_eq!((a.window_days, a.horizon_from_hours), (30, 0));
        assert!(!a.enough_data);
        assert_eq!(a.forecasts, 5);
        assert!(a.mape_percent.is_none() && a.persistence_mae.is_none());
        assert!(a.note.contains("5 of the forecasts"), "{}", a.note);
        // Enough forecasts, but too few whole bands: no rank correlation or regret yet.
        let b = &items(&z("FR"), &[row(30, 3)])[3];
        assert!(b.enough_data && b.mape_percent.is_some());
        assert!(b.rank_correlation.is_none() && b.persistence_regret_percent.is_none());
    }
}
