//! gridprint-ratelimit: how many requests a key (an account, or a client address) may make, and how
//! many credential attempts an email and a client address get ([`attempts`]).
//!
//! Both backends implement the same generic cell rate algorithm (GCRA): a sustained `rate` per second
//! with bursts of up to `burst` requests. [`RateLimit::local`] keeps state in this process (the
//! `governor` crate); [`RateLimit::redis`] keeps it in Redis with one atomic Lua script using Redis'
//! own clock, so a key's limit holds in total across every `serve` replica. Each check names its
//! [`Quota`] (or uses the default one), so account tiers need no limiter of their own. If Redis cannot be reached
//! the shared limiter falls back to the local one (and logs it) rather than failing requests.
//!
//! The local state holds one entry per key seen; every [`SWEEP_EVERY`] checks it drops the keys whose
//! bucket is full again (they are indistinguishable from new ones), so memory follows the number of
//! recently active keys, not every client address ever seen. Redis entries expire by themselves.

use governor::clock::Clock as _;
use governor::nanos::Nanos;
use governor::{Quota as GovernorQuota, RateLimiter as Governor};
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub mod attempts;
pub use attempts::{Admission, AttemptGuard, AttemptPolicy, Refusal, Subject, Ticket};

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

/// A sustained rate (requests per second) with bursts of up to `burst` requests. A rate ≤ 0 (or not
/// finite) means "no limit".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quota {
    pub rate_per_second: f64,
    pub burst: u32,
}

impl Quota {
    /// `rate_per_second` sustained with bursts of `burst` (at least 1).
    pub fn new(rate_per_second: f64, burst: u32) -> Quota {
        Quota {
            rate_per_second,
            burst: burst.max(1),
        }
    }

    /// Whether this quota limits anything.
    pub fn is_limited(&self) -> bool {
        self.rate_per_second > 0.0 && self.rate_per_second.is_finite()
    }

    fn id(&self) -> (u64, u32) {
        (self.rate_per_second.to_bits(), self.burst)
    }

    fn unlimited(&self) -> Decision {
        Decision {
            allowed: true,
            limit: self.burst,
            remaining: self.burst,
            reset_secs: 0,
            retry_after_secs: 0,
        }
    }
}

/// Where the local limiters read the time: a monotonic clock, or a function tests move.
#[derive(Clone)]
struct LimitClock {
    origin: Instant,
    source: Option<Arc<dyn Fn() -> Duration + Send + Sync>>,
}

impl governor::clock::Clock for LimitClock {
    type Instant = Nanos;

    fn now(&self) -> Nanos {
        match &self.source {
            Some(f) => Nanos::from(f()),
            None => Nanos::from(self.origin.elapsed()),
        }
    }
}

type Keyed = Governor<
    String,
    governor::state::keyed::DefaultKeyedStateStore<String>,
    LimitClock,
    governor::middleware::StateInformationMiddleware,
>;

/// Per-process GCRA limiters, one per distinct quota (the default one and each account tier).
struct Local {
    clock: LimitClock,
    limiters: Mutex<HashMap<(u64, u32), Arc<Keyed>>>,
    checks: AtomicU64,
}

impl Local {
    fn limiter(&self, quota: Quota) -> Arc<Keyed> {
        let mut map = self.limiters.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(quota.id())
            .or_insert_with(|| {
                let period = Duration::from_secs_f64(1.0 / quota.rate_per_second);
                let q = GovernorQuota::with_period(period.max(Duration::from_nanos(1)))
                    .expect("positive period")
                    .allow_burst(NonZeroU32::new(quota.burst.max(1)).expect("non-zero"));
                Arc::new(
                    Governor::<String, _, LimitClock, governor::middleware::NoOpMiddleware<Nanos>>::new(
                        q,
                        governor::state::keyed::DefaultKeyedStateStore::default(),
                        self.clock.clone(),
                    )
                    .with_middleware::<governor::middleware::StateInformationMiddleware>(),
                )
            })
            .clone()
    }

    fn all(&self) -> Vec<Arc<Keyed>> {
        let map = self.limiters.lock().unwrap_or_else(|e| e.into_inner());
        map.values().cloned().collect()
    }
}

/// A rate limit per key: a default quota, and any other quota a caller names per check (account
/// tiers, the token service's per-account limit).
#[derive(Clone)]
pub struct RateLimit {
    default: Quota,
    local: Arc<Local>,
    redis: Option<redis::aio::ConnectionManager>,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("rate", &self.default.rate_per_second)
            .field("burst", &self.default.burst)
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
    /// `rate` requests per second sustained, bursts of `burst`, kept in this process. A rate ≤ 0
    /// disables the default limit (quotas named per check still apply).
    pub fn local(rate: f64, burst: u32) -> RateLimit {
        RateLimit::with_clock(rate, burst, None)
    }

    /// Like [`RateLimit::local`], reading the time from `now` (time since any fixed origin) instead
    /// of the monotonic clock: tests move it to check limits over minutes without waiting.
    #[cfg(any(test, feature = "testing"))]
    pub fn local_with_clock(
        rate: f64,
        burst: u32,
        now: Arc<dyn Fn() -> Duration + Send + Sync>,
    ) -> RateLimit {
        RateLimit::with_clock(rate, burst, Some(now))
    }

    fn with_clock(
        rate: f64,
        burst: u32,
        source: Option<Arc<dyn Fn() -> Duration + Send + Sync>>,
    ) -> RateLimit {
        RateLimit {
            default: Quota::new(rate, burst),
            local: Arc::new(Local {
                clock: LimitClock {
                    origin: Instant::now(),
                    source,
                },
                limiters: Mutex::new(HashMap::new()),
                checks: AtomicU64::new(0),
            }),
            redis: None,
        }
    }

    /// The same limit shared through Redis at `url` (e.g. `redis://127.0.0.1:6379`).
    pub async fn redis(url: &str, rate: f64, burst: u32) -> Result<RateLimit, String> {
        let mut me = RateLimit::local(rate, burst);
        me.redis = Some(connect(url).await?);
        Ok(me)
    }

    /// The Redis connection of a shared limit (the brute-force guard shares it).
    pub fn redis_connection(&self) -> Option<&redis::aio::ConnectionManager> {
        self.redis.as_ref()
    }

    /// The default quota.
    pub fn default_quota(&self) -> Quota {
        self.default
    }

    /// Keys the local state currently tracks (idle ones go at the next sweep).
    #[cfg(test)]
    pub fn tracked_keys(&self) -> usize {
        self.local.all().iter().map(|l| l.len()).sum()
    }

    /// Drops the local state of keys whose bucket is full again.
    pub fn sweep(&self) {
        for l in self.local.all() {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }

    /// Whether the limit is shared across processes.
    pub fn is_shared(&self) -> bool {
        self.redis.is_some()
    }

    /// Counts one request for `key` against the default quota.
    pub async fn check(&self, key: &str) -> Decision {
        self.check_quota(key, self.default).await
    }

    /// Counts one request for `key` against `quota` (a key should always be checked with the
    /// same quota; after a change the local state of the key starts afresh, Redis keeps it).
    pub async fn check_quota(&self, key: &str, quota: Quota) -> Decision {
        if !quota.is_limited() {
            return quota.unlimited();
        }
        if let Some(conn) = &self.redis {
            match redis_check(conn, key, quota).await {
                Ok(d) => return d,
                Err(e) => {
                    tracing::warn!(error = %e, "shared rate limit unavailable; limiting in this process")
                }
            }
        }
        if self.local.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep();
        }
        let limiter = self.local.limiter(quota);
        let key = key.to_string();
        match limiter.check_key(&key) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let missing = quota.burst.saturating_sub(remaining);
                Decision {
                    allowed: true,
                    limit: quota.burst,
                    remaining,
                    reset_secs: (f64::from(missing) / quota.rate_per_second).ceil() as u64,
                    retry_after_secs: 0,
                }
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.local.clock.now());
                Decision {
                    allowed: false,
                    limit: quota.burst,
                    remaining: 0,
                    reset_secs: (f64::from(quota.burst) / quota.rate_per_second).ceil() as u64,
                    retry_after_secs: wait.as_secs_f64().ceil().max(1.0) as u64,
                }
            }
        }
    }
}

/// A Redis connection with short timeouts (a slow Redis must not stall requests).
pub(crate) async fn connect(url: &str) -> Result<redis::aio::ConnectionManager, String> {
    let client = redis::Client::open(url).map_err(|e| format!("bad Redis URL: {e}"))?;
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_secs(2)))
        .set_response_timeout(Some(Duration::from_millis(500)))
        .set_number_of_retries(1);
    redis::aio::ConnectionManager::new_with_config(client, config)
        .await
        .map_err(|e| format!("cannot reach Redis: {e}"))
}

async fn redis_check(
    conn: &redis::aio::ConnectionManager,
    key: &str,
    quota: Quota,
) -> Result<Decision, redis::RedisError> {
    let mut conn = conn.clone();
    let interval_us = (1e6 / quota.rate_per_second).round().max(1.0) as i64;
    let (allowed, remaining, reset_us, retry_us): (i64, i64, i64, i64) = redis::Script::new(GCRA)
        .key(format!("gridprint:rl:{key}"))
        .arg(interval_us)
        .arg(quota.burst)
        .invoke_async(&mut conn)
        .await?;
    Ok(Decision {
        allowed: allowed == 1,
        limit: quota.burst,
        remaining: remaining.clamp(0, i64::from(quota.burst)) as u32,
        reset_secs: (reset_us.max(0) as u64).div_ceil(1_000_000),
        retry_after_secs: if allowed == 1 {
            0
        } else {
            (retry_us.max(1) as u64).div_ceil(1_000_000).max(1)
        },
    })
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
