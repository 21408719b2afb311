//! One target of each kind behind the fault proxy, on a fresh bucket, folder or sandbox, with
//! the few server-side looks the conformance cases need (records held, blob bytes).

use std::path::PathBuf;
use std::sync::Arc;

use lodge::content::{ContentKey, Sha256Hex};
use lodge::sandbox::{FaultConfig, RunningSandbox};
use lodge::targets::each_file::FilesAtOnce;
use lodge::targets::layout::FileLayout;
use lodge::targets::s3::{S3Location, S3Options, S3Target};
use lodge::targets::sandbox::SandboxTarget;
use lodge::targets::secret::{Secret, UserSecret};
use lodge::targets::webdav::WebDavTarget;
use lodge::targets::{Target, open_target};

use crate::support::Lab;
use crate::support::proxy::Proxy;
pub use crate::support::s3::{
    credentials as s3_credentials, request as s3_request, request_with_body as s3_request_with_body,
};
use crate::support::servers::{self, DAV_PASSWORD, DAV_USER, unique};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sandbox,
    S3,
    /// S3 with `?layout=folders`: each dataset's files in a folder of its own.
    S3Folders,
    WebDav,
    /// WebDAV with `?layout=folders`.
    WebDavFolders,
    /// The sandbox's DataCite emulation (metadata only: no files).
    DataCite,
    /// The sandbox's InvenioRDM emulation (what Zenodo runs).
    Invenio,
    /// The same, with `state=draft`: each deposit a draft with every file, never published.
    InvenioDrafts,
}

impl Kind {
    /// Whether the target stores the dataset's files (DataCite holds metadata only).
    pub fn stores_files(self) -> bool {
        self != Kind::DataCite
    }

    /// Whether this is the InvenioRDM emulation (publishing, or leaving drafts).
    pub fn is_invenio(self) -> bool {
        matches!(self, Kind::Invenio | Kind::InvenioDrafts)
    }

    pub fn is_s3(self) -> bool {
        matches!(self, Kind::S3 | Kind::S3Folders)
    }

    pub fn is_webdav(self) -> bool {
        matches!(self, Kind::WebDav | Kind::WebDavFolders)
    }

    /// Whether files are kept under their own names in a folder per dataset, not by digest.
    pub fn keeps_folders(self) -> bool {
        matches!(self, Kind::S3Folders | Kind::WebDavFolders)
    }

    /// The same kind of file store in the other layout (files by digest, or in folders).
    pub fn in_the_other_layout(self) -> Kind {
        match self {
            Kind::S3 => Kind::S3Folders,
            Kind::S3Folders => Kind::S3,
            Kind::WebDav => Kind::WebDavFolders,
            Kind::WebDavFolders => Kind::WebDav,
            other => panic!("{other:?} has no layouts"),
        }
    }

    /// The target URL's query for this kind, after the address.
    fn url_query(self) -> &'static str {
        match self {
            Kind::InvenioDrafts => "?state=draft",
            Kind::S3Folders | Kind::WebDavFolders => "?layout=folders",
            _ => "",
        }
    }
}

/// Small multipart settings so the large-file case stays small (moto keeps S3's 5 MiB
/// minimum part size).
pub const MULTIPART_THRESHOLD: u64 = 8 << 20;
pub const PART_SIZE: u64 = 5 << 20;

pub fn s3_options() -> S3Options {
    S3Options {
        multipart_threshold: MULTIPART_THRESHOLD,
        part_size: PART_SIZE,
        parallel_parts: 3,
        ..S3Options::default()
    }
}

enum Server {
    Sandbox(RunningSandbox),
    DataCite(RunningSandbox),
    Invenio(RunningSandbox),
    S3 { bucket: String },
    WebDav { folder: PathBuf },
}

/// A target of one kind, reached through a proxy that logs and injects faults.
pub struct Env {
    #[allow(dead_code)]
    pub kind: Kind,
    pub proxy: Proxy,
    pub target: Arc<dyn Target>,
    server: Server,
}

impl Env {
    pub async fn new(kind: Kind, lab: &Lab) -> Env {
        Env::sending_files_at_once(kind, lab, FilesAtOnce::DEFAULT).await
    }

    /// The target set to send (and read back) `at_once` of a deposit's files at a time,
    /// where it keeps files apart (InvenioRDM and DataCite have no such setting).
    pub async fn sending_files_at_once(kind: Kind, lab: &Lab, at_once: FilesAtOnce) -> Env {
        match kind {
            Kind::Sandbox => {
                let sandbox = lab.sandbox(&unique("sbx"), FaultConfig::default()).await;
                let proxy = Proxy::start(&sandbox.base_url()).await;
                let target = SandboxTarget::new(&proxy.url(), None)
                    .unwrap()
                    .with_files_at_once(at_once);
                Env {
                    kind,
                    proxy,
                    target: Arc::new(target),
                    server: Server::Sandbox(sandbox),
                }
            }
            Kind::DataCite => {
                let sandbox = lab.sandbox(&unique("sbx"), FaultConfig::default()).await;
                let proxy = Proxy::start(&sandbox.base_url()).await;
                let account = sandbox.datacite_account();
                // Registered, so DataCite validates the metadata (drafts need none).
                let url = format!(
                    "datacite+{}?prefix={}&repository={}&state=register&url=https://example.org/{{key}}",
                    proxy.url(),
                    account.prefix,
                    account.repository
                );
                let target = open_target(&url, Some(account.password)).unwrap();
                Env {
                    kind,
                    proxy,
                    target,
                    server: Server::DataCite(sandbox),
                }
            }
            Kind::Invenio | Kind::InvenioDrafts => {
                let sandbox = lab.sandbox(&unique("sbx"), FaultConfig::default()).await;
                let proxy = Proxy::start(&sandbox.base_url()).await;
                let target = open_target(
                    &format!("invenio+{}{}", proxy.url(), kind.url_query()),
                    Some(sandbox.invenio_account().token),
                )
                .unwrap();
                Env {
                    kind,
                    proxy,
                    target,
                    server: Server::Invenio(sandbox),
                }
            }
            Kind::S3 | Kind::S3Folders => {
                let upstream = servers::moto();
                let bucket = unique("lodge");
                let direct =
                    S3Location::parse(&format!("s3://{bucket}"), Some(upstream), None).unwrap();
                let status = s3_request(reqwest::Method::PUT, direct.bucket_url())
                    .await
                    .0;
                assert!(status.is_success(), "create bucket {bucket}: HTTP {status}");
                let proxy = Proxy::start(upstream).await;
                let location = S3Location::parse(
                    &format!("s3://{bucket}/dep{}", kind.url_query()),
                    Some(&proxy.url()),
                    None,
                )
                .unwrap();
                let options = S3Options {
                    files_at_once: at_once,
                    ..s3_options()
                };
                let target = S3Target::new("moto", location, s3_credentials(), options).unwrap();
                Env {
                    kind,
                    proxy,
                    target: Arc::new(target),
                    server: Server::S3 { bucket },
                }
            }
            Kind::WebDav | Kind::WebDavFolders => {
                let (upstream, root) = servers::webdav();
                let name = unique("dav");
                let folder = root.join(&name);
                std::fs::create_dir_all(&folder).unwrap();
                let proxy = Proxy::start(upstream).await;
                let target = WebDavTarget::new(
                    "dav",
                    &format!("{}/{name}/{}", proxy.url(), kind.url_query()),
                    Some(dav_credentials(DAV_PASSWORD)),
                )
                .unwrap()
                .with_files_at_once(at_once);
                Env {
                    kind,
                    proxy,
                    target: Arc::new(target),
                    server: Server::WebDav { folder },
                }
            }
        }
    }

    /// How many records the server holds for this target.
    pub async fn records(&self) -> usize {
        match &self.server {
            Server::Sandbox(s) => s.stats().records as usize,
            Server::DataCite(s) => s.doi_count() as usize,
            // A drafting target's records are its drafts.
            Server::Invenio(s) if self.kind == Kind::InvenioDrafts => s.invenio_counts().1 as usize,
            Server::Invenio(s) => s.invenio_counts().0 as usize,
            Server::S3 { bucket } => {
                let direct =
                    S3Location::parse(&format!("s3://{bucket}"), Some(servers::moto()), None)
                        .unwrap();
                let mut url = direct.bucket_url();
                url.set_query(Some("list-type=2&prefix=dep/records/"));
                let (status, body) = s3_request(reqwest::Method::GET, url).await;
                assert!(
                    status.is_success(),
                    "list {bucket}: HTTP {status}: {body:?}"
                );
                String::from_utf8_lossy(&body).matches("<Key>").count()
            }
            Server::WebDav { folder } => std::fs::read_dir(folder.join("records"))
                .map(|d| d.count())
                .unwrap_or(0),
        }
    }

    /// The bytes the server holds for a blob.
    pub async fn blob(&self, digest: &Sha256Hex) -> Vec<u8> {
        match &self.server {
            Server::DataCite(_) => panic!("DataCite holds no files"),
            Server::Invenio(s) => {
                // Files are named by path there: find the record's (or the draft's) file with
                // these bytes.
                let listing = match self.kind {
                    Kind::InvenioDrafts => "draft/files",
                    _ => "files",
                };
                let token = s.invenio_account().token;
                let client = reqwest::Client::new();
                let hits = user_records(s).await;
                for hit in hits["hits"]["hits"].as_array().unwrap() {
                    let id = hit["id"].as_str().unwrap();
                    let files: serde_json::Value = client
                        .get(format!("{}/api/records/{id}/{listing}", s.base_url()))
                        .bearer_auth(&token)
                        .send()
                        .await
                        .unwrap()
                        .json()
                        .await
                        .unwrap_or_default();
                    let keys: Vec<String> = files["entries"]
                        .as_array()
                        .map(|e| {
                            e.iter()
                                .filter_map(|f| f["key"].as_str().map(String::from))
                                .collect()
                        })
                        .unwrap_or_default();
                    for key in keys {
                        let bytes = client
                            .get(format!(
                                "{}/api/records/{id}/{listing}/{key}/content",
                                s.base_url()
                            ))
                            .bearer_auth(&token)
                            .send()
                            .await
                            .unwrap()
                            .bytes()
                            .await
                            .unwrap()
                            .to_vec();
                        if Sha256Hex::of(&bytes) == *digest {
                            return bytes;
                        }
                    }
                }
                Vec::new()
            }
            Server::Sandbox(s) => reqwest::get(format!("{}/blobs/sha256/{digest}", s.base_url()))
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap()
                .to_vec(),
            Server::S3 { .. } if self.kind.keeps_folders() => {
                for key in self.dataset_objects().await {
                    let bytes = self.s3_object(&key).await;
                    if Sha256Hex::of(&bytes) == *digest {
                        return bytes;
                    }
                }
                panic!("no object under dep/datasets/ holds {digest}")
            }
            Server::S3 { .. } => {
                let direct = self.direct_s3();
                self.s3_object(&direct.blob_key(digest)).await
            }
            Server::WebDav { folder } if self.kind.keeps_folders() => {
                for path in files_under(&folder.join("datasets")) {
                    let bytes = std::fs::read(&path).unwrap();
                    if Sha256Hex::of(&bytes) == *digest {
                        return bytes;
                    }
                }
                panic!("no file under datasets/ holds {digest}")
            }
            Server::WebDav { folder } => {
                std::fs::read(folder.join(format!("blobs/sha256/{digest}"))).unwrap()
            }
        }
    }

    /// S3: begin a multipart upload of the blob `digest` and leave it open, as a process
    /// killed mid-upload does.
    pub async fn open_multipart_upload(&self, digest: &Sha256Hex) {
        let mut url = self
            .direct_s3()
            .object_url(&self.direct_s3().blob_key(digest));
        url.set_query(Some("uploads="));
        let (status, body) = s3_request(reqwest::Method::POST, url).await;
        assert!(
            status.is_success(),
            "CreateMultipartUpload: HTTP {status}: {}",
            String::from_utf8_lossy(&body)
        );
    }

    /// S3: how many multipart uploads of the blob `digest` are open.
    pub async fn open_uploads(&self, digest: &Sha256Hex) -> usize {
        let direct = self.direct_s3();
        let mut url = direct.bucket_url();
        url.query_pairs_mut()
            .append_pair("uploads", "")
            .append_pair("prefix", &direct.blob_key(digest));
        let (status, body) = s3_request(reqwest::Method::GET, url).await;
        assert!(status.is_success(), "ListMultipartUploads: HTTP {status}");
        String::from_utf8_lossy(&body).matches("<UploadId>").count()
    }

    /// The S3 target's bucket and prefix in its layout, reached directly (not through the
    /// proxy).
    fn direct_s3(&self) -> S3Location {
        let Server::S3 { bucket } = &self.server else {
            panic!("only S3 has buckets");
        };
        let url = format!("s3://{bucket}/dep{}", self.kind.url_query());
        S3Location::parse(&url, Some(servers::moto()), None).unwrap()
    }

    /// The same bucket and prefix (S3) or folder (WebDAV), through the same proxy, in the
    /// other layout: another target, as its identity says.
    pub fn target_in_the_other_layout(&self) -> Arc<dyn Target> {
        let query = self.kind.in_the_other_layout().url_query();
        match &self.server {
            Server::S3 { bucket } => {
                let url = format!("s3://{bucket}/dep{query}");
                let location = S3Location::parse(&url, Some(&self.proxy.url()), None).unwrap();
                Arc::new(S3Target::new("moto", location, s3_credentials(), s3_options()).unwrap())
            }
            Server::WebDav { folder } => {
                let name = folder.file_name().unwrap().to_str().unwrap();
                let url = format!("{}/{name}/{query}", self.proxy.url());
                Arc::new(
                    WebDavTarget::new("dav", &url, Some(dav_credentials(DAV_PASSWORD))).unwrap(),
                )
            }
            _ => panic!("{:?} has no layouts", self.kind),
        }
    }

    /// Where the record of `key` is kept under the target's prefix or folder.
    fn record_path(&self, key: &ContentKey) -> String {
        let layout = match self.kind.keeps_folders() {
            true => FileLayout::Folders,
            false => FileLayout::Digests,
        };
        layout.record_path(key)
    }

    /// Move the record of `key` to where the folders layout kept it before layouts kept
    /// their records apart (`records/KEY.json`), as a deposit made then left it.
    pub async fn move_record_where_it_was_kept_before(&self, key: &ContentKey) {
        let (now, before) = (self.record_path(key), format!("records/{key}.json"));
        match &self.server {
            Server::WebDav { folder } => {
                std::fs::rename(folder.join(now), folder.join(before)).unwrap()
            }
            Server::S3 { .. } => {
                let direct = self.direct_s3();
                let bytes = self.s3_object(&direct.record_key(key)).await;
                let url = direct.object_url(&format!("dep/{before}"));
                let (status, _) = s3_request_with_body(reqwest::Method::PUT, url, bytes).await;
                assert!(status.is_success(), "write {before}: HTTP {status}");
                let url = direct.object_url(&direct.record_key(key));
                let (status, _) = s3_request(reqwest::Method::DELETE, url).await;
                assert!(status.is_success(), "delete {now}: HTTP {status}");
            }
            _ => panic!("{:?} keeps no record files", self.kind),
        }
    }

    /// S3: empty the bucket and delete it, as a person tidying an account might.
    pub async fn delete_bucket(&self) {
        let Server::S3 { bucket } = &self.server else {
            panic!("only S3 has buckets");
        };
        let location =
            S3Location::parse(&format!("s3://{bucket}"), Some(servers::moto()), None).unwrap();
        for object in crate::support::s3::list_objects(servers::moto(), bucket, "").await {
            let (status, _) =
                s3_request(reqwest::Method::DELETE, location.object_url(&object.key)).await;
            assert!(status.is_success(), "delete {}: HTTP {status}", object.key);
        }
        let (status, body) = s3_request(reqwest::Method::DELETE, location.bucket_url()).await;
        assert!(
            status.is_success(),
            "delete bucket {bucket}: HTTP {status}: {}",
            String::from_utf8_lossy(&body)
        );
    }

    /// S3: the bytes of the object `key`, read directly.
    pub async fn s3_object(&self, key: &str) -> Vec<u8> {
        let direct = self.direct_s3();
        let (status, body) = s3_request(reqwest::Method::GET, direct.object_url(key)).await;
        assert!(status.is_success(), "GET {key}: HTTP {status}");
        body
    }

    /// The bytes stored at `address`, a file's address as the target gives it
    /// ([`Target::file_address`]), read as a person would: an `s3://` object with the
    /// bucket's keys, a WebDAV or sandbox URL over HTTP (WebDAV with its user).
    pub async fn read_at(&self, address: &str) -> Vec<u8> {
        if let Server::S3 { bucket } = &self.server {
            let key = address
                .strip_prefix(&format!("s3://{bucket}/"))
                .unwrap_or_else(|| panic!("{address} is in bucket {bucket}"));
            return self.s3_object(key).await;
        }
        let mut get = reqwest::Client::new().get(address);
        if let Server::WebDav { .. } = &self.server {
            get = get.basic_auth(DAV_USER, Some(DAV_PASSWORD));
        }
        let resp = get.send().await.unwrap();
        assert!(
            resp.status().is_success(),
            "GET {address}: HTTP {}",
            resp.status()
        );
        resp.bytes().await.unwrap().to_vec()
    }

    /// Where the folders layout keeps files, the keys (S3) or paths under the target's
    /// folder (WebDAV) of every file under `datasets/`, `/`-separated, sorted.
    pub async fn dataset_files(&self) -> Vec<String> {
        match &self.server {
            Server::S3 { .. } => {
                let prefix = format!("{}/", self.direct_s3().prefix);
                let mut keys: Vec<String> = self
                    .dataset_objects()
                    .await
                    .into_iter()
                    .map(|k| k.strip_prefix(&prefix).unwrap().to_string())
                    .collect();
                keys.sort();
                keys
            }
            Server::WebDav { folder } => {
                let mut paths: Vec<String> = files_under(&folder.join("datasets"))
                    .into_iter()
                    .map(|p| {
                        let rel = p.strip_prefix(folder).unwrap();
                        rel.components()
                            .map(|c| c.as_os_str().to_string_lossy().into_owned())
                            .collect::<Vec<_>>()
                            .join("/")
                    })
                    .collect();
                paths.sort();
                paths
            }
            _ => panic!("only S3 and WebDAV keep files in folders"),
        }
    }

    /// S3: the keys of every object under `dep/datasets/`.
    async fn dataset_objects(&self) -> Vec<String> {
        let direct = self.direct_s3();
        let mut url = direct.bucket_url();
        url.query_pairs_mut()
            .append_pair("list-type", "2")
            .append_pair("prefix", &format!("{}/datasets/", direct.prefix));
        let (status, body) = s3_request(reqwest::Method::GET, url).await;
        assert!(status.is_success(), "list: HTTP {status}");
        let listing = String::from_utf8_lossy(&body);
        listing
            .split("<Key>")
            .skip(1)
            .map(|rest| xml_text(rest.split("</Key>").next().unwrap()))
            .collect()
    }

    /// The folders layout: where the server keeps `rel_path` of the one dataset deposited
    /// (an S3 key, or a path under the WebDAV folder).
    async fn dataset_file(&self, rel_path: &str) -> String {
        let all = self.dataset_files().await;
        let found: Vec<&String> = all
            .iter()
            .filter(|p| p.ends_with(&format!("/{rel_path}")))
            .collect();
        assert_eq!(found.len(), 1, "one {rel_path} under datasets/: {all:?}");
        found[0].clone()
    }

    /// Damage what the server holds of one deposited file, behind Lodge's back: remove it
    /// (`None`), or put `Some(bytes)` in its place. A blob on a content-addressed store, a
    /// record's file (by its path) on InvenioRDM.
    pub async fn tamper(&self, rel_path: &str, digest: &Sha256Hex, bytes: Option<&[u8]>) {
        let on_disk = |path: PathBuf| match bytes {
            None => std::fs::remove_file(&path).unwrap(),
            Some(bytes) => {
                // Before the first deposit, the blobs' folder is not there yet.
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, bytes).unwrap()
            }
        };
        if self.kind.keeps_folders() {
            let at = self.dataset_file(rel_path).await;
            match &self.server {
                Server::WebDav { folder } => on_disk(folder.join(at)),
                _ => {
                    let direct = self.direct_s3();
                    let url = direct.object_url(&format!("{}/{at}", direct.prefix));
                    let (status, _) = match bytes {
                        None => s3_request(reqwest::Method::DELETE, url).await,
                        Some(bytes) => {
                            s3_request_with_body(reqwest::Method::PUT, url, bytes.to_vec()).await
                        }
                    };
                    assert!(status.is_success(), "tamper with {at}: HTTP {status}");
                }
            }
            return;
        }
        match &self.server {
            Server::DataCite(_) => panic!("DataCite holds no files"),
            Server::Sandbox(s) => on_disk(s.data_dir().join(format!("blobs/sha256/{digest}"))),
            Server::WebDav { folder } => on_disk(folder.join(format!("blobs/sha256/{digest}"))),
            Server::Invenio(s) => {
                let db = rusqlite::Connection::open(s.data_dir().join("sandbox.db")).unwrap();
                let changed = match bytes {
                    None => db.execute("DELETE FROM invenio_files WHERE key = ?1", [rel_path]),
                    Some(bytes) => db.execute(
                        "UPDATE invenio_files SET content = ?2 WHERE key = ?1",
                        rusqlite::params![rel_path, bytes],
                    ),
                };
                assert_eq!(changed.unwrap(), 1, "one file {rel_path} in the emulation");
            }
            Server::S3 { bucket } => {
                let direct =
                    S3Location::parse(&format!("s3://{bucket}/dep"), Some(servers::moto()), None)
                        .unwrap();
                let url = direct.object_url(&direct.blob_key(digest));
                let (status, body) = match bytes {
                    None => s3_request(reqwest::Method::DELETE, url).await,
                    Some(bytes) => {
                        s3_request_with_body(reqwest::Method::PUT, url, bytes.to_vec()).await
                    }
                };
                assert!(
                    status.is_success(),
                    "tamper with {rel_path}: HTTP {status}: {}",
                    String::from_utf8_lossy(&body)
                );
            }
        }
    }

    /// [`Env::tamper`] with what a deposit of `key` (its `document`) will hold, before it
    /// is made: the folders layout names a dataset's folder by its title and key, and
    /// there is no folder to find yet.
    pub async fn tamper_in(
        &self,
        key: &ContentKey,
        document: &lodge::content::ContentDocument,
        rel_path: &str,
        digest: &Sha256Hex,
        bytes: Option<&[u8]>,
    ) {
        let Server::WebDav { folder } = &self.server else {
            return self.tamper(rel_path, digest, bytes).await;
        };
        if !self.kind.keeps_folders() {
            return self.tamper(rel_path, digest, bytes).await;
        }
        let dataset = lodge::targets::layout::dataset_folder(key, document);
        let path = folder.join(format!("{dataset}/{rel_path}"));
        match bytes {
            None => std::fs::remove_file(&path).unwrap(),
            Some(bytes) => {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, bytes).unwrap()
            }
        }
    }

    /// Damage the record of `key` behind Lodge's back: where the server keeps records in a
    /// database (the sandbox and its emulations), delete it; where it keeps them as objects
    /// or files (S3, WebDAV), put other bytes in their place.
    pub async fn tamper_record(&self, key: &ContentKey) {
        let in_db = |s: &RunningSandbox, sql: &str| {
            let db = rusqlite::Connection::open(s.data_dir().join("sandbox.db")).unwrap();
            assert_eq!(db.execute(sql, []).unwrap(), 1, "one record: {sql}");
        };
        let other = b"{\"not\": \"a Lodge record\"}".to_vec();
        match &self.server {
            Server::Sandbox(s) => in_db(s, "DELETE FROM records"),
            Server::Invenio(s) => in_db(s, "DELETE FROM invenio_records"),
            Server::DataCite(s) => in_db(s, "DELETE FROM dois"),
            Server::WebDav { folder } => {
                std::fs::write(folder.join(self.record_path(key)), other).unwrap()
            }
            Server::S3 { .. } => {
                let direct = self.direct_s3();
                let url = direct.object_url(&direct.record_key(key));
                let (status, body) = s3_request_with_body(reqwest::Method::PUT, url, other).await;
                assert!(
                    status.is_success(),
                    "overwrite the record: HTTP {status}: {}",
                    String::from_utf8_lossy(&body)
                );
            }
        }
    }

    /// Delete the record of `key` behind Lodge's back, wherever the server keeps it (a
    /// bucket or a folder emptied by hand, a database row lost).
    pub async fn delete_record(&self, key: &ContentKey) {
        match &self.server {
            Server::WebDav { folder } => {
                std::fs::remove_file(folder.join(self.record_path(key))).unwrap()
            }
            Server::S3 { .. } => {
                let direct = self.direct_s3();
                let url = direct.object_url(&direct.record_key(key));
                let (status, body) = s3_request(reqwest::Method::DELETE, url).await;
                assert!(
                    status.is_success(),
                    "delete the record: HTTP {status}: {}",
                    String::from_utf8_lossy(&body)
                );
            }
            // Those keep records in a database: tampering deletes the row.
            _ => self.tamper_record(key).await,
        }
    }

    /// The server's identifier for a key, read back.
    pub async fn identifier(&self, key: &ContentKey) -> String {
        if let Server::Invenio(s) = &self.server
            && self.kind == Kind::InvenioDrafts
        {
            // A draft is no drafting target's lookup (that would take a half-sent one for
            // done): the user's records and drafts say which carries the key.
            let hits = user_records(s).await;
            let subject = lodge::targets::invenio::key_subject(key);
            let carriers: Vec<&str> = hits["hits"]["hits"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|h| h["metadata"]["subjects"].to_string().contains(&subject))
                .filter_map(|h| h["id"].as_str())
                .collect();
            assert_eq!(carriers.len(), 1, "one draft carries {key}: {hits}");
            return carriers[0].to_string();
        }
        self.target.lookup(key).await.unwrap().unwrap().identifier
    }

    /// The path fragment by which the proxy log shows a file being sent: the blob's digest,
    /// or for InvenioRDM (files named by path) the file's content URL.
    pub fn file_fragment(&self, rel_path: &str, digest: &Sha256Hex) -> String {
        match self.kind {
            Kind::Invenio | Kind::InvenioDrafts => format!("/files/{rel_path}/content"),
            Kind::S3Folders | Kind::WebDavFolders => format!("/{rel_path}"),
            _ => digest.to_hex(),
        }
    }

    /// Method and path fragment of the request that commits the record.
    pub fn record_write(&self, key: &ContentKey) -> (&'static str, String) {
        match self.kind {
            Kind::DataCite => ("POST", "/dois".into()),
            Kind::Invenio => ("POST", "/actions/publish".into()),
            // A draft is done when its last file is committed.
            Kind::InvenioDrafts => ("POST", "/commit".into()),
            _ => ("PUT", format!("records/{key}")),
        }
    }

    /// The same kind of target with credentials the server refuses.
    pub async fn with_wrong_credentials(kind: Kind, lab: &Lab) -> (Env, Proxy) {
        match kind {
            Kind::DataCite | Kind::Invenio | Kind::InvenioDrafts => {
                let env = Env::new(kind, lab).await;
                let url = match kind {
                    Kind::DataCite => env.target_url_with_wrong_secret(),
                    _ => format!("invenio+{}{}", env.proxy.url(), kind.url_query()),
                };
                let target = open_target(&url, Some("wrong".into())).unwrap();
                let proxy = env.proxy.clone();
                (Env { target, ..env }, proxy)
            }
            Kind::Sandbox => {
                let sandbox = RunningSandbox::start(lodge::sandbox::SandboxConfig {
                    addr: "127.0.0.1:0".parse().unwrap(),
                    data_dir: lab.path(&unique("sbx")),
                    token: Some("right".into()),
                    faults: FaultConfig::default(),
                })
                .await
                .unwrap();
                let proxy = Proxy::start(&sandbox.base_url()).await;
                let target =
                    open_target(&format!("sandbox+{}", proxy.url()), Some("wrong".into())).unwrap();
                let env = Env {
                    kind,
                    proxy: proxy.clone(),
                    target,
                    server: Server::Sandbox(sandbox),
                };
                (env, proxy)
            }
            Kind::S3 | Kind::S3Folders => {
                // A moto that checks keys: it knows none, so this one is refused.
                let upstream = servers::start_moto(true);
                let proxy = Proxy::start(&upstream).await;
                let location = S3Location::parse(
                    &format!("s3://lodge-locked/dep{}", kind.url_query()),
                    Some(&proxy.url()),
                    None,
                )
                .unwrap();
                let target =
                    S3Target::new("moto-locked", location, s3_credentials(), s3_options()).unwrap();
                let env = Env {
                    kind,
                    proxy: proxy.clone(),
                    target: Arc::new(target),
                    server: Server::S3 {
                        bucket: "lodge-locked".into(),
                    },
                };
                (env, proxy)
            }
            Kind::WebDav | Kind::WebDavFolders => {
                let mut env = Env::new(kind, lab).await;
                let Server::WebDav { folder } = &env.server else {
                    unreachable!()
                };
                let name = folder.file_name().unwrap().to_string_lossy().to_string();
                env.target = Arc::new(
                    WebDavTarget::new(
                        "dav",
                        &format!("{}/{name}/{}", env.proxy.url(), kind.url_query()),
                        Some(dav_credentials("not-the-password")),
                    )
                    .unwrap(),
                );
                let proxy = env.proxy.clone();
                (env, proxy)
            }
        }
    }
}

impl Env {
    fn target_url_with_wrong_secret(&self) -> String {
        let Server::DataCite(s) = &self.server else {
            unreachable!()
        };
        let account = s.datacite_account();
        format!(
            "datacite+{}?prefix={}&repository={}",
            self.proxy.url(),
            account.prefix,
            account.repository
        )
    }
}

pub fn dav_credentials(password: &str) -> UserSecret {
    UserSecret {
        user: DAV_USER.into(),
        secret: Secret::new(password),
    }
}

/// The InvenioRDM emulation's records and drafts of its user, as its search answers.
async fn user_records(s: &RunningSandbox) -> serde_json::Value {
    crate::support::invenio_json(s, "/api/user/records").await
}

/// Every file under `dir`, at any depth (none when it is not there).
fn files_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// The text of an XML element as S3 lists it, its five entities read back.
fn xml_text(escaped: &str) -> String {
    escaped
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}
