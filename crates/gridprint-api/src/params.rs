//! The schemas of the HTTP layer's own bodies (errors) and the `format` parameter the status routes
//! name. The data endpoints' parameters are declared with the endpoint table in `gridprint-query`
//! (`describe.rs` and each endpoint's module). The rules themselves: docs/api.md §2.

use utoipa::ToSchema;

/// `format` (declared with the table's shared parameters; the status routes name it too).
pub use gridprint_query::describe::FormatParam;

/// The schemas of the HTTP layer's own bodies (errors, the format parameter); the answers' schemas
/// come with their types from `gridprint-responses`.
pub mod schemas {
    use super::*;

    /// An error (RFC 9457 problem details). Clients read `detail`.
    #[derive(Debug, ToSchema)]
    #[schema(example = json!({"type": "about:blank", "title": "Bad Request", "status": 400,
        "detail": "start and end must be given together (or neither, for the current slot)"}))]
    pub struct Problem {
        /// Always `about:blank`.
        #[serde(rename = "type")]
        pub type_: String,
        /// The status' reason phrase.
        pub title: String,
        /// The HTTP status.
        pub status: u16,
        /// What was wrong, in words (a plain string).
        pub detail: String,
    }

    /// `json` or `csv` (declared with the table's shared parameters).
    pub use gridprint_query::describe::Format;
}
