//! What every Electricity Maps route reads and how it writes a carbon point: the zone and options
//! of a request ([`Ask`]; a zone key, a data centre ([`data_center_code`]) or coordinates),
//! `temporalGranularity` ([`Granularity`]), boolean parameters ([`flag`]), the point itself
//! ([`CarbonPoint`], [`estimation_method`]) and the integers Electricity Maps sends ([`integer`]).
//! The routes' answers are in [`super::carbon`], [`super::power`] and [`super::optimizer`], which
//! read through here (none reads another).

use super::zone_keys::{code_of, key_of};
use crate::compat::{CarbonAsk, is_served, locate, number};
use crate::http::error::ApiError;
use crate::state::AppState;
use gridprint_core::data_centers;
use gridprint_core::production::ProductionType;
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::Scope;
use gridprint_core::slot::{Slot, format_timestamp};
use gridprint_query::endpoints::MixEndpoint;
use gridprint_query::{DataCache, QueryService};
use gridprint_responses::query::{MixQuery, QueryParams};
use gridprint_responses::{SeriesOrAggregates, round2};
use serde::Serialize;
use time::{Duration, OffsetDateTime};
use utoipa::ToSchema;

/// `temporalGranularity`: the three gridprint can answer from `/v1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granularity {
    FifteenMinutes,
    Hourly,
    Daily,
}

impl Granularity {
    pub(super) fn read(p: &QueryParams<'_>, default: Granularity) -> Result<Granularity, ApiError> {
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

    pub(super) fn name(self) -> &'static str {
        match self {
            Granularity::FifteenMinutes => "15_minutes",
            Granularity::Hourly => "hourly",
            Granularity::Daily => "daily",
        }
    }

    pub(super) fn seconds(self) -> i64 {
        match self {
            Granularity::FifteenMinutes => 900,
            Granularity::Hourly => 3_600,
            Granularity::Daily => 86_400,
        }
    }

    /// The start of the bucket containing `t`.
    pub(super) fn floor(self, t: OffsetDateTime) -> OffsetDateTime {
        let s = t.unix_timestamp();
        OffsetDateTime::from_unix_timestamp(s - s.rem_euclid(self.seconds())).unwrap_or(t)
    }

    pub(super) fn step(self) -> Duration {
        Duration::seconds(self.seconds())
    }
}

/// One carbon intensity point in the service's shape, plus gridprint's `zoneStatus`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CarbonPoint {
    /// The Electricity Maps zone key.
    pub zone: String,
    /// gridprint's global (flow-traced) carbon footprint, gCO2eq/kWh: `/v1`'s number rounded to an
    /// integer (half away from zero), as Electricity Maps sends it.
    pub carbon_intensity: i64,
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

/// A number as Electricity Maps sends it where its API has integers (`carbonIntensity`, power
/// breakdowns and totals, percentages): `/v1`'s number (2 decimals) rounded half away from zero.
pub fn integer(value: f64) -> i64 {
    round2(value).round() as i64
}

/// A boolean parameter: `true` or `false`, in any case (Python clients write `True`, `False`);
/// `default` when absent, else 400 naming the parameter.
pub(super) fn flag(p: &QueryParams<'_>, name: &str, default: bool) -> Result<bool, ApiError> {
    match p.get(name) {
        None => Ok(default),
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
        Some(_) => Err(ApiError::bad_request(format!(
            "{name}: true or false (True and False are read too)"
        ))),
    }
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
    pub(super) factor_name: &'static str,
    pub(super) estimations: bool,
}

impl Ask<'_> {
    pub(super) fn point(
        &self,
        t: OffsetDateTime,
        value: f64,
        status: ZoneStatus,
        g: Granularity,
    ) -> CarbonPoint {
        let stamp = format_timestamp(self.carbon.now);
        CarbonPoint {
            zone: key_of(&self.carbon.code).to_string(),
            carbon_intensity: integer(value),
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
    pub(super) fn carbon(
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
                    out.push((b, a.tail.value, a.tail.zone_status));
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
    pub(super) fn latest(&self, g: Granularity) -> Result<Option<CarbonPoint>, ApiError> {
        let end = g.floor(self.carbon.now) + g.step();
        Ok(self.carbon(end - Duration::days(1), end, g)?.pop())
    }

    /// The share of coal, gas and oil in `/v1/mix` of the slot starting at `t` (the MW as `/v1`
    /// writes them, 2 decimals), in percent with 2 decimals; `None` without a mix.
    pub(super) fn fossil_percentage(&self, t: OffsetDateTime) -> Result<Option<f64>, ApiError> {
        let slot = Slot::containing(t);
        let mix = MixQuery {
            location: self.carbon.location(),
            window: (self.carbon).window(slot.start(), slot.start() + Duration::minutes(15)),
            production_type: None,
        };
        let (mut fossil, mut total) = (0.0, 0.0);
        for r in self.carbon.answer::<MixEndpoint>(mix)? {
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

impl<'a> Ask<'a> {
    /// The ask of a carbon or power route on the snapshot `cache`, read from `p` in this order: data available (503), the
    /// zone ([`zone_code`]), `emissionFactorType`, `disableEstimations`.
    pub(super) fn read(
        state: &'a AppState,
        cache: &'a DataCache,
        p: &QueryParams<'_>,
    ) -> Result<Ask<'a>, ApiError> {
        let svc = state.query();
        crate::v1::answer::check_available(state)?;
        let code = zone_code(p, svc, cache)?;
        let (scope, factor_name) = match p.get("emissionFactorType") {
            None | Some("lifecycle") => (Scope::LifeCycle, "lifecycle"),
            Some("direct") => (Scope::Operational, "direct"),
            Some(other) => {
                return Err(ApiError::bad_request(format!(
                    "emissionFactorType '{other}': use lifecycle or direct"
                )));
            }
        };
        let estimations = !flag(p, "disableEstimations", false)?;
        Ok(Ask {
            carbon: CarbonAsk {
                svc,
                cache,
                now: state.now(),
                code,
                scope,
            },
            factor_name,
            estimations,
        })
    }

    /// The zone's Electricity Maps key.
    pub(super) fn key(&self) -> String {
        key_of(&self.carbon.code).to_string()
    }
}

/// The gridprint code a request names: `zone`, else `zoneKey`, else `countryCode` (an Electricity
/// Maps key or a gridprint code), else `dataCenterProvider` with `dataCenterRegion`, else `lat` and
/// `lon`.
pub(super) fn zone_code(
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
    match (p.get("dataCenterProvider"), p.get("dataCenterRegion")) {
        (Some(provider), Some(region)) => return data_center_code(provider, region, cache),
        (None, None) => {}
        _ => {
            return Err(ApiError::bad_request(
                "give dataCenterProvider and dataCenterRegion together",
            ));
        }
    }
    match (number(p, "lat")?, number(p, "lon")?) {
        (Some(lat), Some(lon)) => locate(svc, cache, lat, lon),
        _ => Err(ApiError::bad_request(
            "give zone= (an Electricity Maps zone key such as DE or DK-DK1, or a gridprint zone code), dataCenterProvider= and dataCenterRegion=, or lat= and lon=",
        )),
    }
}

/// The gridprint code of the zone a cloud region draws from (`gridprint_core::data_centers`): 404
/// naming the pair when the table does not have it.
pub(super) fn data_center_code(
    provider: &str,
    region: &str,
    cache: &DataCache,
) -> Result<String, ApiError> {
    let clip = |s: &str| s.chars().take(64).collect::<String>();
    data_centers::find(provider, region)
        .map(|d| d.zone.clone())
        .filter(|code| is_served(&cache.reference().zones, code))
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "data centre '{}' '{}' (dataCenterProvider, dataCenterRegion) is not served here: GET /v3/data-centers lists them ({})",
                clip(provider),
                clip(region),
                data_centers::providers().join(", ")
            ))
        })
}
