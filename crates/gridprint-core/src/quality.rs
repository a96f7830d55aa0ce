//! Data quality: the state of every input point and the flags of every computed zone and slot.
//!
//! Inputs carry a [`DataState`] (official from a provider, estimated by our gap filler, missing and
//! filled by the forecast). Each computed zone and slot gets a [`ZoneStatus`] and a `valid` flag by
//! the rules of docs/api.md §6: missing when the zone has no provider data in the slot, preview
//! when any of its inputs is estimated or was repaired, else complete; a slot older than
//! `floor15(now) − 4 h` is final (valid, frozen, never recomputed), a newer one is valid only when
//! complete.

use crate::slot::Slot;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// Provenance of one input point. Stored as its `repr(u8)` value, serialised as its lowercase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum DataState {
    Official = 0,
    Estimated = 1,
    Missing = 2,
}

impl DataState {
    /// Every state, in `repr(u8)` order.
    pub const ALL: [DataState; 3] = [
        DataState::Official,
        DataState::Estimated,
        DataState::Missing,
    ];

    /// The lowercase name (as serialised).
    pub fn as_str(self) -> &'static str {
        match self {
            DataState::Official => "official",
            DataState::Estimated => "estimated",
            DataState::Missing => "missing",
        }
    }
    /// The state of a stored `repr(u8)` value.
    pub fn from_u8(v: u8) -> Option<DataState> {
        DataState::ALL.get(usize::from(v)).copied()
    }
    /// The state of a lowercase name.
    pub fn parse(s: &str) -> Option<DataState> {
        DataState::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

/// Quality of a computed zone and slot. Ordered worst first: missing < preview < complete. Stored
/// as its `repr(u8)` value, serialised as its lowercase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum ZoneStatus {
    Missing = 0,
    Preview = 1,
    Complete = 2,
}

impl ZoneStatus {
    /// Every status, in `repr(u8)` order (worst first).
    pub const ALL: [ZoneStatus; 3] = [
        ZoneStatus::Missing,
        ZoneStatus::Preview,
        ZoneStatus::Complete,
    ];

    /// The lowercase name (as serialised).
    pub fn as_str(self) -> &'static str {
        match self {
            ZoneStatus::Missing => "missing",
            ZoneStatus::Preview => "preview",
            ZoneStatus::Complete => "complete",
        }
    }
    /// The status of a stored `repr(u8)` value.
    pub fn from_u8(v: u8) -> Option<ZoneStatus> {
        ZoneStatus::ALL.get(usize::from(v)).copied()
    }
    /// The status of a lowercase name.
    pub fn parse(s: &str) -> Option<ZoneStatus> {
        ZoneStatus::ALL.into_iter().find(|z| z.as_str() == s)
    }

    /// Status of a zone's slot from the states of its inputs (its generation and load points and the
    /// flows on its borders) and whether the engine had to repair them.
    pub fn from_inputs(
        own_generation: Option<DataState>,
        others: impl IntoIterator<Item = DataState>,
        repaired: bool,
    ) -> ZoneStatus {
        match own_generation {
            None | Some(DataState::Missing) => ZoneStatus::Missing,
            Some(g) => {
                let worst = others.into_iter().fold(g, |a, b| a.max(b));
                if worst != DataState::Official || repaired {
                    ZoneStatus::Preview
                } else {
                    ZoneStatus::Complete
                }
            }
        }
    }
}

/// How long after a slot its values may still change.
pub const FREEZE_AFTER_SLOTS: i64 = 16; // 4 hours

/// The first slot that is not yet final at `now`: `floor15(now) − 4 h`. Slots before it are frozen.
pub fn freeze_boundary(now: OffsetDateTime) -> Slot {
    Slot::containing(now).offset(-FREEZE_AFTER_SLOTS)
}

/// Whether a slot is final (older than `floor15(now) − 4 h`) at `now`.
pub fn is_frozen(slot: Slot, now: OffsetDateTime) -> bool {
    slot < freeze_boundary(now)
}

/// The `valid` flag of a zone's slot: final slots are valid; newer ones only when complete.
pub fn valid_flag(slot: Slot, status: ZoneStatus, now: OffsetDateTime) -> bool {
    is_frozen(slot, now) || status == ZoneStatus::Complete
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn stored_values_and_names_round_trip() {
        for d in DataState::ALL {
            assert_eq!(DataState::from_u8(d as u8), Some(d));
            assert_eq!(DataState::parse(d.as_str()), Some(d));
        }
        for z in ZoneStatus::ALL {
            assert_eq!(ZoneStatus::from_u8(z as u8), Some(z));
            assert_eq!(ZoneStatus::parse(z.as_str()), Some(z));
        }
        assert_eq!(DataState::from_u8(3), None);
        assert_eq!(ZoneStatus::from_u8(3), None);
        assert_eq!(DataState::parse("Official"), None);
        assert_eq!(ZoneStatus::parse("done"), None);
    }

    #[test]
    fn status_rules() {
        use DataState::*;
        use ZoneStatus::{Complete, Preview};
        assert_eq!(
            ZoneStatus::from_inputs(None, [], false),
            ZoneStatus::Missing
        );
        // (own generation, other inputs, repaired, status)
        let cases = [
            (Missing, Official, false, ZoneStatus::Missing),
            (Official, Estimated, false, Preview),
            (Official, Official, true, Preview),
            (Official, Official, false, Complete),
        ];
        for (own, other, repaired, status) in cases {
            assert_eq!(
                ZoneStatus::from_inputs(Some(own), [other], repaired),
                status
            );
        }
        assert!(
            ZoneStatus::Missing < ZoneStatus::Preview && ZoneStatus::Preview < ZoneStatus::Complete
        );
    }

    #[test]
    fn freeze_after_four_hours() {
        let now = datetime!(2024-06-15 12:07 UTC);
        let s = Slot::containing(datetime!(2024-06-15 08:00 UTC));
        assert!(!is_frozen(s, now));
        assert!(is_frozen(s.offset(-1), now));
        assert!(!valid_flag(s, ZoneStatus::Preview, now));
        assert!(valid_flag(s, ZoneStatus::Complete, now));
        assert!(valid_flag(s.offset(-1), ZoneStatus::Missing, now));
    }
}
