//! The forecast archive and the published accuracy: what the worker
//! issued, kept for a configurable period, and how it did against what happened.
//!
//! - [`ArchivedForecast`]: one zone's forecast as one worker cycle issued it — its origin (the
//!   cycle's current slot), the carbon footprint it forecast from the origin on, and the inputs it
//!   was traced from (each series' last known slot and the values forecast from the origin on).
//! - [`pack_values`] is the one codec of those values: rounded to a quantum (0.01 g/kWh, 0.1 MW) and
//!   written as variable-length differences, so that a zone's 96-hour forecast costs a few bytes per
//!   slot. Both stores keep the packed bytes ([`pack_footprints`], [`pack_inputs`]) as they are.
//! - [`AccuracyRow`]: the accuracy of one zone's forecasts over a window of days, per horizon band,
//!   beside persistence, as the worker computed it (`gridprint_pipeline::forecast::accuracy`).
//!
//! [`ForecastStore`] is what a backend implements; docs/forecast.md has the volume it costs.

use crate::{Result, StoreError, key_columns, key_from_columns};
use gridprint_core::inputs::InputKey;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::ZoneCode;

/// One zone's forecast as issued by one worker cycle.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchivedForecast {
    pub zone: ZoneCode,
    /// The slot the forecast was issued in (the cycle's current slot).
    pub origin: Slot,
    /// Unix seconds of the cycle that issued it.
    pub issued_at: i64,
    /// The first slot the zone's own generation or load was not known at the origin
    /// ([`known_until`]): persistence ("the same slot on the last known day") counts from it.
    pub known_until: Slot,
    /// Carbon footprint (global, life-cycle, gCO2/kWh) of slot `origin + h` at index `h`, NaN where
    /// the zone had none; kept to 0.01 g/kWh (the 2 decimals `/v1` serves).
    pub footprints: Vec<f64>,
    /// The forecast inputs of the zone (its generation per type, its load, its exports); empty when
    /// read without them ([`ArchiveQuery::inputs`]).
    pub inputs: Vec<ArchivedSeries>,
}

/// One input series of an archived forecast.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchivedSeries {
    pub key: InputKey,
    /// The series' last value before the forecast (provider data, or an estimate of a gap between
    /// two of its values): the model anchored there, and the values after it are the model's.
    pub last_known: Slot,
    /// MW of slot `origin + h` at index `h` (NaN: no value), kept to 0.1 MW.
    pub mw: Vec<f64>,
}

/// The first slot a zone's own generation or load was not known at `origin`, from the inputs of
/// its forecast: the slot after the latest `last_known` of those series (flows left out; the
/// latest, so that a type the provider stopped reporting does not move it back), at most the
/// origin (the origin when none was forecast).
pub fn known_until(inputs: &[ArchivedSeries], origin: Slot) -> Slot {
    inputs
        .iter()
        .filter(|s| !matches!(s.key, InputKey::Flow { .. }))
        .map(|s| s.last_known.offset(1))
        .max()
        .unwrap_or(origin)
        .min(origin)
}

/// Which archived forecasts to read.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchiveQuery {
    /// Forecasts whose origin lies here.
    pub origins: SlotRange,
    /// Only this zone's (`None`: every zone's).
    pub zone: Option<ZoneCode>,
    /// Whether to read the inputs too (the footprints are always read).
    pub inputs: bool,
}

/// The measures of one forecast (the model's or persistence's) over one band; `None` where nothing
/// could be compared.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Measures {
    /// Mean absolute percentage error, in %.
    pub mape: Option<f64>,
    /// Mean absolute error, gCO2/kWh.
    pub mae: Option<f64>,
    /// Mean Spearman rank correlation between forecast and truth within the band, over forecasts
    /// whose whole band has happened.
    pub rank: Option<f64>,
    /// Mean extra emissions, in %, of a 3-hour job placed at the forecast's best window of the band
    /// against the truly best one.
    pub regret: Option<f64>,
}

/// The accuracy of one zone's archived forecasts issued in the last `window_days` days, over the
/// hours `band_from_h..band_to_h` after their origin.
#[derive(Debug, Clone, PartialEq)]
pub struct AccuracyRow {
    pub zone: ZoneCode,
    pub window_days: i64,
    pub band_from_h: i64,
    pub band_to_h: i64,
    /// Unix seconds of the computation.
    pub computed_at: i64,
    /// The first and last origin of the forecasts scored (`None`: none).
    pub first_origin: Option<Slot>,
    pub last_origin: Option<Slot>,
    /// Forecasts with at least one slot of the band compared.
    pub forecasts: i64,
    /// Slots compared.
    pub points: i64,
    /// Forecasts whose whole band has happened (rank correlation and regret).
    pub ranked: i64,
    pub model: Measures,
    pub persistence: Measures,
}

/// The forecast archive and the published accuracy. The defaults keep nothing (a store without an
/// archive: `/v3/forecast/historical` answers as without one, and no accuracy is published).
pub trait ForecastStore {
    /// Stores issued forecasts in one transaction, replacing any of the same zone and origin.
    fn archive_forecasts(&self, forecasts: &[ArchivedForecast]) -> Result<()> {
        let _ = forecasts;
        Ok(())
    }

    /// The archived forecasts `query` asks for, ordered by (origin, zone).
    fn archived_forecasts(&self, query: &ArchiveQuery) -> Result<Vec<ArchivedForecast>> {
        let _ = query;
        Ok(Vec::new())
    }

    /// The latest origin archived, if any.
    fn latest_archived_origin(&self) -> Result<Option<Slot>> {
        Ok(None)
    }

    /// Deletes every forecast issued before `before`; returns how many.
    fn prune_forecast_archive(&self, before: Slot) -> Result<usize> {
        let _ = before;
        Ok(0)
    }

    /// Replaces the published accuracy by `rows` in one transaction and bumps the data version, so
    /// that serving replicas reload it (`gridprint_query::DataCache`).
    fn replace_forecast_accuracy(&self, rows: &[AccuracyRow]) -> Result<()> {
        let _ = rows;
        Ok(())
    }

    /// The published accuracy, ordered by (zone, window, band).
    fn forecast_accuracy(&self) -> Result<Vec<AccuracyRow>> {
        Ok(Vec::new())
    }
}

/// Archived footprints are kept in hundredths of a gCO2/kWh.
pub const FOOTPRINT_SCALE: f64 = 100.0;
/// Archived inputs are kept in tenths of a MW.
pub const INPUT_SCALE: f64 = 10.0;
/// The version byte that opens every packed column.
const FORMAT: u8 = 1;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A reader of packed bytes; every read past the end or out of range is corrupt.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn corrupt(&self, what: &str) -> StoreError {
        StoreError::Corrupt(format!("archived forecast: {what} at byte {}", self.at))
    }

    fn byte(&mut self) -> Result<u8> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| self.corrupt("unexpected end"))?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.corrupt("varint too long"))
    }

    fn count(&mut self) -> Result<usize> {
        let n = self.varint()?;
        // Each counted item takes at least one byte.
        if n > (self.bytes.len() - self.at) as u64 {
            return Err(self.corrupt("count beyond the data"));
        }
        Ok(n as usize)
    }

    fn text(&mut self) -> Result<&str> {
        let n = self.count()?;
        let s = std::str::from_utf8(&self.bytes[self.at..self.at + n])
            .map_err(|_| self.corrupt("text not UTF-8"))?;
        self.at += n;
        Ok(s)
    }

    fn values(&mut self, scale: f64) -> Result<Vec<f64>> {
        let n = self.count()?;
        let mut out = Vec::with_capacity(n);
        let mut prev = 0i64;
        for _ in 0..n {
            match self.varint()? {
                0 => out.push(f64::NAN),
                code => {
                    prev = prev
                        .checked_add(unzigzag(code - 1))
                        .ok_or_else(|| self.corrupt("value out of range"))?;
                    // Divided, not multiplied by the quantum: the nearest double of the decimal.
                    out.push(prev as f64 / scale);
                }
            }
        }
        Ok(out)
    }

    fn done(&self) -> Result<()> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(self.corrupt("trailing bytes"))
        }
    }
}

/// Appends `values` rounded to `1 / scale`: their count, then per value 0 for NaN, else 1 + the
/// zigzag of its difference (in those units) to the previous value that had one, as a varint.
pub fn pack_values(out: &mut Vec<u8>, values: &[f64], scale: f64) {
    put_varint(out, values.len() as u64);
    let mut prev = 0i64;
    for v in values {
        if v.is_finite() {
            let q = (v * scale).round() as i64;
            put_varint(out, zigzag(q - prev) + 1);
            prev = q;
        } else {
            out.push(0);
        }
    }
}

/// The packed footprints of a forecast (`ArchivedForecast::footprints`).
pub fn pack_footprints(footprints: &[f64]) -> Vec<u8> {
    let mut out = vec![FORMAT];
    pack_values(&mut out, footprints, FOOTPRINT_SCALE);
    out
}

/// The footprints of [`pack_footprints`]' bytes.
pub fn unpack_footprints(bytes: &[u8]) -> Result<Vec<f64>> {
    let mut r = Reader { bytes, at: 0 };
    if r.byte()? != FORMAT {
        return Err(r.corrupt("unknown format"));
    }
    let values = r.values(FOOTPRINT_SCALE)?;
    r.done()?;
    Ok(values)
}

/// The packed inputs of a forecast issued at `origin`: their count, then per series its key
/// columns ([`key_columns`]; the zone is the row's), the slots from its last known value to the
/// origin, and its values.
pub fn pack_inputs(inputs: &[ArchivedSeries], origin: Slot) -> Vec<u8> {
    let mut out = vec![FORMAT];
    put_varint(&mut out, inputs.len() as u64);
    for s in inputs {
        let (kind, _, other) = key_columns(&s.key);
        out.push(kind as u8);
        put_varint(&mut out, other.len() as u64);
        out.extend_from_slice(other.as_bytes());
        put_varint(&mut out, zigzag(origin.0 - s.last_known.0));
        pack_values(&mut out, &s.mw, INPUT_SCALE);
    }
    out
}

/// The inputs of [`pack_inputs`]' bytes, for a forecast of `zone` issued at `origin`.
pub fn unpack_inputs(bytes: &[u8], zone: &ZoneCode, origin: Slot) -> Result<Vec<ArchivedSeries>> {
    let mut r = Reader { bytes, at: 0 };
    if r.byte()? != FORMAT {
        return Err(r.corrupt("unknown format"));
    }
    let n = r.count()?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let kind = i16::from(r.byte()?);
        let key = key_from_columns(kind, zone.as_str(), r.text()?)?;
        let back = unzigzag(r.varint()?);
        out.push(ArchivedSeries {
            key,
            last_known: Slot(origin.0 - back),
            mw: r.values(INPUT_SCALE)?,
        });
    }
    r.done()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridprint_core::production::ProductionType;

    fn z(s: &str) -> ZoneCode {
        ZoneCode::parse(s).unwrap()
    }

    #[test]
    fn values_come_back_to_their_quantum_with_gaps() {
        let values = [
            123.456,
            123.454,
            f64::NAN,
            0.0,
            1e6,
            -5.0,
            f64::INFINITY,
            7.005,
        ];
        let packed = pack_footprints(&values);
        let back = unpack_footprints(&packed).unwrap();
        assert_eq!(back.len(), values.len());
        for (a, b) in values.iter().zip(&back) {
            if a.is_finite() {
                assert!((a - b).abs() <= 0.005 + 1e-9, "{a} {b}");
            } else {
                assert!(b.is_nan());
            }
        }
        // A smooth forecast costs about a byte per slot.
        let smooth: Vec<f64> = (0..384).map(|i| 300.0 + (i as f64 / 20.0).sin()).collect();
        assert!(
            pack_footprints(&smooth).len() < 2 * 384,
            "{}",
            pack_footprints(&smooth).len()
        );
    }

    #[test]
    fn inputs_round_trip_and_corrupt_bytes_are_refused() {
        let origin = Slot(2_000_000);
        let inputs = vec![
            ArchivedSeries {
                key: InputKey::Generation {
                    zone: z("DE"),
                    production_type: ProductionType::WindOnshore,
                },
                last_known: origin.offset(-5),
                mw: vec![1000.04, 1010.0, f64::NAN, 990.26],
            },
            ArchivedSeries {
                key: InputKey::Load { zone: z("DE") },
                last_known: origin.offset(-4),
                mw: vec![50_000.0],
            },
            ArchivedSeries {
                key: InputKey::Flow {
                    from: z("DE"),
                    to: z("FR"),
                },
                last_known: origin.offset(2),
                mw: vec![],
            },
        ];
        let bytes = pack_inputs(&inputs, origin);
        let back = unpack_inputs(&bytes, &z("DE"), origin).unwrap();
        assert_eq!(back.len(), 3);
        for (a, b) in inputs.iter().zip(&back) {
            assert_eq!(a.key, b.key);
            assert_eq!(a.last_known, b.last_known);
            assert_eq!(a.mw.len(), b.mw.len());
            for (x, y) in a.mw.iter().zip(&b.mw) {
                assert!(x.is_nan() && y.is_nan() || (x - y).abs() <= 0.05 + 1e-9);
            }
        }
        assert_eq!(known_until(&back, origin), origin.offset(-3));
        assert_eq!(known_until(&back[2..], origin), origin);
        for cut in 0..bytes.len() {
            assert!(unpack_inputs(&bytes[..cut], &z("DE"), origin).is_err());
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(unpack_inputs(&extra, &z("DE"), origin).is_err());
        assert!(unpack_footprints(&[9, 0]).is_err());
        assert!(unpack_footprints(&[FORMAT, 200, 1]).is_err());
    }
}
