//! Hostile input against the whole HTTP interface (docs/reliability.md, "Hostile input and security
//! headers"), and secrets kept out of answers and logs:
//!
//! - injection-like strings (SQL quotes, `../`, `%00`, invalid UTF-8, unicode, long values,
//!   `<script>`) in every parameter of every data endpoint → 200, 400, 404, 414 or 422, never 5xx, and
//!   every error is problem+json with a string `detail`;
//! - long request targets → 414, large headers → 431 (in-process and over a real socket, where hyper's
//!   own limits apply beyond ours);
//! - slow clients (silent, trickling their head byte by byte, idle on a kept-alive connection) are
//!   disconnected after the header-read timeout while others are served;
//! - unknown and duplicated parameters handled as docs/api.md §2 says (unknown ignored, names
//!   case-sensitive, the last occurrence wins);
//! - token-service bodies that are deep, huge (> 4 KB, with and without a length), not UTF-8, or of
//!   the wrong content type → 4xx;
//! - security headers on every response (`nosniff`; a CSP on HTML pages; `no-store` on the token
//!   service) and CORS off by default, on for exactly the configured origin.
//!
//! The data is one real day (NL generation, load and DE↔NL flows of 2024-09-02, ENTSO-E API
//! fixtures) imported into an in-memory SQLite store and computed, so 200 answers carry real series.

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use gridprint_api::testing::MutableClock;
use gridprint_api::{ApiConfig, AppState, router};
use gridprint_query::QueryService;
use gridprint_store::{SharedStore, TokenRecord};
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use time::macros::datetime;

mod common;
use common::DAY_NL as DAY;
use common::*;

const FILES: &[&str] = &[
    "entsoe-api/A75_NL_2024-09-02_PT15M_A03.xml",
    "entsoe-api/A65_A16_NL_2024-09-02_PT15M_A03.xml",
    "entsoe-api/A11_DE-LU-to-NL_2024-09-02to08_PT15M_A03.xml",
    "entsoe-api/A11_NL-to-DE-LU_2024-09-02to08_PT15M_A03.xml",
];

/// The store with one real day imported and computed and a valid token, loaded once.
fn data() -> &'static (SharedStore, Arc<QueryService>) {
    static D: OnceLock<(SharedStore, Arc<QueryService>)> = OnceLock::new();
    D.get_or_init(|| {
        std::thread::spawn(|| {
            let r = reference();
            let store: SharedStore =
                Arc::new(gridprint_store_sqlite::SqliteStore::open_in_memory().unwrap());
            gridprint_pipeline::testing::import_fixtures(
                &*store,
                &r,
                FILES,
                1,
                Some(datetime!(2026-01-01 00:00:00 UTC)),
            );
            let now = NOW.unix_timestamp();
            store.grant("ada@example.org", None, now).unwrap();
            store
                .register("ada@example.org", "$argon2id$not-a-real-hash", now)
                .unwrap();
            store
                .insert_token(&TokenRecord {
                    token_hash: gridprint_api::tokens::auth::token_hash(TOKEN),
                    email: "ada@example.org".into(),
                    issued_at: now,
                    expires_at: now + 86_400,
                })
                .unwrap();
            let query = Arc::new(QueryService::load(&*store, r).unwrap());
            (store, query)
        })
        .join()
        .unwrap()
    })
}

fn state_with(config: ApiConfig) -> AppState {
    let (store, query) = data();
    AppState::builder(
        store.clone(),
        reference(),
        Arc::new(MutableClock::new(NOW)),
        config,
    )
    .query_service(query.clone())
    .build()
    .unwrap()
}

fn app_with(config: ApiConfig) -> Router {
    router(state_with(config))
}

fn app() -> Router {
    app_with(quiet_config())
}

fn get_req(uri: &str) -> Request<Body> {
    Request::builder()
        .uri(uri)
        .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
        .body(Body::empty())
        .unwrap()
}

async fn get(app: &Router, uri: &str) -> Reply {
    send(app, get_req(uri)).await
}

/// Every answer: no 5xx, `nosniff`, and errors are problem+json with a string `detail` and no trace.
fn assert_sane(r: &Reply, what: &str) {
    assert!(
        !r.status.is_server_error(),
        "{what}: {} {}",
        r.status,
        r.text()
    );
    assert_eq!(
        r.header(header::X_CONTENT_TYPE_OPTIONS),
        "nosniff",
        "{what}: {}",
        r.status
    );
    if r.status == StatusCode::UNPROCESSABLE_ENTITY
        && r.header(header::CONTENT_TYPE) == "application/json"
    {
        // Wrongly typed query parameters: the reference framework's list.
        assert_eq!(r.header(header::CONTENT_TYPE), "application/json", "{what}");
        let v = r.json();
        assert!(v["detail"].is_array(), "{what}: detail not a list: {v}");
    } else if r.status.is_client_error() {
        assert_eq!(
            r.header(header::CONTENT_TYPE),
            "application/problem+json",
            "{what}: {} {}",
            r.status,
            r.text()
        );
        let v = r.json();
        assert!(v["detail"].is_string(), "{what}: detail not a string: {v}");
        assert_eq!(v["status"], r.status.as_u16(), "{what}");
        let t = r.text();
        assert!(
            !t.contains("panicked") && !t.contains(".rs:") && !t.contains("rusqlite"),
            "{what}: leaks internals: {t}"
        );
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Hostile values, already in their on-the-wire (query-encoded) form.
fn hostile_values() -> Vec<String> {
    let plain = [
        "' OR '1'='1",
        "NL'; DROP TABLE derived_day; --",
        "\" OR \"\"=\"",
        "1) UNION SELECT token_hash FROM token--",
        "../../../../etc/passwd",
        "..\\..\\windows\\win.ini",
        "<script>alert(1)</script>",
        "\"><img src=x onerror=alert(1)>",
        "${jndi:ldap://example.invalid/a}",
        "{{7*7}}",
        "Zürich 日本語 🙂 \u{202e}LN",
        "\u{0}",
        "NL\r\nSet-Cookie: a=b",
        "NaN",
        "-inf",
        "1e309",
        "-0",
        "99999999999999999999999999",
        "2024-13-45T25:61:61Z",
        "+275760-09-13T00:00:00Z",
        "0001-01-01",
        "true;false",
        "NL,,,DE,,",
        ",",
        " ",
        "*",
        "%",
        "&",
        "=",
        &"NL,".repeat(700),
        &"x".repeat(2_000),
    ];
    let mut v: Vec<String> = plain.iter().map(|s| enc(s)).collect();
    // Raw encodings the plain strings cannot produce: NUL, invalid UTF-8, overlong and broken escapes,
    // encoded dots and slashes, a bare `%`.
    v.extend(
        [
            "%00",
            "NL%00",
            "%ff%fe",
            "%c0%ae%c0%ae%2f",
            "%e2%82",
            "%2e%2e%2f%2e%2e%2f",
            "%",
            "%zz",
            "%%32%65",
            "a+b+c",
        ]
        .map(String::from),
    );
    // 10 KB: over the 8 KB request-target limit → 414.
    v.push("A".repeat(10 * 1024));
    v
}

/// Every data endpoint with the parameters it reads besides `start`, `end`, `format` and the zone.
const ENDPOINTS: &[(&str, &[&str])] = &[
    ("/v1/generation", &["production_type"]),
    ("/v1/load", &[]),
    ("/v1/imports", &["source_zone", "source_lat", "source_lon"]),
    (
        "/v1/exports",
        &["destination_zone", "destination_lat", "destination_lon"],
    ),
    ("/v1/mix", &["production_type"]),
    (
        "/v1/footprints",
        &["footprint_type", "scope", "aggregate", "use_global"],
    ),
    (
        "/v1/impacts",
        &["impact_type", "scope", "aggregate", "use_global"],
    ),
    ("/v1/green-score", &["scope", "aggregate", "use_global"]),
    (
        "/v1/environmental-score",
        &["scope", "aggregate", "use_global"],
    ),
    (
        "/v1/flow-share",
        &["destination_zone", "destination_lat", "destination_lon"],
    ),
    (
        "/v1/mix-share",
        &["origin_zone", "origin_lat", "origin_lon"],
    ),
    (
        "/v1/footprint-share",
        &[
            "source_zone",
            "source_lat",
            "source_lon",
            "footprint_type",
            "scope",
        ],
    ),
    (
        "/v1/impact-share",
        &[
            "source_zone",
            "source_lat",
            "source_lon",
            "impact_type",
            "scope",
        ],
    ),
];

/// The query string of `path` with `param` set to the (encoded) `value` and every other parameter
/// valid: coordinates come in pairs, and a primary lat/lon replaces the zone.
fn query_with(param: &str, value: &str, with_zone: bool) -> String {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let partner = |p: &str| -> Option<String> {
        if let Some(prefix) = p.strip_suffix("lat") {
            Some(format!("{prefix}lon"))
        } else {
            p.strip_suffix("lon").map(|prefix| format!("{prefix}lat"))
        }
    };
    if with_zone && param != "lat" && param != "lon" && param != "zone" {
        pairs.push(("zone".into(), "NL".into()));
    }
    pairs.push((param.into(), value.into()));
    if let Some(other) = partner(param) {
        let v = if other.ends_with("lat") {
            "52.1"
        } else {
            "5.1"
        };
        pairs.push((other, v.into()));
    }
    for (k, v) in DAY.split('&').filter_map(|kv| kv.split_once('=')) {
        if k != param {
            pairs.push((k.into(), v.into()));
        }
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// GETs `path` with the hostile `value` in `param` (see [`query_with`]) and asserts a sane answer
/// of an expected status; returns it with a description of the request.
async fn hostile_get(
    app: &Router,
    path: &str,
    param: &str,
    value: &str,
    with_zone: bool,
) -> (Reply, String) {
    let uri = format!("{path}?{}", query_with(param, value, with_zone));
    let r = get(app, &uri).await;
    let what = format!("{path} {param}={}", &value[..value.len().min(60)]);
    assert_sane(&r, &what);
    assert!(
        matches!(r.status.as_u16(), 200 | 400 | 404 | 414 | 422),
        "{what}: unexpected {} {}",
        r.status,
        r.text()
    );
    (r, what)
}

#[tokio::test]
async fn hostile_values_in_every_parameter_of_every_data_endpoint_never_give_5xx() {
    let app = app();
    let values = hostile_values();
    let mut counts = std::collections::BTreeMap::<u16, usize>::new();
    let mut requests = 0;
    for (path, own) in ENDPOINTS {
        let params: Vec<&str> = ["zone", "lat", "lon", "start", "end", "format"]
            .into_iter()
            .chain(own.iter().copied())
            .collect();
        for param in params {
            for value in &values {
                let (r, what) = hostile_get(&app, path, param, value, true).await;
                if r.status == StatusCode::OK {
                    let ct = r.header(header::CONTENT_TYPE).to_owned();
                    if ct.starts_with("application/json") {
                        assert!(r.json().is_array(), "{what}: {}", r.text());
                    } else {
                        assert!(ct.starts_with("text/csv"), "{what}: {ct}");
                    }
                }
                *counts.entry(r.status.as_u16()).or_default() += 1;
                requests += 1;
            }
        }
    }
    // Factors (no location), zones and status take their own parameters.
    for (path, params) in [
        (
            "/v1/factors",
            &[
                "factor_type",
                "scope",
                "production_type",
                "aggregate",
                "start",
                "end",
                "format",
            ][..],
        ),
        ("/v1/zones", &["format", "zone"][..]),
        ("/v1/status", &["format"][..]),
    ] {
        for param in params {
            for value in &values {
                let (r, _) = hostile_get(&app, path, param, value, false).await;
                *counts.entry(r.status.as_u16()).or_default() += 1;
                requests += 1;
            }
        }
    }
    // Hostile path segments: the status component, encoded traversal, NUL.
    for value in &values {
        let r = get(&app, &format!("/v1/status/{value}")).await;
        assert_sane(&r, &format!("/v1/status/{value}"));
        assert!(
            matches!(r.status.as_u16(), 200 | 400 | 404 | 414),
            "{value}: {}",
            r.status
        );
        requests += 1;
    }
    for p in [
        "/v1/footprints/../zones",
        "/v1/%2e%2e/v1/zones",
        "/v1/zones%00",
        "/v1//zones",
        "/%2F%2Fevil.example/",
        "/token-request/..%2f..%2fetc%2fpasswd",
        "/v1/docs/../../Cargo.toml",
    ] {
        let r = get(&app, p).await;
        assert_sane(&r, p);
        // A trailing slash answers 307 (issue #12) with a relative Location that stays on this
        // origin (never `//host`).
        let same_origin_redirect = r.status == StatusCode::TEMPORARY_REDIRECT
            && r.header(header::LOCATION).starts_with("../");
        assert!(
            r.status == StatusCode::NOT_FOUND || r.status.is_success() || same_origin_redirect,
            "{p}: {}",
            r.status
        );
        assert!(!r.text().contains("[package]"), "{p}: served a file");
    }
    eprintln!("{requests} hostile requests; statuses {counts:?}");
    assert!(counts.get(&200).copied().unwrap_or(0) > 100, "{counts:?}");
    assert!(counts.get(&414).copied().unwrap_or(0) > 0, "{counts:?}");
}

#[tokio::test]
async fn injection_strings_select_nothing_and_reveal_nothing() {
    let app = app();
    // A quoted "zone" is an unknown code: 200 [] (docs/api.md §2: unknown zone → []), never
    // everything.
    for z in ["' OR '1'='1", "NL' --", "NL\" OR 1=1", "*", "%"] {
        let r = get(&app, &format!("/v1/footprints?zone={}&{DAY}", enc(z))).await;
        assert_sane(&r, z);
        assert_eq!(r.status, StatusCode::OK, "{z}: {}", r.text());
        assert_eq!(r.json(), serde_json::json!([]), "{z}");
    }
    // Reflected markup stays inert: JSON (problem+json) with nosniff, never text/html.
    let r = get(
        &app,
        &format!(
            "/v1/footprints?zone=NL&footprint_type={}&{DAY}",
            enc("<script>alert(1)</script>")
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text());
    assert!(!r.header(header::CONTENT_TYPE).contains("html"));
    // The data is still there afterwards (nothing was dropped).
    let r = get(&app, &format!("/v1/footprints?zone=NL&{DAY}")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(!r.json().as_array().unwrap().is_empty());
}

#[tokio::test]
async fn unknown_and_duplicated_parameters_follow_the_documented_rules() {
    let app = app();
    let field_of = |v: &Value, field: &str| -> BTreeSet<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|o| o[field].as_str().unwrap().to_string())
            .collect()
    };
    let zones_of = |v: &Value| field_of(v, "zone");
    let types_of = |v: &Value| field_of(v, "footprint_type");
    let base = get(&app, &format!("/v1/footprints?zone=NL&{DAY}"))
        .await
        .json();
    assert_eq!(zones_of(&base), BTreeSet::from(["NL".to_string()]));
    // Unknown parameters are ignored, including differently cased known names.
    for extra in [
        "foo=bar",
        "ZONE=DE",
        "Zone=DE",
        "zone%5B%5D=DE",
        "callback=alert",
        "__proto__=x",
        "=",
        "&&&",
    ] {
        let r = get(&app, &format!("/v1/footprints?zone=NL&{extra}&{DAY}")).await;
        assert_sane(&r, extra);
        assert_eq!(r.status, StatusCode::OK, "{extra}: {}", r.text());
        assert_eq!(r.json(), base, "{extra}");
    }
    // A bare `zone` is an empty zone (the last occurrence wins): all zones, as on the reference.
    let r = get(&app, &format!("/v1/footprints?zone=NL&zone&{DAY}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    let all = get(&app, &format!("/v1/footprints?{DAY}")).await.json();
    assert_eq!(r.json(), all);
    // Duplicated parameters: the last occurrence wins, as on the reference (changed from "the first"
    // by the compatibility issue).
    let r = get(&app, &format!("/v1/footprints?zone=DE&zone=NL&{DAY}")).await;
    assert_eq!(r.json(), base);
    let r = get(
        &app,
        &format!("/v1/footprints?zone=NL&footprint_type=water&footprint_type=carbon&{DAY}"),
    )
    .await;
    assert_eq!(types_of(&r.json()), BTreeSet::from(["carbon".to_string()]));
    // A bad earlier duplicate is ignored; a bad last one is reported.
    let r = get(
        &app,
        &format!("/v1/footprints?zone=NL&footprint_type=%3Cx%3E&footprint_type=water&{DAY}"),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(types_of(&r.json()), BTreeSet::from(["water".to_string()]));
    let r = get(
        &app,
        &format!("/v1/footprints?zone=NL&footprint_type=water&footprint_type=x&{DAY}"),
    )
    .await;
    assert_sane(&r, "bad last duplicate");
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = get(
        &app,
        "/v1/footprints?zone=NL&start=garbage&start=2024-09-02&end=garbage&end=2024-09-03",
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(r.json(), base);
    let r = get(
        &app,
        "/v1/footprints?zone=NL&start=2024-09-02&start=garbage&end=2024-09-03",
    )
    .await;
    assert_sane(&r, "bad last start");
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn long_targets_are_414_and_large_headers_431_in_process() {
    let app = app();
    let long = format!("/v1/footprints?zone=NL&{DAY}&pad={}", "a".repeat(9 * 1024));
    let r = get(&app, &long).await;
    assert_sane(&r, "long target");
    assert_eq!(r.status, StatusCode::URI_TOO_LONG);
    // Also on public routes, and before authentication (no token).
    let r = send(
        &app,
        Request::builder()
            .uri(format!("/v1/status?{}", "a=b&".repeat(3000)))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_sane(&r, "long status target");
    assert_eq!(r.status, StatusCode::URI_TOO_LONG);
    // One huge header, and many medium ones.
    let r = send(
        &app,
        Request::builder()
            .uri(format!("/v1/footprints?zone=NL&{DAY}"))
            .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
            .header("x-padding", "p".repeat(20 * 1024))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_sane(&r, "huge header");
    assert_eq!(r.status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    let mut b = Request::builder().uri("/v1/zones");
    for i in 0..90 {
        b = b.header(format!("x-pad-{i}"), "q".repeat(400));
    }
    let r = send(&app, b.body(Body::empty()).unwrap()).await;
    assert_sane(&r, "many headers");
    assert_eq!(r.status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    // A huge bearer token: 431 (too large) rather than an attempt to hash it.
    let r = send(
        &app,
        Request::builder()
            .uri("/v1/zones")
            .header(
                header::AUTHORIZATION,
                format!("Bearer {}", "t".repeat(17 * 1024)),
            )
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    // Odd but small Authorization values: 401, not 5xx.
    for auth in [
        "Bearer",
        "Bearer ",
        "Bearer ' OR 1=1 --",
        "Basic YWRhOnB3",
        "bearer 0123",
        "Bearer \u{7f}",
    ] {
        let Ok(b) = Request::builder()
            .uri("/v1/zones")
            .header(header::AUTHORIZATION, auth)
            .body(Body::empty())
        else {
            continue;
        };
        let r = send(&app, b).await;
        assert_sane(&r, auth);
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{auth}");
    }
}

/// `gridprint_api::serve` with `config` on an ephemeral port: its address, the sender that stops it,
/// and its task.
async fn on_a_socket(
    config: ApiConfig,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let state = state_with(config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(gridprint_api::serve(listener, state, async {
        let _ = stopped.await;
    }));
    (addr, stop, server)
}

/// Writes `raw` to a fresh connection and reads the answer until the server closes it or 5 s pass;
/// returns the status (0 when the server closed without answering) and the whole answer.
async fn raw_http(addr: std::net::SocketAddr, raw: &[u8]) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    // The server may answer and close before it has read everything: ignore write errors.
    let _ = s.write_all(raw).await;
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut buf)).await;
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, text)
}

#[tokio::test]
async fn over_a_socket_long_targets_and_huge_headers_are_refused() {
    let (addr, stop, server) = on_a_socket(quiet_config()).await;
    let req = |target: &str, headers: &str| {
        format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{headers}\r\n")
            .into_bytes()
    };
    let mut seen = Vec::new();
    // Within hyper's limits our middleware answers problem+json.
    let (s, text) = raw_http(addr, &req(&format!("/v1/zones?{}", "a".repeat(9000)), "")).await;
    assert_eq!(s, 414, "{}", &text[..text.len().min(300)]);
    assert!(text.contains("application/problem+json") && text.contains("\"detail\""));
    seen.push(("9 KB target", s));
    let (s, text) = raw_http(
        addr,
        &req("/v1/zones", &format!("X-Pad: {}\r\n", "p".repeat(20_000))),
    )
    .await;
    assert_eq!(s, 431, "{}", &text[..text.len().min(300)]);
    assert!(text.contains("application/problem+json"));
    seen.push(("20 KB header", s));
    // Beyond hyper's limits hyper itself refuses (an empty 414/431, or the connection is closed);
    // never a 5xx, and the server keeps serving.
    for (what, raw) in [
        (
            "100 KB target",
            req(&format!("/v1/zones?{}", "a".repeat(100_000)), ""),
        ),
        (
            "1 MB header",
            req("/v1/zones", &format!("X-Pad: {}\r\n", "p".repeat(1 << 20))),
        ),
        (
            "200 headers",
            req(
                "/v1/zones",
                &(0..200)
                    .map(|i| format!("X-H{i}: v\r\n"))
                    .collect::<String>(),
            ),
        ),
        ("garbage request line", b"\x00\xff GARBAGE\r\n\r\n".to_vec()),
        ("HTTP/0.9", b"GET /v1/zones\r\n\r\n".to_vec()),
    ] {
        let (s, text) = raw_http(addr, &raw).await;
        assert!(
            s == 0 || (400..500).contains(&s),
            "{what}: {s} {}",
            &text[..text.len().min(300)]
        );
        seen.push((what, s));
    }
    // A chunked token-service body (no length) larger than 4 KB: 413 all the same.
    let mut chunked = b"POST /token-request/get_token HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        .to_vec();
    for _ in 0..64 {
        chunked.extend_from_slice(b"400\r\n");
        chunked.extend_from_slice(&[b' '; 1024]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let (s, text) = raw_http(addr, &chunked).await;
    assert_eq!(s, 413, "{}", &text[..text.len().min(300)]);
    assert!(text.contains("application/problem+json"));
    seen.push(("64 KB chunked body", s));
    // Issue #28 item 10: a claimed Content-Length of 10 GB, with no body sent → 413 at once (it
    // waited 30 s for the body, then 503), on the token service and on any other path.
    for target in ["/token-request/get_token", "/v1/status"] {
        let raw = format!(
            "POST {target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n"
        );
        let started = std::time::Instant::now();
        let (s, text) = raw_http(addr, raw.as_bytes()).await;
        assert_eq!(s, 413, "{target}: {}", &text[..text.len().min(300)]);
        assert!(text.contains("application/problem+json"));
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{target}: answered after {:?}",
            started.elapsed()
        );
    }
    seen.push(("Content-Length: 10000000000", 413));
    let (s, _) = raw_http(addr, &req("/v1/status", "")).await;
    assert_eq!(s, 200, "still serving");
    eprintln!("over a socket: {seen:?}");
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

#[tokio::test]
async fn slow_clients_are_disconnected_by_the_header_read_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::time::Instant;
    let timeout = Duration::from_secs(1);
    let (addr, stop, server) = on_a_socket(ApiConfig {
        header_read_timeout: timeout,
        ..quiet_config()
    })
    .await;
    // Reads until the server closes the connection; returns when, and what it sent.
    async fn until_closed(s: &mut tokio::net::TcpStream) -> (Duration, String) {
        let started = Instant::now();
        let mut buf = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut buf)).await;
        assert!(read.is_ok(), "still open after 20 s");
        (
            started.elapsed(),
            String::from_utf8_lossy(&buf).into_owned(),
        )
    }
    // 1. Connects and sends nothing.
    let mut silent = tokio::net::TcpStream::connect(addr).await.unwrap();
    // 2. Sends its head one byte every 100 ms (the whole head would take ~6 s).
    let trickle = tokio::spawn(async move {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        let started = Instant::now();
        let head = b"GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaa\r\n\r\n";
        let mut sent = 0;
        for b in head {
            if s.write_all(&[*b]).await.is_err() {
                break;
            }
            sent += 1;
            tokio::time::sleep(Duration::from_millis(100)).await;
            let mut probe = [0u8; 1];
            if let Ok(Ok(0)) = tokio::time::timeout(Duration::ZERO, s.read(&mut probe)).await {
                break;
            }
        }
        (started.elapsed(), sent, head.len())
    });
    // 3. Gets one answer on a kept-alive connection, then goes quiet.
    let mut quiet = tokio::net::TcpStream::connect(addr).await.unwrap();
    quiet
        .write_all(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut status = [0u8; 12];
    quiet.read_exact(&mut status).await.unwrap();
    assert_eq!(&status, b"HTTP/1.1 200");

    let (silent_after, silent_text) = until_closed(&mut silent).await;
    assert!(
        silent_after >= timeout - Duration::from_millis(100) && silent_after < timeout * 10,
        "silent client closed after {silent_after:?}"
    );
    assert!(
        silent_text.is_empty() || silent_text.starts_with("HTTP/1.1 408"),
        "{silent_text}"
    );
    let (quiet_after, _) = until_closed(&mut quiet).await;
    assert!(
        quiet_after < timeout * 10,
        "quiet kept-alive client closed after {quiet_after:?}"
    );
    let (trickle_after, sent, whole) = trickle.await.unwrap();
    assert!(
        sent < whole,
        "the trickling client sent its whole head ({sent} bytes in {trickle_after:?})"
    );
    // Everyone else is still served.
    let (s, _) = raw_http(
        addr,
        b"GET /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(s, 200);
    eprintln!(
        "header-read timeout {timeout:?}: silent client closed after {silent_after:?}, quiet \
         kept-alive client after {quiet_after:?}, trickling client cut off after {sent}/{whole} \
         bytes ({trickle_after:?})"
    );
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

fn post(path: &str, content_type: Option<&str>, body: Body) -> Request<Body> {
    let mut b = Request::builder().method(Method::POST).uri(path);
    if let Some(ct) = content_type {
        b = b.header(header::CONTENT_TYPE, ct);
    }
    b.body(body).unwrap()
}

#[tokio::test]
async fn hostile_token_service_bodies_are_4xx() {
    let app = app();
    let deep_array = format!(
        "{{\"email\": {}1{}, \"password\": \"correct horse battery\"}}",
        "[".repeat(1500),
        "]".repeat(1500)
    );
    assert!(deep_array.len() < 4096);
    let deep_object = format!("{}{}", "{\"a\":".repeat(600), "}".repeat(600));
    assert!(deep_object.len() < 4096);
    let mut not_utf8 = br#"{"email": "ada@example.org", "password": "correct horse "#.to_vec();
    not_utf8.extend_from_slice(&[0xff, 0xfe, 0xc0, 0xaf]);
    not_utf8.extend_from_slice(br#""}"#);
    let utf16: Vec<u8> = r#"{"email":"ada@example.org","password":"correct horse battery"}"#
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    let bom = [
        &[0xef, 0xbb, 0xbf][..],
        br#"{"email":"ada@example.org","password":"correct horse battery"}"#,
    ]
    .concat();
    let cases: Vec<(&str, Option<&str>, Vec<u8>)> = vec![
        (
            "deep array",
            Some("application/json"),
            deep_array.into_bytes(),
        ),
        (
            "deep object",
            Some("application/json"),
            deep_object.into_bytes(),
        ),
        ("not UTF-8", Some("application/json"), not_utf8.clone()),
        ("UTF-16", Some("application/json"), utf16),
        ("BOM", Some("application/json"), bom),
        ("huge 5 KB", Some("application/json"), vec![b' '; 5000]),
        (
            "huge 1 MB",
            Some("application/json"),
            format!("{{\"email\":\"{}\"}}", "a".repeat(1 << 20)).into_bytes(),
        ),
        (
            "text/plain",
            Some("text/plain"),
            br#"{"email":"a"}"#.to_vec(),
        ),
        ("xml", Some("application/xml"), b"<email>a</email>".to_vec()),
        ("no content type", None, br#"{"email":"a"}"#.to_vec()),
        (
            "multipart",
            Some("multipart/form-data; boundary=x"),
            b"--x\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\na\r\n--x--".to_vec(),
        ),
        (
            "form not UTF-8",
            Some("application/x-www-form-urlencoded"),
            b"email=%ff%fe&password=%c0".to_vec(),
        ),
        (
            "form deep",
            Some("application/x-www-form-urlencoded"),
            "email[a][b][c]=1&".repeat(200).into_bytes(),
        ),
        ("empty", Some("application/json"), Vec::new()),
        ("null", Some("application/json"), b"null".to_vec()),
        ("array", Some("application/json"), b"[1,2,3]".to_vec()),
        ("number", Some("application/json"), b"1e999999".to_vec()),
        (
            "duplicate keys",
            Some("application/json"),
            br#"{"email":"ada@example.org","email":"x@y.zz","password":"correct horse battery"}"#
                .to_vec(),
        ),
        (
            "NUL in email",
            Some("application/json"),
            br#"{"email":"ada@example.org\u0000","password":"correct horse battery"}"#.to_vec(),
        ),
        (
            "SQL in email",
            Some("application/json"),
            br#"{"email":"' OR 1=1 --@x.org","password":"correct horse battery"}"#.to_vec(),
        ),
        (
            "json charset=latin1",
            Some("application/json; charset=iso-8859-1"),
            not_utf8,
        ),
    ];
    for path in ["/token-request/register", "/token-request/get_token"] {
        for (what, ct, body) in &cases {
            let r = send(&app, post(path, *ct, Body::from(body.clone()))).await;
            let what = format!("{path} {what}");
            // Form posts are answered with the HTML page (200 or 4xx); everything else is problem+json.
            if r.header(header::CONTENT_TYPE).starts_with("text/html") {
                assert!(r.status.as_u16() < 500, "{what}: {}", r.status);
                assert!(
                    !r.header(header::CONTENT_SECURITY_POLICY).is_empty(),
                    "{what}"
                );
            } else {
                assert_sane(&r, &what);
                assert!(
                    r.status.is_client_error(),
                    "{what}: {} {}",
                    r.status,
                    r.text()
                );
            }
            assert_eq!(r.header(header::CACHE_CONTROL), "no-store", "{what}");
            if what.contains("huge") {
                assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{what}");
            }
        }
    }
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let app = app();
    let html = ["/", "/v1/docs", "/token-request/"];
    let others = [
        "/v1/openapi.json",
        "/v1/status",
        "/v1/status/storage",
        "/v1/zones",
        "/v1/footprints?zone=NL&start=2024-09-02&end=2024-09-03",
        "/v1/footprints?zone=NL&start=2024-09-02&end=2024-09-03&format=csv",
        "/v1/footprints?zone=NL&start=bad&end=2024-09-03",
        "/v1/nope",
        "/token-request/page.js",
        "/token-request/page.css",
        "/v1/docs/docs.js",
    ];
    for p in html {
        let r = get(&app, p).await;
        assert_eq!(r.status, StatusCode::OK, "{p}");
        assert!(
            r.header(header::CONTENT_TYPE).starts_with("text/html"),
            "{p}"
        );
        assert_eq!(r.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff", "{p}");
        let csp = r.header(header::CONTENT_SECURITY_POLICY);
        assert!(
            csp.contains("default-src 'none'") || csp.contains("default-src 'self'"),
            "{p}: {csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{p}: {csp}");
        assert!(
            !csp.contains("unsafe-inline") || !csp.contains("script-src 'unsafe-inline'"),
            "{p}: {csp}"
        );
    }
    for p in others {
        let r = get(&app, p).await;
        assert_eq!(
            r.header(header::X_CONTENT_TYPE_OPTIONS),
            "nosniff",
            "{p}: {}",
            r.status
        );
        assert!(
            !r.header(header::CONTENT_TYPE).starts_with("text/html"),
            "{p}"
        );
    }
    // Without a token, and on methods that are not allowed.
    let r = send(
        &app,
        Request::builder()
            .uri("/v1/zones")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff");
    let r = send(
        &app,
        Request::builder()
            .method(Method::DELETE)
            .uri("/v1/zones")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_sane(&r, "DELETE");
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    // Token service answers are never cached, successes and failures alike.
    for (path, body) in [
        (
            "/token-request/get_token",
            r#"{"email":"nobody@example.org","password":"wrong password!!"}"#,
        ),
        (
            "/token-request/register",
            r#"{"email":"nobody@example.org","password":"correct horse battery"}"#,
        ),
    ] {
        let r = send(&app, post(path, Some("application/json"), Body::from(body))).await;
        assert!(r.status.is_client_error(), "{path}: {}", r.status);
        assert_eq!(r.header(header::CACHE_CONTROL), "no-store", "{path}");
        assert_eq!(
            r.header(header::X_CONTENT_TYPE_OPTIONS),
            "nosniff",
            "{path}"
        );
    }
    let r = get(&app, "/token-request/").await;
    assert_eq!(r.header(header::CACHE_CONTROL), "no-store");
}

#[tokio::test]
async fn a_successful_token_response_is_not_cacheable() {
    let (store, _) = data();
    // A separate grant so the shared fixture's registration stays as it is.
    let email = "hostile-cache@example.org";
    store.grant(email, None, NOW.unix_timestamp()).unwrap();
    let app = app();
    let body = format!(r#"{{"email":"{email}","password":"correct horse battery"}}"#);
    let r = send(
        &app,
        post(
            "/token-request/register",
            Some("application/json"),
            Body::from(body.clone()),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    let r = send(
        &app,
        post(
            "/token-request/get_token",
            Some("application/json"),
            Body::from(body),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert!(r.json()["access_token"].is_string());
    assert_eq!(r.header(header::CACHE_CONTROL), "no-store");
    assert_eq!(r.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff");
}

#[tokio::test]
async fn cors_is_off_by_default_and_on_for_exactly_the_configured_origin() {
    let evil = "https://evil.example";
    let good = "https://dashboard.example";
    let preflight = |origin: &str, path: &str| {
        Request::builder()
            .method(Method::OPTIONS)
            .uri(path)
            .header(header::ORIGIN, origin)
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "GET")
            .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "authorization")
            .body(Body::empty())
            .unwrap()
    };
    let simple = |origin: &str, path: &str| {
        Request::builder()
            .uri(path)
            .header(header::ORIGIN, origin)
            .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
            .body(Body::empty())
            .unwrap()
    };
    let paths = ["/v1/zones", "/v1/status", "/token-request/get_token"];
    let off = app();
    for p in paths {
        for origin in [evil, good, "null"] {
            let r = send(&off, simple(origin, p)).await;
            assert!(
                r.headers.get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none(),
                "{p} {origin}"
            );
            assert!(
                r.headers
                    .get(header::ACCESS_CONTROL_ALLOW_CREDENTIALS)
                    .is_none(),
                "{p}"
            );
            let r = send(&off, preflight(origin, p)).await;
            assert!(
                r.headers.get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none(),
                "{p} {origin}"
            );
            assert!(!r.status.is_server_error(), "{p}");
        }
    }
    let on = app_with(ApiConfig {
        cors_origin: Some(good.to_string()),
        ..quiet_config()
    });
    for p in paths {
        let r = send(&on, preflight(good, p)).await;
        assert_eq!(r.header(header::ACCESS_CONTROL_ALLOW_ORIGIN), good, "{p}");
        let r = send(&on, simple(good, "/v1/zones")).await;
        assert_eq!(r.header(header::ACCESS_CONTROL_ALLOW_ORIGIN), good);
        for origin in [
            evil,
            "null",
            "https://dashboard.example.evil.example",
            "http://dashboard.example",
        ] {
            // tower-http's exact-origin CORS always names the configured origin (the browser
            // compares it with its own and blocks): a foreign origin is never echoed back.
            for r in [
                send(&on, preflight(origin, p)).await,
                send(&on, simple(origin, p)).await,
            ] {
                let acao = r.header(header::ACCESS_CONTROL_ALLOW_ORIGIN);
                assert!(acao.is_empty() || acao == good, "{p} {origin}: {acao}");
            }
        }
    }
    // No wildcard and no credentials mode (Bearer tokens travel in a header, not cookies).
    let r = send(&on, simple(good, "/v1/zones")).await;
    assert_ne!(r.header(header::ACCESS_CONTROL_ALLOW_ORIGIN), "*");
    assert!(
        r.headers
            .get(header::ACCESS_CONTROL_ALLOW_CREDENTIALS)
            .is_none()
    );
}

/// A request for a large answer over a raw socket (no `Accept-Encoding`: the bytes as rendered).
const LARGE: &[u8] = b"GET /v1/factors?start=2024-08-01T00:00Z&end=2024-08-21T00:00Z&format=csv HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ";

/// A client that asks for a large answer and reads nothing is cut after the send timeout, and
/// the answer's bytes leave the response memory budget (issue #28: six such clients held 1.6 GB
/// for as long as they stayed connected).
#[tokio::test]
async fn clients_that_do_not_read_are_cut_and_their_answer_is_freed() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::time::Instant;
    let state = state_with(ApiConfig {
        send_timeout: Duration::from_secs(1),
        ..quiet_config()
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(gridprint_api::serve(listener, state.clone(), async {
        let _ = stopped.await;
    }));
    let mut idle = tokio::net::TcpStream::connect(addr).await.unwrap();
    idle.write_all(&[LARGE, TOKEN.as_bytes(), b"\r\n\r\n"].concat())
        .await
        .unwrap();
    let started = Instant::now();
    while state.response_memory_in_use() == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never rendered"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let held = state.response_memory_in_use();
    assert!(
        held > 4 << 20,
        "the answer is larger than the socket buffers: {held}"
    );
    let rendered = Instant::now();
    while state.response_memory_in_use() > 0 {
        assert!(
            rendered.elapsed() < Duration::from_secs(10),
            "still held {} bytes 10 s after rendering (send timeout 1 s)",
            state.response_memory_in_use()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The connection is closed: what was buffered, then the end (or a reset), never the whole.
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), idle.read_to_end(&mut got)).await;
    assert!(read.is_ok(), "the connection is still open");
    assert!(got.len() < held, "read {} of {held} bytes", got.len());
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

/// A large answer for a client that takes gzip is compressed once where it is built and kept
/// compressed: the same bytes as the plain answer once unzipped, `Vary: Accept-Encoding`, served
/// again from the response cache, and kept compressed even when it is too large to keep plain
/// (issue #28 item 3: twenty 32 MB availability answers a second were compressed again, each on the
/// async workers). A client that does not take gzip gets the plain answer or the layer's br.
#[tokio::test]
async fn large_answers_are_gzipped_once_and_kept_compressed() {
    const URI: &str = "/v1/factors?start=2024-08-01T00:00Z&end=2024-08-03T00:00Z";
    fn with_encoding(accept: &str) -> Request<Body> {
        let mut r = get_req(URI);
        r.headers_mut()
            .insert(header::ACCEPT_ENCODING, accept.parse().unwrap());
        r
    }
    let state = state_with(quiet_config());
    let app = router(state.clone());
    let plain = get(&app, URI).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert!(
        plain.body.len() >= gridprint_api::kept::precompress::PRECOMPRESS_MIN_BYTES,
        "a large answer: {} bytes",
        plain.body.len()
    );
    assert_eq!(plain.header(header::CONTENT_ENCODING), "");
    let (entries, _) = state.response_cache().usage();
    let gz = send(&app, with_encoding("gzip, deflate, br")).await;
    assert_eq!(gz.status, StatusCode::OK);
    assert_eq!(gz.header(header::CONTENT_ENCODING), "gzip");
    assert!(
        gz.headers
            .get_all(header::VARY)
            .iter()
            .any(|v| v.to_str().unwrap().eq_ignore_ascii_case("accept-encoding")),
        "{:?}",
        gz.headers
    );
    assert_eq!(gunzip(&gz.body), plain.body);
    assert_eq!(
        state.response_cache().usage().0,
        entries + 1,
        "the gzip bytes are kept beside the plain ones"
    );
    let again = send(&app, with_encoding("gzip")).await;
    assert_eq!(again.body, gz.body);
    assert_eq!(
        state.response_cache().usage().0,
        entries + 1,
        "served from it"
    );
    // Without gzip: the compression layer's br, or the plain bytes.
    let br = send(&app, with_encoding("gzip;q=0, br")).await;
    assert_eq!(br.header(header::CONTENT_ENCODING), "br");
    let identity = send(&app, with_encoding("identity")).await;
    assert_eq!(identity.body, plain.body);

    // A cache too small to keep the plain answer (a quarter of the budget at most) keeps it
    // compressed.
    let small = state_with(ApiConfig {
        response_cache_bytes: 2 * plain.body.len(),
        ..quiet_config()
    });
    let app = router(small.clone());
    let gz = send(&app, with_encoding("gzip")).await;
    assert_eq!(gunzip(&gz.body), plain.body);
    let (entries, bytes) = small.response_cache().usage();
    assert_eq!((entries, bytes), (1, gz.body.len()), "only the gzip bytes");
    assert_eq!(get(&app, URI).await.body, plain.body, "plain, built again");
}

/// One client address holds at most `max_connections_per_address` connections at once: past it a
/// new connection is closed without an answer, while another address is still served (issue #28:
/// no per-address connection cap).
#[tokio::test]
async fn one_address_holds_at_most_its_connection_cap() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpSocket, TcpStream};
    const STATUS: &[u8] = b"GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n";
    // Sends a status request on `c` and reads what comes back within 10 s (the first bytes, or
    // nothing when the server closed the connection).
    async fn ask(c: &mut TcpStream) -> String {
        let _ = c.write_all(STATUS).await;
        let mut buf = vec![0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(10), c.read(&mut buf))
            .await
            .expect("an answer or a close within 10 s")
            .unwrap_or(0);
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }
    async fn connect(from: &str, to: std::net::SocketAddr) -> TcpStream {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
        socket.connect(to).await.unwrap()
    }
    let state = state_with(ApiConfig {
        max_connections_per_address: 3,
        ..quiet_config()
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(gridprint_api::serve(listener, state, async {
        let _ = stopped.await;
    }));
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut c = connect("127.0.0.1", addr).await;
        let got = ask(&mut c).await;
        assert!(got.starts_with("HTTP/1.1 200"), "{got}");
        held.push(c);
    }
    let mut fourth = connect("127.0.0.1", addr).await;
    assert_eq!(
        ask(&mut fourth).await,
        "",
        "the fourth connection is closed unanswered"
    );
    let mut other = connect("127.0.0.2", addr).await;
    let got = ask(&mut other).await;
    assert!(
        got.starts_with("HTTP/1.1 200"),
        "another address is served: {got}"
    );
    // The three held connections are still served.
    for c in &mut held {
        let got = ask(c).await;
        assert!(got.starts_with("HTTP/1.1 200"), "{got}");
    }
    let _ = stop.send(());
    drop(held);
    server.await.unwrap().unwrap();
}

/// Past the response memory budget a large answer is refused with 503 and `Retry-After`
/// instead of being held; small answers are not counted.
#[tokio::test]
async fn large_answers_past_the_response_memory_budget_are_503() {
    let app = app_with(ApiConfig {
        response_memory_bytes: 1 << 20,
        ..quiet_config()
    });
    let r = get(
        &app,
        "/v1/factors?start=2024-08-01T00:00Z&end=2024-08-21T00:00Z&format=csv",
    )
    .await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(r.headers.get(header::RETRY_AFTER).is_some());
    assert_eq!(
        get(&app, &format!("/v1/footprints?zone=NL&{DAY}"))
            .await
            .status,
        StatusCode::OK
    );
}
