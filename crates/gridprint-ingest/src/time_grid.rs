//! Placing provider values on gridprint's 15-minute grid: resolutions and timestamps.
//!
//! ENTSO-E publishes at 15, 30 or 60 minutes. A value is the average power over its interval, so an
//! hourly value holds for each of its four 15-minute slots and a half-hourly one for two. Timestamps
//! must fall on a 15-minute boundary; anything else cannot be placed without inventing data.
//! Elexon's half-hourly and EPIAS's hourly values are spread over their slots by [`push_official`]
//! and [`generation_points`].

use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::slot::{SLOT_SECONDS, Slot, SlotRange, parse_timestamp};
use gridprint_core::zone::ZoneCode;
use time::OffsetDateTime;

/// The resolutions gridprint accepts from ENTSO-E.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolution {
    Min15,
    Min30,
    Min60,
}

impl Resolution {
    /// Parses `PT15M`, `PT30M`, `PT60M` (also `PT1H`).
    pub(crate) fn parse(s: &str) -> Option<Resolution> {
        match s.trim() {
            "PT15M" => Some(Resolution::Min15),
            "PT30M" => Some(Resolution::Min30),
            "PT60M" | "PT1H" => Some(Resolution::Min60),
            _ => None,
        }
    }

    /// Number of 15-minute slots one value covers.
    pub(crate) fn slots(self) -> i64 {
        match self {
            Resolution::Min15 => 1,
            Resolution::Min30 => 2,
            Resolution::Min60 => 4,
        }
    }

    /// Length of one value's interval in seconds.
    pub(crate) fn seconds(self) -> i64 {
        self.slots() * SLOT_SECONDS
    }

    /// The resolution of an interval `seconds` long (a market time unit written as start and end).
    pub(crate) fn from_seconds(seconds: i64) -> Option<Resolution> {
        [Resolution::Min15, Resolution::Min30, Resolution::Min60]
            .into_iter()
            .find(|r| r.seconds() == seconds)
    }
}

/// Explains what resolutions are accepted, for error messages.
pub(crate) const RESOLUTIONS_ACCEPTED: &str = "expected PT15M, PT30M or PT60M";

/// Parses a timestamp that must start a slot (`2024-06-14T22:00Z`, `2017-02-01 00:00:00`; naive
/// times are UTC; surrounding spaces of a file's cell ignored). The error is a message for the
/// caller to put in context.
pub(crate) fn slot_at(s: &str) -> Result<Slot, String> {
    let t = parse_timestamp(s.trim()).map_err(|e| e.to_string())?;
    slot_starting_at(t, s)
}

/// The slot that starts at `t` (written `s` in the source), if one does.
pub(crate) fn slot_starting_at(t: OffsetDateTime, s: &str) -> Result<Slot, String> {
    if t.nanosecond() != 0 {
        return Err(format!("'{s}' is not on a 15-minute boundary"));
    }
    Slot::from_unix_exact(t.unix_timestamp())
        .ok_or_else(|| format!("'{s}' is not on a 15-minute boundary"))
}

/// The first slot and the resolution of the interval `[start, end)` (written `s` in the source): it
/// must start on a slot and last 15, 30 or 60 minutes.
pub(crate) fn interval_at(
    start: OffsetDateTime,
    end: OffsetDateTime,
    s: &str,
) -> Result<(Slot, Resolution), String> {
    let first = slot_starting_at(start, s)?;
    let seconds = (end - start).whole_seconds();
    let resolution = Resolution::from_seconds(seconds).ok_or_else(|| {
        format!(
            "'{s}' lasts {} minutes: expected 15, 30 or 60",
            seconds as f64 / 60.0
        )
    })?;
    Ok((first, resolution))
}

/// Pushes an official value of `key` that holds for the `slots` 15-minute slots from `first`: one
/// point per slot that lies in `range`.
pub(crate) fn push_official(
    out: &mut Vec<InputPoint>,
    key: &InputKey,
    first: Slot,
    slots: i64,
    mw: f64,
    range: SlotRange,
    datasource: &str,
) {
    for s in (0..slots).map(|q| first.offset(q)) {
        if range.contains(s) {
            out.push(InputPoint {
                key: key.clone(),
                slot: s,
                mw,
                state: DataState::Official,
                datasource: datasource.to_string(),
            });
        }
    }
}

/// [`push_official`] for the MW of each production type and period start in `sums` (each period
/// `slots` long), as generation points of `zone`; then `out` is sorted by key and slot.
pub(crate) fn generation_points(
    out: &mut Vec<InputPoint>,
    zone: &ZoneCode,
    sums: impl IntoIterator<Item = ((ProductionType, Slot), f64)>,
    slots: i64,
    range: SlotRange,
    datasource: &str,
) {
    for ((pt, first), mw) in sums {
        let key = InputKey::Generation {
            zone: zone.clone(),
            production_type: pt,
        };
        push_official(out, &key, first, slots, mw, range, datasource);
    }
    out.sort_by(|a, b| (&a.key, a.slot).cmp(&(&b.key, b.slot)));
}
