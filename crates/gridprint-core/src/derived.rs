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

/// Shares below this percentage in every slot of a day are not stored (they round to 0.00 anyway).
pub const SHARE_EPSILON_PCT: f64 = 0.001;

/// Writes one slot's result for every zone into `days` (keyed by zone index), with the given flags.
/// `flags[i]` is `None` for zones that get no value in this slot.
pub fn write_slot(
    reference: &ReferenceData,
    result: &SlotResult,
    flags: &[Option<SlotFlags>],
    days: &mut [DerivedDay],
) {
    let n = reference.zones.len();
    let idx = result.slot.index_in_day();
    for i in 0..n {
        let day = &mut days[i];
        day.clear_slot(idx);
        let (Some(zr), Some(fl)) = (&result.zones[i], flags[i]) else {
            continue;
        };
        day.flags[idx] = fl;
        for ft in FootprintType::ALL {
            for sc in Scope::ALL {
                let (f, s) = (ft.index(), sc.index());
                day.set(
                    SeriesKey::Footprint {
                        footprint_type: ft,
                        scope: sc,
                        coverage: Coverage::Local,
                    },
                    idx,
                    zr.footprint_local[f][s],
                );
                day.set(
                    SeriesKey::Footprint {
                        footprint_type: ft,
                        scope: sc,
                        coverage: Coverage::Global,
                    },
                    idx,
                    zr.footprint_global[f][s],
                );
            }
        }
        day.set(
            SeriesKey::Impact {
                coverage: Coverage::Local,
            },
            idx,
            zr.impact_local,
        );
        day.set(
            SeriesKey::Impact {
                coverage: Coverage::Global,
            },
            idx,
            zr.impact_global,
        );
        day.set(
            SeriesKey::Score {
                coverage: Coverage::Local,
            },
            idx,
            zr.score_local,
        );
        day.set(
            SeriesKey::Score {
                coverage: Coverage::Global,
            },
            idx,
            zr.score_global,
        );
        for pt in ProductionType::ALL {
            let v = zr.mix[pt.index()];
            if v > 0.0 {
                day.set(SeriesKey::Mix(pt), idx, v);
            }
        }
        // Shares: row i of X (what i consumes, by origin j) and column i (where i's generation goes).
        let l = zr.consumption;
        let g = zr.generation;
        for j in 0..n {
            let x_ij = result.x[i * n + j];
            if l > 0.0 && x_ij > 0.0 {
                let pct = 100.0 * x_ij / l;
                if pct >= SHARE_EPSILON_PCT
                    || day.series.contains_key(&SeriesKey::MixShare {
                        origin: reference.zones.code(j).clone(),
                    })
                {
                    let origin = reference.zones.code(j).clone();
                    day.set(
                        SeriesKey::MixShare {
                            origin: origin.clone(),
                        },
                        idx,
                        pct,
                    );
                    if let Some(zj) = &result.zones[j] {
                        for ft in FootprintType::ALL {
                            for sc in Scope::ALL {
                                let local = zj.footprint_local[ft.index()][sc.index()];
                                day.set(
                                    SeriesKey::FootprintShare {
                                        source: origin.clone(),
                                        footprint_type: ft,
                                        scope: sc,
                                    },
                                    idx,
                                    x_ij / l * local,
                                );
                            }
                        }
                        day.set(
                            SeriesKey::ImpactShare {
                                source: origin.clone(),
                            },
                            idx,
                            x_ij / l * zj.impact_local,
                        );
                    }
                }
            }
            let x_ji = result.x[j * n + i];
            if g > 0.0 && x_ji > 0.0 {
                let pct = 100.0 * x_ji / g;
                let key = SeriesKey::FlowShare {
                    destination: reference.zones.code(j).clone(),
                };
                if pct >= SHARE_EPSILON_PCT || day.series.contains_key(&key) {
                    day.set(key, idx, pct);
                }
            }
        }
    }
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
