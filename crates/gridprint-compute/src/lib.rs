//! gridprint-compute: turns stored inputs into published derived outputs.
//!
//! For a range of slots it loads the inputs of all zones, gathers them per slot, runs the
//! flow-tracing engine on every slot (in parallel), decides each zone's `zone_status` and `valid`
//! flag (docs/api.md §6), and stages the resulting [`DerivedDay`]s in batches before publishing
//! them all at once, so a crash leaves the previous outputs intact. Slots that were already
//! computed and are older than `floor15(now) − 4 h` are frozen: they are kept as stored and never
//! recomputed, except by [`Mode::RECOMPUTE_FINAL`] (`gridprint compute --force`); settled days
//! (final, inputs unchanged since: `gridprint_pipeline::compute`) are skipped whole.
//!
//! An absent input is never a silent zero: where a border inside the zone set has no flow in a
//! slot computed now (no provider value, no estimate) and a zone on it has inputs (generation, or
//! recorded flows only), the flow is taken as 0 MW and stored as an estimated input point
//! ([`DATASOURCE_ASSUMED_ZERO`]), so both zones are `preview` and `/v1/imports`/`/v1/exports` show
//! the estimated blocks. The engine ignores 0 MW flows: with full
//! data the numbers are the same as without this rule.
//! [`Mode::DAYS_WITH_INPUTS`] covers only the days of a range that hold stored inputs (what
//! `gridprint compute` does without a range). Orchestration (imports, the worker) lives in
//! `gridprint-pipeline`, which calls this crate. `synthetic` (feature `testing`): generated inputs
//! for benchmarks and tests.

pub mod input_days;
#[cfg(feature = "testing")]
pub mod synthetic;
pub mod tail;

use gridprint_core::derived::{DayBuilder, DerivedDay, SlotFlags, write_slot};
use gridprint_core::engine::trace_slot;
pub use gridprint_core::inputs::DATASOURCE_ASSUMED_ZERO;
use gridprint_core::inputs::{FlowInput, InputKey, InputPoint, SlotInputs};
use gridprint_core::production::N_TYPES;
use gridprint_core::quality::{DataState, ZoneStatus, freeze_boundary, is_frozen, valid_flag};
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_core::zone::Provider;
use gridprint_store::{Store, StoreError, StoredInput};
use input_days::InputDays;
use rayon::iter::{IntoParallelRefIterator, ParallelIterator};
use std::collections::{HashMap, HashSet};
use time::OffsetDateTime;

/// Days computed and staged per batch (bounds memory on long ranges).
pub const DAYS_PER_BATCH: i64 = 7;

/// What a compute run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ComputeSummary {
    /// Slots in the requested range.
    pub slots: usize,
    /// Zone-slots computed now.
    pub computed: usize,
    /// Zone-slots kept because they were frozen.
    pub frozen_kept: usize,
    /// Zone-days published.
    pub days_published: usize,
    /// UTC days skipped because they are settled: final, and their inputs unchanged since their
    /// outputs were published ([`gridprint_store::DayRevision::is_settled`]).
    pub days_settled: usize,
}

/// A compute failure.
#[derive(Debug, thiserror::Error)]
pub enum ComputeError {
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Builds the engine inputs of every slot in `range` from stored points. Points of zones outside the
/// reference zone set are ignored. Generation of a zone in a slot gets the worst state of its points.
/// Where a zone's own provider (the zone file's `provider`) has generation in a slot, another
/// provider's generation of that zone and slot is ignored.
pub fn gather_slot_inputs(
    reference: &ReferenceData,
    range: SlotRange,
    points: &[&StoredInput],
) -> Vec<SlotInputs> {
    let n = reference.zones.len();
    let mut slots: Vec<SlotInputs> = range.iter().map(|s| SlotInputs::empty(s, n)).collect();
    // `[slot offset * zones + zone]`: whether the zone's own provider has a generation point in
    // that slot (then another provider's generation there gives way: TR's EPIAS data wins over
    // ENTSO-E's, GB's Elexon data over anything imported for GB).
    let mut own = vec![false; range.len() * n];
    for p in points.iter().map(|sp| &sp.point) {
        if let Some((k, i)) = generation_cell(reference, range, p)
            && reference.zones.get(i).provider.as_str() == p.datasource
        {
            own[k * n + i] = true;
        }
    }
    // foldhash: a slot's flows are keyed by zone pairs, a few hundred inserts per slot.
    let mut flows: Vec<HashMap<(usize, usize), FlowInput, foldhash::fast::RandomState>> =
        vec![HashMap::default(); slots.len()];
    for sp in points {
        let p = &sp.point;
        if !range.contains(p.slot) || !p.mw.is_finite() || p.mw < 0.0 {
            continue;
        }
        let k = (p.slot.0 - range.start.0) as usize;
        match &p.key {
            InputKey::Generation {
                production_type, ..
            } => {
                let Some((_, i)) = generation_cell(reference, range, p) else {
                    continue;
                };
                if own[k * n + i] && is_other_provider(reference, i, &p.datasource) {
                    continue;
                }
                let s = &mut slots[k];
                let g = s.generation[i].get_or_insert([0.0; N_TYPES]);
                g[production_type.index()] += p.mw;
                let st = s.generation_state[i].get_or_insert(p.state);
                *st = (*st).max(p.state);
            }
            InputKey::Load { .. } => {}
            InputKey::Flow { from, to } => {
                let (Some(i), Some(j)) =
                    (reference.zones.index_of(from), reference.zones.index_of(to))
                else {
                    continue;
                };
                if i == j {
                    continue;
                }
                flows[k].insert(
                    (i, j),
                    FlowInput {
                        from: i,
                        to: j,
                        mw: p.mw,
                        state: p.state,
                    },
                );
            }
        }
    }
    for (s, f) in slots.iter_mut().zip(flows) {
        let mut f: Vec<_> = f.into_values().collect();
        f.sort_by_key(|x| (x.from, x.to));
        s.flows = f;
    }
    slots
}

/// Provider datasources (`ENTSO-E`, `Elexon`, `EPIAS`).
const PROVIDERS: [Provider; 3] = [Provider::Entsoe, Provider::Elexon, Provider::Epias];

/// Whether `datasource` is a provider other than zone `i`'s own.
fn is_other_provider(reference: &ReferenceData, i: usize, datasource: &str) -> bool {
    let own = reference.zones.get(i).provider;
    PROVIDERS
        .iter()
        .any(|p| *p != own && p.as_str() == datasource)
}

/// `(slot offset within range, zone index)` of a generation point of a reference zone inside
/// `range`; `None` for any other point.
fn generation_cell(
    reference: &ReferenceData,
    range: SlotRange,
    p: &InputPoint,
) -> Option<(usize, usize)> {
    let InputKey::Generation { zone, .. } = &p.key else {
        return None;
    };
    if !range.contains(p.slot) {
        return None;
    }
    let i = reference.zones.index_of(zone)?;
    Some(((p.slot.0 - range.start.0) as usize, i))
}

/// Flags of every zone in one slot, from its inputs and the engine's repairs. `None` for zones the
/// engine gave no result (no data) or that were only modelled as external sources.
pub fn slot_flags(
    inputs: &SlotInputs,
    result: &gridprint_core::engine::SlotResult,
    now: OffsetDateTime,
) -> Vec<Option<SlotFlags>> {
    let n = inputs.generation.len();
    let mut border_states: Vec<Vec<DataState>> = vec![Vec::new(); n];
    for f in &inputs.flows {
        border_states[f.from].push(f.state);
        border_states[f.to].push(f.state);
    }
    let frozen = is_frozen(inputs.slot, now);
    (0..n)
        .map(|i| {
            let zr = result.zones[i].as_ref()?;
            if zr.external || inputs.generation[i].is_none() {
                return None;
            }
            let status = ZoneStatus::from_inputs(
                inputs.generation_state[i],
                border_states[i].iter().copied(),
                zr.repaired,
            );
            Some(SlotFlags::new(
                status,
                valid_flag(inputs.slot, status, now),
                frozen,
            ))
        })
        .collect()
}

/// The stored point of a border flow taken as 0 MW because nothing reported or estimated it.
fn assumed_zero(reference: &ReferenceData, from: usize, to: usize, slot: Slot) -> InputPoint {
    InputPoint {
        key: InputKey::Flow {
            from: reference.zones.code(from).clone(),
            to: reference.zones.code(to).clone(),
        },
        slot,
        mw: 0.0,
        state: DataState::Estimated,
        datasource: DATASOURCE_ASSUMED_ZERO.to_string(),
    }
}

/// Computes and publishes every slot of `range` (widened to whole UTC days for storage; slots outside
/// `range` keep their stored values). `progress(done_days, total_days)` is called after each batch.
pub fn compute_range(
    store: &dyn Store,
    reference: &ReferenceData,
    range: SlotRange,
    now: OffsetDateTime,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ComputeSummary, ComputeError> {
    compute_ranges(store, reference, &[range], now, progress)
}

/// Like [`compute_range`] for several ranges, published together in one transaction.
pub fn compute_ranges(
    store: &dyn Store,
    reference: &ReferenceData,
    ranges: &[SlotRange],
    now: OffsetDateTime,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ComputeSummary, ComputeError> {
    compute_publish(
        &mut InputDays::new(store),
        reference,
        ranges,
        Mode::KEEP_FINAL,
        now,
        progress,
    )
}

/// Which days of a range a compute covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Days {
    /// Every day.
    All,
    /// Only the days that hold stored inputs.
    WithInputs,
}

/// What happens to final slots that were already computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frozen {
    /// Kept as stored.
    Keep,
    /// Recomputed (`--force`).
    Recompute,
}

/// How a compute run treats days and final slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    pub days: Days,
    pub frozen: Frozen,
}

impl Mode {
    /// Every day of the ranges; final slots already computed are kept (the worker, `compute`).
    pub const KEEP_FINAL: Mode = Mode {
        days: Days::All,
        frozen: Frozen::Keep,
    };
    /// Every day, final slots recomputed too, from the stored inputs and under today's rules; they
    /// stay final. The worker never does this; `gridprint compute --force` does (after an upgrade
    /// or a data correction).
    pub const RECOMPUTE_FINAL: Mode = Mode {
        days: Days::All,
        frozen: Frozen::Recompute,
    };
    /// Only the UTC days of the ranges that hold at least one stored input; the days between them
    /// are left as stored. This is what computing "everything stored" means: a day in 2017 and a
    /// few in 2024 cost a few days, not seven years. `summary.slots` counts the slots of the
    /// computed days.
    pub const DAYS_WITH_INPUTS: Mode = Mode {
        days: Days::WithInputs,
        frozen: Frozen::Keep,
    };
}

/// Computes the ranges as `mode` says and publishes them together in one transaction (see
/// [`compute_range`]), reading the inputs through `inputs`, so days an earlier step of the run
/// read (the gap estimators) are not read again.
pub fn compute_publish(
    inputs: &mut InputDays,
    reference: &ReferenceData,
    ranges: &[SlotRange],
    mode: Mode,
    now: OffsetDateTime,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ComputeSummary, ComputeError> {
    let store = inputs.store();
    // Settled days have nothing to do unless final slots are recomputed.
    let (unsettled, days_settled) = match mode.frozen {
        Frozen::Keep => without_settled_days(store, ranges)?,
        Frozen::Recompute => (ranges.to_vec(), 0),
    };
    let ranges = &unsettled[..];
    // Held until the run commits or discards; clears what killed runs left staged.
    let _claim = store.begin_staging()?;
    let run = gridprint_store::new_run_id();
    let total: u64 = ranges
        .iter()
        .map(|r| (r.days().end - r.days().start).max(0) as u64)
        .sum();
    let mut done = 0u64;
    let mut result: Result<ComputeSummary, ComputeError> = Ok(ComputeSummary::default());
    // The zone-days from the freeze boundary's day on are held back and staged last, once every
    // zone's tail has one pair of flags (tail.rs).
    let mut held: HashMap<(i64, usize), DerivedDay> = HashMap::new();
    for r in ranges {
        let base = done;
        match compute_staged(
            inputs,
            reference,
            *r,
            mode,
            now,
            run,
            &mut held,
            &mut |d, _| progress(base + d, total),
        ) {
            Ok(s) => {
                done += (r.days().end - r.days().start).max(0) as u64;
                if let Ok(acc) = &mut result {
                    acc.slots += s.slots;
                    acc.computed += s.computed;
                    acc.frozen_kept += s.frozen_kept;
                }
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    if result.is_ok()
        && !held.is_empty()
        && let Err(e) = stage_tails(store, run, held, now)
    {
        result = Err(e);
    }
    match result {
        Ok(mut summary) => {
            summary.days_published = store.commit_staged(run)?;
            summary.days_settled = days_settled;
            Ok(summary)
        }
        Err(e) => {
            let _ = store.discard_staged(run);
            Err(e)
        }
    }
}

/// `ranges` without their settled UTC days ([`gridprint_store::DayRevision::is_settled`]) that a
/// range covers whole, and the number of days left out.
fn without_settled_days(
    store: &dyn Store,
    ranges: &[SlotRange],
) -> Result<(Vec<SlotRange>, usize), ComputeError> {
    let mut out = Vec::new();
    let mut left_out = 0;
    for r in ranges {
        let settled: HashSet<i64> = store
            .day_revisions(r.days())?
            .into_iter()
            .filter(|d| d.is_settled())
            .map(|d| d.day)
            .collect();
        let (parts, n) = r.without_whole_days(|day| settled.contains(&day));
        out.extend(parts);
        left_out += n;
    }
    Ok((out, left_out))
}

/// How many days past the last held day [`stage_tails`] looks for stored days of a zone's tail
/// (the forecast of an earlier run may reach further than this one's range).
const TAIL_LOOKAHEAD_DAYS: i64 = 16;

/// Stages the held recent zone-days after giving every zone's tail one pair of flags, with the
/// stored recent days (not computed now) whose flags that changes.
fn stage_tails(
    store: &dyn Store,
    run: i64,
    held: HashMap<(i64, usize), DerivedDay>,
    now: OffsetDateTime,
) -> Result<(), ComputeError> {
    let from = freeze_boundary(now).day();
    let to = held.keys().map(|k| k.0).max().unwrap_or(from) + TAIL_LOOKAHEAD_DAYS;
    let mut days: Vec<DerivedDay> = held.into_values().collect();
    let mut stored: HashMap<(i64, gridprint_core::zone::ZoneCode), DerivedDay> = store
        .derived_days(from..to)?
        .into_iter()
        .map(|d| ((d.day, d.zone.clone()), d))
        .collect();
    let computed: HashSet<(i64, gridprint_core::zone::ZoneCode)> =
        days.iter().map(|d| (d.day, d.zone.clone())).collect();
    days.extend(
        stored
            .iter()
            .filter(|(k, _)| !computed.contains(k))
            .map(|(_, d)| d.clone()),
    );
    tail::flag_tails(&mut days, now);
    // Staged: every day computed now (its inputs may have changed even where its answers did not:
    // the serving cache reloads a day's inputs only when the day is published), and each stored
    // day whose tail flags changed.
    let staged: Vec<DerivedDay> = days
        .into_iter()
        .filter(|d| {
            let key = (d.day, d.zone.clone());
            computed.contains(&key) || stored.remove(&key).as_ref() != Some(d)
        })
        .collect();
    store.stage_derived_days(run, &staged)?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn compute_staged(
    stored_inputs: &mut InputDays,
    reference: &ReferenceData,
    range: SlotRange,
    mode: Mode,
    now: OffsetDateTime,
    run: i64,
    held: &mut HashMap<(i64, usize), DerivedDay>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ComputeSummary, ComputeError> {
    let store = stored_inputs.store();
    let hold_from = freeze_boundary(now).day();
    let which = mode.days;
    let n = reference.zones.len();
    let days = range.days();
    let total = (days.end - days.start).max(0) as u64;
    let mut summary = ComputeSummary {
        slots: if which == Days::All { range.len() } else { 0 },
        ..Default::default()
    };
    let mut day = days.start;
    while day < days.end {
        let batch_end = (day + DAYS_PER_BATCH).min(days.end);
        let batch = SlotRange::new(Slot::first_of_day(day), Slot::first_of_day(batch_end));
        let todo = SlotRange::new(batch.start.max(range.start), batch.end.min(range.end));
        // Earlier batches are done with: their days are not kept.
        stored_inputs.forget_before(day);
        let points = stored_inputs.in_range(todo)?;
        // The days of the batch that are computed (and staged): all, or those holding inputs.
        // Points come by slot, so a day's points follow each other: one entry per day (a set of
        // every point's day cost a hash per point, 8 % of a publication).
        let mut with_inputs: Vec<i64> = Vec::new();
        for p in &points {
            if with_inputs.last() != Some(&p.point.slot.day()) {
                with_inputs.push(p.point.slot.day());
            }
        }
        let wanted = |d: i64| which == Days::All || with_inputs.contains(&d);
        if with_inputs.is_empty() && which == Days::WithInputs {
            progress((batch_end - days.start) as u64, total);
            day = batch_end;
            continue;
        }
        let existing: HashMap<(i64, usize), DerivedDay> = store
            .derived_days(day..batch_end)?
            .into_iter()
            .filter_map(|d| reference.zones.index_of(&d.zone).map(|i| ((d.day, i), d)))
            .collect();
        let mut inputs = gather_slot_inputs(reference, todo, &points);
        if which == Days::WithInputs {
            inputs.retain(|si| wanted(si.slot.day()));
            summary.slots += inputs.len();
        }
        // Start every zone-day from what is stored, then overwrite the slots computed now; frozen
        // slots that were already computed are kept as stored.
        let mut out: Vec<Vec<DayBuilder>> = (day..batch_end)
            .map(|d| {
                (0..n)
                    .map(|i| {
                        DayBuilder::from_day(
                            reference,
                            existing.get(&(d, i)),
                            reference.zones.code(i).clone(),
                            d,
                        )
                    })
                    .collect()
            })
            .collect();
        // Final slots already computed are kept as stored (unless forced).
        let kept = |zone_days: &[DayBuilder], idx: usize| -> Vec<bool> {
            zone_days
                .iter()
                .map(|zd| mode.frozen == Frozen::Keep && zd.is_frozen_slot(idx))
                .collect()
        };
        // Absent border flows of the zone-slots computed now: 0 MW, estimated, and stored as such
        // (past slots only; the future is the forecast's).
        let current = Slot::containing(now);
        let mut assumed: Vec<InputPoint> = Vec::new();
        for si in inputs.iter_mut() {
            let keep = kept(&out[(si.slot.day() - day) as usize], si.slot.index_in_day());
            let part = si.takes_part();
            let added = si.assume_absent_flows(&reference.zones);
            // A zone takes part now with its generation or its recorded flows, unless its slot is
            // kept as stored (a zone without generation has no stored slot to keep).
            let now_part = |z: usize| part[z] && !keep[z];
            for (from, to) in added {
                if si.slot < current && (now_part(from) || now_part(to)) {
                    assumed.push(assumed_zero(reference, from, to, si.slot));
                }
            }
        }
        // The days of this batch are done with, and the points assumed now are in them: they are
        // not kept (another range of the run that reads them reads them again), and are dropped
        // before the write, which then has no kept day to apply itself to.
        stored_inputs.forget_before(batch_end);
        if !assumed.is_empty() {
            stored_inputs.upsert(&assumed, now.unix_timestamp())?;
        }
        // A slot whose every zone with inputs is kept as stored (final, already computed) would be
        // traced only to be thrown away: it is not traced at all.
        let inputs: Vec<_> = inputs
            .into_iter()
            .filter(|si| {
                let keep = kept(&out[(si.slot.day() - day) as usize], si.slot.index_in_day());
                let traced = si
                    .generation
                    .iter()
                    .zip(&keep)
                    .any(|(g, k)| g.is_some() && !k);
                if !traced {
                    summary.frozen_kept += keep.iter().filter(|k| **k).count();
                }
                traced
            })
            .collect();
        let results: Vec<_> = inputs
            .par_iter()
            .map(|si| trace_slot(reference, si))
            .collect();

        for (si, res) in inputs.iter().zip(&results) {
            let d = (si.slot.day() - day) as usize;
            let idx = si.slot.index_in_day();
            let zone_days = &mut out[d];
            let keep = kept(zone_days, idx);
            let mut flags = slot_flags(si, res, now);
            for (i, k) in keep.iter().enumerate() {
                if *k {
                    flags[i] = None;
                    summary.frozen_kept += 1;
                } else if flags[i].is_some() {
                    summary.computed += 1;
                }
            }
            write_slot(res, &flags, &keep, zone_days);
        }
        let mut staged: Vec<DerivedDay> = Vec::new();
        for (d, zone_days) in out.into_iter().enumerate() {
            if !wanted(day + d as i64) {
                continue;
            }
            let generation: Vec<[f32; SLOTS_PER_DAY as usize]> =
                zone_days.iter().map(|b| b.generation()).collect();
            for (i, b) in zone_days.into_iter().enumerate() {
                let zd = b.finish(reference, |j, s| generation[j][s]);
                if zd.is_empty() && !existing.contains_key(&(day + d as i64, i)) {
                    continue;
                }
                if day + d as i64 >= hold_from {
                    held.insert((day + d as i64, i), zd);
                } else {
                    staged.push(zd);
                }
            }
        }
        store.stage_derived_days(run, &staged)?;
        progress((batch_end - days.start) as u64, total);
        day = batch_end;
    }
    Ok(summary)
}
