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

/// Declares a state enum stored as its `repr(u8)` value and serialised as its lowercase name, with
/// `as_str` (the name), `from_u8` (from the stored value) and `parse` (from the name).
macro_rules! state_enum {
    ($(#[$doc:meta])* $ty:ident { $($variant:ident = $value:literal: $name:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "lowercase")]
        #[repr(u8)]
        pub enum $ty {
            $($variant = $value,)+
        }

        impl $ty {
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }
            pub fn from_u8(v: u8) -> Option<$ty> {
                match v {
                    $($value => Some($ty::$variant),)+
                    _ => None,
                }
            }
            pub fn parse(s: &str) -> Option<$ty> {
                match s {
                    $($name => Some($ty::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

state_enum! {
    /// Provenance of one input point.
    DataState { Official = 0: "official", Estimated = 1: "estimated", Missing = 2: "missing" }
}

state_enum! {
    /// Quality of a computed zone and slot. Ordered worst first: missing < preview < complete.
    ZoneStatus { Missing = 0: "missing", Preview = 1: "preview", Complete = 2: "complete" }
}

impl ZoneStatus {
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
