//! The in-memory picture the window draws: every dataset with its latest job per target,
//! transient hashing and upload progress, the live log and the notices. Kept current by
//! applying [`Update`]s one by one; nothing here touches the database.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::PathBuf;

use super::settings::Settings;
use super::status::DedupStatus;
use super::targets::{ConfiguredTarget, TargetField, TargetTest};
use super::update::{CheckOf, DatasetJobs, Details, Startup, TargetInfo, Update};
use crate::content::{ContentKey, FieldProblem, Metadata};
use crate::engine::EngineEvent;
use crate::engine::verify::verdict_of;
use crate::store::{
    DatasetSummary, EventKind, EventRow, HistoryRow, JobRow, JobState, ResultFingerprint,
};

/// The log keeps at most this many lines in memory (the store keeps them all).
pub const LOG_CAPACITY: usize = 20_000;

/// One dataset row.
#[derive(Clone, Debug, PartialEq)]
pub struct DatasetEntry {
    /// The dataset's id, or a negative placeholder while a new folder hashes.
    pub id: i64,
    pub path: String,
    pub name: String,
    pub metadata: Metadata,
    /// What blocks a deposit (empty when the metadata is complete).
    pub problems: Vec<FieldProblem>,
    pub key: Option<ContentKey>,
    pub fingerprint: Option<String>,
    pub file_count: u64,
    pub total_bytes: u64,
    /// Latest job per target scope id.
    pub jobs: HashMap<String, JobRow>,
    /// Bytes hashed of the total, while hashing.
    pub hashing: Option<(u64, u64)>,
    /// Upload progress of a running job: (job, sent, total).
    pub upload: Option<(i64, u64, u64)>,
    /// Counts every change seen to any of its jobs, the ones `jobs` does not show too (a
    /// replay of the row's own deposit): the details reload when it moves.
    pub jobs_changed: u64,
}

impl DatasetEntry {
    pub fn from_summary(s: DatasetSummary) -> DatasetEntry {
        DatasetEntry {
            problems: s.metadata.problems(),
            id: s.id,
            path: s.path,
            name: s.name,
            metadata: s.metadata,
            key: s.key,
            fingerprint: s.fingerprint,
            file_count: s.file_count,
            total_bytes: s.total_bytes,
            jobs: HashMap::new(),
            hashing: None,
            upload: None,
            jobs_changed: 0,
        }
    }

    /// A folder being hashed before it is in the store.
    fn placeholder(row: i64, path: String, name: String) -> DatasetEntry {
        DatasetEntry {
            id: row,
            path,
            name,
            metadata: Metadata::default(),
            problems: Vec::new(),
            key: None,
            fingerprint: None,
            file_count: 0,
            total_bytes: 0,
            jobs: HashMap::new(),
            hashing: Some((0, 0)),
            upload: None,
            jobs_changed: 0,
        }
    }

    /// The latest job for `target` if it deposits the current key.
    pub fn current_job(&self, target: &str) -> Option<&JobRow> {
        let key = self.key?;
        self.jobs.get(target).filter(|j| j.key == key)
    }

    /// The latest job for `target` when it landed under an earlier key than the current one
    /// (the folder was rescanned with other files, or its metadata edited, since); on an
    /// InvenioRDM or Zenodo site, the newest of its drafting and publishing targets' (one
    /// work's versions: [`crate::targets::same_work_scopes`]).
    pub fn earlier_version_deposited(&self, target: &str) -> Option<&JobRow> {
        let key = self.key?;
        (crate::targets::same_work_scopes(target).iter())
            .filter_map(|scope| self.jobs.get(scope))
            .filter(|j| j.key != key && j.state.is_landed() && j.identifier.is_some())
            .max_by_key(|j| j.id)
    }

    /// Every job of this row that a person could retry (failed, any target).
    pub fn failed_jobs(&self) -> impl Iterator<Item = &JobRow> {
        self.jobs
            .values()
            .filter(|j| j.state == crate::store::JobState::Failed)
    }
}

/// How loud a log line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    Info,
    Warning,
    Error,
}

impl LogLevel {
    pub fn label(self) -> &'static str {
        match self {
            LogLevel::Info => "info",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
        }
    }

    fn of(kind: EventKind) -> LogLevel {
        match kind {
            EventKind::Failed | EventKind::Rejected | EventKind::Paused => LogLevel::Error,
            k if k.is_problem() => LogLevel::Warning,
            EventKind::Reclaimed => LogLevel::Warning,
            _ => LogLevel::Info,
        }
    }
}

/// One line of the live log.
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// Unix ms.
    pub at: i64,
    pub level: LogLevel,
    pub dataset: Option<i64>,
    /// What happened, in a word (`attempt`, `retry_scheduled`, `replay`, ... or `app`).
    pub kind: &'static str,
    pub text: String,
}

/// How loud a notice is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

/// A message for the person, shown briefly and kept in the log.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub level: NoticeLevel,
    pub text: String,
    /// The target (scope id) whose pause this notice reports: it is taken down once the
    /// target is no longer paused, so it never says "paused" over rows being sent.
    pub while_paused: Option<String>,
    /// The datasets whose folders this notice says are gone: it is taken down once none of
    /// them is on the list with its folder gone (removed from the list, or found again).
    pub while_gone: Vec<i64>,
    /// What the notice is news of, when a later notice may overtake it (the picked target
    /// lost, then back; a check's start, then its findings): a notice of the same topic
    /// takes the earlier one's place.
    pub topic: Option<String>,
    /// Said while the window's deposits are paused (its Pause button): it is taken down once
    /// they are resumed, so it never says "paused" over rows being sent.
    pub while_deposits_paused: bool,
    /// The deposit (its key, and its target's scope id) this notice says is damaged: it is
    /// taken down once a later check finds it intact (a repair from the command line, say).
    pub while_damaged: Option<(ContentKey, String)>,
}

impl Notice {
    /// This notice, of `topic`: it takes the place of an earlier one of the same topic.
    pub fn about(self, topic: impl Into<String>) -> Notice {
        Notice {
            topic: Some(topic.into()),
            ..self
        }
    }

    /// This notice, taken down once the deposit of `key` on `target` is no longer found
    /// damaged (an info notice, which goes by itself, is left as it is).
    pub fn while_damaged(self, key: ContentKey, target: &str) -> Notice {
        if self.level == NoticeLevel::Info {
            return self;
        }
        Notice {
            while_damaged: Some((key, target.to_string())),
            ..self
        }
    }

    /// This notice, taken down once the window's deposits are resumed.
    pub fn while_deposits_paused(self) -> Notice {
        Notice {
            while_deposits_paused: true,
            ..self
        }
    }

    pub fn info(text: impl Into<String>) -> Notice {
        Notice {
            level: NoticeLevel::Info,
            text: text.into(),
            while_paused: None,
            while_gone: Vec::new(),
            topic: None,
            while_deposits_paused: false,
            while_damaged: None,
        }
    }
    pub fn warning(text: impl Into<String>) -> Notice {
        Notice {
            level: NoticeLevel::Warning,
            text: text.into(),
            while_paused: None,
            while_gone: Vec::new(),
            topic: None,
            while_deposits_paused: false,
            while_damaged: None,
        }
    }
    pub fn error(text: impl Into<String>) -> Notice {
        Notice {
            level: NoticeLevel::Error,
            text: text.into(),
            while_paused: None,
            while_gone: Vec::new(),
            topic: None,
            while_deposits_paused: false,
            while_damaged: None,
        }
    }
}

/// What closing the window would cut short ([`Model::work_in_hand`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkInHand {
    /// Deposits this process is sending.
    pub sending: usize,
    /// Folders being hashed (added or rescanned).
    pub hashing: usize,
    /// Deposits on the queue this window would send next (queued, or waiting to retry
    /// after a failed attempt): closing leaves them there, unsent until Lodge runs again.
    pub waiting: usize,
    /// Of [`WorkInHand::waiting`], those waiting to retry.
    pub retrying: usize,
}

impl WorkInHand {
    pub fn is_empty(&self) -> bool {
        self.sending == 0 && self.hashing == 0 && self.waiting == 0
    }
}

/// The deposits removing a dataset leaves behind ([`Model::removal_deposits`]).
#[derive(Debug)]
pub struct RemovalDeposits<'a> {
    /// Target by target, each target's latest deposit first.
    pub jobs: Vec<&'a JobRow>,
    /// Why the dataset's other jobs could not be read: only each target's latest is listed.
    pub unread: Option<&'a str>,
}

/// Everything the window shows, kept current by [`Model::apply`].
#[derive(Debug, Default)]
pub struct Model {
    /// The store is open and the rows are loaded.
    pub ready: bool,
    pub start_error: Option<String>,
    pub db: Option<PathBuf>,
    /// `db` was given by `--db` or `LODGE_DB`, which win over the shared database in
    /// Settings.
    pub db_given: bool,
    pub targets: Vec<TargetInfo>,
    rows: Vec<DatasetEntry>,
    index: HashMap<i64, usize>,
    /// Recorded results by data fingerprint.
    same_data: HashMap<String, Vec<ResultFingerprint>>,
    /// Job id -> dataset id, for progress events that carry only the job.
    job_dataset: HashMap<i64, i64>,
    /// The records deposits to publishing targets hold: a drafting target's deposit among
    /// them was published since ([`crate::targets::PublishedRecords`]).
    published: crate::targets::PublishedRecords,
    /// Key -> target -> the row whose job of that scope was seen last: a copy of a folder
    /// (another row with the same key) queued with it shares that one job.
    scope_rows: HashMap<ContentKey, HashMap<String, i64>>,
    /// Targets paused (credentials refused, or not usable as they are), with why: their
    /// queued jobs wait on the user.
    paused_targets: HashMap<String, String>,
    /// The latest check of each deposit (`lodge verify`, Verify), by key, then target: the
    /// check's event id and, when it found damage, what it found.
    checks: HashMap<ContentKey, HashMap<String, (i64, Option<String>)>>,
    /// Datasets removed from the list, by id: their names, as their removal logged them,
    /// for their log lines and jobs in the History.
    removed_names: HashMap<i64, String>,
    /// Jobs that landed `existing` on finding their record after their own attempt's answer
    /// was lost ([`Update::LandedAfterLostAnswer`]): their rows read *Deposited*.
    landed_after_lost_answer: HashSet<i64>,
    /// Datasets whose folders were found gone ([`Update::FoldersGone`]).
    folders_gone: HashSet<i64>,
    /// Datasets whose folders changed since their last scan, with what changed
    /// ([`Update::FoldersChanged`]).
    folders_changed: HashMap<i64, String>,
    pub log: VecDeque<LogLine>,
    /// Ids of the events in the log: the same event can arrive twice (from this process's
    /// engine and from the shared store's notices) and is shown once.
    logged_events: HashSet<i64>,
    /// Who this window's own events are written as (`user@host`); others' are named.
    actor: String,
    /// Notices not yet shown; the window takes them.
    pub notices: Vec<Notice>,
    /// Deposits being read back by bytes (Verify bytes, Repair), by job: bytes read of the
    /// deposit's size.
    pub reading_back: HashMap<i64, (u64, u64)>,
    /// The log has events from before the window opened that it did not load (it loads
    /// the newest few hundred): the log panel says where they are.
    pub earlier_events: bool,
    /// The checks asked of the window and not ended yet: their buttons wait (a second
    /// press would check, or read back, everything again). Marked as they are asked
    /// ([`Model::check_asked`]), cleared by [`Update::CheckEnded`].
    /// (In a cell: asked from a panel that reads the model as it draws.)
    pub checks_running: std::cell::RefCell<HashSet<CheckOf>>,
    pub details: Option<Details>,
    /// Every job of the dataset last asked to be removed, kept current as its jobs change
    /// ([`Model::removal_deposits`]).
    pub dataset_jobs: Option<DatasetJobs>,
    pub history: Option<Vec<HistoryRow>>,
    pub settings: Settings,
    pub engine_running: bool,
    pub last_export: Option<PathBuf>,
    /// Every target in the config file (Settings lists them).
    pub configured: Vec<ConfiguredTarget>,
    /// Bumped when the picker's targets change.
    pub targets_version: u64,
    /// The last "Save target": its name when saved, else its problems, each with its field.
    pub target_saved: Option<String>,
    pub target_problems: Vec<(TargetField, String)>,
    /// "Test connection" per target name.
    pub target_tests: BTreeMap<String, TargetTest>,
    /// Bumped when rows are added or removed or a status may have changed (not on progress).
    pub version: u64,
    /// Bumped when the log grows.
    pub log_version: u64,
}

impl Model {
    /// A check was asked for (its command sent): its buttons wait from this frame on, not
    /// from when the service gets to it.
    pub fn check_asked(&self, of: CheckOf) {
        self.checks_running.borrow_mut().insert(of);
    }

    /// Whether a check of `of` asked of the window is still running.
    pub fn check_running(&self, of: &CheckOf) -> bool {
        self.checks_running.borrow().contains(of)
    }

    pub fn rows(&self) -> &[DatasetEntry] {
        &self.rows
    }

    pub fn row(&self, id: i64) -> Option<&DatasetEntry> {
        self.index.get(&id).map(|&i| &self.rows[i])
    }

    /// Dataset `id`'s name, as its log lines and jobs show it: its row's, or for one removed
    /// from the list its name then with `(removed)`; `None` when the window knows neither.
    /// The name a dataset taken off the list had, if it was.
    pub fn removed_name(&self, id: i64) -> Option<String> {
        self.removed_names.get(&id).cloned()
    }

    pub fn dataset_name(&self, id: i64) -> Option<String> {
        match self.row(id) {
            Some(row) => Some(row.name.clone()),
            None => self
                .removed_names
                .get(&id)
                .map(|name| format!("{name} (removed)")),
        }
    }

    /// What closing the window now would cut short: deposits this process is sending
    /// (their jobs go back on the queue, to be sent again with the same keys), folders
    /// being hashed (one being added is not on the list until it is added again) and
    /// deposits it would send next (not while paused, nor to a paused target, nor to a
    /// target the window does not have, nor of a folder not here, such as another
    /// machine's on a shared store: this window would never send those).
    pub fn work_in_hand(&self) -> WorkInHand {
        let mut work = WorkInHand::default();
        let would_send = |target: &str| {
            self.engine_running
                && !self.paused_targets.contains_key(target)
                && self.targets.iter().any(|t| t.scope_id == target)
        };
        for row in &self.rows {
            if row.id < 0 || row.hashing.is_some() {
                work.hashing += 1;
            }
            let here = !self.folders_gone.contains(&row.id);
            for (target, job) in &row.jobs {
                match job.state {
                    JobState::Running
                        if job
                            .lease_owner
                            .as_deref()
                            .is_some_and(crate::engine::held_by_this_process) =>
                    {
                        work.sending += 1
                    }
                    JobState::Queued if here && would_send(target) => work.waiting += 1,
                    JobState::Waiting if here && would_send(target) => {
                        work.waiting += 1;
                        work.retrying += 1;
                    }
                    _ => {}
                }
            }
        }
        work
    }

    /// Whether a folder is already a row (added or being added).
    pub fn has_path(&self, path: &str) -> bool {
        self.rows.iter().any(|r| r.path == path)
    }

    /// Whether dataset `id`'s folder is known to be gone from this machine (moved or
    /// deleted): where it landed its status stays, with this said beside it.
    pub fn folder_gone(&self, id: i64) -> bool {
        self.folders_gone.contains(&id)
    }

    /// Whether any row's folder is said to be gone.
    pub fn any_folder_gone(&self) -> bool {
        !self.folders_gone.is_empty()
    }

    /// A row's dedup status for `target`. A row whose folder is gone says so where it
    /// would otherwise offer a deposit or a rescan (neither can work); what it has on the
    /// queue, deposited or failed it still shows.
    pub fn status(&self, entry: &DatasetEntry, target: &str) -> DedupStatus {
        let status = match self.status_from_store(entry, target) {
            DedupStatus::Queued { .. } => DedupStatus::Queued {
                paused: !self.engine_running,
            },
            DedupStatus::WaitingToRetry { at_ms, cause, .. } => DedupStatus::WaitingToRetry {
                at_ms,
                cause,
                paused: !self.engine_running,
            },
            status => status,
        };
        let blocked = matches!(
            status,
            DedupStatus::New { .. }
                | DedupStatus::NewVersion { .. }
                | DedupStatus::SameDataAsAnother { .. }
                | DedupStatus::ChangedSinceScan { .. }
        );
        if blocked && self.folders_gone.contains(&entry.id) {
            return DedupStatus::FolderMissing {
                path: entry.path.clone(),
            };
        }
        // What it deposited (or failed to) was the folder as scanned, not as it is now.
        if let Some(cause) = self.folders_changed.get(&entry.id)
            && !status.is_busy()
            && !matches!(
                status,
                DedupStatus::TargetPaused { .. } | DedupStatus::ChangedSinceScan { .. }
            )
        {
            return DedupStatus::ChangedSinceScan {
                cause: cause.clone(),
            };
        }
        status
    }

    /// The recorded results of this row's data (its manifest's fingerprint), any key.
    fn known_results(&self, entry: &DatasetEntry) -> &[ResultFingerprint] {
        entry
            .fingerprint
            .as_ref()
            .and_then(|fp| self.same_data.get(fp))
            .map_or(&[][..], Vec::as_slice)
    }

    /// The result of this row's very key on `target`, whichever dataset's job recorded it.
    fn deposited_through_copy(
        &self,
        entry: &DatasetEntry,
        target: &str,
    ) -> Option<&ResultFingerprint> {
        let key = entry.key?.to_hex();
        self.known_results(entry)
            .iter()
            .find(|r| r.key == key && r.target == target)
    }

    /// The deposit of this row's key to `target` that a copy of it (another row with the
    /// same key) queued and that has not landed — queued, under way, failed or refused —
    /// with that copy: one job sends the content for both, so its state is this row's too.
    pub fn copy_deposit<'a>(
        &'a self,
        entry: &DatasetEntry,
        target: &str,
    ) -> Option<(&'a DatasetEntry, &'a JobRow)> {
        let key = entry.key?;
        let owner = *self.scope_rows.get(&key)?.get(target)?;
        if owner == entry.id || self.deposited_through_copy(entry, target).is_some() {
            return None;
        }
        let copy = self.row(owner)?;
        let job = copy.current_job(target).filter(|j| !j.state.is_landed())?;
        Some((copy, job))
    }

    /// Every deposit of this row's key that a copy of it queued and that has not landed
    /// ([`Model::copy_deposit`]), on any target, not only the picked one.
    pub fn copy_deposits<'a>(
        &'a self,
        entry: &'a DatasetEntry,
    ) -> impl Iterator<Item = (&'a DatasetEntry, &'a JobRow)> + 'a {
        let targets = entry.key.and_then(|key| self.scope_rows.get(&key));
        targets
            .into_iter()
            .flat_map(|by_target| by_target.keys())
            .filter_map(move |target| self.copy_deposit(entry, target))
    }

    /// What removing dataset `id` leaves behind, as its remove confirmation lists it: on each
    /// target (the picker's in its order, then any other by its address), the row's latest
    /// deposit there, then each other there that still matters, newest first: a deposit
    /// still on the queue, and the record each earlier key made. `None` until its jobs are
    /// read ([`Command::LoadDatasetJobs`](super::Command::LoadDatasetJobs)).
    pub fn removal_deposits(&self, id: i64) -> Option<RemovalDeposits<'_>> {
        let row = self.row(id)?;
        let read = self.dataset_jobs.as_ref().filter(|d| d.dataset == id)?;
        let (every_job, unread) = match &read.jobs {
            Ok(jobs) => (jobs.as_slice(), None),
            Err(why) => (&[][..], Some(why.as_str())),
        };
        let place = |scope: &str| {
            (self.targets.iter())
                .position(|t| t.scope_id == scope)
                .unwrap_or(usize::MAX)
        };
        let mut latest: Vec<&JobRow> = row.jobs.values().collect();
        latest.sort_by(|a, b| (place(&a.target), &a.target).cmp(&(place(&b.target), &b.target)));
        let mut jobs = Vec::new();
        for newest in latest {
            jobs.push(newest);
            // The newest's key is said by its own line.
            let mut keys_said = HashSet::from([newest.key]);
            for job in every_job {
                if job.target != newest.target || job.id == newest.id || job.dismissed_at.is_some()
                {
                    continue;
                }
                let on_the_queue = !job.state.is_terminal();
                let a_record = job.state.is_landed() && job.identifier.is_some();
                // One record a key: the newest (a replay of it repeats its record).
                if on_the_queue || (a_record && keys_said.insert(job.key)) {
                    jobs.push(job);
                }
            }
        }
        Some(RemovalDeposits { jobs, unread })
    }

    /// Keep the jobs read for a remove confirmation current: `job`, now of `dataset`, takes
    /// its place among them, or joins them.
    fn note_in_dataset_jobs(&mut self, job: &JobRow, dataset: i64) {
        let Some(DatasetJobs {
            dataset: of,
            jobs: Ok(jobs),
        }) = &mut self.dataset_jobs
        else {
            return;
        };
        // A job handed to a copy of the dataset is the copy's now.
        jobs.retain(|j| j.id != job.id);
        if *of == dataset {
            let at = jobs.partition_point(|j| j.id > job.id);
            jobs.insert(at, job.clone());
        }
    }

    /// The job a row's Retry or Dismiss acts on for `target`: its own deposit of its key,
    /// or the copy's it shares ([`Model::copy_deposit`]).
    pub fn deposit_job<'a>(&'a self, entry: &'a DatasetEntry, target: &str) -> Option<&'a JobRow> {
        (entry.current_job(target)).or_else(|| Some(self.copy_deposit(entry, target)?.1))
    }

    fn status_from_store(&self, entry: &DatasetEntry, target: &str) -> DedupStatus {
        if let Some((done, total)) = entry.hashing {
            return DedupStatus::Hashing { done, total };
        }
        // A deposit of this row that failed or was refused gives way to its key landing
        // here since through a copy's job (the copy's folder sent what this one could not).
        let current = entry.current_job(target).filter(|job| {
            !matches!(job.state, JobState::Failed | JobState::Rejected)
                || self.deposited_through_copy(entry, target).is_none()
        });
        if let Some(job) = current {
            return self.status_of_job(job, entry, target);
        }
        // Another dataset with this very key (a copy of the folder) deposited it here: a
        // deposit of this one would be a replay.
        if let Some(r) = self.deposited_through_copy(entry, target) {
            let damage = entry.key.and_then(|key| self.damage(&key, target));
            return DedupStatus::AlreadyDeposited {
                identifier: r.identifier.clone(),
                url: r.url.clone(),
            }
            .unless_damaged(damage);
        }
        // A copy queued this very key there and it has not landed: its job is this row's.
        if let Some((copy, job)) = self.copy_deposit(entry, target) {
            return self.status_of_job(job, copy, target);
        }
        if let Some(earlier) = entry.earlier_version_deposited(target) {
            return DedupStatus::NewVersion {
                identifier: earlier.identifier.clone().unwrap_or_default(),
                url: earlier.url.clone(),
            };
        }
        // The same data under other metadata, on this target: a deposit here would be a
        // second record of it. (On another target it would be this one's first.)
        let key = entry.key.map(|k| k.to_hex());
        let first = self
            .known_results(entry)
            .iter()
            .find(|r| Some(&r.key) != key.as_ref() && r.target == target);
        if let Some(r) = first {
            return DedupStatus::SameDataAsAnother {
                identifier: r.identifier.clone(),
                url: r.url.clone(),
            };
        }
        DedupStatus::New {
            ready: entry.key.is_some() && entry.problems.is_empty(),
        }
    }

    /// The status `job` gives its row on `target`, `holder` being the row whose job it is
    /// (its upload's progress is on that row).
    fn status_of_job(&self, job: &JobRow, holder: &DatasetEntry, target: &str) -> DedupStatus {
        if job.state == JobState::Queued
            && let Some(reason) = self.paused_targets.get(target)
        {
            return DedupStatus::TargetPaused {
                reason: reason.clone(),
                fix: super::paused_target_fix(reason, target),
            };
        }
        let upload = holder
            .upload
            .filter(|(j, _, _)| *j == job.id)
            .map(|(_, sent, total)| (sent, total));
        let mut status = DedupStatus::from_job(job, upload)
            .after_lost_answer(self.landed_after_lost_answer.contains(&job.id))
            .unless_damaged(self.damage(&job.key, target));
        // A draft published since: the row's Open record opens its public page, as its
        // details' do, not the draft's (its owner's, behind a login on Zenodo).
        let public = (job.identifier.as_deref()).and_then(|id| self.public_url(target, id));
        if let (
            Some(public),
            DedupStatus::Deposited { url, .. }
            | DedupStatus::AlreadyDeposited { url, .. }
            | DedupStatus::Damaged { url, .. },
        ) = (public, &mut status)
        {
            *url = Some(public.to_string());
        }
        status
    }

    /// A check found a draft published since (`e`, its event): its record is cited now. The
    /// record is its job's, found among the rows' jobs (one another process checked may not
    /// be there: the next start reads it from the store).
    fn note_published(&mut self, e: &EventRow) {
        let (Some(job), Some(target)) = (e.job_id, &e.target) else {
            return;
        };
        let record = (self.job_dataset.get(&job))
            .and_then(|d| self.row(*d))
            .and_then(|row| row.jobs.values().find(|j| j.id == job))
            .and_then(|j| j.identifier.clone());
        if let Some(record) = record {
            self.published.note_published_draft(target, &record);
            self.version += 1;
        }
    }

    /// The address to cite and link a drafting target's deposit `identifier` on `target` by
    /// once it is published ([`crate::targets::PublishedRecords::public_url`]).
    pub fn public_url(&self, target: &str, identifier: &str) -> Option<&str> {
        self.published.public_url(target, identifier)
    }

    /// Whether the deposit that landed as `identifier` on `target` is a draft still: made by
    /// a drafting target and not published since by a deposit to its site's publishing one.
    pub fn is_draft(&self, target: &str, identifier: Option<&str>) -> bool {
        self.published.is_draft(target, identifier)
    }

    /// What the latest check of the deposit of `key` to `target` found damaged, if it did.
    pub fn damage(&self, key: &ContentKey, target: &str) -> Option<&str> {
        self.checks.get(key)?.get(target)?.1.as_deref()
    }

    /// Keep a check's finding if it is the deposit's latest (checks arrive from the
    /// startup's read, this window's Verify and other processes, in no set order).
    fn note_check(&mut self, e: &EventRow) {
        let Some((intact, found)) = verdict_of(e) else {
            return;
        };
        let key = e.content_key.as_deref().and_then(|k| k.parse().ok());
        let (Some(key), Some(target)) = (key, &e.target) else {
            return;
        };
        let by_target = self.checks.entry(key).or_default();
        if by_target
            .get(target)
            .is_some_and(|(latest, _)| *latest >= e.id)
        {
            return;
        }
        let finding = (!intact).then(|| found.to_string());
        by_target.insert(target.clone(), (e.id, finding));
        self.version += 1;
    }

    /// Whether Repair mends any of what a check `found` (its logged words) on the target
    /// `scope_id`: a file lost, where the target takes files back; a file of the wrong size,
    /// where it writes over one; a record gone, where it writes the record again. Offered
    /// for nothing else (other bytes, another record): it could only say it cannot.
    pub fn repair_mends(&self, scope_id: &str, found: &str) -> bool {
        let Some(t) = self.targets.iter().find(|t| t.scope_id == scope_id) else {
            return false;
        };
        let lost = found.contains(" is missing");
        let wrong_size = found.contains(" on the server, ") && found.contains(" when deposited");
        let record_gone = found.contains(" is gone: the server has no record of this key");
        (t.puts_back_files && (lost || (t.repairs_sizes && wrong_size)))
            || (t.repairs_records && record_gone)
    }

    /// Where the target `scope_id` keeps the files of the deposit of `key` of a dataset
    /// titled `title` there, in the folders layout: that dataset's folder's address.
    pub fn dataset_folder(&self, scope_id: &str, key: &ContentKey, title: &str) -> Option<String> {
        let base = self
            .targets
            .iter()
            .find(|t| t.scope_id == scope_id)?
            .datasets_base
            .as_deref()?;
        Some(crate::targets::layout::dataset_folder_address(
            base, key, title,
        ))
    }

    /// Whether `scope_id` is one of the window's targets (in the picker), which it can ask.
    pub fn has_target(&self, scope_id: &str) -> bool {
        self.targets.iter().any(|t| t.scope_id == scope_id)
    }

    /// Whether a deposit on the target `scope_id` has files to read back: false only for a
    /// target known to keep none (DataCite), so one no longer configured still offers it.
    pub fn keeps_files(&self, scope_id: &str) -> bool {
        !self
            .targets
            .iter()
            .any(|t| t.scope_id == scope_id && !t.keeps_files)
    }

    /// Why the target `scope_id` is paused, if it is (nothing is sent there until the
    /// person acts).
    pub fn paused_reason(&self, scope_id: &str) -> Option<&str> {
        self.paused_targets.get(scope_id).map(String::as_str)
    }

    /// A target's label for its scope id (the scope id itself when unknown).
    pub fn target_label<'a>(&'a self, scope_id: &'a str) -> &'a str {
        self.targets
            .iter()
            .find(|t| t.scope_id == scope_id)
            .map(|t| t.label.as_str())
            .unwrap_or(scope_id)
    }

    /// Apply one update.
    pub fn apply(&mut self, update: Update) {
        match update {
            Update::Started(startup) => self.start(*startup),
            Update::StartFailed(message) => {
                self.push_app_log(LogLevel::Error, &message);
                self.start_error = Some(message);
            }
            Update::Engine(event) => self.engine_event(event),
            Update::EngineRunning(running) => self.engine_running = running,
            Update::JobsReloaded(jobs) | Update::Jobs(jobs) => {
                jobs.into_iter().for_each(|j| self.job_changed(j));
                self.version += 1;
            }
            Update::HashStarted { row, path, name } => {
                if let Some(&i) = self.index.get(&row) {
                    self.rows[i].hashing = Some((0, 0));
                } else {
                    self.insert(DatasetEntry::placeholder(row, path, name));
                }
                self.version += 1;
            }
            Update::HashProgress { row, done, total } => {
                if let Some(&i) = self.index.get(&row) {
                    self.rows[i].hashing = Some((done, total));
                }
            }
            Update::HashEnded { row } => {
                if row < 0 {
                    self.remove(row);
                } else if let Some(&i) = self.index.get(&row) {
                    self.rows[i].hashing = None;
                }
                self.version += 1;
            }
            Update::DatasetSaved {
                placeholder,
                summary,
            } => {
                if let Some(p) = placeholder {
                    self.remove(p);
                }
                let mut entry = DatasetEntry::from_summary(summary);
                // Scanned just now: its folder is there, as keyed.
                self.folders_gone.remove(&entry.id);
                self.folders_changed.remove(&entry.id);
                if let Some(&i) = self.index.get(&entry.id) {
                    entry.jobs = std::mem::take(&mut self.rows[i].jobs);
                    self.rows[i] = entry;
                } else {
                    self.insert(entry);
                }
                self.version += 1;
            }
            Update::DatasetFound(summary) => {
                // Unlike a save, says nothing of its folder: what this window found of it
                // (gone, changed) stands.
                if !self.index.contains_key(&summary.id) {
                    self.insert(DatasetEntry::from_summary(summary));
                    self.version += 1;
                }
            }
            Update::FoldersGone(ids) => {
                self.folders_gone.extend(ids);
                self.version += 1;
            }
            Update::FoldersGoneAsChecked(ids) => {
                self.folders_gone = ids.into_iter().collect();
                self.version += 1;
            }
            Update::FoldersChanged(changed) => {
                self.folders_changed = changed
                    .into_iter()
                    .filter(|c| self.row(c.dataset).is_none_or(|r| r.key == c.key))
                    .map(|c| (c.dataset, c.what))
                    .collect();
                self.version += 1;
            }
            Update::DatasetRemoved(id) => {
                if let Some(row) = self.row(id).filter(|r| r.id > 0) {
                    self.removed_names.insert(id, row.name.clone());
                }
                self.folders_gone.remove(&id);
                self.folders_changed.remove(&id);
                self.remove(id);
                if self.details.as_ref().is_some_and(|d| d.dataset == id) {
                    self.details = None;
                }
                self.version += 1;
            }
            Update::Logged(events) => events.iter().for_each(|e| self.push_event(e)),
            Update::TargetPaused { scope, reason } => self.target_paused(scope, reason),
            Update::PausedTargets(paused) => {
                self.paused_targets = paused.into_iter().collect();
                self.version += 1;
            }
            Update::CheckEnded(of) => {
                self.checks_running.get_mut().remove(&of);
            }
            Update::ReadBack { job, progress } => match progress {
                Some(progress) => {
                    self.reading_back.insert(job, progress);
                }
                None => {
                    self.reading_back.remove(&job);
                }
            },
            Update::Notice(notice) => {
                let level = match notice.level {
                    NoticeLevel::Info => LogLevel::Info,
                    NoticeLevel::Warning => LogLevel::Warning,
                    NoticeLevel::Error => LogLevel::Error,
                };
                self.push_app_log(level, &notice.text);
                self.notices.push(notice);
            }
            Update::Details(details) => self.details = Some(*details),
            Update::DatasetJobs(jobs) => self.dataset_jobs = Some(jobs),
            Update::LandedAfterLostAnswer(jobs) => {
                self.landed_after_lost_answer.extend(jobs);
                self.version += 1;
            }
            Update::History(rows) => self.history = Some(rows),
            Update::Settings(settings) => self.settings = settings,
            Update::Exported(path) => self.last_export = Some(path),
            Update::Targets { picker, configured } => {
                self.targets = picker;
                self.configured = configured;
                self.targets_version += 1;
                self.version += 1;
            }
            Update::TargetSaved(name) => {
                self.target_tests.remove(&name);
                self.target_problems.clear();
                self.target_saved = Some(name);
            }
            Update::TargetRefused(problems) => {
                self.target_saved = None;
                self.target_problems = problems;
            }
            Update::TargetTesting(name) => {
                self.target_tests.insert(name, TargetTest::Running);
            }
            Update::TargetTested { name, report } => {
                let test = match report {
                    Ok(report) => TargetTest::Done(report),
                    Err(e) => TargetTest::Error(e),
                };
                self.target_tests.insert(name, test);
            }
        }
    }

    /// Settings opened again: the connection tests finished before say how a target was
    /// then, not now (a server restarted since, credentials fixed), so they are not shown
    /// again. A test still running reports when it ends.
    pub fn forget_finished_target_tests(&mut self) {
        self.target_tests
            .retain(|_, test| matches!(test, TargetTest::Running));
    }

    /// The store says `scope` is paused for `reason` (or no longer paused): its queued rows
    /// say so, and the first word of a pause comes with a notice of what to do.
    fn target_paused(&mut self, scope: String, reason: Option<String>) {
        self.version += 1;
        let Some(reason) = reason else {
            self.paused_targets.remove(&scope);
            return;
        };
        let text = format!(
            "{} is paused: {} Nothing more is sent there until you act: {}.",
            self.target_label(&scope),
            crate::wording::sentence(&reason),
            super::paused_target_fix(&reason, &scope)
        );
        if self.paused_targets.insert(scope.clone(), reason).is_none() {
            let notice = Notice {
                while_paused: Some(scope),
                ..Notice::error(text)
            };
            self.apply(Update::Notice(notice));
        }
    }

    /// Forget the outcome of the last "Save target" (a new save is on its way).
    pub fn begin_target_save(&mut self) {
        self.target_saved = None;
        self.target_problems.clear();
    }

    fn start(&mut self, s: Startup) {
        self.ready = true;
        self.db = Some(s.db);
        self.db_given = s.db_given;
        self.actor = s.actor;
        self.targets = s.targets;
        self.configured = s.configured;
        self.targets_version += 1;
        self.settings = s.settings;
        self.rows = s
            .datasets
            .into_iter()
            .map(DatasetEntry::from_summary)
            .collect();
        self.index = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id, i))
            .collect();
        self.landed_after_lost_answer = s.landed_after_lost_answer.into_iter().collect();
        for job in s.latest_jobs {
            self.job_changed(job);
        }
        self.removed_names = s.removed.into_iter().map(|r| (r.id, r.name)).collect();
        for (target, record) in &s.published_drafts {
            self.published.note_published_draft(target, record);
        }
        for r in s.results {
            self.published
                .note(&r.target, &r.identifier, r.url.as_deref());
            self.same_data
                .entry(r.fingerprint.clone())
                .or_default()
                .push(r);
        }
        for e in &s.checks {
            self.note_check(e);
        }
        for e in &s.recent_events {
            self.push_event(e);
        }
        self.earlier_events = s.earlier_events;
        // The store's word, whatever the recent events said (the pause may be older).
        self.paused_targets = s.paused_targets.into_iter().collect();
        if let Some(problem) = s.settings_problem {
            self.apply(Update::Notice(Notice::warning(problem)));
        }
        self.version += 1;
    }

    fn insert(&mut self, entry: DatasetEntry) {
        self.index.insert(entry.id, self.rows.len());
        self.rows.push(entry);
    }

    fn remove(&mut self, id: i64) {
        let Some(i) = self.index.remove(&id) else {
            return;
        };
        self.rows.swap_remove(i);
        if let Some(moved) = self.rows.get(i) {
            self.index.insert(moved.id, i);
        }
    }

    fn engine_event(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::Logged(row) => self.push_event(&row),
            EngineEvent::Progress {
                job,
                dataset,
                sent,
                total,
            } => {
                let dataset = dataset.or_else(|| self.job_dataset.get(&job).copied());
                if let Some(&i) = dataset.and_then(|d| self.index.get(&d)) {
                    self.rows[i].upload = Some((job, sent, total));
                }
            }
            EngineEvent::JobChanged(job) => {
                self.job_changed(job);
                self.version += 1;
            }
        }
    }

    fn job_changed(&mut self, job: JobRow) {
        let Some(dataset) = job.dataset_id else {
            return;
        };
        self.note_in_dataset_jobs(&job, dataset);
        // A job handed to a copy of its dataset (its folder was gone, see the engine's
        // `stand_in_copy`) is that copy's now: the row it left no longer shows it.
        if let Some(before) = self.job_dataset.insert(job.id, dataset)
            && before != dataset
            && let Some(&i) = self.index.get(&before)
        {
            let left = &mut self.rows[i];
            if left.jobs.get(&job.target).is_some_and(|j| j.id == job.id) {
                left.jobs.remove(&job.target);
                left.upload = None;
            }
            left.jobs_changed += 1;
        }
        let Some(&i) = self.index.get(&dataset) else {
            return;
        };
        let entry = &mut self.rows[i];
        entry.jobs_changed += 1;
        // Given up on (dismissed): the row shows it no more. The job before it of the same
        // target, if one landed, comes with the store's latest jobs, sent after it.
        if job.dismissed_at.is_some() {
            if entry.jobs.get(&job.target).is_some_and(|j| j.id == job.id) {
                entry.jobs.remove(&job.target);
            }
            return;
        }
        if entry.upload.is_some_and(|(j, _, _)| j == job.id) && job.state.is_terminal() {
            entry.upload = None;
        }
        // Refused because a file of its folder changed since the scan: that is so of the
        // folder, whatever the target, so every target's status says it until a rescan
        // (not only the one whose deposit found it).
        if job.state == JobState::Rejected
            && entry.key == Some(job.key)
            && let Some(cause) = job.last_error.as_deref()
            && a_file_changed(cause, &entry.path)
        {
            self.folders_changed.insert(dataset, cause.to_string());
        }
        // The row's fingerprint is its current key's: a job under an earlier key (a deposit
        // made before the folder was rescanned with other files) is of other data, whose
        // fingerprint the store's results carry, not the row.
        if job.state.is_landed()
            && entry.key == Some(job.key)
            && let (Some(identifier), Some(fingerprint)) = (&job.identifier, &entry.fingerprint)
        {
            let key = job.key.to_hex();
            let known = self.same_data.entry(fingerprint.clone()).or_default();
            if !known.iter().any(|r| r.key == key && r.target == job.target) {
                known.push(ResultFingerprint {
                    target: job.target.clone(),
                    key,
                    fingerprint: fingerprint.clone(),
                    identifier: identifier.clone(),
                    url: job.url.clone(),
                });
            }
        }
        // Deposited and run again, the job that deposited it stays the row's: a later job of
        // the same key on the same target, queued and then replayed from the store, is in
        // the details, not the badge. (One that made an attempt, the result forgotten,
        // takes the row when it ends.)
        let newer = entry.jobs.get(&job.target).is_none_or(|old| {
            let repeats_old = old.id != job.id
                && old.key == job.key
                && old.state.is_landed()
                && (!job.state.is_terminal() || job.is_replay());
            supersedes(&job, old) && !repeats_old
        });
        if job.state.is_landed()
            && let Some(identifier) = &job.identifier
        {
            self.published
                .note(&job.target, identifier, job.url.as_deref());
        }
        if newer {
            (self.scope_rows.entry(job.key).or_default()).insert(job.target.clone(), dataset);
            entry.jobs.insert(job.target.clone(), job);
        }
    }

    /// Targets' scope ids in messages become their short labels (no ports in the log).
    /// One scope id can begin another (a DataCite prefix's drafts and its publishing
    /// target's `…?state=publish`, a WebDAV folder and one inside it): the longest are
    /// replaced first, and only where the id ends, so neither takes part of the other.
    pub fn readable(&self, text: &str) -> String {
        let mut targets: Vec<&TargetInfo> = self.targets.iter().collect();
        targets.sort_by_key(|t| std::cmp::Reverse(t.scope_id.len()));
        let mut out = text.to_string();
        for t in targets {
            let short = t.label.split(" — ").next().unwrap_or(&t.label);
            out = replace_whole(&out, &t.scope_id, short);
        }
        out
    }

    fn push_event(&mut self, e: &EventRow) {
        if !self.logged_events.insert(e.id) {
            return;
        }
        self.note_check(e);
        // A dataset removed elsewhere keeps its name in its lines, as one removed here does,
        // even when the window never had its row (added and removed between two looks).
        if let Some(removed) = crate::store::RemovedDataset::from_event(e)
            && self.row(removed.id).is_none()
        {
            self.removed_names.entry(removed.id).or_insert(removed.name);
        }
        if e.kind == EventKind::Published {
            self.note_published(e);
        }
        // The open details list each deposit's events: one logged since (a check, say,
        // which leaves the job as it was, so nothing reloads them) joins its list.
        if let Some(details) = &mut self.details
            && let Some((_, events)) = details
                .jobs
                .iter_mut()
                .find(|(job, _)| Some(job.id) == e.job_id)
            && events.last().is_none_or(|last| last.id < e.id)
        {
            events.push(e.clone());
        }
        // A pause arrives with its reason from the store (`Update::TargetPaused`). Lifted
        // by another machine on a shared store, it was that machine's pause, not this one's.
        if let (EventKind::Resumed, Some(target)) = (e.kind, &e.target)
            && (self.actor.is_empty() || e.actor == self.actor)
            && self.paused_targets.remove(target).is_some()
        {
            self.version += 1;
        }
        let mut text = self.readable(&e.message);
        // With more than one target, a deposit's line says which (each may mint the same
        // `sbx-000001`), unless its words name it already.
        if let Some(scope) = e.target.as_deref().filter(|_| self.targets.len() > 1) {
            let label = self.target_label(scope);
            let short = label.split(" — ").next().unwrap_or(label);
            if !text.contains(short) && !text.contains(scope) {
                text = format!("{short}: {text}");
            }
        }
        if !self.actor.is_empty() && e.actor != self.actor {
            // Another machine (or user) on a shared store: say who.
            text = format!("{} — {text}", e.actor);
        }
        self.push_line(LogLine {
            at: e.at,
            level: LogLevel::of(e.kind),
            dataset: e.dataset_id,
            kind: e.kind.as_str(),
            text,
        });
    }

    fn push_app_log(&mut self, level: LogLevel, text: &str) {
        self.push_line(LogLine {
            at: crate::store::now_ms(),
            level,
            dataset: None,
            kind: "app",
            text: text.to_string(),
        });
    }

    /// Keep the log in time order: events reach the window by two roads (its own engine
    /// reports them at once, the store's log is read twice a second), so one written
    /// earlier can arrive after one written later. Equal times keep their arrival order.
    fn push_line(&mut self, line: LogLine) {
        if self.log.len() == LOG_CAPACITY {
            self.log.pop_front();
        }
        let at = self
            .log
            .iter()
            .rposition(|l| l.at <= line.at)
            .map_or(0, |i| i + 1);
        self.log.insert(at, line);
        self.log_version += 1;
    }
}

/// Whether a job's recorded error says a file in the folder at `root` changed since the
/// scan ([`Failure::Changed`](crate::targets::Failure::Changed) names the file); not the
/// folder itself gone or unreadable, which is said as the folder.
fn a_file_changed(recorded_error: &str, root: &str) -> bool {
    crate::targets::is_changed_since_scan(recorded_error)
        && recorded_error
            .split_once(": ")
            .and_then(|(_, rest)| rest.strip_prefix(root))
            .is_some_and(|rest| rest.starts_with(std::path::MAIN_SEPARATOR))
}

/// Whether `new` is a later version than `old` of the latest job for a dataset and target.
///
/// A job's rows arrive from the engine and from commands' own reads, in no set order, and a
/// replay can commit within the millisecond of the enqueue before it. On equal times the
/// fence (moved by every claim and replay) decides, then a claim's `running` comes before
/// whatever that claim ended in.
fn supersedes(new: &JobRow, old: &JobRow) -> bool {
    if new.id != old.id {
        return new.id > old.id;
    }
    let version = |j: &JobRow| (j.updated_at, j.fence, j.state != JobState::Running);
    version(old) <= version(new)
}

/// `text` with each `id` that is not the beginning of a longer id replaced by `with`: what
/// follows it is the end, a space, or punctuation that ends a phrase.
fn replace_whole(text: &str, id: &str, with: &str) -> String {
    if id.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(id) {
        let after = &rest[at + id.len()..];
        let mut next = after.chars();
        let ends = match next.next() {
            None => true,
            Some(c) if c.is_whitespace() || ",;:)]'\"".contains(c) => true,
            // A sentence's full stop, not a host name's or a file's dot.
            Some('.') => next.next().is_none_or(char::is_whitespace),
            Some(_) => false,
        };
        out.push_str(&rest[..at]);
        out.push_str(if ends { with } else { id });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dataset added and removed in a terminal between two of the window's looks at the
    /// store never had a row here: its removal's event names it, and its lines keep that.
    #[test]
    fn a_dataset_removed_before_the_window_had_its_row_is_named_by_its_removal() {
        let mut model = Model::default();
        let removed = EventRow {
            job_id: None,
            dataset_id: Some(4),
            message: "removed ds004 (/data/ds004) from the list; what it deposited stays".into(),
            ..EventRow::for_tests(9, EventKind::Removed)
        };
        model.apply(Update::DatasetRemoved(4));
        model.apply(Update::Logged(vec![removed]));
        assert_eq!(model.dataset_name(4).as_deref(), Some("ds004 (removed)"));
        // A job's event of another kind names no dataset removed.
        let other = EventRow {
            dataset_id: Some(5),
            ..EventRow::for_tests(10, EventKind::Created)
        };
        model.apply(Update::Logged(vec![other]));
        assert_eq!(model.dataset_name(5), None);
    }

    /// A picker's target at `scope` labelled `label — scope`, which can do nothing beyond
    /// depositing.
    fn target(scope: &str, label: &str) -> TargetInfo {
        TargetInfo {
            scope_id: scope.into(),
            label: format!("{label} — {scope}"),
            puts_back_files: false,
            repairs_sizes: false,
            repairs_records: false,
            keeps_files: false,
            makes_drafts: false,
            datasets_base: None,
        }
    }

    #[test]
    fn a_scope_id_that_begins_another_names_neither_in_the_others_place() {
        let drafts = "datacite+http://127.0.0.1:8080/10.80000";
        let model = Model {
            targets: vec![
                target(drafts, "dois-draft"),
                target(&format!("{drafts}?state=publish"), "dois-publish"),
                target("webdav+http://h/lab", "lab"),
            ],
            ..Model::default()
        };
        assert_eq!(
            model.readable(&format!("queued for {drafts}?state=publish")),
            "queued for dois-publish"
        );
        assert_eq!(
            model.readable(&format!("attempt 1 of 8 to {drafts}: sent. Also {drafts}.")),
            "attempt 1 of 8 to dois-draft: sent. Also dois-draft."
        );
        // A folder inside a named one that is not a target itself keeps its address.
        assert_eq!(
            model.readable("stored in webdav+http://h/lab/sub, not webdav+http://h/lab"),
            "stored in webdav+http://h/lab/sub, not lab"
        );
    }

    /// With more than one target, a deposit's log line names its target (each may mint
    /// `sbx-000001`), unless its words name it; with one, nothing is added.
    #[test]
    fn a_deposits_log_line_names_its_target_when_there_is_more_than_one() {
        let event = |id: i64, scope: &str, message: &str| EventRow {
            target: Some(scope.into()),
            ..EventRow::for_tests_saying(id, EventKind::Created, message)
        };
        let mut model = Model {
            targets: vec![target("sandbox+http://a:1", "Local sandbox")],
            ..Model::default()
        };
        model.apply(Update::Logged(vec![event(
            1,
            "sandbox+http://a:1",
            "created sbx-000001",
        )]));
        assert_eq!(model.log.back().unwrap().text, "created sbx-000001");
        model.targets.push(target("sandbox+http://b:2", "lab"));
        model.apply(Update::Logged(vec![
            event(2, "sandbox+http://b:2", "created sbx-000001"),
            event(3, "sandbox+http://b:2", "queued for sandbox+http://b:2"),
        ]));
        let said: Vec<&str> = model.log.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            said,
            [
                "created sbx-000001",
                "lab: created sbx-000001",
                "queued for lab"
            ]
        );
    }

    fn job(state: JobState, fence: i64, updated_at: i64) -> JobRow {
        JobRow {
            key: "ab".repeat(32).parse().unwrap(),
            attempts: 0,
            attempts_before: 0,
            fence,
            updated_at,
            ..JobRow::for_tests(7, state)
        }
    }

    /// A row with key `key` (64 hex of one digit) and fingerprint `fingerprint`.
    fn row(id: i64, key: char, fingerprint: &str) -> DatasetEntry {
        DatasetEntry::from_summary(DatasetSummary {
            id,
            path: format!("/data/ds{id}"),
            name: format!("ds{id}"),
            metadata: Metadata::default(),
            key: Some(key.to_string().repeat(64).parse().unwrap()),
            fingerprint: Some(fingerprint.into()),
            file_count: 1,
            total_bytes: 1,
        })
    }

    /// What the remove confirmation lists of a dataset: its latest deposit on a target, then
    /// what else there removing touches, newest first: a deposit still on the queue, and
    /// the record an earlier key made (once a key: the newest, a replay's); not a failed
    /// deposit of an earlier key. The list follows the deposits as they change.
    #[test]
    fn a_removal_lists_the_latest_deposit_then_an_earlier_keys_queued_job_and_record() {
        let mut model = Model::default();
        model.insert(row(1, 'c', "f"));
        let of = |id, state, key: char| JobRow {
            key: key.to_string().repeat(64).parse().unwrap(),
            ..JobRow::for_tests(id, state)
        };
        let record = |id, state, key| JobRow {
            identifier: Some("rec-a".into()),
            ..of(id, state, key)
        };
        let jobs = vec![
            of(5, JobState::Queued, 'c'),
            of(4, JobState::Queued, 'b'),
            of(3, JobState::Failed, 'b'),
            record(2, JobState::Existing, 'a'),
            record(1, JobState::Deposited, 'a'),
        ];
        model.apply(Update::Jobs(jobs.iter().rev().cloned().collect()));
        assert!(model.removal_deposits(1).is_none(), "its jobs not read yet");
        model.apply(Update::DatasetJobs(DatasetJobs {
            dataset: 1,
            jobs: Ok(jobs),
        }));
        let listed = |model: &Model| -> Vec<i64> {
            let deposits = model.removal_deposits(1).expect("read");
            deposits.jobs.iter().map(|j| j.id).collect()
        };
        assert_eq!(listed(&model), [5, 4, 2]);

        // The earlier key's deposit reached: refused (its key changed), it leaves the list.
        model.apply(Update::Jobs(vec![of(4, JobState::Rejected, 'b')]));
        assert_eq!(listed(&model), [5, 2]);
    }

    #[test]
    fn closing_would_cut_short_only_this_processs_deposits_and_the_folders_hashing() {
        let mut model = Model::default();
        assert!(model.work_in_hand().is_empty());
        let running = |owner: String| JobRow {
            lease_owner: Some(owner),
            ..job(JobState::Running, 1, 1)
        };
        let mut ours = row(1, 'a', "f");
        ours.jobs
            .insert("t".into(), running(crate::engine::lease_owner()));
        // A terminal's `lodge deposit` on this machine goes on whatever the window does.
        let mut theirs = row(2, 'b', "g");
        theirs.jobs.insert(
            "t".into(),
            running(format!("{}/1/0", crate::store::this_host())),
        );
        let mut hashing = row(3, 'c', "h");
        hashing.hashing = Some((1, 2));
        for r in [ours, theirs, hashing] {
            model.insert(r);
        }
        assert_eq!(
            model.work_in_hand(),
            WorkInHand {
                sending: 1,
                hashing: 1,
                ..WorkInHand::default()
            }
        );
    }

    #[test]
    fn closing_would_leave_unsent_what_the_window_sends_next_but_not_what_waits_on_a_pause() {
        let target = |scope: &str| TargetInfo {
            scope_id: scope.into(),
            label: scope.into(),
            puts_back_files: false,
            repairs_sizes: false,
            repairs_records: false,
            keeps_files: false,
            makes_drafts: false,
            datasets_base: None,
        };
        let mut model = Model {
            targets: vec![target("t"), target("held")],
            engine_running: true,
            ..Model::default()
        };
        model
            .paused_targets
            .insert("held".into(), "token refused".into());
        let mut queued = row(1, 'a', "f");
        queued.jobs.insert("t".into(), job(JobState::Queued, 1, 1));
        // Queued for a paused target, and for one this window does not have: it would
        // send neither.
        queued
            .jobs
            .insert("held".into(), job(JobState::Queued, 2, 1));
        queued
            .jobs
            .insert("gone".into(), job(JobState::Queued, 3, 1));
        let mut retrying = row(2, 'b', "g");
        retrying
            .jobs
            .insert("t".into(), job(JobState::Waiting, 4, 2));
        let mut failed = row(3, 'c', "h");
        failed.jobs.insert("t".into(), job(JobState::Failed, 5, 3));
        // Another machine's dataset on a shared store: its folder is not here.
        let mut elsewhere = row(4, 'd', "i");
        elsewhere
            .jobs
            .insert("t".into(), job(JobState::Queued, 6, 4));
        for r in [queued, retrying, failed, elsewhere] {
            model.insert(r);
        }
        model.folders_gone.insert(4);
        assert_eq!(
            model.work_in_hand(),
            WorkInHand {
                waiting: 2,
                retrying: 1,
                ..WorkInHand::default()
            }
        );
        model.engine_running = false;
        assert!(
            model.work_in_hand().is_empty(),
            "paused: nothing would be sent"
        );
    }

    #[test]
    fn an_event_written_earlier_but_read_later_takes_its_place_in_the_log() {
        let mut model = Model::default();
        let event = |id: i64, at: i64, message: &str| EventRow {
            at,
            message: message.into(),
            ..EventRow::for_tests(id, EventKind::Attempt)
        };
        // The engine's own events come at once; the store's, read later, hold an earlier one.
        model.apply(Update::Logged(vec![event(2, 2_000, "created")]));
        model.apply(Update::Logged(vec![
            event(1, 1_000, "rescanned"),
            event(3, 2_000, "same time, arrived later"),
        ]));
        let texts: Vec<&str> = model.log.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["rescanned", "created", "same time, arrived later"]);
    }

    #[test]
    fn a_dataset_another_process_recorded_adds_a_row_and_leaves_the_windows_own_alone() {
        let summary = |id: i64, title: &str| DatasetSummary {
            id,
            path: format!("/data/ds{id}"),
            name: format!("ds{id}"),
            metadata: Metadata {
                title: title.into(),
                ..Metadata::default()
            },
            key: None,
            fingerprint: None,
            file_count: 1,
            total_bytes: 1,
        };
        let mut model = Model::default();
        model.insert(row(1, 'a', "f"));
        model.apply(Update::FoldersGone(vec![1]));
        // The window's own dataset, met again in the events of its deposit: as it was.
        model.apply(Update::DatasetFound(summary(1, "as stored")));
        assert!(model.folders_gone.contains(&1), "its folder is still gone");
        assert_eq!(model.row(1).unwrap().metadata.title, "");
        // Another process's: a new row.
        model.apply(Update::DatasetFound(summary(2, "from the terminal")));
        assert_eq!(model.row(2).unwrap().metadata.title, "from the terminal");
        assert_eq!(model.rows().len(), 2);
    }

    #[test]
    fn a_paused_target_says_to_fix_the_credentials_only_when_it_refused_them() {
        use crate::targets::Failure;
        let mut model = Model::default();
        let pause = |model: &mut Model, scope: &str, failure: Failure| {
            model.apply(Update::TargetPaused {
                scope: scope.into(),
                reason: Some(failure.to_string()),
            });
            model.notices.pop().expect("a notice of the pause").text
        };
        let refused = pause(
            &mut model,
            "webdav+http://127.0.0.1:1/lab",
            Failure::from_status(401, None, "bad password"),
        );
        assert!(
            refused.contains("fix the credentials in Settings"),
            "{refused}"
        );
        // A sandbox's token is not kept in Settings.
        let refused = pause(
            &mut model,
            "sandbox+http://127.0.0.1:1",
            Failure::from_status(401, None, "bad token"),
        );
        assert!(
            refused.contains("start Lodge with LODGE_TOKEN set"),
            "{refused}"
        );
        assert!(!refused.contains("in Settings"), "{refused}");
        let redirected = pause(
            &mut model,
            "sandbox+http://127.0.0.1:2",
            Failure::from_status(301, None, ""),
        );
        assert!(redirected.contains("redirect"), "{redirected}");
        assert!(!redirected.contains("credentials"), "{redirected}");
        assert!(redirected.contains("fix what it names"), "{redirected}");
        // A server's message that ends its sentence is not given a second full stop.
        let said = pause(
            &mut model,
            "invenio+http://127.0.0.1:3",
            Failure::from_status(401, None, "The server could not verify you."),
        );
        assert!(
            said.contains("could not verify you. Nothing more is sent there"),
            "{said}"
        );
    }

    #[test]
    fn a_deposits_latest_check_decides_whether_its_row_says_damaged() {
        let target = "sandbox+http://127.0.0.1:1";
        let key: ContentKey = "c".repeat(64).parse().unwrap();
        let check = |id: i64, kind, message: &str| EventRow {
            target: Some(target.into()),
            content_key: Some(key.to_hex()),
            message: message.into(),
            ..EventRow::for_tests(id, kind)
        };
        let landed = JobRow {
            key,
            dataset_id: Some(1),
            target: target.into(),
            identifier: Some("sbx-1".into()),
            ..job(JobState::Deposited, 1, 1000)
        };
        let damaged = DedupStatus::Damaged {
            identifier: "sbx-1".into(),
            url: None,
            finding: "a.csv is missing".into(),
        };
        let deposited = DedupStatus::Deposited {
            identifier: "sbx-1".into(),
            url: None,
            after_lost_answer: false,
        };
        // The window opens on a deposit whose latest check, older than the log's end it
        // reads, found a file missing.
        let mut model = Model::default();
        model.apply(Update::Started(Box::new(Startup {
            datasets: vec![DatasetSummary {
                id: 1,
                path: "/data/ds1".into(),
                name: "ds1".into(),
                metadata: Metadata::default(),
                key: Some(key),
                fingerprint: Some("g".into()),
                file_count: 1,
                total_bytes: 1,
            }],
            latest_jobs: vec![landed],
            checks: vec![check(
                5,
                EventKind::Damaged,
                "verify found: a.csv is missing",
            )],
            ..Startup::default()
        })));
        let status = |model: &Model| model.status(model.row(1).unwrap(), target);
        assert_eq!(status(&model), damaged);
        // An older check arriving late (another process's) changes nothing...
        model.apply(Update::Logged(vec![check(
            4,
            EventKind::Verified,
            "verified intact",
        )]));
        assert_eq!(status(&model), damaged);
        // ...a newer one that finds it whole clears it; on another target it counts not.
        let mut elsewhere = check(6, EventKind::Damaged, "verify found: b.csv is missing");
        elsewhere.target = Some("s3+http://127.0.0.1:2/b".into());
        model.apply(Update::Logged(vec![
            check(7, EventKind::Verified, "verified intact"),
            elsewhere,
        ]));
        assert_eq!(status(&model), deposited);
    }

    #[test]
    fn an_event_logged_for_a_deposit_in_the_open_details_joins_its_list_once() {
        let event = |id: i64, job: i64, kind| EventRow {
            job_id: Some(job),
            ..EventRow::for_tests(id, kind)
        };
        let mut model = Model::default();
        model.apply(Update::Details(Box::new(Details {
            dataset: 1,
            files: Vec::new(),
            left_out: Vec::new(),
            jobs: vec![(
                job(JobState::Deposited, 1, 1000),
                vec![event(3, 7, EventKind::Created)],
            )],
        })));
        // A check of job 7 (it leaves the job as it was); another job's event; the check
        // again, as the shared store's notices bring it a second time; an older event.
        model.apply(Update::Logged(vec![
            event(9, 7, EventKind::Verified),
            event(10, 8, EventKind::Created),
        ]));
        model.apply(Update::Logged(vec![event(9, 7, EventKind::Verified)]));
        model.apply(Update::Logged(vec![event(2, 7, EventKind::Attempt)]));
        let ids: Vec<i64> = model.details.as_ref().unwrap().jobs[0]
            .1
            .iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(ids, [3, 9]);
    }

    #[test]
    fn a_folder_change_found_before_a_rescan_that_finished_first_leaves_the_rescanned_row_alone() {
        use crate::app::update::FolderChanged;
        let target = "sandbox+http://127.0.0.1:1";
        let mut model = Model::default();
        model.insert(row(1, 'c', "g"));
        model.insert(row(2, 'd', "h"));
        let changed = |dataset, key: char| FolderChanged {
            dataset,
            key: Some(key.to_string().repeat(64).parse().unwrap()),
            what: "1 file modified".into(),
        };
        // The look saw ds1 under key a…a, before its Rescan re-keyed it c…c; ds2 as it is.
        model.apply(Update::FoldersChanged(vec![
            changed(1, 'a'),
            changed(2, 'd'),
        ]));
        let status = |model: &Model, id| model.status(model.row(id).unwrap(), target);
        assert!(
            !matches!(status(&model, 1), DedupStatus::ChangedSinceScan { .. }),
            "{:?}",
            status(&model, 1)
        );
        assert_eq!(
            status(&model, 2),
            DedupStatus::ChangedSinceScan {
                cause: "1 file modified".into()
            }
        );
        // The next look, with nothing changed, clears it.
        model.apply(Update::FoldersChanged(vec![]));
        assert!(!matches!(
            status(&model, 2),
            DedupStatus::ChangedSinceScan { .. }
        ));
    }

    #[test]
    fn a_dataset_drafted_on_a_site_and_changed_is_a_new_version_on_its_publishing_target_too() {
        let (drafts, publisher) = (
            "invenio+https://rdm.example.org:443?state=draft",
            "invenio+https://rdm.example.org:443",
        );
        let mut model = Model::default();
        model.insert(row(1, 'c', "g"));
        let drafted = JobRow {
            target: drafts.into(),
            key: "a".repeat(64).parse().unwrap(),
            identifier: Some("abcd-1234".into()),
            ..job(JobState::Deposited, 1, 1000)
        };
        model.job_changed(drafted);
        let new_version = DedupStatus::NewVersion {
            identifier: "abcd-1234".into(),
            url: None,
        };
        let row = model.row(1).unwrap();
        assert_eq!(model.status(row, drafts), new_version);
        assert_eq!(
            model.status(row, publisher),
            new_version,
            "one work's versions"
        );
        assert!(matches!(
            model.status(row, "invenio+https://other.example.org:443"),
            DedupStatus::New { .. }
        ));
    }

    #[test]
    fn a_deposit_made_before_a_rescan_with_other_files_makes_a_new_version_not_the_same_data() {
        let target = "sandbox+http://127.0.0.1:1";
        let mut model = Model::default();
        // ds1 was deposited under key a…a, then rescanned with another file: key c…c, data g.
        model.insert(row(1, 'c', "g"));
        // ds2 holds what ds1 held then (data f) under other metadata.
        model.insert(row(2, 'b', "f"));
        let mut landed = job(JobState::Deposited, 1, 1000);
        landed.key = "a".repeat(64).parse().unwrap();
        landed.identifier = Some("sbx-000001".into());
        model.job_changed(landed);
        // ds1 is a new version of what it deposited; ds2's data is not ds1's new data.
        assert_eq!(
            model.status(model.row(1).unwrap(), target),
            DedupStatus::NewVersion {
                identifier: "sbx-000001".into(),
                url: None
            }
        );
        assert!(
            matches!(
                model.status(model.row(2).unwrap(), target),
                DedupStatus::New { .. }
            ),
            "{:?}",
            model.status(model.row(2).unwrap(), target)
        );
        // On another target ds1 was never deposited.
        assert!(matches!(
            model.status(model.row(1).unwrap(), "sandbox+http://127.0.0.1:2"),
            DedupStatus::New { .. }
        ));

        // A deposit of ds1's current key is its data's: a row with the same data says so.
        model.insert(row(3, 'd', "g"));
        let mut current = job(JobState::Deposited, 2, 2000);
        current.id = 8;
        current.key = "c".repeat(64).parse().unwrap();
        current.identifier = Some("sbx-000002".into());
        model.job_changed(current);
        assert_eq!(
            model.status(model.row(3).unwrap(), target),
            DedupStatus::SameDataAsAnother {
                identifier: "sbx-000002".into(),
                url: None
            }
        );
        // On another target, where that data has no record, a deposit would be its first.
        assert!(matches!(
            model.status(model.row(3).unwrap(), "sandbox+http://127.0.0.1:2"),
            DedupStatus::New { .. }
        ));
    }

    fn already_deposited_as(identifier: &str) -> DedupStatus {
        DedupStatus::AlreadyDeposited {
            identifier: identifier.into(),
            url: None,
        }
    }

    #[test]
    fn a_job_handed_to_a_copy_moves_to_the_copys_row_and_the_first_row_reads_deposited() {
        let target = "sandbox+http://127.0.0.1:1";
        let mut model = Model::default();
        // ds1's folder was moved to where ds2 was added: one key, one data.
        model.insert(row(1, 'a', "f"));
        model.insert(row(2, 'a', "f"));
        let mut queued = job(JobState::Queued, 0, 1000);
        queued.key = "a".repeat(64).parse().unwrap();
        model.job_changed(queued.clone());
        assert!(model.status(model.row(1).unwrap(), target).is_busy());

        // The engine hands the job to ds2, whose folder is there.
        let running = JobRow {
            dataset_id: Some(2),
            state: JobState::Running,
            fence: 1,
            updated_at: 2000,
            ..queued
        };
        model.job_changed(running.clone());
        let first = model.row(1).unwrap();
        assert!(first.jobs.is_empty(), "the job left ds1's row");
        // Still the deposit of ds1's key too: it reads as ds2's job, shared.
        assert_eq!(
            model
                .copy_deposit(first, target)
                .map(|(copy, job)| (copy.id, job.id)),
            Some((2, running.id))
        );
        assert!(model.status(first, target).is_busy());
        assert!(model.status(model.row(2).unwrap(), target).is_busy());

        let landed = JobRow {
            state: JobState::Deposited,
            identifier: Some("sbx-000001".into()),
            updated_at: 3000,
            ..running
        };
        model.job_changed(landed);
        assert_eq!(
            model.status(model.row(1).unwrap(), target),
            already_deposited_as("sbx-000001")
        );
    }

    #[test]
    fn a_refused_deposit_gives_way_to_its_key_landing_since_through_a_copy() {
        let target = "sandbox+http://127.0.0.1:1";
        let mut model = Model::default();
        model.insert(row(1, 'a', "f"));
        model.insert(row(2, 'a', "f"));
        let mut refused = job(JobState::Rejected, 1, 1000);
        refused.key = "a".repeat(64).parse().unwrap();
        refused.last_error = Some("changed since scan: the folder is gone".into());
        model.job_changed(refused.clone());
        assert!(!matches!(
            model.status(model.row(1).unwrap(), target),
            DedupStatus::AlreadyDeposited { .. }
        ));

        let landed = JobRow {
            id: 8,
            dataset_id: Some(2),
            state: JobState::Deposited,
            identifier: Some("sbx-000001".into()),
            updated_at: 2000,
            ..refused
        };
        model.job_changed(landed);
        assert_eq!(
            model.status(model.row(1).unwrap(), target),
            already_deposited_as("sbx-000001")
        );
    }

    #[test]
    fn a_copy_reads_as_the_deposit_its_twin_queued_for_both_until_it_lands() {
        let target = "sandbox+http://127.0.0.1:1";
        let mut model = Model::default();
        model.insert(row(1, 'a', "f"));
        model.insert(row(2, 'a', "f"));
        model.insert(row(3, 'b', "g"));
        let queued = JobRow {
            key: "a".repeat(64).parse().unwrap(),
            ..job(JobState::Queued, 1, 1000)
        };
        model.job_changed(queued.clone());
        let copy = model.row(2).unwrap();
        // (Paused: no engine runs in this model.)
        assert_eq!(
            model.status(copy, target),
            DedupStatus::Queued { paused: true }
        );
        let (holder, shared) = model.copy_deposit(copy, target).unwrap();
        assert_eq!((holder.id, shared.id), (1, 7));
        assert_eq!(model.copy_deposit(model.row(1).unwrap(), target), None);
        assert_eq!(model.deposit_job(copy, target).map(|j| j.id), Some(7));
        assert!(matches!(
            model.status(model.row(3).unwrap(), target),
            DedupStatus::New { .. }
        ));
        assert!(matches!(
            model.status(copy, "sandbox+http://127.0.0.1:2"),
            DedupStatus::New { .. }
        ));

        let failed = JobRow {
            state: JobState::Failed,
            last_error: Some("gave up after 8 attempts".into()),
            updated_at: 2000,
            ..queued.clone()
        };
        model.job_changed(failed);
        let copy = model.row(2).unwrap();
        assert_eq!(
            model.status(copy, target),
            DedupStatus::Failed {
                cause: "gave up after 8 attempts".into()
            }
        );
        assert_eq!(model.deposit_job(copy, target).map(|j| j.id), Some(7));

        let landed = JobRow {
            state: JobState::Deposited,
            identifier: Some("sbx-000001".into()),
            updated_at: 3000,
            ..queued
        };
        model.job_changed(landed);
        let copy = model.row(2).unwrap();
        assert_eq!(
            model.status(copy, target),
            already_deposited_as("sbx-000001")
        );
        assert_eq!(model.copy_deposit(copy, target), None);
        assert_eq!(model.deposit_job(copy, target), None);
    }

    #[test]
    fn a_draft_is_called_one_until_a_deposit_to_its_sites_publishing_target_lands_it() {
        let drafts = "invenio+https://rdm.example.org?state=draft";
        let mut model = Model::default();
        model.insert(row(1, 'a', "f"));
        let drafted = JobRow {
            target: drafts.into(),
            key: "a".repeat(64).parse().unwrap(),
            identifier: Some("abcd-1234".into()),
            ..job(JobState::Deposited, 1, 1000)
        };
        model.job_changed(drafted.clone());
        assert!(model.is_draft(drafts, Some("abcd-1234")));
        let published = JobRow {
            id: 8,
            target: "invenio+https://rdm.example.org".into(),
            updated_at: 2000,
            ..drafted
        };
        model.job_changed(published);
        assert!(!model.is_draft(drafts, Some("abcd-1234")));
    }

    #[test]
    fn a_draft_a_check_found_published_on_the_sites_pages_is_no_draft() {
        let drafts = "invenio+https://rdm.example.org?state=draft";
        let mut model = Model::default();
        model.insert(row(1, 'a', "f"));
        model.job_changed(JobRow {
            target: drafts.into(),
            key: "a".repeat(64).parse().unwrap(),
            identifier: Some("abcd-1234".into()),
            ..job(JobState::Deposited, 1, 1000)
        });
        assert!(model.is_draft(drafts, Some("abcd-1234")));
        let found = EventRow {
            target: Some(drafts.into()),
            ..EventRow::for_tests(20, EventKind::Published)
        };
        model.apply(Update::Logged(vec![found]));
        assert!(!model.is_draft(drafts, Some("abcd-1234")));
        // Its row opens the record's public page, not the draft's.
        assert_eq!(
            model.status(model.row(1).unwrap(), drafts).record_url(),
            Some("https://rdm.example.org/records/abcd-1234")
        );
    }

    #[test]
    fn a_file_one_targets_deposit_found_changed_shows_changed_on_every_target() {
        let (here, there) = ("sandbox+http://127.0.0.1:1", "sandbox+http://127.0.0.1:2");
        let mut model = Model::default();
        model.insert(row(1, 'a', "f"));
        let mut refused = job(JobState::Rejected, 1, 1000);
        refused.key = "a".repeat(64).parse().unwrap();
        refused.target = here.into();
        refused.last_error =
            Some("changed since scan: /data/ds1/values.csv: modified since it was scanned".into());
        model.job_changed(refused.clone());
        for target in [here, there] {
            assert!(
                matches!(
                    model.status(model.row(1).unwrap(), target),
                    DedupStatus::ChangedSinceScan { .. }
                ),
                "{target}"
            );
        }

        // The folder gone is not a change of its files: said as the folder, where known.
        let mut model = Model::default();
        model.insert(row(1, 'a', "f"));
        refused.last_error = Some(
            "changed since scan: /data/ds1: the dataset's folder is gone (moved or deleted \
             since it was scanned)"
                .into(),
        );
        model.job_changed(refused);
        assert!(matches!(
            model.status(model.row(1).unwrap(), there),
            DedupStatus::New { .. }
        ));
    }

    #[test]
    fn a_queued_snapshot_from_the_same_millisecond_does_not_hide_the_replay_after_it() {
        let replayed = job(JobState::Existing, 1, 1000);
        let queued = job(JobState::Queued, 0, 1000);
        assert!(!supersedes(&queued, &replayed));
        assert!(supersedes(&replayed, &queued));
    }

    #[test]
    fn within_one_claim_its_outcome_follows_running_even_in_the_same_millisecond() {
        let running = job(JobState::Running, 3, 1000);
        let deposited = job(JobState::Deposited, 3, 1000);
        assert!(supersedes(&deposited, &running));
        assert!(!supersedes(&running, &deposited));
    }

    #[test]
    fn a_later_time_or_a_newer_job_wins() {
        assert!(supersedes(
            &job(JobState::Queued, 3, 2000),
            &job(JobState::Failed, 3, 1000)
        ));
        let mut newer_job = job(JobState::Queued, 0, 1);
        newer_job.id = 8;
        assert!(supersedes(&newer_job, &job(JobState::Failed, 5, 9000)));
    }
}
