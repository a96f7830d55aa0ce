//! The response bodies of every `/v1` endpoint, with the field names of the API reference
//! (docs/api.md, "Answers"). Each struct derives `Serialize` (the server writes it), `Deserialize`
//! (the client reads it back) and `ToSchema` (the OpenAPI document publishes it); its doc comments
//! are the schema's descriptions. Fields whose Rust type is a core type or a constant string name
//! their published schema with `value_type` (see [`crate::schema`]).
//!
//! Series entries carry the flags `valid` and `zone_status`; aggregated answers (`aggregate=true`)
//! use the `*Aggregate` types (those of derived series are in [`crate::aggregate`]), and the
//! endpoints that have both answer a [`SeriesOrAggregates`] ([`Footprints`], [`Impacts`],
//! [`Scores`], [`Factors`]). Every struct is written out, so `struct Name` finds it.

use crate::aggregate::{
    AggregateHead, AggregateTail, DerivedAggregate, FootprintAggregate, FootprintHead,
    ImpactAggregate, ImpactHead, ScoreAggregate, ScoreHead,
};
use crate::schema::{self, any_of_arrays};
use crate::values::{
    StaticStr, TIME_WEIGHTED_AVERAGE, Values, serialize_round2, serialize_round2_opt, static_str,
};
use gridprint_core::derived::Coverage;
use gridprint_core::production::ProductionType;
use gridprint_core::quality::{DataState, ZoneStatus};
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::zone::ZoneCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::{RefOr, Schema};

/// A series entry with flags and values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FlagSeries {
    pub valid: bool,
    #[schema(value_type = schema::ZoneStatus)]
    pub zone_status: ZoneStatus,
    #[schema(value_type = Vec<schema::Point>)]
    pub values: Values,
}

/// A series without flags (factors are constant).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlainSeries {
    #[schema(value_type = Vec<schema::Point>)]
    pub values: Values,
}

// The blocks of points: an entry holds a list of them. The blocks of provider data (production,
// load, imports, exports) also say the points' data state and datasource.

/// Points of one production type with one data state and datasource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ProductionBlock {
    #[schema(value_type = schema::ProductionType)]
    pub production_type: ProductionType,
    #[schema(value_type = schema::DataState)]
    pub data_state: DataState,
    /// `ENTSO-E`, `Elexon`, `EPIAS`, `wattnet-hybrid-estimation:gridprint-<method>` (estimated or
    /// forecast), or `flow_tracing` (mix).
    pub datasource: String,
    #[schema(value_type = Vec<schema::Point>)]
    pub values: Values,
}

impl ProductionBlock {
    /// The block of these points, with its production type, data state and datasource.
    pub fn new(
        production_type: ProductionType,
        data_state: DataState,
        datasource: String,
        values: Values,
    ) -> Self {
        ProductionBlock {
            production_type,
            data_state,
            datasource,
            values,
        }
    }
}

/// Points with one data state and datasource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StateBlock {
    #[schema(value_type = schema::DataState)]
    pub data_state: DataState,
    /// `ENTSO-E`, `Elexon`, `EPIAS`, `wattnet-hybrid-estimation:gridprint-<method>` (estimated or
    /// forecast), or `flow_tracing` (mix).
    pub datasource: String,
    #[schema(value_type = Vec<schema::Point>)]
    pub values: Values,
}

impl StateBlock {
    /// The block of these points, with their data state and datasource.
    pub fn new(data_state: DataState, datasource: String, values: Values) -> Self {
        StateBlock {
            data_state,
            datasource,
            values,
        }
    }
}

/// Imports from one source zone with one data state and datasource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ImportBlock {
    #[schema(value_type = String)]
    pub source: ZoneCode,
    #[schema(value_type = schema::DataState)]
    pub data_state: DataState,
    /// `ENTSO-E`, `Elexon`, `EPIAS`, `wattnet-hybrid-estimation:gridprint-<method>` (estimated or
    /// forecast), or `flow_tracing` (mix).
    pub datasource: String,
    #[schema(value_type = Vec<schema::Point>)]
    pub values: Values,
}

impl ImportBlock {
    /// The block of these points, with their source zone, data state and datasource.
    pub fn new(
        source: ZoneCode,
        data_state: DataState,
        datasource: String,
        values: Values,
    ) -> Self {
        ImportBlock {
            source,
            data_state,
            datasource,
            values,
        }
    }
}

/// Exports to one destination zone with one data state and datasource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ExportBlock {
    #[schema(value_type = String)]
    pub destination: ZoneCode,
    #[schema(value_type = schema::DataState)]
    pub data_state: DataState,
    /// `ENTSO-E`, `Elexon`, `EPIAS`, `wattnet-hybrid-estimation:gridprint-<method>` (estimated or
    /// forecast), or `flow_tracing` (mix).
    pub datasource: String,
    #[schema(value_type = Vec<schema::Point>)]
    pub values: Values,
}

impl ExportBlock {
    /// The block of these points, with their destination zone, data state and datasource.
    pub fn new(
        destination: ZoneCode,
        data_state: DataState,
        datasource: String,
        values: Values,
    ) -> Self {
        ExportBlock {
            destination,
            data_state,
            datasource,
            values,
        }
    }
}

/// Shares towards one destination zone (`%`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DestinationBlock {
    #[schema(value_type = String)]
    pub destination: ZoneCode,
    #[schema(value_type = Vec<schema::Point>)]
    pub values: Values,
}

/// Shares from one origin zone (`%`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct OriginBlock {
    #[schema(value_type = String)]
    pub origin: ZoneCode,
    #[schema(value_type = Vec<schema::Point>)]
    pub values: Values,
}

/// The part of a footprint or impact coming from one source zone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SourceBlock {
    #[schema(value_type = String)]
    pub source: ZoneCode,
    #[schema(value_type = Vec<schema::Point>)]
    pub values: Values,
}

/// A series entry of blocks (the `*Entry` types): built from its flags and its blocks.
pub trait FlagEntry {
    /// The block type.
    type Block;
    /// The entry with these flags and blocks.
    fn new(valid: bool, zone_status: ZoneStatus, blocks: Vec<Self::Block>) -> Self;
}

/// Series entry of `/generation` and `/mix`: one per (valid, zone_status) in the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GenerationEntry {
    /// Final (older than now − 4 h), or complete and newer.
    pub valid: bool,
    #[schema(value_type = schema::ZoneStatus)]
    pub zone_status: ZoneStatus,
    pub production: Vec<ProductionBlock>,
}

impl FlagEntry for GenerationEntry {
    type Block = ProductionBlock;
    fn new(valid: bool, zone_status: ZoneStatus, production: Vec<ProductionBlock>) -> Self {
        GenerationEntry {
            valid,
            zone_status,
            production,
        }
    }
}

/// Series entry of `/load`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LoadEntry {
    pub valid: bool,
    #[schema(value_type = schema::ZoneStatus)]
    pub zone_status: ZoneStatus,
    pub blocks: Vec<StateBlock>,
}

impl FlagEntry for LoadEntry {
    type Block = StateBlock;
    fn new(valid: bool, zone_status: ZoneStatus, blocks: Vec<StateBlock>) -> Self {
        LoadEntry {
            valid,
            zone_status,
            blocks,
        }
    }
}

/// Series entry of `/imports`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ImportsEntry {
    pub valid: bool,
    #[schema(value_type = schema::ZoneStatus)]
    pub zone_status: ZoneStatus,
    pub imports: Vec<ImportBlock>,
}

impl FlagEntry for ImportsEntry {
    type Block = ImportBlock;
    fn new(valid: bool, zone_status: ZoneStatus, imports: Vec<ImportBlock>) -> Self {
        ImportsEntry {
            valid,
            zone_status,
            imports,
        }
    }
}

/// Series entry of `/exports`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ExportsEntry {
    pub valid: bool,
    #[schema(value_type = schema::ZoneStatus)]
    pub zone_status: ZoneStatus,
    pub exports: Vec<ExportBlock>,
}

impl FlagEntry for ExportsEntry {
    type Block = ExportBlock;
    fn new(valid: bool, zone_status: ZoneStatus, exports: Vec<ExportBlock>) -> Self {
        ExportsEntry {
            valid,
            zone_status,
            exports,
        }
    }
}

/// Series entry of `/flow-share`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FlowShareEntry {
    pub valid: bool,
    #[schema(value_type = schema::ZoneStatus)]
    pub zone_status: ZoneStatus,
    pub flows: Vec<DestinationBlock>,
}

impl FlagEntry for FlowShareEntry {
    type Block = DestinationBlock;
    fn new(valid: bool, zone_status: ZoneStatus, flows: Vec<DestinationBlock>) -> Self {
        FlowShareEntry {
            valid,
            zone_status,
            flows,
        }
    }
}

/// Series entry of `/mix-share`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MixShareEntry {
    pub valid: bool,
    #[schema(value_type = schema::ZoneStatus)]
    pub zone_status: ZoneStatus,
    pub shares: Vec<OriginBlock>,
}

impl FlagEntry for MixShareEntry {
    type Block = OriginBlock;
    fn new(valid: bool, zone_status: ZoneStatus, shares: Vec<OriginBlock>) -> Self {
        MixShareEntry {
            valid,
            zone_status,
            shares,
        }
    }
}

/// Series entry of `/footprint-share` and `/impact-share`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SourceEntry {
    pub valid: bool,
    #[schema(value_type = schema::ZoneStatus)]
    pub zone_status: ZoneStatus,
    pub blocks: Vec<SourceBlock>,
}

impl FlagEntry for SourceEntry {
    type Block = SourceBlock;
    fn new(valid: bool, zone_status: ZoneStatus, blocks: Vec<SourceBlock>) -> Self {
        SourceEntry {
            valid,
            zone_status,
            blocks,
        }
    }
}

/// An item of a zone's series in one unit (the `zone, unit, series` items): built from the three.
pub trait ZoneSeries {
    /// The series entry type.
    type Entry;
    /// The item of `zone` in `unit` with these entries.
    fn new(zone: ZoneCode, unit: StaticStr, series: Vec<Self::Entry>) -> Self;
}

/// Item of `/generation` (provider data, MW) and `/mix` (MW of each type consumed in the zone
/// after flow tracing; datasource `flow_tracing`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GenerationResult {
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    /// `MW`.
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    pub series: Vec<GenerationEntry>,
}

impl ZoneSeries for GenerationResult {
    type Entry = GenerationEntry;
    fn new(zone: ZoneCode, unit: StaticStr, series: Vec<GenerationEntry>) -> Self {
        GenerationResult { zone, unit, series }
    }
}

/// Item of `/mix`: MW of each type consumed in the zone after flow tracing.
pub type MixResult = GenerationResult;

/// Item of `/load`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LoadResult {
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    /// `MW`.
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    pub series: Vec<LoadEntry>,
}

impl ZoneSeries for LoadResult {
    type Entry = LoadEntry;
    fn new(zone: ZoneCode, unit: StaticStr, series: Vec<LoadEntry>) -> Self {
        LoadResult { zone, unit, series }
    }
}

/// Item of `/imports` (physical flows into the zone, MW).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ImportsResult {
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    pub series: Vec<ImportsEntry>,
}

impl ZoneSeries for ImportsResult {
    type Entry = ImportsEntry;
    fn new(zone: ZoneCode, unit: StaticStr, series: Vec<ImportsEntry>) -> Self {
        ImportsResult { zone, unit, series }
    }
}

/// Item of `/exports` (physical flows out of the zone, MW).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ExportsResult {
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    pub series: Vec<ExportsEntry>,
}

impl ZoneSeries for ExportsResult {
    type Entry = ExportsEntry;
    fn new(zone: ZoneCode, unit: StaticStr, series: Vec<ExportsEntry>) -> Self {
        ExportsResult { zone, unit, series }
    }
}

/// Item of `/flow-share`: share of the zone's generation consumed in each destination (itself
/// included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FlowShareResult {
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    /// `%`.
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    pub series: Vec<FlowShareEntry>,
}

impl ZoneSeries for FlowShareResult {
    type Entry = FlowShareEntry;
    fn new(zone: ZoneCode, unit: StaticStr, series: Vec<FlowShareEntry>) -> Self {
        FlowShareResult { zone, unit, series }
    }
}

/// Item of `/mix-share`: share of the zone's consumption generated in each origin (itself
/// included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MixShareResult {
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    pub series: Vec<MixShareEntry>,
}

impl ZoneSeries for MixShareResult {
    type Entry = MixShareEntry;
    fn new(zone: ZoneCode, unit: StaticStr, series: Vec<MixShareEntry>) -> Self {
        MixShareResult { zone, unit, series }
    }
}

/// A series item of a derived series whose answer may instead be one aggregate per item: built
/// first with its descriptive fields and no series, it then takes its series or becomes its
/// [`DerivedAggregate`] (its descriptive fields as the head, then the [`AggregateTail`]).
pub trait DerivedItem: Sized {
    /// The descriptive fields of the item's aggregate.
    type Head: AggregateHead;
    /// The item with these series entries.
    fn with_series(self, series: Vec<FlagSeries>) -> Self;
    /// The item's descriptive fields, without its series.
    fn head(self) -> Self::Head;
    /// The aggregate: the item's descriptive fields, then `tail`.
    fn aggregate(self, tail: AggregateTail) -> DerivedAggregate<Self::Head> {
        DerivedAggregate {
            head: self.head(),
            tail,
        }
    }
}

/// Item of `/footprints`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FootprintResult {
    #[schema(value_type = schema::FootprintType)]
    pub footprint_type: FootprintType,
    #[schema(value_type = schema::Scope)]
    pub scope: Scope,
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    /// `gCO2/kWh` (carbon) or `l/kWh` (water).
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    #[schema(value_type = schema::Coverage)]
    pub coverage: Coverage,
    pub series: Vec<FlagSeries>,
}

impl DerivedItem for FootprintResult {
    type Head = FootprintHead;
    fn with_series(self, series: Vec<FlagSeries>) -> Self {
        FootprintResult { series, ..self }
    }
    fn head(self) -> FootprintHead {
        FootprintHead {
            footprint_type: self.footprint_type,
            scope: self.scope,
            zone: self.zone,
            unit: self.unit,
            coverage: self.coverage,
        }
    }
}

/// Item of `/impacts`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ImpactResult {
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = schema::ImpactType)]
    pub impact_type: StaticStr,
    #[schema(value_type = schema::OperationalScope)]
    pub scope: Scope,
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    /// `stress-l/kWh`.
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    #[schema(value_type = schema::Coverage)]
    pub coverage: Coverage,
    pub series: Vec<FlagSeries>,
}

impl DerivedItem for ImpactResult {
    type Head = ImpactHead;
    fn with_series(self, series: Vec<FlagSeries>) -> Self {
        ImpactResult { series, ..self }
    }
    fn head(self) -> ImpactHead {
        ImpactHead {
            impact_type: self.impact_type,
            scope: self.scope,
            zone: self.zone,
            unit: self.unit,
            coverage: self.coverage,
        }
    }
}

/// Item of `/green-score` and `/environmental-score` (unitless 0–100, no `unit` field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ScoreResult {
    #[schema(value_type = schema::OperationalScope)]
    pub scope: Scope,
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    #[schema(value_type = schema::Coverage)]
    pub coverage: Coverage,
    pub series: Vec<FlagSeries>,
}

impl DerivedItem for ScoreResult {
    type Head = ScoreHead;
    fn with_series(self, series: Vec<FlagSeries>) -> Self {
        ScoreResult { series, ..self }
    }
    fn head(self) -> ScoreHead {
        ScoreHead {
            scope: self.scope,
            zone: self.zone,
            coverage: self.coverage,
        }
    }
}

/// Item of `/best-window`: one placement of the job, best first (docs/methodology.md §7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "zone": "FR", "metric": "footprint", "start": "2024-06-15T02:00:00Z",
    "end": "2024-06-15T04:00:00Z", "value": 41.3, "unit": "gCO2/kWh", "now_value": 55.12,
    "saving_percent": 25.07, "valid": true, "zone_status": "complete", "forecast": false,
    "duration_minutes": 120, "duration_rounded_up": false
}))]
pub struct BestWindow {
    /// The bidding zone or country code the job runs in.
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    /// `footprint`, `impact` or `score`.
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub metric: StaticStr,
    /// First slot of the job, in UTC.
    #[schema(format = DateTime)]
    pub start: String,
    /// End of the job's last slot, in UTC.
    #[schema(format = DateTime)]
    pub end: String,
    /// Mean over the job's whole slots of the step series, rounded to 2 decimals.
    #[serde(serialize_with = "serialize_round2")]
    pub value: f64,
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    /// The same job starting at the window's start in the same zone; `null` when it cannot run there
    /// (a slot without data).
    #[serde(serialize_with = "serialize_round2_opt")]
    pub now_value: Option<f64>,
    /// Positive = better than starting now: (now − value)/now·100 for footprints and impacts,
    /// (value − now)/now·100 for the score; `null` without `now_value` or when it is 0.
    #[serde(serialize_with = "serialize_round2_opt")]
    pub saving_percent: Option<f64>,
    /// `true` only if every slot of the job is valid.
    pub valid: bool,
    /// The worst status over the job's slots.
    #[schema(value_type = schema::ZoneStatus)]
    pub zone_status: ZoneStatus,
    /// `true` if any slot of the job is a forecast (its zone, or a member of the country, has
    /// `zone_status` missing there: no provider data).
    pub forecast: bool,
    /// The job's length in minutes: the requested duration rounded up to whole 15-minute slots.
    pub duration_minutes: u32,
    /// Whether `duration` was rounded up to reach whole slots.
    pub duration_rounded_up: bool,
}

/// Item of `/forecast-accuracy`: how far off the forecasts gridprint issued for one zone were, over
/// the forecasts of the last `window_days` days, `horizon_from_hours` to `horizon_to_hours` after
/// they were issued (docs/methodology.md §9). The footprint measured is the carbon footprint,
/// global, life-cycle; the truth is the published value once final and complete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "zone": "FR", "footprint_type": "carbon", "scope": "life-cycle", "unit": "gCO2/kWh",
    "window_days": 30, "horizon_from_hours": 0, "horizon_to_hours": 24, "enough_data": true,
    "forecasts": 701, "points": 65012, "complete_forecasts": 690,
    "first_forecast": "2026-11-06T12:00:00Z", "last_forecast": "2026-12-06T07:00:00Z",
    "computed_at": "2026-12-06T12:00:41Z",
    "mape_percent": 11.8, "mae": 8.4, "rank_correlation": 0.56, "regret_percent": 5.9,
    "persistence_mape_percent": 15.0, "persistence_mae": 10.7,
    "persistence_rank_correlation": 0.43, "persistence_regret_percent": 8.6,
    "note": "Over the last 30 days the forecast for the next 24 hours was off by 11.8 % on average (8.4 gCO2/kWh); the same time on the last known day would have been off by 15 %."
}))]
pub struct ForecastAccuracy {
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    /// Always `carbon`.
    #[schema(value_type = schema::FootprintType)]
    pub footprint_type: FootprintType,
    /// Always `life-cycle` (global coverage).
    #[schema(value_type = schema::Scope)]
    pub scope: Scope,
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    /// The forecasts measured were issued in the last `window_days` days (7 or 30).
    pub window_days: u32,
    /// The hours after issue measured: 0–24, 24–48 or 48–96.
    pub horizon_from_hours: u32,
    pub horizon_to_hours: u32,
    /// Whether enough forecasts have been compared with what happened for the figures to be
    /// published (at least 24); without it every figure is `null` and `note` says what is missing.
    pub enough_data: bool,
    /// Forecasts (one issued per hour) with at least one quarter-hour of the band compared.
    pub forecasts: u64,
    /// Quarter-hours compared.
    pub points: u64,
    /// Forecasts whose whole band has happened (rank correlation and regret are over these).
    pub complete_forecasts: u64,
    /// When the first and last forecast measured were issued (UTC).
    #[schema(format = DateTime)]
    pub first_forecast: Option<String>,
    #[schema(format = DateTime)]
    pub last_forecast: Option<String>,
    /// When the worker computed these figures (UTC); `null`: never.
    #[schema(format = DateTime)]
    pub computed_at: Option<String>,
    /// Mean absolute percentage error of the forecast, in %.
    #[serde(serialize_with = "serialize_round2_opt")]
    pub mape_percent: Option<f64>,
    /// Mean absolute error of the forecast, in `unit`.
    #[serde(serialize_with = "serialize_round2_opt")]
    pub mae: Option<f64>,
    /// Mean Spearman rank correlation between forecast and truth within the band (1: the forecast
    /// orders the quarter-hours as they happened).
    #[serde(serialize_with = "serialize_round2_opt")]
    pub rank_correlation: Option<f64>,
    /// How much more, in %, a 3-hour job emits when started where the forecast's 3-hour mean is
    /// lowest within the band rather than where it truly was.
    #[serde(serialize_with = "serialize_round2_opt")]
    pub regret_percent: Option<f64>,
    /// The same four figures for persistence: the footprint at the same time on the last day known
    /// when the forecast was issued.
    #[serde(serialize_with = "serialize_round2_opt")]
    pub persistence_mape_percent: Option<f64>,
    #[serde(serialize_with = "serialize_round2_opt")]
    pub persistence_mae: Option<f64>,
    #[serde(serialize_with = "serialize_round2_opt")]
    pub persistence_rank_correlation: Option<f64>,
    #[serde(serialize_with = "serialize_round2_opt")]
    pub persistence_regret_percent: Option<f64>,
    /// The figures in plain words, or what is missing for them.
    pub note: String,
}

/// Item of `/footprint-share`: the blocks of a slot sum to the zone's global footprint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FootprintShareResult {
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    #[schema(value_type = schema::FootprintType)]
    pub footprint_type: FootprintType,
    #[schema(value_type = schema::Scope)]
    pub scope: Scope,
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    pub series: Vec<SourceEntry>,
}

/// Item of `/impact-share`: the blocks of a slot sum to the zone's global water impact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ImpactShareResult {
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = schema::ImpactType)]
    pub impact_type: StaticStr,
    #[schema(value_type = schema::OperationalScope)]
    pub scope: Scope,
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String)]
    pub unit: StaticStr,
    pub series: Vec<SourceEntry>,
}

/// Item of `/factors`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FactorResult {
    #[schema(value_type = schema::FootprintType)]
    pub factor_type: FootprintType,
    #[schema(value_type = schema::ProductionType)]
    pub production_type: ProductionType,
    #[schema(value_type = schema::Scope)]
    pub scope: Scope,
    pub unit: String,
    /// Where the factor comes from.
    pub source: String,
    pub year: Option<i32>,
    pub source_link: Option<String>,
    pub series: Vec<PlainSeries>,
}

/// Item of `/factors?aggregate=true` with start and end (factors are constant: no validity flags,
/// as on the reference).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FactorAggregate {
    #[schema(value_type = schema::FootprintType)]
    pub factor_type: FootprintType,
    #[schema(value_type = schema::ProductionType)]
    pub production_type: ProductionType,
    #[schema(value_type = schema::Scope)]
    pub scope: Scope,
    pub unit: String,
    pub source: String,
    pub year: Option<i32>,
    pub source_link: Option<String>,
    #[schema(format = DateTime)]
    pub start: String,
    #[schema(format = DateTime)]
    pub end: String,
    #[serde(serialize_with = "serialize_round2")]
    pub value: f64,
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = schema::AggregationMethod)]
    pub aggregation_method: StaticStr,
}

impl FactorResult {
    /// The aggregate of this factor over `[start, end]`: its descriptive fields and `value`.
    pub fn into_aggregate(self, start: String, end: String, value: f64) -> FactorAggregate {
        FactorAggregate {
            factor_type: self.factor_type,
            production_type: self.production_type,
            scope: self.scope,
            unit: self.unit,
            source: self.source,
            year: self.year,
            source_link: self.source_link,
            start,
            end,
            value,
            aggregation_method: TIME_WEIGHTED_AVERAGE,
        }
    }
}

/// Item of `/zones`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ZoneInfo {
    /// Zone code, e.g. `DE-LU`.
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    pub full_name: String,
    pub eic_code: String,
    pub country_code: String,
    pub country_name: String,
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = schema::Provider)]
    pub provider: StaticStr,
    /// Neighbouring zones (physical borders).
    #[schema(value_type = Vec<String>)]
    pub neighbours: Vec<ZoneCode>,
}

/// Body of `/status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = Status)]
pub struct StatusResponse {
    // `up` or `down` (a plain comment: the schema `UpDown` says it).
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = schema::UpDown)]
    pub storage: StaticStr,
    #[serde(rename = "entso-e")]
    #[schema(value_type = schema::ProviderState)]
    pub entsoe: String,
    #[schema(value_type = schema::ProviderState)]
    pub elexon: String,
    #[schema(value_type = schema::ProviderState)]
    pub epias: String,
    /// Present only on a server started with `serve --demo`: its recent data are recorded provider
    /// data replayed onto the present, not live data (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub demo: Option<DemoStatus>,
}

/// `demo` of `/status` (`serve --demo`): the bundled provider documents replayed onto the present.
/// Each series' most recent recording of a day or more is shifted onto the last days by whole days
/// (a week-long recording by whole weeks, keeping the weekday) and arrives an hour after each quarter
/// ends, as from a provider; the estimates and the 96-hour forecast after it are computed as live.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "mode": "replay",
    "note": "Demo: recorded provider data of 2017-02-01, 2024-01-15…21, 2024-06-15 and 2024-09-02…08, replayed as the last 8 days up to an hour ago — not live data",
    "recordings": [{"recorded": "2024-06-15", "every": "day", "series": ["generation of DE, ES, FR, IT_NORTH, PL"]}],
    "replayed_from": "2026-11-19T00:00:00Z",
    "provider_data_until": "2026-11-26T13:00:00Z"
}))]
pub struct DemoStatus {
    /// Always `replay`.
    pub mode: String,
    /// The replay in one sentence (the dashboard shows it).
    pub note: String,
    /// What is replayed: each recording with the series it carries.
    pub recordings: Vec<DemoRecording>,
    /// Start of the replayed provider data (UTC); null before the first replay step.
    pub replayed_from: Option<String>,
    /// End of the replayed provider data so far (UTC): about an hour before now, moving on every
    /// quarter-hour; null before the first replay step.
    pub provider_data_until: Option<String>,
}

/// One replayed recording of `/status`'s `demo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DemoRecording {
    /// The recorded day (`2024-06-15`) or week (`2024-09-02/2024-09-08`), as the providers' local
    /// dates.
    pub recorded: String,
    /// `day`: replayed onto every day; `week`: onto every week (same weekday); `N weeks`: a
    /// recording of N weeks, onto every N weeks (same weekday).
    pub every: String,
    /// The series it carries, e.g. `generation of DE, ES`, `load of BE`, `flows DE→NL, NL→DE`.
    pub series: Vec<String>,
}

/// An answer that is a list of series or, with `aggregate=true`, a list of aggregates (one per
/// item): [`Footprints`], [`Impacts`], [`Scores`], [`Factors`]. Published as `anyOf` the two
/// arrays, under the name its series item gives ([`AnswerSchema`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SeriesOrAggregates<S, A> {
    Series(Vec<S>),
    Aggregate(Vec<A>),
}

/// `/footprints`: series, or aggregates with `aggregate=true`.
pub type Footprints = SeriesOrAggregates<FootprintResult, FootprintAggregate>;
/// `/impacts`: series, or aggregates with `aggregate=true`.
pub type Impacts = SeriesOrAggregates<ImpactResult, ImpactAggregate>;
/// Score endpoints: series, or aggregates with `aggregate=true`.
pub type Scores = SeriesOrAggregates<ScoreResult, ScoreAggregate>;
/// `/factors`: series, or aggregates with `aggregate=true` and dates.
pub type Factors = SeriesOrAggregates<FactorResult, FactorAggregate>;

/// A series item whose answer may be [`SeriesOrAggregates`]: names the answer's OpenAPI schema.
pub trait AnswerSchema {
    /// The schema name of the series-or-aggregates answer, e.g. `FootprintsAnswer`.
    const ANSWER_SCHEMA: &'static str;
}

impl AnswerSchema for FootprintResult {
    const ANSWER_SCHEMA: &'static str = "FootprintsAnswer";
}

impl AnswerSchema for ImpactResult {
    const ANSWER_SCHEMA: &'static str = "ImpactsAnswer";
}

impl AnswerSchema for ScoreResult {
    const ANSWER_SCHEMA: &'static str = "ScoresAnswer";
}

impl AnswerSchema for FactorResult {
    const ANSWER_SCHEMA: &'static str = "FactorsAnswer";
}

/// `Ok`: the series, `Err`: the aggregates (as a derived answer comes).
impl<S, A> From<Result<Vec<S>, Vec<A>>> for SeriesOrAggregates<S, A> {
    fn from(answer: Result<Vec<S>, Vec<A>>) -> Self {
        answer.map_or_else(SeriesOrAggregates::Aggregate, SeriesOrAggregates::Series)
    }
}

impl<S: ToSchema, A: ToSchema> utoipa::PartialSchema for SeriesOrAggregates<S, A> {
    fn schema() -> RefOr<Schema> {
        any_of_arrays::<S, A>("series (default) or, with `aggregate=true`, one aggregate per item")
    }
}

impl<S: ToSchema + AnswerSchema, A: ToSchema> ToSchema for SeriesOrAggregates<S, A> {
    fn name() -> std::borrow::Cow<'static, str> {
        S::ANSWER_SCHEMA.into()
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((S::name().into(), <S as utoipa::PartialSchema>::schema()));
        <S as ToSchema>::schemas(schemas);
        schemas.push((A::name().into(), <A as utoipa::PartialSchema>::schema()));
        <A as ToSchema>::schemas(schemas);
    }
}

/// A run of consecutive slots of one input series with the same `data_state`: `[start, end)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct InputRun {
    #[schema(format = DateTime)]
    pub start: String,
    /// Exclusive: the end of the run's last slot.
    #[schema(format = DateTime)]
    pub end: String,
    #[schema(value_type = schema::DataState)]
    pub state: DataState,
}

/// A run of consecutive slots of a zone's derived outputs with the same `zone_status`:
/// `[start, end)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OutputRun {
    #[schema(format = DateTime)]
    pub start: String,
    /// Exclusive: the end of the run's last slot.
    #[schema(format = DateTime)]
    pub end: String,
    #[schema(value_type = schema::ZoneStatus)]
    pub state: ZoneStatus,
}

/// The time ranges held for one input of a zone: its generation (all production types together,
/// the worst state of the slot), its load, or the flow on one direction of one border.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct InputAvailability {
    /// `generation`, `load` or `flow`.
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = String, example = "flow")]
    pub input: StaticStr,
    /// For a flow: the exporting zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub from: Option<ZoneCode>,
    /// For a flow: the importing zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub to: Option<ZoneCode>,
    pub runs: Vec<InputRun>,
}

/// Item of `/availability`: what one zone holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "zone": "DE",
    "inputs": [
        {"input": "generation", "runs": [
            {"start": "2024-06-15T00:00:00Z", "end": "2024-06-15T22:00:00Z", "state": "official"},
            {"start": "2024-06-15T22:00:00Z", "end": "2024-06-16T00:00:00Z", "state": "estimated"}]},
        {"input": "flow", "from": "AT", "to": "DE", "runs": [
            {"start": "2024-06-15T00:00:00Z", "end": "2024-06-16T00:00:00Z", "state": "estimated"}]}
    ],
    "outputs": [
        {"start": "2024-06-15T00:00:00Z", "end": "2024-06-16T00:00:00Z", "state": "preview"}
    ],
    "forecast_end": null
}))]
pub struct AvailabilityResult {
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    /// Generation, load, then the flows by (from, to).
    pub inputs: Vec<InputAvailability>,
    /// The derived outputs (footprints, mix, shares, …) by `zone_status`.
    pub outputs: Vec<OutputRun>,
    /// End of the last slot the forecast fills (inputs in state `missing`), if any.
    #[schema(format = DateTime)]
    pub forecast_end: Option<String>,
}
