//! gridprint-ratelimit: how many requests a key (a token, or a client address) may make.
//!
//! Both backends implement the same generic cell rate algorithm (GCRA): a sustained `rate` per second
//! with bursts of up to `burst` requests. [`RateLimit::local`] keeps state in this process (the
//! `governor` crate); [`RateLimit::redis`] keeps it in Redis with one atomic Lua script using Redis'
//! own clock, so a key's limit holds in total across every `serve` replica. If Redis cannot be reached
//! the shared limiter falls back to the local one (and logs it) rather than failing requests.
//!
//! The local state holds one entry per key seen; every [`SWEEP_EVERY`] checks it drops the keys whose
//! bucket is full again (they are indistinguishable from new ones), so memory follows the number of
//! recently active keys, not every client address ever seen. Redis entries expire by themselves.

use governor::clock::{Clock, DefaultClock};
use governor::{Quota, RateLimiter as Governor};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Local checks between two sweeps of idle keys.
pub const SWEEP_EVERY: u64 = 4096;

/// The outcome of one request against the limit, with what the `RateLimit-*` headers report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    /// The burst size (`RateLimit-Limit`).
    pub limit: u32,
    /// Requests left right now (`RateLimit-Remaining`).
    pub remaining: u32,
    /// Seconds until the bucket is full again (`RateLimit-Reset`).
    pub reset_secs: u64,
    /// When refused: seconds to wait (`Retry-After`), at least 1.
    pub retry_after_secs: u64,
}

type Keyed = Governor<
    String,
    governor::state::keyed::DefaultKeyedStateStore<String>,
    DefaultClock,
    governor::middleware::StateInformationMiddleware,
>;

/// Per-process GCRA limiter.
struct Local {
    limiter: Keyed,
    clock: DefaultClock,
    checks: AtomicU64,
}

/// A rate limit per key.
#[derive(Clone)]
pub struct RateLimit {
    rate: f64,
    burst: u32,
    local: Option<Arc<Local>>,
    redis: Option<redis::aio::ConnectionManager>,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("rate", &self.rate)
            .field("burst", &self.burst)
            .field("shared", &self.redis.is_some())
            .finish()
    }
}

/// GCRA in Redis. KEYS[1]: the key; ARGV[1]: emission interval in µs; ARGV[2]: burst.
/// Returns {allowed (0/1), remaining, reset µs, retry-after µs}.
const GCRA: &str = r#"
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local tolerance = interval * burst
local new_tat = tat + interval
local allow_at = new_tat - tolerance
if allow_at > now then
  return {0, 0, tat - now, allow_at - now}
end
redis.call('SET', KEYS[1], new_tat, 'PX', math.ceil(tolerance / 1000) + 1000)
local remaining = math.floor((now - allow_at) / interval)
return {1, remaining, new_tat - now, 0}
"#;

impl RateLimit {
    /// `rate` requests per second sustained, bursts of `burst`. A rate ≤ 0 disables limiting.
    pub fn local(rate: f64, burst: u32) -> RateLimit {
        let local = (rate > 0.0 && rate.is_finite()).then(|| {
            let period = Duration::from_secs_f64(1.0 / rate);
            let quota = Quota::with_period(period)
                .expect("positive period")
                .allow_burst(NonZeroU32::new(burst.max(1)).expect("non-zero"));
            Arc::new(Local {
                limiter: Governor::keyed(quota)
                    .with_middleware::<governor::middleware::StateInformationMiddleware>(),
                clock: DefaultClock::default(),
                checks: AtomicU64::new(0),
            })
        });
        RateLimit {
            rate,
            burst: burst.max(1),
            local,
            redis: None,
        }
    }

    /// The same limit shared through Redis at `url` (e.g. `redis://127.0.0.1:6379`).
    pub async fn redis(url: &str, rate: f64, burst: u32) -> Result<RateLimit, String> {
        let client = redis::Client::open(url).map_err(|e| format!("bad Redis URL: {e}"))?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_millis(500)))
            .set_number_of_retries(1);
        let manager = redis::aio::ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|e| format!("cannot reach Redis: {e}"))?;
        let mut me = RateLimit::local(rate, burst);
        me.redis = Some(manager);
        Ok(me)
    }

    /// Keys the local state currently tracks (idle ones go at the next sweep).
    pub fn tracked_keys(&self) -> usize {
        self.local.as_ref().map_or(0, |l| l.limiter.len())
    }

    /// Drops the local state of keys whose bucket is full again.
    pub fn sweep(&self) {
        if let Some(local) = &self.local {
            local.limiter.retain_recent();
            local.limiter.shrink_to_fit();
        }
    }

    /// Whether the limit is shared across processes.
    pub fn is_shared(&self) -> bool {
        self.redis.is_some()
    }

    /// Counts one request for `key`.
    pub async fn check(&self, key: &str) -> Decision {
        let Some(local) = &self.local else {
            return Decision {
                allowed: true,
                limit: self.burst,
                remaining: self.burst,
                reset_secs: 0,
                retry_after_secs: 0,
            };
        };
        if let Some(conn) = &self.redis {
            let mut conn = conn.clone();
            let interval_us = (1e6 / self.rate).round().max(1.0) as i64;
            let script = redis::Script::new(GCRA);
            let result: Result<(i64, i64, i64, i64), _> = script
                .key(format!("gridprint:rl:{key}"))
                .arg(interval_us)
                .arg(self.burst)
                .invoke_async(&mut conn)
                .await;
            match result {
                Ok((allowed, remaining, reset_us, retry_us)) => {
                    return Decision {
                        allowed: allowed == 1,
                        limit: self.burst,
                        remaining: remaining.clamp(0, i64::from(self.burst)) as u32,
                        reset_secs: (reset_us.max(0) as u64).div_ceil(1_000_000),
                        retry_after_secs: if allowed == 1 {
                            0
                        } else {
                            (retry_us.max(1) as u64).div_ceil(1_000_000).max(1)
                        },
                    };
                }
                Err(e) => {
                    tracing::warn!(error = %e, "shared rate limit unavailable; limiting in this process")
                }
            }
        }
        if local.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep();
        }
        let key = key.to_string();
        match local.limiter.check_key(&key) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let missing = self.burst.saturating_sub(remaining);
                Decision {
                    allowed: true,
                    limit: self.burst,
                    remaining,
                    reset_secs: (f64::from(missing) / self.rate).ceil() as u64,
                    retry_after_secs: 0,
                }
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(local.clock.now());
                Decision {
                    allowed: false,
                    limit: self.burst,
                    remaining: 0,
                    reset_secs: (f64::from(self.burst) / self.rate).ceil() as u64,
                    retry_after_secs: wait.as_secs_f64().ceil().max(1.0) as u64,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn idle_keys_are_swept_and_active_ones_kept() {
        // 1000/s, burst 2: a key's bucket is full again 2 ms after its last request.
        let limit = RateLimit::local(1000.0, 2);
        for i in 0..3000 {
            assert!(limit.check(&format!("ip:{i}")).await.allowed);
        }
        assert_eq!(limit.tracked_keys(), 3000);
        tokio::time::sleep(Duration::from_millis(20)).await;
        // One busy key: its bucket is empty when the periodic sweep runs.
        let mut refused = 0;
        for _ in 0..SWEEP_EVERY {
            refused += usize::from(!limit.check("token:busy").await.allowed);
        }
        assert!(refused > 0, "the busy key was limited");
        assert_eq!(limit.tracked_keys(), 1, "only the busy key is left");
    }
}
