//! UTC days as slot ranges: the unit in which imports, backfills and computes hand work on.

use gridprint_core::slot::{Slot, SlotRange};

/// Contiguous runs of whole UTC days, from day numbers in any order (duplicates allowed).
pub fn day_runs(days: impl IntoIterator<Item = i64>) -> Vec<SlotRange> {
    let mut days: Vec<i64> = days.into_iter().collect();
    days.sort_unstable();
    days.dedup();
    let mut out: Vec<SlotRange> = Vec::new();
    for d in days {
        match out.last_mut() {
            Some(r) if r.end == Slot::first_of_day(d) => r.end = Slot::first_of_day(d + 1),
            _ => out.push(SlotRange::new(
                Slot::first_of_day(d),
                Slot::first_of_day(d + 1),
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_neighbouring_days_and_keeps_gaps() {
        let runs = day_runs([20_000, 19_998, 19_999, 20_005, 19_999]);
        assert_eq!(
            runs,
            vec![
                SlotRange::new(Slot::first_of_day(19_998), Slot::first_of_day(20_001)),
                SlotRange::new(Slot::first_of_day(20_005), Slot::first_of_day(20_006)),
            ]
        );
        assert!(day_runs([]).is_empty());
    }
}
