//! Fuzz target: any query string on any endpoint, over a cache holding the real 2017-02-01 demo
//! extract, is answered with a result or a 400/404/422 error — never a panic, never another status.
#![no_main]

use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_query::endpoints::{
    AvailabilityEndpoint, BestWindowEndpoint, EnvironmentalScoreEndpoint, ExportsEndpoint,
    FactorsEndpoint, FlowShareEndpoint, FootprintShareEndpoint, FootprintsEndpoint,
    GenerationEndpoint, GreenScoreEndpoint, ImpactShareEndpoint, ImpactsEndpoint, ImportsEndpoint,
    LoadEndpoint, MixEndpoint, MixShareEndpoint, ZonesEndpoint,
};
use gridprint_query::{QueryError, QueryResponse, QueryService};
use gridprint_store::InputStore;
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, LazyLock};

static SERVICE: LazyLock<QueryService> = LazyLock::new(|| {
    let reference = Arc::new(ReferenceData::embedded(ZoneSet::Selected2026));
    let store = gridprint_store_sqlite::SqliteStore::open_in_memory().unwrap();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/fixtures/entsoe-file-library");
    for name in ["2017_02_01_AM_AggregGen.csv", "2017_02_01_AM_PhysicalFlows.csv"] {
        let bytes = std::fs::read(format!("{dir}/{name}")).unwrap();
        let doc = gridprint_ingest::detect_and_parse(&bytes, &reference.zones).unwrap();
        store.upsert_inputs(&doc.points, 0).unwrap();
    }
    let range = store.input_extent().unwrap().unwrap();
    let now = time::OffsetDateTime::now_utc();
    gridprint_compute::compute_range(&store, &reference, range, now, &mut |_, _| {}).unwrap();
    QueryService::load(&store, reference).unwrap()
});

/// How one endpoint is asked: [`QueryService::query`] for its type.
type Query =
    fn(&QueryService, &[(String, String)], time::OffsetDateTime) -> Result<QueryResponse, QueryError>;

/// Every data endpoint, one per path.
const ENDPOINTS: [Query; 17] = [
    QueryService::query::<ZonesEndpoint>,
    QueryService::query::<GenerationEndpoint>,
    QueryService::query::<LoadEndpoint>,
    QueryService::query::<ImportsEndpoint>,
    QueryService::query::<ExportsEndpoint>,
    QueryService::query::<MixEndpoint>,
    QueryService::query::<FootprintsEndpoint>,
    QueryService::query::<ImpactsEndpoint>,
    QueryService::query::<GreenScoreEndpoint>,
    QueryService::query::<EnvironmentalScoreEndpoint>,
    QueryService::query::<FlowShareEndpoint>,
    QueryService::query::<MixShareEndpoint>,
    QueryService::query::<FootprintShareEndpoint>,
    QueryService::query::<ImpactShareEndpoint>,
    QueryService::query::<FactorsEndpoint>,
    QueryService::query::<BestWindowEndpoint>,
    QueryService::query::<AvailabilityEndpoint>,
];

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else { return };
    let query = ENDPOINTS[which as usize % ENDPOINTS.len()];
    let pairs: Vec<(String, String)> = form_urlencoded_pairs(rest);
    let now = time::macros::datetime!(2017-02-01 06:00 UTC);
    match query(&SERVICE, &pairs, now) {
        Ok(r) => {
            let _ = r.to_json();
            let _ = r.to_csv();
        }
        Err(e) => assert!(matches!(e.status, 400 | 404 | 422), "status {} for {pairs:?}", e.status),
    }
});

/// Splits `a=b&c=d` (percent-decoding kept simple: the parser under test sees raw text).
fn form_urlencoded_pairs(bytes: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(bytes)
        .split('&')
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (kv.to_string(), String::new()),
        })
        .collect()
}
