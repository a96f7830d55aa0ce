//! Days of a query window: which stored days a slot range touches, and which slots of each.

use super::chunk::N;
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange};

/// One day of a zone or series inside a query window: position `pos` in the day list, and the slot
/// indices `lo..hi` of that day that lie in the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DaySpan {
    pub pos: usize,
    pub day: i64,
    pub lo: usize,
    pub hi: usize,
}

impl DaySpan {
    /// The slot at index `i` of this day.
    pub fn slot(&self, i: usize) -> Slot {
        Slot(self.day * SLOTS_PER_DAY + i as i64)
    }
}

/// The days of a sorted day list that intersect `range`, with the slot bounds inside each day.
pub fn day_spans(days: &[i64], range: SlotRange) -> impl Iterator<Item = DaySpan> + '_ {
    let (first_day, last_slot) = if range.is_empty() {
        (i64::MAX, Slot(i64::MIN))
    } else {
        (range.start.day(), range.end.offset(-1))
    };
    let last_day = last_slot.day();
    let from = days.partition_point(|&d| d < first_day);
    days[from..]
        .iter()
        .enumerate()
        .take_while(move |(_, d)| **d <= last_day)
        .map(move |(k, &day)| DaySpan {
            pos: from + k,
            day,
            lo: if day == first_day {
                range.start.index_in_day()
            } else {
                0
            },
            hi: if day == last_day {
                last_slot.index_in_day() + 1
            } else {
                N
            },
        })
}
