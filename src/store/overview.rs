//! Whole-store views for a front end that keeps its own model: every dataset in one cheap
//! pass, the latest job of each dataset per target, and every recorded result's fingerprint.
//! Each is one query, so a window can open on 100,000 datasets without a query per row.

use super::jobs::{JOB_COLUMNS, job_from_row};
use super::sql::args;
use super::{JobRow, Result, Store, StoreError};
use crate::content::{ContentKey, Metadata};

/// A dataset as a table row needs it: no files, metadata parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct DatasetSummary {
    pub id: i64,
    pub path: String,
    pub name: String,
    pub metadata: Metadata,
    pub key: Option<ContentKey>,
    /// Hex of the data fingerprint.
    pub fingerprint: Option<String>,
    pub file_count: u64,
    pub total_bytes: u64,
}

/// A recorded result reduced to what dedup across metadata needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultFingerprint {
    pub target: String,
    pub key: String,
    pub fingerprint: String,
    pub identifier: String,
    pub url: Option<String>,
}

impl Store {
    /// Every dataset, by id, with its metadata (one query).
    pub fn dataset_summaries(&self) -> Result<Vec<DatasetSummary>> {
        self.summaries_where("1 = ?1", 1)
    }

    /// One dataset's summary (a dataset another machine added, say).
    pub fn dataset_summary(&self, id: i64) -> Result<Option<DatasetSummary>> {
        Ok(self.summaries_where("id = ?1", id)?.pop())
    }

    fn summaries_where(&self, condition: &str, arg: i64) -> Result<Vec<DatasetSummary>> {
        let raws = self.with(|db| {
            db.all(
                &format!(
                    "SELECT id, path, name, metadata, content_key, fingerprint, file_count,
                            total_bytes
                     FROM datasets WHERE {condition} ORDER BY id"
                ),
                args![arg],
                |r| {
                    Ok((
                        r.get::<i64>(0)?,
                        r.get::<String>(1)?,
                        r.get::<String>(2)?,
                        r.get::<String>(3)?,
                        r.get::<Option<String>>(4)?,
                        r.get::<Option<String>>(5)?,
                        r.get::<i64>(6)?,
                        r.get::<i64>(7)?,
                    ))
                },
            )
        })?;
        raws.into_iter()
            .map(
                |(id, path, name, metadata, key, fingerprint, files, bytes)| {
                    Ok(DatasetSummary {
                        id,
                        path,
                        name,
                        metadata: serde_json::from_str(&metadata).map_err(|e| {
                            StoreError::Corrupt(format!("metadata of dataset {id}: {e}"))
                        })?,
                        key: key
                            .map(|k| {
                                k.parse().map_err(|_| {
                                    StoreError::Corrupt(format!("'{k}' is not a content key"))
                                })
                            })
                            .transpose()?,
                        fingerprint,
                        file_count: files as u64,
                        total_bytes: bytes as u64,
                    })
                },
            )
            .collect()
    }

    /// The newest job of every dataset for every target it was queued for (one query),
    /// passing over replays of the dataset's own deposit: deposited and then run again, the
    /// job that deposited it stays the one shown, as `lodge status` reports it. (A copy's
    /// replay, of a record another dataset made, is its row's newest job.)
    pub fn latest_jobs(&self) -> Result<Vec<JobRow>> {
        self.with(|db| {
            db.all(
                &format!(
                    "SELECT {JOB_COLUMNS} FROM jobs j LEFT JOIN datasets d ON d.id = j.dataset_id
                     WHERE j.id IN (
                        SELECT max(j.id) FROM jobs j
                        WHERE j.dataset_id IS NOT NULL AND j.dismissed_at IS NULL
                          AND NOT {own_replay}
                        GROUP BY j.dataset_id, j.target)
                     ORDER BY j.id",
                    own_replay = replay_of_its_own_deposit!()
                ),
                args![],
                job_from_row,
            )
        })
    }

    /// Every recorded result's scope, fingerprint and record, oldest first.
    pub fn result_fingerprints(&self) -> Result<Vec<ResultFingerprint>> {
        self.with(|db| {
            db.all(
                "SELECT target, content_key, fingerprint, identifier, url FROM results
                 ORDER BY recorded_at",
                args![],
                |r| {
                    Ok(ResultFingerprint {
                        target: r.get(0)?,
                        key: r.get(1)?,
                        fingerprint: r.get(2)?,
                        identifier: r.get(3)?,
                        url: r.get(4)?,
                    })
                },
            )
        })
    }
}
