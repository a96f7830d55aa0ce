//! Query parameters → typed requests, by the rules of docs/api.md §2 and §3.
//!
//! The HTTP layer hands over the raw query pairs in order; each endpoint's
//! [`EndpointDef::parse`](crate::endpoints::EndpointDef::parse) builds its typed request from the
//! shared readers here (location, window, booleans, enums) or returns a [`QueryError`] with the status
//! of docs/api.md §2. Handlers never see strings.
//!
//! Rules applied everywhere (documented here once):
//!
//! - **Duplicated parameters**: the first occurrence wins; later ones are ignored.
//! - **Empty values** (`zone=`, `footprint_type=`, `start=`…, after trimming) count as not given:
//!   `zone=` means all zones, `scope=` the default scope.
//! - **Unknown parameters** are ignored; parameter names are case-sensitive, values of enum parameters
//!   are not (`Carbon`, `LIFE-CYCLE`).
//! - **Location**: `zone` (a code or a comma list `ES,FR,DE`, upper-cased; unknown codes select
//!   nothing and give `[]`, not an error) XOR `lat`+`lon`. The checks run in this order: both kinds
//!   → 400; only one of lat/lon → 400; not a finite number → 422; lat outside [-90, 90] or lon outside
//!   [-180, 180] → 422; no zone there → 404. Secondary locations (`source_*`, `destination_*`,
//!   `origin_*`) follow the same rules and filter the partner zones; unknown codes there match nothing.
//! - **Time**: `start` and `end` both or neither (one → 400); unparsable → 422; start after end → 400;
//!   the window is [`SlotRange::from_window`]; neither → the slot containing `now`. Limits **\[beyond\]**:
//!   at most [`MAX_DAYS_ONE_ZONE`] days for one zone, [`MAX_DAYS_SEVERAL_ZONES`] when several or all
//!   zones are requested (counted over the requested codes, known or not) → 400.
//! - **Booleans** (`aggregate`, `use_global`): `true`/`false`/`1`/`0`, case-insensitive, else 422.
//! - **Enums**: an unknown value → 400 naming the accepted values.
//!
//! Checks run in the order location(s), time, enums and booleans, then rules across parameters
//! (`aggregate=true` without start and end → 400), so the first problem found is the one reported.

use crate::error::QueryError;
use crate::geo::ZoneLocator;
use gridprint_core::derived::Coverage;
use gridprint_core::production::ProductionType;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange, parse_timestamp};
use gridprint_core::zone::{ZoneCode, ZoneIdx, Zones};
use time::OffsetDateTime;

/// Longest window for one zone, in days.
pub const MAX_DAYS_ONE_ZONE: i64 = 366;
/// Longest window when several or all zones are requested, in days.
pub const MAX_DAYS_SEVERAL_ZONES: i64 = 31;

/// What parsing needs besides the parameters: the zone set, the polygon index and the time "now".
#[derive(Debug, Clone, Copy)]
pub struct ParseContext<'a> {
    pub zones: &'a Zones,
    pub locator: &'a ZoneLocator,
    pub now: OffsetDateTime,
}

/// Raw query pairs with first-occurrence lookup.
#[derive(Debug, Clone, Copy)]
pub struct QueryParams<'a> {
    pairs: &'a [(String, String)],
}

impl<'a> QueryParams<'a> {
    pub fn new(pairs: &'a [(String, String)]) -> QueryParams<'a> {
        QueryParams { pairs }
    }

    /// The first value of a parameter, trimmed; `None` when absent or empty.
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    }
}

/// Which zones a request is about (primary location), resolved to indices in code order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZoneSelection {
    /// No zone given: every zone.
    All,
    /// The known zones among those named (possibly none: the answer is then `[]`).
    Zones(Vec<ZoneIdx>),
}

impl ZoneSelection {
    /// The selected zone indices, ascending (= by zone code).
    pub fn indices(&self, zones: &Zones) -> Vec<ZoneIdx> {
        match self {
            ZoneSelection::All => (0..zones.len()).collect(),
            ZoneSelection::Zones(v) => v.clone(),
        }
    }
}

/// A requested country code split into several bidding zones (`DK`, `IT`, `NO`, `SE`) and its member
/// zones of the set; read by [`crate::country`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Country {
    pub code: ZoneCode,
    pub members: Vec<ZoneIdx>,
}

/// A filter on partner zones (sources, destinations, origins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartnerFilter {
    /// No filter.
    Any,
    /// Only these codes (possibly none known: then nothing matches).
    Only(Vec<ZoneCode>),
}

impl PartnerFilter {
    pub fn accepts(&self, code: &ZoneCode) -> bool {
        match self {
            PartnerFilter::Any => true,
            PartnerFilter::Only(v) => v.contains(code),
        }
    }
}

/// The resolved time window of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeWindow {
    /// Slots to answer for.
    pub range: SlotRange,
    /// `start` and `end` as given (in UTC), if given; aggregates report them.
    pub requested: Option<(OffsetDateTime, OffsetDateTime)>,
    /// "Now" of the request (flags of raw inputs without derived flags use it).
    pub now: OffsetDateTime,
}

impl TimeWindow {
    /// The current slot `[floor15(now), +15 min)`.
    pub fn current(now: OffsetDateTime) -> TimeWindow {
        let s = Slot::containing(now);
        TimeWindow {
            range: SlotRange::new(s, s.offset(1)),
            requested: None,
            now,
        }
    }
}

/// `/generation`.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerationRequest {
    pub zones: ZoneSelection,
    pub window: TimeWindow,
    pub production_type: Option<ProductionType>,
}

/// `/load`.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadRequest {
    pub zones: ZoneSelection,
    pub window: TimeWindow,
}

/// `/imports` (partners: sources) and `/exports` (partners: destinations).
#[derive(Debug, Clone, PartialEq)]
pub struct FlowsRequest {
    pub zones: ZoneSelection,
    pub window: TimeWindow,
    pub partners: PartnerFilter,
}

/// `/mix`.
#[derive(Debug, Clone, PartialEq)]
pub struct MixRequest {
    pub zones: ZoneSelection,
    pub window: TimeWindow,
    pub production_type: Option<ProductionType>,
}

/// `/footprints`.
#[derive(Debug, Clone, PartialEq)]
pub struct FootprintsRequest {
    pub zones: ZoneSelection,
    /// Country codes among `zone` (docs/methodology.md §5).
    pub countries: Vec<Country>,
    pub window: TimeWindow,
    /// Carbon, water or both (default), in that order.
    pub footprint_types: Vec<FootprintType>,
    pub scope: Scope,
    pub aggregate: bool,
    pub coverage: Coverage,
}

/// `/impacts` (water, operational) and `/green-score` / `/environmental-score` (operational).
#[derive(Debug, Clone, PartialEq)]
pub struct ImpactsRequest {
    pub zones: ZoneSelection,
    /// Country codes among `zone` (docs/methodology.md §5).
    pub countries: Vec<Country>,
    pub window: TimeWindow,
    pub aggregate: bool,
    pub coverage: Coverage,
}

/// `/green-score` and `/environmental-score`.
pub type ScoreRequest = ImpactsRequest;

/// `/flow-share` (partners: destinations), `/mix-share` (origins), `/impact-share` (sources).
#[derive(Debug, Clone, PartialEq)]
pub struct ShareRequest {
    pub zones: ZoneSelection,
    pub window: TimeWindow,
    pub partners: PartnerFilter,
}

/// `/footprint-share`.
#[derive(Debug, Clone, PartialEq)]
pub struct FootprintShareRequest {
    pub zones: ZoneSelection,
    pub window: TimeWindow,
    pub partners: PartnerFilter,
    pub footprint_types: Vec<FootprintType>,
    pub scope: Scope,
}

/// `/factors`.
#[derive(Debug, Clone, PartialEq)]
pub struct FactorsRequest {
    /// Carbon, water or both (default).
    pub factor_types: Vec<FootprintType>,
    /// `None`: both scopes.
    pub scope: Option<Scope>,
    /// `None`: every production type (pumped storage is accepted as a filter here).
    pub production_type: Option<ProductionType>,
    /// Only honoured with start and end (without them factors answer as series).
    pub aggregate: bool,
    /// The window when start and end were given, else the current slot (requested = None).
    pub window: TimeWindow,
}

pub(crate) enum Location {
    Absent,
    Codes(Vec<Option<ZoneCode>>),
    Point(ZoneIdx),
}

pub(crate) fn number(name: &str, v: &str) -> Result<f64, QueryError> {
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(QueryError::unprocessable(format!(
            "{name} must be a number, got '{}'",
            clip(v)
        ))),
    }
}

/// A user value shortened for messages.
pub(crate) fn clip(v: &str) -> String {
    let s: String = v.chars().take(40).collect();
    if s.len() < v.len() {
        format!("{s}…")
    } else {
        s
    }
}

pub(crate) fn location(
    p: &QueryParams<'_>,
    ctx: &ParseContext<'_>,
    prefix: &str,
) -> Result<Location, QueryError> {
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
            let (lat, lon) = (number(&lak, a)?, number(&lok, b)?);
            if !(-90.0..=90.0).contains(&lat) {
                return Err(QueryError::unprocessable(format!(
                    "{lak} must be between -90 and 90, got {lat}"
                )));
            }
            if !(-180.0..=180.0).contains(&lon) {
                return Err(QueryError::unprocessable(format!(
                    "{lok} must be between -180 and 180, got {lon}"
                )));
            }
            ctx.locator
                .locate(lat, lon)
                .map(Location::Point)
                .ok_or_else(|| {
                    QueryError::not_found(format!("no supported zone at {lak}={lat}, {lok}={lon}"))
                })
        }
        (Some(_), None) | (None, Some(_)) => Err(QueryError::bad_request(format!(
            "{lak} and {lok} must be given together"
        ))),
        (None, None) => {
            let codes: Vec<Option<ZoneCode>> = zone
                .map(|z| {
                    z.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(ZoneCode::parse)
                        .collect()
                })
                .unwrap_or_default();
            Ok(if codes.is_empty() {
                Location::Absent
            } else {
                Location::Codes(codes)
            })
        }
    }
}

/// Primary location: the selection and how many zones were asked for (`None`: all).
pub(crate) fn primary(
    p: &QueryParams<'_>,
    ctx: &ParseContext<'_>,
) -> Result<(ZoneSelection, Option<usize>), QueryError> {
    Ok(match location(p, ctx, "")? {
        Location::Absent => (ZoneSelection::All, None),
        Location::Point(i) => (ZoneSelection::Zones(vec![i]), Some(1)),
        Location::Codes(codes) => {
            let mut idx: Vec<ZoneIdx> = codes
                .iter()
                .flatten()
                .filter_map(|c| ctx.zones.index_of(c))
                .collect();
            idx.sort_unstable();
            idx.dedup();
            let mut distinct: Vec<&Option<ZoneCode>> = codes.iter().collect();
            distinct.sort();
            distinct.dedup();
            (ZoneSelection::Zones(idx), Some(distinct.len()))
        }
    })
}

pub(crate) fn partner(
    p: &QueryParams<'_>,
    ctx: &ParseContext<'_>,
    prefix: &str,
) -> Result<PartnerFilter, QueryError> {
    Ok(match location(p, ctx, prefix)? {
        Location::Absent => PartnerFilter::Any,
        Location::Point(i) => PartnerFilter::Only(vec![ctx.zones.code(i).clone()]),
        Location::Codes(codes) => PartnerFilter::Only(codes.into_iter().flatten().collect()),
    })
}

pub(crate) fn timestamp(name: &str, v: &str) -> Result<OffsetDateTime, QueryError> {
    parse_timestamp(v).map_err(|e| QueryError::unprocessable(format!("{name}: {e}")))
}

/// Start and end, both or neither; `None` for neither.
pub(crate) fn dates(
    p: &QueryParams<'_>,
) -> Result<Option<(OffsetDateTime, OffsetDateTime)>, QueryError> {
    match (p.get("start"), p.get("end")) {
        (None, None) => Ok(None),
        (Some(_), None) | (None, Some(_)) => Err(QueryError::bad_request(
            "start and end must be given together (or neither, for the current slot)",
        )),
        (Some(s), Some(e)) => {
            let (s, e) = (timestamp("start", s)?, timestamp("end", e)?);
            if s > e {
                return Err(QueryError::bad_request("start must not be after end"));
            }
            Ok(Some((s, e)))
        }
    }
}

/// The window, with the range limits for `requested` zones (`None`: all zones; no limit when the
/// window is the current slot).
pub(crate) fn window(
    p: &QueryParams<'_>,
    ctx: &ParseContext<'_>,
    requested: Option<usize>,
) -> Result<TimeWindow, QueryError> {
    let Some((s, e)) = dates(p)? else {
        return Ok(TimeWindow::current(ctx.now));
    };
    let range = SlotRange::from_window(s, e);
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
    Ok(TimeWindow {
        range,
        requested: Some((s, e)),
        now: ctx.now,
    })
}

pub(crate) fn boolean(p: &QueryParams<'_>, name: &str, default: bool) -> Result<bool, QueryError> {
    match p.get(name) {
        None => Ok(default),
        Some(v) => match v.to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(QueryError::unprocessable(format!(
                "{name} must be true or false, got '{}'",
                clip(v)
            ))),
        },
    }
}

pub(crate) fn production_type(
    p: &QueryParams<'_>,
    allow_pumped: bool,
) -> Result<Option<ProductionType>, QueryError> {
    let Some(v) = p.get("production_type") else {
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

pub(crate) fn footprint_types(
    p: &QueryParams<'_>,
    name: &str,
) -> Result<Vec<FootprintType>, QueryError> {
    match p.get(name) {
        None => Ok(FootprintType::ALL.to_vec()),
        Some(v) => FootprintType::parse(v).map(|t| vec![t]).ok_or_else(|| {
            QueryError::bad_request(format!(
                "invalid {name} '{}': expected carbon or water",
                clip(v)
            ))
        }),
    }
}

pub(crate) fn scope_any(p: &QueryParams<'_>) -> Result<Option<Scope>, QueryError> {
    match p.get("scope") {
        None => Ok(None),
        Some(v) => Scope::parse(v).map(Some).ok_or_else(|| {
            QueryError::bad_request(format!(
                "invalid scope '{}': expected life-cycle or operational",
                clip(v)
            ))
        }),
    }
}

/// Scope for endpoints that only have operational values.
pub(crate) fn scope_operational(p: &QueryParams<'_>, what: &str) -> Result<Scope, QueryError> {
    match scope_any(p)? {
        None | Some(Scope::Operational) => Ok(Scope::Operational),
        Some(Scope::LifeCycle) => Err(QueryError::bad_request(format!(
            "scope life-cycle is not available for {what}: only operational"
        ))),
    }
}

pub(crate) fn impact_type(p: &QueryParams<'_>) -> Result<(), QueryError> {
    match p.get("impact_type") {
        None => Ok(()),
        Some(v) => match v.to_ascii_lowercase().as_str() {
            "water" => Ok(()),
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

pub(crate) fn coverage(p: &QueryParams<'_>) -> Result<Coverage, QueryError> {
    Ok(if boolean(p, "use_global", true)? {
        Coverage::Global
    } else {
        Coverage::Local
    })
}

pub(crate) fn aggregate(p: &QueryParams<'_>, window: &TimeWindow) -> Result<bool, QueryError> {
    let agg = boolean(p, "aggregate", false)?;
    if agg && window.requested.is_none() {
        return Err(QueryError::bad_request(
            "aggregate=true needs start and end",
        ));
    }
    Ok(agg)
}

pub(crate) fn zones_and_window(
    p: &QueryParams<'_>,
    ctx: &ParseContext<'_>,
) -> Result<(ZoneSelection, TimeWindow), QueryError> {
    let (zones, requested) = primary(p, ctx)?;
    Ok((zones, window(p, ctx, requested)?))
}

/// Primary location, the partner location with `prefix` (`source_`, `destination_`, `origin_`) and
/// the window, checked in that order.
pub(crate) fn with_partners(
    p: &QueryParams<'_>,
    ctx: &ParseContext<'_>,
    prefix: &str,
) -> Result<(ZoneSelection, PartnerFilter, TimeWindow), QueryError> {
    let (zones, requested) = primary(p, ctx)?;
    let partners = partner(p, ctx, prefix)?;
    Ok((zones, partners, window(p, ctx, requested)?))
}
