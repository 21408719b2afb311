//! Multipart upload of one big blob: parts of the file stream from disk in parallel, each
//! hashed as it leaves; meanwhile one sequential pass hashes the whole file and every part
//! again. Only when the whole file matches the manifest and every part matches what was sent
//! is `CompleteMultipartUpload` written, with `If-None-Match: *`. Any failure aborts the
//! upload, so no half-upload is left behind by a job that gives up, nor by one stopped
//! midway ([`crate::targets::cleanup`]); one left by a process killed mid-upload is aborted
//! by the next upload of the same blob that completes.

use std::future::Future;
use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderValue, IF_NONE_MATCH};
use reqwest::{Method, StatusCode};
use sha2::Digest;

use super::{S3Target, errors, etag_of};
use crate::content::{ManifestEntry, Sha256Hex};
use crate::targets::cleanup::UndoOnDrop;
use crate::targets::stream::{FileSlice, file_body, refusal, sent_digest};
use crate::targets::{CONTENT_CHANGED, Failure, ProgressSink};

/// S3 allows at most this many parts.
const MAX_PARTS: u64 = 10_000;

/// Part boundaries: `(number from 1, offset, length)`.
pub fn plan(size: u64, part_size: u64) -> Vec<(u32, u64, u64)> {
    let part = part_size.max(size.div_ceil(MAX_PARTS)).max(1);
    let mut parts = Vec::new();
    let mut offset = 0;
    while offset < size {
        let len = part.min(size - offset);
        parts.push((parts.len() as u32 + 1, offset, len));
        offset += len;
    }
    parts
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Initiated {
    upload_id: String,
}

/// Upload `path` as object `key` by multipart upload.
pub async fn upload(
    target: &S3Target,
    key: &str,
    path: &Path,
    entry: &ManifestEntry,
    progress: &ProgressSink,
) -> Result<(), Failure> {
    let upload_id = create(target, key).await?;
    // Aborted from a task of its own if this attempt is dropped before it ends the upload
    // (stopped, interrupted, its lease lost): a dropped attempt runs no error path.
    let left_open = UndoOnDrop::new(abort_later(target, key, &upload_id));
    let outcome = send_and_complete(target, key, &upload_id, path, entry, progress).await;
    match outcome {
        Ok(Completed::Created) => {
            left_open.disarm();
            abort_others(target, key, &upload_id).await;
            Ok(())
        }
        Ok(Completed::AlreadyThere) => {
            abort(target, key, &upload_id).await;
            left_open.disarm();
            abort_others(target, key, &upload_id).await;
            Ok(())
        }
        Err(failure) => {
            abort(target, key, &upload_id).await;
            left_open.disarm();
            Err(failure)
        }
    }
}

enum Completed {
    Created,
    /// Another writer completed the same blob first (412): ours is not needed.
    AlreadyThere,
}

async fn create(target: &S3Target, key: &str) -> Result<String, Failure> {
    let mut url = target.location.object_url(key);
    url.set_query(Some("uploads="));
    let mut headers = HeaderMap::new();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    let resp = target.exec(Method::POST, url, headers, None).await?;
    if !resp.status().is_success() {
        return Err(target.failure_of(resp).await);
    }
    let text = resp.text().await.map_err(|e| Failure::Ambiguous {
        status: Some(200),
        message: format!("CreateMultipartUpload response cut off: {e}"),
    })?;
    let initiated: Initiated = quick_xml::de::from_str(&text).map_err(|e| Failure::Ambiguous {
        status: Some(200),
        message: format!("unreadable CreateMultipartUpload response ({e}): {text}"),
    })?;
    Ok(initiated.upload_id)
}

async fn send_and_complete(
    target: &S3Target,
    key: &str,
    upload_id: &str,
    path: &Path,
    entry: &ManifestEntry,
    progress: &ProgressSink,
) -> Result<Completed, Failure> {
    let parts = plan(entry.size, target.options.part_size);
    // The sequential pass: whole-file digest and every part's digest, read from disk.
    let verify = {
        let path = path.to_path_buf();
        let parts = parts.clone();
        tokio::task::spawn_blocking(move || hash_parts(&path, &parts))
    };
    let sent = futures_util::stream::iter(parts.iter().copied())
        .map(|(number, offset, len)| {
            send_part(target, key, upload_id, path, number, offset, len, progress)
        })
        .buffered(target.options.parallel_parts.max(1))
        .collect::<Vec<_>>()
        .await;
    let mut etags = Vec::with_capacity(sent.len());
    let mut digests = Vec::with_capacity(sent.len());
    for part in sent {
        let (etag, digest) = part?;
        etags.push(etag);
        digests.push(digest);
    }
    let changed = |message: String| Failure::Changed {
        path: path.display().to_string(),
        message,
    };
    let (whole, on_disk) = verify
        .await
        .map_err(|e| changed(format!("hashing it again failed: {e}")))?
        .map_err(|e| changed(format!("cannot read it any more ({e})")))?;
    if whole != entry.sha256 {
        return Err(changed(format!("{CONTENT_CHANGED} (SHA-256 now {whole})")));
    }
    if let Some(n) = (0..digests.len()).find(|&i| digests[i] != on_disk[i]) {
        return Err(changed(format!(
            "part {} changed while it was being sent",
            n + 1
        )));
    }
    complete(target, key, upload_id, &etags).await
}

#[allow(clippy::too_many_arguments)]
async fn send_part(
    target: &S3Target,
    key: &str,
    upload_id: &str,
    path: &Path,
    number: u32,
    offset: u64,
    len: u64,
    progress: &ProgressSink,
) -> Result<(String, Sha256Hex), Failure> {
    let slice = FileSlice {
        path,
        offset,
        len,
        expect: None,
    };
    let (body, watch) = file_body(slice, progress.clone()).await?;
    let mut url = target.location.object_url(key);
    url.query_pairs_mut()
        .append_pair("partNumber", &number.to_string())
        .append_pair("uploadId", upload_id);
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_LENGTH, HeaderValue::from(len));
    let sent = (target.exec_file(Method::PUT, url, headers, body, &watch)).await;
    if let Some(changed) = refusal(path, &watch) {
        return Err(changed);
    }
    let resp = sent?;
    if !resp.status().is_success() {
        return Err(target.failure_of(resp).await);
    }
    let etag = etag_of(&resp).ok_or_else(|| Failure::Ambiguous {
        status: Some(resp.status().as_u16()),
        message: format!("part {number} of {key}: the server sent no ETag"),
    })?;
    let digest = sent_digest(&watch).ok_or_else(|| Failure::Ambiguous {
        status: None,
        message: format!("part {number} of {key} was not sent completely"),
    })?;
    Ok((etag, digest))
}

async fn complete(
    target: &S3Target,
    key: &str,
    upload_id: &str,
    etags: &[String],
) -> Result<Completed, Failure> {
    let mut body = String::from("<CompleteMultipartUpload>");
    for (i, etag) in etags.iter().enumerate() {
        body.push_str(&format!(
            "<Part><ETag>\"{}\"</ETag><PartNumber>{}</PartNumber></Part>",
            xml_escape(etag),
            i + 1
        ));
    }
    body.push_str("</CompleteMultipartUpload>");
    let mut url = target.location.object_url(key);
    url.query_pairs_mut().append_pair("uploadId", upload_id);
    let mut headers = HeaderMap::new();
    headers.insert(IF_NONE_MATCH, HeaderValue::from_static("*"));
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/xml"));
    headers.insert(CONTENT_LENGTH, HeaderValue::from(body.len() as u64));
    let resp = target
        .exec(Method::POST, url, headers, Some(body.into()))
        .await?;
    let status = resp.status();
    if status == StatusCode::PRECONDITION_FAILED {
        return Ok(Completed::AlreadyThere);
    }
    if !status.is_success() {
        return Err(target.failure_of(resp).await);
    }
    // S3 may answer 200 and put an error in the body.
    let text = resp.text().await.map_err(|e| Failure::Ambiguous {
        status: Some(200),
        message: format!("CompleteMultipartUpload response cut off: {e}"),
    })?;
    let (code, _) = errors::parse_error(&text);
    if !code.is_empty() {
        return Err(errors::classify(&target.context(), 500, None, &text));
    }
    Ok(Completed::Created)
}

/// Uploads still open on the server, as `ListMultipartUploads` lists them.
#[derive(Default, serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct OpenUploads {
    #[serde(default)]
    upload: Vec<OpenUpload>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct OpenUpload {
    key: String,
    upload_id: String,
}

/// Abort every other upload of `key` still open, once the blob is on the server: one cut
/// off by a process killed mid-upload holds its parts (and their storage bill) until a
/// lifecycle rule removes them, and nothing else ever would. A blob's bytes are its key's,
/// so no upload of it is needed any more; a writer still sending one is answered
/// `NoSuchUpload`, starts over, and finds the blob there. Best effort, like [`abort`].
async fn abort_others(target: &S3Target, key: &str, ours: &str) {
    let mut url = target.location.bucket_url();
    url.query_pairs_mut()
        .append_pair("uploads", "")
        .append_pair("prefix", key);
    let Ok(resp) = target.exec(Method::GET, url, HeaderMap::new(), None).await else {
        return;
    };
    if !resp.status().is_success() {
        return;
    }
    let Ok(text) = resp.text().await else {
        return;
    };
    let open: OpenUploads = quick_xml::de::from_str(&text).unwrap_or_default();
    for upload in open.upload {
        if upload.key == key && upload.upload_id != ours {
            abort(target, key, &upload.upload_id).await;
        }
    }
}

/// Best effort: a failed abort leaves parts that the bucket's lifecycle rule removes.
async fn abort(target: &S3Target, key: &str, upload_id: &str) {
    let _ = target
        .exec(
            Method::DELETE,
            abort_url(target, key, upload_id),
            HeaderMap::new(),
            None,
        )
        .await;
}

/// [`abort`], owning what it needs: for a task of its own, which may run after the
/// attempt that began the upload is gone.
fn abort_later(
    target: &S3Target,
    key: &str,
    upload_id: &str,
) -> impl Future<Output = ()> + Send + 'static {
    let (http, signer) = (target.http.clone(), target.signer.clone());
    let url = abort_url(target, key, upload_id);
    async move {
        let Ok(mut request) = http.request(Method::DELETE, url).build() else {
            return;
        };
        if signer.sign(&mut request).is_ok() {
            let _ = http.execute(request).await;
        }
    }
}

fn abort_url(target: &S3Target, key: &str, upload_id: &str) -> reqwest::Url {
    let mut url = target.location.object_url(key);
    url.query_pairs_mut().append_pair("uploadId", upload_id);
    url
}

/// The whole file's SHA-256 and each part's, in one sequential read.
fn hash_parts(
    path: &PathBuf,
    parts: &[(u32, u64, u64)],
) -> std::io::Result<(Sha256Hex, Vec<Sha256Hex>)> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut whole = sha2::Sha256::new();
    let mut out = Vec::with_capacity(parts.len());
    let mut buf = vec![0u8; 1 << 20];
    for &(_, _, len) in parts {
        let mut part = sha2::Sha256::new();
        let mut left = len;
        while left > 0 {
            let want = (buf.len() as u64).min(left) as usize;
            let n = file.read(&mut buf[..want])?;
            if n == 0 {
                return Err(std::io::Error::other("the file is shorter than scanned"));
            }
            whole.update(&buf[..n]);
            part.update(&buf[..n]);
            left -= n as u64;
        }
        out.push(Sha256Hex(part.finalize().into()));
    }
    // Bytes past the scanned size mean the file grew.
    if file.read(&mut buf[..1])? != 0 {
        return Err(std::io::Error::other("the file grew past its scanned size"));
    }
    Ok((Sha256Hex(whole.finalize().into()), out))
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::plan;

    #[test]
    fn parts_cover_the_file_and_stay_under_ten_thousand() {
        let p = plan(100, 30);
        assert_eq!(p, vec![(1, 0, 30), (2, 30, 30), (3, 60, 30), (4, 90, 10)]);
        let big = plan(2 << 40, 16 << 20);
        assert!(big.len() <= 10_000);
        assert_eq!(big.iter().map(|p| p.2).sum::<u64>(), 2 << 40);
    }
}
