//! The durable job queue: enqueueing, claiming with leases and fencing tokens, and
//! recording each job's outcome together with its result and its event (and, for refused
//! credentials, its target's pause, in the same transaction). Targets' own rows are read
//! and resumed in `targets.rs`.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use super::datasets::{AttemptInput, attempt_input_from};
use super::events::insert_event;
use super::sql::{Db, Row, args};
use super::{
    EventKind, EventRow, NewEvent, OPERATION_DEPOSIT, Result, Store, StoreError, ms, now_ms,
};
use crate::content::ContentKey;
use crate::targets::RecordRef;

/// Where a job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Queued,
    Running,
    /// A retry is scheduled for `not_before`.
    Waiting,
    /// This job's write created the record.
    Deposited,
    /// The record already existed (replay from the store, or the server said so).
    Existing,
    /// Retries exhausted (dead letter): `retry` re-queues it with the same key.
    Failed,
    /// Refused for good (validation, changed since scan, conflict).
    Rejected,
}

impl JobState {
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Waiting => "waiting",
            JobState::Deposited => "deposited",
            JobState::Existing => "existing",
            JobState::Failed => "failed",
            JobState::Rejected => "rejected",
        }
    }

    pub fn parse(s: &str) -> Option<JobState> {
        use JobState::*;
        [
            Queued, Running, Waiting, Deposited, Existing, Failed, Rejected,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }

    /// No worker will touch the job again unless a person re-queues it.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            JobState::Deposited | JobState::Existing | JobState::Failed | JobState::Rejected
        )
    }

    /// The deposit took effect (created now or before).
    pub fn is_landed(self) -> bool {
        matches!(self, JobState::Deposited | JobState::Existing)
    }
}

/// A job as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct JobRow {
    pub id: i64,
    pub dataset_id: Option<i64>,
    /// Folder of the dataset on this machine, when the dataset is still known.
    pub dataset_path: Option<String>,
    pub dataset_name: Option<String>,
    pub target: String,
    pub operation: String,
    pub key: ContentKey,
    pub state: JobState,
    /// The attempts of this round: a `retry` starts the count again (each round has its
    /// own bound and deadline).
    pub attempts: u32,
    /// The attempts of the rounds before the latest `retry`.
    pub attempts_before: u32,
    pub not_before: i64,
    pub deadline: i64,
    pub lease_owner: Option<String>,
    pub lease_expires: Option<i64>,
    pub fence: i64,
    pub last_error: Option<String>,
    pub last_status: Option<u16>,
    pub identifier: Option<String>,
    pub url: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    /// When a person gave up on this failed or refused job (`lodge dismiss`, the window's
    /// Dismiss): it stays in the history, out of the status and `retry --all-failed`.
    pub dismissed_at: Option<i64>,
}

impl JobRow {
    /// Answered from the store with no request: it ended `existing` without an attempt.
    /// (The server's "exists" and a reconciliation's lookup both come after an attempt.)
    pub fn is_replay(&self) -> bool {
        self.state == JobState::Existing && self.attempts == 0
    }

    /// Every attempt it made, in all its rounds (those before a `retry` too).
    pub fn attempts_in_all(&self) -> u32 {
        self.attempts_before + self.attempts
    }
}

/// The message of attempt `n` at `target` of a job allowed `max` attempts by this run. An
/// attempt cut short by its process's stop (Ctrl-C, a kill) is not handed back, since its
/// request may have landed, and a run may allow fewer than the one before it: a job can
/// come to its claim past the count. It is tried once more all the same (a failure then
/// ends it), rather than said to be "attempt 2 of 1".
fn attempt_message(n: u32, max: u32, target: &str) -> String {
    match n <= max {
        true => format!("attempt {n} of {max} to {target}"),
        false => format!(
            "attempt {n} to {target}, past the {max} this run allows (the ones before it \
             were cut short when their process stopped, or made by a run that allowed more): \
             the last"
        ),
    }
}

#[cfg(test)]
impl JobRow {
    /// A job for unit tests: dataset 1, to a loopback sandbox, key a…a, one attempt,
    /// nothing recorded yet. Tests set what they are about.
    pub(crate) fn for_tests(id: i64, state: JobState) -> JobRow {
        JobRow {
            id,
            dataset_id: Some(1),
            dataset_path: None,
            dataset_name: None,
            target: "sandbox+http://127.0.0.1:1".into(),
            operation: OPERATION_DEPOSIT.into(),
            key: "a".repeat(64).parse().expect("64 hex characters"),
            state,
            attempts: 1,
            attempts_before: 0,
            not_before: 0,
            deadline: 0,
            lease_owner: None,
            lease_expires: None,
            fence: 1,
            last_error: None,
            last_status: None,
            identifier: None,
            url: None,
            created_at: 0,
            updated_at: 0,
            dismissed_at: None,
        }
    }
}

/// The replays among `jobs` (newest first, as [`Store::jobs_of_dataset`] lists them), by
/// the job each repeats: the newest earlier one in `jobs` that landed the same key on the
/// same target with the same identifier after an attempt. So a folder deposited every week
/// is listed as the deposit that made its record plus its replays, not a line a week. A
/// replay of a record no job in `jobs` made (another dataset's, with the same key) is in
/// no list.
pub fn replays_by_original(jobs: &[&JobRow]) -> HashMap<i64, Vec<i64>> {
    let mut folded: HashMap<i64, Vec<i64>> = HashMap::new();
    for replay in jobs.iter().filter(|j| j.is_replay()) {
        let original = jobs.iter().find(|o| {
            o.id < replay.id
                && o.state.is_landed()
                && !o.is_replay()
                && o.target == replay.target
                && o.key == replay.key
                && o.identifier == replay.identifier
        });
        if let Some(original) = original {
            folded.entry(original.id).or_default().push(replay.id);
        }
    }
    folded
}

/// Another dataset with a job's key, added on this machine: the same files and metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyCopy {
    pub dataset_id: i64,
    pub name: String,
    /// Its folder, as it was added.
    pub path: String,
}

/// A claimed job: only the holder of the current fence may record its outcome.
#[derive(Clone, Debug)]
pub struct Lease {
    pub job: JobRow,
    pub fence: i64,
    pub owner: String,
    pub expires_at: i64,
}

/// Which jobs a worker may claim.
#[derive(Clone, Debug, Default)]
pub struct ClaimFilter {
    /// Only jobs for these targets (the ones this worker can reach).
    pub targets: Vec<String>,
    /// Only these jobs (a command-line batch); `None` for any. Shared: every claim of a
    /// batch carries the filter, and a batch can hold thousands of jobs.
    pub job_ids: Option<Arc<HashSet<i64>>>,
    /// Jobs this worker gave back because it cannot do them (their folder is on another
    /// machine): left for others.
    pub skip: HashSet<i64>,
}

/// Whether `enqueue_deposit` made a new job, joined one already on the queue, or found the
/// scope's result recorded and so ended its new job as a replay at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    New(i64),
    AlreadyQueued(i64),
    /// The key landed on the target before: the job is recorded as a replay (nothing sent)
    /// in the same transaction, never queued behind the deposits that do send something.
    Replayed(i64),
}

impl Enqueued {
    pub fn job_id(self) -> i64 {
        match self {
            Enqueued::New(id) | Enqueued::AlreadyQueued(id) | Enqueued::Replayed(id) => id,
        }
    }
}

/// How a claimed job ends this round. Each is recorded with one event, atomically.
#[derive(Clone, Debug)]
pub enum Finish {
    /// The server confirmed the write: it created the record (`created`) or the record was
    /// there already. The result is inserted if the scope has none; the winner is returned.
    Landed {
        record: RecordRef,
        created: bool,
        kind: EventKind,
        message: String,
        http_status: Option<u16>,
    },
    /// Try again at `not_before`.
    Retry {
        not_before: i64,
        delay: Duration,
        error: String,
        http_status: Option<u16>,
    },
    /// Dead letter: retries or time exhausted.
    Failed {
        error: String,
        http_status: Option<u16>,
    },
    /// Terminal refusal.
    Rejected {
        error: String,
        http_status: Option<u16>,
    },
    /// The target refused the credentials: pause it, put the job back on the queue.
    PauseTarget {
        error: String,
        http_status: Option<u16>,
    },
    /// Give the job back (shutdown, or a job this worker cannot do), to be claimable again
    /// at `not_before` (unix ms; `None` for now). Unless `attempt_made` (a request may have
    /// left), the claim's attempt is given back too.
    Release {
        message: String,
        not_before: Option<i64>,
        attempt_made: bool,
    },
    /// Give the job back because this machine cannot read the dataset's folder (a shared
    /// store; the folder is on the machine that added it). No attempt is counted; the event
    /// is [`EventKind::LeftForOthers`].
    LeaveForOthers { message: String },
}

pub(super) const JOB_COLUMNS: &str = "j.id, j.dataset_id, d.path, d.name, j.target, j.operation, \
    j.content_key, j.state, j.attempts, j.not_before, j.deadline, j.lease_owner, \
    j.lease_expires, j.fence, j.last_error, j.last_status, j.identifier, j.url, \
    j.created_at, j.updated_at, j.dismissed_at, j.attempts_before";

/// How many columns [`JOB_COLUMNS`] reads: a statement's own columns after them start here.
const JOB_COLUMN_COUNT: usize = 22;

pub(super) fn job_from_row(r: &Row<'_, '_>) -> Result<JobRow> {
    let key: String = r.get(6)?;
    let state: String = r.get(7)?;
    let bad = |what: &str, text: &str| StoreError::Corrupt(format!("{what} '{text}'"));
    Ok(JobRow {
        id: r.get(0)?,
        dataset_id: r.get(1)?,
        dataset_path: r.get(2)?,
        dataset_name: r.get(3)?,
        target: r.get(4)?,
        operation: r.get(5)?,
        key: key.parse().map_err(|_| bad("content key", &key))?,
        state: JobState::parse(&state).ok_or_else(|| bad("job state", &state))?,
        attempts: r.get(8)?,
        not_before: r.get(9)?,
        deadline: r.get(10)?,
        lease_owner: r.get(11)?,
        lease_expires: r.get(12)?,
        fence: r.get(13)?,
        last_error: r.get(14)?,
        last_status: r.get(15)?,
        identifier: r.get(16)?,
        url: r.get(17)?,
        created_at: r.get(18)?,
        updated_at: r.get(19)?,
        dismissed_at: r.get(20)?,
        attempts_before: r.get(21)?,
    })
}

/// One job by id, as [`job_from_row`] reads it.
static LOAD_JOB: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {JOB_COLUMNS} FROM jobs j LEFT JOIN datasets d ON d.id = j.dataset_id
         WHERE j.id = ?1"
    )
});

/// The jobs with ids from `?1` to `?2`, by id, as [`job_from_row`] reads them.
static LOAD_JOBS_BETWEEN: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {JOB_COLUMNS} FROM jobs j LEFT JOIN datasets d ON d.id = j.dataset_id
         WHERE j.id BETWEEN ?1 AND ?2 ORDER BY j.id"
    )
});

fn load_job(db: Db<'_>, id: i64) -> Result<Option<JobRow>> {
    db.opt(&LOAD_JOB, args![id], job_from_row)
}

/// A job just claimed, read back with what its attempt needs: the job (as [`load_job`]
/// reads it), its dataset's current key and origin and the key's document in one
/// statement, then the files of the dataset's last scan.
static LOAD_CLAIMED: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {JOB_COLUMNS}, d.content_key, d.origin, doc.document
         FROM jobs j LEFT JOIN datasets d ON d.id = j.dataset_id
         LEFT JOIN documents doc ON doc.content_key = j.content_key
         WHERE j.id = ?1"
    )
});

fn load_claimed(db: Db<'_>, id: i64) -> Result<(JobRow, AttemptInput)> {
    let (job, dataset_key, origin, document) = db
        .opt(&LOAD_CLAIMED, args![id], |r| {
            let job = job_from_row(r)?;
            let (key, origin, document): (Option<String>, Option<String>, Option<String>) = (
                r.get(JOB_COLUMN_COUNT)?,
                r.get(JOB_COLUMN_COUNT + 1)?,
                r.get(JOB_COLUMN_COUNT + 2)?,
            );
            Ok((job, key, origin, document))
        })?
        .ok_or(StoreError::NoSuchJob(id))?;
    let input = match job.dataset_id {
        Some(dataset) => attempt_input_from(db, dataset, &job.key, document, dataset_key, origin)?,
        None => AttemptInput {
            document: None,
            dataset_key: None,
            origin: None,
            files: Vec::new(),
        },
    };
    Ok((job, input))
}

/// The dataset `job` deposited: its own, or for a removed dataset's job (whose id the job
/// no longer keeps) the one its log names, so that what is logged of it later (a check, a
/// repair) is still under the dataset's name ("soil-cores (removed)") and its `--dataset`.
fn dataset_of_job(db: Db<'_>, job: &JobRow) -> Result<Option<i64>> {
    if job.dataset_id.is_some() {
        return Ok(job.dataset_id);
    }
    db.opt(
        "SELECT dataset_id FROM events WHERE job_id = ?1 AND dataset_id IS NOT NULL
         ORDER BY id LIMIT 1",
        args![job.id],
        |r| r.get::<i64>(0),
    )
}

fn job_event(job: &JobRow, kind: EventKind, message: String) -> NewEvent {
    scope_event(
        job.id,
        job.dataset_id,
        &job.target,
        &job.key,
        job.attempts,
        kind,
        message,
    )
}

/// An event about job `job_id` of (`target`, `key`), at attempt `attempt`: what
/// [`job_event`] says of a job, for one not read back (a job just queued).
fn scope_event(
    job_id: i64,
    dataset_id: Option<i64>,
    target: &str,
    key: &ContentKey,
    attempt: u32,
    kind: EventKind,
    message: String,
) -> NewEvent {
    NewEvent {
        job_id: Some(job_id),
        dataset_id,
        target: Some(target.to_string()),
        content_key: Some(key.to_hex()),
        kind: Some(kind),
        attempt: Some(attempt),
        message,
        ..NewEvent::default()
    }
}

/// What a finish writes after its job's fenced change.
enum Then {
    Nothing,
    /// A landing: the scope's result.
    RecordResult {
        record: RecordRef,
        outcome: &'static str,
    },
    /// Credentials refused: the target pauses until the user acts.
    PauseTarget {
        error: String,
    },
}

/// How a finish changes its job ([`JobChange::apply`]).
struct JobChange {
    state: JobState,
    /// When the job is due next; `None` leaves it (an ended job is never due).
    due_at: Option<i64>,
    /// The scope's result after a landing: identifier and URL. `None` leaves them.
    landed_as: Option<(String, Option<String>)>,
    /// The last error and HTTP status to show; `None` keeps them (a release).
    error: Option<(Option<String>, Option<u16>)>,
    /// A release of an attempt that never started gives its count back.
    attempt_not_made: bool,
}

impl JobChange {
    /// The job ends this round in `state` (or waits, or is queued) with this error.
    fn ended(state: JobState, error: Option<String>, http_status: Option<u16>) -> JobChange {
        JobChange {
            state,
            due_at: None,
            landed_as: None,
            error: Some((error, http_status)),
            attempt_not_made: false,
        }
    }

    /// Release `lease`'s hold and make the change, if the lease still holds the job (its
    /// fence, and the job still running); `None` if it does not, and nothing was changed.
    /// Returns the job as it now stands, worked out from the claim's copy rather than read
    /// back ([`JobChange::applied_to`]).
    fn apply(&self, db: Db<'_>, lease: &Lease, now: i64) -> Result<Option<JobRow>> {
        let (identifier, url) = match &self.landed_as {
            Some((identifier, url)) => (Some(identifier), url.as_ref()),
            None => (None, None),
        };
        let (error, http_status) = match &self.error {
            Some((error, status)) => (error.as_ref(), *status),
            None => (None, None),
        };
        let changed = db.run(
            &FINISH_JOB,
            args![
                lease.job.id,
                self.state.as_str(),
                now,
                self.due_at,
                identifier,
                url,
                error,
                http_status,
                self.error.is_none(),
                self.attempt_not_made,
                self.state.is_terminal().then_some(now),
                lease.fence
            ],
        )?;
        Ok((changed == 1).then(|| self.applied_to(&lease.job, now)))
    }

    /// What [`OUTCOME_SET`] makes of `job`, the running job as its claim read it (the
    /// fence check guarantees nobody has changed it since, bar the lease's own renewals,
    /// which the outcome clears). The dataset's name and folder are as the claim read them.
    fn applied_to(&self, job: &JobRow, now: i64) -> JobRow {
        let mut after = job.clone();
        after.state = self.state;
        after.lease_owner = None;
        after.lease_expires = None;
        after.updated_at = now;
        if let (JobState::Waiting, Some(at)) = (self.state, self.due_at) {
            after.not_before = at;
        }
        if let Some((identifier, url)) = &self.landed_as {
            after.identifier = Some(identifier.clone());
            after.url = url.clone();
        }
        if let Some((error, status)) = &self.error {
            after.last_error = error.clone();
            after.last_status = *status;
        }
        if self.attempt_not_made && after.attempts > 0 {
            after.attempts -= 1;
        }
        after
    }
}

/// A claim's change to its job: running under a new lease and fence, one more attempt.
/// `?1` job, `?2` lease owner, `?3` lease expiry, `?4` now.
const CLAIM_SET: &str = "state = 'running', fence = fence + 1, attempts = attempts + 1,
     lease_owner = ?2, lease_expires = ?3, due_at = ?3, updated_at = ?4";

/// A claim that finds the scope's result already recorded closes the job as a replay.
/// `?1` job, `?2` identifier, `?3` URL, `?4` now.
const REPLAY_SET: &str = "state = 'existing', fence = fence + 1, lease_owner = NULL,
     lease_expires = NULL, identifier = ?2, url = ?3, last_error = NULL, updated_at = ?4,
     ended_at = ?4";

/// An outcome's change ([`JobChange`]): `?1` job, `?2` state, `?3` now, `?4` due time,
/// `?5`/`?6` identifier and URL of a landing, `?7`/`?8` error and HTTP status, `?9` keep
/// the error, `?10` give back an attempt that was not made, `?11` when the job ended
/// (NULL if it goes on). [`JobChange::apply`] adds `?12`, the lease's fence, to the `WHERE`.
const OUTCOME_SET: &str = "state = ?2, lease_owner = NULL, lease_expires = NULL, updated_at = ?3,
     ended_at = ?11,
     due_at = COALESCE(?4, due_at),
     not_before = CASE WHEN ?2 = 'waiting' THEN ?4 ELSE not_before END,
     identifier = COALESCE(?5, identifier),
     url = CASE WHEN ?5 IS NULL THEN url ELSE ?6 END,
     last_error = CASE WHEN ?9 = 1 THEN last_error ELSE ?7 END,
     last_status = CASE WHEN ?9 = 1 THEN last_status ELSE ?8 END,
     attempts = CASE WHEN ?10 = 1 AND attempts > 0 THEN attempts - 1 ELSE attempts END";

/// The statements that change a job, built once from the clauses above (formatting them
/// on every call showed in profiles). The job is read back, where needed, by its key:
/// SQLite's `RETURNING` buffers its rows in a temporary b-tree that every run creates and
/// tears down, which cost more than the read.
static CLAIM_JOB: LazyLock<String> =
    LazyLock::new(|| format!("UPDATE jobs SET {CLAIM_SET} WHERE id = ?1"));
static REPLAY_JOB: LazyLock<String> =
    LazyLock::new(|| format!("UPDATE jobs SET {REPLAY_SET} WHERE id = ?1"));
static FINISH_JOB: LazyLock<String> = LazyLock::new(|| {
    format!("UPDATE jobs SET {OUTCOME_SET} WHERE id = ?1 AND fence = ?12 AND state = 'running'")
});

/// What [`Store::cancel_jobs`] did with a job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cancel {
    /// Taken off the queue: now failed.
    Cancelled,
    /// Being deposited now, under a live lease held by `by`: left alone.
    BeingDeposited { by: String },
    /// It had already ended (deposited, existing, failed or rejected): left alone.
    Ended,
}

/// What [`Store::dismiss_jobs`] did with one job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dismiss {
    /// Given up on, with the `earlier` failed or refused jobs of the same deposit (its
    /// dataset to its target) that had not been.
    Dismissed { earlier: Vec<i64> },
    /// Given up on before: left as it is.
    AlreadyDismissed,
    /// Being deposited now, under a live lease held by `by`: left alone.
    BeingDeposited { by: String },
    /// Still to do (queued, waiting, or its lease ran out): left alone; `lodge cancel` ends
    /// it.
    StillToDo,
    /// It landed: there is nothing to give up on.
    Landed,
}

/// Whether a lease still holds its job, checked inside the transaction that would record.
enum FenceCheck {
    /// The fence only ever grows, so an equal fence and a running state mean nobody has
    /// claimed the job since.
    Holds,
    /// The same fence, but the job is no longer running: this lease's own outcome was
    /// committed already (a COMMIT whose answer was lost, then run again). Nobody else can
    /// change a job's state without moving its fence, except a person re-queueing it after
    /// that outcome.
    AlreadyRecorded,
}

fn check_fence(db: Db<'_>, lease: &Lease) -> Result<FenceCheck> {
    // On PostgreSQL the row lock also makes a concurrent claim of this job wait for us.
    let sql = if db.is_postgres() {
        "SELECT fence, state FROM jobs WHERE id = ?1 FOR UPDATE"
    } else {
        "SELECT fence, state FROM jobs WHERE id = ?1"
    };
    let current: Option<(i64, String)> =
        db.opt(sql, args![lease.job.id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    match current {
        Some((fence, state)) if fence == lease.fence && state == "running" => Ok(FenceCheck::Holds),
        Some((fence, _)) if fence == lease.fence => Ok(FenceCheck::AlreadyRecorded),
        _ => Err(StoreError::StaleLease {
            job: lease.job.id,
            fence: lease.fence,
        }),
    }
}

/// A due job as the claim first sees it.
struct DueJob {
    id: i64,
    target: String,
    operation: String,
    key: String,
    state: String,
    lease_owner: Option<String>,
}

/// On SQLite, every active job in due order, from the partial index (without the hint
/// SQLite may prefer another index and sort every active job on each claim).
const DUE_JOBS_LITE: &str = concat!(
    "SELECT id, target, operation, content_key, state, lease_owner, due_at
     FROM jobs INDEXED BY jobs_due
     WHERE ",
    active_job!(),
    " AND NOT EXISTS (SELECT 1 FROM target_pauses t
                      WHERE t.scope_id = jobs.target AND t.actor = ?1)
      AND NOT EXISTS (SELECT 1 FROM target_pauses t
                      WHERE t.scope_id = jobs.target AND t.actor = '')
     ORDER BY due_at, id"
);

/// The first due job that passes `filter`: due jobs in order, a page at a time, off the
/// partial index on `due_at`. Usually the first row is the one. On PostgreSQL the rows are
/// locked as they are read and rows other workers hold are skipped (`SKIP LOCKED`), so
/// workers on many machines claim different jobs without waiting on each other.
fn next_due(db: Db<'_>, now: i64, filter: &ClaimFilter, actor: &str) -> Result<Option<DueJob>> {
    let wanted = |job: &DueJob| {
        filter.targets.contains(&job.target)
            && !filter.skip.contains(&job.id)
            && filter
                .job_ids
                .as_ref()
                .is_none_or(|ids| ids.contains(&job.id))
    };
    let due_job = |r: &Row<'_, '_>| -> Result<(DueJob, i64)> {
        Ok((
            DueJob {
                id: r.get(0)?,
                target: r.get(1)?,
                operation: r.get(2)?,
                key: r.get(3)?,
                state: r.get(4)?,
                lease_owner: r.get(5)?,
            },
            r.get(6)?,
        ))
    };
    if !db.is_postgres() {
        // Rows are read one at a time up to the first wanted one, usually the first, or
        // the first not yet due.
        return db.scan(DUE_JOBS_LITE, args![actor], |r| {
            let (job, due_at) = due_job(r)?;
            Ok(if due_at > now {
                ControlFlow::Break(None)
            } else if wanted(&job) {
                ControlFlow::Break(Some(job))
            } else {
                ControlFlow::Continue(())
            })
        });
    }
    // PostgreSQL locks the rows it reads (SKIP LOCKED passes over those others hold): due
    // rows only, a page at a time.
    const PAGE: i64 = 8;
    let mut offset = 0;
    loop {
        let page: Vec<(DueJob, i64)> = db.all(
            concat!(
                "SELECT id, target, operation, content_key, state, lease_owner, due_at
                 FROM jobs
                 WHERE ",
                active_job!(),
                " AND due_at <= ?1
                   AND NOT EXISTS (SELECT 1 FROM target_pauses t
                                   WHERE t.scope_id = jobs.target AND t.actor = ?4)
                   AND NOT EXISTS (SELECT 1 FROM target_pauses t
                                   WHERE t.scope_id = jobs.target AND t.actor = '')
                 ORDER BY due_at, id LIMIT ?2 OFFSET ?3
                 FOR UPDATE SKIP LOCKED"
            ),
            args![now, PAGE, offset, actor],
            due_job,
        )?;
        let full = page.len() as i64 == PAGE;
        if let Some((job, _)) = page.into_iter().find(|(job, _)| wanted(job)) {
            return Ok(Some(job));
        }
        if !full {
            return Ok(None);
        }
        offset += PAGE;
    }
}

/// What a claim produced.
#[derive(Clone, Debug)]
pub enum Claim {
    /// Nothing is due for this worker.
    Idle,
    /// The scope already had a result: the job was closed as a replay in the claim's own
    /// transaction. Nothing is to be sent.
    Replayed {
        job: Box<JobRow>,
        events: Vec<EventRow>,
    },
    /// The job is leased to this worker and the attempt is counted and logged. `input` is
    /// what the attempt needs to read, taken in the same transaction.
    Attempt {
        lease: Box<Lease>,
        // Boxed, as the lease and the replay's job are: a claim is handed between
        // threads, and its parts are a few hundred bytes each.
        input: Box<AttemptInput>,
        events: Vec<EventRow>,
    },
}

/// Record a landed write's result for the job's scope, unless the scope has one already;
/// returns the scope's result (ours or the earlier winner's) and whether ours was inserted.
/// The result's data fingerprint is its document's, as the store recorded it at the scan.
///
/// `ON CONFLICT DO NOTHING` claims the scope atomically. On PostgreSQL at Read Committed it
/// may decline because of a row that another transaction committed after this statement's
/// snapshot was taken, so the winner is read in a separate statement (which sees every
/// committed row); should even that find nothing (the winner was forgotten in between),
/// the insert is tried again.
fn record_result(
    db: Db<'_>,
    job: &JobRow,
    record: &RecordRef,
    outcome: &str,
    now: i64,
) -> Result<(String, Option<String>, bool)> {
    for _ in 0..3 {
        let inserted = db.run(
            "INSERT INTO results (target, operation, content_key, identifier, url,
                                  outcome, fingerprint, job_id, recorded_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6,
                     (SELECT fingerprint FROM documents WHERE content_key = ?3), ?7, ?8)
             ON CONFLICT (target, operation, content_key) DO NOTHING",
            args![
                &job.target,
                &job.operation,
                job.key.to_hex(),
                &record.identifier,
                &record.url,
                outcome,
                job.id,
                now
            ],
        )? == 1;
        if inserted {
            // Ours is the scope's result.
            return Ok((record.identifier.clone(), record.url.clone(), true));
        }
        let winner: Option<(String, Option<String>)> = db.opt(
            "SELECT identifier, url FROM results
             WHERE target = ?1 AND operation = ?2 AND content_key = ?3",
            args![&job.target, &job.operation, job.key.to_hex()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        if let Some((identifier, url)) = winner {
            return Ok((identifier, url, inserted));
        }
    }
    // Retried by the store as a whole transaction, never skipped.
    Err(StoreError::Postgres {
        message: format!(
            "the result of job {} neither inserted nor found; trying again",
            job.id
        ),
        transient: true,
    })
}

/// Running jobs under a lease that has not expired ([`Store::live_leases`]). Like every
/// look at the queue that an idle worker makes, it reads the active jobs only, off the
/// partial index: the jobs table keeps every job ever run, and a scan of it on each idle
/// check cost the store more the longer Lodge was used.
const LIVE_LEASES: &str = concat!(
    "SELECT id, fence, lease_owner FROM jobs
     WHERE ",
    active_job!(),
    " AND state = 'running' AND lease_expires > ?1 AND lease_owner IS NOT NULL"
);

/// Waiting and running jobs with the target and the time each is due
/// ([`Store::next_wakeup`]), except those of paused targets (no claim takes them); active
/// jobs only, as [`LIVE_LEASES`].
const NEXT_WAKEUPS: &str = concat!(
    "SELECT id, target, due_at FROM jobs
     WHERE ",
    active_job!(),
    " AND (state = 'waiting' OR state = 'running')
      AND NOT EXISTS (SELECT 1 FROM target_pauses t
                      WHERE t.scope_id = jobs.target AND t.actor = ?1)
      AND NOT EXISTS (SELECT 1 FROM target_pauses t
                      WHERE t.scope_id = jobs.target AND t.actor = '')"
);

/// A new queued job for a scope, unless the scope has an active job already.
/// `?1` dataset, `?2` target, `?3` operation, `?4` key, `?5` deadline, `?6` now.
const QUEUE_JOB: &str = concat!(
    "INSERT INTO jobs (dataset_id, target, operation, content_key, state,
                       deadline, due_at, created_at, updated_at)
     VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?6, ?6, ?6)
     ON CONFLICT (target, operation, content_key) WHERE ",
    active_job!(),
    " DO NOTHING"
);

/// Insert a queued job for the scope, or find the active one. Another machine may enqueue
/// the same scope at once: the partial unique index decides, and the loser joins the
/// winner's job, read in a statement of its own (at Read Committed the insert's snapshot may
/// not show it). Should the winner have ended in between, the insert is tried again.
fn queue_or_join(
    db: Db<'_>,
    dataset_id: i64,
    target: &str,
    key: &ContentKey,
    now: i64,
    deadline: Duration,
) -> Result<Enqueued> {
    for _ in 0..3 {
        let inserted = db.insert_if_new(
            QUEUE_JOB,
            args![
                dataset_id,
                target,
                OPERATION_DEPOSIT,
                key.to_hex(),
                now + ms(deadline),
                now
            ],
        )?;
        if let Some(id) = inserted {
            return Ok(Enqueued::New(id));
        }
        let active: Option<i64> = db.opt(
            concat!(
                "SELECT id FROM jobs WHERE target = ?1 AND operation = ?2
                 AND content_key = ?3 AND ",
                active_job!()
            ),
            args![target, OPERATION_DEPOSIT, key.to_hex()],
            |r| r.get(0),
        )?;
        if let Some(id) = active {
            return Ok(Enqueued::AlreadyQueued(id));
        }
    }
    Err(StoreError::Postgres {
        message: format!(
            "the job for {} neither queued nor found; trying again",
            key.short()
        ),
        transient: true,
    })
}

/// The identifier, address and outcome recorded for the scope, if it has landed.
fn recorded_result(
    db: Db<'_>,
    target: &str,
    operation: &str,
    key: &str,
) -> Result<Option<(String, Option<String>, String)>> {
    db.opt(
        "SELECT identifier, url, outcome FROM results
         WHERE target = ?1 AND operation = ?2 AND content_key = ?3",
        args![target, operation, key],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

/// What a replay's event says: the record it repeats, and that nothing was sent.
fn replay_message(identifier: &str, outcome: &str) -> String {
    format!("already deposited as {identifier} ({outcome}), no request sent")
}

/// Whether a result is recorded for the scope: it has landed, whichever job landed it.
fn scope_landed(db: Db<'_>, target: &str, operation: &str, key: &ContentKey) -> Result<bool> {
    db.one(
        "SELECT EXISTS (SELECT 1 FROM results
                        WHERE target = ?1 AND operation = ?2 AND content_key = ?3)",
        args![target, operation, key.to_hex()],
        |r| r.get(0),
    )
}

/// An active job joined by `dataset_id` whose own dataset was removed (its dataset id
/// cleared) is taken over by the joining dataset, which has the same key: the same files and
/// metadata, so the same deposit. Left as it was, it would end rejected as removed although
/// the folder is back. Returns the event to log when it was taken over.
fn take_over_orphan(
    db: Db<'_>,
    job: i64,
    dataset_id: i64,
    target: &str,
    key: &ContentKey,
) -> Result<Option<NewEvent>> {
    let taken = db.run(
        "UPDATE jobs SET dataset_id = ?2 WHERE id = ?1 AND dataset_id IS NULL",
        args![job, dataset_id],
    )?;
    Ok((taken == 1).then(|| {
        scope_event(
            job,
            Some(dataset_id),
            target,
            key,
            0,
            EventKind::Queued,
            format!(
                "taken over by dataset {dataset_id}: the dataset that queued it was removed, \
                 and its folder added again"
            ),
        )
    }))
}

/// How the log's event of a failed job put back on the queue by `retry` begins: the
/// pending job's age counts from it.
pub(super) const REQUEUED_BY_RETRY: &str = "re-queued by retry with the same key";

impl Store {
    /// Put a deposit of `key` to `target` on the queue, or join the job already queued,
    /// running or waiting for that scope. `deadline` bounds when retries may be scheduled.
    pub fn enqueue_deposit(
        &self,
        dataset_id: i64,
        target: &str,
        key: &ContentKey,
        deadline: Duration,
    ) -> Result<(Enqueued, Option<EventRow>)> {
        let mut out = self.enqueue_deposits(target, &[(dataset_id, *key)], deadline)?;
        Ok(out.remove(0))
    }

    /// [`Store::enqueue_deposit`] for a whole batch, in one transaction.
    pub fn enqueue_deposits(
        &self,
        target: &str,
        items: &[(i64, ContentKey)],
        deadline: Duration,
    ) -> Result<Vec<(Enqueued, Option<EventRow>)>> {
        self.write(|db| {
            let now = now_ms();
            let mut out = Vec::with_capacity(items.len());
            for (dataset_id, key) in items {
                let id = match queue_or_join(db, *dataset_id, target, key, now, deadline)? {
                    Enqueued::AlreadyQueued(id) => {
                        let taken_over = take_over_orphan(db, id, *dataset_id, target, key)?
                            .map(|e| insert_event(db, &e, &self.actor))
                            .transpose()?;
                        out.push((Enqueued::AlreadyQueued(id), taken_over));
                        continue;
                    }
                    Enqueued::New(id) | Enqueued::Replayed(id) => id,
                };
                // A key that landed there before needs nothing sent: its job is the replay
                // now, not a queued one a stopped run would leave behind the uploads (its
                // dataset reading "queued" meanwhile). A claim still replays a job queued
                // before its key landed (another machine's deposit of it).
                let hex = key.to_hex();
                if let Some((identifier, url, outcome)) =
                    recorded_result(db, target, OPERATION_DEPOSIT, &hex)?
                {
                    db.run(&REPLAY_JOB, args![id, &identifier, &url, now])?;
                    let job = load_job(db, id)?.ok_or(StoreError::NoSuchJob(id))?;
                    let message = replay_message(&identifier, &outcome);
                    let event = job_event(&job, EventKind::Replay, message);
                    let event = insert_event(db, &event, &self.actor)?;
                    out.push((Enqueued::Replayed(id), Some(event)));
                    continue;
                }
                let queued = scope_event(
                    id,
                    Some(*dataset_id),
                    target,
                    key,
                    0,
                    EventKind::Queued,
                    format!("queued for {target}"),
                );
                let event = insert_event(db, &queued, &self.actor)?;
                out.push((Enqueued::New(id), Some(event)));
            }
            Ok(out)
        })
    }

    /// Claim the next due job — queued, waiting past its time, or running under an expired
    /// lease — in one transaction that bumps its fencing token. If the scope already has a
    /// result the job is closed right there as a replay (nothing to send); otherwise the
    /// attempt is counted and logged before anything leaves this machine.
    pub fn claim(
        &self,
        owner: &str,
        lease_for: Duration,
        max_attempts: u32,
        filter: &ClaimFilter,
    ) -> Result<Claim> {
        self.write(|db| self.claim_in(db, owner, lease_for, max_attempts, filter))
    }

    fn claim_in(
        &self,
        db: Db<'_>,
        owner: &str,
        lease_for: Duration,
        max_attempts: u32,
        filter: &ClaimFilter,
    ) -> Result<Claim> {
        let now = now_ms();
        let Some(due) = next_due(db, now, filter, &self.actor)? else {
            return Ok(Claim::Idle);
        };
        let id = due.id;
        let mut events = Vec::new();
        let expires_at = now + ms(lease_for);
        let existing = recorded_result(db, &due.target, &due.operation, &due.key)?;
        // A lease ends when its time runs out, or at once when its process is found gone
        // (`engine::liveness`): the message cannot tell which, so it says both.
        let reclaimed = (due.state == "running").then(|| {
            format!(
                "the lease of {} ended (its time ran out, or its process did); job taken over",
                due.lease_owner.as_deref().unwrap_or("another worker")
            )
        });
        if let Some((identifier, url, outcome)) = existing {
            // Replay: the fence still moves, so a stale holder cannot record anything.
            if db.run(&REPLAY_JOB, args![id, &identifier, &url, now])? != 1 {
                return Err(StoreError::NoSuchJob(id));
            }
            let job = load_job(db, id)?.ok_or(StoreError::NoSuchJob(id))?;
            if let Some(message) = reclaimed {
                let e = job_event(&job, EventKind::Reclaimed, message);
                events.push(insert_event(db, &e, &self.actor)?);
            }
            events.push(insert_event(
                db,
                &job_event(
                    &job,
                    EventKind::Replay,
                    replay_message(&identifier, &outcome),
                ),
                &self.actor,
            )?);
            return Ok(Claim::Replayed {
                job: Box::new(job),
                events,
            });
        }
        if db.run(&CLAIM_JOB, args![id, owner, expires_at, now])? != 1 {
            return Err(StoreError::NoSuchJob(id));
        }
        let (job, input) = load_claimed(db, id)?;
        if let Some(message) = reclaimed {
            let e = job_event(&job, EventKind::Reclaimed, message);
            events.push(insert_event(db, &e, &self.actor)?);
        }
        let message = attempt_message(job.attempts, max_attempts, &job.target);
        events.push(insert_event(
            db,
            &job_event(&job, EventKind::Attempt, message),
            &self.actor,
        )?);
        let fence = job.fence;
        Ok(Claim::Attempt {
            input: Box::new(input),
            lease: Box::new(Lease {
                job,
                fence,
                owner: owner.to_string(),
                expires_at,
            }),
            events,
        })
    }

    /// Extend a lease. `false` when it was lost (another worker claimed the job).
    pub fn renew_lease(&self, lease: &mut Lease, lease_for: Duration) -> Result<bool> {
        let expires_at = now_ms() + ms(lease_for);
        let n = self.with(|db| {
            db.run(
                "UPDATE jobs SET lease_expires = ?3, due_at = ?3
                 WHERE id = ?1 AND fence = ?2 AND state = 'running'",
                args![lease.job.id, lease.fence, expires_at],
            )
        })?;
        if n == 1 {
            lease.expires_at = expires_at;
        }
        Ok(n == 1)
    }

    /// Log an event about a leased job (reconciliation found nothing, say), if the lease holds.
    pub fn log_for_lease(
        &self,
        lease: &Lease,
        kind: EventKind,
        message: &str,
        http_status: Option<u16>,
    ) -> Result<EventRow> {
        self.write(|db| {
            if let FenceCheck::AlreadyRecorded = check_fence(db, lease)? {
                return Err(StoreError::StaleLease {
                    job: lease.job.id,
                    fence: lease.fence,
                });
            }
            let mut event = job_event(&lease.job, kind, message.to_string());
            event.http_status = http_status;
            insert_event(db, &event, &self.actor)
        })
    }

    /// The datasets other than `except` that were added on this machine and whose last scan
    /// gave `key`: copies of the same files and metadata, so the same deposit. Oldest first.
    /// A job whose own dataset's folder is gone can take its files from one of them
    /// ([`Store::hand_job_to_copy`]).
    pub fn copies_of_key(&self, key: &ContentKey, except: Option<i64>) -> Result<Vec<KeyCopy>> {
        let here = self.host.clone();
        self.with(|db| {
            db.all(
                // Rows from before datasets knew their machine have no origin: this one's.
                "SELECT id, name, path FROM datasets
                 WHERE content_key = ?1 AND id <> ?2 AND (origin = ?3 OR origin = '')
                 ORDER BY id",
                args![key.to_hex(), except.unwrap_or(-1), &here],
                |r| {
                    Ok(KeyCopy {
                        dataset_id: r.get(0)?,
                        name: r.get(1)?,
                        path: r.get(2)?,
                    })
                },
            )
        })
    }

    /// The deposits of `key` that other datasets with it (copies of the folder with the
    /// same metadata) queued and that have not landed — queued, under way, failed or
    /// refused — the latest of each target: one job sends that content for every copy, so
    /// each is theirs too. Given-up (dismissed) jobs are passed over.
    pub fn unlanded_deposits_of_copies(
        &self,
        key: &ContentKey,
        except: i64,
    ) -> Result<Vec<JobRow>> {
        self.with(|db| {
            db.all(
                &format!(
                    "SELECT {JOB_COLUMNS} FROM jobs j LEFT JOIN datasets d ON d.id = j.dataset_id
                     WHERE j.id IN (SELECT max(id) FROM jobs
                                    -- Each target's jobs of the key, on the scope index.
                                    WHERE (target, content_key) IN
                                          (SELECT t.scope_id, ?1 FROM targets t)
                                      AND operation = ?2
                                      AND dataset_id <> ?3 AND dismissed_at IS NULL
                                      AND state NOT IN ('deposited', 'existing')
                                    GROUP BY target)
                       AND NOT EXISTS (SELECT 1 FROM results r
                                       WHERE r.target = j.target AND r.operation = ?2
                                         AND r.content_key = ?1)
                     ORDER BY j.id"
                ),
                args![key.to_hex(), OPERATION_DEPOSIT, except],
                job_from_row,
            )
        })
    }

    /// Give a leased job to `copy`, a dataset with the job's key (see
    /// [`Store::copies_of_key`]), under the fence, logging `why` with the attempt; the
    /// lease's job then names the copy, so its outcome does too. Returns the copy's files as
    /// its last scan saw them, and the event; `None`, with nothing written, when the copy
    /// was rescanned since to another key or removed.
    pub fn hand_job_to_copy(
        &self,
        lease: &mut Lease,
        copy: &KeyCopy,
        why: &str,
    ) -> Result<Option<(AttemptInput, EventRow)>> {
        self.write(|db| {
            let FenceCheck::Holds = check_fence(db, lease)? else {
                return Err(StoreError::StaleLease {
                    job: lease.job.id,
                    fence: lease.fence,
                });
            };
            let found: Option<(Option<String>, Option<String>)> = db.opt(
                "SELECT d.origin, doc.document FROM datasets d
                 LEFT JOIN documents doc ON doc.content_key = d.content_key
                 WHERE d.id = ?1 AND d.content_key = ?2",
                args![copy.dataset_id, lease.job.key.to_hex()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            let Some((origin, document)) = found else {
                return Ok(None);
            };
            db.run(
                "UPDATE jobs SET dataset_id = ?2 WHERE id = ?1",
                args![lease.job.id, copy.dataset_id],
            )?;
            let input = attempt_input_from(
                db,
                copy.dataset_id,
                &lease.job.key,
                document,
                Some(lease.job.key.to_hex()),
                origin,
            )?;
            let event = insert_event(
                db,
                &scope_event(
                    lease.job.id,
                    Some(copy.dataset_id),
                    &lease.job.target,
                    &lease.job.key,
                    lease.job.attempts,
                    EventKind::Attempt,
                    why.to_string(),
                ),
                &self.actor,
            )?;
            lease.job.dataset_id = Some(copy.dataset_id);
            lease.job.dataset_path = Some(copy.path.clone());
            lease.job.dataset_name = Some(copy.name.clone());
            Ok(Some((input, event)))
        })
    }

    /// Record how a claimed job ends this round: the job's state, the result (for a landed
    /// write) and one event, in one transaction, and only if the lease still holds
    /// ([`StoreError::StaleLease`] otherwise). Returns the updated job and the event.
    pub fn finish(&self, lease: &Lease, finish: &Finish) -> Result<(JobRow, EventRow)> {
        self.write(|db| match self.finish_in(db, lease, finish)? {
            Some(recorded) => Ok(recorded),
            // Nothing was written: the lease no longer holds the job. Perhaps because
            // this very outcome was committed already (a COMMIT whose answer was lost,
            // then run again): answer what it recorded.
            None => match check_fence(db, lease)? {
                FenceCheck::AlreadyRecorded => {
                    let job =
                        load_job(db, lease.job.id)?.ok_or(StoreError::NoSuchJob(lease.job.id))?;
                    let event = db
                        .opt(
                            "SELECT max(id) FROM events WHERE job_id = ?1",
                            args![job.id],
                            |r| r.get::<Option<i64>>(0),
                        )?
                        .flatten()
                        .ok_or(StoreError::NoSuchJob(job.id))?;
                    let event = super::events::event_by_id(db, event)?;
                    Ok((job, event))
                }
                // The update saw no running job under this fence; neither can this look.
                FenceCheck::Holds => Err(StoreError::StaleLease {
                    job: lease.job.id,
                    fence: lease.fence,
                }),
            },
        })
    }

    /// The job's change first, fenced: when the lease no longer holds the job, `None`, with
    /// nothing written. Then the result of a landing and the event.
    fn finish_in(
        &self,
        db: Db<'_>,
        lease: &Lease,
        finish: &Finish,
    ) -> Result<Option<(JobRow, EventRow)>> {
        let job = &lease.job;
        let now = now_ms();
        let (change, event, then) = match finish.clone() {
            Finish::Landed {
                record,
                created,
                kind,
                message,
                http_status,
            } => {
                let mut e = job_event(job, kind, message);
                e.http_status = http_status;
                let state = if created {
                    JobState::Deposited
                } else {
                    JobState::Existing
                };
                let change = JobChange {
                    landed_as: Some((record.identifier.clone(), record.url.clone())),
                    ..JobChange::ended(state, None, http_status)
                };
                let outcome = if created { "created" } else { "existing" };
                (change, e, Then::RecordResult { record, outcome })
            }
            Finish::Retry {
                not_before,
                delay,
                error,
                http_status,
            } => {
                let mut e = job_event(
                    job,
                    EventKind::RetryScheduled,
                    format!(
                        "retry in {} after attempt {}: {error}",
                        crate::wording::wait_text(delay),
                        job.attempts
                    ),
                );
                e.http_status = http_status;
                e.delay_ms = Some(ms(delay));
                let change = JobChange {
                    due_at: Some(not_before),
                    ..JobChange::ended(JobState::Waiting, Some(error), http_status)
                };
                (change, e, Then::Nothing)
            }
            Finish::Failed { error, http_status } => {
                let mut e = job_event(job, EventKind::Failed, error.clone());
                e.http_status = http_status;
                let change = JobChange::ended(JobState::Failed, Some(error), http_status);
                (change, e, Then::Nothing)
            }
            Finish::Rejected { error, http_status } => {
                let mut e = job_event(job, EventKind::Rejected, error.clone());
                e.http_status = http_status;
                let change = JobChange::ended(JobState::Rejected, Some(error), http_status);
                (change, e, Then::Nothing)
            }
            Finish::PauseTarget { error, http_status } => {
                let mut e = job_event(
                    job,
                    EventKind::Paused,
                    format!("{} paused until you act: {error}", job.target),
                );
                e.http_status = http_status;
                let change = JobChange {
                    due_at: Some(now),
                    ..JobChange::ended(JobState::Queued, Some(error.clone()), http_status)
                };
                (change, e, Then::PauseTarget { error })
            }
            release @ (Finish::Release { .. } | Finish::LeaveForOthers { .. }) => {
                let (message, not_before, attempt_made, kind) = match release {
                    Finish::Release {
                        message,
                        not_before,
                        attempt_made,
                    } => (message, not_before, attempt_made, EventKind::Queued),
                    Finish::LeaveForOthers { message } => {
                        (message, None, false, EventKind::LeftForOthers)
                    }
                    _ => unreachable!("matched above"),
                };
                // Not an outcome: the job goes back to the queue, claimable again at
                // `not_before`, with its last error and status as they were.
                let change = JobChange {
                    state: JobState::Queued,
                    due_at: Some(not_before.unwrap_or(now).max(now)),
                    landed_as: None,
                    error: None,
                    attempt_not_made: !attempt_made,
                };
                (change, job_event(job, kind, message), Then::Nothing)
            }
        };
        let Some(mut updated) = change.apply(db, lease, now)? else {
            return Ok(None);
        };
        match then {
            Then::Nothing => {}
            Then::RecordResult { record, outcome } => {
                // Claim the scope; if another worker recorded it first, theirs stands and
                // the job joins it.
                let (identifier, url, inserted) = record_result(db, job, &record, outcome, now)?;
                if !inserted {
                    db.run(
                        "UPDATE jobs SET state = 'existing', identifier = ?2, url = ?3
                         WHERE id = ?1",
                        args![job.id, &identifier, &url],
                    )?;
                    updated.state = JobState::Existing;
                    updated.identifier = Some(identifier);
                    updated.url = url;
                }
            }
            Then::PauseTarget { error } => {
                // This actor's pause: another machine's credentials are its own.
                db.run(
                    "INSERT INTO target_pauses (scope_id, actor, reason, paused_at)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (scope_id, actor)
                     DO UPDATE SET reason = excluded.reason, paused_at = excluded.paused_at",
                    args![&job.target, &self.actor, &error, now],
                )?;
            }
        }
        let row = insert_event(db, &event, &self.actor)?;
        Ok(Some((updated, row)))
    }

    /// Log that a worker's late result was refused (the fence no longer matched). Written
    /// outside any lease: it is a fact about the stale worker, not about the job's state.
    pub fn log_stale_lease(&self, lease: &Lease, what: &str) -> Result<EventRow> {
        self.append_event(&job_event(
            &lease.job,
            EventKind::StaleLease,
            format!(
                "late result from {} refused (fence {} is stale): {what}",
                lease.owner, lease.fence
            ),
        ))
    }

    /// Log what `lodge verify` found of the deposit `job` landed: whole on the server
    /// (`intact`), or damaged. A fact about the server's holdings: the job is unchanged.
    /// Log that a check found `job`'s deposit, a drafting target's, published since on the
    /// repository's pages ([`Store::published_drafts`] reads these back).
    pub fn log_published(&self, job: &JobRow, message: &str) -> Result<EventRow> {
        let mut event = job_event(job, EventKind::Published, message.to_string());
        event.attempt = None;
        self.write(|db| {
            event.dataset_id = dataset_of_job(db, job)?;
            insert_event(db, &event, &self.actor)
        })
    }

    /// The drafting targets' deposits a check found published since, each as its target
    /// and record identifier (a `published` event of its job).
    pub fn published_drafts(&self) -> Result<Vec<(String, String)>> {
        self.with(|db| {
            db.all(
                "SELECT DISTINCT j.target, j.identifier FROM events e JOIN jobs j ON j.id = e.job_id
                 WHERE e.kind = 'published' AND j.identifier IS NOT NULL",
                args![],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
        })
    }

    /// [`Store::published_drafts`] of one deposit scope (drafting target `target`, `key`):
    /// the records of its jobs a check found published since. Read through the scope's
    /// jobs, not every `published` event.
    pub fn published_drafts_of(&self, target: &str, key: &ContentKey) -> Result<Vec<String>> {
        self.with(|db| {
            db.all(
                "SELECT DISTINCT j.identifier FROM jobs j JOIN events e ON e.job_id = j.id
                 WHERE j.target = ?1 AND j.content_key = ?2 AND e.kind = 'published'
                   AND j.identifier IS NOT NULL",
                args![target, key.to_hex()],
                |r| r.get(0),
            )
        })
    }

    pub fn log_verification(&self, job: &JobRow, intact: bool, message: &str) -> Result<EventRow> {
        let kind = if intact {
            EventKind::Verified
        } else {
            EventKind::Damaged
        };
        let mut event = job_event(job, kind, message.to_string());
        event.attempt = None;
        self.write(|db| {
            event.dataset_id = dataset_of_job(db, job)?;
            let logged = insert_event(db, &event, &self.actor)?;
            // The deposit's latest check is this one, unless a later one (another
            // process's, on a shared store) committed first.
            db.run(
                "INSERT INTO deposit_checks (target, content_key, event_id) VALUES (?1, ?2, ?3)
                 ON CONFLICT (target, content_key) DO UPDATE SET event_id = excluded.event_id
                 WHERE deposit_checks.event_id < excluded.event_id",
                args![&job.target, &job.key.to_hex(), logged.id],
            )?;
            Ok(logged)
        })
    }

    /// Log that files of `job`'s deposit were sent again (`lodge verify --repair`).
    pub fn log_repair(&self, job: &JobRow, message: &str) -> Result<EventRow> {
        let mut event = job_event(job, EventKind::Repair, message.to_string());
        event.attempt = None;
        self.write(|db| {
            event.dataset_id = dataset_of_job(db, job)?;
            insert_event(db, &event, &self.actor)
        })
    }

    /// Re-queue failed jobs with the same key: a fresh attempt budget and deadline.
    /// Returns the ids re-queued. Jobs that are not failed are left alone, and so are failed
    /// jobs whose dataset was removed or scanned again since under another key (the content
    /// they were to deposit is no longer what the folder holds, so the engine would only
    /// refuse them), and failed jobs whose scope has landed since, through a later job
    /// (nothing is left to do: re-queued, they would only replay).
    pub fn retry_jobs(&self, ids: &[i64], deadline: Duration) -> Result<Vec<i64>> {
        self.write(|db| {
            let mut done = Vec::new();
            for &id in ids {
                let Some(job) = load_job(db, id)? else {
                    return Err(StoreError::NoSuchJob(id));
                };
                if job.state != JobState::Failed {
                    continue;
                }
                let dataset_key: Option<String> = match job.dataset_id {
                    Some(dataset) => db
                        .opt(
                            "SELECT content_key FROM datasets WHERE id = ?1",
                            args![dataset],
                            |r| r.get(0),
                        )?
                        .flatten(),
                    None => None,
                };
                if dataset_key.as_deref() != Some(job.key.to_hex().as_str())
                    || scope_landed(db, &job.target, &job.operation, &job.key)?
                {
                    continue;
                }
                // A newer job for the same scope may already be active, or have ended in
                // its turn; then this one stays as history, and the newer one carries on or
                // is the one to retry (the one the status shows).
                let active_or_later: bool = db.one(
                    concat!(
                        "SELECT EXISTS (SELECT 1 FROM jobs WHERE target = ?1 AND operation = ?2
                           AND content_key = ?3 AND (id > ?4 OR ",
                        active_job!(),
                        "))"
                    ),
                    args![&job.target, &job.operation, job.key.to_hex(), id],
                    |r| r.get(0),
                )?;
                if active_or_later {
                    continue;
                }
                let now = now_ms();
                db.run(
                    "UPDATE jobs SET state = 'queued', attempts_before = attempts_before + attempts,
                                     attempts = 0, not_before = 0, due_at = 0,
                                     deadline = ?2, updated_at = ?3, ended_at = NULL,
                                     dismissed_at = NULL
                     WHERE id = ?1",
                    args![id, now + ms(deadline), now],
                )?;
                insert_event(
                    db,
                    &job_event(
                        &job,
                        EventKind::Queued,
                        // The count starts again (each round has its attempts and deadline);
                        // the log keeps what the earlier ones did. After earlier rounds the
                        // sum is said too, as the history counts them.
                        match (job.attempts, job.attempts_before) {
                            (0, _) => REQUEUED_BY_RETRY.into(),
                            (1, 0) => format!("{REQUEUED_BY_RETRY}, after 1 failed attempt"),
                            (n, 0) => format!("{REQUEUED_BY_RETRY}, after {n} failed attempts"),
                            (n, before) => format!(
                                "{REQUEUED_BY_RETRY}, after {} of this round ({} in all)",
                                crate::wording::count_of(
                                    n as u64,
                                    "failed attempt",
                                    "failed attempts"
                                ),
                                n + before
                            ),
                        },
                    ),
                    &self.actor,
                )?;
                done.push(id);
            }
            Ok(done)
        })
    }

    /// Take jobs off the queue by hand (`lodge cancel`): a job on the queue, waiting for a
    /// retry, or whose lease ran out ends failed with `why` as its error. Its fence moves,
    /// so a worker that still holds it cannot record anything, and `retry` puts it back
    /// with the same key. A job under a live lease (being deposited now) and one that has
    /// ended are left as they are; the answer says which is which.
    pub fn cancel_jobs(&self, ids: &[i64], why: &str) -> Result<Vec<(JobRow, Cancel)>> {
        self.write(|db| {
            let now = now_ms();
            let mut answers = Vec::new();
            for &id in ids {
                let job = load_job(db, id)?.ok_or(StoreError::NoSuchJob(id))?;
                let leased = job.state == JobState::Running
                    && job.lease_expires.is_some_and(|until| until > now);
                let answer = if leased {
                    Cancel::BeingDeposited {
                        by: job.lease_owner.clone().unwrap_or_default(),
                    }
                } else if job.state.is_terminal() {
                    Cancel::Ended
                } else {
                    let n = db.run(
                        concat!(
                            "UPDATE jobs SET state = 'failed', fence = fence + 1,
                                lease_owner = NULL, lease_expires = NULL, last_error = ?2,
                                last_status = NULL, updated_at = ?3, ended_at = ?3
                             WHERE id = ?1 AND ",
                            active_job!()
                        ),
                        args![id, why, now],
                    )?;
                    if n != 1 {
                        return Err(StoreError::NoSuchJob(id));
                    }
                    insert_event(
                        db,
                        &job_event(&job, EventKind::Failed, why.to_string()),
                        &self.actor,
                    )?;
                    Cancel::Cancelled
                };
                answers.push((load_job(db, id)?.ok_or(StoreError::NoSuchJob(id))?, answer));
            }
            Ok(answers)
        })
    }

    /// Give up on failed or refused jobs by hand (`lodge dismiss`, the window's Dismiss): a
    /// mistyped target's, say, which no retry can bring about. Each is marked dismissed with
    /// the failed or refused jobs of the same deposit before it (its dataset to its target;
    /// the job itself alone if its dataset was removed), and the log says so; when it ended
    /// (`updated_at`) stays as it was. They leave the status, its failed and rejected totals
    /// and `retry --all-failed`; the history keeps them, and `retry` of a failed one's number
    /// queues it again with the same key. Jobs still to do (one being deposited now named
    /// apart) and jobs that landed are left as they are; the answer says which is which.
    pub fn dismiss_jobs(&self, ids: &[i64], why: &str) -> Result<Vec<(JobRow, Dismiss)>> {
        self.write(|db| {
            let now = now_ms();
            let mut answers = Vec::new();
            for &id in ids {
                let job = load_job(db, id)?.ok_or(StoreError::NoSuchJob(id))?;
                let answer = match job.state {
                    JobState::Failed | JobState::Rejected if job.dismissed_at.is_some() => {
                        Dismiss::AlreadyDismissed
                    }
                    JobState::Failed | JobState::Rejected => {
                        let these: Vec<JobRow> = db.all(
                            &format!(
                                "SELECT {JOB_COLUMNS} FROM jobs j
                                 LEFT JOIN datasets d ON d.id = j.dataset_id
                                 WHERE j.state IN ('failed', 'rejected')
                                   AND j.dismissed_at IS NULL
                                   AND (j.id = ?1 OR (j.id < ?1 AND j.dataset_id = ?2
                                                      AND j.target = ?3
                                                      AND j.operation = ?4))
                                 ORDER BY j.id"
                            ),
                            args![id, job.dataset_id, &job.target, &job.operation],
                            job_from_row,
                        )?;
                        // `updated_at` stays when the job ended: the history's time.
                        for one in &these {
                            db.run(
                                "UPDATE jobs SET dismissed_at = ?2 WHERE id = ?1",
                                args![one.id, now],
                            )?;
                            // An earlier failure of the same deposit says which job it
                            // went with: the log would otherwise read twice the same.
                            let message = match one.id == id {
                                true => why.to_string(),
                                false => format!("{why} (with job {id}, of the same deposit)"),
                            };
                            let mut event = job_event(one, EventKind::Dismissed, message);
                            event.attempt = None;
                            insert_event(db, &event, &self.actor)?;
                        }
                        Dismiss::Dismissed {
                            earlier: these.iter().map(|j| j.id).filter(|&j| j != id).collect(),
                        }
                    }
                    JobState::Deposited | JobState::Existing => Dismiss::Landed,
                    JobState::Running if job.lease_expires.is_some_and(|until| until > now) => {
                        Dismiss::BeingDeposited {
                            by: job.lease_owner.clone().unwrap_or_default(),
                        }
                    }
                    JobState::Queued | JobState::Running | JobState::Waiting => Dismiss::StillToDo,
                };
                answers.push((load_job(db, id)?.ok_or(StoreError::NoSuchJob(id))?, answer));
            }
            Ok(answers)
        })
    }

    /// Ids of the failed and refused jobs of `target` not given up on whose deposit has
    /// not landed since (a removed dataset's too): what `lodge dismiss --target` gives up
    /// on.
    pub fn standing_failures(&self, target: &str) -> Result<Vec<i64>> {
        self.with(|db| {
            db.all(
                "SELECT id FROM jobs j WHERE target = ?1 AND dismissed_at IS NULL
                 AND state IN ('failed', 'rejected')
                 AND NOT EXISTS (SELECT 1 FROM results r WHERE r.target = j.target
                                 AND r.operation = j.operation
                                 AND r.content_key = j.content_key)
                 ORDER BY id",
                args![target],
                |r| r.get(0),
            )
        })
    }

    /// Ids of the jobs still to do (queued, waiting for a retry, or running), optionally of
    /// one target.
    pub fn active_job_ids(&self, target: Option<&str>) -> Result<Vec<i64>> {
        self.with(|db| {
            db.all(
                concat!(
                    "SELECT id FROM jobs WHERE (CAST(?1 AS TEXT) IS NULL OR target = ?1) AND ",
                    active_job!(),
                    " ORDER BY id"
                ),
                args![target],
                |r| r.get(0),
            )
        })
    }

    /// Ids of every failed job still to do, optionally of one target: not those whose scope
    /// landed since through a later job.
    pub fn failed_job_ids(&self, target: Option<&str>) -> Result<Vec<i64>> {
        self.with(|db| {
            db.all(
                concat!(
                    "SELECT id FROM jobs j WHERE state = 'failed'
                     AND (CAST(?1 AS TEXT) IS NULL OR target = ?1) AND ",
                    still_to_retry!(),
                    " ORDER BY id"
                ),
                args![target],
                |r| r.get(0),
            )
        })
    }

    /// One job.
    pub fn job(&self, id: i64) -> Result<JobRow> {
        self.with(|db| load_job(db, id)?.ok_or(StoreError::NoSuchJob(id)))
    }

    /// Several jobs, in the order asked.
    pub fn jobs(&self, ids: &[i64]) -> Result<Vec<JobRow>> {
        self.with(|db| {
            let mut jobs = Vec::with_capacity(ids.len());
            let mut rest = ids;
            while let Some(&first) = rest.first() {
                // A run of consecutive ids (a batch queued at once is one) is read by one
                // statement: one per job cost a batch's end a serial pause.
                // Up to i64::MAX inclusive: an open range would overflow past the largest id.
                let run = rest
                    .iter()
                    .zip(first..=i64::MAX)
                    .take_while(|(id, next)| **id == *next)
                    .count();
                let last = first + (run as i64 - 1);
                let read = db.all(&LOAD_JOBS_BETWEEN, args![first, last], job_from_row)?;
                if read.len() != run {
                    let missing = (first..=last)
                        .find(|id| !read.iter().any(|job| job.id == *id))
                        .unwrap_or(first);
                    return Err(StoreError::NoSuchJob(missing));
                }
                jobs.extend(read);
                rest = &rest[run..];
            }
            Ok(jobs)
        })
    }

    /// Every job of one dataset, newest first.
    pub fn jobs_of_dataset(&self, dataset_id: i64) -> Result<Vec<JobRow>> {
        self.with(|db| {
            db.all(
                &format!(
                    "SELECT {JOB_COLUMNS} FROM jobs j LEFT JOIN datasets d ON d.id = j.dataset_id
                     WHERE j.dataset_id = ?1 ORDER BY j.id DESC"
                ),
                args![dataset_id],
                job_from_row,
            )
        })
    }

    /// Every job of `job`'s scope (its target, operation and key) but itself, whichever
    /// dataset queued it (a copy of its folder shares the key), newest first.
    pub fn other_jobs_of_scope(&self, job: &JobRow) -> Result<Vec<JobRow>> {
        self.with(|db| {
            db.all(
                &format!(
                    "SELECT {JOB_COLUMNS} FROM jobs j LEFT JOIN datasets d ON d.id = j.dataset_id
                     WHERE j.target = ?1 AND j.operation = ?2 AND j.content_key = ?3
                       AND j.id <> ?4
                     ORDER BY j.id DESC"
                ),
                args![&job.target, &job.operation, job.key.to_hex(), job.id],
                job_from_row,
            )
        })
    }

    /// Every deposit job of `key` on any target, whichever dataset queued it, newest first:
    /// the history of a content key's deposits, which stays when `forget` drops its results.
    pub fn deposit_jobs_of_key(&self, key: &ContentKey) -> Result<Vec<JobRow>> {
        self.with(|db| {
            db.all(
                // By each target's scope and the key: the jobs' (target, content_key) index,
                // where the key alone would read every job.
                &format!(
                    "SELECT {JOB_COLUMNS} FROM jobs j LEFT JOIN datasets d ON d.id = j.dataset_id
                     WHERE j.target IN (SELECT scope_id FROM targets)
                       AND j.content_key = ?1 AND j.operation = ?2
                     ORDER BY j.id DESC"
                ),
                args![key.to_hex(), OPERATION_DEPOSIT],
                job_from_row,
            )
        })
    }

    /// How many of these jobs are still to be worked on: queued, running or waiting, on a
    /// target that is not paused.
    pub fn unsettled(&self, ids: &HashSet<i64>) -> Result<usize> {
        let open: Vec<i64> = self.with(|db| {
            db.all(
                concat!(
                    "SELECT id FROM jobs WHERE ",
                    active_job!(),
                    " AND NOT EXISTS (SELECT 1 FROM target_pauses t
                                      WHERE t.scope_id = jobs.target AND t.actor = ?1)
                      AND NOT EXISTS (SELECT 1 FROM target_pauses t
                                      WHERE t.scope_id = jobs.target AND t.actor = '')"
                ),
                args![&self.actor],
                |r| r.get(0),
            )
        })?;
        Ok(open.iter().filter(|id| ids.contains(id)).count())
    }

    /// Running jobs whose lease is still valid and held by someone else: the engine checks
    /// whether their owners are alive.
    pub fn live_leases(&self) -> Result<Vec<(i64, i64, String)>> {
        self.with(|db| {
            db.all(LIVE_LEASES, args![now_ms()], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
        })
    }

    /// End a lease early because its owner is known to be gone (a dead process on this
    /// machine). Only that exact fence is expired; the next claim bumps the fence, so should
    /// the owner be alive after all, it cannot record anything.
    pub fn expire_lease(&self, job_id: i64, fence: i64) -> Result<bool> {
        self.with(|db| {
            Ok(db.run(
                "UPDATE jobs SET lease_expires = ?3, due_at = ?3
                 WHERE id = ?1 AND fence = ?2 AND state = 'running'",
                args![job_id, fence, now_ms()],
            )? == 1)
        })
    }

    /// When the earliest job that a claim with `filter` could take becomes claimable again
    /// (a retry's time or a lease's end), in unix ms; `None` if none is waiting or leased.
    /// A paused target's jobs wait for the person, not for a time.
    pub fn next_wakeup(&self, filter: &ClaimFilter) -> Result<Option<i64>> {
        let due: Vec<(i64, String, i64)> = self.with(|db| {
            db.all(NEXT_WAKEUPS, args![&self.actor], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
        })?;
        Ok(due
            .into_iter()
            .filter(|(id, target, _)| {
                filter.targets.contains(target)
                    && !filter.skip.contains(id)
                    && filter.job_ids.as_ref().is_none_or(|ids| ids.contains(id))
            })
            .map(|(_, _, at)| at)
            .min())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attempt_past_the_count_is_not_said_to_be_2_of_1() {
        assert_eq!(attempt_message(1, 8, "t"), "attempt 1 of 8 to t");
        let past = attempt_message(2, 1, "t");
        assert!(
            past.starts_with("attempt 2 to t, past the 1 this run allows"),
            "{past}"
        );
        assert!(past.ends_with("the last"), "{past}");
    }

    /// A database at the latest schema.
    fn latest() -> rusqlite::Connection {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        super::super::schema::migrations()
            .to_latest(&mut conn)
            .unwrap();
        conn
    }

    /// The rows of `explain` (`EXPLAIN` or `EXPLAIN QUERY PLAN`) for `sql`, each read by
    /// `read`. Compiled, not run: its parameters stay unbound.
    fn explained<T>(
        conn: &rusqlite::Connection,
        explain: &str,
        sql: &str,
        read: impl Fn(&rusqlite::Row<'_>) -> T,
    ) -> Vec<T> {
        let mut stmt = conn.prepare(&format!("{explain} {sql}")).unwrap();
        let mut rows = stmt.raw_query();
        let mut out = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            out.push(read(row));
        }
        out
    }

    /// The VDBE program SQLite compiles `sql` to: each opcode with its P2 operand.
    fn program(conn: &rusqlite::Connection, sql: &str) -> Vec<(String, i64)> {
        explained(conn, "EXPLAIN", sql, |r| {
            (r.get(1).unwrap(), r.get(3).unwrap())
        })
    }

    /// How SQLite plans to run `sql`: one line per step (`SCAN jobs USING INDEX ...`).
    fn query_plan(conn: &rusqlite::Connection, sql: &str) -> Vec<String> {
        explained(conn, "EXPLAIN QUERY PLAN", sql, |r| r.get(3).unwrap())
    }

    /// A job of dataset 1 to `target` for key `key` (a hex digit, repeated), as it ended.
    fn ended(id: i64, target: &str, key: char, state: JobState, attempts: u32) -> JobRow {
        JobRow {
            target: target.into(),
            key: key
                .to_string()
                .repeat(64)
                .parse()
                .expect("64 hex characters"),
            attempts,
            identifier: state.is_landed().then(|| format!("rec-{key}-{target}")),
            ..JobRow::for_tests(id, state)
        }
    }

    #[test]
    fn replays_fold_under_the_job_that_landed_the_same_key_on_the_same_target() {
        use JobState::*;
        let jobs = [
            ended(7, "b", 'a', Existing, 0), // replay of 2 (same target, key, record)
            ended(6, "a", 'c', Existing, 0), // a record no listed job made: stays
            ended(5, "a", 'a', Existing, 0), // replay of 1
            ended(4, "a", 'a', Failed, 8),   // not a replay
            ended(3, "a", 'a', Existing, 0), // replay of 1
            ended(2, "b", 'a', Existing, 1), // the server said exists: landed after an attempt
            ended(1, "a", 'a', Deposited, 1),
        ];
        let refs: Vec<&JobRow> = jobs.iter().collect();
        let folded = replays_by_original(&refs);
        assert_eq!(folded.get(&1), Some(&vec![5, 3]));
        assert_eq!(folded.get(&2), Some(&vec![7]));
        assert_eq!(folded.len(), 2, "{folded:?}");
        assert!(jobs[1].is_replay() && !jobs[5].is_replay() && !jobs[3].is_replay());
    }

    #[test]
    fn claims_and_outcomes_build_no_temporary_btree_on_sqlite() {
        let conn = latest();
        let statements = [
            CLAIM_JOB.to_string(),
            REPLAY_JOB.to_string(),
            FINISH_JOB.to_string(),
            LOAD_CLAIMED.to_string(),
            DUE_JOBS_LITE.to_string(),
            QUEUE_JOB.to_string(),
        ];
        for sql in statements {
            let ops = program(&conn, &sql);
            assert!(
                !ops.iter().any(|(op, _)| op == "OpenEphemeral"),
                "builds a temporary b-tree on every run: {sql}\n{ops:?}"
            );
        }
    }

    #[test]
    fn an_idle_worker_looks_only_at_active_jobs_on_sqlite() {
        let conn = latest();
        for sql in [LIVE_LEASES, NEXT_WAKEUPS, DUE_JOBS_LITE] {
            let plan = query_plan(&conn, sql);
            assert!(
                plan.iter().any(|d| d.contains("jobs_due"))
                    && !plan.iter().any(|d| d == "SCAN jobs"),
                "reads every job ever run instead of the active ones: {sql}\n{plan:?}"
            );
        }
    }

    #[test]
    fn a_claim_leaves_the_one_active_job_per_scope_index_alone_on_sqlite() {
        let conn = latest();
        let root: i64 = conn
            .query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = 'jobs_one_active_per_scope'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let writes_index = |set: &str| {
            program(&conn, &format!("UPDATE jobs SET {set} WHERE id = ?1"))
                .iter()
                .any(|(op, p2)| op == "OpenWrite" && *p2 == root)
        };
        assert!(
            !writes_index(CLAIM_SET),
            "a claim rewrites a random index page"
        );
        assert!(
            writes_index(OUTCOME_SET),
            "an outcome can end the job: it must"
        );
    }
}
