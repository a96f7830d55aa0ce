//! Handlers of the `/v1` data API (docs/api.md §2–§3), thin over [`gridprint_query::QueryService`].
//!
//! Each handler takes [`AuthUser`] (so it is protected: [`crate::limit::data_guard`] has already
//! authenticated the token and counted it against the per-token rate limit), hands the raw query
//! pairs to the query service and renders its answer; all parameter rules, lookups, grouping and
//! aggregates live in `gridprint-query`. What this module adds is HTTP:
//!
//! - **Format**: `format=json|csv`, else `Accept: text/csv` → CSV (`text/csv; charset=utf-8`);
//!   `Vary: Accept, Authorization` (with the compression layer's `Accept-Encoding`).
//! - **Caching**: an answer whose every point is final ([`QueryResponse::is_final`]) gets a weak
//!   `ETag` (a hash of the cache's data version, the endpoint, the sorted query pairs and the format,
//!   plus the current slot when no window was given) and `Cache-Control: private, max-age=3600`
//!   (answers are token-protected, so never `public`);
//!   `If-None-Match` with a matching tag → 304 before serializing. Other answers: `no-cache`.
//! - **Availability**: while the store is down, or before the cache was first loaded, data answers
//!   are 503 with `Retry-After` (zones and factors come from the reference data and are always served).
//! - **Reuse**: a final answer is kept rendered in the [`response_cache`](crate::response_cache) under
//!   its tag; the same request is then answered (or 304'd) from there, without query or serialization.
//! - **Cost**: requests whose window exceeds [`BLOCKING_ABOVE_DAYS`] run on the blocking pool so a long
//!   serialization does not stall the async workers; short ones run inline (reading memory only).

use crate::AppState;
use crate::auth::AuthUser;
use crate::error::ApiError;
use crate::format::{Format, content_type, format_from, pairs_of};
use crate::params::schemas;
use crate::params::{
    DestinationParams, FactorParams, FootprintParams, FootprintShareParams, FormatParam,
    ImpactParams, ImpactShareParams, LocationParams, OriginParams, ProductionFilter, ScoreParams,
    SourceParams, TimeParams,
};
use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use gridprint_core::slot::{Slot, parse_timestamp};
use gridprint_query::{Endpoint, QueryResponse};
use gridprint_responses::*;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

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
    query: Option<String>,
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
    let pairs = pairs_of(query.as_deref())?;
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
        cache.data_version(),
        ask.endpoint,
        &ask.pairs,
        ask.format,
        ask.now,
    );
    if let Some(resp) = cached(state, &ask, &etag) {
        return Ok(resp);
    }
    if is_long(&ask.pairs) {
        let state = state.clone();
        tokio::task::spawn_blocking(move || render(&state, &cache, ask, etag)).await?
    } else {
        render(state, &cache, ask, etag)
    }
}

/// The protected data routes with their descriptions (paths include `/v1`).
pub fn data_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(zones))
        .routes(routes!(generation))
        .routes(routes!(load))
        .routes(routes!(imports))
        .routes(routes!(exports))
        .routes(routes!(mix))
        .routes(routes!(footprints))
        .routes(routes!(impacts))
        .routes(routes!(green_score))
        .routes(routes!(environmental_score))
        .routes(routes!(flow_share))
        .routes(routes!(mix_share))
        .routes(routes!(footprint_share))
        .routes(routes!(impact_share))
        .routes(routes!(factors))
}

/// Declares a data handler: its OpenAPI description (`#[utoipa::path]`, shared responses and the
/// Bearer requirement) and a body calling [`answer`].
macro_rules! data_handler {
    (
        $(#[$doc:meta])*
        $name:ident, $path:literal, $endpoint:expr, $op:literal,
        params($($params:ty),* $(,)?),
        body = $body:ty
    ) => {
        $(#[$doc])*
        #[utoipa::path(
            get,
            path = $path,
            tag = "data",
            operation_id = $op,
            params($($params),*),
            security(("bearer" = [])),
            responses(
                (status = 200, description = "The answer: a JSON array (possibly empty), or CSV with `format=csv`",
                    content(($body = "application/json"), (String = "text/csv")),
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
        pub(crate) async fn $name(
            _user: AuthUser,
            State(state): State<AppState>,
            RawQuery(query): RawQuery,
            headers: HeaderMap,
        ) -> Result<Response, ApiError> {
            // The published parameters are the known ones (`Gridprint-Ignored`, crate::ignored).
            let known: Vec<String> = [$(<$params as utoipa::IntoParams>::into_params(|| None)),*]
                .into_iter()
                .flatten()
                .map(|p| p.name)
                .collect();
            let pairs = pairs_of(query.as_deref())?;
            let mut resp = answer(&state, $endpoint, query, &headers).await?;
            let items = crate::ignored::ignored(&pairs, &known, &state.query().cache().reference().zones);
            if let Some(v) = crate::ignored::header_value(&items) {
                resp.headers_mut().insert(crate::ignored::GRIDPRINT_IGNORED, v);
            }
            Ok(resp)
        }
    };
}

data_handler!(
    /// Every zone: code, names, EIC code, provider and neighbours, sorted by zone.
    zones, "/v1/zones", Endpoint::Zones, "zones",
    params(FormatParam),
    body = Vec<ZoneInfo>
);

data_handler!(
    /// Generation per production type (MW), as reported by the provider or estimated.
    ///
    /// Each series entry holds one block per production type, data state and datasource.
    generation, "/v1/generation", Endpoint::Generation, "generation",
    params(LocationParams, TimeParams, ProductionFilter, FormatParam),
    body = Vec<GenerationResult>
);

data_handler!(
    /// Load (MW).
    load, "/v1/load", Endpoint::Load, "load",
    params(LocationParams, TimeParams, FormatParam),
    body = Vec<LoadResult>
);

data_handler!(
    /// Physical flows into the zone (MW), per source zone.
    imports, "/v1/imports", Endpoint::Imports, "imports",
    params(LocationParams, SourceParams, TimeParams, FormatParam),
    body = Vec<ImportsResult>
);

data_handler!(
    /// Physical flows out of the zone (MW), per destination zone.
    exports, "/v1/exports", Endpoint::Exports, "exports",
    params(LocationParams, DestinationParams, TimeParams, FormatParam),
    body = Vec<ExportsResult>
);

data_handler!(
    /// The consumed mix (MW of each production type consumed in the zone after flow tracing).
    ///
    /// Same shape as `/generation`, datasource `flow_tracing`.
    mix, "/v1/mix", Endpoint::Mix, "mix",
    params(LocationParams, TimeParams, ProductionFilter, FormatParam),
    body = Vec<GenerationResult>
);

data_handler!(
    /// Carbon (gCO2/kWh) and water (l/kWh) footprints of consumed electricity.
    ///
    /// Global (traced through imports, default) or local; life-cycle (default) or operational scope.
    footprints, "/v1/footprints", Endpoint::Footprints, "footprints",
    params(LocationParams, TimeParams, FootprintParams, FormatParam),
    body = Footprints
);

data_handler!(
    /// Water impact (stress-l/kWh): operational water footprint × AWARE 2.0 factor of the month.
    impacts, "/v1/impacts", Endpoint::Impacts, "impacts",
    params(LocationParams, TimeParams, ImpactParams, FormatParam),
    body = Impacts
);

data_handler!(
    /// The 0–100 score (higher is better): s = 100·(1 − min(1, 0.7·CF/760 + 0.3·WI/100)).
    ///
    /// CF is the operational carbon footprint (gCO2/kWh), WI the water impact (stress-l/kWh).
    /// Same answer as `/environmental-score`.
    green_score, "/v1/green-score", Endpoint::Score, "green_score",
    params(LocationParams, TimeParams, ScoreParams, FormatParam),
    body = Scores
);

data_handler!(
    /// The 0–100 score (higher is better): s = 100·(1 − min(1, 0.7·CF/760 + 0.3·WI/100)).
    ///
    /// CF is the operational carbon footprint (gCO2/kWh), WI the water impact (stress-l/kWh).
    /// Same answer as `/green-score`.
    environmental_score, "/v1/environmental-score", Endpoint::Score, "environmental_score",
    params(LocationParams, TimeParams, ScoreParams, FormatParam),
    body = Scores
);

data_handler!(
    /// Where the zone's generation is consumed: % per destination zone (itself included).
    flow_share, "/v1/flow-share", Endpoint::FlowShare, "flow_share",
    params(LocationParams, DestinationParams, TimeParams, FormatParam),
    body = Vec<FlowShareResult>
);

data_handler!(
    /// Where the zone's consumption is generated: % per origin zone (itself included).
    mix_share, "/v1/mix-share", Endpoint::MixShare, "mix_share",
    params(LocationParams, OriginParams, TimeParams, FormatParam),
    body = Vec<MixShareResult>
);

data_handler!(
    /// The zone's global footprint split by the zone the power comes from (blocks sum to the footprint).
    footprint_share, "/v1/footprint-share", Endpoint::FootprintShare, "footprint_share",
    params(LocationParams, SourceParams, TimeParams, FootprintShareParams, FormatParam),
    body = Vec<FootprintShareResult>
);

data_handler!(
    /// The zone's global water impact split by the zone the power comes from.
    impact_share, "/v1/impact-share", Endpoint::ImpactShare, "impact_share",
    params(LocationParams, SourceParams, TimeParams, ImpactShareParams, FormatParam),
    body = Vec<ImpactShareResult>
);

data_handler!(
    /// Carbon and water factors per production type and scope (constant; no location).
    factors, "/v1/factors", Endpoint::Factors, "factors",
    params(TimeParams, FactorParams, FormatParam),
    body = Factors
);

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(s: &str) -> Vec<(String, String)> {
        pairs_of(Some(s)).unwrap()
    }

    #[test]
    fn etags_ignore_pair_order_and_see_the_data_version() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let a = entity_tag(
            1,
            Endpoint::Load,
            &pairs("zone=ES&start=a&end=b"),
            Format::Json,
            now,
        );
        let b = entity_tag(
            1,
            Endpoint::Load,
            &pairs("end=b&zone=ES&start=a"),
            Format::Json,
            now,
        );
        let c = entity_tag(
            2,
            Endpoint::Load,
            &pairs("zone=ES&start=a&end=b"),
            Format::Json,
            now,
        );
        let d = entity_tag(
            1,
            Endpoint::Load,
            &pairs("zone=ES&start=a&end=b"),
            Format::Csv,
            now,
        );
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
