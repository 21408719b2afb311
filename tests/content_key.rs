//! The content key of a prepared dataset: the same files and metadata key the same anywhere;
//! any change to a byte or to the metadata changes it.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use lodge::content::{
    HashProgress, MemoryHashCache, Metadata, NoHashCache, PreparedDataset, prepare_dataset,
};

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn no_progress(_: HashProgress) {}

fn metadata() -> Metadata {
    serde_json::from_str(
        r#"{"title": "Soil cores", "creators": [{"name": "Curie, Marie"}],
            "publisher": "Lab", "publication_year": 2026}"#,
    )
    .unwrap()
}

fn fill(root: &Path) {
    write(root, "data/cores.csv", b"depth,carbon\n1,0.3\n2,0.2\n");
    write(root, "README.md", b"# Soil cores\n");
    write(
        root,
        "images/core-1.png",
        &[0x89, b'P', b'N', b'G', 0, 1, 2, 3],
    );
}

fn prepare(root: &Path, metadata: &Metadata) -> PreparedDataset {
    prepare_dataset(root, metadata, &NoHashCache, &no_progress).unwrap()
}

#[test]
fn a_copy_elsewhere_with_other_mtimes_has_the_same_key() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    fill(a.path());
    fill(b.path());
    let long_ago = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    for rel in ["data/cores.csv", "README.md", "images/core-1.png"] {
        fs::File::options()
            .write(true)
            .open(b.path().join(rel))
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
    }
    let (pa, pb) = (
        prepare(a.path(), &metadata()),
        prepare(b.path(), &metadata()),
    );
    assert_ne!(pa.report.root, pb.report.root);
    assert_ne!(
        pa.files[0].file.stamp.mtime_ns,
        pb.files[0].file.stamp.mtime_ns
    );
    assert_eq!(pa.key(), pb.key());
    assert_eq!(pa.fingerprint(), pb.fingerprint());
}

#[test]
fn the_key_does_not_depend_on_the_hash_cache() {
    let dir = tempfile::tempdir().unwrap();
    fill(dir.path());
    let cache = MemoryHashCache::new();
    let cold = prepare_dataset(dir.path(), &metadata(), &cache, &no_progress).unwrap();
    let warm = prepare_dataset(dir.path(), &metadata(), &cache, &no_progress).unwrap();
    assert_eq!(cache.len(), 3);
    assert_eq!(cold.key(), warm.key());
    assert_eq!(cold.key(), prepare(dir.path(), &metadata()).key());
}

#[test]
fn metadata_field_order_does_not_change_the_key() {
    let dir = tempfile::tempdir().unwrap();
    fill(dir.path());
    let reordered: Metadata = serde_json::from_str(
        r#"{"publication_year": 2026, "publisher": "Lab",
            "creators": [{"name": "Curie, Marie"}], "title": "Soil cores"}"#,
    )
    .unwrap();
    assert_eq!(
        prepare(dir.path(), &metadata()).key(),
        prepare(dir.path(), &reordered).key()
    );
}

#[test]
fn one_changed_byte_changes_the_key_and_the_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    fill(dir.path());
    let before = prepare(dir.path(), &metadata());
    write(
        dir.path(),
        "data/cores.csv",
        b"depth,carbon\n1,0.3\n2,0.3\n",
    );
    let after = prepare(dir.path(), &metadata());
    assert_ne!(before.key(), after.key());
    assert_ne!(before.fingerprint(), after.fingerprint());
}

#[test]
fn renaming_a_file_changes_the_key() {
    let dir = tempfile::tempdir().unwrap();
    fill(dir.path());
    let before = prepare(dir.path(), &metadata());
    fs::rename(dir.path().join("README.md"), dir.path().join("README.txt")).unwrap();
    assert_ne!(before.key(), prepare(dir.path(), &metadata()).key());
}

#[test]
fn the_data_fingerprint_ignores_metadata() {
    let dir = tempfile::tempdir().unwrap();
    fill(dir.path());
    let mut other = metadata();
    other.title = "Soil cores, corrected".into();
    let (a, b) = (
        prepare(dir.path(), &metadata()),
        prepare(dir.path(), &other),
    );
    assert_ne!(a.key(), b.key());
    assert_eq!(a.fingerprint(), b.fingerprint());
}

#[test]
fn the_document_lists_every_file_with_size_and_digest() {
    let dir = tempfile::tempdir().unwrap();
    fill(dir.path());
    let p = prepare(dir.path(), &metadata());
    let paths: Vec<&str> = p
        .document
        .manifest
        .iter()
        .map(|e| e.path.as_str())
        .collect();
    assert_eq!(
        paths,
        vec!["README.md", "data/cores.csv", "images/core-1.png"]
    );
    assert_eq!(p.document.manifest[2].size, 8);
    assert_eq!(p.document.total_size(), p.report.total_bytes);
    assert!(
        p.document.problems().is_empty(),
        "{:?}",
        p.document.problems()
    );
}
