//! The OpenAPI 3.1 document of the API (utoipa + utoipa-axum): `status_router` registers the
//! status handlers with `utoipa_axum::routes!`, `crate::v1::data::data_router` one route and one
//! operation per data path, so a route cannot be served without being described. [`spec`] merges
//! them with [`ApiDoc`] (title, description, the Bearer scheme) and states the configured rate
//! limit. The answers' schemas come from the types the server serializes and the client reads
//! (gridprint-responses); the snapshot test in `tests/data_api.rs` shows any change in review.

use crate::http::params::schemas;
use crate::v1::status;
use gridprint_responses::schema;
use std::sync::OnceLock;
use utoipa::openapi::OpenApi as Spec;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// Name of the security scheme (an HTTP Bearer token from the token service).
pub const BEARER: &str = "bearer";

/// The fixed parts of the document; paths come from the handlers.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "gridprint API",
        description = include_str!("../../assets/openapi-description.md"),
        license(name = "AGPL-3.0-or-later", identifier = "AGPL-3.0-or-later"),
    ),
    modifiers(&SecurityAddon),
    tags(
        (name = "data", description = "Electricity data and its footprints per bidding zone and 15-minute slot (Bearer token required)"),
        (name = "status", description = "Health of the service (public)"),
        (name = "electricity-maps", description = "The Electricity Maps API v3 (also under /v4): carbon intensity in its shape, read from the data routes (token or API key, as Bearer or `auth-token`); docs/compatibility.md"),
        (name = "co2-signal", description = "CO2 Signal's `/v1/latest` (token or API key in `auth-token`)"),
        (name = "WattTime", description = "The WattTime API v3, average signal `co2_aoer` only, in lbs CO2/MWh: `GET /login` (HTTP Basic) for a token, then the data routes (token or API key as Bearer); docs/compatibility.md"),
        (name = "token", description = "The token service: register a granted email, get a Bearer token, manage API keys (public)"),
    ),
    // Schemas named only by query parameters (IntoParams does not register them).
    components(schemas(
        schemas::Problem,
        schemas::ValidationError,
        schemas::Component,
        schemas::ValidationItem,
        schemas::Format,
        schema::ProductionType,
        schema::ProductionFilterType,
        schema::FootprintType,
        schema::Scope,
        schema::OperationalScope,
        schema::ImpactType,
    ))
)]
pub struct ApiDoc;

struct SecurityAddon;

impl Modify for SecurityAddon {
    fn modify(&self, openapi: &mut Spec) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A token from the token service (`POST /token-request/get_token`, or the \
                         page at `/token-request/`), valid for one day.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            crate::compat::watttime::BASIC_SCHEME,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Basic)
                    .description(Some(
                        "A registered account's email and password (WattTime's `GET /login` only).",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            crate::compat::electricitymaps::AUTH_TOKEN_SCHEME,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                crate::tokens::auth::AUTH_TOKEN,
                "A token or an API key (`gridprint access key create`) in the header the \
                 Electricity Maps clients send.",
            ))),
        );
    }
}

/// The whole document, stating the rate limit (`rate` per second, bursts of `burst`; `rate` ≤ 0:
/// no limit).
pub fn spec(rate: f64, burst: u32) -> Spec {
    let mut doc = ApiDoc::openapi();
    doc.merge(crate::v1::data::data_router().into_openapi());
    doc.merge(status::status_router().into_openapi());
    doc.merge(crate::compat::electricitymaps::router().into_openapi());
    doc.merge(crate::compat::electricitymaps::public_router().into_openapi());
    doc.merge(crate::tokens::token::token_router().into_openapi());
    doc.merge(crate::tokens::api_keys::router().into_openapi());
    doc.merge(crate::compat::watttime::router().into_openapi());
    doc.merge(crate::compat::watttime::public_router().into_openapi());
    doc.info.version = env!("CARGO_PKG_VERSION").to_string();
    let limit = if rate > 0.0 && rate.is_finite() {
        format!(
            "This server allows **{rate} requests per second per token, with bursts of up to {burst}** \
             (every data answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`; \
             over the limit → 429 with `Retry-After` in seconds). Public routes are limited per client \
             address in the same way."
        )
    } else {
        "This server applies no request rate limit.".to_string()
    };
    if let Some(d) = doc.info.description.as_mut() {
        *d = d.replace("{RATE_LIMIT}", &limit);
    }
    override_examples(&mut doc);
    doc
}

/// Parameter examples of a path (and of its CSV twin) that differ from the shared ones, so that the
/// docs page's example of every data endpoint over a past window returns data on the demo set (the
/// demo has load only for BE in January 2024 and NL on 2024-09-02).
const EXAMPLE_OVERRIDES: &[(&str, &str, &str)] = &[
    ("/v1/load", "zone", "NL"),
    ("/v1/load", "start", "2024-09-02T00:00:00Z"),
    ("/v1/load", "end", "2024-09-03T00:00:00Z"),
];

fn override_examples(doc: &mut Spec) {
    let twins = EXAMPLE_OVERRIDES.iter().map(|(path, name, value)| {
        (
            format!("{path}{}", crate::v1::data::CSV_SUFFIX),
            *name,
            *value,
        )
    });
    let overrides = EXAMPLE_OVERRIDES
        .iter()
        .map(|(path, name, value)| (path.to_string(), *name, *value))
        .chain(twins);
    for (path, name, value) in overrides {
        let Some(op) = doc.paths.paths.get_mut(&path).and_then(|p| p.get.as_mut()) else {
            continue;
        };
        for p in op.parameters.iter_mut().flatten() {
            if let utoipa::openapi::RefOr::T(p) = p
                && p.name == name
            {
                #[allow(deprecated)]
                let with_example = utoipa::openapi::path::ParameterBuilder::from(p.clone())
                    .example(Some(serde_json::Value::from(value)))
                    .build();
                *p = with_example;
            }
        }
    }
}

/// The JSON of [`spec`] for a configuration, rendered once per process and configuration.
pub(crate) fn spec_json(rate: f64, burst: u32) -> axum::body::Bytes {
    static CACHE: OnceLock<std::sync::Mutex<Vec<(u64, u32, axum::body::Bytes)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut list = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, b)) = list
        .iter()
        .find(|(r, b, _)| *r == rate.to_bits() && *b == burst)
    {
        return b.clone();
    }
    let bytes = axum::body::Bytes::from(
        serde_json::to_vec_pretty(&spec(rate, burst)).unwrap_or_else(|_| b"{}".to_vec()),
    );
    list.push((rate.to_bits(), burst, bytes.clone()));
    bytes
}
