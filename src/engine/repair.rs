//! Putting back what a damaged deposit lost (`lodge verify --repair`, the window's
//! *Repair*): the files a check finds missing on the server are sent again from the
//! dataset's folder by the target's own upload, whose conditional writes add only what is
//! not there (on WebDAV it also replaces a file of the wrong size, what a cut-off upload
//! leaves), or on InvenioRDM into the draft the deposit left for review, and only there. A
//! record is written again only where it is gone and its target keeps it under a name its
//! key alone decides (S3, WebDAV: [`Target::rewrites_gone_records`]), so that it is the
//! record Lodge recorded, at the same identifier; anywhere else a record is left alone,
//! since writing another would be the duplicate Lodge exists to prevent. What a repair
//! cannot put back (other bytes under a file's name, a record gone from a server that mints
//! identifiers) is named with what to do instead.

use std::path::Path;
use std::sync::Arc;

use super::retry::RetryPolicy;
use super::verify::{SilenceWatch, Verification, check_deposit, log_finding};
use crate::content::ContentDocument;
use crate::store::{EventRow, JobRow, Store, StoreError};
use crate::targets::{DepositRequest, Discrepancy, Failure, ProgressSink, ReadBack, Target};

/// Whether each of `files` (manifest paths) in the folder at `root` still holds what was
/// deposited (its SHA-256 in `document`'s manifest); the first that does not is a
/// [`Failure::Changed`] (or unreadable). Read on a blocking thread.
async fn unchanged_in_folder(
    root: &Path,
    document: &ContentDocument,
    files: &[String],
) -> Result<(), Failure> {
    let entries: Vec<_> = document
        .manifest
        .iter()
        .filter(|e| files.contains(&e.path))
        .cloned()
        .collect();
    let folder = root.display().to_string();
    let root = root.to_path_buf();
    let checked = tokio::task::spawn_blocking(move || {
        for entry in entries {
            let path = crate::content::on_disk(&root, &entry.path);
            let file = std::fs::File::open(&path)
                .map_err(|e| Failure::reading_local_file(&path, "cannot open it", &e))?;
            let (digest, size) = crate::content::sha256_reader(file)
                .map_err(|e| Failure::reading_local_file(&path, "cannot read it", &e))?;
            if digest != entry.sha256 || size != entry.size {
                return Err(Failure::Changed {
                    path: entry.path.clone(),
                    message: format!(
                        "it is not the file deposited ({}, SHA-256 {digest}; deposited: {}, \
                         SHA-256 {})",
                        crate::wording::count_of(size, "byte", "bytes"),
                        crate::wording::count_of(entry.size, "byte", "bytes"),
                        entry.sha256
                    ),
                });
            }
        }
        Ok(())
    })
    .await;
    checked.unwrap_or_else(|e| {
        Err(Failure::Changed {
            path: folder,
            message: format!("checking the folder's files failed: {e}"),
        })
    })
}

/// The deposit's `job` as a repair sends its files: from its dataset's folder, or, where
/// that folder is not on this machine (moved, deleted), from the folder of a dataset added
/// here with the same key (the folder added again where it is now, a copy): the same key is
/// the same files. As it was when there is none.
pub fn from_a_folder_here(store: &Store, job: &JobRow) -> JobRow {
    let here = |path: &str| Path::new(path).is_dir();
    if job.dataset_path.as_deref().is_some_and(here) {
        return job.clone();
    }
    let copies = store
        .copies_of_key(&job.key, job.dataset_id)
        .unwrap_or_default();
    match super::first_copy_here(copies) {
        Some(copy) => JobRow {
            dataset_id: Some(copy.dataset_id),
            dataset_path: Some(copy.path),
            ..job.clone()
        },
        None => job.clone(),
    }
}

/// What a repair of one deposit did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repair {
    /// Nothing was sent. `found` is what the check found; `why` says why nothing it found
    /// could be put back, when it found damage.
    NothingSent {
        found: Verification,
        why: Option<String>,
    },
    /// The files the server had lost (`files`, manifest paths) were sent again, and its
    /// record written again when it was gone (`record`); `after` is the check that followed.
    PutBack {
        files: Vec<String>,
        record: bool,
        after: Verification,
    },
    /// Sending the lost files failed (`error`, which says what to do): `sent` are those it
    /// put back before it stopped (a later file's conflict stops the rest, not what went
    /// before), `files` those still lost. `found` is what the check found that stands: the
    /// one after the attempt when some were sent, else the one before.
    SendFailed {
        files: Vec<String>,
        sent: Vec<String>,
        error: String,
        found: Verification,
    },
}

/// Check the deposit `job` landed on `target` (by `read`), then send again the files the
/// server lost, from the dataset's folder, and check once more. `progress` is told of the
/// bytes of both checks' read-backs.
pub async fn repair_deposit(
    target: &dyn Target,
    job: &JobRow,
    document: &ContentDocument,
    read: ReadBack,
    progress: &ProgressSink,
) -> Repair {
    let watch = SilenceWatch::default();
    repair_watched(&watch, target, "", job, document, read, progress).await
}

/// [`repair_deposit`] of one of many deposits on `target` that share `watch`: its first
/// check is not sent once the server has not answered, or refused the credentials of, an
/// earlier one (`name`: the deposit's dataset, which the later ones say so of).
pub async fn repair_watched(
    watch: &SilenceWatch,
    target: &dyn Target,
    name: &str,
    job: &JobRow,
    document: &ContentDocument,
    read: ReadBack,
    progress: &ProgressSink,
) -> Repair {
    let found = watch
        .check(target, name, job, document, read, progress)
        .await;
    let Verification::Damaged(damage) = &found else {
        return Repair::NothingSent { found, why: None };
    };
    let files: Vec<String> = damage
        .iter()
        .filter_map(|d| sent_again(d, target.replaces_wrong_size_files()))
        .map(str::to_string)
        .collect();
    let refuse = |why: String| Repair::NothingSent {
        found: found.clone(),
        why: Some(why),
    };
    let record_gone = target.rewrites_gone_records()
        && damage
            .iter()
            .any(|d| matches!(d, Discrepancy::RecordGone { .. }));
    if files.is_empty() && !record_gone {
        let file_list = format!(
            "{}, or the window's details",
            file_list_command(job.dataset_id)
        );
        return refuse(what_is_left(damage, &file_list));
    }
    if !files.is_empty()
        && let Err(why) = target.files_can_be_put_back()
    {
        return refuse(why.to_string());
    }
    let Some(root) = job
        .dataset_path
        .as_deref()
        .filter(|_| job.dataset_id.is_some())
    else {
        return refuse("its dataset was removed from Lodge: add its folder again".into());
    };
    if !Path::new(root).is_dir() {
        return refuse(format!(
            "its folder {root} is not on this machine (moved or deleted): add it where it is \
             now (`lodge add FOLDER`, or drop it on the window), then repair again; or repair \
             on the machine that has it"
        ));
    }
    // The target's own way back (by default the deposit's upload: every file of the
    // manifest is offered again under a conditional write, so only the lost ones are
    // written), each file hashed as it is sent (a file changed in the folder since is
    // refused, not sent).
    let request = DepositRequest {
        key: job.key,
        document,
        root: Path::new(root),
        earlier_records: &[],
        files_stored: &crate::targets::FilesStored::default(),
    };
    let Some(record) = job.identifier.as_deref() else {
        return refuse("the deposit has no record recorded to put its files back under".into());
    };
    // A file changed in the folder since the deposit is refused before anything is sent:
    // a server that writes a file as it arrives (wsgidav, say) keeps what an upload cut
    // short left under the file's name, and the next check would find the file short
    // rather than gone. (Only the record gone: nothing is sent before it.)
    let sent = match files.is_empty() {
        true => Ok(()),
        false => match unchanged_in_folder(Path::new(root), document, &files).await {
            Ok(()) => retried(|| target.put_back(&request, record, &files, Arc::new(|_| {}))).await,
            Err(changed) => Err(changed),
        },
    };
    if let Err(failure) = sent {
        let failure_was_a_change = matches!(failure, Failure::Changed { .. });
        let error = match failure {
            // A rescan would only make the folder's new bytes the dataset's: the deposit
            // needs the bytes it was made of.
            Failure::Changed { .. } => format!(
                "{failure}. The folder no longer holds that file as it was deposited, and the \
                 server lost it: put the deposited file back in the folder ({}, or the \
                 window's details, give its SHA-256), then repair again",
                file_list_command(job.dataset_id)
            ),
            other => other.to_string(),
        };
        // Which of them are back: the check again (a file's conflict stops the upload of the
        // rest, not of those before it), when anything may have been sent.
        let after = match failure_was_a_change {
            true => None,
            false => Some(check_deposit(target, job, document, read, progress).await),
        };
        let still_lost: Vec<String> = match &after {
            Some(Verification::Damaged(left)) => left
                .iter()
                .filter_map(|d| sent_again(d, target.replaces_wrong_size_files()))
                .map(str::to_string)
                .collect(),
            Some(_) => Vec::new(),
            None => files.clone(),
        };
        let (sent, files): (Vec<String>, Vec<String>) =
            files.into_iter().partition(|f| !still_lost.contains(f));
        let found = match after {
            Some(after) if !sent.is_empty() => after,
            _ => found,
        };
        return Repair::SendFailed {
            files,
            sent,
            error,
            found,
        };
    }
    if record_gone {
        // The same conditional write as the deposit's: written only if still not there,
        // and under the name the key decides, so it is the identifier recorded.
        let error = match retried(|| target.create_record(&request)).await {
            Ok(landed) if landed.record().identifier == record => None,
            Ok(landed) => Some(format!(
                "written again, the record is {}, not {record} as recorded: check the \
                 target's settings (its URL or layout may have changed since the deposit)",
                landed.record().identifier
            )),
            Err(failure) => Some(failure.to_string()),
        };
        if let Some(error) = error {
            return Repair::SendFailed {
                files: vec![RECORD.into()],
                sent: files,
                error,
                found,
            };
        }
    }
    let after = check_deposit(target, job, document, read, progress).await;
    Repair::PutBack {
        files,
        record: record_gone,
        after,
    }
}

/// `send` until it is not a failure worth another try (a busy server, a connection lost,
/// an answer lost): a few tries within two minutes, with backoff. What a repair sends is
/// written under conditional writes its key decides, so sending it again after an answer
/// was lost adds nothing twice.
async fn retried<T, F, Fut>(send: F) -> Result<T, Failure>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Failure>>,
{
    let policy = RetryPolicy {
        max_attempts: 4,
        deadline: std::time::Duration::from_secs(120),
        ..RetryPolicy::default()
    };
    policy.retry_idempotent(send).await
}

/// How a repair names the record it writes again, beside the files it sends.
const RECORD: &str = "the record";

/// What a repair sent again, in words: the files, and the record when it was written again.
pub fn what_was_sent(files: &[String], record: bool) -> String {
    let mut sent: Vec<&str> = files.iter().map(String::as_str).collect();
    if record {
        sent.push(RECORD);
    }
    sent.join(", ")
}

/// Whether a repair mends `damage` on a target that `replaces_wrong_size` files and
/// `rewrites_gone_records` ([`sent_again`], and a record gone where it is written again).
pub fn mended_by_repair(
    damage: &Discrepancy,
    replaces_wrong_size: bool,
    rewrites_gone_records: bool,
) -> bool {
    sent_again(damage, replaces_wrong_size).is_some()
        || (rewrites_gone_records && matches!(damage, Discrepancy::RecordGone { .. }))
}

/// The file (manifest path) a repair sends again for `damage`, if it does: a file the
/// server lost, and on a target that `replaces_wrong_size` files
/// ([`Target::replaces_wrong_size_files`], WebDAV) a file of the wrong size, what a cut-off
/// upload leaves. What a check tells a person to repair is this.
pub fn sent_again(damage: &Discrepancy, replaces_wrong_size: bool) -> Option<&str> {
    match damage {
        Discrepancy::FileMissing { path } => Some(path),
        Discrepancy::SizeDiffers { path, .. } if replaces_wrong_size => Some(path),
        _ => None,
    }
}

/// The command that lists the files of `dataset` with their SHA-256 (`DATASET` where it is
/// not one known dataset).
pub fn file_list_command(dataset: Option<i64>) -> String {
    match dataset {
        Some(id) => format!("`lodge show {id} --files`"),
        None => "`lodge show DATASET --files`".into(),
    }
}

/// Why the damage a repair does not touch stays, and what to do about it; `file_list`
/// says where the dataset's files are listed with their SHA-256 (a command, or the
/// window's details).
pub fn what_is_left(damage: &[Discrepancy], file_list: &str) -> String {
    let mut why: Vec<String> = Vec::new();
    let other_bytes: Vec<&str> = damage
        .iter()
        .filter_map(|d| match d {
            Discrepancy::SizeDiffers { path, .. } | Discrepancy::BytesDiffer { path, .. } => {
                Some(path.as_str())
            }
            _ => None,
        })
        .collect();
    if !other_bytes.is_empty() {
        why.push(format!(
            "the server holds other bytes under a file's name, which a conditional write \
             does not replace: remove that file on the server ({}; a server that keeps \
             files by digest names it by its SHA-256, in the dataset's file list: \
             {file_list}), then repair again",
            other_bytes.join(", ")
        ));
    }
    // The target named what stands in the record's place: on S3 and WebDAV, once it is
    // moved away, a repair writes the record again where the key alone names it. Elsewhere
    // (a DataCite DOI now carrying another key) a repair writes nothing: another DOI for
    // the key is the duplicate Lodge exists to prevent, and the key's DOI is the one there.
    let replaced = |written_again: bool| {
        damage.iter().any(|d| {
            matches!(d, Discrepancy::RecordReplaced { written_again: w, .. } if *w == written_again)
        })
    };
    if replaced(true) {
        why.push(
            "where the key's record belongs stands something else, which Lodge does not \
             overwrite: move it away on the server as the check says, then repair again, \
             which writes the record anew"
                .into(),
        );
    }
    if replaced(false) {
        why.push(
            "the record Lodge recorded now describes other content (a DOI whose metadata \
             was changed since, in DataCite Fabrica or by another client), and a repair \
             neither changes it nor mints another for this dataset: if the change was a \
             mistake, put this dataset's content key back in its metadata (the alternate \
             identifier of type 'Lodge content key', in Fabrica) and verify again; if the \
             DOI now rightly names other content, deposit this dataset to a target with \
             another prefix"
                .into(),
        );
    }
    if damage.iter().any(|d| {
        matches!(
            d,
            Discrepancy::RecordGone { .. } | Discrepancy::OtherRecord { .. }
        )
    }) {
        why.push(
            "the record itself is gone or replaced, and Lodge does not write a second record \
             for a key it recorded as landed: ask the repository's operators to restore it"
                .into(),
        );
    }
    if why.is_empty() {
        // Only files missing, still: the server did not keep what was just sent again.
        why.push(
            "the server does not keep the files sent again: check it, then repair again".into(),
        );
    }
    why.join("; ")
}

impl Repair {
    /// The verdict that now stands: the check after the repair when files were sent, and
    /// the check before it when none were or sending them failed — the damage it found
    /// stands until a check finds otherwise.
    pub fn verdict(&self) -> Verification {
        match self {
            Repair::NothingSent { found, .. } | Repair::SendFailed { found, .. } => found.clone(),
            Repair::PutBack { after, .. } => after.clone(),
        }
    }
}

/// Put a repair into the deposit's log: what was sent (if anything), then the finding of
/// the check that now stands. The events logged, oldest first.
pub fn log_repair(
    store: &Store,
    job: &JobRow,
    repair: &Repair,
) -> Result<Vec<EventRow>, StoreError> {
    let mut logged = Vec::new();
    let sent = match repair {
        Repair::NothingSent { .. } => None,
        Repair::PutBack { files, record, .. } => Some(match (files.len(), record) {
            (0, _) => "repair wrote the record again: the server had lost it".to_string(),
            (n, record) => format!(
                "repair sent again {} the server had lost: {}",
                crate::wording::count_of(n as u32, "file", "files"),
                what_was_sent(files, *record)
            ),
        }),
        Repair::SendFailed {
            files, sent, error, ..
        } => Some(match sent.is_empty() {
            true => format!(
                "repair stopped while sending {} again: {error}",
                files.join(", ")
            ),
            false => format!(
                "repair sent again {}, then stopped{}: {error}",
                sent.join(", "),
                match files.is_empty() {
                    true => String::new(),
                    false => format!(" while sending {}", files.join(", ")),
                }
            ),
        }),
    };
    if let Some(message) = sent {
        logged.push(store.log_repair(job, &message)?);
    }
    logged.extend(log_finding(store, job, &repair.verdict())?);
    Ok(logged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Sha256Hex;

    #[test]
    fn what_a_repair_leaves_is_always_said_with_what_to_do() {
        let other_bytes = Discrepancy::BytesDiffer {
            path: "a.csv".into(),
            found: Sha256Hex([1; 32]),
        };
        let gone = Discrepancy::RecordGone {
            recorded: "sbx-1".into(),
        };
        let lost = Discrepancy::FileMissing {
            path: "b.csv".into(),
        };
        let left = what_is_left(&[other_bytes, gone], &file_list_command(Some(3)));
        assert!(
            left.contains("remove that file on the server (a.csv;"),
            "{left}"
        );
        assert!(
            left.contains("file list: `lodge show 3 --files`)"),
            "{left}"
        );
        assert!(left.contains("ask the repository's operators"), "{left}");
        let still_lost = what_is_left(&[lost], "");
        assert!(still_lost.contains("repair again"), "{still_lost}");
        // Something else where the record belongs (S3, WebDAV): moved away, a repair
        // writes the record again; no operators to ask.
        let replaced = what_is_left(
            &[Discrepancy::RecordReplaced {
                message: "records/k.json exists but is not Lodge's record of this key".into(),
                written_again: true,
            }],
            "",
        );
        assert!(
            replaced.contains("move it away on the server as the check says, then repair"),
            "{replaced}"
        );
        assert!(!replaced.contains("operators"), "{replaced}");
    }

    /// A repair never writes a DOI: advice to repair again would change nothing.
    #[test]
    fn a_doi_now_carrying_another_key_is_not_left_to_a_repair_that_mints_nothing() {
        let replaced = what_is_left(
            &[Discrepancy::RecordReplaced {
                message: "DOI 10.80000/xy68-wz53 already exists for other content".into(),
                written_again: false,
            }],
            "",
        );
        for words in [
            "a repair neither changes it nor mints another for this dataset",
            "put this dataset's content key back in its metadata (the alternate identifier \
             of type 'Lodge content key', in Fabrica) and verify again",
            "deposit this dataset to a target with another prefix",
        ] {
            assert!(replaced.contains(words), "{words:?} in {replaced}");
        }
        for not in ["repair again", "move it away", "S3 and WebDAV"] {
            assert!(!replaced.contains(not), "{not:?} in {replaced}");
        }
    }
}
