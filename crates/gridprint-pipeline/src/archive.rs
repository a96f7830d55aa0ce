//! The worker's forecast archive and its published accuracy.
//!
//! At most once an hour ([`ARCHIVE_EVERY_SLOTS`]; the first cycle of an hour after the last
//! archived origin) a worker cycle keeps what it issued: per zone, the carbon footprint it
//! published from its current slot over the horizon and the input series it forecast
//! ([`issued_inputs`], [`issued_forecasts`]), in the store's archive
//! (`gridprint_store::ForecastStore`). Then [`archive_and_measure`] drops what is older than the
//! configured period (`worker --forecast-archive-days`, default [`DEFAULT_ARCHIVE_DAYS`]) and
//! measures the archived forecasts against the actuals that came in since
//! ([`crate::forecast::accuracy`]), storing the result the API serves. Nothing here runs on a
//! request. docs/forecast.md has the volume it costs.

use crate::forecast::accuracy::{self, Actuals, FOOTPRINT};
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::quality::freeze_boundary;
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use gridprint_store::forecast::{ArchiveQuery, ArchivedForecast, ArchivedSeries, known_until};
use gridprint_store::{Result, Store};
use std::collections::BTreeMap;
use time::OffsetDateTime;

/// Slots between two archived origins at least: one forecast an hour.
pub const ARCHIVE_EVERY_SLOTS: i64 = 4;
/// Days an archived forecast is kept by default.
pub const DEFAULT_ARCHIVE_DAYS: i64 = 30;
/// Days of derived data read per store query when gathering the actuals.
const BATCH_DAYS: i64 = 2;

/// Whether a cycle at `current` archives its forecast, given the latest origin archived.
pub fn due(latest: Option<Slot>, current: Slot) -> bool {
    latest.is_none_or(|o| current.0 - o.0 >= ARCHIVE_EVERY_SLOTS || current < o)
}

/// The inputs a cycle issued, per zone (a flow under its exporting zone): of the points it stores,
/// those from `origin` on, by series, each series with its last known slot (`anchors`: the slot
/// the model anchored on; a series without one was not forecast and is left out).
pub fn issued_inputs(
    points: &[InputPoint],
    anchors: &BTreeMap<InputKey, Slot>,
    origin: Slot,
    horizon_slots: usize,
) -> BTreeMap<ZoneCode, Vec<ArchivedSeries>> {
    let mut values: BTreeMap<&InputKey, Vec<f64>> = BTreeMap::new();
    for p in points {
        let h = p.slot.0 - origin.0;
        if h < 0 || h >= horizon_slots as i64 || !anchors.contains_key(&p.key) {
            continue;
        }
        let v = values
            .entry(&p.key)
            .or_insert_with(|| vec![f64::NAN; horizon_slots]);
        v[h as usize] = p.mw;
    }
    let mut out: BTreeMap<ZoneCode, Vec<ArchivedSeries>> = BTreeMap::new();
    for (key, mut mw) in values {
        while mw.last().is_some_and(|v| v.is_nan()) {
            mw.pop();
        }
        out.entry(key.zone().clone())
            .or_default()
            .push(ArchivedSeries {
                key: key.clone(),
                last_known: anchors[key],
                mw,
            });
    }
    out
}

/// The forecasts of `zones` issued at `origin` (unix `issued_at`): the footprints published for
/// `[origin, origin + horizon)` read back from the store, with each zone's `inputs`. A zone with
/// neither a footprint nor an input there is left out.
pub fn issued_forecasts(
    store: &dyn Store,
    zones: &[ZoneCode],
    mut inputs: BTreeMap<ZoneCode, Vec<ArchivedSeries>>,
    origin: Slot,
    horizon_slots: usize,
    issued_at: i64,
) -> Result<Vec<ArchivedForecast>> {
    let range = SlotRange::new(origin, origin.offset(horizon_slots as i64));
    let mut footprints: BTreeMap<ZoneCode, Vec<f64>> = BTreeMap::new();
    for day in store.derived_days(range.days())? {
        let first = day.first_slot();
        for i in 0..SLOTS_PER_DAY as usize {
            let t = first.offset(i as i64);
            if let (true, Some(v)) = (range.contains(t), day.value(&FOOTPRINT, i)) {
                footprints
                    .entry(day.zone.clone())
                    .or_insert_with(|| vec![f64::NAN; horizon_slots])
                    [(t.0 - origin.0) as usize] = f64::from(v);
            }
        }
    }
    Ok(zones
        .iter()
        .filter_map(|zone| {
            let inputs = inputs.remove(zone).unwrap_or_default();
            let footprints = footprints.remove(zone).unwrap_or_default();
            (!inputs.is_empty() || !footprints.is_empty()).then(|| ArchivedForecast {
                zone: zone.clone(),
                origin,
                issued_at,
                known_until: known_until(&inputs, origin),
                footprints,
                inputs,
            })
        })
        .collect())
}

/// What [`archive_and_measure`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArchiveReport {
    /// Zones whose forecast was archived.
    pub archived: usize,
    /// Archived forecasts dropped (older than the period kept).
    pub pruned: usize,
    /// Zones whose accuracy was published (with at least one forecast compared).
    pub measured: usize,
}

/// Archives `forecasts` (issued at the slot of `now`), drops those issued more than `keep_days`
/// before it, and replaces the published accuracy by that of the forecasts archived over the last
/// [`accuracy::WINDOWS_DAYS`] against the final actuals.
pub fn archive_and_measure(
    store: &dyn Store,
    forecasts: &[ArchivedForecast],
    now: OffsetDateTime,
    keep_days: i64,
) -> Result<ArchiveReport> {
    let current = Slot::containing(now);
    store.archive_forecasts(forecasts)?;
    let pruned = store.prune_forecast_archive(current.offset(-keep_days * SLOTS_PER_DAY))?;
    let archived = store.archived_forecasts(&ArchiveQuery {
        origins: accuracy::origins_range(current),
        zone: None,
        inputs: false,
    })?;
    let actuals = read_actuals(store, &archived, current, freeze_boundary(now))?;
    let rows = accuracy::accuracy(&archived, &actuals, current, now.unix_timestamp());
    let measured = rows
        .iter()
        .filter(|r| r.points > 0)
        .map(|r| &r.zone)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    store.replace_forecast_accuracy(&rows)?;
    Ok(ArchiveReport {
        archived: forecasts.len(),
        pruned,
        measured,
    })
}

/// The final actuals the archived `forecasts` can be compared with: from a day before the
/// earliest slot any of them counts persistence from (within [`accuracy::actuals_range`]) up to
/// `final_before`, read a few days at a time keeping only the footprint.
fn read_actuals(
    store: &dyn Store,
    forecasts: &[ArchivedForecast],
    current: Slot,
    final_before: Slot,
) -> Result<Actuals> {
    let bounds = accuracy::actuals_range(current);
    let Some(earliest) = forecasts
        .iter()
        .filter(|f| f.origin < final_before)
        .map(|f| f.known_until.min(f.origin))
        .min()
    else {
        return Ok(Actuals::default());
    };
    let range = SlotRange::new(
        earliest.offset(-SLOTS_PER_DAY).max(bounds.start),
        final_before.min(bounds.end),
    );
    let mut actuals = Actuals::new(range, final_before);
    let days = range.days();
    let mut day = days.start;
    while day < days.end {
        let end = (day + BATCH_DAYS).min(days.end);
        actuals.add_days(&store.derived_days(day..end)?);
        day = end;
    }
    Ok(actuals)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridprint_core::production::ProductionType;
    use gridprint_core::quality::DataState;

    fn z(s: &str) -> ZoneCode {
        ZoneCode::parse(s).unwrap()
    }

    #[test]
    fn an_archive_is_due_once_an_hour() {
        let t = Slot(1000);
        assert!(due(None, t));
        assert!(!due(Some(t), t));
        assert!(!due(Some(t.offset(-3)), t));
        assert!(due(Some(t.offset(-4)), t));
        // A clock set back (a replay) archives again.
        assert!(due(Some(t.offset(8)), t));
    }

    #[test]
    fn issued_inputs_keep_the_forecast_slots_of_anchored_series_by_zone() {
        let origin = Slot(1000);
        let wind = InputKey::Generation {
            zone: z("DE"),
            production_type: ProductionType::WindOnshore,
        };
        let flow = InputKey::Flow {
            from: z("FR"),
            to: z("DE"),
        };
        let gap = InputKey::Load { zone: z("DE") };
        let point = |key: &InputKey, slot: i64, mw: f64| InputPoint {
            key: key.clone(),
            slot: Slot(slot),
            mw,
            state: DataState::Missing,
            datasource: String::new(),
        };
        let points = vec![
            point(&wind, 998, 1.0),
            point(&wind, 1000, 2.0),
            point(&wind, 1002, 3.0),
            point(&wind, 1008, 9.0),
            point(&flow, 1001, 5.0),
            point(&gap, 1000, 7.0),
        ];
        let anchors = BTreeMap::from([(wind.clone(), Slot(997)), (flow.clone(), Slot(996))]);
        let got = issued_inputs(&points, &anchors, origin, 8);
        assert_eq!(got.len(), 2);
        let de = &got[&z("DE")];
        assert_eq!(
            de.len(),
            1,
            "a series the model did not forecast is left out"
        );
        assert_eq!(de[0].last_known, Slot(997));
        let mw = &de[0].mw;
        assert_eq!(
            mw.len(),
            3,
            "the slot past the horizon is left out, the NaN tail cut"
        );
        assert_eq!((mw[0], mw[2]), (2.0, 3.0));
        assert!(mw[1].is_nan());
        let fr = &got[&z("FR")];
        assert_eq!(fr[0].key, flow);
        assert!(fr[0].mw[0].is_nan() && fr[0].mw[1] == 5.0);
    }
}
