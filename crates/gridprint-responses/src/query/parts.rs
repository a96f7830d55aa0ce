//! The typed values the wire queries are made of — [`Location`] (zones or a point), [`Period`]
//! (`start` and `end`), [`ImpactType`], [`Metric`] — with the OpenAPI parameters a location and a
//! window stand for, and [`PairWriter`], the one way a query becomes its `name=value` pairs.
//! The readers that build these values from pairs are in `read.rs`; the queries in the sibling
//! modules.

use gridprint_core::slot::{TimestampError, format_timestamp, parse_timestamp};
use time::OffsetDateTime;
use utoipa::openapi::Required;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};

/// Where: zone codes, or a point inside a zone's polygon.
#[derive(Debug, Clone, PartialEq)]
pub enum Location {
    /// One or several zone codes (`zone=ES,FR,DE`), as given (trimmed, empty items left out); an
    /// empty list means every zone.
    Zones(Vec<String>),
    /// A point, looked up in the zone polygons by the server (404 if it lies in no zone).
    LatLon { lat: f64, lon: f64 },
}

impl Location {
    /// One zone.
    pub fn zone(code: impl Into<String>) -> Location {
        Location::Zones(vec![code.into()])
    }

    /// Several zones in one call.
    pub fn zones<I, S>(codes: I) -> Location
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Location::Zones(codes.into_iter().map(Into::into).collect())
    }

    /// The zone containing a point.
    pub fn lat_lon(lat: f64, lon: f64) -> Location {
        Location::LatLon { lat, lon }
    }

    /// The OpenAPI parameters of the location under `prefix`: `zone`, `lat`, `lon` for the
    /// request's own (`""`); for a partner's (`source_`, `destination_`, `origin_`) the same types
    /// under its prefix, described as its filter.
    pub fn parameters(prefix: &str) -> Vec<Parameter> {
        let [zone, lat, lon] = match prefix.strip_suffix('_') {
            None => OWN_LOCATION.map(str::to_string),
            Some(w) => [
                format!(
                    "Only these {w} zones (a code or a comma-separated list; unknown codes match nothing). Not together with `{prefix}lat`/`{prefix}lon` (400)."
                ),
                format!(
                    "Latitude of a point inside the {w} zone, in [-90, 90]; with `{prefix}lon`."
                ),
                format!(
                    "Longitude of a point inside the {w} zone, in [-180, 180]; with `{prefix}lat`."
                ),
            ],
        };
        let example = prefix.is_empty().then(|| serde_json::json!("ES"));
        let degrees = |bound: i32| {
            ObjectBuilder::new()
                .schema_type(Type::Number)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Double)))
                .minimum(Some(-bound))
                .maximum(Some(bound))
                .build()
        };
        vec![
            parameter(
                format!("{prefix}zone"),
                zone,
                ObjectBuilder::new().schema_type(Type::String).build(),
            )
            .example(example)
            .build(),
            parameter(format!("{prefix}lat"), lat, degrees(90)).build(),
            parameter(format!("{prefix}lon"), lon, degrees(180)).build(),
        ]
    }
}

/// The descriptions of the request's own `zone`, `lat` and `lon`.
const OWN_LOCATION: [&str; 3] = [
    "A zone code or a comma-separated list (`ES` or `es,FR,DE`; case-insensitive, answered\nupper-case). Absent or empty: all zones. Unknown codes select nothing (`200 []`). Not together\nwith `lat`/`lon` (400). `/footprints`, `/impacts`, the score endpoints and `/best-window` also\naccept the country codes `DK`, `IT`, `NO`, `SE` (global: the members' consumption-weighted\nmean; local: generation-weighted; flags of the worst member); a bidding-zone code always wins.",
    "Latitude of a point in [-90, 90] (else 422); with `lon`, selects the zone whose polygon contains\nthe point (404 when none does). `lat` without `lon` or the reverse → 400. Not with `zone`.",
    "Longitude of the point in [-180, 180] (else 422).",
];

/// The descriptions of a data endpoint's `start` and `end`.
const DATA_WINDOW: [&str; 2] = [
    "Start of the window, read as the reference's framework reads a datetime: RFC 3339\n(`T`, `t`, `_` or a space; `Z`/`z` or an offset up to ±14:00, converted to UTC), naive (taken\nas UTC), a date (`2024-06-15` = midnight UTC), or Unix seconds / milliseconds (`1718445600`).\n`:60` seconds, the basic format and week dates → 422. `start` and `end` both or neither (one alone → 400;\nstart after end → 400). Neither: the current 15-minute slot. The window is\n`[floor15(start), E)` with `E = end` on a slot boundary, else the end of `end`'s slot; an empty\nwindow is one slot. At most 366 days for one zone, 31 days for several or all zones (400).",
    "End of the window (same formats as `start`).",
];

/// The descriptions of `/availability`'s `start` and `end` (the window is optional there).
const HELD_WINDOW: [&str; 2] = [
    "Only what is held from this instant on (same formats as for the data endpoints; `start` and\n`end` both or neither, 400 otherwise). Neither: everything held, whatever its length.",
    "Only what is held before this instant.",
];

/// The forms a timestamp is read in, as a pattern for the document.
const TIMESTAMP_PATTERN: &str = r"^(\d{4}-\d{2}-\d{2}([Tt_ ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}(:?\d{2})?)?)?|[+-]?\d+(\.\d*)?)$";

/// An optional query parameter with its description and schema.
fn parameter(
    name: String,
    description: impl Into<String>,
    schema: utoipa::openapi::Object,
) -> ParameterBuilder {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .description(Some(description))
        .required(Required::False)
        .schema(Some(schema))
}

/// A period `[start, end]`, sent as `start` and `end` in UTC (`YYYY-MM-DDThh:mm:ssZ`). The server
/// widens it to whole 15-minute slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub start: OffsetDateTime,
    pub end: OffsetDateTime,
}

impl Period {
    /// A period from two instants.
    pub fn new(start: OffsetDateTime, end: OffsetDateTime) -> Period {
        Period { start, end }
    }

    /// A period from two ISO 8601 strings, read like the server reads them (`Z` or an offset,
    /// naive = UTC, date-only = midnight UTC, seconds optional).
    pub fn parse(start: &str, end: &str) -> Result<Period, PeriodError> {
        let read = |name: &str, v: &str| {
            parse_timestamp(v).map_err(|e: TimestampError| PeriodError(format!("{name}: {e}")))
        };
        Ok(Period {
            start: read("start", start)?,
            end: read("end", end)?,
        })
    }

    /// The OpenAPI parameters `start` and `end` of the data endpoints.
    pub fn parameters() -> Vec<Parameter> {
        Period::described(DATA_WINDOW, Some(TIMESTAMP_PATTERN))
    }

    /// The OpenAPI parameters `start` and `end` of `/availability` (an optional window).
    pub fn held_parameters() -> Vec<Parameter> {
        Period::described(HELD_WINDOW, None)
    }

    fn described(texts: [&str; 2], pattern: Option<&str>) -> Vec<Parameter> {
        let examples = ["2024-06-15T00:00:00Z", "2024-06-16T00:00:00Z"];
        ["start", "end"]
            .into_iter()
            .zip(texts)
            .zip(examples)
            .map(|((name, text), example)| {
                let schema = ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(pattern)
                    .build();
                parameter(name.to_string(), text, schema)
                    .example(Some(serde_json::json!(example)))
                    .build()
            })
            .collect()
    }
}

/// An unreadable `start` or `end` of [`Period::parse`]: which one, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeriodError(pub String);

impl std::fmt::Display for PeriodError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PeriodError {}

/// The only impact type of the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ImpactType {
    #[default]
    Water,
}

impl ImpactType {
    pub fn as_str(self) -> &'static str {
        "water"
    }
}

/// What `/best-window` ranks a job by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Metric {
    /// A footprint (`footprint_type`, `scope`); lower is better.
    #[default]
    Footprint,
    /// The water impact; lower is better.
    Impact,
    /// The 0–100 score; higher is better.
    Score,
}

impl Metric {
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Footprint => "footprint",
            Metric::Impact => "impact",
            Metric::Score => "score",
        }
    }
}

/// Writes a query's pairs in its order: `None` leaves a parameter out (the server's default
/// applies), an empty zone list too.
#[derive(Debug, Default)]
pub struct PairWriter(Vec<(String, String)>);

impl PairWriter {
    /// `<prefix>zone`, or `<prefix>lat` and `<prefix>lon`.
    pub fn location(mut self, prefix: &str, location: &Option<Location>) -> Self {
        match location {
            None => {}
            Some(Location::Zones(codes)) => {
                let joined = codes
                    .iter()
                    .map(|c| c.trim())
                    .filter(|c| !c.is_empty())
                    .collect::<Vec<_>>()
                    .join(",");
                if !joined.is_empty() {
                    self.0.push((format!("{prefix}zone"), joined));
                }
            }
            Some(Location::LatLon { lat, lon }) => {
                self.0.push((format!("{prefix}lat"), lat.to_string()));
                self.0.push((format!("{prefix}lon"), lon.to_string()));
            }
        }
        self
    }

    /// `start` and `end`.
    pub fn period(self, period: &Option<Period>) -> Self {
        self.time("start", period.map(|p| p.start))
            .time("end", period.map(|p| p.end))
    }

    /// A timestamp in UTC (`YYYY-MM-DDThh:mm:ssZ`).
    pub fn time(self, name: &str, value: Option<OffsetDateTime>) -> Self {
        self.text(name, value.map(format_timestamp))
    }

    /// `true` or `false`.
    pub fn flag(self, name: &str, value: Option<bool>) -> Self {
        self.text(name, value.map(|b| if b { "true" } else { "false" }))
    }

    /// A value as written.
    pub fn text(mut self, name: &str, value: Option<impl Into<String>>) -> Self {
        if let Some(v) = value {
            self.0.push((name.to_string(), v.into()));
        }
        self
    }

    pub fn finish(self) -> Vec<(String, String)> {
        self.0
    }
}
