//! The HTTP plumbing every provider client shares: one reqwest client on rustls (ring provider), a
//! retry loop with exponential backoff and jitter, and the errors a fetch can end with.
//!
//! A request is retried when the provider did not answer (timeout, connection refused or reset), when
//! it answered 5xx, or when it answered 429 (then after its `Retry-After`, if longer than our own
//! backoff). Anything else — 2xx and the other 4xx — is handed back to the provider client, which
//! knows what the body means (ENTSO-E answers "no matching data" with an acknowledgement document,
//! sometimes under a 400). Each attempt first takes a token from the optional rate limiter, so retries
//! count against a provider's request budget like any other request.

use backon::{ExponentialBuilder, Retryable};
use governor::{DefaultDirectRateLimiter, Quota};
use gridprint_reqwest_error::describe_reqwest;
use std::collections::BTreeMap;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

/// How long and how often to try a request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FetchRetry {
    /// Retries after the first attempt.
    pub max_retries: usize,
    /// First backoff delay (doubled each retry, with jitter).
    pub min_delay: Duration,
    /// Longest backoff delay.
    pub max_delay: Duration,
    /// Longest `Retry-After` we honour; a provider asking for more gets this.
    pub max_retry_after: Duration,
    /// Timeout of one attempt (connect + response + body).
    pub timeout: Duration,
}

impl Default for FetchRetry {
    fn default() -> Self {
        FetchRetry {
            max_retries: 5,
            min_delay: Duration::from_secs(2),
            max_delay: Duration::from_secs(60),
            max_retry_after: Duration::from_secs(600),
            timeout: Duration::from_secs(60),
        }
    }
}

/// A shared request budget: a token bucket (GCRA) that lets at most `per_minute` requests through in
/// any 60-second window. Clones share the bucket.
#[derive(Clone)]
pub struct RequestBudget {
    limiter: Arc<DefaultDirectRateLimiter>,
    per_minute: u32,
}

impl std::fmt::Debug for RequestBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestBudget")
            .field("per_minute", &self.per_minute)
            .finish()
    }
}

impl RequestBudget {
    /// A budget of `per_minute` requests in any minute: a burst of up to 5 % (at least 1) and the rest
    /// spread evenly, so the burst plus one minute of refill never exceeds `per_minute`.
    pub fn per_minute(per_minute: u32) -> RequestBudget {
        let per_minute = per_minute.max(2);
        let burst = (per_minute / 20).max(1);
        let refill = per_minute - burst;
        let period = Duration::from_secs_f64(60.0 / refill as f64);
        let quota = Quota::with_period(period)
            .expect("non-zero period")
            .allow_burst(NonZeroU32::new(burst).expect("burst ≥ 1"));
        RequestBudget {
            limiter: Arc::new(DefaultDirectRateLimiter::direct(quota)),
            per_minute,
        }
    }

    /// Requests allowed per minute.
    pub fn limit(&self) -> u32 {
        self.per_minute
    }

    /// Waits for a token.
    pub async fn acquire(&self) {
        self.limiter.until_ready().await;
    }
}

/// Why a fetch failed. Displays never contain a secret (tokens are redacted from URLs).
#[derive(Debug, Clone, thiserror::Error)]
pub enum FetchError {
    /// No answer: timeout, connection refused or reset, DNS (after every retry).
    #[error("{request}: no answer from the provider after {attempts} attempts: {message}")]
    Unreachable {
        request: String,
        attempts: usize,
        message: String,
    },
    /// The provider kept answering 5xx or 429 (after every retry).
    #[error("{request}: provider answered HTTP {status} after {attempts} attempts")]
    Unavailable {
        request: String,
        status: u16,
        attempts: usize,
    },
    /// The provider refused the request (4xx other than 429, or a refusal acknowledgement).
    #[error("{request}: provider refused the request (HTTP {status}): {message}")]
    Refused {
        request: String,
        status: u16,
        message: String,
    },
    /// The provider answered with a document we cannot read; nothing was stored.
    #[error("{request}: malformed response, nothing stored: {message}")]
    Malformed { request: String, message: String },
    /// The client is not configured for this request (no token, provider disabled).
    #[error("{request}: {message}")]
    NotConfigured { request: String, message: String },
    /// The run was cancelled before the request completed.
    #[error("{request}: cancelled")]
    Cancelled { request: String },
}

impl FetchError {
    /// For `map_err`: a [`FetchError::NotConfigured`] of `request` with the error as its message.
    pub(crate) fn not_configured<M: ToString>(request: &str) -> impl FnOnce(M) -> FetchError + '_ {
        move |message| FetchError::NotConfigured {
            request: request.to_string(),
            message: message.to_string(),
        }
    }

    /// The request this error is about (its redacted description).
    pub fn request(&self) -> &str {
        match self {
            FetchError::Unreachable { request, .. }
            | FetchError::Unavailable { request, .. }
            | FetchError::Refused { request, .. }
            | FetchError::Malformed { request, .. }
            | FetchError::NotConfigured { request, .. }
            | FetchError::Cancelled { request } => request,
        }
    }
}

/// Builds the HTTP client all provider clients use: rustls on the `ring` provider (installed here if
/// no process-wide provider is set yet), our user agent, the per-attempt timeout.
pub fn http_client(timeout: Duration) -> Result<reqwest::Client, String> {
    // Fails only when a provider is already installed, which is what we want anyway.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!(
            "gridprint/",
            env!("CARGO_PKG_VERSION"),
            " (+https://github.com/gridprint)"
        ))
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(15)))
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

/// One attempt's outcome that the retry loop looks at.
#[derive(Debug)]
enum AttemptError {
    /// No answer (retryable).
    Transport(String),
    /// 5xx or 429 (retryable), with the provider's `Retry-After`.
    Status {
        status: u16,
        retry_after: Option<Duration>,
    },
    /// The body exceeded the caller's limit (not retried).
    TooLarge(usize),
}

/// A final answer: status and body.
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

/// GETs `url` with retries. `label` describes the request in errors and logs (it must not contain a
/// secret). Returns the first answer that is not retryable (2xx or a 4xx other than 429).
pub(crate) async fn get_with_retries(
    client: &reqwest::Client,
    url: &reqwest::Url,
    budget: Option<&RequestBudget>,
    policy: &FetchRetry,
    label: &str,
) -> Result<Answer, FetchError> {
    send_with_retries(|| client.get(url.clone()), budget, policy, label, None).await
}

/// Sends the request `build` makes (once per attempt: any method, headers and body) with the same
/// retries, budget and errors as [`get_with_retries`]. With `max_body`, a body longer than that many
/// bytes is abandoned while it arrives and the request fails as [`FetchError::Malformed`].
pub(crate) async fn send_with_retries(
    build: impl Fn() -> reqwest::RequestBuilder,
    budget: Option<&RequestBudget>,
    policy: &FetchRetry,
    label: &str,
    max_body: Option<usize>,
) -> Result<Answer, FetchError> {
    let attempts = std::sync::atomic::AtomicUsize::new(0);
    let attempt = || async {
        attempts.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some(b) = budget {
            b.acquire().await;
        }
        let (client, request) = build().build_split();
        let request = request.map_err(|e| AttemptError::Transport(describe_reqwest(&e)))?;
        let host = request.url().host_str().unwrap_or("").to_string();
        let response = match client.execute(request).await {
            Ok(r) => r,
            Err(e) => {
                let message = describe_reqwest(&e);
                if crate::reachability::note_unreachable(&host) {
                    tracing::warn!(host = %host, request = label, "{host} cannot be reached ({message}); retrying with backoff");
                }
                return Err(AttemptError::Transport(message));
            }
        };
        if crate::reachability::note_answered(&host) {
            tracing::info!(host = %host, "{host} answers again");
        }
        let status = response.status().as_u16();
        if status == 429 || status >= 500 {
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            return Err(AttemptError::Status {
                status,
                retry_after,
            });
        }
        let Some(max) = max_body else {
            let body = response
                .bytes()
                .await
                .map_err(|e| AttemptError::Transport(describe_reqwest(&e)))?;
            return Ok(Answer {
                status,
                body: body.to_vec(),
            });
        };
        let mut response = response;
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| AttemptError::Transport(describe_reqwest(&e)))?
        {
            if body.len() + chunk.len() > max {
                return Err(AttemptError::TooLarge(max));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Answer { status, body })
    };
    let backoff = ExponentialBuilder::default()
        .with_min_delay(policy.min_delay)
        .with_max_delay(policy.max_delay)
        .with_max_times(policy.max_retries)
        .with_jitter();
    let max_retry_after = policy.max_retry_after;
    let result = attempt
        .retry(backoff)
        .sleep(tokio::time::sleep)
        .when(|e: &AttemptError| !matches!(e, AttemptError::TooLarge(_)))
        .adjust(|e: &AttemptError, dur: Option<Duration>| match (e, dur) {
            (AttemptError::Status { retry_after: Some(ra), .. }, Some(d)) => Some((*ra).min(max_retry_after).max(d)),
            (_, d) => d,
        })
        .notify(|e: &AttemptError, dur: Duration| {
            tracing::debug!(request = label, error = ?e, retry_in_ms = dur.as_millis() as u64, "retrying");
        })
        .await;
    let attempts = attempts.load(std::sync::atomic::Ordering::Relaxed);
    result.map_err(|e| match e {
        AttemptError::Transport(message) => FetchError::Unreachable {
            request: label.to_string(),
            attempts,
            message,
        },
        AttemptError::Status { status, .. } => FetchError::Unavailable {
            request: label.to_string(),
            status,
            attempts,
        },
        AttemptError::TooLarge(max) => FetchError::Malformed {
            request: label.to_string(),
            message: format!("the answer is larger than {max} bytes"),
        },
    })
}

/// The points of a provider's answer once parsed (`parsed`: its points and what was skipped, logged
/// at debug), or [`FetchError::Malformed`] after `log_error` logged the parse error: nothing of a
/// malformed answer is stored.
pub(crate) fn parsed_points<P, E: std::fmt::Display>(
    provider: &str,
    label: String,
    parsed: Result<(Vec<P>, BTreeMap<String, usize>), E>,
    log_error: impl FnOnce(&E),
) -> Result<Vec<P>, FetchError> {
    match parsed {
        Ok((points, skipped)) => {
            if !skipped.is_empty() {
                tracing::debug!(request = %label, skipped = ?skipped, "{provider} values skipped");
            }
            Ok(points)
        }
        Err(e) => {
            log_error(&e);
            Err(FetchError::Malformed {
                request: label,
                message: e.to_string(),
            })
        }
    }
}

/// The first `n` characters of a body, printable, for error messages.
pub(crate) fn body_head(body: &[u8], n: usize) -> String {
    String::from_utf8_lossy(&body[..body.len().min(n * 4)])
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(n)
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn budget_allows_a_small_burst_then_spreads_requests() {
        // 300 a minute: a burst of 15, then one every 60 s / 285 ≈ 210 ms (15 + 285 = 300 a minute).
        let b = RequestBudget::per_minute(300);
        assert_eq!(b.limit(), 300);
        let started = std::time::Instant::now();
        for _ in 0..15 {
            b.acquire().await;
        }
        let burst = started.elapsed();
        assert!(
            burst < Duration::from_millis(150),
            "the burst is immediate: {burst:?}"
        );
        b.acquire().await;
        b.acquire().await;
        let paced = started.elapsed();
        assert!(paced >= Duration::from_millis(350), "then paced: {paced:?}");
    }

    #[test]
    fn body_head_is_short_and_printable() {
        assert_eq!(body_head(b"<a>\n\t x </a>", 100), "<a> x </a>");
        assert_eq!(body_head("ééééé".as_bytes(), 2), "éé");
    }
}
