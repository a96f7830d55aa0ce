//! The one error type of a query: an HTTP status and a plain-string `detail`.
//!
//! The crate speaks no HTTP, but the contract fixes which status each rejection gets (docs/api.md §2):
//! 400 for rule violations (both zone and lat/lon, start without end, an unknown enum value, a range
//! that is too long), 404 for coordinates in no zone, 422 for values of the wrong type (`lat=abc`,
//! `aggregate=maybe`, an unparsable timestamp, a latitude outside [-90, 90]). The HTTP layer copies
//! `status` and `detail` into its problem+json body unchanged.

use std::fmt;

/// A rejected request: the status to answer and a human-readable, plain-string `detail`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct QueryError {
    /// HTTP status code (400, 404 or 422).
    pub status: u16,
    /// What was wrong, phrased for the client (never contains internal details).
    pub detail: String,
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.status, self.detail)
    }
}

impl QueryError {
    /// 400: the request breaks a rule of the contract.
    pub fn bad_request(detail: impl Into<String>) -> QueryError {
        QueryError {
            status: 400,
            detail: detail.into(),
        }
    }

    /// 404: the coordinates lie in no supported zone.
    pub fn not_found(detail: impl Into<String>) -> QueryError {
        QueryError {
            status: 404,
            detail: detail.into(),
        }
    }

    /// 422: a value cannot be read as its type (number, boolean, timestamp) or is out of its domain.
    pub fn unprocessable(detail: impl Into<String>) -> QueryError {
        QueryError {
            status: 422,
            detail: detail.into(),
        }
    }
}
