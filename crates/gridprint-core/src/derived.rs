//! Derived outputs as stored and cached: one [`DerivedDay`] per zone and UTC day, columnar.
//!
//! A day holds 96 slot flags (computed?, zone_status, valid, frozen) and one `f32` column of 96 values
//! per series (footprints, impacts, scores, mix per type, shares per partner zone), NaN where a slot has
//! no value. Columns are what the API's in-memory cache serves from; days are what stores persist (one
//! row per zone and day, encoded with [`DerivedDay::encode`]), so a year of 52 zones is ~19,000 rows.

use crate::engine::SlotResult;
use crate::production::ProductionType;
use crate::quality::ZoneStatus;
use crate::reference::{FootprintType, ReferenceData, Scope};
use crate::slot::{SLOTS_PER_DAY, Slot};
use crate::zone::ZoneCode;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const N: usize = SLOTS_PER_DAY as usize;

/// Whether a value was traced with the zone's neighbours (global) or from its own generation (local).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Coverage {
    Global,
    Local,
}

impl Coverage {
    pub fn as_str(self) -> &'static str {
        match self {
            Coverage::Global => "global",
            Coverage::Local => "local",
        }
    }
}

/// One derived series of a zone.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SeriesKey {
    Footprint {
        footprint_type: FootprintType,
        scope: Scope,
        coverage: Coverage,
    },
    Impact {
        coverage: Coverage,
    },
    Score {
        coverage: Coverage,
    },
    /// MW of a production type consumed in the zone after flow tracing.
    Mix(ProductionType),
    /// % of the zone's consumption generated in `origin` (itself included).
    MixShare {
        origin: ZoneCode,
    },
    /// % of the zone's generation consumed in `destination` (itself included).
    FlowShare {
        destination: ZoneCode,
    },
    /// Part of the zone's global footprint that comes from `source`, in the footprint's unit.
    FootprintShare {
        source: ZoneCode,
        footprint_type: FootprintType,
        scope: Scope,
    },
    /// Part of the zone's global water impact that comes from `source`, stress-l/kWh.
    ImpactShare {
        source: ZoneCode,
    },
    /// Total generation G of the zone (pumped storage excluded), MW.
    Generation,
    /// Consumption L of the zone after flow tracing, MW.
    Consumption,
    /// MW generated in `origin` and consumed in the zone (row of X; `origin` may be the zone itself).
    /// Stored; gridprint-query computes the four share series above from it (`endpoints/shares.rs`;
    /// `share_columns`, feature `testing`, is the same arithmetic for the tests).
    Exchange {
        origin: ZoneCode,
    },
}

/// Flags of one zone and slot, packed in a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SlotFlags(pub u8);

impl SlotFlags {
    const PRESENT: u8 = 1;
    const VALID: u8 = 2;
    const FROZEN: u8 = 4;

    pub fn new(status: ZoneStatus, valid: bool, frozen: bool) -> SlotFlags {
        SlotFlags(
            Self::PRESENT
                | if valid { Self::VALID } else { 0 }
                | if frozen { Self::FROZEN } else { 0 }
                | ((status as u8) << 4),
        )
    }
    /// Whether the slot was computed for this zone.
    pub fn present(self) -> bool {
        self.0 & Self::PRESENT != 0
    }
    pub fn valid(self) -> bool {
        self.0 & Self::VALID != 0
    }
    pub fn frozen(self) -> bool {
        self.0 & Self::FROZEN != 0
    }
    pub fn status(self) -> ZoneStatus {
        ZoneStatus::from_u8(self.0 >> 4).unwrap_or(ZoneStatus::Missing)
    }
}

/// All derived outputs of one zone for one UTC day.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DerivedDay {
    pub zone: ZoneCode,
    /// Days since 1970-01-01.
    pub day: i64,
    /// 96 slot flags.
    pub flags: Vec<SlotFlags>,
    /// Columns of 96 values (NaN = no value), by key.
    pub series: BTreeMap<SeriesKey, Vec<f32>>,
}

/// Equality where NaN (no value) equals NaN: two days are equal when they hold the same values.
impl PartialEq for DerivedDay {
    fn eq(&self, other: &Self) -> bool {
        self.zone == other.zone
            && self.day == other.day
            && self.flags == other.flags
            && self.series.len() == other.series.len()
            && self
                .series
                .iter()
                .zip(&other.series)
                .all(|((ka, a), (kb, b))| {
                    ka == kb
                        && a.iter()
                            .zip(b)
                            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
                })
    }
}

/// A stored day that could not be decoded.
#[derive(Debug, thiserror::Error)]
#[error("corrupt derived day: {0}")]
pub struct DecodeError(String);

impl DerivedDay {
    pub fn new(zone: ZoneCode, day: i64) -> DerivedDay {
        DerivedDay {
            zone,
            day,
            flags: vec![SlotFlags::default(); N],
            series: BTreeMap::new(),
        }
    }

    /// First slot of the day.
    pub fn first_slot(&self) -> Slot {
        Slot::first_of_day(self.day)
    }

    /// Value of a series at a slot index, if any.
    pub fn value(&self, key: &SeriesKey, idx: usize) -> Option<f32> {
        self.series
            .get(key)
            .map(|c| c[idx])
            .filter(|v| v.is_finite())
    }

    /// Sets one value (creating the column filled with NaN if needed). Non-finite values clear it.
    pub fn set(&mut self, key: SeriesKey, idx: usize, value: f64) {
        let col = self.series.entry(key).or_insert_with(|| vec![f32::NAN; N]);
        col[idx] = if value.is_finite() {
            value as f32
        } else {
            f32::NAN
        };
    }

    /// Clears every value and the flags of one slot.
    pub fn clear_slot(&mut self, idx: usize) {
        self.flags[idx] = SlotFlags::default();
        for col in self.series.values_mut() {
            col[idx] = f32::NAN;
        }
    }

    /// Copies one slot (flags and every value) from another day of the same zone.
    pub fn copy_slot_from(&mut self, other: &DerivedDay, idx: usize) {
        self.clear_slot(idx);
        self.flags[idx] = other.flags[idx];
        for (k, col) in &other.series {
            if col[idx].is_finite() {
                self.series
                    .entry(k.clone())
                    .or_insert_with(|| vec![f32::NAN; N])[idx] = col[idx];
            }
        }
    }

    /// Drops columns without any value.
    pub fn prune(&mut self) {
        self.series.retain(|_, c| c.iter().any(|v| v.is_finite()));
    }

    /// Whether the day holds nothing (no computed slot and no values): such days are deleted.
    pub fn is_empty(&self) -> bool {
        !self.any_present()
            && self
                .series
                .values()
                .all(|c| c.iter().all(|v| !v.is_finite()))
    }

    /// Whether any slot was computed.
    pub fn any_present(&self) -> bool {
        self.flags.iter().any(|f| f.present())
    }

    /// Compact binary encoding for storage.
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_stdvec(self).expect("derived day encodes")
    }

    pub fn decode(bytes: &[u8]) -> Result<DerivedDay, DecodeError> {
        let d: DerivedDay = postcard::from_bytes(bytes).map_err(|e| DecodeError(e.to_string()))?;
        if d.flags.len() != N || d.series.values().any(|c| c.len() != N) {
            return Err(DecodeError("wrong column length".into()));
        }
        Ok(d)
    }
}

/// Exchanges whose share of the consumer's consumption and of the origin's generation both stay below
/// this percentage in every slot of a day are not stored (they round to 0.00 % anyway).
pub const SHARE_EPSILON_PCT: f64 = 0.001;

/// The fixed (non-partner) series of a zone-day, in builder order.
const FIXED_KEYS: usize = 14;

fn fixed_key(k: usize) -> SeriesKey {
    let cov = |c| {
        if c == 0 {
            Coverage::Local
        } else {
            Coverage::Global
        }
    };
    match k {
        0..=7 => SeriesKey::Footprint {
            footprint_type: FootprintType::ALL[k / 4],
            scope: Scope::ALL[(k / 2) % 2],
            coverage: cov(k % 2),
        },
        8 | 9 => SeriesKey::Impact {
            coverage: cov(k % 2),
        },
        10 | 11 => SeriesKey::Score {
            coverage: cov(k % 2),
        },
        12 => SeriesKey::Generation,
        _ => SeriesKey::Consumption,
    }
}

/// Dense, allocation-free accumulator for one zone-day while a compute runs; turned into a sparse
/// [`DerivedDay`] by [`DayBuilder::finish`].
#[derive(Debug, Clone)]
pub struct DayBuilder {
    zone: ZoneCode,
    day: i64,
    flags: [SlotFlags; N],
    fixed: Vec<[f32; N]>,
    mix: Vec<[f32; N]>,
    /// Exchange from each origin zone (by index), MW.
    exchange: Vec<[f32; N]>,
}

impl DayBuilder {
    /// Starts from a stored day (or an empty one) for a zone set of `n` zones.
    pub fn from_day(
        reference: &ReferenceData,
        day: Option<&DerivedDay>,
        zone: ZoneCode,
        day_number: i64,
    ) -> DayBuilder {
        let n = reference.zones.len();
        let mut b = DayBuilder {
            zone,
            day: day_number,
            flags: [SlotFlags::default(); N],
            fixed: vec![[f32::NAN; N]; FIXED_KEYS],
            mix: vec![[f32::NAN; N]; crate::production::N_TYPES],
            exchange: vec![[f32::NAN; N]; n],
        };
        if let Some(d) = day {
            b.flags.copy_from_slice(&d.flags);
            for (k, col) in &d.series {
                let target = match k {
                    SeriesKey::Mix(pt) => &mut b.mix[pt.index()],
                    SeriesKey::Exchange { origin } => match reference.zones.index_of(origin) {
                        Some(j) => &mut b.exchange[j],
                        None => continue,
                    },
                    other => match (0..FIXED_KEYS).find(|&f| fixed_key(f) == *other) {
                        Some(f) => &mut b.fixed[f],
                        None => continue,
                    },
                };
                target.copy_from_slice(col);
            }
        }
        b
    }

    /// Total generation per slot (NaN where unknown), for the exchange threshold of other zones.
    pub fn generation(&self) -> [f32; N] {
        self.fixed[12]
    }

    /// Whether slot `idx` holds a frozen, computed value (never recomputed).
    pub fn is_frozen_slot(&self, idx: usize) -> bool {
        self.flags[idx].present() && self.flags[idx].frozen()
    }

    fn clear(&mut self, idx: usize) {
        self.flags[idx] = SlotFlags::default();
        for c in self
            .fixed
            .iter_mut()
            .chain(self.mix.iter_mut())
            .chain(self.exchange.iter_mut())
        {
            c[idx] = f32::NAN;
        }
    }

    /// The sparse day: columns without any value dropped, exchanges below [`SHARE_EPSILON_PCT`] of
    /// both consumer and origin in every slot dropped.
    pub fn finish(
        self,
        reference: &ReferenceData,
        generation_of: impl Fn(usize, usize) -> f32,
    ) -> DerivedDay {
        let mut d = DerivedDay::new(self.zone, self.day);
        d.flags.copy_from_slice(&self.flags);
        let keep = |c: &[f32; N]| c.iter().any(|v| v.is_finite());
        for (k, c) in self.fixed.iter().enumerate() {
            if keep(c) {
                d.series.insert(fixed_key(k), c.to_vec());
            }
        }
        for (t, c) in self.mix.iter().enumerate() {
            if c.iter().any(|v| v.is_finite() && *v > 0.0) {
                d.series
                    .insert(SeriesKey::Mix(ProductionType::ALL[t]), c.to_vec());
            }
        }
        let consumption = &self.fixed[13];
        let eps = (SHARE_EPSILON_PCT / 100.0) as f32;
        for (j, c) in self.exchange.iter().enumerate() {
            let significant = (0..N).any(|s| {
                let x = c[s];
                x.is_finite()
                    && x > 0.0
                    && (x >= eps * consumption[s] || x >= eps * generation_of(j, s))
            });
            if significant {
                d.series.insert(
                    SeriesKey::Exchange {
                        origin: reference.zones.code(j).clone(),
                    },
                    c.to_vec(),
                );
            }
        }
        d
    }
}

/// Writes one slot's result into the builders of every zone (indexed like the zone set). `flags[i]`
/// is `None` for zones that get no value in this slot; builders whose slot is frozen are left alone
/// (`skip[i]`). External sources (zones modelled from their neighbours) keep their local footprints
/// and impact without flags, so footprint shares can name them as a source.
pub fn write_slot(
    result: &SlotResult,
    flags: &[Option<SlotFlags>],
    skip: &[bool],
    days: &mut [DayBuilder],
) {
    let n = days.len();
    let idx = result.slot.index_in_day();
    for i in 0..n {
        if skip[i] {
            continue;
        }
        let day = &mut days[i];
        day.clear(idx);
        let Some(zr) = &result.zones[i] else { continue };
        let put = |v: f64| if v.is_finite() { v as f32 } else { f32::NAN };
        for (f, ft) in FootprintType::ALL.iter().enumerate() {
            for (s, sc) in Scope::ALL.iter().enumerate() {
                let k = f * 4 + s * 2;
                day.fixed[k][idx] = put(zr.footprint_local[ft.index()][sc.index()]);
                if flags[i].is_some() {
                    day.fixed[k + 1][idx] = put(zr.footprint_global[ft.index()][sc.index()]);
                }
            }
        }
        day.fixed[8][idx] = put(zr.impact_local);
        let Some(fl) = flags[i] else { continue };
        day.flags[idx] = fl;
        day.fixed[9][idx] = put(zr.impact_global);
        day.fixed[10][idx] = put(zr.score_local);
        day.fixed[11][idx] = put(zr.score_global);
        day.fixed[12][idx] = put(zr.generation);
        day.fixed[13][idx] = put(zr.consumption);
        for (t, v) in zr.mix.iter().enumerate() {
            day.mix[t][idx] = if *v > 0.0 { *v as f32 } else { f32::NAN };
        }
        for j in 0..n {
            let x = result.x[i * n + j];
            day.exchange[j][idx] = if x > 0.0 && x.is_finite() {
                x as f32
            } else {
                f32::NAN
            };
        }
    }
}

/// Share columns of one zone-day computed from the stored exchanges (docs/api.md §5):
/// mix-share(i←j) = 100·X\[i\]\[j\]/L_i, flow-share(j→i) = 100·X\[i\]\[j\]/G_j,
/// footprint-share(i, j) = X\[i\]\[j\]/L_i · local_j, impact-share(i, j) = X\[i\]\[j\]/L_i ·
/// local_impact_j.
/// `day_of(code)` gives the same day of another zone (for its local footprints and exchanges).
#[cfg(any(test, feature = "testing"))]
pub fn share_columns<'a>(
    day: &DerivedDay,
    all_days: impl Iterator<Item = &'a DerivedDay>,
    day_of: impl Fn(&ZoneCode) -> Option<&'a DerivedDay>,
) -> BTreeMap<SeriesKey, Vec<f32>> {
    let mut out = BTreeMap::new();
    let nan = || vec![f32::NAN; N];
    let col = |d: &DerivedDay, k: &SeriesKey| d.series.get(k).cloned().unwrap_or_else(nan);
    let consumption = col(day, &SeriesKey::Consumption);
    let generation = col(day, &SeriesKey::Generation);
    for (k, x) in &day.series {
        let SeriesKey::Exchange { origin } = k else {
            continue;
        };
        let share: Vec<f32> = (0..N).map(|s| 100.0 * x[s] / consumption[s]).collect();
        let fraction = |s: usize| x[s] / consumption[s];
        let origin_day = if *origin == day.zone {
            Some(day)
        } else {
            day_of(origin)
        };
        if let Some(od) = origin_day {
            for ft in FootprintType::ALL {
                for sc in Scope::ALL {
                    let local = col(
                        od,
                        &SeriesKey::Footprint {
                            footprint_type: ft,
                            scope: sc,
                            coverage: Coverage::Local,
                        },
                    );
                    out.insert(
                        SeriesKey::FootprintShare {
                            source: origin.clone(),
                            footprint_type: ft,
                            scope: sc,
                        },
                        (0..N).map(|s| fraction(s) * local[s]).collect(),
                    );
                }
            }
            let impact = col(
                od,
                &SeriesKey::Impact {
                    coverage: Coverage::Local,
                },
            );
            out.insert(
                SeriesKey::ImpactShare {
                    source: origin.clone(),
                },
                (0..N).map(|s| fraction(s) * impact[s]).collect(),
            );
        }
        out.insert(
            SeriesKey::MixShare {
                origin: origin.clone(),
            },
            share,
        );
    }
    // Where this zone's generation went: the exchange columns naming it in every zone's day.
    let me = SeriesKey::Exchange {
        origin: day.zone.clone(),
    };
    for other in all_days {
        if let Some(x) = other.series.get(&me) {
            out.insert(
                SeriesKey::FlowShare {
                    destination: other.zone.clone(),
                },
                (0..N).map(|s| 100.0 * x[s] / generation[s]).collect(),
            );
        }
    }
    for c in out.values_mut() {
        for v in c.iter_mut() {
            if !v.is_finite() {
                *v = f32::NAN;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_roundtrip() {
        for st in [
            ZoneStatus::Missing,
            ZoneStatus::Preview,
            ZoneStatus::Complete,
        ] {
            for v in [true, false] {
                for fz in [true, false] {
                    let f = SlotFlags::new(st, v, fz);
                    assert!(f.present());
                    assert_eq!((f.status(), f.valid(), f.frozen()), (st, v, fz));
                }
            }
        }
        assert!(!SlotFlags::default().present());
    }

    #[test]
    fn encode_roundtrip_keeps_nan() {
        let mut d = DerivedDay::new(ZoneCode::parse("DE").unwrap(), 19_000);
        d.flags[3] = SlotFlags::new(ZoneStatus::Complete, true, true);
        d.set(SeriesKey::Mix(ProductionType::Coal), 3, 1234.5);
        let back = DerivedDay::decode(&d.encode()).unwrap();
        assert_eq!(
            back.value(&SeriesKey::Mix(ProductionType::Coal), 3),
            Some(1234.5)
        );
        assert_eq!(back.value(&SeriesKey::Mix(ProductionType::Coal), 4), None);
        assert_eq!(back.flags, d.flags);
        assert!(DerivedDay::decode(b"garbage").is_err());
    }
}
