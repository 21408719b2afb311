//! A server on loopback that answers every request with what a closure says, for targets
//! that misbehave in ways no real repository does on purpose: garbage, HTML pages, redirect
//! loops. It counts the requests it got.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;

/// What the fake answers: status, headers, body.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
}

/// A running fake server; stops with the test's runtime.
pub struct FakeServer {
    pub addr: SocketAddr,
    requests: Arc<AtomicUsize>,
}

impl FakeServer {
    /// Answer each request (method, path and query) with `answer`.
    pub async fn start(answer: impl Fn(&str, &str) -> Answer + Send + Sync + 'static) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests: Arc<AtomicUsize> = Arc::default();
        let answer = Arc::new(answer);
        let counter = requests.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let answer = answer.clone();
                let counter = counter.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(
                        move |req: hyper::Request<hyper::body::Incoming>| {
                            let answer = answer.clone();
                            let counter = counter.clone();
                            async move {
                                counter.fetch_add(1, Ordering::SeqCst);
                                let method = req.method().to_string();
                                let path = req
                                    .uri()
                                    .path_and_query()
                                    .map(|p| p.to_string())
                                    .unwrap_or_default();
                                // Read the body, as a server would, before answering.
                                let _ = req.into_body().collect().await;
                                let a = answer(&method, &path);
                                let mut out = hyper::Response::builder().status(a.status);
                                for (name, value) in a.headers {
                                    out = out.header(name, value);
                                }
                                Ok::<_, std::convert::Infallible>(
                                    out.body(Full::new(Bytes::from(a.body))).unwrap(),
                                )
                            }
                        },
                    );
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        FakeServer { addr, requests }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Requests answered so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}
