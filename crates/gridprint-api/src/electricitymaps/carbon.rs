//! The answers of the Electricity Maps routes, every number read from the `/v1` query service:
//! a 15-minute point is `/v1/footprints`' point of that slot (global coverage, carbon), an hourly
//! or daily point is `/v1/footprints?aggregate=true` over that hour or day, and
//! `fossilFuelPercentage` is the share of coal, gas and oil in `/v1/mix` of the slot (the MW as
//! `/v1` writes them). Nothing is computed a second time here: this file reads, selects and
//! renames. Flags: `isEstimated` is false only for a `complete` slot (an aggregate takes its worst
//! slot), `estimationMethod` names gridprint's method (`preview` → estimation, `missing` →
//! forecast).

use super::zone_keys::{code_of, key_of};
use crate::compat::{CarbonAsk, is_served, locate, number, timestamp};
use crate::error::ApiError;
use crate::state::AppState;
use gridprint_core::production::ProductionType;
use gridprint_core::quality::ZoneStatus;
use gridprint_core::slot::{Slot, format_timestamp, parse_timestamp};
use gridprint_query::endpoints::MixEndpoint;
use gridprint_query::params::QueryParams;
use gridprint_query::{DataCache, QueryService};
use gridprint_responses::{SeriesOrAggregates, round2};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use time::{Duration, OffsetDateTime};
use utoipa::ToSchema;

/// Longest `past-range` window at 15-minute and hourly granularity.
pub const MAX_RANGE_DAYS: i64 = 10;
/// Longest `past-range` window at daily granularity.
pub const MAX_RANGE_DAYS_DAILY: i64 = 366;
/// Longest forecast horizon (gridprint's forecast reaches 96 h ahead).
pub const MAX_HORIZON_HOURS: i64 = 96;

/// What a route answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Zones,
    Latest,
    History,
    Past,
    PastRange,
    Forecast,
    HomeAssistant,
    Co2Signal,
    PowerLatest,
    PowerHistory,
}

/// `temporalGranularity`: the three gridprint can answer from `/v1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granularity {
    FifteenMinutes,
    Hourly,
    Daily,
}

impl Granularity {
    fn read(p: &QueryParams<'_>, default: Granularity) -> Result<Granularity, ApiError> {
        match p.get("temporalGranularity") {
            None => Ok(default),
            Some("15_minutes") => Ok(Granularity::FifteenMinutes),
            Some("hourly") => Ok(Granularity::Hourly),
            Some("daily") => Ok(Granularity::Daily),
            Some("5_minutes") => Err(ApiError::bad_request(
                "temporalGranularity=5_minutes is finer than gridprint's data: the finest is 15_minutes",
            )),
            Some(other) => Err(ApiError::bad_request(format!(
                "temporalGranularity '{other}' is not supported: use 15_minutes, hourly or daily"
            ))),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Granularity::FifteenMinutes => "15_minutes",
            Granularity::Hourly => "hourly",
            Granularity::Daily => "daily",
        }
    }

    fn seconds(self) -> i64 {
        match self {
            Granularity::FifteenMinutes => 900,
            Granularity::Hourly => 3_600,
            Granularity::Daily => 86_400,
        }
    }

    /// The start of the bucket containing `t`.
    fn floor(self, t: OffsetDateTime) -> OffsetDateTime {
        let s = t.unix_timestamp();
        OffsetDateTime::from_unix_timestamp(s - s.rem_euclid(self.seconds())).unwrap_or(t)
    }

    fn step(self) -> Duration {
        Duration::seconds(self.seconds())
    }
}

/// One carbon intensity point in the service's shape, plus gridprint's `zoneStatus`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CarbonPoint {
    /// The Electricity Maps zone key.
    pub zone: String,
    /// gridprint's global (flow-traced) carbon footprint, gCO2eq/kWh, 2 decimals as `/v1` writes it.
    pub carbon_intensity: f64,
    /// Start of the slot, hour or day (UTC).
    pub datetime: String,
    /// The time of the answer (gridprint keeps no update time per point).
    pub updated_at: String,
    /// The time of the answer.
    pub created_at: String,
    /// `lifecycle` or `direct`.
    #[schema(value_type = String)]
    pub emission_factor_type: &'static str,
    /// False only when every slot is `complete` (provider data).
    pub is_estimated: bool,
    /// `gridprint-estimation` (`preview` slots), `gridprint-forecast` (`missing` slots) or null.
    #[schema(value_type = Option<String>)]
    pub estimation_method: Option<&'static str>,
    /// `15_minutes`, `hourly` or `daily`.
    #[schema(value_type = String)]
    pub temporal_granularity: &'static str,
    /// **gridprint** The slot's `zone_status` (the worst over an hour or day): `complete`,
    /// `preview` or `missing`.
    #[schema(value_type = String)]
    pub zone_status: &'static str,
}

/// `estimationMethod` of a slot's status: none for `complete`, gridprint's estimation for
/// `preview`, its forecast for `missing`.
pub(super) fn estimation_method(status: ZoneStatus) -> Option<&'static str> {
    match status {
        ZoneStatus::Complete => None,
        ZoneStatus::Preview => Some("gridprint-estimation"),
        ZoneStatus::Missing => Some("gridprint-forecast"),
    }
}

/// What one request reads: the snapshot, the zone and scope ([`CarbonAsk`]) and the options.
pub(super) struct Ask<'a> {
    pub(super) carbon: CarbonAsk<'a>,
    factor_name: &'static str,
    pub(super) estimations: bool,
}

impl Ask<'_> {
    fn point(
        &self,
        t: OffsetDateTime,
        value: f64,
        status: ZoneStatus,
        g: Granularity,
    ) -> CarbonPoint {
        let stamp = format_timestamp(self.carbon.now);
        CarbonPoint {
            zone: key_of(&self.carbon.code).to_string(),
            carbon_intensity: round2(value),
            datetime: format_timestamp(t),
            updated_at: stamp.clone(),
            created_at: stamp,
            emission_factor_type: self.factor_name,
            is_estimated: status != ZoneStatus::Complete,
            estimation_method: estimation_method(status),
            temporal_granularity: g.name(),
            zone_status: status.as_str(),
        }
    }

    /// The points of the buckets of `g` starting in `[start, end)`, in time order (buckets
    /// without a value left out; with `disableEstimations=true` only `complete` ones).
    fn carbon(
        &self,
        start: OffsetDateTime,
        end: OffsetDateTime,
        g: Granularity,
    ) -> Result<Vec<CarbonPoint>, ApiError> {
        let start = g.floor(start);
        let mut out = Vec::new();
        if g == Granularity::FifteenMinutes {
            out = self.carbon.carbon_slots(start, end)?;
        } else {
            let mut b = start;
            while b < end {
                if let SeriesOrAggregates::Aggregate(aggs) =
                    self.carbon.footprints(b, b + g.step(), true)?
                    && let Some(a) = aggs.first()
                {
                    out.push((b, a.value, a.zone_status));
                }
                b += g.step();
            }
        }
        Ok(out
            .into_iter()
            .filter(|(_, _, s)| self.estimations || *s == ZoneStatus::Complete)
            .map(|(t, v, s)| self.point(t, v, s, g))
            .collect())
    }

    /// The latest point at or before now (looking back one day).
    fn latest(&self, g: Granularity) -> Result<Option<CarbonPoint>, ApiError> {
        let end = g.floor(self.carbon.now) + g.step();
        Ok(self.carbon(end - Duration::days(1), end, g)?.pop())
    }

    /// The share of coal, gas and oil in `/v1/mix` of the slot starting at `t` (the MW as `/v1`
    /// writes them, 2 decimals), in percent with 2 decimals; `None` without a mix.
    fn fossil_percentage(&self, t: OffsetDateTime) -> Result<Option<f64>, ApiError> {
        let slot = Slot::containing(t);
        let pairs = self
            .carbon
            .pairs(slot.start(), slot.start() + Duration::minutes(15));
        let (mut fossil, mut total) = (0.0, 0.0);
        for r in self.carbon.answer::<MixEndpoint>(&pairs)? {
            for e in r.series {
                for b in e.production {
                    let is_fossil = matches!(
                        b.production_type,
                        ProductionType::Coal | ProductionType::Gas | ProductionType::Oil
                    );
                    for p in b.values.0.iter().filter(|p| p.slot == slot) {
                        let mw = round2(p.value);
                        total += mw;
                        if is_fossil {
                            fossil += mw;
                        }
                    }
                }
            }
        }
        Ok((total > 0.0).then(|| round2(100.0 * fossil / total)))
    }
}

/// The gridprint code a request names: `zone`, else `zoneKey`, else `countryCode` (an Electricity
/// Maps key or a gridprint code), else `lat` and `lon`.
fn zone_code(
    p: &QueryParams<'_>,
    svc: &QueryService,
    cache: &DataCache,
) -> Result<String, ApiError> {
    if let Some(named) = p
        .get("zone")
        .or_else(|| p.get("zoneKey"))
        .or_else(|| p.get("countryCode"))
    {
        let code = code_of(named);
        if !is_served(&cache.reference().zones, &code) {
            return Err(ApiError::not_found(format!(
                "zone '{named}' is not served here: GET /v3/zones lists the zone keys"
            )));
        }
        return Ok(code);
    }
    match (number(p, "lat")?, number(p, "lon")?) {
        (Some(lat), Some(lon)) => locate(svc, cache, lat, lon),
        _ => Err(ApiError::bad_request(
            "give zone= (an Electricity Maps zone key such as DE or DK-DK1, or a gridprint zone code), or lat= and lon=",
        )),
    }
}

/// `GET /v3/zones`: every served zone under its key, with `access: ["*"]`.
fn zones(cache: &DataCache) -> Value {
    let zones = &cache.reference().zones;
    let map: BTreeMap<String, Value> = (0..zones.len())
        .map(|i| {
            let z = zones.get(i);
            (
                key_of(z.code.as_str()).to_string(),
                json!({"zoneName": z.full_name, "countryName": z.country_name, "access": ["*"]}),
            )
        })
        .collect();
    json!(map)
}

/// The JSON body of a route's answer.
pub fn answer(kind: Kind, state: &AppState, pairs: &[(String, String)]) -> Result<Value, ApiError> {
    let svc = state.query();
    let cache = svc.cache();
    if kind == Kind::Zones {
        return Ok(zones(&cache));
    }
    crate::data::check_available(state)?;
    let p = QueryParams::new(pairs);
    let code = zone_code(&p, svc, &cache)?;
    let (scope, factor_name) = match p.get("emissionFactorType") {
        None | Some("lifecycle") => ("life-cycle", "lifecycle"),
        Some("direct") => ("operational", "direct"),
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "emissionFactorType '{other}': use lifecycle or direct"
            )));
        }
    };
    let estimations = match p.get("disableEstimations") {
        None | Some("false") => true,
        Some("true") => false,
        Some(_) => return Err(ApiError::bad_request("disableEstimations: true or false")),
    };
    let ask = Ask {
        carbon: CarbonAsk {
            svc,
            cache: &cache,
            now: state.now(),
            code,
            scope,
        },
        factor_name,
        estimations,
    };
    let now = ask.carbon.now;
    let key = key_of(&ask.carbon.code).to_string();
    let no_data = || {
        ApiError::not_found(format!(
            "no carbon intensity for zone {key} in the last 24 hours"
        ))
    };
    match kind {
        Kind::Zones => Ok(zones(&cache)),
        Kind::Latest => {
            let g = Granularity::read(&p, Granularity::FifteenMinutes)?;
            let point = ask.latest(g)?.ok_or_else(no_data)?;
            Ok(json!(point))
        }
        Kind::History => {
            let g = Granularity::read(&p, Granularity::Hourly)?;
            let end = g.floor(now) + g.step();
            let span = if g == Granularity::Daily {
                Duration::days(30)
            } else {
                Duration::days(1)
            };
            let history = ask.carbon(end - span, end, g)?;
            Ok(json!({"zone": key, "history": history, "temporalGranularity": g.name()}))
        }
        Kind::Past => {
            let g = Granularity::read(&p, Granularity::Hourly)?;
            let t = g.floor(timestamp(&p, "datetime")?);
            let point = ask.carbon(t, t + g.step(), g)?.pop().ok_or_else(|| {
                ApiError::not_found(format!(
                    "no carbon intensity for zone {key} at {}",
                    format_timestamp(t)
                ))
            })?;
            Ok(json!(point))
        }
        Kind::PastRange => {
            let g = Granularity::read(&p, Granularity::Hourly)?;
            let (start, end) = (timestamp(&p, "start")?, timestamp(&p, "end")?);
            if end <= start {
                return Err(ApiError::bad_request("end must be after start"));
            }
            let max = if g == Granularity::Daily {
                MAX_RANGE_DAYS_DAILY
            } else {
                MAX_RANGE_DAYS
            };
            if end - start > Duration::days(max) {
                return Err(ApiError::bad_request(format!(
                    "past-range covers at most {max} days at temporalGranularity={}",
                    g.name()
                )));
            }
            let data = ask.carbon(start, end, g)?;
            Ok(json!({"zone": key, "data": data, "temporalGranularity": g.name()}))
        }
        Kind::Forecast => {
            let g = Granularity::read(&p, Granularity::Hourly)?;
            let hours = match p.get("horizonHours") {
                None => 24,
                Some(v) => v
                    .parse::<f64>()
                    .ok()
                    .filter(|h| *h > 0.0 && *h <= MAX_HORIZON_HOURS as f64)
                    .map(|h| h.ceil() as i64)
                    .ok_or_else(|| {
                        ApiError::bad_request(format!(
                            "horizonHours must be a number in (0, {MAX_HORIZON_HOURS}]"
                        ))
                    })?,
            };
            let start = g.floor(now);
            let forecast = ask.carbon(start, start + Duration::hours(hours), g)?;
            Ok(
                json!({"zone": key, "forecast": forecast, "updatedAt": format_timestamp(now), "temporalGranularity": g.name()}),
            )
        }
        Kind::PowerLatest | Kind::PowerHistory => {
            if Granularity::read(&p, Granularity::FifteenMinutes)? != Granularity::FifteenMinutes {
                return Err(ApiError::bad_request(
                    "power breakdowns are served at temporalGranularity=15_minutes only",
                ));
            }
            let end = Granularity::FifteenMinutes.floor(now) + Duration::minutes(15);
            let mut points = super::power::breakdowns(&ask, end - Duration::days(1), end)?;
            if kind == Kind::PowerHistory {
                return Ok(
                    json!({"zone": key, "history": points, "temporalGranularity": "15_minutes"}),
                );
            }
            let point = points.pop().ok_or_else(|| {
                ApiError::not_found(format!(
                    "no power breakdown for zone {key} in the last 24 hours"
                ))
            })?;
            Ok(point)
        }
        Kind::HomeAssistant | Kind::Co2Signal => {
            let Some(point) = ask.latest(Granularity::FifteenMinutes)? else {
                return Ok(json!({"status": "no-data", "countryCode": key}));
            };
            let fossil = ask.fossil_percentage(parse_timestamp(&point.datetime).unwrap_or(now))?;
            Ok(json!({
                "status": "ok",
                "countryCode": key,
                "data": {
                    "datetime": point.datetime,
                    "carbonIntensity": point.carbon_intensity,
                    "fossilFuelPercentage": fossil,
                    "isEstimated": point.is_estimated,
                    "estimationMethod": point.estimation_method,
                },
                "units": {"carbonIntensity": "gCO2eq/kWh"},
            }))
        }
    }
}
