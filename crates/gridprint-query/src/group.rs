//! Grouping of points into series entries by their flags, as docs/api.md §2 asks: one entry per
//! distinct pair (`valid`, `zone_status`) present in the window, entries in order of first appearance
//! in time, each with all its points in time order, and inside an entry one block per key (production
//! type and data state and datasource, partner zone, …).
//!
//! [`Grouper::push`] is called series by series, each in time order; a one-entry cache of the last
//! (flags, key) makes the common case (a long run of equal flags) a single comparison per point, and
//! [`Grouper::with_block_capacity`] sizes each block once where the caller knows how many points a
//! block can get (one series over a window: the window's slots), instead of growing it point by point.

use gridprint_core::quality::ZoneStatus;
use gridprint_core::slot::Slot;
use gridprint_responses::Point;
use std::cmp::Ordering;

/// The flags that split series entries.
pub type FlagPair = (bool, ZoneStatus);

/// One series entry being built.
#[derive(Debug)]
pub struct GroupEntry<K> {
    pub pair: FlagPair,
    /// Earliest slot of any point in the entry.
    pub first: Slot,
    /// Blocks: key and points in time order.
    pub leaves: Vec<(K, Vec<Point>)>,
}

/// Builds series entries from points pushed series by series.
#[derive(Debug)]
pub struct Grouper<K> {
    entries: Vec<GroupEntry<K>>,
    last: Option<(FlagPair, K, usize, usize)>,
    /// Points each new block reserves room for.
    block_capacity: usize,
}

impl<K: Copy + PartialEq> Default for Grouper<K> {
    fn default() -> Self {
        Grouper {
            entries: Vec::new(),
            last: None,
            block_capacity: 0,
        }
    }
}

impl<K: Copy + PartialEq> Grouper<K> {
    pub fn new() -> Self {
        Self::default()
    }

    /// A grouper whose blocks each reserve room for `points` points when they are created: for one
    /// series over a window, the window's number of slots (a block never gets more).
    pub fn with_block_capacity(points: usize) -> Self {
        Grouper {
            block_capacity: points,
            ..Self::default()
        }
    }

    /// Adds a point. Points of one key must be pushed in time order. Inlined into the callers'
    /// loops for the common case, a point of the same flags and key as the one before.
    #[inline]
    pub fn push(&mut self, pair: FlagPair, key: K, point: Point) {
        if let Some((lp, lk, e, l)) = self.last
            && lp == pair
            && lk == key
        {
            self.entries[e].leaves[l].1.push(point);
            return;
        }
        self.push_new_run(pair, key, point);
    }

    /// [`Grouper::push`] of a point whose flags or key differ from the point before: finds or
    /// opens its entry and block.
    fn push_new_run(&mut self, pair: FlagPair, key: K, point: Point) {
        let e = match self.entries.iter().position(|x| x.pair == pair) {
            Some(e) => e,
            None => {
                self.entries.push(GroupEntry {
                    pair,
                    first: point.slot,
                    leaves: Vec::new(),
                });
                self.entries.len() - 1
            }
        };
        let entry = &mut self.entries[e];
        entry.first = entry.first.min(point.slot);
        let l = match entry.leaves.iter().position(|(k, _)| *k == key) {
            Some(l) => l,
            None => {
                entry
                    .leaves
                    .push((key, Vec::with_capacity(self.block_capacity)));
                entry.leaves.len() - 1
            }
        };
        entry.leaves[l].1.push(point);
        self.last = Some((pair, key, e, l));
    }

    /// The entries in order of first appearance, blocks sorted by `cmp` (stable).
    pub fn finish(mut self, mut cmp: impl FnMut(&K, &K) -> Ordering) -> Vec<GroupEntry<K>> {
        self.entries.sort_by_key(|e| e.first);
        for e in &mut self.entries {
            e.leaves.sort_by(|a, b| cmp(&a.0, &b.0));
        }
        self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: i64) -> Point {
        Point {
            slot: Slot(s),
            value: s as f64,
        }
    }

    #[test]
    fn entries_by_first_appearance_blocks_by_key() {
        let mut g = Grouper::new();
        let a = (true, ZoneStatus::Complete);
        let b = (false, ZoneStatus::Preview);
        // Series "y" first, although its first point is later than series "x"'s.
        g.push(b, 'y', p(5));
        g.push(a, 'y', p(6));
        g.push(a, 'x', p(1));
        g.push(b, 'x', p(2));
        g.push(a, 'x', p(3));
        let out = g.finish(|x, y| x.cmp(y));
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].pair, a);
        assert_eq!(
            out[0].leaves.iter().map(|l| l.0).collect::<Vec<_>>(),
            vec!['x', 'y']
        );
        assert_eq!(out[0].leaves[0].1, vec![p(1), p(3)]);
        assert_eq!(out[1].pair, b);
        assert_eq!(out[1].first, Slot(2));
    }
}
