//! The items of derived series answered with `aggregate=true` (footprints, impacts, scores): a
//! [`DerivedAggregate`] is its item's descriptive fields (the head: [`FootprintHead`],
//! [`ImpactHead`], [`ScoreHead`]) followed by the one [`AggregateTail`] every aggregate shares
//! (`start, end, value, valid, zone_status, points, slots, aggregation_method`), declared and
//! documented here once.
//!
//! The JSON is one flat object, head fields then tail fields, written by hand ([`AggregateHead`]
//! writes a head's fields) rather than with `#[serde(flatten)]`, which would make serialization go
//! through a map and the OpenAPI schema an `allOf`. The schema is likewise one object: the head's
//! properties and the tail's, under the aggregate's name (`FootprintAggregate`, …). Reading back
//! (the client) uses serde's `flatten`. The CSV row of an aggregate is in [`crate::rows`]; how an
//! item becomes its aggregate is [`crate::items::DerivedItem`].

use crate::schema;
use crate::values::{StaticStr, round2, static_str};
use gridprint_core::derived::Coverage;
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::zone::ZoneCode;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use utoipa::openapi::schema::Object;
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

/// What every aggregate of a derived series says after its item's descriptive fields.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct AggregateTail {
    /// The request's `start`, in UTC.
    #[schema(format = DateTime)]
    pub start: String,
    /// The request's `end`, in UTC.
    #[schema(format = DateTime)]
    pub end: String,
    /// Time-weighted average, rounded to 2 decimals.
    pub value: f64,
    /// `true` only if every point is valid.
    pub valid: bool,
    /// The worst status present (missing < preview < complete).
    #[schema(value_type = schema::ZoneStatus)]
    pub zone_status: ZoneStatus,
    /// **[beyond]** Slots of the window that have a value (docs/api.md §3).
    pub points: usize,
    /// **[beyond]** Slots in the window; `points < slots` makes `valid` false and `zone_status`
    /// `missing`: an aggregate never looks complete over a hole.
    pub slots: usize,
    // Always `TIME_WEIGHTED_AVERAGE` (a plain comment: the schema `AggregationMethod` says it).
    #[serde(deserialize_with = "static_str")]
    #[schema(value_type = schema::AggregationMethod)]
    pub aggregation_method: StaticStr,
}

impl AggregateTail {
    /// Number of fields [`AggregateTail::serialize_fields`] writes.
    const FIELDS: usize = 8;

    /// Writes the tail's fields, in order, into the aggregate's JSON object (`value` rounded).
    fn serialize_fields<S: SerializeStruct>(&self, out: &mut S) -> Result<(), S::Error> {
        out.serialize_field("start", &self.start)?;
        out.serialize_field("end", &self.end)?;
        out.serialize_field("value", &round2(self.value))?;
        out.serialize_field("valid", &self.valid)?;
        out.serialize_field("zone_status", &self.zone_status)?;
        out.serialize_field("points", &self.points)?;
        out.serialize_field("slots", &self.slots)?;
        out.serialize_field("aggregation_method", self.aggregation_method)
    }
}

/// The descriptive fields a [`DerivedAggregate`] starts with: the aggregate's name and description
/// in the OpenAPI document, and how the fields are written.
pub trait AggregateHead {
    /// The aggregate's schema name, e.g. `FootprintAggregate`.
    const AGGREGATE_NAME: &'static str;
    /// The aggregate's schema description.
    const AGGREGATE_DESCRIPTION: &'static str;
    /// Number of fields [`AggregateHead::serialize_fields`] writes.
    const FIELDS: usize;
    /// Writes the head's fields, in order, into the aggregate's JSON object.
    fn serialize_fields<S: SerializeStruct>(&self, out: &mut S) -> Result<(), S::Error>;
}

/// An item of an answer with `aggregate=true`: the head's fields, then the tail's, as one object.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DerivedAggregate<H> {
    #[serde(flatten)]
    pub head: H,
    #[serde(flatten)]
    pub tail: AggregateTail,
}

impl<H: AggregateHead> Serialize for DerivedAggregate<H> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut out = s.serialize_struct(H::AGGREGATE_NAME, H::FIELDS + AggregateTail::FIELDS)?;
        self.head.serialize_fields(&mut out)?;
        self.tail.serialize_fields(&mut out)?;
        out.end()
    }
}

/// The inline object schema of a derived struct.
fn object_of<T: PartialSchema>() -> Object {
    match T::schema() {
        RefOr::T(Schema::Object(object)) => object,
        _ => unreachable!("a struct deriving ToSchema has an inline object schema"),
    }
}

/// One object: the head's properties, then the tail's (`required` in that order).
impl<H: AggregateHead + ToSchema> PartialSchema for DerivedAggregate<H> {
    fn schema() -> RefOr<Schema> {
        let mut object = object_of::<H>();
        let tail = object_of::<AggregateTail>();
        object.properties.extend(tail.properties);
        object.required.extend(tail.required);
        object.description = Some(H::AGGREGATE_DESCRIPTION.to_owned());
        RefOr::T(Schema::Object(object))
    }
}

impl<H: AggregateHead + ToSchema> ToSchema for DerivedAggregate<H> {
    fn name() -> std::borrow::Cow<'static, str> {
        H::AGGREGATE_NAME.into()
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        H::schemas(schemas);
        AggregateTail::schemas(schemas);
    }
}

/// Item of `/footprints?aggregate=true`.
pub type FootprintAggregate = DerivedAggregate<FootprintHead>;
/// Item of `/impacts?aggregate=true`.
pub type ImpactAggregate = DerivedAggregate<ImpactHead>;
/// Item of the score endpoints with `aggregate=true`.
pub type ScoreAggregate = DerivedAggregate<ScoreHead>;

/// The descriptive fields of a footprint aggregate (those of `FootprintResult`).
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct FootprintHead {
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
}

impl AggregateHead for FootprintHead {
    const AGGREGATE_NAME: &'static str = "FootprintAggregate";
    const AGGREGATE_DESCRIPTION: &'static str = "Item of `/footprints?aggregate=true`.";
    const FIELDS: usize = 5;
    fn serialize_fields<S: SerializeStruct>(&self, out: &mut S) -> Result<(), S::Error> {
        out.serialize_field("footprint_type", &self.footprint_type)?;
        out.serialize_field("scope", &self.scope)?;
        out.serialize_field("zone", &self.zone)?;
        out.serialize_field("unit", self.unit)?;
        out.serialize_field("coverage", &self.coverage)
    }
}

/// The descriptive fields of an impact aggregate (those of `ImpactResult`).
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ImpactHead {
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
}

impl AggregateHead for ImpactHead {
    const AGGREGATE_NAME: &'static str = "ImpactAggregate";
    const AGGREGATE_DESCRIPTION: &'static str = "Item of `/impacts?aggregate=true`.";
    const FIELDS: usize = 5;
    fn serialize_fields<S: SerializeStruct>(&self, out: &mut S) -> Result<(), S::Error> {
        out.serialize_field("impact_type", self.impact_type)?;
        out.serialize_field("scope", &self.scope)?;
        out.serialize_field("zone", &self.zone)?;
        out.serialize_field("unit", self.unit)?;
        out.serialize_field("coverage", &self.coverage)
    }
}

/// The descriptive fields of a score aggregate (those of `ScoreResult`; a score has no unit).
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
pub struct ScoreHead {
    #[schema(value_type = schema::OperationalScope)]
    pub scope: Scope,
    #[schema(value_type = String)]
    pub zone: ZoneCode,
    #[schema(value_type = schema::Coverage)]
    pub coverage: Coverage,
}

impl AggregateHead for ScoreHead {
    const AGGREGATE_NAME: &'static str = "ScoreAggregate";
    const AGGREGATE_DESCRIPTION: &'static str =
        "Item of the score endpoints with `aggregate=true`.";
    const FIELDS: usize = 3;
    fn serialize_fields<S: SerializeStruct>(&self, out: &mut S) -> Result<(), S::Error> {
        out.serialize_field("scope", &self.scope)?;
        out.serialize_field("zone", &self.zone)?;
        out.serialize_field("coverage", &self.coverage)
    }
}
