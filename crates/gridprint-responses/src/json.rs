//! The fast JSON writer of the answers: serde_json's compact format, byte for byte, with the points
//! of [`Values`](crate::Values) written straight from their slots and values (no per-point
//! serializer calls, no float formatting for numbers that are whole hundredths).
//!
//! While [`to_json`] runs, the answer's bytes go into a per-thread buffer (`crate::sink`): serde_json
//! writes the structure there, and [`Values`](crate::Values) append their points to the same buffer
//! themselves (then hand serde_json an empty byte array, which `FastFormatter` writes as nothing).

use crate::number::write_hundredths;
use crate::sink::{Sink, SinkWriter};
use serde::Serialize;

/// Bytes per point the JSON buffer is sized for: a point is `["2024-06-15T00:00:00Z",123.45]` and
/// its comma, 30 bytes in a year of factors (63.4 MB for 2.1 million points). The API reserves as
/// much of its response memory budget before it writes an answer.
pub const JSON_BYTES_PER_POINT: usize = 34;

/// The compact JSON of `value`, `points` sizing the buffer (see [`crate::Answer::points`]).
pub fn to_json<T: Serialize + ?Sized>(value: &T, points: usize) -> Vec<u8> {
    let sink = Sink::install(Vec::with_capacity(256 + JSON_BYTES_PER_POINT * points));
    let mut ser = serde_json::Serializer::with_formatter(SinkWriter, FastFormatter);
    let ok = value.serialize(&mut ser).is_ok();
    let out = sink.finish();
    if ok { out } else { b"[]".to_vec() }
}

/// serde_json's compact format, with numbers written by [`write_hundredths`] where it can; byte
/// arrays (the stand-in of [`Values`](crate::Values), which wrote themselves) are written as nothing.
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
        _w: &mut W,
        _bytes: &[u8],
    ) -> std::io::Result<()> {
        Ok(())
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
    use gridprint_core::slot::Slot;
    use gridprint_core::zone::ZoneCode;

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
        // A number of the fast path on a day of year -1, whose timestamp takes the slow path: the
        // room already added for the point is cut off again before the slow path writes it.
        values.push(Point {
            slot: Slot(-719_531 * 96 + 5),
            value: 12.5,
        });
        // A series whose first number takes the slow path, and a long one over several days.
        let nan_first = vec![
            Point {
                slot: Slot(19_723 * 96),
                value: f64::NAN,
            },
            Point {
                slot: Slot(19_723 * 96 + 1),
                value: -1e-3,
            },
        ];
        let mut x: u64 = 31;
        let many: Vec<Point> = (0..2_000)
            .map(|i| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let mag = 10f64.powi((x >> 60) as i32 - 4);
                Point {
                    slot: Slot(20_000 * 96 + 3 * i),
                    value: ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.4) * mag,
                }
            })
            .collect();
        let series = |values: Vec<Point>| FlagSeries {
            valid: true,
            zone_status: ZoneStatus::Complete,
            values: Values(values),
        };
        let r = Scores::Series(vec![ScoreResult {
            scope: Scope::LifeCycle,
            zone: ZoneCode::parse("DE").unwrap(),
            coverage: Coverage::Global,
            series: vec![
                series(values),
                series(vec![]),
                series(nan_first),
                series(many),
            ],
        }]);
        let fast = to_json(&r, 0);
        assert_eq!(
            String::from_utf8(fast).unwrap(),
            serde_json::to_string(&r).unwrap()
        );
    }
}
