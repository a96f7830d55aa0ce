//! The route table and the layers around it: [`router`] (and [`router_with_home`], with the
//! dashboard at `/`) merges the token service's routes ([`crate::tokens`]), the `/v1` data and
//! status routes ([`crate::v1`]) and the compatible routes ([`crate::compat`]), puts the data
//! routes behind the Bearer guard and the public ones behind the per-client limit (the WattTime
//! routes, guards included, inside WattTime's error shape: [`watttime::errors`]), and wraps all of
//! them in one tower stack of the layers every request passes ([`super::front`], request id,
//! trace, security headers, CORS, sizes, metrics, compression, timeout, body deadline, body limit). [`serve`]
//! runs it on a bound listener ([`super::server`]).

use super::{error, front, layers, limit};
use crate::compat::{electricitymaps, watttime};
use crate::state::{AppState, MAX_BODY_BYTES};
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware;
use std::future::Future;
use tower::ServiceBuilder;
use tower_http::classify::ServerErrorsFailureClass;
use tower_http::compression::{CompressionLayer, CompressionLevel};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

/// The tracing target of the access log: one event per answered request (status, latency), inside
/// the request's span (method, path, request id). The binary sends it to `--access-log` only.
pub const ACCESS_LOG_TARGET: &str = "gridprint_access";
/// The name of the span of every request (fields `method`, `path`, `request_id`).
pub const REQUEST_SPAN: &str = "request";

/// The whole HTTP interface: token service, pages, data API and its OpenAPI description, with
/// request ids, structured request logs, metrics, compression, a request timeout, request-size
/// limits, rate limits (per token on data routes, per client elsewhere), security headers and, when
/// configured, CORS for one origin.
pub fn router(state: AppState) -> Router {
    router_with_home(state, None)
}

/// [`router`] with `home` (the dashboard, `gridprint-dashboard`) mounted at `/` in place of the
/// links page, under the same public per-client limit and layers.
pub fn router_with_home(state: AppState, home: Option<Router<AppState>>) -> Router {
    let request_id = HeaderName::from_static("x-request-id");
    let (data_routes, _spec) = crate::v1::data::data_router()
        .merge(electricitymaps::router())
        .split_for_parts();
    let (em_public, _spec) = electricitymaps::public_router().split_for_parts();
    let (watttime_routes, _spec) = watttime::router().split_for_parts();
    let (watttime_login, _spec) = watttime::public_router().split_for_parts();
    let protected = data_routes.route_layer(middleware::from_fn_with_state(
        state.clone(),
        crate::tokens::auth::data_guard,
    ));
    // The WattTime routes answer WattTime's errors, their guards' (401, 429) included.
    let watttime_protected = watttime_routes
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            crate::tokens::auth::data_guard,
        ))
        .route_layer(middleware::from_fn(watttime::errors::speak_watttime));
    let watttime_login = watttime_login
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            limit::client_rate_limit,
        ))
        .route_layer(middleware::from_fn(watttime::errors::speak_watttime));
    let public = Router::new()
        .merge(crate::tokens::routes())
        .merge(crate::v1::status::routes())
        .merge(em_public)
        .merge(crate::v1::docs::routes(home.is_none()))
        .merge(home.unwrap_or_default())
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            limit::client_rate_limit,
        ));
    let routes = Router::new()
        .merge(protected)
        .merge(watttime_protected)
        .merge(public)
        .merge(watttime_login)
        .route_layer(middleware::from_fn(layers::tag_route))
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .with_state(state.clone());
    // The layers every request passes, outermost first, as one tower stack around the router:
    // `Router::layer` would box each of them again around every route, and every request would
    // clone and box that chain once per layer (`docs/performance.md`).
    let forwarding = front::Forwarding {
        trusted: state.config().trusted_proxies.clone(),
        header: state.config().client_ip_header,
    };
    let app = ServiceBuilder::new()
        .layer(middleware::from_fn_with_state(forwarding, front::front))
        .layer(SetRequestIdLayer::new(request_id.clone(), MakeRequestUuid))
        .layer(PropagateRequestIdLayer::new(request_id))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &Request| {
                    // Path only: never headers (Authorization), query strings or bodies (passwords).
                    let id = req
                        .headers()
                        .get("x-request-id")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("-");
                    tracing::info_span!(REQUEST_SPAN, method = %req.method(), path = %req.uri().path(), request_id = %id)
                })
                .on_response(
                    |resp: &axum::response::Response,
                     latency: std::time::Duration,
                     _: &tracing::Span| {
                        tracing::info!(
                            target: ACCESS_LOG_TARGET,
                            status = resp.status().as_u16(),
                            latency_us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX),
                            "answered"
                        );
                    },
                )
                // 500s are logged where they arise (`ApiError::internal`); every 503 carries
                // `Retry-After` and is either a counted refusal (`refusals`) or a state logged when
                // it changes (storage down): none is one ERROR line per request.
                .on_failure(
                    |class: ServerErrorsFailureClass,
                     latency: std::time::Duration,
                     _: &tracing::Span| {
                        if matches!(class, ServerErrorsFailureClass::StatusCode(s) if s == StatusCode::SERVICE_UNAVAILABLE)
                        {
                            return;
                        }
                        tracing::error!(
                            classification = %class,
                            latency_us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX),
                            "response failed"
                        );
                    },
                ),
        )
        // Outside the size limits and CORS, so their answers (414, 431, preflights) carry them too.
        .layer(SetResponseHeaderLayer::if_not_present(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .option_layer(layers::cors(state.config()))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            layers::limit_request_size,
        ))
        .layer(middleware::from_fn(layers::record_metrics))
        .layer(CompressionLayer::new().quality(CompressionLevel::Precise(4)))
        .layer(middleware::from_fn_with_state(state.clone(), layers::timeout))
        .layer(middleware::from_fn_with_state(state, layers::body_deadline))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .service(routes);
    Router::new().fallback_service(app)
}

/// Serves [`router`] on `listener` until `shutdown` resolves, then finishes the requests clients had
/// already sent ([`server`] describes the drain). Client addresses (for the brute-force guard and
/// rate limit) come from the socket.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = state.config().client_limits();
    super::server::serve(listener, router(state), limits, shutdown).await
}
