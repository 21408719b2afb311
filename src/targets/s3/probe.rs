//! `lodge target test` for S3: the endpoint answers, the bucket exists and the credentials
//! are accepted, and a second `If-None-Match: *` PUT of one key is refused with 412 (a store
//! that overwrites instead cannot arbitrate duplicates and is refused).

use reqwest::header::{CONTENT_LENGTH, HeaderMap, HeaderValue, IF_NONE_MATCH};
use reqwest::{Method, StatusCode};

use super::S3Target;
use crate::targets::probe::ProbeReport;
use crate::targets::{Failure, FailureClass};

pub async fn run(target: &S3Target) -> ProbeReport {
    let mut report = ProbeReport::default();
    let bucket = &target.location.bucket;
    let url = target.location.bucket_url();
    match target.exec(Method::HEAD, url, HeaderMap::new(), None).await {
        Err(f) => {
            report.fail(
                "reachable",
                format!(
                    "{} does not answer: {f}; check the endpoint and that the server runs",
                    target.location.endpoint
                ),
            );
            report.skip("credentials", "the server was not reached");
            report.skip("conditional write", "the server was not reached");
            return report;
        }
        Ok(resp) => {
            report.pass("reachable", format!("{} answers", target.location.endpoint));
            match resp.status() {
                s if s.is_success() => {
                    report.pass("credentials", format!("bucket '{bucket}' is readable"))
                }
                StatusCode::NOT_FOUND => {
                    report.fail(
                        "bucket",
                        format!(
                            "target '{}': bucket '{bucket}' does not exist (HTTP 404): create \
                             it or fix the URL",
                            target.name
                        ),
                    );
                    report.skip("conditional write", "no bucket to write to");
                    return report;
                }
                s => {
                    match refusal(target, s).await {
                        // In another region, served elsewhere, or a clock far off: the keys
                        // are not what to fix.
                        Refusal::Access(why) => {
                            report.fail("access", why);
                            report.skip("conditional write", "the bucket could not be used");
                        }
                        Refusal::Credentials(why) => {
                            report.fail("credentials", why);
                            report.skip("conditional write", "the credentials were refused");
                        }
                    }
                    return report;
                }
            }
        }
    }
    let nonce = format!("{:016x}", rand::random::<u64>());
    let key = target.location.probe_key(&nonce);
    let first = put_if_absent(target, &key).await;
    let second = match &first {
        Ok(s) if s.is_success() => Some(put_if_absent(target, &key).await),
        _ => None,
    };
    match (first, second) {
        (Err(f), _) => report.fail("conditional write", write_failure(target, &f)),
        (Ok(s), _) if !s.is_success() => report.fail(
            "conditional write",
            format!(
                "target '{}': writing a test object under the prefix was refused (HTTP {}): \
                 the credentials need s3:PutObject there",
                target.name,
                s.as_u16()
            ),
        ),
        (_, Some(Ok(StatusCode::PRECONDITION_FAILED))) => report.pass(
            "conditional write",
            "a second If-None-Match: * PUT of one key is refused with 412",
        ),
        (_, Some(Ok(s))) => report.fail(
            "conditional write",
            format!(
                "target '{}': the server overwrote an existing object despite If-None-Match: * \
                 (HTTP {} instead of 412). Without conditional writes it cannot arbitrate \
                 duplicate deposits, so Lodge refuses it: use a server that supports them",
                target.name,
                s.as_u16()
            ),
        ),
        (_, Some(Err(f))) => report.fail("conditional write", write_failure(target, &f)),
        (_, None) => unreachable!("the second PUT runs after a successful first"),
    }
    let _ = target
        .exec(
            Method::DELETE,
            target.location.object_url(&key),
            HeaderMap::new(),
            None,
        )
        .await;
    report
}

/// Why the bucket's HEAD was refused: not for the keys (the bucket is in another region
/// or served at another endpoint, this computer's clock is far off), or for them.
enum Refusal {
    Access(String),
    Credentials(String),
}

/// Why the server refused the bucket's HEAD (answered `status`). A HEAD answer has no
/// body, so the S3 error code that tells a wrong access key from a wrong secret (or a
/// bucket in another region) is asked for with a list of no keys; its refusal says which to
/// fix and where (the environment variable the secret comes from, if any).
async fn refusal(target: &S3Target, status: StatusCode) -> Refusal {
    let mut url = target.location.bucket_url();
    url.query_pairs_mut()
        .append_pair("list-type", "2")
        .append_pair("max-keys", "0");
    if let Ok(resp) = target.exec(Method::GET, url, HeaderMap::new(), None).await
        && !resp.status().is_success()
    {
        let failure = target.failure_of(resp).await;
        return match failure {
            Failure::Unusable { .. } => Refusal::Access(failure.to_string()),
            _ => Refusal::Credentials(failure.to_string()),
        };
    }
    let check = match &target.secret_env {
        Some(var) => format!("check the access key, and the secret in ${var}"),
        None => "check the access key and secret of the target".to_string(),
    };
    Refusal::Credentials(format!(
        "target '{}': access to bucket '{}' was refused (HTTP {}): {check}",
        target.name,
        target.location.bucket,
        status.as_u16()
    ))
}

async fn put_if_absent(target: &S3Target, key: &str) -> Result<StatusCode, Failure> {
    let body = b"lodge target test\n".to_vec();
    let mut headers = HeaderMap::new();
    headers.insert(IF_NONE_MATCH, HeaderValue::from_static("*"));
    headers.insert(CONTENT_LENGTH, HeaderValue::from(body.len() as u64));
    let resp = target
        .exec(
            Method::PUT,
            target.location.object_url(key),
            headers,
            Some(body.into()),
        )
        .await?;
    Ok(resp.status())
}

fn write_failure(target: &S3Target, f: &Failure) -> String {
    match f.class() {
        FailureClass::PauseTarget => format!("target '{}': {f}", target.name),
        _ => format!("target '{}': the test write failed: {f}", target.name),
    }
}
