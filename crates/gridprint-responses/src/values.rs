//! Values of a series: [`Point`]s in [`Values`], serialized as `[["2024-06-15T12:00:00Z", 123.45], …]`
//! with the timestamp written into a stack buffer and the number rounded by [`round2`] (so a one-year
//! answer allocates no string per point); plus the `&'static str` fields ([`StaticStr`]) and how the
//! client reads them back ([`static_str`]).

pub use crate::number::round2;
use crate::number::{rounded_text, write_rounded};
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

/// Bytes copied per point by [`write_points`]: the longest point it assembles (`,["…Z",` and 24
/// bytes of number and `]`, 50 bytes).
const POINT_COPY: usize = 50;

/// Appends `[["2024-06-15T12:00:00Z",123.45],…]`: each point's slot start and its value rounded by
/// [`round2`] (`null` when not finite), byte for byte what serde_json writes for them. A point is
/// assembled on the stack (its number right-aligned, the 25 bytes before it copied in front) and
/// appended at once: one copy of a fixed [`POINT_COPY`] bytes, the spare ones cut off again, which
/// the compiler writes as a few vector moves instead of a `memcpy` call per point.
fn write_points(out: &mut Vec<u8>, points: &[Point]) {
    out.reserve(2 + 34 * points.len());
    let mut stamps = StampWriter::default();
    let mut head = *b",[\"0000-00-00T00:00:00Z\",";
    // `head`, the number right-aligned in the 24 bytes after it, `]`; then room for a fixed-size
    // copy from any start.
    let mut line = [0u8; 25 + 24 + 1 + POINT_COPY];
    line[49] = b']';
    out.push(b'[');
    for (i, p) in points.iter().enumerate() {
        let skip = usize::from(i == 0);
        let number: &mut [u8; 24] = (&mut line[25..49]).try_into().expect("24 bytes");
        if let (Some(stamp), Some(at)) = (stamps.stamp(p.slot), rounded_text(p.value, number)) {
            head[3..23].copy_from_slice(&stamp);
            line[at..at + 25].copy_from_slice(&head);
            let from = at + skip;
            let len = out.len() + 50 - from;
            let fixed: &[u8; POINT_COPY] = line[from..from + POINT_COPY]
                .try_into()
                .expect("POINT_COPY bytes");
            out.extend_from_slice(fixed);
            out.truncate(len);
            continue;
        }
        out.extend_from_slice(&head[skip..3]);
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
