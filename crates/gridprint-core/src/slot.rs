//! Time in gridprint: 15-minute slots in UTC, and parsing/formatting of the timestamps that users and
//! providers write.
//!
//! A [`Slot`] is the number of 15-minute intervals since the Unix epoch, so slots are plain integers that
//! sort, subtract and index arrays. Timestamps are parsed leniently (ENTSO-E's `2024-06-14T22:00Z`,
//! RFC 3339 with offsets, naive date-times taken as UTC, date-only) and always formatted as
//! `YYYY-MM-DDThh:mm:ssZ`.

use serde::{Deserialize, Serialize};
use std::fmt;
use time::{
    Date, OffsetDateTime, PrimitiveDateTime, UtcOffset, format_description::well_known::Iso8601,
};

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

/// Error for a timestamp that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid timestamp '{0}': expected ISO 8601 such as 2024-06-15T12:00:00Z, 2024-06-15T14:00+02:00 or 2024-06-15"
)]
pub struct TimestampError(pub String);

/// Parses ISO 8601 leniently: with `Z` or an offset (converted to UTC), without seconds
/// (`2024-06-14T22:00Z`), naive (taken as UTC), with a space instead of `T`, or date-only (midnight UTC).
pub fn parse_timestamp(input: &str) -> Result<OffsetDateTime, TimestampError> {
    let s = input.trim();
    let err = || TimestampError(input.chars().take(64).collect());
    if s.is_empty() || s.len() > 40 {
        return Err(err());
    }
    let s = s.replacen(' ', "T", 1);
    if let Ok(t) = OffsetDateTime::parse(&s, &Iso8601::DEFAULT) {
        return Ok(t.to_offset(UtcOffset::UTC));
    }
    if let Ok(t) = PrimitiveDateTime::parse(&s, &Iso8601::DEFAULT) {
        return Ok(t.assume_utc());
    }
    if let Ok(d) = Date::parse(&s, &Iso8601::DEFAULT) {
        return Ok(d.midnight().assume_utc());
    }
    Err(err())
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
        assert_eq!(parse_timestamp("2024-06-14T22:00Z").unwrap(), want);
        assert_eq!(parse_timestamp("2024-06-15T00:00:00+02:00").unwrap(), want);
        assert_eq!(parse_timestamp("2024-06-14T22:00:00").unwrap(), want);
        assert_eq!(parse_timestamp("2024-06-14 22:00:00").unwrap(), want);
        assert_eq!(
            format_timestamp(parse_timestamp("2024-06-15").unwrap()),
            "2024-06-15T00:00:00Z"
        );
        assert!(parse_timestamp("yesterday").is_err());
        assert!(parse_timestamp("").is_err());
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
