//! One guarded deposit: the steps a worker takes for a claimed job.
//!
//! 1. Replay: the store already has a result for (target, operation, key) -> done, nothing
//!    is sent (invariant 4). The claim itself does this, in its own transaction.
//! 2. The claim counted the attempt. After an earlier attempt, reconcile: ask the target
//!    whether the key already landed (the earlier response may have been lost).
//! 3. Check that the files are as scanned, send the data, write the record conditionally.
//! 4. Classify the outcome (invariant 5) and commit it with its event, under the fence.
//!
//! While 2-3 run, a heartbeat renews the lease; if it is lost, the attempt is abandoned and
//! whatever it might still say is refused by the fence check.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{Engine, EngineError, EngineEvent, RetryDecision};
use crate::content::{ContentDocument, FileStamp};
use crate::store::{
    AttemptInput, EventKind, EventRow, FileScan, Finish, JobRow, KeyCopy, Lease, StoreError, now_ms,
};
use crate::targets::{
    DepositRequest, Failure, FailureClass, FilesStored, Landed, ProgressSink, RecordRef, Target,
};
use crate::wording::count_of;

/// How long what a failed attempt got through ([`FilesStored`]) is trusted for the job's
/// next attempt: retries come within minutes (a long Retry-After, at most ten); past this,
/// every file is sent again.
const FILES_STORED_FOR: Duration = Duration::from_secs(15 * 60);

/// How the log begins an "exists" that brought the record to what the target makes of it
/// ([`Landed::Updated`]), before the change and the identifier.
pub const EXISTS_AND: &str = "server says it already exists, and ";

/// How the log begins the look-up before a retry that found no record of the key (the
/// store's totals tell such a look-up from one that found the record by it).
pub use crate::store::NONE_FOUND;

/// Said of a job that failed for good after an attempt whose answer was lost, when no
/// look-up could tell whether that attempt made its record.
pub const EARLIER_ANSWER_LOST: &str = "an earlier attempt's answer was lost, so its record may \
                                       be on the server: a retry looks the key up before \
                                       sending again";

/// Whether an attempt of a job (its `events`, in order) left its outcome unknown, its
/// answer lost (or its process ended mid-attempt: killed, crashed, and the job taken over),
/// with no look-up since that found no record: only then may the job's own attempt have
/// made what the server has.
pub fn answer_lost_in(events: &[EventRow]) -> bool {
    // A look-up that found no record since the lost answer says that attempt made none:
    // what the server had after it, another deposit of the same content made.
    let (unknown, _) = events
        .iter()
        .fold((false, false), |(unknown, sending), e| match e.kind {
            EventKind::Attempt => (unknown, true),
            EventKind::RetryScheduled if e.message.contains(": outcome unknown") => (true, false),
            // An attempt under way when its lease was taken over: what it sent may have
            // landed before its process ended.
            EventKind::Reclaimed if sending => (true, false),
            EventKind::Reconciled if e.message.starts_with(NONE_FOUND) => (false, false),
            EventKind::RetryScheduled | EventKind::Reconciled => (unknown, false),
            _ => (unknown, sending),
        });
    unknown
}

/// Whether a job's deposit (its `events`, in order) landed as `existing` on finding its
/// record on the server, by the look-up before a retry or by the server's "exists", after an
/// attempt of its own whose answer was lost: most likely that attempt made the record (else
/// an earlier deposit of the same content did). Events after the landing (a later check's)
/// do not count.
pub fn landed_after_lost_answer(events: &[EventRow]) -> bool {
    let landing = events.iter().rposition(|e| match e.kind {
        EventKind::Reconciled => !e.message.starts_with(NONE_FOUND),
        EventKind::Existing | EventKind::Created | EventKind::Replay => true,
        _ => false,
    });
    landing.is_some_and(|at| {
        matches!(events[at].kind, EventKind::Reconciled | EventKind::Existing)
            && answer_lost_in(&events[..at])
    })
}

/// What an attempt produced, before it is recorded.
enum AttemptOutcome {
    Landed(Landed),
    /// Reconciliation found the key's record on the server before sending again.
    Reconciled(RecordRef),
    Failed(Failure),
}

impl Engine {
    /// Run one claimed attempt (already counted by the claim) to the job's next recorded
    /// state.
    pub(super) async fn run_guarded(
        &self,
        mut lease: Lease,
        mut input: AttemptInput,
        shutdown: &CancellationToken,
    ) -> Result<(), EngineError> {
        if !self.stand_in_copy(&mut lease, &mut input).await? {
            return Ok(());
        }
        let job = lease.job.clone();
        let Some(target) = self.targets.get(&job.target).cloned() else {
            // The claim filter only hands out jobs of our targets; be safe anyway.
            return self
                .record(
                    &lease,
                    Finish::Release {
                        message: format!("this worker cannot reach {}", job.target),
                        not_before: None,
                        attempt_made: false,
                    },
                )
                .await;
        };
        if job.dataset_id.is_none() {
            let id = job.id;
            let folder = self.db(move |s| s.removed_dataset_of_job(id)).await?;
            let message = match folder {
                // Who removed it: on a shared database, perhaps someone at another machine.
                Some((folder, by)) => format!(
                    "the dataset {folder} was removed from Lodge (by {by}): add its folder again"
                ),
                None => "the dataset was removed from Lodge: add its folder again".to_string(),
            };
            return self.reject(&lease, &message).await;
        }
        let (Some(document), Some(root)) = (input.document, job.dataset_path.clone()) else {
            return self
                .reject(
                    &lease,
                    "the store has no document for this key: add the dataset again",
                )
                .await;
        };

        // On a shared store the folder may be on another machine: leave the job to one that
        // can read it rather than call the data changed.
        let here = self.store.host();
        if let Some(origin) = input.origin.as_deref()
            && origin != here
            && !Path::new(&root).is_dir()
        {
            self.left_for_others().insert(job.id);
            return self
                .record(
                    &lease,
                    Finish::LeaveForOthers {
                        message: format!(
                            "cannot read {root} on {here}: the dataset was added on {origin}; \
                             left for a machine that can read it"
                        ),
                    },
                )
                .await;
        }

        let attempt = self.attempt(
            &lease,
            &target,
            &document,
            Path::new(&root),
            &input.files,
            input.dataset_key,
        );
        let outcome = tokio::select! {
            outcome = attempt => outcome?,
            () = self.keep_lease(lease.clone()) => {
                // Lost the lease mid-attempt: someone else owns the job now.
                let l = lease.clone();
                let row = self.db(move |s| s.log_stale_lease(&l, "attempt abandoned")).await?;
                self.logged(row);
                return Ok(());
            }
            () = shutdown.cancelled() => {
                // Whatever was in flight is ambiguous; the next attempt reconciles first.
                return self.record(&lease, Finish::Release {
                    message: "stopped before the attempt finished; back on the queue".into(),
                    not_before: None,
                    attempt_made: true,
                }).await;
            }
        };

        let finish = match outcome {
            AttemptOutcome::Landed(Landed::Created(record)) => Finish::Landed {
                message: format!("created {}", record.identifier),
                record,
                created: true,
                kind: EventKind::Created,
                http_status: Some(201),
            },
            AttemptOutcome::Landed(Landed::NewVersion { record, of }) => Finish::Landed {
                message: format!("created {}, the next version of {of}", record.identifier),
                record,
                created: true,
                kind: EventKind::Created,
                http_status: Some(201),
            },
            AttemptOutcome::Landed(Landed::Existing(record)) => Finish::Landed {
                message: format!("server says it already exists: {}", record.identifier),
                record,
                created: false,
                kind: EventKind::Existing,
                http_status: None,
            },
            AttemptOutcome::Landed(Landed::Updated { record, change }) => Finish::Landed {
                message: format!("{EXISTS_AND}{change}: {}", record.identifier),
                record,
                created: false,
                kind: EventKind::Existing,
                http_status: Some(200),
            },
            AttemptOutcome::Reconciled(record) => Finish::Landed {
                // Looked up before sending again: the record of the key may be an
                // earlier attempt's whose answer was lost, or another deposit's of the same
                // content (another target of the same site, another Lodge).
                message: format!(
                    "reconciled: the server already has {} for this key (made by an earlier \
                     attempt whose answer was lost, or by another deposit of the same content)",
                    record.identifier
                ),
                record,
                created: false,
                kind: EventKind::Reconciled,
                http_status: None,
            },
            AttemptOutcome::Failed(failure) => match self.decide(&lease, &failure) {
                failed @ Finish::Failed { .. }
                    if failure.class() == FailureClass::RetryAmbiguous && target.can_lookup() =>
                {
                    self.last_look(&lease, &target, &document, failed).await
                }
                // This attempt made nothing (a 503, or its look-up failed), but an earlier
                // one's answer was lost: its record may be there. Look once more, and if
                // that cannot tell either, say so rather than that nothing was made.
                Finish::Failed { error, http_status }
                    if failure.class() == FailureClass::Retry
                        && self.answer_lost_before(&lease).await =>
                {
                    let failed = Finish::Failed {
                        error: format!("{error}; {EARLIER_ANSWER_LOST}"),
                        http_status,
                    };
                    match target.can_lookup() {
                        true => self.last_look(&lease, &target, &document, failed).await,
                        false => failed,
                    }
                }
                finish => finish,
            },
        };
        self.record(&lease, finish).await
    }

    /// Said of a job that gave up after `attempts`, more than the bound this engine allows:
    /// the attempts a run before this one made (with a larger bound) count too, so it
    /// stopped after its first here.
    fn past_the_bound(&self, attempts: u32) -> String {
        let bound = self.config.retry.max_attempts;
        match attempts > bound {
            true => format!(
                " (this run allows {}: the attempts of the runs before it count too)",
                count_of(bound, "attempt", "attempts")
            ),
            false => String::new(),
        }
    }

    /// Whether an earlier attempt of the job under `lease` left its outcome unknown, with no
    /// look-up since that found nothing: its record may be on the server though this
    /// attempt's failure says nothing was made. (Read from the job's log; a job that fails
    /// for good is rare, so the read is too.)
    async fn answer_lost_before(&self, lease: &Lease) -> bool {
        let id = lease.job.id;
        match self.db(move |s| s.events_for_job(id)).await {
            Ok(events) => answer_lost_in(&events),
            // Not known: said as the failure says it.
            Err(_) => false,
        }
    }

    /// The last attempt allowed went out and its answer was lost (a timeout, a reset, a
    /// 5xx): it may have landed. Look the key up once before giving up, as a retry would
    /// have looked first, so a record on the server is not called failed. Found, the job
    /// ends with it; otherwise (nothing found, or the look failed too) as `failed` says.
    async fn last_look(
        &self,
        lease: &Lease,
        target: &Arc<dyn Target>,
        document: &ContentDocument,
        failed: Finish,
    ) -> Finish {
        match target.reconcile(&lease.job.key, document).await {
            Ok(Some(record)) => Finish::Landed {
                message: format!(
                    "reconciled: the server has {} for this key (an attempt's answer was \
                     lost; looked up before giving up)",
                    record.identifier
                ),
                record,
                created: false,
                kind: EventKind::Reconciled,
                http_status: None,
            },
            _ => failed,
        }
    }

    /// A job whose dataset's folder is gone from this machine takes its files from another
    /// dataset with its key whose folder is here: the folder moved and added again where it
    /// is now, say. So does a job of another machine's dataset (a shared database) whose
    /// folder this machine cannot read, where this machine added a copy of it: a lab's
    /// machines each with the same data need not wait for the one that queued it. The same
    /// key means the same files and metadata, so it is the same deposit, and the files are
    /// still checked against that dataset's scan before anything is sent. Without a copy
    /// the job goes on as it was (and is refused, naming the gone folder, or left for the
    /// machine that can read it). A removed dataset's job is not handed on: removing it said not to deposit
    /// it (unless its folder is added again, see `Store::enqueue_deposits`). `false` when
    /// the lease was lost meanwhile: nothing more to do.
    async fn stand_in_copy(
        &self,
        lease: &mut Lease,
        input: &mut AttemptInput,
    ) -> Result<bool, EngineError> {
        let job = &lease.job;
        let gone_here = |folder: &str| {
            input
                .origin
                .as_deref()
                .is_none_or(|o| o == self.store.host())
                && folder_is_gone(Path::new(folder))
        };
        let added_on =
            (input.origin.as_deref()).filter(|o| !o.is_empty() && *o != self.store.host());
        let name = job.dataset_name.as_deref().unwrap_or("the dataset");
        let why_not_its_own = match (job.dataset_id, job.dataset_path.as_deref()) {
            (Some(_), Some(folder)) if gone_here(folder) => {
                format!("the folder of {name} ({folder}) is gone")
            }
            (Some(_), Some(folder))
                if let Some(origin) = added_on
                    && !Path::new(folder).is_dir() =>
            {
                format!(
                    "{name} was added on {origin}, and its folder {folder} is not on {}",
                    self.store.host()
                )
            }
            _ => return Ok(true),
        };
        let (key, except) = (job.key, job.dataset_id);
        let copies = self.db(move |s| s.copies_of_key(&key, except)).await?;
        for copy in copies.into_iter().filter(is_here) {
            let why = format!(
                "sending the files of {} ({}), dataset {}, which has the same key: {why_not_its_own}",
                copy.name, copy.path, copy.dataset_id
            );
            let l = lease.clone();
            let handed = self
                .db(move |s| {
                    let mut l = l.clone();
                    let handed = s.hand_job_to_copy(&mut l, &copy, &why)?;
                    Ok(handed.map(|(input, row)| (l, input, row)))
                })
                .await;
            match handed {
                Ok(Some((handed_lease, copy_input, row))) => {
                    self.logged(row);
                    *lease = handed_lease;
                    *input = copy_input;
                    return Ok(true);
                }
                // Rescanned to another key or removed since it was listed: try the next.
                Ok(None) => {}
                Err(EngineError::Store(StoreError::StaleLease { .. })) => {
                    let l = lease.clone();
                    let row = self
                        .db(move |s| s.log_stale_lease(&l, "attempt abandoned"))
                        .await?;
                    self.logged(row);
                    return Ok(false);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    /// Reconcile (after an earlier attempt), check the files, upload, create the record.
    async fn attempt(
        &self,
        lease: &Lease,
        target: &Arc<dyn Target>,
        document: &ContentDocument,
        root: &Path,
        files: &[FileScan],
        dataset_key: Option<crate::content::ContentKey>,
    ) -> Result<AttemptOutcome, EngineError> {
        let job = &lease.job;
        if job.attempts > 1 && target.can_lookup() {
            match target.reconcile(&job.key, document).await {
                Ok(Some(record)) => return Ok(AttemptOutcome::Reconciled(record)),
                Ok(None) => {
                    let l = lease.clone();
                    let row = self
                        .db(move |s| {
                            s.log_for_lease(
                                &l,
                                EventKind::Reconciled,
                                // Not "did not land": a drafting site's draft, or files
                                // sent, may be there, to be taken up by this attempt.
                                &format!("{NONE_FOUND} (the attempts before did not finish it)"),
                                Some(404),
                            )
                        })
                        .await;
                    match row {
                        Ok(row) => self.logged(row),
                        Err(EngineError::Store(StoreError::StaleLease { .. })) => {}
                        Err(e) => return Err(e),
                    }
                }
                Err(failure) => return Ok(AttemptOutcome::Failed(failure)),
            }
        }

        if dataset_key != Some(job.key) {
            return Ok(AttemptOutcome::Failed(Failure::Changed {
                path: root.display().to_string(),
                message: "the dataset was rescanned or its metadata edited since this job \
                          was queued, so its key changed: deposit it again to send it as it is \
                          now"
                .into(),
            }));
        }
        // A stat of each file; the bytes of those whose time alone moved are hashed off the
        // runtime's threads (rare: a `touch`, a copy of the same file over it).
        let touched = match stat_unchanged(root, files) {
            Ok(touched) => touched,
            Err(failure) => return Ok(AttemptOutcome::Failed(failure)),
        };
        if !touched.is_empty() {
            let folder = root.to_path_buf();
            let verdict = tokio::task::spawn_blocking(move || same_bytes(&folder, &touched))
                .await
                .unwrap_or_else(|e| {
                    Err(Failure::NotSent {
                        message: format!("checking the files against their scan stopped: {e}"),
                    })
                });
            if let Err(failure) = verdict {
                return Ok(AttemptOutcome::Failed(failure));
            }
        }

        // Only a target that links versions needs the earlier record: one store call
        // fewer per deposit everywhere else.
        let earlier_records = match job.dataset_id {
            Some(dataset) if target.links_versions() => {
                let (scopes, key) = (crate::targets::same_work_scopes(&job.target), job.key);
                self.db(move |s| s.earlier_version_records(dataset, &scopes, &key))
                    .await?
            }
            _ => Vec::new(),
        };
        let files_stored = self.files_stored_before(job.id);
        let request = DepositRequest {
            key: job.key,
            document,
            root,
            earlier_records: &earlier_records,
            files_stored: &files_stored,
        };
        let progress = self.progress_sink(job.id, job.dataset_id, document.total_size());
        if let Err(failure) = target.upload(&request, progress).await {
            // The rejection asks for a rescan; the hash cache would give it the file's old
            // digest (its size and time did not change), and the rescan would see nothing.
            if let Some(path) = failure.content_changed_path() {
                let path = path.to_string();
                let _ = self.db(move |s| s.forget_digest(&path)).await;
            }
            self.keep_files_stored(job.id, files_stored);
            return Ok(AttemptOutcome::Failed(failure));
        }
        Ok(match target.create_record(&request).await {
            Ok(landed) => AttemptOutcome::Landed(landed),
            Err(failure) => {
                self.keep_files_stored(job.id, files_stored);
                AttemptOutcome::Failed(failure)
            }
        })
    }

    /// The files job `job`'s last attempt here got through, when it failed not long ago
    /// (taken: the attempt now running notes its own); none otherwise.
    fn files_stored_before(&self, job: i64) -> FilesStored {
        let mut kept = self.files_stored.lock().unwrap_or_else(|e| e.into_inner());
        match kept.remove(&job) {
            Some((at, stored)) if at.elapsed() < FILES_STORED_FOR => stored,
            _ => FilesStored::default(),
        }
    }

    /// Keep what a failed attempt of `job` got through for its next attempt.
    fn keep_files_stored(&self, job: i64, stored: FilesStored) {
        if stored.is_empty() {
            return;
        }
        let mut kept = self.files_stored.lock().unwrap_or_else(|e| e.into_inner());
        // Jobs given up on, or taken over by another process, leave theirs behind.
        if kept.len() >= 1024 {
            kept.retain(|_, (at, _)| at.elapsed() < FILES_STORED_FOR);
        }
        kept.insert(job, (std::time::Instant::now(), stored));
    }

    fn progress_sink(&self, job: i64, dataset: Option<i64>, total: u64) -> ProgressSink {
        let sent = Arc::new(AtomicU64::new(0));
        let events = self.events.clone();
        Arc::new(move |n| {
            let now = sent.fetch_add(n, Ordering::Relaxed) + n;
            let _ = events.send(EngineEvent::Progress {
                job,
                dataset,
                sent: now,
                total,
            });
        })
    }

    /// Renew the lease every third of its term; return only when it is lost.
    async fn keep_lease(&self, mut lease: Lease) {
        let every = self.config.lease / 3;
        let lease_for = self.config.lease;
        loop {
            tokio::time::sleep(every).await;
            let l = lease.clone();
            match self
                .db(move |s| {
                    let mut l = l.clone();
                    s.renew_lease(&mut l, lease_for).map(|ok| (ok, l))
                })
                .await
            {
                Ok((true, l)) => lease = l,
                Ok((false, _)) => return,
                // The database is briefly unavailable: keep trying while the lease lasts.
                Err(_) if now_ms() < lease.expires_at => continue,
                Err(_) => return,
            }
        }
    }

    /// Why no retry fits before the job's deadline, `remaining` from now: the wait the
    /// server asked for (Retry-After) is longer, or the deadline is reached.
    fn past_the_deadline(&self, failure: &Failure, remaining: Duration) -> String {
        let cap = self.config.retry.retry_after_cap;
        match failure.retry_after() {
            Some(asked) if asked.min(cap) > remaining => format!(
                "the server asked to wait {}{}, past the deadline ({} from now: a longer \
                 --deadline waits for it)",
                crate::wording::wait_text(asked),
                match asked > cap {
                    true => format!(" (Lodge waits at most {})", crate::wording::wait_text(cap)),
                    false => String::new(),
                },
                crate::wording::wait_text(remaining)
            ),
            _ => "deadline reached".into(),
        }
    }

    /// Turn a failure into the job's next state (invariants 5 and 6).
    fn decide(&self, lease: &Lease, failure: &Failure) -> Finish {
        let error = failure.to_string();
        let http_status = failure.http_status();
        match failure.class() {
            FailureClass::Terminal => Finish::Rejected { error, http_status },
            FailureClass::PauseTarget => Finish::PauseTarget { error, http_status },
            FailureClass::FailNow => Finish::Failed { error, http_status },
            FailureClass::Retry | FailureClass::RetryAmbiguous => {
                let remaining =
                    Duration::from_millis((lease.job.deadline - now_ms()).max(0) as u64);
                let decision = {
                    let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
                    self.config.retry.decide(
                        lease.job.attempts,
                        failure.retry_after(),
                        remaining,
                        &mut *rng,
                    )
                };
                match decision {
                    RetryDecision::After(delay) => Finish::Retry {
                        not_before: now_ms() + delay.as_millis() as i64,
                        delay,
                        error,
                        http_status,
                    },
                    RetryDecision::AttemptsExhausted => Finish::Failed {
                        error: format!(
                            "gave up after {}{}{}; last: {error}",
                            count_of(lease.job.attempts, "attempt", "attempts"),
                            in_all(&lease.job),
                            self.past_the_bound(lease.job.attempts)
                        ),
                        http_status,
                    },
                    RetryDecision::DeadlinePassed => Finish::Failed {
                        error: format!(
                            "{} after {}{}; last: {error}",
                            self.past_the_deadline(failure, remaining),
                            count_of(lease.job.attempts, "attempt", "attempts"),
                            in_all(&lease.job)
                        ),
                        http_status,
                    },
                }
            }
        }
    }

    async fn reject(&self, lease: &Lease, error: &str) -> Result<(), EngineError> {
        self.record(
            lease,
            Finish::Rejected {
                error: error.to_string(),
                http_status: None,
            },
        )
        .await
    }

    /// Commit an outcome under the fence and tell the front ends. A refused (stale) result is
    /// logged as such and is not an error of the engine.
    ///
    /// The worker does not wait for the commit: the store thread runs calls in the order they
    /// were submitted, so the worker's next claim (and any other worker's) is served after
    /// this outcome is in, and both usually share one group commit. The store thread sends
    /// the events once the commit is durable; a store error is kept and ends the batch at
    /// the next claim.
    pub(super) async fn record(&self, lease: &Lease, finish: Finish) -> Result<(), EngineError> {
        if matches!(finish, Finish::PauseTarget { .. }) {
            // Jobs of this target claimed ahead are not sent (see `Engine::take_ahead`).
            self.paused_here().insert(lease.job.target.clone());
        }
        let l = lease.clone();
        let events = self.events.clone();
        let deferred = self.deferred_error.clone();
        let committed = self.committed.clone();
        let batch = self.batch_of(lease.job.id);
        self.store_thread.submit_then(
            move |s| match s.finish(&l, &finish) {
                Ok((job, row)) => Ok((Some(job), row)),
                Err(StoreError::StaleLease { .. }) => s
                    .log_stale_lease(&l, "outcome not recorded")
                    .map(|row| (None, row)),
                Err(e) => Err(e),
            },
            // Runs on the store thread once the outcome is durable.
            move |recorded| match recorded {
                Ok((job, row)) => {
                    if let (Some(batch), Some(job)) = (&batch, &job) {
                        batch.committed(job);
                    }
                    committed.notify_waiters();
                    let _ = events.send(EngineEvent::Logged(row));
                    if let Some(job) = job {
                        let _ = events.send(EngineEvent::JobChanged(job));
                    }
                }
                Err(e) => {
                    deferred
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(EngineError::Store(e));
                }
            },
        )?;
        Ok(())
    }
}

/// The folder is not there at all (moved or deleted), as opposed to there but unreadable.
pub fn folder_is_gone(folder: &Path) -> bool {
    std::fs::metadata(folder).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
}

/// Of the copies of a key (`Store::copies_of_key`), the first whose folder is here: the one
/// a job whose own folder is gone sends the files of.
pub fn first_copy_here(copies: Vec<KeyCopy>) -> Option<KeyCopy> {
    copies.into_iter().find(is_here)
}

fn is_here(copy: &KeyCopy) -> bool {
    Path::new(&copy.path).is_dir()
}

/// Every file still as the scan saw it: by its size and modification time, and where only
/// the time moved (a `touch`, the same file copied over it), by its bytes. Hashes those
/// files, so an async caller uses [`stat_unchanged`] and [`same_bytes`] apart.
pub fn check_unchanged(root: &Path, files: &[FileScan]) -> Result<(), Failure> {
    let touched = stat_unchanged(root, files)?;
    same_bytes(root, &touched)
}

/// The folder there and every scanned file in it at its scanned size, from one `stat`
/// each, and none of them left out since by a `.lodgeignore`: the files whose modification
/// time moved since (only their bytes tell whether they changed), or why the folder is no
/// longer as scanned.
pub fn stat_unchanged(root: &Path, files: &[FileScan]) -> Result<Vec<FileScan>, Failure> {
    let gone = "the dataset's folder is gone (moved or deleted since it was scanned): put it \
                back and deposit again, or add the folder where it is now (lodge add NEWPATH)";
    let message = match std::fs::metadata(root) {
        Ok(md) if md.is_dir() => None,
        // A file where the folder was (the folder replaced, or a name reused).
        Ok(_) => Some(format!("{gone}; a file has its name now, not a folder")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(gone.to_string()),
        Err(e) => Some(format!(
            "the dataset's folder cannot be read any more ({}): let Lodge read it (its \
             permissions, its disk), then deposit again",
            crate::wording::io_cause(&e)
        )),
    };
    if let Some(message) = message {
        return Err(Failure::Changed {
            path: root.display().to_string(),
            message,
        });
    }
    let mut touched = Vec::new();
    for f in files {
        let path: PathBuf = crate::content::on_disk(root, &f.rel_path);
        let metadata = std::fs::symlink_metadata(&path).map_err(|e| match e.kind() {
            // The commonest change of all, said plainly rather than as the system's error.
            std::io::ErrorKind::NotFound => Failure::Changed {
                path: path.display().to_string(),
                message: "deleted (or moved or renamed) since the scan".into(),
            },
            // A folder on its path is a file now.
            std::io::ErrorKind::NotADirectory => Failure::Changed {
                path: path.display().to_string(),
                message: "deleted (or moved or renamed) since the scan: a folder on its path \
                          is a file now"
                    .into(),
            },
            _ => Failure::reading_local_file(&path, "cannot read it any more", &e),
        })?;
        // Its size would be the link's own (the length of the path it names).
        if metadata.file_type().is_symlink() {
            return Err(Failure::Changed {
                path: path.display().to_string(),
                message: "is now a symbolic link, which Lodge does not follow".into(),
            });
        }
        let stamp = FileStamp::from_metadata(path.clone(), &metadata);
        if stamp.size != f.size {
            return Err(Failure::Changed {
                path: path.display().to_string(),
                message: format!("size is now {} bytes, was {}", stamp.size, f.size),
            });
        }
        // Another file under the name (its inode differs: `cp -p`, `rsync -a` replace a
        // file keeping its size and time) is as good as touched: its bytes tell.
        let replaced = f.file_id != 0 && stamp.file_id != 0 && stamp.file_id != f.file_id;
        if stamp.mtime_ns != f.mtime_ns || replaced {
            touched.push(f.clone());
        }
    }
    // Unchanged, but left out since by a `.lodgeignore`: a person said not to send it.
    let paths = files.iter().map(|f| f.rel_path.as_str());
    if let Some((rel, by)) = crate::content::left_out_since_scan(root, paths) {
        return Err(Failure::Changed {
            path: crate::content::on_disk(root, rel).display().to_string(),
            message: format!(
                "{} leaves it out since the scan, which took it in: a deposit would still \
                 send it",
                by.display()
            ),
        });
    }
    Ok(touched)
}

/// `touched` (of [`stat_unchanged`]) still hold the bytes the scan hashed.
pub fn same_bytes(root: &Path, touched: &[FileScan]) -> Result<(), Failure> {
    for f in touched {
        let path: PathBuf = crate::content::on_disk(root, &f.rel_path);
        let (digest, _) = std::fs::File::open(&path)
            .and_then(crate::content::sha256_reader)
            .map_err(|e| Failure::reading_local_file(&path, "cannot read it any more", &e))?;
        if digest.to_hex() != f.sha256 {
            return Err(Failure::Changed {
                path: path.display().to_string(),
                message: "modified since it was scanned".into(),
            });
        }
    }
    Ok(())
}

/// After a round's count of attempts, those of the rounds before it (a `retry` starts the
/// count again), so a failure says the same number as the history: " (13 in all)".
fn in_all(job: &JobRow) -> String {
    match job.attempts_before {
        0 => String::new(),
        _ => format!(" ({} in all)", job.attempts_in_all()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: i64, kind: EventKind, message: &str) -> EventRow {
        EventRow::for_tests_saying(id, kind, message)
    }

    #[test]
    fn a_record_found_after_the_jobs_own_lost_answer_counts_as_landed_after_it_until_checked_later()
    {
        let attempt = event(1, EventKind::Attempt, "attempt 1 of 8");
        let lost = event(
            2,
            EventKind::RetryScheduled,
            "retry in 1 s after attempt 1: outcome unknown (connection reset)",
        );
        let busy = event(
            2,
            EventKind::RetryScheduled,
            "retry in 1 s after attempt 1: server busy (HTTP 503): nothing was committed",
        );
        let found = event(
            3,
            EventKind::Reconciled,
            "reconciled: the server already has r-1",
        );
        let exists = event(3, EventKind::Existing, "server says it already exists: r-1");
        let none_found = event(3, EventKind::Reconciled, &format!("{NONE_FOUND} (the ...)"));
        let verified = event(9, EventKind::Verified, "verified intact");

        let landed = |events: &[&EventRow]| {
            landed_after_lost_answer(&events.iter().map(|e| (*e).clone()).collect::<Vec<_>>())
        };
        assert!(landed(&[&attempt, &lost, &found]));
        assert!(landed(&[&attempt, &lost, &exists]));
        // A later check of the deposit leaves how it landed as it was.
        assert!(landed(&[&attempt, &lost, &found, &verified]));
        // After a 503 nothing was made: the server had it before.
        assert!(!landed(&[&attempt, &busy, &found]));
        // A look-up found nothing after the lost answer: that attempt made nothing.
        assert!(!landed(&[&attempt, &lost, &none_found, &attempt, &exists]));
        // Created by this job, or answered from the store: not a find.
        let created = event(3, EventKind::Created, "created r-1");
        assert!(!landed(&[&attempt, &lost, &attempt, &created]));
        assert!(!landed(&[&event(1, EventKind::Replay, "replayed")]));
        assert!(!landed(&[]));
        // Its process ended mid-attempt (a kill), the job taken over: that attempt may
        // have made the record found.
        let reclaimed = event(2, EventKind::Reclaimed, "the lease of vm/1/ab ended");
        assert!(landed(&[&attempt, &reclaimed, &attempt, &found]));
        assert!(landed(&[&attempt, &reclaimed, &attempt, &exists]));
        // Taken over with no attempt of its own under way: nothing of it was sent.
        assert!(!landed(&[&reclaimed, &attempt, &found]));
    }
}
