//! What background work reports to the window, one message at a time.

use std::path::PathBuf;

use super::model::Notice;
use super::settings::Settings;
use super::targets::{ConfiguredTarget, TargetField};
use crate::catalog::FolderChange;
use crate::content::{ContentKey, SkippedEntry};
use crate::engine::EngineEvent;
use crate::store::{
    DatasetRow, DatasetSummary, EventRow, FileScan, HistoryRow, JobRow, ResultFingerprint,
};
use crate::targets::probe::ProbeReport;

/// A deposit target as the window shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetInfo {
    /// The dedup scope id (jobs and results are keyed by it).
    pub scope_id: String,
    /// What the picker says.
    pub label: String,
    /// Whether Repair can send a deposit's lost files there again
    /// ([`crate::targets::Target::files_can_be_put_back`]).
    pub puts_back_files: bool,
    /// What a repair mends there besides lost files: a file of the wrong size written over
    /// ([`crate::targets::Target::replaces_wrong_size_files`]), a record gone written
    /// again ([`crate::targets::Target::rewrites_gone_records`]).
    pub repairs_sizes: bool,
    pub repairs_records: bool,
    /// Whether the target keeps the files, so Verify bytes has something to read back
    /// ([`crate::targets::Target::keeps_files`]).
    pub keeps_files: bool,
    /// Whether its deposits are drafts for a person to publish
    /// ([`crate::targets::Target::makes_drafts`]).
    pub makes_drafts: bool,
    /// Where the target keeps each dataset's folder, in the folders layout
    /// ([`crate::targets::Target::datasets_base`]).
    pub datasets_base: Option<String>,
}

/// Everything the window needs once the store is open.
#[derive(Clone, Debug, Default)]
pub struct Startup {
    pub db: PathBuf,
    /// The database was given by `--db` or `LODGE_DB`, which win over Settings' shared one.
    pub db_given: bool,
    /// `user@host` this window's events are written as.
    pub actor: String,
    /// The picker: the sandbox first, then every configured target that opened.
    pub targets: Vec<TargetInfo>,
    /// Every target in the config file, as Settings lists them.
    pub configured: Vec<ConfiguredTarget>,
    pub datasets: Vec<DatasetSummary>,
    pub latest_jobs: Vec<JobRow>,
    /// Those of `latest_jobs` that landed `existing` after their own attempt's answer was
    /// lost ([`crate::engine::landed_after_lost_answer`]).
    pub landed_after_lost_answer: Vec<i64>,
    pub results: Vec<ResultFingerprint>,
    /// Drafting targets' deposits a check found published since: target and record.
    pub published_drafts: Vec<(String, String)>,
    /// The end of the event log, oldest first.
    pub recent_events: Vec<EventRow>,
    /// The log has events before `recent_events` (the window shows the newest only).
    pub earlier_events: bool,
    /// Datasets removed from the list, named as their removals logged them.
    pub removed: Vec<crate::store::RemovedDataset>,
    /// The latest check of every deposit ever checked (`lodge verify`, Verify).
    pub checks: Vec<EventRow>,
    /// Targets paused (credentials refused, or not usable as they are), with why: the
    /// picker's and those used from the command line.
    pub paused_targets: Vec<(String, String)>,
    pub settings: Settings,
    /// A problem reading the settings (the defaults are used meanwhile).
    pub settings_problem: Option<String>,
}

/// The selected dataset in full: its files, what its folder leaves out, and every job with
/// its events.
#[derive(Clone, Debug)]
pub struct Details {
    pub dataset: i64,
    pub files: Vec<FileScan>,
    /// What a look at the folder now leaves out that a person would want to know of (links,
    /// pipes, files a `.lodgeignore` matched: [`SkippedEntry::is_notable`]); empty when the
    /// folder cannot be read.
    pub left_out: Vec<SkippedEntry>,
    /// Newest first, each with its events (oldest first).
    pub jobs: Vec<(JobRow, Vec<EventRow>)>,
}

/// Every job of one dataset, newest first, read for its remove confirmation (which lists
/// what removing does to each that still matters, not only each target's latest); or why
/// they could not be read.
#[derive(Clone, Debug)]
pub struct DatasetJobs {
    pub dataset: i64,
    pub jobs: Result<Vec<JobRow>, String>,
}

/// What a check asked of the window is of: one deposit (by its job), or every deposit
/// listed on a target (Verify deposited). One is asked at a time: its buttons wait until
/// it ends ([`Update::CheckEnded`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CheckOf {
    Deposit(i64),
    Target(String),
}

/// One message from background work to the window.
#[derive(Clone, Debug)]
pub enum Update {
    Started(Box<Startup>),
    /// The store or the sandbox could not be opened: nothing else will work.
    StartFailed(String),
    Engine(EngineEvent),
    /// Whether the engine is claiming new work (Pause/Resume).
    EngineRunning(bool),
    /// The latest jobs, reloaded after the engine's event channel overflowed.
    JobsReloaded(Vec<JobRow>),
    /// A folder started hashing. `row` is the dataset's id, or a negative placeholder for a
    /// folder not yet in the store.
    HashStarted {
        row: i64,
        path: String,
        name: String,
    },
    HashProgress {
        row: i64,
        done: u64,
        total: u64,
    },
    /// Hashing stopped without a saved dataset (an error, reported separately).
    HashEnded {
        row: i64,
    },
    /// A dataset was recorded (new or re-keyed); `placeholder` is the row it replaces.
    DatasetSaved {
        placeholder: Option<i64>,
        summary: DatasetSummary,
    },
    /// A dataset another process recorded (met in the events it logged): a row if the
    /// window has none for it yet. One it has is left as it is: the window saw it scanned.
    DatasetFound(DatasetSummary),
    DatasetRemoved(i64),
    /// These datasets' folders are gone (moved or deleted): their rows say so, until a
    /// rescan finds the folder again.
    FoldersGone(Vec<i64>),
    /// Every folder of this machine's datasets was looked at (the window came back into
    /// focus): these are the ones gone, and any other found gone before is back.
    FoldersGoneAsChecked(Vec<i64>),
    /// Every dataset whose folder changed since its last scan: their rows say so, and
    /// offer a Rescan, until one is done. The whole list, as of one look: a row not in it
    /// is as scanned.
    FoldersChanged(Vec<FolderChanged>),
    /// How far the check by bytes of the deposit job `job` landed has read it back: `done`
    /// of `total` bytes, or `None` once the check is over.
    ReadBack {
        job: i64,
        progress: Option<(u64, u64)>,
    },
    /// A check asked of the window (Verify, Verify bytes, Repair, Verify deposited) is
    /// over, whatever it found: its buttons are offered again.
    CheckEnded(CheckOf),
    /// Jobs as they are now (after queueing or retrying).
    Jobs(Vec<JobRow>),
    /// These jobs landed `existing` on finding their record after their own attempt's answer
    /// was lost: most likely that attempt made it, so their rows read *Deposited*. Sent
    /// before the jobs themselves.
    LandedAfterLostAnswer(Vec<i64>),
    /// Events committed by a command (queueing, retry) rather than by the engine.
    Logged(Vec<EventRow>),
    /// The store's word on a target after a worker paused it: why it is paused, or `None`
    /// when it is no longer (resumed in the meantime).
    TargetPaused {
        scope: String,
        reason: Option<String>,
    },
    /// The store's word on which targets are paused now, each with why (the History is
    /// read with it: a queued job there may wait on a target paused from a terminal).
    PausedTargets(Vec<(String, String)>),
    Notice(Notice),
    Details(Box<Details>),
    DatasetJobs(DatasetJobs),
    History(Vec<HistoryRow>),
    Settings(Settings),
    /// A history export was written here.
    Exported(PathBuf),
    /// The targets changed (added, edited or removed in Settings): the picker and the list.
    Targets {
        picker: Vec<TargetInfo>,
        configured: Vec<ConfiguredTarget>,
    },
    /// The Add / Edit form was saved under this name.
    TargetSaved(String),
    /// The Add / Edit form was not saved: every problem found, each with the field it
    /// belongs next to.
    TargetRefused(Vec<(TargetField, String)>),
    /// "Test connection" started for this target.
    TargetTesting(String),
    /// "Test connection" ended: every check, or why the target could not be opened.
    TargetTested {
        name: String,
        report: Result<ProbeReport, String>,
    },
}

/// A dataset whose folder was found changed since its last scan.
#[derive(Clone, Debug)]
pub struct FolderChanged {
    pub dataset: i64,
    /// The dataset's key when its folder was looked at. A row rescanned since, while the
    /// look was still walking folders, has another key and is left alone.
    pub key: Option<ContentKey>,
    /// What changed, in words ("1 file added, 1 file modified").
    pub what: String,
}

impl FolderChanged {
    pub fn of(dataset: &DatasetRow, change: &FolderChange) -> FolderChanged {
        FolderChanged {
            dataset: dataset.id,
            key: dataset.key,
            what: change.describe(),
        }
    }
}
