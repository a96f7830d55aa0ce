//! The token service, the Bearer extractor and the first data routes, end to end: in-process through
//! `Router::oneshot` on an in-memory SQLite store with a clock the tests move, plus one run over a real
//! socket (port 0) and one revocation made through a second connection to the same database file.

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, StatusCode, header};
use gridprint_api::testing::MutableClock;
use gridprint_api::tokens::token::TokenResponse;
use gridprint_api::{ApiConfig, AppState, router};
use gridprint_store::{AccessStore, SharedStore};
use gridprint_store_sqlite::SqliteStore;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;

mod common;
use common::*;

/// An app whose store grants [`EMAIL`] without a registration code (`access grant --no-code`: the
/// reference service's registration); the tests of the code grant their own emails.
fn env_with(store: SharedStore) -> Env {
    store.grant(EMAIL, None, START.unix_timestamp()).unwrap();
    let clock = MutableClock::new(START);
    let state = AppState::new(
        store.clone(),
        reference(),
        Arc::new(clock.clone()),
        quiet_config(),
    );
    Env {
        app: router(state),
        store,
        clock,
    }
}

fn env() -> Env {
    env_with(Arc::new(SqliteStore::open_in_memory().unwrap()))
}

fn post_raw(
    path: &str,
    content_type: &str,
    body: impl Into<Body>,
    client: Option<[u8; 4]>,
) -> Request<Body> {
    let mut req = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header(header::CONTENT_TYPE, content_type)
        .body(body.into())
        .unwrap();
    if let Some(ip) = client {
        req.extensions_mut()
            .insert(ConnectInfo(SocketAddr::from((ip, 40000))));
    }
    req
}

/// Posts `body` as JSON to `path`, from `client` when given.
async fn post_value(app: &Router, path: &str, body: Value, client: Option<[u8; 4]>) -> Reply {
    let json = body.to_string();
    send(app, post_raw(path, "application/json", json, client)).await
}

async fn post_json(app: &Router, path: &str, body: Value) -> Reply {
    post_value(app, path, body, None).await
}

async fn post_from(app: &Router, path: &str, body: Value, client: [u8; 4]) -> Reply {
    post_value(app, path, body, Some(client)).await
}

/// Posts the credentials `email` and `password` to `path`.
async fn post_credentials(app: &Router, path: &str, email: &str, password: &str) -> Reply {
    post_json(app, path, json!({"email": email, "password": password})).await
}

async fn register(app: &Router, email: &str, password: &str) -> Reply {
    post_credentials(app, "/token-request/register", email, password).await
}

async fn get_token(app: &Router, email: &str, password: &str) -> Reply {
    post_credentials(app, "/token-request/get_token", email, password).await
}

/// Registers `EMAIL` with `PASSWORD`, which must succeed.
async fn register_ada(app: &Router) {
    assert_eq!(register(app, EMAIL, PASSWORD).await.status, StatusCode::OK);
}

/// The status of `GET /v1/zones` with the bearer `token`.
async fn zones_status(app: &Router, token: &str) -> StatusCode {
    get_as(app, "/v1/zones", Some(token)).await.status
}

/// `GET /v1/zones` with the bearer `token`, asserted to be refused with a Bearer challenge.
async fn zones_refused(app: &Router, token: &str) -> Reply {
    let r = get_as(app, "/v1/zones", Some(token)).await;
    assert_problem(&r, StatusCode::UNAUTHORIZED);
    assert_eq!(r.header(header::WWW_AUTHENTICATE), "Bearer");
    r
}

/// `credential` (a token or an API key) works for `seconds` from now, less one, and is refused as
/// expired from then on.
async fn assert_expires_after(e: &Env, credential: &str, seconds: i64) {
    e.clock.advance(time::Duration::seconds(seconds - 1));
    assert_eq!(zones_status(&e.app, credential).await, StatusCode::OK);
    e.clock.advance(time::Duration::seconds(1));
    let r = zones_refused(&e.app, credential).await;
    assert!(r.detail().contains("expired"), "{}", r.detail());
}

async fn token_for(app: &Router) -> String {
    register_ada(app).await;
    let r = get_token(app, EMAIL, PASSWORD).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    r.json()["access_token"].as_str().unwrap().to_string()
}

fn assert_problem(r: &Reply, status: StatusCode) {
    assert_eq!(r.status, status, "{}", r.text());
    assert_eq!(r.header(header::CONTENT_TYPE), "application/problem+json");
    let v = r.json();
    assert_eq!(v["status"], status.as_u16());
    assert!(v["title"].is_string() && v["type"].is_string());
    assert!(!r.detail().is_empty());
}

/// A WattTime route's refused credentials: 401 as plain text (not JSON: WattTime's clients read
/// only such an answer as "log in again"); returns the text.
fn assert_watttime_401(r: &Reply) -> String {
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text());
    assert_eq!(
        r.header(header::CONTENT_TYPE),
        "text/plain; charset=utf-8",
        "{}",
        r.text()
    );
    assert!(
        serde_json::from_str::<Value>(&r.text()).is_err(),
        "{}",
        r.text()
    );
    assert!(!r.text().is_empty());
    r.text()
}

/// A WattTime route's other errors: `status`, `{"error": …, "message": …}` as JSON (WattTime's
/// shape, which its clients read); returns the message.
fn assert_watttime_error(r: &Reply, status: StatusCode) -> String {
    assert_eq!(r.status, status, "{}", r.text());
    assert_eq!(r.header(header::CONTENT_TYPE), "application/json");
    let v = r.json();
    assert_eq!(v.as_object().map(|o| o.len()), Some(2), "{v}");
    assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
    v["message"].as_str().unwrap_or_default().to_string()
}

/// A grant made with `--no-code` keeps the reference service's behaviour.
#[tokio::test]
async fn register_succeeds_for_a_granted_email_and_a_second_time_keeps_the_password() {
    let e = env();
    let r = register(&e.app, " Ada@Example.ORG ", PASSWORD).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(r.json(), json!({"detail": "registered"}));
    assert_eq!(r.header(header::CACHE_CONTROL), "no-store");

    // Registering again is a harmless no-op (was 409; issue #12 / docs/api.md §4).
    let r = register(&e.app, EMAIL, "another long password").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(r.json(), json!({"detail": "already registered"}));
    assert_eq!(r.header(header::CACHE_CONTROL), "no-store");
    assert_eq!(
        get_token(&e.app, EMAIL, PASSWORD).await.status,
        StatusCode::OK
    );
    assert_eq!(
        get_token(&e.app, EMAIL, "another long password")
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    let stored = e.store.password_hash(EMAIL).unwrap().unwrap();
    assert!(
        stored.starts_with("$argon2id$"),
        "stored as Argon2id PHC string"
    );
    assert!(!stored.contains(PASSWORD));
}

#[tokio::test]
async fn register_without_grant_is_403() {
    let e = env();
    let r = register(&e.app, "nobody@example.org", PASSWORD).await;
    assert_problem(&r, StatusCode::FORBIDDEN);
    assert_eq!(
        r.detail(),
        gridprint_api::tokens::token::REGISTRATION_REFUSED
    );
}

/// Issue #28 item 7: a grant with a code registers only with that code; every refusal (no grant,
/// no code, a wrong code, a registered email with a wrong code) is the same 403, so `register`
/// does not tell who is granted; the right code of a registered email → 409, password kept.
#[tokio::test]
async fn registration_is_bound_to_the_grant_code() {
    use gridprint_api::tokens::registration_code::{code_hash, new_code};
    let e = env();
    let bob = "bob@example.org";
    let code = new_code().unwrap();
    assert!(e.store.grant(bob, Some(&code_hash(&code)), 0).unwrap());
    let attempt = |email: &str, password: &str, code: Option<&str>| {
        let mut body = json!({"email": email, "password": password});
        if let Some(c) = code {
            body["code"] = c.into();
        }
        post_json(&e.app, "/token-request/register", body)
    };
    let other = new_code().unwrap();
    let no_code = attempt(bob, PASSWORD, None).await;
    let wrong = attempt(bob, PASSWORD, Some(&other)).await;
    let empty = attempt(bob, PASSWORD, Some("")).await;
    let not_granted = attempt("carol@example.org", PASSWORD, Some(&code)).await;
    for r in [&no_code, &wrong, &empty, &not_granted] {
        assert_problem(r, StatusCode::FORBIDDEN);
        assert_eq!(r.text(), no_code.text(), "one refusal for every wrong case");
    }
    assert_eq!(e.store.password_hash(bob).unwrap(), None);
    // The owner, with the code written loosely (lower case, spaces for dashes).
    let loose = code.to_lowercase().replace('-', " ");
    let r = attempt(bob, PASSWORD, Some(&loose)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(r.json(), json!({"detail": "registered"}));
    // Registered: the right code again → 409 that says so; a wrong or no code → the same 403.
    let r = attempt(bob, "another long password", Some(&code)).await;
    assert_problem(&r, StatusCode::CONFLICT);
    assert!(r.detail().contains("already registered"), "{}", r.detail());
    assert_eq!(
        attempt(bob, "another long password", Some(&other))
            .await
            .text(),
        no_code.text()
    );
    assert_eq!(
        attempt(bob, "another long password", None).await.text(),
        no_code.text()
    );
    assert_eq!(
        get_token(&e.app, bob, PASSWORD).await.status,
        StatusCode::OK
    );
    assert_eq!(
        get_token(&e.app, bob, "another long password").await.status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn register_rejects_short_passwords_and_invalid_emails_with_400() {
    let e = env();
    let r = register(&e.app, EMAIL, "elevenchars").await;
    assert_problem(&r, StatusCode::BAD_REQUEST);
    assert!(
        r.detail().contains("at least 12 characters"),
        "{}",
        r.detail()
    );
    // Issue #28 item 10: twelve spaces (or any whitespace only) are not a password.
    for blank in ["            ", " \t \n \u{a0}          ", &" ".repeat(40)] {
        let r = register(&e.app, EMAIL, blank).await;
        assert_problem(&r, StatusCode::BAD_REQUEST);
        assert!(r.detail().contains("whitespace"), "{}", r.detail());
    }
    let r = register(&e.app, "not-an-email", PASSWORD).await;
    assert_problem(&r, StatusCode::BAD_REQUEST);
    assert!(r.detail().contains("email"), "{}", r.detail());
    // Nothing was stored.
    assert_eq!(e.store.password_hash(EMAIL).unwrap(), None);
}

#[tokio::test]
async fn body_errors_are_400_422_and_413() {
    let e = env();
    for path in ["/token-request/register", "/token-request/get_token"] {
        let r = send(
            &e.app,
            post_raw(path, "application/json", "{\"email\": ", None),
        )
        .await;
        assert_problem(&r, StatusCode::BAD_REQUEST);
        let r = send(
            &e.app,
            post_raw(
                path,
                "application/json",
                r#"{"email": 5, "password": []}"#,
                None,
            ),
        )
        .await;
        assert_problem(&r, StatusCode::UNPROCESSABLE_ENTITY);
        let r = send(
            &e.app,
            post_raw(path, "application/json", r#"{"email": "a@b.cd"}"#, None),
        )
        .await;
        assert_problem(&r, StatusCode::UNPROCESSABLE_ENTITY);
        let big = json!({"email": EMAIL, "password": "x".repeat(5000)}).to_string();
        let r = send(&e.app, post_raw(path, "application/json", big, None)).await;
        assert_problem(&r, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(r.header(header::CACHE_CONTROL), "no-store");
    }
}

#[tokio::test]
async fn get_token_returns_a_bearer_token_valid_for_one_day() {
    let e = env();
    register_ada(&e.app).await;
    let r = get_token(&e.app, "ADA@example.org", PASSWORD).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(r.header(header::CACHE_CONTROL), "no-store");
    assert!(
        r.header(header::CONTENT_TYPE)
            .starts_with("application/json")
    );
    let v = r.json();
    let token = v["access_token"].as_str().unwrap();
    assert_eq!(token.len(), 64);
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(v["token_type"], "bearer");
    assert_eq!(v["expires_in"], 86400);
    // UTC without an offset, as the reference service writes it (CATS compares it naively).
    assert_eq!(v["expires_at"], "2026-03-02T12:00:00");
    let parsed: TokenResponse = serde_json::from_value(v.clone()).unwrap();
    assert!(
        !format!("{parsed:?}").contains(token),
        "Debug must not print the token"
    );

    // Calling again gives a new token; both work.
    let second = get_token(&e.app, EMAIL, PASSWORD).await.json()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(second, token);
    assert_eq!(zones_status(&e.app, token).await, StatusCode::OK);
    assert_eq!(zones_status(&e.app, &second).await, StatusCode::OK);

    // Only the SHA-256 is stored.
    let hash = gridprint_api::tokens::auth::token_hash(token).into_inner();
    let rec = e.store.find_token(&hash).unwrap().expect("stored by hash");
    assert_eq!(rec.email, EMAIL);
    assert_eq!(rec.expires_at - rec.issued_at, 86400);
    assert!(e.store.find_token(token).unwrap().is_none());
}

#[tokio::test]
async fn wrong_password_and_unknown_email_get_the_same_401() {
    let e = env();
    register_ada(&e.app).await;
    let wrong = get_token(&e.app, EMAIL, "wrong password!!").await;
    let unknown = get_token(&e.app, "nobody@example.org", PASSWORD).await;
    let granted_unregistered = {
        e.store.grant("bob@example.org", None, 0).unwrap();
        get_token(&e.app, "bob@example.org", PASSWORD).await
    };
    let not_email = get_token(&e.app, "nope", PASSWORD).await;
    for r in [&wrong, &unknown, &granted_unregistered, &not_email] {
        assert_problem(r, StatusCode::UNAUTHORIZED);
        assert_eq!(r.detail(), wrong.detail());
        assert_eq!(r.text(), wrong.text(), "bodies identical");
    }
}

#[tokio::test]
async fn tokens_expire_after_exactly_24_hours() {
    let e = env();
    let token = token_for(&e.app).await;
    assert_expires_after(&e, &token, 86_400).await;
}

#[tokio::test]
async fn a_revoked_email_loses_its_token_once_the_cache_entry_is_rechecked() {
    let e = env();
    let token = token_for(&e.app).await;
    assert_eq!(zones_status(&e.app, &token).await, StatusCode::OK);
    assert!(e.store.revoke(EMAIL).unwrap());
    // Served from the cache for at most 30 s (no database round trip)...
    e.clock.advance(time::Duration::seconds(29));
    assert_eq!(zones_status(&e.app, &token).await, StatusCode::OK);
    // ...then re-checked against the store.
    e.clock.advance(time::Duration::seconds(2));
    zones_refused(&e.app, &token).await;
}

#[tokio::test]
async fn a_revocation_by_another_connection_to_the_same_database_stops_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gridprint.db");
    let e = env_with(Arc::new(SqliteStore::open(&path).unwrap()));
    let token = token_for(&e.app).await;
    assert_eq!(zones_status(&e.app, &token).await, StatusCode::OK);
    // What `gridprint access revoke` does from its own process.
    let admin = SqliteStore::open(&path).unwrap();
    assert!(admin.revoke(EMAIL).unwrap());
    e.clock.advance(time::Duration::seconds(31));
    assert_eq!(zones_status(&e.app, &token).await, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn tampered_truncated_and_malformed_tokens_are_401() {
    let e = env();
    let token = token_for(&e.app).await;
    let mut tampered = token.clone().into_bytes();
    tampered[10] = if tampered[10] == b'0' { b'1' } else { b'0' };
    let tampered = String::from_utf8(tampered).unwrap();
    let truncated = &token[..63];
    let longer = format!("{token}0");
    for bad in [
        tampered.as_str(),
        truncated,
        longer.as_str(),
        "",
        "not a token",
        &token.to_uppercase(),
    ] {
        let r = get_as(&e.app, "/v1/zones", Some(bad)).await;
        assert_problem(&r, StatusCode::UNAUTHORIZED);
        assert_eq!(
            r.header(header::WWW_AUTHENTICATE),
            "Bearer",
            "token {bad:?}"
        );
    }
    // Wrong scheme, missing header.
    let req = Request::builder()
        .uri("/v1/zones")
        .header(header::AUTHORIZATION, format!("Basic {token}"))
        .body(Body::empty())
        .unwrap();
    assert_problem(&send(&e.app, req).await, StatusCode::UNAUTHORIZED);
    // The genuine one still works, with a lower-case scheme too.
    let req = Request::builder()
        .uri("/v1/zones")
        .header(header::AUTHORIZATION, format!("bearer {token}"))
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&e.app, req).await.status, StatusCode::OK);
}

#[tokio::test]
async fn the_eleventh_failure_from_one_address_locks_that_pair_only_and_success_resets_it() {
    let e = env();
    register_ada(&e.app).await;
    let bad = json!({"email": EMAIL, "password": "wrong password!!"});
    let good = json!({"email": EMAIL, "password": PASSWORD});
    let here = [10, 0, 0, 1];
    for i in 0..9 {
        let r = post_from(&e.app, "/token-request/get_token", bad.clone(), here).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "attempt {i}");
    }
    // A success clears the pair's count...
    assert_eq!(
        post_from(&e.app, "/token-request/get_token", good.clone(), here)
            .await
            .status,
        StatusCode::OK
    );
    // ...so ten more failures are answered 401,
    for i in 0..10 {
        let r = post_from(&e.app, "/token-request/get_token", bad.clone(), here).await;
        assert_eq!(
            r.status,
            StatusCode::UNAUTHORIZED,
            "attempt {i} after reset"
        );
    }
    // and the eleventh from that address is 429, even with the right password.
    for body in [bad.clone(), good.clone()] {
        let r = post_from(&e.app, "/token-request/get_token", body, here).await;
        assert_problem(&r, StatusCode::TOO_MANY_REQUESTS);
        let secs: u64 = r.header(header::RETRY_AFTER).parse().unwrap();
        assert!((1..=900).contains(&secs), "Retry-After {secs}");
        assert!(
            r.detail().contains("too many failed attempts"),
            "{}",
            r.detail()
        );
    }
    // The owner from another address is not locked out by those failures.
    assert_eq!(
        post_from(
            &e.app,
            "/token-request/get_token",
            good.clone(),
            [10, 0, 0, 2]
        )
        .await
        .status,
        StatusCode::OK
    );
    // Fifteen minutes later, the pair may try again.
    e.clock.advance(time::Duration::minutes(15));
    assert_eq!(
        post_from(&e.app, "/token-request/get_token", good, here)
            .await
            .status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn failures_over_many_emails_lock_the_client_address() {
    let store: SharedStore = Arc::new(SqliteStore::open_in_memory().unwrap());
    let config = ApiConfig {
        max_failed_per_address: 20,
        ..quiet_config()
    };
    let app = router(AppState::new(
        store,
        reference(),
        Arc::new(MutableClock::new(START)),
        config,
    ));
    let client = [192, 0, 2, 7];
    for i in 0..20 {
        let body = json!({"email": format!("user{i}@example.org"), "password": "some password!"});
        assert_eq!(
            post_from(&app, "/token-request/get_token", body, client)
                .await
                .status,
            StatusCode::UNAUTHORIZED
        );
    }
    let body = json!({"email": "user99@example.org", "password": "some password!"});
    let r = post_from(&app, "/token-request/get_token", body.clone(), client).await;
    assert_problem(&r, StatusCode::TOO_MANY_REQUESTS);
    assert!(r.header(header::RETRY_AFTER).parse::<u64>().is_ok());
    // Another address is not affected.
    assert_eq!(
        post_from(&app, "/token-request/get_token", body, [192, 0, 2, 8])
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn failed_registrations_count_towards_the_limit() {
    let e = env();
    let client = [198, 51, 100, 1];
    let body = json!({"email": "nobody@example.org", "password": PASSWORD});
    for _ in 0..10 {
        assert_eq!(
            post_from(&e.app, "/token-request/register", body.clone(), client)
                .await
                .status,
            StatusCode::FORBIDDEN
        );
    }
    let r = post_from(&e.app, "/token-request/register", body.clone(), client).await;
    assert_problem(&r, StatusCode::TOO_MANY_REQUESTS);
    assert!(r.header(header::RETRY_AFTER).parse::<u64>().is_ok());
    // The same email from another address: only 10 of its 100 failures are used.
    let r = post_from(&e.app, "/token-request/register", body, [198, 51, 100, 2]).await;
    assert_problem(&r, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn zones_need_a_bearer_token() {
    let e = env();
    let r = get_as(&e.app, "/v1/zones", None).await;
    assert_problem(&r, StatusCode::UNAUTHORIZED);
    assert_eq!(r.header(header::WWW_AUTHENTICATE), "Bearer");

    let token = token_for(&e.app).await;
    let r = get_as(&e.app, "/v1/zones", Some(&token)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header(header::CONTENT_TYPE), "application/json");
    let zones = r.json();
    let zones = zones.as_array().unwrap();
    assert!(zones.len() >= 40, "{} zones", zones.len());
    let codes: Vec<&str> = zones.iter().map(|z| z["zone"].as_str().unwrap()).collect();
    let mut sorted = codes.clone();
    sorted.sort();
    assert_eq!(codes, sorted);
    let de = zones.iter().find(|z| z["zone"] == "DE").expect("DE listed");
    for key in [
        "full_name",
        "eic_code",
        "country_code",
        "country_name",
        "provider",
    ] {
        assert!(de[key].as_str().is_some_and(|s| !s.is_empty()), "{key}");
    }
    assert_eq!(de["provider"], "ENTSO-E");
    assert!(
        de["neighbours"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "FR")
    );
}

#[tokio::test]
async fn status_is_public() {
    let e = env();
    let r = get_as(&e.app, "/v1/status", None).await;
    assert_eq!(r.status, StatusCode::OK);
    let v = r.json();
    assert_eq!(v["storage"], "up");
    assert!(v["entso-e"].is_string());
    let r = get_as(&e.app, "/v1/status/storage", None).await;
    assert_eq!(r.json(), json!({"storage": "up"}));
    assert_eq!(r.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff");
}

#[tokio::test]
async fn unknown_paths_and_methods_are_problem_json() {
    let e = env();
    assert_problem(
        &get_as(&e.app, "/v1/nothing-here", None).await,
        StatusCode::NOT_FOUND,
    );
    assert_problem(
        &get_as(&e.app, "/token-request/get_token", None).await,
        StatusCode::METHOD_NOT_ALLOWED,
    );
}

#[tokio::test]
async fn the_page_is_served_with_a_strict_policy() {
    let e = env();
    let r = get_as(&e.app, "/token-request/", None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.header(header::CONTENT_TYPE).starts_with("text/html"));
    let csp = r.header(header::CONTENT_SECURITY_POLICY);
    for part in [
        "default-src 'none'",
        "script-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(part), "{csp}");
    }
    assert_eq!(r.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff");
    assert_eq!(r.header(header::CACHE_CONTROL), "no-store");
    assert!(
        r.text().contains(r#"action="register""#) && r.text().contains(r#"action="get_token""#)
    );
    assert!(!r.text().contains("<script>"), "no inline script");
    let r = get_as(&e.app, "/token-request", None).await;
    assert_eq!(r.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(r.header(header::LOCATION), "/token-request/");
    let r = get_as(&e.app, "/token-request/page.js", None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(
        r.header(header::CONTENT_TYPE)
            .starts_with("text/javascript")
    );
}

#[tokio::test]
async fn form_posts_are_answered_with_the_page() {
    let e = env();
    let form = "email=Ada%40example.org&password=correct+horse+battery";
    let ct = "application/x-www-form-urlencoded";
    let form_post =
        |path: &'static str, form: &'static str| send(&e.app, post_raw(path, ct, form, None));
    let r = form_post("/token-request/register", form).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.header(header::CONTENT_TYPE).starts_with("text/html"));
    assert!(
        r.header(header::CONTENT_SECURITY_POLICY)
            .contains("default-src 'none'")
    );
    assert!(
        r.text().contains("ada@example.org is registered"),
        "{}",
        r.text()
    );

    let r = form_post("/token-request/get_token", form).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header(header::CACHE_CONTROL), "no-store");
    let start = r.text().find(r#"id="secret""#).expect("token field");
    let value_at = r.text()[start..].find("value=\"").unwrap() + start + 7;
    let token = &r.text()[value_at..value_at + 64];
    assert_eq!(zones_status(&e.app, token).await, StatusCode::OK);

    // Errors are shown on the page, escaped, with the same status as the JSON API.
    // The page's form sends the registration code as `code`.
    let code = gridprint_api::tokens::registration_code::new_code().unwrap();
    let hash = gridprint_api::tokens::registration_code::code_hash(&code);
    e.store.grant("bob@example.org", Some(&hash), 0).unwrap();
    let with_code =
        |code: &str| format!("email=bob%40example.org&password=correct+horse+battery&code={code}");
    let r = send(
        &e.app,
        post_raw("/token-request/register", ct, with_code("0000"), None),
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert!(r.text().contains(r#"role="alert""#));
    let r = send(
        &e.app,
        post_raw("/token-request/register", ct, with_code(&code), None),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert!(r.text().contains("bob@example.org is registered"));
    let r = form_post("/token-request/register", "email=%3Cb%3E&password=short").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.text().contains(r#"role="alert""#));
    assert!(r.text().contains("&lt;b&gt;") && !r.text().contains("<b>"));
    let r = form_post("/token-request/get_token", "email=x%40y.org&password=nope").await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.text().contains("invalid email or password"));
    assert!(!r.text().contains(r#"id="secret""#));
}

#[tokio::test]
async fn the_request_rate_limit_answers_429_with_retry_after() {
    let store: SharedStore = Arc::new(SqliteStore::open_in_memory().unwrap());
    let config = ApiConfig {
        rate_limit_per_second: 1.0,
        rate_limit_burst: 3,
        ..quiet_config()
    };
    let state = AppState::new(
        store,
        reference(),
        Arc::new(MutableClock::new(START)),
        config,
    );
    let app = router(state);
    for _ in 0..3 {
        assert_eq!(
            get_as(&app, "/v1/status", None).await.status,
            StatusCode::OK
        );
    }
    let r = get_as(&app, "/v1/status", None).await;
    assert_problem(&r, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(r.header(header::RETRY_AFTER), "1");
}

/// Over a real socket: the client address comes from the connection, and shutdown is graceful.
#[tokio::test]
async fn serves_on_a_real_socket_with_graceful_shutdown() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let store: SharedStore = Arc::new(SqliteStore::open_in_memory().unwrap());
    store.grant(EMAIL, None, 0).unwrap();
    let server = SocketServer::start(store).await;
    let addr = server.addr;

    async fn http(addr: SocketAddr, raw: String) -> (u16, String) {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(raw.as_bytes()).await.unwrap();
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).await.unwrap();
        let text = String::from_utf8_lossy(&buf).to_string();
        let status = text[9..12].parse().unwrap();
        let body = text
            .split_once("\r\n\r\n")
            .map(|x| x.1.to_string())
            .unwrap_or_default();
        (status, body)
    }
    let post = |path: &str, body: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let creds = json!({"email": EMAIL, "password": PASSWORD}).to_string();
    assert_eq!(
        http(addr, post("/token-request/register", &creds)).await.0,
        200
    );
    let (status, body) = http(addr, post("/token-request/get_token", &creds)).await;
    assert_eq!(status, 200, "{body}");
    let token: Value = serde_json::from_str(&body).unwrap();
    let token = token["access_token"].as_str().unwrap();
    let (status, body) = http(
        addr,
        format!("GET /v1/zones HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert_eq!(status, 200);
    assert!(body.contains("\"zone\":\"DE\""));

    // The brute-force guard sees the socket's address: 10 failures from 127.0.0.1, then 429.
    let wrong = json!({"email": EMAIL, "password": "wrong password!!"}).to_string();
    for _ in 0..10 {
        assert_eq!(
            http(addr, post("/token-request/get_token", &wrong)).await.0,
            401
        );
    }
    assert_eq!(
        http(addr, post("/token-request/get_token", &creds)).await.0,
        429
    );

    server.stop().await;
}

#[test]
fn credentials_debug_hides_the_password() {
    let c: gridprint_api::tokens::token::Credentials =
        serde_json::from_value(json!({"email": EMAIL, "password": PASSWORD})).unwrap();
    assert!(!format!("{c:?}").contains(PASSWORD));
}

#[tokio::test]
async fn an_api_key_works_as_bearer_and_as_auth_token_and_stops_once_revoked() {
    let e = env();
    let (key, id) = create_key(&e.store, None);
    // Bearer on /v1, `auth-token` on /v3 (past the guard: this state never loads data, so the
    // handler answers 503 "still loading").
    assert_eq!(zones_status(&e.app, &key).await, StatusCode::OK);
    let v3 = "/v3/carbon-intensity/latest?zone=DE";
    let with_header = |k: &str| request(v3, None, &[("auth-token", k)]);
    let r = send(&e.app, with_header(&key)).await;
    assert_problem(&r, StatusCode::SERVICE_UNAVAILABLE);
    assert!(r.detail().contains("loading"), "{}", r.detail());
    let r = send(&e.app, request("/v1/zones", None, &[("auth-token", &key)])).await;
    assert_eq!(r.status, StatusCode::OK);
    // A wrong key, and no key, are 401 on /v3.
    assert_problem(
        &send(&e.app, with_header(&"0".repeat(64))).await,
        StatusCode::UNAUTHORIZED,
    );
    assert_problem(&get_as(&e.app, v3, None).await, StatusCode::UNAUTHORIZED);
    // The store records the use (its first confirmation).
    let row = &e.store.list_api_keys(Some(EMAIL), 0, 100).unwrap()[0];
    assert_eq!(row.last_used_at, Some(START.unix_timestamp()));
    // Revoked from another process: served from the cache for at most 30 s, then refused.
    assert!(e.store.revoke_api_key(id, None).unwrap());
    e.clock.advance(time::Duration::seconds(29));
    assert_eq!(zones_status(&e.app, &key).await, StatusCode::OK);
    e.clock.advance(time::Duration::seconds(2));
    zones_refused(&e.app, &key).await;
    assert_problem(
        &send(&e.app, with_header(&key)).await,
        StatusCode::UNAUTHORIZED,
    );
}

#[tokio::test]
async fn an_expired_api_key_is_refused() {
    let e = env();
    let (key, _) = create_key(&e.store, Some(START.unix_timestamp() + 86_400));
    assert_expires_after(&e, &key, 86_400).await;
}

#[tokio::test]
async fn a_registered_user_creates_lists_and_revokes_their_own_api_keys() {
    let e = env();
    register_ada(&e.app).await;
    let call = |body: Value| post_json(&e.app, "/token-request/api-key", body);
    let creds = |action: &str| json!({"email": EMAIL, "password": PASSWORD, "action": action});
    let mut create = creds("create");
    create["name"] = json!("home assistant");
    create["expires_days"] = json!(30);
    let r = call(create).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(r.header(header::CACHE_CONTROL), "no-store");
    let made = r.json();
    let key = made["key"].as_str().unwrap().to_string();
    assert_eq!(made["name"], "home assistant");
    assert!(made["expires_at"].is_string());
    assert_eq!(zones_status(&e.app, &key).await, StatusCode::OK);
    // The list never holds the key.
    let r = call(creds("list")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(!r.text().contains(&key));
    assert_eq!(r.json()["keys"][0]["id"], made["id"]);
    // A wrong password is refused like get_token's; another account's key id is not found.
    let mut wrong = creds("list");
    wrong["password"] = json!("not the password at all");
    assert_problem(&call(wrong).await, StatusCode::UNAUTHORIZED);
    let mut other = creds("revoke");
    other["id"] = json!(made["id"].as_i64().unwrap() + 1);
    assert_problem(&call(other).await, StatusCode::NOT_FOUND);
    let mut revoke = creds("revoke");
    revoke["id"] = made["id"].clone();
    assert_eq!(call(revoke).await.status, StatusCode::OK);
    assert_eq!(call(creds("list")).await.json()["keys"], json!([]));
    e.clock.advance(time::Duration::seconds(31));
    zones_refused(&e.app, &key).await;
    assert_problem(
        &call(creds("rotate")).await,
        StatusCode::UNPROCESSABLE_ENTITY,
    );
}

#[tokio::test]
async fn the_token_page_creates_lists_and_revokes_api_keys() {
    let e = env();
    register_ada(&e.app).await;
    let ct = "application/x-www-form-urlencoded";
    let page_post = |form: String| send(&e.app, post_raw("/token-request/api-key", ct, form, None));
    let creds = "email=ada%40example.org&password=correct+horse+battery";

    // The page offers the form: a field per input, one button per action.
    let r = get_as(&e.app, "/token-request/", None).await;
    for part in [
        r#"<form method="post" action="api-key">"#,
        r#"name="action" value="create""#,
        r#"name="action" value="list""#,
        r#"name="action" value="revoke""#,
    ] {
        assert!(r.text().contains(part), "{part}");
    }

    // Create (the page sends every field, empty ones too): the key once, in the read-only field.
    let r = page_post(format!(
        "{creds}&name=laptop+%3Cb%3E&expires_days=&id=&action=create"
    ))
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert!(r.header(header::CONTENT_TYPE).starts_with("text/html"));
    assert_eq!(r.header(header::CACHE_CONTROL), "no-store");
    assert!(r.text().contains("API key created"));
    assert!(r.text().contains("valid until you revoke it"));
    assert!(r.text().contains("&lt;b&gt;") && !r.text().contains("laptop <b>"));
    let start = r.text().find(r#"id="secret""#).expect("key field");
    let value_at = r.text()[start..].find("value=\"").unwrap() + start + 7;
    let key = r.text()[value_at..value_at + 64].to_string();
    assert_eq!(zones_status(&e.app, &key).await, StatusCode::OK);

    // A second key that expires, from the number field.
    let r = page_post(format!("{creds}&name=ci&expires_days=30&id=&action=create")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert!(r.text().contains("valid until 20"));

    // List: a table with both, never a key.
    let r = page_post(format!("{creds}&name=&expires_days=&id=&action=list")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.text().contains("You have 2 API keys"), "{}", r.text());
    assert!(r.text().contains("<td>laptop &lt;b&gt;</td>"));
    assert!(!r.text().contains(&key));
    assert!(!r.text().contains(r#"id="secret""#));

    // Revoke by id; a bad id and a wrong password are shown as errors on the page.
    let mine = e
        .store
        .list_api_keys(Some("ada@example.org"), 0, 100)
        .unwrap();
    let first = mine.iter().find(|k| k.name == "laptop <b>").unwrap().id;
    let r = page_post(format!("{creds}&id=abc&action=revoke")).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.text().contains(r#"role="alert""#));
    let r = page_post(format!(
        "email=ada%40example.org&password=wrong+password+here&id={first}&action=revoke"
    ))
    .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.text().contains("invalid email or password"));
    let r = page_post(format!(
        "{creds}&name=&expires_days=&id={first}&action=revoke"
    ))
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert!(r.text().contains(&format!("API key {first} is revoked")));
    let r = page_post(format!("{creds}&action=list")).await;
    assert!(r.text().contains("You have 1 API key,"), "{}", r.text());
    e.clock.advance(time::Duration::seconds(31));
    zones_refused(&e.app, &key).await;
}

/// WattTime's `GET /login` with HTTP Basic `email:password` from `client`.
fn watttime_login(credentials: Option<&str>, client: [u8; 4]) -> Request<Body> {
    use base64::Engine;
    let mut b = Request::builder().uri("/login");
    if let Some(c) = credentials {
        let encoded = base64::engine::general_purpose::STANDARD.encode(c);
        b = b.header(header::AUTHORIZATION, format!("Basic {encoded}"));
    }
    let mut req = b.body(Body::empty()).unwrap();
    req.extensions_mut()
        .insert(ConnectInfo(SocketAddr::from((client, 40000))));
    req
}

/// WattTime's login gives an ordinary token (it opens `/v1` and the WattTime routes), refuses
/// without Basic credentials and with wrong ones (a Basic challenge), and counts its failures with
/// `get_token`'s: ten at `/login` lock the pair at `get_token` too.
#[tokio::test]
async fn watttime_login_issues_a_token_under_get_tokens_rules() {
    let e = env();
    register_ada(&e.app).await;
    let here = [10, 0, 0, 7];
    let good = format!("{EMAIL}:{PASSWORD}");
    let r = send(&e.app, watttime_login(Some(&good), here)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(r.header(header::CACHE_CONTROL), "no-store");
    let v = r.json();
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
    let token = v["token"].as_str().unwrap();
    assert_eq!(zones_status(&e.app, token).await, StatusCode::OK);
    let r = get_as(&e.app, "/v3/my-access", Some(token)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(r.header(header::CACHE_CONTROL), "private, no-cache");
    // The email is read as `get_token` reads it (case, surrounding spaces).
    let shouted = format!(" {} :{PASSWORD}", EMAIL.to_uppercase());
    let r = send(&e.app, watttime_login(Some(&shouted), here)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    // No credentials, another scheme, an unreadable Basic value: 401 with a Basic challenge,
    // nothing counted.
    for req in [
        watttime_login(None, here),
        request("/login", Some(token), &[]),
        request("/login", None, &[("authorization", "Basic %%%")]),
    ] {
        let r = send(&e.app, req).await;
        let text = assert_watttime_401(&r);
        assert_eq!(
            r.header(header::WWW_AUTHENTICATE),
            "Basic realm=\"gridprint\""
        );
        assert!(text.contains("HTTP Basic"), "{text}");
    }
    // Ten wrong passwords at /login: 401 each (plain text, WattTime's clients' "invalid
    // credentials"), with get_token's one answer...
    let bad = format!("{EMAIL}:wrong password!!");
    for i in 0..10 {
        let r = send(&e.app, watttime_login(Some(&bad), here)).await;
        assert_eq!(
            assert_watttime_401(&r),
            "invalid email or password",
            "attempt {i}"
        );
    }
    // ...then the pair is locked, at /login (WattTime's JSON error) and at get_token
    // (problem+json), even with the right password.
    let r = send(&e.app, watttime_login(Some(&good), here)).await;
    assert_watttime_error(&r, StatusCode::TOO_MANY_REQUESTS);
    assert!(r.header(header::RETRY_AFTER).parse::<u64>().is_ok());
    let body = json!({"email": EMAIL, "password": PASSWORD});
    let r = post_from(&e.app, "/token-request/get_token", body, here).await;
    assert_problem(&r, StatusCode::TOO_MANY_REQUESTS);
    // The owner from another address still logs in.
    let r = send(&e.app, watttime_login(Some(&good), [10, 0, 0, 8])).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
}

/// The WattTime routes take a token or an API key, as Bearer or `auth-token`; a wrong one is 401
/// as plain text, and their other errors are WattTime's JSON (`/v1` keeps problem+json).
#[tokio::test]
async fn watttime_routes_take_a_token_or_an_api_key() {
    let e = env();
    let (key, _) = create_key(&e.store, None);
    for path in [
        "/v3/my-access",
        "/v3/region-from-loc?latitude=52.52&longitude=13.40&signal_type=co2_aoer",
    ] {
        assert_eq!(
            get_as(&e.app, path, Some(&key)).await.status,
            StatusCode::OK,
            "{path}"
        );
        let r = send(&e.app, request(path, None, &[("auth-token", &key)])).await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        let r = get_as(&e.app, path, None).await;
        assert_watttime_401(&r);
        assert_eq!(r.header(header::WWW_AUTHENTICATE), "Bearer");
        let wrong = "0".repeat(64);
        assert_watttime_401(&get_as(&e.app, path, Some(&wrong)).await);
    }
    // The data routes, past the guard: this state never loads data (503 "still loading").
    for path in [
        "/v3/forecast?region=DE&signal_type=co2_aoer",
        "/v3/historical?region=DE&signal_type=co2_aoer&start=2026-01-01T00:00Z&end=2026-01-02T00:00Z",
        "/v3/forecast/historical?region=DE&signal_type=co2_aoer&start=2026-01-01T00:00Z&end=2026-01-01T01:00Z",
        "/v3/signal-index?region=DE",
    ] {
        let r = get_as(&e.app, path, Some(&key)).await;
        assert_watttime_error(&r, StatusCode::SERVICE_UNAVAILABLE);
        assert!(r.header(header::RETRY_AFTER).parse::<u64>().is_ok());
        assert_watttime_401(&get_as(&e.app, path, None).await);
    }
    // /v1 keeps problem+json.
    assert_problem(
        &get_as(&e.app, "/v1/zones", Some(&"0".repeat(64))).await,
        StatusCode::UNAUTHORIZED,
    );
}
