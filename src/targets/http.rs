//! HTTP helpers shared by the targets: one client configuration, transport errors and
//! non-success responses turned into [`Failure`]s, and the rule that plain `http://` is only
//! for loopback hosts unless a target explicitly allows it.

use std::net::IpAddr;
use std::time::Duration;

use reqwest::{Url, header};

use super::Failure;

/// The HTTP client every target uses: bounded connect and read timeouts, Lodge's user agent,
/// and no redirects followed: a write must land at its target or fail, never be re-sent
/// somewhere else (or turned into a GET, as a followed 302 would), and a redirect loop must
/// not cost ten requests per attempt.
pub fn client() -> Result<reqwest::Client, String> {
    builder()
        .read_timeout(super::stream::STALLED_AFTER)
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))
}

/// What every client of Lodge's has: the redirect policy, the connect timeout, the pool
/// and the user agent.
fn builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .pool_max_idle_per_host(16)
        .user_agent(concat!("lodge/", env!("CARGO_PKG_VERSION")))
}

/// Refuse a target URL whose query (`query`, after the `?`) holds an option other than
/// `known`, or one twice: a misspelt option would otherwise be dropped without a word, and
/// `?stat=draft` on Zenodo would publish what was meant to stay a draft (a published record
/// cannot be taken back).
pub fn check_url_options(query: Option<&str>, known: &[&str]) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    let pairs = url::form_urlencoded::parse(query.unwrap_or("").as_bytes());
    for (name, _) in pairs {
        if !known.contains(&&*name) {
            let takes = match known {
                [] => "it takes none".to_string(),
                _ => format!(
                    "it takes {}",
                    known
                        .iter()
                        .map(|k| format!("'{k}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            return Err(format!(
                "'{name}' is not an option of this kind of target URL: {takes} (a '&' inside \
                 an option's value is written %26)"
            ));
        }
        if !seen.insert(name.clone()) {
            return Err(format!("the option '{name}' is given twice: give it once"));
        }
    }
    Ok(())
}

/// A target URL with a user name or password before its host (`KIND+https://USER:PASS@HOST`)
/// is refused: URLs are saved in the config file and printed in messages, the store and the
/// log, where a secret must never be. `Some((url, why))`: the URL with what is before the
/// `@` masked, to show, and why it is refused with what to do instead.
pub fn credentials_in_url(url: &str) -> Option<(String, String)> {
    let rest = url.split_once('+').map_or(url, |(_, rest)| rest);
    let (scheme, after) = rest.split_once("://")?;
    let authority_end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (userinfo, host) = after[..authority_end].rsplit_once('@')?;
    let masked = format!(
        "{}{scheme}://…@{host}{}",
        &url[..url.len() - rest.len()],
        &after[authority_end..]
    );
    let what = if userinfo.contains(':') {
        "a user name and password"
    } else {
        "a user name"
    };
    let why = format!(
        "it holds {what} before the host, and target URLs are saved and printed, where no \
         secret may be: give the URL without them, and the user with --user, the password \
         with --secret-stdin or --secret-env VAR (`lodge target add NAME URL ...`; in the \
         window, the target's user and password fields)"
    );
    Some((masked, why))
}

/// Send a request; a transport error becomes a classified failure.
pub async fn send(rb: reqwest::RequestBuilder) -> Result<reqwest::Response, Failure> {
    rb.send().await.map_err(|e| Failure::from_reqwest(&e))
}

/// Send `request` with `client`, or, when its body is a file's (`file`: that body's
/// watch), with the upload client, for as long as the upload makes progress.
///
/// Why another client: [`client`]'s read timeout runs from the moment the request starts,
/// while its body is still being sent, so it would cut off every upload that takes longer
/// than the timeout, at any speed. The upload client has none; [`super::stream::watched`]
/// gives up only on an upload that stalls.
pub async fn execute(
    client: &reqwest::Client,
    request: reqwest::Request,
    file: Option<&super::stream::BodyWatch>,
) -> Result<reqwest::Response, Failure> {
    match file {
        None => (client.execute(request).await).map_err(|e| Failure::from_reqwest(&e)),
        Some(watch) => send_file(request, watch).await,
    }
}

/// Send `request`, whose body is a file's (watched by `watch`), with the upload client.
pub async fn send_file(
    request: reqwest::Request,
    watch: &super::stream::BodyWatch,
) -> Result<reqwest::Response, Failure> {
    send_file_within(request, watch, super::stream::STALLED_AFTER).await
}

/// [`send_file`], given up after `stalled_after` without progress.
async fn send_file_within(
    request: reqwest::Request,
    watch: &super::stream::BodyWatch,
    stalled_after: Duration,
) -> Result<reqwest::Response, Failure> {
    let url = request.url().clone();
    let client = upload_client().map_err(|message| Failure::NotSent { message })?;
    let send =
        async move { (client.execute(request).await).map_err(|e| Failure::from_reqwest(&e)) };
    super::stream::watched(watch, &url, stalled_after, send).await
}

/// The client of file uploads: [`client`]'s settings without its read timeout (see
/// [`execute`]). One for the process, so its connections are kept for the next file.
fn upload_client() -> Result<&'static reqwest::Client, String> {
    static UPLOADS: std::sync::OnceLock<Result<reqwest::Client, String>> =
        std::sync::OnceLock::new();
    UPLOADS
        .get_or_init(|| {
            builder()
                .build()
                .map_err(|e| format!("cannot build an HTTP client: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Status, `Retry-After` and body of a response that did not succeed.
pub async fn status_parts(resp: reqwest::Response) -> (u16, Option<String>, String) {
    let status = resp.status().as_u16();
    let retry_after = resp
        .headers()
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = resp.text().await.unwrap_or_default();
    (status, retry_after, body)
}

/// Classify a response that did not succeed.
pub async fn failure_of(resp: reqwest::Response) -> Failure {
    if resp.status().is_redirection() {
        return redirect_failure(&resp);
    }
    let (status, retry_after, body) = status_parts(resp).await;
    Failure::from_status(status, retry_after.as_deref(), &body)
}

/// A redirect, which Lodge does not follow: where it pointed, and what to do about it.
fn redirect_failure(resp: &reqwest::Response) -> Failure {
    let status = resp.status().as_u16();
    let from = resp.url();
    let to = resp
        .headers()
        .get(header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|l| from.join(l).ok());
    let message = match to {
        Some(to) if to == *from => format!(
            "{from} redirects to itself (HTTP {status}): a redirect loop. The server at {} is \
             misconfigured, or the target URL is not its address: fix the target URL or the \
             server",
            from.origin().ascii_serialization()
        ),
        Some(to) => format!(
            "{from} redirects to {to} (HTTP {status}). Lodge does not follow redirects, so \
             that no write lands anywhere but at its target: set the target URL to the address \
             the server redirects to"
        ),
        None => format!(
            "{from} answered with a redirect (HTTP {status}) that names no address: fix the \
             target URL"
        ),
    };
    Failure::Unusable {
        status: Some(status),
        message,
    }
}

/// Whether `host` is a loopback name or address (127.0.0.0/8, ::1, localhost).
pub fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Refuse plain `http://` to a host that is not loopback unless `allow_insecure`.
pub fn check_transport(url: &Url, allow_insecure: bool) -> Result<(), String> {
    if url.scheme() == "http" && !allow_insecure && !is_loopback(url.host_str().unwrap_or("")) {
        return Err(format!(
            "{url} is plain http to a host that is not loopback: credentials and data would \
             cross the network unencrypted. Use https, or, if you accept that, allow plain \
             http for this target: the window's 'Allow plain http://' box, `lodge target add \
             ... --allow-insecure`, or allow_insecure = true in the config file"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn only_loopback_may_use_plain_http() {
        let ok = |u: &str, insecure| check_transport(&Url::parse(u).unwrap(), insecure).is_ok();
        assert!(ok("http://127.0.0.1:9000", false));
        assert!(ok("http://127.3.4.5:9000", false));
        assert!(ok("http://localhost:9000", false));
        assert!(ok("http://[::1]:9000", false));
        assert!(!ok("http://10.0.0.5:9000", false));
        assert!(!ok("http://s3.example.org", false));
        assert!(ok("http://s3.example.org", true));
        assert!(ok("https://s3.example.org", false));
    }

    #[test]
    fn a_password_in_a_target_url_is_refused_and_never_shown() {
        let (shown, why) =
            credentials_in_url("webdav+https://alice:hunter2@dav.example.org/lab?x=1").unwrap();
        assert_eq!(shown, "webdav+https://…@dav.example.org/lab?x=1");
        assert!(why.contains("a user name and password") && why.contains("--secret-stdin"));
        let (shown, why) = credentials_in_url("s3://AKIA123@bucket/prefix").unwrap();
        assert_eq!(shown, "s3://…@bucket/prefix");
        assert!(why.contains("a user name before the host"), "{why}");
        for fine in [
            "webdav+https://dav.example.org/remote.php/dav/files/alice@lab/x",
            "sandbox+http://127.0.0.1:8080",
            "s3://bucket/a@b",
            "zenodo+https://zenodo.org",
        ] {
            assert_eq!(credentials_in_url(fine), None, "{fine}");
        }
    }

    /// A loopback HTTP server that takes one request's body `per_read` bytes every
    /// `every` (none at all with `per_read` 0), then answers 201.
    async fn slow_server(per_read: usize, every: Duration) -> std::net::SocketAddr {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        // A small receive buffer, as across a real network: what the server has not read
        // yet stays in the client (loopback's buffers would otherwise hold megabytes).
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(64 * 1024).unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener = socket.listen(1).unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut conn, _) = listener.accept().await.unwrap();
            let mut buf = vec![0u8; per_read.max(1)];
            let mut seen = Vec::new();
            // The head first, at once: then the body, slowly.
            let (head_end, length) = loop {
                let n = conn.read(&mut buf[..1]).await.unwrap();
                assert!(n > 0, "the request ended early");
                seen.push(buf[0]);
                if seen.ends_with(b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&seen).to_ascii_lowercase();
                    let length = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length: "))
                        .map(|v| v.trim().parse::<usize>().unwrap())
                        .unwrap();
                    break (seen.len(), length);
                }
            };
            let _ = head_end;
            let mut body = 0;
            while body < length {
                tokio::time::sleep(every).await;
                if per_read == 0 {
                    continue;
                }
                let want = per_read.min(length - body);
                conn.read_exact(&mut buf[..want]).await.unwrap();
                body += want;
            }
            let answer = b"HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n";
            conn.write_all(answer).await.unwrap();
        });
        addr
    }

    /// A file's PUT to `addr`, given up after `stalled_after` without progress.
    async fn upload(
        addr: std::net::SocketAddr,
        size: usize,
        stalled_after: Duration,
    ) -> (Result<reqwest::Response, Failure>, Duration) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.bin");
        std::fs::write(&path, vec![7u8; size]).unwrap();
        let slice = super::super::stream::FileSlice {
            path: &path,
            offset: 0,
            len: size as u64,
            expect: None,
        };
        let (body, watch) = super::super::stream::file_body(slice, Arc::new(|_| {}))
            .await
            .unwrap();
        let request = client()
            .unwrap()
            .put(format!("http://{addr}/blobs/big"))
            .header(header::CONTENT_LENGTH, size)
            .body(body)
            .build()
            .unwrap();
        let started = std::time::Instant::now();
        let sent = send_file_within(request, &watch, stalled_after).await;
        (sent, started.elapsed())
    }

    #[tokio::test]
    async fn an_upload_longer_than_the_stall_limit_goes_on_while_its_bytes_flow() {
        // 16 MiB taken at about 5 MiB/s: over the 2 s limit in all, but a chunk sent every
        // 0.05 s or so. (The client's send buffer holds up to 4 MiB or so: the last chunk
        // leaves about a second before the server has read it all and answers.)
        let addr = slow_server(512 * 1024, Duration::from_millis(100)).await;
        let (sent, took) = upload(addr, 16 * 1024 * 1024, Duration::from_secs(2)).await;
        let resp = sent.expect("a flowing upload is not cut off");
        assert_eq!(resp.status().as_u16(), 201);
        assert!(
            took > Duration::from_secs(2),
            "it outlasted the limit: {took:?}"
        );
    }

    /// A body opened, then held back before its request left (InvenioRDM waits out its
    /// rate limit there): the wait is no stall, the answer that comes is the one returned.
    #[tokio::test]
    async fn a_wait_between_opening_a_body_and_sending_it_is_not_a_stall() {
        let watch = super::super::stream::BodyWatch::default();
        watch.lock().unwrap().last_progress =
            Some(std::time::Instant::now() - Duration::from_secs(10));
        let url = Url::parse("http://127.0.0.1:9/blobs/big").unwrap();
        let answer = async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            Err(Failure::NotSent {
                message: "the answer".into(),
            })
        };
        let sent =
            super::super::stream::watched(&watch, &url, Duration::from_secs(1), answer).await;
        match sent {
            Err(Failure::NotSent { message }) => assert_eq!(message, "the answer"),
            other => panic!("expected the answer, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn an_upload_the_server_stops_taking_is_given_up_as_ambiguous() {
        let addr = slow_server(0, Duration::from_millis(100)).await;
        let (sent, took) = upload(addr, 32 * 1024 * 1024, Duration::from_millis(500)).await;
        match sent {
            Err(Failure::Ambiguous { message, .. }) => {
                assert!(message.contains("made no progress for 0.5 s"), "{message}")
            }
            other => panic!("expected a stalled upload, got {other:?}"),
        }
        assert!(took < Duration::from_secs(10), "{took:?}");
    }
}
