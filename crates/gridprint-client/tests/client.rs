//! The client against the real server on an ephemeral port (in-memory SQLite store holding real
//! ENTSO-E documents from `data/fixtures`, imported and computed), and against small wiremock stubs
//! for the failure modes a real server only shows under load (429, 503, dead sockets).

use gridprint_api::ApiConfig;
use gridprint_api::testing::{MutableClock, quiet_config};
use gridprint_client::*;
use gridprint_core::slot::{Clock, FixedClock};
use live::{EMAIL, PASSWORD, Server, registered};
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};
use time::OffsetDateTime;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

mod live;

/// Real documents: generation of six zones on 2024-06-15; generation, load and DE-LU↔NL flows
/// around 2024-09-02.
const FIXTURES: &[&str] = &[
    "entsoe-api/A75_DE-LU_2024-06-15_PT15M_A03.xml",
    "entsoe-api/A75_ES_2024-06-15_PT15M_A03.xml",
    "entsoe-api/A75_FR_2024-06-15_PT60M_A03.xml",
    "entsoe-api/A75_NL_2024-06-15_PT15M_A03.xml",
    "entsoe-api/A75_PL_2024-06-15_PT15M_A03.xml",
    "entsoe-api/A75_NL_2024-09-02_PT15M_A03.xml",
    "entsoe-api/A65_A16_NL_2024-09-02_PT15M_A03.xml",
    "entsoe-api/A11_DE-LU-to-NL_2024-09-02_PT15M_A03.xml",
    "entsoe-api/A11_NL-to-DE-LU_2024-09-02to08_PT15M_A03.xml",
];

async fn server(config: ApiConfig) -> Server {
    live::server(FIXTURES, config).await
}

fn builder(url: &str) -> ClientBuilder {
    Client::builder()
        .base_url(url)
        .credentials(EMAIL, PASSWORD)
        .backoff(Duration::from_millis(20), Duration::from_millis(200))
}

fn window(start: &str, end: &str) -> Option<Period> {
    Some(Period::parse(start, end).unwrap())
}

/// The typed answer re-serialised equals the server's JSON byte for byte: the shared types cannot
/// drift from what the server writes.
async fn round_trips<T: Serialize>(client: &Client, req: &(impl ApiRequest + ?Sized), typed: &T) {
    let raw = client.json(req).await.unwrap();
    assert_eq!(
        serde_json::to_string(typed).unwrap(),
        raw,
        "{} did not round-trip",
        req.path()
    );
}

/// A data request for `location` over `window`, every other parameter left out.
trait Scoped: Default {
    fn scoped(location: &Option<Location>, window: Option<Period>) -> Self;
}

/// Writes `impl Scoped for R` for each request type `R`: its `location` and `window` set, the other
/// fields left at their defaults.
macro_rules! impl_scoped {
    ($($request:ty),* $(,)?) => {$(
        impl Scoped for $request {
            // `..Default::default()` is needless for the requests without other fields (load,
            // availability) and needed for the rest.
            #[allow(clippy::needless_update)]
            fn scoped(location: &Option<Location>, window: Option<Period>) -> Self {
                Self {
                    location: location.clone(),
                    window,
                    ..Default::default()
                }
            }
        }
    )*};
}

impl_scoped!(
    GenerationQuery,
    AvailabilityQuery,
    LoadQuery,
    ImportsQuery,
    ExportsQuery,
    MixQuery,
    FootprintsQuery,
    ImpactsQuery,
    ScoreQuery,
    FlowShareQuery,
    MixShareQuery,
    FootprintShareQuery,
    ImpactShareQuery,
);

/// `answer` unwrapped, after asserting that it [`round_trips`] as the answer to `request`.
async fn round_tripped<T: Serialize>(
    client: &Client,
    request: &(impl ApiRequest + ?Sized),
    answer: Result<T>,
) -> T {
    let answer = answer.unwrap();
    round_trips(client, request, &answer).await;
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_endpoint_through_the_client() {
    let s = server(quiet_config()).await;
    let client = builder(&s.url).build().unwrap();
    registered(&client).await;

    let de = Some(Location::zone("DE"));
    let nl = Some(Location::zone("NL"));
    let june = window("2024-06-15T00:00Z", "2024-06-15T02:00Z");
    let sept = window("2024-09-02T00:00Z", "2024-09-02T02:00Z");

    let zones = client.zones().await.unwrap();
    assert!(zones.len() >= 50, "{} zones", zones.len());
    let de_info = zones.iter().find(|z| z.zone.as_str() == "DE").unwrap();
    assert!(de_info.neighbours.iter().any(|n| n.as_str() == "NL"));
    round_trips(&client, &ZonesQuery, &zones).await;

    let r = GenerationQuery::scoped(&de, june);
    let generation = round_tripped(&client, &r, client.generation(&r).await).await;
    assert_eq!(generation.len(), 1);
    assert!(!generation[0].series[0].production.is_empty());
    let r = GenerationQuery {
        production_type: Some(ProductionType::Solar),
        ..r
    };
    let solar = client.generation(&r).await.unwrap();
    let mut blocks = solar[0].series.iter().flat_map(|e| &e.production);
    assert!(blocks.all(|b| b.production_type == ProductionType::Solar));

    // Availability: DE's 2024-06-15 is held, its outputs preview (its borders did not report).
    let r = AvailabilityQuery::scoped(&de, june);
    let availability = round_tripped(&client, &r, client.availability(&r).await).await;
    assert_eq!(availability.len(), 1);
    let a = &availability[0];
    assert!(a.inputs.iter().any(|i| i.input == "generation"));
    let preview = gridprint_core::quality::ZoneStatus::Preview;
    assert!(a.outputs.iter().all(|o| o.state == preview));

    let r = LoadQuery::scoped(&nl, sept);
    let load = round_tripped(&client, &r, client.load(&r).await).await;
    assert_eq!(load[0].series[0].blocks[0].values.0.len(), 8);

    let r = ImportsQuery {
        source: Some(Location::zone("DE")),
        ..Scoped::scoped(&nl, sept)
    };
    let imports = round_tripped(&client, &r, client.imports(&r).await).await;
    let mut blocks = imports[0].series.iter().flat_map(|e| &e.imports);
    assert!(blocks.all(|b| b.source.as_str() == "DE"));

    let r = ExportsQuery::scoped(&nl, sept);
    round_tripped(&client, &r, client.exports(&r).await).await;

    let r = MixQuery::scoped(&de, june);
    let mix = round_tripped(&client, &r, client.mix(&r).await).await;
    assert!(!mix.is_empty());

    let r = FootprintsQuery::scoped(&de, june);
    let footprints = round_tripped(&client, &r, client.footprints(&r).await).await;
    assert_eq!(footprints.len(), 2, "carbon and water");
    assert_eq!(footprints[0].footprint_type, FootprintType::Carbon);
    assert_eq!(footprints[0].unit, "gCO2/kWh");
    let points: usize = footprints[0].series.iter().map(|s| s.values.0.len()).sum();
    assert_eq!(points, 8, "two hours of 15-minute slots");
    let agg = round_tripped(
        &client,
        &Aggregate(&r),
        client.footprints_aggregate(&r).await,
    )
    .await;
    assert_eq!(agg.len(), 2);
    assert_eq!(agg[0].tail.aggregation_method, "time-weighted-average");
    let carbon_op = client
        .footprints(&FootprintsQuery {
            footprint_type: Some(FootprintType::Carbon),
            scope: Some(Scope::Operational),
            use_global: Some(false),
            ..r.clone()
        })
        .await
        .unwrap();
    assert_eq!(carbon_op.len(), 1);
    assert_eq!(carbon_op[0].scope, Scope::Operational);

    let r = ImpactsQuery {
        impact_type: Some(ImpactType::Water),
        scope: Some(Scope::Operational),
        use_global: None,
        ..Scoped::scoped(&de, june)
    };
    let impacts = round_tripped(&client, &r, client.impacts(&r).await).await;
    assert_eq!(impacts[0].unit, "stress-l/kWh");
    round_tripped(&client, &Aggregate(&r), client.impacts_aggregate(&r).await).await;

    let r = ScoreQuery::scoped(&de, june);
    let score = round_tripped(&client, &r, client.green_score(&r).await).await;
    let mut points = score[0].series.iter().flat_map(|s| &s.values.0);
    assert!(points.all(|p| (0.0..=100.0).contains(&p.value)));
    assert_eq!(client.environmental_score(&r).await.unwrap(), score);
    round_tripped(
        &client,
        &Aggregate(&r),
        client.green_score_aggregate(&r).await,
    )
    .await;

    let r = FlowShareQuery::scoped(&nl, sept);
    round_tripped(&client, &r, client.flow_share(&r).await).await;

    let r = MixShareQuery {
        origin: Some(Location::zones(["NL", "DE"])),
        ..Scoped::scoped(&nl, sept)
    };
    let mix_share = round_tripped(&client, &r, client.mix_share(&r).await).await;
    assert!(!mix_share.is_empty());

    let r = FootprintShareQuery {
        footprint_type: Some(FootprintType::Carbon),
        ..Scoped::scoped(&nl, sept)
    };
    let footprint_share = round_tripped(&client, &r, client.footprint_share(&r).await).await;
    assert!(!footprint_share.is_empty());

    let r = ImpactShareQuery::scoped(&nl, sept);
    round_tripped(&client, &r, client.impact_share(&r).await).await;

    let r = FactorsQuery {
        factor_type: Some(FootprintType::Carbon),
        scope: Some(Scope::LifeCycle),
        ..Default::default()
    };
    let factors = round_tripped(&client, &r, client.factors(&r).await).await;
    assert!(!factors.is_empty());
    let r = FactorsQuery {
        production_type: Some(ProductionType::Coal),
        window: june,
        ..r
    };
    let agg = client.factors_aggregate(&r).await.unwrap();
    assert_eq!(agg.len(), 1);

    // Lat/lon lookup (Berlin is in DE).
    let berlin = client
        .footprints(&FootprintsQuery {
            location: Some(Location::lat_lon(52.52, 13.40)),
            window: june,
            footprint_type: Some(FootprintType::Carbon),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(berlin[0].zone.as_str(), "DE");

    // CSV: the same data as long-format text.
    let csv = client
        .csv(&FootprintsQuery {
            location: de.clone(),
            window: june,
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(csv.starts_with("zone,"), "{csv}");
    assert_eq!(csv.lines().count(), 1 + 16);

    // Best window: the typed method reads the answer back (2 hours of DE data, a 30-minute job).
    let june_w = june.unwrap();
    let best = client
        .best_window(&BestWindowQuery {
            location: de.clone(),
            duration: "PT30M".into(),
            start: Some(june_w.start),
            end: Some(june_w.end),
            n: Some(2),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(best.len(), 2);
    assert_eq!(best[0].zone.as_str(), "DE");
    assert_eq!(best[0].duration_minutes, 30);
    assert!(best[0].value <= best[1].value);

    // Status is public: a client without credentials may ask.
    let anonymous = Client::builder().base_url(&s.url).build().unwrap();
    let status = anonymous.status().await.unwrap();
    assert_eq!(status.storage, "up");
    let storage = anonymous
        .status_component(StatusRequest::Storage)
        .await
        .unwrap();
    assert_eq!(storage.get("storage").map(String::as_str), Some("up"));

    // One token served all of it.
    assert_eq!(client.token_requests(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_errors_carry_status_and_detail() {
    let s = server(quiet_config()).await;
    let client = builder(&s.url).build().unwrap();
    registered(&client).await;
    let e = client
        .get_raw(
            "footprints",
            &[("start".into(), "2024-06-15".into())],
            Format::Json,
        )
        .await
        .unwrap_err();
    match e {
        Error::Api {
            status: 400,
            detail,
        } => assert!(detail.contains("start and end"), "{detail}"),
        other => panic!("{other:?}"),
    }
    let e = client
        .footprints(&FootprintsQuery {
            location: Some(Location::lat_lon(95.0, 0.0)),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(422), "{e}");
    let unknown = client
        .footprints(&FootprintsQuery {
            location: Some(Location::zone("XX")),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(unknown.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_token_is_replaced_transparently() {
    let s = server(quiet_config()).await;
    // The client measures expiry on the server's clock.
    let client = builder(&s.url)
        .clock(Arc::new(s.clock.clone()))
        .build()
        .unwrap();
    registered(&client).await;
    let first = client.access_token().await.unwrap();
    client.zones().await.unwrap();
    assert_eq!(client.token_requests(), 1);

    s.clock
        .advance(time::Duration::hours(24) + time::Duration::minutes(1));
    let r = FootprintsQuery {
        location: Some(Location::zone("DE")),
        window: window("2024-06-15T00:00Z", "2024-06-15T01:00Z"),
        ..Default::default()
    };
    assert_eq!(client.footprints(&r).await.unwrap().len(), 2);
    assert_eq!(client.token_requests(), 2, "a new token after expiry");
    let second = client.access_token().await.unwrap();
    assert_ne!(first, second);
    assert!(second.expires_at > s.clock.now() + time::Duration::hours(23));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_gets_one_new_token_and_one_retry() {
    let s = server(quiet_config()).await;
    // The client's own clock stands still, so it believes its token is fresh; the server's moves
    // past the expiry and answers 401.
    let frozen = FixedClock(OffsetDateTime::now_utc());
    let client = builder(&s.url).clock(Arc::new(frozen)).build().unwrap();
    registered(&client).await;
    let r = LoadQuery {
        location: Some(Location::zone("NL")),
        window: window("2024-09-02T00:00Z", "2024-09-02T01:00Z"),
    };
    client.load(&r).await.unwrap();
    s.clock.advance(time::Duration::hours(25));
    let load = client.load(&r).await.unwrap();
    assert_eq!(load.len(), 1);
    assert_eq!(client.token_requests(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_password_is_an_authentication_error_with_a_clear_message() {
    let s = server(quiet_config()).await;
    registered(&builder(&s.url).build().unwrap()).await;
    let client = Client::builder()
        .base_url(&s.url)
        .credentials(EMAIL, "not the password at all")
        .build()
        .unwrap();
    let e = client.zones().await.unwrap_err();
    assert!(e.is_authentication(), "{e:?}");
    assert_eq!(e.status(), Some(401));
    let msg = e.to_string();
    assert!(
        msg.contains("refused the email and password for ada@example.org")
            && msg.contains("invalid email or password")
            && msg.contains("granted access"),
        "{msg}"
    );
    assert!(!msg.contains("not the password"), "{msg}");
    assert!(!format!("{client:?}").contains("not the password"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limited_requests_wait_for_retry_after() {
    let s = server(ApiConfig {
        rate_limit_per_second: 1.0,
        rate_limit_burst: 2,
        ..quiet_config()
    })
    .await;
    let client = builder(&s.url).build().unwrap();
    registered(&client).await;
    let r = FootprintsQuery {
        location: Some(Location::zone("DE")),
        window: window("2024-06-15T00:00Z", "2024-06-15T01:00Z"),
        footprint_type: Some(FootprintType::Carbon),
        ..Default::default()
    };
    let started = Instant::now();
    for _ in 0..4 {
        assert_eq!(client.footprints(&r).await.unwrap().len(), 1);
    }
    assert!(
        started.elapsed() >= Duration::from_millis(1500),
        "4 requests at 1/s after a burst of 2 must have waited: {:?}",
        started.elapsed()
    );
    // Without retries the 429 comes back as an API error.
    let impatient = builder(&s.url).retries(0).build().unwrap();
    let mut saw_429 = false;
    for _ in 0..4 {
        if let Err(e) = impatient.footprints(&r).await {
            assert_eq!(e.status(), Some(429), "{e}");
            saw_429 = true;
            break;
        }
    }
    assert!(saw_429);
}

// ----- stubs ------------------------------------------------------------------------------------

async fn stub_with_token() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/token-request/get_token"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "access_token": "a".repeat(64),
            "token_type": "bearer",
            "expires_at": "2999-01-01T00:00:00Z",
            "expires_in": 86400
        })))
        .mount(&server)
        .await;
    server
}

/// Mounts on `stub` an answer to `GET {path}`: `response`, at most `up_to` times and expected
/// `expect` times when given.
async fn mock_get(
    stub: &MockServer,
    path_: &str,
    response: ResponseTemplate,
    up_to: Option<u64>,
    expect: Option<u64>,
) {
    let mut mock = Mock::given(method("GET"))
        .and(path(path_))
        .respond_with(response);
    if let Some(n) = up_to {
        mock = mock.up_to_n_times(n);
    }
    if let Some(n) = expect {
        mock = mock.expect(n);
    }
    mock.mount(stub).await;
}

/// A 200 with a JSON body.
fn json_ok(body: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "application/json")
}

/// The 503 of a server whose storage is down.
fn unavailable() -> ResponseTemplate {
    ResponseTemplate::new(503)
        .set_body_json(serde_json::json!({"status": 503, "detail": "storage unavailable"}))
}

const ZONES_BODY: &str = r#"[{"zone":"DE","full_name":"Germany","eic_code":"10Y1001A1001A82H","country_code":"DE","country_name":"Germany","provider":"ENTSO-E","neighbours":["NL"]}]"#;

#[tokio::test]
async fn too_many_requests_then_success_waits_retry_after() {
    let stub = stub_with_token().await;
    let too_many = ResponseTemplate::new(429).insert_header("Retry-After", "1");
    mock_get(&stub, "/v1/zones", too_many, Some(1), Some(1)).await;
    mock_get(&stub, "/v1/zones", json_ok(ZONES_BODY), None, Some(1)).await;
    let client = builder(&stub.uri()).build().unwrap();
    let started = Instant::now();
    let zones = client.zones().await.unwrap();
    assert_eq!(zones[0].zone.as_str(), "DE");
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn unavailable_then_success_is_retried_with_backoff() {
    let stub = stub_with_token().await;
    mock_get(&stub, "/v1/footprints", unavailable(), Some(2), Some(2)).await;
    mock_get(&stub, "/v1/footprints", json_ok("[]"), None, Some(1)).await;
    let client = builder(&stub.uri()).build().unwrap();
    let answer = client
        .footprints(&FootprintsQuery::default())
        .await
        .unwrap();
    assert!(answer.is_empty());
}

#[tokio::test]
async fn retries_used_up_returns_the_last_api_error() {
    let stub = stub_with_token().await;
    mock_get(&stub, "/v1/load", unavailable(), None, Some(3)).await;
    let client = builder(&stub.uri()).retries(2).build().unwrap();
    let e = client.load(&LoadQuery::default()).await.unwrap_err();
    assert_eq!(
        e,
        Error::Api {
            status: 503,
            detail: "storage unavailable".into()
        }
    );
}

#[tokio::test]
async fn connection_refused_is_a_transport_error_after_the_retries() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let client = builder(&format!("http://127.0.0.1:{port}"))
        .retries(2)
        .build()
        .unwrap();
    match client.status().await.unwrap_err() {
        Error::Transport { attempts, message } => {
            assert_eq!(attempts, 3);
            assert!(message.contains("connection"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn zones_and_factors_are_cached_for_an_hour() {
    let stub = stub_with_token().await;
    mock_get(&stub, "/v1/zones", json_ok(ZONES_BODY), None, Some(2)).await;
    mock_get(&stub, "/v1/factors", json_ok("[]"), None, Some(1)).await;
    let clock = MutableClock::new(OffsetDateTime::now_utc());
    let client = builder(&stub.uri())
        .clock(Arc::new(clock.clone()))
        .build()
        .unwrap();
    for _ in 0..3 {
        client.zones().await.unwrap();
        client.factors(&FactorsQuery::default()).await.unwrap();
    }
    clock.advance(time::Duration::minutes(59));
    client.zones().await.unwrap();
    clock.advance(time::Duration::minutes(2));
    client.zones().await.unwrap();
}

#[tokio::test]
async fn a_token_store_shares_tokens_between_clients() {
    let stub = stub_with_token().await;
    mock_get(&stub, "/v1/load", json_ok("[]"), None, None).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(FileTokenStore::new(dir.path()));
    let a = builder(&stub.uri())
        .token_store(store.clone())
        .build()
        .unwrap();
    a.load(&LoadQuery::default()).await.unwrap();
    assert_eq!(a.token_requests(), 1);
    let b = builder(&stub.uri())
        .token_store(store.clone())
        .build()
        .unwrap();
    b.load(&LoadQuery::default()).await.unwrap();
    assert_eq!(b.token_requests(), 0, "the stored token was reused");
    let key = b.token_key().unwrap();
    assert!(store.path_for(&key).exists());
}
