//! The answers of the Electricity Maps routes, every number read from the `/v1` query service:
//! a 15-minute point is `/v1/footprints`' point of that slot (global coverage, carbon), an hourly
//! or daily point is `/v1/footprints?aggregate=true` over that hour or day, and
//! `fossilFuelPercentage` is the share of coal, gas and oil in `/v1/mix` of the slot (the MW as
//! `/v1` writes them). Nothing is computed a second time here: this file reads, selects and
//! renames. Flags: `isEstimated` is false only for a `complete` slot (an aggregate takes its worst
//! slot), `estimationMethod` names gridprint's method (`preview` → estimation, `missing` →
//! forecast).

use super::ask::{Ask, Granularity};
use super::zone_keys::{code_of, key_of};
use crate::compat::timestamp;
use crate::http::error::ApiError;
use crate::state::AppState;
use gridprint_core::data_centers::data_centers as cloud_regions;
use gridprint_core::slot::{format_timestamp, parse_timestamp};
use gridprint_query::DataCache;
use gridprint_responses::query::QueryParams;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use time::Duration;
use utoipa::ToSchema;

/// Longest `past-range` window at 15-minute and hourly granularity.
pub const MAX_RANGE_DAYS: i64 = 10;
/// Longest `past-range` window at daily granularity.
pub const MAX_RANGE_DAYS_DAILY: i64 = 366;
/// Longest forecast horizon (gridprint's forecast reaches 96 h ahead).
pub const MAX_HORIZON_HOURS: i64 = 96;

/// `GET /v3/zones`: every served zone under its key, with `access: ["*"]`.
fn zones_of(cache: &DataCache) -> Value {
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

/// `GET /v3/zones` (and `/v4/zones`).
pub fn zones(state: &AppState, _p: &QueryParams<'_>) -> Result<Value, ApiError> {
    Ok(zones_of(&state.query().cache()))
}

/// One cloud region in the shape of Electricity Maps' `/v3/data-centers`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DataCenterEntry {
    /// `aws`, `azure` or `gcp`.
    pub provider: String,
    /// `[longitude, latitude]` of the town (or capital) the provider names: it locates the town,
    /// not the data centre.
    pub lonlat: [f64; 2],
    /// `<place> (<region>)`.
    pub display_name: String,
    /// The region as the provider writes it.
    pub region: String,
    /// The Electricity Maps key of the zone the region draws from.
    pub zone_key: String,
    /// `operational` or `planned`.
    pub status: String,
    /// The provider's page that lists the region.
    pub source: String,
    /// Not in gridprint's table: always null.
    pub operational_since: Option<String>,
}

/// `GET /v3/data-centers`: the cloud regions of `gridprint_core::data_centers` in Electricity Maps'
/// shape, optionally only those of `zone` (a zone key or code) or of `dataCenterProvider`.
pub fn data_centers(_state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let zone = p.get("zone").map(code_of);
    let provider = p.get("dataCenterProvider");
    let list: Vec<DataCenterEntry> = cloud_regions()
        .iter()
        .filter(|d| zone.as_ref().is_none_or(|z| *z == d.zone))
        .filter(|d| provider.is_none_or(|v| d.provider.eq_ignore_ascii_case(v.trim())))
        .map(|d| DataCenterEntry {
            provider: d.provider.clone(),
            lonlat: [d.longitude, d.latitude],
            display_name: format!("{} ({})", d.place, d.region),
            region: d.region.clone(),
            zone_key: d.em_zone_key.clone(),
            status: d.status.clone(),
            source: d.source.clone(),
            operational_since: None,
        })
        .collect();
    Ok(json!(list))
}

/// `GET /v3/carbon-intensity/latest`: the latest point at or before now.
pub fn latest(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = state.query().cache();
    let ask = Ask::read(state, &cache, p)?;
    let g = Granularity::read(p, Granularity::FifteenMinutes)?;
    let point = ask.latest(g)?.ok_or_else(|| no_data(&ask))?;
    Ok(json!(point))
}

/// `GET /v3/carbon-intensity/history`: the last 24 hours (30 days when daily).
pub fn history(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = state.query().cache();
    let ask = Ask::read(state, &cache, p)?;
    let g = Granularity::read(p, Granularity::Hourly)?;
    let end = g.floor(ask.carbon.now) + g.step();
    let span = if g == Granularity::Daily {
        Duration::days(30)
    } else {
        Duration::days(1)
    };
    let history = ask.carbon(end - span, end, g)?;
    Ok(json!({"zone": ask.key(), "history": history, "temporalGranularity": g.name()}))
}

/// `GET /v3/carbon-intensity/past`: the slot, hour or day holding `datetime`.
pub fn past(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = state.query().cache();
    let ask = Ask::read(state, &cache, p)?;
    let g = Granularity::read(p, Granularity::Hourly)?;
    let t = g.floor(timestamp(p, "datetime")?);
    let point = ask.carbon(t, t + g.step(), g)?.pop().ok_or_else(|| {
        ApiError::not_found(format!(
            "no carbon intensity for zone {} at {}",
            ask.key(),
            format_timestamp(t)
        ))
    })?;
    Ok(json!(point))
}

/// `GET /v3/carbon-intensity/past-range`: the points from `start` to `end`.
pub fn past_range(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = state.query().cache();
    let ask = Ask::read(state, &cache, p)?;
    let g = Granularity::read(p, Granularity::Hourly)?;
    let (start, end) = (timestamp(p, "start")?, timestamp(p, "end")?);
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
    Ok(json!({"zone": ask.key(), "data": data, "temporalGranularity": g.name()}))
}

/// `GET /v3/carbon-intensity/forecast`: the points from now over `horizonHours`.
pub fn forecast(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = state.query().cache();
    let ask = Ask::read(state, &cache, p)?;
    let now = ask.carbon.now;
    let g = Granularity::read(p, Granularity::Hourly)?;
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
        json!({"zone": ask.key(), "forecast": forecast, "updatedAt": format_timestamp(now), "temporalGranularity": g.name()}),
    )
}

/// `GET /v3/home-assistant` and CO2 Signal's `GET /v1/latest`: the latest 15-minute point with the
/// fossil fuel share of its slot.
pub fn home_assistant(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = state.query().cache();
    let ask = Ask::read(state, &cache, p)?;
    let key = ask.key();
    let Some(point) = ask.latest(Granularity::FifteenMinutes)? else {
        return Ok(json!({"status": "no-data", "countryCode": key}));
    };
    let fossil =
        ask.fossil_percentage(parse_timestamp(&point.datetime).unwrap_or(ask.carbon.now))?;
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

/// The 404 of a zone without a point in the last 24 hours.
fn no_data(ask: &Ask<'_>) -> ApiError {
    ApiError::not_found(format!(
        "no carbon intensity for zone {} in the last 24 hours",
        ask.key()
    ))
}
