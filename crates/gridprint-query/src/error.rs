//! The one error type of a query, [`QueryError`] (an HTTP status and a plain-string `detail`), and
//! the items of a 422, [`FieldError`]: declared with the wire queries in gridprint-responses'
//! `query::error`, which reading a query fails with, and used here for every refusal of an answer.

pub use gridprint_responses::query::error::{FieldError, QueryError};
