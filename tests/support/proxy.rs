//! A small fault-injecting HTTP proxy on loopback, for targets whose servers have no fault
//! options of their own: it forwards every request to one upstream, logs method, path and the
//! upstream's status, and on matching requests can drop the response after the upstream
//! committed, stall (to stand for a killed job), strip a header (to stand for a server that
//! ignores it), hold the request until the test lets it go, answer in the upstream's place (a
//! proxy's error page), or replace the upstream's answer with other bytes (garbage after a
//! commit). A seeded [`FaultMix`] adds random faults to every request (the chaos harness's
//! drop-after-commit, 503, 429 with Retry-After, resets and latency spikes).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::TryStreamExt;
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper_util::rt::TokioIo;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// What to do with a matching request.
#[derive(Clone)]
pub enum Action {
    /// Forward, let the upstream answer, then close the connection with no response.
    DropAfterCommit,
    /// Never forward or answer; cancel this token (a job killed mid-upload).
    Stall(CancellationToken),
    /// Forward without this header.
    StripHeader(&'static str),
    /// Cancel `reached` when the request arrives, then wait for `release` before forwarding
    /// it (its body waits in the client, as behind a slow link).
    Hold {
        reached: CancellationToken,
        release: CancellationToken,
    },
    /// Answer this, without forwarding (a proxy in front of the server answering itself).
    Answer {
        status: u16,
        content_type: &'static str,
        body: String,
    },
    /// Forward, let the upstream answer, then send its status with this body instead.
    ReplaceBody(String),
    /// Answer 503 Service Unavailable (an S3 `SlowDown` body) without forwarding.
    Unavailable,
    /// Answer 429 with `Retry-After: SECONDS` without forwarding.
    RateLimit { retry_after_secs: u64 },
    /// Close the connection with no response, before forwarding.
    Reset,
    /// Wait, then forward (a latency spike).
    Delay(Duration),
}

/// Seeded probabilities (0..=1, summing to at most 1) of a random fault on each request that
/// no rule matched.
#[derive(Clone, Debug, Default)]
pub struct FaultMix {
    /// Forward, let the upstream commit, close with no response.
    pub drop_after_commit: f64,
    /// 503 without forwarding.
    pub unavailable: f64,
    /// 429 with `Retry-After: retry_after_secs` without forwarding.
    pub rate_limit: f64,
    pub retry_after_secs: u64,
    /// Close the connection before forwarding.
    pub reset: f64,
    /// Wait `spike` before forwarding.
    pub latency_spike: f64,
    pub spike: Duration,
    pub seed: u64,
}

impl FaultMix {
    /// One draw: the fault for the next request, if any.
    fn draw(&self, rng: &mut StdRng) -> Option<Action> {
        let roll: f64 = rng.random();
        let faults = [
            (self.drop_after_commit, Action::DropAfterCommit),
            (self.unavailable, Action::Unavailable),
            (
                self.rate_limit,
                Action::RateLimit {
                    retry_after_secs: self.retry_after_secs,
                },
            ),
            (self.reset, Action::Reset),
            (self.latency_spike, Action::Delay(self.spike)),
        ];
        let mut edge = 0.0;
        for (p, action) in faults {
            edge += p;
            if roll < edge {
                return Some(action);
            }
        }
        None
    }
}

#[derive(Clone)]
pub struct Rule {
    pub method: &'static str,
    pub path_contains: String,
    pub action: Action,
    /// How many requests it applies to (then it is spent).
    pub times: usize,
}

#[derive(Default)]
struct State {
    log: Vec<(String, String)>,
    /// Forwarded requests with the upstream's status (also those dropped after commit).
    answered: Vec<(String, String, u16)>,
    rules: Vec<Rule>,
    mix: Option<(FaultMix, StdRng)>,
    /// Faults the mix injected.
    injected: u64,
    /// Requests arrived and not yet answered, and the most there were at once.
    in_flight: usize,
    peak_in_flight: usize,
    /// Forward every path in lower case: the server behind then ignores case in names, as
    /// a WebDAV share on Windows or macOS does.
    fold_case: bool,
}

/// Counts a request as in flight until its handler ends (answered, or dropped with its
/// connection).
struct InFlight(Arc<Mutex<State>>);

impl InFlight {
    fn begin(state: &Arc<Mutex<State>>) -> InFlight {
        let mut st = state.lock().unwrap();
        st.in_flight += 1;
        st.peak_in_flight = st.peak_in_flight.max(st.in_flight);
        InFlight(state.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut st = self.0.lock().unwrap_or_else(|p| p.into_inner());
        st.in_flight -= 1;
    }
}

/// A running proxy; stops with the test's runtime.
#[derive(Clone)]
pub struct Proxy {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
}

impl Proxy {
    /// Forward to `upstream` (`http://127.0.0.1:PORT`).
    pub async fn start(upstream: &str) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state: Arc<Mutex<State>> = Arc::default();
        let upstream = upstream.trim_end_matches('/').to_string();
        let client = reqwest::Client::builder().build().unwrap();
        let st = state.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let st = st.clone();
                let upstream = upstream.clone();
                let client = client.clone();
                tokio::spawn(async move {
                    let kill = Arc::new(Notify::new());
                    let k = kill.clone();
                    let service = hyper::service::service_fn(move |req| {
                        handle(req, st.clone(), upstream.clone(), client.clone(), k.clone())
                    });
                    let conn = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service);
                    tokio::select! {
                        _ = conn => {}
                        _ = kill.notified() => {}
                    }
                });
            }
        });
        Proxy { addr, state }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn add_rule(&self, rule: Rule) {
        self.state.lock().unwrap().rules.push(rule);
    }

    /// Every request seen so far: (method, path and query).
    pub fn log(&self) -> Vec<(String, String)> {
        self.state.lock().unwrap().log.clone()
    }

    pub fn requests(&self) -> usize {
        self.state.lock().unwrap().log.len()
    }

    pub fn clear_log(&self) {
        self.state.lock().unwrap().log.clear();
    }

    /// Inject random faults from now on (`None`: forward everything again).
    pub fn set_faults(&self, mix: Option<FaultMix>) {
        self.state.lock().unwrap().mix = mix.map(|m| {
            let rng = StdRng::seed_from_u64(m.seed);
            (m, rng)
        });
    }

    /// How many faults the mix has injected.
    pub fn faults_injected(&self) -> u64 {
        self.state.lock().unwrap().injected
    }

    /// Every forwarded request with the upstream's status: (method, path and query, status).
    pub fn answered(&self) -> Vec<(String, String, u16)> {
        self.state.lock().unwrap().answered.clone()
    }

    /// The most requests the proxy has had on its hands at once (arrived, not yet answered).
    pub fn peak_in_flight(&self) -> usize {
        self.state.lock().unwrap().peak_in_flight
    }

    /// Start counting the most requests at once afresh.
    pub fn reset_peak_in_flight(&self) {
        self.state.lock().unwrap().peak_in_flight = 0;
    }

    /// From now on the server behind ignores case in names (every path forwarded in lower
    /// case), as a WebDAV share on Windows or macOS does.
    pub fn ignore_case_in_names(&self) {
        self.state.lock().unwrap().fold_case = true;
    }

    /// Forward everything from now on.
    pub fn clear_rules(&self) {
        self.state.lock().unwrap().rules.clear();
    }
}

type Body = BoxBody<Bytes, std::io::Error>;

async fn handle(
    req: hyper::Request<Incoming>,
    state: Arc<Mutex<State>>,
    upstream: String,
    client: reqwest::Client,
    kill: Arc<Notify>,
) -> Result<hyper::Response<Body>, std::io::Error> {
    let method = req.method().to_string();
    let path = req
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    let _in_flight = InFlight::begin(&state);
    let action = {
        let mut st = state.lock().unwrap();
        st.log.push((method.clone(), path.clone()));
        let hit = st
            .rules
            .iter_mut()
            .find(|r| r.times > 0 && r.method == method && path.contains(&r.path_contains));
        let ruled = hit.map(|r| {
            r.times -= 1;
            r.action.clone()
        });
        let st = &mut *st;
        ruled.or_else(|| {
            let (mix, rng) = st.mix.as_mut()?;
            let drawn = mix.draw(rng);
            st.injected += u64::from(drawn.is_some());
            drawn
        })
    };
    match &action {
        Some(Action::Stall(token)) => {
            token.cancel();
            std::future::pending::<()>().await;
        }
        Some(Action::Reset) => {
            kill.notify_one();
            std::future::pending::<()>().await;
        }
        Some(Action::Unavailable) => {
            return Ok(answer(
                503,
                None,
                "<Error><Code>SlowDown</Code><Message>injected by the test proxy</Message></Error>",
            ));
        }
        Some(Action::RateLimit { retry_after_secs }) => {
            return Ok(answer(
                429,
                Some(*retry_after_secs),
                "<Error><Code>TooManyRequests</Code><Message>injected by the test proxy</Message></Error>",
            ));
        }
        Some(Action::Delay(wait)) => tokio::time::sleep(*wait).await,
        Some(Action::Hold { reached, release }) => {
            reached.cancel();
            release.cancelled().await;
        }
        Some(Action::Answer {
            status,
            content_type,
            body,
        }) => {
            let out = hyper::Response::builder()
                .status(*status)
                .header(hyper::header::CONTENT_TYPE, *content_type)
                .body(full(body.clone()))
                .unwrap();
            return Ok(out);
        }
        _ => {}
    }
    let (parts, body) = req.into_parts();
    let forwarded = match state.lock().unwrap().fold_case {
        true => path.to_lowercase(),
        false => path.clone(),
    };
    let mut rb = client.request(parts.method.clone(), format!("{upstream}{forwarded}"));
    for (name, value) in &parts.headers {
        if let Some(Action::StripHeader(h)) = &action
            && name.as_str().eq_ignore_ascii_case(h)
        {
            continue;
        }
        rb = rb.header(name, value);
    }
    // Only a request that has a body gets one: an empty chunked body after a HEAD or GET
    // would reach the server as a malformed next request.
    let has_body = parts.headers.contains_key(hyper::header::CONTENT_LENGTH)
        || parts.headers.contains_key(hyper::header::TRANSFER_ENCODING);
    if has_body {
        let stream = body.into_data_stream().map_err(std::io::Error::other);
        rb = rb.body(reqwest::Body::wrap_stream(stream));
    }
    let resp = rb.send().await.map_err(std::io::Error::other)?;
    let status = resp.status();
    let headers = resp.headers().clone();
    state
        .lock()
        .unwrap()
        .answered
        .push((method, path, status.as_u16()));
    if let Some(Action::DropAfterCommit) = &action {
        let _ = resp.bytes().await;
        kill.notify_one();
        std::future::pending::<()>().await;
        unreachable!("the connection is closed with no response");
    }
    if let Some(Action::ReplaceBody(body)) = &action {
        let _ = resp.bytes().await;
        let out = hyper::Response::builder()
            .status(status)
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(full(body.clone()))
            .unwrap();
        return Ok(out);
    }
    let mut out = hyper::Response::builder().status(status);
    for (name, value) in &headers {
        out = out.header(name, value);
    }
    let body: Body = if parts.method == hyper::Method::HEAD {
        full(String::new())
    } else {
        let stream = resp
            .bytes_stream()
            .map_ok(Frame::data)
            .map_err(std::io::Error::other);
        BodyExt::boxed(StreamBody::new(stream))
    };
    Ok(out.body(body).unwrap())
}

/// A response made by the proxy itself. The request's body is left unread, so the
/// connection closes after it, and says so.
fn answer(status: u16, retry_after_secs: Option<u64>, body: &'static str) -> hyper::Response<Body> {
    let mut out = hyper::Response::builder()
        .status(status)
        .header("content-type", "application/xml")
        .header("connection", "close");
    if let Some(secs) = retry_after_secs {
        out = out.header("retry-after", secs.to_string());
    }
    out.body(
        Full::new(Bytes::from_static(body.as_bytes()))
            .map_err(|never| match never {})
            .boxed(),
    )
    .unwrap()
}

fn full(text: String) -> Body {
    Full::new(Bytes::from(text))
        .map_err(|never| match never {})
        .boxed()
}
