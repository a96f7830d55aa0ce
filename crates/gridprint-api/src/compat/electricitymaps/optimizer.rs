//! Electricity Maps' carbon-aware optimizer (`POST /beta/carbon-aware-optimizer`, which its Airflow
//! scheduler calls, and `/v3/consumption-optimizer` of its SDK): when and where a job of a given
//! `duration` runs with the least carbon between `startWindow` and `endWindow`.
//!
//! The answer is `/v1/best-window`'s (the same query service, with `n=1`, carbon, life-cycle,
//! global): nothing is searched a second time here. `locations` are read as [`Location`]s (a zone
//! key, `[lon, lat]` or a data centre) and mapped to zones through [`super::ask`]; the chosen one
//! comes back as given. The bounds are `/v1/best-window`'s (window at most 31 days, job no longer
//! than the window) plus [`MAX_LOCATIONS`]; the body is bounded by the router's request limit.
//! Body keys the optimizer does not read (`powerConsumption`, …) are named in `Gridprint-Ignored`.

use super::ask::{data_center_code, zone_code};
use super::zone_keys::key_of;
use crate::compat::{CarbonAsk, locate};
use crate::http::error::ApiError;
use crate::state::AppState;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{Slot, parse_timestamp};
use gridprint_query::endpoints::BestWindowEndpoint;
use gridprint_responses::query::{self, BestWindowQuery, Metric, QueryParams};
use gridprint_responses::{BestWindow, round2};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::Duration;
use utoipa::ToSchema;

/// The only `optimizationMetric` served.
pub const METRIC: &str = "flow-traced_carbon_intensity";
/// The unit of the metric values.
pub const UNIT: &str = "gCO2eq/kWh";
/// Most `locations` one request may name.
pub const MAX_LOCATIONS: usize = 64;
/// The body keys the optimizer reads.
const KNOWN: &[&str] = &[
    "duration",
    "startWindow",
    "endWindow",
    "locations",
    "optimizationMetric",
];

/// Where a job may run: `[lon, lat]`, a data centre, or a zone key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum Location {
    /// `[longitude, latitude]`, longitude first.
    LonLat([f64; 2]),
    /// A cloud region (`GET /v3/data-centers`).
    DataCenter {
        #[serde(rename = "dataCenterProvider")]
        provider: String,
        #[serde(rename = "dataCenterRegion")]
        region: String,
    },
    /// An Electricity Maps zone key or a gridprint zone code.
    Zone(String),
}

/// The request body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OptimizerRequest {
    /// The job's length, ISO 8601 (`PT3H`) or whole minutes; rounded up to 15-minute slots.
    #[schema(example = "PT3H")]
    pub duration: String,
    /// First moment the job may start (ISO 8601).
    pub start_window: String,
    /// When the job must be done (ISO 8601); at most 31 days after `startWindow`.
    pub end_window: String,
    /// 1 to 64 locations.
    pub locations: Vec<Location>,
    /// `flow-traced_carbon_intensity` (the default; the only one served).
    pub optimization_metric: Option<String>,
}

/// The metric at three starts, its unit and the zone of the optimum.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OptimizationOutput {
    /// The job started now (the current slot) in the optimal zone; null without data for it.
    pub metric_value_immediate_execution: Option<f64>,
    /// The job at `optimalStartTime`: `/v1/best-window`'s `value`.
    pub metric_value_optimal_execution: f64,
    /// The job at `startWindow` in the optimal zone: `/v1/best-window`'s `now_value`.
    pub metric_value_start_window_execution: Option<f64>,
    #[schema(value_type = String)]
    pub metric_unit: &'static str,
    #[schema(value_type = String)]
    pub optimization_metric: &'static str,
    /// The Electricity Maps key of the optimal location's zone.
    pub zone_key: String,
}

/// The answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OptimizerAnswer {
    /// The job's first slot (UTC).
    pub optimal_start_time: String,
    /// The requested location the job runs best at, as it was given.
    pub optimal_location: Location,
    pub optimization_output: OptimizationOutput,
}

/// `POST /beta/carbon-aware-optimizer` (and its other paths): the answer to the JSON `body`, and
/// the body keys it did not read.
pub fn optimize(state: &AppState, body: &[u8]) -> Result<(Value, Vec<String>), ApiError> {
    crate::v1::answer::check_available(state)?;
    let object: Map<String, Value> = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the body must be a JSON object ({e})")))?;
    let unread: Vec<(String, String)> = object.keys().map(|k| (k.clone(), String::new())).collect();
    let known: Vec<String> = KNOWN.iter().map(|k| k.to_string()).collect();
    let ignored = crate::v1::ignored::ignored(&unread, &known, None);
    let req: OptimizerRequest = serde_json::from_value(Value::Object(object))
        .map_err(|e| ApiError::bad_request(format!("the body cannot be read: {e}")))?;
    let metric = req.optimization_metric.as_deref().unwrap_or(METRIC);
    if metric != METRIC {
        return Err(ApiError::bad_request(format!(
            "optimizationMetric '{}' is not served: only {METRIC} (gridprint's flow-traced carbon footprint)",
            metric.chars().take(64).collect::<String>()
        )));
    }
    if req.locations.is_empty() || req.locations.len() > MAX_LOCATIONS {
        return Err(ApiError::bad_request(format!(
            "locations: 1 to {MAX_LOCATIONS} locations ([lon, lat], {{dataCenterProvider, dataCenterRegion}} or a zone key)"
        )));
    }
    let start = window_time(&req.start_window, "startWindow")?;
    let end = window_time(&req.end_window, "endWindow")?;
    let svc = state.query();
    let cache = svc.cache();
    let codes = req
        .locations
        .iter()
        .map(|l| location_code(state, &cache, l))
        .collect::<Result<Vec<String>, ApiError>>()?;
    let mut zones = codes.clone();
    zones.sort();
    zones.dedup();
    let ask = CarbonAsk {
        svc,
        cache: &cache,
        now: state.now(),
        code: codes[0].clone(),
        scope: Scope::LifeCycle,
    };
    let best = best_window(&ask, &zones.join(","), &req.duration, start, end)?
        .ok_or_else(|| {
            ApiError::not_found(
                "no carbon intensity for these locations over the whole window: the job fits no stretch of data",
            )
        })?;
    let at = codes
        .iter()
        .position(|c| *c == best.zone.as_str())
        .unwrap_or(0);
    let now = Slot::containing(ask.now).start();
    let duration = Duration::minutes(i64::from(best.duration_minutes));
    let immediate = best_window(&ask, best.zone.as_str(), &req.duration, now, now + duration)
        .ok()
        .flatten()
        .map(|w| round2(w.value));
    let answer = OptimizerAnswer {
        optimal_start_time: best.start.clone(),
        optimal_location: req.locations[at].clone(),
        optimization_output: OptimizationOutput {
            metric_value_immediate_execution: immediate,
            metric_value_optimal_execution: round2(best.value),
            metric_value_start_window_execution: best.now_value.map(round2),
            metric_unit: UNIT,
            optimization_metric: METRIC,
            zone_key: key_of(best.zone.as_str()).to_string(),
        },
    };
    let value = serde_json::to_value(answer).map_err(ApiError::internal)?;
    Ok((value, ignored))
}

/// `/v1/best-window`'s best placement of a `duration` job in `zones` (comma-separated codes)
/// between `start` and `end`, carbon, life-cycle, global; `None` when the job fits no data.
fn best_window(
    ask: &CarbonAsk<'_>,
    zones: &str,
    duration: &str,
    start: time::OffsetDateTime,
    end: time::OffsetDateTime,
) -> Result<Option<BestWindow>, ApiError> {
    let zones = zones.split(',').map(str::to_string).collect();
    let window = ask.window(start, end);
    let query = BestWindowQuery {
        location: Some(query::Location::Zones(zones)),
        duration: duration.to_string(),
        start: window.map(|w| w.start),
        end: window.map(|w| w.end),
        metric: Some(Metric::Footprint),
        footprint_type: Some(FootprintType::Carbon),
        impact_type: None,
        scope: Some(ask.scope),
        use_global: Some(true),
        n: Some(1),
    };
    query.check(ask.now)?;
    Ok(ask.answer::<BestWindowEndpoint>(query)?.into_iter().next())
}

/// A window bound: ISO 8601 (400 naming the key otherwise).
fn window_time(v: &str, name: &str) -> Result<time::OffsetDateTime, ApiError> {
    parse_timestamp(v).map_err(|_| {
        ApiError::bad_request(format!(
            "{name} is not an ISO 8601 date-time: '{}'",
            v.chars().take(64).collect::<String>()
        ))
    })
}

/// The gridprint code of one location: a zone key as `zone=` reads it, a data centre, or the zone
/// whose area holds `[lon, lat]`.
fn location_code(
    state: &AppState,
    cache: &gridprint_query::DataCache,
    location: &Location,
) -> Result<String, ApiError> {
    match location {
        Location::LonLat([lon, lat]) => locate(state.query(), cache, *lat, *lon),
        Location::DataCenter { provider, region } => data_center_code(provider, region, cache),
        Location::Zone(key) => {
            let pairs = [("zone".to_string(), key.clone())];
            zone_code(&QueryParams::new(&pairs), state.query(), cache)
        }
    }
}
