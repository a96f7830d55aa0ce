//! OpenAPI schemas that the response types name but cannot derive: the API spelling of the core
//! enums (listed from the core where the core has the list), one [`Point`] as `[timestamp, number]`,
//! and the "series or aggregates" answers. The response structs in [`crate::items`] point their
//! fields here with `#[schema(value_type = …)]`.

use utoipa::ToSchema;
use utoipa::openapi::schema::{
    AnyOfBuilder, ArrayBuilder, KnownFormat, ObjectBuilder, SchemaFormat, Type,
};
use utoipa::openapi::{RefOr, Schema};

/// A string enum of production types in API spelling, listed from
/// [`gridprint_core::production::ProductionType::ALL`] so the schema cannot drift from the core.
fn production_types(description: &str, filter: bool) -> RefOr<Schema> {
    use gridprint_core::production::ProductionType as Core;
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(
            Core::ALL
                .iter()
                .filter(|t| !filter || **t != Core::HydroPumpedStorage)
                .map(|t| t.as_str()),
        ))
        .description(Some(description))
        .into()
}

/// A production type (API spelling).
#[derive(Debug)]
pub struct ProductionType;

impl utoipa::PartialSchema for ProductionType {
    fn schema() -> RefOr<Schema> {
        production_types("A production type (API spelling).", false)
    }
}

impl ToSchema for ProductionType {}

/// A production type accepted as a filter of `/generation` and `/mix` (every type except
/// `hydro_pumped_storage`).
#[derive(Debug)]
pub struct ProductionFilterType;

impl utoipa::PartialSchema for ProductionFilterType {
    fn schema() -> RefOr<Schema> {
        production_types(
            "A production type accepted as a filter of `/generation` and `/mix` (every type \
             except `hydro_pumped_storage`).",
            true,
        )
    }
}

impl ToSchema for ProductionFilterType {}

/// Where a point comes from: provider data, our estimate of a provider gap, or missing (the
/// forecast fills the slot).
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DataState {
    Official,
    Estimated,
    Missing,
}

/// Quality of a zone's slot: `missing` (no provider data, forecast used), `preview` (some input
/// estimated or repaired), `complete`.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ZoneStatus {
    Missing,
    Preview,
    Complete,
}

/// `carbon` or `water`.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum FootprintType {
    Carbon,
    Water,
}

/// `life-cycle` or `operational`.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    LifeCycle,
    Operational,
}

/// Only `operational`.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OperationalScope {
    Operational,
}

/// Only `water`.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImpactType {
    Water,
}

/// `global` (traced through imports) or `local` (the zone's own generation).
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Coverage {
    Global,
    Local,
}

/// The provider of a zone's data.
#[derive(Debug, ToSchema)]
pub enum Provider {
    #[serde(rename = "ENTSO-E")]
    Entsoe,
    Elexon,
    #[serde(rename = "EPIAS")]
    Epias,
}

/// How an aggregate is computed.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum AggregationMethod {
    /// The mean of the step function (each point holds until the next, the last until `end`),
    /// clipped to `[start, end]`.
    TimeWeightedAverage,
}

/// One value: `[timestamp, number]`, the timestamp (`YYYY-MM-DDThh:mm:ssZ`) the start of a
/// 15-minute slot, the number rounded to 2 decimals.
#[derive(Debug)]
pub struct Point;

impl utoipa::PartialSchema for Point {
    fn schema() -> RefOr<Schema> {
        ArrayBuilder::new()
            .prefix_items([
                Schema::Object(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
                        .description(Some("start of the slot, UTC"))
                        .build(),
                ),
                Schema::Object(
                    ObjectBuilder::new()
                        .schema_type(Type::Number)
                        .description(Some("the value, rounded to 2 decimals"))
                        .build(),
                ),
            ])
            .min_items(Some(2))
            .max_items(Some(2))
            .description(Some(
                "`[timestamp, number]`: the start of a 15-minute slot (UTC) and the value",
            ))
            .examples([serde_json::json!(["2024-06-15T12:00:00Z", 123.45])])
            .into()
    }
}

impl ToSchema for Point {}

/// `anyOf` two array schemas (an empty array matches both, so not `oneOf`).
pub(crate) fn any_of_arrays<A: ToSchema, B: ToSchema>(description: &str) -> RefOr<Schema> {
    let arr = |name: std::borrow::Cow<'static, str>| {
        ArrayBuilder::new().items(utoipa::openapi::Ref::from_schema_name(name))
    };
    AnyOfBuilder::new()
        .item(arr(A::name()))
        .item(arr(B::name()))
        .description(Some(description))
        .into()
}

/// `up` or `down`.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum UpDown {
    Up,
    Down,
}

/// A provider's health: `unknown` until checked (or when this process does not check it).
#[derive(Debug, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProviderState {
    Up,
    Down,
    Unknown,
}
