//! [`Secret`]: a value that must never show in `Debug` output or logs (passwords, registration
//! codes, tokens, API keys and the hashes they are stored as, provider credentials). Its `Debug`
//! prints `<redacted>`, so the access records (gridprint-store, which re-exports it), the token
//! service's bodies (gridprint-api) and the provider credentials (gridprint-ingest) that hold one
//! derive `Debug` and stay safe to log; it serializes as the value itself, for the one answer that
//! hands a new token or key to its owner. It lives here, in the crate all of them depend on, so that
//! one type serves them all, the client (`gridprint_client::Secret`) too.

use serde::{Deserialize, Serialize};

/// A value whose `Debug` is `<redacted>`; [`Secret::expose`] gives it to the one place that needs it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret<T = String>(T);

impl<T> Secret<T> {
    pub fn new(value: T) -> Secret<T> {
        Secret(value)
    }

    /// The value itself, for the one place that must use it.
    pub fn expose(&self) -> &T {
        &self.0
    }

    /// The value itself, taken out.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

#[cfg(test)]
mod tests {
    use super::Secret;

    #[test]
    fn debug_hides_the_value_and_serde_keeps_it() {
        let s = Secret::new("hunter2-hunter2".to_string());
        assert_eq!(format!("{s:?}"), "<redacted>");
        assert_eq!(format!("{:?}", Some(&s)), "Some(<redacted>)");
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, "\"hunter2-hunter2\"");
        let back: Secret = serde_json::from_str(&json).unwrap();
        assert_eq!(back.expose(), "hunter2-hunter2");
    }
}
