//! `/availability`: which time ranges a zone holds, per input (generation, load, each direction of
//! each border) and for its derived outputs, as runs of consecutive slots with the same state, plus
//! the forecast's end. Read from the same cache columns as the data endpoints, so a run covers
//! exactly the slots where `/generation`, `/load`, `/imports`/`/exports` or the derived endpoints
//! answer a point (finite, non-negative values).

use super::common::zones_of;
use super::{EndpointDef, RequestedWindow};
use crate::cache::{DataCache, InputSeries};
use crate::error::QueryError;
use crate::params::{ParseContext, ZoneSelection, selection};
use gridprint_core::quality::{DataState, ZoneStatus};
use gridprint_core::slot::format_timestamp;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::{ZoneCode, ZoneIdx};
use gridprint_responses::AvailabilityResult;
use gridprint_responses::query::AvailabilityQuery;
use gridprint_responses::{InputAvailability, InputRun, OutputRun};
use std::collections::BTreeMap;
use time::OffsetDateTime;

/// `/availability` request: the zones (all without a location) and an optional window (without
/// one: everything held).
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct AvailabilityRequest {
    pub zones: ZoneSelection,
    pub range: Option<SlotRange>,
    /// `start` and `end` as given.
    pub requested: Option<(OffsetDateTime, OffsetDateTime)>,
}

impl RequestedWindow for AvailabilityRequest {
    fn requested_window(&self) -> Option<(OffsetDateTime, OffsetDateTime)> {
        self.requested
    }
}

/// Merges `(slot, state)` pairs in time order into runs of consecutive slots with the same state.
fn runs<S: Copy + PartialEq, R>(
    slots: impl IntoIterator<Item = (Slot, S)>,
    run: impl Fn(String, String, S) -> R,
) -> Vec<R> {
    let mut out = Vec::new();
    let mut open: Option<(Slot, Slot, S)> = None;
    let close = |(a, b, s): (Slot, Slot, S)| run(stamp(a), stamp(b), s);
    for (slot, state) in slots {
        open = match open {
            Some((a, b, s)) if b == slot && s == state => Some((a, slot.offset(1), s)),
            Some(o) => {
                out.push(close(o));
                Some((slot, slot.offset(1), state))
            }
            None => Some((slot, slot.offset(1), state)),
        };
    }
    out.extend(open.map(close));
    out
}

fn stamp(s: Slot) -> String {
    format_timestamp(s.start())
}

/// The slots of `range` (everything without one) where the raw series has a served point.
fn for_each_served(s: &InputSeries, range: Option<SlotRange>, mut f: impl FnMut(Slot, DataState)) {
    let Some(range) = range.or_else(|| held(s.days())) else {
        return;
    };
    s.for_each_point(range, |slot, v, st, _| {
        if v.is_finite() && v >= 0.0 {
            f(slot, st)
        }
    });
}

/// The whole days of `days` (ascending) as a range.
fn held(days: &[i64]) -> Option<SlotRange> {
    Some(SlotRange::new(
        Slot::first_of_day(*days.first()?),
        Slot::first_of_day(days.last()? + 1),
    ))
}

/// The availability of one zone; `None` when it holds nothing in the range.
fn zone_availability(
    cache: &DataCache,
    z: ZoneIdx,
    code: ZoneCode,
    range: Option<SlotRange>,
) -> Option<AvailabilityResult> {
    let inputs = cache.inputs(z);
    let mut forecast_end: Option<Slot> = None;
    let mut note = |slot: Slot, st: DataState| {
        if st == DataState::Missing {
            forecast_end = forecast_end.max(Some(slot.offset(1)));
        }
    };
    let input_runs = |slots: BTreeMap<Slot, DataState>| {
        runs(slots, |start, end, state| InputRun { start, end, state })
    };
    let mut out: Vec<InputAvailability> = Vec::new();

    // Generation: a slot is held when any production type has a point; its state is the worst.
    let mut generation: BTreeMap<Slot, DataState> = BTreeMap::new();
    for (_, id) in &inputs.generation {
        for_each_served(cache.input_series(*id), range, |slot, st| {
            note(slot, st);
            let e = generation.entry(slot).or_insert(st);
            *e = (*e).max(st);
        });
    }
    let mut push = |input: &'static str, from, to, slots: BTreeMap<Slot, DataState>| {
        if !slots.is_empty() {
            out.push(InputAvailability {
                input,
                from,
                to,
                runs: input_runs(slots),
            });
        }
    };
    push("generation", None, None, generation);
    if let Some(id) = inputs.load {
        let mut load = BTreeMap::new();
        for_each_served(cache.input_series(id), range, |slot, st| {
            note(slot, st);
            load.insert(slot, st);
        });
        push("load", None, None, load);
    }
    let mut flows: Vec<(ZoneCode, ZoneCode, u32)> = inputs
        .imports
        .iter()
        .map(|(p, id)| (p.clone(), code.clone(), *id))
        .chain(
            inputs
                .exports
                .iter()
                .map(|(p, id)| (code.clone(), p.clone(), *id)),
        )
        .collect();
    flows.sort();
    for (from, to, id) in flows {
        let mut slots = BTreeMap::new();
        for_each_served(cache.input_series(id), range, |slot, st| {
            note(slot, st);
            slots.insert(slot, st);
        });
        push("flow", Some(from), Some(to), slots);
    }

    // Outputs: every slot with computed flags.
    let derived = cache.derived(z);
    let mut outputs: BTreeMap<Slot, ZoneStatus> = BTreeMap::new();
    for (pos, &day) in derived.days().iter().enumerate() {
        for (i, f) in derived.flags(pos).iter().enumerate() {
            let slot = Slot::first_of_day(day).offset(i as i64);
            if f.present() && range.is_none_or(|r| r.contains(slot)) {
                outputs.insert(slot, f.status());
            }
        }
    }
    let outputs = runs(outputs, |start, end, state| OutputRun { start, end, state });
    (!out.is_empty() || !outputs.is_empty()).then(|| AvailabilityResult {
        zone: code,
        inputs: out,
        outputs,
        forecast_end: forecast_end.map(stamp),
    })
}

/// `/availability`: one item per selected zone that holds anything in the range.
pub fn availability(cache: &DataCache, req: &AvailabilityRequest) -> Vec<AvailabilityResult> {
    zones_of(cache, &req.zones)
        .into_iter()
        .filter_map(|(z, code)| zone_availability(cache, z, code, req.range))
        .collect()
}

/// `/availability`: optional location, optional `start`/`end`.
pub struct AvailabilityEndpoint;

impl EndpointDef for AvailabilityEndpoint {
    type Query = AvailabilityQuery;
    type Request = AvailabilityRequest;
    type Response = Vec<AvailabilityResult>;
    const COSTLY: bool = true;
    const DOCS: &'static str = "Which zones and time ranges hold data.\n\nPer zone, per input (generation, load, the flow on each direction of each border) and for the derived outputs, the ranges held as runs of consecutive 15-minute slots with the same `data_state` (inputs) or `zone_status` (outputs), plus the end of the forecast. Without `start`/`end`: everything held.";

    fn request(
        q: AvailabilityQuery,
        ctx: &ParseContext<'_>,
    ) -> Result<AvailabilityRequest, QueryError> {
        let requested = q.window.map(|p| (p.start, p.end));
        Ok(AvailabilityRequest {
            zones: selection(&q.location, ctx)?,
            range: requested.map(|(s, e)| SlotRange::from_window(s, e)),
            requested,
        })
    }

    fn answer(
        cache: &DataCache,
        req: &AvailabilityRequest,
    ) -> Result<Vec<AvailabilityResult>, QueryError> {
        Ok(availability(cache, req))
    }
}
