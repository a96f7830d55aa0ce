//! The one error type of the client, one variant per kind of failure a caller handles differently.
//!
//! * [`Error::Configuration`]: the client cannot even try (bad URL, no credentials for a protected
//!   endpoint, an unparsable timestamp given to a request builder).
//! * [`Error::Authentication`]: the token service rejected the email and password, or rejected a
//!   token it had just issued; the message says what to check.
//! * [`Error::Api`]: the server answered with an error status and its `detail` (after the retries
//!   for 429 and 5xx were used up).
//! * [`Error::Transport`]: no answer (connection refused or reset, timeout), after every retry.
//! * [`Error::Decode`]: an answer that is not what the interface promises.
//!
//! Messages never contain a password or a token.

/// A failed client call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The client is not set up to make this call.
    #[error("configuration error: {0}")]
    Configuration(String),
    /// The server rejected the credentials or a fresh token.
    #[error("authentication failed: {message}")]
    Authentication {
        /// HTTP status of the rejection (401 or 403), if there was an answer.
        status: Option<u16>,
        /// What went wrong and what to check.
        message: String,
    },
    /// The server answered an error status; `detail` is its explanation.
    #[error("the API answered {status}: {detail}")]
    Api {
        /// HTTP status code.
        status: u16,
        /// The `detail` member of the error body (or the start of a non-JSON body).
        detail: String,
    },
    /// The server could not be reached or did not answer in time.
    #[error("transport error after {attempts} attempt(s): {message}")]
    Transport {
        /// What failed (without the URL's query or any secret).
        message: String,
        /// Attempts made, retries included.
        attempts: usize,
    },
    /// The answer could not be read as the expected type.
    #[error("unexpected response from {path}: {message}")]
    Decode {
        /// Path of the request.
        path: String,
        /// The parser's explanation.
        message: String,
    },
}

/// An unreadable timestamp given to [`crate::Period::parse`].
impl From<gridprint_responses::query::PeriodError> for Error {
    fn from(e: gridprint_responses::query::PeriodError) -> Error {
        Error::Configuration(e.0)
    }
}

impl Error {
    /// The HTTP status of an [`Error::Api`] or [`Error::Authentication`] answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api { status, .. } => Some(*status),
            Error::Authentication { status, .. } => *status,
            _ => None,
        }
    }

    /// Whether this is an authentication failure.
    pub fn is_authentication(&self) -> bool {
        matches!(self, Error::Authentication { .. })
    }
}

/// The `detail` of an error body: the JSON member if it is a string, its JSON text if it is something
/// else (some servers send a list of validation errors), the start of the body if it is not JSON, or
/// the status's reason phrase if the body is empty.
pub(crate) fn detail_of(status: u16, body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body)
        && let Some(d) = v.get("detail")
    {
        return match d {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    let text: String = String::from_utf8_lossy(&body[..body.len().min(800)])
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("no detail")
            .to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::detail_of;

    #[test]
    fn detail_from_problem_json_list_text_and_empty() {
        assert_eq!(
            detail_of(
                400,
                br#"{"type":"about:blank","status":400,"detail":"start must not be after end"}"#
            ),
            "start must not be after end"
        );
        assert_eq!(
            detail_of(422, br#"{"detail":[{"loc":["lat"]}]}"#),
            r#"[{"loc":["lat"]}]"#
        );
        assert_eq!(
            detail_of(502, b"<html>\n bad gateway </html>"),
            "<html> bad gateway </html>"
        );
        assert_eq!(detail_of(503, b""), "Service Unavailable");
    }
}
