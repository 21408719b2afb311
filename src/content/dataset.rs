//! From a folder and its metadata to everything a deposit needs: the scan, the hashed files
//! and the canonical document whose digest is the content key.

use std::path::Path;

use super::{
    ContentDocument, ContentError, ContentKey, DataFingerprint, HashCache, HashWatch, HashedFile,
    ManifestEntry, Metadata, ScanReport, hash_files, scan_folder,
};

/// A scanned and hashed folder with the document it is keyed by.
#[derive(Clone, Debug)]
pub struct PreparedDataset {
    pub report: ScanReport,
    /// One per file of `report.files`, in the same order.
    pub files: Vec<HashedFile>,
    pub document: ContentDocument,
}

impl PreparedDataset {
    /// The idempotency key of depositing these files with this metadata.
    pub fn key(&self) -> ContentKey {
        self.document.key()
    }

    /// Identifies the data alone, whatever the metadata.
    pub fn fingerprint(&self) -> DataFingerprint {
        self.document.fingerprint()
    }
}

/// Scan `root`, hash its files (through `cache`) and build the content document with
/// `metadata`. The metadata is normalised but not validated: see [`Metadata::problems`].
pub fn prepare_dataset(
    root: &Path,
    metadata: &Metadata,
    cache: &dyn HashCache,
    progress: &dyn HashWatch,
) -> Result<PreparedDataset, ContentError> {
    prepare_scanned(scan_folder(root)?, metadata, cache, progress)
}

/// [`prepare_dataset`] for a folder already scanned.
pub fn prepare_scanned(
    report: ScanReport,
    metadata: &Metadata,
    cache: &dyn HashCache,
    progress: &dyn HashWatch,
) -> Result<PreparedDataset, ContentError> {
    let files = hash_files(&report, cache, progress)?;
    let manifest = files
        .iter()
        .map(|h| ManifestEntry {
            path: h.file.rel_path.clone(),
            size: h.file.stamp.size,
            sha256: h.sha256,
        })
        .collect();
    let document = ContentDocument::new(manifest, metadata);
    Ok(PreparedDataset {
        report,
        files,
        document,
    })
}
