//! Where an S3 target writes: endpoint, region, bucket and key prefix, parsed from
//! `s3://bucket/prefix` plus options; object keys of files and records, as the target's
//! [`FileLayout`] lays them out; and the target's identity in the dedup scope (no
//! credentials in it, so it survives their rotation).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::Url;

use crate::content::{ContentDocument, ContentKey, ManifestEntry, Sha256Hex};
use crate::targets::layout::FileLayout;

/// What is percent-encoded in each segment of an object key in a URL: every byte but
/// letters, digits and `-_.~`, as AWS's SDKs encode them, so that the path signed is the
/// path the server reads back. (A URL leaves `(`, `,` or `=` as they are, and a server
/// that encodes them before checking the signature, MinIO among them, would refuse it; in
/// the folders layout files are named so.)
const KEY_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Endpoint used when a target names none.
pub const AWS_DEFAULT_REGION: &str = "us-east-1";

/// A bucket and key prefix on one endpoint. Requests use path-style URLs
/// (`ENDPOINT/BUCKET/KEY`), which MinIO, Ceph and moto all accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Location {
    pub endpoint: Url,
    pub region: String,
    pub bucket: String,
    /// Without leading or trailing `/`; may be empty.
    pub prefix: String,
    /// Where files go under the prefix (`?layout=folders` on the URL).
    pub layout: FileLayout,
}

impl S3Location {
    /// `url` is `s3://bucket[/prefix][?layout=folders]`; `endpoint` defaults to AWS in
    /// `region`.
    pub fn parse(url: &str, endpoint: Option<&str>, region: Option<&str>) -> Result<Self, String> {
        let rest = url
            .strip_prefix("s3://")
            .ok_or_else(|| format!("'{url}' does not start with s3://"))?;
        let (rest, query) = match rest.split_once('?') {
            Some((rest, query)) => (rest, Some(query)),
            None => (rest, None),
        };
        let layout = FileLayout::from_query(query)?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.len() < 3
            || bucket.len() > 63
            || !bucket
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
        {
            return Err(format!(
                "'{bucket}' is not a bucket name: 3 to 63 lowercase letters, digits, '-' or '.'"
            ));
        }
        let prefix = prefix.trim_matches('/').to_string();
        // One place, one identity: `a/../deposits` and `a//b` are written elsewhere than
        // they read (requests are normalised), so they could name a place saved already.
        if prefix
            .split('/')
            .any(|segment| matches!(segment, "" | "." | ".."))
            && !prefix.is_empty()
        {
            return Err(format!(
                "the prefix '{prefix}' has an empty, '.' or '..' part: write the folders it \
                 means, e.g. s3://{bucket}/deposits"
            ));
        }
        if let Some(region) = region.filter(|r| {
            r.is_empty()
                || !r
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        }) {
            return Err(format!(
                "--region '{region}' is not a region: lowercase letters, digits and '-', \
                 e.g. eu-west-1"
            ));
        }
        let region = region.unwrap_or(AWS_DEFAULT_REGION).to_string();
        let endpoint = match endpoint {
            Some(e) => e.to_string(),
            None => format!("https://s3.{region}.amazonaws.com"),
        };
        let mut endpoint = Url::parse(&endpoint)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
            .ok_or_else(|| endpoint_problem(&endpoint))?;
        if !endpoint.path().ends_with('/') {
            let p = format!("{}/", endpoint.path());
            endpoint.set_path(&p);
        }
        endpoint.set_query(None);
        endpoint.set_fragment(None);
        let _ = endpoint.set_username("");
        let _ = endpoint.set_password(None);
        Ok(S3Location {
            endpoint,
            region,
            bucket: bucket.to_string(),
            prefix,
            layout,
        })
    }

    /// `s3:ENDPOINT/BUCKET/PREFIX`, host lower-case, port explicit, and the layout's
    /// query when it is not the default.
    pub fn scope_id(&self) -> String {
        let host = self.endpoint.host_str().unwrap_or("").to_ascii_lowercase();
        let port = self.endpoint.port_or_known_default().unwrap_or(0);
        let path = self.endpoint.path().trim_end_matches('/');
        let mut id = format!(
            "s3:{}://{host}:{port}{path}/{}",
            self.endpoint.scheme(),
            self.bucket
        );
        if !self.prefix.is_empty() {
            id.push('/');
            id.push_str(&self.prefix);
        }
        id.push_str(self.layout.scope_suffix());
        id
    }

    /// The other way from [`S3Location::scope_id`]: the `s3://BUCKET/PREFIX` URL and the
    /// endpoint an identity was made from, to save its target again. The endpoint is read
    /// as scheme, host and port alone: an endpoint with a path of its own (rare) cannot be
    /// told from the bucket, so such an identity gives the wrong one here.
    pub fn from_scope_id(scope_id: &str) -> Option<(String, String)> {
        let at = Url::parse(scope_id.strip_prefix("s3:")?).ok()?;
        let (bucket, prefix) = at
            .path()
            .trim_matches('/')
            .split_once('/')
            .unwrap_or((at.path().trim_matches('/'), ""));
        if bucket.is_empty() {
            return None;
        }
        let port = at.port().map(|p| format!(":{p}")).unwrap_or_default();
        let endpoint = format!("{}://{}{port}", at.scheme(), at.host_str()?);
        let query = at.query().map(|q| format!("?{q}")).unwrap_or_default();
        let url = match prefix {
            "" => format!("s3://{bucket}{query}"),
            _ => format!("s3://{bucket}/{prefix}{query}"),
        };
        Some((url, endpoint))
    }

    /// The object key of `rest`, a path under the prefix.
    pub(super) fn key(&self, rest: &str) -> String {
        if self.prefix.is_empty() {
            rest.to_string()
        } else {
            format!("{}/{rest}", self.prefix)
        }
    }

    /// Where the default layout keeps the blob of `digest`.
    pub fn blob_key(&self, digest: &Sha256Hex) -> String {
        self.key(&format!("blobs/sha256/{digest}"))
    }

    /// Where this location's layout keeps `entry` of the deposit of `key`.
    pub fn file_key(
        &self,
        key: &ContentKey,
        document: &ContentDocument,
        entry: &ManifestEntry,
    ) -> String {
        self.key(&self.layout.file_path(key, document, entry))
    }

    /// Where this location's layout keeps the record of `key`.
    pub fn record_key(&self, key: &ContentKey) -> String {
        self.key(&self.layout.record_path(key))
    }

    /// Whether `url` is the address of a record under this bucket and prefix
    /// ([`S3Location::record_key`] made into an [`S3Location::object_url`]).
    pub fn holds_record_url(&self, url: &Url) -> bool {
        self.record_key_of_url(url).is_some()
    }

    /// The object key of the record `url` addresses under this bucket and prefix, however
    /// its path is percent-encoded (a record URL recorded before keys were encoded as S3
    /// encodes them has a prefix's `+` or `(` as it is); `None` for any other URL.
    pub fn record_key_of_url(&self, url: &Url) -> Option<String> {
        let decoded = |path: &str| {
            percent_encoding::percent_decode_str(path)
                .decode_utf8()
                .ok()
                .map(|p| p.into_owned())
        };
        let records = self.object_url(&self.key("records"));
        let same_server = url.scheme() == records.scheme()
            && url.host_str() == records.host_str()
            && url.port_or_known_default() == records.port_or_known_default()
            && url.query().is_none();
        if !same_server {
            return None;
        }
        let path = decoded(url.path())?;
        let name = path
            .strip_prefix(&decoded(records.path())?)?
            .strip_prefix('/')?;
        (name.ends_with(".json") && !name.contains('/'))
            .then(|| self.key(&format!("records/{name}")))
    }

    /// A key under the prefix for `lodge target test` to write and delete.
    pub fn probe_key(&self, nonce: &str) -> String {
        self.key(&format!("lodge-probe/{nonce}"))
    }

    /// The path-style URL of an object, each key segment percent-encoded as S3 encodes it
    /// ([`KEY_SEGMENT`]).
    pub fn object_url(&self, key: &str) -> Url {
        let mut url = self.bucket_url();
        let mut path = url.path().trim_end_matches('/').to_string();
        for part in key.split('/') {
            path.push('/');
            path.extend(utf8_percent_encode(part, KEY_SEGMENT));
        }
        url.set_path(&path);
        url
    }

    /// The path-style URL of the bucket itself.
    pub fn bucket_url(&self) -> Url {
        let mut url = self.endpoint.clone();
        {
            let mut segments = url.path_segments_mut().expect("http URL");
            segments.pop_if_empty();
            segments.push(&self.bucket);
        }
        url
    }
}

/// Why `given` is no endpoint. A host (and port) without its scheme, as an S3 service's
/// page often writes it, gets the URL it most likely means: plain http on this machine
/// (a local test server), https elsewhere.
fn endpoint_problem(given: &str) -> String {
    // What is before an `@` may be a key and its secret: never repeated, not even as a
    // suggestion.
    let authority = given.split_once("://").map_or(given, |(_, rest)| rest);
    let authority = authority.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return "the endpoint holds a user name or password before its host (not shown here): \
                give only its URL, e.g. https://s3.example.org, and the access key with --user \
                or --access-key-env, the secret with --secret-stdin or --secret-env"
            .to_string();
    }
    if given.contains("://") || given.is_empty() {
        return format!(
            "endpoint '{given}' must be an http(s) URL with a host, e.g. https://s3.example.org"
        );
    }
    let host = given.split([':', '/']).next().unwrap_or_default();
    let local = host == "localhost"
        || host.starts_with("127.")
        || host == "0.0.0.0"
        || given.starts_with("[::1]");
    let scheme = if local { "http" } else { "https" };
    format!(
        "endpoint '{given}' must be an http(s) URL with a host: did you mean {scheme}://{given}?"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_without_its_scheme_is_refused_with_the_url_it_most_likely_means() {
        let problem = |endpoint| S3Location::parse("s3://lab-data", Some(endpoint), None).err();
        assert_eq!(
            problem("s3.example.org").as_deref(),
            Some(
                "endpoint 's3.example.org' must be an http(s) URL with a host: did you mean \
                 https://s3.example.org?"
            )
        );
        for local in ["127.0.0.1:9000", "localhost:9000"] {
            let said = problem(local).unwrap();
            assert!(
                said.ends_with(&format!("did you mean http://{local}?")),
                "{said}"
            );
        }
        assert_eq!(
            problem("ftp://s3.example.org").as_deref(),
            Some(
                "endpoint 'ftp://s3.example.org' must be an http(s) URL with a host, e.g. \
                 https://s3.example.org"
            )
        );
        assert!(problem("https://s3.example.org").is_none());
        // A key and secret before the host are never repeated, not even as a suggestion.
        for secret in [
            "AKIAXX:secretpw@s3.example.org",
            "ftp://AKIAXX:secretpw@s3.example.org",
        ] {
            let said = problem(secret).unwrap();
            assert!(
                !said.contains("secretpw") && !said.contains("AKIAXX"),
                "{said}"
            );
            assert!(
                said.contains("holds a user name or password before its host"),
                "{said}"
            );
        }
    }

    #[test]
    fn an_identity_gives_back_the_url_and_endpoint_it_was_made_from() {
        for (url, endpoint) in [
            ("s3://lab-data/deposits/2026", "http://localhost:9000"),
            ("s3://lab-data", "https://s3.eu-west-1.amazonaws.com"),
            (
                "s3://lab-data/deposits?layout=folders",
                "http://localhost:9000",
            ),
            ("s3://lab-data?layout=folders", "http://localhost:9000"),
        ] {
            let scope = S3Location::parse(url, Some(endpoint), None)
                .unwrap()
                .scope_id();
            let (url_again, endpoint_again) = S3Location::from_scope_id(&scope).unwrap();
            assert_eq!(url_again, url, "{scope}");
            let again = S3Location::parse(&url_again, Some(&endpoint_again), None).unwrap();
            assert_eq!(again.scope_id(), scope);
        }
        assert_eq!(
            S3Location::from_scope_id("sandbox+http://127.0.0.1:1"),
            None
        );
        assert_eq!(
            S3Location::from_scope_id("s3://lab-data/x"),
            None,
            "a URL, no identity"
        );
    }

    #[test]
    fn a_record_url_is_known_as_this_locations_only_under_its_bucket_and_prefix() {
        let l = S3Location::parse(
            "s3://lab-data/deposits",
            Some("http://localhost:9000"),
            None,
        )
        .unwrap();
        let key = ContentKey(Sha256Hex([7; 32]));
        let record = l.object_url(&l.record_key(&key));
        assert!(l.holds_record_url(&record), "{record}");
        let plus = S3Location::parse(
            "s3://lab-data/runs+(2026)",
            Some("http://localhost:9000"),
            None,
        )
        .unwrap();
        let recorded_before = Url::parse(&format!(
            "http://localhost:9000/lab-data/runs+(2026)/records/{key}.json"
        ))
        .unwrap();
        assert_eq!(
            plus.record_key_of_url(&recorded_before),
            Some(plus.record_key(&key)),
            "a record URL recorded with the prefix's + and ( as they are"
        );
        for other in [
            format!("http://localhost:9000/lab-data/records/{key}.json"),
            format!("http://localhost:9000/other/deposits/records/{key}.json"),
            format!("http://localhost:9001/lab-data/deposits/records/{key}.json"),
            format!("https://localhost:9000/lab-data/deposits/records/{key}.json"),
            format!("http://localhost:9000/lab-data/deposits/blobs/sha256/{key}"),
            format!("http://localhost:9000/lab-data/deposits/records/{key}.json?x=1"),
        ] {
            assert!(!l.holds_record_url(&Url::parse(&other).unwrap()), "{other}");
        }
    }

    #[test]
    fn scope_id_is_endpoint_bucket_and_prefix() {
        let l = S3Location::parse(
            "s3://lab-data/deposits/",
            Some("http://LOCALHOST:9000"),
            None,
        )
        .unwrap();
        assert_eq!(l.scope_id(), "s3:http://localhost:9000/lab-data/deposits");
        assert_eq!(
            l.object_url("deposits/records/k.json").as_str(),
            "http://localhost:9000/lab-data/deposits/records/k.json"
        );
        let folders = S3Location::parse(
            "s3://lab-data/deposits?layout=folders",
            Some("http://localhost:9000"),
            None,
        )
        .unwrap();
        assert_eq!(
            folders.scope_id(),
            "s3:http://localhost:9000/lab-data/deposits?layout=folders",
            "another layout is another target: the same key there is another deposit"
        );
        assert_eq!(folders.prefix, "deposits");
        assert_eq!(
            l.object_url("deposits/datasets/Soil-1/raw/site A (1), #2=ü.csv")
                .as_str(),
            "http://localhost:9000/lab-data/deposits/datasets/Soil-1/raw/\
             site%20A%20%281%29%2C%20%232%3D%C3%BC.csv",
            "every byte but letters, digits and -_.~ encoded, as S3 signs a path"
        );
        let aws = S3Location::parse("s3://lab-data", None, Some("eu-west-1")).unwrap();
        assert_eq!(
            aws.scope_id(),
            "s3:https://s3.eu-west-1.amazonaws.com:443/lab-data"
        );
    }

    /// A prefix that reads as another place than it is written to, and a region that is
    /// none (it became part of the endpoint's host, or an error about the endpoint), are
    /// refused naming the part to fix.
    #[test]
    fn a_prefix_with_dot_parts_and_a_malformed_region_are_refused() {
        let endpoint = Some("http://127.0.0.1:9000");
        for url in [
            "s3://labdata/a/../deposits",
            "s3://labdata/a//b",
            "s3://labdata/./x",
        ] {
            let refused = S3Location::parse(url, endpoint, None).unwrap_err();
            assert!(
                refused.contains("has an empty, '.' or '..' part"),
                "{url}: {refused}"
            );
        }
        assert!(S3Location::parse("s3://labdata/a/b/", endpoint, None).is_ok());
        for region in ["eu-west-1/x", "us east", "eu_west_1", ""] {
            let refused = S3Location::parse("s3://labdata", None, Some(region)).unwrap_err();
            assert!(
                refused.contains(&format!("--region '{region}' is not a region")),
                "{region}: {refused}"
            );
        }
    }

    #[test]
    fn bad_bucket_names_are_refused_with_the_rule() {
        let e = S3Location::parse("s3://ab", None, None).unwrap_err();
        assert!(e.contains("3 to 63"), "{e}");
        assert!(S3Location::parse("s3://Upper", None, None).is_err());
    }
}
