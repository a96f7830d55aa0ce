//! What the APIs of other services that gridprint also answers share: the Electricity Maps and
//! CO2 Signal routes ([`electricitymaps`]) and the WattTime routes ([`watttime`]).
//!
//! [`respond`] writes an answer as JSON with `Cache-Control: private, no-cache` (every such answer
//! is for the key's holder only; large ones gzipped and budgeted like kept answers); [`is_served`] and [`locate`] find the zone a request names or
//! whose area holds a point; [`number`] and [`timestamp`] read parameters; [`footprints`] and
//! [`carbon_slots`] read the carbon footprint from the `/v1/footprints` query service, asked with
//! `/v1`'s own typed queries (gridprint-responses' `query`), so that every number these routes
//! answer is a number `/v1` answers (docs/compatibility.md). [`operation`] builds
//! a route's OpenAPI operation on the parts all of them share.

pub mod electricitymaps;
pub mod watttime;

use crate::http::error::ApiError;
use crate::http::failures::{RateLimited, Unavailable};
use crate::http::params::schemas;
use crate::kept::{self, Finality};
use crate::state::AppState;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use gridprint_core::quality::ZoneStatus;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::parse_timestamp;
use gridprint_core::zone::{ZoneCode, Zones};
use gridprint_query::endpoints::FootprintsEndpoint;
use gridprint_query::params::ParseContext;
use gridprint_query::{DataCache, EndpointDef, QueryService};
use gridprint_responses::query::{FootprintsQuery, Location, Period, QueryParams};
use gridprint_responses::{Footprints, SeriesOrAggregates, round2};
use serde_json::Value;
use time::OffsetDateTime;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::{Operation, Parameter};
use utoipa::openapi::response::Response as OpenApiResponse;
use utoipa::openapi::{RefOr, Schema};

/// `Cache-Control` of every answer here: for the key's holder only, and always asked again.
pub const CACHE_CONTROL: &str = "private, no-cache";

/// The answer as JSON with [`CACHE_CONTROL`] to a request with `headers`, or the problem. Not kept
/// (each answer names the moment it was asked), but served as kept answers are
/// ([`kept::serve_fresh`]: a large one gzipped for a client that takes gzip, counted against the
/// response memory budget).
pub fn respond(state: &AppState, headers: &HeaderMap, body: Result<Value, ApiError>) -> Response {
    let finality = Finality {
        etag: None,
        cache_control: HeaderValue::from_static(CACHE_CONTROL),
        vary: None,
        content_type: HeaderValue::from_static("application/json"),
        ttl: None,
    };
    body.and_then(|body| serde_json::to_vec(&body).map_err(ApiError::internal))
        .and_then(|body| {
            kept::serve_fresh(state.response_memory(), body.into(), &finality, headers)
        })
        .unwrap_or_else(IntoResponse::into_response)
}

/// What the OpenAPI operations of these routes share: a token or key (`Authorization: Bearer` or
/// `auth-token`), a JSON answer with [`CACHE_CONTROL`], and the problems of the token, the rate
/// limit and storage. Never routed: [`operation`] fills in the rest per route.
#[utoipa::path(
    get,
    path = "/{endpoint}",
    security(("bearer" = []), ("auth-token" = [])),
    responses(
        (status = 200, description = "The answer", content_type = "application/json",
            headers(("Cache-Control" = String, description = "`private, no-cache`"))),
        (status = 401, description = "Missing, malformed, expired or revoked token or key", body = schemas::Problem, content_type = "application/problem+json"),
        RateLimited, Unavailable,
    )
)]
#[allow(dead_code)]
async fn compat_operation() {}

/// What one route's OpenAPI operation adds to [`compat_operation`]'s.
pub struct RouteDoc<'a> {
    pub tag: &'static str,
    pub operation_id: String,
    pub summary: String,
    pub parameters: Vec<Parameter>,
    /// The description of the 200 answer, and its JSON body.
    pub answer: (&'a str, RefOr<Schema>),
    /// The route's other error answers by status (its 400 and 404, …).
    pub errors: Vec<(&'a str, RefOr<OpenApiResponse>)>,
}

/// The OpenAPI operation of one route: [`compat_operation`]'s shared parts with `doc`'s.
pub fn operation(doc: RouteDoc<'_>) -> Operation {
    let mut op = <__path_compat_operation as utoipa::Path>::operation();
    op.tags = Some(vec![doc.tag.to_string()]);
    op.operation_id = Some(doc.operation_id);
    op.summary = Some(doc.summary);
    op.parameters = Some(doc.parameters.into_iter().map(RefOr::T).collect());
    let (description, body) = doc.answer;
    if let Some(RefOr::T(ok)) = op.responses.responses.get_mut("200") {
        ok.description = description.to_string();
        ok.content.insert(
            "application/json".to_string(),
            RefOr::T(ContentBuilder::new().schema(Some(body)).build()),
        );
    }
    for (status, response) in doc.errors {
        op.responses.responses.insert(status.to_string(), response);
    }
    op
}

/// Whether gridprint answers for `code`: a zone of the set, or a country it answers as a whole
/// (`DK`, `IT`, `NO`, `SE`: docs/methodology.md §5).
pub fn is_served(zones: &Zones, code: &str) -> bool {
    zones.index_of_str(code).is_some()
        || ZoneCode::parse(code).is_some_and(|c| zones.country_members(&c).is_some())
}

/// The code of the zone whose area holds (`lat`, `lon`): 400 outside the globe's ranges, 404 in
/// no served zone.
pub fn locate(
    svc: &QueryService,
    cache: &DataCache,
    lat: f64,
    lon: f64,
) -> Result<String, ApiError> {
    if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
        return Err(ApiError::bad_request(
            "the latitude must lie in [-90, 90] and the longitude in [-180, 180]",
        ));
    }
    svc.locator()
        .locate(lat, lon)
        .map(|i| cache.reference().zones.code(i).as_str().to_string())
        .ok_or_else(|| ApiError::not_found("no zone served here contains these coordinates"))
}

/// A finite number parameter, if given (400 when it is not one).
pub fn number(p: &QueryParams<'_>, name: &str) -> Result<Option<f64>, ApiError> {
    p.get(name)
        .map(|v| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| ApiError::bad_request(format!("{name} must be a number")))
        })
        .transpose()
}

/// A required date-time parameter, read by the one timestamp reader of every route family
/// ([`parse_timestamp`]: RFC 3339 / ISO 8601, a space also accepted for the `T` as Python writes a
/// datetime, without an offset UTC, a date its midnight); anything that is not one valid instant is
/// a 400 naming the parameter.
pub fn timestamp(p: &QueryParams<'_>, name: &str) -> Result<OffsetDateTime, ApiError> {
    let v = p
        .get(name)
        .ok_or_else(|| ApiError::bad_request(format!("{name} is required")))?;
    parse_timestamp(v)
        .map_err(|_| ApiError::bad_request(format!("{name} is not an ISO 8601 date-time: '{v}'")))
}

/// One carbon footprint question to `/v1/footprints`: the zone (gridprint's code), the scope
/// (`life-cycle` or `operational`) and the request's "now".
pub struct CarbonAsk<'a> {
    pub svc: &'a QueryService,
    pub cache: &'a DataCache,
    pub now: OffsetDateTime,
    pub code: String,
    pub scope: Scope,
}

impl CarbonAsk<'_> {
    /// The context `/v1`'s parameters are read in.
    pub fn ctx(&self) -> ParseContext<'_> {
        ParseContext {
            zones: &self.cache.reference().zones,
            locator: self.svc.locator(),
            now: self.now,
        }
    }

    /// `E`'s answer to the `/v1` query `query`, resolved in [`CarbonAsk::ctx`].
    pub fn answer<E: EndpointDef>(&self, query: E::Query) -> Result<E::Response, ApiError> {
        let req = E::request(query, &self.ctx())?;
        Ok(E::answer(self.cache, &req)?)
    }

    /// The zone, as a `/v1` query's location.
    pub fn location(&self) -> Option<Location> {
        Some(Location::zone(self.code.clone()))
    }

    /// `[start, end)` as a `/v1` query's window: the instants as the wire carries them (whole
    /// seconds).
    pub fn window(&self, start: OffsetDateTime, end: OffsetDateTime) -> Option<Period> {
        let whole = |t: OffsetDateTime| t.replace_nanosecond(0).unwrap_or(t);
        Some(Period::new(whole(start), whole(end)))
    }

    /// `/v1/footprints` of the zone over `[start, end)`: carbon, global, the scope; series or one
    /// aggregate.
    pub fn footprints(
        &self,
        start: OffsetDateTime,
        end: OffsetDateTime,
        aggregate: bool,
    ) -> Result<Footprints, ApiError> {
        self.answer::<FootprintsEndpoint>(FootprintsQuery {
            location: self.location(),
            window: self.window(start, end),
            footprint_type: Some(FootprintType::Carbon),
            scope: Some(self.scope),
            aggregate: Some(aggregate),
            use_global: Some(true),
        })
    }

    /// The 15-minute points of `[start, end)` in time order: each slot's start, its value as `/v1`
    /// writes it (2 decimals) and its `zone_status`; slots without a value left out.
    pub fn carbon_slots(
        &self,
        start: OffsetDateTime,
        end: OffsetDateTime,
    ) -> Result<Vec<(OffsetDateTime, f64, ZoneStatus)>, ApiError> {
        let mut out = Vec::new();
        if let SeriesOrAggregates::Series(results) = self.footprints(start, end, false)? {
            for r in results {
                for e in r.series {
                    for p in e.values.0 {
                        out.push((p.slot.start(), round2(p.value), e.zone_status));
                    }
                }
            }
        }
        out.sort_by_key(|(t, _, _)| *t);
        Ok(out)
    }
}
