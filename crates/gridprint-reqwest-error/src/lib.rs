//! gridprint-reqwest-error: [`describe_reqwest`], the one description of a failed HTTP request
//! that the data API's client (`gridprint-client`) and the providers' clients (`gridprint-ingest`)
//! log and report. It names the kind of failure and its chain of causes but never the URL, which
//! may carry a token (the ENTSO-E security token is a query parameter).

/// A reqwest error described without its URL: its kind (`timeout`, `connection failed`, `broken
/// response body`, `request failed`), then each cause in its source chain after `: `.
pub fn describe_reqwest(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connection failed"
    } else if e.is_body() || e.is_decode() {
        "broken response body"
    } else {
        "request failed"
    };
    let mut msg = kind.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}
