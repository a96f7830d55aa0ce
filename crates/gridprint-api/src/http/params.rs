//! The schemas of the HTTP layer's own bodies (errors) and the responses naming them in operations
//! built in code (`schemas::problem_response`). The data endpoints' parameters are their wire
//! queries' (gridprint-responses' `query`), `format` is `gridprint_responses::FormatParam`. The
//! rules themselves: docs/api.md §2.

/// The schemas of the HTTP layer's own bodies (errors, the format parameter); the answers' schemas
/// come with their types from `gridprint-responses`.
pub mod schemas {
    use utoipa::ToSchema;
    use utoipa::openapi::content::ContentBuilder;
    use utoipa::openapi::response::{Response, ResponseBuilder};
    use utoipa::openapi::{Ref, RefOr};

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

    /// A 422 for wrongly typed parameters: the reference framework's list, one item per failing
    /// parameter in declaration order.
    #[derive(Debug, ToSchema)]
    #[schema(example = json!({"detail": [{"type": "less_than_equal", "loc": ["query", "lat"],
        "msg": "Input should be less than or equal to 90", "input": "91", "ctx": {"le": 90.0}}]}))]
    pub struct ValidationError {
        /// The failing parameters.
        pub detail: Vec<ValidationItem>,
    }

    /// One failing parameter of a [`ValidationError`].
    #[derive(Debug, ToSchema)]
    pub struct ValidationItem {
        /// `float_parsing`, `bool_parsing`, `less_than_equal`, `greater_than_equal`,
        /// `datetime_from_date_parsing`, …
        #[serde(rename = "type")]
        pub type_: String,
        /// `["query", name]`.
        pub loc: Vec<String>,
        /// The framework's message.
        pub msg: String,
        /// The value as received.
        pub input: String,
        /// Context of the message (`{"le": 90.0}`, `{"error": "input is too short"}`).
        #[schema(value_type = Option<Object>)]
        pub ctx: Option<serde_json::Value>,
        /// gridprint's advice, e.g. to encode `+` as `%2B`.
        pub hint: Option<String>,
    }

    /// A component of `/v1/status/{component}`.
    #[derive(Debug, ToSchema)]
    pub enum Component {
        #[schema(rename = "storage")]
        Storage,
        #[schema(rename = "entso-e")]
        EntsoE,
        #[schema(rename = "elexon")]
        Elexon,
        #[schema(rename = "epias")]
        Epias,
    }

    /// `json` or `csv` (declared with the table's shared parameters).
    pub use gridprint_responses::Format;

    /// An error answer in an operation built in code: a [`Problem`] document
    /// (`application/problem+json`) with this description, as `body = schemas::Problem` declares it.
    pub fn problem_response(description: &str) -> RefOr<Response> {
        answer_response::<Problem>(description, crate::http::error::PROBLEM_JSON)
    }

    /// An answer in an operation built in code: a body of the named schema `T` as `content_type`,
    /// with this description.
    pub fn answer_response<T: ToSchema>(description: &str, content_type: &str) -> RefOr<Response> {
        let content = ContentBuilder::new()
            .schema(Some(Ref::from_schema_name(T::name())))
            .build();
        ResponseBuilder::new()
            .description(description)
            .content(content_type, content)
            .build()
            .into()
    }
}
