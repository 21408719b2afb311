//! Datasets, their last scan, and the immutable documents their keys name.

use super::events::{EventKind, NewEvent, insert_event};
use super::sql::{Db, Row, args};
use super::{Result, Store, StoreError, now_ms};
use crate::content::{ContentDocument, ContentKey, DataFingerprint, Metadata};
use crate::wording::{count_of, human_bytes};

/// One file as the last scan saw it on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileScan {
    pub rel_path: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub file_id: u64,
    pub sha256: String,
}

/// A scanned dataset to record.
pub struct NewDataset<'a> {
    /// Canonical absolute folder.
    pub path: &'a str,
    pub name: &'a str,
    pub metadata: &'a Metadata,
    pub document: &'a ContentDocument,
    pub files: &'a [FileScan],
}

/// What a worker reads before an attempt: the key's document and, for the dataset the job
/// came from, its current key and the files of its last scan.
#[derive(Clone, Debug)]
pub struct AttemptInput {
    pub document: Option<ContentDocument>,
    pub dataset_key: Option<ContentKey>,
    /// The machine the dataset was added on (its folder is there), when known.
    pub origin: Option<String>,
    pub files: Vec<FileScan>,
}

/// An [`AttemptInput`] from the key's document text and the dataset's current key and
/// origin, as a claim read them with its job, plus the files of the dataset's last scan.
pub(super) fn attempt_input_from(
    db: Db<'_>,
    dataset_id: i64,
    key: &ContentKey,
    document: Option<String>,
    dataset_key: Option<String>,
    origin: Option<String>,
) -> Result<AttemptInput> {
    let document = document
        .map(|t| {
            serde_json::from_str(&t)
                .map_err(|e| StoreError::Corrupt(format!("document {}: {e}", key.short())))
        })
        .transpose()?;
    let files = db.all(
        "SELECT rel_path, size, mtime_ns, file_id, sha256 FROM dataset_files
         WHERE dataset_id = ?1 ORDER BY rel_path",
        args![dataset_id],
        file_from_row,
    )?;
    Ok(AttemptInput {
        document,
        dataset_key: parse(dataset_key)?,
        origin: origin.filter(|o| !o.is_empty()),
        files,
    })
}

/// A dataset as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct DatasetRow {
    pub id: i64,
    pub path: String,
    pub name: String,
    pub metadata: Metadata,
    pub key: Option<ContentKey>,
    pub fingerprint: Option<DataFingerprint>,
    pub file_count: u64,
    pub total_bytes: u64,
    pub added_at: i64,
    pub scanned_at: Option<i64>,
}

const DATASET_COLUMNS: &str = "id, path, name, metadata, content_key, fingerprint, file_count, \
                               total_bytes, added_at, scanned_at";

fn parse<T: std::str::FromStr>(text: Option<String>) -> Result<Option<T>> {
    match text {
        None => Ok(None),
        Some(t) => t
            .parse()
            .map(Some)
            .map_err(|_| StoreError::Corrupt(format!("'{t}' is not a digest"))),
    }
}

fn file_from_row(r: &Row<'_, '_>) -> Result<FileScan> {
    Ok(FileScan {
        rel_path: r.get(0)?,
        size: r.get::<i64>(1)? as u64,
        mtime_ns: r.get(2)?,
        file_id: r.get::<i64>(3)? as u64,
        sha256: r.get(4)?,
    })
}

fn dataset_from_row(row: &Row<'_, '_>) -> Result<DatasetRaw> {
    Ok(DatasetRaw {
        id: row.get(0)?,
        path: row.get(1)?,
        name: row.get(2)?,
        metadata: row.get(3)?,
        key: row.get(4)?,
        fingerprint: row.get(5)?,
        file_count: row.get(6)?,
        total_bytes: row.get(7)?,
        added_at: row.get(8)?,
        scanned_at: row.get(9)?,
    })
}

struct DatasetRaw {
    id: i64,
    path: String,
    name: String,
    metadata: String,
    key: Option<String>,
    fingerprint: Option<String>,
    file_count: i64,
    total_bytes: i64,
    added_at: i64,
    scanned_at: Option<i64>,
}

impl DatasetRaw {
    fn into_row(self) -> Result<DatasetRow> {
        Ok(DatasetRow {
            id: self.id,
            metadata: serde_json::from_str(&self.metadata).map_err(|e| {
                StoreError::Corrupt(format!("metadata of dataset {}: {e}", self.id))
            })?,
            key: parse(self.key)?,
            fingerprint: parse(self.fingerprint)?,
            path: self.path,
            name: self.name,
            file_count: self.file_count as u64,
            total_bytes: self.total_bytes as u64,
            added_at: self.added_at,
            scanned_at: self.scanned_at,
        })
    }
}

impl Store {
    /// Record a scanned dataset (new, or the same folder scanned again), its document and its
    /// files, in one transaction. Returns the dataset's id.
    pub fn save_dataset(&self, new: &NewDataset<'_>) -> Result<i64> {
        let origin = self.host();
        self.write(|db| save_in(db, new, origin, &self.actor, now_ms()))
    }

    /// [`Store::save_dataset`] for many datasets in one transaction (imports, benchmarks).
    /// Returns their ids in order.
    pub fn save_datasets(&self, news: &[NewDataset<'_>]) -> Result<Vec<i64>> {
        let origin = self.host();
        self.write(|db| {
            let now = now_ms();
            news.iter()
                .map(|new| save_in(db, new, origin, &self.actor, now))
                .collect::<Result<Vec<_>>>()
        })
    }

    /// Every dataset, by id.
    pub fn datasets(&self) -> Result<Vec<DatasetRow>> {
        let raws = self.with(|db| {
            db.all(
                &format!("SELECT {DATASET_COLUMNS} FROM datasets ORDER BY id"),
                args![],
                dataset_from_row,
            )
        })?;
        raws.into_iter().map(DatasetRaw::into_row).collect()
    }

    /// One dataset by id.
    pub fn dataset(&self, id: i64) -> Result<Option<DatasetRow>> {
        let raw = self.with(|db| {
            db.opt(
                &format!("SELECT {DATASET_COLUMNS} FROM datasets WHERE id = ?1"),
                args![id],
                dataset_from_row,
            )
        })?;
        raw.map(DatasetRaw::into_row).transpose()
    }

    /// The dataset whose folder on this machine is `path` (canonical absolute).
    pub fn dataset_by_path(&self, path: &str) -> Result<Option<DatasetRow>> {
        let origin = self.host();
        let raw = self.with(|db| {
            let sql = format!(
                "SELECT {DATASET_COLUMNS} FROM datasets WHERE path = ?1 AND {}",
                added_here(db, 2)
            );
            db.opt(&sql, args![path, origin], dataset_from_row)
        })?;
        raw.map(DatasetRaw::into_row).transpose()
    }

    /// Whether dataset `id` was added on this machine (always, on a file): only then is its
    /// folder this machine's to scan.
    pub fn is_added_here(&self, id: i64) -> Result<bool> {
        let origin = self.host();
        self.with(|db| {
            let sql = format!(
                "SELECT EXISTS (SELECT 1 FROM datasets WHERE id = ?1 AND {})",
                added_here(db, 2)
            );
            db.one(&sql, args![id, origin], |r| r.get(0))
        })
    }

    /// The machine dataset `id` was added on, when that is another one: on a shared
    /// database its folder is that machine's. `None` for this machine's, for one added
    /// before datasets knew their machine, and on a database file (its datasets are all
    /// this machine's).
    pub fn added_elsewhere(&self, id: i64) -> Result<Option<String>> {
        if self.is_added_here(id)? {
            return Ok(None);
        }
        let origin: Option<String> = self.with(|db| {
            db.opt(
                "SELECT origin FROM datasets WHERE id = ?1",
                args![id],
                |r| r.get(0),
            )
        })?;
        Ok(origin.filter(|o| !o.is_empty()))
    }

    /// The datasets whose folders are on this machine, by id: on a shared database those
    /// this machine added (as in `dataset_by_path`), on a file all of them.
    pub fn datasets_here(&self) -> Result<Vec<DatasetRow>> {
        let origin = self.host();
        let raws = self.with(|db| {
            let sql = format!(
                "SELECT {DATASET_COLUMNS} FROM datasets WHERE {} ORDER BY id",
                added_here(db, 1)
            );
            db.all(&sql, args![origin], dataset_from_row)
        })?;
        raws.into_iter().map(DatasetRaw::into_row).collect()
    }

    /// Datasets on this machine whose folder is inside `path` (canonical absolute) or holds
    /// it, `path` itself left out, by id.
    pub fn datasets_overlapping(&self, path: &str) -> Result<Vec<DatasetRow>> {
        let path = std::path::Path::new(path);
        Ok(self
            .datasets_here()?
            .into_iter()
            .filter(|d| {
                let other = std::path::Path::new(&d.path);
                other != path && (other.starts_with(path) || path.starts_with(other))
            })
            .collect())
    }

    /// Find a dataset by what a person types: its number, its folder (canonical absolute
    /// path), its name, or a prefix of its key (at least 8 hex characters).
    pub fn find_dataset(&self, selector: &str) -> Result<DatasetRow> {
        if let Ok(id) = selector.parse::<i64>()
            && let Some(d) = self.dataset(id)?
        {
            return Ok(d);
        }
        if let Some(d) = self.dataset_by_path(selector)? {
            return Ok(d);
        }
        let key_prefix = if selector.len() >= 8 && selector.chars().all(|c| c.is_ascii_hexdigit()) {
            format!("{}%", selector.to_ascii_lowercase())
        } else {
            // Matches no key.
            "-".to_string()
        };
        let mut raws = self.with(|db| {
            db.all(
                &format!(
                    "SELECT {DATASET_COLUMNS} FROM datasets
                     WHERE name = ?1 OR content_key LIKE ?2 ORDER BY id LIMIT 6"
                ),
                args![selector, &key_prefix],
                dataset_from_row,
            )
        })?;
        match raws.len() {
            0 => {
                // The number of a dataset taken off the list: say so, not "no such number".
                if let Ok(id) = selector.parse::<i64>()
                    && let Some(folder) = self.removed_dataset(id)?
                {
                    return Err(StoreError::RemovedDataset { id, folder });
                }
                // Another machine's folder (a shared database): say whose, and its number.
                let elsewhere: Option<(i64, String)> = self.with(|db| {
                    db.opt(
                        "SELECT id, name FROM datasets WHERE path = ?1 ORDER BY id LIMIT 1",
                        args![selector],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                })?;
                if let Some((id, name)) = elsewhere {
                    return Err(StoreError::FolderOfAnotherMachine {
                        folder: selector.into(),
                        id,
                        name,
                        origin: (self.added_elsewhere(id)?)
                            .unwrap_or_else(|| "another machine".into()),
                    });
                }
                let names: Vec<String> =
                    self.with(|db| db.all("SELECT name FROM datasets", args![], |r| r.get(0)))?;
                let meant =
                    crate::wording::closest(selector, names.iter().map(String::as_str), 0.7)
                        .map(str::to_string);
                Err(StoreError::NoSuchDataset {
                    selector: selector.into(),
                    meant,
                })
            }
            1 => raws.remove(0).into_row(),
            _ => {
                // One folder added on two machines of a shared store: which machine's is
                // which, and the folder given names this machine's.
                let shown = &raws[..raws.len().min(5)];
                let mut matches = Vec::new();
                let mut same_folder = false;
                for d in shown {
                    let twice = shown.iter().filter(|o| o.path == d.path).count() > 1;
                    same_folder |= twice;
                    let whose = match (twice, self.added_elsewhere(d.id)?) {
                        (false, _) => String::new(),
                        (true, Some(origin)) => format!(", added on {origin}"),
                        (true, None) => ", added on this machine".to_string(),
                    };
                    matches.push(format!("{} ({}{whose})", d.id, d.path));
                }
                if raws.len() > 5 {
                    matches.push("…".to_string());
                }
                Err(StoreError::AmbiguousDataset {
                    selector: selector.into(),
                    matches: matches.join(", "),
                    same_folder,
                })
            }
        }
    }

    /// The document a key names.
    pub fn document(&self, key: &ContentKey) -> Result<Option<ContentDocument>> {
        let text: Option<String> = self.with(|db| {
            db.opt(
                "SELECT document FROM documents WHERE content_key = ?1",
                args![key.to_hex()],
                |r| r.get(0),
            )
        })?;
        text.map(|t| {
            serde_json::from_str(&t)
                .map_err(|e| StoreError::Corrupt(format!("document {}: {e}", key.short())))
        })
        .transpose()
    }

    /// What the last scan of a dataset saw, by path.
    pub fn dataset_files(&self, dataset_id: i64) -> Result<Vec<FileScan>> {
        self.with(|db| {
            db.all(
                "SELECT rel_path, size, mtime_ns, file_id, sha256 FROM dataset_files
                 WHERE dataset_id = ?1 ORDER BY rel_path",
                args![dataset_id],
                file_from_row,
            )
        })
    }

    /// Forget a dataset (its jobs, results and events stay, as history).
    pub fn remove_dataset(&self, id: i64) -> Result<bool> {
        self.write(|db| {
            let removed: Option<(String, String, Option<String>)> = db.opt(
                "DELETE FROM datasets WHERE id = ?1 RETURNING name, path, content_key",
                args![id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?;
            let Some((name, path, key)) = removed else {
                return Ok(false);
            };
            let event = NewEvent {
                dataset_id: Some(id),
                content_key: key,
                kind: Some(EventKind::Removed),
                // Gone from the list, the dataset's name is no longer beside the line.
                message: format!("{REMOVED_BEFORE}{name} ({path}){REMOVED_AFTER}"),
                ..NewEvent::default()
            };
            insert_event(db, &event, &self.actor)?;
            Ok(true)
        })
    }

    /// The removed dataset that job `job_id` was for, as its removal logged it: its name
    /// and folder, `ds001 (/data/ds001)`, and who removed it (`user@host`). `None` when the
    /// job's dataset was not removed.
    pub fn removed_dataset_of_job(&self, job_id: i64) -> Result<Option<(String, String)>> {
        let Some(id) = self.dataset_id_of_job_logged(job_id)? else {
            return Ok(None);
        };
        let removal: Option<(String, String)> = self.with(|db| {
            db.opt(
                "SELECT message, actor FROM events
                 WHERE job_id IS NULL AND kind = 'removed' AND dataset_id = ?1
                 ORDER BY id DESC LIMIT 1",
                args![id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
        })?;
        Ok(removal.and_then(|(message, by)| {
            let folder = message
                .strip_prefix(REMOVED_BEFORE)?
                .strip_suffix(REMOVED_AFTER)?;
            Some((folder.to_string(), by))
        }))
    }

    /// The dataset job `job_id` was for, as its log says (a removed dataset's job keeps
    /// no dataset of its own).
    pub fn dataset_id_of_job_logged(&self, job_id: i64) -> Result<Option<i64>> {
        self.with(|db| {
            db.opt(
                "SELECT dataset_id FROM events
                 WHERE job_id = ?1 AND dataset_id IS NOT NULL
                 ORDER BY id LIMIT 1",
                args![job_id],
                |r| r.get(0),
            )
        })
    }

    /// Dataset `id`'s name and folder as its removal logged them, `ds001 (/data/ds001)`;
    /// `None` when no dataset with that number was removed.
    pub fn removed_dataset(&self, id: i64) -> Result<Option<String>> {
        let message: Option<String> = self.with(|db| {
            db.opt(
                // A removal belongs to no job: the events' job index finds it.
                "SELECT message FROM events
                 WHERE job_id IS NULL AND kind = 'removed' AND dataset_id = ?1
                 ORDER BY id DESC LIMIT 1",
                args![id],
                |r| r.get(0),
            )
        })?;
        Ok(message.and_then(|m| {
            m.strip_prefix(REMOVED_BEFORE)?
                .strip_suffix(REMOVED_AFTER)
                .map(str::to_string)
        }))
    }

    /// Dataset `id` as its removal logged it, its name and folder apart; `None` when no
    /// dataset with that number was removed.
    pub fn removed_dataset_row(&self, id: i64) -> Result<Option<RemovedDataset>> {
        Ok(self
            .removed_dataset(id)?
            .map(|folder| removed_from(id, &folder)))
    }

    /// The dataset taken off the list last whose folder was `path` (canonical absolute),
    /// and the key it had when removed: adding that folder again takes up its metadata.
    pub fn removed_at_path(
        &self,
        path: &str,
    ) -> Result<Option<(RemovedDataset, Option<ContentKey>)>> {
        let Some(removed) = self
            .removed_datasets()?
            .into_iter()
            .rfind(|r| r.path == path)
        else {
            return Ok(None);
        };
        let key: Option<Option<String>> = self.with(|db| {
            db.opt(
                "SELECT content_key FROM events
                 WHERE job_id IS NULL AND kind = 'removed' AND dataset_id = ?1
                 ORDER BY id DESC LIMIT 1",
                args![removed.id],
                |r| r.get(0),
            )
        })?;
        let key = key.flatten().and_then(|k| k.parse().ok());
        Ok(Some((removed, key)))
    }

    /// Every dataset taken off the list, as their removals logged them, oldest first: what
    /// `lodge history NAME` and `lodge log --dataset NAME` find a removed dataset by.
    pub fn removed_datasets(&self) -> Result<Vec<RemovedDataset>> {
        let removals: Vec<(i64, String)> = self.with(|db| {
            db.all(
                "SELECT dataset_id, message FROM events
                 WHERE job_id IS NULL AND kind = 'removed' AND dataset_id IS NOT NULL
                 ORDER BY id",
                args![],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
        })?;
        Ok(removals
            .into_iter()
            .filter_map(|(id, message)| {
                let folder = message
                    .strip_prefix(REMOVED_BEFORE)?
                    .strip_suffix(REMOVED_AFTER)?;
                Some(removed_from(id, folder))
            })
            .collect())
    }
}

/// A dataset taken off the list: its number, name and folder, as its removal logged them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemovedDataset {
    pub id: i64,
    pub name: String,
    pub path: String,
}

impl RemovedDataset {
    /// The dataset an event of its removal names; `None` for any other event.
    pub fn from_event(event: &super::EventRow) -> Option<RemovedDataset> {
        if event.kind != super::EventKind::Removed || event.job_id.is_some() {
            return None;
        }
        let folder = event
            .message
            .strip_prefix(REMOVED_BEFORE)?
            .strip_suffix(REMOVED_AFTER)?;
        Some(removed_from(event.dataset_id?, folder))
    }
}

/// `{name} ({path})` apart. A name is its folder's last part (or the whole path), so the
/// split is the one where the path ends in the name: either may hold " (" themselves.
fn removed_from(id: i64, folder: &str) -> RemovedDataset {
    let inner = folder.strip_suffix(')').unwrap_or(folder);
    let splits: Vec<(String, String)> = inner
        .match_indices(" (")
        .map(|(i, _)| (inner[..i].to_string(), inner[i + 2..].to_string()))
        .collect();
    let fits = |(name, path): &&(String, String)| {
        name == path
            || std::path::Path::new(path)
                .file_name()
                .is_some_and(|last| last.to_string_lossy() == name.as_str())
    };
    let (name, path) = splits
        .iter()
        .find(fits)
        .or(splits.first())
        .cloned()
        .unwrap_or_else(|| (folder.to_string(), folder.to_string()));
    RemovedDataset { id, name, path }
}

/// The removal event's message around `{name} ({path})`; [`Store::removed_dataset_of_job`]
/// reads the folder back from between them.
const REMOVED_BEFORE: &str = "removed ";
const REMOVED_AFTER: &str = " from the list; what it deposited stays";

/// The condition "added on this machine", this machine's name being parameter `?n`. On a
/// shared database the same path on two machines is two datasets; a file is one machine's,
/// whatever name it recorded (the parameter is still used, so the arguments are the same).
fn added_here(db: Db<'_>, n: usize) -> String {
    if db.is_postgres() {
        format!("origin = ?{n}")
    } else {
        format!("?{n} = ?{n}")
    }
}

/// Record one scanned dataset inside the caller's transaction, and log what it changed: a
/// folder new to the list (`added`), or one whose key moved on (`rescanned`). An open window
/// learns of datasets added or rescanned elsewhere (a terminal, another machine) from these.
fn save_in(db: Db<'_>, new: &NewDataset<'_>, origin: &str, actor: &str, now: i64) -> Result<i64> {
    let key = new.document.key().to_hex();
    let fingerprint = new.document.fingerprint().to_hex();
    let document = String::from_utf8(new.document.canonical_json())
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    db.run(
        "INSERT INTO documents (content_key, fingerprint, document) VALUES (?1, ?2, ?3)
             ON CONFLICT (content_key) DO NOTHING",
        args![&key, &fingerprint, document],
    )?;
    let metadata = serde_json::to_string(&new.metadata.normalized())
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let total: u64 = new.files.iter().map(|f| f.size).sum();
    let earlier: Option<EarlierScan> = db.opt(
        &format!(
            "SELECT content_key, fingerprint, metadata FROM datasets WHERE path = ?1 AND {}",
            added_here(db, 2)
        ),
        args![new.path, origin],
        |r| {
            Ok(EarlierScan {
                key: r.get(0)?,
                fingerprint: r.get(1)?,
                metadata: r.get(2)?,
            })
        },
    )?;
    let logged = scan_logged(earlier.as_ref(), &key, &fingerprint, &metadata, new, total);
    // A folder is one dataset per machine: on a shared database the same path on two
    // machines is two datasets.
    let (this_folder, conflict) = if db.is_postgres() {
        ("origin = ?9 AND path = ?1", "(origin, path)")
    } else {
        ("path = ?1", "(path)")
    };
    let args = args![
        new.path,
        new.name,
        metadata,
        &key,
        &fingerprint,
        new.files.len(),
        total,
        now,
        origin
    ];
    // The folder scanned again is updated in place first. An upsert alone would do, but
    // both SQLite's AUTOINCREMENT and PostgreSQL's identity take a new id before they find
    // the conflict, so every rescan would use up a dataset number and the next folder added
    // would be #57 rather than #4. The upsert stays for a folder added by two processes at
    // once.
    let rescanned: Option<i64> = db.opt(
        &format!(
            "UPDATE datasets SET name = ?2, metadata = ?3, content_key = ?4, fingerprint = ?5,
                file_count = ?6, total_bytes = ?7, scanned_at = ?8, origin = ?9
             WHERE {this_folder} RETURNING id"
        ),
        args,
        |r| r.get(0),
    )?;
    let id: i64 = match rescanned {
        Some(id) => id,
        None => db.one(
            &format!(
                "INSERT INTO datasets (path, name, metadata, content_key, fingerprint, file_count,
                                       total_bytes, added_at, scanned_at, origin)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9)
                 ON CONFLICT {conflict} DO UPDATE SET
                    name = excluded.name, metadata = excluded.metadata,
                    content_key = excluded.content_key, fingerprint = excluded.fingerprint,
                    file_count = excluded.file_count, total_bytes = excluded.total_bytes,
                    scanned_at = excluded.scanned_at, origin = excluded.origin
                 RETURNING id"
            ),
            args,
            |r| r.get(0),
        )?,
    };
    db.run("DELETE FROM dataset_files WHERE dataset_id = ?1", args![id])?;
    for f in new.files {
        db.run(
            "INSERT INTO dataset_files (dataset_id, rel_path, size, mtime_ns, file_id, sha256)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            args![id, &f.rel_path, f.size, f.mtime_ns, f.file_id, &f.sha256],
        )?;
    }
    if let Some((kind, message)) = logged {
        let event = NewEvent {
            dataset_id: Some(id),
            content_key: Some(key),
            kind: Some(kind),
            message,
            ..NewEvent::default()
        };
        insert_event(db, &event, actor)?;
    }
    Ok(id)
}

/// A folder's scan as recorded before it is saved again.
struct EarlierScan {
    key: Option<String>,
    fingerprint: Option<String>,
    metadata: String,
}

/// The log line for saving a scan (`key`, `fingerprint`, normalised `metadata`) over
/// `earlier`: `added` for a folder new to the list, `rescanned` with what changed when its
/// files moved its key on, `edited` when its metadata alone did, nothing when it did not.
fn scan_logged(
    earlier: Option<&EarlierScan>,
    key: &str,
    fingerprint: &str,
    metadata: &str,
    new: &NewDataset<'_>,
    total: u64,
) -> Option<(EventKind, String)> {
    let Some(earlier) = earlier else {
        // The log names the dataset beside each line: the message need not.
        return Some((
            EventKind::Added,
            format!(
                "added with {}, {}",
                count_of(new.files.len() as u64, "file", "files"),
                human_bytes(total)
            ),
        ));
    };
    if earlier.key.as_deref() == Some(key) {
        return None;
    }
    let files = earlier.fingerprint.as_deref() != Some(fingerprint);
    // Only a change of files was found by scanning; metadata is also changed by an edit in
    // the window, where nothing is scanned.
    let (kind, what) = match (files, earlier.metadata != metadata) {
        (true, true) => (
            EventKind::Rescanned,
            "scanned again: its files and metadata changed",
        ),
        (true, false) => (EventKind::Rescanned, "scanned again: its files changed"),
        // The key covers nothing else: what is left is the metadata.
        (false, _) => (EventKind::Edited, "its metadata changed"),
    };
    let was = earlier
        .key
        .as_deref()
        .map_or(String::new(), |k| format!(" {}…", &k[..k.len().min(12)]));
    Some((kind, format!("{what}; key{was} is now {}…", &key[..12])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_removed_datasets_name_and_folder_are_told_apart_even_with_brackets_in_them() {
        let removed = removed_from(3, "soil (copy) (/data/soil (copy))");
        assert_eq!(
            (removed.name.as_str(), removed.path.as_str()),
            ("soil (copy)", "/data/soil (copy)")
        );
        let plain = removed_from(4, "ds001 (/data/ds001)");
        assert_eq!(
            (plain.name.as_str(), plain.path.as_str()),
            ("ds001", "/data/ds001")
        );
    }
}
