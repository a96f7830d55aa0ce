//! The OpenAPI answers of the failures that several routes share, each declared once: a type
//! deriving `utoipa::IntoResponses` that a route's `#[utoipa::path]` names in its `responses(...)`
//! beside the tuples of its own answers. Every one is a [`Problem`] document ([`PROBLEM_JSON`]).
//! A status that two routes describe in different words stays a tuple on each route.

use crate::http::error::PROBLEM_JSON;
use crate::http::params::schemas::Problem;
use utoipa::IntoResponses;

/// The token service's 413 (`register`, `get_token`, `api-key`): a body over the limit.
#[derive(IntoResponses)]
#[response(
    status = 413,
    description = "Body larger than 4 KB",
    content_type = PROBLEM_JSON
)]
pub struct BodyTooLarge(pub Problem);

/// The 422 of `register` and `get_token`: a field missing or of the wrong type, or a content
/// type other than JSON or a form.
#[derive(IntoResponses)]
#[response(
    status = 422,
    description = "A field is missing or not a string, or an unsupported content type",
    content_type = PROBLEM_JSON
)]
pub struct UnreadableFields(pub Problem);

/// The 400 of `get_token` and `api-key`: a body that is not JSON.
#[derive(IntoResponses)]
#[response(
    status = 400,
    description = "A body that is not JSON",
    content_type = PROBLEM_JSON
)]
pub struct NotJson(pub Problem);

/// The 401 of `get_token` and `api-key`: the credentials do not match an account.
#[derive(IntoResponses)]
#[response(
    status = 401,
    description = "Unknown email or wrong password (one answer for both)",
    content_type = PROBLEM_JSON
)]
pub struct WrongCredentials(pub Problem);

/// The 429 of `register` and `api-key`: the brute-force limit per email or client.
#[derive(IntoResponses)]
#[response(
    status = 429,
    description = "Too many failed attempts for this email or client (`Retry-After` in seconds)",
    content_type = PROBLEM_JSON
)]
pub struct FailedAttempts(pub Problem);

/// The 429 of `get_token` and WattTime's `/login`: the brute-force limit, or the account's limit
/// on issued tokens.
#[derive(IntoResponses)]
#[response(
    status = 429,
    description = "Too many failed attempts, or too many tokens issued for this account (`Retry-After` in seconds)",
    content_type = PROBLEM_JSON
)]
pub struct TokenIssueLimit(pub Problem);

/// The 429 of the data routes and of the other services' routes: the per-token rate limit.
#[derive(IntoResponses)]
#[response(
    status = 429,
    description = "Rate limit exceeded (`Retry-After` in seconds)",
    content_type = PROBLEM_JSON
)]
pub struct RateLimited(pub Problem);

/// The 503 of the data routes and of the other services' routes: storage down or data loading.
#[derive(IntoResponses)]
#[response(
    status = 503,
    description = "Storage unavailable or data still loading (`Retry-After`)",
    content_type = PROBLEM_JSON
)]
pub struct Unavailable(pub Problem);

/// The 429 of the status routes: the per-client limit of the public routes.
#[derive(IntoResponses)]
#[response(
    status = 429,
    description = "Too many requests from this client",
    content_type = PROBLEM_JSON
)]
pub struct ClientRateLimited(pub Problem);
