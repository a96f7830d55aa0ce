//! Holding at the edge over real sockets: the server-wide connection cap (slow connections give
//! their seats to clients that send their requests, past the cap nothing more is held) and the
//! request-body deadline (a stalled or endless body is answered 408 and its connection closed).
//! The log side of refusals is `refusal_log.rs`.

use gridprint_api::ApiConfig;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::Instant;

mod common;
use common::*;

/// `gridprint_api::serve` with `config` (and an empty store) on an ephemeral port: its address and
/// the sender that stops it, and its task.
async fn on_a_socket(
    config: ApiConfig,
) -> (
    SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let store: gridprint_store::SharedStore =
        std::sync::Arc::new(gridprint_store_sqlite::SqliteStore::open_in_memory().unwrap());
    let state = gridprint_api::AppState::new(
        store,
        reference(),
        std::sync::Arc::new(gridprint_core::slot::SystemClock),
        config,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(gridprint_api::serve(listener, state, async {
        let _ = stopped.await;
    }));
    (addr, stop, server)
}

async fn connect(from: &str, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(to).await.unwrap()
}

/// Reads until the server closes `s` (at most `within`): what it sent, or `None` if still open.
async fn until_closed(s: &mut TcpStream, within: Duration) -> Option<String> {
    let mut buf = Vec::new();
    match tokio::time::timeout(within, s.read_to_end(&mut buf)).await {
        Ok(_) => Some(String::from_utf8_lossy(&buf).into_owned()),
        Err(_) => None,
    }
}

/// Sixteen slow connections (four client addresses, each at its own cap of four) against a
/// server-wide cap of eight: at most eight are held, the oldest slow ones give way, and a client
/// sending a whole request is answered at once (issue #49: slow connections from 84 addresses took
/// every file descriptor; `accept` failed 214 times and other users waited seconds).
#[tokio::test]
async fn past_the_connection_cap_slow_connections_give_way_to_prompt_clients() {
    const CAP: usize = 8;
    let (addr, stop, server) = on_a_socket(ApiConfig {
        max_connections: CAP,
        max_connections_per_address: 4,
        header_read_timeout: Duration::from_secs(60),
        ..quiet_config()
    })
    .await;
    let mut slow = Vec::new();
    for a in 2..=5 {
        for _ in 0..4 {
            let mut c = connect(&format!("127.0.0.{a}"), addr).await;
            c.write_all(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n")
                .await
                .unwrap();
            slow.push(c);
        }
    }
    let started = Instant::now();
    let mut prompt = connect("127.0.0.1", addr).await;
    prompt
        .write_all(b"GET /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let answer = until_closed(&mut prompt, Duration::from_secs(10))
        .await
        .expect("the prompt client is answered and its connection closed");
    let took = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(took < Duration::from_secs(2), "answered after {took:?}");
    // The prompt client was accepted after all sixteen, so every decision about them is made:
    // eight gave their seats to the next eight, one more to the prompt client.
    let mut tasks = tokio::task::JoinSet::new();
    for mut c in slow {
        tasks.spawn(async move {
            until_closed(&mut c, Duration::from_secs(3))
                .await
                .map(|text| assert!(text.is_empty(), "closed unanswered: {text}"))
                .is_some()
        });
    }
    let closed = tasks
        .join_all()
        .await
        .into_iter()
        .filter(|&closed| closed)
        .count();
    assert_eq!(
        closed,
        16 + 1 - CAP,
        "slow connections closed by the server"
    );
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

/// A request body that stalls, and a chunked body that never ends, are answered 408 once the body
/// deadline has passed, and their connections closed (issue #49: they were held for the 30 s
/// request timeout, then answered 503 with an ERROR line each); a prompt body is still read.
#[tokio::test]
async fn stalled_and_endless_bodies_get_408_at_the_body_deadline() {
    const DEADLINE: Duration = Duration::from_secs(1);
    let (addr, stop, server) = on_a_socket(ApiConfig {
        body_read_timeout: DEADLINE,
        ..quiet_config()
    })
    .await;
    const HEAD: &str =
        "POST /token-request/get_token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
    // Sends `first`, then `more` every 200 ms until the server closes the connection; returns
    // what it answered and when.
    async fn send(addr: SocketAddr, first: String, more: &'static [u8]) -> (String, Duration) {
        let mut c = connect("127.0.0.1", addr).await;
        let started = Instant::now();
        c.write_all(first.as_bytes()).await.unwrap();
        let (mut read, mut write) = c.into_split();
        let trickle = tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(200)).await;
                if !more.is_empty() && write.write_all(more).await.is_err() {
                    return;
                }
            }
        });
        let mut buf = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(20), read.read_to_end(&mut buf)).await;
        trickle.abort();
        assert!(read.is_ok(), "the connection is still open after 20 s");
        (
            String::from_utf8_lossy(&buf).into_owned(),
            started.elapsed(),
        )
    }
    let stalled = format!("{HEAD}Content-Length: 100\r\n\r\n{{\"email\": \"a");
    let endless = format!("{HEAD}Transfer-Encoding: chunked\r\n\r\n1\r\n{{\r\n");
    for (what, first, more) in [
        ("stalled", stalled, b"".as_slice()),
        ("endless chunked", endless, b"1\r\n \r\n".as_slice()),
    ] {
        let (answer, after) = send(addr, first, more).await;
        assert!(answer.starts_with("HTTP/1.1 408"), "{what}: {answer}");
        assert!(
            answer.contains("application/problem+json") && answer.contains("connection: close"),
            "{what}: {answer}"
        );
        assert!(
            after >= DEADLINE && after < DEADLINE * 5,
            "{what}: answered after {after:?}"
        );
    }
    let body = r#"{"email": "nobody@example.org", "password": "not the password"}"#;
    let prompt = format!(
        "{HEAD}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (answer, _) = send(addr, prompt, b"").await;
    assert!(answer.starts_with("HTTP/1.1 401"), "prompt body: {answer}");
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}
