//! Extractors that reject through [`ApiError`], for handlers of the data API.
//!
//! axum's own `Query` and `Json` answer rejections as plain text; these wrappers answer them as
//! problem+json like every other error: a query string whose values have the wrong types → 422
//! (docs/api.md §2: "422 unparsable types"), a JSON body with broken syntax → 400, with wrong types or
//! missing fields → 422, larger than 4 KB → 413.

use crate::http::error::ApiError;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

/// Like `axum::extract::Query`, rejecting with [`ApiError`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Query<T>, ApiError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Query(q.0))
            .map_err(ApiError::from)
    }
}

/// Like `axum::Json` as an extractor, rejecting with [`ApiError`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Json<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Json<T>, ApiError> {
        axum::Json::<T>::from_request(req, state)
            .await
            .map(|j| Json(j.0))
            .map_err(ApiError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::Router;
    use axum::body::Body;
    use axum::http::StatusCode;
    use axum::routing::get;
    use tower::ServiceExt;

    #[derive(serde::Deserialize)]
    struct Params {
        #[allow(dead_code)]
        n: u32,
    }

    #[tokio::test]
    async fn wrong_query_types_are_422_problem_json() {
        let app: Router = Router::new().route("/", get(|Query(_p): Query<Params>| async { "ok" }));
        let req = axum::http::Request::builder()
            .uri("/?n=abc")
            .body(Body::empty())
            .unwrap();
        let resp = app.clone().oneshot(req).await.unwrap();
        assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            resp.headers()["content-type"],
            crate::http::error::PROBLEM_JSON
        );
        let req = axum::http::Request::builder()
            .uri("/?n=3")
            .body(Body::empty())
            .unwrap();
        assert_eq!(app.oneshot(req).await.unwrap().status(), StatusCode::OK);
    }
}
