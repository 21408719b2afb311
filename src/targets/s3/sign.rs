//! SigV4 request signing with the `aws-sigv4` crate (not hand-rolled). Headers are signed;
//! bodies are `UNSIGNED-PAYLOAD`, so uploads stream from disk without being read twice.
//! A link for a web browser is signed in its query instead (a presigned GET), since a
//! browser sends no headers of ours.

use std::time::{Duration, SystemTime};

use aws_sigv4::http_request::{
    PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest, SignatureLocation,
    SigningSettings, UriPathNormalizationMode, sign,
};
use aws_sigv4::sign::v4;

use crate::targets::Failure;
use crate::targets::secret::UserSecret;

/// Signs requests for one access key in one region.
#[derive(Clone)]
pub struct Signer {
    credentials: UserSecret,
    region: String,
}

impl Signer {
    pub fn new(credentials: UserSecret, region: String) -> Signer {
        Signer {
            credentials,
            region,
        }
    }

    /// Add the SigV4 headers to a built request.
    pub fn sign(&self, request: &mut reqwest::Request) -> Result<(), Failure> {
        let identity = self.credentials().into();
        let mut settings = SigningSettings::default();
        settings.percent_encoding_mode = PercentEncodingMode::Single;
        settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
        settings.uri_path_normalization_mode = UriPathNormalizationMode::Disabled;
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name("s3")
            .time(SystemTime::now())
            .settings(settings)
            .build()
            .map_err(|e| signing_failure(e.to_string()))?
            .into();
        let headers: Vec<(String, String)> = request
            .headers()
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect();
        let signable = SignableRequest::new(
            request.method().as_str(),
            request.url().as_str(),
            headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
            SignableBody::UnsignedPayload,
        )
        .map_err(|e| signing_failure(e.to_string()))?;
        let (instructions, _signature) = sign(signable, &params)
            .map_err(|e| signing_failure(e.to_string()))?
            .into_parts();
        for (name, value) in instructions.headers() {
            let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| signing_failure(e.to_string()))?;
            let value = reqwest::header::HeaderValue::from_str(value)
                .map_err(|e| signing_failure(e.to_string()))?;
            request.headers_mut().insert(name, value);
        }
        Ok(())
    }

    /// `url` with a GET of it signed in its query (a presigned URL), good for `valid_for`
    /// from `at`: what a web browser can open on a private bucket. Only the `host` header
    /// is signed, the one a browser sends that the signature can cover.
    pub fn presigned_get(
        &self,
        url: &reqwest::Url,
        valid_for: Duration,
        at: SystemTime,
    ) -> Result<reqwest::Url, Failure> {
        let identity = self.credentials().into();
        let mut settings = SigningSettings::default();
        settings.percent_encoding_mode = PercentEncodingMode::Single;
        settings.payload_checksum_kind = PayloadChecksumKind::NoHeader;
        settings.uri_path_normalization_mode = UriPathNormalizationMode::Disabled;
        settings.signature_location = SignatureLocation::QueryParams;
        settings.expires_in = Some(valid_for);
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name("s3")
            .time(at)
            .settings(settings)
            .build()
            .map_err(|e| signing_failure(e.to_string()))?
            .into();
        let signable = SignableRequest::new(
            "GET",
            url.as_str(),
            std::iter::empty(),
            SignableBody::UnsignedPayload,
        )
        .map_err(|e| signing_failure(e.to_string()))?;
        let (instructions, _signature) = sign(signable, &params)
            .map_err(|e| signing_failure(e.to_string()))?
            .into_parts();
        let mut signed = url.clone();
        {
            let mut query = signed.query_pairs_mut();
            for (name, value) in instructions.params() {
                query.append_pair(name, value);
            }
        }
        Ok(signed)
    }

    fn credentials(&self) -> aws_credential_types::Credentials {
        aws_credential_types::Credentials::new(
            self.credentials.user.clone(),
            self.credentials.secret.expose().to_string(),
            None,
            None,
            "lodge",
        )
    }
}

fn signing_failure(message: String) -> Failure {
    Failure::Unauthorized {
        status: 0,
        message: format!("cannot sign the request with these credentials: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets::secret::Secret;

    /// The expected link was made by botocore (`generate_presigned_url` with `s3v4`,
    /// path-style addressing, its clock set to the same instant): an independent
    /// implementation of the same scheme.
    #[test]
    fn a_presigned_get_matches_botocores_for_the_same_key_instant_and_lifetime() {
        let signer = Signer::new(
            UserSecret {
                user: "AKIDEXAMPLE".into(),
                secret: Secret::new("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            },
            "eu-central-1".into(),
        );
        let url = reqwest::Url::parse(
            "http://127.0.0.1:9000/lab-data/deposits/records/\
             3f80f9d101d42dd8dbd6908a8f4c7b6ccd507af3793b0df2f66f057b63f25681.json",
        )
        .unwrap();
        // 2026-12-03T04:30:00Z
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_272_200);
        let signed = signer
            .presigned_get(&url, Duration::from_secs(3600), at)
            .unwrap();
        assert_eq!(
            signed.as_str(),
            "http://127.0.0.1:9000/lab-data/deposits/records/\
             3f80f9d101d42dd8dbd6908a8f4c7b6ccd507af3793b0df2f66f057b63f25681.json\
             ?X-Amz-Algorithm=AWS4-HMAC-SHA256\
             &X-Amz-Credential=AKIDEXAMPLE%2F20261203%2Feu-central-1%2Fs3%2Faws4_request\
             &X-Amz-Date=20261203T043000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host\
             &X-Amz-Signature=ba67e98445be91cc493a83f4943699a50f820ba73a3bfabaff9beb6aea61d515"
        );
    }
}
