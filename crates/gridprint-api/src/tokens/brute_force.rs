//! The brute-force guard of the token service ([`FailureGuard`]).
//!
//! Credential attempts (`get_token`, and a refused `register`) are counted **at admission**, before
//! the password is verified, with at most one verification in flight per (email, client address) —
//! the others wait their turn, up to 10 s, then get 429. Policy ([`ApiConfig`](crate::state::ApiConfig),
//! defaults): 10 failures per (email, address) in 15 minutes lock that pair for 15 minutes; 100
//! failures per address over all emails lock that address for 15 minutes; past 100 failures per
//! email from all addresses together, the email is not locked but slowed: one of its attempts is
//! verified every 9 s (15 minutes / 100), the next one going to the waiting address with the fewest
//! failures for it (`gridprint_ratelimit::attempts`, the slow lane). A success is refunded and
//! clears its pair's count, so a guesser gets at most 10 tries per address and, once past 100 for an
//! email, one every 9 s, while the owner, from any other address, still gets in within about 9 s. The
//! counters live in Redis when the rate limit is shared (`--redis-url`: every replica counts
//! together), in this process otherwise (`gridprint_ratelimit::attempts`). The token service
//! ([`crate::tokens::token`]) admits every attempt here; the request rate limits are in [`crate::http::limit`].

use crate::http::error::{ApiError, seconds, wait_phrase};
use gridprint_ratelimit::{
    Admission, AttemptGuard, AttemptPolicy, RateLimit, Refusal, Subject, Ticket,
};
use std::net::IpAddr;
use time::OffsetDateTime;

/// The brute-force guard of the token service (see the module documentation).
#[derive(Debug)]
pub struct FailureGuard {
    attempts: AttemptGuard,
}

impl FailureGuard {
    /// The guard of `policy` ([`ApiConfig::attempt_policy`](crate::state::ApiConfig::attempt_policy)),
    /// sharing its counters through `limits`' Redis connection if it has one.
    pub fn new(policy: AttemptPolicy, limits: &RateLimit) -> FailureGuard {
        FailureGuard {
            attempts: AttemptGuard::sharing(limits, policy),
        }
    }

    /// Admits one credential attempt of `email` (`None`: not an email; only the address counts)
    /// from `client` at `now`, or answers 429.
    pub(crate) async fn admit(
        &self,
        now: OffsetDateTime,
        email: Option<&str>,
        client: IpAddr,
    ) -> Result<Ticket, ApiError> {
        let subject = Subject {
            email: email.map(str::to_owned),
            address: crate::http::front::address_key(client),
        };
        let now_ms = (now.unix_timestamp_nanos() / 1_000_000) as i64;
        match self.attempts.admit(&subject, now_ms).await {
            Admission::Admitted(ticket) => Ok(*ticket),
            Admission::Refused {
                reason: Refusal::Locked,
                retry_after_secs,
            } => Err(ApiError::too_many_requests(
                format!(
                    "too many failed attempts; try again in {}",
                    wait_phrase(retry_after_secs)
                ),
                retry_after_secs,
            )),
            Admission::Refused {
                reason: Refusal::Slowed,
                retry_after_secs,
            } => Err(ApiError::too_many_requests(
                format!(
                    "too many failed attempts for this email: attempts are checked slowly; try again in {}",
                    wait_phrase(retry_after_secs)
                ),
                retry_after_secs,
            )),
            Admission::Refused {
                reason: Refusal::Busy,
                retry_after_secs,
            } => Err(ApiError::too_many_requests(
                format!(
                    "another attempt for this email from your address is still being checked; retry after {}",
                    seconds(retry_after_secs)
                ),
                retry_after_secs,
            )),
        }
    }
}
