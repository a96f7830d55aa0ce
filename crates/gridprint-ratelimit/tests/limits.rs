//! The limiter allows the burst, then the sustained rate; the Redis backend shares one budget between
//! limiters (replicas). Uses Redis at `GRIDPRINT_TEST_REDIS_URL` (default `redis://127.0.0.1:6379`), or
//! a throwaway `redis-server` when none answers there; without either the shared test fails, never skips.

use gridprint_ratelimit::RateLimit;
use std::time::{Duration, Instant};

#[tokio::test]
async fn local_allows_the_burst_then_refuses_with_retry_after() {
    let rl = RateLimit::local(2.0, 5);
    for i in 0..5 {
        let d = rl.check("t").await;
        assert!(d.allowed, "request {i}");
        assert_eq!(d.remaining, 4 - i);
    }
    let d = rl.check("t").await;
    assert!(!d.allowed);
    assert!(d.retry_after_secs >= 1);
    assert!(rl.check("other").await.allowed, "keys are independent");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(rl.check("t").await.allowed, "refilled at 2/s");
}

#[tokio::test]
async fn disabled_with_zero_rate() {
    let rl = RateLimit::local(0.0, 1);
    for _ in 0..100 {
        assert!(rl.check("t").await.allowed);
    }
}

fn redis_url() -> String {
    gridprint_testsvc::redis_url()
}

#[tokio::test]
async fn redis_limit_is_shared_between_replicas() {
    let key = format!("test-{}-{:?}", std::process::id(), Instant::now());
    let a = RateLimit::redis(&redis_url(), 10.0, 20)
        .await
        .expect("Redis is required for this test");
    let b = RateLimit::redis(&redis_url(), 10.0, 20).await.unwrap();
    assert!(a.is_shared());
    let start = Instant::now();
    let mut allowed = 0;
    for i in 0..60 {
        let rl = if i % 2 == 0 { &a } else { &b };
        if rl.check(&key).await.allowed {
            allowed += 1;
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    // Burst 20 plus at most rate × elapsed more, counted across both limiters together.
    let max = 20.0 + 10.0 * elapsed + 1.0;
    assert!(
        allowed >= 20 && f64::from(allowed) <= max,
        "allowed {allowed} in {elapsed:.2} s (max {max:.1})"
    );
    let refused = a.check(&key).await;
    if !refused.allowed {
        assert!(refused.retry_after_secs >= 1);
    }
}
