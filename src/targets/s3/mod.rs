//! The S3-compatible target (`s3://bucket/prefix` on AWS, MinIO, Ceph, moto...).
//!
//! Files are sent first where the target's [`FileLayout`] keeps them (content-addressed,
//! `PREFIX/blobs/sha256/HEX`, or with `?layout=folders` `PREFIX/datasets/TITLE-KEY12/PATH`),
//! each with its SHA-256 in `x-amz-checksum-sha256` so the server verifies what landed; big
//! files go by multipart upload ([`multipart`]). The record (`PREFIX/records/KEY.json`, or
//! `KEY.folders.json` in the folders layout) is written last with `If-None-Match: *`: 200 created, 412 exists (both success), 409
//! ConditionalRequestConflict ambiguous. A restarted job HEADs large files and skips those
//! there.

mod errors;
pub mod location;
mod multipart;
mod probe;
pub mod sign;

use async_trait::async_trait;
use base64::Engine as _;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderValue, IF_NONE_MATCH};
use reqwest::{Method, StatusCode, Url};

use super::each_file::{FilesAtOnce, send_each_file};
use super::holdings::{hash_body, read_files};
use super::http::client;
use super::keyed_lock::KeyedLock;
use super::layout::FileLayout;
use super::probe::ProbeReport;
use super::record::{record_body, validate};
use super::secret::{CredentialsFix, UserSecret};
use super::stream::{FileSlice, file_body, refusal};
use super::{
    DepositRequest, Failure, FileHeld, Holdings, Landed, ProgressSink, ReadBack, RecordRef, Target,
};
use crate::content::{ContentDocument, ContentKey, ManifestEntry, Sha256Hex};
pub use location::S3Location;

/// Files at least this big are looked up with HEAD before sending.
const HEAD_FIRST_BYTES: u64 = 1 << 20;

/// Options of an S3 target beyond where it writes.
#[derive(Clone, Debug)]
pub struct S3Options {
    /// Files of at least this many bytes go by multipart upload (default 64 MiB).
    pub multipart_threshold: u64,
    /// Size of each part (at least 5 MiB on AWS; raised so no file needs > 10,000 parts).
    pub part_size: u64,
    /// Parts in flight at once.
    pub parallel_parts: usize,
    /// A deposit's files in flight at once (each may be a multipart upload of its own).
    pub files_at_once: FilesAtOnce,
}

impl Default for S3Options {
    fn default() -> Self {
        S3Options {
            multipart_threshold: 64 << 20,
            part_size: 16 << 20,
            parallel_parts: 4,
            files_at_once: FilesAtOnce::DEFAULT,
        }
    }
}

/// The region in the `lodge target add` of [`S3Target::region_set_by`], which a message
/// replaces with the bucket's region when the server names it.
pub const REGION_PLACEHOLDER: &str = "REGION";

/// Client of one bucket and prefix.
pub struct S3Target {
    name: String,
    location: S3Location,
    scope_id: String,
    signer: sign::Signer,
    options: S3Options,
    http: reqwest::Client,
    /// The environment variable the secret key comes from, if the config names one: a
    /// refused secret is fixed there, not in the keyring.
    secret_env: Option<String>,
    user_env: Option<String>,
    /// Where new credentials for it are stored, for messages.
    credentials_fix: Option<CredentialsFix>,
    /// Where its region is set anew (the command's `--region` given as
    /// [`REGION_PLACEHOLDER`]), for a bucket that is in another region.
    region_fix: Option<CredentialsFix>,
    /// Each object (by the SHA-256 of its key) is sent by one of this target's deposits at
    /// a time: a second deposit of the same file waits and finds it there, rather than
    /// sending it beside the first (a large one by a multipart upload of its own, which the
    /// first would then abort as left over).
    file_uploads: KeyedLock<Sha256Hex>,
}

impl S3Target {
    /// `name` is what messages call the target (its configured name, or its URL).
    pub fn new(
        name: &str,
        location: S3Location,
        credentials: UserSecret,
        options: S3Options,
    ) -> Result<S3Target, String> {
        Ok(S3Target {
            name: name.to_string(),
            scope_id: location.scope_id(),
            signer: sign::Signer::new(credentials, location.region.clone()),
            location,
            options,
            http: client()?,
            secret_env: None,
            user_env: None,
            credentials_fix: None,
            region_fix: None,
            file_uploads: KeyedLock::default(),
        })
    }

    /// The same target, its secret key read from the environment variable `var`.
    pub fn secret_from_env(self, var: Option<String>) -> S3Target {
        S3Target {
            secret_env: var,
            ..self
        }
    }

    /// The same target, `fix` (the `lodge target add` that saves its keys again, or
    /// Settings) named where the server refuses them.
    pub fn credentials_stored_by(self, fix: CredentialsFix) -> S3Target {
        S3Target {
            credentials_fix: Some(fix),
            ..self
        }
    }

    /// The same target, `fix` (the `lodge target add` that saves it with every setting
    /// kept but its region, `--region` [`REGION_PLACEHOLDER`]; or Settings) named where the
    /// bucket turns out to be in another region.
    pub fn region_set_by(self, fix: CredentialsFix) -> S3Target {
        S3Target {
            region_fix: Some(fix),
            ..self
        }
    }

    /// The same target, its access key id read from the environment variable `var`.
    pub fn access_key_from_env(self, var: Option<String>) -> S3Target {
        S3Target {
            user_env: var,
            ..self
        }
    }

    fn context(&self) -> errors::Context<'_> {
        errors::Context {
            name: &self.name,
            bucket: &self.location.bucket,
            region: &self.location.region,
            secret_env: self.secret_env.as_deref(),
            user_env: self.user_env.as_deref(),
            credentials_fix: self.credentials_fix.as_ref(),
            region_fix: self.region_fix.as_ref(),
        }
    }

    async fn failure_of(&self, resp: reqwest::Response) -> Failure {
        errors::failure_of(&self.context(), resp).await
    }

    /// Build, sign and send one request.
    async fn exec(
        &self,
        method: Method,
        url: Url,
        headers: HeaderMap,
        body: Option<reqwest::Body>,
    ) -> Result<reqwest::Response, Failure> {
        let request = self.signed(method, url, headers, body)?;
        send_request(&self.http, request).await
    }

    /// [`Self::exec`] of a request whose body is a file's (or a part of one), `watch`
    /// watching it: sent for as long as the upload makes progress
    /// ([`super::http::execute`]).
    async fn exec_file(
        &self,
        method: Method,
        url: Url,
        headers: HeaderMap,
        body: reqwest::Body,
        watch: &super::stream::BodyWatch,
    ) -> Result<reqwest::Response, Failure> {
        let request = self.signed(method, url, headers, Some(body))?;
        super::http::execute(&self.http, request, Some(watch)).await
    }

    /// The request, built and signed.
    fn signed(
        &self,
        method: Method,
        url: Url,
        headers: HeaderMap,
        body: Option<reqwest::Body>,
    ) -> Result<reqwest::Request, Failure> {
        let mut rb = self.http.request(method, url).headers(headers);
        if let Some(body) = body {
            rb = rb.body(body);
        }
        let mut request = rb.build().map_err(|e| Failure::from_reqwest(&e))?;
        self.signer.sign(&mut request)?;
        Ok(request)
    }

    /// HEAD an object: its size and ETag when it exists.
    async fn head(&self, key: &str) -> Result<Option<(u64, Option<String>)>, Failure> {
        let resp = self
            .exec(
                Method::HEAD,
                self.location.object_url(key),
                HeaderMap::new(),
                None,
            )
            .await?;
        match resp.status() {
            StatusCode::OK => {
                let size = resp
                    .headers()
                    .get(CONTENT_LENGTH)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                Ok(Some((size, etag_of(&resp))))
            }
            StatusCode::NOT_FOUND => Ok(None),
            // HEAD has no body: give the bucket check a body to classify.
            StatusCode::FORBIDDEN => Err(errors::classify(&self.context(), 403, None, "")),
            _ => Err(self.failure_of(resp).await),
        }
    }

    /// What the bucket holds under the object key `key`: its size (HEAD), or its bytes
    /// hashed.
    async fn held_file(
        &self,
        key: &str,
        read: ReadBack,
        progress: &ProgressSink,
    ) -> Result<FileHeld, Failure> {
        if read == ReadBack::Sizes {
            return Ok(match self.head(key).await? {
                Some((size, _)) => FileHeld::Present { size, sha256: None },
                None => FileHeld::Missing,
            });
        }
        let resp = self
            .exec(
                Method::GET,
                self.location.object_url(key),
                HeaderMap::new(),
                None,
            )
            .await?;
        match resp.status() {
            StatusCode::OK => hash_body(resp, progress).await,
            StatusCode::NOT_FOUND => Ok(FileHeld::Missing),
            _ => Err(self.failure_of(resp).await),
        }
    }

    /// Send one file to the object key `key`, by single PUT or multipart upload.
    async fn put_file(
        &self,
        request: &DepositRequest<'_>,
        entry: &ManifestEntry,
        key: &str,
        progress: &ProgressSink,
    ) -> Result<(), Failure> {
        let path = crate::content::on_disk(request.root, &entry.path);
        if entry.size >= self.options.multipart_threshold {
            return multipart::upload(self, key, &path, entry, progress).await;
        }
        let slice = FileSlice {
            path: &path,
            offset: 0,
            len: entry.size,
            expect: Some(entry.sha256),
        };
        let (body, watch) = file_body(slice, progress.clone()).await?;
        let mut headers = HeaderMap::new();
        headers.insert(IF_NONE_MATCH, HeaderValue::from_static("*"));
        headers.insert(CONTENT_LENGTH, HeaderValue::from(entry.size));
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/octet-stream"),
        );
        headers.insert(
            "x-amz-checksum-sha256",
            HeaderValue::from_str(&checksum_header(&entry.sha256)).expect("base64 is ASCII"),
        );
        let sent = self
            .exec_file(
                Method::PUT,
                self.location.object_url(key),
                headers,
                body,
                &watch,
            )
            .await;
        if let Some(changed) = refusal(&path, &watch) {
            return Err(changed);
        }
        let resp = sent?;
        match resp.status() {
            StatusCode::OK | StatusCode::CREATED => verify_echoed_checksum(&resp, entry, key),
            // Already there: by another deposit, or by another tool under the digest's name
            // (or in this key's own folder). Of another size it is not this file, and the
            // deposit would be damaged from the start (a large file is looked up before it
            // is sent, the same check).
            StatusCode::PRECONDITION_FAILED => match self.head(key).await? {
                Some((size, _)) if size != entry.size => {
                    Err(self.wrong_size_file(key, size, entry))
                }
                _ => Ok(()),
            },
            _ => Err(self.failure_of(resp).await),
        }
    }

    /// Object `key` is on the server with `size` bytes, not `entry`'s: a conditional write
    /// cannot replace it, so a person removes it (it is not this file's bytes).
    fn wrong_size_file(&self, key: &str, size: u64, entry: &ManifestEntry) -> Failure {
        Failure::Conflict {
            message: format!(
                "target '{}': {} {key} holds {}, not {} ({}); remove it so it can be sent \
                 again",
                self.name,
                self.location.layout.noun(),
                crate::wording::count_of(size, "byte", "bytes"),
                entry.size,
                entry.path
            ),
        }
    }

    fn record_ref(&self, key: &ContentKey) -> RecordRef {
        self.record_ref_at(&self.location.record_key(key))
    }

    fn record_ref_at(&self, object: &str) -> RecordRef {
        let url = self.location.object_url(object);
        RecordRef {
            identifier: url.to_string(),
            url: Some(url.to_string()),
        }
    }

    /// Read an existing record back and check it is the record of `key`.
    async fn read_record(&self, key: &ContentKey) -> Result<Option<RecordRef>, Failure> {
        self.read_record_at(&self.location.record_key(key), key)
            .await
    }

    /// Read the object `object` and check it is Lodge's record of `key`.
    async fn read_record_at(
        &self,
        object: &str,
        key: &ContentKey,
    ) -> Result<Option<RecordRef>, Failure> {
        let resp = self
            .exec(
                Method::GET,
                self.location.object_url(object),
                HeaderMap::new(),
                None,
            )
            .await?;
        match resp.status() {
            StatusCode::OK => {
                let body = resp.bytes().await.map_err(|e| Failure::Ambiguous {
                    status: Some(200),
                    message: format!("the record {object} could not be read back: {e}"),
                })?;
                // An S3 PUT is atomic: whatever is there and is not our record is someone
                // else's object, whole or damaged.
                if super::record::found_record(&body, key) != super::record::FoundRecord::Ours {
                    return Err(Failure::Conflict {
                        message: format!(
                            "target '{}': {object} exists but is not Lodge's record of this \
                             key; move it away or deposit under another prefix",
                            self.name
                        ),
                    });
                }
                Ok(Some(self.record_ref_at(object)))
            }
            StatusCode::NOT_FOUND => self.bucket_still_there(resp).await.map(|()| None),
            _ => Err(self.failure_of(resp).await),
        }
    }

    /// A 404 to a GET says whether the object or the whole bucket is missing: a deleted
    /// bucket is not a lost record (and a repair would only be refused), so it is said as
    /// what it is, naming the bucket.
    async fn bucket_still_there(&self, not_found: reqwest::Response) -> Result<(), Failure> {
        let body = not_found.text().await.unwrap_or_default();
        match errors::parse_error(&body).0.as_str() {
            "NoSuchBucket" => Err(errors::classify(&self.context(), 404, None, &body)),
            _ => Ok(()),
        }
    }
}

/// Send a built request; transport errors classified.
async fn send_request(
    http: &reqwest::Client,
    request: reqwest::Request,
) -> Result<reqwest::Response, Failure> {
    http.execute(request)
        .await
        .map_err(|e| Failure::from_reqwest(&e))
}

/// The unquoted ETag of a response.
fn etag_of(resp: &reqwest::Response) -> Option<String> {
    resp.headers()
        .get(reqwest::header::ETAG)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim_matches('"').to_string())
}

/// `x-amz-checksum-sha256`: the base64 of the raw digest.
fn checksum_header(digest: &Sha256Hex) -> String {
    base64::engine::general_purpose::STANDARD.encode(digest.0)
}

/// A server that supports checksums echoes the one it computed: compare it.
fn verify_echoed_checksum(
    resp: &reqwest::Response,
    entry: &ManifestEntry,
    key: &str,
) -> Result<(), Failure> {
    let Some(echoed) = resp
        .headers()
        .get("x-amz-checksum-sha256")
        .and_then(|v| v.to_str().ok())
    else {
        return Ok(());
    };
    if echoed == checksum_header(&entry.sha256) {
        Ok(())
    } else {
        Err(Failure::Conflict {
            message: format!(
                "{key}: the server computed SHA-256 {echoed} (base64) for what it stored, not \
                 the file's {}; the upload was corrupted in transit",
                entry.sha256
            ),
        })
    }
}

#[async_trait]
impl Target for S3Target {
    fn scope_id(&self) -> &str {
        &self.scope_id
    }

    fn label(&self) -> String {
        let mut where_ = format!("s3://{}", self.location.bucket);
        if !self.location.prefix.is_empty() {
            where_ = format!("{where_}/{}", self.location.prefix);
        }
        format!(
            "S3 {where_} at {}{}",
            self.location.endpoint.as_str().trim_end_matches('/'),
            self.location.layout.label_note()
        )
    }

    fn link_to_open(&self, record_url: &str) -> Option<String> {
        let key = self
            .location
            .record_key_of_url(&Url::parse(record_url).ok()?)?;
        // Signed as the key is encoded now, whatever encoding the URL was recorded with.
        let url = self.location.object_url(&key);
        self.signer
            .presigned_get(
                &url,
                super::RECORD_LINK_LIFETIME,
                std::time::SystemTime::now(),
            )
            .ok()
            .map(String::from)
    }

    async fn upload(
        &self,
        request: &DepositRequest<'_>,
        progress: ProgressSink,
    ) -> Result<(), Failure> {
        validate(request)?;
        let manifest = &request.document.manifest;
        let shared = self.location.layout.shares_identical_files();
        let at_once = self.options.files_at_once;
        send_each_file(
            manifest,
            shared,
            at_once,
            request.files_stored,
            &progress,
            |entry| async {
                let key = self
                    .location
                    .file_key(&request.key, request.document, entry);
                let _sent_by_this_deposit_alone =
                    self.file_uploads.hold(Sha256Hex::of(key.as_bytes())).await;
                if entry.size >= HEAD_FIRST_BYTES
                    && let Some((size, _)) = self.head(&key).await?
                {
                    if size != entry.size {
                        return Err(self.wrong_size_file(&key, size, entry));
                    }
                    progress(entry.size);
                    return Ok(());
                }
                self.put_file(request, entry, &key, &progress).await
            },
        )
        .await
    }

    async fn create_record(&self, request: &DepositRequest<'_>) -> Result<Landed, Failure> {
        validate(request)?;
        let body = record_body(request);
        let mut headers = HeaderMap::new();
        headers.insert(IF_NONE_MATCH, HeaderValue::from_static("*"));
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(CONTENT_LENGTH, HeaderValue::from(body.len() as u64));
        headers.insert(
            "x-amz-checksum-sha256",
            HeaderValue::from_str(&checksum_header(&Sha256Hex::of(&body))).expect("ASCII"),
        );
        let object = self.location.record_key(&request.key);
        let resp = self
            .exec(
                Method::PUT,
                self.location.object_url(&object),
                headers,
                Some(body.into()),
            )
            .await?;
        match resp.status() {
            StatusCode::OK | StatusCode::CREATED => {
                Ok(Landed::Created(self.record_ref(&request.key)))
            }
            StatusCode::PRECONDITION_FAILED => match self.read_record(&request.key).await? {
                Some(record) => Ok(Landed::Existing(record)),
                None => Err(Failure::Ambiguous {
                    status: Some(412),
                    message: format!(
                        "target '{}': {object} was reported to exist but cannot be read back",
                        self.name
                    ),
                }),
            },
            _ => Err(self.failure_of(resp).await),
        }
    }

    async fn lookup(&self, key: &ContentKey) -> Result<Option<RecordRef>, Failure> {
        self.read_record(key).await
    }

    fn can_lookup(&self) -> bool {
        true
    }

    fn files_can_be_put_back(&self) -> Result<(), &'static str> {
        Ok(())
    }

    /// The record is an object (a file) named by the key: written again, it is the one
    /// recorded.
    fn rewrites_gone_records(&self) -> bool {
        true
    }

    fn file_address(
        &self,
        key: &ContentKey,
        document: &ContentDocument,
        entry: &ManifestEntry,
    ) -> Option<String> {
        let l = &self.location;
        Some(format!(
            "s3://{}/{}",
            l.bucket,
            l.file_key(key, document, entry)
        ))
    }

    fn datasets_base(&self) -> Option<String> {
        let l = &self.location;
        (l.layout == FileLayout::Folders).then(|| match l.prefix.as_str() {
            "" => format!("s3://{}/", l.bucket),
            prefix => format!("s3://{}/{prefix}/", l.bucket),
        })
    }

    async fn holdings(
        &self,
        key: &ContentKey,
        document: &ContentDocument,
        read: ReadBack,
        progress: &ProgressSink,
    ) -> Result<Holdings, Failure> {
        let record = super::record::record_to_check(self.location.layout, key, |path| async move {
            self.read_record_at(&self.location.key(&path), key).await
        })
        .await?;
        let (layout, at_once) = (self.location.layout, self.options.files_at_once);
        read_files(record, document, layout, at_once, |e| {
            let object = self.location.file_key(key, document, e);
            Box::pin(async move { self.held_file(&object, read, progress).await })
        })
        .await
    }

    async fn probe(&self) -> ProbeReport {
        probe::run(self).await
    }
}
