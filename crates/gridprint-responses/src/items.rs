//! The response bodies of every `/v1` endpoint, with the field names of the API reference
//! (docs/api.md, "Answers"). Each struct derives `Serialize` (the server writes it), `Deserialize`
//! (the client reads it back) and `ToSchema` (the OpenAPI document publishes it); its doc comments
//! are the schema's descriptions. Fields whose Rust type is a core type or a constant string name
//! their published schema with `value_type` (see [`crate::schema`]).
//!
//! Series entries carry the flags `valid` and `zone_status`; aggregated answers (`aggregate=true`)
//! use the `*Aggregate` structs, and the endpoints that have both answer a series-or-aggregates enum
//! ([`Footprints`], [`Impacts`], [`Scores`], [`Factors`]).

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

/// A series entry of blocks (the `*Entry` types): built from its flags and its blocks.
pub trait FlagEntry {
    /// The block type.
    type Block;
    /// The entry with these flags and blocks.
    fn new(valid: bool, zone_status: ZoneStatus, blocks: Vec<Self::Block>) -> Self;
}

/// Declares a series entry: the flags and one list of blocks; implements [`FlagEntry`].
macro_rules! flag_entry {
    ($(#[$doc:meta])* $name:ident, $(#[$valid_doc:meta])* $field:ident: $block:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
        pub struct $name {
            $(#[$valid_doc])*
            pub valid: bool,
            #[schema(value_type = schema::ZoneStatus)]
            pub zone_status: ZoneStatus,
            pub $field: Vec<$block>,
        }

        impl FlagEntry for $name {
            type Block = $block;
            fn new(valid: bool, zone_status: ZoneStatus, blocks: Vec<$block>) -> Self {
                $name {
                    valid,
                    zone_status,
                    $field: blocks,
                }
            }
        }
    };
}

/// Declares a block of points: its key fields, with `stated` the points' data state and datasource,
/// then the points.
macro_rules! block {
    ($(#[$doc:meta])* $name:ident { $($(#[$fa:meta])* $field:ident: $fty:ty),* } $(, $stated:ident)?) => {
        block!(@declare $(#[$doc])* $name { $($(#[$fa])* $field: $fty),* } [$($stated)?]);
    };
    (@declare $(#[$doc:meta])* $name:ident { $($(#[$fa:meta])* $field:ident: $fty:ty),* } [stated]) => {
        block!(@declare $(#[$doc])* $name {
            $($(#[$fa])* $field: $fty,)*
            #[schema(value_type = schema::DataState)]
            data_state: DataState,
            /// `ENTSO-E`, `Elexon`, `EPIAS`, `gridprint-estimation:<method>`,
            /// `gridprint-forecast:<method>`, or `flow_tracing` (mix).
            datasource: String
        } []);

        impl $name {
            /// The block of these points, with its key fields, data state and datasource.
            pub fn new(
                $($field: $fty,)* data_state: DataState, datasource: String, values: Values,
            ) -> Self {
                $name { $($field,)* data_state, datasource, values }
            }
        }
    };
    (@declare $(#[$doc:meta])* $name:ident { $($(#[$fa:meta])* $field:ident: $fty:ty),* } []) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
        pub struct $name {
            $($(#[$fa])* pub $field: $fty,)*
            #[schema(value_type = Vec<schema::Point>)]
            pub values: Values,
        }
    };
}

block! {
    /// Points of one production type with one data state and datasource.
    ProductionBlock {
        #[schema(value_type = schema::ProductionType)]
        production_type: ProductionType
    },
    stated
}
block! {
    /// Points with one data state and datasource.
    StateBlock {}, stated
}
block! {
    /// Imports from one source zone with one data state and datasource.
    ImportBlock { #[schema(value_type = String)] source: ZoneCode }, stated
}
block! {
    /// Exports to one destination zone with one data state and datasource.
    ExportBlock { #[schema(value_type = String)] destination: ZoneCode }, stated
}
block! {
    /// Shares towards one destination zone (`%`).
    DestinationBlock { #[schema(value_type = String)] destination: ZoneCode }
}
block! {
    /// Shares from one origin zone (`%`).
    OriginBlock { #[schema(value_type = String)] origin: ZoneCode }
}
block! {
    /// The part of a footprint or impact coming from one source zone.
    SourceBlock { #[schema(value_type = String)] source: ZoneCode }
}

flag_entry!(
    /// Series entry of `/generation` and `/mix`: one per (valid, zone_status) in the window.
    GenerationEntry,
    /// Final (older than now − 4 h), or complete and newer.
    production: ProductionBlock
);
flag_entry!(
    /// Series entry of `/load`.
    LoadEntry, blocks: StateBlock
);
flag_entry!(
    /// Series entry of `/imports`.
    ImportsEntry, imports: ImportBlock
);
flag_entry!(
    /// Series entry of `/exports`.
    ExportsEntry, exports: ExportBlock
);
flag_entry!(
    /// Series entry of `/flow-share`.
    FlowShareEntry, flows: DestinationBlock
);
flag_entry!(
    /// Series entry of `/mix-share`.
    MixShareEntry, shares: OriginBlock
);
flag_entry!(
    /// Series entry of `/footprint-share` and `/impact-share`.
    SourceEntry, blocks: SourceBlock
);

/// An item of a zone's series in one unit (the `zone, unit, series` items): built from the three.
pub trait ZoneSeries {
    /// The series entry type.
    type Entry;
    /// The item of `zone` in `unit` with these entries.
    fn new(zone: ZoneCode, unit: StaticStr, series: Vec<Self::Entry>) -> Self;
}

/// Declares a `zone, unit, series` item (`unit` with its description, if any, in brackets);
/// implements [`ZoneSeries`].
macro_rules! zone_series {
    ($(#[$doc:meta])* $name:ident, [$(#[$unit_doc:meta])*], $entry:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
        pub struct $name {
            #[schema(value_type = String)]
            pub zone: ZoneCode,
            $(#[$unit_doc])*
            #[serde(deserialize_with = "static_str")]
            #[schema(value_type = String)]
            pub unit: StaticStr,
            pub series: Vec<$entry>,
        }

        impl ZoneSeries for $name {
            type Entry = $entry;
            fn new(zone: ZoneCode, unit: StaticStr, series: Vec<$entry>) -> Self {
                $name { zone, unit, series }
            }
        }
    };
}

zone_series!(
    /// Item of `/generation` (provider data, MW) and `/mix` (MW of each type consumed in the zone
    /// after flow tracing; datasource `flow_tracing`).
    GenerationResult,
    [#[doc = " `MW`."]],
    GenerationEntry
);

/// Item of `/mix`: MW of each type consumed in the zone after flow tracing.
pub type MixResult = GenerationResult;

zone_series!(
    /// Item of `/load`.
    LoadResult,
    [#[doc = " `MW`."]],
    LoadEntry
);
zone_series!(
    /// Item of `/imports` (physical flows into the zone, MW).
    ImportsResult,
    [],
    ImportsEntry
);
zone_series!(
    /// Item of `/exports` (physical flows out of the zone, MW).
    ExportsResult,
    [],
    ExportsEntry
);
zone_series!(
    /// Item of `/flow-share`: share of the zone's generation consumed in each destination (itself
    /// included).
    FlowShareResult,
    [#[doc = " `%`."]],
    FlowShareEntry
);
zone_series!(
    /// Item of `/mix-share`: share of the zone's consumption generated in each origin (itself
    /// included).
    MixShareResult,
    [],
    MixShareEntry
);

/// What every aggregate of a derived series (footprints, impacts, scores) says after its item's
/// descriptive fields; its `aggregation_method` is always [`TIME_WEIGHTED_AVERAGE`].
#[derive(Debug, Clone, PartialEq)]
pub struct AggregateTail {
    pub start: String,
    pub end: String,
    pub value: f64,
    pub valid: bool,
    pub zone_status: ZoneStatus,
    pub points: usize,
    pub slots: usize,
}

/// A series item of a derived series whose answer may instead be one aggregate per item: built
/// first with its descriptive fields and no series, it then takes its series or becomes its
/// aggregate.
pub trait DerivedItem: Sized {
    /// The item of the answer with `aggregate=true`.
    type Aggregate;
    /// The item with these series entries.
    fn with_series(self, series: Vec<FlagSeries>) -> Self;
    /// The aggregate with the item's descriptive fields.
    fn aggregate(self, tail: AggregateTail) -> Self::Aggregate;
}

/// Declares a derived series item `$item` and its aggregate `$name`: the descriptive fields (given
/// once with their attributes, in the order of the JSON) followed by `series` in the item and by
/// the tail every aggregate shares in the aggregate; with `documented` the tail fields carry their
/// descriptions (the footprints' aggregate publishes them, the others do not). Implements
/// [`DerivedItem`] for `$item`.
macro_rules! derived_item {
    ([$(#[$idoc:meta])*] $item:ident, [$(#[$doc:meta])*] $name:ident, documented, $fields:tt) => {
        derived_item!(@declare [$(#[$idoc])*] $item, [$(#[$doc])*] $name, $fields,
            [#[doc = " The request's `start`, in UTC."]]
            [#[doc = " The request's `end`, in UTC."]]
            [#[doc = " Time-weighted average, rounded to 2 decimals."]]
            [#[doc = " `true` only if every point is valid."]]
            [#[doc = " The worst status present (missing < preview < complete)."]]);
    };
    ([$(#[$idoc:meta])*] $item:ident, [$(#[$doc:meta])*] $name:ident, $fields:tt) => {
        derived_item!(@declare [$(#[$idoc])*] $item, [$(#[$doc])*] $name, $fields, [] [] [] [] []);
    };
    (@declare [$(#[$idoc:meta])*] $item:ident, [$(#[$doc:meta])*] $name:ident,
        { $($(#[$fa:meta])* $field:ident: $fty:ty),* $(,)? },
        [$(#[$start:meta])*] [$(#[$end:meta])*] [$(#[$value:meta])*] [$(#[$valid:meta])*]
        [$(#[$status:meta])*]) => {
        $(#[$idoc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
        pub struct $item {
            $($(#[$fa])* pub $field: $fty,)*
            pub series: Vec<FlagSeries>,
        }

        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
        pub struct $name {
            $($(#[$fa])* pub $field: $fty,)*
            $(#[$start])*
            #[schema(format = DateTime)]
            pub start: String,
            $(#[$end])*
            #[schema(format = DateTime)]
            pub end: String,
            $(#[$value])*
            #[serde(serialize_with = "serialize_round2")]
            pub value: f64,
            $(#[$valid])*
            pub valid: bool,
            $(#[$status])*
            #[schema(value_type = schema::ZoneStatus)]
            pub zone_status: ZoneStatus,
            /// **[beyond]** Slots of the window that have a value (docs/api.md §3).
            pub points: usize,
            /// **[beyond]** Slots in the window; `points < slots` makes `valid` false and `zone_status`
            /// `missing`: an aggregate never looks complete over a hole.
            pub slots: usize,
            #[serde(deserialize_with = "static_str")]
            #[schema(value_type = schema::AggregationMethod)]
            pub aggregation_method: StaticStr,
        }

        impl DerivedItem for $item {
            type Aggregate = $name;
            fn with_series(self, series: Vec<FlagSeries>) -> Self {
                $item { series, ..self }
            }
            fn aggregate(self, t: AggregateTail) -> $name {
                $name {
                    $($field: self.$field,)*
                    start: t.start,
                    end: t.end,
                    value: t.value,
                    valid: t.valid,
                    zone_status: t.zone_status,
                    points: t.points,
                    slots: t.slots,
                    aggregation_method: TIME_WEIGHTED_AVERAGE,
                }
            }
        }
    };
}

derived_item!(
    [
        /// Item of `/footprints`.
    ]
    FootprintResult,
    [
        /// Item of `/footprints?aggregate=true`.
    ]
    FootprintAggregate,
    documented,
    {
        #[schema(value_type = schema::FootprintType)]
        footprint_type: FootprintType,
        #[schema(value_type = schema::Scope)]
        scope: Scope,
        #[schema(value_type = String)]
        zone: ZoneCode,
        /// `gCO2/kWh` (carbon) or `l/kWh` (water).
        #[serde(deserialize_with = "static_str")]
        #[schema(value_type = String)]
        unit: StaticStr,
        #[schema(value_type = schema::Coverage)]
        coverage: Coverage,
    }
);

derived_item!(
    [
        /// Item of `/impacts`.
    ]
    ImpactResult,
    [
        /// Item of `/impacts?aggregate=true`.
    ]
    ImpactAggregate,
    {
        #[serde(deserialize_with = "static_str")]
        #[schema(value_type = schema::ImpactType)]
        impact_type: StaticStr,
        #[schema(value_type = schema::OperationalScope)]
        scope: Scope,
        #[schema(value_type = String)]
        zone: ZoneCode,
        /// `stress-l/kWh`.
        #[serde(deserialize_with = "static_str")]
        #[schema(value_type = String)]
        unit: StaticStr,
        #[schema(value_type = schema::Coverage)]
        coverage: Coverage,
    }
);

derived_item!(
    [
        /// Item of `/green-score` and `/environmental-score` (unitless 0–100, no `unit` field).
    ]
    ScoreResult,
    [
        /// Item of the score endpoints with `aggregate=true`.
    ]
    ScoreAggregate,
    {
        #[schema(value_type = schema::OperationalScope)]
        scope: Scope,
        #[schema(value_type = String)]
        zone: ZoneCode,
        #[schema(value_type = schema::Coverage)]
        coverage: Coverage,
    }
);

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
}

/// Declares an answer that is a list of series or, with `aggregate=true`, a list of aggregates;
/// published as `anyOf` the two arrays under the name `$schema`.
macro_rules! series_or_aggregates {
    ($(#[$doc:meta])* $name:ident, $schema:literal, $series:ty, $agg:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(untagged)]
        pub enum $name {
            Series(Vec<$series>),
            Aggregate(Vec<$agg>),
        }

        /// `Ok`: the series, `Err`: the aggregates (as a derived answer comes).
        impl From<Result<Vec<$series>, Vec<$agg>>> for $name {
            fn from(answer: Result<Vec<$series>, Vec<$agg>>) -> Self {
                answer.map_or_else($name::Aggregate, $name::Series)
            }
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                any_of_arrays::<$series, $agg>(
                    "series (default) or, with `aggregate=true`, one aggregate per item",
                )
            }
        }

        impl ToSchema for $name {
            fn name() -> std::borrow::Cow<'static, str> {
                $schema.into()
            }

            fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
                schemas.push((<$series>::name().into(), <$series as utoipa::PartialSchema>::schema()));
                <$series as ToSchema>::schemas(schemas);
                schemas.push((<$agg>::name().into(), <$agg as utoipa::PartialSchema>::schema()));
                <$agg as ToSchema>::schemas(schemas);
            }
        }
    };
}

series_or_aggregates!(
    /// `/footprints`: series, or aggregates with `aggregate=true`.
    Footprints,
    "FootprintsAnswer",
    FootprintResult,
    FootprintAggregate
);
series_or_aggregates!(
    /// `/impacts`: series, or aggregates with `aggregate=true`.
    Impacts,
    "ImpactsAnswer",
    ImpactResult,
    ImpactAggregate
);
series_or_aggregates!(
    /// Score endpoints: series, or aggregates with `aggregate=true`.
    Scores,
    "ScoresAnswer",
    ScoreResult,
    ScoreAggregate
);
series_or_aggregates!(
    /// `/factors`: series, or aggregates with `aggregate=true` and dates.
    Factors,
    "FactorsAnswer",
    FactorResult,
    FactorAggregate
);

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
