//! Country codes split into several bidding zones (`DK`, `IT`, `NO`, `SE`; docs/methodology.md §5)
//! and the one reading of derived values that zones and countries share ([`ValueSource`]).
//!
//! A country's value in a slot is the weighted mean of its members' values: global coverage weighted
//! by the members' consumption L (`SeriesKey::Consumption`), local coverage by their generation G
//! (`SeriesKey::Generation`), both stored by the compute per zone and slot. The score is not averaged:
//! it is the usual formula (`gridprint_core::engine::footprint::score`) applied to the country's
//! weighted operational carbon footprint and weighted water impact. A member without a value (or
//! without a weight) in a slot is left out of that slot's weights; the slot's flags are the worst of
//! the present members, and at best `preview` (never `valid`) when a member is absent. A slot where no
//! member has a value, or whose weights sum to 0, has no value. Only codes given in `zone` that are not
//! bidding zones become countries (a bidding-zone code always wins; `zone=` adds none).

use crate::cache::{DataCache, DerivedZone};
use crate::params::{Country, ParseContext, codes};
use gridprint_core::derived::{Coverage, SeriesKey, SlotFlags};
use gridprint_core::engine::footprint::score;
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_responses::query::Location;

/// The countries among the codes of a primary location, by code, each once (none for a point or
/// all zones; a bidding-zone code always wins).
pub(crate) fn countries(location: &Option<Location>, ctx: &ParseContext<'_>) -> Vec<Country> {
    let Some(Location::Zones(list)) = location else {
        return Vec::new();
    };
    let mut out: Vec<Country> = codes(list)
        .filter_map(|code| {
            let members = ctx.zones.country_members(&code)?;
            Some(Country { code, members })
        })
        .collect();
    out.sort_by(|a, b| a.code.cmp(&b.code));
    out.dedup_by(|a, b| a.code == b.code);
    out
}

/// Where derived values are read from: a zone's columns, or a country's weighted means.
pub trait ValueSource {
    /// Calls `f(slot, flags, value)` for every slot of `range` with a finite value, in time order.
    fn for_each_value(
        &self,
        key: &SeriesKey,
        range: SlotRange,
        f: impl FnMut(Slot, SlotFlags, f32),
    );
}

impl ValueSource for DerivedZone {
    fn for_each_value(
        &self,
        key: &SeriesKey,
        range: SlotRange,
        f: impl FnMut(Slot, SlotFlags, f32),
    ) {
        DerivedZone::for_each_value(self, key, range, f)
    }
}

/// A zone or a country of one cache, as a [`ValueSource`].
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Zone(&'a DerivedZone),
    Country(&'a DataCache, &'a Country),
}

impl ValueSource for Source<'_> {
    fn for_each_value(
        &self,
        key: &SeriesKey,
        range: SlotRange,
        mut f: impl FnMut(Slot, SlotFlags, f32),
    ) {
        match self {
            Source::Zone(d) => d.for_each_value(key, range, f),
            Source::Country(cache, c) => {
                for (i, s) in country_slots(cache, c, key, range).into_iter().enumerate() {
                    if let Some((v, fl)) = s {
                        f(range.start.offset(i as i64), fl, v as f32);
                    }
                }
            }
        }
    }
}

/// One member's value or nothing, per slot of a range.
fn dense(d: &DerivedZone, key: &SeriesKey, range: SlotRange) -> Vec<Option<(f64, SlotFlags)>> {
    let mut out = vec![None; range.len()];
    d.for_each_value(key, range, |slot, fl, v| {
        out[(slot.0 - range.start.0) as usize] = Some((v as f64, fl));
    });
    out
}

/// The weighted mean of one column over the members, per slot of `range`.
fn weighted(
    cache: &DataCache,
    c: &Country,
    key: &SeriesKey,
    weight: &SeriesKey,
    range: SlotRange,
) -> Vec<Option<(f64, SlotFlags)>> {
    let n = range.len();
    let (mut sum, mut wsum) = (vec![0.0; n], vec![0.0; n]);
    let (mut valid, mut status) = (vec![true; n], vec![ZoneStatus::Complete; n]);
    let mut present = vec![0usize; n];
    for &m in &c.members {
        let d = cache.derived(m);
        let (vals, ws) = (dense(d, key, range), dense(d, weight, range));
        for i in 0..n {
            if let (Some((v, fl)), Some((w, _))) = (vals[i], ws[i]) {
                sum[i] += w * v;
                wsum[i] += w;
                valid[i] &= fl.valid();
                status[i] = status[i].min(fl.status());
                present[i] += 1;
            }
        }
    }
    (0..n)
        .map(|i| {
            if present[i] == 0 || wsum[i] <= 0.0 {
                return None;
            }
            let all = present[i] == c.members.len();
            let st = if all {
                status[i]
            } else {
                status[i].min(ZoneStatus::Preview)
            };
            Some((sum[i] / wsum[i], SlotFlags::new(st, valid[i] && all, false)))
        })
        .collect()
}

/// The country's value of a derived column per slot of `range` (see the module documentation).
/// Columns other than footprints, impacts and scores have no country value.
pub fn country_slots(
    cache: &DataCache,
    c: &Country,
    key: &SeriesKey,
    range: SlotRange,
) -> Vec<Option<(f64, SlotFlags)>> {
    let weight = |coverage| match coverage {
        Coverage::Global => SeriesKey::Consumption,
        Coverage::Local => SeriesKey::Generation,
    };
    match *key {
        SeriesKey::Footprint { coverage, .. } | SeriesKey::Impact { coverage } => {
            weighted(cache, c, key, &weight(coverage), range)
        }
        SeriesKey::Score { coverage } => {
            let carbon = SeriesKey::Footprint {
                footprint_type: FootprintType::Carbon,
                scope: Scope::Operational,
                coverage,
            };
            let cf = weighted(cache, c, &carbon, &weight(coverage), range);
            let wi = weighted(
                cache,
                c,
                &SeriesKey::Impact { coverage },
                &weight(coverage),
                range,
            );
            cf.into_iter()
                .zip(wi)
                .map(|(a, b)| {
                    let ((cf, fa), (wi, fb)) = (a?, b?);
                    let worse = if fa.status() <= fb.status() { fa } else { fb };
                    let fl = SlotFlags::new(worse.status(), fa.valid() && fb.valid(), false);
                    Some((score(cf, wi), fl))
                })
                .collect()
        }
        _ => vec![None; range.len()],
    }
}
