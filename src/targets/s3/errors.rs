//! S3 error responses (`<Error><Code>..</Code><Message>..</Message></Error>`) classified into
//! [`Failure`]s whose messages name the target, the thing and the fix.

use crate::content::FieldProblem;
use crate::targets::Failure;
use crate::targets::http::status_parts;
use crate::targets::secret::CredentialsFix;

#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ErrorBody {
    #[serde(default)]
    code: String,
    #[serde(default)]
    message: String,
    /// Where a redirect says the bucket answers (`PermanentRedirect`, `TemporaryRedirect`).
    #[serde(default)]
    endpoint: String,
    /// The bucket's region, in the answer to a request signed for another one
    /// (`AuthorizationHeaderMalformed`).
    #[serde(default)]
    region: String,
}

/// The `Code` and `Message` of an S3 error body (empty when there is none).
pub fn parse_error(body: &str) -> (String, String) {
    let e = error_body(body);
    (e.code, e.message)
}

/// An S3 error body, its fields empty when the body is not one.
fn error_body(body: &str) -> ErrorBody {
    quick_xml::de::from_str(body).unwrap_or_default()
}

/// What the target is called in messages, where it writes, and the region it signs for.
pub struct Context<'a> {
    pub name: &'a str,
    pub bucket: &'a str,
    pub region: &'a str,
    /// The environment variable the secret key comes from, if any.
    pub secret_env: Option<&'a str>,
    /// The environment variable the access key id comes from, if any.
    pub user_env: Option<&'a str>,
    /// Where its keys are saved again, if known: the `lodge target add` that does it (its
    /// secret from standard input, or from the variable it names), or the window's Settings.
    pub credentials_fix: Option<&'a CredentialsFix>,
    /// Where its region is set anew: the `lodge target add` that keeps its other settings
    /// (`--region` [`super::REGION_PLACEHOLDER`]), or the window's Settings.
    pub region_fix: Option<&'a CredentialsFix>,
}

/// Classify a response that did not succeed.
pub async fn failure_of(ctx: &Context<'_>, resp: reqwest::Response) -> Failure {
    // AWS names a bucket's region in this header, on a HEAD too, whose answer has no body.
    let bucket_region = resp
        .headers()
        .get("x-amz-bucket-region")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let (status, retry_after, body) = status_parts(resp).await;
    // A request to the wrong region is redirected (3xx) or, signed for the wrong region,
    // refused with 400 (`AuthorizationHeaderMalformed`, no body on a HEAD).
    match bucket_region {
        Some(region) if region != ctx.region && (300..=400).contains(&status) => {
            let ErrorBody { code, endpoint, .. } = error_body(&body);
            moved(ctx, status, &code, &endpoint, Some(&region))
        }
        _ => classify(ctx, status, retry_after.as_deref(), &body),
    }
}

/// The bucket is in another region than the one the target signs for, or served at another
/// endpoint: S3 redirected the request or refused its signature. Lodge follows no redirect,
/// so the target must name that region or endpoint. `endpoint` and `region` (from the body
/// or AWS's `x-amz-bucket-region` header) are named when known.
fn moved(
    ctx: &Context<'_>,
    status: u16,
    code: &str,
    endpoint: &str,
    region: Option<&str>,
) -> Failure {
    let (name, bucket) = (ctx.name, ctx.bucket);
    let what = format!("HTTP {status} {code}");
    let what = what.trim_end();
    let served = if endpoint.is_empty() {
        String::new()
    } else {
        format!("; the server says it is served at {endpoint}")
    };
    // The command that changes the region alone, everything else kept (`target add`
    // replaces the whole entry), the region filled in where the server named it.
    let placeholder = format!("--region {}", super::REGION_PLACEHOLDER);
    let command = |region: &str| match ctx.region_fix {
        Some(CredentialsFix::Command(c)) => {
            format!(
                "`{}`",
                c.replace(&placeholder, &format!("--region {region}"))
            )
        }
        Some(CredentialsFix::Settings) => {
            format!("in Settings: Targets, Edit next to '{name}', S3 region")
        }
        None => format!("lodge target add {name} s3://{bucket}/PREFIX --region {region}"),
    };
    let message = match region {
        Some(region) => format!(
            "target '{name}': bucket '{bucket}' is in region {region}, not {asked} as this \
             target asks ({what}){served}: give the target that region ({})",
            command(region),
            asked = ctx.region
        ),
        None => format!(
            "target '{name}': bucket '{bucket}' is not served at this endpoint ({what}){served}: \
             give the target the bucket's region ({}) or that endpoint ({})",
            command(super::REGION_PLACEHOLDER),
            match ctx.region_fix {
                Some(CredentialsFix::Settings) => "its S3 endpoint, in the same place",
                _ => "--endpoint https://HOST",
            }
        ),
    };
    Failure::Unusable {
        status: Some(status),
        message,
    }
}

pub fn classify(ctx: &Context<'_>, status: u16, retry_after: Option<&str>, body: &str) -> Failure {
    let ErrorBody {
        code,
        message,
        endpoint,
        region,
    } = error_body(body);
    let what = if code.is_empty() {
        format!("HTTP {status}")
    } else {
        format!("HTTP {status} {code}")
    };
    let name = ctx.name;
    let bucket = ctx.bucket;
    let detail = if message.is_empty() {
        String::new()
    } else {
        format!(" ({message})")
    };
    match (status, code.as_str()) {
        (404, "NoSuchBucket") => Failure::Rejected {
            status,
            problems: vec![FieldProblem {
                // Shown as "target 'NAME': bucket ...".
                field: format!("target '{name}'"),
                message: format!(
                    "bucket '{bucket}' does not exist ({what}): create it or fix the URL"
                ),
            }],
        },
        (403, "InvalidAccessKeyId") => Failure::Unauthorized {
            status,
            message: match ctx.user_env {
                Some(var) => format!(
                    "target '{name}': the access key is not known to the server ({what}): \
                     put the right access key id in ${var}, where this target reads it"
                ),
                None => match ctx.credentials_fix {
                    Some(CredentialsFix::Settings) => format!(
                        "target '{name}': the access key is not known to the server ({what}): \
                         correct the access key id and secret key in Settings (Targets, Edit \
                         next to '{name}')"
                    ),
                    Some(CredentialsFix::Command(command)) => format!(
                        "target '{name}': the access key is not known to the server ({what}): \
                         save the right access key id (after --user) with `{command}`"
                    ),
                    None => format!(
                        "target '{name}': the access key is not known to the server ({what}): \
                         fix the access key of the target (lodge target add {name} ... \
                         --access-key-env VAR)"
                    ),
                },
            },
        },
        (403, "SignatureDoesNotMatch") => Failure::Unauthorized {
            status,
            message: match ctx.secret_env {
                // The variable wins over a stored secret: storing one would change nothing.
                Some(var) => format!(
                    "target '{name}': the secret key does not match the access key ({what}): \
                     put the right secret in ${var}, where this target reads it"
                ),
                None => match ctx.credentials_fix {
                    Some(CredentialsFix::Settings) => format!(
                        "target '{name}': the secret key does not match the access key ({what}): \
                         correct the secret key in Settings (Targets, Edit next to '{name}')"
                    ),
                    Some(CredentialsFix::Command(command)) => format!(
                        "target '{name}': the secret key does not match the access key ({what}): \
                         store the right secret with `{command}` (it reads it from standard input)"
                    ),
                    None => format!(
                        "target '{name}': the secret key does not match the access key ({what}): \
                         store the right secret with `lodge target add {name} ... --secret-stdin` \
                         (it reads it from standard input)"
                    ),
                },
            },
        },
        // The request's signed time is more than 15 minutes from the server's clock: no
        // key will do until this computer's clock is right, so it is not a credentials
        // problem (what a person is told to fix for those).
        (403, "RequestTimeTooSkewed") => Failure::Unusable {
            status: Some(status),
            message: format!(
                "target '{name}': the server refused the request because this computer's clock \
                 differs from the server's by more than 15 minutes ({what}){detail}: set the \
                 clock (turn on automatic time)"
            ),
        },
        (401 | 403, _) => Failure::Unauthorized {
            status,
            message: format!(
                "target '{name}': access to bucket '{bucket}' was refused ({what}){detail}: \
                 check the credentials and the bucket's policy"
            ),
        },
        // The upload was aborted meanwhile (by another writer that completed the same
        // blob, or a lifecycle rule): start over, which finds the blob if it is there.
        (404, "NoSuchUpload") => Failure::Ambiguous {
            status: Some(status),
            message: format!(
                "target '{name}': the multipart upload was aborted meanwhile ({what})"
            ),
        },
        (409, "ConditionalRequestConflict") => Failure::Ambiguous {
            status: Some(status),
            message: format!("target '{name}': a concurrent write to the same key ({what})"),
        },
        // S3 redirects only to the endpoint that serves the bucket.
        (300..=399, _) => moved(ctx, status, &code, &endpoint, named(&region)),
        // Signed for another region than the bucket's: every request will be, so the
        // target is paused, not each deposit rejected.
        (400, "AuthorizationHeaderMalformed") if !region.is_empty() && region != ctx.region => {
            moved(ctx, status, &code, &endpoint, Some(&region))
        }
        // The server stopped waiting for the rest of an upload: a timeout, not a refusal of
        // the content, though S3 answers it with 400.
        (400, "RequestTimeout") => Failure::Ambiguous {
            status: Some(status),
            message: format!(
                "target '{name}': the server timed out waiting for the upload ({what})"
            ),
        },
        (503, _) | (429, _) | (500, "SlowDown") => Failure::Wait {
            status,
            retry_after: retry_after.and_then(crate::targets::failure::parse_retry_after),
            message: format!("target '{name}': the server asks to slow down ({what}){detail}"),
        },
        _ => {
            let mut f = Failure::from_status(status, retry_after, body);
            match &mut f {
                // An object over the server's limit for one PUT (5 GiB on AWS; less on some
                // servers): in parts, each is under it.
                Failure::Rejected { problems, .. } if code == "EntityTooLarge" => {
                    *problems = vec![FieldProblem {
                        field: "size".into(),
                        message: format!(
                            "target '{name}': the server takes no object this large in one \
                             request ({what}){detail}: send such files in parts, with a lower \
                             --multipart-threshold for the target (lodge target add {name} \
                             ... --multipart-threshold BYTES)"
                        ),
                    }];
                }
                Failure::Rejected { problems, .. } if !code.is_empty() => {
                    *problems = vec![FieldProblem {
                        field: "request".into(),
                        message: format!(
                            "target '{name}': the server refused the request ({what}){detail}"
                        ),
                    }];
                }
                // An S3 error body (`InternalError`, say) in its own words, not its XML; a
                // body that is not one (a proxy's page) is summed up as any other.
                Failure::Ambiguous { message, .. } if !code.is_empty() => {
                    *message = format!("target '{name}': the server failed ({what}){detail}");
                }
                _ => {}
            }
            f
        }
    }
}

/// `Some(field)` unless it is empty.
fn named(field: &str) -> Option<&str> {
    (!field.is_empty()).then_some(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets::FailureClass;

    const CTX: Context<'static> = Context {
        name: "lab-s3",
        bucket: "x",
        region: "us-east-1",
        secret_env: None,
        user_env: None,
        credentials_fix: None,
        region_fix: None,
    };

    #[test]
    fn a_server_error_is_told_in_its_code_and_message_not_its_xml() {
        let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>InternalError\
                    </Code><Message>We encountered an internal error. Please try again.\
                    </Message><RequestId>4442587FB7D0A2F9</RequestId></Error>";
        let failure = classify(&CTX, 500, None, body);
        assert_eq!(failure.class(), FailureClass::RetryAmbiguous);
        assert_eq!(
            failure.to_string(),
            "outcome unknown (HTTP 500): target 'lab-s3': the server failed (HTTP 500 \
             InternalError) (We encountered an internal error. Please try again.)"
        );
    }

    #[test]
    fn an_object_too_large_for_one_request_is_refused_for_good_pointing_at_multipart() {
        let body = "<Error><Code>EntityTooLarge</Code><Message>Your proposed upload exceeds \
                    the maximum allowed size</Message></Error>";
        let failure = classify(&CTX, 400, None, body);
        assert_eq!(failure.class(), FailureClass::Terminal);
        let said = failure.naming_file("scan.tif").to_string();
        assert!(
            said.starts_with("rejected (HTTP 400): file 'scan.tif': "),
            "{said}"
        );
        assert!(said.contains("--multipart-threshold"), "{said}");
    }

    #[test]
    fn a_refused_secret_read_from_a_variable_is_fixed_in_that_variable() {
        let body = "<Error><Code>SignatureDoesNotMatch</Code></Error>";
        let stored = classify(&CTX, 403, None, body).to_string();
        assert!(stored.contains("--secret-stdin"), "{stored}");
        let from_env = Context {
            secret_env: Some("LAB_SECRET"),
            ..CTX
        };
        let said = classify(&from_env, 403, None, body).to_string();
        assert!(
            said.contains("put the right secret in $LAB_SECRET"),
            "{said}"
        );
        assert!(!said.contains("--secret-stdin"), "{said}");
    }

    /// The window keeps keys in Settings: its messages send a person there, not to a
    /// terminal.
    #[test]
    fn refused_keys_stored_in_the_window_are_corrected_in_settings() {
        let in_window = Context {
            credentials_fix: Some(&CredentialsFix::Settings),
            ..CTX
        };
        for (code, said) in [
            (
                "InvalidAccessKeyId",
                "correct the access key id and secret key in Settings (Targets, Edit next to \
                 'lab-s3')",
            ),
            (
                "SignatureDoesNotMatch",
                "correct the secret key in Settings (Targets, Edit next to 'lab-s3')",
            ),
        ] {
            let body = format!("<Error><Code>{code}</Code></Error>");
            let message = classify(&in_window, 403, None, &body).to_string();
            assert!(message.contains(said), "{message}");
            assert!(!message.contains("lodge target add"), "{message}");
        }
    }

    #[test]
    fn an_unknown_access_key_read_from_a_variable_names_that_variable() {
        let body = "<Error><Code>InvalidAccessKeyId</Code></Error>";
        let given = classify(&CTX, 403, None, body).to_string();
        assert!(given.contains("--access-key-env VAR"), "{given}");
        let from_env = Context {
            user_env: Some("LAB_AK"),
            ..CTX
        };
        let said = classify(&from_env, 403, None, body).to_string();
        assert!(
            said.contains("put the right access key id in $LAB_AK"),
            "{said}"
        );
    }

    #[test]
    fn missing_bucket_names_the_bucket_and_the_fix() {
        let body = "<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code><Message>nope</Message></Error>";
        let f = classify(&CTX, 404, None, body);
        let text = f.to_string();
        assert!(
            text.contains("target 'lab-s3': bucket 'x' does not exist (HTTP 404 NoSuchBucket): create it or fix the URL"),
            "{text}"
        );
        assert!(!text.contains("target: target"), "{text}");
        assert_eq!(f.class(), FailureClass::Terminal);
    }

    /// How an S3 error body with `code` and no message is classified under `status`.
    fn class_of(status: u16, code: &str) -> FailureClass {
        let body = format!("<Error><Code>{code}</Code></Error>");
        classify(&CTX, status, None, &body).class()
    }

    #[test]
    fn conditional_conflict_is_ambiguous_and_refused_keys_pause() {
        assert_eq!(
            class_of(409, "ConditionalRequestConflict"),
            FailureClass::RetryAmbiguous
        );
        assert_eq!(
            class_of(403, "InvalidAccessKeyId"),
            FailureClass::PauseTarget
        );
    }

    #[test]
    fn an_upload_aborted_meanwhile_is_started_over_not_rejected() {
        assert_eq!(class_of(404, "NoSuchUpload"), FailureClass::RetryAmbiguous);
        assert_eq!(class_of(404, "NoSuchBucket"), FailureClass::Terminal);
    }

    #[test]
    fn an_upload_the_server_timed_out_on_is_retried_not_rejected() {
        let body = "<Error><Code>RequestTimeout</Code><Message>Your socket connection to the \
                    server was not read from or written to within the timeout period.</Message>\
                    </Error>";
        let f = classify(&CTX, 400, None, body);
        assert_eq!(f.class(), FailureClass::RetryAmbiguous, "{f}");
        // Any other 400 is still the request's own fault.
        assert_eq!(class_of(400, "InvalidArgument"), FailureClass::Terminal);
    }

    #[test]
    fn a_bucket_in_another_region_pauses_the_target_naming_where_it_is_served() {
        let body = "<Error><Code>PermanentRedirect</Code><Message>The bucket you are \
                    attempting to access must be addressed using the specified endpoint.\
                    </Message><Endpoint>x.s3.eu-west-1.amazonaws.com</Endpoint>\
                    <Bucket>x</Bucket></Error>";
        let f = classify(&CTX, 301, None, body);
        assert_eq!(f.class(), FailureClass::PauseTarget);
        let text = f.to_string();
        assert!(
            text.contains("the server says it is served at x.s3.eu-west-1.amazonaws.com"),
            "{text}"
        );
        assert!(text.contains("--region REGION"), "{text}");
    }

    #[test]
    fn a_bodiless_redirect_naming_the_buckets_region_says_which_region_to_give() {
        // What AWS answers a HEAD in the wrong region: no body, the region in a header.
        let f = moved(&CTX, 301, "", "", Some("eu-west-1"));
        assert_eq!(f.class(), FailureClass::PauseTarget);
        let text = f.to_string();
        assert!(
            text.contains(
                "bucket 'x' is in region eu-west-1, not us-east-1 as this target asks (HTTP 301)"
            ),
            "{text}"
        );
        assert!(text.contains("--region eu-west-1"), "{text}");
    }

    #[test]
    fn a_request_signed_for_another_region_pauses_the_target_naming_the_buckets_region() {
        let body = "<Error><Code>AuthorizationHeaderMalformed</Code><Message>The authorization \
                    header is malformed; the region 'us-east-1' is wrong; expecting \
                    'eu-west-1'</Message><Region>eu-west-1</Region></Error>";
        let f = classify(&CTX, 400, None, body);
        assert_eq!(f.class(), FailureClass::PauseTarget, "{f}");
        let text = f.to_string();
        assert!(text.contains("bucket 'x' is in region eu-west-1"), "{text}");
        assert!(text.contains("--region eu-west-1"), "{text}");
        // A malformed header for another reason is still the request's own fault.
        assert_eq!(
            class_of(400, "AuthorizationHeaderMalformed"),
            FailureClass::Terminal
        );
    }

    #[test]
    fn a_skewed_clock_pauses_the_target_and_says_to_set_the_clock_not_the_keys() {
        let body = "<Error><Code>RequestTimeTooSkewed</Code></Error>";
        let f = classify(&CTX, 403, None, body);
        assert_eq!(f.class(), FailureClass::PauseTarget);
        let text = f.to_string();
        assert!(text.contains("clock"), "{text}");
        assert!(!text.contains("credentials"), "{text}");
    }
}
