//! Access limits in process: the brute-force guard under parallel
//! guesses, per-account rate limits and tiers, the token service's per-account limit with real
//! clients' patterns (CATS, the reference dashboard), duplicate `Authorization`, the token service's
//! body rules, trusted proxies and the path aliases of the front layer.

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, StatusCode, header};
use gridprint_api::http::front::ClientIpHeader;
use gridprint_api::testing::MutableClock;
use gridprint_api::{ApiConfig, AppState, router};
use gridprint_ratelimit::RateLimit;
use gridprint_store::{AccountLimit, SharedStore};
use gridprint_store_sqlite::SqliteStore;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;

mod common;
use common::*;

/// An app whose clock drives token expiry, the brute-force windows and the rate limits.
fn env(config: ApiConfig) -> Env {
    let store: SharedStore = Arc::new(SqliteStore::open_in_memory().unwrap());
    store.grant(EMAIL, None, START.unix_timestamp()).unwrap();
    let clock = MutableClock::new(START);
    let c = clock.clone();
    let limits = RateLimit::local_with_clock(
        config.rate_limit_per_second,
        config.rate_limit_burst,
        Arc::new(move || {
            use gridprint_core::slot::Clock;
            (c.now() - START).unsigned_abs()
        }),
    );
    let state = AppState::builder(store.clone(), reference(), Arc::new(clock.clone()), config)
        .rate_limit(limits)
        .build()
        .unwrap();
    Env {
        app: router(state),
        store,
        clock,
    }
}

/// The quiet configuration with a rate limit of `per_second` and `burst` per account.
fn rate_limited(per_second: f64, burst: u32) -> ApiConfig {
    ApiConfig {
        rate_limit_per_second: per_second,
        rate_limit_burst: burst,
        ..quiet_config()
    }
}

fn post(path: &str, content_type: Option<&str>, body: &str, client: [u8; 4]) -> Request<Body> {
    let mut b = Request::builder().method(Method::POST).uri(path);
    if let Some(ct) = content_type {
        b = b.header(header::CONTENT_TYPE, ct);
    }
    let mut req = b.body(Body::from(body.to_string())).unwrap();
    req.extensions_mut()
        .insert(ConnectInfo(SocketAddr::from((client, 40000))));
    req
}

/// Sends a JSON `body` to `path` from `client`.
async fn post_json(app: &Router, path: &str, body: &str, client: [u8; 4]) -> Reply {
    send(app, post(path, Some("application/json"), body, client)).await
}

/// An app behind a trusted proxy (`10.0.0.0/8`) that reads the client's address from
/// `client_ip_header`, with the account registered.
async fn behind_proxy(client_ip_header: ClientIpHeader) -> Env {
    let e = env(ApiConfig {
        trusted_proxies: "10.0.0.0/8".parse().unwrap(),
        client_ip_header,
        ..quiet_config()
    });
    register(&e.app).await;
    e
}

/// A login with a wrong password from `peer`, with `headers` appended in order (what a proxy
/// forwards).
fn wrong_guess(peer: [u8; 4], headers: Vec<(&str, &str)>) -> Request<Body> {
    let body = json!({"email": EMAIL, "password": "wrong password!!"}).to_string();
    let mut req = post(
        "/token-request/get_token",
        Some("application/json"),
        &body,
        peer,
    );
    for (name, value) in headers {
        let name = header::HeaderName::from_bytes(name.as_bytes()).unwrap();
        req.headers_mut().append(name, value.parse().unwrap());
    }
    req
}

async fn get_token_from(app: &Router, password: &str, client: [u8; 4]) -> Reply {
    let body = json!({"email": EMAIL, "password": password}).to_string();
    post_json(app, "/token-request/get_token", &body, client).await
}

async fn register(app: &Router) {
    let body = json!({"email": EMAIL, "password": PASSWORD}).to_string();
    let r = post_json(app, "/token-request/register", &body, [127, 0, 0, 1]).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
}

async fn token(app: &Router, client: [u8; 4]) -> String {
    let r = get_token_from(app, PASSWORD, client).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    r.json()["access_token"].as_str().unwrap().to_string()
}

/// Sends `n` wrong guesses at once, the i-th from `client(i)`; returns (401s, 429s).
async fn parallel_guesses(
    app: &Router,
    n: usize,
    client: impl Fn(usize) -> [u8; 4],
) -> (usize, usize) {
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let app = app.clone();
            let from = client(i);
            tokio::spawn(async move { get_token_from(&app, "wrong password!!", from).await.status })
        })
        .collect();
    let (mut verified, mut refused) = (0, 0);
    for t in tasks {
        match t.await.unwrap() {
            StatusCode::UNAUTHORIZED => verified += 1,
            StatusCode::TOO_MANY_REQUESTS => refused += 1,
            s => panic!("unexpected status {s}"),
        }
    }
    (verified, refused)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_parallel_guesses_from_one_address_verify_at_most_ten() {
    let e = env(quiet_config());
    register(&e.app).await;
    let attacker = [203, 0, 113, 5];
    let (verified, refused) = parallel_guesses(&e.app, 60, |_| attacker).await;
    eprintln!("60 parallel guesses, one address: {verified} verified, {refused} refused");
    assert!(verified <= 10, "{verified} guesses verified (at most 10)");
    assert_eq!(verified + refused, 60);
    // The right password from that address is refused during the lockout...
    let r = get_token_from(&e.app, PASSWORD, attacker).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text());
    assert!(r.header(header::RETRY_AFTER).parse::<u64>().unwrap() >= 1);
    // ...while the owner, elsewhere, gets a token.
    let r = get_token_from(&e.app, PASSWORD, [198, 51, 100, 20]).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
}

/// Issue #28 item 6: guessers at full speed from 30 addresses verify at most 100 guesses, then one
/// per 9 s (the per-email limit's pace: 15 minutes / 100), and cannot lock the owner out: with the
/// guessing going on, the owner from another address gets a token within 30 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn guessers_from_thirty_addresses_are_paced_and_cannot_lock_the_owner_out() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};
    let e = env(quiet_config());
    register(&e.app).await;
    let verified = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let guessers: Vec<_> = (0..30u8)
        .map(|i| {
            let app = e.app.clone();
            let verified = verified.clone();
            tokio::spawn(async move {
                loop {
                    let r = get_token_from(&app, "wrong password!!", [203, 0, 113, i]).await;
                    match r.status {
                        StatusCode::UNAUTHORIZED => {
                            verified.fetch_add(1, Ordering::Relaxed);
                        }
                        StatusCode::TOO_MANY_REQUESTS => tokio::task::yield_now().await,
                        s => panic!("unexpected status {s}: {}", r.text()),
                    }
                }
            })
        })
        .collect();
    // Setup: the guessers have used the email's 100 failures (the owner's attempt is the test).
    while verified.load(Ordering::Relaxed) < 100 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the guessers did not reach the per-email limit"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let asked = Instant::now();
    let r = get_token_from(&e.app, PASSWORD, [198, 51, 100, 20]).await;
    let waited = asked.elapsed();
    let total = started.elapsed();
    for g in &guessers {
        g.abort();
    }
    for g in guessers {
        let _ = g.await;
    }
    let verified = verified.load(Ordering::Relaxed);
    eprintln!(
        "30 addresses guessing: {verified} verified in {total:?}; the owner got {} after {waited:?}",
        r.status
    );
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert!(
        waited < Duration::from_secs(30),
        "the owner waited {waited:?}"
    );
    let paced = 100 + (total.as_secs() / 9) as usize + 1;
    assert!(
        verified <= paced,
        "{verified} guesses verified in {total:?} (at most {paced})"
    );
}

#[tokio::test]
async fn an_accounts_tokens_share_one_budget_and_its_tier_sets_the_size() {
    let e = env(rate_limited(1.0, 4));
    register(&e.app).await;
    let first = token(&e.app, [127, 0, 0, 1]).await;
    let second = token(&e.app, [127, 0, 0, 1]).await;
    for _ in 0..4 {
        assert_eq!(
            get_as(&e.app, "/v1/zones", Some(&first)).await.status,
            StatusCode::OK
        );
    }
    // The second token draws on the same, now empty, budget.
    let r = get_as(&e.app, "/v1/zones", Some(&second)).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text());
    assert!(r.json()["detail"].as_str().unwrap().contains("account"));

    // A tier set by the operator applies once the token is re-checked (at most 30 s + 1 request).
    e.store
        .set_limit(
            EMAIL,
            Some(AccountLimit {
                rate_per_second: 20.0,
                burst: 100,
            }),
        )
        .unwrap();
    e.clock.advance(time::Duration::seconds(31));
    for i in 0..100 {
        let r = get_as(
            &e.app,
            "/v1/zones",
            Some(if i % 2 == 0 { &first } else { &second }),
        )
        .await;
        assert_eq!(
            r.status,
            StatusCode::OK,
            "request {i} within the tier's burst"
        );
        assert_eq!(r.header("ratelimit-limit"), "100");
    }
    assert_eq!(
        get_as(&e.app, "/v1/zones", Some(&first)).await.status,
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[tokio::test]
async fn cats_asking_for_a_token_every_run_and_five_dashboards_all_succeed() {
    let e = env(rate_limited(20.0, 100));
    register(&e.app).await;
    // CATS: a new token on every run, then one data request; 20 runs in one minute.
    for run in 0..20 {
        let t = token(&e.app, [192, 0, 2, 1]).await;
        let r = get_as(&e.app, "/v1/footprints?zone=DE", Some(&t)).await;
        assert_ne!(r.status, StatusCode::TOO_MANY_REQUESTS, "CATS run {run}");
        assert_ne!(r.status, StatusCode::UNAUTHORIZED, "CATS run {run}");
        e.clock.advance(time::Duration::seconds(3));
    }
    // Five dashboard processes on one account start together (one token each), serve for a while,
    // and refresh when their tokens expire.
    e.clock.advance(time::Duration::minutes(5));
    for day in 0..2 {
        let tokens: Vec<String> = {
            let mut v = Vec::new();
            for p in 0..5u8 {
                v.push(token(&e.app, [192, 0, 2, 10 + p]).await);
            }
            v
        };
        for round in 0..10 {
            for t in &tokens {
                let r = get_as(&e.app, "/v1/zones", Some(t)).await;
                assert_eq!(r.status, StatusCode::OK, "day {day} round {round}");
            }
            e.clock.advance(time::Duration::seconds(1));
        }
        e.clock.advance(time::Duration::days(1));
    }
}

#[tokio::test]
async fn get_token_is_limited_per_account() {
    let e = env(quiet_config());
    register(&e.app).await;
    for _ in 0..10 {
        token(&e.app, [127, 0, 0, 1]).await;
    }
    let r = get_token_from(&e.app, PASSWORD, [127, 0, 0, 2]).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text());
    let detail = r.json()["detail"].as_str().unwrap().to_string();
    assert!(detail.contains("reuse"), "{detail}");
    let wait: u64 = r.header(header::RETRY_AFTER).parse().unwrap();
    assert_eq!(wait, 2, "30 a minute: one every 2 s");
    assert!(detail.ends_with("retry after 2 seconds)"), "{detail}");
    // Not a failed attempt: the password still works from there after the wait.
    e.clock.advance(time::Duration::seconds(2));
    token(&e.app, [127, 0, 0, 2]).await;
}

#[tokio::test]
async fn two_authorization_headers_are_401_in_either_order() {
    let e = env(quiet_config());
    register(&e.app).await;
    let good = token(&e.app, [127, 0, 0, 1]).await;
    let bad = "0".repeat(64);
    for (a, b) in [(&good, &bad), (&bad, &good), (&good, &good)] {
        let req = Request::builder()
            .uri("/v1/zones")
            .header(header::AUTHORIZATION, format!("Bearer {a}"))
            .header(header::AUTHORIZATION, format!("Bearer {b}"))
            .body(Body::empty())
            .unwrap();
        let r = send(&e.app, req).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text());
        assert!(r.text().contains("more than one Authorization header"));
    }
    assert_eq!(
        get_as(&e.app, "/v1/zones", Some(&good)).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn token_service_bodies_json_errors_and_the_re_register_no_op() {
    let e = env(quiet_config());
    let creds = json!({"email": EMAIL, "password": PASSWORD, "client": "extra fields ignored"});
    let from = [127, 0, 0, 1];
    // No content type: read as JSON; extra fields ignored.
    let r = send(
        &e.app,
        post("/token-request/register", None, &creds.to_string(), from),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(r.json(), json!({"detail": "registered"}));
    // Re-registering with another password, many times: 200, password unchanged, no lockout.
    let other = json!({"email": EMAIL, "password": "another long password"}).to_string();
    for _ in 0..12 {
        let r = post_json(&e.app, "/token-request/register", &other, from).await;
        assert_eq!(r.json(), json!({"detail": "already registered"}));
    }
    assert_eq!(
        get_token_from(&e.app, PASSWORD, from).await.status,
        StatusCode::OK
    );
    assert_eq!(
        get_token_from(&e.app, "another long password", from)
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );

    let array = json!([EMAIL, PASSWORD]).to_string();
    let cases: Vec<(Option<&str>, String, &str)> = vec![
        (Some("application/json"), array.clone(), "JSON object"),
        (None, "\"just a string\"".into(), "JSON object"),
        (
            Some("text/plain"),
            creds.to_string(),
            "unsupported content type",
        ),
        (
            Some("application/json"),
            json!({"email": EMAIL}).to_string(),
            "'password'",
        ),
        (
            Some("application/json"),
            json!({"email": 5, "password": "x"}).to_string(),
            "'email'",
        ),
        // curl -d sends JSON as a form: answered in JSON, not with the page.
        (
            Some("application/x-www-form-urlencoded"),
            creds.to_string(),
            "Content-Type: application/json",
        ),
    ];
    for path in ["/token-request/register", "/token-request/get_token"] {
        for (ct, body, says) in &cases {
            let r = send(&e.app, post(path, *ct, body, from)).await;
            assert_eq!(
                r.status,
                StatusCode::UNPROCESSABLE_ENTITY,
                "{ct:?} {body}: {}",
                r.text()
            );
            assert_eq!(r.header(header::CONTENT_TYPE), "application/problem+json");
            let detail = r.json()["detail"].as_str().unwrap().to_string();
            assert!(detail.contains(says), "{detail}");
            assert!(
                !detail.contains("struct"),
                "no internal type names: {detail}"
            );
        }
    }
    // A form that accepts only JSON gets JSON; a browser's form gets the page.
    let form_accepting = |accept: &str| {
        let form = "email=ada%40example.org&password=nope";
        let form_type = Some("application/x-www-form-urlencoded");
        let mut req = post("/token-request/get_token", form_type, form, from);
        req.headers_mut()
            .insert(header::ACCEPT, accept.parse().unwrap());
        send(&e.app, req)
    };
    let r = form_accepting("application/json").await;
    assert_eq!(r.header(header::CONTENT_TYPE), "application/problem+json");
    let r = form_accepting("text/html,*/*;q=0.8").await;
    assert!(r.header(header::CONTENT_TYPE).starts_with("text/html"));
}

#[tokio::test]
async fn forwarded_addresses_are_used_only_behind_trusted_proxies() {
    let e = behind_proxy(ClientIpHeader::XForwardedFor).await;
    let via_proxy =
        |forwarded_for: &str, peer| wrong_guess(peer, vec![("x-forwarded-for", forwarded_for)]);
    // Ten failures forwarded for 203.0.113.1 by the trusted proxy lock that client only.
    for _ in 0..10 {
        let r = send(&e.app, via_proxy("203.0.113.1", [10, 0, 0, 1])).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    }
    let r = send(&e.app, via_proxy("203.0.113.1", [10, 0, 0, 1])).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS);
    let r = send(&e.app, via_proxy("203.0.113.2", [10, 0, 0, 1])).await;
    assert_eq!(
        r.status,
        StatusCode::UNAUTHORIZED,
        "another client behind the proxy"
    );
    // An untrusted peer cannot pick its address with the header.
    for _ in 0..10 {
        send(&e.app, via_proxy("203.0.113.50", [198, 51, 100, 9])).await;
    }
    let r = send(&e.app, via_proxy("203.0.113.51", [198, 51, 100, 9])).await;
    assert_eq!(
        r.status,
        StatusCode::TOO_MANY_REQUESTS,
        "counted against the peer"
    );
}

/// Issue #28 item 5: behind a proxy that appends only `X-Forwarded-For` (nginx's default), a client
/// rotating its own `Forwarded: for=…` (or writing its own `X-Forwarded-For` in front) gets 10
/// verified guesses, not more; IPv6 clients are counted by their /64.
#[tokio::test]
async fn a_client_cannot_pick_its_address_behind_the_proxy_and_ipv6_counts_by_64() {
    let e = behind_proxy(ClientIpHeader::XForwardedFor).await;
    let guess = |headers: Vec<(&'static str, String)>| {
        let headers = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        send(&e.app, wrong_guess([10, 0, 0, 1], headers))
    };
    let mut verified = 0;
    for i in 0..30 {
        let r = guess(vec![
            ("forwarded", format!("for=198.51.100.{i}")),
            ("x-forwarded-for", format!("192.0.2.{i}")),
            // What the proxy appended last: the client's real address.
            ("x-forwarded-for", "203.0.113.7".to_string()),
        ])
        .await;
        verified += usize::from(r.status == StatusCode::UNAUTHORIZED);
    }
    assert_eq!(verified, 10, "guesses verified for one real client address");

    // IPv6: the addresses of one /64 share a counter; another /64 is another client.
    for i in 0..10 {
        let r = guess(vec![(
            "x-forwarded-for",
            format!("2001:db8:0:1::{:x}", i + 1),
        )])
        .await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    }
    let r = guess(vec![(
        "x-forwarded-for",
        "2001:db8:0:1:ffff::99".to_string(),
    )])
    .await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "the same /64");
    let r = guess(vec![("x-forwarded-for", "2001:db8:0:2::1".to_string())]).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "another /64");
}

/// With `--client-ip-header forwarded`, the proxy's `Forwarded` is read and `X-Forwarded-For`
/// ignored.
#[tokio::test]
async fn the_forwarded_header_when_configured() {
    let e = behind_proxy(ClientIpHeader::Forwarded).await;
    let mut statuses = Vec::new();
    for i in 0..11 {
        let client = format!("192.0.2.{i}");
        let headers = vec![
            ("x-forwarded-for", client.as_str()),
            ("forwarded", "for=203.0.113.8"),
        ];
        statuses.push(
            send(&e.app, wrong_guess([10, 0, 0, 1], headers))
                .await
                .status,
        );
    }
    assert!(
        statuses[..10]
            .iter()
            .all(|s| *s == StatusCode::UNAUTHORIZED)
    );
    assert_eq!(statuses[10], StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn every_route_is_also_under_latest_with_root_docs_slash_redirects_and_a_favicon() {
    let e = env(quiet_config());
    register(&e.app).await;
    let t = token(&e.app, [127, 0, 0, 1]).await;
    let anonymous = |path: &'static str| get_as(&e.app, path, None);
    let v1 = get_as(&e.app, "/v1/zones", Some(&t)).await;
    let latest = get_as(&e.app, "/latest/zones", Some(&t)).await;
    assert_eq!(latest.status, StatusCode::OK);
    assert_eq!(latest.text(), v1.text());
    assert_eq!(
        anonymous("/latest/zones").await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(anonymous("/latest/status").await.status, StatusCode::OK);

    let spec = anonymous("/openapi.json").await;
    assert_eq!(spec.status, StatusCode::OK);
    assert!(spec.json()["openapi"].as_str().unwrap().starts_with("3.1"));
    for page in ["/docs", "/redoc", "/latest/docs"] {
        let r = get_as(&e.app, page, None).await;
        assert_eq!(r.status, StatusCode::OK, "{page}");
        assert!(
            r.header(header::CONTENT_TYPE).starts_with("text/html"),
            "{page}"
        );
    }
    assert_eq!(anonymous("/docs/docs.js").await.status, StatusCode::OK);

    // A trailing slash: 307 to the path without it, relative, keeping the query string.
    let r = get_as(
        &e.app,
        "/v1/footprints/?zone=DE&footprint_type=carbon",
        Some(&t),
    )
    .await;
    assert_eq!(r.status, StatusCode::TEMPORARY_REDIRECT);
    assert_eq!(
        r.header(header::LOCATION),
        "../footprints?zone=DE&footprint_type=carbon"
    );
    let r = anonymous("/latest/zones/").await;
    assert_eq!(r.status, StatusCode::TEMPORARY_REDIRECT);
    assert_eq!(r.header(header::LOCATION), "../zones");
    // Routes declared with a slash keep it.
    assert_eq!(anonymous("/token-request/").await.status, StatusCode::OK);

    let r = anonymous("/favicon.ico").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header(header::CONTENT_TYPE), "image/x-icon");

    // The token service under /v1/token-request too.
    assert_eq!(anonymous("/v1/token-request/").await.status, StatusCode::OK);
    let body = json!({"email": EMAIL, "password": PASSWORD}).to_string();
    let r = post_json(&e.app, "/v1/token-request/get_token", &body, [127, 0, 0, 1]).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(r.json()["expires_in"], 86400);
}

/// Requests hyper refuses before the application sees them carry the application's problem+json.
#[tokio::test]
async fn connection_layer_errors_are_problem_json() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = SocketServer::start(Arc::new(SqliteStore::open_in_memory().unwrap())).await;
    let addr = server.addr;
    let many_headers: String = (0..120).map(|i| format!("x-h{i}: v\r\n")).collect();
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        (
            "URI over 64 KiB",
            format!(
                "GET /v1/zones?q={} HTTP/1.1\r\nHost: x\r\n\r\n",
                "a".repeat(70_000)
            )
            .into_bytes(),
            414,
        ),
        (
            "120 headers",
            format!("GET /v1/status HTTP/1.1\r\nHost: x\r\n{many_headers}\r\n").into_bytes(),
            431,
        ),
        (
            "raw space in the path",
            b"GET /v1/st atus HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            400,
        ),
        (
            "NUL in the path",
            b"GET /v1/\x00 HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            400,
        ),
        (
            "0xFF in the path",
            b"GET /v1/\xff HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            400,
        ),
    ];
    for (what, raw, status) in cases {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(&raw).await.unwrap();
        let mut buf = Vec::new();
        let _ = s.read_to_end(&mut buf).await;
        let text = String::from_utf8_lossy(&buf).to_string();
        assert!(
            text.starts_with(&format!("HTTP/1.1 {status} ")),
            "{what}: {text}"
        );
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: application/problem+json"),
            "{what}: {head}"
        );
        let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{what}: {e}: {body}"));
        assert_eq!(v["status"], status, "{what}");
        assert!(v["detail"].as_str().is_some_and(|d| !d.is_empty()));
    }
    // Ordinary requests on the same server are untouched.
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf).starts_with("HTTP/1.1 200 "));
    server.stop().await;
}

#[tokio::test]
async fn an_accounts_api_keys_draw_on_its_tokens_budget() {
    let e = env(rate_limited(1.0, 4));
    register(&e.app).await;
    let token = token(&e.app, [127, 0, 0, 1]).await;
    let (key, _) = create_key(&e.store, None);
    for _ in 0..4 {
        let r = get_as(&e.app, "/v1/zones", Some(&token)).await;
        assert_eq!(r.status, StatusCode::OK);
    }
    // The key, as Bearer and as `auth-token`, draws on the same, now empty, budget.
    let r = get_as(&e.app, "/v1/zones", Some(&key)).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text());
    let r = send(
        &e.app,
        request(
            "/v3/carbon-intensity/latest?zone=DE",
            None,
            &[("auth-token", &key)],
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text());
}

/// `POST /token-request/api-key` with `action` and `extra` fields for the registered account.
async fn key_action(app: &Router, action: &str, extra: Value) -> Reply {
    let mut body = json!({"email": EMAIL, "password": PASSWORD, "action": action});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    post_json(
        app,
        "/token-request/api-key",
        &body.to_string(),
        [127, 0, 0, 1],
    )
    .await
}

#[tokio::test]
async fn api_key_creation_counts_against_the_token_issue_limit() {
    let e = env(quiet_config());
    register(&e.app).await;
    // The burst of 10 token issues: keys and tokens together.
    for _ in 0..9 {
        let r = key_action(&e.app, "create", json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    }
    token(&e.app, [127, 0, 0, 1]).await;
    let r = key_action(&e.app, "create", json!({})).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text());
    assert!(r.header(header::RETRY_AFTER).parse::<u64>().unwrap() >= 1);
    let r = get_token_from(&e.app, PASSWORD, [127, 0, 0, 1]).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text());
    let listed = key_action(&e.app, "list", json!({})).await.json();
    assert_eq!(listed["keys"].as_array().unwrap().len(), 9);
}

#[tokio::test]
async fn an_account_holds_at_most_its_cap_of_active_api_keys_and_new_ones_expire_by_default() {
    let e = env(ApiConfig {
        api_key_default_expiry_days: Some(7),
        ..quiet_config()
    });
    register(&e.app).await;
    assert!(e.store.set_max_api_keys(EMAIL, Some(2)).unwrap());
    let r = key_action(&e.app, "create", json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(
        r.json()["expires_at"],
        gridprint_core::slot::format_timestamp(START + time::Duration::days(7)),
        "no expiry given: the server's default"
    );
    let r = key_action(&e.app, "create", json!({"expires_days": 30})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(
        r.json()["expires_at"],
        gridprint_core::slot::format_timestamp(START + time::Duration::days(30)),
        "an explicit expiry wins"
    );
    let r = key_action(&e.app, "create", json!({})).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text());
    assert!(
        r.detail().contains("holds 2 active API keys"),
        "{}",
        r.detail()
    );
    // Once the first key has expired it no longer counts.
    e.clock.advance(time::Duration::days(7));
    let r = key_action(&e.app, "create", json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
}

#[tokio::test]
async fn the_api_key_list_answers_a_page_at_a_time() {
    let e = env(quiet_config());
    register(&e.app).await;
    assert!(e.store.set_max_api_keys(EMAIL, Some(1000)).unwrap());
    let ids: Vec<i64> = (0..105).map(|_| create_key(&e.store, None).1).collect();
    let first = key_action(&e.app, "list", json!({})).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text());
    let first = first.json();
    let page: Vec<i64> = first["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["id"].as_i64().unwrap())
        .collect();
    assert_eq!(page, ids[..100]);
    assert_eq!(first["next_after_id"], ids[99]);
    let next = key_action(&e.app, "list", json!({"after_id": ids[99]}))
        .await
        .json();
    assert_eq!(next["keys"].as_array().unwrap().len(), 5);
    assert_eq!(next["next_after_id"], Value::Null);
}

#[tokio::test]
async fn token_service_bodies_with_a_repeated_field_are_refused_naming_it() {
    let e = env(quiet_config());
    register(&e.app).await;
    let bob = "bob@example.org";
    e.store.grant(bob, None, START.unix_timestamp()).unwrap();
    let body = json!({"email": bob, "password": PASSWORD}).to_string();
    let r = post_json(&e.app, "/token-request/register", &body, [127, 0, 0, 1]).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    // The first email is someone else's, the second bob's: no token for either.
    let twice = format!(r#"{{"email": "{EMAIL}", "email": "{bob}", "password": "{PASSWORD}"}}"#);
    for path in [
        "/token-request/get_token",
        "/token-request/register",
        "/token-request/api-key",
    ] {
        let r = post_json(&e.app, path, &twice, [127, 0, 0, 1]).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}: {}", r.text());
        assert!(r.detail().contains("'email'"), "{path}: {}", r.detail());
        assert!(!r.text().contains("access_token"), "{path}");
    }
    let r = post_json(
        &e.app,
        "/token-request/api-key",
        &format!(
            r#"{{"email": "{bob}", "password": "{PASSWORD}", "action": "list", "action": "create"}}"#
        ),
        [127, 0, 0, 1],
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text());
    assert!(r.detail().contains("'action'"), "{}", r.detail());
    // The token page's form: the same rule.
    let form = format!(
        "email={EMAIL}&email={bob}&password={}",
        PASSWORD.replace(' ', "+")
    );
    let mut req = post(
        "/token-request/get_token",
        Some("application/x-www-form-urlencoded"),
        &form,
        [127, 0, 0, 1],
    );
    req.headers_mut()
        .insert(header::ACCEPT, "application/json".parse().unwrap());
    let r = send(&e.app, req).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text());
    assert!(r.detail().contains("'email'"), "{}", r.detail());
    // Each field once: still a token.
    token(&e.app, [127, 0, 0, 1]).await;
}
