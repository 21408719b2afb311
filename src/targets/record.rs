//! The record document that object-store and file-service targets write last: metadata,
//! manifest, content key and the Lodge version, as canonical JSON, so every writer of one key
//! writes the very same bytes.

use super::layout::FileLayout;
use super::{DepositRequest, Failure, RecordRef};
use crate::content::ContentKey;

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

/// The record of `key` to check a deposit by, as `read_at` reads it (Lodge's record of the
/// key at a path under the target's root, or none there): where `layout` keeps it, or, for a
/// deposit made before layouts kept their records apart, where it was kept then
/// ([`FileLayout::earlier_record_path`]), where only Lodge's record of the key counts.
pub async fn record_to_check<Found>(
    layout: FileLayout,
    key: &ContentKey,
    read_at: impl Fn(String) -> Found,
) -> Result<Option<RecordRef>, Failure>
where
    Found: std::future::Future<Output = Result<Option<RecordRef>, Failure>>,
{
    let found = read_at(layout.record_path(key)).await?;
    match (found, layout.earlier_record_path(key)) {
        (None, Some(earlier)) => match read_at(earlier).await {
            // Something else there is no record of this deposit's.
            Err(Failure::Conflict { .. }) => Ok(None),
            other => other,
        },
        (found, _) => Ok(found),
    }
}

/// What was found where the record of `key` belongs.
#[derive(Debug, PartialEq, Eq)]
pub enum FoundRecord {
    /// Lodge's record of this key.
    Ours,
    /// A whole JSON document that is not Lodge's record of this key.
    Foreign,
    /// Not a whole JSON document: empty or cut short. A WebDAV server shows a file from the
    /// moment an upload starts writing it, so a deposit of the same key running at the same
    /// time can read the record half-written (or the file is damaged).
    Incomplete,
}

/// Read a record body found where the record of `key` belongs.
pub fn found_record(body: &[u8], key: &ContentKey) -> FoundRecord {
    match serde_json::from_slice::<serde_json::Value>(body) {
        Err(_) => FoundRecord::Incomplete,
        Ok(value) if value.get("key").and_then(|k| k.as_str()) == Some(&key.to_hex()) => {
            FoundRecord::Ours
        }
        Ok(_) => FoundRecord::Foreign,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_cut_short_is_incomplete_and_another_keys_record_is_foreign() {
        let key: ContentKey = "ab".repeat(32).parse().unwrap();
        let other: ContentKey = "cd".repeat(32).parse().unwrap();
        let ours = format!(r#"{{"key":"{key}","lodge":1,"manifest":[]}}"#);
        assert_eq!(found_record(ours.as_bytes(), &key), FoundRecord::Ours);
        assert_eq!(found_record(ours.as_bytes(), &other), FoundRecord::Foreign);
        assert_eq!(
            found_record(br#"{"title":"x"}"#, &key),
            FoundRecord::Foreign
        );
        assert_eq!(found_record(b"", &key), FoundRecord::Incomplete);
        let cut = &ours.as_bytes()[..ours.len() / 2];
        assert_eq!(found_record(cut, &key), FoundRecord::Incomplete);
    }
}
