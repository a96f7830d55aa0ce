//! The public documentation routes: `/v1/openapi.json`, the interactive docs page `/v1/docs`, and the
//! index page `/` linking to them and to the token page.
//!
//! The docs page is ours, not Swagger UI: a small HTML shell plus one script (`docs.js`) and one
//! stylesheet, all compiled into the binary, that fetch `openapi.json` from the same server and
//! render it — the description, every operation with its parameters and responses, the schemas —
//! with a form per operation to send a request with a Bearer token and see the answer. It works
//! offline (no external assets, no CDN) under a strict Content-Security-Policy (same-origin script,
//! style and fetches only; no inline script). Swagger UI's `vendored` build would add a zip archive,
//! a build script and several crates to every build of this workspace for the same result.

use crate::state::AppState;
use crate::tokens::page::{CSP, page_headers};
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;

const DOCS_HTML: &str = include_str!("../../assets/docs.html");
const INDEX_HTML: &str = include_str!("../../assets/index.html");
const DOCS_JS: &str = include_str!("../../assets/docs.js");
const DOCS_CSS: &str = include_str!("../../assets/docs.css");

/// The documentation routes (public; per-client rate limit), with the index page at `/` when `index`.
pub(crate) fn routes(index: bool) -> Router<AppState> {
    let root = if index {
        Router::new().route("/", get(self::index))
    } else {
        Router::new()
    };
    // `/v1` → `/v1/` with 307, as the reference's framework redirects a missing slash
    root.route("/v1", get(|| async { Redirect::temporary("/v1/") }))
        .route("/v1/", get(|| async { Redirect::permanent("/v1/docs") }))
        .route("/v1/openapi.json", get(openapi_json))
        .route("/v1/docs", get(docs))
        .route(
            "/v1/docs/",
            get(|| async { Redirect::permanent("/v1/docs") }),
        )
        .route("/v1/docs/docs.js", get(script))
        .route("/v1/docs/docs.css", get(style))
}

/// `GET /v1/openapi.json`: the OpenAPI 3.1 description (generated from the handlers).
async fn openapi_json(State(state): State<AppState>) -> Response {
    let c = state.config();
    let body = crate::v1::openapi::spec_json(c.rate_limit_per_second, c.rate_limit_burst);
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

fn html(body: &'static str) -> Response {
    let mut resp = (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response();
    page_headers(&mut resp, CSP);
    resp
}

/// `GET /`: links to the docs, the OpenAPI description, the token page and the status.
async fn index() -> Response {
    html(INDEX_HTML)
}

/// `GET /v1/docs`: the interactive docs page.
async fn docs() -> Response {
    html(DOCS_HTML)
}

async fn script() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        DOCS_JS,
    )
        .into_response()
}

async fn style() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        DOCS_CSS,
    )
        .into_response()
}
