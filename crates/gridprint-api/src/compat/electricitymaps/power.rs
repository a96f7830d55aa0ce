//! Power breakdowns in the Electricity Maps shape, at 15 minutes, read from `/v1`: consumption from
//! `/v1/mix` (flow-traced), production from `/v1/generation`, imports from `/v1/imports` and
//! exports from `/v1/exports` of the slot. Each value is taken as `/v1` writes it (MW, 2 decimals);
//! the service's modes add up gridprint's production types ([`MODES`]: both winds are `wind`, both
//! hydros `hydro`, pumped storage `hydro discharge`, marine, other, other renewable and waste
//! `unknown`), in `/v1`'s order. `renewablePercentage` is the share of biomass, geothermal, hydro
//! (not pumped storage), marine, other renewable, solar and wind in the consumption;
//! `fossilFreePercentage` 100 − the share of coal, gas and oil. Flags follow the slot's
//! `zone_status` in `/v1/mix`, as for carbon points. The breakdowns, totals and percentages are
//! integers, as Electricity Maps sends them ([`integer`]: the 2-decimal sum rounded half away from
//! zero).

use super::ask::{Ask, Granularity, estimation_method, integer};
use super::zone_keys::key_of;
use crate::http::error::ApiError;
use crate::state::AppState;
use gridprint_core::production::ProductionType;
use gridprint_core::quality::ZoneStatus;
use gridprint_core::slot::{Slot, format_timestamp};
use gridprint_query::endpoints::{
    ExportsEndpoint, GenerationEndpoint, ImportsEndpoint, MixEndpoint,
};
use gridprint_responses::query::{
    ExportsQuery, GenerationQuery, ImportsQuery, MixQuery, QueryParams,
};
use gridprint_responses::{Values, round2};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use time::{Duration, OffsetDateTime};

/// The Electricity Maps mode of each gridprint production type.
pub const MODES: &[(ProductionType, &str)] = &[
    (ProductionType::Biomass, "biomass"),
    (ProductionType::Coal, "coal"),
    (ProductionType::Gas, "gas"),
    (ProductionType::Geothermal, "geothermal"),
    (ProductionType::HydroPumpedStorage, "hydro discharge"),
    (ProductionType::HydroReservoir, "hydro"),
    (ProductionType::HydroRiver, "hydro"),
    (ProductionType::Marine, "unknown"),
    (ProductionType::Nuclear, "nuclear"),
    (ProductionType::Oil, "oil"),
    (ProductionType::Other, "unknown"),
    (ProductionType::OtherRenewable, "unknown"),
    (ProductionType::Solar, "solar"),
    (ProductionType::Waste, "unknown"),
    (ProductionType::WindOffshore, "wind"),
    (ProductionType::WindOnshore, "wind"),
];

fn mode(t: ProductionType) -> &'static str {
    MODES
        .iter()
        .find(|(p, _)| *p == t)
        .map_or("unknown", |(_, m)| m)
}

fn is_renewable(t: ProductionType) -> bool {
    use ProductionType::{
        Biomass, Geothermal, HydroReservoir, HydroRiver, Marine, OtherRenewable, Solar,
        WindOffshore, WindOnshore,
    };
    matches!(
        t,
        Biomass
            | Geothermal
            | HydroReservoir
            | HydroRiver
            | Marine
            | OtherRenewable
            | Solar
            | WindOffshore
            | WindOnshore
    )
}

#[derive(Default)]
struct Slotted {
    consumption: BTreeMap<&'static str, f64>,
    production: BTreeMap<&'static str, f64>,
    imports: BTreeMap<String, f64>,
    exports: BTreeMap<String, f64>,
    renewable: f64,
    fossil: f64,
    status: Option<ZoneStatus>,
}

fn add<K: Ord>(map: &mut BTreeMap<K, f64>, k: K, v: f64) {
    *map.entry(k).or_insert(0.0) += v;
}

/// Adds each point of one `/v1` block (as `/v1` writes it, 2 decimals) under `key` to the breakdown
/// `breakdown` picks, in the slots that have a consumption mix (the others are not answered).
fn add_points<K: Ord + Clone>(
    slots: &mut BTreeMap<Slot, Slotted>,
    values: &Values,
    key: K,
    breakdown: fn(&mut Slotted) -> &mut BTreeMap<K, f64>,
) {
    for p in &values.0 {
        if let Some(s) = slots.get_mut(&p.slot) {
            add(breakdown(s), key.clone(), round2(p.value));
        }
    }
}

fn total<K>(map: &BTreeMap<K, f64>) -> i64 {
    integer(map.values().sum())
}

fn rounded<K: ToString>(map: &BTreeMap<K, f64>) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.to_string(), json!(integer(*v))))
            .collect::<Map<_, _>>(),
    )
}

/// `GET /v3/power-breakdown/latest`: the latest slot's breakdown.
pub fn latest(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = state.query().cache();
    let ask = Ask::read(state, &cache, p)?;
    last_day(&ask, p)?.pop().ok_or_else(|| {
        ApiError::not_found(format!(
            "no power breakdown for zone {} in the last 24 hours",
            ask.key()
        ))
    })
}

/// `GET /v3/power-breakdown/history`: the breakdowns of the last 24 hours.
pub fn history(state: &AppState, p: &QueryParams<'_>) -> Result<Value, ApiError> {
    let cache = state.query().cache();
    let ask = Ask::read(state, &cache, p)?;
    let history = last_day(&ask, p)?;
    Ok(json!({"zone": ask.key(), "history": history, "temporalGranularity": "15_minutes"}))
}

/// The breakdowns of the last 24 hours up to the current slot (15 minutes only: another
/// `temporalGranularity` → 400).
fn last_day(ask: &Ask<'_>, p: &QueryParams<'_>) -> Result<Vec<Value>, ApiError> {
    if Granularity::read(p, Granularity::FifteenMinutes)? != Granularity::FifteenMinutes {
        return Err(ApiError::bad_request(
            "power breakdowns are served at temporalGranularity=15_minutes only",
        ));
    }
    let end = Granularity::FifteenMinutes.floor(ask.carbon.now) + Duration::minutes(15);
    breakdowns(ask, end - Duration::days(1), end)
}

/// The breakdown of every slot of `[start, end)` that has a consumption mix, in time order.
fn breakdowns(
    ask: &Ask<'_>,
    start: OffsetDateTime,
    end: OffsetDateTime,
) -> Result<Vec<Value>, ApiError> {
    let (location, window) = (ask.carbon.location(), ask.carbon.window(start, end));
    let mix = MixQuery {
        location: location.clone(),
        window,
        production_type: None,
    };
    let mut slots: BTreeMap<Slot, Slotted> = BTreeMap::new();
    for r in ask.carbon.answer::<MixEndpoint>(mix)? {
        for e in r.series {
            for b in e.production {
                for p in &b.values.0 {
                    let s = slots.entry(p.slot).or_default();
                    let mw = round2(p.value);
                    s.status = Some(e.zone_status);
                    add(&mut s.consumption, mode(b.production_type), mw);
                    if is_renewable(b.production_type) {
                        s.renewable += mw;
                    }
                    if matches!(
                        b.production_type,
                        ProductionType::Coal | ProductionType::Gas | ProductionType::Oil
                    ) {
                        s.fossil += mw;
                    }
                }
            }
        }
    }
    let generation = GenerationQuery {
        location: location.clone(),
        window,
        production_type: None,
    };
    for r in ask.carbon.answer::<GenerationEndpoint>(generation)? {
        for e in r.series {
            for b in e.production {
                let mode = mode(b.production_type);
                add_points(&mut slots, &b.values, mode, |s| &mut s.production);
            }
        }
    }
    let imports = ImportsQuery {
        location: location.clone(),
        source: None,
        window,
    };
    for r in ask.carbon.answer::<ImportsEndpoint>(imports)? {
        for e in r.series {
            for b in e.imports {
                let source = key_of(b.source.as_str()).to_string();
                add_points(&mut slots, &b.values, source, |s| &mut s.imports);
            }
        }
    }
    let exports = ExportsQuery {
        location,
        destination: None,
        window,
    };
    for r in ask.carbon.answer::<ExportsEndpoint>(exports)? {
        for e in r.series {
            for b in e.exports {
                let destination = key_of(b.destination.as_str()).to_string();
                add_points(&mut slots, &b.values, destination, |s| &mut s.exports);
            }
        }
    }
    let stamp = format_timestamp(ask.carbon.now);
    let key = key_of(&ask.carbon.code);
    Ok(slots
        .into_iter()
        .filter_map(|(slot, s)| {
            let status = s.status?;
            if !ask.estimations && status != ZoneStatus::Complete {
                return None;
            }
            let consumed: f64 = s.consumption.values().sum();
            let share = |part: f64| {
                if consumed > 0.0 {
                    json!(integer(100.0 * part / consumed))
                } else {
                    Value::Null
                }
            };
            Some(json!({
                "zone": key,
                "datetime": format_timestamp(slot.start()),
                "updatedAt": stamp,
                "createdAt": stamp,
                "powerConsumptionBreakdown": rounded(&s.consumption),
                "powerProductionBreakdown": rounded(&s.production),
                "powerImportBreakdown": rounded(&s.imports),
                "powerExportBreakdown": rounded(&s.exports),
                "fossilFreePercentage": if consumed > 0.0 { json!(integer(100.0 - 100.0 * s.fossil / consumed)) } else { Value::Null },
                "renewablePercentage": share(s.renewable),
                "powerConsumptionTotal": total(&s.consumption),
                "powerProductionTotal": total(&s.production),
                "powerImportTotal": total(&s.imports),
                "powerExportTotal": total(&s.exports),
                "isEstimated": status != ZoneStatus::Complete,
                "estimationMethod": estimation_method(status),
                "temporalGranularity": "15_minutes",
                "zoneStatus": status.as_str(),
            }))
        })
        .collect())
}
