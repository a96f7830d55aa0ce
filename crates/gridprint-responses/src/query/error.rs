//! The one error type of reading and answering a query: an HTTP status and a plain-string
//! `detail`. Reading a wire query fails with it here; the server's answers fail with it too.
//!
//! No HTTP is spoken here, but the contract fixes which status each rejection gets (docs/api.md
//! §2): 400 for rule violations (both zone and lat/lon, start without end, an unknown enum value, a
//! range that is too long), 404 for coordinates in no zone, 422 for values of the wrong type (`lat=abc`,
//! `aggregate=maybe`, an unparsable timestamp, a latitude outside [-90, 90]). The HTTP layer copies
//! `status` and `detail` into its problem+json body unchanged, except for a 422 that carries
//! [`FieldError`]s: that one is answered as the reference framework's list
//! `{"detail": [{"type", "loc", "msg", "input", "ctx"?}]}` (docs/api.md §2), one item per failing
//! parameter in declaration order.

use std::fmt;

/// A rejected request: the status to answer and a human-readable, plain-string `detail`.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryError {
    /// HTTP status code (400, 404 or 422).
    pub status: u16,
    /// What was wrong, phrased for the client (never contains internal details).
    pub detail: String,
    /// For a 422 of wrongly typed parameters: one item per failing parameter, in the endpoint's
    /// declaration order (empty otherwise).
    pub errors: Vec<FieldError>,
}

/// One wrongly typed query parameter, as the reference service's framework (pydantic) reports it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FieldError {
    /// Framework error type: `float_parsing`, `bool_parsing`, `less_than_equal`, …
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Always `["query", name]`.
    pub loc: (&'static str, String),
    /// The framework's message.
    pub msg: String,
    /// The value as received (after percent-decoding).
    pub input: String,
    /// Context of the message (`{"le": 90.0}`, `{"error": "input is too short"}`), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ctx: Option<serde_json::Value>,
    /// gridprint's own advice (e.g. to encode `+` as `%2B`); reference clients ignore it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl FieldError {
    /// An item for the query parameter `name` with the received `input`.
    pub fn new(kind: &'static str, name: &str, msg: impl Into<String>, input: &str) -> FieldError {
        FieldError {
            kind,
            loc: ("query", name.to_string()),
            msg: msg.into(),
            input: input.to_string(),
            ctx: None,
            hint: None,
        }
    }

    /// Adds the `ctx` member.
    pub fn with_ctx(mut self, ctx: serde_json::Value) -> FieldError {
        self.ctx = Some(ctx);
        self
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.status, self.detail)
    }
}

impl std::error::Error for QueryError {}

impl QueryError {
    /// 400: the request breaks a rule of the contract.
    pub fn bad_request(detail: impl Into<String>) -> QueryError {
        QueryError {
            status: 400,
            detail: detail.into(),
            errors: Vec::new(),
        }
    }

    /// 404: the coordinates lie in no supported zone.
    pub fn not_found(detail: impl Into<String>) -> QueryError {
        QueryError {
            status: 404,
            detail: detail.into(),
            errors: Vec::new(),
        }
    }

    /// 422: a value cannot be read as its type (number, boolean, timestamp) or is out of its domain.
    pub fn unprocessable(detail: impl Into<String>) -> QueryError {
        QueryError {
            status: 422,
            detail: detail.into(),
            errors: Vec::new(),
        }
    }

    /// 422 for wrongly typed parameters, answered as the framework's list of `errors`.
    pub fn invalid(errors: Vec<FieldError>) -> QueryError {
        let detail = errors
            .iter()
            .map(|e| format!("{}: {}", e.loc.1, e.msg))
            .collect::<Vec<_>>()
            .join("; ");
        QueryError {
            status: 422,
            detail,
            errors,
        }
    }
}
