//! Query pairs → typed values: [`QueryParams`] (the raw pairs, the last occurrence of a name wins)
//! and the readers every wire query's `from_pairs` calls — location (`zone` or `lat`/`lon`), window,
//! timestamps, booleans, enums — each failing with the [`QueryError`] and status docs/api.md §2
//! gives. A query calls them in the order typed parameters, location(s), time, enums and booleans,
//! then rules across parameters, so the first problem found is the one reported. The queries that
//! call them are in the sibling modules; the server resolves what they read (zone indices, slots,
//! "now") in gridprint-query's `params`.

use super::QueryContext;
use super::error::{FieldError, QueryError};
use super::parts::{ImpactType, Location, Period};
use gridprint_core::production::ProductionType;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{SLOTS_PER_DAY, SlotRange, TimestampError, parse_timestamp};
use gridprint_core::zone::ZoneCode;
use time::OffsetDateTime;

/// Longest window for one zone, in days.
pub const MAX_DAYS_ONE_ZONE: i64 = 366;
/// Longest window when several or all zones are requested, in days.
pub const MAX_DAYS_SEVERAL_ZONES: i64 = 31;

/// Raw query pairs with last-occurrence lookup.
#[derive(Debug, Clone, Copy)]
pub struct QueryParams<'a> {
    pairs: &'a [(String, String)],
}

impl<'a> QueryParams<'a> {
    pub fn new(pairs: &'a [(String, String)]) -> QueryParams<'a> {
        QueryParams { pairs }
    }

    /// The last value of a parameter, trimmed; `None` when absent or empty.
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.value(name).filter(|v| !v.is_empty())
    }

    /// The last value of a parameter, trimmed, empty if given empty; `None` when absent.
    pub fn value(&self, name: &str) -> Option<&'a str> {
        self.raw(name).map(str::trim)
    }

    /// The last value of a parameter exactly as received; `None` when absent.
    pub fn raw(&self, name: &str) -> Option<&'a str> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every parameter name given, in order of first appearance (nothing is allocated).
    pub fn names(&self) -> impl Iterator<Item = &'a str> {
        let pairs = self.pairs;
        pairs
            .iter()
            .enumerate()
            .filter(move |(i, (k, _))| !pairs[..*i].iter().any(|(earlier, _)| earlier == k))
            .map(|(_, (k, _))| k.as_str())
    }

    /// Values given for `name` that a later occurrence overrides, in order (nothing is allocated).
    pub fn overridden(&self, name: &str) -> impl Iterator<Item = &'a str> {
        let given = self.pairs.iter().filter(move |(k, _)| k == name);
        let count = given.clone().count();
        given.take(count.saturating_sub(1)).map(|(_, v)| v.as_str())
    }
}

/// A user value shortened for messages.
pub fn clip(v: &str) -> String {
    let s: String = v.chars().take(40).collect();
    if s.len() < v.len() {
        format!("{s}…")
    } else {
        s
    }
}

/// The location under `prefix` (`""`, `source_`, `destination_`, `origin_`): `None` when absent
/// or empty; a point only when the server locates it in a zone (else 404).
pub fn location(
    p: &QueryParams<'_>,
    ctx: &dyn QueryContext,
    prefix: &str,
) -> Result<Option<Location>, QueryError> {
    let (zk, lak, lok) = (
        format!("{prefix}zone"),
        format!("{prefix}lat"),
        format!("{prefix}lon"),
    );
    let (zone, lat, lon) = (p.get(&zk), p.get(&lak), p.get(&lok));
    if zone.is_some() && (lat.is_some() || lon.is_some()) {
        return Err(QueryError::bad_request(format!(
            "give either {zk} or {lak} and {lok}, not both"
        )));
    }
    match (lat, lon) {
        (Some(a), Some(b)) => {
            let lat = read_bounded(&lak, a, 90).map_err(|e| QueryError::invalid(vec![*e]))?;
            let lon = read_bounded(&lok, b, 180).map_err(|e| QueryError::invalid(vec![*e]))?;
            if ctx.locates(lat, lon) {
                Ok(Some(Location::LatLon { lat, lon }))
            } else {
                Err(not_located(prefix, lat, lon))
            }
        }
        (Some(_), None) | (None, Some(_)) => Err(QueryError::bad_request(format!(
            "{lak} and {lok} must be given together"
        ))),
        (None, None) => {
            let codes: Vec<String> = zone
                .map(|z| {
                    z.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            Ok((!codes.is_empty()).then_some(Location::Zones(codes)))
        }
    }
}

/// The 404 of a point under `prefix` that lies in no supported zone.
pub fn not_located(prefix: &str, lat: f64, lon: f64) -> QueryError {
    QueryError::not_found(format!(
        "no supported zone at {prefix}lat={lat}, {prefix}lon={lon}"
    ))
}

/// How many zones a location asks for (`None`: all): distinct codes, an unreadable code counting
/// once; a point is one.
pub fn requested_zones(location: &Option<Location>) -> Option<usize> {
    match location {
        None => None,
        Some(Location::LatLon { .. }) => Some(1),
        Some(Location::Zones(codes)) => {
            let mut distinct: Vec<Option<ZoneCode>> =
                codes.iter().map(|c| ZoneCode::parse(c)).collect();
            distinct.sort();
            distinct.dedup();
            Some(distinct.len())
        }
    }
}

/// Reads a timestamp with the one reader ([`parse_timestamp`]), or the [`FieldError`] the
/// reference's framework answers for `name`.
pub fn read_timestamp(name: &str, v: &str) -> Result<OffsetDateTime, Box<FieldError>> {
    parse_timestamp(v).map_err(|e| {
        Box::new(match e {
            TimestampError::Unreadable { why, .. } => {
                let mut item = FieldError::new(
                    "datetime_from_date_parsing",
                    name,
                    format!("Input should be a valid datetime or date, {why}"),
                    v,
                )
                .with_ctx(serde_json::json!({ "error": why }));
                if plus_as_space(v) {
                    item.hint = Some(
                        "a '+' in a query value arrives as a space: encode the offset's '+' as %2B"
                            .into(),
                    );
                }
                item
            }
            TimestampError::OffsetOutOfRange { .. } => {
                let why = "the UTC offset must lie within -14:00 and +14:00";
                FieldError::new("value_error", name, format!("Value error, {why}"), v)
                    .with_ctx(serde_json::json!({ "error": why }))
            }
        })
    })
}

/// `2024-06-15T12:00:00 02:00`: an offset whose `+` a form decoder turned into a space.
fn plus_as_space(v: &str) -> bool {
    v.rsplit_once(' ').is_some_and(|(head, tail)| {
        head.contains(':')
            && tail.len() >= 2
            && tail.bytes().all(|b| b.is_ascii_digit() || b == b':')
    })
}

/// A timestamp, or the 422 of its [`FieldError`].
pub fn timestamp(name: &str, v: &str) -> Result<OffsetDateTime, QueryError> {
    read_timestamp(name, v).map_err(|e| QueryError::invalid(vec![*e]))
}

/// A boolean as the reference's framework reads one, case-insensitively.
pub fn read_bool(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" | "t" | "y" => Some(true),
        "false" | "0" | "no" | "off" | "f" | "n" => Some(false),
        _ => None,
    }
}

/// A number in `[-bound, bound]` as the reference's framework reads one, or its [`FieldError`].
fn read_bounded(name: &str, v: &str, bound: u32) -> Result<f64, Box<FieldError>> {
    let x: f64 = v.trim().parse().map_err(|_| {
        Box::new(FieldError::new(
            "float_parsing",
            name,
            "Input should be a valid number, unable to parse string as a number",
            v,
        ))
    })?;
    let b = f64::from(bound);
    // NaN fails the upper bound first, as in the framework.
    if x.is_nan() || x > b {
        return Err(Box::new(
            FieldError::new(
                "less_than_equal",
                name,
                format!("Input should be less than or equal to {bound}"),
                v,
            )
            .with_ctx(serde_json::json!({ "le": b })),
        ));
    }
    if x < -b {
        return Err(Box::new(
            FieldError::new(
                "greater_than_equal",
                name,
                format!("Input should be greater than or equal to -{bound}"),
                v,
            )
            .with_ctx(serde_json::json!({ "ge": -b })),
        ));
    }
    Ok(x)
}

/// The [`FieldError`] of one typed parameter's value, if it fails its type.
fn type_error(name: &str, v: &str) -> Option<FieldError> {
    match name {
        "start" | "end" => read_timestamp(name, v).err().map(|e| *e),
        "aggregate" | "use_global" => read_bool(v).is_none().then(|| {
            FieldError::new(
                "bool_parsing",
                name,
                "Input should be a valid boolean, unable to interpret input",
                v,
            )
        }),
        n if n.ends_with("lat") => read_bounded(name, v, 90).err().map(|e| *e),
        n if n.ends_with("lon") => read_bounded(name, v, 180).err().map(|e| *e),
        _ => None,
    }
}

/// Checks the typed parameters `names` (in the endpoint's declaration order) that were given:
/// one 422 with an item for every value that is not of its type (empty values included).
pub fn check_types(p: &QueryParams<'_>, names: &[&str]) -> Result<(), QueryError> {
    let errors: Vec<FieldError> = names
        .iter()
        .filter_map(|n| p.raw(n).and_then(|v| type_error(n, v)))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(QueryError::invalid(errors))
    }
}

/// Typed parameters of the endpoints with a location and a window.
pub const LOCATION_WINDOW: &[&str] = &["lat", "lon", "start", "end"];

/// Start and end, both or neither; `None` for neither.
pub fn dates(p: &QueryParams<'_>) -> Result<Option<Period>, QueryError> {
    match (p.raw("start"), p.raw("end")) {
        (None, None) => Ok(None),
        (Some(_), None) | (None, Some(_)) => Err(QueryError::bad_request(
            "start and end must be given together (or neither, for the current slot)",
        )),
        (Some(s), Some(e)) => {
            let (s, e) = (timestamp("start", s)?, timestamp("end", e)?);
            if s > e {
                return Err(QueryError::bad_request("start must not be after end"));
            }
            Ok(Some(Period::new(s, e)))
        }
    }
}

/// The window, within the range limits for `requested` zones (`None`: all zones; no limit when
/// the window is the current slot).
pub fn window(p: &QueryParams<'_>, requested: Option<usize>) -> Result<Option<Period>, QueryError> {
    let Some(period) = dates(p)? else {
        return Ok(None);
    };
    let range = SlotRange::from_window(period.start, period.end);
    let one = matches!(requested, Some(n) if n <= 1);
    let max_days = if one {
        MAX_DAYS_ONE_ZONE
    } else {
        MAX_DAYS_SEVERAL_ZONES
    };
    if range.len() as i64 > max_days * SLOTS_PER_DAY {
        let days = range.len() as f64 / SLOTS_PER_DAY as f64;
        let detail = if one {
            format!(
                "the requested range spans {days:.2} days; at most {MAX_DAYS_ONE_ZONE} days per request are allowed for one zone"
            )
        } else {
            format!(
                "the requested range spans {days:.2} days; at most {MAX_DAYS_SEVERAL_ZONES} days per request are allowed when several or all zones are requested (ask for one zone for up to {MAX_DAYS_ONE_ZONE} days)"
            )
        };
        return Err(QueryError::bad_request(detail));
    }
    Ok(Some(period))
}

/// The primary location and the window, after the types of both (`/load`, `/generation`, `/mix`
/// and the derived endpoints).
pub fn location_and_window(
    p: &QueryParams<'_>,
    ctx: &dyn QueryContext,
) -> Result<(Option<Location>, Option<Period>), QueryError> {
    check_types(p, LOCATION_WINDOW)?;
    let location = location(p, ctx, "")?;
    let window = window(p, requested_zones(&location))?;
    Ok((location, window))
}

/// A boolean as given (`None`: absent, the endpoint's default applies).
pub fn boolean(p: &QueryParams<'_>, name: &str) -> Result<Option<bool>, QueryError> {
    match p.raw(name) {
        None => Ok(None),
        Some(v) => read_bool(v)
            .map(Some)
            .ok_or_else(|| QueryError::invalid(type_error(name, v).into_iter().collect())),
    }
}

/// `production_type`; pumped storage is refused unless `allow_pumped`.
pub fn production_type(
    p: &QueryParams<'_>,
    allow_pumped: bool,
) -> Result<Option<ProductionType>, QueryError> {
    let Some(v) = p.value("production_type") else {
        return Ok(None);
    };
    let names: Vec<&str> = ProductionType::ALL
        .iter()
        .filter(|t| allow_pumped || **t != ProductionType::HydroPumpedStorage)
        .map(|t| t.as_str())
        .collect();
    match ProductionType::parse_api(v) {
        None => Err(QueryError::bad_request(format!(
            "invalid production_type '{}': expected one of {}",
            clip(v),
            names.join(", ")
        ))),
        Some(ProductionType::HydroPumpedStorage) if !allow_pumped => Err(QueryError::bad_request(
            "hydro_pumped_storage cannot be used as a production_type filter here (it is not counted as generation in the flow tracing)",
        )),
        Some(t) => Ok(Some(t)),
    }
}

/// A footprint type under `name` (`footprint_type`, `factor_type`).
pub fn footprint_type(
    p: &QueryParams<'_>,
    name: &str,
) -> Result<Option<FootprintType>, QueryError> {
    match p.value(name) {
        None => Ok(None),
        Some(v) => FootprintType::parse(v).map(Some).ok_or_else(|| {
            QueryError::bad_request(format!(
                "invalid {name} '{}': expected carbon or water",
                clip(v)
            ))
        }),
    }
}

/// `scope`, either.
pub fn scope(p: &QueryParams<'_>) -> Result<Option<Scope>, QueryError> {
    match p.value("scope") {
        None => Ok(None),
        Some(v) => Scope::parse(v).map(Some).ok_or_else(|| {
            QueryError::bad_request(format!(
                "invalid scope '{}': expected life-cycle or operational",
                clip(v)
            ))
        }),
    }
}

/// `scope` of endpoints that only have operational values (`what` names them in the refusal).
pub fn operational_scope(p: &QueryParams<'_>, what: &str) -> Result<Option<Scope>, QueryError> {
    match scope(p)? {
        Some(Scope::LifeCycle) => Err(QueryError::bad_request(format!(
            "scope life-cycle is not available for {what}: only operational"
        ))),
        s => Ok(s),
    }
}

/// `impact_type`: only water exists.
pub fn impact_type(p: &QueryParams<'_>) -> Result<Option<ImpactType>, QueryError> {
    match p.value("impact_type") {
        None => Ok(None),
        Some(v) => match v.to_ascii_lowercase().as_str() {
            "water" => Ok(Some(ImpactType::Water)),
            "carbon" => Err(QueryError::bad_request(
                "impact_type carbon is not available: only water impacts exist",
            )),
            _ => Err(QueryError::bad_request(format!(
                "invalid impact_type '{}': expected water",
                clip(v)
            ))),
        },
    }
}
