//! The tests' PostgreSQL and Redis: whatever answers at the configured URLs, else throwaway servers
//! this process starts and that stop when it exits.

use gridprint_testsvc::{POSTGRES_ENV, REDIS_ENV, REDIS_MISSING, answers, postgres_url, redis_url};
use std::process::Command;
use std::time::{Duration, Instant};

/// Connects to both servers and prints their URLs (the other tests run this one in a child).
#[test]
fn services_answer() {
    let pg = postgres_url();
    let mut c = postgres::Client::connect(&pg, postgres::NoTls).expect("PostgreSQL answers");
    let one: i32 = c.query_one("SELECT 1", &[]).unwrap().get(0);
    assert_eq!(one, 1);
    println!("postgres={pg}");
    let r = redis_url();
    let mut conn = redis::Client::open(r.as_str())
        .unwrap()
        .get_connection()
        .expect("Redis answers");
    let pong: String = redis::cmd("PING").query(&mut conn).unwrap();
    assert_eq!(pong, "PONG");
    println!("redis={r}");
}

/// Only Redis (run in a child without `redis-server` on PATH).
#[test]
fn redis_answers() {
    let r = redis_url();
    assert!(answers(&r, 6379), "{r}");
}

fn dead_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn child(test: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", test, "--nocapture", "--test-threads=1"]);
    c
}

#[test]
fn dead_urls_start_throwaway_servers_that_stop_with_the_process() {
    let dead = dead_port();
    let out = child("services_answer")
        .env(
            POSTGRES_ENV,
            format!("postgres://postgres@127.0.0.1:{dead}/postgres"),
        )
        .env(REDIS_ENV, format!("redis://127.0.0.1:{dead}"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.split_once(&format!("{key}=")).map(|(_, u)| u.trim()))
            .unwrap_or_else(|| panic!("no {key}= line in {stdout}"))
            .to_string()
    };
    let (pg, redis) = (url("postgres"), url("redis"));
    assert!(!pg.contains(&format!(":{dead}/")), "{pg}");
    assert!(!redis.ends_with(&format!(":{dead}")), "{redis}");
    // The child has exited: its watchdogs stop both servers.
    let started = Instant::now();
    while answers(&pg, 5432) || answers(&redis, 6379) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "throwaway servers still answer 30 s after their process exited: {pg} {redis}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn without_redis_server_installed_the_test_fails_with_one_line_naming_the_package() {
    let dead = dead_port();
    let empty = tempfile::tempdir().unwrap();
    let out = child("redis_answers")
        .env(REDIS_ENV, format!("redis://127.0.0.1:{dead}"))
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.lines().any(|l| l == REDIS_MISSING),
        "expected the line {REDIS_MISSING:?} in {stderr}"
    );
}
