//! Benchmarks of the query path on a cache loaded from an in-memory store: one zone, one year of
//! footprints (35,040 points) answered and serialized to JSON and CSV, a 31-day all-zones
//! footprints answer, and a best-window answer over 52 zones and 4 days. Run with
//! `cargo bench -p gridprint-query --bench query`.

use gridprint_core::derived::{Coverage, DerivedDay, SeriesKey, SlotFlags};
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::{FootprintType, ReferenceData, Scope, ZoneSet};
use gridprint_query::endpoints::{BestWindowEndpoint, FootprintsEndpoint};
use gridprint_query::{QueryResponse, QueryService};
use gridprint_store::DerivedStore;
use gridprint_store_sqlite::SqliteStore;
use std::sync::{Arc, OnceLock};
use time::macros::datetime;

fn main() {
    divan::main();
}

const FIRST_DAY: i64 = 19_723; // 2024-01-01

fn service() -> &'static QueryService {
    static S: OnceLock<QueryService> = OnceLock::new();
    S.get_or_init(|| {
        let reference = Arc::new(ReferenceData::embedded(ZoneSet::Selected2026));
        let store = SqliteStore::open_in_memory().unwrap();
        let key = |ft, cov| SeriesKey::Footprint {
            footprint_type: ft,
            scope: Scope::LifeCycle,
            coverage: cov,
        };
        for d in 0..366 {
            let zones: Vec<usize> = if d < 31 {
                (0..reference.zones.len()).collect()
            } else {
                vec![0]
            };
            let days: Vec<DerivedDay> = zones
                .into_iter()
                .map(|z| {
                    let mut day = DerivedDay::new(reference.zones.code(z).clone(), FIRST_DAY + d);
                    for i in 0..96 {
                        day.flags[i] = SlotFlags::new(ZoneStatus::Complete, true, true);
                        let v = 100.0 + ((d * 96 + i as i64) % 997) as f64 * 0.37;
                        for ft in FootprintType::ALL {
                            for cov in [Coverage::Global, Coverage::Local] {
                                day.set(key(ft, cov), i, v);
                            }
                        }
                    }
                    day
                })
                .collect();
            store.replace_derived_days(&days).unwrap();
        }
        QueryService::load(&store, reference).unwrap()
    })
}

fn pairs(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .map(|kv| kv.split_once('=').unwrap())
        .map(|(k, v)| (k.into(), v.into()))
        .collect()
}

const NOW: time::OffsetDateTime = datetime!(2025-06-01 00:00 UTC);

/// The carbon footprints of one year.
const CARBON_YEAR: &str = "footprint_type=carbon&start=2024-01-01&end=2024-12-31";

/// The pairs of `rest` for the first zone of the set (the one with a year of data).
fn first_zone(rest: &str) -> Vec<(String, String)> {
    let code = service().reference().zones.code(0).as_str();
    pairs(&format!("zone={code}&{rest}"))
}

/// A `/footprints` answer (from the service [`first_zone`] has loaded).
fn footprints(p: &[(String, String)]) -> QueryResponse {
    service().query::<FootprintsEndpoint>(p, NOW).unwrap()
}

#[divan::bench]
fn one_zone_year_query_only(b: divan::Bencher) {
    let p = first_zone(CARBON_YEAR);
    b.bench(|| footprints(&p));
}

#[divan::bench]
fn one_zone_year_json(b: divan::Bencher) {
    let p = first_zone(CARBON_YEAR);
    b.bench(|| footprints(&p).to_json());
}

#[divan::bench]
fn one_zone_year_csv(b: divan::Bencher) {
    let p = first_zone(CARBON_YEAR);
    b.bench(|| footprints(&p).to_csv());
}

#[divan::bench]
fn one_zone_year_aggregate(b: divan::Bencher) {
    let p = first_zone("aggregate=true&start=2024-01-01&end=2024-12-31");
    b.bench(|| footprints(&p).to_json());
}

#[divan::bench]
fn all_zones_month_json(b: divan::Bencher) {
    let svc = service();
    let p = pairs("start=2024-01-01&end=2024-01-31");
    b.bench(|| svc.query::<FootprintsEndpoint>(&p, NOW).unwrap().to_json());
}

#[divan::bench]
fn lat_lon_lookup(b: divan::Bencher) {
    let svc = service();
    b.bench(|| {
        svc.locator()
            .locate(divan::black_box(40.4), divan::black_box(-3.7))
    });
}

/// `/best-window` over every zone of the set (52) and 4 days (384 slots each), one 2-hour job,
/// the best 3 placements, answered and serialized (issue #17: under 1 ms median).
#[divan::bench]
fn best_window_all_zones_four_days(b: divan::Bencher) {
    let svc = service();
    let p = pairs("duration=PT2H&footprint_type=carbon&start=2024-01-10&end=2024-01-14");
    b.bench(|| svc.query::<BestWindowEndpoint>(&p, NOW).unwrap().to_json());
}
