//! The brute-force guard (its counters and the slow lane's pace) and the account limits shared
//! through Redis, as two replicas see them:
//! two guards (two limiters) on one Redis: the one at `GRIDPRINT_TEST_REDIS_URL` (default
//! `redis://127.0.0.1:6379`), or a throwaway server started by `gridprint-testsvc` when none answers
//! there; it fails, never skips, when neither is possible.

use gridprint_ratelimit::{Admission, AttemptGuard, AttemptPolicy, Quota, RateLimit, Subject};
use std::time::Duration;

fn url() -> String {
    gridprint_testsvc::redis_url()
}

fn unique(name: &str) -> String {
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{name}-{n}@example.org")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_parallel_failures_over_two_replicas_admit_at_most_ten() {
    let policy = AttemptPolicy::default();
    let a = AttemptGuard::redis(&url(), policy).await.unwrap();
    let b = AttemptGuard::redis(&url(), policy).await.unwrap();
    let subject = Subject {
        email: Some(unique("pair")),
        address: "203.0.113.5".into(),
    };
    let tasks: Vec<_> = (0..60)
        .map(|i| {
            let g = if i % 2 == 0 { a.clone() } else { b.clone() };
            let s = subject.clone();
            tokio::spawn(async move {
                match g.admit(&s, 0).await {
                    Admission::Admitted(t) => {
                        // A verification takes a while; the attempt fails.
                        tokio::time::sleep(Duration::from_millis(5)).await;
                        t.failed();
                        true
                    }
                    Admission::Refused { .. } => false,
                }
            })
        })
        .collect();
    let started = std::time::Instant::now();
    let mut admitted = 0;
    for t in tasks {
        admitted += usize::from(t.await.unwrap());
    }
    assert_eq!(admitted, 10, "admitted over both replicas");
    // Refused attempts give their turn back at once: nobody waits for a lease to expire.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn two_replicas_share_an_account_budget_with_its_own_quota() {
    let a = RateLimit::redis(&url(), 0.0, 1).await.unwrap();
    let b = RateLimit::redis(&url(), 0.0, 1).await.unwrap();
    let key = format!("account:{}", unique("tier"));
    let tier = Quota::new(1.0, 6);
    let mut allowed = 0;
    for i in 0..12 {
        let l = if i % 2 == 0 { &a } else { &b };
        allowed += usize::from(l.check_quota(&key, tier).await.allowed);
    }
    assert!((6..=7).contains(&allowed), "{allowed} allowed (burst 6)");
}

/// Issue #28 item 6 across replicas: past the per-email limit, the slow lane's pace is shared
/// through Redis, so two replicas together verify one attempt per interval, not one each.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_share_the_slow_lane_of_an_email() {
    let policy = AttemptPolicy {
        per_pair: 100,
        per_email: 5,
        per_address: 1000,
        window: Duration::from_secs(60),
        lockout: Duration::from_secs(60),
        max_wait: Duration::from_millis(200),
        slow_interval: Duration::from_millis(500),
    };
    let a = AttemptGuard::redis(&url(), policy).await.unwrap();
    let b = AttemptGuard::redis(&url(), policy).await.unwrap();
    let email = unique("slow");
    let from = |i: usize| Subject {
        email: Some(email.clone()),
        address: format!("203.0.113.{i}"),
    };
    for i in 0..5 {
        match a.admit(&from(i), 0).await {
            Admission::Admitted(t) => t.failed(),
            Admission::Refused { reason, .. } => panic!("failure {i} refused: {reason:?}"),
        }
    }
    // Twenty attempts from twenty addresses, half on each replica, each waiting at most
    // max_wait + one interval (700 ms): slots at 0 and 500 ms → 2 verified (4 if each replica
    // paced on its own).
    let tasks: Vec<_> = (10..30)
        .map(|i| {
            let g = if i % 2 == 0 { a.clone() } else { b.clone() };
            let s = from(i);
            tokio::spawn(async move {
                match g.admit(&s, 0).await {
                    Admission::Admitted(t) => {
                        t.failed();
                        true
                    }
                    Admission::Refused { .. } => false,
                }
            })
        })
        .collect();
    let mut admitted = 0;
    for t in tasks {
        admitted += usize::from(t.await.unwrap());
    }
    assert!(
        (1..=2).contains(&admitted),
        "{admitted} verified over both replicas in 700 ms"
    );
}
