//! Connection handling: the accept loop, slow-client limits and the graceful drain of `serve`.
//!
//! Each accepted TCP connection is served by hyper's HTTP/1.1 server (keep-alive, `TCP_NODELAY`)
//! with a header-read timeout ([`ApiConfig::header_read_timeout`](crate::ApiConfig)) and a send
//! timeout (`send_timeout`): a client that does not finish sending its request head in time, or
//! does not read a pending answer for that long, is disconnected, so slow, idle or non-reading
//! clients cannot hold connections or answer buffers (docs/reliability.md, "Slow clients"). The
//! client address is attached to every request as axum's `ConnectInfo`.
//!
//! Requests hyper cannot parse never reach the application: hyper answers them itself (400, 414,
//! 431) with an empty body and offers no hook to change that. `ProblemIo` sits between hyper and
//! the socket and replaces exactly those answers (a bare response head of one of those statuses
//! with `content-length: 0`, which the application never writes: its errors always have a body)
//! with the application's problem+json ([`crate::error::problem_body`]); where it cannot is said in
//! docs/api.md §8.
//!
//! On shutdown `serve` loses no request a client had already sent (its documentation has the
//! steps; measured in docs/reliability.md, "Faults").

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::http::StatusCode;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::io::IoSlice;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
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
    timeouts: ClientTimeouts,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let header_read_timeout = timeouts.header_read;
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    let conns = Connections {
        app,
        http,
        send_timeout: timeouts.send,
        stop: CancellationToken::new(),
        tracker: TaskTracker::new(),
    };
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

/// Out of file descriptors and similar: log and pause instead of spinning.
async fn accept_failed(e: &std::io::Error) {
    if is_per_connection(e) {
        return;
    }
    tracing::warn!(error = %e, "accept failed; pausing 100 ms");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// How long a client may keep the server waiting ([`serve`]).
#[derive(Debug, Clone, Copy)]
pub struct ClientTimeouts {
    /// To send its whole request head (after connecting, or after its previous answer).
    pub header_read: Duration,
    /// To accept more bytes of an answer while the socket's send buffer is full.
    pub send: Duration,
}

/// What every connection task shares.
struct Connections {
    app: Router,
    http: hyper::server::conn::http1::Builder,
    send_timeout: Duration,
    stop: CancellationToken,
    tracker: TaskTracker,
}

impl Connections {
    fn spawn(&self, stream: TcpStream, remote: SocketAddr) {
        // Answers are written whole; waiting for more bytes (Nagle) only adds latency.
        let _ = stream.set_nodelay(true);
        let first_request = Arc::new(Notify::new());
        let service = {
            let (app, first_request) = (self.app.clone(), first_request.clone());
            hyper::service::service_fn(move |mut req: Request<Incoming>| {
                first_request.notify_one();
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
            tokio::pin!(conn);
            let outcome = tokio::select! {
                r = conn.as_mut() => Some(r),
                () = stop.cancelled() => None,
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
    let body = crate::error::problem_body(status, detail);
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
        crate::error::PROBLEM_JSON,
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
    use super::{MAX_HYPER_ERROR_HEAD, replacement};

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
