//! TSO forecasts as stored: each [`TsoForecastPoint`] with the time it was published, in table
//! `tso_forecast` of both stores (migration 0010), apart from the actual inputs (`input_point`),
//! which they never enter: `/v1/generation` and the compute read only actuals, estimates and the
//! model's forecasts.
//!
//! One row per series, forecast kind and slot. The rule of a write ([`write_changes`]): a value
//! published at the same time or later than the stored one replaces it when it differs (a
//! revision); the same value seen as published earlier moves the publication time back; an older
//! publication of another value changes nothing. Readers ask for the values published before a
//! time ([`InputStore::tso_forecasts_in_range`](crate::InputStore::tso_forecasts_in_range)), which
//! is how a forecast at an origin uses only what was known there. Where next: the import
//! (`gridprint_pipeline::import`) and the forecast's blend (`gridprint_pipeline::forecast::tso`).

use crate::{Result, StoreError};
use gridprint_core::production::ProductionType;
use gridprint_core::slot::Slot;
pub use gridprint_core::tso_forecast::PublishedForecast;
use gridprint_core::tso_forecast::{TsoForecastKind, TsoForecastPoint, TsoForecastSeries};
use gridprint_core::zone::ZoneCode;
use std::collections::HashMap;

/// A stored TSO forecast value with its bookkeeping.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTsoForecast {
    pub forecast: PublishedForecast,
    /// Unix seconds of the last change of the row.
    pub updated_at: i64,
}

/// How stores lay out a [`TsoForecastSeries`]: `kind` (0 generation, 1 load, 2 scheduled
/// generation, 3 scheduled consumption), `zone` and `other` (the production type, or empty).
pub fn series_columns(series: &TsoForecastSeries) -> (i16, &str, &str) {
    match series {
        TsoForecastSeries::Generation {
            zone,
            production_type,
        } => (0, zone.as_str(), production_type.as_str()),
        TsoForecastSeries::Load { zone } => (1, zone.as_str(), ""),
        TsoForecastSeries::ScheduledGeneration { zone } => (2, zone.as_str(), ""),
        TsoForecastSeries::ScheduledConsumption { zone } => (3, zone.as_str(), ""),
    }
}

/// The inverse of [`series_columns`]; a row that fits no series is corrupt.
pub fn series_from_columns(kind: i16, zone: &str, other: &str) -> Result<TsoForecastSeries> {
    let bad = || StoreError::Corrupt(format!("bad TSO forecast series ({kind}, {zone}, {other})"));
    let zone = ZoneCode::parse(zone).ok_or_else(bad)?;
    Ok(match (kind, other) {
        (0, t) => TsoForecastSeries::Generation {
            zone,
            production_type: ProductionType::parse_api(t).ok_or_else(bad)?,
        },
        (1, "") => TsoForecastSeries::Load { zone },
        (2, "") => TsoForecastSeries::ScheduledGeneration { zone },
        (3, "") => TsoForecastSeries::ScheduledConsumption { zone },
        _ => return Err(bad()),
    })
}

/// The stored code of a forecast kind (column `forecast`): 0 day-ahead, 1 intraday, 2 current.
pub fn kind_code(kind: TsoForecastKind) -> i16 {
    match kind {
        TsoForecastKind::DayAhead => 0,
        TsoForecastKind::Intraday => 1,
        TsoForecastKind::Current => 2,
    }
}

/// The inverse of [`kind_code`].
pub fn kind_from_code(code: i16) -> Result<TsoForecastKind> {
    match code {
        0 => Ok(TsoForecastKind::DayAhead),
        1 => Ok(TsoForecastKind::Intraday),
        2 => Ok(TsoForecastKind::Current),
        _ => Err(StoreError::Corrupt(format!("bad TSO forecast kind {code}"))),
    }
}

/// The columns of a value about to be stored: `(slot, kind, zone, other, forecast)`; a value that
/// is not finite and non-negative is refused.
pub fn storable(f: &PublishedForecast) -> Result<(i64, i16, &str, &str, i16)> {
    let p = &f.point;
    if !(p.mw.is_finite() && p.mw >= 0.0) {
        return Err(StoreError::Other(format!(
            "TSO forecast {:?} {:?} at {}: {} MW is not a finite, non-negative power",
            p.series, p.kind, p.slot, p.mw
        )));
    }
    let (kind, zone, other) = series_columns(&p.series);
    Ok((p.slot.0, kind, zone, other, kind_code(p.kind)))
}

/// Whether writing `new` changes the stored `(mw, published_at)` of its row: a different value
/// published at the same time or later (a revision), or the same value published earlier. The
/// rule both stores state in SQL.
pub fn write_changes(stored: (f64, i64), new: &PublishedForecast) -> bool {
    let (mw, published_at) = stored;
    if new.point.mw == mw {
        new.published_at < published_at
    } else {
        new.published_at >= published_at
    }
}

/// The values of `batch` a write in order would end with, one per row and in key order (a store
/// that writes a batch in one statement cannot touch a row twice).
pub fn last_per_row(batch: &[PublishedForecast]) -> Result<Vec<&PublishedForecast>> {
    type Row<'a> = (i64, i16, &'a str, &'a str, i16);
    let mut rows: HashMap<Row<'_>, &PublishedForecast> = HashMap::new();
    for f in batch {
        let key = storable(f)?;
        rows.entry(key)
            .and_modify(|held| {
                if write_changes((held.point.mw, held.published_at), f) {
                    *held = f;
                }
            })
            .or_insert(f);
    }
    let mut out: Vec<(Row<'_>, &PublishedForecast)> = rows.into_iter().collect();
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(out.into_iter().map(|(_, f)| f).collect())
}

/// A stored row back as a value; columns that fit no series or kind are corrupt.
#[allow(clippy::too_many_arguments)]
pub fn from_row(
    slot: i64,
    kind: i16,
    zone: &str,
    other: &str,
    forecast: i16,
    mw: f64,
    published_at: i64,
    updated_at: i64,
) -> Result<StoredTsoForecast> {
    Ok(StoredTsoForecast {
        forecast: PublishedForecast {
            point: TsoForecastPoint {
                series: series_from_columns(kind, zone, other)?,
                kind: kind_from_code(forecast)?,
                slot: Slot(slot),
                mw,
            },
            published_at,
        },
        updated_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wind(mw: f64, published_at: i64) -> PublishedForecast {
        PublishedForecast {
            point: TsoForecastPoint {
                series: TsoForecastSeries::Generation {
                    zone: ZoneCode::parse("DK1").unwrap(),
                    production_type: ProductionType::WindOffshore,
                },
                kind: TsoForecastKind::DayAhead,
                slot: Slot(10),
                mw,
            },
            published_at,
        }
    }

    #[test]
    fn columns_round_trip_and_bad_rows_are_corrupt() {
        let zone = ZoneCode::parse("DK2").unwrap();
        for series in [
            wind(1.0, 0).point.series,
            TsoForecastSeries::Load { zone: zone.clone() },
            TsoForecastSeries::ScheduledGeneration { zone: zone.clone() },
            TsoForecastSeries::ScheduledConsumption { zone },
        ] {
            let (k, z, o) = series_columns(&series);
            assert_eq!(series_from_columns(k, z, o).unwrap(), series);
        }
        for kind in [
            TsoForecastKind::DayAhead,
            TsoForecastKind::Intraday,
            TsoForecastKind::Current,
        ] {
            assert_eq!(kind_from_code(kind_code(kind)).unwrap(), kind);
        }
        assert!(series_from_columns(1, "DK1", "solar").is_err());
        assert!(series_from_columns(4, "DK1", "").is_err());
        assert!(series_from_columns(0, "DK1", "fusion").is_err());
        assert!(kind_from_code(3).is_err());
    }

    #[test]
    fn a_later_revision_replaces_an_older_one_never_the_reverse() {
        assert!(write_changes((5.0, 100), &wind(6.0, 100)));
        assert!(write_changes((5.0, 100), &wind(6.0, 200)));
        assert!(!write_changes((5.0, 100), &wind(6.0, 50)));
        assert!(!write_changes((5.0, 100), &wind(5.0, 100)));
        assert!(!write_changes((5.0, 100), &wind(5.0, 200)));
        assert!(write_changes((5.0, 100), &wind(5.0, 50)));
    }

    #[test]
    fn a_batch_keeps_what_an_ordered_write_ends_with_and_refuses_bad_values() {
        let batch = [
            wind(1.0, 100),
            wind(2.0, 200),
            wind(3.0, 150),
            wind(2.0, 120),
        ];
        let last = last_per_row(&batch).unwrap();
        assert_eq!(last, [&wind(2.0, 120)]);
        assert!(storable(&wind(f64::NAN, 1)).is_err());
        assert!(storable(&wind(-1.0, 1)).is_err());
    }
}
