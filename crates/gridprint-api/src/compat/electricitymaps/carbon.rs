//! The answers of the Electricity Maps routes, every number read from the `/v1` query service:
//! a 15-minute point is `/v1/footprints`' point of that slot (global coverage, carbon), an hourly
//! or daily point is `/v1/footprints?aggregate=true` over that hour or day, and
//! `fossilFuelPercentage` is the share of coal, gas and oil in `/v1/mix` of the slot (the MW as
//! `/v1` writes them). Nothing is computed a second time here: this file reads, selects and
//! renames. Flags: `isEstimated` is false only for a `complete` slot (an aggregate takes its worst
//! slot), `estimationMethod` names gridprint's method (`preview` → estimation, `missing` →
//! forecast).

use super::ask::{Ask, Granularity, zone_code};
use super::zone_keys::key_of;
use crate::compat::{CarbonAsk, timestamp};
use crate::http::error::ApiError;
use crate::state::AppState;
use gridprint_core::slot::{format_timestamp, parse_timestamp};
use gridprint_query::DataCache;
use gridprint_query::params::QueryParams;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use time::Duration;

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
    crate::v1::data::check_available(state)?;
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
