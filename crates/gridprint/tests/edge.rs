//! The connection cap of the real binary under its file limit: `serve` started with `ulimit -n 320`
//! derives its cap from it (320 less 256 kept for everything else: 64), so hundreds of slow
//! connections never run it out of file descriptors: no `accept failed … Too many open files`
//! line, a client sending a whole request is answered at once, and the refusals are one summary
//! line (docs/reliability.md, "Slow clients").

use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

mod common;
use common::*;

/// The server, killed when the test ends (also when it fails).
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn connect(from: &str, to: std::net::SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(to).await.unwrap()
}

#[tokio::test]
async fn slow_connections_past_the_file_limit_cause_no_accept_errors() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("g.db").display());
    let mut child = std::process::Command::new("sh")
        .args(["-c", r#"ulimit -n 320 && exec "$0" "$@""#])
        .arg(env!("CARGO_BIN_EXE_gridprint"))
        .args(["--database", &url, "serve", "--listen", "127.0.0.1:0"])
        .args(["--check-providers", "false", "--rate-limit-per-second", "0"])
        .args(["--header-read-timeout", "60", "--refusal-log-interval", "1"])
        .env_remove("GRIDPRINT_DATABASE_URL")
        .env_remove("GRIDPRINT_MAX_CONNECTIONS")
        .env("GRIDPRINT_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = stderr_lines(&mut child);
    let _child = KillOnDrop(child);
    let addr: std::net::SocketAddr = wait_listening(&lines, Duration::from_secs(120))
        .expect("serve started")
        .parse()
        .unwrap();
    // 300 slow connections from six addresses (50 each, under the per-address cap of 256).
    let mut slow = Vec::new();
    for a in 2..=7 {
        for _ in 0..50 {
            let mut c = connect(&format!("127.0.0.{a}"), addr).await;
            let _ = c.write_all(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n").await;
            slow.push(c);
        }
    }
    let started = Instant::now();
    let mut prompt = connect("127.0.0.1", addr).await;
    prompt
        .write_all(b"GET /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), prompt.read_to_end(&mut answer))
        .await
        .expect("answered within 10 s")
        .unwrap();
    let took = started.elapsed();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(took < Duration::from_secs(2), "answered after {took:?}");
    // The refusals are summarised at the next tick of the 1 s interval: the log of the next 2.5 s.
    let mut log = Vec::new();
    let deadline = Instant::now() + Duration::from_millis(2500);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) => log.push(line),
            Err(_) => break,
        }
    }
    let log = log.join("\n");
    assert!(
        !log.contains("accept failed") && !log.contains("Too many open files"),
        "{log}"
    );
    let refused: Vec<usize> = log
        .lines()
        .filter(|l| l.contains("connection caps (--max-connections"))
        .map(|l| l.split("refused=").nth(1).unwrap().trim().parse().unwrap())
        .collect();
    assert!(!refused.is_empty() && refused.len() <= 4, "{log}");
    // 300 + 1 connections, 64 seats: 237 slow connections gave their seat to a newer one.
    assert_eq!(refused.iter().sum::<usize>(), 300 + 1 - 64, "{log}");
    drop(slow);
}
