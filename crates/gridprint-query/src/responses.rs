//! Response bodies of every `/v1` data endpoint, as serde structs whose field names are exactly those
//! of api-contract §3.
//!
//! Values are [`Values`]: a list of [`Point`]s serialized as `[["2024-06-15T12:00:00Z", 123.45], …]`
//! with the timestamp written into a stack buffer and the number rounded to 2 decimals with
//! `(v * 100).round() / 100` (so a one-year answer allocates no string per point). Series entries
//! carry the flags `valid` and `zone_status`. Aggregated answers (`aggregate=true`) use the
//! `*Aggregate` structs. [`QueryResponse`] wraps any endpoint's answer for the HTTP layer: JSON, CSV,
//! and whether every point is final (for `ETag` / `Cache-Control`).
//!
//! The structs also implement `Deserialize`, so the Rust client (`gridprint-client`) reads answers
//! into the very types the server writes them from: values parse back into [`Point`]s, and the
//! `&'static str` fields (units, providers, …) are interned by [`static_str`].

use crate::timefmt::{StampWriter, with_slot_stamp};
use gridprint_core::derived::Coverage;
use gridprint_core::production::ProductionType;
use gridprint_core::quality::{DataState, ZoneStatus};
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::Slot;
use gridprint_core::zone::ZoneCode;
use serde::ser::{SerializeSeq, SerializeTuple};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `aggregation_method` of every aggregate.
pub const TIME_WEIGHTED_AVERAGE: &str = "time-weighted-average";

/// Rounds to 2 decimals as the contract asks; `-0.0` becomes `0.0`.
pub fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0 + 0.0
}

fn serialize_round2<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round2(*v))
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

impl Serialize for Values {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if FAST_VALUES.get() {
            // Inside `QueryResponse::to_json`: hand the points to `FastFormatter` as bytes.
            let mut b = Vec::with_capacity(self.0.len() * 16);
            for p in &self.0 {
                b.extend_from_slice(&p.slot.0.to_le_bytes());
                b.extend_from_slice(&p.value.to_bits().to_le_bytes());
            }
            return s.serialize_bytes(&b);
        }
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for p in &self.0 {
            seq.serialize_element(&PointSer(p))?;
        }
        seq.end()
    }
}

/// A series entry with flags and values (footprints, impacts, score).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlagSeries {
    pub valid: bool,
    pub zone_status: ZoneStatus,
    pub values: Values,
}

/// A series entry without flags (factors).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlainSeries {
    pub values: Values,
}

macro_rules! flag_entry {
    ($(#[$doc:meta])* $name:ident, $field:ident, $block:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        pub struct $name {
            pub valid: bool,
            pub zone_status: ZoneStatus,
            pub $field: Vec<$block>,
        }
    };
}

/// Points of one production type with one data state and datasource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProductionBlock {
    pub production_type: ProductionType,
    pub data_state: DataState,
    pub datasource: String,
    pub values: Values,
}

/// Points with one data state and datasource (load).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateBlock {
    pub data_state: DataState,
    pub datasource: String,
    pub values: Values,
}

/// Imports from one source zone with one data state and datasource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportBlock {
    pub source: ZoneCode,
    pub data_state: DataState,
    pub datasource: String,
    pub values: Values,
}

/// Exports to one destination zone with one data state and datasource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportBlock {
    pub destination: ZoneCode,
    pub data_state: DataState,
    pub datasource: String,
    pub values: Values,
}

/// Shares towards one destination (flow-share).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DestinationBlock {
    pub destination: ZoneCode,
    pub values: Values,
}

/// Shares from one origin (mix-share).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OriginBlock {
    pub origin: ZoneCode,
    pub values: Values,
}

/// Parts of a footprint or impact coming from one source zone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceBlock {
    pub source: ZoneCode,
    pub values: Values,
}

flag_entry!(
    /// Series entry of `/generation` and `/mix`.
    GenerationEntry, production, ProductionBlock
);
flag_entry!(
    /// Series entry of `/load`.
    LoadEntry, blocks, StateBlock
);
flag_entry!(
    /// Series entry of `/imports`.
    ImportsEntry, imports, ImportBlock
);
flag_entry!(
    /// Series entry of `/exports`.
    ExportsEntry, exports, ExportBlock
);
flag_entry!(
    /// Series entry of `/flow-share`.
    FlowShareEntry, flows, DestinationBlock
);
flag_entry!(
    /// Series entry of `/mix-share`.
    MixShareEntry, shares, OriginBlock
);
flag_entry!(
    /// Series entry of `/footprint-share` and `/impact-share`.
    SourceEntry, blocks, SourceBlock
);

/// Item of `/generation` (and of `/mix`, with datasource `flow_tracing`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerationResult {
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub series: Vec<GenerationEntry>,
}

/// Item of `/mix`: MW of each type consumed in the zone after flow tracing.
pub type MixResult = GenerationResult;

/// Item of `/load`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadResult {
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub series: Vec<LoadEntry>,
}

/// Item of `/imports`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportsResult {
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub series: Vec<ImportsEntry>,
}

/// Item of `/exports`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportsResult {
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub series: Vec<ExportsEntry>,
}

/// Item of `/footprints`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FootprintResult {
    pub footprint_type: FootprintType,
    pub scope: Scope,
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub coverage: Coverage,
    pub series: Vec<FlagSeries>,
}

/// Item of `/footprints?aggregate=true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FootprintAggregate {
    pub footprint_type: FootprintType,
    pub scope: Scope,
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub coverage: Coverage,
    pub start: String,
    pub end: String,
    #[serde(serialize_with = "serialize_round2")]
    pub value: f64,
    pub valid: bool,
    pub zone_status: ZoneStatus,
    #[serde(deserialize_with = "static_str")]
    pub aggregation_method: StaticStr,
}

/// Item of `/impacts`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImpactResult {
    #[serde(deserialize_with = "static_str")]
    pub impact_type: StaticStr,
    pub scope: Scope,
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub coverage: Coverage,
    pub series: Vec<FlagSeries>,
}

/// Item of `/impacts?aggregate=true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImpactAggregate {
    #[serde(deserialize_with = "static_str")]
    pub impact_type: StaticStr,
    pub scope: Scope,
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub coverage: Coverage,
    pub start: String,
    pub end: String,
    #[serde(serialize_with = "serialize_round2")]
    pub value: f64,
    pub valid: bool,
    pub zone_status: ZoneStatus,
    #[serde(deserialize_with = "static_str")]
    pub aggregation_method: StaticStr,
}

/// Item of `/green-score` and `/environmental-score` (no unit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreResult {
    pub scope: Scope,
    pub zone: ZoneCode,
    pub coverage: Coverage,
    pub series: Vec<FlagSeries>,
}

/// Item of the score endpoints with `aggregate=true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreAggregate {
    pub scope: Scope,
    pub zone: ZoneCode,
    pub coverage: Coverage,
    pub start: String,
    pub end: String,
    #[serde(serialize_with = "serialize_round2")]
    pub value: f64,
    pub valid: bool,
    pub zone_status: ZoneStatus,
    #[serde(deserialize_with = "static_str")]
    pub aggregation_method: StaticStr,
}

/// Item of `/flow-share`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowShareResult {
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub series: Vec<FlowShareEntry>,
}

/// Item of `/mix-share`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixShareResult {
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub series: Vec<MixShareEntry>,
}

/// Item of `/footprint-share`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FootprintShareResult {
    pub zone: ZoneCode,
    pub footprint_type: FootprintType,
    pub scope: Scope,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub series: Vec<SourceEntry>,
}

/// Item of `/impact-share`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImpactShareResult {
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    pub impact_type: StaticStr,
    pub scope: Scope,
    #[serde(deserialize_with = "static_str")]
    pub unit: StaticStr,
    pub series: Vec<SourceEntry>,
}

/// Item of `/factors` (series without flags: factors are constant).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactorResult {
    pub factor_type: FootprintType,
    pub production_type: ProductionType,
    pub scope: Scope,
    pub unit: String,
    pub source: String,
    pub year: Option<i32>,
    pub source_link: Option<String>,
    pub series: Vec<PlainSeries>,
}

/// Item of `/factors?aggregate=true` with start and end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactorAggregate {
    pub factor_type: FootprintType,
    pub production_type: ProductionType,
    pub scope: Scope,
    pub unit: String,
    pub source: String,
    pub year: Option<i32>,
    pub source_link: Option<String>,
    pub start: String,
    pub end: String,
    #[serde(serialize_with = "serialize_round2")]
    pub value: f64,
    pub valid: bool,
    pub zone_status: ZoneStatus,
    #[serde(deserialize_with = "static_str")]
    pub aggregation_method: StaticStr,
}

/// Item of `/zones`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZoneInfo {
    pub zone: ZoneCode,
    pub full_name: String,
    pub eic_code: String,
    pub country_code: String,
    pub country_name: String,
    #[serde(deserialize_with = "static_str")]
    pub provider: StaticStr,
    pub neighbours: Vec<ZoneCode>,
}

/// Body of `/status` (always 200).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusResponse {
    /// `up` or `down`.
    #[serde(deserialize_with = "static_str")]
    pub storage: StaticStr,
    #[serde(rename = "entso-e")]
    pub entsoe: String,
    pub elexon: String,
    pub epias: String,
}

/// `/footprints` answer: series, or one aggregate per zone and type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Footprints {
    Series(Vec<FootprintResult>),
    Aggregate(Vec<FootprintAggregate>),
}

/// `/impacts` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Impacts {
    Series(Vec<ImpactResult>),
    Aggregate(Vec<ImpactAggregate>),
}

/// `/green-score` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scores {
    Series(Vec<ScoreResult>),
    Aggregate(Vec<ScoreAggregate>),
}

/// `/factors` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Factors {
    Series(Vec<FactorResult>),
    Aggregate(Vec<FactorAggregate>),
}

/// Any endpoint's answer (a top-level JSON array).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum QueryResponse {
    Zones(Vec<ZoneInfo>),
    Generation(Vec<GenerationResult>),
    Load(Vec<LoadResult>),
    Imports(Vec<ImportsResult>),
    Exports(Vec<ExportsResult>),
    Mix(Vec<MixResult>),
    Footprints(Footprints),
    Impacts(Impacts),
    Score(Scores),
    FlowShare(Vec<FlowShareResult>),
    MixShare(Vec<MixShareResult>),
    FootprintShare(Vec<FootprintShareResult>),
    ImpactShare(Vec<ImpactShareResult>),
    Factors(Factors),
}

fn all_valid<'a, T: 'a>(
    items: impl IntoIterator<Item = &'a T>,
    valid: impl Fn(&T) -> bool,
) -> bool {
    items.into_iter().all(valid)
}

std::thread_local! {
    /// Set while [`QueryResponse::to_json`] serializes: [`Values`] then pass their points to
    /// [`FastFormatter`] in one `serialize_bytes` call instead of element by element.
    static FAST_VALUES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Resets [`FAST_VALUES`] when dropped (also on a panic inside serialization).
struct FastGuard(bool);

impl Drop for FastGuard {
    fn drop(&mut self) {
        FAST_VALUES.set(self.0);
    }
}

/// Writes `v` (already rounded to 2 decimals) exactly as serde_json writes the `f64` (shortest
/// round-trip form, e.g. `26.0`, `26.9`, `205.91`, `-0.5`), as a fixed-point integer without float
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
/// points of [`Values`] (handed over as bytes, see [`FAST_VALUES`]) written directly:
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

impl QueryResponse {
    /// The JSON body.
    pub fn to_json(&self) -> Vec<u8> {
        let _guard = FastGuard(FAST_VALUES.replace(true));
        let mut out = Vec::with_capacity(256 + 36 * self.points());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, FastFormatter);
        match self.serialize(&mut ser) {
            Ok(()) => out,
            Err(_) => b"[]".to_vec(),
        }
    }

    /// The long-format CSV body (see [`crate::csv`] for the columns).
    pub fn to_csv(&self) -> Vec<u8> {
        crate::csv::to_csv(self)
    }

    /// Number of points in the answer (to size the output buffer).
    pub fn points(&self) -> usize {
        fn n<'a>(v: impl IntoIterator<Item = &'a Values>) -> usize {
            v.into_iter().map(|v| v.0.len()).sum()
        }
        match self {
            QueryResponse::Zones(_)
            | QueryResponse::Footprints(Footprints::Aggregate(_))
            | QueryResponse::Impacts(Impacts::Aggregate(_))
            | QueryResponse::Score(Scores::Aggregate(_))
            | QueryResponse::Factors(Factors::Aggregate(_)) => 0,
            QueryResponse::Generation(v) | QueryResponse::Mix(v) => n(v
                .iter()
                .flat_map(|r| &r.series)
                .flat_map(|e| &e.production)
                .map(|b| &b.values)),
            QueryResponse::Load(v) => n(v
                .iter()
                .flat_map(|r| &r.series)
                .flat_map(|e| &e.blocks)
                .map(|b| &b.values)),
            QueryResponse::Imports(v) => n(v
                .iter()
                .flat_map(|r| &r.series)
                .flat_map(|e| &e.imports)
                .map(|b| &b.values)),
            QueryResponse::Exports(v) => n(v
                .iter()
                .flat_map(|r| &r.series)
                .flat_map(|e| &e.exports)
                .map(|b| &b.values)),
            QueryResponse::Footprints(Footprints::Series(v)) => {
                n(v.iter().flat_map(|r| &r.series).map(|e| &e.values))
            }
            QueryResponse::Impacts(Impacts::Series(v)) => {
                n(v.iter().flat_map(|r| &r.series).map(|e| &e.values))
            }
            QueryResponse::Score(Scores::Series(v)) => {
                n(v.iter().flat_map(|r| &r.series).map(|e| &e.values))
            }
            QueryResponse::FlowShare(v) => n(v
                .iter()
                .flat_map(|r| &r.series)
                .flat_map(|e| &e.flows)
                .map(|b| &b.values)),
            QueryResponse::MixShare(v) => n(v
                .iter()
                .flat_map(|r| &r.series)
                .flat_map(|e| &e.shares)
                .map(|b| &b.values)),
            QueryResponse::FootprintShare(v) => n(v
                .iter()
                .flat_map(|r| &r.series)
                .flat_map(|e| &e.blocks)
                .map(|b| &b.values)),
            QueryResponse::ImpactShare(v) => n(v
                .iter()
                .flat_map(|r| &r.series)
                .flat_map(|e| &e.blocks)
                .map(|b| &b.values)),
            QueryResponse::Factors(Factors::Series(v)) => {
                n(v.iter().flat_map(|r| &r.series).map(|e| &e.values))
            }
        }
    }

    /// Number of top-level items.
    pub fn len(&self) -> usize {
        match self {
            QueryResponse::Zones(v) => v.len(),
            QueryResponse::Generation(v) | QueryResponse::Mix(v) => v.len(),
            QueryResponse::Load(v) => v.len(),
            QueryResponse::Imports(v) => v.len(),
            QueryResponse::Exports(v) => v.len(),
            QueryResponse::Footprints(Footprints::Series(v)) => v.len(),
            QueryResponse::Footprints(Footprints::Aggregate(v)) => v.len(),
            QueryResponse::Impacts(Impacts::Series(v)) => v.len(),
            QueryResponse::Impacts(Impacts::Aggregate(v)) => v.len(),
            QueryResponse::Score(Scores::Series(v)) => v.len(),
            QueryResponse::Score(Scores::Aggregate(v)) => v.len(),
            QueryResponse::FlowShare(v) => v.len(),
            QueryResponse::MixShare(v) => v.len(),
            QueryResponse::FootprintShare(v) => v.len(),
            QueryResponse::ImpactShare(v) => v.len(),
            QueryResponse::Factors(Factors::Series(v)) => v.len(),
            QueryResponse::Factors(Factors::Aggregate(v)) => v.len(),
        }
    }

    /// Whether the answer is `[]`.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the answer is non-empty and every point in it is final (`valid=true`), so the HTTP
    /// layer may serve it with an `ETag` and a long `Cache-Control`. Zones and factors come from the
    /// reference data and are final.
    pub fn is_final(&self) -> bool {
        if self.is_empty() {
            return false;
        }
        match self {
            QueryResponse::Zones(_) | QueryResponse::Factors(_) => true,
            QueryResponse::Generation(v) | QueryResponse::Mix(v) => {
                v.iter().all(|r| all_valid(&r.series, |e| e.valid))
            }
            QueryResponse::Load(v) => v.iter().all(|r| all_valid(&r.series, |e| e.valid)),
            QueryResponse::Imports(v) => v.iter().all(|r| all_valid(&r.series, |e| e.valid)),
            QueryResponse::Exports(v) => v.iter().all(|r| all_valid(&r.series, |e| e.valid)),
            QueryResponse::Footprints(Footprints::Series(v)) => {
                v.iter().all(|r| all_valid(&r.series, |e| e.valid))
            }
            QueryResponse::Footprints(Footprints::Aggregate(v)) => v.iter().all(|r| r.valid),
            QueryResponse::Impacts(Impacts::Series(v)) => {
                v.iter().all(|r| all_valid(&r.series, |e| e.valid))
            }
            QueryResponse::Impacts(Impacts::Aggregate(v)) => v.iter().all(|r| r.valid),
            QueryResponse::Score(Scores::Series(v)) => {
                v.iter().all(|r| all_valid(&r.series, |e| e.valid))
            }
            QueryResponse::Score(Scores::Aggregate(v)) => v.iter().all(|r| r.valid),
            QueryResponse::FlowShare(v) => v.iter().all(|r| all_valid(&r.series, |e| e.valid)),
            QueryResponse::MixShare(v) => v.iter().all(|r| all_valid(&r.series, |e| e.valid)),
            QueryResponse::FootprintShare(v) => v.iter().all(|r| all_valid(&r.series, |e| e.valid)),
            QueryResponse::ImpactShare(v) => v.iter().all(|r| all_valid(&r.series, |e| e.valid)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let r = QueryResponse::Score(Scores::Series(vec![ScoreResult {
            scope: Scope::LifeCycle,
            zone: ZoneCode::parse("DE").unwrap(),
            coverage: Coverage::Global,
            series: vec![series(values), series(vec![])],
        }]));
        let fast = r.to_json();
        assert_eq!(
            String::from_utf8(fast).unwrap(),
            serde_json::to_string(&r).unwrap()
        );
    }

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
