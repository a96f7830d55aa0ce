//! The `/v1` API: the data routes ([`data`]: one line per path and endpoint type, answered by
//! [`answer`]), what a data request named without effect ([`ignored`]), JSON or CSV
//! ([`format`]), `/v1/status` ([`status`]) with the health it reports ([`health`]), the OpenAPI
//! document ([`openapi`]) and the documentation pages ([`docs`]). The answers themselves are
//! gridprint-query's; rendered answers are kept by [`crate::kept`].

pub mod answer;
pub mod data;
pub mod docs;
pub mod format;
pub mod health;
pub mod ignored;
pub mod openapi;
pub mod status;
