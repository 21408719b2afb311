//! Looks straight into the moto S3 server, past any proxy: signed requests with the test
//! access key, bucket creation and object listings (ListObjectsV2, every page).

use lodge::targets::s3::S3Location;
use lodge::targets::s3::sign::Signer;
use lodge::targets::secret::{Secret, UserSecret};

/// The access key id and secret the tests use (moto without auth accepts any).
pub const ACCESS_KEY: &str = "AKIALODGETESTKEY0001";
pub const SECRET_KEY: &str = "lodge-test-secret";

pub fn credentials() -> UserSecret {
    UserSecret {
        user: ACCESS_KEY.into(),
        secret: Secret::new(SECRET_KEY),
    }
}

/// A signed request with an empty body straight to `url`: status and body.
pub async fn request(method: reqwest::Method, url: reqwest::Url) -> (reqwest::StatusCode, Vec<u8>) {
    request_with_body(method, url, Vec::new()).await
}

/// A signed request with `body` straight to `url`: status and body.
pub async fn request_with_body(
    method: reqwest::Method,
    url: reqwest::Url,
    body: Vec<u8>,
) -> (reqwest::StatusCode, Vec<u8>) {
    request_as(&credentials(), method, url, body).await
}

/// A request with `body` straight to `url`, signed with `user`'s keys: status and body.
pub async fn request_as(
    user: &UserSecret,
    method: reqwest::Method,
    url: reqwest::Url,
    body: Vec<u8>,
) -> (reqwest::StatusCode, Vec<u8>) {
    let client = reqwest::Client::new();
    let mut request = client
        .request(method, url)
        .header("content-length", body.len().to_string())
        .body(body)
        .build()
        .unwrap();
    Signer::new(user.clone(), "us-east-1".into())
        .sign(&mut request)
        .unwrap();
    let resp = client.execute(request).await.unwrap();
    let status = resp.status();
    (status, resp.bytes().await.unwrap().to_vec())
}

/// Create `bucket` on the S3 server at `endpoint`.
pub async fn create_bucket(endpoint: &str, bucket: &str) {
    let location = S3Location::parse(&format!("s3://{bucket}"), Some(endpoint), None).unwrap();
    let (status, body) = request(reqwest::Method::PUT, location.bucket_url()).await;
    assert!(
        status.is_success(),
        "create bucket {bucket}: HTTP {status}: {}",
        String::from_utf8_lossy(&body)
    );
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ListPage {
    #[serde(default)]
    contents: Vec<Object>,
    #[serde(default)]
    is_truncated: bool,
    next_continuation_token: Option<String>,
}

/// One listed object.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Object {
    pub key: String,
    pub size: u64,
}

/// Every object of `bucket` whose key starts with `prefix`.
pub async fn list_objects(endpoint: &str, bucket: &str, prefix: &str) -> Vec<Object> {
    let location = S3Location::parse(&format!("s3://{bucket}"), Some(endpoint), None).unwrap();
    let mut objects = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut url = location.bucket_url();
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("list-type", "2")
                .append_pair("prefix", prefix);
            if let Some(t) = &token {
                query.append_pair("continuation-token", t);
            }
        }
        let (status, body) = request(reqwest::Method::GET, url).await;
        let text = String::from_utf8_lossy(&body);
        assert!(
            status.is_success(),
            "list {bucket}/{prefix}: HTTP {status}: {text}"
        );
        let page: ListPage = quick_xml::de::from_str(&text)
            .unwrap_or_else(|e| panic!("list {bucket}/{prefix}: {e}: {text}"));
        objects.extend(page.contents);
        match page.next_continuation_token {
            Some(next) if page.is_truncated => token = Some(next),
            _ => return objects,
        }
    }
}

/// The bytes of one object, or `None` when it does not exist.
pub async fn get_object(endpoint: &str, bucket: &str, key: &str) -> Option<Vec<u8>> {
    let location = S3Location::parse(&format!("s3://{bucket}"), Some(endpoint), None).unwrap();
    let (status, body) = request(reqwest::Method::GET, location.object_url(key)).await;
    match status.as_u16() {
        404 => None,
        _ => {
            assert!(status.is_success(), "GET {bucket}/{key}: HTTP {status}");
            Some(body)
        }
    }
}
