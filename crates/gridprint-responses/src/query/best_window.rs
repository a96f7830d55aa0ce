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
    /// The job's length in seconds: the 400 of a missing duration, the 422 of an unreadable or
    /// zero one.
    pub fn seconds(&self) -> Result<u64, QueryError> {
        let d = self.duration.trim();
        if d.is_empty() {
            return Err(QueryError::bad_request(
                "duration is required (minutes or ISO 8601, e.g. PT2H)",
            ));
        }
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

    /// The rules of an explicit window: `end` not before the first slot, at most
    /// [`MAX_WINDOW_DAYS`] days.
    fn check_window(&self, now: OffsetDateTime) -> Result<(), QueryError> {
        let first = self.first_slot(now);
        if let (Some(e), Some(end)) = (self.end, self.end_slot(now)) {
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
        Ok(())
    }

    /// The job must fit an explicit window.
    fn check_fit(&self, now: OffsetDateTime, seconds: u64) -> Result<(), QueryError> {
        match self.end_slot(now) {
            Some(end) => match window_error(self.first_slot(now), end, slots_for(seconds)) {
                Some(e) => Err(e),
                None => Ok(()),
            },
            None => Ok(()),
        }
    }

    /// The rules a query read from pairs has passed, for one built as a value (the optimizer of
    /// the compatible routes): the duration, the window, `n`, then the job's fit, as
    /// [`WireQuery::from_pairs`] checks them.
    pub fn check(&self, now: OffsetDateTime) -> Result<(), QueryError> {
        let seconds = self.seconds()?;
        self.check_window(now)?;
        if let Some(n) = self.n {
            count(&n.to_string())?;
        }
        self.check_fit(now, seconds)
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
            Ok((
                Some(Metric::Impact),
                None,
                t,
                operational_scope(p, "impacts")?,
            ))
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

/// `n` as given: between 1 and [`MAX_N`] (400), a whole number (422).
fn count(v: &str) -> Result<u32, QueryError> {
    match v.parse::<usize>() {
        Ok(n) if (1..=MAX_N).contains(&n) => Ok(n as u32),
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
        let mut q = BestWindowQuery {
            location,
            duration: p.get("duration").unwrap_or_default().to_string(),
            ..BestWindowQuery::default()
        };
        let seconds = q.seconds()?;
        q.start = p.get("start").map(|s| timestamp("start", s)).transpose()?;
        q.end = p.get("end").map(|e| timestamp("end", e)).transpose()?;
        q.check_window(ctx.now())?;
        (q.metric, q.footprint_type, q.impact_type, q.scope) = metric(p)?;
        q.use_global = boolean(p, "use_global")?;
        q.n = p.get("n").map(count).transpose()?;
        q.check_fit(ctx.now(), seconds)?;
        Ok(q)
    }
}
