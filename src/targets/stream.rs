//! Upload bodies that stream a file (or a range of it) from disk with a bounded buffer,
//! hash the bytes as they leave, and refuse to finish the body when they differ from what
//! the manifest promised, so the server never commits changed data.
//!
//! Every target sends its files through [`file_body`]; memory per upload is one read
//! buffer ([`CHUNK`]) plus what the HTTP client holds in flight, whatever the file size.

use std::io::SeekFrom;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bytes::Bytes;
use sha2::Digest;
use tokio::io::{AsyncReadExt, AsyncSeekExt};

use super::{CONTENT_CHANGED, Failure, ProgressSink};
use crate::content::{ManifestEntry, Sha256Hex};

/// Read size of an upload stream.
pub const CHUNK: usize = 256 * 1024;

/// What the body learnt while it was sent: why it refused to finish, and the SHA-256 of
/// every byte it sent (once it sent them all).
#[derive(Debug, Default)]
pub struct BodyReport {
    pub changed: Option<String>,
    pub sent_digest: Option<Sha256Hex>,
    /// When the body was opened or last sent a chunk: how [`watched`] tells an upload
    /// that goes on from one that stalled.
    pub last_progress: Option<Instant>,
}

/// Shared with the body while it streams; read it after the request returned.
pub type BodyWatch = Arc<Mutex<BodyReport>>;

/// The bytes `offset .. offset + len` of `path`, as an upload body.
pub struct FileSlice<'a> {
    pub path: &'a Path,
    pub offset: u64,
    pub len: u64,
    /// The SHA-256 these bytes must have; the last chunk is held back when they differ.
    pub expect: Option<Sha256Hex>,
}

/// Open `slice` as a streaming body. A file that cannot be opened is [`Failure::Changed`].
pub async fn file_body(
    slice: FileSlice<'_>,
    progress: ProgressSink,
) -> Result<(reqwest::Body, BodyWatch), Failure> {
    let changed = |message: String| Failure::Changed {
        path: slice.path.display().to_string(),
        message,
    };
    let mut file = tokio::fs::File::open(slice.path)
        .await
        .map_err(|e| Failure::reading_local_file(slice.path, "cannot open it any more", &e))?;
    if slice.offset > 0 {
        file.seek(SeekFrom::Start(slice.offset))
            .await
            .map_err(|e| changed(format!("cannot seek in it ({e})")))?;
    }
    let watch = BodyWatch::new(Mutex::new(BodyReport {
        last_progress: Some(Instant::now()),
        ..BodyReport::default()
    }));
    let body = hashing_body(file, slice.len, slice.expect, watch.clone(), progress);
    Ok((body, watch))
}

/// Send the manifest file `entry` (under `root`) as the body of `rb`, a conditional PUT the
/// target built: streamed and hashed as it leaves, with its length and type set. A file that
/// changed since the scan is [`Failure::Changed`], and its body never completes.
pub async fn put_file(
    rb: reqwest::RequestBuilder,
    root: &Path,
    entry: &ManifestEntry,
    progress: &ProgressSink,
) -> Result<reqwest::Response, Failure> {
    let path = crate::content::on_disk(root, &entry.path);
    let slice = FileSlice {
        path: &path,
        offset: 0,
        len: entry.size,
        expect: Some(entry.sha256),
    };
    let (body, watch) = file_body(slice, progress.clone()).await?;
    let request = rb
        .header(reqwest::header::CONTENT_LENGTH, entry.size)
        .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
        .body(body)
        .build()
        .map_err(|e| Failure::from_reqwest(&e))?;
    let sent = super::http::send_file(request, &watch).await;
    if let Some(changed) = refusal(&path, &watch) {
        return Err(changed);
    }
    sent
}

/// How long an upload may make no progress (no chunk taken by the server, or no answer
/// after the last one) before it is given up as stalled.
pub const STALLED_AFTER: std::time::Duration = std::time::Duration::from_secs(120);

/// Await `send`, the request whose body `watch` watches, until it answers or the upload
/// stalls: no chunk taken for `stalled_after` ([`STALLED_AFTER`]), or no answer that long
/// after the last.
/// A file that takes longer than that to send goes on while its bytes flow. `url` names
/// the request in the failure.
pub async fn watched(
    watch: &BodyWatch,
    url: &reqwest::Url,
    stalled_after: std::time::Duration,
    send: impl Future<Output = Result<reqwest::Response, Failure>>,
) -> Result<reqwest::Response, Failure> {
    // The clock starts as the request leaves, not when the body was opened: a target may
    // wait in between (InvenioRDM, for its rate limit, up to two minutes), and that wait is
    // no stall.
    watch
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .last_progress = Some(Instant::now());
    let last_progress = || {
        (watch.lock().unwrap_or_else(|e| e.into_inner()))
            .last_progress
            .unwrap_or_else(Instant::now)
    };
    let mut send = std::pin::pin!(send);
    loop {
        let stalled_at = last_progress() + stalled_after;
        tokio::select! {
            answer = &mut send => return answer,
            () = tokio::time::sleep_until(stalled_at.into()) => {
                if last_progress() + stalled_after > Instant::now() {
                    continue;
                }
                return Err(Failure::Ambiguous {
                    status: None,
                    message: format!(
                        "sending {url} made no progress for {} s: the server stopped taking \
                         the file, or did not answer once it had all of it; it may have done \
                         what was asked, and a retry first looks whether it landed",
                        stalled_after.as_secs_f32()
                    ),
                });
            }
        }
    }
}

/// After the request returned: a refusal recorded by the body, as a failure.
pub fn refusal(path: &Path, watch: &BodyWatch) -> Option<Failure> {
    let message = watch
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .changed
        .take()?;
    Some(Failure::Changed {
        path: path.display().to_string(),
        message,
    })
}

/// The digest of what the body sent, once it sent everything.
pub fn sent_digest(watch: &BodyWatch) -> Option<Sha256Hex> {
    watch.lock().unwrap_or_else(|e| e.into_inner()).sent_digest
}

fn hashing_body(
    file: tokio::fs::File,
    len: u64,
    expect: Option<Sha256Hex>,
    watch: BodyWatch,
    progress: ProgressSink,
) -> reqwest::Body {
    struct State {
        file: tokio::fs::File,
        hasher: sha2::Sha256,
        sent: u64,
        len: u64,
        expect: Option<Sha256Hex>,
        watch: BodyWatch,
        progress: ProgressSink,
    }
    let state = State {
        file,
        hasher: sha2::Sha256::new(),
        sent: 0,
        len,
        expect,
        watch,
        progress,
    };
    let refuse = |st: &State, why: String| {
        st.watch.lock().unwrap_or_else(|e| e.into_inner()).changed = Some(why.clone());
        std::io::Error::other(why)
    };
    let stream = futures_util::stream::try_unfold(state, move |mut st| async move {
        if st.sent == st.len {
            return Ok(None);
        }
        let want = CHUNK.min((st.len - st.sent) as usize);
        let mut buf = vec![0u8; want];
        let n = st.file.read(&mut buf).await?;
        if n == 0 {
            return Err(refuse(
                &st,
                format!("it is now shorter than its scanned size ({} bytes)", st.len),
            ));
        }
        st.hasher.update(&buf[..n]);
        st.sent += n as u64;
        // Check the digest before the last chunk leaves: once the server has Content-Length
        // bytes the request is complete, and the stream may never be polled again.
        if st.sent == st.len {
            let digest = Sha256Hex(st.hasher.clone().finalize().into());
            if let Some(expect) = st.expect
                && digest != expect
            {
                return Err(refuse(
                    &st,
                    format!("{CONTENT_CHANGED} (SHA-256 now {digest})"),
                ));
            }
            st.watch
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .sent_digest = Some(digest);
        }
        (st.progress)(n as u64);
        st.watch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .last_progress = Some(Instant::now());
        buf.truncate(n);
        Ok(Some((Bytes::from(buf), st)))
    });
    reqwest::Body::wrap_stream(stream)
}
