//! The one error type of the HTTP interface.
//!
//! Every failure a handler, extractor or middleware can produce becomes an [`ApiError`], which renders
//! as an RFC 9457 problem document (`application/problem+json`) with the members `type`, `title`,
//! `status` and `detail`, where `detail` is always a plain string (clients of the reference service
//! read `detail`). Rejections of axum's own extractors (bad JSON, bad forms, oversized bodies) are
//! mapped here too, so no response of the service is ever a bare text error (but on the WattTime
//! routes, which answer WattTime's shapes from the [`ErrorDetail`] each response keeps:
//! `crate::compat::watttime::errors`). Server-side failures (5xx) log their cause and show only a
//! generic detail.
//!
//! One exception, for the reference service's clients (docs/api.md §2): a 422 for wrongly typed
//! query parameters is the reference framework's own body, `application/json`
//! `{"detail": [{"type", "loc", "msg", "input", "ctx"?}]}`, one item per failing parameter.

use crate::http::refusals::Refusal;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use gridprint_store::StoreError;
use serde::Serialize;
use std::borrow::Cow;

/// Media type of error bodies.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// An error answered to a client: status, a human-readable `detail`, and optional extra headers.
///
/// Build one with the constructors named after the status; handlers return `Result<_, ApiError>`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    detail: Cow<'static, str>,
    retry_after: Option<u64>,
    bearer_challenge: bool,
    fields: Vec<gridprint_query::FieldError>,
    /// Set when this answer turns a client away under load: counted and summarised, not logged
    /// one by one ([`crate::http::refusals`]).
    refusal: Option<Refusal>,
}

/// The detail of an [`ApiError`], kept in the extensions of the response it renders, so that a
/// layer answering another service's error shape (`crate::compat::watttime::errors`) reads it
/// without parsing the body.
#[derive(Debug, Clone)]
pub struct ErrorDetail(pub Cow<'static, str>);

/// The JSON body of an error (RFC 9457 members).
#[derive(Debug, Serialize)]
pub struct Problem<'a> {
    #[serde(rename = "type")]
    pub type_: &'a str,
    pub title: &'a str,
    pub status: u16,
    pub detail: &'a str,
}

impl ApiError {
    /// An error with any status and detail.
    pub fn new(status: StatusCode, detail: impl Into<Cow<'static, str>>) -> ApiError {
        ApiError {
            status,
            detail: detail.into(),
            retry_after: None,
            bearer_challenge: false,
            fields: Vec::new(),
            refusal: None,
        }
    }

    /// 400: the request breaks a rule (invalid email, password too short, bad parameter).
    pub fn bad_request(detail: impl Into<Cow<'static, str>>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, detail)
    }

    /// 401 on the token service (wrong credentials): no Bearer challenge, the client sent none.
    pub fn unauthorized(detail: impl Into<Cow<'static, str>>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, detail)
    }

    /// 403: the request is understood but not allowed (e.g. registering without a grant).
    pub fn forbidden(detail: impl Into<Cow<'static, str>>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, detail)
    }

    /// 404: no such resource.
    pub fn not_found(detail: impl Into<Cow<'static, str>>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, detail)
    }

    /// 409: the request conflicts with stored state (e.g. registering twice).
    pub fn conflict(detail: impl Into<Cow<'static, str>>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, detail)
    }

    /// 413: the body is larger than allowed.
    pub fn payload_too_large(detail: impl Into<Cow<'static, str>>) -> ApiError {
        ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, detail)
    }

    /// 422: the request is well-formed but its values have the wrong types or are missing.
    pub fn unprocessable(detail: impl Into<Cow<'static, str>>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, detail)
    }

    /// 401 on a data route: adds `WWW-Authenticate: Bearer`.
    pub fn unauthorized_bearer(detail: impl Into<Cow<'static, str>>) -> ApiError {
        ApiError {
            bearer_challenge: true,
            ..ApiError::new(StatusCode::UNAUTHORIZED, detail)
        }
    }

    /// 429 with `Retry-After` in seconds (at least 1); counted as a [`Refusal::RateLimit`].
    pub fn too_many_requests(
        detail: impl Into<Cow<'static, str>>,
        retry_after_secs: u64,
    ) -> ApiError {
        ApiError::with_retry_after(StatusCode::TOO_MANY_REQUESTS, detail, retry_after_secs)
            .refusing(Refusal::RateLimit)
    }

    /// 408: the request body did not arrive within the body deadline; counted as a
    /// [`Refusal::BodyDeadline`]. The connection is closed after it (`Connection: close`).
    pub fn body_deadline(detail: impl Into<Cow<'static, str>>) -> ApiError {
        ApiError::new(StatusCode::REQUEST_TIMEOUT, detail).refusing(Refusal::BodyDeadline)
    }

    /// This error, counted as a refusal of `kind` when it is answered.
    pub fn refusing(self, kind: Refusal) -> ApiError {
        ApiError {
            refusal: Some(kind),
            ..self
        }
    }

    /// 503 with `Retry-After`: storage or another dependency cannot be used right now.
    pub fn unavailable(detail: impl Into<Cow<'static, str>>, retry_after_secs: u64) -> ApiError {
        ApiError::with_retry_after(StatusCode::SERVICE_UNAVAILABLE, detail, retry_after_secs)
    }

    /// An error with `Retry-After` in seconds (at least 1).
    fn with_retry_after(
        status: StatusCode,
        detail: impl Into<Cow<'static, str>>,
        retry_after_secs: u64,
    ) -> ApiError {
        ApiError {
            retry_after: Some(retry_after_secs.max(1)),
            ..ApiError::new(status, detail)
        }
    }

    /// 500: logs `cause` (never shown to the client) and answers a generic detail.
    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        tracing::error!(error = %cause, "internal error");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error; please retry later",
        )
    }

    /// The status this error answers with.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The detail shown to the client.
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// Seconds of the `Retry-After` header, if any.
    pub fn retry_after(&self) -> Option<u64> {
        self.retry_after
    }

    /// Adds the headers this error carries (`Retry-After`, `WWW-Authenticate`, `Connection: close`
    /// on a 408) to a response, and its refusal kind as an extension for the refusal counts.
    pub(crate) fn add_headers(&self, resp: &mut Response) {
        let h = resp.headers_mut();
        if let Some(secs) = self.retry_after {
            h.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if self.bearer_challenge {
            h.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if self.status == StatusCode::REQUEST_TIMEOUT {
            h.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        if let Some(kind) = self.refusal {
            resp.extensions_mut().insert(kind);
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.status, self.detail)
    }
}

impl std::error::Error for ApiError {}

/// The problem+json body of an error with this status and detail: the one rendering shared by
/// [`ApiError`] and the connection layer's own answers ([`crate::http::server`]).
pub fn problem_body(status: StatusCode, detail: &str) -> Vec<u8> {
    serde_json::to_vec(&Problem {
        type_: "about:blank",
        title: status.canonical_reason().unwrap_or("Error"),
        status: status.as_u16(),
        detail,
    })
    .unwrap_or_default()
}

/// "1 second", "2 seconds": a count of seconds for a message.
pub fn seconds(n: u64) -> String {
    format!("{n} second{}", if n == 1 { "" } else { "s" })
}

/// A wait for a message: whole seconds below a minute, else minutes rounded up ("1 minute",
/// "15 minutes").
pub fn wait_phrase(secs: u64) -> String {
    if secs < 60 {
        seconds(secs)
    } else {
        let m = secs.div_ceil(60);
        format!("{m} minute{}", if m == 1 { "" } else { "s" })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (body, media) = if self.fields.is_empty() {
            (problem_body(self.status, &self.detail), PROBLEM_JSON)
        } else {
            #[derive(Serialize)]
            struct Fields<'a> {
                detail: &'a [gridprint_query::FieldError],
            }
            let body = serde_json::to_vec(&Fields {
                detail: &self.fields,
            })
            .unwrap_or_default();
            (body, "application/json")
        };
        let mut resp = (
            self.status,
            [(header::CONTENT_TYPE, HeaderValue::from_static(media))],
            body,
        )
            .into_response();
        self.add_headers(&mut resp);
        resp.extensions_mut().insert(ErrorDetail(self.detail));
        resp
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Unavailable(cause) => {
                tracing::warn!(error = %cause, "storage unavailable");
                ApiError::unavailable("storage is temporarily unavailable; please retry", 5)
            }
            StoreError::ReadOnly(_) => ApiError::unavailable(
                "this server is a read-only replica: register and get tokens on a writable one",
                60,
            ),
            other => ApiError::internal(other),
        }
    }
}

impl From<gridprint_query::QueryError> for ApiError {
    /// The query crate chose the status (400, 404, 422) and phrased the detail for the client.
    fn from(e: gridprint_query::QueryError) -> ApiError {
        let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::BAD_REQUEST);
        ApiError {
            fields: e.errors,
            ..ApiError::new(status, e.detail)
        }
    }
}

impl From<tokio::task::JoinError> for ApiError {
    fn from(e: tokio::task::JoinError) -> ApiError {
        ApiError::internal(format!("background task failed: {e}"))
    }
}

impl From<BytesRejection> for ApiError {
    fn from(r: BytesRejection) -> ApiError {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::payload_too_large("request body too large (at most 4 KB)")
        } else {
            ApiError::bad_request(format!(
                "could not read the request body: {}",
                r.body_text()
            ))
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        match r {
            QueryRejection::FailedToDeserializeQueryString(e) => {
                ApiError::unprocessable(e.body_text())
            }
            other => ApiError::bad_request(other.body_text()),
        }
    }
}

impl From<axum::extract::rejection::JsonRejection> for ApiError {
    fn from(r: axum::extract::rejection::JsonRejection) -> ApiError {
        use axum::extract::rejection::JsonRejection as J;
        match r {
            J::JsonDataError(e) => ApiError::unprocessable(e.body_text()),
            J::JsonSyntaxError(e) => ApiError::bad_request(e.body_text()),
            J::BytesRejection(e) => e.into(),
            other => ApiError::new(other.status(), other.body_text()),
        }
    }
}

/// Marks the answer of `not_found` (no route matched), so the layer in front of the router
/// ([`crate::http::front`]) can redirect a trailing slash instead.
#[derive(Debug, Clone, Copy)]
pub struct Unrouted;

/// Fallback for unknown paths.
pub(crate) async fn not_found() -> Response {
    let mut resp = ApiError::not_found(
        "no such resource; the paths are listed in /v1/openapi.json and at /v1/docs",
    )
    .into_response();
    resp.extensions_mut().insert(Unrouted);
    resp
}

/// Fallback for known paths called with the wrong method.
pub(crate) async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed on this resource",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn renders_problem_json_with_plain_string_detail() {
        let resp = ApiError::too_many_requests("slow down", 0).into_response();
        assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(resp.headers()[header::CONTENT_TYPE], PROBLEM_JSON);
        assert_eq!(resp.headers()[header::RETRY_AFTER], "1");
        let body = axum::body::to_bytes(resp.into_body(), 4096).await.unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["detail"], "slow down");
        assert_eq!(v["status"], 429);
        assert_eq!(v["title"], "Too Many Requests");
        assert_eq!(v["type"], "about:blank");
    }

    #[tokio::test]
    async fn typed_parameter_errors_are_the_frameworks_list() {
        let item = gridprint_query::FieldError::new(
            "less_than_equal",
            "lat",
            "Input should be less than or equal to 90",
            "91",
        )
        .with_ctx(serde_json::json!({ "le": 90.0 }));
        let e = ApiError::from(gridprint_query::QueryError::invalid(vec![item]));
        let resp = e.into_response();
        assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(resp.headers()[header::CONTENT_TYPE], "application/json");
        let body = axum::body::to_bytes(resp.into_body(), 4096).await.unwrap();
        assert_eq!(
            std::str::from_utf8(&body).unwrap(),
            r#"{"detail":[{"type":"less_than_equal","loc":["query","lat"],"msg":"Input should be less than or equal to 90","input":"91","ctx":{"le":90.0}}]}"#
        );
    }

    #[test]
    fn waits_are_pluralised() {
        assert_eq!(seconds(1), "1 second");
        assert_eq!(seconds(2), "2 seconds");
        assert_eq!(wait_phrase(59), "59 seconds");
        assert_eq!(wait_phrase(60), "1 minute");
        assert_eq!(wait_phrase(61), "2 minutes");
    }

    #[test]
    fn internal_errors_hide_their_cause() {
        let e = ApiError::from(StoreError::Other("secret table xyz broke".into()));
        assert_eq!(e.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(!e.detail().contains("xyz"));
    }
}
