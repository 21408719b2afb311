//! The accept loop: HTTP/1.1 connections served by hyper, each with a kill switch.
//!
//! `axum::serve` cannot close a connection without answering, which the `reset` and
//! `drop_after_commit` faults need. Here every connection gets a [`KillSwitch`] placed in the
//! extensions of each of its requests; a handler that triggers it and then never finishes
//! makes the connection task drop the connection future, which closes the socket with no
//! response written.
//!
//! A connection that ends normally ends with a lingering close: an answer given before the
//! request's body was read ("this blob already exists") is followed by the client's bytes
//! still in flight, and a socket closed with unread bytes is reset, which can throw the
//! answer away before the client reads it. So the server stops writing, then reads and
//! drops what still comes for a moment before closing, as Apache and nginx do.

use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::service::Service as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};
use tokio::task::JoinSet;

use super::SHUTDOWN_GRACE;

/// Closes the connection a request came on, without a response.
#[derive(Clone)]
pub(crate) struct KillSwitch(Arc<Notify>);

impl KillSwitch {
    /// Close the connection now and never answer: the returned future does not complete (it
    /// is dropped with the connection).
    pub async fn kill(&self) -> axum::response::Response {
        self.0.notify_one();
        std::future::pending().await
    }
}

/// Serve `router` on `listener` until `shutdown` turns true, then stop accepting and give
/// in-flight connections [`SHUTDOWN_GRACE`] to finish.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    router: axum::Router,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut connections = JoinSet::new();
    let for_connections = shutdown.clone();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    let _ = stream.set_nodelay(true);
                    connections.spawn(serve_connection(stream, router.clone(), for_connections.clone()));
                }
                // Too many open files and the like: wait a moment instead of spinning.
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            () = stopped(&mut shutdown) => break,
        }
    }
    drop(listener);
    let drain = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(SHUTDOWN_GRACE, drain).await.is_err() {
        connections.abort_all();
        while connections.join_next().await.is_some() {}
    }
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    router: axum::Router,
    mut shutdown: watch::Receiver<bool>,
) {
    let notify = Arc::new(Notify::new());
    let kill = KillSwitch(notify.clone());
    let tower = TowerToHyperService::new(router);
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        req.extensions_mut().insert(kill.clone());
        // Boxed so the connection can be polled in place and its socket taken back after.
        Box::pin(tower.call(req))
    });
    let mut conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(30))
        .serve_connection(TokioIo::new(stream), service);
    let mut draining = false;
    let ended = loop {
        tokio::select! {
            ended = std::future::poll_fn(|cx| conn.poll_without_shutdown(cx)) => break ended,
            // Dropping the connection closes the socket; nothing more is written.
            _ = notify.notified() => return,
            () = stopped(&mut shutdown), if !draining => {
                draining = true;
                std::pin::Pin::new(&mut conn).graceful_shutdown();
            }
        }
    };
    // A sandbox shutting down closes at once: its own clients are done by then.
    if ended.is_ok() && !draining {
        tokio::select! {
            () = linger(conn.into_parts().io.into_inner()) => {}
            () = stopped(&mut shutdown) => {}
        }
    }
}

/// How long a closing connection goes on reading what the client still sends: an early
/// answer ("exists", before the body was read) reaches a client that goes on sending its
/// body to the end, which on a busy machine can take seconds (nginx lingers up to 30 s).
const LINGER: Duration = Duration::from_secs(30);

/// Close `stream` the lingering way: say the server will write no more, then read and drop
/// what the client still sends, until it closes too or [`LINGER`] has passed.
async fn linger(mut stream: tokio::net::TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    if stream.shutdown().await.is_err() {
        return;
    }
    let mut sink = vec![0u8; 64 * 1024];
    let drain = async { while matches!(stream.read(&mut sink).await, Ok(1..)) {} };
    let _ = tokio::time::timeout(LINGER, drain).await;
}

/// Completes once shutdown is requested (or the sandbox handle is gone).
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}
