//! `/best-window`: when and where a job of fixed length runs best, over several zones or countries
//! and the forecast (docs/methodology.md §7; the search itself is `gridprint_core::best_window`).
//!
//! The query and its rules (optional `start` and `end`, at most [`MAX_WINDOW_DAYS`] days, `n` up to
//! [`MAX_N`]) are gridprint-responses' `query::best_window`. Here: without `end`, the window ends
//! where the data of the requested zones ends (the forecast's end), at most [`MAX_WINDOW_DAYS`]
//! days after `start`; the duration is rounded up to whole slots (`duration_minutes`,
//! `duration_rounded_up` in the answer); a job longer than the window is a 400.

use super::common::{WATER_IMPACT_UNIT, sources};
use super::derived::coverage;
use super::{EndpointDef, RequestedWindow};
use crate::cache::DataCache;
use crate::cache::DerivedZone;
use crate::country::{Source, ValueSource, countries};
use crate::error::QueryError;
use crate::params::{Country, ParseContext, ZoneSelection, selection};
use gridprint_core::best_window::{
    Goal, SlotPoint, best_windows, placement_at, saving_percent, slots_for,
};
use gridprint_core::derived::{Coverage, SeriesKey};
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::FootprintType;
use gridprint_core::reference::Scope;
use gridprint_core::slot::SLOTS_PER_DAY;
use gridprint_core::slot::format_timestamp;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use gridprint_responses::BestWindow;
use gridprint_responses::query::best_window::window_error;
pub use gridprint_responses::query::best_window::{DEFAULT_N, MAX_N, MAX_WINDOW_DAYS};
use gridprint_responses::query::{BestWindowQuery, Metric};
use time::OffsetDateTime;
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
        window_error(self.start, end, self.slots)
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

/// `/best-window`: location (zones, countries or lat/lon), `duration`, optional `start`/`end`,
/// `metric`, `footprint_type`/`impact_type`, `scope`, `use_global`, `n`.
pub struct BestWindowEndpoint;

impl EndpointDef for BestWindowEndpoint {
    type Query = BestWindowQuery;
    type Request = BestWindowRequest;
    type Response = Vec<BestWindow>;
    const COSTLY: bool = true;
    const DOCS: &'static str = "When and where a job of fixed length runs best: the best `n` placements over the requested zones or countries (`zone`, a list, or `lat`/`lon`) and the forecast, best first.\n\nA job covers whole 15-minute slots and never spans a slot without data; its `value` is the mean of its slot values (a step series). `now_value` is the same job starting at the window's start; `saving_percent` is positive when the placement is better than starting now. `forecast` is true when any slot of the job is a forecast (no provider data). Unlike the data endpoints `start` and `end` may each be omitted (current slot; end of the data). Never cached (`no-cache`).";

    fn request(
        q: BestWindowQuery,
        ctx: &ParseContext<'_>,
    ) -> Result<BestWindowRequest, QueryError> {
        let seconds = q.seconds()?;
        let metric = match q.metric {
            None | Some(Metric::Footprint) => Ranking::Footprint(
                q.footprint_type.unwrap_or(FootprintType::Carbon),
                q.scope.unwrap_or(Scope::LifeCycle),
            ),
            Some(Metric::Impact) => Ranking::Impact,
            Some(Metric::Score) => Ranking::Score,
        };
        Ok(BestWindowRequest {
            zones: selection(&q.location, ctx)?,
            countries: countries(&q.location, ctx),
            start: q.first_slot(ctx.now),
            end: q.end_slot(ctx.now),
            slots: slots_for(seconds),
            rounded_up: seconds % 900 != 0,
            metric,
            coverage: coverage(q.use_global),
            n: q.n.map_or(DEFAULT_N, |n| n as usize),
        })
    }

    fn answer(cache: &DataCache, req: &BestWindowRequest) -> Result<Vec<BestWindow>, QueryError> {
        best_window(cache, req)
    }
}
