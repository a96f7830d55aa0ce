//! The `/v1` queries as typed values, one struct per endpoint, shared by the three parties that
//! speak them: the server reads a query string into one ([`WireQuery::from_pairs`], today's error
//! order and "last occurrence wins"), the client writes one ([`WireQuery::to_pairs`]) and the
//! OpenAPI document lists its parameters ([`WireQuery::parameters`]). So a parameter is declared
//! once, as a typed field.
//!
//! - `parts`: the values queries are made of ([`Location`], [`Period`], [`ImpactType`],
//!   [`Metric`]) and [`PairWriter`];
//! - `read`: [`QueryParams`] and the readers, in the order of docs/api.md §2;
//! - `series`, `partners`, `derived`, `best_window`: the queries, by family;
//! - `error`: [`QueryError`] and [`FieldError`], what a refused query answers.
//!
//! What reading needs from the server is the small [`QueryContext`]; the server then resolves a
//! query into its internal request (zone indices, slots, "now") in gridprint-query's `params`.

pub mod best_window;
pub mod derived;
pub mod error;
pub mod partners;
pub mod parts;
pub mod read;
pub mod series;

pub use best_window::BestWindowQuery;
pub use derived::{FactorsQuery, FootprintsQuery, ImpactsQuery, ScoreQuery};
pub use error::{FieldError, QueryError};
pub use partners::{
    ExportsQuery, FlowShareQuery, FootprintShareQuery, ImpactShareQuery, ImportsQuery,
    MixShareQuery,
};
pub use parts::{ImpactType, Location, Metric, PairWriter, Period, PeriodError};
pub use read::QueryParams;
pub use series::{
    AvailabilityQuery, ForecastAccuracyQuery, GenerationQuery, LoadQuery, MixQuery, ZonesQuery,
};

use time::OffsetDateTime;
use utoipa::openapi::path::Parameter;

/// What reading a query needs from the server that answers it.
pub trait QueryContext {
    /// Whether a supported zone contains the point (a point in none is a 404, reported where its
    /// location is read).
    fn locates(&self, lat: f64, lon: f64) -> bool;
    /// "Now": `/best-window` starts at the current slot when `start` is left out.
    fn now(&self) -> OffsetDateTime;
}

/// One `/v1` endpoint's query: its parameters, written and read.
pub trait WireQuery: Sized {
    /// The OpenAPI parameters, in the document's order (the server adds `format` to each).
    fn parameters() -> Vec<Parameter>;
    /// The query's pairs in a stable order; a `None` field is left out (the server's default).
    fn to_pairs(&self) -> Vec<(String, String)>;
    /// Reads the query by the rules of docs/api.md §2: the first problem found is reported.
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError>;
}
