//! Shared fixtures: a store with hand-made data, query-string helpers and "now".

use gridprint_core::derived::{Coverage, DerivedDay, SeriesKey, SlotFlags};
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::{DataState, ZoneStatus};
use gridprint_core::reference::{FootprintType, ReferenceData, Scope, ZoneSet};
use gridprint_core::slot::Slot;
use gridprint_core::zone::ZoneCode;
use gridprint_query::endpoints::{
    AvailabilityEndpoint, BestWindowEndpoint, ExportsEndpoint, FactorsEndpoint, FlowShareEndpoint,
    FootprintShareEndpoint, FootprintsEndpoint, GenerationEndpoint, GreenScoreEndpoint,
    ImpactShareEndpoint, ImpactsEndpoint, ImportsEndpoint, LoadEndpoint, MixEndpoint,
    MixShareEndpoint, ZonesEndpoint,
};
use gridprint_query::{QueryError, QueryResponse, QueryService};
use gridprint_store::{DerivedStore, InputStore};
use gridprint_store_sqlite::SqliteStore;
use serde_json::Value;
use std::sync::{Arc, OnceLock};
use time::OffsetDateTime;
use time::macros::datetime;

/// The first day of the fixtures: 2024-06-15.
pub const DAY0: OffsetDateTime = datetime!(2024-06-15 00:00 UTC);

/// "Now" of the requests: days after the fixtures, so everything is older than 4 hours.
pub const NOW: OffsetDateTime = datetime!(2024-06-20 12:07 UTC);

pub fn reference() -> Arc<ReferenceData> {
    static R: OnceLock<Arc<ReferenceData>> = OnceLock::new();
    R.get_or_init(|| Arc::new(ReferenceData::embedded(ZoneSet::Selected2026)))
        .clone()
}

pub fn z(s: &str) -> ZoneCode {
    ZoneCode::parse(s).unwrap()
}

pub fn day0() -> i64 {
    Slot::containing(DAY0).day()
}

/// Slot `i` of day 0 (may run into the next days).
pub fn slot(i: i64) -> Slot {
    Slot::containing(DAY0).offset(i)
}

pub fn complete() -> SlotFlags {
    SlotFlags::new(ZoneStatus::Complete, true, true)
}

pub fn footprint(ft: FootprintType, scope: Scope, coverage: Coverage) -> SeriesKey {
    SeriesKey::Footprint {
        footprint_type: ft,
        scope,
        coverage,
    }
}

pub fn carbon_lc_global() -> SeriesKey {
    footprint(FootprintType::Carbon, Scope::LifeCycle, Coverage::Global)
}

/// Parses `a=1&b=2` (no percent-decoding needed by the tests).
pub fn q(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (kv.to_string(), String::new()),
        })
        .collect()
}

pub fn store() -> SqliteStore {
    SqliteStore::open_in_memory().unwrap()
}

pub fn service(store: &SqliteStore) -> QueryService {
    QueryService::load(store, reference()).unwrap()
}

/// An input point of `key` at slot `s`.
fn point(key: InputKey, s: Slot, mw: f64, state: DataState, ds: &str) -> InputPoint {
    InputPoint {
        key,
        slot: s,
        mw,
        state,
        datasource: ds.into(),
    }
}

pub fn gen_point(
    zone: &str,
    pt: ProductionType,
    s: Slot,
    mw: f64,
    state: DataState,
    ds: &str,
) -> InputPoint {
    let key = InputKey::Generation {
        zone: z(zone),
        production_type: pt,
    };
    point(key, s, mw, state, ds)
}

pub fn load_point(zone: &str, s: Slot, mw: f64, state: DataState, ds: &str) -> InputPoint {
    point(InputKey::Load { zone: z(zone) }, s, mw, state, ds)
}

pub fn flow_point(
    from: &str,
    to: &str,
    s: Slot,
    mw: f64,
    state: DataState,
    ds: &str,
) -> InputPoint {
    let key = InputKey::Flow {
        from: z(from),
        to: z(to),
    };
    point(key, s, mw, state, ds)
}

/// A derived day of `zone` on day 0 with every slot computed, complete and valid.
pub fn derived_day(zone: &str) -> DerivedDay {
    let mut d = DerivedDay::new(z(zone), day0());
    for f in d.flags.iter_mut() {
        *f = complete();
    }
    d
}

pub fn put_days(store: &SqliteStore, days: &[DerivedDay]) {
    store.replace_derived_days(days).unwrap();
}

pub fn put_inputs(store: &SqliteStore, points: &[InputPoint]) {
    store.upsert_inputs(points, 1).unwrap();
}

/// The endpoints by name, so the tests can list them and loop over them (the crate answers an
/// endpoint by its type: [`QueryService::query`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    Zones,
    Generation,
    Load,
    Imports,
    Exports,
    Mix,
    Footprints,
    Impacts,
    Score,
    FlowShare,
    MixShare,
    FootprintShare,
    ImpactShare,
    Factors,
    BestWindow,
    Availability,
}

impl Endpoint {
    pub const ALL: [Endpoint; 16] = [
        Endpoint::Zones,
        Endpoint::Generation,
        Endpoint::Load,
        Endpoint::Imports,
        Endpoint::Exports,
        Endpoint::Mix,
        Endpoint::Footprints,
        Endpoint::Impacts,
        Endpoint::Score,
        Endpoint::FlowShare,
        Endpoint::MixShare,
        Endpoint::FootprintShare,
        Endpoint::ImpactShare,
        Endpoint::Factors,
        Endpoint::BestWindow,
        Endpoint::Availability,
    ];

    /// Reads and answers one request of this endpoint.
    pub fn query(
        self,
        svc: &QueryService,
        pairs: &[(String, String)],
        now: OffsetDateTime,
    ) -> Result<QueryResponse, QueryError> {
        match self {
            Endpoint::Zones => svc.query::<ZonesEndpoint>(pairs, now),
            Endpoint::Generation => svc.query::<GenerationEndpoint>(pairs, now),
            Endpoint::Load => svc.query::<LoadEndpoint>(pairs, now),
            Endpoint::Imports => svc.query::<ImportsEndpoint>(pairs, now),
            Endpoint::Exports => svc.query::<ExportsEndpoint>(pairs, now),
            Endpoint::Mix => svc.query::<MixEndpoint>(pairs, now),
            Endpoint::Footprints => svc.query::<FootprintsEndpoint>(pairs, now),
            Endpoint::Impacts => svc.query::<ImpactsEndpoint>(pairs, now),
            Endpoint::Score => svc.query::<GreenScoreEndpoint>(pairs, now),
            Endpoint::FlowShare => svc.query::<FlowShareEndpoint>(pairs, now),
            Endpoint::MixShare => svc.query::<MixShareEndpoint>(pairs, now),
            Endpoint::FootprintShare => svc.query::<FootprintShareEndpoint>(pairs, now),
            Endpoint::ImpactShare => svc.query::<ImpactShareEndpoint>(pairs, now),
            Endpoint::Factors => svc.query::<FactorsEndpoint>(pairs, now),
            Endpoint::BestWindow => svc.query::<BestWindowEndpoint>(pairs, now),
            Endpoint::Availability => svc.query::<AvailabilityEndpoint>(pairs, now),
        }
    }
}

/// Runs a query and returns the JSON value.
pub fn get(svc: &QueryService, ep: Endpoint, query: &str) -> Value {
    let resp = ep
        .query(svc, &q(query), NOW)
        .unwrap_or_else(|e| panic!("{ep:?}?{query}: {e}"));
    serde_json::from_slice(&resp.to_json()).unwrap()
}

/// Runs a query that must fail; returns the error.
pub fn err(svc: &QueryService, ep: Endpoint, query: &str) -> QueryError {
    match ep.query(svc, &q(query), NOW) {
        Ok(r) => panic!(
            "{ep:?}?{query} should fail, got {}",
            String::from_utf8_lossy(&r.to_json())
        ),
        Err(e) => e,
    }
}

/// The length of a JSON array.
pub fn len(v: &Value) -> usize {
    v.as_array().unwrap().len()
}

/// The `zone` field of every item of a JSON array, in order.
pub fn zones(v: &Value) -> Vec<&str> {
    let items = v.as_array().unwrap();
    items.iter().map(|r| r["zone"].as_str().unwrap()).collect()
}

/// `[[timestamp, number], …]` → Vec of (timestamp, number).
pub fn values(v: &Value) -> Vec<(String, f64)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_f64().unwrap()))
        .collect()
}
