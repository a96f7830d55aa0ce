//! Rendered answers kept in memory and served again, one way for every route that keeps them (the
//! `/v1` data routes, the dashboard) or serves large ones (the compatible routes).
//!
//! [`serve_kept`] answers from what is kept under a key: 304 when `If-None-Match` names the kept
//! `ETag`, else the plain bytes, or for a client that takes gzip the kept gzip copy of a large
//! answer. [`keep_and_serve`] keeps a freshly rendered body (a large one for a gzip client
//! compressed once and kept compressed too) and serves it, counted against the response memory
//! budget until its last byte is written. [`serve_fresh`] serves a body that is not kept. Each kept
//! entry carries the headers it goes out with ([`Finality`]: `ETag`, `Cache-Control`, `Vary`,
//! content type), so a hit needs nothing but the key. The parts: [`response_cache`] (the bounded
//! store and the `If-None-Match` test), [`tag_memo`] (tags of `/v1` requests seen before),
//! [`precompress`] (gzip), [`response_memory`] (the budget).

pub mod precompress;
pub mod response_cache;
pub mod response_memory;
pub mod tag_memo;

use crate::http::error::ApiError;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use response_cache::{ResponseCache, Weigh, matches_if_none_match};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// How a kept answer goes out besides its body, and how long it is kept.
#[derive(Debug, Clone)]
pub struct Finality {
    /// The `ETag` (a 304 when `If-None-Match` names it), if the answer has one.
    pub etag: Option<String>,
    /// `Cache-Control`.
    pub cache_control: HeaderValue,
    /// `Vary`, if any (`Accept-Encoding` is added to a gzip body's).
    pub vary: Option<HeaderValue>,
    /// `Content-Type`.
    pub content_type: HeaderValue,
    /// Kept until evicted (`None`: an answer whose every point is final) or for this long.
    pub ttl: Option<Duration>,
}

impl Finality {
    /// The answer's headers, without its body's type and encoding.
    fn headers(&self) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(vary) = &self.vary {
            h.insert(header::VARY, vary.clone());
        }
        h.insert(header::CACHE_CONTROL, self.cache_control.clone());
        if let Some(v) = self
            .etag
            .as_deref()
            .and_then(|t| HeaderValue::from_str(t).ok())
        {
            h.insert(header::ETAG, v);
        }
        h
    }

    /// Whether `request`'s `If-None-Match` names this answer's tag (a 304: [`not_modified`]).
    pub fn names(&self, request: &HeaderMap) -> bool {
        self.etag
            .as_deref()
            .is_some_and(|t| matches_if_none_match(request, t))
    }
}

/// A kept body (plain, or the gzip copy under [`precompress::gzip_key`]) and how it goes out.
#[derive(Debug, Clone)]
pub struct Entry {
    body: Bytes,
    finality: Arc<Finality>,
}

impl Weigh for Entry {
    fn weight(&self) -> usize {
        self.body.len()
    }
}

/// The kept answers: bounded by bytes, entries or both ([`ResponseCache`]).
pub type Store = ResponseCache<Entry>;

/// The response of `body` (gzip bytes when `gzip`).
fn response(finality: &Finality, body: Bytes, gzip: bool) -> Response {
    let mut h = finality.headers();
    h.insert(header::CONTENT_TYPE, finality.content_type.clone());
    if gzip {
        precompress::mark_gzip(&mut h);
    }
    (h, Body::from(body)).into_response()
}

/// The 304 of an answer whose tag the request named ([`Finality::names`]).
pub fn not_modified(finality: &Finality) -> Response {
    (StatusCode::NOT_MODIFIED, finality.headers()).into_response()
}

/// The answer kept under `key`, as a response to a request with `headers`, if any: 304 when its
/// `If-None-Match` names the tag; else the plain body when it is small or the client takes no gzip
/// (one lookup, the usual case); for a gzip client the kept gzip copy, or else the plain body
/// compressed here and kept (`compress`: off the async workers) or, without `compress`, `None`
/// (the caller comes back with `compress` where compressing is allowed).
pub fn serve_kept(
    store: &Store,
    key: &str,
    headers: &HeaderMap,
    compress: bool,
) -> Option<Response> {
    let gzip = precompress::accepts_gzip(headers);
    let plain = store.get(key);
    if let Some(e) = &plain {
        if e.finality.names(headers) {
            return Some(not_modified(&e.finality));
        }
        if !precompress::wanted(gzip, e.body.len()) {
            return plain.map(|e| response(&e.finality, e.body, false));
        }
    }
    if gzip && let Some(packed) = store.get(&precompress::gzip_key(key)) {
        if packed.finality.names(headers) {
            return Some(not_modified(&packed.finality));
        }
        return Some(response(&packed.finality, packed.body, true));
    }
    let plain = plain?;
    if !compress {
        return None;
    }
    let packed = precompress::gzip(&plain.body);
    keep_shared(
        store,
        precompress::gzip_key(key),
        packed.clone(),
        &plain.finality,
    );
    Some(response(&plain.finality, packed, true))
}

/// The plain body kept under `key`, if any (for a caller that reads it rather than serving it).
pub fn kept_body(store: &Store, key: &str) -> Option<Bytes> {
    store.get(key).map(|e| e.body)
}

/// Keeps `body` under `key` with `finality`'s headers and time, for a caller that reads it back
/// with [`kept_body`] rather than serving it.
pub fn keep(store: &Store, key: String, body: Bytes, finality: Finality) {
    keep_shared(store, key, body, &Arc::new(finality));
}

fn keep_shared(store: &Store, key: String, body: Bytes, finality: &Arc<Finality>) {
    let entry = Entry {
        body,
        finality: finality.clone(),
    };
    match finality.ttl {
        None => store.insert(key, entry),
        Some(ttl) => store.insert_for(key, entry, ttl),
    }
}

/// Keeps a freshly rendered `body` under `key` (with `finality`'s headers and time) and serves it
/// to a request with `headers`: 304 when its `If-None-Match` names the tag; a large body for a
/// client that takes gzip is compressed here and kept compressed too. The served bytes count
/// against `budget` until written ([`response_memory::budgeted`]); 503 past it.
pub fn keep_and_serve(
    store: &Store,
    budget: &Arc<Semaphore>,
    key: String,
    body: Bytes,
    finality: Finality,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let finality = Arc::new(finality);
    let (body, packed) = if precompress::wanted(precompress::accepts_gzip(headers), body.len()) {
        let packed = precompress::gzip(&body);
        keep_shared(
            store,
            precompress::gzip_key(&key),
            packed.clone(),
            &finality,
        );
        keep_shared(store, key, body, &finality);
        (packed, true)
    } else {
        keep_shared(store, key, body.clone(), &finality);
        (body, false)
    };
    if finality.names(headers) {
        return Ok(not_modified(&finality));
    }
    let body = response_memory::budgeted(budget, body)?;
    Ok(response(&finality, body, packed))
}

/// Serves a body that is not kept (an answer that names the moment it was asked), as
/// [`keep_and_serve`] would: gzip for a large one when the client takes it, counted against
/// `budget` until written.
pub fn serve_fresh(
    budget: &Arc<Semaphore>,
    body: Bytes,
    finality: &Finality,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let (body, packed) = if precompress::wanted(precompress::accepts_gzip(headers), body.len()) {
        (precompress::gzip(&body), true)
    } else {
        (body, false)
    };
    let body = response_memory::budgeted(budget, body)?;
    Ok(response(finality, body, packed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finality(etag: Option<&str>) -> Finality {
        Finality {
            etag: etag.map(str::to_string),
            cache_control: HeaderValue::from_static("no-cache"),
            vary: None,
            content_type: HeaderValue::from_static("application/json"),
            ttl: None,
        }
    }

    fn request(accept_encoding: Option<&str>, if_none_match: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(v) = accept_encoding {
            h.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
        }
        if let Some(v) = if_none_match {
            h.insert(header::IF_NONE_MATCH, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn encoding(resp: &Response) -> Option<&str> {
        resp.headers()
            .get(header::CONTENT_ENCODING)
            .map(|v| v.to_str().unwrap())
    }

    #[test]
    fn gzip_is_made_only_for_a_client_that_takes_it() {
        let store = Store::with_max_bytes(64 << 20);
        let budget = Arc::new(Semaphore::new(1 << 20));
        let large = Bytes::from(vec![b'x'; precompress::PRECOMPRESS_MIN_BYTES]);
        let plain = request(Some("identity"), None);
        let resp =
            keep_and_serve(&store, &budget, "k".into(), large, finality(None), &plain).unwrap();
        assert_eq!(encoding(&resp), None);
        assert!(
            store.get(&precompress::gzip_key("k")).is_none(),
            "no gzip copy"
        );
        assert_eq!(
            encoding(&serve_kept(&store, "k", &plain, false).unwrap()),
            None
        );
        // A gzip client: compressed where that is allowed, and kept compressed from then on.
        let gzip = request(Some("gzip"), None);
        assert!(serve_kept(&store, "k", &gzip, false).is_none());
        let resp = serve_kept(&store, "k", &gzip, true).unwrap();
        assert_eq!(encoding(&resp), Some("gzip"));
        assert!(store.get(&precompress::gzip_key("k")).is_some());
        assert_eq!(
            encoding(&serve_kept(&store, "k", &gzip, false).unwrap()),
            Some("gzip")
        );
    }

    #[test]
    fn a_kept_tag_named_by_if_none_match_is_a_304() {
        let store = Store::with_max_bytes(1 << 20);
        let budget = Arc::new(Semaphore::new(1024));
        let tagged = finality(Some("\"t\""));
        let resp = keep_and_serve(
            &store,
            &budget,
            "k".into(),
            Bytes::from_static(b"[]"),
            tagged,
            &request(None, None),
        )
        .unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(resp.headers()[header::ETAG], "\"t\"");
        let again = serve_kept(&store, "k", &request(None, Some("\"t\"")), false).unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        let other = serve_kept(&store, "k", &request(None, Some("\"u\"")), false).unwrap();
        assert_eq!(other.status(), StatusCode::OK);
    }

    #[test]
    fn served_bytes_count_against_the_budget_until_written() {
        let store = Store::with_max_bytes(64 << 20);
        let budget = Arc::new(Semaphore::new(1024)); // 1 MiB
        let body = || Bytes::from(vec![b'x'; 600 << 10]);
        let plain = request(None, None);
        let first =
            keep_and_serve(&store, &budget, "a".into(), body(), finality(None), &plain).unwrap();
        assert_eq!(budget.available_permits(), 1024 - 600);
        let refused = keep_and_serve(&store, &budget, "b".into(), body(), finality(None), &plain)
            .unwrap_err();
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(serve_fresh(&budget, body(), &finality(None), &plain).is_err());
        drop(first);
        assert_eq!(budget.available_permits(), 1024);
        assert!(serve_fresh(&budget, body(), &finality(None), &plain).is_ok());
    }
}
