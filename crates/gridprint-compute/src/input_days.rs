//! Stored inputs read once per run: [`InputDays`] reads the inputs of whole UTC days from the store
//! and keeps up to [`InputDays::MAX_DAYS`] of them (the oldest go first), so that the gap
//! estimators of a compute (`gridprint_pipeline::estimate::fill_stored_gaps_from`, whose batches
//! overlap by two weeks of history) and the compute itself ([`crate::compute_publish`]) read
//! each day once instead of up to four times (on a compute where nothing changed, reading the
//! inputs is most of the work).
//!
//! The days kept are what the store holds: a run that writes inputs (estimates, flows assumed 0 MW)
//! tells [`InputDays::stored`] what it wrote, which applies it to the days kept as the store did.
//! A write by another process is seen by the days read after it (a compute never sees a write made
//! after it read a day): the window in which it goes unseen is the run. Twenty-one days are the span
//! one estimator batch reads, so memory stays that of one batch.

use gridprint_core::inputs::InputPoint;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_store::{Store, StoreError, StoredInput, UpsertSummary, key_columns, upsert_changes};
use std::collections::BTreeMap;

/// The stored inputs of the UTC days read so far in one run, by day number.
pub struct InputDays<'s> {
    store: &'s dyn Store,
    days: BTreeMap<i64, Vec<StoredInput>>,
    /// Upserts of this run ([`InputDays::upsert`]) that changed a point: each advanced the input
    /// revision by one.
    changing_upserts: i64,
}

impl<'s> InputDays<'s> {
    /// Days kept at most: 21, an estimator batch's span (a week of history, the week estimated and
    /// a week ahead for the official value that closes a gap).
    pub const MAX_DAYS: usize = 21;

    /// Nothing read yet.
    pub fn new(store: &'s dyn Store) -> InputDays<'s> {
        InputDays {
            store,
            days: BTreeMap::new(),
            changing_upserts: 0,
        }
    }

    /// Stores `points` at `updated_at` and applies them to the days kept ([`InputDays::stored`]):
    /// the one way a run writes inputs, so that it knows how many of the input revision's steps
    /// are its own ([`InputDays::changing_upserts`]).
    pub fn upsert(
        &mut self,
        points: &[InputPoint],
        updated_at: i64,
    ) -> Result<UpsertSummary, StoreError> {
        let summary = self.store.upsert_inputs(points, updated_at)?;
        if summary.inserted + summary.updated > 0 {
            self.changing_upserts += 1;
        }
        self.stored(points, updated_at);
        Ok(summary)
    }

    /// How many upserts of this run changed a point. A run that read the input revision `r` at
    /// its start and reads `r + changing_upserts()` at its end saw every write made meanwhile.
    pub fn changing_upserts(&self) -> i64 {
        self.changing_upserts
    }

    /// The store this reads from.
    pub fn store(&self) -> &'s dyn Store {
        self.store
    }

    /// The points whose slot lies in `range`, by slot, as the store's
    /// [`gridprint_store::InputStore::inputs_in_range`] orders them (a day written to by
    /// [`InputDays::stored`]: by slot, then key columns); the days not kept are read from the store,
    /// in one query.
    pub fn in_range(&mut self, range: SlotRange) -> Result<Vec<&StoredInput>, StoreError> {
        if range.is_empty() {
            return Ok(Vec::new());
        }
        let days = range.days();
        let missing: Vec<i64> = days
            .clone()
            .filter(|d| !self.days.contains_key(d))
            .collect();
        if let (Some(first), Some(last)) = (missing.first(), missing.last()) {
            let read = SlotRange::new(Slot::first_of_day(*first), Slot::first_of_day(last + 1));
            let mut by_day: BTreeMap<i64, Vec<StoredInput>> =
                missing.iter().map(|d| (*d, Vec::new())).collect();
            // Points come by slot: a run of one day goes into that day's list at once. Days between
            // the first and last missing one that were kept are kept as they are.
            let mut run: Vec<StoredInput> = Vec::new();
            let mut run_day = i64::MIN;
            for p in self.store.inputs_in_range(read)? {
                if p.point.slot.day() != run_day {
                    if let Some(points) = by_day.get_mut(&run_day) {
                        points.append(&mut run);
                    }
                    run.clear();
                    run_day = p.point.slot.day();
                }
                run.push(p);
            }
            if let Some(points) = by_day.get_mut(&run_day) {
                points.append(&mut run);
            }
            self.days.extend(by_day);
            // The oldest days go first, never one of this range.
            let cap = Self::MAX_DAYS.max((days.end - days.start) as usize);
            let excess = self.days.len().saturating_sub(cap);
            let evicted: Vec<i64> = self
                .days
                .keys()
                .filter(|d| !days.contains(d))
                .take(excess)
                .copied()
                .collect();
            for d in evicted {
                self.days.remove(&d);
            }
        }
        Ok(self
            .days
            .range(days)
            .flat_map(|(_, points)| points)
            .filter(|p| range.contains(p.point.slot))
            .collect())
    }

    /// Drops the days before `day` (a reader that moves forward and will not come back).
    pub fn forget_before(&mut self, day: i64) {
        self.days = self.days.split_off(&day);
    }

    /// Applies `written`, just stored by `upsert_inputs(written, updated_at)`, to the days kept, as
    /// the store applied them ([`upsert_changes`]): a point replaces the kept point of its key and
    /// slot unless that one is better or identical, or joins its slot's points in key order. Each
    /// day written to is merged once with the sorted points. Days not kept are left to their read.
    pub fn stored(&mut self, written: &[InputPoint], updated_at: i64) {
        let mut by_day: BTreeMap<i64, Vec<&InputPoint>> = BTreeMap::new();
        for p in written {
            if self.days.contains_key(&p.slot.day()) {
                by_day.entry(p.slot.day()).or_default().push(p);
            }
        }
        for (day, mut points) in by_day {
            // Stable: points of one key stay in the order they were written.
            points.sort_by(|a, b| order(a).cmp(&order(b)));
            let mut kept = self.days.remove(&day).unwrap_or_default();
            // Already in this order when read from SQLite: one pass.
            kept.sort_by(|a, b| order(&a.point).cmp(&order(&b.point)));
            let mut merged: Vec<StoredInput> = Vec::with_capacity(kept.len() + points.len());
            let mut kept = kept.into_iter().peekable();
            for p in points {
                while let Some(k) = kept.next_if(|k| order(&k.point) < order(p)) {
                    merged.push(k);
                }
                let same = |k: &StoredInput| k.point.slot == p.slot && k.point.key == p.key;
                if !merged.last().is_some_and(same) {
                    match kept.next_if(same) {
                        Some(k) => merged.push(k),
                        None => {
                            let point = p.clone();
                            merged.push(StoredInput { point, updated_at });
                            continue;
                        }
                    }
                }
                let last = merged.last_mut().expect("pushed or matched above");
                let old = &last.point;
                if upsert_changes((old.mw, old.state, &old.datasource), p) {
                    last.point = p.clone();
                    last.updated_at = updated_at;
                }
            }
            merged.extend(kept);
            self.days.insert(day, merged);
        }
    }
}

/// The order of the points of a day written to: by slot, then by key columns (SQLite's order;
/// PostgreSQL's text collation may order the keys of a slot otherwise).
fn order(p: &InputPoint) -> (Slot, (i16, &str, &str)) {
    (p.slot, key_columns(&p.key))
}

#[cfg(test)]
mod tests {
    use super::{InputDays, Slot, SlotRange, StoredInput};
    use crate::synthetic::official_generation;
    use gridprint_core::inputs::{InputKey, InputPoint};
    use gridprint_core::production::ProductionType;
    use gridprint_core::quality::DataState;
    use gridprint_core::slot::SLOTS_PER_DAY;
    use gridprint_core::zone::ZoneCode;
    use gridprint_store::InputStore;
    use gridprint_store_sqlite::SqliteStore;

    const DAY: i64 = 20_000;

    fn point(zone: &str, slot: Slot, mw: f64) -> InputPoint {
        official_generation(zone, ProductionType::Solar, slot, mw)
    }

    /// Two zones, every 7th slot of `days` days from [`DAY`].
    fn store_with(days: i64) -> SqliteStore {
        let store = SqliteStore::open_in_memory().unwrap();
        let points: Vec<InputPoint> = (0..days * SLOTS_PER_DAY)
            .step_by(7)
            .flat_map(|i| {
                let s = Slot::first_of_day(DAY).offset(i);
                [point("FR", s, 1.0), point("DE", s, i as f64)]
            })
            .collect();
        store.upsert_inputs(&points, 1).unwrap();
        store
    }

    fn read(days: &mut InputDays, range: SlotRange) -> Vec<StoredInput> {
        days.in_range(range).unwrap().into_iter().cloned().collect()
    }

    fn day_range(from: i64, to: i64) -> SlotRange {
        SlotRange::new(Slot::first_of_day(from), Slot::first_of_day(to))
    }

    #[test]
    fn answers_what_the_store_answers_for_any_range() {
        let store = store_with(3);
        let mut days = InputDays::new(&store);
        let mid = |d: i64| Slot::first_of_day(d).offset(SLOTS_PER_DAY / 2 + 3);
        let ranges = [
            day_range(DAY - 7, DAY + 7),
            SlotRange::new(mid(DAY), mid(DAY + 1)),
            day_range(DAY + 1, DAY + 2),
            SlotRange::new(mid(DAY + 2), mid(DAY + 2)),
            day_range(DAY - 3, DAY),
            SlotRange::new(mid(DAY - 1), mid(DAY + 3)),
        ];
        for r in ranges {
            assert_eq!(
                read(&mut days, r),
                store.inputs_in_range(r).unwrap(),
                "{r:?}"
            );
        }
        assert!(!store.inputs_in_range(ranges[0]).unwrap().is_empty());
    }

    #[test]
    fn writes_it_is_told_of_are_seen_as_the_store_sees_them() {
        let store = store_with(3);
        let mut days = InputDays::new(&store);
        let all = day_range(DAY, DAY + 3);
        assert_eq!(read(&mut days, all), store.inputs_in_range(all).unwrap());
        let at = |d: i64, i: i64| Slot::first_of_day(d).offset(i);
        let estimated = |zone: &str, slot: Slot, mw: f64, datasource: &str| InputPoint {
            state: DataState::Estimated,
            datasource: datasource.to_string(),
            ..point(zone, slot, mw)
        };
        // Points are stored at every 7th slot from DAY: DAY's slots 0, 7 and 14 hold some, DAY + 2's
        // slot 3 none.
        let flow = InputPoint {
            key: InputKey::Flow {
                from: ZoneCode::parse("DE").unwrap(),
                to: ZoneCode::parse("AT").unwrap(),
            },
            ..estimated("DE", at(DAY, 14), 0.0, "assumed")
        };
        let writes = [
            // Official over official: replaced.
            vec![point("DE", at(DAY, 7), 99.0)],
            // Identical: nothing changes, not even updated_at.
            vec![point("FR", at(DAY, 7), 1.0)],
            // An estimate never replaces official data.
            vec![estimated("FR", at(DAY, 0), 5.0, "linear")],
            // New keys in a slot that has points (before, between and after them), in a slot
            // without any, and twice the same key in one write (the last one stays).
            vec![
                estimated("AT", at(DAY, 14), 3.0, "linear"),
                flow.clone(),
                estimated("EE", at(DAY, 14), 4.0, "profile"),
                estimated("DK-DK1", at(DAY + 2, 3), 2.0, "linear"),
                estimated("DK-DK1", at(DAY + 2, 3), 2.5, "profile"),
            ],
            // Estimate over estimate; official over estimate.
            vec![
                InputPoint { mw: 1.0, ..flow },
                point("DK-DK1", at(DAY + 2, 3), 7.0),
            ],
            // A kept day without points, and a day never read (left to its first read).
            vec![
                point("DE", at(DAY + 5, 0), 1.0),
                point("DE", at(DAY + 10, 0), 1.0),
            ],
        ];
        for (i, w) in writes.iter().enumerate() {
            let updated_at = 10 + i as i64;
            store.upsert_inputs(w, updated_at).unwrap();
            days.stored(w, updated_at);
            let wide = day_range(DAY - 1, DAY + 6);
            assert_eq!(
                read(&mut days, wide),
                store.inputs_in_range(wide).unwrap(),
                "write {i}"
            );
        }
        // Without being told, a kept day stays as it was read.
        let untold = point("DE", at(DAY + 2, 4), 50.0);
        store
            .upsert_inputs(std::slice::from_ref(&untold), 20)
            .unwrap();
        assert_ne!(read(&mut days, all), store.inputs_in_range(all).unwrap());
    }

    #[test]
    fn keeps_at_most_max_days_and_forgets_what_a_reader_left_behind() {
        let store = store_with(30);
        let mut days = InputDays::new(&store);
        for d in DAY..DAY + 30 {
            let r = day_range(d, d + 1);
            assert_eq!(read(&mut days, r), store.inputs_in_range(r).unwrap());
            assert!(days.days.len() <= InputDays::MAX_DAYS);
        }
        assert_eq!(days.days.first_key_value().map(|(d, _)| *d), Some(DAY + 9));
        days.forget_before(DAY + 25);
        assert_eq!(days.days.len(), 5);
        let r = day_range(DAY, DAY + 30);
        assert_eq!(read(&mut days, r), store.inputs_in_range(r).unwrap());
    }
}
