//! The `/v1` data routes: [`data_router`] lists every path on a line of its own with the endpoint
//! type that answers it. [`route`] builds a path's OpenAPI operation (and its CSV twin's) from the
//! endpoint's docs and parameters, and its handler, which calls [`super::answer::answer`] (the
//! answer itself: the memo, the typed request, the tag, the kept answer or the rendering). The
//! guard in front (token, rate limit) is `crate::tokens::auth`; the parameter list for
//! `Gridprint-Ignored` is [`super::ignored`].

use super::answer::answer;
use crate::http::failures::{RateLimited, Unavailable};
use crate::http::params::schemas;
use crate::state::AppState;
use crate::tokens::auth::AuthUser;
use axum::extract::{MatchedPath, RawQuery, State};
use axum::http::HeaderMap;
use axum::routing::get;
use gridprint_query::EndpointDef;
use gridprint_query::endpoints::{
    AvailabilityEndpoint, BestWindowEndpoint, EnvironmentalScoreEndpoint, ExportsEndpoint,
    FactorsEndpoint, FlowShareEndpoint, FootprintShareEndpoint, FootprintsEndpoint,
    ForecastAccuracyEndpoint, GenerationEndpoint, GreenScoreEndpoint, ImpactShareEndpoint,
    ImpactsEndpoint, ImportsEndpoint, LoadEndpoint, MixEndpoint, MixShareEndpoint, ZonesEndpoint,
};
use gridprint_responses::BodySchema;
use gridprint_responses::FormatParam;
use gridprint_responses::query::WireQuery;
use std::sync::Arc;
use utoipa::IntoParams;
use utoipa::openapi::RefOr;
use utoipa::openapi::path::{HttpMethod, Operation, Parameter, Paths};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};

/// The suffix of a data path's CSV twin (`/v1/footprints.csv`): the same answer as `format=csv`,
/// published as its own operation because OpenAPI gives one operation one set of answers and
/// generated clients parse a 200 by its first media type only.
pub const CSV_SUFFIX: &str = ".csv";
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
        RateLimited, Unavailable,
    )
)]
#[allow(dead_code)]
async fn data_operation() {}

/// The OpenAPI operation of one path: the shared parts of [`data_operation`], the operation id
/// (the path after `/v1/` with `_` for `-`), summary and description (first paragraph of the
/// endpoint's docs, then the rest), its parameters and its JSON body schema.
fn operation<E: EndpointDef>(path: &str, parameters: &[Parameter]) -> Operation {
    let mut op = <__path_data_operation as utoipa::Path>::operation();
    op.tags = Some(vec!["data".to_string()]);
    op.operation_id = Some(path.trim_start_matches("/v1/").replace('-', "_"));
    let (summary, rest) = E::DOCS.split_once("\n\n").unwrap_or((E::DOCS, ""));
    op.summary = Some(summary.to_string());
    op.description = (!rest.is_empty()).then(|| rest.to_string());
    op.parameters = Some(parameters.iter().cloned().map(RefOr::T).collect());
    if let Some(RefOr::T(ok)) = op.responses.responses.get_mut("200")
        && let Some(RefOr::T(json)) = ok.content.get_mut("application/json")
    {
        json.schema = Some(E::Response::body_schema());
    }
    op
}

/// The operation of a path's CSV twin (`path` + [`CSV_SUFFIX`]): [`operation`] without the
/// `format` parameter, its id suffixed `_csv`, and a 200 of `text/csv` only.
fn csv_operation<E: EndpointDef>(path: &str, parameters: &[Parameter]) -> Operation {
    let mut op = operation::<E>(path, parameters);
    op.operation_id = op.operation_id.map(|id| format!("{id}_csv"));
    op.summary = op.summary.map(|s| format!("{s} (CSV)"));
    op.description = Some(format!(
        "The answer of `{path}` with `format=csv`: long-format CSV, one row per point.{}",
        op.description
            .map(|d| format!("\n\n{d}"))
            .unwrap_or_default()
    ));
    if let Some(RefOr::T(ok)) = op.responses.responses.get_mut("200") {
        ok.content.retain(|media, _| media == "text/csv");
        ok.description = "The answer as CSV (`text/csv; charset=utf-8`)".to_string();
    }
    op
}

/// One data route: `GET path` and its CSV twin `GET path.csv`, answered by [`answer`] for
/// endpoint `E`, with their OpenAPI operations and the named schemas the body refers to.
fn route<E: EndpointDef>(path: &'static str) -> UtoipaMethodRouter<AppState> {
    let csv_parameters = <E::Query as WireQuery>::parameters();
    let mut parameters = csv_parameters.clone();
    parameters.extend(FormatParam::into_params(|| None));
    let mut paths = Paths::new();
    paths.add_path_operation(
        path,
        vec![HttpMethod::Get],
        operation::<E>(path, &parameters),
    );
    paths.add_path_operation(
        format!("{path}{CSV_SUFFIX}"),
        vec![HttpMethod::Get],
        csv_operation::<E>(path, &csv_parameters),
    );
    let mut schemas = Vec::new();
    E::Response::named_schemas(&mut schemas);
    // The published parameters are the known ones (`Gridprint-Ignored`, crate::v1::ignored).
    let known: Arc<[String]> = parameters.into_iter().map(|p| p.name).collect();
    let handler = move |_user: AuthUser,
                        State(state): State<AppState>,
                        matched: MatchedPath,
                        RawQuery(query): RawQuery,
                        headers: HeaderMap| {
        let known = known.clone();
        let csv = matched.as_str().ends_with(CSV_SUFFIX);
        async move { answer::<E>(&state, path, &known, query.as_deref(), &headers, csv).await }
    };
    (schemas, paths, get(handler))
}

/// The protected data routes with their OpenAPI operations, one line per path. Each route takes
/// [`AuthUser`], so `crate::tokens::auth::data_guard` has already checked the token and counted it
/// against the account's rate limit.
pub fn data_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(route::<ZonesEndpoint>("/v1/zones"))
        .routes(route::<GenerationEndpoint>("/v1/generation"))
        .routes(route::<LoadEndpoint>("/v1/load"))
        .routes(route::<ImportsEndpoint>("/v1/imports"))
        .routes(route::<ExportsEndpoint>("/v1/exports"))
        .routes(route::<MixEndpoint>("/v1/mix"))
        .routes(route::<FootprintsEndpoint>("/v1/footprints"))
        .routes(route::<ImpactsEndpoint>("/v1/impacts"))
        .routes(route::<GreenScoreEndpoint>("/v1/green-score"))
        .routes(route::<EnvironmentalScoreEndpoint>(
            "/v1/environmental-score",
        ))
        .routes(route::<FlowShareEndpoint>("/v1/flow-share"))
        .routes(route::<MixShareEndpoint>("/v1/mix-share"))
        .routes(route::<FootprintShareEndpoint>("/v1/footprint-share"))
        .routes(route::<ImpactShareEndpoint>("/v1/impact-share"))
        .routes(route::<FactorsEndpoint>("/v1/factors"))
        .routes(route::<BestWindowEndpoint>("/v1/best-window"))
        .routes(route::<AvailabilityEndpoint>("/v1/availability"))
        .routes(route::<ForecastAccuracyEndpoint>("/v1/forecast-accuracy"))
}

/// The data paths under `/v1/` that [`data_router`] serves, in the order of the OpenAPI document,
/// without their CSV twins (the `gridprint query` command lists them).
pub fn data_paths() -> Vec<String> {
    let (_, api) = data_router().split_for_parts();
    api.paths
        .paths
        .keys()
        .filter(|p| !p.ends_with(CSV_SUFFIX))
        .map(|p| p.trim_start_matches("/v1/").to_string())
        .collect()
}
