//! The answer of one `/v1` data request ([`answer`]): 503 while the data is unavailable, the tag
//! memo (a request sent again in the same slot and data version skips the reading), the query
//! string read once into the endpoint's typed request, format, tag, the response cache, then the
//! answer (on the blocking pool for long windows or costly endpoints) rendered as JSON or CSV. The
//! long-answer bound, the `ETag` and the response cache read the typed request, never the raw
//! pairs. The route table that calls it is [`super::data`]; the rules of the answers are in
//! gridprint-query (`endpoints/`); `Gridprint-Ignored` is [`super::ignored`] (docs/api.md §2–§3,
//! docs/reliability.md).

use crate::http::error::ApiError;
use crate::kept::tag_memo::{self, Tagged};
use crate::kept::{self, Finality};
use crate::state::AppState;
use crate::v1::format::{content_type, format_from, pairs_of};
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use gridprint_core::slot::Slot;
use gridprint_query::params::ParseContext;
use gridprint_query::{EndpointDef, RequestedWindow};
use gridprint_responses::Answer;
use gridprint_responses::Format;
use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use time::OffsetDateTime;

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
fn is_long(window: Option<(OffsetDateTime, OffsetDateTime)>) -> bool {
    window.is_some_and(|(s, e)| (e - s).whole_days() > BLOCKING_ABOVE_DAYS)
}

/// The data version an answer's tag names: with an explicit window, the latest version that
/// changed one of its days (one day of margin on each side: answers grouped by local day or month
/// reach a few hours beyond the window), so a publication of other days keeps the tag (and the
/// rendered answer in the response cache); otherwise the cache's data version.
fn tag_version(
    cache: &gridprint_query::DataCache,
    window: Option<(OffsetDateTime, OffsetDateTime)>,
) -> i64 {
    let day = |t: OffsetDateTime| t.unix_timestamp().div_euclid(86_400);
    match window {
        Some((s, e)) => cache.window_version(day(s) - 1..day(e) + 2),
        None => cache.data_version(),
    }
}

/// Feeds a typed request's `Hash` into the tag's digest. Only `write` is called by `Hash`; the
/// digest is read with `finalize`, so `finish` is never used.
struct DigestWriter<'a>(&'a mut Sha256);

impl Hasher for DigestWriter<'_> {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    fn finish(&self) -> u64 {
        0
    }
}

/// The weak entity tag of an answer: the build, the data version, the path, the format and the
/// typed request (stable across replicas of one build reading the same data version). Without a
/// window the current slot is named too: "now" names another slot every 15 minutes.
fn entity_tag<R: Hash>(
    data_version: i64,
    path: &str,
    format: Format,
    request: &R,
    window: Option<(OffsetDateTime, OffsetDateTime)>,
    now: OffsetDateTime,
) -> String {
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(data_version.to_le_bytes());
    h.update(format!("{path}|{format:?}|").as_bytes());
    request.hash(&mut DigestWriter(&mut h));
    if window.is_none() {
        h.update(Slot::containing(now).0.to_le_bytes());
    }
    let digest = h.finalize();
    format!("W/\"{}\"", hex::encode(&digest[..12]))
}

/// The response-cache key of an answer that can still change: its tag, the data version of the
/// whole cache (any publication, whatever days it touched) and the current slot (the flags of the
/// newest slots follow the clock). Kept for [`CHANGING_KEPT`] at most.
fn changing_key(etag: &str, data_version: i64, now: OffsetDateTime) -> String {
    format!("{etag}@{data_version}@{}", Slot::containing(now).0)
}

/// How long an answer that can still change is kept (its key names the data version and the
/// slot, so this only bounds how long an unused one occupies the cache).
const CHANGING_KEPT: std::time::Duration = std::time::Duration::from_secs(60);

/// How an answer goes out and is kept: a final one (`etag`) with its tag and [`CACHE_FINAL`],
/// until evicted; one that can still change (`None`) with [`CACHE_CHANGING`], for
/// [`CHANGING_KEPT`]. Both vary with [`VARY`].
fn finality(format: Format, etag: Option<String>) -> Finality {
    let is_final = etag.is_some();
    Finality {
        etag,
        cache_control: HeaderValue::from_static(if is_final {
            CACHE_FINAL
        } else {
            CACHE_CHANGING
        }),
        vary: Some(HeaderValue::from_static(VARY)),
        content_type: content_type(format),
        ttl: (!is_final).then_some(CHANGING_KEPT),
    }
}

/// The kept answer of a request: the final one under its tag, else the changing one under
/// `changing` ([`kept::serve_kept`]; `compress`: off the async workers).
fn kept(
    state: &AppState,
    etag: &str,
    changing: &str,
    headers: &HeaderMap,
    compress: bool,
) -> Option<Response> {
    let store = state.response_cache();
    kept::serve_kept(store, etag, headers, compress)
        .or_else(|| kept::serve_kept(store, changing, headers, compress))
}

/// Answers a typed request and renders it: a final answer under its tag, one that can still
/// change under `changing`, kept and served by [`kept::keep_and_serve`] (a large one for a client
/// that takes gzip compressed here and kept compressed too, counted against the answer memory
/// budget). Before any writing, a final answer whose tag `If-None-Match` names is a 304, and the
/// estimated size of the body is reserved from the budget.
fn render<E: EndpointDef>(
    state: &AppState,
    cache: &gridprint_query::DataCache,
    request: &E::Request,
    format: Format,
    headers: &HeaderMap,
    etag: String,
    changing: String,
) -> Result<Response, ApiError> {
    let answer = E::answer(cache, request)?;
    let is_final = answer.is_final();
    let finality = finality(format, is_final.then(|| etag.clone()));
    if finality.names(headers) {
        return Ok(kept::not_modified(&finality));
    }
    let per_point = match format {
        Format::Json => gridprint_responses::json::JSON_BYTES_PER_POINT,
        Format::Csv => gridprint_query::csv::CSV_BYTES_PER_POINT,
    };
    let reserved = crate::kept::response_memory::reserve(
        state.response_memory(),
        answer.points().saturating_mul(per_point),
    )?;
    let body = Bytes::from(match format {
        Format::Json => answer.to_json(),
        Format::Csv => gridprint_query::csv::to_csv(&answer),
    });
    drop(answer);
    drop(reserved);
    let key = if is_final { etag } else { changing };
    kept::keep_and_serve(
        state.response_cache(),
        state.response_memory(),
        key,
        body,
        finality,
        headers,
    )
}

/// 503 while the store is down or the cache is still loading (answers read from the data need both).
pub(crate) fn check_available(state: &AppState) -> Result<(), ApiError> {
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
    Ok(())
}

/// Answers one request of endpoint `E` at `path`: availability, the query string read once into
/// the typed request, format, tag, the response cache, then the answer (on the blocking pool for
/// long windows). `known` are the parameters `E` reads (for `Gridprint-Ignored`); `csv`: the CSV
/// twin (the format is CSV whatever `format` and `Accept` say).
pub(crate) async fn answer<E: EndpointDef>(
    state: &AppState,
    path: &'static str,
    known: &[String],
    query: Option<&str>,
    headers: &HeaderMap,
    csv: bool,
) -> Result<Response, ApiError> {
    if !E::FROM_REFERENCE {
        check_available(state)?;
    }
    let svc = state.query();
    let now = state.now();
    // One snapshot for the request, the tag and the answer, so the tag names the data it was
    // computed from.
    let cache = svc.cache();
    // What the kept answer and the rendering read of the request's headers: the tag it holds and
    // whether it takes gzip (a large answer is compressed once, off the async workers: found here
    // only when kept compressed).
    let mut conditional = HeaderMap::new();
    for name in [header::IF_NONE_MATCH, header::ACCEPT_ENCODING] {
        for v in headers.get_all(&name) {
            conditional.append(name.clone(), v.clone());
        }
    }
    // A request sent before in this slot and data version: its tag without reading the query.
    let memo_key = tag_memo::key(
        path,
        csv,
        headers,
        query,
        Slot::containing(now),
        cache.data_version(),
    );
    if let Some(seen) = memo_key
        .as_deref()
        .and_then(|k| state.inner.tag_memo.get(k))
        && let Some(resp) = kept(state, &seen.etag, &seen.changing, headers, false)
    {
        return Ok(with_ignored(resp, seen.ignored.clone()));
    }
    let pairs = pairs_of(query)?;
    let format = if csv {
        Format::Csv
    } else {
        format_from(&pairs, headers)?
    };
    let ignored = crate::v1::ignored::header_value(&crate::v1::ignored::ignored(
        &pairs,
        known,
        Some(&svc.reference().zones),
    ));
    let ctx = ParseContext {
        zones: &cache.reference().zones,
        locator: svc.locator(),
        now,
    };
    let request = gridprint_query::parse::<E>(&pairs, &ctx)?;
    let window = request.requested_window();
    let etag = entity_tag(
        tag_version(&cache, window),
        path,
        format,
        &request,
        window,
        now,
    );
    let changing = changing_key(&etag, cache.data_version(), now);
    let kept_answer = kept(state, &etag, &changing, headers, false);
    // Kept in the memo from its second sending on (its answer kept already): a flood of distinct
    // requests, each answered once, leaves the memo alone.
    if let Some(key) = memo_key
        && kept_answer.is_some()
    {
        let seen = Tagged::new(&key, etag.clone(), changing.clone(), ignored.clone());
        state.inner.tag_memo.insert(key, seen);
    }
    let st = state.clone();
    let render_it = move || {
        // A request that waited for the bounded pool may find its answer kept meanwhile by an
        // identical one ahead of it (the same typed request: junk parameters do not count).
        if let Some(resp) = kept(&st, &etag, &changing, &conditional, true) {
            return Ok(resp);
        }
        render::<E>(&st, &cache, &request, format, &conditional, etag, changing)
    };
    let resp = match kept_answer {
        Some(resp) => resp,
        None if E::COSTLY || is_long(window) => state.on_bounded_pool(render_it).await??,
        None => render_it()?,
    };
    Ok(with_ignored(resp, ignored))
}

/// `resp` with the `Gridprint-Ignored` header, when something was ignored.
fn with_ignored(mut resp: Response, ignored: Option<HeaderValue>) -> Response {
    if let Some(v) = ignored {
        resp.headers_mut()
            .insert(crate::v1::ignored::GRIDPRINT_IGNORED, v);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kept::response_cache::matches_if_none_match;
    use crate::v1::format::tests::pairs;
    use gridprint_core::reference::{ReferenceData, ZoneSet};
    use gridprint_query::endpoints::LoadEndpoint;
    use gridprint_query::endpoints::load::LoadRequest;
    use gridprint_query::{DataCache, QueryService};
    use std::sync::Arc;

    /// Reads `query` into `/v1/load`'s typed request, as [`answer`] does.
    fn load_request(query: &str) -> LoadRequest {
        let reference = Arc::new(ReferenceData::embedded(ZoneSet::Selected2026));
        let svc = QueryService::new(DataCache::empty(reference)).unwrap();
        let ctx = ParseContext {
            zones: &svc.reference().zones,
            locator: svc.locator(),
            now: OffsetDateTime::UNIX_EPOCH,
        };
        gridprint_query::parse::<LoadEndpoint>(&pairs(query), &ctx).unwrap()
    }

    #[test]
    fn etags_name_the_typed_request_and_the_data_version() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let tag = |version, query, format| {
            let r = load_request(query);
            let w = r.requested_window();
            entity_tag(version, "/v1/load", format, &r, w, now)
        };
        let q = "zone=ES&start=2024-06-15&end=2024-06-16";
        let a = tag(1, q, Format::Json);
        // The same request in another order, with a parameter no endpoint reads: the same tag.
        assert_eq!(
            a,
            tag(
                1,
                "end=2024-06-16&junk=1&zone=es&start=2024-06-15",
                Format::Json
            )
        );
        // Repeated parameters: the last one wins, so the order of the two `end`s matters.
        let e1 = "zone=ES&start=2024-06-15&end=2024-06-16&end=2024-06-15T12:00Z";
        let e2 = "zone=ES&start=2024-06-15&end=2024-06-15T12:00Z&end=2024-06-16";
        assert_ne!(tag(1, e1, Format::Json), tag(1, e2, Format::Json));
        assert_eq!(tag(1, e2, Format::Json), a);
        let c = tag(2, q, Format::Json);
        assert_ne!(a, c);
        assert_ne!(a, tag(1, q, Format::Csv));
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
    fn long_windows_are_detected_on_the_typed_request() {
        let window = |q| load_request(q).requested_window();
        assert!(!is_long(window("zone=ES&start=2024-01-01&end=2024-01-08")));
        assert!(is_long(window("zone=ES&start=2024-01-01&end=2024-12-31")));
        assert!(!is_long(window("zone=ES")));
        // The window the answer reads is the one sized: the last `start` and `end`.
        assert!(is_long(window(
            "zone=ES&start=2024-01-01&end=2024-01-02&start=2023-06-01&end=2024-01-02"
        )));
    }
}
