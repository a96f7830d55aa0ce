//! Connection handling: the accept loop, slow-client limits and the graceful drain of `serve`.
//!
//! Each accepted TCP connection is served by hyper's HTTP/1.1 server (keep-alive, `TCP_NODELAY`)
//! with a header-read timeout ([`ApiConfig::header_read_timeout`](crate::ApiConfig)) and a send
//! timeout (`send_timeout`): a client that does not finish sending its request head in time, or
//! does not read a pending answer for that long, is disconnected, so slow, idle or non-reading
//! clients cannot hold connections or answer buffers (docs/reliability.md, "Slow clients"). One
//! client address holds at most `max_connections_per_address` connections at once
//! ([`OpenPerAddress`]), all clients together `max_connections` ([`crate::http::connection_cap`]);
//! refusals are counted and summarised ([`crate::http::refusals`]). The client address is attached
//! to every request as axum's `ConnectInfo`.
//!
//! Requests hyper cannot parse never reach the application: hyper answers them itself (400, 414,
//! 431) with an empty body and offers no hook to change that. `ProblemIo` sits between hyper and
//! the socket and replaces exactly those answers (a bare response head of one of those statuses
//! with `content-length: 0`, which the application never writes: its errors always have a body)
//! with the application's problem+json ([`crate::http::error::problem_body`]); where it cannot is said in
//! docs/api.md §8.
//!
//! On shutdown `serve` loses no request a client had already sent ([`serve`]; docs/reliability.md).

use crate::http::connection_cap::{Admission, ConnectionCap};
use crate::http::front::{TrustedProxies, address_key};
use crate::http::refusals::{self, Refusal};
use crate::state::ClientLimits;
use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::http::StatusCode;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::future::Future;
use std::io::IoSlice;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio_io_timeout::TimeoutStream;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

/// How long, during shutdown, a connection accepted before the signal may take to deliver its first
/// request before it is closed.
pub const FIRST_REQUEST_GRACE: Duration = Duration::from_secs(1);

/// Serves `app` on `listener` until `shutdown` resolves, then drains without losing a request a
/// client had already sent:
/// 1. the accept loop stops; connections the kernel had already completed (still in the listen
///    backlog) are accepted, then the listener is closed, so new connections are refused;
/// 2. a connection that has not delivered its first request yet gets up to [`FIRST_REQUEST_GRACE`]
///    to do so (its request was usually in flight when the signal came);
/// 3. every connection then finishes the request it is answering and closes; idle keep-alive
///    connections close at once (clients retry those requests on a new connection, as HTTP allows);
/// 4. it returns when the last connection is closed. The binary bounds the whole drain with its
///    `--shutdown-grace`.
///
/// `timeouts`: how long a client may take to send its request head, and to take the next bytes of
/// an answer.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ClientLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let header_read_timeout = limits.header_read;
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    let conns = Connections {
        app,
        http,
        send_timeout: limits.send,
        open: Arc::new(OpenPerAddress {
            max: limits.max_connections_per_address,
            trusted: limits.trusted_proxies,
            counts: Mutex::new(HashMap::new()),
        }),
        cap: ConnectionCap::new(limits.max_connections),
        stop: CancellationToken::new(),
        tracker: TaskTracker::new(),
    };
    let summaries_stop = CancellationToken::new();
    let summaries = tokio::spawn(refusals::summarise(
        limits.refusal_log_interval,
        summaries_stop.clone(),
    ));
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, remote)) => conns.spawn(stream, remote),
                Err(e) => accept_failed(&e).await,
            },
        }
    }
    // The backlog: connections the kernel completed before the signal are answered too.
    let listener = listener.into_std()?;
    loop {
        match listener.accept() {
            Ok((stream, remote)) => match stream
                .set_nonblocking(true)
                .and_then(|()| TcpStream::from_std(stream))
            {
                Ok(stream) => conns.spawn(stream, remote),
                Err(e) => tracing::debug!(error = %e, "dropping a backlog connection"),
            },
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(e) if is_per_connection(&e) => continue,
            Err(e) => {
                tracing::warn!(error = %e, "accepting the backlog failed");
                break;
            }
        }
    }
    drop(listener);
    tracing::debug!(
        connections = conns.tracker.len(),
        "listener closed; draining connections"
    );
    conns.stop.cancel();
    conns.tracker.close();
    conns.tracker.wait().await;
    summaries_stop.cancel();
    let _ = summaries.await;
    Ok(())
}

/// Errors of one incoming connection (it vanished before it was accepted); the listener is fine.
fn is_per_connection(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionAborted | ConnectionReset | ConnectionRefused | Interrupted
    )
}

/// Out of file descriptors and similar: counted (summarised in the log, never one line each) and
/// a pause instead of spinning.
async fn accept_failed(e: &std::io::Error) {
    if is_per_connection(e) {
        return;
    }
    tracing::debug!(error = %e, "accept failed; pausing 100 ms");
    refusals::record(Refusal::AcceptFailed);
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// The open connections of each client address (an IPv6 client by its /64,
/// [`address_key`]): one address holds at most `max` at once, so that it cannot take the
/// process's file descriptors and connection tasks from everybody else. A connection
/// past the cap is closed as soon as it is accepted, before anything is read from it.
struct OpenPerAddress {
    max: usize,
    trusted: TrustedProxies,
    counts: Mutex<HashMap<String, usize>>,
}

/// One admitted connection: counted until dropped with its connection task.
struct Open {
    table: Arc<OpenPerAddress>,
    key: Option<String>,
}

impl OpenPerAddress {
    /// Counts a connection from `ip`, or `None` when its address already holds `max`.
    fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Open> {
        if self.max == 0 || self.trusted.contains(ip) {
            return Some(Open {
                table: self.clone(),
                key: None,
            });
        }
        let key = address_key(ip);
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let open = counts.entry(key.clone()).or_insert(0);
        if *open >= self.max {
            return None;
        }
        *open += 1;
        Some(Open {
            table: self.clone(),
            key: Some(key),
        })
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        let Some(key) = self.key.take() else { return };
        let mut counts = self.table.counts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(open) = counts.get_mut(&key) {
            *open -= 1;
            if *open == 0 {
                counts.remove(&key);
            }
        }
    }
}

/// What every connection task shares.
struct Connections {
    app: Router,
    http: hyper::server::conn::http1::Builder,
    send_timeout: Duration,
    open: Arc<OpenPerAddress>,
    cap: Arc<ConnectionCap>,
    stop: CancellationToken,
    tracker: TaskTracker,
}

impl Connections {
    fn spawn(&self, stream: TcpStream, remote: SocketAddr) {
        let Some(open) = self.open.admit(remote.ip()) else {
            tracing::debug!(client = %remote, "connection closed: its address holds the most allowed");
            refusals::record(Refusal::ConnectionCap);
            return;
        };
        let seat = match self.cap.admit() {
            Admission::Free(seat) => seat,
            Admission::Taken(seat) => {
                refusals::record(Refusal::ConnectionCap);
                seat
            }
            Admission::Full => {
                refusals::record(Refusal::ConnectionCap);
                return;
            }
        };
        let seat = Arc::new(seat);
        // Answers are written whole; waiting for more bytes (Nagle) only adds latency.
        let _ = stream.set_nodelay(true);
        let first_request = Arc::new(Notify::new());
        let service = {
            let (app, first_request, seat) =
                (self.app.clone(), first_request.clone(), seat.clone());
            hyper::service::service_fn(move |mut req: Request<Incoming>| {
                first_request.notify_one();
                seat.started();
                req.extensions_mut().insert(ConnectInfo(remote));
                app.clone().oneshot(req)
            })
        };
        let conn = self.http.serve_connection(
            TokioIo::new(ProblemIo::new(stream, self.send_timeout)),
            service,
        );
        let stop = self.stop.clone();
        self.tracker.spawn(async move {
            let _open = open;
            tokio::pin!(conn);
            let outcome = tokio::select! {
                r = conn.as_mut() => Some(r),
                () = stop.cancelled() => None,
                // A newer connection took this one's seat before it sent a request: close now.
                () = seat.evicted().cancelled() => return,
            };
            let outcome = match outcome {
                Some(r) => r,
                None => {
                    // A request sent just before the signal may still be on its way.
                    let delivered = tokio::select! {
                        r = conn.as_mut() => Err(r),
                        _ = tokio::time::timeout(FIRST_REQUEST_GRACE, first_request.notified()) => Ok(()),
                    };
                    match delivered {
                        Err(r) => r,
                        Ok(()) => {
                            conn.as_mut().graceful_shutdown();
                            conn.await
                        }
                    }
                }
            };
            if let Err(e) = outcome {
                // Timeouts, resets and malformed requests of one client: not the server's fault.
                tracing::debug!(client = %remote, error = %e, "connection ended with an error");
            }
        });
    }
}

/// The socket as hyper sees it: writes pass through, except hyper's own bodiless 400/414/431
/// answers, which become problem+json (module documentation).
struct ProblemIo {
    /// The socket, whose writes fail with `TimedOut` once one has waited `send_timeout` for the
    /// client to read.
    inner: Pin<Box<TimeoutStream<TcpStream>>>,
    /// A replacement answer still to be written, and how much of it is written.
    pending: Option<(Vec<u8>, usize)>,
}

impl ProblemIo {
    fn new(stream: TcpStream, send_timeout: Duration) -> ProblemIo {
        let mut inner = TimeoutStream::new(stream);
        inner.set_write_timeout(Some(send_timeout));
        ProblemIo {
            inner: Box::pin(inner),
            pending: None,
        }
    }

    /// Writes what is left of a replacement answer.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while let Some((bytes, done)) = &mut self.pending {
            if *done >= bytes.len() {
                self.pending = None;
                break;
            }
            let n = ready!(self.inner.as_mut().poll_write(cx, &bytes[*done..]))?;
            if n == 0 {
                return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
            }
            *done += n;
        }
        Poll::Ready(Ok(()))
    }
}

/// Longest write that can be one of hyper's own error answers (a status line and two or three short
/// header lines, no body); longer writes are passed through without a look.
const MAX_HYPER_ERROR_HEAD: usize = 1024;

/// The problem+json answer replacing `head` when it is one of hyper's own parse-error answers.
/// This runs on every write of every connection, so anything that cannot be such an answer (longer
/// than [`MAX_HYPER_ERROR_HEAD`], or not a 4xx status line) is refused before any text is read.
fn replacement(head: &[u8]) -> Option<Vec<u8>> {
    if head.len() > MAX_HYPER_ERROR_HEAD || !head.starts_with(b"HTTP/1.1 4") {
        return None;
    }
    let text = std::str::from_utf8(head).ok()?;
    let rest = text.strip_prefix("HTTP/1.1 ")?;
    let status = match rest.get(..4)? {
        "400 " => StatusCode::BAD_REQUEST,
        "414 " => StatusCode::URI_TOO_LONG,
        "431 " => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        _ => return None,
    };
    let lines = text.strip_suffix("\r\n\r\n")?;
    if lines.contains("\r\n\r\n") {
        return None; // more than one head: not hyper's lone error answer
    }
    let mut header_lines = lines.split("\r\n").skip(1);
    if !header_lines
        .clone()
        .any(|l| l.eq_ignore_ascii_case("content-length: 0"))
    {
        return None;
    }
    let detail = match status {
        StatusCode::URI_TOO_LONG => {
            "the request target is longer than this server reads (64 KiB); send fewer or shorter parameters"
        }
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => {
            "the request head is too large or has too many header fields (at most 100)"
        }
        _ => {
            "the request line or a header field could not be parsed; spaces, control characters and non-ASCII bytes in the path must be percent-encoded"
        }
    };
    let body = crate::http::error::problem_body(status, detail);
    let mut out = format!(
        "HTTP/1.1 {} {}\r\n",
        status.as_str(),
        status.canonical_reason().unwrap_or("Error")
    );
    for l in header_lines.by_ref() {
        let name = l.split(':').next().unwrap_or("").trim();
        if !name.eq_ignore_ascii_case("content-length") && !name.eq_ignore_ascii_case("connection")
        {
            out.push_str(l);
            out.push_str("\r\n");
        }
    }
    out.push_str(&format!(
        "content-type: {}\r\ncontent-length: {}\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n",
        crate::http::error::PROBLEM_JSON,
        body.len()
    ));
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&body);
    Some(bytes)
}

impl AsyncRead for ProblemIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        self.inner.as_mut().poll_read(cx, buf)
    }
}

impl AsyncWrite for ProblemIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        if let Some(bytes) = replacement(buf) {
            self.pending = Some((bytes, 0));
            // hyper's bytes are taken whole; ours go out now or on the next flush.
            if let Poll::Ready(Err(e)) = self.poll_pending(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        self.inner.as_mut().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        let first = bufs.iter().find(|b| !b.is_empty());
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        if let Some(first) = first
            && first.len() == total
            && let Some(bytes) = replacement(first)
        {
            self.pending = Some((bytes, 0));
            if let Poll::Ready(Err(e)) = self.poll_pending(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(total));
        }
        self.inner.as_mut().poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        self.inner.as_mut().poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        self.inner.as_mut().poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_HYPER_ERROR_HEAD, OpenPerAddress, replacement};
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};

    fn table(max: usize, trusted: &str) -> Arc<OpenPerAddress> {
        Arc::new(OpenPerAddress {
            max,
            trusted: trusted.parse().unwrap(),
            counts: Mutex::new(HashMap::new()),
        })
    }

    #[test]
    fn an_address_gets_its_cap_back_as_its_connections_close() {
        let t = table(2, "");
        let a = t.admit("192.0.2.1".parse().unwrap()).unwrap();
        let _b = t.admit("192.0.2.1".parse().unwrap()).unwrap();
        assert!(t.admit("192.0.2.1".parse().unwrap()).is_none(), "a third");
        assert!(
            t.admit("192.0.2.2".parse().unwrap()).is_some(),
            "another address"
        );
        drop(a);
        assert!(
            t.admit("192.0.2.1".parse().unwrap()).is_some(),
            "after one closed"
        );
    }

    #[test]
    fn ipv6_counts_by_64_and_trusted_proxies_and_zero_are_not_capped() {
        let t = table(1, "10.0.0.0/8");
        let _a = t.admit("2001:db8:1:2::1".parse().unwrap()).unwrap();
        assert!(
            t.admit("2001:db8:1:2:ffff::9".parse().unwrap()).is_none(),
            "same /64"
        );
        assert!(
            t.admit("2001:db8:1:3::1".parse().unwrap()).is_some(),
            "another /64"
        );
        let proxies: Vec<_> = (0..5)
            .map(|_| t.admit("10.1.2.3".parse().unwrap()))
            .collect();
        assert!(proxies.iter().all(Option::is_some), "a trusted proxy");
        let none = table(0, "");
        let many: Vec<_> = (0..5)
            .map(|_| none.admit("192.0.2.1".parse().unwrap()))
            .collect();
        assert!(many.iter().all(Option::is_some), "0: no cap");
    }

    #[test]
    fn only_hypers_bodiless_parse_error_answers_are_replaced() {
        let hyper414 = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\ndate: Thu, 26 Nov 2026 07:00:00 GMT\r\n\r\n";
        let out = String::from_utf8(replacement(hyper414).unwrap()).unwrap();
        assert!(out.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{out}");
        assert!(out.contains("date: Thu, 26 Nov 2026"));
        assert!(out.contains("content-type: application/problem+json"));
        let body = out.split_once("\r\n\r\n").unwrap().1;
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["status"], 414);
        assert!(out.contains(&format!("content-length: {}", body.len())));
        // The application's own answers (with a body) and other statuses pass through.
        assert!(replacement(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 57\r\n\r\n").is_none());
        assert!(replacement(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n").is_none());
        // Writes longer than any hyper error head are not read (every answer's write passes here).
        let long = [
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nx: ".as_slice(),
            &[b'a'; MAX_HYPER_ERROR_HEAD],
            b"\r\n\r\n",
        ]
        .concat();
        assert!(replacement(&long).is_none());
        assert!(replacement(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n{}").is_none());
    }
}
