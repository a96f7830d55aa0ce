//! Cross-cutting middleware of [`crate::router`]: sizes, timeouts, request metrics and CORS.
//! - **Sizes.** hyper bounds what it reads (about 400 KB of request head, at most 100 headers, URIs
//!   up to 64 KB; beyond that hyper itself answers 431 or 414 with an empty body). Within those,
//!   `limit_request_size` answers problem+json **414** for a request target longer than
//!   [`ApiConfig::max_uri_bytes`](crate::ApiConfig) and **431** for headers larger than
//!   [`ApiConfig::max_header_bytes`](crate::ApiConfig); bodies are limited to 4 KB (413).
//! - **Timeout.** `timeout` answers 503 with `Retry-After` when a request takes longer than
//!   [`ApiConfig::request_timeout`](crate::ApiConfig).
//! - **Body deadline.** `body_deadline` gives the request body [`ApiConfig::body_read_timeout`]
//!   from the moment its head was read: a body still incomplete then (stalled, trickled, or chunked
//!   without an end) fails, and the request is answered 408 with `Connection: close`.
//! - **Metrics.** `record_metrics` counts every request (`http_requests_total`) and records its
//!   latency (`http_request_duration_seconds`), labelled by route template (`/v1/footprints`, never the
//!   raw path, so labels stay few), method and status, through the `metrics` facade; the binary
//!   installs the Prometheus recorder and serves it on its own listener. `tag_route` (a route layer)
//!   hands the matched route template to it; unmatched requests are labelled `unmatched`. Answers
//!   that refuse a client under load are counted by kind too ([`crate::http::refusals`]).
//! - **CORS.** Off unless one origin is configured; then `cors` allows that origin to `GET` the API
//!   and `POST` the token service with `Authorization`, and exposes the caching and rate-limit headers.

use crate::http::error::ApiError;
use crate::http::refusals::{self, Refusal};
use crate::state::{ApiConfig, AppState};
use axum::body::{Body, Bytes};
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use metrics::{Counter, Histogram};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, PoisonError, RwLock};
use std::task::{Context, Poll};
use std::time::Instant;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// Metric: requests answered, by `route`, `method` and `status`.
pub const REQUESTS_TOTAL: &str = "http_requests_total";
/// Metric: seconds from receiving a request to its answer, by `route`, `method` and `status`.
pub const REQUEST_DURATION: &str = "http_request_duration_seconds";

/// The route template a response answered, for metric labels.
#[derive(Debug, Clone)]
struct RouteTag(MatchedPath);

/// Route layer: copies the matched route template into the response for `record_metrics`.
pub(crate) async fn tag_route(req: Request, next: Next) -> Response {
    let matched = req.extensions().get::<MatchedPath>().cloned();
    let mut resp = next.run(req).await;
    if let Some(m) = matched {
        resp.extensions_mut().insert(RouteTag(m));
    }
    resp
}

/// Counts the request and records its latency by route, method and status.
pub(crate) async fn record_metrics(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let resp = next.run(req).await;
    let route = resp
        .extensions()
        .get::<RouteTag>()
        .map_or("unmatched", |t| t.0.as_str());
    let h = handles(route, &method, resp.status());
    h.count.increment(1);
    h.duration.record(started.elapsed().as_secs_f64());
    if let Some(kind) = resp.extensions().get::<Refusal>() {
        refusals::record(*kind);
    }
    resp
}

/// The metric handles of one label set (route, method, status).
#[derive(Clone)]
struct Handles {
    count: Counter,
    duration: Histogram,
}

/// Handles per route, then per method and status: a request whose labels were seen before records
/// without building label strings and metric keys or looking them up in the recorder's registry.
/// A handle binds to the recorder installed when its label set is first seen; the binary installs
/// it before serving.
type HandleCache = RwLock<HashMap<Box<str>, HashMap<(Method, u16), Handles>>>;
static HANDLES: LazyLock<HandleCache> = LazyLock::new(Default::default);

fn handles(route: &str, method: &Method, status: StatusCode) -> Handles {
    let key = (method.clone(), status.as_u16());
    let cache = HANDLES.read().unwrap_or_else(PoisonError::into_inner);
    if let Some(h) = cache.get(route).and_then(|by_status| by_status.get(&key)) {
        return h.clone();
    }
    drop(cache);
    let labels = [
        ("route", route.to_owned()),
        ("method", method.as_str().to_owned()),
        ("status", status.as_str().to_owned()),
    ];
    let h = Handles {
        count: metrics::counter!(REQUESTS_TOTAL, &labels),
        duration: metrics::histogram!(REQUEST_DURATION, &labels),
    };
    // Clients may send any method name: only the standard ones are kept (bounded cache).
    let standard = matches!(
        *method,
        Method::GET
            | Method::HEAD
            | Method::POST
            | Method::PUT
            | Method::DELETE
            | Method::OPTIONS
            | Method::PATCH
            | Method::TRACE
            | Method::CONNECT
    );
    if standard {
        HANDLES
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(route.into())
            .or_default()
            .insert(key, h.clone());
    }
    h
}

/// 414 for a long request target, 431 for large headers, 413 for a declared body (`Content-Length`)
/// over [`MAX_BODY_BYTES`](crate::MAX_BODY_BYTES), answered at once instead of waiting for a body
/// that would be refused anyway (the connection is then closed).
pub(crate) async fn limit_request_size(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
    let target = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str().len())
        .unwrap_or(0);
    let headers: usize = req
        .headers()
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum();
    let declared_body = req
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let c = state.config();
    let limits = [
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            "body is declared as",
            declared_body,
            "bytes",
            crate::MAX_BODY_BYTES,
        ),
        (
            StatusCode::URI_TOO_LONG,
            "target is",
            target,
            "bytes long",
            c.max_uri_bytes,
        ),
        (
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "headers take",
            headers,
            "bytes",
            c.max_header_bytes,
        ),
    ];
    for (status, what, size, unit, max) in limits {
        if size > max {
            let detail = format!("the request {what} {size} {unit}; at most {max} are accepted");
            return ApiError::new(status, detail).into_response();
        }
    }
    next.run(req).await
}

/// Answers 503 when a request takes longer than [`ApiConfig::request_timeout`].
pub(crate) async fn timeout(State(state): State<AppState>, req: Request, next: Next) -> Response {
    match tokio::time::timeout(state.config().request_timeout, next.run(req)).await {
        Ok(resp) => resp,
        Err(_) => ApiError::unavailable("the request took too long; please retry", 1)
            .refusing(Refusal::RequestTimeout)
            .into_response(),
    }
}

/// Answers 408 (and closes the connection) when the request body is not complete within
/// [`ApiConfig::body_read_timeout`] of its head; see [`DeadlineBody`].
pub(crate) async fn body_deadline(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
    if req.body().is_end_stream() {
        return next.run(req).await; // no body (most requests): nothing to wait for
    }
    let limit = state.config().body_read_timeout;
    let expired = Arc::new(AtomicBool::new(false));
    let req = req.map(|inner| {
        Body::new(DeadlineBody {
            inner,
            deadline: Box::pin(tokio::time::sleep(limit)),
            expired: expired.clone(),
        })
    });
    let resp = next.run(req).await;
    if expired.load(Ordering::Relaxed) {
        let detail = format!(
            "the request body was not complete within {} s; send it at once",
            limit.as_secs_f64()
        );
        return ApiError::body_deadline(detail).into_response();
    }
    resp
}

/// A request body that fails once its deadline has passed (and says so in `expired`), however
/// slowly or steadily its bytes arrive.
struct DeadlineBody {
    inner: Body,
    deadline: Pin<Box<tokio::time::Sleep>>,
    expired: Arc<AtomicBool>,
}

impl HttpBody for DeadlineBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if self.deadline.as_mut().poll(cx).is_ready() {
            self.expired.store(true, Ordering::Relaxed);
            return Poll::Ready(Some(Err(axum::Error::new("request body deadline passed"))));
        }
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The CORS layer for the configured origin, or `None` (CORS off) when none is configured or it is
/// not a valid header value (logged).
pub(crate) fn cors(config: &ApiConfig) -> Option<CorsLayer> {
    let origin = config.cors_origin.as_deref()?.trim();
    if origin.is_empty() {
        return None;
    }
    let Ok(origin) = HeaderValue::from_str(origin) else {
        tracing::warn!("ignoring an invalid CORS origin");
        return None;
    };
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::exact(origin))
            .allow_methods([Method::GET, Method::HEAD, Method::POST])
            .allow_headers([
                header::AUTHORIZATION,
                header::ACCEPT,
                header::CONTENT_TYPE,
                header::IF_NONE_MATCH,
            ])
            .expose_headers([
                header::ETAG,
                header::RETRY_AFTER,
                HeaderName::from_static("ratelimit-limit"),
                HeaderName::from_static("ratelimit-remaining"),
                HeaderName::from_static("ratelimit-reset"),
                HeaderName::from_static("x-request-id"),
            ])
            .max_age(std::time::Duration::from_secs(3600)),
    )
}
