//! Typed requests: one struct per `/v1` endpoint (docs/api.md §3), each turning into exactly the
//! query parameters the contract names.
//!
//! Every struct has public fields and `Default`, so a request reads like the URL it becomes:
//!
//! ```
//! use gridprint_client::{FootprintsRequest, FootprintType, Location, TimeWindow};
//! let req = FootprintsRequest {
//!     location: Some(Location::zone("DE")),
//!     window: Some(TimeWindow::parse("2024-06-15T00:00Z", "2024-06-15T02:00Z").unwrap()),
//!     footprint_type: Some(FootprintType::Carbon),
//!     ..Default::default()
//! };
//! # use gridprint_client::ApiRequest;
//! assert_eq!(req.path(), "footprints");
//! ```
//!
//! `None` leaves a parameter out, so the server's default applies (all zones, the current slot, both
//! footprint types, …). A [`Location`] is zone codes (`zone=DE` or `zone=ES,FR`) or a point
//! (`lat`/`lon`); secondary locations get their prefix (`source_`, `destination_`, `origin_`).
//! [`Aggregate`] wraps a request that supports `aggregate=true`.
//!
//! The structs themselves are declared in the endpoint table shared with the server
//! ([`gridprint_responses::endpoint_table`]: each entry's `client:` fields) and generated here; each
//! field is written into the query by its type's [`QueryValue`] under the field's name, in the
//! table's order. Their path (and whether they are [`Aggregatable`]) comes from the same table, in
//! `typed.rs`.

use crate::error::Error;
use gridprint_core::production::ProductionType;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{format_timestamp, parse_timestamp};
use time::OffsetDateTime;

/// A request for one `/v1` endpoint: its path (after `/v1/`) and its query parameters.
pub trait ApiRequest {
    /// The path under `/v1/`, such as `footprints` or `flow-share`.
    fn path(&self) -> &'static str;
    /// The query parameters, in a stable order.
    fn query(&self) -> Vec<(String, String)>;
}

/// Marker for requests that accept `aggregate=true` (footprints, impacts, scores, factors).
pub trait Aggregatable: ApiRequest {}

/// A request with `aggregate=true` added: one time-weighted average per zone and type instead of a
/// series (start and end are required by the server).
#[derive(Debug, Clone, Copy)]
pub struct Aggregate<'a, R: ?Sized>(pub &'a R);

impl<R: Aggregatable + ?Sized> ApiRequest for Aggregate<'_, R> {
    fn path(&self) -> &'static str {
        self.0.path()
    }
    fn query(&self) -> Vec<(String, String)> {
        let mut q = self.0.query();
        q.push(("aggregate".into(), "true".into()));
        q
    }
}

/// Where: zone codes, or a point inside a zone's polygon.
#[derive(Debug, Clone, PartialEq)]
pub enum Location {
    /// One or several zone codes (`zone=ES,FR,DE`); an empty list means every zone.
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

    fn write_query(&self, prefix: &str, q: &mut Vec<(String, String)>) {
        match self {
            Location::Zones(codes) => {
                let joined = codes
                    .iter()
                    .map(|c| c.trim())
                    .filter(|c| !c.is_empty())
                    .collect::<Vec<_>>()
                    .join(",");
                if !joined.is_empty() {
                    q.push((format!("{prefix}zone"), joined));
                }
            }
            Location::LatLon { lat, lon } => {
                q.push((format!("{prefix}lat"), lat.to_string()));
                q.push((format!("{prefix}lon"), lon.to_string()));
            }
        }
    }
}

/// A time window `[start, end]`, sent as `start` and `end` in UTC (`YYYY-MM-DDThh:mm:ssZ`). The server
/// widens it to whole 15-minute slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeWindow {
    pub start: OffsetDateTime,
    pub end: OffsetDateTime,
}

impl TimeWindow {
    /// A window from two instants.
    pub fn new(start: OffsetDateTime, end: OffsetDateTime) -> TimeWindow {
        TimeWindow { start, end }
    }

    /// A window from two ISO 8601 strings, read like the server reads them (`Z` or an offset,
    /// naive = UTC, date-only = midnight UTC, seconds optional).
    pub fn parse(start: &str, end: &str) -> Result<TimeWindow, Error> {
        let read = |name: &str, v: &str| {
            parse_timestamp(v).map_err(|e| Error::Configuration(format!("{name}: {e}")))
        };
        Ok(TimeWindow {
            start: read("start", start)?,
            end: read("end", end)?,
        })
    }

    fn write_query(&self, q: &mut Vec<(String, String)>) {
        q.push(("start".into(), format_timestamp(self.start)));
        q.push(("end".into(), format_timestamp(self.end)));
    }
}

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

/// A field of a request struct: how it is written into the query under its field name. `None`
/// writes nothing, so the server's default applies.
pub(crate) trait QueryValue {
    fn push(&self, name: &str, q: &mut Vec<(String, String)>);
}

impl<T: QueryValue> QueryValue for Option<T> {
    fn push(&self, name: &str, q: &mut Vec<(String, String)>) {
        if let Some(v) = self {
            v.push(name, q);
        }
    }
}

/// `location` is the request's own location (`zone` or `lat` + `lon`); any other location field
/// is a partner filter under its name as prefix (`source` → `source_zone`, …).
impl QueryValue for Location {
    fn push(&self, name: &str, q: &mut Vec<(String, String)>) {
        if name == "location" {
            self.write_query("", q);
        } else {
            self.write_query(&format!("{name}_"), q);
        }
    }
}

/// `start` and `end`, whatever the field is called.
impl QueryValue for TimeWindow {
    fn push(&self, _: &str, q: &mut Vec<(String, String)>) {
        self.write_query(q);
    }
}

impl QueryValue for OffsetDateTime {
    fn push(&self, name: &str, q: &mut Vec<(String, String)>) {
        q.push((name.into(), format_timestamp(*self)));
    }
}

impl QueryValue for bool {
    fn push(&self, name: &str, q: &mut Vec<(String, String)>) {
        q.push((name.into(), if *self { "true" } else { "false" }.into()));
    }
}

/// A required text parameter (`duration`): always written.
impl QueryValue for String {
    fn push(&self, name: &str, q: &mut Vec<(String, String)>) {
        q.push((name.into(), self.clone()));
    }
}

impl QueryValue for u32 {
    fn push(&self, name: &str, q: &mut Vec<(String, String)>) {
        q.push((name.into(), self.to_string()));
    }
}

/// The enumerations, written by their `as_str`.
macro_rules! named_values {
    ($($ty:ty),+) => {$(
        impl QueryValue for $ty {
            fn push(&self, name: &str, q: &mut Vec<(String, String)>) {
                q.push((name.into(), self.as_str().into()));
            }
        }
    )+};
}
named_values!(ProductionType, FootprintType, Scope, ImpactType, Metric);

/// The query pairs of a request of the endpoint table; its [`ApiRequest`] implementation (the
/// path, from the table) is derived in `typed.rs` and calls this.
pub(crate) trait QueryPairs {
    fn pairs(&self) -> Vec<(String, String)>;
}

/// Reads the endpoint table (see [`gridprint_responses::endpoint_table`]) into the request
/// structs: public fields (with `Default`, so `..Default::default()` leaves the rest to the
/// server), written into the query in their order by [`QueryValue`].
macro_rules! request_structs {
    ($(
        $(#[$doc:meta])*
        $variant:ident {
            server: $($server:ident)::+ $(, $reference:ident)?;
            client: $request:ident $(, $unit:ident)? $({
                $($(#[$field_doc:meta])* $field:ident: $field_ty:ty),* $(,)?
            })?;
            $($rest:tt)*
        }
    )*) => {$(
        request_structs!(@struct [$(#[$doc])*] $request $(, $unit)? $({
            $($(#[$field_doc])* $field: $field_ty),*
        })?);
    )*};
    (@struct [$($doc:tt)*] $request:ident, unit) => {
        $($doc)*
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct $request;

        impl QueryPairs for $request {
            fn pairs(&self) -> Vec<(String, String)> {
                Vec::new()
            }
        }
    };
    (@struct [$($doc:tt)*] $request:ident {
        $($(#[$field_doc:meta])* $field:ident: $field_ty:ty),*
    }) => {
        $($doc)*
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct $request {
            $($(#[$field_doc])* pub $field: $field_ty,)*
        }

        impl QueryPairs for $request {
            fn pairs(&self) -> Vec<(String, String)> {
                let mut q = Vec::new();
                $(QueryValue::push(&self.$field, stringify!($field), &mut q);)*
                q
            }
        }
    };
}

gridprint_responses::endpoint_table!(request_structs);

/// The public `/status` endpoint and its sub-paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StatusRequest {
    /// `/status`: every component.
    #[default]
    All,
    Storage,
    EntsoE,
    Elexon,
    Epias,
}

impl ApiRequest for StatusRequest {
    fn path(&self) -> &'static str {
        match self {
            StatusRequest::All => "status",
            StatusRequest::Storage => "status/storage",
            StatusRequest::EntsoE => "status/entso-e",
            StatusRequest::Elexon => "status/elexon",
            StatusRequest::Epias => "status/epias",
        }
    }
    fn query(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(r: &dyn ApiRequest) -> String {
        r.query()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    }

    #[test]
    fn parameters_are_the_contracts() {
        let w = TimeWindow::parse("2024-06-15T00:00Z", "2024-06-15T02:00+02:00").unwrap();
        let r = FootprintsRequest {
            location: Some(Location::zones(["ES", "FR"])),
            window: Some(w),
            footprint_type: Some(FootprintType::Water),
            scope: Some(Scope::Operational),
            use_global: Some(false),
        };
        assert_eq!(
            q(&r),
            "zone=ES,FR&start=2024-06-15T00:00:00Z&end=2024-06-15T00:00:00Z&footprint_type=water&scope=operational&use_global=false"
        );
        assert_eq!(q(&Aggregate(&r)), format!("{}&aggregate=true", q(&r)));
        let r = ImportsRequest {
            location: Some(Location::lat_lon(40.4, -3.7)),
            source: Some(Location::zone("PT")),
            window: None,
        };
        assert_eq!(q(&r), "lat=40.4&lon=-3.7&source_zone=PT");
        let r = MixShareRequest {
            origin: Some(Location::lat_lon(52.5, 13.4)),
            ..Default::default()
        };
        assert_eq!(q(&r), "origin_lat=52.5&origin_lon=13.4");
        assert_eq!(
            q(&GenerationRequest {
                production_type: Some(ProductionType::WindOffshore),
                location: Some(Location::Zones(vec![])),
                ..Default::default()
            }),
            "production_type=wind_offshore"
        );
        assert_eq!(
            q(&FactorsRequest {
                factor_type: Some(FootprintType::Carbon),
                scope: Some(Scope::LifeCycle),
                production_type: Some(ProductionType::HydroPumpedStorage),
                window: None,
            }),
            "factor_type=carbon&scope=life-cycle&production_type=hydro_pumped_storage"
        );
        // Fields declared in the endpoint table become their parameters, in the table's order.
        let r = BestWindowRequest {
            location: Some(Location::zones(["DE", "FR"])),
            duration: "PT2H".into(),
            start: Some(w.start),
            end: None,
            metric: Some(Metric::Score),
            footprint_type: None,
            scope: Some(Scope::Operational),
            use_global: Some(true),
            n: Some(5),
        };
        assert_eq!(r.path(), "best-window");
        assert_eq!(
            q(&r),
            "zone=DE,FR&duration=PT2H&start=2024-06-15T00:00:00Z&metric=score&scope=operational&use_global=true&n=5"
        );
        let r = ExportsRequest {
            destination: Some(Location::zones(["AT", " "])),
            window: Some(w),
            ..Default::default()
        };
        assert_eq!(
            q(&r),
            "destination_zone=AT&start=2024-06-15T00:00:00Z&end=2024-06-15T00:00:00Z"
        );
        let r = ImpactsRequest {
            impact_type: Some(ImpactType::Water),
            ..Default::default()
        };
        assert_eq!((r.path(), q(&r)), ("impacts", "impact_type=water".into()));
        assert_eq!(
            (ZonesRequest.path(), q(&ZonesRequest)),
            ("zones", String::new())
        );
        assert_eq!(StatusRequest::EntsoE.path(), "status/entso-e");
        assert!(TimeWindow::parse("yesterday", "2024-01-01").is_err());
    }
}
