//! The WebDAV target (`webdav+https://host/path`; `webdav+http` for loopback or with
//! `allow_insecure`): Nextcloud, ownCloud, Apache mod_dav, wsgidav...
//!
//! Folders are made with MKCOL (405 = exists), files are PUT with `If-None-Match: *` where
//! the target's [`FileLayout`] keeps them (`PATH/blobs/sha256/HEX`, or with
//! `?layout=folders` `PATH/datasets/TITLE-KEY12/PATH`), and the record
//! `PATH/records/KEY.json` (`KEY.folders.json` in the folders layout) is written last, with the same condition: 201 created, 412
//! exists. A file already there is checked by size and replaced when the size is wrong:
//! many servers write a PUT's body as it arrives, so a cut-off upload leaves part of a file
//! behind (one still growing is another upload's, left to it).
//! Basic auth. A server that ignores the condition is found out by [`Target::probe`]
//! (`lodge target test`).

use async_trait::async_trait;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, IF_NONE_MATCH};
use reqwest::{Method, StatusCode, Url};

use super::each_file::{FilesAtOnce, send_each_file};
use super::holdings::{hash_body, read_files};
use super::http::{client, failure_of, send};
use super::keyed_lock::KeyedLock;
use super::layout::{FileLayout, dataset_folder};
use super::probe::ProbeReport;
use super::record::{FoundRecord, found_record, record_body, validate};
use super::secret::{CredentialsFix, UserSecret};
use super::stream::put_file;
use super::{
    DepositRequest, Failure, FileHeld, Holdings, Landed, ProgressSink, ReadBack, RecordRef, Target,
};
use crate::content::{ContentDocument, ContentKey, ManifestEntry, Sha256Hex};

/// Files at least this big are looked up with HEAD before sending.
const HEAD_FIRST_BYTES: u64 = 1 << 20;

/// How long a blob found short is watched for growth before it is taken for what a cut-off
/// upload left: an upload still arriving grows in far less, even over a slow link.
const STILL_ARRIVING_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Client of one WebDAV folder.
pub struct WebDavTarget {
    name: String,
    base: Url,
    scope_id: String,
    layout: FileLayout,
    auth: Option<UserSecret>,
    http: reqwest::Client,
    /// Set once the layout's top folders (`blobs/sha256/` or `datasets/`, and `records/`)
    /// are known to exist. A cell rather than a flag so that concurrent deposits wait for
    /// one MKCOL of each instead of racing them: some servers (wsgidav) answer the loser of
    /// two MKCOLs of one folder with a 500.
    folders_made: tokio::sync::OnceCell<()>,
    /// Whether the server ignores case in names, once asked
    /// ([`WebDavTarget::refuse_names_one_file_there`]).
    ignores_case: tokio::sync::OnceCell<bool>,
    /// Each stored file (by the SHA-256 of its path) is sent by one of this target's
    /// deposits at a time: the server writes a PUT's body as it arrives, and a second
    /// deposit of the same file finding it half written would take it for what a cut-off
    /// upload left, and delete it.
    file_uploads: KeyedLock<Sha256Hex>,
    /// The environment variable the password comes from, if the config names one: a
    /// refused password is fixed there, not in the keyring.
    secret_env: Option<String>,
    /// Where new credentials for it are stored, for messages.
    credentials_fix: Option<CredentialsFix>,
    files_at_once: FilesAtOnce,
}

impl WebDavTarget {
    /// `rest` is the URL after `webdav+`: `https://host[:port]/path`, and
    /// `?layout=folders` to keep each dataset's files in a folder of its own.
    pub fn new(name: &str, rest: &str, auth: Option<UserSecret>) -> Result<Self, String> {
        let mut base = Url::parse(rest).map_err(|e| format!("{rest}: {e}"))?;
        let layout = FileLayout::from_query(base.query())?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(format!(
                "the scheme must be webdav+https or webdav+http, not webdav+{}",
                base.scheme()
            ));
        }
        let host = base
            .host_str()
            .ok_or_else(|| "it names no host".to_string())?
            .to_ascii_lowercase();
        let port = base.port_or_known_default().unwrap_or(0);
        let _ = base.set_username("");
        let _ = base.set_password(None);
        base.set_query(None);
        base.set_fragment(None);
        if !base.path().ends_with('/') {
            let p = format!("{}/", base.path());
            base.set_path(&p);
        }
        let path = base.path().trim_end_matches('/');
        // `//lodge` is another identity than `/lodge` for one place (and a server reads
        // `//host/...` as an absolute URI): the folders it means are written once each.
        if path.contains("//") {
            return Err(format!(
                "its path '{path}' has an empty part (//): write the folders it means, \
                 e.g. webdav+{}://{host}:{port}{}",
                base.scheme(),
                path.split('/')
                    .filter(|s| !s.is_empty())
                    .fold(String::new(), |p, s| p + "/" + s)
            ));
        }
        let scope_id = format!(
            "webdav+{}://{host}:{port}{path}{}",
            base.scheme(),
            layout.scope_suffix()
        );
        Ok(WebDavTarget {
            name: name.to_string(),
            base,
            scope_id,
            layout,
            auth,
            http: client()?,
            folders_made: tokio::sync::OnceCell::new(),
            ignores_case: tokio::sync::OnceCell::new(),
            file_uploads: KeyedLock::default(),
            secret_env: None,
            credentials_fix: None,
            files_at_once: FilesAtOnce::DEFAULT,
        })
    }

    /// The same target, sending (and reading back) `n` of a deposit's files at once.
    pub fn with_files_at_once(self, n: FilesAtOnce) -> WebDavTarget {
        WebDavTarget {
            files_at_once: n,
            ..self
        }
    }

    /// The same target, its password read from the environment variable `var`.
    pub fn secret_from_env(self, var: Option<String>) -> WebDavTarget {
        WebDavTarget {
            secret_env: var,
            ..self
        }
    }

    /// The same target, `fix` (a `lodge target add` with `--secret-stdin`, or Settings)
    /// named where the server refuses its credentials.
    pub fn credentials_stored_by(self, fix: CredentialsFix) -> WebDavTarget {
        WebDavTarget {
            credentials_fix: Some(fix),
            ..self
        }
    }

    /// The URL of `path` under the folder, each of its `/`-separated segments
    /// percent-encoded (a file may be called `notes #2.txt`); a trailing `/` is kept.
    fn url(&self, path: &str) -> Url {
        let mut url = self.base.clone();
        if !path.is_empty() {
            let mut segments = url.path_segments_mut().expect("an http URL");
            segments.pop_if_empty();
            segments.extend(path.split('/'));
        }
        url
    }

    fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let rb = self.http.request(method, self.url(path));
        match &self.auth {
            Some(a) => rb.basic_auth(&a.user, Some(a.secret.expose())),
            None => rb,
        }
    }

    async fn failure(&self, resp: reqwest::Response) -> Failure {
        match failure_of(resp).await {
            // Let in but refused (a wrong password is answered 401): the user may not write
            // here, and no other password changes that.
            Failure::Unauthorized { status: 403, .. } if let Some(auth) = &self.auth => {
                Failure::Unauthorized {
                    status: 403,
                    message: format!(
                        "target '{}': the server refused user '{}' (HTTP 403 Forbidden): the \
                         user needs write access to {} (a read-only share, say); give it, or \
                         use a user that has it (`lodge target test {}` checks)",
                        self.name, auth.user, self.base, self.name
                    ),
                }
            }
            Failure::Unauthorized { status, .. } => Failure::Unauthorized {
                status,
                message: match &self.secret_env {
                    // The variable wins over a stored password: storing one changes nothing.
                    Some(var) => format!(
                        "target '{}': the server refused the user name or password: put the \
                         right password in ${var}, where this target reads it, and check the \
                         user (lodge target list)",
                        self.name
                    ),
                    None => match &self.credentials_fix {
                        Some(CredentialsFix::Settings) => format!(
                            "target '{name}': the server refused the user name or password: \
                             correct them in Settings (Targets, Edit next to '{name}')",
                            name = self.name
                        ),
                        command => format!(
                            "target '{}': the server refused the user name or password: store \
                             the right ones with `{}` (it reads the password from standard \
                             input; change --user if the user name is wrong)",
                            self.name,
                            match command {
                                Some(CredentialsFix::Command(c)) => c.clone(),
                                _ => format!(
                                    "lodge target add {} URL --user USER --secret-stdin",
                                    self.name
                                ),
                            }
                        ),
                    },
                },
            },
            other => other,
        }
    }

    /// MKCOL the layout's top folders (405: already there), once for all of this target's
    /// deposits; after a failure the next deposit tries again.
    async fn make_folders(&self) -> Result<(), Failure> {
        self.folders_made
            .get_or_try_init(|| self.mkcol_each_folder())
            .await
            .map(|_| ())
    }

    async fn mkcol_each_folder(&self) -> Result<(), Failure> {
        let folders: &[&str] = match self.layout {
            FileLayout::Digests => &["blobs/", "blobs/sha256/", "records/"],
            FileLayout::Folders => &["datasets/", "records/"],
        };
        for folder in folders {
            self.mkcol(folder).await?;
        }
        Ok(())
    }

    /// MKCOL one folder; one already there (405) is as good.
    async fn mkcol(&self, folder: &str) -> Result<(), Failure> {
        let mkcol = Method::from_bytes(b"MKCOL").expect("method name");
        let resp = send(self.request(mkcol, folder)).await?;
        match resp.status() {
            StatusCode::CREATED | StatusCode::METHOD_NOT_ALLOWED | StatusCode::OK => Ok(()),
            StatusCode::CONFLICT => Err(Failure::Rejected {
                status: 409,
                problems: vec![crate::content::FieldProblem {
                    // Shown as "target 'NAME': folder ...".
                    field: format!("target '{}'", self.name),
                    message: format!(
                        "folder {} does not exist on the server (HTTP 409 on MKCOL \
                         {folder}): create it or fix the URL",
                        self.base
                    ),
                }],
            }),
            _ => Err(self.failure(resp).await),
        }
    }

    /// In the folders layout, files whose names differ only in case (`Data.csv`,
    /// `data.csv`) are one file on a server that ignores case in names (a share on Windows
    /// or macOS): the second's conditional write is answered "already there", and taken as
    /// sent, one file's bytes would be lost. Such a deposit is refused before anything is
    /// sent. Whether the server ignores case is asked only for a dataset that has such
    /// names, once for the target.
    async fn refuse_names_one_file_there(
        &self,
        request: &DepositRequest<'_>,
    ) -> Result<(), Failure> {
        if self.layout != FileLayout::Folders {
            return Ok(());
        }
        let paths = request.document.manifest.iter().map(|e| e.path.as_str());
        let Some(named) = crate::content::case_collisions(paths) else {
            return Ok(());
        };
        if !*self
            .ignores_case
            .get_or_try_init(|| self.asks_ignoring_case())
            .await?
        {
            return Ok(());
        }
        Err(Failure::Rejected {
            status: 0,
            problems: vec![crate::content::FieldProblem {
                field: "files".into(),
                message: format!(
                    "target '{}' ignores case in names, and {named} differ only in case: it \
                     would keep one file for both; rename one of each pair (then rescan), or \
                     deposit to this server without ?layout=folders, which keeps files by \
                     their digest",
                    self.name
                ),
            }],
        })
    }

    /// Whether the server ignores case in names: it finds the layout's top folder
    /// (`datasets/`, made before) under the name in capitals. Any other answer than a
    /// found folder (404, or a server that refuses PROPFIND of what it does not have) is
    /// taken as keeping case: the question must not stop a deposit the files' own
    /// requests would answer for.
    async fn asks_ignoring_case(&self) -> Result<bool, Failure> {
        let propfind = Method::from_bytes(b"PROPFIND").expect("method name");
        let resp = send(self.request(propfind, "DATASETS/").header("Depth", "0")).await?;
        Ok(resp.status().is_success())
    }

    /// In the folders layout, MKCOL the dataset's folder and each folder within it that its
    /// manifest names, parents first (the server makes no parents).
    async fn make_dataset_folders(&self, request: &DepositRequest<'_>) -> Result<(), Failure> {
        if self.layout != FileLayout::Folders {
            return Ok(());
        }
        let top = dataset_folder(&request.key, request.document);
        let mut folders = std::collections::BTreeSet::new();
        for entry in &request.document.manifest {
            let mut at = 0;
            while let Some(slash) = entry.path[at..].find('/') {
                at += slash + 1;
                folders.insert(&entry.path[..at]);
            }
        }
        self.mkcol(&format!("{top}/")).await?;
        // In order, a folder comes after its parent ("a/" < "a/b/").
        for folder in folders {
            self.mkcol(&format!("{top}/{folder}")).await?;
        }
        Ok(())
    }

    /// The size of what the folder holds at `path`, if anything.
    async fn file_size(&self, path: &str) -> Result<Option<u64>, Failure> {
        let resp = send(self.request(Method::HEAD, path)).await?;
        match resp.status() {
            StatusCode::OK => Ok(Some(
                resp.headers()
                    .get(CONTENT_LENGTH)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0),
            )),
            StatusCode::NOT_FOUND => Ok(None),
            _ => Err(self.failure(resp).await),
        }
    }

    /// What the folder holds at `path`: its size (HEAD), or its bytes hashed.
    async fn held_file(
        &self,
        path: &str,
        read: ReadBack,
        progress: &ProgressSink,
    ) -> Result<FileHeld, Failure> {
        if read == ReadBack::Sizes {
            return Ok(match self.file_size(path).await? {
                Some(size) => FileHeld::Present { size, sha256: None },
                None => FileHeld::Missing,
            });
        }
        let resp = send(self.request(Method::GET, path)).await?;
        match resp.status() {
            StatusCode::OK => hash_body(resp, progress).await,
            StatusCode::NOT_FOUND => Ok(FileHeld::Missing),
            _ => Err(self.failure(resp).await),
        }
    }

    /// Send `entry` to `path` unless the folder holds it whole. "Already there" (412) is
    /// checked by size: a WebDAV server such as wsgidav writes a PUT's body as it arrives,
    /// so an upload cut off (Lodge killed, the server stopped, the network gone) leaves part
    /// of a file there, and a record written over it would be damaged from the start.
    async fn send_file(
        &self,
        request: &DepositRequest<'_>,
        entry: &ManifestEntry,
        path: &str,
        progress: &ProgressSink,
    ) -> Result<(), Failure> {
        if self.put_file_once(request, entry, path, progress).await? {
            return Ok(());
        }
        match self.file_size(path).await? {
            Some(size) if size == entry.size => Ok(()),
            Some(size) => {
                self.settle_wrong_size(request, entry, path, size, progress)
                    .await
            }
            None => Err(self.gone(path)),
        }
    }

    /// Gone between two requests (someone replacing it): ask again later.
    fn gone(&self, path: &str) -> Failure {
        Failure::Ambiguous {
            status: None,
            message: format!(
                "target '{}': {} {} was there, then gone; sent again on the next try",
                self.name,
                self.layout.noun(),
                self.url(path)
            ),
        }
    }

    /// The folder holds `held` bytes at `path`, not the file's size. Fewer may be another
    /// process's upload of the same file still arriving (a lab's other machine depositing
    /// a dataset that shares it; within this process one deposit at a time sends a file):
    /// look again after a moment, and leave a file that grows to its writer. One that does
    /// not grow is what a cut-off upload left, and is replaced.
    async fn settle_wrong_size(
        &self,
        request: &DepositRequest<'_>,
        entry: &ManifestEntry,
        path: &str,
        mut held: u64,
        progress: &ProgressSink,
    ) -> Result<(), Failure> {
        if held < entry.size {
            tokio::time::sleep(STILL_ARRIVING_WAIT).await;
            match self.file_size(path).await? {
                Some(now) if now == entry.size => return Ok(()),
                Some(now) if now > held => {
                    return Err(Failure::Ambiguous {
                        status: None,
                        message: format!(
                            "target '{}': {} {} is still arriving from another upload ({now} \
                             of {} bytes, {} more than {} before); looked at again on the next try",
                            self.name,
                            self.layout.noun(),
                            self.url(path),
                            entry.size,
                            crate::wording::human_bytes(now - held),
                            crate::wording::wait_text(STILL_ARRIVING_WAIT)
                        ),
                    });
                }
                Some(now) => held = now,
                None => return Err(self.gone(path)),
            }
        }
        self.replace_file(request, entry, path, held, progress)
            .await
    }

    /// One conditional PUT of a file: whether the server took it (`false`: it was there).
    async fn put_file_once(
        &self,
        request: &DepositRequest<'_>,
        entry: &ManifestEntry,
        path: &str,
        progress: &ProgressSink,
    ) -> Result<bool, Failure> {
        let rb = self.request(Method::PUT, path).header(IF_NONE_MATCH, "*");
        let resp = put_file(rb, request.root, entry, progress).await?;
        match resp.status() {
            s if s.is_success() => Ok(true),
            StatusCode::PRECONDITION_FAILED => Ok(false),
            _ => Err(self.failure(resp).await),
        }
    }

    /// The folder holds `held` bytes at `path`, not the file's size. The path is the
    /// content's digest, or a file in the folder of this key alone, so that file is not
    /// this content: what a cut-off upload left. Delete it, send the file again, and check
    /// that it is whole now.
    async fn replace_file(
        &self,
        request: &DepositRequest<'_>,
        entry: &ManifestEntry,
        path: &str,
        held: u64,
        progress: &ProgressSink,
    ) -> Result<(), Failure> {
        let resp = send(self.request(Method::DELETE, path)).await?;
        if !(resp.status().is_success() || resp.status() == StatusCode::NOT_FOUND) {
            return Err(self.failure(resp).await);
        }
        self.put_file_once(request, entry, path, progress).await?;
        match self.file_size(path).await? {
            Some(size) if size == entry.size => Ok(()),
            now => Err(Failure::Ambiguous {
                status: None,
                message: format!(
                    "target '{}': {} {} held {held} bytes of {} (an upload cut off); sent \
                     again, it holds {}: tried again later",
                    self.name,
                    self.layout.noun(),
                    self.url(path),
                    entry.size,
                    now.map_or("nothing".to_string(), |n| format!("{n} bytes"))
                ),
            }),
        }
    }

    fn record_ref(&self, key: &ContentKey) -> RecordRef {
        self.record_ref_at(&self.layout.record_path(key))
    }

    fn record_ref_at(&self, path: &str) -> RecordRef {
        let url = self.url(path).to_string();
        RecordRef {
            identifier: url.clone(),
            url: Some(url),
        }
    }

    async fn read_record(&self, key: &ContentKey) -> Result<Option<RecordRef>, Failure> {
        self.read_record_at(&self.layout.record_path(key), key)
            .await
    }

    /// Read the file at `path` and check it is Lodge's record of `key`.
    async fn read_record_at(
        &self,
        path: &str,
        key: &ContentKey,
    ) -> Result<Option<RecordRef>, Failure> {
        let resp = send(self.request(Method::GET, path)).await?;
        match resp.status() {
            StatusCode::OK => {
                let body = resp.bytes().await.map_err(|e| Failure::Ambiguous {
                    status: Some(200),
                    message: format!("the record could not be read back: {e}"),
                })?;
                match found_record(&body, key) {
                    FoundRecord::Ours => {}
                    // Another deposit of this key may be writing it right now: ask again
                    // later (the retry looks the record up before sending anything).
                    FoundRecord::Incomplete => {
                        return Err(Failure::Ambiguous {
                            status: Some(200),
                            message: format!(
                                "target '{}': {} is there but not a whole record: another \
                                 upload of the same data may still be writing it. If it stays \
                                 like this the file is damaged: delete it, then retry the item",
                                self.name,
                                self.url(path)
                            ),
                        });
                    }
                    FoundRecord::Foreign => {
                        return Err(Failure::Conflict {
                            message: format!(
                                "target '{}': {} exists but is not Lodge's record of this key; \
                             move it away or deposit into another folder",
                                self.name,
                                self.url(path)
                            ),
                        });
                    }
                }
                Ok(Some(self.record_ref_at(path)))
            }
            StatusCode::NOT_FOUND => Ok(None),
            _ => Err(self.failure(resp).await),
        }
    }
}

#[async_trait]
impl Target for WebDavTarget {
    fn scope_id(&self) -> &str {
        &self.scope_id
    }

    fn label(&self) -> String {
        format!("WebDAV folder {}{}", self.base, self.layout.label_note())
    }

    async fn upload(
        &self,
        request: &DepositRequest<'_>,
        progress: ProgressSink,
    ) -> Result<(), Failure> {
        validate(request)?;
        self.make_folders().await?;
        self.refuse_names_one_file_there(request).await?;
        self.make_dataset_folders(request).await?;
        let manifest = &request.document.manifest;
        let shared = self.layout.shares_identical_files();
        send_each_file(
            manifest,
            shared,
            self.files_at_once,
            request.files_stored,
            &progress,
            |entry| async {
                let path = self.layout.file_path(&request.key, request.document, entry);
                let _sent_by_this_deposit_alone =
                    self.file_uploads.hold(Sha256Hex::of(path.as_bytes())).await;
                if entry.size >= HEAD_FIRST_BYTES
                    && let Some(size) = self.file_size(&path).await?
                {
                    if size != entry.size {
                        return self
                            .settle_wrong_size(request, entry, &path, size, &progress)
                            .await;
                    }
                    progress(entry.size);
                    return Ok(());
                }
                self.send_file(request, entry, &path, &progress).await
            },
        )
        .await
    }

    async fn create_record(&self, request: &DepositRequest<'_>) -> Result<Landed, Failure> {
        validate(request)?;
        self.make_folders().await?;
        let body = record_body(request);
        let resp = send(
            self.request(Method::PUT, &self.layout.record_path(&request.key))
                .header(IF_NONE_MATCH, "*")
                .header(CONTENT_TYPE, "application/json")
                .body(body),
        )
        .await?;
        match resp.status() {
            StatusCode::CREATED => Ok(Landed::Created(self.record_ref(&request.key))),
            // 200 or 204 to a PUT means an existing file was replaced: the server ignored
            // If-None-Match. The record had this key's content already, so nothing is
            // duplicated, but such a server cannot arbitrate: stop using it.
            s if s.is_success() => Err(Failure::Unusable {
                status: Some(s.as_u16()),
                message: format!(
                    "target '{}': the server overwrote {} despite If-None-Match: * (HTTP {} \
                     instead of 201 or 412). It ignores conditional writes (nginx's dav module \
                     does), so it cannot stop duplicate deposits and Lodge stops using it: \
                     deposit into a server that honours If-None-Match (Apache mod_dav, \
                     Nextcloud, ownCloud); `lodge target test` checks one",
                    self.name,
                    self.url(&self.layout.record_path(&request.key)),
                    s.as_u16()
                ),
            }),
            StatusCode::PRECONDITION_FAILED => match self.read_record(&request.key).await? {
                Some(record) => Ok(Landed::Existing(record)),
                None => Err(Failure::Ambiguous {
                    status: Some(412),
                    message: "the record was reported to exist but cannot be read back".into(),
                }),
            },
            _ => Err(self.failure(resp).await),
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

    fn replaces_wrong_size_files(&self) -> bool {
        true
    }

    fn datasets_base(&self) -> Option<String> {
        (self.layout == FileLayout::Folders).then(|| self.base.to_string())
    }

    fn file_address(
        &self,
        key: &ContentKey,
        document: &ContentDocument,
        entry: &ManifestEntry,
    ) -> Option<String> {
        let path = self.layout.file_path(key, document, entry);
        Some(self.url(&path).to_string())
    }

    async fn holdings(
        &self,
        key: &ContentKey,
        document: &ContentDocument,
        read: ReadBack,
        progress: &ProgressSink,
    ) -> Result<Holdings, Failure> {
        let record = super::record::record_to_check(self.layout, key, |path| async move {
            self.read_record_at(&path, key).await
        })
        .await?;
        let layout = self.layout;
        read_files(record, document, layout, self.files_at_once, |e| {
            let path = layout.file_path(key, document, e);
            Box::pin(async move { self.held_file(&path, read, progress).await })
        })
        .await
    }

    async fn probe(&self) -> ProbeReport {
        let mut report = ProbeReport::default();
        let propfind = Method::from_bytes(b"PROPFIND").expect("method name");
        let resp = match send(self.request(propfind, "").header("Depth", "0")).await {
            Ok(resp) => resp,
            Err(f) => {
                report.fail(
                    "reachable",
                    format!("{} does not answer: {f}; check the URL", self.base),
                );
                report.skip("credentials", "the server was not reached");
                report.skip("conditional write", "the server was not reached");
                return report;
            }
        };
        report.pass("reachable", format!("{} answers", self.base));
        match resp.status() {
            s if s.is_success() => report.pass("credentials", "the folder is readable"),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                report.fail("credentials", self.failure(resp).await.to_string());
                report.skip("conditional write", "the credentials were refused");
                return report;
            }
            s => {
                report.fail(
                    "folder",
                    format!(
                        "target '{}': {} answered HTTP {} to PROPFIND: check that the folder \
                         exists and is a WebDAV collection",
                        self.name,
                        self.base,
                        s.as_u16()
                    ),
                );
                report.skip("conditional write", "the folder was not found");
                return report;
            }
        }
        let probe = format!("lodge-probe-{:016x}", rand::random::<u64>());
        let put = || {
            send(
                self.request(Method::PUT, &probe)
                    .header(IF_NONE_MATCH, "*")
                    .body("lodge target test\n"),
            )
        };
        let first = put().await.map(|r| r.status());
        let second = match &first {
            Ok(s) if s.is_success() => Some(put().await.map(|r| r.status())),
            _ => None,
        };
        match (first, second) {
            (_, Some(Ok(StatusCode::PRECONDITION_FAILED))) => report.pass(
                "conditional write",
                "a second If-None-Match: * PUT of one file is refused with 412",
            ),
            (_, Some(Ok(s))) if s.is_success() => report.fail(
                "conditional write",
                format!(
                    "target '{}': the server overwrote an existing file despite \
                     If-None-Match: * (HTTP {} instead of 412). It ignores conditional writes \
                     (nginx's dav module does), so it cannot stop duplicate deposits: Lodge \
                     refuses it. Use Apache mod_dav, Nextcloud, ownCloud or another server \
                     that honours If-None-Match",
                    self.name,
                    s.as_u16()
                ),
            ),
            (Ok(s), None) => report.fail(
                "conditional write",
                format!(
                    "target '{}': writing a test file was refused (HTTP {}): the user needs \
                     write access to {}",
                    self.name,
                    s.as_u16(),
                    self.base
                ),
            ),
            (_, Some(Ok(s))) => report.fail(
                "conditional write",
                format!(
                    "target '{}': unexpected HTTP {} to a second conditional PUT",
                    self.name,
                    s.as_u16()
                ),
            ),
            (Err(f), _) | (_, Some(Err(f))) => report.fail(
                "conditional write",
                format!("target '{}': the test write failed: {f}", self.name),
            ),
        }
        let _ = send(self.request(Method::DELETE, &probe)).await;
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_id_has_kind_host_port_and_path_but_no_user() {
        let t =
            WebDavTarget::new("x", "https://alice:pw@DAV.example.org/remote/files/", None).unwrap();
        assert_eq!(
            t.scope_id(),
            "webdav+https://dav.example.org:443/remote/files"
        );
        assert!(!t.label().contains("pw"));
    }

    /// A path with an empty part is refused naming the folders it means; a `..` part is
    /// resolved, as the URL is read, to the one identity of its place.
    #[test]
    fn a_path_with_an_empty_part_is_refused_and_a_dot_dot_part_resolved() {
        let refused = WebDavTarget::new("x", "http://127.0.0.1:8080//lodge", None)
            .err()
            .unwrap();
        assert!(
            refused.contains(
                "has an empty part (//): write the folders it means, e.g. \
                              webdav+http://127.0.0.1:8080/lodge"
            ),
            "{refused}"
        );
        let t = WebDavTarget::new("x", "http://127.0.0.1:8080/a/../lodge/", None).unwrap();
        assert_eq!(t.scope_id(), "webdav+http://127.0.0.1:8080/lodge");
    }
}
