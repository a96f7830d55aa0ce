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

use crate::timefmt::with_slot_stamp;
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

impl QueryResponse {
    /// The JSON body.
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_else(|_| b"[]".to_vec())
    }

    /// The long-format CSV body (see [`crate::csv`] for the columns).
    pub fn to_csv(&self) -> Vec<u8> {
        crate::csv::to_csv(self)
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
