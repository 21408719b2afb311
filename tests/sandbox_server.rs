//! The sandbox server spoken to over real HTTP on loopback, with temporary data folders.

use std::net::SocketAddr;
use std::time::Duration;

use lodge::content::{ContentDocument, Creator, ManifestEntry, Metadata, Sha256Hex};
use lodge::sandbox::{FaultConfig, RunningSandbox, SandboxConfig, SandboxStats};
use reqwest::StatusCode;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn config(dir: &std::path::Path) -> SandboxConfig {
    SandboxConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.to_path_buf(),
        token: None,
        faults: FaultConfig::default(),
    }
}

async fn start(dir: &std::path::Path) -> RunningSandbox {
    RunningSandbox::start(config(dir)).await.unwrap()
}

/// A sandbox as `lodge sandbox --token TOKEN` starts it.
async fn start_with_token(dir: &std::path::Path, token: &str) -> RunningSandbox {
    let mut cfg = config(dir);
    cfg.token = Some(token.into());
    RunningSandbox::start(cfg).await.unwrap()
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

fn metadata(title: &str) -> Metadata {
    Metadata {
        title: title.into(),
        creators: vec![Creator::named("Curie, Marie")],
        publisher: "Lodge Lab".into(),
        publication_year: Some(2026),
        ..Metadata::default()
    }
}

fn document(files: &[(&str, &[u8])], title: &str) -> ContentDocument {
    let manifest = files
        .iter()
        .map(|(path, bytes)| ManifestEntry {
            path: path.to_string(),
            size: bytes.len() as u64,
            sha256: Sha256Hex::of(bytes),
        })
        .collect();
    ContentDocument::new(manifest, &metadata(title))
}

async fn put_blob(c: &reqwest::Client, base: &str, bytes: &[u8]) -> reqwest::Response {
    c.put(format!("{base}/blobs/sha256/{}", Sha256Hex::of(bytes)))
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap()
}

async fn upload_all(c: &reqwest::Client, base: &str, files: &[(&str, &[u8])]) {
    for (_, bytes) in files {
        let status = put_blob(c, base, bytes).await.status();
        assert!(status.is_success(), "upload answered {status}");
    }
}

async fn put_record(c: &reqwest::Client, base: &str, doc: &ContentDocument) -> reqwest::Response {
    c.put(format!("{base}/records/{}", doc.key()))
        .header("If-None-Match", "*")
        .body(doc.canonical_json())
        .send()
        .await
        .unwrap()
}

async fn json(resp: reqwest::Response) -> Value {
    resp.json().await.unwrap()
}

/// The body of a 200 answered as an HTML page.
async fn html(resp: reqwest::Response) -> String {
    assert_eq!(resp.status(), StatusCode::OK);
    let content_type = resp.headers()["content-type"].to_str().unwrap();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    resp.text().await.unwrap()
}

/// Upload the files and create the record; the 201 body.
async fn deposit(c: &reqwest::Client, base: &str, files: &[(&str, &[u8])], title: &str) -> Value {
    upload_all(c, base, files).await;
    let resp = put_record(c, base, &document(files, title)).await;
    assert_eq!(resp.status(), StatusCode::CREATED);
    json(resp).await
}

async fn stats(c: &reqwest::Client, base: &str) -> SandboxStats {
    c.get(format!("{base}/stats"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Send raw bytes and read everything the server sends back until it closes the connection
/// (a reset counts as closed).
async fn raw_exchange(addr: SocketAddr, request: &[u8]) -> Vec<u8> {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let _ = stream.write_all(request).await;
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the server neither answered nor closed");
    out
}

fn raw_put(addr: SocketAddr, path: &str, extra_headers: &str, body: &[u8]) -> Vec<u8> {
    let mut req = format!(
        "PUT {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\n{extra_headers}Connection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    req
}

const SOIL: &[(&str, &[u8])] = &[
    ("data/soil.csv", b"depth,ph\n1,6.5\n"),
    ("README.md", b"# Soil\n"),
];

#[tokio::test]
async fn record_put_creates_then_answers_412_with_the_same_identifier() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    upload_all(&c, &base, SOIL).await;
    let doc = document(SOIL, "Soil cores");

    let first = put_record(&c, &base, &doc).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let key = doc.key().to_hex();
    assert_eq!(
        first.headers()["location"].to_str().unwrap(),
        format!("/records/{key}")
    );
    let created = json(first).await;
    assert_eq!(
        created,
        serde_json::json!({
            "identifier": "sbx-000001",
            "url": format!("{base}/records/{key}"),
            "key": key,
        })
    );

    let second = put_record(&c, &base, &doc).await;
    assert_eq!(second.status(), StatusCode::PRECONDITION_FAILED);
    assert_eq!(json(second).await, created);

    let got = json(c.get(format!("{base}/records/{key}")).send().await.unwrap()).await;
    assert_eq!(got["identifier"], "sbx-000001");
    assert_eq!(got["key"], key);
    assert_eq!(got["url"], created["url"]);
    assert!(got["created_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(got["document"], serde_json::to_value(&doc).unwrap());
    sb.shutdown().await;
}

#[tokio::test]
async fn existing_key_answers_412_whatever_the_body() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    let created = deposit(&c, &base, SOIL, "Soil cores").await;
    let resp = c
        .put(format!(
            "{base}/records/{}",
            created["key"].as_str().unwrap()
        ))
        .header("If-None-Match", "*")
        .body("not json at all")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::PRECONDITION_FAILED);
    assert_eq!(json(resp).await["identifier"], "sbx-000001");
    sb.shutdown().await;
}

#[tokio::test]
async fn record_put_without_if_none_match_is_428() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    upload_all(&c, &base, SOIL).await;
    let doc = document(SOIL, "Soil cores");
    let resp = c
        .put(format!("{base}/records/{}", doc.key()))
        .body(doc.canonical_json())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::PRECONDITION_REQUIRED);
    assert_eq!(json(resp).await["errors"][0]["field"], "If-None-Match");
    assert_eq!(sb.stats().records, 0);
    sb.shutdown().await;
}

#[tokio::test]
async fn malformed_keys_and_digests_are_400() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    let resp = c
        .put(format!("{base}/records/not-a-key"))
        .header("If-None-Match", "*")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert_eq!(json(resp).await["errors"][0]["field"], "key");
    let get = c.get(format!("{base}/records/xyz")).send().await.unwrap();
    assert_eq!(get.status(), StatusCode::BAD_REQUEST);
    let blob = c
        .put(format!("{base}/blobs/sha256/{}", "g".repeat(64)))
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(blob.status(), StatusCode::BAD_REQUEST);
    let head = c
        .head(format!("{base}/blobs/sha256/abc"))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), StatusCode::BAD_REQUEST);
    sb.shutdown().await;
}

#[tokio::test]
async fn blob_put_is_201_then_head_200_and_if_none_match_412() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    let bytes = b"hello blobs".as_slice();
    let url = format!("{base}/blobs/sha256/{}", Sha256Hex::of(bytes));

    let missing = c.head(&url).send().await.unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);

    let put = c
        .put(&url)
        .header("If-None-Match", "*")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), StatusCode::CREATED);

    let head = c.head(&url).send().await.unwrap();
    assert_eq!(head.status(), StatusCode::OK);
    assert_eq!(
        head.headers()["content-length"],
        bytes.len().to_string().as_str()
    );

    let again = c
        .put(&url)
        .header("If-None-Match", "*")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::PRECONDITION_FAILED);

    let plain = c.put(&url).body(bytes.to_vec()).send().await.unwrap();
    assert_eq!(plain.status(), StatusCode::OK);

    let got = c.get(&url).send().await.unwrap().bytes().await.unwrap();
    assert_eq!(got.as_ref(), bytes);
    let on_disk = dir
        .path()
        .join("blobs/sha256")
        .join(Sha256Hex::of(bytes).to_hex());
    assert_eq!(std::fs::read(on_disk).unwrap(), bytes);
    assert_eq!(sb.stats().blobs, 1);
    sb.shutdown().await;
}

#[tokio::test]
async fn an_exists_answer_that_leaves_the_body_unread_says_connection_close() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    let bytes = vec![b'x'; 64 * 1024];
    let doc = document(&[("common.bin", &bytes)], "Shared file");
    assert_eq!(
        put_blob(&c, &base, &bytes).await.status(),
        StatusCode::CREATED
    );
    assert_eq!(
        put_record(&c, &base, &doc).await.status(),
        StatusCode::CREATED
    );
    let blob_url = format!("{base}/blobs/sha256/{}", Sha256Hex::of(&bytes));
    // A client reusing its connection right away must not meet a silently closed one.
    for round in 0..50 {
        let exists = c
            .put(&blob_url)
            .header("If-None-Match", "*")
            .body(bytes.clone())
            .send()
            .await
            .unwrap_or_else(|e| panic!("round {round}: blob PUT: {e}"));
        assert_eq!(exists.status(), StatusCode::PRECONDITION_FAILED);
        assert_eq!(exists.headers()["connection"], "close", "round {round}");
        let again = put_record(&c, &base, &doc).await;
        assert_eq!(again.status(), StatusCode::PRECONDITION_FAILED);
        assert_eq!(again.headers()["connection"], "close", "round {round}");
    }
    // A success keeps the connection.
    let head = c.head(&blob_url).send().await.unwrap();
    assert_eq!(head.status(), StatusCode::OK);
    assert!(head.headers().get("connection").is_none());
    sb.shutdown().await;
}

/// Lodge's own sandbox client sending again files the sandbox holds (a dataset's next
/// version), several at once and each under the size it looks up first: the server answers
/// "exists" before the body has arrived, and every answer reaches the client. Closed
/// without its lingering read, the socket was reset with the client's bytes unread, the
/// answer was lost and the deposit counted an unknown outcome (a retry, or after eight of
/// them a failure).
#[tokio::test]
async fn files_the_sandbox_holds_are_sent_again_without_a_cut_connection() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(&dir.path().join("sandbox")).await;
    let folder = dir.path().join("survey");
    std::fs::create_dir_all(&folder).unwrap();
    let mut files = Vec::new();
    for n in 0..5u32 {
        let bytes: Vec<u8> = (0..1_000_000u32)
            .map(|i| ((i * 7 + n) % 253) as u8)
            .collect();
        std::fs::write(folder.join(format!("f{n}.bin")), &bytes).unwrap();
        files.push((format!("f{n}.bin"), bytes));
    }
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let target = lodge::targets::open_target(&sb.target_url(), None).unwrap();
    for round in 0..10 {
        let document = document(&borrowed, &format!("Survey, version {round}"));
        let request = lodge::targets::DepositRequest {
            key: document.key(),
            document: &document,
            root: &folder,
            earlier_records: &[],
            files_stored: &lodge::targets::FilesStored::default(),
        };
        target
            .upload(&request, std::sync::Arc::new(|_| {}))
            .await
            .unwrap_or_else(|e| panic!("round {round}: {e:?}"));
    }
    assert_eq!(sb.stats().blobs, 5);
    sb.shutdown().await;
}

#[tokio::test]
async fn blob_digest_mismatch_is_400_and_keeps_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    let named = Sha256Hex::of(b"what the URL promises");
    let resp = c
        .put(format!("{base}/blobs/sha256/{named}"))
        .header("If-None-Match", "*")
        .body("something else")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    let body = json(resp).await;
    assert_eq!(body["errors"][0]["field"], "blob");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("digest mismatch: ")
    );
    let head = c
        .head(format!("{base}/blobs/sha256/{named}"))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), StatusCode::NOT_FOUND);
    let left: Vec<_> = std::fs::read_dir(dir.path().join("blobs/sha256"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
    assert_eq!(sb.stats().blobs, 0);
    sb.shutdown().await;
}

#[tokio::test]
async fn large_blob_streams_through() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    let bytes: Vec<u8> = (0..8 * 1024 * 1024u32).map(|i| (i % 251) as u8).collect();
    let resp = put_blob(&c, &base, &bytes).await;
    assert_eq!(resp.status(), StatusCode::CREATED);
    assert_eq!(json(resp).await["size"], bytes.len());
    sb.shutdown().await;
}

#[tokio::test]
async fn eight_concurrent_record_puts_make_one_record() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    upload_all(&c, &base, SOIL).await;
    let doc = document(SOIL, "Soil cores");
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let (c, base, doc) = (c.clone(), base.clone(), doc.clone());
            tokio::spawn(async move {
                let resp = put_record(&c, &base, &doc).await;
                (resp.status(), json(resp).await)
            })
        })
        .collect();
    let mut created = 0;
    let mut conflicts = 0;
    for t in tasks {
        let (status, body) = t.await.unwrap();
        match status {
            StatusCode::CREATED => created += 1,
            StatusCode::PRECONDITION_FAILED => conflicts += 1,
            other => panic!("unexpected {other}: {body}"),
        }
        assert_eq!(body["identifier"], "sbx-000001");
    }
    assert_eq!((created, conflicts), (1, 7));
    let s = sb.stats();
    assert_eq!((s.records, s.creates, s.conflicts), (1, 1, 7));
    sb.shutdown().await;
}

#[tokio::test]
async fn record_with_missing_blob_is_422_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    // Upload only the README (sorted second in the manifest: README.md < data/soil.csv).
    put_blob(&c, &base, SOIL[1].1).await;
    let doc = document(SOIL, "Soil cores");
    let resp = put_record(&c, &base, &doc).await;
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = json(resp).await;
    let errors = body["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{body}");
    let index = doc
        .manifest
        .iter()
        .position(|e| e.path == "data/soil.csv")
        .unwrap();
    assert_eq!(errors[0]["field"], format!("manifest[{index}].sha256"));
    let message = errors[0]["message"].as_str().unwrap();
    assert!(message.contains("data/soil.csv"), "{message}");
    assert!(message.contains("not uploaded"), "{message}");
    assert_eq!(sb.stats().records, 0);
    sb.shutdown().await;
}

#[tokio::test]
async fn record_whose_body_key_differs_is_422() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    upload_all(&c, &base, SOIL).await;
    let doc = document(SOIL, "Soil cores");
    let other = document(SOIL, "Another title");
    let resp = c
        .put(format!("{base}/records/{}", other.key()))
        .header("If-None-Match", "*")
        .body(doc.canonical_json())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = json(resp).await;
    assert_eq!(body["errors"].as_array().unwrap().len(), 1);
    assert_eq!(body["errors"][0]["field"], "key");
    sb.shutdown().await;
}

#[tokio::test]
async fn invalid_metadata_is_422_with_one_error_per_field() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    upload_all(&c, &base, SOIL).await;
    let mut doc = document(SOIL, "");
    doc.metadata.publisher = String::new();
    doc.metadata.publication_year = None;
    let resp = put_record(&c, &base, &doc).await;
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = json(resp).await;
    let fields: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, vec!["title", "publisher", "publication_year"]);

    let garbage = c
        .put(format!("{base}/records/{}", doc.key()))
        .header("If-None-Match", "*")
        .body("{\"lodge\":1}")
        .send()
        .await
        .unwrap();
    assert_eq!(garbage.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(json(garbage).await["errors"][0]["field"], "body");
    assert_eq!(sb.stats().records, 0);
    sb.shutdown().await;
}

#[tokio::test]
async fn identifiers_are_sequential_and_survive_restart() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    let a = deposit(&c, &base, SOIL, "First").await;
    let b = deposit(&c, &base, SOIL, "Second").await;
    assert_eq!(a["identifier"], "sbx-000001");
    assert_eq!(b["identifier"], "sbx-000002");
    sb.shutdown().await;

    let sb = start(dir.path()).await;
    let base = sb.base_url();
    let again = put_record(&c, &base, &document(SOIL, "First")).await;
    assert_eq!(again.status(), StatusCode::PRECONDITION_FAILED);
    assert_eq!(json(again).await["identifier"], "sbx-000001");
    let third = deposit(&c, &base, SOIL, "Third").await;
    assert_eq!(third["identifier"], "sbx-000003");
    assert_eq!(sb.stats().records, 3);
    sb.shutdown().await;
}

#[tokio::test]
async fn record_list_pages_in_identifier_order() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    for title in ["One", "Two", "Three"] {
        deposit(&c, &base, SOIL, title).await;
    }
    let page2 = json(
        c.get(format!("{base}/records?page=2&per_page=2"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(page2["total"], 3);
    assert_eq!(page2["page"], 2);
    assert_eq!(page2["per_page"], 2);
    let records = page2["records"].as_array().unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["identifier"], "sbx-000003");
    assert_eq!(records[0]["title"], "Three");
    for field in ["key", "created_at", "url"] {
        assert!(records[0][field].is_string(), "{field} missing");
    }
    let all = json(c.get(format!("{base}/records")).send().await.unwrap()).await;
    assert_eq!(all["per_page"], 100);
    assert_eq!(all["records"].as_array().unwrap().len(), 3);
    let capped = json(
        c.get(format!("{base}/records?per_page=5000"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(capped["per_page"], 1000);
    let bad = c
        .get(format!("{base}/records?page=0"))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    let missing = c
        .get(format!("{base}/records/{}", Sha256Hex::of(b"nothing")))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert!(json(missing).await["errors"].is_array());
    sb.shutdown().await;
}

#[tokio::test]
async fn stats_count_requests_to_blobs_and_records_only() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    deposit(&c, &base, SOIL, "Soil").await; // 2 blob PUTs + 1 record PUT
    put_record(&c, &base, &document(SOIL, "Soil")).await; // 412
    c.head(format!("{base}/blobs/sha256/{}", Sha256Hex::of(b"x")))
        .send()
        .await
        .unwrap();
    c.get(format!("{base}/records")).send().await.unwrap();
    c.get(format!("{base}/")).send().await.unwrap();
    c.get(format!("{base}/stats")).send().await.unwrap();
    let s = stats(&c, &base).await;
    assert_eq!(
        s,
        SandboxStats {
            records: 1,
            blobs: 2,
            creates: 1,
            conflicts: 1,
            requests: 6,
        }
    );
    assert_eq!(sb.stats(), s);
    sb.shutdown().await;
}

#[tokio::test]
async fn bearer_token_required_when_configured() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start_with_token(dir.path(), "s3cret").await;
    let (c, base) = (client(), sb.base_url());
    let bytes = b"guarded".as_slice();
    let url = format!("{base}/blobs/sha256/{}", Sha256Hex::of(bytes));

    let anonymous = c.put(&url).body(bytes.to_vec()).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert!(
        anonymous.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer")
    );
    assert_eq!(json(anonymous).await["errors"][0]["field"], "authorization");

    let wrong = c.head(&url).bearer_auth("nope").send().await.unwrap();
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let listing = c.get(format!("{base}/records")).send().await.unwrap();
    assert_eq!(listing.status(), StatusCode::UNAUTHORIZED);

    let right = c
        .put(&url)
        .bearer_auth("s3cret")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), StatusCode::CREATED);

    assert_eq!(
        c.get(format!("{base}/stats"))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    // The page listing the records is as private as the records.
    assert_eq!(
        c.get(format!("{base}/")).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    sb.shutdown().await;
}

/// Lodge's *Open record* hands a record's address to a web browser, which cannot send a
/// bearer token: a sandbox started with `--token` challenges it for Basic credentials, takes
/// the token as their password, and shows the page.
#[tokio::test]
async fn a_browser_opening_a_sandbox_with_a_token_is_asked_for_the_token_as_password() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start_with_token(dir.path(), "s3:cret").await;
    let base = sb.base_url();
    let mut with_token = reqwest::header::HeaderMap::new();
    with_token.insert("authorization", "Bearer s3:cret".parse().unwrap());
    let lodge = reqwest::Client::builder()
        .no_proxy()
        .default_headers(with_token)
        .build()
        .unwrap();
    let created = deposit(&lodge, &base, SOIL, "Soil cores").await;
    let record = created["url"].as_str().unwrap().to_string();

    let browser = client();
    for page in [record, format!("{base}/")] {
        let open = |credentials: Option<(&str, &str)>| {
            let mut req = browser
                .get(&page)
                .header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8");
            if let Some((user, password)) = credentials {
                req = req.basic_auth(user, Some(password));
            }
            req.send()
        };
        let asked = open(None).await.unwrap();
        assert_eq!(asked.status(), StatusCode::UNAUTHORIZED, "{page}");
        let challenges: Vec<&str> = asked
            .headers()
            .get_all("www-authenticate")
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert!(
            challenges.iter().any(|c| c.starts_with("Basic realm=")),
            "{page}: no Basic challenge a browser would ask a password for: {challenges:?}"
        );
        for wrong in ["s3", "cret", "s3:cret ", ""] {
            let refused = open(Some(("researcher", wrong))).await.unwrap();
            assert_eq!(
                refused.status(),
                StatusCode::UNAUTHORIZED,
                "{page} {wrong:?}"
            );
        }
        let shown = html(open(Some(("researcher", "s3:cret"))).await.unwrap()).await;
        assert!(shown.contains("sbx-000001"), "{page}:\n{shown}");
    }
    sb.shutdown().await;
}

#[tokio::test]
async fn drop_after_commit_commits_then_closes_without_response() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    upload_all(&c, &base, SOIL).await;
    let doc = document(SOIL, "Soil");
    sb.set_faults(FaultConfig {
        drop_after_commit: 1.0,
        ..FaultConfig::default()
    });
    let request = raw_put(
        sb.addr(),
        &format!("/records/{}", doc.key()),
        "If-None-Match: *\r\n",
        &doc.canonical_json(),
    );
    let answer = raw_exchange(sb.addr(), &request).await;
    assert!(
        answer.is_empty(),
        "got a response: {}",
        String::from_utf8_lossy(&answer)
    );

    // Reads are never dropped, and the record landed.
    let got = c
        .get(format!("{base}/records/{}", doc.key()))
        .send()
        .await
        .unwrap();
    assert_eq!(got.status(), StatusCode::OK);
    assert_eq!(json(got).await["identifier"], "sbx-000001");
    assert_eq!(sb.stats().creates, 1);

    // The client's retry learns the identifier from the 412.
    sb.set_faults(FaultConfig::default());
    let retry = put_record(&c, &base, &doc).await;
    assert_eq!(retry.status(), StatusCode::PRECONDITION_FAILED);
    assert_eq!(json(retry).await["identifier"], "sbx-000001");
    sb.shutdown().await;
}

#[tokio::test]
async fn fail_before_commit_answers_503_and_commits_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    upload_all(&c, &base, SOIL).await;
    sb.set_faults(FaultConfig {
        fail_before_commit: 1.0,
        ..FaultConfig::default()
    });
    let doc = document(SOIL, "Soil");
    let resp = put_record(&c, &base, &doc).await;
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    let blob = put_blob(&c, &base, b"never stored").await;
    assert_eq!(blob.status(), StatusCode::SERVICE_UNAVAILABLE);
    sb.set_faults(FaultConfig::default());
    let s = sb.stats();
    assert_eq!((s.records, s.blobs, s.creates), (0, 2, 0));
    assert_eq!(
        put_record(&c, &base, &doc).await.status(),
        StatusCode::CREATED
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.faults = FaultConfig {
        rate_limit: 1.0,
        retry_after_secs: 7,
        ..FaultConfig::default()
    };
    let sb = RunningSandbox::start(cfg).await.unwrap();
    let (c, base) = (client(), sb.base_url());
    let resp = put_blob(&c, &base, b"later").await;
    assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(resp.headers()["retry-after"], "7");
    assert!(json(resp).await["errors"].is_array());
    assert_eq!(sb.stats().blobs, 0);
    // /stats and / are never faulted.
    assert_eq!(
        c.get(format!("{base}/stats"))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn reset_closes_before_reading_body() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    sb.set_faults(FaultConfig {
        reset: 1.0,
        ..FaultConfig::default()
    });
    let bytes = b"cut off".as_slice();
    let request = raw_put(
        sb.addr(),
        &format!("/blobs/sha256/{}", Sha256Hex::of(bytes)),
        "",
        bytes,
    );
    let answer = raw_exchange(sb.addr(), &request).await;
    assert!(
        answer.is_empty(),
        "got a response: {}",
        String::from_utf8_lossy(&answer)
    );
    let s = sb.stats();
    assert_eq!((s.blobs, s.requests), (0, 1));
    sb.shutdown().await;
}

#[tokio::test]
async fn latency_delays_api_requests() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    sb.set_faults(FaultConfig {
        latency_ms: 300,
        ..FaultConfig::default()
    });
    let t = std::time::Instant::now();
    c.get(format!("{base}/records")).send().await.unwrap();
    assert!(t.elapsed() >= Duration::from_millis(300));
    sb.shutdown().await;
}

#[tokio::test]
async fn seeded_faults_are_reproducible() {
    async fn run(seed: u64) -> Vec<u16> {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = config(dir.path());
        cfg.faults = FaultConfig {
            rate_limit: 0.3,
            fail_before_commit: 0.3,
            retry_after_secs: 1,
            seed: Some(seed),
            ..FaultConfig::default()
        };
        let sb = RunningSandbox::start(cfg).await.unwrap();
        let c = client();
        let mut statuses = Vec::new();
        for i in 0..40u32 {
            let resp = put_blob(&c, &sb.base_url(), &i.to_le_bytes()).await;
            statuses.push(resp.status().as_u16());
        }
        sb.shutdown().await;
        statuses
    }
    let a = run(42).await;
    assert_eq!(a, run(42).await);
    assert!(
        a.contains(&201) && a.contains(&429) && a.contains(&503),
        "{a:?}"
    );
    assert_ne!(a, run(43).await);
}

#[tokio::test]
async fn index_page_lists_records_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    let created = deposit(&c, &base, SOIL, "<script>alert('x')</script> & \"co\"").await;
    let resp = c.get(format!("{base}/")).send().await.unwrap();
    let html = html(resp).await;
    assert!(html.contains("sbx-000001"));
    assert!(html.contains(created["key"].as_str().unwrap()));
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;co&quot;"));
    assert!(!html.contains("<script>"));
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "external asset"
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn a_record_opened_in_a_browser_is_a_landing_page_and_api_clients_still_get_json() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    let created = deposit(&c, &base, SOIL, "Soil <cores> 2026").await;
    let url = created["url"].as_str().unwrap().to_string();

    // As a browser asks (Lodge's Open record, a DOI's landing page).
    let resp = c
        .get(&url)
        .header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
        .send()
        .await
        .unwrap();
    let html = html(resp).await;
    let first = SOIL[0];
    for said in [
        "<h1>Soil &lt;cores&gt; 2026</h1>",
        "sbx-000001",
        "<dt>Creators</dt><dd>Curie, Marie</dd>",
        "<dt>Publisher</dt><dd>Lodge Lab</dd>",
        &format!("Curie, Marie (2026): Soil &lt;cores&gt; 2026. Lodge Lab. Dataset. {url}"),
        // A file link saves the file under its own name, not its digest.
        &format!(
            "<a href=\"/blobs/sha256/{}\" download=\"soil.csv\">{}</a>",
            Sha256Hex::of(first.1),
            first.0
        ),
        created["key"].as_str().unwrap(),
    ] {
        assert!(html.contains(said), "{said} in:\n{html}");
    }
    assert!(!html.contains("<cores>"), "escaped");

    // Any other client (Lodge's own lookup, curl) gets the API's JSON, as before.
    for accept in [None, Some("application/json"), Some("*/*")] {
        let mut req = c.get(&url);
        if let Some(a) = accept {
            req = req.header("Accept", a);
        }
        let body = json(req.send().await.unwrap()).await;
        assert_eq!(body["identifier"], "sbx-000001", "{accept:?}");
    }
    sb.shutdown().await;
}

#[tokio::test]
async fn start_names_an_address_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let other = tempfile::tempdir().unwrap();
    let mut cfg = config(other.path());
    cfg.addr = sb.addr();
    let err = RunningSandbox::start(cfg).await.err().unwrap().to_string();
    assert_eq!(
        err,
        format!("address {} is in use: pick another with --addr", sb.addr())
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn start_names_a_data_dir_it_cannot_create() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    let err = RunningSandbox::start(config(&file.join("data")))
        .await
        .err()
        .unwrap();
    let text = format!("{err:#}");
    assert!(
        text.contains(&file.join("data").display().to_string()),
        "{text}"
    );
}

#[tokio::test]
async fn shutdown_lets_in_flight_requests_finish() {
    let dir = tempfile::tempdir().unwrap();
    let sb = start(dir.path()).await;
    let (c, base) = (client(), sb.base_url());
    sb.set_faults(FaultConfig {
        latency_ms: 500,
        ..FaultConfig::default()
    });
    let in_flight = tokio::spawn(async move { c.get(format!("{base}/records")).send().await });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let addr = sb.addr();
    sb.shutdown().await;
    let resp = in_flight.await.unwrap().unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}
