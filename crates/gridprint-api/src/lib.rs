//! gridprint-api: the HTTP interface of gridprint, as an axum [`Router`](axum::Router). Four parts,
//! a folder each:
//!
//! - [`tokens`]: the token service with API keys (`/token-request`, its page) and the Bearer guard
//!   of the data routes;
//! - [`v1`]: the `/v1` data routes (one line per path in `v1::data`, answered by `v1::answer`),
//!   `/v1/status`, the OpenAPI document and the docs pages;
//! - [`compat`]: the routes of other services' APIs (Electricity Maps, CO2 Signal, WattTime), a
//!   named handler per route, every number read from `/v1`'s query service;
//! - [`http`]: the plumbing: the route table and its layers ([`router`]), the connection loop
//!   ([`serve`]), limits, errors.
//!
//! [`kept`] keeps rendered answers for all of them (memo, `ETag`/304, gzip copies, the response
//! memory budget). [`state`] is what every handler shares; [`refresh`] keeps the in-memory cache in
//! step with the store, so data requests touch neither the database nor files.

#![forbid(unsafe_code)]

pub mod compat;
pub mod http;
pub mod kept;
pub mod refresh;
pub mod state;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tokens;
pub mod v1;

pub use gridprint_responses::{DemoRecording, DemoStatus};
pub use http::error::ApiError;
pub use http::front::ClientAddr;
pub use http::router::{ACCESS_LOG_TARGET, REQUEST_SPAN, router, router_with_home, serve};
pub use http::server::serve as serve_router;
pub use state::{ApiConfig, AppState, AppStateBuilder, ClientLimits, MAX_BODY_BYTES};
pub use tokens::auth::AuthUser;
pub use v1::data::data_paths;
pub use v1::health::{DemoFn, ProbeFn, Providers};
