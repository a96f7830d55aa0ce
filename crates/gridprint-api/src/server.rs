//! Connection handling: the accept loop, slow-client limits and the graceful drain of [`serve`].
//!
//! Each accepted TCP connection is served by hyper's HTTP/1.1 server (keep-alive, `TCP_NODELAY`) with
//! a header-read timeout ([`ApiConfig::header_read_timeout`](crate::ApiConfig)): a client that does
//! not finish sending its request head in time is disconnected, so slow or idle clients cannot hold
//! connections open. The client address is attached to every request as axum's `ConnectInfo`.
//!
//! Shutdown (when the `shutdown` future resolves) loses no request a client had already sent:
//! 1. the accept loop stops; connections the kernel had already completed (still in the listen
//!    backlog) are accepted, then the listener is closed, so new connections are refused;
//! 2. a connection that has not delivered its first request yet gets up to [`FIRST_REQUEST_GRACE`]
//!    to do so (its request was usually in flight when the signal came);
//! 3. every connection then finishes the request it is answering and closes; idle keep-alive
//!    connections close at once (clients retry those requests on a new connection, as HTTP allows);
//! 4. [`serve`] returns when the last connection is closed. The binary bounds the whole drain with
//!    its `--shutdown-grace`.

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

/// How long, during shutdown, a connection accepted before the signal may take to deliver its first
/// request before it is closed.
pub const FIRST_REQUEST_GRACE: Duration = Duration::from_secs(1);

/// Serves `app` on `listener` until `shutdown` resolves, then drains as the module documentation
/// describes.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    header_read_timeout: Duration,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    let conns = Connections {
        app,
        http,
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

/// What every connection task shares.
struct Connections {
    app: Router,
    http: hyper::server::conn::http1::Builder,
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
        let conn = self.http.serve_connection(TokioIo::new(stream), service);
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
