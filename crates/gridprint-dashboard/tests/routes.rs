//! The dashboard's public routes end to end (in process, through the API's whole router) on the real
//! 2017-02-01 ENTSO-E File Library extract: each part of a day or zone answer is byte for byte the
//! `/v1` answer a token holder gets; CSV equals `/v1`'s CSV; wider windows and other parameters are
//! refused; past the per-address limit → 429, also across two replicas sharing Redis; days older
//! than the history bound → 400; `off` keeps the links page at `/`.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use gridprint_api::testing::MutableClock;
use gridprint_api::{ApiConfig, AppState, router_with_home};
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_dashboard::{DashboardConfig, DashboardMode};
use gridprint_pipeline::testing::{FILE_LIBRARY_DAY_2017, import_fixtures};
use gridprint_store::{SharedStore, TokenRecord};
use std::collections::BTreeSet;
use std::sync::Arc;
use time::macros::datetime;
use tower::ServiceExt;

const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

async fn app(mode: DashboardMode, burst: u32) -> Router {
    app_with(mode, burst, None, None).await
}

/// [`app`] with a history bound and the API's limiter (`None`: per process).
async fn app_with(
    mode: DashboardMode,
    burst: u32,
    history_days: Option<u32>,
    limit: Option<gridprint_ratelimit::RateLimit>,
) -> Router {
    app_with_budget(
        mode,
        burst,
        history_days,
        limit,
        ApiConfig::default().response_memory_bytes,
    )
    .await
}

/// [`app_with`] with a response memory budget of `response_memory_bytes`.
async fn app_with_budget(
    mode: DashboardMode,
    burst: u32,
    history_days: Option<u32>,
    limit: Option<gridprint_ratelimit::RateLimit>,
    response_memory_bytes: usize,
) -> Router {
    let reference = Arc::new(ReferenceData::embedded(ZoneSet::Selected2026));
    let now = datetime!(2026-03-01 12:00:00 UTC);
    let store: SharedStore =
        Arc::new(gridprint_store_sqlite::SqliteStore::open_in_memory().unwrap());
    import_fixtures(&*store, &reference, FILE_LIBRARY_DAY_2017, 1, Some(now));
    store
        .grant("ada@example.org", None, now.unix_timestamp())
        .unwrap();
    store
        .register(
            "ada@example.org",
            "$argon2id$not-a-real-hash",
            now.unix_timestamp(),
        )
        .unwrap();
    store
        .insert_token(&TokenRecord {
            token_hash: gridprint_api::tokens::auth::token_hash(TOKEN),
            email: "ada@example.org".into(),
            issued_at: now.unix_timestamp(),
            expires_at: now.unix_timestamp() + 86_400,
        })
        .unwrap();
    let config = ApiConfig {
        rate_limit_per_second: 0.0,
        response_memory_bytes,
        ..ApiConfig::default()
    };
    let mut builder = AppState::builder(store, reference, Arc::new(MutableClock::new(now)), config);
    if let Some(limit) = limit {
        builder = builder.rate_limit(limit);
    }
    let state = builder.build().unwrap();
    gridprint_api::refresh::load(&state).await.unwrap();
    let dash = DashboardConfig {
        mode,
        rate_per_second: 0.001,
        burst,
        history_days,
        ..DashboardConfig::default()
    };
    let home = gridprint_dashboard::router(&state, dash);
    router_with_home(state, home)
}

async fn get(app: &Router, uri: &str, token: bool) -> (StatusCode, Vec<(String, String)>, Vec<u8>) {
    let mut req = Request::get(uri);
    if token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {TOKEN}"));
    }
    let resp = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = resp.status();
    let headers = resp
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let body = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, headers, body.to_vec())
}

fn v1_uri(part: &serde_json::Value, zone: &str, date: &str, extra: &str) -> String {
    let start = time::Date::parse(
        date,
        time::macros::format_description!("[year]-[month]-[day]"),
    )
    .unwrap()
    .midnight()
    .assume_utc();
    let fmt = |d: i64| gridprint_core::slot::format_timestamp(start + time::Duration::days(d));
    let params = part["params"].as_str().unwrap();
    format!(
        "/v1/{}?{params}{}zone={zone}&start={}&end={}{extra}",
        part["path"].as_str().unwrap(),
        if params.is_empty() { "" } else { "&" },
        fmt(-part["days_before"].as_i64().unwrap()),
        fmt(part["days_after"].as_i64().unwrap()),
    )
}

#[tokio::test]
async fn public_routes_serve_the_v1_answers_of_one_day_and_nothing_more() {
    let app = app(DashboardMode::Public, 1000).await;
    let (s, _, meta) = get(&app, "/dashboard/api/meta", false).await;
    assert_eq!(s, StatusCode::OK);
    let meta: serde_json::Value = serde_json::from_slice(&meta).unwrap();
    assert_eq!(meta["zones"].as_array().unwrap().len(), 52);
    let opening = meta["opening_slot"].as_str().unwrap();
    assert!(opening.starts_with("2017-02-0"), "{opening}");

    // The day: every part equals the /v1 answer (same bytes once re-serialized).
    let (s, h, day) = get(&app, "/dashboard/api/day?date=2017-02-01", false).await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        h.iter()
            .any(|(k, v)| k == "cache-control" && v == "public, max-age=3600")
    );
    // A day of every zone is large: compressed once when it is built, and kept compressed
    // (gridprint_api::kept::precompress), the same bytes once unzipped.
    assert!(
        day.len() >= gridprint_api::kept::precompress::PRECOMPRESS_MIN_BYTES,
        "{}",
        day.len()
    );
    for _ in 0..2 {
        let req = Request::get("/dashboard/api/day?date=2017-02-01")
            .header(header::ACCEPT_ENCODING, "gzip, deflate, br")
            .body(Body::empty())
            .unwrap();
        let r = app.clone().oneshot(req).await.unwrap();
        assert_eq!(r.headers()[header::CONTENT_ENCODING], "gzip");
        let packed = axum::body::to_bytes(r.into_body(), usize::MAX)
            .await
            .unwrap();
        let mut unzipped = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&packed[..]),
            &mut unzipped,
        )
        .unwrap();
        assert_eq!(unzipped, day);
    }
    let day: serde_json::Value = serde_json::from_slice(&day).unwrap();
    // Revalidation: the same tag → 304, and `*` (any current representation, RFC 9110) too.
    let tag = &h.iter().find(|(k, _)| k == "etag").unwrap().1;
    for if_none_match in [tag.as_str(), "*"] {
        let req = Request::get("/dashboard/api/day?date=2017-02-01")
            .header(header::IF_NONE_MATCH, if_none_match)
            .body(Body::empty())
            .unwrap();
        assert_eq!(
            app.clone().oneshot(req).await.unwrap().status(),
            StatusCode::NOT_MODIFIED,
            "{if_none_match}"
        );
    }
    for part in meta["day_parts"].as_array().unwrap() {
        let (s, _, v1) = get(&app, &v1_uri(part, "", "2017-02-01", ""), true).await;
        assert_eq!(s, StatusCode::OK);
        let v1: serde_json::Value = serde_json::from_slice(&v1).unwrap();
        let name = part["name"].as_str().unwrap();
        assert_eq!(day["parts"][name], v1, "{name}");
        assert!(!v1.as_array().unwrap().is_empty(), "{name} has data");
    }

    // A zone, and its CSV = /v1's CSV.
    let (s, _, zone) = get(&app, "/dashboard/api/zone?zone=fr&date=2017-02-01", false).await;
    assert_eq!(s, StatusCode::OK);
    let zone: serde_json::Value = serde_json::from_slice(&zone).unwrap();
    for part in meta["zone_parts"].as_array().unwrap() {
        let name = part["name"].as_str().unwrap();
        let (_, _, v1) = get(&app, &v1_uri(part, "FR", "2017-02-01", ""), true).await;
        assert_eq!(
            zone["parts"][name],
            serde_json::from_slice::<serde_json::Value>(&v1).unwrap(),
            "{name}"
        );
        let (s, h, csv) = get(
            &app,
            &format!("/dashboard/api/csv?zone=FR&date=2017-02-01&part={name}"),
            false,
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        assert!(
            h.iter()
                .any(|(k, v)| k == "content-disposition" && v.starts_with("attachment"))
        );
        let (_, _, v1csv) = get(&app, &v1_uri(part, "FR", "2017-02-01", "&format=csv"), true).await;
        assert_eq!(csv, v1csv, "{name} CSV");
        assert!(
            csv.split(|b| *b == b'\n').count() > 2,
            "{name} CSV has rows"
        );
    }

    // Anything wider or other is refused.
    for uri in [
        "/dashboard/api/day?date=2017-02-01&end=2017-03-01",
        "/dashboard/api/day?start=2017-01-01&end=2017-02-01",
        "/dashboard/api/day?date=2017-02-01&zone=FR",
        "/dashboard/api/day?date=2017-02-01&format=csv",
        "/dashboard/api/day?date=2017-02-01&date=2017-02-02",
        "/dashboard/api/day?date=2017-02",
        "/dashboard/api/day?date=2030-01-01",
        "/dashboard/api/zone?zone=FR,DE&date=2017-02-01",
        "/dashboard/api/zone?zone=&date=2017-02-01",
        "/dashboard/api/csv?zone=FR&date=2017-02-01&part=footprints:global:life-cycle&days=30",
        "/dashboard/api/csv?zone=FR&date=2017-02-01&part=imports:all",
    ] {
        let (s, _, _) = get(&app, uri, false).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{uri}");
    }
    // /v1 stays protected.
    let (s, _, _) = get(&app, "/v1/footprints?zone=FR", false).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    // The page is at /.
    let (s, h, page) = get(&app, "/", false).await;
    assert_eq!(s, StatusCode::OK);
    assert!(String::from_utf8_lossy(&page).contains(r#"content="public""#));
    assert!(
        h.iter()
            .any(|(k, v)| k == "content-security-policy" && v.contains("default-src 'none'"))
    );
}

#[tokio::test]
async fn past_the_per_address_limit_the_routes_answer_429() {
    let app = app(DashboardMode::Public, 3).await;
    for _ in 0..3 {
        let (s, _, _) = get(&app, "/dashboard/api/day?date=2017-02-01", false).await;
        assert_eq!(s, StatusCode::OK);
    }
    let (s, h, _) = get(&app, "/dashboard/api/day?date=2017-02-01", false).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
    assert!(
        h.iter()
            .any(|(k, v)| k == "retry-after" && v.parse::<u64>().unwrap() >= 1)
    );
    let (s, _, _) = get(&app, "/dashboard/api/meta", false).await;
    assert_eq!(
        s,
        StatusCode::TOO_MANY_REQUESTS,
        "one budget per address for every data route"
    );
}

/// Two replicas on one Redis share each address's budget (the API's limiter, `--redis-url`), and
/// the addresses of one IPv6 /64 share one budget.
#[tokio::test]
async fn two_replicas_share_the_per_address_limit_through_redis() {
    let url = tokio::task::spawn_blocking(gridprint_testsvc::redis_url)
        .await
        .unwrap();
    let limit = || async {
        gridprint_ratelimit::RateLimit::redis(&url, 0.0, 1)
            .await
            .unwrap()
    };
    let a = app_with(DashboardMode::Public, 4, None, Some(limit().await)).await;
    let b = app_with(DashboardMode::Public, 4, None, Some(limit().await)).await;
    // A /64 of this run alone (Redis keeps the counts of earlier runs for a while).
    let run = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let from = |host: u16| {
        let ip =
            std::net::Ipv6Addr::new(0x2001, 0xdb8, (run >> 32) as u16, run as u16, 0, 0, 0, host);
        axum::extract::ConnectInfo(std::net::SocketAddr::new(ip.into(), 40000))
    };
    let mut ok = 0;
    for (i, app) in [&a, &b, &a, &b, &a, &b].into_iter().enumerate() {
        let req = Request::get("/dashboard/api/day?date=2017-02-01")
            .extension(from(i as u16 + 1))
            .body(Body::empty())
            .unwrap();
        match app.clone().oneshot(req).await.unwrap().status() {
            StatusCode::OK => ok += 1,
            StatusCode::TOO_MANY_REQUESTS => {}
            other => panic!("{other}"),
        }
    }
    assert_eq!(ok, 4, "one budget of 4 for the /64 on both replicas");
}

/// Days older than the history bound are refused to anonymous visitors (the bulk channel of
/// issue #28: ten years of map data, a day at a time).
#[tokio::test]
async fn days_older_than_the_history_bound_are_400() {
    let bounded = app_with(DashboardMode::Public, 100, Some(31), None).await;
    let (s, _, body) = get(&bounded, "/dashboard/api/day?date=2017-02-01", false).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(String::from_utf8_lossy(&body).contains("last 31 days"));
    let (s, _, _) = get(&bounded, "/dashboard/api/day?date=2026-02-20", false).await;
    assert_eq!(s, StatusCode::OK);
}

/// Issue #28 item 10: a static file name that is not UTF-8 once decoded was axum's plain-text 400;
/// like every unknown file it is a problem+json 404.
#[tokio::test]
async fn static_names_that_are_not_utf8_are_a_problem_404() {
    let public = app(DashboardMode::Public, 100).await;
    for uri in ["/dashboard/static/%ff%fe", "/dashboard/static/no-such.js"] {
        let (s, headers, body) = get(&public, uri, false).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{uri}");
        let ct = headers
            .iter()
            .find(|(k, _)| k == "content-type")
            .map(|(_, v)| v.as_str());
        assert_eq!(ct, Some("application/problem+json"), "{uri}");
        assert!(
            String::from_utf8_lossy(&body).contains("no such file"),
            "{uri}"
        );
    }
    let (s, _, _) = get(&public, "/dashboard/static/app.js", false).await;
    assert_eq!(s, StatusCode::OK);
}

#[tokio::test]
async fn login_serves_the_page_without_public_data_and_off_keeps_the_links_page() {
    let login = app(DashboardMode::Login, 100).await;
    let (s, _, page) = get(&login, "/", false).await;
    assert_eq!(s, StatusCode::OK);
    assert!(String::from_utf8_lossy(&page).contains(r#"content="login""#));
    let (s, _, _) = get(&login, "/dashboard/api/day?date=2017-02-01", false).await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    let off = app(DashboardMode::Off, 100).await;
    let (s, _, page) = get(&off, "/", false).await;
    assert_eq!(s, StatusCode::OK);
    let page = String::from_utf8_lossy(&page);
    assert!(page.contains("/v1/docs") && !page.contains("gridprint-dashboard"));
    for uri in ["/dashboard/api/meta", "/dashboard/static/app.js"] {
        let (s, _, _) = get(&off, uri, false).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{uri}");
    }
}

#[tokio::test]
async fn the_page_preloads_the_data_it_reads_first() {
    let public = app(DashboardMode::Public, 1000).await;
    let (_, _, meta) = get(&public, "/dashboard/api/meta", false).await;
    let meta: serde_json::Value = serde_json::from_slice(&meta).unwrap();
    let opening = &meta["opening_slot"].as_str().unwrap()[..10];
    let preload =
        |href: &str| format!(r#"<link rel="preload" href="{href}" as="fetch" crossorigin>"#);
    let page = |uri: &'static str| {
        let app = public.clone();
        async move {
            let (s, _, body) = get(&app, uri, false).await;
            assert_eq!(s, StatusCode::OK, "{uri}");
            String::from_utf8(body).unwrap()
        }
    };
    for uri in ["/", "/?date=2999-01-01", "/?date=not-a-day&slot=3"] {
        let html = page(uri).await;
        assert!(!html.contains("{{"), "{uri}: placeholders replaced");
        for href in [
            "/dashboard/api/meta".to_string(),
            "/dashboard/zones.geojson".to_string(),
            format!("/dashboard/api/day?date={opening}"),
        ] {
            assert!(html.contains(&preload(&href)), "{uri}: {href}");
        }
    }
    let html = page("/?date=2017-02-01&slot=40&metric=water").await;
    assert!(html.contains(&preload("/dashboard/api/day?date=2017-02-01")));
    assert_eq!(html.matches(r#"rel="preload""#).count(), 3);

    // Login mode: no public day route, so no day to preload.
    let login = app(DashboardMode::Login, 100).await;
    let (_, _, html) = get(&login, "/", false).await;
    let html = String::from_utf8(html).unwrap();
    assert!(html.contains(&preload("/dashboard/api/meta")));
    assert!(!html.contains("/dashboard/api/day"));
}

/// The page opens on the most recent slot at which most zones have data. On this extract (the
/// demo's 2017 part) that is 2017-02-02T00:00Z, not a slot of 2017-02-01: the file library extract
/// holds 2017-02-01 for 5 zones only (AT, CH, CZ, DE, FR), and most other zones only at its last
/// timestamp, 2017-02-02 00:00 UTC.
#[tokio::test]
async fn the_opening_slot_is_the_best_covered_recent_slot() {
    let app = app(DashboardMode::Public, 1000).await;
    let (_, _, meta) = get(&app, "/dashboard/api/meta", false).await;
    let meta: serde_json::Value = serde_json::from_slice(&meta).unwrap();
    let opening = meta["opening_slot"].as_str().unwrap().to_string();
    let (s, _, body) = get(
        &app,
        "/v1/footprints?zone=&footprint_type=carbon&start=2017-01-31T00:00:00Z&end=2017-02-03T00:00:00Z",
        true,
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let answer: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let mut zones_at: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for r in answer.as_array().unwrap() {
        for series in r["series"].as_array().unwrap() {
            for point in series["values"].as_array().unwrap() {
                zones_at
                    .entry(point[0].as_str().unwrap().to_string())
                    .or_default()
                    .insert(r["zone"].as_str().unwrap().to_string());
            }
        }
    }
    let at_opening = zones_at[&opening].len();
    let best = zones_at.values().map(BTreeSet::len).max().unwrap();
    assert_eq!(
        at_opening, best,
        "no slot has more zones than the opening one"
    );
    assert!(
        zones_at
            .range(opening.clone()..)
            .skip(1)
            .all(|(_, z)| z.len() * 10 < best * 9)
    );
    assert_eq!(opening, "2017-02-02T00:00:00Z");
    assert_eq!(zones_at["2017-02-01T23:45:00Z"].len(), 5);
    assert!(at_opening >= 20, "{at_opening} zones at {opening}");
}

/// With data for now (`serve --demo`'s replay), the page opens at now: on the last quarter of
/// provider data (an hour before now), where the zones whose borders are all recorded read
/// `complete`, not on the 2017 day, which `earlier_slot` names (the "Earlier data" button).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_data_for_now_the_page_opens_on_the_freshest_provider_data() {
    let reference = Arc::new(ReferenceData::embedded(ZoneSet::Selected2026));
    let now = datetime!(2026-11-26 14:07:00 UTC);
    let store: SharedStore =
        Arc::new(gridprint_store_sqlite::SqliteStore::open_in_memory().unwrap());
    gridprint_pipeline::demo::import_demo(&*store, &reference, now, &mut ()).unwrap();
    let live = gridprint_pipeline::demo::LiveDemo::new(store.clone(), reference.clone()).unwrap();
    assert!(live.leading().await.unwrap());
    live.step(now).await.unwrap();
    let state = AppState::builder(
        store,
        reference,
        Arc::new(MutableClock::new(now)),
        ApiConfig::default(),
    )
    .build()
    .unwrap();
    gridprint_api::refresh::load(&state).await.unwrap();
    let home = gridprint_dashboard::router(&state, DashboardConfig::default());
    let app = router_with_home(state, home);
    let (_, _, meta) = get(&app, "/dashboard/api/meta", false).await;
    let meta: serde_json::Value = serde_json::from_slice(&meta).unwrap();
    // Provider data up to 13:00 (exclusive): the last quarter is 12:45.
    assert_eq!(meta["opening_slot"], "2026-11-26T12:45:00Z", "{meta}");
    assert_eq!(meta["earlier_slot"], "2017-02-02T00:00:00Z", "{meta}");
    let (_, _, day) = get(&app, "/dashboard/api/day?date=2026-11-26", false).await;
    let day: serde_json::Value = serde_json::from_slice(&day).unwrap();
    let mut with_value = BTreeSet::new();
    let mut complete = BTreeSet::new();
    for r in day["parts"]["footprints:global:life-cycle"]
        .as_array()
        .unwrap()
    {
        if r["footprint_type"] != "carbon" {
            continue;
        }
        for series in r["series"].as_array().unwrap() {
            for point in series["values"].as_array().unwrap() {
                if point[0] == "2026-11-26T12:45:00Z" {
                    let z = r["zone"].as_str().unwrap().to_string();
                    if series["zone_status"] == "complete" {
                        complete.insert(z.clone());
                    }
                    with_value.insert(z);
                }
            }
        }
    }
    assert!(with_value.len() >= 20, "{with_value:?}");
    assert_eq!(
        complete.into_iter().collect::<Vec<_>>(),
        ["CZ", "EE", "ES", "LV", "PT", "SK"]
    );
}

/// The dashboard's answers are kept and served the API's one way: a client that takes no gzip gets
/// the plain bytes (no gzip copy is made for it), and a large answer counts against the API's
/// response memory budget (refused with 503 past it, like a `/v1` answer).
#[tokio::test]
async fn answers_honour_accept_encoding_and_count_against_the_response_memory_budget() {
    let app = app(DashboardMode::Public, 1000).await;
    let day = |encoding: &'static str| {
        Request::get("/dashboard/api/day?date=2017-02-01")
            .header(header::ACCEPT_ENCODING, encoding)
            .body(Body::empty())
            .unwrap()
    };
    let r = app.clone().oneshot(day("identity")).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers().get(header::CONTENT_ENCODING).is_none());
    let plain = axum::body::to_bytes(r.into_body(), usize::MAX)
        .await
        .unwrap();
    assert!(plain.len() >= gridprint_api::kept::precompress::PRECOMPRESS_MIN_BYTES);
    serde_json::from_slice::<serde_json::Value>(&plain).unwrap();
    let r = app.clone().oneshot(day("gzip")).await.unwrap();
    assert_eq!(r.headers()[header::CONTENT_ENCODING], "gzip");

    // A budget smaller than one day of every zone: the day is refused, a small answer is not.
    let small = app_with_budget(DashboardMode::Public, 1000, None, None, 256 << 10).await;
    let r = small.clone().oneshot(day("identity")).await.unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(r.headers().contains_key(header::RETRY_AFTER));
    let (s, _, _) = get(&small, "/dashboard/api/meta", false).await;
    assert_eq!(s, StatusCode::OK);
}

/// One table of timestamps through every route family that reads one (`/v1`, its `/latest` alias,
/// the Electricity Maps `/v3` and `/v4` routes, the WattTime routes, the dashboard's day): what is
/// not one valid instant is refused with the family's 4xx naming the parameter, never read as
/// another instant; the forms real clients send are answered.
#[tokio::test]
async fn every_route_family_reads_timestamps_with_one_strict_parser() {
    let app = app(DashboardMode::Public, 1000).await;
    const END: &str = "2017-02-01T14:00:00Z";
    let bad = [
        "2017-02-01T12:34:60Z",        // a leap second
        "2017-02-30T12:00:00Z",        // no such day
        "2017-02-01T24:00:00Z",        // hour out of range
        "2017-02-01T12:00:00Zjunk",    // trailing text
        "2017-02-01%20junk",           // a date and then text
        "2017-02-01T12:00:00%2B15:00", // an offset beyond ±14:00
        "yesterday",
    ];
    let good = [
        "2017-02-01T12:00:00Z",
        "2017-02-01T13:00:00%2B01:00",
        "2017-02-01T12:00:00.5Z",
        "2017-02-01%2012:00:00",
        "2017-02-01",
        "1485950400",
    ];
    // (family, the parameter, the request with `{}` for the timestamp, whether it takes instants)
    let routes: [(&str, &str, String, bool); 9] = [
        (
            "v1",
            "start",
            format!("/v1/footprints?zone=DE&start={{}}&end={END}"),
            true,
        ),
        (
            "latest",
            "start",
            format!("/latest/footprints?zone=DE&start={{}}&end={END}"),
            true,
        ),
        (
            "v3",
            "datetime",
            "/v3/carbon-intensity/past?zone=DE&datetime={}".into(),
            true,
        ),
        (
            "v3",
            "start",
            format!("/v3/carbon-intensity/past-range?zone=DE&start={{}}&end={END}"),
            true,
        ),
        (
            "v4",
            "datetime",
            "/v4/carbon-intensity/past?zone=DE&datetime={}".into(),
            true,
        ),
        (
            "v4",
            "start",
            format!("/v4/carbon-intensity/past-range?zone=DE&start={{}}&end={END}"),
            true,
        ),
        (
            "watttime",
            "start",
            format!("/v3/historical?region=DE&signal_type=co2_aoer&start={{}}&end={END}"),
            true,
        ),
        (
            "watttime",
            "start",
            format!("/v3/forecast/historical?region=DE&signal_type=co2_aoer&start={{}}&end={END}"),
            true,
        ),
        (
            "dashboard",
            "date",
            "/dashboard/api/day?date={}".into(),
            false,
        ),
    ];
    for (family, param, template, instants) in &routes {
        for t in bad {
            let uri = template.replace("{}", t);
            let (status, _, body) = get(&app, &uri, true).await;
            let body = String::from_utf8_lossy(&body);
            let want = if family == &"v1" || family == &"latest" {
                StatusCode::UNPROCESSABLE_ENTITY
            } else {
                StatusCode::BAD_REQUEST
            };
            assert_eq!(status, want, "{uri}: {body}");
            let named = match *family {
                "v1" | "latest" => body.contains(&format!(r#""loc":["query","{param}"]"#)),
                // WattTime's error body is its own: only that it names the parameter.
                "watttime" => body.contains(param),
                _ => body.contains(&format!("\"{param} ")),
            };
            assert!(named, "{uri}: the answer names {param}: {body}");
        }
        for t in good {
            if !instants && t != "2017-02-01" {
                continue;
            }
            let uri = template.replace("{}", t);
            let (status, _, body) = get(&app, &uri, true).await;
            assert_eq!(
                status,
                StatusCode::OK,
                "{uri}: {}",
                String::from_utf8_lossy(&body)
            );
        }
    }
}
