//! [`Format`]: the representation of an answer, JSON (the interface's) or long-format CSV (a
//! gridprint extension, docs/api.md §7). One type serves the server's choice (gridprint-api's
//! `format` module reads it from `format` or `Accept`), the OpenAPI `format` parameter
//! (gridprint-query's `describe::FormatParam`) and the client's request (gridprint-client).

use utoipa::ToSchema;

/// `json` or `csv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Json,
    Csv,
}
