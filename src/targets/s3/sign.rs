//! SigV4 request signing with the `aws-sigv4` crate (not hand-rolled). Headers are signed;
//! bodies are `UNSIGNED-PAYLOAD`, so uploads stream from disk without being read twice.

use std::time::SystemTime;

use aws_sigv4::http_request::{
    PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest, SigningSettings,
    UriPathNormalizationMode, sign,
};
use aws_sigv4::sign::v4;

use crate::targets::Failure;
use crate::targets::secret::UserSecret;

/// Signs requests for one access key in one region.
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
        let identity = aws_credential_types::Credentials::new(
            self.credentials.user.clone(),
            self.credentials.secret.expose().to_string(),
            None,
            None,
            "lodge",
        )
        .into();
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
}

fn signing_failure(message: String) -> Failure {
    Failure::Unauthorized {
        status: 0,
        message: format!("cannot sign the request with these credentials: {message}"),
    }
}
