//! The record document that object-store and file-service targets write last: metadata,
//! manifest, content key and the Lodge version, as canonical JSON, so every writer of one key
//! writes the very same bytes.

use super::{DepositRequest, Failure};

/// Refuse, before anything is sent, a document the record must not be made of. Servers that
/// store files do not validate metadata, so Lodge does: a problem here is terminal.
pub fn validate(request: &DepositRequest<'_>) -> Result<(), Failure> {
    let problems = request.document.problems();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::Rejected {
            status: 0,
            problems,
        })
    }
}

/// The record's bytes: `{"key","lodge_version","lodge","manifest","metadata"}`, RFC 8785.
pub fn record_body(request: &DepositRequest<'_>) -> Vec<u8> {
    let doc = request.document;
    let value = serde_json::json!({
        "key": request.key.to_hex(),
        "lodge_version": env!("CARGO_PKG_VERSION"),
        "lodge": doc.lodge,
        "manifest": doc.manifest,
        "metadata": doc.metadata,
    });
    serde_json_canonicalizer::to_vec(&value).expect("canonical JSON of a record")
}

/// The content key a record body names, if it is one of ours.
pub fn key_of_record(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    value.get("key")?.as_str().map(str::to_string)
}
