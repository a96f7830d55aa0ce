//! Flows assumed 0 MW, kept as one row per border and UTC day with a mask of its 96 slots.
//!
//! A compute takes a border with no flow in a slot as 0 MW and stores that point as an estimate
//! (`gridprint_compute`, [`DATASOURCE_ASSUMED_ZERO`]). Stored one row per slot in `input_point`,
//! such rows would fall between the provider rows of every slot (the key is slot first), so a
//! publication would rewrite nearly every page of its days' inputs. Both stores keep them in table
//! `assumed_flow` (migration 0009) instead: `upsert_inputs` sends each such point here ([`is_assumed`],
//! [`plan_batch`]) and `inputs_in_range` gives them back as points ([`merge`]).
//!
//! The rule: a row of `input_point` at the same key hides the assumed bit (provider data and
//! estimates always stand over an assumption, as the compute assumes only where nothing is
//! stored). Where next: `upsert_inputs` and `inputs_in_range` of gridprint-store-sqlite and
//! gridprint-store-postgres; the conformance check `assumed_flows`.

use crate::{StoredInput, key_columns};
use gridprint_core::inputs::{DATASOURCE_ASSUMED_ZERO, InputKey, InputPoint};
use gridprint_core::quality::DataState;
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use std::collections::{BTreeMap, HashMap};

/// One border's assumed slots of one UTC day: bit `i` of `mask` is the day's slot `i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssumedDay {
    pub day: i64,
    pub from: ZoneCode,
    pub to: ZoneCode,
    pub mask: u128,
}

impl AssumedDay {
    /// The mask as the two integer columns the stores keep (`slots_lo`: slots 0–63,
    /// `slots_hi`: slots 64–95), bit for bit.
    pub fn columns(&self) -> (i64, i64) {
        (self.mask as u64 as i64, (self.mask >> 64) as u64 as i64)
    }

    /// The mask from its two columns ([`AssumedDay::columns`]).
    pub fn mask_of(lo: i64, hi: i64) -> u128 {
        (lo as u64 as u128) | ((hi as u64 as u128) << 64)
    }
}

/// Whether `p` is a flow assumed 0 MW, the points kept in `assumed_flow`.
pub fn is_assumed(p: &InputPoint) -> bool {
    matches!(p.key, InputKey::Flow { .. })
        && p.mw == 0.0
        && p.state == DataState::Estimated
        && p.datasource == DATASOURCE_ASSUMED_ZERO
}

/// What writing assumed points does to the stored masks.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct AssumedWrite {
    /// The rows to write, each with its whole new mask (stored bits and new ones).
    pub rows: Vec<AssumedDay>,
    /// Points whose bit was not set (counted as inserted).
    pub inserted: usize,
    /// Points whose bit was set already.
    pub unchanged: usize,
    /// The days of `rows`, ascending.
    pub days: Vec<i64>,
}

/// Plans the write of `points` (all [`is_assumed`]) against the masks stored for their days,
/// `stored` (any superset of their border-days).
pub fn plan_write(points: &[&InputPoint], stored: &[AssumedDay]) -> AssumedWrite {
    let mut wanted: BTreeMap<(i64, &ZoneCode, &ZoneCode), u128> = BTreeMap::new();
    for p in points {
        if let InputKey::Flow { from, to } = &p.key {
            *wanted.entry((p.slot.day(), from, to)).or_default() |= 1u128 << p.slot.index_in_day();
        }
    }
    let stored: HashMap<(i64, &ZoneCode, &ZoneCode), u128> = stored
        .iter()
        .map(|a| ((a.day, &a.from, &a.to), a.mask))
        .collect();
    let mut out = AssumedWrite::default();
    for ((day, from, to), mask) in wanted {
        let old = stored.get(&(day, from, to)).copied().unwrap_or(0);
        let new = mask & !old;
        out.unchanged += (mask & old).count_ones() as usize;
        if new == 0 {
            continue;
        }
        out.inserted += new.count_ones() as usize;
        if out.days.last() != Some(&day) {
            out.days.push(day);
        }
        out.rows.push(AssumedDay {
            day,
            from: from.clone(),
            to: to.clone(),
            mask: old | mask,
        });
    }
    out
}

/// The assumed part of a batch `upsert_inputs` writes: `None` when no point of `points` is
/// [`is_assumed`]; else the plan of [`plan_write`] against the masks `read` gives for the inclusive
/// day range those points fall in (each store reads its own `assumed_flow`).
pub fn plan_batch<E>(
    points: &[InputPoint],
    read: impl FnOnce((i64, i64)) -> Result<Vec<AssumedDay>, E>,
) -> Result<Option<AssumedWrite>, E> {
    let assumed: Vec<&InputPoint> = points.iter().filter(|p| is_assumed(p)).collect();
    if assumed.is_empty() {
        return Ok(None);
    }
    let days = assumed.iter().fold((i64::MAX, i64::MIN), |(a, b), p| {
        (a.min(p.slot.day()), b.max(p.slot.day()))
    });
    let stored = read(days)?;
    Ok(Some(plan_write(&assumed, &stored)))
}

/// The UTC days `range` touches, as the inclusive bounds the stores read `assumed_flow` by.
pub fn days_of(range: SlotRange) -> (i64, i64) {
    (range.start.day(), Slot(range.end.0 - 1).day())
}

/// `real` (ordered by slot and key, as `inputs_in_range` returns it) with the assumed points of
/// `assumed` inside `range` merged in at their places; a real point hides the bit at its key.
/// `assumed` pairs each day's row with its `updated_at`.
pub fn merge(
    real: Vec<StoredInput>,
    assumed: &[(AssumedDay, i64)],
    range: SlotRange,
) -> Vec<StoredInput> {
    if assumed.is_empty() {
        return real;
    }
    let mut extra: Vec<StoredInput> = Vec::new();
    for (a, updated_at) in assumed {
        let first = a.day * SLOTS_PER_DAY;
        let mut bits = a.mask;
        while bits != 0 {
            let i = bits.trailing_zeros() as i64;
            bits &= bits - 1;
            let slot = Slot(first + i);
            if !range.contains(slot) {
                continue;
            }
            extra.push(StoredInput {
                point: InputPoint {
                    key: InputKey::Flow {
                        from: a.from.clone(),
                        to: a.to.clone(),
                    },
                    slot,
                    mw: 0.0,
                    state: DataState::Estimated,
                    datasource: DATASOURCE_ASSUMED_ZERO.to_string(),
                },
                updated_at: *updated_at,
            });
        }
    }
    fn order(s: &StoredInput) -> (i64, (i16, &str, &str)) {
        (s.point.slot.0, key_columns(&s.point.key))
    }
    extra.sort_unstable_by(|a, b| order(a).cmp(&order(b)));
    let mut out = Vec::with_capacity(real.len() + extra.len());
    let mut extra = extra.into_iter().peekable();
    for r in real {
        while let Some(e) = extra.next_if(|e| order(e) <= order(&r)) {
            if order(&e) != order(&r) {
                out.push(e);
            }
        }
        out.push(r);
    }
    out.extend(extra);
    out
}

#[cfg(test)]
mod tests {
    use super::{AssumedDay, days_of, is_assumed, merge, plan_write};
    use crate::StoredInput;
    use crate::test_points::{assumed_point as assumed, flow_point, z};
    use gridprint_core::inputs::{DATASOURCE_ASSUMED_ZERO, InputKey, InputPoint};
    use gridprint_core::quality::DataState;
    use gridprint_core::slot::{Slot, SlotRange};

    #[test]
    fn only_estimated_zero_flows_of_the_assumed_datasource_are_assumed() {
        assert!(is_assumed(&assumed("DE", "FR", 5)));
        assert!(!is_assumed(&flow_point(
            "DE",
            "FR",
            5,
            0.0,
            DataState::Official,
            "ENTSO-E"
        )));
        assert!(!is_assumed(&flow_point(
            "DE",
            "FR",
            5,
            1.0,
            DataState::Estimated,
            DATASOURCE_ASSUMED_ZERO
        )));
    }

    #[test]
    fn a_mask_survives_its_two_columns_with_the_top_bits_set() {
        for mask in [
            0u128,
            1,
            1 << 63,
            1 << 95,
            (1u128 << 96) - 1,
            0x8000_0001 << 40,
        ] {
            let a = AssumedDay {
                day: 1,
                from: z("DE"),
                to: z("FR"),
                mask,
            };
            let (lo, hi) = a.columns();
            assert_eq!(AssumedDay::mask_of(lo, hi), mask);
        }
    }

    #[test]
    fn a_write_counts_new_bits_as_inserted_and_set_ones_as_unchanged() {
        // Day 2 = slots 192..288.
        let pts = [
            assumed("DE", "FR", 192),
            assumed("DE", "FR", 287),
            assumed("FR", "DE", 300),
        ];
        let refs: Vec<&InputPoint> = pts.iter().collect();
        let stored = [AssumedDay {
            day: 2,
            from: z("DE"),
            to: z("FR"),
            mask: 1,
        }];
        let w = plan_write(&refs, &stored);
        assert_eq!((w.inserted, w.unchanged), (2, 1));
        assert_eq!(w.days, vec![2, 3]);
        assert_eq!(w.rows[0].mask, 1 | 1 << 95);
        assert_eq!(w.rows[1].mask, 1 << 12);
        let again = plan_write(&refs, &w.rows);
        assert_eq!((again.inserted, again.unchanged), (0, 3));
        assert!(again.rows.is_empty() && again.days.is_empty());
    }

    #[test]
    fn merged_points_stand_in_key_order_and_a_real_point_hides_its_bit() {
        let stored = |p: InputPoint| StoredInput {
            point: p,
            updated_at: 7,
        };
        let real = vec![
            stored(flow_point(
                "AT",
                "DE",
                96,
                3.0,
                DataState::Official,
                "ENTSO-E",
            )),
            stored(flow_point(
                "DE",
                "FR",
                96,
                2.0,
                DataState::Official,
                "ENTSO-E",
            )),
            stored(flow_point(
                "AT",
                "DE",
                97,
                3.0,
                DataState::Official,
                "ENTSO-E",
            )),
        ];
        let rows = vec![
            (
                AssumedDay {
                    day: 1,
                    from: z("DE"),
                    to: z("AT"),
                    mask: 0b111,
                },
                9,
            ),
            (
                AssumedDay {
                    day: 1,
                    from: z("DE"),
                    to: z("FR"),
                    mask: 0b11,
                },
                9,
            ),
        ];
        let got = merge(real, &rows, SlotRange::new(Slot(96), Slot(98)));
        let keys: Vec<(i64, String, String, f64)> = got
            .iter()
            .map(|s| match &s.point.key {
                InputKey::Flow { from, to } => (
                    s.point.slot.0,
                    from.as_str().to_string(),
                    to.as_str().to_string(),
                    s.point.mw,
                ),
                _ => unreachable!(),
            })
            .collect();
        let k = |slot, a: &str, b: &str, mw| (slot, a.to_string(), b.to_string(), mw);
        assert_eq!(
            keys,
            vec![
                k(96, "AT", "DE", 3.0),
                k(96, "DE", "AT", 0.0),
                k(96, "DE", "FR", 2.0),
                k(97, "AT", "DE", 3.0),
                k(97, "DE", "AT", 0.0),
                k(97, "DE", "FR", 0.0),
            ]
        );
        assert_eq!(days_of(SlotRange::new(Slot(96), Slot(192))), (1, 1));
    }
}
