//! A dataset's folder as it is now against its last scan, from a walk and a `stat` of each
//! scanned file (hashing only a file whose modification time alone moved): what `show`
//! reports and `deposit` notes, since the key is of the folder as scanned.

use std::collections::HashSet;
use std::path::Path;

use crate::content::SkippedEntry;
use crate::engine::check_unchanged;
use crate::store::{DatasetRow, Store};

pub(super) enum FolderNow {
    Readable {
        /// What a scan leaves out that a person would want to know of (links, pipes, files
        /// a `.lodgeignore` matched).
        left_out: Vec<SkippedEntry>,
        /// A scanned file changed or gone since the scan, as a deposit would refuse it.
        changed: Option<String>,
        /// Files there now that the scan did not see (a deposit leaves them out), in path
        /// order.
        added: Vec<String>,
    },
    /// It cannot be walked (moved, deleted, unreadable): why.
    Unreadable(String),
    /// It cannot be walked here, and the dataset was added on another machine (a shared
    /// database), by its name: the folder is that machine's, not gone.
    OnAnotherMachine(String),
}

impl FolderNow {
    pub(super) fn of(store: &Store, d: &DatasetRow) -> anyhow::Result<FolderNow> {
        let root = Path::new(&d.path);
        let report = match crate::catalog::scan_dataset_folder(store, root) {
            Ok(report) => report,
            Err(e) => {
                return Ok(match store.added_elsewhere(d.id)? {
                    Some(origin) => FolderNow::OnAnotherMachine(origin),
                    None => FolderNow::Unreadable(e.to_string()),
                });
            }
        };
        let scanned = store.dataset_files(d.id)?;
        let known: HashSet<&str> = scanned.iter().map(|f| f.rel_path.as_str()).collect();
        Ok(FolderNow::Readable {
            left_out: report
                .skipped
                .into_iter()
                .filter(SkippedEntry::is_notable)
                .collect(),
            changed: check_unchanged(root, &scanned).err().map(|f| f.to_string()),
            added: report
                .files
                .iter()
                .map(|f| f.rel_path.clone())
                .filter(|p| !known.contains(p.as_str()))
                .collect(),
        })
    }
}
