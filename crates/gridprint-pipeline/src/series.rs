//! One input series on a contiguous slot grid — the shape the estimator and the forecast work on.
//!
//! Stored points come as a flat list over all zones; [`group`] sorts them into one [`Series`] per
//! [`InputKey`] over a range, keeping only the points a caller wants (official ones for the
//! estimator's anchors; official and estimated ones as the forecast's history).

use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::slot::{Slot, SlotRange};
use std::collections::BTreeMap;

/// Values of one series, `values[i]` for slot `start + i`; `None` where there is no value.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub start: Slot,
    pub values: Vec<Option<f64>>,
}

impl Series {
    /// An empty series over `range`.
    pub fn empty(range: SlotRange) -> Series {
        Series {
            start: range.start,
            values: vec![None; range.len()],
        }
    }

    /// A series from values starting at `start`.
    #[cfg(test)]
    pub fn from_values(start: Slot, values: Vec<Option<f64>>) -> Series {
        Series { start, values }
    }

    /// The range the series spans.
    pub fn range(&self) -> SlotRange {
        SlotRange::new(self.start, self.start.offset(self.values.len() as i64))
    }

    fn index(&self, slot: Slot) -> Option<usize> {
        let i = slot.0 - self.start.0;
        (i >= 0 && (i as usize) < self.values.len()).then_some(i as usize)
    }

    /// The value at a slot (`None` outside the range or without a value).
    pub fn get(&self, slot: Slot) -> Option<f64> {
        self.index(slot).and_then(|i| self.values[i])
    }

    /// Sets the value at a slot inside the range (ignored outside).
    pub fn set(&mut self, slot: Slot, value: Option<f64>) {
        if let Some(i) = self.index(slot) {
            self.values[i] = value;
        }
    }

    /// Number of slots with a value.
    pub fn count(&self) -> usize {
        self.values.iter().filter(|v| v.is_some()).count()
    }

    /// The last slot with a value before `before` (exclusive).
    pub fn last_before(&self, before: Slot) -> Option<Slot> {
        let end =
            self.index(before.offset(-1))
                .map(|i| i + 1)
                .unwrap_or(if before > self.range().end {
                    self.values.len()
                } else {
                    0
                });
        self.values[..end]
            .iter()
            .rposition(|v| v.is_some())
            .map(|i| self.start.offset(i as i64))
    }
}

/// One series per key over `range`, from the points `keep` accepts.
pub fn group<'a>(
    points: impl IntoIterator<Item = &'a InputPoint>,
    range: SlotRange,
    keep: impl Fn(&InputPoint) -> bool,
) -> BTreeMap<InputKey, Series> {
    let mut out: BTreeMap<InputKey, Series> = BTreeMap::new();
    for p in points {
        if !range.contains(p.slot) || !p.mw.is_finite() || !keep(p) {
            continue;
        }
        out.entry(p.key.clone())
            .or_insert_with(|| Series::empty(range))
            .set(p.slot, Some(p.mw));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_before() {
        let s = Series::from_values(Slot(10), vec![Some(1.0), None, Some(2.0), None]);
        assert_eq!(s.last_before(Slot(14)), Some(Slot(12)));
        assert_eq!(s.last_before(Slot(99)), Some(Slot(12)));
        assert_eq!(s.last_before(Slot(12)), Some(Slot(10)));
        assert_eq!(s.last_before(Slot(10)), None);
        assert_eq!(s.last_before(Slot(5)), None);
        assert_eq!(s.range(), SlotRange::new(Slot(10), Slot(14)));
    }
}
