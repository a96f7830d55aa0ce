//! The fast JSON writer of the answers: serde_json's compact format, byte for byte, with the points
//! of [`Values`](crate::Values) written straight from their slots and values (no per-point
//! serializer calls, no float formatting for numbers that are whole hundredths).

use crate::stamp::StampWriter;
use crate::values::{FastGuard, round2};
use gridprint_core::slot::Slot;
use serde::Serialize;

/// The compact JSON of `value`, `points` sizing the buffer (see [`crate::Answer::points`]).
pub fn to_json<T: Serialize + ?Sized>(value: &T, points: usize) -> Vec<u8> {
    let _guard = FastGuard::on();
    let mut out = Vec::with_capacity(256 + 36 * points);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, FastFormatter);
    match value.serialize(&mut ser) {
        Ok(()) => out,
        Err(_) => b"[]".to_vec(),
    }
}

/// Writes `v` (already rounded to 2 decimals) exactly as serde_json writes the `f64` (shortest
/// formatting. Returns `false` (writing nothing) where it cannot guarantee the same bytes: `-0.0`,
/// values that are not a whole number of hundredths, and magnitudes of 10^13 and more.
fn write_hundredths(out: &mut Vec<u8>, v: f64) -> bool {
    let k = (v * 100.0).round();
    if !k.is_finite()
        || k.abs() >= 1e15
        || (k / 100.0).to_bits() != v.to_bits()
        || (k == 0.0 && v.to_bits() != 0)
    {
        return false;
    }
    let k = k as i64;
    if k < 0 {
        out.push(b'-');
    }
    let a = k.unsigned_abs();
    let (int, frac) = (a / 100, (a % 100) as u8);
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut n = int;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
    out.push(b'.');
    out.push(b'0' + frac / 10);
    if frac % 10 != 0 {
        out.push(b'0' + frac % 10);
    }
    true
}

/// serde_json's compact format, with numbers written by [`write_hundredths`] where it can and the
/// points of [`Values`](crate::Values) (handed over as bytes, see `FastGuard`) written directly:
/// `[["2024-06-15T12:00:00Z",123.45],…]`, byte for byte what the element-wise path writes.
struct FastFormatter;

impl serde_json::ser::Formatter for FastFormatter {
    fn write_f64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: f64) -> std::io::Result<()> {
        let mut b = Vec::with_capacity(24);
        if write_hundredths(&mut b, v) {
            w.write_all(&b)
        } else {
            serde_json::ser::CompactFormatter.write_f64(w, v)
        }
    }

    fn write_byte_array<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bytes: &[u8],
    ) -> std::io::Result<()> {
        // Written through a small buffer that stays in cache.
        const FLUSH: usize = 16 * 1024;
        let mut out = Vec::with_capacity(FLUSH + 64);
        let mut stamps = StampWriter::default();
        out.push(b'[');
        for (i, rec) in bytes.chunks_exact(16).enumerate() {
            let (a, b) = rec.split_at(8);
            let slot = Slot(i64::from_le_bytes(a.try_into().unwrap_or_default()));
            let value = f64::from_bits(u64::from_le_bytes(b.try_into().unwrap_or_default()));
            if out.len() >= FLUSH {
                w.write_all(&out)?;
                out.clear();
            }
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"[\"");
            stamps.write(&mut out, slot);
            out.extend_from_slice(b"\",");
            let v = round2(value);
            if !v.is_finite() {
                out.extend_from_slice(b"null");
            } else if !write_hundredths(&mut out, v) {
                serde_json::ser::CompactFormatter.write_f64(&mut out, v)?;
            }
            out.push(b']');
        }
        out.push(b']');
        w.write_all(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::{FlagSeries, ScoreResult, Scores};
    use crate::values::{Point, Values};
    use gridprint_core::derived::Coverage;
    use gridprint_core::quality::ZoneStatus;
    use gridprint_core::reference::Scope;
    use gridprint_core::zone::ZoneCode;

    #[test]
    fn hundredths_equal_serde_json() {
        let mut vals = vec![
            0.0,
            -0.0,
            0.01,
            -0.01,
            0.1,
            0.5,
            1.0,
            26.9,
            26.0,
            205.91,
            -205.91,
            99.99,
            100.0,
            1e12,
            9.99e12,
            1e13,
            1.5e13,
            1e16,
            1e20,
            123456789.01,
            -3.1,
        ];
        let mut x: u64 = 99;
        for _ in 0..200_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let mag = 10f64.powi((x >> 60) as i32 - 3);
            let v = ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.3) * mag;
            vals.push(round2(v));
            vals.push(round2(v as f32 as f64));
        }
        for v in vals {
            let mut b = Vec::new();
            let fast = write_hundredths(&mut b, v);
            let want = serde_json::to_string(&v).unwrap();
            if fast {
                assert_eq!(String::from_utf8(b).unwrap(), want, "{v:?}");
            }
        }
    }

    #[test]
    fn fast_json_equals_serde_json() {
        let mut values = Vec::new();
        for (i, v) in [
            1.23456,
            -0.001,
            26.9,
            26.0,
            205.914,
            f64::NAN,
            -12.5,
            1e17,
            0.004,
        ]
        .into_iter()
        .enumerate()
        {
            values.push(Point {
                slot: Slot(19_723 * 96 + 90 + 7 * i as i64),
                value: v,
            });
        }
        values.push(Point {
            slot: Slot(-719_530 * 96),
            value: 1.0,
        });
        let series = |values: Vec<Point>| FlagSeries {
            valid: true,
            zone_status: ZoneStatus::Complete,
            values: Values(values),
        };
        let r = Scores::Series(vec![ScoreResult {
            scope: Scope::LifeCycle,
            zone: ZoneCode::parse("DE").unwrap(),
            coverage: Coverage::Global,
            series: vec![series(values), series(vec![])],
        }]);
        let fast = to_json(&r, 0);
        assert_eq!(
            String::from_utf8(fast).unwrap(),
            serde_json::to_string(&r).unwrap()
        );
    }
}
