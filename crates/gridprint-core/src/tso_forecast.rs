//! TSO forecasts: the day-ahead, intraday and current forecasts the transmission system operators
//! publish on the ENTSO-E Transparency Platform, kept apart from the actual values
//! ([`InputPoint`](crate::inputs::InputPoint)) so that a forecast is never taken for a measurement.
//!
//! A [`TsoForecastPoint`] names its series ([`TsoForecastSeries`]: wind or solar generation of a
//! type, total load, or the zone's scheduled generation or consumption), its [`TsoForecastKind`], its
//! 15-minute slot and its value in MW. The website's exports carry no publication time, so
//! [`PublicationDeadlines`] gives the latest time ENTSO-E's rules (Regulation (EU) No 543/2013,
//! Articles 6.2(b), 14.2(c) and 14.2(d)) allow for each forecast of a delivery slot: a model that
//! forecasts at an origin may use only the values whose deadline lies before it. Deadlines are
//! Brussels local times; [`brussels_offset`] is the EU summer-time rule (exact from 1996 on).
//!
//! Read by `gridprint_ingest::transparency_csv` and the ENTSO-E and Elexon clients, dated by
//! [`PublicationDeadlines::published_by`] (Elexon stamps its own), stored with their publication
//! time ([`PublishedForecast`]) by `gridprint_store::tso`. A second caller of Brussels local time
//! should move [`brussels_offset`] next to the slot code in `slot.rs`.

use crate::inputs::InputKey;
use crate::production::ProductionType;
use crate::slot::Slot;
use crate::zone::ZoneCode;
use serde::{Deserialize, Serialize};
use time::{Date, Duration, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

/// Which series a TSO forecast is of.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TsoForecastSeries {
    /// Wind or solar generation of one production type (data view 14.1.D, document A69).
    Generation {
        zone: ZoneCode,
        production_type: ProductionType,
    },
    /// Total load (6.1.B, document A65 with processType A01).
    Load { zone: ZoneCode },
    /// The zone's total scheduled generation, all production types together (14.1.C, document A71).
    ScheduledGeneration { zone: ZoneCode },
    /// The scheduled consumption the same view shows beside it (14.1.C, document A71).
    ScheduledConsumption { zone: ZoneCode },
}

impl TsoForecastSeries {
    /// The zone the forecast is for.
    pub fn zone(&self) -> &ZoneCode {
        match self {
            TsoForecastSeries::Generation { zone, .. }
            | TsoForecastSeries::Load { zone }
            | TsoForecastSeries::ScheduledGeneration { zone }
            | TsoForecastSeries::ScheduledConsumption { zone } => zone,
        }
    }

    /// The actual series this forecasts, to compare a forecast with what happened; `None` for the
    /// scheduled totals, which no actual series of gridprint matches.
    pub fn input_key(&self) -> Option<InputKey> {
        match self {
            TsoForecastSeries::Generation {
                zone,
                production_type,
            } => Some(InputKey::Generation {
                zone: zone.clone(),
                production_type: *production_type,
            }),
            TsoForecastSeries::Load { zone } => Some(InputKey::Load { zone: zone.clone() }),
            TsoForecastSeries::ScheduledGeneration { .. }
            | TsoForecastSeries::ScheduledConsumption { .. } => None,
        }
    }
}

/// Which of a TSO's forecasts for a slot a value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TsoForecastKind {
    /// The day-ahead forecast (processType A01; for A71 the only one).
    DayAhead,
    /// The intraday forecast of wind and solar (processType A40).
    Intraday,
    /// The current forecast of wind and solar (processType A18): updated continuously, the export
    /// keeps its last version, which may date from after the slot began.
    Current,
}

/// One TSO forecast value of one series in one slot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TsoForecastPoint {
    pub series: TsoForecastSeries,
    pub kind: TsoForecastKind,
    pub slot: Slot,
    /// Power in MW, finite and non-negative.
    pub mw: f64,
}

impl TsoForecastPoint {
    /// [`PublicationDeadlines::publication_time`] of this point.
    pub fn publication_time(&self, deadlines: &PublicationDeadlines) -> Option<OffsetDateTime> {
        deadlines.publication_time(&self.series, self.kind, self.slot)
    }
}

/// A TSO forecast value and when it was published (at the latest).
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedForecast {
    pub point: TsoForecastPoint,
    /// Unix seconds of the publication (at the latest).
    pub published_at: i64,
}

/// A publication deadline: a Brussels local time of day, `days_before` the delivery day (the
/// Brussels date of the slot's start).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Deadline {
    pub days_before: u8,
    pub at: Time,
}

/// The publication deadline of each forecast that has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicationDeadlines {
    /// Day-ahead total load (A65 A01).
    pub load_day_ahead: Deadline,
    /// Day-ahead wind and solar (A69 A01).
    pub wind_solar_day_ahead: Deadline,
    /// Intraday wind and solar (A69 A40).
    pub wind_solar_intraday: Deadline,
    /// Scheduled generation and consumption (A71).
    pub scheduled_day_ahead: Deadline,
}

impl PublicationDeadlines {
    /// The deadlines of Regulation (EU) No 543/2013:
    ///
    /// - day-ahead load, Art. 6.2(b): "no later than two hours before the gate closure of the
    ///   day-ahead market in the bidding zone". The single day-ahead coupling closes at 12:00
    ///   Brussels time on the day before delivery, so 10:00 the day before (not 12:00);
    /// - day-ahead wind and solar, Art. 14.2(d), and scheduled generation, Art. 14.2(c): "no later
    ///   than 18.00 Brussels time, one day before actual delivery";
    /// - intraday wind and solar, Art. 14.2(d): "regularly updated … during intraday trading with
    ///   at least one update to be published at 8.00 Brussels time on the day of actual delivery".
    ///   The 08:00 update is the one every TSO must publish, so it is the one assumed; for the slots
    ///   before 08:00 that time lies after their start, and such a value is no forecast at any
    ///   origin before delivery (the DK files have intraday values for those hours only from
    ///   October 2023 on).
    ///
    /// The current forecast has no deadline (see [`PublicationDeadlines::publication_time`]).
    pub const REGULATION: PublicationDeadlines = PublicationDeadlines {
        load_day_ahead: Deadline {
            days_before: 1,
            at: time::macros::time!(10:00),
        },
        wind_solar_day_ahead: Deadline {
            days_before: 1,
            at: time::macros::time!(18:00),
        },
        wind_solar_intraday: Deadline {
            days_before: 0,
            at: time::macros::time!(08:00),
        },
        scheduled_day_ahead: Deadline {
            days_before: 1,
            at: time::macros::time!(18:00),
        },
    };

    /// The deadline of a forecast, if it has one: `None` for [`TsoForecastKind::Current`] (updated
    /// until and after delivery; the export keeps only its last version) and for kinds ENTSO-E does
    /// not publish for the series (intraday or current load and scheduled values).
    pub fn deadline(&self, series: &TsoForecastSeries, kind: TsoForecastKind) -> Option<Deadline> {
        match (series, kind) {
            (TsoForecastSeries::Load { .. }, TsoForecastKind::DayAhead) => {
                Some(self.load_day_ahead)
            }
            (TsoForecastSeries::Generation { .. }, TsoForecastKind::DayAhead) => {
                Some(self.wind_solar_day_ahead)
            }
            (TsoForecastSeries::Generation { .. }, TsoForecastKind::Intraday) => {
                Some(self.wind_solar_intraday)
            }
            (
                TsoForecastSeries::ScheduledGeneration { .. }
                | TsoForecastSeries::ScheduledConsumption { .. },
                TsoForecastKind::DayAhead,
            ) => Some(self.scheduled_day_ahead),
            _ => None,
        }
    }

    /// The latest time (UTC) by which the forecast of `kind` for `series` in `slot` had to be
    /// published: its [`Deadline`] on the Brussels delivery day of `slot`; `None` when
    /// [`PublicationDeadlines::deadline`] gives none.
    pub fn publication_time(
        &self,
        series: &TsoForecastSeries,
        kind: TsoForecastKind,
        slot: Slot,
    ) -> Option<OffsetDateTime> {
        let deadline = self.deadline(series, kind)?;
        let start = slot.start();
        let delivery_day = start.to_offset(brussels_offset(start)).date();
        let day = delivery_day.checked_sub(Duration::days(i64::from(deadline.days_before)))?;
        Some(brussels_to_utc(day, deadline.at))
    }

    /// The one rule that dates an ENTSO-E forecast value, whether a website export gave it (no
    /// time: `seen_by` is `None`) or an API document (`seen_by`: its `createdDateTime`): its
    /// [`PublicationDeadlines::publication_time`], or `seen_by` when that is earlier (a value in a
    /// document was published by the time the document was made). `None` when neither is known.
    pub fn published_by(
        &self,
        point: TsoForecastPoint,
        seen_by: Option<OffsetDateTime>,
    ) -> Option<PublishedForecast> {
        let at = match (point.publication_time(self), seen_by) {
            (Some(d), Some(s)) => d.min(s),
            (d, s) => d.or(s)?,
        };
        Some(PublishedForecast {
            point,
            published_at: at.unix_timestamp(),
        })
    }
}

/// Brussels' UTC offset at `t`: CEST (+02:00) from 01:00 UTC on the last Sunday of March to 01:00
/// UTC on the last Sunday of October, CET (+01:00) otherwise. That is the EU rule (Directive
/// 2000/84/EC, the same since 1996); no time-zone database is in the workspace, and this one rule is
/// all the Transparency Platform's deadlines need.
pub fn brussels_offset(t: OffsetDateTime) -> UtcOffset {
    let year = t.to_offset(UtcOffset::UTC).year();
    let change = |month| {
        last_sunday(year, month)
            .with_time(time::macros::time!(01:00))
            .assume_utc()
    };
    if change(Month::March) <= t && t < change(Month::October) {
        time::macros::offset!(+2)
    } else {
        time::macros::offset!(+1)
    }
}

/// The UTC instant of a Brussels local date and time. A time the spring change skips (02:00–03:00)
/// and one the autumn change repeats are both read as CET, the later instant.
pub fn brussels_to_utc(date: Date, at: Time) -> OffsetDateTime {
    let local = PrimitiveDateTime::new(date, at);
    let winter = local.assume_offset(time::macros::offset!(+1));
    let summer = local.assume_offset(time::macros::offset!(+2));
    if brussels_offset(winter) != time::macros::offset!(+1)
        && brussels_offset(summer) == time::macros::offset!(+2)
    {
        summer.to_offset(UtcOffset::UTC)
    } else {
        winter.to_offset(UtcOffset::UTC)
    }
}

/// The last Sunday of a month of 31 days (March, October).
fn last_sunday(year: i32, month: Month) -> Date {
    let last = Date::from_calendar_date(year, month, 31).expect("March and October have 31 days");
    last - Duration::days(i64::from(last.weekday().number_days_from_sunday()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::{format_timestamp, parse_timestamp};

    fn slot(ts: &str) -> Slot {
        Slot::containing(parse_timestamp(ts).unwrap())
    }

    fn published(series: &TsoForecastSeries, kind: TsoForecastKind, ts: &str) -> Option<String> {
        PublicationDeadlines::REGULATION
            .publication_time(series, kind, slot(ts))
            .map(format_timestamp)
    }

    fn dk1() -> ZoneCode {
        ZoneCode::parse("DK1").unwrap()
    }

    fn wind() -> TsoForecastSeries {
        TsoForecastSeries::Generation {
            zone: dk1(),
            production_type: ProductionType::WindOnshore,
        }
    }

    #[test]
    fn brussels_summer_time_changes_at_one_utc_on_the_last_sundays() {
        let at = |ts: &str| brussels_offset(parse_timestamp(ts).unwrap()).whole_hours();
        assert_eq!(at("2023-03-26T00:59:59Z"), 1);
        assert_eq!(at("2023-03-26T01:00:00Z"), 2);
        assert_eq!(at("2023-10-29T00:59:59Z"), 2);
        assert_eq!(at("2023-10-29T01:00:00Z"), 1);
        assert_eq!(at("2024-03-31T01:00:00Z"), 2);
        assert_eq!(at("2024-10-27T00:30:00Z"), 2);
        assert_eq!(at("2025-01-01T00:00:00Z"), 1);
        assert_eq!(at("2025-07-01T00:00:00Z"), 2);
        let utc = |d: Date, t: Time| format_timestamp(brussels_to_utc(d, t));
        let d = |y, m, day| Date::from_calendar_date(y, m, day).unwrap();
        assert_eq!(
            utc(d(2023, Month::March, 26), time::macros::time!(01:30)),
            "2023-03-26T00:30:00Z"
        );
        // skipped by the spring change: read as CET
        assert_eq!(
            utc(d(2023, Month::March, 26), time::macros::time!(02:30)),
            "2023-03-26T01:30:00Z"
        );
        assert_eq!(
            utc(d(2023, Month::March, 26), time::macros::time!(03:00)),
            "2023-03-26T01:00:00Z"
        );
        // repeated by the autumn change: the later (CET) instant
        assert_eq!(
            utc(d(2023, Month::October, 29), time::macros::time!(02:30)),
            "2023-10-29T01:30:00Z"
        );
        assert_eq!(
            utc(d(2023, Month::October, 29), time::macros::time!(01:59)),
            "2023-10-28T23:59:00Z"
        );
    }

    #[test]
    fn day_ahead_wind_and_solar_by_18_00_brussels_the_day_before() {
        let da = TsoForecastKind::DayAhead;
        // winter: delivery day 2023-01-10 (Brussels) → 2023-01-09T18:00+01:00
        assert_eq!(
            published(&wind(), da, "2023-01-10T12:00Z").as_deref(),
            Some("2023-01-09T17:00:00Z")
        );
        // 23:00 UTC on 9 January is already 10 January in Brussels
        assert_eq!(
            published(&wind(), da, "2023-01-09T23:00Z").as_deref(),
            Some("2023-01-09T17:00:00Z")
        );
        assert_eq!(
            published(&wind(), da, "2023-01-09T22:45Z").as_deref(),
            Some("2023-01-08T17:00:00Z")
        );
        // the spring change day (23 hours): it starts at 23:00 UTC, the day before is still CET
        assert_eq!(
            published(&wind(), da, "2023-03-25T23:00Z").as_deref(),
            Some("2023-03-25T17:00:00Z")
        );
        // the day after it: deadline at 18:00 CEST
        assert_eq!(
            published(&wind(), da, "2023-03-26T22:00Z").as_deref(),
            Some("2023-03-26T16:00:00Z")
        );
        // the autumn change day (25 hours): starts at 22:00 UTC, ends at 23:00 UTC
        assert_eq!(
            published(&wind(), da, "2023-10-28T22:00Z").as_deref(),
            Some("2023-10-28T16:00:00Z")
        );
        assert_eq!(
            published(&wind(), da, "2023-10-29T22:45Z").as_deref(),
            Some("2023-10-28T16:00:00Z")
        );
        assert_eq!(
            published(&wind(), da, "2023-10-29T23:00Z").as_deref(),
            Some("2023-10-29T17:00:00Z")
        );
        let scheduled = TsoForecastSeries::ScheduledGeneration { zone: dk1() };
        assert_eq!(
            published(&scheduled, da, "2023-04-18T10:00Z").as_deref(),
            Some("2023-04-17T16:00:00Z")
        );
    }

    #[test]
    fn day_ahead_load_two_hours_before_the_day_ahead_gate_closure() {
        let load = TsoForecastSeries::Load { zone: dk1() };
        assert_eq!(
            published(&load, TsoForecastKind::DayAhead, "2023-10-29T12:00Z").as_deref(),
            Some("2023-10-28T08:00:00Z")
        );
        assert_eq!(
            published(&load, TsoForecastKind::DayAhead, "2023-01-10T00:00Z").as_deref(),
            Some("2023-01-09T09:00:00Z")
        );
        assert_eq!(
            published(&load, TsoForecastKind::Intraday, "2023-01-10T00:00Z"),
            None
        );
    }

    #[test]
    fn intraday_at_8_brussels_on_the_delivery_day_and_current_has_no_deadline() {
        let id = TsoForecastKind::Intraday;
        // the first intraday hour of 25 and 26 March 2023 in the DK1 file: 07:00 and 06:00 UTC
        assert_eq!(
            published(&wind(), id, "2023-03-25T07:00Z").as_deref(),
            Some("2023-03-25T07:00:00Z")
        );
        assert_eq!(
            published(&wind(), id, "2023-03-26T06:00Z").as_deref(),
            Some("2023-03-26T06:00:00Z")
        );
        // an hour before 08:00: published after it began
        assert_eq!(
            published(&wind(), id, "2023-03-26T05:00Z").as_deref(),
            Some("2023-03-26T06:00:00Z")
        );
        assert_eq!(
            published(&wind(), TsoForecastKind::Current, "2023-03-26T06:00Z"),
            None
        );
        let point = TsoForecastPoint {
            series: wind(),
            kind: id,
            slot: slot("2023-03-26T12:00Z"),
            mw: 1.0,
        };
        assert_eq!(
            point
                .publication_time(&PublicationDeadlines::REGULATION)
                .map(format_timestamp)
                .as_deref(),
            Some("2023-03-26T06:00:00Z")
        );
    }

    #[test]
    fn published_by_the_deadline_or_when_seen_if_earlier() {
        let point = TsoForecastPoint {
            series: wind(),
            kind: TsoForecastKind::DayAhead,
            slot: slot("2023-01-10T12:00Z"),
            mw: 1.0,
        };
        let r = PublicationDeadlines::REGULATION;
        let at = |seen: Option<&str>| {
            r.published_by(point.clone(), seen.map(|s| parse_timestamp(s).unwrap()))
                .map(|p| p.published_at)
        };
        let deadline = parse_timestamp("2023-01-09T17:00Z")
            .unwrap()
            .unix_timestamp();
        assert_eq!(at(None), Some(deadline));
        assert_eq!(at(Some("2023-01-09T20:00Z")), Some(deadline));
        assert_eq!(
            at(Some("2023-01-09T11:30Z")),
            Some(deadline - 5 * 3600 - 1800)
        );
        let current = TsoForecastPoint {
            kind: TsoForecastKind::Current,
            ..point.clone()
        };
        assert_eq!(r.published_by(current.clone(), None), None);
        assert!(
            r.published_by(current, Some(parse_timestamp("2023-01-10T12:20Z").unwrap()))
                .is_some()
        );
    }

    #[test]
    fn deadlines_are_parameters() {
        let later = PublicationDeadlines {
            load_day_ahead: Deadline {
                days_before: 1,
                at: time::macros::time!(12:00),
            },
            ..PublicationDeadlines::REGULATION
        };
        let load = TsoForecastSeries::Load { zone: dk1() };
        assert_eq!(
            later
                .publication_time(&load, TsoForecastKind::DayAhead, slot("2023-06-02T10:00Z"))
                .map(format_timestamp)
                .as_deref(),
            Some("2023-06-01T10:00:00Z")
        );
    }

    #[test]
    fn series_know_their_zone_and_actual_key() {
        assert_eq!(wind().zone(), &dk1());
        assert_eq!(
            wind().input_key(),
            Some(InputKey::Generation {
                zone: dk1(),
                production_type: ProductionType::WindOnshore
            })
        );
        assert_eq!(
            TsoForecastSeries::Load { zone: dk1() }.input_key(),
            Some(InputKey::Load { zone: dk1() })
        );
        assert_eq!(
            TsoForecastSeries::ScheduledConsumption { zone: dk1() }.input_key(),
            None
        );
    }
}
