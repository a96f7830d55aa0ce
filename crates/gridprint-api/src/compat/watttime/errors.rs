//! WattTime's error answers, on every WattTime route: `{"error": …, "message": …}` as
//! `application/json`, except a refused login or token (401), which WattTime answers with a body
//! that is not JSON — the WattTime clients read that alone as "log in again" (aiowatttime refreshes
//! its token on it, and raises its credentials error when the login itself is refused).
//!
//! [`speak_watttime`] is a layer around the WattTime routes (outside the token guard, so its 401
//! and 429 answer in this shape too): it rewrites any answer an `ApiError` rendered (found by the
//! [`ErrorDetail`] it leaves in the response) and keeps its status and headers (`Retry-After`,
//! `WWW-Authenticate`, `RateLimit-*`). The `/v1` routes keep problem+json. Messages WattTime
//! clients map to typed errors start with WattTime's phrase ([`NO_COVERAGE`]).

use crate::http::error::ErrorDetail;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use serde::Serialize;
use utoipa::ToSchema;

/// WattTime's `error` for a point in no served region; clients (aiowatttime) raise their
/// coordinates error on a message containing "No coverage available".
pub const NO_COVERAGE: &str = "No coverage available for these coordinates and signal_type";
/// WattTime's `error` for a parameter that cannot be read or is refused.
pub const INVALID_QUERY: &str = "Invalid query parameters";

/// A WattTime error body.
#[derive(Debug, Serialize, ToSchema)]
pub struct WattTimeError {
    /// What went wrong, in WattTime's words (`Invalid query parameters`, `No coverage available
    /// for these coordinates and signal_type`, or the status's reason: `Not Found`, `Too Many
    /// Requests`, `Service Unavailable`).
    pub error: String,
    /// gridprint's explanation (what to send instead).
    pub message: String,
}

/// The `error` member of an answer with `status` and `message`.
fn error_of(status: StatusCode, message: &str) -> String {
    if message.starts_with(NO_COVERAGE) {
        NO_COVERAGE.to_string()
    } else if matches!(
        status,
        StatusCode::BAD_REQUEST | StatusCode::UNPROCESSABLE_ENTITY
    ) {
        INVALID_QUERY.to_string()
    } else {
        status.canonical_reason().unwrap_or("Error").to_string()
    }
}

/// The layer of the WattTime routes: an `ApiError`'s answer in WattTime's shape, any other
/// answer unchanged.
pub async fn speak_watttime(req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    match resp.extensions_mut().remove::<ErrorDetail>() {
        Some(ErrorDetail(message)) => in_watttime_shape(resp, &message),
        None => resp,
    }
}

/// `resp` (an error) with WattTime's body for `message`: plain text for 401, else
/// [`WattTimeError`] as JSON; status and the other headers kept.
fn in_watttime_shape(resp: Response, message: &str) -> Response {
    let status = resp.status();
    let (mut parts, _problem) = resp.into_parts();
    let (media, body) = if status == StatusCode::UNAUTHORIZED {
        ("text/plain; charset=utf-8", message.as_bytes().to_vec())
    } else {
        let body = WattTimeError {
            error: error_of(status, message),
            message: message.to_string(),
        };
        (
            "application/json",
            serde_json::to_vec(&body).unwrap_or_default(),
        )
    };
    parts
        .headers
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(media));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}
