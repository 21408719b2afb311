//! The properties the fuzz targets check, shared by them: whatever a parser accepts must be
//! something the rest of Lodge handles without panicking, and must survive the round trips
//! Lodge puts it through (the store's JSON, the canonical document a key is computed over).

use lodge::content::{ContentDocument, MAX_KEYED_SIZE, ManifestEntry, Metadata, Sha256Hex};

/// Metadata a parser produced: validation answers with messages naming fields, normalising
/// twice changes nothing, the store's JSON gives it back unchanged, and a document made with
/// it keys the same after its canonical JSON is read back.
pub fn check_metadata(metadata: &Metadata) {
    for problem in metadata.problems() {
        assert!(
            !problem.field.is_empty(),
            "a problem without a field: {problem:?}"
        );
        assert!(
            !problem.message.is_empty(),
            "a problem without a message: {problem:?}"
        );
    }
    let normalized = metadata.normalized();
    assert_eq!(
        normalized.normalized(),
        normalized,
        "normalising is idempotent"
    );

    let stored = serde_json::to_string(metadata).expect("metadata as JSON");
    let back: Metadata = serde_json::from_str(&stored).expect("metadata from its JSON");
    assert_eq!(&back, metadata, "the store's JSON round trip");

    let entry = ManifestEntry {
        path: "data.csv".into(),
        size: 1,
        sha256: Sha256Hex::of(b"1"),
    };
    check_document(&ContentDocument::new(vec![entry], metadata));
}

/// A document: its problems are messages, and — when no size is beyond what a key tells
/// apart — its canonical JSON reads back as the same document with the same key.
pub fn check_document(document: &ContentDocument) {
    for problem in document.problems() {
        assert!(!problem.field.is_empty() && !problem.message.is_empty());
    }
    let key = document.key();
    let canonical = document.canonical_json();
    if document.manifest.iter().all(|e| e.size <= MAX_KEYED_SIZE) {
        let back: ContentDocument =
            serde_json::from_slice(&canonical).expect("a document from its canonical JSON");
        assert_eq!(&back, document, "the canonical JSON round trip");
        assert_eq!(back.key(), key, "the key after the round trip");
    }
}
