//! The HTTP plumbing every route shares: the route table and its layers ([`router`]), the
//! connection loop with its slow-client limits ([`server`], [`connection_cap`]), the layer in front of routing that
//! resolves the client address and path aliases ([`front`]), size limits, timeout, metrics and CORS
//! ([`layers`]), rate limits ([`limit`]), the counts and log summaries of refusals ([`refusals`]), the one error type ([`error`]) with the OpenAPI
//! answers of shared failures ([`failures`], [`params`]) and extractors that reject through it
//! ([`extract`]).

pub mod connection_cap;
pub mod error;
pub mod extract;
pub mod failures;
pub mod front;
pub mod layers;
pub mod limit;
pub mod params;
pub mod refusals;
pub mod router;
pub mod server;
