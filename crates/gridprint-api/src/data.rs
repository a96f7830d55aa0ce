//! The `/v1` data API (docs/api.md §2–§3), thin over [`gridprint_query::QueryService`]: one route
//! and one OpenAPI operation per path of the endpoint table ([`data_router`]), all answered by
//! [`answer`].
//!
//! Each route takes [`AuthUser`] (so it is protected: [`crate::limit::data_guard`] has already
//! authenticated the token and counted it against the per-token rate limit), hands the raw query
//! pairs to the query service and renders its answer; all parameter rules, lookups, grouping and
//! aggregates live in `gridprint-query`. What this module adds is HTTP:
//!
//! - **Format**: `format=json|csv`, else `Accept: text/csv` → CSV (`text/csv; charset=utf-8`);
//!   `Vary: Accept, Authorization` (with the compression layer's `Accept-Encoding`).
//! - **Caching**: an answer whose every point is final ([`QueryResponse::is_final`]) gets a weak
//!   `ETag` (a hash of the data version of the window's days — the latest publication that changed
//!   one of them, so publishing other days keeps the tag — or, without a window, of the cache's data
//!   version plus the current slot; the endpoint, the sorted query pairs and the format) and `Cache-Control: private, max-age=3600`
//!   (answers are token-protected, so never `public`);
//!   `If-None-Match` with a matching tag → 304 before serializing. Other answers: `no-cache`.
//! - **Availability**: while the store is down, or before the cache was first loaded, data answers
//!   are 503 with `Retry-After` (zones and factors come from the reference data and are always served).
//! - **Reuse**: a final answer is kept rendered in the [`response_cache`](crate::response_cache) under
//!   its tag; the same request is then answered (or 304'd) from there, without query or serialization.
//! - **Cost**: requests whose window exceeds [`BLOCKING_ABOVE_DAYS`] run on the blocking pool, at most
//!   `ApiConfig::max_concurrent_long_answers` at a time (two per core by default), so a long
//!   serialization does not stall the async workers; short ones run inline (reading memory only).

use crate::auth::AuthUser;
use crate::error::ApiError;
use crate::format::{Format, content_type, format_from, pairs_of};
use crate::params::schemas;
use crate::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use gridprint_core::slot::{Slot, parse_timestamp};
use gridprint_query::describe::Description;
use gridprint_query::{Endpoint, QueryResponse};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use utoipa::openapi::RefOr;
use utoipa::openapi::path::{HttpMethod, Operation, Paths};
use utoipa_axum::router::OpenApiRouter;

/// `Cache-Control` of answers whose every point is final: `private`, since every data answer is
/// token-protected (a shared cache must not hand it to a client without a token).
pub const CACHE_FINAL: &str = "private, max-age=3600";
/// `Vary` of every data answer: the format follows `Accept`, and the answer is for the token's
/// holder (`Accept-Encoding` is added by the compression layer).
pub const VARY: &str = "Accept, Authorization";
/// `Cache-Control` of answers that may still change.
pub const CACHE_CHANGING: &str = "no-cache";
/// Windows longer than this many days are answered on the blocking pool.
pub const BLOCKING_ABOVE_DAYS: i64 = 7;
/// `Retry-After` of a 503 while the store is down or the cache is loading, in seconds.
const RETRY_UNAVAILABLE: u64 = 5;

/// Whether the request's window is long enough to answer on the blocking pool.
fn is_long(pairs: &[(String, String)]) -> bool {
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(k, v)| k == name && !v.trim().is_empty())
            .and_then(|(_, v)| parse_timestamp(v.trim()).ok())
    };
    match (get("start"), get("end")) {
        (Some(s), Some(e)) => (e - s).whole_days() > BLOCKING_ABOVE_DAYS,
        _ => false,
    }
}

/// The days an explicit window (`start`, `end`) touches, one day of margin on each side (answers
/// grouped by local day or month reach a few hours beyond the window); `None` without a window.
fn window_days(pairs: &[(String, String)]) -> Option<std::ops::Range<i64>> {
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(k, v)| k == name && !v.trim().is_empty())
            .and_then(|(_, v)| parse_timestamp(v.trim()).ok())
    };
    let (s, e) = (get("start")?, get("end")?);
    let day = |t: OffsetDateTime| t.unix_timestamp().div_euclid(86_400);
    Some(day(s) - 1..day(e) + 2)
}

/// The data version an answer's tag names: with an explicit window, the latest version that
/// changed one of its days ([`gridprint_query::DataCache::window_version`]), so a publication of
/// other days keeps the tag (and the rendered answer in the response cache); otherwise the
/// cache's data version.
fn tag_version(cache: &gridprint_query::DataCache, pairs: &[(String, String)]) -> i64 {
    match window_days(pairs) {
        Some(days) => cache.window_version(days),
        None => cache.data_version(),
    }
}

/// The weak entity tag of an answer (stable across replicas reading the same data version).
fn entity_tag(
    data_version: i64,
    endpoint: Endpoint,
    pairs: &[(String, String)],
    format: Format,
    now: OffsetDateTime,
) -> String {
    let mut sorted: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.trim()))
        .filter(|(k, _)| *k != "format")
        .collect();
    sorted.sort_unstable();
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(data_version.to_le_bytes());
    h.update(format!("{endpoint:?}|{format:?}|").as_bytes());
    for (k, v) in &sorted {
        h.update(k.as_bytes());
        h.update(b"=");
        h.update(v.as_bytes());
        h.update(b"&");
    }
    let windowless = !pairs
        .iter()
        .any(|(k, v)| (k == "start" || k == "end") && !v.trim().is_empty());
    if windowless {
        // "The current slot" names another slot every 15 minutes.
        h.update(Slot::containing(now).0.to_le_bytes());
    }
    let digest = h.finalize();
    format!("W/\"{}\"", hex::encode(&digest[..12]))
}

/// Whether `If-None-Match` names `etag` (weak comparison) or is `*`.
fn matches_if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    let opaque = |t: &str| {
        let t = t.trim();
        t.strip_prefix("W/").unwrap_or(t).to_string()
    };
    let mine = opaque(etag);
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim() == "*" || opaque(t) == mine)
}

/// What an answer needs from the request, owned so it can move to the blocking pool.
struct Ask {
    endpoint: Endpoint,
    pairs: Vec<(String, String)>,
    format: Format,
    if_none_match: HeaderMap,
    now: OffsetDateTime,
}

fn final_headers(headers: &mut HeaderMap, etag: &str) {
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(CACHE_FINAL));
    if let Ok(v) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, v);
    }
}

/// A final answer kept by the response cache, if any (no query, no serialization).
fn cached(state: &AppState, ask: &Ask, etag: &str) -> Option<Response> {
    let body = state.inner.responses.get(etag)?;
    let mut headers = HeaderMap::new();
    headers.insert(header::VARY, HeaderValue::from_static(VARY));
    final_headers(&mut headers, etag);
    if matches_if_none_match(&ask.if_none_match, etag) {
        return Some((StatusCode::NOT_MODIFIED, headers).into_response());
    }
    headers.insert(header::CONTENT_TYPE, content_type(ask.format));
    Some((headers, Body::from(body)).into_response())
}

fn render(
    state: &AppState,
    cache: &gridprint_query::DataCache,
    ask: Ask,
    etag: String,
) -> Result<Response, ApiError> {
    let svc = state.query();
    let answer: QueryResponse =
        gridprint_query::run(cache, svc.locator(), ask.endpoint, &ask.pairs, ask.now)?;
    let mut headers = HeaderMap::new();
    headers.insert(header::VARY, HeaderValue::from_static(VARY));
    let is_final = answer.is_final();
    if is_final {
        final_headers(&mut headers, &etag);
        if matches_if_none_match(&ask.if_none_match, &etag) {
            return Ok((StatusCode::NOT_MODIFIED, headers).into_response());
        }
    } else {
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(CACHE_CHANGING),
        );
    }
    let body = Bytes::from(match ask.format {
        Format::Json => answer.to_json(),
        Format::Csv => answer.to_csv(),
    });
    if is_final {
        state.inner.responses.insert(etag, body.clone());
    }
    headers.insert(header::CONTENT_TYPE, content_type(ask.format));
    Ok((headers, Body::from(body)).into_response())
}

/// Answers one data request: availability, format, query, caching headers.
pub(crate) async fn answer(
    state: &AppState,
    endpoint: Endpoint,
    pairs: Vec<(String, String)>,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    if !endpoint.from_reference() {
        let health = &state.inner.health;
        if !health.is_up() {
            return Err(ApiError::unavailable(
                "storage is unavailable; please retry",
                RETRY_UNAVAILABLE,
            ));
        }
        if !health.loaded() {
            return Err(ApiError::unavailable(
                "the data is still loading; please retry",
                RETRY_UNAVAILABLE,
            ));
        }
    }
    let format = format_from(&pairs, headers)?;
    let mut if_none_match = HeaderMap::new();
    for v in headers.get_all(header::IF_NONE_MATCH) {
        if_none_match.append(header::IF_NONE_MATCH, v.clone());
    }
    let ask = Ask {
        endpoint,
        pairs,
        format,
        if_none_match,
        now: state.now(),
    };
    // One snapshot for the tag and the answer, so the tag names the data it was computed from.
    let cache = state.query().cache();
    let etag = entity_tag(
        tag_version(&cache, &ask.pairs),
        ask.endpoint,
        &ask.pairs,
        ask.format,
        ask.now,
    );
    if let Some(resp) = cached(state, &ask, &etag) {
        return Ok(resp);
    }
    if is_long(&ask.pairs) {
        let st = state.clone();
        crate::on_blocking_pool(&state.inner.long_answer_permits, move || {
            render(&st, &cache, ask, etag)
        })
        .await?
    } else {
        render(state, &cache, ask, etag)
    }
}

/// What every data operation shares: the tag, the Bearer requirement and the responses. The endpoint
/// table fills in the rest per path ([`operation`]); this function is never routed.
#[utoipa::path(
    get,
    path = "/v1/{endpoint}",
    tag = "data",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The answer: a JSON array (possibly empty), or CSV with `format=csv`",
            content((String = "application/json"), (String = "text/csv")),
            headers(
                ("ETag" = String, description = "Only when every point is final"),
                ("Cache-Control" = String, description = "`private, max-age=3600` when every point is final, else `no-cache`"),
                ("RateLimit-Limit" = u32, description = "Burst size of the per-token limit"),
                ("RateLimit-Remaining" = u32, description = "Requests left right now"),
                ("RateLimit-Reset" = u64, description = "Seconds until the allowance is full again"),
                ("Gridprint-Ignored" = String, description = "What the request named without effect, when anything: `param=NAME` (unknown parameter), `zone=CODE` (unknown zone code), `earlier=NAME%3DVALUE` (overridden by a later occurrence); percent-encoded, comma-separated"),
            )),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, description = "A rule of the contract is broken (see `detail`)", body = schemas::Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, malformed, expired or revoked token (`WWW-Authenticate: Bearer`)", body = schemas::Problem, content_type = "application/problem+json"),
        (status = 404, description = "The coordinates lie in no supported zone", body = schemas::Problem, content_type = "application/problem+json"),
        (status = 422, description = "A value cannot be read (number, boolean, timestamp) or is out of range: the reference framework's list", body = schemas::ValidationError, content_type = "application/json"),
        (status = 429, description = "Rate limit exceeded (`Retry-After` in seconds)", body = schemas::Problem, content_type = "application/problem+json"),
        (status = 503, description = "Storage unavailable or data still loading (`Retry-After`)", body = schemas::Problem, content_type = "application/problem+json"),
    )
)]
#[allow(dead_code)]
async fn data_operation() {}

/// The OpenAPI operation of one path of an endpoint: the shared parts of [`data_operation`], the
/// operation id (the path with `_` for `-`), summary and description (first paragraph of the doc,
/// then the rest), the parameters and the JSON body schema from the table.
fn operation(path: &str, doc: &str, description: &Description) -> Operation {
    let mut op = <__path_data_operation as utoipa::Path>::operation();
    op.tags = Some(vec!["data".to_string()]);
    op.operation_id = Some(path.replace('-', "_"));
    let (summary, rest) = doc.split_once("\n\n").unwrap_or((doc, ""));
    op.summary = Some(summary.to_string());
    op.description = (!rest.is_empty()).then(|| rest.to_string());
    op.parameters = Some(
        description
            .parameters
            .iter()
            .cloned()
            .map(RefOr::T)
            .collect(),
    );
    if let Some(RefOr::T(ok)) = op.responses.responses.get_mut("200")
        && let Some(RefOr::T(json)) = ok.content.get_mut("application/json")
    {
        json.schema = Some(description.body.clone());
    }
    op
}

/// The protected data routes with their descriptions (paths include `/v1`), one per path of the
/// endpoint table, all answered by [`answer`].
pub fn data_router() -> OpenApiRouter<AppState> {
    let mut router = OpenApiRouter::new();
    for endpoint in Endpoint::ALL {
        let description = endpoint.description();
        debug_assert_eq!(description.docs.len(), endpoint.paths().len());
        for (path, doc) in endpoint.paths().iter().zip(description.docs) {
            let mut paths = Paths::new();
            paths.add_path_operation(
                format!("/v1/{path}"),
                vec![HttpMethod::Get],
                operation(path, doc, &description),
            );
            // The published parameters are the known ones (`Gridprint-Ignored`, crate::ignored).
            let known: std::sync::Arc<[String]> = description
                .parameters
                .iter()
                .map(|p| p.name.clone())
                .collect();
            let handler = move |_user: AuthUser,
                                State(state): State<AppState>,
                                RawQuery(query): RawQuery,
                                headers: HeaderMap| {
                let known = known.clone();
                async move {
                    let pairs = pairs_of(query.as_deref())?;
                    let items =
                        crate::ignored::ignored(&pairs, &known, &state.query().reference().zones);
                    let mut resp = answer(&state, endpoint, pairs, &headers).await?;
                    if let Some(v) = crate::ignored::header_value(&items) {
                        resp.headers_mut()
                            .insert(crate::ignored::GRIDPRINT_IGNORED, v);
                    }
                    Ok::<Response, ApiError>(resp)
                }
            };
            router = router.routes((description.schemas.clone(), paths, get(handler)));
        }
    }
    router
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::tests::pairs;

    #[test]
    fn etags_ignore_pair_order_and_see_the_data_version() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let tag = |version, query, format| {
            entity_tag(version, Endpoint::Load, &pairs(query), format, now)
        };
        let a = tag(1, "zone=ES&start=a&end=b", Format::Json);
        let b = tag(1, "end=b&zone=ES&start=a", Format::Json);
        let c = tag(2, "zone=ES&start=a&end=b", Format::Json);
        let d = tag(1, "zone=ES&start=a&end=b", Format::Csv);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
        assert!(a.starts_with("W/\""));
        let mut h = HeaderMap::new();
        h.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_str(&format!("\"x\", {}", &a[2..])).unwrap(),
        );
        assert!(matches_if_none_match(&h, &a));
        assert!(!matches_if_none_match(&h, &c));
    }

    #[test]
    fn long_windows_are_detected() {
        assert!(!is_long(&pairs("start=2024-01-01&end=2024-01-08")));
        assert!(is_long(&pairs("start=2024-01-01&end=2024-12-31")));
        assert!(!is_long(&pairs("zone=ES")));
    }
}
