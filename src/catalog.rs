//! The catalog: adding and rescanning dataset folders, where content meets the store.
//!
//! Scanning, hashing (through the store's hash cache) and recording happen here once, for the
//! command line and the desktop app alike. Nothing is recorded unless the whole folder was
//! scanned and hashed without error.

use std::collections::HashMap;
use std::path::Path;

use crate::content::{
    ContentError, DataFingerprint, DocumentChanges, FileStamp, HashCache, HashWatch, Metadata,
    PreparedDataset, ScanReport, ScannedFile, prepare_scanned, scan_folder_leaving_out,
};
use crate::store::{DatasetRow, FileScan, NewDataset, Store, StoreError};

/// Why a folder could not be added.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error(transparent)]
    Content(#[from] ContentError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the folder name {0} is not valid UTF-8: rename it")]
    NonUtf8Root(String),
}

/// Walk a dataset folder as a scan for `store` does: the store's own files, should the
/// folder hold them (`lodge --db lodge.db add .`), are left out and listed as such, since
/// they change as Lodge works and are not the dataset's.
pub fn scan_dataset_folder(store: &Store, root: &Path) -> Result<ScanReport, ContentError> {
    scan_folder_leaving_out(root, &store.own_files())
}

/// A folder as recorded: its dataset id and what the scan found.
pub struct RecordedDataset {
    pub id: i64,
    pub prepared: PreparedDataset,
}

/// Scan and hash `root` with `metadata`, then record the dataset, its document and its files
/// in one transaction. Progress is reported as hashing proceeds.
pub fn record_folder(
    store: &Store,
    root: &Path,
    metadata: &Metadata,
    progress: &dyn HashWatch,
) -> Result<RecordedDataset, CatalogError> {
    let prepared = prepare_scanned(scan_dataset_folder(store, root)?, metadata, store, progress)?;
    let path = prepared
        .report
        .root
        .to_str()
        .ok_or_else(|| CatalogError::NonUtf8Root(root.display().to_string()))?
        .to_string();
    // On one line, as every listing shows it: a folder named with a line break or a tab
    // would otherwise split each line that names it (`lodge status`, the log) in two.
    let name = prepared
        .report
        .root
        .file_name()
        .map(|n| crate::wording::on_one_line(&n.to_string_lossy()).into_owned())
        .unwrap_or_else(|| path.clone());
    let files: Vec<FileScan> = prepared
        .files
        .iter()
        .map(|h| FileScan {
            rel_path: h.file.rel_path.clone(),
            size: h.file.stamp.size,
            mtime_ns: h.file.stamp.mtime_ns,
            file_id: h.file.stamp.file_id,
            sha256: h.sha256.to_hex(),
        })
        .collect();
    // Asked to stop once the files were hashed (writing their digests to the cache, or
    // keying the document, takes a while for many files): nothing is recorded yet, so
    // nothing is. Once the save has begun, it completes (one transaction).
    if progress.cancelled() {
        return Err(ContentError::Cancelled.into());
    }
    let id = store.save_dataset(&NewDataset {
        path: &path,
        name: &name,
        metadata,
        document: &prepared.document,
        files: &files,
    })?;
    Ok(RecordedDataset { id, prepared })
}

/// How the dataset folder `root` (canonical absolute) overlaps other datasets' folders, in
/// words ("is inside dataset 1 (survey) and holds dataset 4 (raw)"), if it does. Allowed (a
/// lab may deposit a collection and its parts), but often a folder dropped by mistake: the
/// files they share go into the deposits of both.
pub fn overlap(store: &Store, root: &str) -> Result<Option<String>, StoreError> {
    let root_path = Path::new(root);
    let (holding, inside): (Vec<DatasetRow>, Vec<DatasetRow>) = store
        .datasets_overlapping(root)?
        .into_iter()
        .partition(|d| root_path.starts_with(Path::new(&d.path)));
    let clause = |verb: &str, ds: &[DatasetRow]| {
        let names: Vec<String> = ds
            .iter()
            .map(|d| format!("{} ({})", d.id, d.name))
            .collect();
        let noun = if ds.len() == 1 { "dataset" } else { "datasets" };
        format!("{verb} {noun} {}", names.join(", "))
    };
    let parts: Vec<String> = [("is inside", holding), ("holds", inside)]
        .into_iter()
        .filter(|(_, ds)| !ds.is_empty())
        .map(|(verb, ds)| clause(verb, &ds))
        .collect();
    Ok((!parts.is_empty()).then(|| parts.join(" and ")))
}

/// Datasets this one looks moved from: added on this machine with the same files (the
/// data fingerprint, whatever their metadata) from a folder that no longer exists. The
/// old entry stays until the user removes it (what it deposited stays either way); a copy
/// whose folder is still there is a copy, not a move, and is not named.
pub fn moved_here(
    store: &Store,
    id: i64,
    fingerprint: &DataFingerprint,
) -> Result<Vec<DatasetRow>, StoreError> {
    Ok(folders_gone(store)?
        .into_iter()
        .filter(|d| d.id != id && d.fingerprint.as_ref() == Some(fingerprint))
        .collect())
}

/// The dataset whose folder `path` (canonical absolute) was until it was taken off the
/// list (the last one, if several), with its metadata as it was then: adding the folder
/// again takes that up, so the same files make the same key, and a deposit replays the
/// record made before rather than make a second. `None` when no dataset of that folder
/// was removed, or its key's document is not kept.
pub fn taken_up_again(
    store: &Store,
    path: &str,
) -> Result<Option<(crate::store::RemovedDataset, crate::content::Metadata)>, StoreError> {
    let Some((removed, Some(key))) = store.removed_at_path(path)? else {
        return Ok(None);
    };
    Ok(store
        .document(&key)?
        .map(|document| (removed, document.metadata)))
}

/// The one dataset whose folder is gone and whose files are those of the folder at `root`
/// (the same folder, moved there), if there is exactly one: a folder added where it is now
/// takes its metadata, and so its key. Looked for only while some dataset's folder is
/// gone; then the folder is hashed here, telling `progress` (through the hash cache, so
/// the scan that records it does not hash it again). Blocking. A folder that cannot be
/// scanned gives `None`: the scan that follows reports it in its own words.
pub fn moved_from(
    store: &Store,
    root: &Path,
    progress: &dyn HashWatch,
) -> Result<Option<DatasetRow>, StoreError> {
    let gone = folders_gone(store)?;
    if gone.is_empty() {
        return Ok(None);
    }
    let Ok(prepared) = crate::content::prepare_dataset(root, &Default::default(), store, progress)
    else {
        return Ok(None);
    };
    let fingerprint = prepared.fingerprint();
    let mut same: Vec<DatasetRow> = gone
        .into_iter()
        .filter(|d| d.fingerprint.as_ref() == Some(&fingerprint))
        .collect();
    Ok(match same.len() {
        1 => same.pop(),
        _ => None,
    })
}

/// This machine's datasets whose folders are gone (moved or deleted since they were added):
/// a deposit or rescan of them could only be refused until the folder is back or added
/// where it is now. One stat per dataset. (Another machine's folders are not looked for.)
pub fn folders_gone(store: &Store) -> Result<Vec<DatasetRow>, StoreError> {
    Ok(store
        .datasets_here()?
        .into_iter()
        .filter(|d| !Path::new(&d.path).is_dir())
        .collect())
}

/// How a dataset's folder differs from its last scan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FolderChange {
    /// Files added, removed or modified (another size or modification time).
    Files(DocumentChanges),
    /// The folder cannot be scanned as it is now (emptied, a file unreadable, ...): why,
    /// naming the path.
    Unscannable(String),
}

impl FolderChange {
    /// In words: "1 file added, 2 files modified", or why it cannot be scanned.
    pub fn describe(&self) -> String {
        match self {
            FolderChange::Files(changes) => crate::wording::file_changes(changes),
            FolderChange::Unscannable(why) => format!("cannot be scanned as it is now: {why}"),
        }
    }

    /// For scripts (`status --json`): the counts, and why it cannot be scanned (or null).
    pub fn to_json(&self) -> serde_json::Value {
        let (changes, unscannable) = match self {
            FolderChange::Files(c) => (c.clone(), None),
            FolderChange::Unscannable(why) => (DocumentChanges::default(), Some(why)),
        };
        serde_json::json!({
            "added": changes.added,
            "removed": changes.removed,
            "modified": changes.modified,
            "unscannable": unscannable,
        })
    }
}

/// What a dataset's folder holds now against its last scan, from a walk and a `stat` of
/// each file: `None` when it is as scanned. A file whose modification time alone moved (a
/// `touch`) is read to tell, once ([`modified_among_touched`]): touched but not changed, it
/// is as scanned. A dataset never scanned has nothing to compare and is `None`.
pub fn change_since_scan(
    store: &Store,
    d: &DatasetRow,
) -> Result<Option<FolderChange>, StoreError> {
    if d.key.is_none() {
        return Ok(None);
    }
    let report = match scan_dataset_folder(store, Path::new(&d.path)) {
        Ok(report) => report,
        Err(e) => return Ok(Some(FolderChange::Unscannable(e.to_string()))),
    };
    let scanned = store.dataset_files(d.id)?;
    let mut then: HashMap<&str, &FileScan> =
        scanned.iter().map(|f| (f.rel_path.as_str(), f)).collect();
    let mut changes = DocumentChanges::default();
    let mut touched = Vec::new();
    for now in &report.files {
        match then.remove(now.rel_path.as_str()) {
            None => changes.added += 1,
            Some(was) if was.size != now.stamp.size => changes.modified += 1,
            Some(was) if was.mtime_ns != now.stamp.mtime_ns => touched.push((now, was)),
            Some(_) => {}
        }
    }
    changes.modified += modified_among_touched(store, &touched);
    changes.removed = then.len();
    Ok(changes
        .files_changed()
        .then_some(FolderChange::Files(changes)))
}

/// The most bytes of files whose modification time alone moved that a look at a folder
/// reads to tell whether they changed; past it they are said modified, as a rescan would
/// find out (a look runs each time the window comes into focus: a tree of large files
/// touched at once is not read then).
const TOUCHED_READ_AT_MOST: u64 = 256 * 1024 * 1024;

/// Of the files whose modification time moved since the scan at their scanned size (`now`
/// as the walk found it, `was` as scanned): how many hold other bytes. Only the time moves
/// with a `touch`, or the same file copied over it: the bytes tell, read once (the digest
/// is remembered by the stamp, so the next look costs a stat). Past
/// [`TOUCHED_READ_AT_MOST`] bytes, or unreadable, a file counts as modified.
fn modified_among_touched(store: &Store, touched: &[(&ScannedFile, &FileScan)]) -> usize {
    if touched.is_empty() {
        return 0;
    }
    let stamps: Vec<FileStamp> = touched.iter().map(|(now, _)| now.stamp.clone()).collect();
    let cached = HashCache::lookup_many(store, &stamps);
    let mut budget = TOUCHED_READ_AT_MOST;
    let mut fresh = Vec::new();
    let mut modified = 0;
    for ((now, was), cached) in touched.iter().zip(cached) {
        let digest = cached.or_else(|| {
            budget = budget.checked_sub(now.stamp.size)?;
            let file = std::fs::File::open(&now.abs_path).ok()?;
            let (digest, _) = crate::content::sha256_reader(file).ok()?;
            fresh.push((now.stamp.clone(), digest));
            Some(digest)
        });
        if digest.is_none_or(|d| d.to_hex() != was.sha256) {
            modified += 1;
        }
    }
    HashCache::remember(store, &fresh);
    modified
}

/// This machine's datasets, of those `wanted`, whose folders changed since their last scan,
/// with what changed: their keys (and what a deposit sends) are of the folder as scanned
/// until `lodge scan` or the window's Rescan. One walk per dataset; folders gone are
/// [`folders_gone`]'s and are left out here.
pub fn folders_changed(
    store: &Store,
    wanted: impl Fn(i64) -> bool,
) -> Result<Vec<(DatasetRow, FolderChange)>, StoreError> {
    let mut changed = Vec::new();
    for d in store.datasets_here()? {
        if !wanted(d.id) || !Path::new(&d.path).is_dir() {
            continue;
        }
        if let Some(change) = change_since_scan(store, &d)? {
            changed.push((d, change));
        }
    }
    Ok(changed)
}
