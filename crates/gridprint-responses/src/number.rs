//! Numbers of the answers: [`round2`] (2 decimals, as the API reference asks) and the writers that
//! print a rounded value exactly as serde_json prints the `f64` (shortest form), from the integer
//! number of hundredths instead of a float formatting.

/// Rounds to 2 decimals as the API reference asks (docs/api.md, "Numbers"); `-0.0` becomes `0.0`.
pub fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0 + 0.0
}

use serde_json::ser::Formatter;

/// Writes `round2(value)` as serde_json does. Below 10^13 in magnitude the rounded value is
/// `k / 100` for the integer `k` nearest `value × 100`, and its shortest form is the digits of `k`
/// with the point before the last two (one when the last is 0): written from `k` directly.
pub(crate) fn write_rounded(out: &mut Vec<u8>, value: f64) {
    if let Some(k) = rounded_hundredths(value) {
        write_hundredths_of(out, k);
        return;
    }
    let v = round2(value);
    if !v.is_finite() {
        out.extend_from_slice(b"null");
    } else if !write_hundredths(out, v) {
        let _ = serde_json::ser::CompactFormatter.write_f64(out, v);
    }
}

/// `x.round() as i64` (halves away from zero) for `|x| < 2^52`, without a call to `round`: the
/// truncation is exact there and so is the fraction `x − trunc(x)`. The step is added as the
/// comparisons' 0 or 1, not chosen by branches: whether a value rounds up is a coin toss per point,
/// which a branch predictor would miss half the time.
fn round_half_away(x: f64) -> i64 {
    let t = x as i64;
    let frac = x - t as f64;
    t + i64::from(frac >= 0.5) - i64::from(frac <= -0.5)
}

/// `00`..`99`.
static DIGIT_PAIRS: [[u8; 2]; 100] = {
    let mut t = [[0u8; 2]; 100];
    let mut i = 0;
    while i < 100 {
        t[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    t
};

/// Writes `k / 100` as `int.frac`, the fraction with one digit when its last is 0 (`26.9`, `26.0`,
/// `-0.01`).
fn write_hundredths_of(out: &mut Vec<u8>, k: i64) {
    let mut buf = [0u8; HUNDREDTHS_MAX];
    let n = hundredths_text(k, &mut buf);
    out.extend_from_slice(&buf[..n]);
}

/// Room for any text [`hundredths_text`] writes (`|k| < 10^17`: a sign, 15 digits, the point and 2
/// decimals).
pub(crate) const HUNDREDTHS_MAX: usize = 24;

/// The number of hundredths `k` of `round2(value)` where [`write_rounded`] writes it from `k`
/// (`|value × 100| < 10^15`); `None` where it takes its slow path (larger magnitudes, not finite).
pub(crate) fn rounded_hundredths(value: f64) -> Option<i64> {
    let x = value * 100.0;
    (x.abs() < 1e15).then(|| round_half_away(x))
}

/// Writes the text of `k / 100` (as [`write_hundredths_of`] writes it) at the start of `buf`, for
/// `|k| < 10^17`; returns its length. Digits are placed from the right, each byte stored once.
pub(crate) fn hundredths_text(k: i64, buf: &mut [u8; HUNDREDTHS_MAX]) -> usize {
    let mut a = k.unsigned_abs();
    let frac = (a % 100) as usize;
    a /= 100;
    let sign = usize::from(k < 0);
    let int_digits = a.checked_ilog10().map_or(1, |l| l as usize + 1);
    let point = sign + int_digits;
    let len = if frac.is_multiple_of(10) {
        buf[point + 1] = b'0' + (frac / 10) as u8;
        point + 2
    } else {
        buf[point + 1..point + 3].copy_from_slice(&DIGIT_PAIRS[frac]);
        point + 3
    };
    buf[point] = b'.';
    let mut i = point;
    while a >= 100 {
        i -= 2;
        buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[(a % 100) as usize]);
        a /= 100;
    }
    if a >= 10 {
        buf[i - 2..i].copy_from_slice(&DIGIT_PAIRS[a as usize]);
    } else {
        buf[i - 1] = b'0' + a as u8;
    }
    if sign == 1 {
        buf[0] = b'-';
    }
    len
}

/// Writes `v` (already rounded to 2 decimals) exactly as serde_json writes the `f64` (shortest
/// formatting). Returns `false` (writing nothing) where it cannot guarantee the same bytes: `-0.0`,
/// values that are not a whole number of hundredths, and magnitudes of 10^13 and more.
pub(crate) fn write_hundredths(out: &mut Vec<u8>, v: f64) -> bool {
    let k = (v * 100.0).round();
    if !k.is_finite()
        || k.abs() >= 1e15
        || (k / 100.0).to_bits() != v.to_bits()
        || (k == 0.0 && v.to_bits() != 0)
    {
        return false;
    }
    write_hundredths_of(out, k as i64);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values around every magnitude the writers handle, a fixed pseudo-random sequence.
    fn samples() -> Vec<f64> {
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
            0.005,
            -0.005,
            0.015,
            2.675,
            -2.675,
            1.005,
            0.004999,
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
        ];
        let mut x: u64 = 99;
        for _ in 0..200_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let mag = 10f64.powi((x >> 60) as i32 - 3);
            let v = ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.3) * mag;
            vals.extend([v, v as f32 as f64, round2(v)]);
            // Halfway between two hundredths, and the floats next to it.
            let half = ((v * 100.0).trunc() + 0.5) / 100.0;
            vals.extend([
                half,
                f64::from_bits(half.to_bits() + 1),
                f64::from_bits(half.to_bits() - 1),
            ]);
        }
        vals
    }

    #[test]
    fn hundredths_equal_serde_json() {
        for v in samples().into_iter().map(round2) {
            let mut b = Vec::new();
            let fast = write_hundredths(&mut b, v);
            let want = serde_json::to_string(&v).unwrap();
            if fast {
                assert_eq!(String::from_utf8(b).unwrap(), want, "{v:?}");
            }
        }
    }

    #[test]
    fn rounded_values_equal_serde_json() {
        for v in samples() {
            let mut b = Vec::new();
            write_rounded(&mut b, v);
            let want = serde_json::to_string(&round2(v)).unwrap();
            assert_eq!(String::from_utf8(b).unwrap(), want, "{v:?}");
        }
    }

    #[test]
    fn rounding_halves_away_from_zero_as_round_does() {
        for v in samples() {
            let x = v * 100.0;
            if x.abs() < 1e15 {
                assert_eq!(round_half_away(x) as f64, x.round(), "{x:?}");
            }
        }
    }
}
