//! The brute-force guard: credential attempts are counted when they are **admitted**, before the
//! password is verified, so parallel guesses cannot outrun the count. Three counters share one policy ([`AttemptPolicy`]): per (email, client address) pair, per email
//! over all addresses, and per address over all emails. An attempt is admitted only if neither its
//! pair nor its address is locked; admitting it adds one to each counter, and the counter that
//! reaches its limit locks its key for [`AttemptPolicy::lockout`]. A successful attempt is refunded
//! afterwards (and clears its pair's count), so only failures — and attempts still being verified —
//! count. At most one attempt per pair is admitted at a time: the others wait their turn up to
//! [`AttemptPolicy::max_wait`], then are refused.
//!
//! An email is never locked outright, so guesses from many addresses cannot lock its owner out: past
//! its limit, its attempts go through a **slow lane**, one every [`AttemptPolicy::slow_interval`]
//! (the long-run pace of the per-email limit), and the next one goes to the waiting address with the
//! fewest failures for that email (then over all emails, then the earliest), so the owner from a
//! fresh address is verified within one interval while guessers keep to the pace (a waiter not
//! chosen within `max_wait` plus one interval is refused).
//!
//! With Redis (a shared [`RateLimit`](crate::RateLimit)) the counters, locks and lease live there,
//! updated by atomic scripts, so every replica sees the same counts (unreachable: this process
//! counts alone, and logs it). Local times come from the caller's clock, so tests can move them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Limits of the brute-force guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttemptPolicy {
    /// Failures per (email, client address) within `window` before that pair is locked.
    pub per_pair: u32,
    /// Failures per email from all addresses together before the email is locked.
    pub per_email: u32,
    /// Failures per client address over all emails before the address is locked.
    pub per_address: u32,
    /// How long failures are remembered (counted from the first one of a key).
    pub window: Duration,
    /// How long a key stays locked once its limit is reached.
    pub lockout: Duration,
    /// How long an attempt waits for the one in flight for its pair before it is refused.
    pub max_wait: Duration,
    /// Past the per-email limit, one attempt of that email is verified per this interval (the
    /// slow lane; see the module documentation).
    pub slow_interval: Duration,
}

impl Default for AttemptPolicy {
    fn default() -> AttemptPolicy {
        AttemptPolicy {
            per_pair: 10,
            per_email: 100,
            per_address: 100,
            window: Duration::from_secs(15 * 60),
            lockout: Duration::from_secs(15 * 60),
            max_wait: Duration::from_secs(10),
            slow_interval: Duration::from_secs(9),
        }
    }
}

/// Who makes an attempt. The email is `None` when the caller sent no valid email (only the address
/// is counted then).
#[derive(Clone, PartialEq, Eq)]
pub struct Subject {
    pub email: Option<String>,
    pub address: String,
}

impl std::fmt::Debug for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subject")
            .field("email", &self.email.as_ref().map(|_| "<redacted>"))
            .field("address", &self.address)
            .finish()
    }
}

impl Subject {
    /// The counter keys: pair, email, address (absent email: the pair and email counters are not
    /// used).
    fn keys(&self) -> [Option<String>; 3] {
        [
            self.email
                .as_ref()
                .map(|e| format!("pair:{e}|{}", self.address)),
            self.email.as_ref().map(|e| format!("email:{e}")),
            Some(format!("addr:{}", self.address)),
        ]
    }
}

/// Why an attempt was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A counter is locked: too many failures.
    Locked,
    /// Another attempt for the same pair did not finish within `max_wait`.
    Busy,
    /// The email is past its limit and the slow lane chose other addresses within the wait.
    Slowed,
}

/// The answer to [`AttemptGuard::admit`].
#[derive(Debug)]
pub enum Admission {
    /// Go ahead and verify; report the outcome on the ticket.
    Admitted(Box<Ticket>),
    /// Do not verify; answer 429 with `Retry-After`.
    Refused {
        reason: Refusal,
        retry_after_secs: u64,
    },
}

#[derive(Debug, Clone, Copy, Default)]
struct Counter {
    count: u32,
    window_end_ms: i64,
    locked_until_ms: i64,
}

#[derive(Default)]
struct LocalState {
    counters: Mutex<HashMap<String, Counter>>,
    busy: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    lanes: Mutex<HashMap<String, Lane>>,
}

/// The slow lane of one email past its limit: when its next verification may start and who waits.
struct Lane {
    next: tokio::time::Instant,
    /// (id, rank): the lowest rank goes next.
    waiters: Vec<(u64, Rank)>,
    notify: Arc<tokio::sync::Notify>,
}

/// The order of the slow lane: failures of the pair, failures of the address, arrival.
type Rank = (u32, u32, u64);

/// What counting an attempt found.
enum Count {
    /// Counted; bits of the locks this attempt set.
    Counted(u8),
    /// The pair or the address is locked for this many ms more.
    Locked(i64),
    /// The email is past its limit: the slow lane decides (failures of the pair and the address).
    Slow(u32, u32),
}

/// Above this many local counters, expired ones are swept before inserting.
const SWEEP_ABOVE: usize = 10_000;

/// The brute-force guard (see the module documentation).
#[derive(Clone)]
pub struct AttemptGuard {
    policy: AttemptPolicy,
    local: Arc<LocalState>,
    redis: Option<redis::aio::ConnectionManager>,
}

impl std::fmt::Debug for AttemptGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttemptGuard")
            .field("policy", &self.policy)
            .field("shared", &self.redis.is_some())
            .finish()
    }
}

/// An admitted attempt. Report its outcome with [`Ticket::succeeded`], [`Ticket::not_counted`] or
/// [`Ticket::failed`]; dropping it unreported counts it as a failure. It holds the pair's
/// one-at-a-time turn until then.
pub struct Ticket {
    guard: AttemptGuard,
    keys: [Option<String>; 3],
    /// Which counters this attempt locked (bit i: key i).
    locked: u8,
    now_ms: i64,
    turn: Option<Turn>,
}

impl std::fmt::Debug for Ticket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ticket").finish_non_exhaustive()
    }
}

enum Turn {
    Local(String, tokio::sync::OwnedMutexGuard<()>),
    Shared(String, String, tokio::sync::OwnedMutexGuard<()>),
}

/// Admission in Redis. KEYS: pair count, pair lock, email count, email lock, address count,
/// address lock. ARGV: window ms, lockout ms, the three limits (0: counter unused), then 1 when the
/// slow lane admitted the attempt (the email's lock is then passed). Returns {1, bits of the locks
/// set}, {0, ms until the longest lock of the pair or address ends}, or {2, pair count, address
/// count} when the email is locked (the slow lane decides).
const ADMIT: &str = r#"
local window = tonumber(ARGV[1])
local lockout = tonumber(ARGV[2])
local laned = ARGV[6] == '1'
local wait = 0
local slow = false
for i = 0, 2 do
  local limit = tonumber(ARGV[3 + i])
  if limit > 0 then
    local ttl = redis.call('PTTL', KEYS[2 * i + 2])
    if ttl > 0 then
      if i == 1 then
        if not laned then slow = true end
      elseif ttl > wait then wait = ttl end
    elseif tonumber(redis.call('GET', KEYS[2 * i + 1]) or '0') >= limit then
      redis.call('DEL', KEYS[2 * i + 1])
    end
  end
end
if wait > 0 then return {0, wait} end
if slow then
  return {2, tonumber(redis.call('GET', KEYS[1]) or '0'), tonumber(redis.call('GET', KEYS[5]) or '0')}
end
local bits = {1, 2, 4}
local set = 0
for i = 0, 2 do
  local limit = tonumber(ARGV[3 + i])
  if limit > 0 then
    local n = redis.call('INCR', KEYS[2 * i + 1])
    if n == 1 then redis.call('PEXPIRE', KEYS[2 * i + 1], window) end
    if n >= limit and redis.call('PTTL', KEYS[2 * i + 2]) <= 0 then
      redis.call('SET', KEYS[2 * i + 2], '1', 'PX', lockout)
      set = set + bits[i + 1]
    end
  end
end
return {1, set}
"#;

/// Refund in Redis (same KEYS). ARGV: bits of the locks the attempt set, 1 to clear the pair, then
/// the three limits.
const REFUND: &str = r#"
local bits = {1, 2, 4}
local set = tonumber(ARGV[1])
for i = 0, 2 do
  if tonumber(ARGV[3 + i]) > 0 then
    if tonumber(redis.call('GET', KEYS[2 * i + 1]) or '0') > 0 then
      redis.call('DECR', KEYS[2 * i + 1])
    end
    if math.floor(set / bits[i + 1]) % 2 == 1 then redis.call('DEL', KEYS[2 * i + 2]) end
  end
end
if ARGV[2] == '1' and tonumber(ARGV[3]) > 0 then
  redis.call('DEL', KEYS[1], KEYS[2])
end
return 1
"#;

/// Releases a lease only if it is still ours.
const RELEASE: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"#;

fn redis_keys(keys: &[Option<String>; 3]) -> Vec<String> {
    let mut out = Vec::with_capacity(6);
    for (i, k) in keys.iter().enumerate() {
        // Unused counters still need key names (Redis scripts take a fixed KEYS list).
        let k = k.clone().unwrap_or_else(|| format!("unused:{i}"));
        out.push(format!("gridprint:bf:n:{k}"));
        out.push(format!("gridprint:bf:lock:{k}"));
    }
    out
}

fn secs_ceil(ms: i64) -> u64 {
    (ms.max(1) as u64).div_ceil(1000).max(1)
}

impl AttemptGuard {
    /// A guard counting in this process only.
    pub fn local(policy: AttemptPolicy) -> AttemptGuard {
        AttemptGuard {
            policy,
            local: Arc::new(LocalState::default()),
            redis: None,
        }
    }

    /// A guard sharing its counts through the Redis connection of `limit`, if it has one (per
    /// process otherwise).
    pub fn sharing(limit: &crate::RateLimit, policy: AttemptPolicy) -> AttemptGuard {
        AttemptGuard {
            redis: limit.redis_connection().cloned(),
            ..AttemptGuard::local(policy)
        }
    }

    /// A guard counting in Redis at `url`.
    pub async fn redis(url: &str, policy: AttemptPolicy) -> Result<AttemptGuard, String> {
        Ok(AttemptGuard {
            redis: Some(crate::connect(url).await?),
            ..AttemptGuard::local(policy)
        })
    }

    /// The policy.
    pub fn policy(&self) -> &AttemptPolicy {
        &self.policy
    }

    /// Whether the counts are shared through Redis.
    pub fn is_shared(&self) -> bool {
        self.redis.is_some()
    }

    fn limits(&self, keys: &[Option<String>; 3]) -> [u32; 3] {
        let p = &self.policy;
        let l = [p.per_pair, p.per_email, p.per_address];
        std::array::from_fn(|i| if keys[i].is_some() { l[i].max(1) } else { 0 })
    }

    /// Waits for the pair's turn (at most `max_wait`), then counts the attempt if neither its pair
    /// nor its address is locked; an email past its limit waits for its slow lane first.
    /// `now_ms`: the caller's clock in milliseconds (used by the local state only).
    pub async fn admit(&self, subject: &Subject, now_ms: i64) -> Admission {
        let keys = subject.keys();
        let turn_key = keys[0]
            .clone()
            .unwrap_or_else(|| keys[2].clone().unwrap_or_default());
        let turn = match self.take_turn(&turn_key).await {
            Some(t) => t,
            None => {
                return Admission::Refused {
                    reason: Refusal::Busy,
                    retry_after_secs: 1,
                };
            }
        };
        let mut counted = self.count(&keys, now_ms, false).await;
        if let Count::Slow(pair, address) = counted {
            let email = keys[1].clone().unwrap_or_default();
            counted = if self.slow_lane(&email, (pair, address)).await {
                self.count(&keys, now_ms, true).await
            } else {
                Count::Slow(pair, address)
            };
        }
        let refusal = match counted {
            Count::Counted(locked) => {
                return Admission::Admitted(Box::new(Ticket {
                    guard: self.clone(),
                    keys,
                    locked,
                    now_ms,
                    turn: Some(turn),
                }));
            }
            Count::Locked(wait_ms) => Admission::Refused {
                reason: Refusal::Locked,
                retry_after_secs: secs_ceil(wait_ms),
            },
            Count::Slow(..) => Admission::Refused {
                reason: Refusal::Slowed,
                retry_after_secs: secs_ceil(self.policy.slow_interval.as_millis() as i64),
            },
        };
        if let Some(release) = Ticket::release_turn(self, Some(turn)) {
            release.await;
        }
        refusal
    }

    /// Counts an attempt in Redis, else in this process (`laned`: the slow lane admitted it).
    async fn count(&self, keys: &[Option<String>; 3], now_ms: i64, laned: bool) -> Count {
        let limits = self.limits(keys);
        match &self.redis {
            Some(conn) => match self.redis_admit(conn, keys, limits, laned).await {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!(error = %e, "shared brute-force counters unavailable; counting in this process");
                    self.local_admit(keys, limits, now_ms, laned)
                }
            },
            None => self.local_admit(keys, limits, now_ms, laned),
        }
    }

    /// Waits in the slow lane of `email` (the counter key) with `failures` (of the pair, of the
    /// address) until chosen (`true`) or `max_wait` plus one interval passed (`false`). With Redis,
    /// the chosen waiter of each process also takes the email's shared slot, so all replicas
    /// together keep the pace.
    async fn slow_lane(&self, email: &str, failures: (u32, u32)) -> bool {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let interval = self.policy.slow_interval;
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let rank = (failures.0, failures.1, id);
        let deadline = tokio::time::Instant::now() + self.policy.max_wait + interval;
        let notify = {
            let mut lanes = self.local.lanes.lock().unwrap_or_else(|e| e.into_inner());
            let now = tokio::time::Instant::now();
            if lanes.len() > SWEEP_ABOVE {
                lanes.retain(|_, l| !l.waiters.is_empty() || l.next > now);
            }
            let lane = lanes.entry(email.to_string()).or_insert_with(|| Lane {
                next: now,
                waiters: Vec::new(),
                notify: Arc::new(tokio::sync::Notify::new()),
            });
            lane.waiters.push((id, rank));
            lane.notify.clone()
        };
        // Leaves the lane however this future ends (chosen, timed out, or dropped).
        let _seat = Seat {
            guard: self,
            email,
            id,
        };
        loop {
            let notified = notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let now = tokio::time::Instant::now();
            let (chosen, wake) = {
                let mut lanes = self.local.lanes.lock().unwrap_or_else(|e| e.into_inner());
                let Some(lane) = lanes.get_mut(email) else {
                    return false;
                };
                let best = lane.waiters.iter().min_by_key(|w| w.1).map(|w| w.0) == Some(id);
                let chosen = best && now >= lane.next;
                if chosen {
                    lane.next = now + interval;
                }
                (
                    chosen,
                    if best {
                        lane.next.min(deadline)
                    } else {
                        deadline
                    },
                )
            };
            if chosen {
                match self.shared_slot(email, interval).await {
                    None => return true,
                    Some(wait) => {
                        let mut lanes = self.local.lanes.lock().unwrap_or_else(|e| e.into_inner());
                        if let Some(lane) = lanes.get_mut(email) {
                            lane.next = tokio::time::Instant::now() + wait;
                        }
                        continue;
                    }
                }
            }
            if now >= deadline {
                return false;
            }
            tokio::select! {
                _ = &mut notified => {}
                _ = tokio::time::sleep_until(wake) => {}
            }
        }
    }

    /// Takes the email's slow-lane slot shared through Redis: `None` when taken (or not shared),
    /// else how long until it is free.
    async fn shared_slot(&self, email: &str, interval: Duration) -> Option<Duration> {
        let conn = self.redis.as_ref()?;
        let mut c = conn.clone();
        let name = format!("gridprint:bf:slow:{email}");
        let got: Result<Option<String>, _> = redis::cmd("SET")
            .arg(&name)
            .arg("1")
            .arg("NX")
            .arg("PX")
            .arg(interval.as_millis().max(1) as u64)
            .query_async(&mut c)
            .await;
        match got {
            Ok(Some(_)) => None,
            Ok(None) => {
                let ttl: i64 = redis::cmd("PTTL")
                    .arg(&name)
                    .query_async(&mut c)
                    .await
                    .unwrap_or(0);
                Some(Duration::from_millis(ttl.clamp(1, 60_000) as u64))
            }
            Err(e) => {
                tracing::warn!(error = %e, "shared slow lane unavailable; pacing in this process only");
                None
            }
        }
    }

    /// Counts an attempt in this process's state (see [`Count`]).
    fn local_admit(
        &self,
        keys: &[Option<String>; 3],
        limits: [u32; 3],
        now_ms: i64,
        laned: bool,
    ) -> Count {
        let window = self.policy.window.as_millis() as i64;
        let lockout = self.policy.lockout.as_millis() as i64;
        let mut map = self
            .local
            .counters
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if map.len() > SWEEP_ABOVE {
            map.retain(|_, c| c.window_end_ms > now_ms || c.locked_until_ms > now_ms);
        }
        let mut wait = 0;
        let mut slow = false;
        let mut seen = [0u32; 3];
        for (i, (key, limit)) in keys.iter().zip(limits).enumerate() {
            let Some(key) = key else { continue };
            let c = map.entry(key.clone()).or_default();
            if c.window_end_ms <= now_ms {
                c.count = 0;
            }
            if c.locked_until_ms > now_ms {
                if i == 1 {
                    slow |= !laned;
                } else {
                    wait = wait.max(c.locked_until_ms - now_ms);
                }
            } else if c.count >= limit {
                c.count = 0; // its lockout is over
            }
            seen[i] = c.count;
        }
        if wait > 0 {
            return Count::Locked(wait);
        }
        if slow {
            return Count::Slow(seen[0], seen[2]);
        }
        let mut locked = 0u8;
        for (i, (key, limit)) in keys.iter().zip(limits).enumerate() {
            let Some(key) = key else { continue };
            let c = map.entry(key.clone()).or_default();
            if c.count == 0 {
                c.window_end_ms = now_ms + window;
            }
            c.count += 1;
            if c.count >= limit && c.locked_until_ms <= now_ms {
                c.locked_until_ms = now_ms + lockout;
                locked |= 1 << i;
            }
        }
        Count::Counted(locked)
    }

    async fn redis_admit(
        &self,
        conn: &redis::aio::ConnectionManager,
        keys: &[Option<String>; 3],
        limits: [u32; 3],
        laned: bool,
    ) -> Result<Count, redis::RedisError> {
        let mut conn = conn.clone();
        let script = redis::Script::new(ADMIT);
        let mut inv = script.prepare_invoke();
        for k in redis_keys(keys) {
            inv.key(k);
        }
        inv.arg(self.policy.window.as_millis() as u64)
            .arg(self.policy.lockout.as_millis() as u64);
        for l in limits {
            inv.arg(l);
        }
        inv.arg(if laned { "1" } else { "0" });
        let reply: Vec<i64> = inv.invoke_async(&mut conn).await?;
        let at = |i: usize| reply.get(i).copied().unwrap_or(0);
        let failures = |i: usize| u32::try_from(at(i).max(0)).unwrap_or(u32::MAX);
        Ok(match at(0) {
            1 => Count::Counted(at(1) as u8),
            2 => Count::Slow(failures(1), failures(2)),
            _ => Count::Locked(at(1)),
        })
    }

    /// The pair's one-at-a-time turn: a local mutex (waiters queue on it), plus a Redis lease when
    /// shared. `None` when it did not come within `max_wait`.
    async fn take_turn(&self, key: &str) -> Option<Turn> {
        let deadline = tokio::time::Instant::now() + self.policy.max_wait;
        let mutex = {
            let mut busy = self.local.busy.lock().unwrap_or_else(|e| e.into_inner());
            busy.entry(key.to_string()).or_default().clone()
        };
        let local = match tokio::time::timeout_at(deadline, mutex.lock_owned()).await {
            Ok(g) => g,
            Err(_) => {
                self.forget_turn(key);
                return None;
            }
        };
        let Some(conn) = &self.redis else {
            return Some(Turn::Local(key.to_string(), local));
        };
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let lease = format!(
            "{}:{}:{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        );
        let lease_ms = (self.policy.max_wait + Duration::from_secs(30)).as_millis() as u64;
        let name = format!("gridprint:bf:turn:{key}");
        loop {
            let mut c = conn.clone();
            let got: Result<Option<String>, _> = redis::cmd("SET")
                .arg(&name)
                .arg(&lease)
                .arg("NX")
                .arg("PX")
                .arg(lease_ms)
                .query_async(&mut c)
                .await;
            match got {
                Ok(Some(_)) => return Some(Turn::Shared(name, lease, local)),
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "shared attempt lease unavailable; one at a time in this process only");
                    return Some(Turn::Local(key.to_string(), local));
                }
            }
            if tokio::time::Instant::now() >= deadline {
                drop(local);
                self.forget_turn(key);
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Leaves the slow lane of `email` and wakes the others (the next best may go).
    fn leave_lane(&self, email: &str, id: u64) {
        let mut lanes = self.local.lanes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(lane) = lanes.get_mut(email) {
            lane.waiters.retain(|w| w.0 != id);
            lane.notify.notify_waiters();
            if lane.waiters.is_empty() && lane.next <= tokio::time::Instant::now() {
                lanes.remove(email);
            }
        }
    }

    /// Drops the pair's local mutex when nobody holds or waits for it.
    fn forget_turn(&self, key: &str) {
        let mut busy = self.local.busy.lock().unwrap_or_else(|e| e.into_inner());
        if busy.get(key).is_some_and(|m| Arc::strong_count(m) == 1) {
            busy.remove(key);
        }
    }

    fn local_refund(&self, keys: &[Option<String>; 3], locked: u8, clear_pair: bool, now_ms: i64) {
        let mut map = self
            .local
            .counters
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for (i, key) in keys.iter().enumerate() {
            let Some(key) = key else { continue };
            if let Some(c) = map.get_mut(key) {
                if c.window_end_ms > now_ms {
                    c.count = c.count.saturating_sub(1);
                }
                if locked & (1 << i) != 0 {
                    c.locked_until_ms = 0;
                }
                if i == 0 && clear_pair {
                    map.remove(key);
                }
            }
        }
    }
}

/// A place in a slow lane, left when dropped.
struct Seat<'a> {
    guard: &'a AttemptGuard,
    email: &'a str,
    id: u64,
}

impl Drop for Seat<'_> {
    fn drop(&mut self) {
        self.guard.leave_lane(self.email, self.id);
    }
}

impl Ticket {
    /// The credentials were right: the attempt is not a failure, and the pair's failures are
    /// forgotten.
    pub async fn succeeded(self) {
        self.refund(true).await;
    }

    /// The attempt was neither a success nor a failure (e.g. registering an already registered
    /// email): it is not counted.
    pub async fn not_counted(self) {
        self.refund(false).await;
    }

    /// The attempt failed: it stays counted (as it was at admission).
    pub fn failed(self) {
        drop(self);
    }

    async fn refund(mut self, clear_pair: bool) {
        let limits = self.guard.limits(&self.keys);
        let guard = self.guard.clone();
        let mut done = false;
        if let Some(conn) = &guard.redis {
            let mut conn = conn.clone();
            let script = redis::Script::new(REFUND);
            let mut inv = script.prepare_invoke();
            for k in redis_keys(&self.keys) {
                inv.key(k);
            }
            inv.arg(self.locked).arg(if clear_pair { "1" } else { "0" });
            for l in limits {
                inv.arg(l);
            }
            match inv.invoke_async::<i64>(&mut conn).await {
                Ok(_) => done = true,
                Err(e) => tracing::warn!(error = %e, "shared brute-force counters unavailable"),
            }
        }
        if !done {
            guard.local_refund(&self.keys, self.locked, clear_pair, self.now_ms);
        }
        let turn = self.turn.take();
        if let Some(f) = Ticket::release_turn(&guard, turn) {
            f.await;
        }
    }

    /// Gives the pair's turn back; returns the Redis release to await (or spawn), if any.
    fn release_turn(
        guard: &AttemptGuard,
        turn: Option<Turn>,
    ) -> Option<impl Future<Output = ()> + Send + 'static> {
        match turn? {
            Turn::Local(key, local) => {
                drop(local);
                guard.forget_turn(&key);
                None
            }
            Turn::Shared(name, lease, local) => {
                let conn = guard.redis.clone()?;
                let guard = guard.clone();
                Some(async move {
                    let mut conn = conn;
                    let r: Result<i64, _> = redis::Script::new(RELEASE)
                        .key(&name)
                        .arg(&lease)
                        .invoke_async(&mut conn)
                        .await;
                    if let Err(e) = r {
                        tracing::debug!(error = %e, "releasing an attempt lease failed; it expires by itself");
                    }
                    drop(local);
                    let key = name.trim_start_matches("gridprint:bf:turn:").to_string();
                    guard.forget_turn(&key);
                })
            }
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let turn = self.turn.take();
        if let Some(f) = Ticket::release_turn(&self.guard, turn) {
            match tokio::runtime::Handle::try_current() {
                Ok(h) => {
                    h.spawn(f);
                }
                Err(_) => {
                    tracing::debug!("no runtime to release an attempt lease; it expires by itself")
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(email: &str, addr: &str) -> Subject {
        Subject {
            email: Some(email.into()),
            address: addr.into(),
        }
    }

    fn policy() -> AttemptPolicy {
        AttemptPolicy {
            per_pair: 3,
            per_email: 5,
            per_address: 4,
            window: Duration::from_secs(60),
            lockout: Duration::from_secs(60),
            max_wait: Duration::from_millis(200),
            slow_interval: Duration::from_millis(300),
        }
    }

    async fn admit(g: &AttemptGuard, s: &Subject, now: i64) -> Option<Ticket> {
        match g.admit(s, now).await {
            Admission::Admitted(t) => Some(*t),
            Admission::Refused { .. } => None,
        }
    }

    #[tokio::test]
    async fn failures_lock_the_pair_then_slow_the_email_and_successes_are_refunded() {
        let g = AttemptGuard::local(policy());
        let a = subject("a@x.org", "10.0.0.1");
        for _ in 0..3 {
            admit(&g, &a, 0).await.expect("admitted").failed();
        }
        assert!(admit(&g, &a, 1).await.is_none(), "pair locked after 3");
        // Another address for the same email: two more failures reach the email limit (5).
        let b = subject("a@x.org", "10.0.0.2");
        admit(&g, &b, 2).await.unwrap().failed();
        admit(&g, &b, 2).await.unwrap().failed();
        // The email is past its limit: not locked, paced (the lane's first slot is free).
        admit(&g, &subject("a@x.org", "10.0.0.3"), 3)
            .await
            .expect("an email is never locked outright")
            .failed();
        // After the lockout, admitted again.
        assert!(admit(&g, &a, 61_000).await.is_some());
        // Successes do not count.
        let c = subject("c@x.org", "10.0.0.9");
        for _ in 0..10 {
            admit(&g, &c, 70_000).await.unwrap().succeeded().await;
        }
    }

    /// Issue #28 item 6: past the per-email limit the email is not locked but paced, one
    /// verification per `slow_interval`, and the waiting address with the fewest failures goes next.
    #[tokio::test]
    async fn past_the_email_limit_attempts_are_paced_and_the_fewest_failures_go_first() {
        let g = AttemptGuard::local(AttemptPolicy {
            per_pair: 10,
            per_address: 100,
            ..policy()
        });
        let guesser = subject("a@x.org", "10.0.0.1");
        for _ in 0..5 {
            admit(&g, &guesser, 0).await.expect("admitted").failed();
        }
        // Past the limit (5): the first attempt gets the lane's free slot at once...
        let t0 = std::time::Instant::now();
        admit(&g, &guesser, 1)
            .await
            .expect("the free slot")
            .failed();
        assert!(t0.elapsed() < Duration::from_millis(150));
        // ...then the guesser (6 failures, first in line) and the owner from a fresh address
        // (none) wait for the next slot, 300 ms later: it goes to the owner.
        let owner = subject("a@x.org", "10.0.0.9");
        let (guess, own) = tokio::join!(g.admit(&guesser, 2), async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let started = std::time::Instant::now();
            (g.admit(&owner, 2).await, started.elapsed())
        });
        let (own, waited) = own;
        match own {
            Admission::Admitted(t) => t.succeeded().await,
            Admission::Refused { reason, .. } => panic!("owner refused: {reason:?}"),
        }
        assert!(
            waited >= Duration::from_millis(200) && waited < Duration::from_millis(450),
            "the owner waited for the next slot only: {waited:?}"
        );
        // The guesser's wait (max_wait + one interval) ended before the slot after that.
        match guess {
            Admission::Refused { reason, .. } => assert_eq!(reason, Refusal::Slowed),
            Admission::Admitted(_) => panic!("two verifications within one interval"),
        }
    }

    #[tokio::test]
    async fn one_attempt_per_pair_at_a_time() {
        let g = AttemptGuard::local(policy());
        let a = subject("a@x.org", "10.0.0.1");
        let held = admit(&g, &a, 0).await.unwrap();
        let started = std::time::Instant::now();
        match g.admit(&a, 0).await {
            Admission::Refused { reason, .. } => assert_eq!(reason, Refusal::Busy),
            Admission::Admitted(_) => panic!("a second attempt ran while one was in flight"),
        }
        assert!(started.elapsed() >= Duration::from_millis(200));
        held.succeeded().await;
        assert!(admit(&g, &a, 0).await.is_some());
    }
}
