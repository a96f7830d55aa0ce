//! Time in gridprint: 15-minute slots in UTC, and parsing/formatting of the timestamps that users and
//! providers write.
//!
//! A [`Slot`] is the number of 15-minute intervals since the Unix epoch, so slots are plain integers that
//! sort, subtract and index arrays. [`parse_timestamp`] is the one timestamp reader of every route
//! family, the command line and the providers' files: it reads what the reference service's
//! framework reads (speedate: RFC 3339 with `Z` or an offset, fractional seconds, no seconds,
//! naive taken as UTC, a space for the `T`, date-only, Unix seconds or milliseconds) and refuses
//! anything that is not one valid instant (a leap second, an out-of-range field, trailing text).
//! Timestamps are always formatted as `YYYY-MM-DDThh:mm:ssZ`.

use serde::{Deserialize, Serialize};
use std::fmt;
use time::{OffsetDateTime, UtcOffset};

/// Length of one slot in seconds.
pub const SLOT_SECONDS: i64 = 900;
/// Slots in one UTC day.
pub const SLOTS_PER_DAY: i64 = 96;

/// One 15-minute interval, counted from 1970-01-01T00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Slot(pub i64);

impl Slot {
    /// The slot containing the given instant (floor to 15 minutes).
    pub fn containing(t: OffsetDateTime) -> Slot {
        Slot(t.unix_timestamp().div_euclid(SLOT_SECONDS))
    }

    /// The slot starting at the given unix second, if it is on a boundary.
    pub fn from_unix_exact(secs: i64) -> Option<Slot> {
        (secs.rem_euclid(SLOT_SECONDS) == 0).then_some(Slot(secs / SLOT_SECONDS))
    }

    /// Start of the slot as unix seconds.
    pub fn unix(self) -> i64 {
        self.0 * SLOT_SECONDS
    }

    /// Start of the slot as a UTC date-time.
    pub fn start(self) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(self.unix()).expect("slot within time's range")
    }

    /// The day number (days since epoch) the slot lies in.
    pub fn day(self) -> i64 {
        self.0.div_euclid(SLOTS_PER_DAY)
    }

    /// Index of the slot within its UTC day (0..96).
    pub fn index_in_day(self) -> usize {
        self.0.rem_euclid(SLOTS_PER_DAY) as usize
    }

    /// First slot of a day number.
    pub fn first_of_day(day: i64) -> Slot {
        Slot(day * SLOTS_PER_DAY)
    }

    /// The slot `n` slots later (negative: earlier).
    pub fn offset(self, n: i64) -> Slot {
        Slot(self.0 + n)
    }

    /// Month of the slot's start (1..=12), used for monthly AWARE factors.
    pub fn month(self) -> u8 {
        self.start().month() as u8
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_timestamp(self.start()))
    }
}

/// A half-open range of slots `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SlotRange {
    pub start: Slot,
    pub end: Slot,
}

impl SlotRange {
    pub fn new(start: Slot, end: Slot) -> SlotRange {
        SlotRange {
            start,
            end: end.max(start),
        }
    }
    pub fn len(&self) -> usize {
        (self.end.0 - self.start.0).max(0) as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn contains(&self, s: Slot) -> bool {
        s >= self.start && s < self.end
    }
    pub fn iter(&self) -> impl Iterator<Item = Slot> + use<> {
        (self.start.0..self.end.0).map(Slot)
    }
    /// The UTC days (day numbers) this range touches.
    pub fn days(&self) -> std::ops::Range<i64> {
        if self.is_empty() {
            return 0..0;
        }
        self.start.day()..(self.end.0 - 1).div_euclid(SLOTS_PER_DAY) + 1
    }
    /// The parts of this range left when the UTC days it covers whole and for which `take_out`
    /// holds are taken out, and how many days were.
    pub fn without_whole_days(&self, take_out: impl Fn(i64) -> bool) -> (Vec<SlotRange>, usize) {
        let mut parts = Vec::new();
        let mut taken = 0;
        let mut start = self.start;
        for day in self.days() {
            let (first, next) = (Slot::first_of_day(day), Slot::first_of_day(day + 1));
            if self.start <= first && next <= self.end && take_out(day) {
                if start < first {
                    parts.push(SlotRange::new(start, first));
                }
                start = next;
                taken += 1;
            }
        }
        if start < self.end {
            parts.push(SlotRange::new(start, self.end));
        }
        (parts, taken)
    }
    /// Whether the range covers the whole UTC day `day`.
    pub fn covers_day(&self, day: i64) -> bool {
        self.start <= Slot::first_of_day(day) && Slot::first_of_day(day + 1) <= self.end
    }
    /// The range widened to whole UTC days.
    pub fn whole_days(&self) -> SlotRange {
        let d = self.days();
        SlotRange::new(Slot::first_of_day(d.start), Slot::first_of_day(d.end))
    }
    /// The API time-window rule: `[floor15(start), E)` with `E = end` on a boundary, else
    /// `floor15(end) + 15 min`; an empty window becomes exactly one slot.
    pub fn from_window(start: OffsetDateTime, end: OffsetDateTime) -> SlotRange {
        let s = Slot::containing(start);
        let e_secs = end.unix_timestamp();
        let e = if e_secs.rem_euclid(SLOT_SECONDS) == 0 && end.nanosecond() == 0 {
            Slot(e_secs / SLOT_SECONDS)
        } else {
            Slot::containing(end).offset(1)
        };
        if e <= s {
            SlotRange::new(s, s.offset(1))
        } else {
            SlotRange::new(s, e)
        }
    }
}

/// Largest UTC offset accepted in a timestamp (the widest in use, UTC+14:00).
pub const MAX_OFFSET_SECONDS: i32 = 14 * 3600;

/// Longest timestamp read, in bytes; longer input is refused as extra characters.
pub const MAX_TIMESTAMP_BYTES: usize = 64;

/// Why a timestamp was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimestampError {
    /// Not one valid instant; `why` is the reference framework's words for what is wrong (for
    /// `/v1`'s 422 items).
    #[error(
        "invalid timestamp '{input}': {why}; expected ISO 8601 such as 2024-06-15T12:00:00Z, 2024-06-15T14:00+02:00 or 2024-06-15"
    )]
    Unreadable { input: String, why: &'static str },
    /// A UTC offset beyond ±14:00 ([`MAX_OFFSET_SECONDS`]).
    #[error("invalid timestamp '{input}': the UTC offset must lie within -14:00 and +14:00")]
    OffsetOutOfRange { input: String },
}

/// Reads one instant, as the reference service's framework reads a `datetime` query value: a
/// date-time (RFC 3339 / ISO 8601 extended: `T`, `t` or a space; `Z`, `z`, `±hh:mm` or `±hhmm`;
/// seconds and fractions optional, fractions beyond microseconds truncated; no offset: UTC), a date
/// (its midnight, UTC) or a Unix time (seconds, or milliseconds when large). The input is taken as
/// it is (not trimmed). Anything else, and a field out of range (the 30th of February, a leap
/// second `…T12:34:60Z`, hour 24), an offset beyond ±14:00 or trailing text, is an error: never
/// another instant.
pub fn parse_timestamp(input: &str) -> Result<OffsetDateTime, TimestampError> {
    use strum::EnumMessage;
    let shown = || input.chars().take(MAX_TIMESTAMP_BYTES).collect::<String>();
    let fail = |e: speedate::ParseError| TimestampError::Unreadable {
        input: shown(),
        why: e.get_documentation().unwrap_or("invalid datetime"),
    };
    if input.len() > MAX_TIMESTAMP_BYTES {
        return Err(fail(speedate::ParseError::ExtraCharacters));
    }
    let config = speedate::DateTimeConfig {
        time_config: speedate::TimeConfig {
            microseconds_precision_overflow_behavior:
                speedate::MicrosecondsPrecisionOverflowBehavior::Truncate,
            unix_timestamp_offset: Some(0),
        },
        ..Default::default()
    };
    let (date, time) = match speedate::DateTime::parse_str_with_config(input, &config) {
        Ok(dt) => (dt.date, Some(dt.time)),
        Err(_) => match speedate::Date::parse_str(input) {
            Ok(d) => (d, None),
            Err(e) => return Err(fail(e)),
        },
    };
    let out_of_range = || fail(speedate::ParseError::OutOfRangeDay);
    let month = time::Month::try_from(date.month).map_err(|_| out_of_range())?;
    let day = time::Date::from_calendar_date(i32::from(date.year), month, date.day)
        .map_err(|_| out_of_range())?;
    let Some(t) = time else {
        return Ok(day.midnight().assume_utc());
    };
    let clock = time::Time::from_hms_micro(t.hour, t.minute, t.second, t.microsecond)
        .map_err(|_| out_of_range())?;
    let offset = t.tz_offset.unwrap_or(0);
    if offset.abs() > MAX_OFFSET_SECONDS {
        return Err(TimestampError::OffsetOutOfRange { input: shown() });
    }
    let offset = UtcOffset::from_whole_seconds(offset).map_err(|_| out_of_range())?;
    Ok(time::PrimitiveDateTime::new(day, clock)
        .assume_offset(offset)
        .to_offset(UtcOffset::UTC))
}

/// Formats an instant as `YYYY-MM-DDThh:mm:ssZ` in UTC.
pub fn format_timestamp(t: OffsetDateTime) -> String {
    format_at_offset(t, UtcOffset::UTC, "Z")
}

/// Formats an instant as `YYYY-MM-DDThh:mm:ss` at `offset`, followed by `designator` (the offset as
/// written: `Z`, `+03:00`).
pub fn format_at_offset(t: OffsetDateTime, offset: UtcOffset, designator: &str) -> String {
    let t = t.to_offset(offset);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{designator}",
        t.year(),
        t.month() as u8,
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// A source of "now", injectable so tests can move time.
pub trait Clock: Send + Sync {
    fn now(&self) -> OffsetDateTime;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }
}

/// A clock fixed at one instant (tests, reproducible runs).
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub OffsetDateTime);

impl Clock for FixedClock {
    fn now(&self) -> OffsetDateTime {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_users_and_providers_write() {
        let want = parse_timestamp("2024-06-14T22:00:00Z").unwrap();
        for same in [
            "2024-06-14T22:00Z",
            "2024-06-15T00:00:00+02:00",
            "2024-06-15T00:00:00+0200",
            "2024-06-14T22:00:00",
            "2024-06-14 22:00:00",
            "2024-06-14t22:00:00z",
            "2024-06-14T22:00:00.000Z",
            "1718402400",
            "1718402400000",
        ] {
            assert_eq!(parse_timestamp(same).unwrap(), want, "{same}");
        }
        assert_eq!(
            parse_timestamp("2024-06-14T22:00:00.123456789Z").unwrap(),
            want + time::Duration::microseconds(123_456),
            "fractions beyond microseconds are truncated"
        );
        assert_eq!(
            format_timestamp(parse_timestamp("2024-06-15").unwrap()),
            "2024-06-15T00:00:00Z"
        );
    }

    #[test]
    fn anything_but_one_valid_instant_is_refused() {
        for bad in [
            "yesterday",
            "",
            " 2024-06-14T22:00:00Z",
            "2026-12-03T12:34:60Z",
            "2026-12-03T24:00:00Z",
            "2024-02-30T00:00:00Z",
            "2024-06-14T22:00:00Zjunk",
            "2024-06-14 junk",
            "2024-06-14T22Z",
            "20240614T220000Z",
            "2024-W24-6",
        ] {
            assert!(
                matches!(parse_timestamp(bad), Err(TimestampError::Unreadable { .. })),
                "{bad:?}"
            );
        }
        assert!(matches!(
            parse_timestamp("2024-06-14T22:00:00+15:00"),
            Err(TimestampError::OffsetOutOfRange { .. })
        ));
        assert!(parse_timestamp(&"2".repeat(65)).is_err());
    }

    #[test]
    fn window_rule() {
        let t = |s| parse_timestamp(s).unwrap();
        let r = SlotRange::from_window(t("2024-01-01T00:07Z"), t("2024-01-01T00:30Z"));
        assert_eq!(r.start.to_string(), "2024-01-01T00:00:00Z");
        assert_eq!(r.end.to_string(), "2024-01-01T00:30:00Z");
        let r = SlotRange::from_window(t("2024-01-01T00:07Z"), t("2024-01-01T00:31Z"));
        assert_eq!(r.end.to_string(), "2024-01-01T00:45:00Z");
        let r = SlotRange::from_window(t("2024-01-01T00:15Z"), t("2024-01-01T00:15Z"));
        assert_eq!(r.len(), 1);
        let r = SlotRange::new(Slot(95), Slot(97));
        assert_eq!(r.days(), 0..2);
        assert_eq!(r.whole_days(), SlotRange::new(Slot(0), Slot(192)));
    }
}
