//! The dedup status of one dataset for one target: what the table's badge says.
//!
//! Computed from the dataset's current key, its latest job for the target (when that job is
//! for the current key; a landed job under an earlier key makes the dataset a new version),
//! transient hashing and upload progress, and the recorded results that share its data
//! fingerprint.

use crate::store::{JobRow, JobState};
use crate::targets::{is_changed_since_scan, is_paused_for_credentials};

/// What a person does about the target `scope` paused for `reason`, in the window's words:
/// new credentials when it refused them (for a sandbox, its token: Settings keeps none),
/// otherwise whatever the reason names.
pub fn paused_target_fix(reason: &str, scope: &str) -> &'static str {
    if is_paused_for_credentials(reason) && scope.starts_with("sandbox+") {
        "a sandbox started with --token wants that token: start Lodge with LODGE_TOKEN set to \
         it (or deposit there from the command line with --token), then press Deposit on a \
         dataset to send what waits"
    } else if is_paused_for_credentials(reason) {
        "fix the credentials in Settings (Edit the target, Save), or press Deposit on a dataset \
         once they are right; either sends what waits"
    } else {
        "fix what it names (a target's URL is changed in Settings: Edit the target, Save), or \
         press Deposit on a dataset once it is fixed; either sends what waits"
    }
}

/// Where a dataset stands for one target.
#[derive(Clone, Debug, PartialEq)]
pub enum DedupStatus {
    /// Never deposited to this target under its current key. `ready` is false while its
    /// metadata has problems.
    New { ready: bool },
    /// Being scanned and hashed.
    Hashing { done: u64, total: u64 },
    /// On the queue, not yet claimed; `paused` while the window's sending is paused (it
    /// waits for Resume, not for its turn).
    Queued { paused: bool },
    /// On the queue, but its target is paused (`reason`): it refused the credentials, or it
    /// cannot be used as it is (a redirect, TLS refused, this computer's clock). Nothing is
    /// sent there until the user acts ([`paused_target_fix`]).
    TargetPaused {
        reason: String,
        /// What to do about it ([`paused_target_fix`]).
        fix: &'static str,
    },
    /// A worker is sending it (bytes so far, when known).
    Uploading { sent: u64, total: u64 },
    /// A retry is scheduled at `at_ms` (unix ms) because of `cause`; `paused` when the
    /// window's sending is paused, so it waits past that for Resume.
    WaitingToRetry {
        at_ms: i64,
        cause: String,
        paused: bool,
    },
    /// This job created the record. `after_lost_answer`: the answer to the attempt that sent
    /// it was lost, and the next try found the record on the server (most likely that
    /// attempt's; [`crate::engine::landed_after_lost_answer`]), so the store says `existing`.
    Deposited {
        identifier: String,
        url: Option<String>,
        after_lost_answer: bool,
    },
    /// The record already existed: replayed from the store, or the server had it before
    /// this job's deposit (its "exists", or the look-up before a retry after an answer that
    /// said nothing was made).
    AlreadyDeposited {
        identifier: String,
        url: Option<String>,
    },
    /// Deposited to this target under an earlier key, before its files or metadata changed;
    /// this version is not deposited here yet.
    NewVersion {
        /// The earlier version's record.
        identifier: String,
        url: Option<String>,
    },
    /// Deposited as `identifier`, but the latest check of it (`lodge verify`, Verify) found
    /// the record or some of its files gone or changed on the server: `finding` says what.
    Damaged {
        identifier: String,
        url: Option<String>,
        finding: String,
    },
    /// Not deposited under this key, but the same data was deposited with other metadata.
    SameDataAsAnother {
        identifier: String,
        url: Option<String>,
    },
    /// Files changed after the scan; rescan (save the metadata again) before depositing.
    ChangedSinceScan { cause: String },
    /// Its folder is gone (moved or deleted since it was added): nothing can be deposited
    /// or rescanned until it is back, or added where it is now.
    FolderMissing { path: String },
    /// Retries exhausted; Retry re-queues with the same key.
    Failed { cause: String },
    /// Refused for good (validation, conflict).
    Rejected { cause: String },
}

/// The status without its data, for filters and sorting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StatusKind {
    New,
    Hashing,
    Queued,
    TargetPaused,
    Uploading,
    WaitingToRetry,
    Deposited,
    AlreadyDeposited,
    Damaged,
    NewVersion,
    SameDataAsAnother,
    ChangedSinceScan,
    FolderMissing,
    Failed,
    Rejected,
}

impl StatusKind {
    pub const ALL: [StatusKind; 15] = [
        StatusKind::New,
        StatusKind::Hashing,
        StatusKind::Queued,
        StatusKind::TargetPaused,
        StatusKind::Uploading,
        StatusKind::WaitingToRetry,
        StatusKind::Deposited,
        StatusKind::AlreadyDeposited,
        StatusKind::Damaged,
        StatusKind::NewVersion,
        StatusKind::SameDataAsAnother,
        StatusKind::ChangedSinceScan,
        StatusKind::FolderMissing,
        StatusKind::Failed,
        StatusKind::Rejected,
    ];

    /// The badge's words.
    pub fn label(self) -> &'static str {
        match self {
            StatusKind::New => "New",
            StatusKind::Hashing => "Hashing",
            StatusKind::Queued => "Queued",
            StatusKind::TargetPaused => "Target paused",
            StatusKind::Uploading => "Uploading",
            StatusKind::WaitingToRetry => "Waiting to retry",
            StatusKind::Deposited => "Deposited",
            StatusKind::AlreadyDeposited => "Already deposited",
            StatusKind::Damaged => "Damaged",
            StatusKind::NewVersion => "New version",
            StatusKind::SameDataAsAnother => "Same data as another record",
            StatusKind::ChangedSinceScan => "Changed since scan",
            StatusKind::FolderMissing => "Folder missing",
            StatusKind::Failed => "Failed",
            StatusKind::Rejected => "Rejected",
        }
    }
}

impl DedupStatus {
    pub fn kind(&self) -> StatusKind {
        match self {
            DedupStatus::New { .. } => StatusKind::New,
            DedupStatus::Hashing { .. } => StatusKind::Hashing,
            DedupStatus::Queued { .. } => StatusKind::Queued,
            DedupStatus::TargetPaused { .. } => StatusKind::TargetPaused,
            DedupStatus::Uploading { .. } => StatusKind::Uploading,
            DedupStatus::WaitingToRetry { .. } => StatusKind::WaitingToRetry,
            DedupStatus::Deposited { .. } => StatusKind::Deposited,
            DedupStatus::AlreadyDeposited { .. } => StatusKind::AlreadyDeposited,
            DedupStatus::Damaged { .. } => StatusKind::Damaged,
            DedupStatus::NewVersion { .. } => StatusKind::NewVersion,
            DedupStatus::SameDataAsAnother { .. } => StatusKind::SameDataAsAnother,
            DedupStatus::ChangedSinceScan { .. } => StatusKind::ChangedSinceScan,
            DedupStatus::FolderMissing { .. } => StatusKind::FolderMissing,
            DedupStatus::Failed { .. } => StatusKind::Failed,
            DedupStatus::Rejected { .. } => StatusKind::Rejected,
        }
    }

    /// The record a person can open, when there is one.
    pub fn record_url(&self) -> Option<&str> {
        match self {
            DedupStatus::Deposited { url, .. }
            | DedupStatus::AlreadyDeposited { url, .. }
            | DedupStatus::Damaged { url, .. }
            | DedupStatus::NewVersion { url, .. }
            | DedupStatus::SameDataAsAnother { url, .. } => url.as_deref(),
            _ => None,
        }
    }

    /// The identifier of the record a landed deposit has (damaged or not).
    pub fn record_identifier(&self) -> Option<&str> {
        match self {
            DedupStatus::Deposited { identifier, .. }
            | DedupStatus::AlreadyDeposited { identifier, .. }
            | DedupStatus::Damaged { identifier, .. } => Some(identifier),
            _ => None,
        }
    }

    /// A retry with the same key makes sense.
    pub fn can_retry(&self) -> bool {
        matches!(self, DedupStatus::Failed { .. })
    }

    /// Work is in flight; nothing to start.
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            DedupStatus::Hashing { .. }
                | DedupStatus::Queued { .. }
                | DedupStatus::Uploading { .. }
                | DedupStatus::WaitingToRetry { .. }
        )
    }

    /// This landed status, unless the latest check of the deposit found damage (`finding`).
    pub fn unless_damaged(self, finding: Option<&str>) -> DedupStatus {
        match (self, finding) {
            (
                DedupStatus::Deposited {
                    identifier, url, ..
                }
                | DedupStatus::AlreadyDeposited { identifier, url },
                Some(finding),
            ) => DedupStatus::Damaged {
                identifier,
                url,
                finding: finding.to_string(),
            },
            (status, _) => status,
        }
    }

    /// This status, a job's `existing` read as *Deposited* when its record was found after
    /// its own attempt's answer was lost (`landed_after_lost_answer`).
    pub fn after_lost_answer(self, landed_after_lost_answer: bool) -> DedupStatus {
        match (self, landed_after_lost_answer) {
            (DedupStatus::AlreadyDeposited { identifier, url }, true) => DedupStatus::Deposited {
                identifier,
                url,
                after_lost_answer: true,
            },
            (status, _) => status,
        }
    }

    /// The status a latest job for the dataset's current key gives.
    pub fn from_job(job: &JobRow, upload: Option<(u64, u64)>) -> DedupStatus {
        let cause = || {
            job.last_error
                .clone()
                .unwrap_or_else(|| "no cause was recorded".into())
        };
        let identifier = || job.identifier.clone().unwrap_or_default();
        match job.state {
            JobState::Queued => DedupStatus::Queued { paused: false },
            JobState::Running => {
                let (sent, total) = upload.unwrap_or((0, 0));
                DedupStatus::Uploading { sent, total }
            }
            JobState::Waiting => DedupStatus::WaitingToRetry {
                at_ms: job.not_before,
                cause: cause(),
                paused: false,
            },
            JobState::Deposited => DedupStatus::Deposited {
                identifier: identifier(),
                url: job.url.clone(),
                after_lost_answer: false,
            },
            JobState::Existing => DedupStatus::AlreadyDeposited {
                identifier: identifier(),
                url: job.url.clone(),
            },
            JobState::Failed => DedupStatus::Failed { cause: cause() },
            JobState::Rejected => {
                let cause = cause();
                if is_changed_since_scan(&cause) {
                    DedupStatus::ChangedSinceScan { cause }
                } else {
                    DedupStatus::Rejected { cause }
                }
            }
        }
    }
}
