//! Collecting values into points: per provider series and slot first, then folded into gridprint's
//! series by summing.
//!
//! A provider series is an output key plus the provider's code for it (the psrType `B02`, or the File
//! Library name `Fossil Hard coal`). Two values for the same provider series and slot are a
//! duplicate: the later one is kept and counted. Values of different provider codes with the same
//! output key (lignite and hard coal are both coal) are summed, never overwritten.

use crate::document::{DocumentKind, ParsedDocument};
use crate::skip;
use gridprint_core::DataState;
use gridprint_core::inputs::{DATASOURCE_ENTSOE, InputKey, InputPoint};
use gridprint_core::slot::Slot;
use std::collections::{BTreeMap, HashMap};

/// Values and skip counts of one document being parsed.
#[derive(Debug, Default)]
pub(crate) struct Accumulator {
    keys: Vec<InputKey>,
    key_index: HashMap<InputKey, u32>,
    codes: HashMap<String, u32>,
    /// (key index, slot, provider code index) → MW.
    values: BTreeMap<(u32, Slot, u32), f64>,
    skipped: BTreeMap<String, usize>,
}

impl Accumulator {
    /// Counts `n` skipped source values under `reason` (a key from [`crate::skip`]).
    pub(crate) fn skip(&mut self, reason: String, n: usize) {
        if n > 0 {
            skip::add(&mut self.skipped, reason, n);
        }
    }

    /// Records one source value that holds for `n_slots` slots from `first`. `area` names the
    /// provider area for the duplicate count.
    pub(crate) fn put(
        &mut self,
        key: &InputKey,
        code: &str,
        first: Slot,
        n_slots: i64,
        mw: f64,
        area: &str,
    ) {
        let k = match self.key_index.get(key) {
            Some(&k) => k,
            None => {
                let k = self.keys.len() as u32;
                self.keys.push(key.clone());
                self.key_index.insert(key.clone(), k);
                k
            }
        };
        let next_code = self.codes.len() as u32;
        let c = *self.codes.entry(code.to_string()).or_insert(next_code);
        let mut replaced = false;
        for i in 0..n_slots {
            replaced |= self.values.insert((k, first.offset(i), c), mw).is_some();
        }
        if replaced {
            self.skip(skip::duplicate(area), 1);
        }
    }

    /// Folds provider series into points (summing per key and slot) and returns the document.
    pub(crate) fn finish(self, kind: DocumentKind) -> ParsedDocument {
        let mut sums: Vec<(u32, Slot, f64)> = Vec::new();
        for ((k, slot, _code), mw) in self.values {
            match sums.last_mut() {
                Some((lk, ls, sum)) if *lk == k && *ls == slot => *sum += mw,
                _ => sums.push((k, slot, mw)),
            }
        }
        let mut points: Vec<InputPoint> = sums
            .into_iter()
            .map(|(k, slot, mw)| InputPoint {
                key: self.keys[k as usize].clone(),
                slot,
                mw,
                state: DataState::Official,
                datasource: DATASOURCE_ENTSOE.to_string(),
            })
            .collect();
        points.sort_by(|a, b| (&a.key, a.slot).cmp(&(&b.key, b.slot)));
        ParsedDocument {
            kind,
            points,
            skipped: self.skipped,
        }
    }
}
