//! `/best-window`: when and where a job of fixed length runs best, over several zones or countries
//! and the forecast (docs/methodology.md §7; the search itself is `gridprint_core::best_window`).
//!
//! Unlike the data endpoints, `start` and `end` may each be omitted: `start` defaults to the current
//! slot and `end` to the end of the last day holding data of any requested zone (the forecast's end),
//! at most [`MAX_WINDOW_DAYS`] days after `start`. An explicit window longer than that is a 400. The
//! duration is rounded up to whole slots (`duration_minutes`, `duration_rounded_up` in the answer); a
//! job longer than the window is a 400. `n` is between 1 and [`MAX_N`].

use super::common::{WATER_IMPACT_UNIT, sources};
use super::derived::coverage;
use super::{EndpointDef, RequestedWindow};
use crate::cache::DataCache;
use crate::cache::DerivedZone;
use crate::country::{Source, ValueSource, countries};
use crate::describe::{LocationParams, params_of};
use crate::error::FieldError;
use crate::error::QueryError;
use crate::params::{
    Country, MAX_DAYS_SEVERAL_ZONES, ParseContext, QueryParams, ZoneSelection, primary, timestamp,
};
use crate::params::{clip, footprint_types, impact_type, scope_any, scope_operational};
use gridprint_core::best_window::{
    Goal, SlotPoint, best_windows, parse_api_duration, placement_at, saving_percent, slots_for,
};
use gridprint_core::derived::{Coverage, SeriesKey};
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::FootprintType;
use gridprint_core::reference::Scope;
use gridprint_core::slot::SLOTS_PER_DAY;
use gridprint_core::slot::format_timestamp;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use gridprint_responses::{BestWindow, schema};
use time::OffsetDateTime;
use utoipa::IntoParams;
use utoipa::openapi::path::Parameter;

/// Longest window, in days (the limit for several zones of the data endpoints).
pub const MAX_WINDOW_DAYS: i64 = MAX_DAYS_SEVERAL_ZONES;
/// Most placements one answer holds.
pub const MAX_N: usize = 100;
/// Placements when `n` is not given.
pub const DEFAULT_N: usize = 3;
/// Unit reported for the score (it has none: 0–100, higher is better).
pub const SCORE_UNIT: &str = "0-100";

/// What the job is ranked by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ranking {
    Footprint(FootprintType, Scope),
    Impact,
    Score,
}

/// `/best-window`.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct BestWindowRequest {
    pub zones: ZoneSelection,
    pub countries: Vec<Country>,
    /// First slot of the window.
    pub start: Slot,
    /// End of the window (exclusive); `None`: the forecast's end.
    pub end: Option<Slot>,
    /// Job length in whole slots.
    pub slots: usize,
    /// Whether the requested duration was rounded up.
    pub rounded_up: bool,
    pub metric: Ranking,
    pub coverage: Coverage,
    pub n: usize,
}

impl RequestedWindow for BestWindowRequest {
    /// The window as given: an explicit `end` with its `start` (the current slot when `start` was
    /// left out).
    fn requested_window(&self) -> Option<(OffsetDateTime, OffsetDateTime)> {
        Some((self.start.start(), self.end?.start()))
    }
}

impl BestWindowRequest {
    fn column(&self) -> SeriesKey {
        let coverage = self.coverage;
        match self.metric {
            Ranking::Footprint(footprint_type, scope) => SeriesKey::Footprint {
                footprint_type,
                scope,
                coverage,
            },
            Ranking::Impact => SeriesKey::Impact { coverage },
            Ranking::Score => SeriesKey::Score { coverage },
        }
    }

    fn goal(&self) -> Goal {
        match self.metric {
            Ranking::Score => Goal::Maximise,
            _ => Goal::Minimise,
        }
    }

    fn names(&self) -> (&'static str, &'static str) {
        match self.metric {
            Ranking::Footprint(t, _) => ("footprint", t.unit()),
            Ranking::Impact => ("impact", WATER_IMPACT_UNIT),
            Ranking::Score => ("score", SCORE_UNIT),
        }
    }

    fn window_error(&self, end: Slot) -> Option<QueryError> {
        let len = (end.0 - self.start.0).max(0) as usize;
        (self.slots > len).then(|| {
            QueryError::bad_request(format!(
                "duration of {} minutes ({} slots) is longer than the window from {} to {} ({} minutes)",
                self.slots * 15,
                self.slots,
                format_timestamp(self.start.start()),
                format_timestamp(end.start()),
                len * 15
            ))
        })
    }
}

/// The zone's (or country's) series over `range`, one entry per slot.
fn series(src: &impl ValueSource, key: &SeriesKey, range: SlotRange) -> Vec<Option<SlotPoint>> {
    let mut out = vec![None; range.len()];
    src.for_each_value(key, range, |slot, fl, v| {
        out[(slot.0 - range.start.0) as usize] = Some(SlotPoint {
            value: v as f64,
            valid: fl.valid(),
            zone_status: fl.status(),
            // no provider data for the slot: its values come from the forecast
            forecast: fl.status() == ZoneStatus::Missing,
        });
    });
    out
}

/// The end of the last day holding data of any selected zone or country member.
fn data_end(cache: &DataCache, sources: &[(Source<'_>, ZoneCode)]) -> Option<Slot> {
    let last = |d: &DerivedZone| d.days().last().map(|&day| Slot::first_of_day(day + 1));
    sources
        .iter()
        .filter_map(|(src, _)| match src {
            Source::Zone(d) => last(d),
            Source::Country(_, c) => c
                .members
                .iter()
                .filter_map(|&m| last(cache.derived(m)))
                .max(),
        })
        .max()
}

/// `/best-window`: the best `n` placements, best first (an error when the job does not fit the window).
pub fn best_window(
    cache: &DataCache,
    req: &BestWindowRequest,
) -> Result<Vec<BestWindow>, QueryError> {
    let sources = sources(cache, &req.zones, &req.countries);
    let end = match req.end {
        Some(e) => e,
        None => match data_end(cache, &sources) {
            Some(e) if e > req.start => e.min(req.start.offset(MAX_WINDOW_DAYS * SLOTS_PER_DAY)),
            _ => return Ok(Vec::new()),
        },
    };
    if let Some(e) = req.window_error(end) {
        return Err(e);
    }
    let range = SlotRange::new(req.start, end);
    let key = req.column();
    let all: Vec<Vec<Option<SlotPoint>>> = sources
        .iter()
        .map(|(src, _)| series(src, &key, range))
        .collect();
    let goal = req.goal();
    let (metric, unit) = req.names();
    let minutes = (req.slots * 15) as u32;
    Ok(best_windows(&all, req.slots, req.n, goal)
        .into_iter()
        .map(|p| {
            let now = placement_at(&all[p.zone], p.zone, 0, req.slots).map(|q| q.mean);
            let first = req.start.offset(p.start as i64);
            BestWindow {
                zone: sources[p.zone].1.clone(),
                metric,
                start: format_timestamp(first.start()),
                end: format_timestamp(first.offset(req.slots as i64).start()),
                value: p.mean,
                unit,
                now_value: now,
                saving_percent: now.and_then(|now| saving_percent(p.mean, now, goal)),
                valid: p.valid,
                zone_status: p.zone_status,
                forecast: p.forecast,
                duration_minutes: minutes,
                duration_rounded_up: req.rounded_up,
            }
        })
        .collect())
}

fn metric(p: &QueryParams<'_>) -> Result<Ranking, QueryError> {
    let name = p.get("metric").map(str::to_ascii_lowercase);
    match name.as_deref() {
        None | Some("footprint") => {
            let t = footprint_types(p, "footprint_type")?[0];
            Ok(Ranking::Footprint(
                t,
                scope_any(p)?.unwrap_or(Scope::LifeCycle),
            ))
        }
        Some("impact") => {
            impact_type(p)?;
            scope_operational(p, "impacts")?;
            Ok(Ranking::Impact)
        }
        Some("score") => {
            scope_operational(p, "the score")?;
            Ok(Ranking::Score)
        }
        Some(_) => Err(QueryError::bad_request(format!(
            "invalid metric '{}': expected footprint, impact or score",
            clip(p.get("metric").unwrap_or_default())
        ))),
    }
}

fn count(p: &QueryParams<'_>) -> Result<usize, QueryError> {
    let Some(v) = p.get("n") else {
        return Ok(DEFAULT_N);
    };
    match v.parse::<usize>() {
        Ok(n) if (1..=MAX_N).contains(&n) => Ok(n),
        Ok(n) => Err(QueryError::bad_request(format!(
            "n must be between 1 and {MAX_N}, got {n}"
        ))),
        // the framework's 422 list, like every wrongly typed parameter (docs/api.md §2)
        Err(_) => Err(QueryError::invalid(vec![FieldError::new(
            "int_parsing",
            "n",
            "Input should be a valid integer, unable to parse string as an integer",
            v,
        )])),
    }
}

/// `/best-window`: location (zones, countries or lat/lon), `duration`, optional `start`/`end`,
/// `metric`, `footprint_type`/`impact_type`, `scope`, `use_global`, `n`.
pub struct BestWindowEndpoint;

/// `/best-window` (its own window rules: `start` and `end` may each be omitted).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BestWindowParams {
    /// The job's length: whole minutes (`90`) or ISO 8601 (`PT2H`, `PT1H30M`, `P1D`; no years or
    /// months). Rounded **up** to whole 15-minute slots; the answer says so (`duration_minutes`,
    /// `duration_rounded_up`). Required (400); unreadable or 0 → 422; longer than the window → 400.
    #[param(required = true, example = "PT2H")]
    pub duration: Option<String>,
    /// First moment the job may start (same formats as the data endpoints). Unlike them it may be
    /// omitted alone: default the current 15-minute slot.
    #[param(example = "2024-06-15T00:00:00Z")]
    pub start: Option<String>,
    /// When the job must be done. Unlike the data endpoints it may be omitted alone: default the end
    /// of the data of the requested zones (the forecast's end), at most 31 days after `start`. An
    /// explicit window longer than 31 days → 400.
    #[param(example = "2024-06-16T00:00:00Z")]
    pub end: Option<String>,
    /// What the job is ranked by: `footprint` (default; lower is better), `impact` (water, lower is
    /// better) or `score` (higher is better).
    #[param(example = "footprint")]
    pub metric: Option<String>,
    /// With `metric=footprint`: `carbon` (default) or `water`.
    pub footprint_type: Option<schema::FootprintType>,
    /// With `metric=impact`: only `water`.
    pub impact_type: Option<schema::ImpactType>,
    /// `life-cycle` (default for footprints) or `operational` (the only scope of impact and score).
    pub scope: Option<schema::Scope>,
    /// `true` (default): global values; `false`: local.
    pub use_global: Option<bool>,
    /// How many placements, best first, over all requested zones together, never overlapping within a
    /// zone: 1 to 100, default 3 (else 400).
    #[param(example = 3)]
    pub n: Option<u32>,
}

impl EndpointDef for BestWindowEndpoint {
    type Request = BestWindowRequest;
    type Response = Vec<BestWindow>;
    const COSTLY: bool = true;
    const DOCS: &'static str = "When and where a job of fixed length runs best: the best `n` placements over the requested zones or countries (`zone`, a list, or `lat`/`lon`) and the forecast, best first.\n\nA job covers whole 15-minute slots and never spans a slot without data; its `value` is the mean of its slot values (a step series). `now_value` is the same job starting at the window's start; `saving_percent` is positive when the placement is better than starting now. `forecast` is true when any slot of the job is a forecast (no provider data). Unlike the data endpoints `start` and `end` may each be omitted (current slot; end of the data). Never cached (`no-cache`).";

    fn parameters() -> Vec<Parameter> {
        [
            params_of::<LocationParams>(),
            params_of::<BestWindowParams>(),
        ]
        .concat()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<BestWindowRequest, QueryError> {
        let (zones, _) = primary(p, ctx)?;
        let countries = countries(p, ctx)?;
        let seconds = match p.get("duration") {
            None => {
                return Err(QueryError::bad_request(
                    "duration is required (minutes or ISO 8601, e.g. PT2H)",
                ));
            }
            Some(d) => parse_api_duration(d).map_err(|msg| {
                QueryError::invalid(vec![FieldError::new("value_error", "duration", msg, d)])
            })?,
        };
        let slots = slots_for(seconds);
        let start = match p.get("start") {
            Some(s) => Slot::containing(timestamp("start", s)?),
            None => Slot::containing(ctx.now),
        };
        let end = match p.get("end") {
            Some(e) => {
                let e = timestamp("end", e)?;
                if e < start.start() {
                    return Err(QueryError::bad_request("start must not be after end"));
                }
                let end = if e == start.start() {
                    start
                } else {
                    SlotRange::from_window(start.start(), e).end
                };
                let days = (end.0 - start.0) as f64 / SLOTS_PER_DAY as f64;
                if days > MAX_WINDOW_DAYS as f64 {
                    return Err(QueryError::bad_request(format!(
                        "the window spans {days:.2} days; at most {MAX_WINDOW_DAYS} days are allowed"
                    )));
                }
                Some(end)
            }
            None => None,
        };
        let req = BestWindowRequest {
            zones,
            countries,
            start,
            end,
            slots,
            rounded_up: seconds % 900 != 0,
            metric: metric(p)?,
            coverage: coverage(p)?,
            n: count(p)?,
        };
        if let Some(e) = req.end.and_then(|end| req.window_error(end)) {
            return Err(e);
        }
        Ok(req)
    }

    fn answer(cache: &DataCache, req: &BestWindowRequest) -> Result<Vec<BestWindow>, QueryError> {
        best_window(cache, req)
    }
}
