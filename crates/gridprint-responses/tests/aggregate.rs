//! The aggregates of derived series (footprints, impacts, scores) share one tail: their JSON ends
//! with the same keys in the same order, their OpenAPI schemas hold the tail's properties as
//! documented once, their CSV rows end with the same columns, and the client reads them back.

use gridprint_core::derived::Coverage;
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::zone::ZoneCode;
use gridprint_responses::json::to_json;
use gridprint_responses::{
    AggregateHead, AggregateTail, DerivedAggregate, FootprintAggregate, FootprintHead,
    ImpactAggregate, ImpactHead, RowSink, Rows, ScoreAggregate, ScoreHead, TIME_WEIGHTED_AVERAGE,
    Values,
};
use serde::de::{DeserializeOwned, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use utoipa::openapi::schema::Object;
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

const TAIL_KEYS: [&str; 8] = [
    "start",
    "end",
    "value",
    "valid",
    "zone_status",
    "points",
    "slots",
    "aggregation_method",
];

/// The JSON every aggregate below ends with (after its head's fields).
const TAIL_JSON: &str = r#""start":"2024-06-15T00:00:00Z","end":"2024-06-16T00:00:00Z","value":12.35,"valid":false,"zone_status":"missing","points":90,"slots":96,"aggregation_method":"time-weighted-average"}"#;

fn tail() -> AggregateTail {
    AggregateTail {
        start: "2024-06-15T00:00:00Z".into(),
        end: "2024-06-16T00:00:00Z".into(),
        value: 12.345_6,
        valid: false,
        zone_status: ZoneStatus::Missing,
        points: 90,
        slots: 96,
        aggregation_method: TIME_WEIGHTED_AVERAGE,
    }
}

fn de() -> ZoneCode {
    ZoneCode::parse("DE").unwrap()
}

fn footprint() -> FootprintAggregate {
    DerivedAggregate {
        head: FootprintHead {
            footprint_type: FootprintType::Water,
            scope: Scope::Operational,
            zone: de(),
            unit: "l/kWh",
            coverage: Coverage::Local,
        },
        tail: tail(),
    }
}

fn impact() -> ImpactAggregate {
    DerivedAggregate {
        head: ImpactHead {
            impact_type: "water",
            scope: Scope::Operational,
            zone: de(),
            unit: "stress-l/kWh",
            coverage: Coverage::Global,
        },
        tail: tail(),
    }
}

fn score() -> ScoreAggregate {
    DerivedAggregate {
        head: ScoreHead {
            scope: Scope::Operational,
            zone: de(),
            coverage: Coverage::Global,
        },
        tail: tail(),
    }
}

/// The keys of a JSON object, in the order written.
struct Keys(Vec<String>);

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = Keys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some((key, IgnoredAny)) = map.next_entry::<String, IgnoredAny>()? {
                    keys.push(key);
                }
                Ok(Keys(keys))
            }
        }
        d.deserialize_map(KeysVisitor)
    }
}

fn object<T: PartialSchema>() -> Object {
    match T::schema() {
        RefOr::T(Schema::Object(object)) => object,
        other => panic!(
            "not an inline object: {}",
            serde_json::to_string(&other).unwrap()
        ),
    }
}

/// The JSON is the head's fields then the tail's, byte for byte as the three structs wrote them
/// before they shared the tail; serde_json writes the same bytes as the server's writer; the keys
/// are the schema's `required`, in order, and `H::FIELDS` counts the head's.
fn check_json<H: AggregateHead + ToSchema>(a: &DerivedAggregate<H>, head_json: &str) {
    let fast = String::from_utf8(to_json(a, 0)).unwrap();
    assert_eq!(fast, format!("{head_json}{TAIL_JSON}"));
    assert_eq!(fast, serde_json::to_string(a).unwrap());
    let Keys(keys) = serde_json::from_str(&fast).unwrap();
    assert_eq!(keys[H::FIELDS..], TAIL_KEYS, "{}", H::AGGREGATE_NAME);
    assert_eq!(keys, object::<DerivedAggregate<H>>().required);
}

#[test]
fn the_three_aggregates_end_with_the_same_tail() {
    check_json(
        &footprint(),
        r#"{"footprint_type":"water","scope":"operational","zone":"DE","unit":"l/kWh","coverage":"local","#,
    );
    check_json(
        &impact(),
        r#"{"impact_type":"water","scope":"operational","zone":"DE","unit":"stress-l/kWh","coverage":"global","#,
    );
    check_json(
        &score(),
        r#"{"scope":"operational","zone":"DE","coverage":"global","#,
    );
}

/// Each aggregate's schema is one object under its own name: the head's properties and, identical
/// (descriptions included), every property of the tail.
fn check_schema<H: AggregateHead + ToSchema>(head_keys: &[&str]) {
    assert_eq!(DerivedAggregate::<H>::name(), H::AGGREGATE_NAME);
    let schema = object::<DerivedAggregate<H>>();
    let tail = object::<AggregateTail>();
    assert_eq!(tail.required, TAIL_KEYS);
    let mut required: Vec<&str> = head_keys.to_vec();
    required.extend(TAIL_KEYS);
    assert_eq!(schema.required, required, "{}", H::AGGREGATE_NAME);
    assert_eq!(schema.properties.len(), required.len());
    for (key, property) in &tail.properties {
        let json = |p: &RefOr<Schema>| serde_json::to_value(p).unwrap();
        assert_eq!(
            schema.properties.get(key).map(json),
            Some(json(property)),
            "{key}"
        );
    }
    assert_eq!(
        schema.description.as_deref(),
        Some(H::AGGREGATE_DESCRIPTION)
    );
    // The tail's fields are documented (aggregation_method by its own schema).
    for key in TAIL_KEYS.iter().filter(|k| **k != "aggregation_method") {
        let described = match &tail.properties[*key] {
            RefOr::T(Schema::Object(o)) => o.description.is_some(),
            RefOr::Ref(r) => !r.description.is_empty(),
            _ => panic!("{key}: neither an object nor a reference"),
        };
        assert!(described, "{key} has no description");
    }
    // The names the schema points to are registered with it.
    let mut named = Vec::new();
    DerivedAggregate::<H>::schemas(&mut named);
    for name in ["ZoneStatus", "AggregationMethod", "Coverage"] {
        assert!(named.iter().any(|(n, _)| n == name), "{name}");
    }
}

#[test]
fn the_three_schemas_share_the_tail() {
    check_schema::<FootprintHead>(&["footprint_type", "scope", "zone", "unit", "coverage"]);
    check_schema::<ImpactHead>(&["impact_type", "scope", "zone", "unit", "coverage"]);
    check_schema::<ScoreHead>(&["scope", "zone", "coverage"]);
}

/// What the server writes, the client reads back equal (values are written rounded); an object
/// without the tail's `aggregation_method` is refused.
fn check_round_trip<H>(a: DerivedAggregate<H>)
where
    H: AggregateHead + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let rounded = DerivedAggregate {
        tail: AggregateTail {
            value: 12.35,
            ..a.tail.clone()
        },
        ..a
    };
    let json = to_json(&rounded, 0);
    let back: DerivedAggregate<H> = serde_json::from_slice(&json).unwrap();
    assert_eq!(back, rounded);
    let mut value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    value.as_object_mut().unwrap().remove("aggregation_method");
    assert!(serde_json::from_value::<DerivedAggregate<H>>(value).is_err());
}

#[test]
fn the_client_reads_the_aggregates_back() {
    check_round_trip(footprint());
    check_round_trip(impact());
    check_round_trip(score());
}

/// The last columns of a row.
struct LastRow(Vec<String>);

impl RowSink for LastRow {
    fn points(&mut self, _: &[&str], _: &Values) {
        panic!("an aggregate has no points");
    }
    fn row(&mut self, fields: &[&str]) {
        self.0 = fields.iter().map(|f| f.to_string()).collect();
    }
}

fn check_row<A: Rows>(a: &A, head: &[&str]) {
    let tail = [
        "start",
        "end",
        "value",
        "valid",
        "zone_status",
        "aggregation_method",
    ];
    assert_eq!(A::COLUMNS[..head.len()], *head);
    assert_eq!(A::COLUMNS[head.len()..], tail);
    let mut row = LastRow(Vec::new());
    a.rows(&mut row);
    assert_eq!(
        row.0[head.len()..],
        [
            "2024-06-15T00:00:00Z",
            "2024-06-16T00:00:00Z",
            "12.35",
            "false",
            "missing",
            "time-weighted-average"
        ]
    );
    assert!(!a.is_final());
}

#[test]
fn the_three_rows_end_with_the_same_columns() {
    check_row(
        &footprint(),
        &["zone", "footprint_type", "scope", "unit", "coverage"],
    );
    check_row(
        &impact(),
        &["zone", "impact_type", "scope", "unit", "coverage"],
    );
    check_row(&score(), &["zone", "scope", "coverage"]);
}
