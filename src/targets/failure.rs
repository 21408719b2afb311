//! Classification of everything that can go wrong in one attempt (invariant 5).
//!
//! The engine decides what to do from the variant alone: wait and retry, reconcile and retry,
//! stop for good, or pause the whole target until the user acts.

use std::time::{Duration, SystemTime};

use crate::content::FieldProblem;

/// Why an attempt did not land.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Failure {
    /// The server asked us to slow down (429), is unavailable (503), holds a lock on the
    /// resource (423), will not take the request yet (425) or has no room for it (507): the
    /// write did not happen. Retry after `retry_after` when given.
    #[error("server busy (HTTP {status}): {message}")]
    Wait {
        status: u16,
        retry_after: Option<Duration>,
        message: String,
    },
    /// The request may or may not have taken effect: a timeout, a reset, a dropped response
    /// or a 5xx after the request left. Retry with the same key, reconciling first.
    #[error("outcome unknown{}: {message}", status.map(|s| format!(" (HTTP {s})")).unwrap_or_default())]
    Ambiguous {
        status: Option<u16>,
        message: String,
    },
    /// The request never left this machine (connection refused, name not resolved): safe to
    /// retry.
    #[error("could not reach the server: {message}")]
    NotSent { message: String },
    /// The server refused the content (400/422): terminal, never retried. `status` 0: Lodge
    /// refused it before sending (for targets whose servers do not validate records).
    #[error("rejected{}: {}", if *status == 0 { String::new() } else { format!(" (HTTP {status})") }, problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))]
    Rejected {
        status: u16,
        problems: Vec<FieldProblem>,
    },
    /// Credentials missing or refused (401/403): the target stops until the user acts.
    #[error("not authorised (HTTP {status}): {message}")]
    Unauthorized { status: u16, message: String },
    /// A local file changed since it was scanned. The fix (a rescan, or for a folder that
    /// is gone what `message` says) is for whoever shows it to name: `lodge scan N`, the
    /// window's Rescan.
    #[error("changed since scan: {path}: {message}")]
    Changed { path: String, message: String },
    /// A local file of the dataset cannot be read (its permissions): nothing changed, and
    /// the job fails at once, since trying again alone cannot help; once the file can be
    /// read, a retry sends it with the same key.
    #[error("cannot read {path}: {message}: let Lodge read it (its permissions), then retry")]
    Unreadable { path: String, message: String },
    /// The server holds a different record under this identifier: terminal, a person decides.
    #[error("conflict: {message}")]
    Conflict { message: String },
    /// The target cannot be used as it is configured — TLS refused, a redirect, a server
    /// that ignores conditional writes — whatever the job: the target stops until the user
    /// fixes it. `message` names the URL and the fix.
    #[error("{message}")]
    Unusable {
        status: Option<u16>,
        message: String,
    },
}

/// How the message of a [`Failure::Changed`] begins when a file's bytes differ from its
/// scan's digest as they are sent (its size and modification time may not: a copy that
/// keeps times, `touch -d`).
pub const CONTENT_CHANGED: &str = "content changed";

/// What the engine does about a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureClass {
    /// Retry later; the write certainly did not happen.
    Retry,
    /// Retry later; the write may have happened, reconcile first.
    RetryAmbiguous,
    /// Never retry automatically.
    Terminal,
    /// Stop every job of this target until the user acts.
    PauseTarget,
    /// End the job failed now (a dead letter, re-queued with one click): something on
    /// this machine needs fixing first, and trying again alone would only fail again.
    FailNow,
}

impl Failure {
    /// The file whose bytes were found changed as they were sent ([`CONTENT_CHANGED`]),
    /// if that is what this failure is.
    pub fn content_changed_path(&self) -> Option<&str> {
        match self {
            Failure::Changed { path, message } if message.starts_with(CONTENT_CHANGED) => {
                Some(path)
            }
            _ => None,
        }
    }

    pub fn class(&self) -> FailureClass {
        match self {
            Failure::Wait { .. } | Failure::NotSent { .. } => FailureClass::Retry,
            Failure::Ambiguous { .. } => FailureClass::RetryAmbiguous,
            Failure::Rejected { .. } | Failure::Changed { .. } | Failure::Conflict { .. } => {
                FailureClass::Terminal
            }
            Failure::Unauthorized { .. } | Failure::Unusable { .. } => FailureClass::PauseTarget,
            Failure::Unreadable { .. } => FailureClass::FailNow,
        }
    }

    /// A dataset's file at `path` could not be opened or read (`e`): unreadable when its
    /// permissions say no, else changed since the scan (gone, replaced) — `what` says which
    /// step failed, e.g. "cannot open it any more".
    pub fn reading_local_file(path: &std::path::Path, what: &str, e: &std::io::Error) -> Failure {
        let path = path.display().to_string();
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            Failure::Unreadable {
                path,
                message: e.to_string(),
            }
        } else {
            Failure::Changed {
                path,
                message: format!("{what} ({e})"),
            }
        }
    }

    /// The same failure, said of the dataset's file `path` (its path in the manifest) when
    /// it is the server's refusal of that file's upload (too large, say): "request" alone
    /// leaves a person to guess which of a thousand files to split. A refusal of the target
    /// (a missing bucket) or one that names the file already is kept as it is.
    pub fn naming_file(self, path: &str) -> Failure {
        match self {
            Failure::Rejected { status, problems } => Failure::Rejected {
                status,
                problems: problems
                    .into_iter()
                    .map(|p| match p.field.as_str() {
                        "request" | "size" if !p.message.contains(path) => FieldProblem {
                            field: format!("file '{path}'"),
                            message: p.message,
                        },
                        _ => p,
                    })
                    .collect(),
            },
            other => other,
        }
    }

    /// The HTTP status behind the failure, when there was one.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            Failure::Rejected { status: 0, .. } | Failure::Unauthorized { status: 0, .. } => None,
            Failure::Wait { status, .. }
            | Failure::Rejected { status, .. }
            | Failure::Unauthorized { status, .. } => Some(*status),
            Failure::Ambiguous { status, .. } | Failure::Unusable { status, .. } => *status,
            _ => None,
        }
    }

    /// How long the server asked us to wait, when it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Failure::Wait { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Classify a non-success HTTP status. `body` is the response text, used for messages;
    /// `retry_after` is the raw `Retry-After` header value.
    pub fn from_status(status: u16, retry_after: Option<&str>, body: &str) -> Failure {
        let message = summarize_body(body);
        match status {
            // 423: a WebDAV lock someone else holds; 425: the server will not take a request
            // that might be replayed yet; 507: no room left (a WebDAV quota, say). None of
            // them acted on the request; each can clear with time.
            429 | 503 | 423 | 425 | 507 => Failure::Wait {
                status,
                retry_after: retry_after.and_then(parse_retry_after),
                message: match status {
                    // No "retrying later" here: the retry's event says when, and a job
                    // that gives up quotes this message after "gave up".
                    423 => format!("another client holds a lock on it ({message})"),
                    507 => format!(
                        "the server has no room left for it (a full disk or a used-up quota): \
                         free some space there or ask for a larger quota ({message})"
                    ),
                    _ => message,
                },
            },
            // The server gave up waiting for the rest of the request: a timeout like any
            // other, retried with the same key (and reconciled first), never terminal.
            408 => Failure::Ambiguous {
                status: Some(status),
                message,
            },
            401 | 403 => Failure::Unauthorized { status, message },
            // Not followed (a write must not land somewhere else than its target): the
            // target's URL is not the server's.
            300..=399 => Failure::Unusable {
                status: Some(status),
                message: format!(
                    "the server answered with a redirect (HTTP {status}), which Lodge does not \
                     follow: set the target URL to the address the server redirects to"
                ),
            },
            400 | 422 => Failure::Rejected {
                status,
                problems: problems_from_body(body),
            },
            // Too large for the server: sending it again sends the same size. A server
            // that says why and what to do is quoted alone; after a bare "too large" (a
            // proxy's page, say) Lodge gives its own advice.
            413 => Failure::Rejected {
                status,
                problems: vec![FieldProblem {
                    field: "size".into(),
                    message: if says_only_too_large(body, &message) {
                        format!(
                            "the server takes no request this large ({message}): a file is \
                             over its size limit; ask its administrators for a larger one, or \
                             split the file"
                        )
                    } else {
                        format!("the server takes no request this large: {message}")
                    },
                }],
            },
            // Any other 4xx means the request itself is wrong: retrying sends it again. (The
            // status is said once, by the failure's own words: "rejected (HTTP 404): …".)
            400..=499 => Failure::Rejected {
                status,
                problems: vec![FieldProblem {
                    field: "request".into(),
                    message,
                }],
            },
            // 5xx after the request left: the server may have committed before failing.
            _ => Failure::Ambiguous {
                status: Some(status),
                message,
            },
        }
    }

    /// Classify a transport error. Whether the request left decides between
    /// [`Failure::NotSent`] and [`Failure::Ambiguous`].
    pub fn from_reqwest(err: &reqwest::Error) -> Failure {
        let message = crate::wording::with_causes(err);
        let origin = err
            .url()
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or_else(|| "the server".into());
        if err.is_connect() && is_tls_failure(err) {
            Failure::Unusable {
                status: None,
                message: format!(
                    "the secure (TLS) connection to {origin} failed ({message}): check that \
                     the server speaks https at that address (an https:// URL to a plain http \
                     server fails like this) and that its certificate is valid for that name \
                     and signed by an authority this computer trusts; then fix the target URL \
                     or the server"
                ),
            }
        } else if err.is_redirect() {
            Failure::Unusable {
                status: None,
                message: format!(
                    "{origin} redirects in a loop ({message}): fix the target URL so that it \
                     names the server's real address"
                ),
            }
        } else if err.is_connect() {
            Failure::NotSent {
                message: connect_failure_text(err, &origin, message),
            }
        } else if err.is_builder() {
            Failure::Rejected {
                status: 0,
                problems: vec![FieldProblem {
                    field: "request".into(),
                    message,
                }],
            }
        } else if err.is_timeout() {
            // The request left and no answer came in time: it may have been committed.
            let what = err
                .url()
                .map_or_else(|| "a request".to_string(), |u| u.to_string());
            Failure::Ambiguous {
                status: None,
                message: format!(
                    "{origin} did not answer {what} in time: the server is slow or stuck, and \
                     may have done what was asked; a retry first looks whether it landed"
                ),
            }
        } else {
            Failure::Ambiguous {
                status: None,
                message: cut_connection_text(err, &origin, err.url()).unwrap_or(message),
            }
        }
    }
}

/// What a connection cut after the request left means for the person reading it (the
/// server stopped or restarted mid-request, or dropped it), naming what was being sent;
/// `None` when the transport failed otherwise.
fn cut_connection_text(
    err: &(dyn std::error::Error + 'static),
    origin: &str,
    url: Option<&reqwest::Url>,
) -> Option<String> {
    let mut how = None;
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = next {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            how = match io.kind() {
                std::io::ErrorKind::ConnectionReset => Some("reset by the server"),
                std::io::ErrorKind::ConnectionAborted => Some("aborted"),
                std::io::ErrorKind::BrokenPipe => Some("closed by the server"),
                std::io::ErrorKind::UnexpectedEof => Some("closed by the server"),
                _ => how,
            };
        }
        // hyper says so of a connection closed under a request, with no I/O error under
        // it to look at; its words are the only sign.
        if e.to_string()
            .contains("connection closed before message completed")
        {
            how = how.or(Some("closed by the server"));
        }
        next = e.source();
    }
    let what = url.map_or_else(|| "a request".to_string(), |u| u.to_string());
    Some(format!(
        "the connection to {origin} was {} during {what}: the server stopped, restarted or \
         dropped the request; a retry first looks whether it landed",
        how?
    ))
}

/// Whether a connect error came from the TLS handshake rather than from TCP: the TLS layer
/// reports its refusals as I/O errors of kind `InvalidData` (a certificate not trusted, or a
/// server answering plain HTTP), TCP never does.
fn is_tls_failure(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = err.source();
    while let Some(e) = next {
        // I/O errors nest as `Other(InvalidData(tls error))`, and an I/O error's `source`
        // skips the error it wraps: look inside each one.
        let mut io = e.downcast_ref::<std::io::Error>();
        while let Some(i) = io {
            if i.kind() == std::io::ErrorKind::InvalidData {
                return true;
            }
            io = i
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<std::io::Error>());
        }
        next = e.source();
    }
    false
}

/// What a failed connection means for the person reading it: the two common causes in
/// words, with what to check; anything else as the transport said it.
fn connect_failure_text(
    err: &(dyn std::error::Error + 'static),
    origin: &str,
    chain: String,
) -> String {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = next {
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return format!(
                "{origin} refused the connection: is the repository running, and is that \
                 its address?"
            );
        }
        next = e.source();
    }
    if let Some((_, why)) = chain.split_once("dns error: ") {
        return format!(
            "the host name of {origin} could not be looked up ({why}): check the target URL \
             and this computer's network"
        );
    }
    chain
}

/// Whether a job's recorded error says its files changed after the scan ([`Failure::Changed`]):
/// the fix is a rescan, not a retry.
pub fn is_changed_since_scan(recorded_error: &str) -> bool {
    recorded_error.starts_with(CHANGED_SINCE_SCAN)
}

/// How [`Failure::Changed`] reads, as recorded in a job's last error.
const CHANGED_SINCE_SCAN: &str = "changed since scan";

/// Whether a target's recorded pause reason is refused credentials ([`Failure::Unauthorized`]),
/// which new credentials fix, rather than a target that cannot be used as it is
/// ([`Failure::Unusable`]: the URL, the server or this computer's clock needs fixing first).
pub fn is_paused_for_credentials(pause_reason: &str) -> bool {
    pause_reason.starts_with(NOT_AUTHORISED)
}

/// How [`Failure::Unauthorized`] reads, as recorded in a target's pause reason.
const NOT_AUTHORISED: &str = "not authorised";

/// `Retry-After` as delta-seconds or an HTTP date.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// Field problems from a JSON body of the forms `{"errors":[{"field","message"}]}`,
/// `{"errors":[{"field","messages":[..]}]}` or `{"errors":[{"source","title"}]}`; otherwise one
/// problem carrying the body's text.
pub fn problems_from_body(body: &str) -> Vec<FieldProblem> {
    let mut out = Vec::new();
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(body)
        && let Some(errors) = json.get("errors").and_then(|e| e.as_array())
    {
        for e in errors {
            let field = e
                .get("field")
                .or_else(|| e.get("source"))
                .and_then(|f| f.as_str())
                .unwrap_or("record")
                .to_string();
            let mut messages: Vec<String> = Vec::new();
            for k in ["message", "title", "detail"] {
                if let Some(m) = e.get(k).and_then(|m| m.as_str()) {
                    messages.push(m.to_string());
                }
            }
            if let Some(ms) = e.get("messages").and_then(|m| m.as_array()) {
                messages.extend(ms.iter().filter_map(|m| m.as_str().map(String::from)));
            }
            if messages.is_empty() {
                messages.push(e.to_string());
            }
            for message in messages {
                out.push(FieldProblem {
                    field: field.clone(),
                    message,
                });
            }
        }
    }
    if out.is_empty() {
        out.push(FieldProblem {
            field: "record".into(),
            message: summarize_body(body),
        });
    }
    out
}

/// Whether a 413's `body` (summarized: `message`) says no more than that the request is too
/// large (an HTML error page, a bare reason phrase, nothing): then Lodge's own advice follows.
fn says_only_too_large(body: &str, message: &str) -> bool {
    let words = message.split_whitespace().count();
    let lower = message.to_ascii_lowercase();
    message == EMPTY_BODY
        || html_page_summary(body.trim()).is_some()
        || (words <= 6
            && ["too large", "entity", "limit exceeded", "too big"]
                .iter()
                .any(|phrase| lower.contains(phrase)))
}

/// What [`summarize_body`] says of a response with no body.
const EMPTY_BODY: &str = "(empty response body)";

/// What a person should read of a response body: the messages of a JSON error body
/// (`{"errors":[...]}` or `{"message": ...}`), the title of an HTML page, else the start of
/// the text.
pub fn summarize_body(body: &str) -> String {
    let body = body.trim();
    if body.is_empty() {
        return EMPTY_BODY.into();
    }
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(body) {
        if json.get("errors").is_some_and(|e| e.is_array()) {
            let problems = problems_from_body(body);
            return problems
                .iter()
                .map(|p| p.message.clone())
                .collect::<Vec<_>>()
                .join("; ");
        }
        if let Some(message) = json.get("message").and_then(|m| m.as_str()) {
            return message.to_string();
        }
    } else if let Some(page) = html_page_summary(body) {
        return page;
    }
    let mut s: String = body.chars().take(300).collect();
    if body.chars().count() > 300 {
        s.push('…');
    }
    s
}

/// An HTML page (a server's or a proxy's error page, a login page) instead of an answer Lodge
/// reads: its title, or its first heading, or its text. A WebDAV server's own errors come
/// this way too, so the words do not presume a proxy.
fn html_page_summary(body: &str) -> Option<String> {
    let head: String = body
        .chars()
        .take(512)
        .collect::<String>()
        .to_ascii_lowercase();
    if !(head.starts_with("<!doctype html") || head.contains("<html")) {
        return None;
    }
    let inner = |tag: &str| {
        let lower = body.to_ascii_lowercase();
        let open = lower.find(&format!("<{tag}"))?;
        let start = open + lower[open..].find('>')? + 1;
        let end = start + lower[start..].find(&format!("</{tag}"))?;
        Some(body.get(start..end)?.to_string())
    };
    let (how, text) = match inner("title").or_else(|| inner("h1")) {
        Some(title) => ("titled", title),
        None => ("reading", body.to_string()),
    };
    let mut plain = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => plain.push(c),
            _ => {}
        }
    }
    let words: Vec<&str> = plain.split_whitespace().collect();
    let mut summary: String = words.join(" ").chars().take(200).collect();
    if summary.is_empty() {
        summary = "(nothing)".into();
    }
    Some(format!(
        "an HTML page {how} '{summary}', not an answer Lodge can read: an error page of the \
         server or of a proxy in front of it, or a page at a URL that is not the repository's"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_file_is_recognised_in_the_recorded_error_and_nothing_else_is() {
        let changed = Failure::Changed {
            path: "/data/run1/a.csv".into(),
            message: "size is now 10 bytes, was 2".into(),
        };
        assert!(is_changed_since_scan(&changed.to_string()));
        let rejected = Failure::Rejected {
            status: 422,
            problems: vec![],
        };
        assert!(!is_changed_since_scan(&rejected.to_string()));
    }

    #[test]
    fn a_file_that_cannot_be_read_fails_now_for_a_retry_and_a_gone_one_is_changed() {
        let path = std::path::Path::new("/data/run1/a.csv");
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let unreadable = Failure::reading_local_file(path, "cannot open it any more", &denied);
        assert_eq!(unreadable.class(), FailureClass::FailNow);
        let said = unreadable.to_string();
        assert!(said.starts_with("cannot read /data/run1/a.csv: "), "{said}");
        assert!(
            said.ends_with("let Lodge read it (its permissions), then retry"),
            "{said}"
        );
        assert!(!is_changed_since_scan(&said), "{said}");

        let gone = std::io::Error::from(std::io::ErrorKind::NotFound);
        let changed = Failure::reading_local_file(path, "cannot open it any more", &gone);
        assert_eq!(changed.class(), FailureClass::Terminal);
        assert!(is_changed_since_scan(&changed.to_string()), "{changed}");
    }

    #[test]
    fn statuses_map_to_the_invariant_5_classes() {
        assert_eq!(
            Failure::from_status(429, Some("3"), "").class(),
            FailureClass::Retry
        );
        assert_eq!(
            Failure::from_status(429, Some("3"), "").retry_after(),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            Failure::from_status(503, None, "").class(),
            FailureClass::Retry
        );
        assert_eq!(
            Failure::from_status(500, None, "").class(),
            FailureClass::RetryAmbiguous
        );
        assert_eq!(
            Failure::from_status(504, None, "").class(),
            FailureClass::RetryAmbiguous
        );
        assert_eq!(
            Failure::from_status(422, None, "").class(),
            FailureClass::Terminal
        );
        assert_eq!(
            Failure::from_status(400, None, "").class(),
            FailureClass::Terminal
        );
        assert_eq!(
            Failure::from_status(401, None, "").class(),
            FailureClass::PauseTarget
        );
        assert_eq!(
            Failure::from_status(403, None, "").class(),
            FailureClass::PauseTarget
        );
    }

    #[test]
    fn a_pause_for_refused_credentials_is_told_apart_from_an_unusable_target() {
        let refused = Failure::from_status(401, None, "bad token");
        assert!(is_paused_for_credentials(&refused.to_string()), "{refused}");
        let redirected = Failure::from_status(301, None, "");
        assert_eq!(redirected.class(), FailureClass::PauseTarget);
        assert!(!is_paused_for_credentials(&redirected.to_string()));
    }

    #[test]
    fn a_request_timeout_is_retried_as_ambiguous_not_rejected() {
        let timeout = Failure::from_status(408, None, "Request Timeout");
        assert_eq!(timeout.class(), FailureClass::RetryAmbiguous);
        assert_eq!(timeout.http_status(), Some(408));
    }

    #[test]
    fn a_locked_resource_a_too_early_request_or_a_full_server_waits_and_honours_retry_after() {
        for status in [423, 425, 507] {
            let busy = Failure::from_status(status, Some("7"), "");
            assert_eq!(busy.class(), FailureClass::Retry, "HTTP {status}");
            assert_eq!(
                busy.retry_after(),
                Some(Duration::from_secs(7)),
                "HTTP {status}"
            );
        }
        let locked = Failure::from_status(423, None, "");
        assert!(locked.to_string().contains("lock"), "{locked}");
        let full = Failure::from_status(507, None, "");
        assert_eq!(full.class(), FailureClass::Retry);
        assert!(full.to_string().contains("no room left"), "{full}");
        // The retry's event says when; a job that gives up quotes these after "gave up".
        for said in [locked.to_string(), full.to_string()] {
            assert!(!said.contains("retrying"), "{said}");
        }
        // Any other 4xx is still the request's own fault.
        assert_eq!(
            Failure::from_status(404, None, "").class(),
            FailureClass::Terminal
        );
    }

    #[test]
    fn a_refused_request_says_its_status_once() {
        let gone = Failure::from_status(404, None, r#"{"status":404,"message":"Not found"}"#);
        assert_eq!(gone.to_string(), "rejected (HTTP 404): request: Not found");
    }

    #[test]
    fn a_request_too_large_is_refused_for_good_naming_the_size_limit_and_the_fix() {
        let big = Failure::from_status(413, None, "<title>413 Request Entity Too Large</title>");
        assert_eq!(big.class(), FailureClass::Terminal);
        let said = big.to_string();
        assert!(
            said.starts_with("rejected (HTTP 413): size: the server takes no request this large"),
            "{said}"
        );
        assert!(said.contains("413 Request Entity Too Large"), "{said}");
        assert!(said.ends_with("or split the file"), "{said}");
    }

    #[test]
    fn a_server_that_explains_its_size_limit_is_quoted_without_lodges_generic_advice() {
        let explained = Failure::from_status(
            413,
            None,
            r#"{"status":413,"message":"scan.tif is larger than the 64 MiB this server keeps a file: deposit it to the archive instead"}"#,
        );
        assert_eq!(
            explained.to_string(),
            "rejected (HTTP 413): size: the server takes no request this large: scan.tif is \
             larger than the 64 MiB this server keeps a file: deposit it to the archive instead"
        );
        for bare in [
            "",
            "Payload Too Large",
            "<html><title>413 Request Entity Too Large</title></html>",
        ] {
            let said = Failure::from_status(413, None, bare).to_string();
            assert!(said.ends_with("or split the file"), "{bare:?} gave: {said}");
        }
    }

    #[test]
    fn retry_after_accepts_an_http_date() {
        let later = SystemTime::now() + Duration::from_secs(120);
        let parsed = parse_retry_after(&httpdate::fmt_http_date(later)).unwrap();
        assert!(parsed <= Duration::from_secs(120) && parsed >= Duration::from_secs(100));
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn messages_are_read_out_of_json_error_bodies() {
        let f = Failure::from_status(
            503,
            None,
            r#"{"errors":[{"field":"request","message":"service unavailable"}]}"#,
        );
        assert_eq!(f.to_string(), "server busy (HTTP 503): service unavailable");
        let f = Failure::from_status(500, None, r#"{"status":500,"message":"boom"}"#);
        assert_eq!(f.to_string(), "outcome unknown (HTTP 500): boom");
    }

    #[test]
    fn html_error_pages_are_summarised_by_their_title() {
        let page = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\
                    <body><center><h1>502 Bad Gateway</h1></center><hr>nginx</body></html>";
        let f = Failure::from_status(502, None, page);
        let text = f.to_string();
        assert!(
            text.contains("HTML page titled '502 Bad Gateway'"),
            "{text}"
        );
        assert!(!text.contains("<center>"), "{text}");
        assert_eq!(f.class(), FailureClass::RetryAmbiguous);
        // A WebDAV server's own error page is such a page too: the words presume no API
        // and no proxy, only offer them.
        assert!(
            text.contains("an error page of the server or of a proxy in front of it"),
            "{text}"
        );
        assert!(!text.contains("API"), "{text}");
    }

    #[tokio::test]
    async fn a_refused_connection_names_the_address_and_what_to_check() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = closed.local_addr().unwrap();
        drop(closed);
        let err = reqwest::Client::new()
            .get(format!("http://{addr}/records/x"))
            .send()
            .await
            .expect_err("nothing listens there");
        let f = Failure::from_reqwest(&err);
        assert_eq!(f.class(), FailureClass::Retry, "the request never left");
        assert_eq!(
            f.to_string(),
            format!(
                "could not reach the server: http://{addr} refused the connection: is the \
                 repository running, and is that its address?"
            )
        );
    }

    /// A server that takes the request and does not answer within the read timeout: the
    /// outcome is unknown, said in words, not as the HTTP library's "operation timed out".
    #[tokio::test]
    async fn a_server_that_does_not_answer_in_time_is_said_to_maybe_have_done_it() {
        use tokio::io::AsyncReadExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = [0u8; 1024];
            let _ = socket.read(&mut request).await;
            // Reads the request and never answers.
            tokio::time::sleep(std::time::Duration::from_secs(30)).await;
        });
        let err = reqwest::Client::builder()
            .read_timeout(std::time::Duration::from_millis(200))
            .build()
            .unwrap()
            .put(format!("http://{addr}/records/k"))
            .body("{}")
            .send()
            .await
            .expect_err("no answer comes");
        let f = Failure::from_reqwest(&err);
        assert_eq!(f.class(), FailureClass::RetryAmbiguous);
        assert_eq!(
            f.to_string(),
            format!(
                "outcome unknown: http://{addr} did not answer http://{addr}/records/k in \
                 time: the server is slow or stuck, and may have done what was asked; a retry \
                 first looks whether it landed"
            )
        );
    }

    /// A server that takes the connection and drops it mid-upload (stopped, restarted).
    #[tokio::test]
    async fn a_connection_cut_mid_upload_says_so_and_that_the_outcome_is_unknown() {
        use tokio::io::AsyncReadExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut first = [0u8; 1024];
            let _ = socket.read(&mut first).await;
            // Dropped with unread bytes waiting: the kernel answers with a reset.
        });
        let err = reqwest::Client::new()
            .put(format!("http://{addr}/blobs/sha256/ab"))
            .body(vec![7u8; 8 << 20])
            .send()
            .await
            .expect_err("the server drops the connection");
        let f = Failure::from_reqwest(&err);
        assert_eq!(f.class(), FailureClass::RetryAmbiguous);
        let text = f.to_string();
        assert!(
            text.starts_with(&format!(
                "outcome unknown: the connection to http://{addr} was "
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "during http://{addr}/blobs/sha256/ab: the server stopped, restarted or \
                 dropped the request"
            )),
            "{text}"
        );
    }

    #[test]
    fn a_host_name_not_found_says_to_check_the_url_and_the_network() {
        let chain = "error sending request for url (https://h.invalid/x): client error \
                     (Connect): dns error: failed to lookup address information: Name or \
                     service not known";
        let io = std::io::Error::other("dns");
        assert_eq!(
            connect_failure_text(&io, "https://h.invalid", chain.into()),
            "the host name of https://h.invalid could not be looked up (failed to lookup \
             address information: Name or service not known): check the target URL and this \
             computer's network"
        );
        // Anything else is said as the transport said it.
        assert_eq!(
            connect_failure_text(&io, "https://h", "handshake ended".into()),
            "handshake ended"
        );
    }

    #[test]
    fn redirects_stop_the_target() {
        let f = Failure::from_status(302, None, "");
        assert_eq!(f.class(), FailureClass::PauseTarget);
        assert!(f.to_string().contains("redirect"), "{f}");
    }

    #[test]
    fn field_errors_are_read_from_json_bodies() {
        let p = problems_from_body(r#"{"errors":[{"field":"title","message":"is required"}]}"#);
        assert_eq!(p[0].field, "title");
        assert_eq!(p[0].message, "is required");
    }
}
