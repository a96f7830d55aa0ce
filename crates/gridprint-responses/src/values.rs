//! Values of a series: [`Point`]s in [`Values`], serialized as `[["2024-06-15T12:00:00Z", 123.45], …]`
//! with the timestamp and the number rounded by [`round2`] written in place into the answer (so a
//! one-year answer allocates no string per point); plus the `&'static str` fields ([`StaticStr`])
//! and how the client reads them back ([`static_str`]).

pub use crate::number::round2;
use crate::number::{HUNDREDTHS_MAX, hundredths_text, rounded_hundredths, write_rounded};
use crate::sink::with_sink;
use crate::stamp::{StampWriter, with_slot_stamp};
use gridprint_core::slot::Slot;
use serde::ser::{SerializeSeq, SerializeTuple};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `aggregation_method` of every aggregate.
pub const TIME_WEIGHTED_AVERAGE: &str = "time-weighted-average";

pub(crate) fn serialize_round2<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round2(*v))
}

pub(crate) fn serialize_round2_opt<S: Serializer>(
    v: &Option<f64>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_f64(round2(*v)),
        None => s.serialize_none(),
    }
}

/// `&'static str` under another name, for the constant fields of the responses (units, providers, …).
/// Same type; the alias only keeps serde's derive from inferring a borrow from a `&str` field, which
/// would make the structs deserializable from `'static` input only.
pub type StaticStr = &'static str;

/// Reads a `&'static str` field: the strings the server writes are returned as constants; any other
/// string (from another server of this interface) is leaked once and then reused, so memory stays
/// bounded by the number of distinct values.
pub fn static_str<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    const KNOWN: &[&str] = &[
        "MW",
        "%",
        "gCO2/kWh",
        "l/kWh",
        "stress-l/kWh",
        "water",
        "footprint",
        "impact",
        "score",
        TIME_WEIGHTED_AVERAGE,
        "ENTSO-E",
        "Elexon",
        "EPIAS",
        "up",
        "down",
    ];
    static INTERNED: std::sync::OnceLock<
        std::sync::Mutex<std::collections::HashSet<&'static str>>,
    > = std::sync::OnceLock::new();
    let s = String::deserialize(d)?;
    if let Some(k) = KNOWN.iter().find(|k| **k == s) {
        return Ok(k);
    }
    let mut set = INTERNED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(k) = set.get(s.as_str()) {
        return Ok(k);
    }
    let leaked: &'static str = Box::leak(s.into_boxed_str());
    set.insert(leaked);
    Ok(leaked)
}

/// One value at the start of a slot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub slot: Slot,
    /// Unrounded; rounded when serialized.
    pub value: f64,
}

struct PointSer<'a>(&'a Point);

impl Serialize for PointSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(2)?;
        with_slot_stamp(self.0.slot, |stamp| t.serialize_element(stamp))?;
        t.serialize_element(&round2(self.0.value))?;
        t.end()
    }
}

/// Points in ascending time, serialized as `[[timestamp, number], …]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Values(pub Vec<Point>);

/// Reads `[[timestamp, number], …]`; a `null` number becomes `NaN` (this server never writes one).
impl<'de> Deserialize<'de> for Values {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Values, D::Error> {
        let raw = Vec::<(String, Option<f64>)>::deserialize(d)?;
        raw.into_iter()
            .map(|(stamp, value)| {
                let t = gridprint_core::slot::parse_timestamp(&stamp)
                    .map_err(serde::de::Error::custom)?;
                Ok(Point {
                    slot: Slot::containing(t),
                    value: value.unwrap_or(f64::NAN),
                })
            })
            .collect::<Result<Vec<Point>, D::Error>>()
            .map(Values)
    }
}

/// Room a point takes at most in [`write_points`]'s fast path: `,["…Z",` (25 bytes), the number
/// ([`HUNDREDTHS_MAX`]) and `]`.
const POINT_ROOM: usize = 25 + HUNDREDTHS_MAX + 1;

/// Appends `[["2024-06-15T12:00:00Z",123.45],…]`: each point's slot start and its value rounded by
/// [`round2`] (`null` when not finite), byte for byte what serde_json writes for them. A point is
/// written in place: the buffer grows by a fixed [`POINT_ROOM`] zero bytes, the separator, timestamp
/// and number are stored into them, and the spare ones are cut off again. Each byte is stored once
/// and never read back, and the fixed sizes let the compiler write the copies as a few vector moves.
/// The array's `[` stands in the place of the first point's separator.
fn write_points(out: &mut Vec<u8>, points: &[Point]) {
    if points.is_empty() {
        out.extend_from_slice(b"[]");
        return;
    }
    out.reserve(1 + 34 * points.len());
    let mut stamps = StampWriter::default();
    for (i, p) in points.iter().enumerate() {
        let separator = if i == 0 { b'[' } else { b',' };
        let start = out.len();
        out.extend_from_slice(&[0u8; POINT_ROOM]);
        let room: &mut [u8; POINT_ROOM] = (&mut out[start..])
            .try_into()
            .expect("POINT_ROOM bytes were just added");
        let (head, rest) = room.split_at_mut(25);
        let stamp: &mut [u8; 20] = (&mut head[3..23]).try_into().expect("20 bytes");
        if let Some(k) = rounded_hundredths(p.value)
            && stamps.put(p.slot, stamp)
        {
            head[..3].copy_from_slice(&[separator, b'[', b'"']);
            head[23..].copy_from_slice(b"\",");
            let number: &mut [u8; HUNDREDTHS_MAX] = (&mut rest[..HUNDREDTHS_MAX])
                .try_into()
                .expect("HUNDREDTHS_MAX bytes");
            let n = hundredths_text(k, number);
            rest[n] = b']';
            out.truncate(start + 25 + n + 1);
            continue;
        }
        out.truncate(start);
        out.extend_from_slice(&[separator, b'[', b'"']);
        stamps.write(out, p.slot);
        out.extend_from_slice(b"\",");
        write_rounded(out, p.value);
        out.push(b']');
    }
    out.push(b']');
}

impl Serialize for Values {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if with_sink(|out| write_points(out, &self.0)).is_some() {
            // Inside `to_json`: the points are written; serde_json is handed an empty byte array,
            // which its formatter writes as nothing.
            return s.serialize_bytes(&[]);
        }
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for p in &self.0 {
            seq.serialize_element(&PointSer(p))?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_serialize_as_pairs_rounded() {
        let v = Values(vec![
            Point {
                slot: Slot(0),
                value: 1.23456,
            },
            Point {
                slot: Slot(1),
                value: -0.001,
            },
            Point {
                slot: Slot(2),
                value: 123.45f32 as f64,
            },
        ]);
        let s = serde_json::to_string(&v).unwrap();
        assert_eq!(
            s,
            r#"[["1970-01-01T00:00:00Z",1.23],["1970-01-01T00:15:00Z",0.0],["1970-01-01T00:30:00Z",123.45]]"#
        );
    }
}
