//! The response memory budget: rendered answers waiting for their clients (`--response-memory-mb`).
//!
//! A rendered answer lives until hyper has written its last byte to the socket, however long the
//! client takes to read it, so a few clients asking years of CSV and reading nothing could hold
//! gigabytes. Every freshly rendered answer over [`SMALL_ANSWER_BYTES`] takes its size
//! from one budget shared by all connections, and gives it back when the last reference to its
//! bytes is dropped (written out, or the connection cut by the send timeout of
//! [`crate::ClientLimits`]); past the budget the answer is refused with 503 and `Retry-After`.
//! Small answers and answers from the response cache (whose bytes the cache already counts) are
//! not counted. [`crate::kept`] calls [`budgeted`] for every answer it serves, `/v1` reserves an
//! estimate first ([`reserve`]); docs/reliability.md lists the limit.

use crate::http::error::ApiError;
use crate::http::refusals::Refusal;
use axum::body::Bytes;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Answers up to this size are not counted against the budget.
pub const SMALL_ANSWER_BYTES: usize = 64 << 10;

/// `Retry-After` of an answer refused for the budget, in seconds.
const RETRY_FULL: u64 = 2;

/// An answer's bytes with their share of the budget: freed together.
struct Counted {
    bytes: Bytes,
    _permit: OwnedSemaphorePermit,
}

impl AsRef<[u8]> for Counted {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

/// Takes `estimate` bytes of `budget` before an answer of that estimated size is written, so
/// writing it never builds past the budget (without it, several year-long CSV answers written at
/// once took gigabytes before the finished ones were refused); an error when the budget cannot hold it now,
/// before any work. Answers estimated at [`SMALL_ANSWER_BYTES`] or less take nothing. Dropped
/// once the answer is written, when [`budgeted`] counts its real size.
pub(crate) fn reserve(
    budget: &Arc<Semaphore>,
    estimate: usize,
) -> Result<Option<OwnedSemaphorePermit>, ApiError> {
    if estimate <= SMALL_ANSWER_BYTES {
        return Ok(None);
    }
    let kib = u32::try_from(estimate.div_ceil(1024)).unwrap_or(u32::MAX);
    budget
        .clone()
        .try_acquire_many_owned(kib)
        .map(Some)
        .map_err(|_| full())
}

fn full() -> ApiError {
    ApiError::unavailable(
        "the server is sending too many large answers right now; please retry",
        RETRY_FULL,
    )
    .refusing(Refusal::ResponseMemory)
}

/// `bytes` holding their share of `budget` (in KiB) until the last clone of the returned bytes
/// is dropped; an error when the budget cannot hold them now.
pub(crate) fn budgeted(budget: &Arc<Semaphore>, bytes: Bytes) -> Result<Bytes, ApiError> {
    if bytes.len() <= SMALL_ANSWER_BYTES {
        return Ok(bytes);
    }
    let kib = u32::try_from(bytes.len().div_ceil(1024)).unwrap_or(u32::MAX);
    match budget.clone().try_acquire_many_owned(kib) {
        Ok(permit) => Ok(Bytes::from_owner(Counted {
            bytes,
            _permit: permit,
        })),
        Err(_) => Err(full()),
    }
}

#[cfg(test)]
mod tests {
    use super::{SMALL_ANSWER_BYTES, budgeted};
    use axum::body::Bytes;
    use std::sync::Arc;
    use tokio::sync::Semaphore;

    #[test]
    fn large_answers_hold_their_size_until_their_bytes_are_dropped() {
        let budget = Arc::new(Semaphore::new(1024)); // 1 MiB
        let big = || Bytes::from(vec![b'x'; 600 << 10]);
        let first = budgeted(&budget, big()).unwrap();
        assert_eq!(budget.available_permits(), 1024 - 600);
        let copy = first.slice(10..20);
        assert!(budgeted(&budget, big()).is_err(), "over the budget");
        drop(first);
        assert_eq!(
            budget.available_permits(),
            1024 - 600,
            "a slice still holds it"
        );
        drop(copy);
        assert_eq!(budget.available_permits(), 1024);
        let small = budgeted(&budget, Bytes::from(vec![0; SMALL_ANSWER_BYTES])).unwrap();
        assert_eq!(small.len(), SMALL_ANSWER_BYTES);
        assert_eq!(
            budget.available_permits(),
            1024,
            "small answers are not counted"
        );
    }
}
