//! The answers of the WattTime routes: the average (attributional) signal `co2_aoer` only, in
//! `lbs_co2_per_mwh`. Every value is a `/v1/footprints` point (carbon, global coverage,
//! life-cycle scope, the 2 decimals `/v1` writes) times [`LBS_PER_MWH_PER_G_PER_KWH`]; nothing is
//! computed a second time. Regions are gridprint's zone codes ([`region`]); points are 15-minute
//! slots (`data_point_period_seconds: 900`). A historical forecast is the one the worker archived
//! (`gridprint_store::ForecastStore`, one an hour): for each `generated_at`, the forecast in force
//! then, read from the store on the request; where the archive holds none, the values gridprint
//! holds now (said in the answer's `warnings`).

use super::errors::NO_COVERAGE;
use crate::compat::{CarbonAsk, is_served, locate, number, timestamp};
use crate::http::error::ApiError;
use crate::state::AppState;
use axum::http::StatusCode;
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::Scope;
use gridprint_core::slot::{Slot, SlotRange, format_at_offset};
use gridprint_core::zone::ZoneCode;
use gridprint_query::DataCache;
use gridprint_responses::query::QueryParams;
use gridprint_responses::round2;
use gridprint_store::{ArchiveQuery, ArchivedForecast};
use serde::Serialize;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime, UtcOffset};
use utoipa::ToSchema;

/// g/kWh (= kg/MWh) to lbs/MWh.
pub const LBS_PER_MWH_PER_G_PER_KWH: f64 = 2.20462;
/// The one signal gridprint serves.
pub const SIGNAL: &str = "co2_aoer";
/// Its unit.
pub const UNITS: &str = "lbs_co2_per_mwh";
/// The unit of `/v3/signal-index`.
pub const PERCENTILE: &str = "percentile";
/// How far ahead `/v3/signal-index` compares the current value: the forecast of the next 24 hours.
pub const INDEX_LOOK_AHEAD_HOURS: i64 = 24;
/// The one model: the reference data set (zones and factors) the footprints are computed with.
pub const MODEL_DATE: &str = "2026-01-01";
/// Seconds between points, and between the `generated_at` of forecasts.
pub const PERIOD_SECONDS: i64 = 900;
/// Longest `/v3/historical` window (start to end, both included).
pub const MAX_HISTORICAL_DAYS: i64 = 32;
/// Longest `/v3/forecast/historical` window (of `generated_at`, both ends included).
pub const MAX_FORECAST_HISTORICAL_DAYS: i64 = 1;
/// An archived forecast stands for the `generated_at` times up to this many slots after its issue
/// (the worker archives one an hour; two hours leave room for a late cycle).
pub const ARCHIVE_IN_FORCE_SLOTS: i64 = 8;
/// Longest forecast horizon: gridprint's forecast reaches 96 hours ahead.
pub const MAX_HORIZON_HOURS: i64 = crate::compat::electricitymaps::carbon::MAX_HORIZON_HOURS;

/// One point: the slot's start and its value.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimePoint {
    /// Start of the 15-minute slot, UTC (`2025-01-15T10:00:00+00:00`).
    pub point_time: String,
    /// lbs CO2 per MWh: `/v1/footprints`' value (g/kWh, global, life-cycle) × 2.20462
    /// (`/v3/signal-index`: the percentile, 0 to 100).
    pub value: f64,
    /// Only with `include_imputed_marker=true`: true when the slot is not `complete` (estimated
    /// or forecast by gridprint).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imputed_data_used: Option<bool>,
}

/// `meta.model`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeModel {
    /// The model's date; gridprint has one (`2026-01-01`: the reference data set).
    #[schema(value_type = String)]
    pub date: &'static str,
}

/// A remark on an answer.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeWarning {
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    pub kind: &'static str,
    pub message: String,
}

/// `meta` of the data answers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeMeta {
    /// The region (a gridprint zone code).
    pub region: String,
    /// Always `co2_aoer`.
    #[schema(value_type = String)]
    pub signal_type: &'static str,
    pub model: WattTimeModel,
    /// `lbs_co2_per_mwh`; `percentile` on `/v3/signal-index`.
    #[schema(value_type = String)]
    pub units: &'static str,
    /// 900: one point per 15-minute slot.
    pub data_point_period_seconds: i64,
    pub warnings: Vec<WattTimeWarning>,
    /// Forecasts: the start of the slot the forecast is made from (`/v3/forecast`: the current
    /// slot).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generated_at: Option<String>,
    /// Forecasts: 900.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generated_at_period_seconds: Option<i64>,
}

/// `/v3/historical` and `/v3/forecast`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeData {
    pub data: Vec<WattTimePoint>,
    pub meta: WattTimeMeta,
}

/// One forecast of `/v3/forecast/historical`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeForecastRun {
    pub generated_at: String,
    pub forecast: Vec<WattTimePoint>,
}

/// `/v3/forecast/historical`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeHistoricalForecasts {
    pub data: Vec<WattTimeForecastRun>,
    pub meta: WattTimeMeta,
}

/// `/v3/region-from-loc`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeRegion {
    /// A gridprint zone code.
    pub region: String,
    pub region_full_name: String,
    #[schema(value_type = String)]
    pub signal_type: &'static str,
}

/// A model in `/v3/my-access`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeAccessModel {
    #[schema(value_type = String)]
    pub model: &'static str,
    /// The first day gridprint holds footprints of the region (null: none yet).
    pub data_start: Option<String>,
    /// Always null: gridprint's footprints are computed, not trained.
    #[schema(value_type = Option<String>)]
    pub train_start: Option<&'static str>,
    /// Always null.
    #[schema(value_type = Option<String>)]
    pub train_end: Option<&'static str>,
    /// `gridprint-flow-tracing`.
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    pub kind: &'static str,
}

/// An endpoint in `/v3/my-access`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeAccessEndpoint {
    #[schema(value_type = String)]
    pub endpoint: &'static str,
    pub models: Vec<WattTimeAccessModel>,
}

/// A region in `/v3/my-access`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeAccessRegion {
    pub region: String,
    pub region_full_name: String,
    /// The region's country code.
    pub parent: String,
    pub data_point_period_seconds: i64,
    pub endpoints: Vec<WattTimeAccessEndpoint>,
}

/// A signal in `/v3/my-access`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeAccessSignal {
    #[schema(value_type = String)]
    pub signal_type: &'static str,
    pub regions: Vec<WattTimeAccessRegion>,
}

/// `/v3/my-access`: `co2_aoer` in every served zone, on the data endpoints.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WattTimeAccess {
    pub signal_types: Vec<WattTimeAccessSignal>,
}

/// `2025-01-15T10:00:00+00:00`, as WattTime writes times.
fn stamp(t: OffsetDateTime) -> String {
    format_at_offset(t, UtcOffset::UTC, "+00:00")
}

/// `signal_type`: `co2_aoer` (also the default); the others WattTime serves → 400.
pub(super) fn check_signal(p: &QueryParams<'_>) -> Result<(), ApiError> {
    match p.get("signal_type") {
        None | Some(SIGNAL) => Ok(()),
        Some(other) => Err(ApiError::bad_request(format!(
            "signal_type '{other}' is not served: gridprint serves the average (attributional) signal co2_aoer only (no marginal co2_moer, no health_damage)"
        ))),
    }
}

/// `model`: absent or gridprint's one model.
fn check_model(p: &QueryParams<'_>) -> Result<(), ApiError> {
    match p.get("model") {
        None | Some(MODEL_DATE) => Ok(()),
        Some(other) => Err(ApiError::bad_request(format!(
            "model '{other}' does not exist here: gridprint has one model, {MODEL_DATE}"
        ))),
    }
}

/// `region`: a served gridprint zone code (any case) → the code; unknown → 404.
fn region(p: &QueryParams<'_>, cache: &DataCache) -> Result<String, ApiError> {
    let named = p
        .get("region")
        .ok_or_else(|| ApiError::bad_request("region is required (a gridprint zone code such as DE or DK1; GET /v3/my-access lists them)"))?;
    let code = named.trim().to_ascii_uppercase();
    if !is_served(&cache.reference().zones, &code) {
        return Err(ApiError::not_found(format!(
            "region '{named}' is not served here: GET /v3/my-access lists the regions (gridprint zone codes)"
        )));
    }
    Ok(code)
}

/// `horizon_hours`: 0 to [`MAX_HORIZON_HOURS`] (default 24); the points of `[from, from + h)`,
/// at least the slot `from`.
fn horizon(p: &QueryParams<'_>) -> Result<Duration, ApiError> {
    let hours = match number(p, "horizon_hours") {
        Ok(None) => 24.0,
        Ok(Some(h)) if (0.0..=MAX_HORIZON_HOURS as f64).contains(&h) => h,
        _ => {
            return Err(ApiError::bad_request(format!(
                "horizon_hours must be a number from 0 to {MAX_HORIZON_HOURS} (gridprint's forecast reaches {MAX_HORIZON_HOURS} hours ahead)"
            )));
        }
    };
    Ok(Duration::seconds_f64(hours * 3600.0).max(Duration::seconds(PERIOD_SECONDS)))
}

/// `start` and `end` (both included), end not before start, at most `max_days` apart (`limit`
/// says it in the 400).
fn window(
    p: &QueryParams<'_>,
    max_days: i64,
    limit: &str,
) -> Result<(OffsetDateTime, OffsetDateTime), ApiError> {
    let (start, end) = (timestamp(p, "start")?, timestamp(p, "end")?);
    if end < start {
        return Err(ApiError::bad_request("end must not be before start"));
    }
    if end - start > Duration::days(max_days) {
        return Err(ApiError::bad_request(format!("{limit}: split the window")));
    }
    Ok((start, end))
}

/// The first slot start at or after `t`.
fn ceil_slot(t: OffsetDateTime) -> OffsetDateTime {
    let floor = Slot::containing(t).start();
    if floor == t {
        t
    } else {
        floor + Duration::seconds(PERIOD_SECONDS)
    }
}

/// The `meta` of an answer; a forecast's names its period, and `/v3/forecast`'s its
/// `generated_at`.
fn meta(
    code: &str,
    forecast: bool,
    generated_at: Option<OffsetDateTime>,
    warnings: Vec<WattTimeWarning>,
) -> WattTimeMeta {
    WattTimeMeta {
        region: code.to_string(),
        signal_type: SIGNAL,
        model: WattTimeModel { date: MODEL_DATE },
        units: UNITS,
        data_point_period_seconds: PERIOD_SECONDS,
        warnings,
        generated_at: generated_at.map(stamp),
        generated_at_period_seconds: forecast.then_some(PERIOD_SECONDS),
    }
}

fn point(t: OffsetDateTime, value: f64, status: ZoneStatus, marker: bool) -> WattTimePoint {
    WattTimePoint {
        point_time: stamp(t),
        value: value * LBS_PER_MWH_PER_G_PER_KWH,
        imputed_data_used: marker.then_some(status != ZoneStatus::Complete),
    }
}

/// The footprint question of a data route: data available (503), gridprint's model, a served
/// `region`, the life-cycle scope.
fn data_ask<'a>(
    state: &'a AppState,
    p: &QueryParams<'_>,
    cache: &'a DataCache,
) -> Result<CarbonAsk<'a>, ApiError> {
    let svc = state.query();
    crate::v1::answer::check_available(state)?;
    check_model(p)?;
    Ok(CarbonAsk {
        svc,
        cache,
        now: state.now(),
        code: region(p, cache)?,
        scope: Scope::LifeCycle,
    })
}

/// `/v3/region-from-loc`: the zone whose area holds the point.
pub fn region_from_loc(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let svc = state.query();
    let cache = &svc.cache();
    let (lat, lon) = match (number(p, "latitude")?, number(p, "longitude")?) {
        (Some(lat), Some(lon)) => (lat, lon),
        _ => return Err(ApiError::bad_request("latitude and longitude are required")),
    };
    let code = locate(svc, cache, lat, lon).map_err(|e| {
        if e.status() == StatusCode::NOT_FOUND {
            ApiError::not_found(format!(
                "{NO_COVERAGE}: no zone served here contains latitude {lat}, longitude {lon}"
            ))
        } else {
            e
        }
    })?;
    let zones = &cache.reference().zones;
    let full_name = zones
        .index_of_str(&code)
        .map_or_else(String::new, |i| zones.get(i).full_name.clone());
    Ok(json!(WattTimeRegion {
        region: code,
        region_full_name: full_name,
        signal_type: SIGNAL,
    }))
}

/// The data endpoints `/v3/my-access` lists for every region.
pub const ENDPOINTS: [&str; 4] = [
    "v3/forecast",
    "v3/historical",
    "v3/forecast/historical",
    "v3/signal-index",
];

/// `/v3/my-access`: `co2_aoer` (the one signal, so the first: the clients that take the first
/// signal type take it) of every zone on the data endpoints ([`ENDPOINTS`]).
pub fn my_access(state: &AppState, _p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = &state.query().cache();
    let zones = &cache.reference().zones;
    let regions = zones
        .iter()
        .enumerate()
        .map(|(i, z)| {
            let data_start = cache
                .derived(i)
                .days()
                .first()
                .map(|d| Slot::first_of_day(*d).start().date().to_string());
            let endpoints = ENDPOINTS
                .into_iter()
                .map(|endpoint| WattTimeAccessEndpoint {
                    endpoint,
                    models: vec![WattTimeAccessModel {
                        model: MODEL_DATE,
                        data_start: data_start.clone(),
                        train_start: None,
                        train_end: None,
                        kind: "gridprint-flow-tracing",
                    }],
                })
                .collect();
            WattTimeAccessRegion {
                region: z.code.as_str().to_string(),
                region_full_name: z.full_name.clone(),
                parent: z.country_code.clone(),
                data_point_period_seconds: PERIOD_SECONDS,
                endpoints,
            }
        })
        .collect();
    Ok(json!(WattTimeAccess {
        signal_types: vec![WattTimeAccessSignal {
            signal_type: SIGNAL,
            regions,
        }],
    }))
}

/// `/v3/forecast`: the points from the current slot over `horizon_hours`.
pub fn forecast(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = state.query().cache();
    let ask = &data_ask(state, p, &cache)?;
    let current = Slot::containing(ask.now).start();
    let data = ask
        .carbon_slots(current, current + horizon(p)?)?
        .into_iter()
        .map(|(t, v, s)| point(t, v, s, false))
        .collect();
    Ok(json!(WattTimeData {
        data,
        meta: meta(&ask.code, true, Some(current), Vec::new()),
    }))
}

/// `/v3/signal-index`: the current slot's percentile against the forecast ahead, as WattTime
/// defines its index — the share (0 to 100, whole numbers) of the slots of the next
/// [`INDEX_LOOK_AHEAD_HOURS`] hours (after the current one) whose value is lower than the current
/// one: 0 when now is the cleanest of the day ahead, 100 when every slot ahead is cleaner.
pub fn signal_index(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = state.query().cache();
    let ask = &data_ask(state, p, &cache)?;
    let current = Slot::containing(ask.now).start();
    let end = current + Duration::hours(INDEX_LOOK_AHEAD_HOURS) + Duration::seconds(PERIOD_SECONDS);
    let points = ask.carbon_slots(current, end)?;
    let now_value = points
        .iter()
        .find(|(t, _, _)| *t == current)
        .map(|(_, v, _)| *v)
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "region '{}' has no value for the current slot yet",
                ask.code
            ))
        })?;
    let ahead: Vec<f64> = points
        .iter()
        .filter(|(t, _, _)| *t > current)
        .map(|(_, v, _)| *v)
        .collect();
    if ahead.is_empty() {
        return Err(ApiError::not_found(format!(
            "region '{}' has no forecast ahead of the current slot yet",
            ask.code
        )));
    }
    let lower = ahead.iter().filter(|v| **v < now_value).count();
    let percentile = (100.0 * lower as f64 / ahead.len() as f64).round();
    let mut meta = meta(&ask.code, false, None, Vec::new());
    meta.units = PERCENTILE;
    Ok(json!(WattTimeData {
        data: vec![WattTimePoint {
            point_time: stamp(current),
            value: percentile,
            imputed_data_used: None,
        }],
        meta,
    }))
}

/// `/v3/historical`: the points from `start` to `end` (both included), up to the current slot.
pub fn historical(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = state.query().cache();
    let ask = &data_ask(state, p, &cache)?;
    let (start, end) = window(
        p,
        MAX_HISTORICAL_DAYS,
        "/v3/historical covers at most 32 days from start to end",
    )?;
    let marker = match p.get("include_imputed_marker") {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => {
            return Err(ApiError::bad_request(
                "include_imputed_marker: true or false",
            ));
        }
    };
    // Later slots are forecasts (`/v3/forecast`).
    let last = Slot::containing(end.min(ask.now)).start();
    let first = ceil_slot(start);
    let data = if first <= last {
        ask.carbon_slots(first, last + Duration::seconds(PERIOD_SECONDS))?
            .into_iter()
            .map(|(t, v, s)| point(t, v, s, marker))
            .collect()
    } else {
        Vec::new()
    };
    Ok(json!(WattTimeData {
        data,
        meta: meta(&ask.code, false, None, Vec::new()),
    }))
}

/// `/v3/forecast/historical`: the forecasts in force at each `generated_at`, from the worker's
/// archive (read off the async workers) or, where it holds none, the values held now.
pub async fn forecast_historical(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    check_signal(p)?;
    let cache = state.query().cache();
    let ask = &data_ask(state, p, &cache)?;
    let generated = generated_at(p, ask.now)?;
    let archive = archived(state, &cache, &ask.code, generated).await?;
    forecast_runs(p, ask, generated, &archive)
}

/// The archived forecasts of zone `code` that may be in force at a `generated_at` of
/// `(first, last)` (none for a country code or an empty window), read off the async workers.
async fn archived(
    state: &AppState,
    cache: &DataCache,
    code: &str,
    (first, last): (OffsetDateTime, OffsetDateTime),
) -> Result<Vec<ArchivedForecast>, ApiError> {
    let zone = ZoneCode::parse(code).filter(|z| cache.reference().zones.index_of(z).is_some());
    let (Some(zone), true) = (zone, first <= last) else {
        return Ok(Vec::new());
    };
    let query = ArchiveQuery {
        origins: SlotRange::new(
            Slot::containing(first).offset(-ARCHIVE_IN_FORCE_SLOTS),
            Slot::containing(last).offset(1),
        ),
        zone: Some(zone),
        inputs: false,
    };
    let store = state.store().clone();
    tokio::task::spawn_blocking(move || store.archived_forecasts(&query))
        .await
        .map_err(|e| ApiError::internal(format!("archive read failed: {e}")))?
        .map_err(ApiError::from)
}

/// `/v3/forecast/historical`'s `generated_at` times: the first and last slot start from `start`
/// to `end` (both included, at most a day apart, not after the current slot); first > last when
/// there is none.
fn generated_at(
    p: &QueryParams<'_>,
    now: OffsetDateTime,
) -> Result<(OffsetDateTime, OffsetDateTime), ApiError> {
    let (start, end) = window(
        p,
        MAX_FORECAST_HISTORICAL_DAYS,
        "/v3/forecast/historical covers at most 1 day from start to end",
    )?;
    Ok((ceil_slot(start), Slot::containing(end.min(now)).start()))
}

/// `/v3/forecast/historical`: for every slot start `g` from `first` to `last` (`generated`), the
/// points of the following `horizon_hours` of the forecast in force at `g` — the latest of
/// `archive` issued at or before `g`, at most [`ARCHIVE_IN_FORCE_SLOTS`] before it (its points
/// end where it ends, at most an hour before `g` + 96 h) — or, where the archive holds none, the
/// values gridprint holds now, with a warning naming how many.
fn forecast_runs(
    p: &QueryParams<'_>,
    ask: &CarbonAsk<'_>,
    (first, last): (OffsetDateTime, OffsetDateTime),
    archive: &[ArchivedForecast],
) -> Result<Value, ApiError> {
    let span = horizon(p)?;
    let mut data = Vec::new();
    let mut held_now: Option<Vec<(OffsetDateTime, f64, ZoneStatus)>> = None;
    let mut not_archived = 0usize;
    let mut g = first;
    while g <= last {
        let at = Slot::containing(g);
        let in_force = archive
            .iter()
            .filter(|f| f.origin <= at && at.0 - f.origin.0 <= ARCHIVE_IN_FORCE_SLOTS)
            .max_by_key(|f| f.origin);
        let forecast = match in_force {
            Some(f) => {
                let end = Slot::containing(g + span - Duration::seconds(1)).offset(1);
                (at.0..end.0)
                    .filter_map(|t| {
                        let v = *f.footprints.get((t - f.origin.0) as usize)?;
                        // To the 2 decimals /v1 writes, as every other value here.
                        v.is_finite()
                            .then(|| point(Slot(t).start(), round2(v), ZoneStatus::Missing, false))
                    })
                    .collect()
            }
            None => {
                not_archived += 1;
                if held_now.is_none() {
                    held_now = Some(ask.carbon_slots(first, last + span)?);
                }
                held_now
                    .iter()
                    .flatten()
                    .filter(|(t, _, _)| *t >= g && *t < g + span)
                    .map(|(t, v, s)| point(*t, *v, *s, false))
                    .collect()
            }
        };
        data.push(WattTimeForecastRun {
            generated_at: stamp(g),
            forecast,
        });
        g += Duration::seconds(PERIOD_SECONDS);
    }
    let warnings = if not_archived > 0 {
        vec![WattTimeWarning {
            kind: "gridprint-no-forecast-archive",
            message: format!(
                "{not_archived} of the {} generated_at times have no archived forecast (the archive keeps one an hour, for 30 days by default, from when the worker started archiving): each of those lists the values gridprint holds now for the following horizon_hours (measured, estimated or forecast)",
                data.len()
            ),
        }]
    } else {
        Vec::new()
    };
    Ok(json!(WattTimeHistoricalForecasts {
        data,
        meta: meta(&ask.code, true, None, warnings),
    }))
}
