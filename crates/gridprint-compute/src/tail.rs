//! A zone's tail: the slots past its last complete provider data, flagged as one run.
//!
//! Clients such as CATS read only the first series of a `/v1/footprints` answer, and the API starts
//! a new series wherever `(valid, zone_status)` changes. So the lag hour's estimates, the slot in
//! progress and the forecast must not each get flags of their own, or a window starting at the
//! present would get a first series of one or two points (api-contract.md §6, "Now and the forecast
//! in one series"). Here every non-final slot of a zone after its last complete one, and always the
//! quarter that just ended, gets one pair of flags: `valid: false` and the worst status of the tail.
//! The numbers are not touched. `compute_publish` (lib.rs) applies it to the recent days it staged
//! and the stored recent days around them; docs/methodology.md explains the choice and its cost.

use gridprint_core::derived::{DerivedDay, SlotFlags};
use gridprint_core::quality::{ZoneStatus, freeze_boundary};
use gridprint_core::slot::{SLOTS_PER_DAY, Slot};
use gridprint_core::zone::ZoneCode;
use std::collections::BTreeMap;
use time::OffsetDateTime;

/// Gives the tail of every zone in `days` (zone-days from the day of the freeze boundary on, any
/// order, one per zone and day) one pair of flags at `now`. Returns, per day, whether its flags
/// changed.
pub fn flag_tails(days: &mut [DerivedDay], now: OffsetDateTime) -> Vec<bool> {
    let boundary = freeze_boundary(now);
    // The quarter that just ended always belongs to the tail: a client asking at minute 15, 30, 45
    // or 0 starts its window there.
    let cut = Slot::containing(now).offset(-1);
    let mut by_zone: BTreeMap<ZoneCode, Vec<usize>> = BTreeMap::new();
    for (i, d) in days.iter().enumerate() {
        by_zone.entry(d.zone.clone()).or_default().push(i);
    }
    let mut changed = vec![false; days.len()];
    for (_, mut idx) in by_zone {
        idx.sort_by_key(|&i| days[i].day);
        // The open (non-final, computed) slots of the zone in order: (day position, slot index).
        let open: Vec<(usize, usize, Slot)> = idx
            .iter()
            .flat_map(|&i| {
                let first = Slot::first_of_day(days[i].day);
                (0..SLOTS_PER_DAY as usize).map(move |k| (i, k, first.offset(k as i64)))
            })
            .filter(|&(i, k, s)| {
                let f = days[i].flags[k];
                s >= boundary && f.present() && !f.frozen()
            })
            .collect();
        let last_complete = open
            .iter()
            .filter(|&&(i, k, s)| s < cut && days[i].flags[k].status() == ZoneStatus::Complete)
            .map(|&(_, _, s)| s)
            .max();
        let start = last_complete.map_or(boundary, |s| s.offset(1)).min(cut);
        let tail: Vec<(usize, usize)> = open
            .iter()
            .filter(|&&(_, _, s)| s >= start)
            .map(|&(i, k, _)| (i, k))
            .collect();
        let Some(worst) = tail.iter().map(|&(i, k)| days[i].flags[k].status()).min() else {
            continue;
        };
        let flags = SlotFlags::new(worst, false, false);
        for (i, k) in tail {
            if days[i].flags[k] != flags {
                days[i].flags[k] = flags;
                changed[i] = true;
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn day_with(zone: &str, day: i64, flags: &[(usize, SlotFlags)]) -> DerivedDay {
        let mut d = DerivedDay::new(ZoneCode::parse(zone).unwrap(), day);
        for &(k, f) in flags {
            d.flags[k] = f;
        }
        d
    }

    #[test]
    fn tail_is_one_run_from_the_quarter_that_just_ended() {
        use ZoneStatus::{Complete, Missing, Preview};
        // now = 14:15:05: the quarter that just ended is 14:00 (index 56), in progress 14:15 (57).
        let now = datetime!(2026-11-26 14:15:05 UTC);
        let day = Slot::containing(now).day();
        let c = |s| SlotFlags::new(s, s == Complete, false);
        let mut flags: Vec<(usize, SlotFlags)> = (40..52).map(|k| (k, c(Complete))).collect();
        flags.extend((52..56).map(|k| (k, c(Preview)))); // the lag hour's estimates
        flags.push((56, c(Complete))); // provider data for the quarter that just ended
        flags.extend((57..96).map(|k| (k, c(Missing)))); // the forecast
        let mut days = vec![
            day_with("DE", day, &flags),
            day_with(
                "DE",
                day + 1,
                &(0..96).map(|k| (k, c(Missing))).collect::<Vec<_>>(),
            ),
        ];
        let changed = flag_tails(&mut days, now);
        assert_eq!(changed, vec![true, false]);
        let tail = SlotFlags::new(Missing, false, false);
        // Complete slots before 14:00 keep their flags; the rest is one run to the end.
        assert!((40..52).all(|k| days[0].flags[k] == c(Complete)));
        assert!((52..96).all(|k| days[0].flags[k] == tail));
        assert!(days[1].flags.iter().all(|&f| f == tail));
        // Idempotent.
        assert_eq!(flag_tails(&mut days, now), vec![false, false]);
    }

    #[test]
    fn final_and_absent_slots_are_left_alone() {
        let now = datetime!(2026-11-26 14:31:00 UTC);
        let day = Slot::containing(now).day();
        let frozen = SlotFlags::new(ZoneStatus::Preview, true, true);
        let open = SlotFlags::new(ZoneStatus::Preview, false, false);
        let mut days = vec![day_with("FR", day, &[(10, frozen), (60, open), (61, open)])];
        assert_eq!(flag_tails(&mut days, now), vec![false]);
        assert_eq!(days[0].flags[10], frozen);
        assert!(!days[0].flags[0].present());
    }
}
