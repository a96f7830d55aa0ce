//! The query of `/best-window` and its rules: unlike the data endpoints, `start` and `end` may each
//! be omitted (`start`: the current slot; `end`: the end of the data, found by the server), an
//! explicit window is at most [`MAX_WINDOW_DAYS`] days, the duration is rounded up to whole slots
//! and must fit the window, and `n` is between 1 and [`MAX_N`]. The search itself is
//! `gridprint_core::best_window`; the server's answer is gridprint-query's `endpoints/best_window`.

use super::parts::{ImpactType, Location, Metric, PairWriter};
use super::read::{
    MAX_DAYS_SEVERAL_ZONES, boolean, clip, footprint_type, impact_type, location,
    operational_scope, scope, timestamp,
};
use super::{FieldError, QueryContext, QueryError, QueryParams, WireQuery};
use crate::schema;
use gridprint_core::best_window::{parse_api_duration, slots_for};
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange, format_timestamp};
use time::OffsetDateTime;
use utoipa::IntoParams;
use utoipa::openapi::path::Parameter;

/// Longest window, in days (the limit for several zones of the data endpoints).
pub const MAX_WINDOW_DAYS: i64 = MAX_DAYS_SEVERAL_ZONES;
/// Most placements one answer holds.
pub const MAX_N: usize = 100;
/// Placements when `n` is not given.
pub const DEFAULT_N: usize = 3;

/// `/best-window`: the best placements of a job over zones and the forecast, best first.
#[derive(Debug, Clone, Default, PartialEq, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BestWindowQuery {
    #[param(ignore)]
    pub location: Option<Location>,
    /// The job's length: whole minutes (`90`) or ISO 8601 (`PT2H`, `PT1H30M`, `P1D`; no years or
    /// months). Rounded **up** to whole 15-minute slots; the answer says so (`duration_minutes`,
    /// `duration_rounded_up`). Required (400); unreadable or 0 → 422; longer than the window → 400.
    #[param(value_type = Option<String>, required = true, example = "PT2H")]
    pub duration: String,
    /// First moment the job may start (same formats as the data endpoints). Unlike them it may be
    /// omitted alone: default the current 15-minute slot.
    #[param(value_type = Option<String>, example = "2024-06-15T00:00:00Z")]
    pub start: Option<OffsetDateTime>,
    /// When the job must be done. Unlike the data endpoints it may be omitted alone: default the end
    /// of the data of the requested zones (the forecast's end), at most 31 days after `start`. An
    /// explicit window longer than 31 days → 400.
    #[param(value_type = Option<String>, example = "2024-06-16T00:00:00Z")]
    pub end: Option<OffsetDateTime>,
    /// What the job is ranked by: `footprint` (default; lower is better), `impact` (water, lower is
    /// better) or `score` (higher is better).
    #[param(value_type = Option<String>, example = "footprint")]
    pub metric: Option<Metric>,
    /// With `metric=footprint`: `carbon` (default) or `water`.
    #[param(value_type = Option<schema::FootprintType>)]
    pub footprint_type: Option<FootprintType>,
    /// With `metric=impact`: only `water`.
    #[param(value_type = Option<schema::ImpactType>)]
    pub impact_type: Option<ImpactType>,
    /// `life-cycle` (default for footprints) or `operational` (the only scope of impact and score).
    #[param(value_type = Option<schema::Scope>)]
    pub scope: Option<Scope>,
    /// `true` (default): global values; `false`: local.
    pub use_global: Option<bool>,
    /// How many placements, best first, over all requested zones together, never overlapping within a
    /// zone: 1 to 100, default 3 (else 400).
    #[param(example = 3)]
    pub n: Option<u32>,
}

impl BestWindowQuery {
    /// The job's length in seconds, or the 422 of an unreadable or zero duration.
    pub fn seconds(&self) -> Result<u64, QueryError> {
        let d = self.duration.as_str();
        parse_api_duration(d).map_err(|msg| {
            QueryError::invalid(vec![FieldError::new("value_error", "duration", msg, d)])
        })
    }

    /// The first slot of the window: `start`'s, else the current one.
    pub fn first_slot(&self, now: OffsetDateTime) -> Slot {
        Slot::containing(self.start.unwrap_or(now))
    }

    /// The end of the window (exclusive) when `end` is given: the end of `end`'s slot, or the
    /// first slot itself when `end` is its start.
    pub fn end_slot(&self, now: OffsetDateTime) -> Option<Slot> {
        let first = self.first_slot(now);
        self.end.map(|e| {
            if e == first.start() {
                first
            } else {
                SlotRange::from_window(first.start(), e).end
            }
        })
    }
}

/// The 400 of a job of `slots` slots longer than the window `[first, end)`, if it is.
pub fn window_error(first: Slot, end: Slot, slots: usize) -> Option<QueryError> {
    let len = (end.0 - first.0).max(0) as usize;
    (slots > len).then(|| {
        QueryError::bad_request(format!(
            "duration of {} minutes ({} slots) is longer than the window from {} to {} ({} minutes)",
            slots * 15,
            slots,
            format_timestamp(first.start()),
            format_timestamp(end.start()),
            len * 15
        ))
    })
}

/// `metric` with the choices it reads: `footprint_type` and `scope` for a footprint, `impact_type`
/// and `scope` for the impact, `scope` for the score (the others are not read).
type MetricChoice = (
    Option<Metric>,
    Option<FootprintType>,
    Option<ImpactType>,
    Option<Scope>,
);

fn metric(p: &QueryParams<'_>) -> Result<MetricChoice, QueryError> {
    let name = p.get("metric").map(str::to_ascii_lowercase);
    match name.as_deref() {
        None | Some("footprint") => {
            let t = footprint_type(p, "footprint_type")?;
            let m = name.is_some().then_some(Metric::Footprint);
            Ok((m, t, None, scope(p)?))
        }
        Some("impact") => {
            let t = impact_type(p)?;
            Ok((Some(Metric::Impact), None, t, operational_scope(p, "impacts")?))
        }
        Some("score") => Ok((
            Some(Metric::Score),
            None,
            None,
            operational_scope(p, "the score")?,
        )),
        Some(_) => Err(QueryError::bad_request(format!(
            "invalid metric '{}': expected footprint, impact or score",
            clip(p.get("metric").unwrap_or_default())
        ))),
    }
}

fn count(p: &QueryParams<'_>) -> Result<Option<u32>, QueryError> {
    let Some(v) = p.get("n") else {
        return Ok(None);
    };
    match v.parse::<usize>() {
        Ok(n) if (1..=MAX_N).contains(&n) => Ok(Some(n as u32)),
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

impl WireQuery for BestWindowQuery {
    fn parameters() -> Vec<Parameter> {
        [Location::parameters(""), Self::into_params(|| None)].concat()
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        PairWriter::default()
            .location("", &self.location)
            .text("duration", Some(self.duration.as_str()))
            .time("start", self.start)
            .time("end", self.end)
            .text("metric", self.metric.map(Metric::as_str))
            .text(
                "footprint_type",
                self.footprint_type.map(FootprintType::as_str),
            )
            .text("impact_type", self.impact_type.map(ImpactType::as_str))
            .text("scope", self.scope.map(Scope::as_str))
            .flag("use_global", self.use_global)
            .text("n", self.n.map(|v| v.to_string()))
            .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let location = location(p, ctx, "")?;
        let Some(duration) = p.get("duration") else {
            return Err(QueryError::bad_request(
                "duration is required (minutes or ISO 8601, e.g. PT2H)",
            ));
        };
        let mut q = BestWindowQuery {
            location,
            duration: duration.to_string(),
            ..BestWindowQuery::default()
        };
        let seconds = q.seconds()?;
        q.start = p.get("start").map(|s| timestamp("start", s)).transpose()?;
        if let Some(e) = p.get("end") {
            q.end = Some(timestamp("end", e)?);
        }
        let (now, first) = (ctx.now(), q.first_slot(ctx.now()));
        if let (Some(e), Some(end)) = (q.end, q.end_slot(now)) {
            if e < first.start() {
                return Err(QueryError::bad_request("start must not be after end"));
            }
            let days = (end.0 - first.0) as f64 / SLOTS_PER_DAY as f64;
            if days > MAX_WINDOW_DAYS as f64 {
                return Err(QueryError::bad_request(format!(
                    "the window spans {days:.2} days; at most {MAX_WINDOW_DAYS} days are allowed"
                )));
            }
        }
        (q.metric, q.footprint_type, q.impact_type, q.scope) = metric(p)?;
        q.use_global = boolean(p, "use_global")?;
        q.n = count(p)?;
        if let Some(e) = q
            .end_slot(now)
            .and_then(|end| window_error(first, end, slots_for(seconds)))
        {
            return Err(e);
        }
        Ok(q)
    }
}
