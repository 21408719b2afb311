//! The engine: guarded deposits run by a pool of tokio workers over the durable queue.
//!
//! A worker claims a job with a lease and a fencing token, then runs the guarded deposit in
//! [`guarded`]: replay from the store if the scope already has a result, otherwise reconcile
//! (after an earlier attempt), check the files, upload, write the record conditionally,
//! classify what happened and commit the outcome with its event in one transaction. Retries
//! are scheduled in the store (state `waiting`), so a crash loses nothing and a restart in
//! another process carries on.

mod batch;
mod guarded;
pub mod landing;
mod liveness;
pub use liveness::{
    LodgeProgram, expire_dead_leases, held_by_this_process, is_being_sent, lease_owner,
    owner_alive, owner_process, owner_program, owner_text,
};
pub mod repair;
pub mod requeue;
pub mod retry;
mod store_thread;
pub mod verify;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::SeedableRng;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::store::{
    AttemptInput, Claim, ClaimFilter, EventRow, Finish, JobRow, Lease, Store, StoreError, now_ms,
};
use crate::targets::Target;
use batch::Batch;
pub use guarded::{
    EARLIER_ANSWER_LOST, EXISTS_AND, NONE_FOUND, answer_lost_in, check_unchanged, first_copy_here,
    folder_is_gone, landed_after_lost_answer,
};
pub use retry::{RetryDecision, RetryPolicy};
pub use store_thread::STORE_THREADS;

/// How the engine runs.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Jobs in flight at once.
    pub concurrency: usize,
    pub retry: RetryPolicy,
    /// How long a claim holds a job; renewed every third of it while the job runs.
    pub lease: Duration,
    /// Longest sleep between looks at the queue while every worker is idle (for jobs that
    /// another process queued, or leases it left to expire). One idle worker looks; the
    /// others sleep until something of this process wakes them.
    pub poll: Duration,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            concurrency: 4,
            retry: RetryPolicy::default(),
            lease: Duration::from_secs(30),
            poll: Duration::from_millis(500),
        }
    }
}

/// What the engine tells front ends as it works.
#[derive(Clone, Debug)]
pub enum EngineEvent {
    /// An event was committed to the log.
    Logged(EventRow),
    /// Bytes sent for a job so far, of its total.
    Progress {
        job: i64,
        dataset: Option<i64>,
        sent: u64,
        total: u64,
    },
    /// A job changed state (after its event was committed).
    JobChanged(JobRow),
}

/// A claim sent to the store thread ahead of time.
type ClaimAhead = tokio::sync::oneshot::Receiver<Result<Claim, StoreError>>;

/// A worker's next job, claimed while it sends one: the claim on its way from the store
/// thread, or in (with the lease it holds, kept renewed until the worker gets to it).
enum Ahead {
    Coming(ClaimAhead),
    In(Result<Claim, EngineError>),
}

impl Ahead {
    /// The claim, once the store thread has answered.
    async fn claim(self) -> Result<Claim, EngineError> {
        match self {
            Ahead::Coming(claimed) => {
                Ok(claimed.await.map_err(|_| store_thread::StoreThreadGone)??)
            }
            Ahead::In(claim) => claim,
        }
    }
}

/// Errors that stop the engine itself (not a job).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("a store task failed: {0}")]
    Join(#[from] tokio::task::JoinError),
    #[error(transparent)]
    StoreThread(#[from] store_thread::StoreThreadGone),
}

/// A batch registered with its engine while it runs, so that its jobs' outcomes are kept
/// in it; unregistered when the run ends, however it ends (a dropped future included).
struct RunningBatch<'a> {
    engine: &'a Engine,
    batch: Arc<Batch>,
}

impl<'a> RunningBatch<'a> {
    fn register(engine: &'a Engine, batch: &Arc<Batch>) -> RunningBatch<'a> {
        engine.batches_running().push(batch.clone());
        RunningBatch {
            engine,
            batch: batch.clone(),
        }
    }
}

impl Drop for RunningBatch<'_> {
    fn drop(&mut self) {
        let batch = &self.batch;
        self.engine
            .batches_running()
            .retain(|b| !Arc::ptr_eq(b, batch));
    }
}

/// The role of the one idle worker that looks at the queue on a timer, held while it
/// sleeps. Only the watcher reads the store while the engine idles: eight workers each
/// polling twice a second was a window's whole idle load.
struct Watch<'a>(&'a AtomicBool);

impl<'a> Watch<'a> {
    /// The role, if no other worker holds it.
    fn take(watching: &'a AtomicBool) -> Option<Watch<'a>> {
        watching
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .ok()
            .map(|_| Watch(watching))
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The worker pool, the targets it can reach, and the channel it reports on.
pub struct Engine {
    store: Arc<Store>,
    store_thread: store_thread::StoreThread,
    /// A store error from an outcome recorded without waiting; ends the batch.
    deferred_error: Arc<Mutex<Option<EngineError>>>,
    /// Jobs given back because their folder is on another machine (shared store): this
    /// engine does not claim them again, and a batch does not wait for them.
    left_for_others: Mutex<HashSet<i64>>,
    /// Targets this engine paused (credentials refused, a redirect...): a job of theirs
    /// claimed ahead is checked against the store before anything is sent.
    paused_here: Mutex<HashSet<String>>,
    /// Signalled whenever an outcome of this engine is committed, and by [`Engine::wake`]:
    /// a worker with nothing due waits on it (the watcher also on its timer), since the
    /// outcome may settle its batch or put a job back on the queue.
    committed: Arc<tokio::sync::Notify>,
    /// Whether an idle worker is watching the queue on a timer (see [`Watch`]).
    watching: AtomicBool,
    /// The batches running now: a committed outcome of one of their jobs is kept there.
    batches: Mutex<Vec<Arc<Batch>>>,
    /// By job: the files its last attempt here got through before it failed, and when, for
    /// its next attempt to send only the rest ([`crate::targets::FilesStored`]).
    files_stored: Mutex<HashMap<i64, (std::time::Instant, crate::targets::FilesStored)>>,
    targets: HashMap<String, Arc<dyn Target>>,
    config: EngineConfig,
    owner: String,
    events: broadcast::Sender<EngineEvent>,
    rng: Mutex<rand::rngs::StdRng>,
}

impl Engine {
    /// An engine over `store`'s database. The engine opens a connection of its own for its
    /// store thread.
    pub fn new(store: Arc<Store>, config: EngineConfig) -> Result<Engine, EngineError> {
        let (events, _) = broadcast::channel(4096);
        Ok(Engine {
            store_thread: store_thread::StoreThread::spawn(
                store.reopen()?,
                store.reopen_for_checkpoints()?,
            ),
            deferred_error: Arc::default(),
            left_for_others: Mutex::default(),
            paused_here: Mutex::default(),
            committed: Arc::default(),
            watching: AtomicBool::new(false),
            batches: Mutex::default(),
            files_stored: Mutex::default(),
            store,
            targets: HashMap::new(),
            config,
            owner: liveness::lease_owner(),
            events,
            rng: Mutex::new(rand::rngs::StdRng::from_os_rng()),
        })
    }

    /// Make a target reachable by this engine's workers (and known to the store).
    pub fn add_target(&mut self, target: Arc<dyn Target>) -> Result<(), EngineError> {
        self.store
            .upsert_target(target.scope_id(), &target.target_url(), &target.label())?;
        if target.sends_run_token() {
            self.store.note_target_took_token(target.scope_id())?;
        }
        self.targets.insert(target.scope_id().to_string(), target);
        Ok(())
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The target with this scope id, if this engine can reach it.
    pub fn target(&self, scope_id: &str) -> Option<&Arc<dyn Target>> {
        self.targets.get(scope_id)
    }

    /// The link a web browser opens for a record's URL: the URL itself, or the signed link
    /// of the target it belongs to when that target has one ([`Target::link_to_open`]).
    pub fn link_to_open(&self, record_url: &str) -> String {
        self.targets
            .values()
            .find_map(|t| t.link_to_open(record_url))
            .unwrap_or_else(|| record_url.to_string())
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The name this engine's leases carry.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// This process made jobs claimable (queued, re-queued, or a target's pause lifted):
    /// idle workers look at the queue now instead of at the watcher's next look.
    pub fn wake(&self) {
        self.committed.notify_waiters();
    }

    /// How many calls this engine has made to its store thread so far (benchmarks and
    /// tests: what work, or idling, costs the store).
    pub fn store_calls(&self) -> u64 {
        self.store_thread.calls_made()
    }

    /// Listen to what the engine does from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<EngineEvent> {
        self.events.subscribe()
    }

    fn emit(&self, event: EngineEvent) {
        // No receiver is fine: the store has the log.
        let _ = self.events.send(event);
    }

    fn logged(&self, row: EventRow) {
        self.emit(EngineEvent::Logged(row));
    }

    /// Run a store call on the engine's store thread, so a busy database never stalls the
    /// runtime.
    async fn db<T, F>(&self, f: F) -> Result<T, EngineError>
    where
        T: Send + 'static,
        F: FnMut(&Store) -> Result<T, StoreError> + Send + 'static,
    {
        Ok(self.store_thread.call(f).await??)
    }

    /// Work on these jobs until each has ended (deposited, existing, failed or rejected) or
    /// waits on a paused target, or until `shutdown`. Returns the jobs as they ended.
    pub async fn run_batch(
        self: &Arc<Self>,
        job_ids: Vec<i64>,
        shutdown: CancellationToken,
    ) -> Result<Vec<JobRow>, EngineError> {
        // No more workers than jobs: a worker with nothing to claim only polls.
        let workers_wanted = self.config.concurrency.min(job_ids.len()).max(1);
        let batch = Arc::new(Batch::of(job_ids));
        let _running = RunningBatch::register(self, &batch);
        let mut workers = tokio::task::JoinSet::new();
        for _ in 0..workers_wanted {
            let engine = self.clone();
            let batch = batch.clone();
            let shutdown = shutdown.clone();
            workers.spawn(async move { engine.work(Some(batch), shutdown, true).await });
        }
        let mut first_error = None;
        while let Some(done) = workers.join_next().await {
            let outcome = done.map_err(EngineError::from).and_then(|r| r);
            if let Err(e) = outcome {
                // One worker's store error stops the batch: the others finish their job.
                shutdown.cancel();
                first_error.get_or_insert(e);
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        // Jobs that ended under this engine are as their outcomes committed them; only the
        // others (ended elsewhere, or not ended) are read.
        let ended = batch.ended_rows();
        let to_read = ended.to_read;
        let read: HashMap<i64, JobRow> = if to_read.is_empty() {
            HashMap::new()
        } else {
            let rows = self.db(move |s| s.jobs(&to_read)).await?;
            rows.into_iter().map(|job| (job.id, job)).collect()
        };
        ended
            .rows
            .into_iter()
            .map(|(id, kept)| {
                kept.or_else(|| read.get(&id).cloned())
                    .ok_or(EngineError::Store(StoreError::NoSuchJob(id)))
            })
            .collect()
    }

    fn batches_running(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Batch>>> {
        self.batches.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The running batch that holds job `id`, if one does.
    fn batch_of(&self, id: i64) -> Option<Arc<Batch>> {
        self.batches_running()
            .iter()
            .find(|b| b.ids().contains(&id))
            .cloned()
    }

    /// Work on any due job of this engine's targets until `shutdown` (the GUI's mode).
    pub async fn run_forever(
        self: &Arc<Self>,
        shutdown: CancellationToken,
    ) -> Result<(), EngineError> {
        let mut workers = tokio::task::JoinSet::new();
        for _ in 0..self.config.concurrency.max(1) {
            let engine = self.clone();
            let shutdown = shutdown.clone();
            workers.spawn(async move { engine.work(None, shutdown, false).await });
        }
        while let Some(done) = workers.join_next().await {
            done??;
        }
        Ok(())
    }

    /// One worker: claim, deposit, repeat; sleep when nothing is due.
    ///
    /// While a job uploads, the worker already claims its next one: the claim's trip through
    /// the store thread (which waits for its group to commit) then overlaps the upload
    /// instead of following it. A job claimed ahead that the worker will not run is given
    /// back before the worker stops.
    async fn work(
        self: Arc<Self>,
        batch: Option<Arc<Batch>>,
        shutdown: CancellationToken,
        stop_when_settled: bool,
    ) -> Result<(), EngineError> {
        let filter = ClaimFilter {
            targets: self.targets.keys().cloned().collect(),
            job_ids: batch.as_ref().map(|b| b.ids().clone()),
            skip: HashSet::new(),
        };
        let mut ahead: Option<Ahead> = None;
        // Set when this worker watched the queue and its timer ran out: what it then finds
        // due may be more than one job, so the other idle workers are woken to look too.
        let mut watched = false;
        let worked = async {
            while !shutdown.is_cancelled() {
                if let Some(e) = self
                    .deferred_error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .take()
                {
                    return Err(e);
                }
                let claim = match ahead.take() {
                    Some(claimed) => self.take_ahead(claimed).await?,
                    None => self.db(self.claim_call(&filter)).await?,
                };
                if std::mem::take(&mut watched) && !matches!(claim, Claim::Idle) {
                    self.wake();
                }
                match claim {
                    Claim::Attempt {
                        lease,
                        input,
                        events,
                    } => {
                        events.into_iter().for_each(|e| self.logged(e));
                        // The job runs: a window shows it from this, not from reading its
                        // own log back (a batch without listeners skips the copy).
                        if self.events.receiver_count() > 0 {
                            self.emit(EngineEvent::JobChanged(lease.job.clone()));
                        }
                        let next =
                            Ahead::Coming(self.store_thread.submit(self.claim_call(&filter))?);
                        let (ran, next) = self.run_holding(*lease, *input, &shutdown, next).await;
                        ahead = Some(next);
                        ran?;
                        continue;
                    }
                    Claim::Replayed { job, events } => {
                        events.into_iter().for_each(|e| self.logged(e));
                        if let Some(batch) = &batch {
                            batch.committed(&job);
                        }
                        self.emit(EngineEvent::JobChanged(*job));
                        continue;
                    }
                    Claim::Idle => {}
                }
                // Nothing due now. Listen for outcomes before looking at the batch, so one
                // committed between the look and the wait still wakes this worker.
                let committed = self.committed.notified();
                tokio::pin!(committed);
                committed.as_mut().enable();
                let ids = batch.as_ref().map(|b| b.ids().clone()).unwrap_or_default();
                if stop_when_settled && self.batch_settled(&ids).await? {
                    // The batch may have ended elsewhere (another process): the workers
                    // that wait without a timer learn it from this.
                    self.wake();
                    return Ok(());
                }
                // One idle worker watches the queue on a timer; the others wait for this
                // process to commit or queue something (or for the watcher to find work).
                let watch = Watch::take(&self.watching);
                let timer = match &watch {
                    Some(_) => Some(self.watch_for(&filter).await?),
                    None => None,
                };
                tokio::select! {
                    _ = async {
                        match timer {
                            Some(sleep) => tokio::time::sleep(sleep).await,
                            None => std::future::pending().await,
                        }
                    } => watched = true,
                    _ = committed => {}
                    _ = shutdown.cancelled() => {}
                }
            }
            Ok(())
        }
        .await;
        if let Some(claimed) = ahead
            && let Ok(Claim::Attempt { lease, .. }) = claimed.claim().await
        {
            self.record(
                &lease,
                Finish::Release {
                    // Its claim logged an attempt (before anything could be sent): it
                    // was not made, and its count is given back.
                    message: format!(
                        "claimed ahead by a worker that stopped; back on the queue (attempt {} \
                         was not made)",
                        lease.job.attempts
                    ),
                    not_before: None,
                    attempt_made: false,
                },
            )
            .await?;
        }
        worked
    }

    /// The watcher's look before it sleeps: leases of dead processes of this machine are
    /// expired, and it sleeps until the next job it could claim comes due (a retry's time,
    /// a lease's end), or the poll interval at most.
    async fn watch_for(&self, filter: &ClaimFilter) -> Result<Duration, EngineError> {
        liveness::expire_leases_of_dead_processes(&self.store, &self.owner).await?;
        let filter = self.filter_now(filter);
        let wake = self.db(move |s| s.next_wakeup(&filter)).await?;
        let mut sleep = self.config.poll;
        if let Some(at) = wake {
            let until = Duration::from_millis((at - now_ms()).max(5) as u64);
            sleep = sleep.min(until);
        }
        Ok(sleep)
    }

    /// `filter` with the jobs this engine left for other machines skipped, as they are now.
    fn filter_now(&self, filter: &ClaimFilter) -> ClaimFilter {
        let mut filter = filter.clone();
        filter.skip = self.left_for_others().clone();
        filter
    }

    /// The store call that claims this worker's next job.
    fn claim_call(
        &self,
        filter: &ClaimFilter,
    ) -> impl FnMut(&Store) -> Result<Claim, StoreError> + Send + 'static {
        let owner = self.owner.clone();
        let lease_for = self.config.lease;
        let max_attempts = self.config.retry.max_attempts;
        let filter = self.filter_now(filter);
        move |s: &Store| s.claim(&owner, lease_for, max_attempts, &filter)
    }

    /// Run the job of `lease` to its outcome while holding the job claimed `ahead`: once
    /// that claim is in, its lease is renewed every third of its term, as a running job's
    /// is. Left to run out during an upload longer than a lease, it was taken over by
    /// another worker of this very process, counting an attempt never made and logging
    /// that a live process had ended. The claim ahead comes back whatever the run did.
    async fn run_holding(
        &self,
        lease: Lease,
        input: AttemptInput,
        shutdown: &CancellationToken,
        mut ahead: Ahead,
    ) -> (Result<(), EngineError>, Ahead) {
        /// What ended a wait: the run, the claim ahead coming in, or its renewal.
        enum Woke {
            Ran(Result<(), EngineError>),
            Claimed(Result<Claim, EngineError>),
            Renewed(Result<(bool, Box<Lease>), EngineError>),
        }
        let run = self.run_guarded(lease, input, shutdown);
        tokio::pin!(run);
        // Cleared once a renewal finds the claim taken over (by another process, whose
        // clock or lease said so): `take_ahead` then finds that out itself.
        let mut renewing = true;
        loop {
            let woke = match &mut ahead {
                Ahead::Coming(claimed) => tokio::select! {
                    ran = &mut run => Woke::Ran(ran),
                    claim = claimed => Woke::Claimed(
                        claim.map_err(|_| store_thread::StoreThreadGone.into())
                            .and_then(|c| c.map_err(EngineError::from)),
                    ),
                },
                Ahead::In(Ok(Claim::Attempt { lease, .. })) if renewing => {
                    let (held, lease_for) = (lease.as_ref().clone(), self.config.lease);
                    let renewal = async {
                        tokio::time::sleep(lease_for / 3).await;
                        self.db(move |s| {
                            let mut held = held.clone();
                            s.renew_lease(&mut held, lease_for)
                                .map(|kept| (kept, Box::new(held)))
                        })
                        .await
                    };
                    tokio::select! {
                        ran = &mut run => Woke::Ran(ran),
                        renewed = renewal => Woke::Renewed(renewed),
                    }
                }
                Ahead::In(_) => Woke::Ran(run.as_mut().await),
            };
            match woke {
                Woke::Ran(ran) => return (ran, ahead),
                Woke::Claimed(claim) => ahead = Ahead::In(claim),
                Woke::Renewed(Ok((true, renewed))) => {
                    if let Ahead::In(Ok(Claim::Attempt { lease, .. })) = &mut ahead {
                        *lease = renewed;
                    }
                }
                Woke::Renewed(Ok((false, _))) => renewing = false,
                // The database is briefly unavailable: `take_ahead` renews it, or finds
                // it taken over, when the worker gets to it.
                Woke::Renewed(Err(_)) => {}
            }
        }
    }

    /// A job claimed ahead, once the job before it is done. Its lease has been renewed
    /// while it waited: with less than half of it left it is renewed first, and if another
    /// worker took it over in the meantime (another process, its lease lapsed while the
    /// database was out of reach), it is not this worker's any more.
    async fn take_ahead(&self, claimed: Ahead) -> Result<Claim, EngineError> {
        let claim = claimed.claim().await?;
        let Claim::Attempt {
            mut lease,
            input,
            events,
        } = claim
        else {
            return Ok(claim);
        };
        // A target paused while this job waited (by this engine's other job) stays
        // untouched until the user acts.
        if self.paused_here().contains(&lease.job.target) {
            let target = lease.job.target.clone();
            let still = self.db(move |s| s.target_paused(&target)).await?;
            if still.is_some() {
                self.record(
                    &lease,
                    Finish::Release {
                        message: format!("{} is paused; back on the queue", lease.job.target),
                        not_before: None,
                        attempt_made: false,
                    },
                )
                .await?;
                return Ok(Claim::Idle);
            }
            self.paused_here().remove(&lease.job.target);
        }
        let half = (self.config.lease.as_millis() / 2) as i64;
        if lease.expires_at - now_ms() < half {
            let lease_for = self.config.lease;
            let (kept, renewed) = self
                .db(move |s| {
                    let mut lease = lease.clone();
                    let kept = s.renew_lease(&mut lease, lease_for)?;
                    Ok((kept, lease))
                })
                .await?;
            if !kept {
                events.into_iter().for_each(|e| self.logged(e));
                return Ok(Claim::Idle);
            }
            lease = renewed;
        }
        Ok(Claim::Attempt {
            lease,
            input,
            events,
        })
    }

    /// Targets this engine paused and has not seen resumed.
    pub(super) fn paused_here(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.paused_here.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Jobs this engine left for a machine that can read their folder.
    pub fn left_for_others(&self) -> std::sync::MutexGuard<'_, HashSet<i64>> {
        self.left_for_others
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Every job of the batch has ended, waits on a paused target, or was left for another
    /// machine.
    async fn batch_settled(&self, ids: &Arc<HashSet<i64>>) -> Result<bool, EngineError> {
        let left = self.left_for_others().clone();
        let ids = if left.is_empty() {
            ids.clone()
        } else {
            Arc::new(ids.difference(&left).copied().collect())
        };
        Ok(self.db(move |s| s.unsettled(&ids)).await? == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_unregistered_when_its_run_ends_or_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(&dir.path().join("lodge.db")).unwrap());
        let engine = Engine::new(store, EngineConfig::default()).unwrap();
        let batch = Arc::new(Batch::of(vec![1, 2]));
        {
            let _running = RunningBatch::register(&engine, &batch);
            assert!(
                engine.batch_of(2).is_some(),
                "its outcomes are kept while it runs"
            );
        }
        assert!(engine.batch_of(2).is_none());
        assert!(engine.batches_running().is_empty());
    }
}
