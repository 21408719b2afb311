//! The sandbox target: Lodge's own local repository server (see [`crate::sandbox`]), spoken
//! to over HTTP.
//!
//! Blobs are content-addressed (`/blobs/sha256/HEX`) and sent first; the record
//! (`/records/KEY`, the canonical document as body) is written last with `If-None-Match: *`,
//! so the server arbitrates: 201 created, 412 exists — both success.

use async_trait::async_trait;
use reqwest::{Method, StatusCode, Url, header};

use super::each_file::{FilesAtOnce, send_each_file};
use super::holdings::{content_length, hash_body, read_files};
use super::http::{failure_of, send};
use super::layout::FileLayout;
use super::stream::put_file;
use super::{
    DepositRequest, Failure, FileHeld, Holdings, Landed, ProgressSink, ReadBack, RecordRef, Target,
};
use crate::content::{ContentDocument, ContentKey, ManifestEntry, Sha256Hex};

/// Files at least this big are looked up with HEAD before sending; smaller ones are sent
/// straight away with `If-None-Match: *` (a 412 then costs less than the extra round trip).
const HEAD_FIRST_BYTES: u64 = 1 << 20;

/// Client of one sandbox server.
pub struct SandboxTarget {
    base: Url,
    scope_id: String,
    token: Option<String>,
    http: reqwest::Client,
    /// Its name in the config file, when it is a saved target (messages say which).
    name: Option<String>,
    files_at_once: FilesAtOnce,
}

#[derive(serde::Deserialize)]
struct RecordBody {
    identifier: String,
    url: Option<String>,
}

impl SandboxTarget {
    /// `rest` is the part after `sandbox+`: `http://HOST:PORT`.
    pub fn new(rest: &str, token: Option<String>) -> Result<Self, String> {
        let mut base = Url::parse(rest).map_err(|e| format!("{rest}: {e}"))?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(format!(
                "the scheme must be http or https, not '{}'",
                base.scheme()
            ));
        }
        let host = base
            .host_str()
            .ok_or_else(|| "it names no host".to_string())?
            .to_ascii_lowercase();
        let port = base
            .port_or_known_default()
            .ok_or_else(|| "it names no port".to_string())?;
        super::http::check_url_options(base.query(), &[])?;
        if !base.path().ends_with('/') {
            let p = format!("{}/", base.path());
            base.set_path(&p);
        }
        let path = base.path().trim_end_matches('/');
        let scope_id = format!("sandbox+{}://{host}:{port}{path}", base.scheme());
        let http = super::http::client()?;
        Ok(SandboxTarget {
            base,
            scope_id,
            token,
            http,
            name: None,
            files_at_once: FilesAtOnce::DEFAULT,
        })
    }

    /// The same target, saved in the config file as `name`.
    pub fn named(self, name: &str) -> SandboxTarget {
        SandboxTarget {
            name: Some(name.to_string()),
            ..self
        }
    }

    /// The same target, sending (and reading back) `n` of a deposit's files at once.
    pub fn with_files_at_once(self, n: FilesAtOnce) -> SandboxTarget {
        SandboxTarget {
            files_at_once: n,
            ..self
        }
    }

    fn url(&self, path: &str) -> Url {
        // Joining a relative path onto a base ending in '/' cannot fail.
        self.base.join(path).expect("relative URL")
    }

    fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let mut rb = self.http.request(method, self.url(path));
        if let Some(token) = &self.token {
            rb = rb.bearer_auth(token);
        }
        rb
    }

    async fn blob_exists(&self, digest: &Sha256Hex) -> Result<bool, Failure> {
        let resp = send(self.request(Method::HEAD, &format!("blobs/sha256/{digest}"))).await?;
        match resp.status() {
            StatusCode::OK => Ok(true),
            StatusCode::NOT_FOUND => Ok(false),
            _ => Err(failure_of(resp).await),
        }
    }

    /// What the server holds under a blob's digest: its size (HEAD), or its bytes hashed.
    async fn held_blob(
        &self,
        digest: &Sha256Hex,
        read: ReadBack,
        progress: &ProgressSink,
    ) -> Result<FileHeld, Failure> {
        let method = match read {
            ReadBack::Sizes => Method::HEAD,
            ReadBack::Bytes => Method::GET,
        };
        let resp = send(self.request(method, &format!("blobs/sha256/{digest}"))).await?;
        match (resp.status(), read) {
            (StatusCode::OK, ReadBack::Sizes) => Ok(FileHeld::Present {
                size: content_length(&resp).unwrap_or(0),
                sha256: None,
            }),
            (StatusCode::OK, ReadBack::Bytes) => hash_body(resp, progress).await,
            (StatusCode::NOT_FOUND, _) => Ok(FileHeld::Missing),
            _ => Err(failure_of(resp).await),
        }
    }

    /// Send one file as a blob, hashing the bytes as they go out.
    async fn put_blob(
        &self,
        request: &DepositRequest<'_>,
        entry: &ManifestEntry,
        progress: &ProgressSink,
    ) -> Result<(), Failure> {
        let rb = self
            .request(Method::PUT, &format!("blobs/sha256/{}", entry.sha256))
            .header(header::IF_NONE_MATCH, "*");
        let sent = put_file(rb, request.root, entry, progress).await;
        let resp = sent?;
        match resp.status() {
            StatusCode::CREATED | StatusCode::OK | StatusCode::PRECONDITION_FAILED => Ok(()),
            _ => Err(failure_of(resp).await),
        }
    }
}

/// The `{"identifier", "url"}` a sandbox answers about a record. Anything else (a body cut
/// off, garbage, another server's page) leaves the outcome unknown: the next attempt
/// reconciles first.
async fn read_record_body(resp: reqwest::Response) -> Result<RecordBody, Failure> {
    let status = resp.status().as_u16();
    let url = resp.url().clone();
    let text = resp.text().await.map_err(|e| Failure::Ambiguous {
        status: Some(status),
        message: format!("the answer of {url} was cut off: {e}"),
    })?;
    serde_json::from_str(&text).map_err(|e| Failure::Ambiguous {
        status: Some(status),
        message: format!(
            "{url} answered with a body that is not the JSON a Lodge sandbox sends ({e}): {}. \
             Check that the target URL points at a Lodge sandbox",
            super::failure::summarize_body(&text)
        ),
    })
}

#[async_trait]
impl Target for SandboxTarget {
    fn scope_id(&self) -> &str {
        &self.scope_id
    }

    fn sends_run_token(&self) -> bool {
        self.token.is_some()
    }

    fn label(&self) -> String {
        let at = self.base.host_str().unwrap_or("?").to_owned()
            + &self
                .base
                .port()
                .map(|p| format!(":{p}"))
                .unwrap_or_default();
        match &self.name {
            Some(name) => format!("sandbox target '{name}' at {at}"),
            None => format!("Local sandbox at {at}"),
        }
    }

    fn file_address(
        &self,
        _key: &ContentKey,
        _document: &ContentDocument,
        entry: &ManifestEntry,
    ) -> Option<String> {
        let blob = self
            .base
            .join(&format!("blobs/sha256/{}", entry.sha256))
            .ok()?;
        Some(blob.to_string())
    }

    async fn upload(
        &self,
        request: &DepositRequest<'_>,
        progress: ProgressSink,
    ) -> Result<(), Failure> {
        // Identical files are one blob.
        let manifest = &request.document.manifest;
        send_each_file(
            manifest,
            true,
            self.files_at_once,
            request.files_stored,
            &progress,
            |entry| async {
                if entry.size >= HEAD_FIRST_BYTES && self.blob_exists(&entry.sha256).await? {
                    progress(entry.size);
                    return Ok(());
                }
                self.put_blob(request, entry, &progress).await
            },
        )
        .await
    }

    async fn create_record(&self, request: &DepositRequest<'_>) -> Result<Landed, Failure> {
        let resp = send(
            self.request(Method::PUT, &format!("records/{}", request.key))
                .header(header::IF_NONE_MATCH, "*")
                .header(header::CONTENT_TYPE, "application/json")
                .body(request.document.canonical_json()),
        )
        .await?;
        let status = resp.status();
        match status {
            StatusCode::CREATED | StatusCode::PRECONDITION_FAILED => {
                let body = read_record_body(resp).await?;
                let record = RecordRef {
                    identifier: body.identifier,
                    url: body.url,
                };
                Ok(if status == StatusCode::CREATED {
                    Landed::Created(record)
                } else {
                    Landed::Existing(record)
                })
            }
            _ => Err(failure_of(resp).await),
        }
    }

    async fn lookup(&self, key: &ContentKey) -> Result<Option<RecordRef>, Failure> {
        let resp = send(self.request(Method::GET, &format!("records/{key}"))).await?;
        match resp.status() {
            StatusCode::OK => {
                let body = read_record_body(resp).await?;
                Ok(Some(RecordRef {
                    identifier: body.identifier,
                    url: body.url,
                }))
            }
            StatusCode::NOT_FOUND => Ok(None),
            _ => Err(failure_of(resp).await),
        }
    }

    fn can_lookup(&self) -> bool {
        true
    }

    fn files_can_be_put_back(&self) -> Result<(), &'static str> {
        Ok(())
    }

    async fn holdings(
        &self,
        key: &ContentKey,
        document: &ContentDocument,
        read: ReadBack,
        progress: &ProgressSink,
    ) -> Result<Holdings, Failure> {
        let record = self.lookup(key).await?;
        let (layout, at_once) = (FileLayout::Digests, self.files_at_once);
        read_files(record, document, layout, at_once, |e| {
            Box::pin(self.held_blob(&e.sha256, read, progress))
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_id_is_normalised_and_has_no_credentials() {
        let t = SandboxTarget::new("http://LOCALHOST:8080/", Some("secret".into())).unwrap();
        assert_eq!(t.scope_id(), "sandbox+http://localhost:8080");
        let t = SandboxTarget::new("http://127.0.0.1", None).unwrap();
        assert_eq!(t.scope_id(), "sandbox+http://127.0.0.1:80");
    }

    #[test]
    fn a_url_without_host_is_refused_with_a_reason() {
        assert!(SandboxTarget::new("http://", None).is_err());
        assert!(SandboxTarget::new("ftp://x:1", None).is_err());
    }
}
