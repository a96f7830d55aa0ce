//! Placing provider values on gridprint's 15-minute grid: resolutions and timestamps.
//!
//! ENTSO-E publishes at 15, 30 or 60 minutes. A value is the average power over its interval, so an
//! hourly value holds for each of its four 15-minute slots and a half-hourly one for two. Timestamps
//! must fall on a 15-minute boundary; anything else cannot be placed without inventing data.

use gridprint_core::slot::{SLOT_SECONDS, Slot, parse_timestamp};

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
}

/// Explains what resolutions are accepted, for error messages.
pub(crate) const RESOLUTIONS_ACCEPTED: &str = "expected PT15M, PT30M or PT60M";

/// Parses a timestamp that must start a slot (`2024-06-14T22:00Z`, `2017-02-01 00:00:00`; naive
/// times are UTC). The error is a message for the caller to put in context.
pub(crate) fn slot_at(s: &str) -> Result<Slot, String> {
    let t = parse_timestamp(s).map_err(|e| e.to_string())?;
    if t.nanosecond() != 0 {
        return Err(format!("'{s}' is not on a 15-minute boundary"));
    }
    Slot::from_unix_exact(t.unix_timestamp())
        .ok_or_else(|| format!("'{s}' is not on a 15-minute boundary"))
}
