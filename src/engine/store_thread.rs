//! One thread, with a connection of its own, that runs every store call of an engine.
//!
//! Workers used to run their store calls on tokio's blocking pool, where eight of them queued
//! on the connection's mutex: each hand-off woke a thread only to sleep on the lock again,
//! and under load that cost more CPU than the SQL itself. Here one thread drains a queue.
//! Calls that arrive together run in one group transaction (group commit), and their
//! results are handed back only once the group has committed — so a worker never acts on a
//! claim or an outcome that is not yet durable. Should one call of a group fail, the group
//! is rolled back and its calls run again one by one, each committing on its own, so one
//! call's failure is never another's.
//!
//! On a SQLite file a second thread, with a second connection, takes the write-ahead log's
//! checkpoints, which sync the file to disk: on the store thread that wait held up every
//! claim and outcome behind it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use crate::store::{Store, StoreError};

/// The names of the engine's threads that run SQLite: the store thread and the checkpoint
/// thread (a profiler or a benchmark tells them apart by these).
pub const STORE_THREADS: [&str; 2] = [STORE_THREAD, CHECKPOINT_THREAD];
const STORE_THREAD: &str = "lodge-store";
const CHECKPOINT_THREAD: &str = "lodge-checkpoint";

/// Calls that arrived together and are committed together, at most this many.
const MAX_GROUP: usize = 64;

/// A call waiting on the store thread: run (perhaps twice, see [`serve`]), then delivered.
type Call = Box<dyn Pending>;

trait Pending: Send {
    /// Run the call on `store`, keeping its result; a second run replaces the first's.
    fn run(&mut self, store: &Store);
    /// Hand the kept result to whoever waits for it, or `commit_error` if the group it ran
    /// in could not commit.
    fn deliver(self: Box<Self>, commit_error: Option<&StoreError>);
}

/// A call and what receives its result.
struct StoreCall<T, F, D> {
    call: F,
    then: D,
    result: Option<Result<T, StoreError>>,
}

impl<T, F, D> Pending for StoreCall<T, F, D>
where
    T: Send,
    F: FnMut(&Store) -> Result<T, StoreError> + Send,
    D: FnOnce(Result<T, StoreError>) + Send,
{
    fn run(&mut self, store: &Store) {
        self.result = Some((self.call)(store));
    }

    fn deliver(self: Box<Self>, commit_error: Option<&StoreError>) {
        let StoreCall { then, result, .. } = *self;
        then(match (commit_error, result) {
            (Some(e), _) => Err(e.for_each_of_a_group()),
            (None, Some(result)) => result,
            (None, None) => Err(StoreError::GroupCommit(
                "the call never ran (the store thread's bug)".into(),
            )),
        })
    }
}

/// Handle to the store thread; cheap to clone. The thread ends when every handle is gone.
#[derive(Clone)]
pub struct StoreThread {
    calls: mpsc::Sender<Call>,
    /// Calls submitted so far (see [`StoreThread::calls_made`]).
    submitted: Arc<AtomicU64>,
}

/// The store thread has gone (it only ends when the engine is dropped).
#[derive(Debug, thiserror::Error)]
#[error("the engine's store thread has stopped")]
pub struct StoreThreadGone;

impl StoreThread {
    /// Start the thread on `store`, a connection nobody else uses. On a SQLite file,
    /// `checkpoints` (another connection to it) takes the write-ahead log's checkpoints
    /// off this thread, on a thread of its own.
    pub fn spawn(store: Store, checkpoints: Option<Store>) -> StoreThread {
        let (calls, queue) = mpsc::channel::<Call>();
        // Without a checkpointer, SQLite's own checkpoints after commits stay on.
        let ask_checkpoint = checkpoints
            .filter(|_| store.leave_checkpoints_to_others().is_ok())
            .map(|other| {
                let (ask, asked) = mpsc::channel::<()>();
                std::thread::Builder::new()
                    .name(CHECKPOINT_THREAD.into())
                    .spawn(move || checkpoint(other, asked))
                    .expect("spawn the checkpoint thread");
                ask
            });
        std::thread::Builder::new()
            .name(STORE_THREAD.into())
            .spawn(move || serve(store, queue, ask_checkpoint))
            .expect("spawn the store thread");
        StoreThread {
            calls,
            submitted: Arc::default(),
        }
    }

    /// How many calls have been submitted to this thread: what an engine asks of its store,
    /// counted for benchmarks and tests (an idle engine should ask little).
    pub fn calls_made(&self) -> u64 {
        self.submitted.load(Ordering::Relaxed)
    }

    /// Queue `f` on the store thread and return where its result will arrive, after it is
    /// durable. Calls run in the order they were submitted, from all workers.
    pub fn submit<T, F>(
        &self,
        f: F,
    ) -> Result<oneshot::Receiver<Result<T, StoreError>>, StoreThreadGone>
    where
        T: Send + 'static,
        F: FnMut(&Store) -> Result<T, StoreError> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        self.submit_then(f, move |result| {
            // The caller may have stopped waiting; nothing to do then.
            let _ = tx.send(result);
        })?;
        Ok(rx)
    }

    /// Queue `f` on the store thread and hand its result, once durable, to `then`, which
    /// runs on the store thread: for a caller that does not wait for the result (the
    /// outcome of a deposit), this saves a task and a wake-up per call. `then` must be
    /// quick and must not block.
    pub fn submit_then<T, F, D>(&self, f: F, then: D) -> Result<(), StoreThreadGone>
    where
        T: Send + 'static,
        F: FnMut(&Store) -> Result<T, StoreError> + Send + 'static,
        D: FnOnce(Result<T, StoreError>) + Send + 'static,
    {
        let call: Call = Box::new(StoreCall {
            call: f,
            then,
            result: None,
        });
        self.submitted.fetch_add(1, Ordering::Relaxed);
        self.calls.send(call).map_err(|_| StoreThreadGone)
    }

    /// Run `f` on the store thread; its result arrives after it is durable.
    pub async fn call<T, F>(&self, f: F) -> Result<Result<T, StoreError>, StoreThreadGone>
    where
        T: Send + 'static,
        F: FnMut(&Store) -> Result<T, StoreError> + Send + 'static,
    {
        self.submit(f)?.await.map_err(|_| StoreThreadGone)
    }
}

fn serve(store: Store, queue: mpsc::Receiver<Call>, checkpoints: Option<mpsc::Sender<()>>) {
    let mut pacer = checkpoints.map(CheckpointPacer::new);
    loop {
        // With commits not yet checkpointed, wake up in time to ask for one even if no call
        // comes: an engine gone quiet leaves nothing in the log for long.
        let next = match pacer.as_ref().and_then(CheckpointPacer::due_in) {
            Some(wait) => queue.recv_timeout(wait),
            None => queue
                .recv()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        let first = match next {
            Ok(call) => call,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(pacer) = &mut pacer {
                    pacer.ask_if_due();
                }
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        };
        if store.begin_group().is_err() {
            // Could not open a group (the database stayed locked past the busy timeout, for
            // one): run the call on its own, committing its own transaction.
            run_alone(&store, first);
            continue;
        }
        // Calls that arrive while the group runs join it, up to MAX_GROUP: the busier the
        // engine, the more calls share one commit, and no call waits for company.
        // A spoiled group takes no more calls: it is to be run again call by call.
        let mut group: Vec<Call> = vec![first];
        group[0].run(&store);
        while group.len() < MAX_GROUP && !store.group_spoiled() {
            match queue.try_recv() {
                Ok(mut call) => {
                    call.run(&store);
                    group.push(call);
                }
                Err(_) => break,
            }
        }
        if store.group_spoiled() {
            // A call failed, perhaps halfway through its writes, and the group has no undo
            // per call: undo the whole group and run each call again on its own. A rare
            // path: a database error, or an outcome whose lease was lost meanwhile.
            store.rollback_group();
            group.into_iter().for_each(|call| run_alone(&store, call));
        } else {
            let outcome = store.commit_group().err();
            for call in group {
                call.deliver(outcome.as_ref());
            }
        }
        if let Some(pacer) = &mut pacer {
            pacer.committed();
        }
    }
}

/// Run `call` in transactions of its own (outside any group) and deliver its result.
fn run_alone(store: &Store, mut call: Call) {
    call.run(store);
    call.deliver(None);
}

/// Longest time commits wait in the write-ahead log for a checkpoint. The log is synced
/// to disk only by a checkpoint, so this is also about how much a power cut (not a crash
/// of Lodge) can take back; the servers' conditional writes make a lost record harmless.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// Group commits after which a checkpoint is asked for sooner, to bound the log's size.
const MAX_COMMITS_PER_CHECKPOINT: u64 = 4000;

/// When the store thread asks the checkpoint thread for a checkpoint: once a second while
/// anything was committed since the last one (sooner after many commits).
///
/// Each checkpoint copies every page the log holds back into the database file and syncs
/// it. SQLite's own rule (every 1,000 logged pages) meant several times a second under a
/// batch of deposits, copying the same hot pages each time; on ext4 those syncs also
/// delayed the repository server's own file syncs.
struct CheckpointPacer {
    ask: mpsc::Sender<()>,
    last: Instant,
    commits: u64,
}

impl CheckpointPacer {
    fn new(ask: mpsc::Sender<()>) -> CheckpointPacer {
        CheckpointPacer {
            ask,
            last: Instant::now(),
            commits: 0,
        }
    }

    fn committed(&mut self) {
        self.commits += 1;
        if self.commits >= MAX_COMMITS_PER_CHECKPOINT {
            self.ask();
        } else {
            self.ask_if_due();
        }
    }

    /// How long until a checkpoint is due; `None` with nothing to copy.
    fn due_in(&self) -> Option<Duration> {
        (self.commits > 0).then(|| CHECKPOINT_EVERY.saturating_sub(self.last.elapsed()))
    }

    fn ask_if_due(&mut self) {
        if self.due_in() == Some(Duration::ZERO) {
            self.ask();
        }
    }

    fn ask(&mut self) {
        // The checkpoint thread ends only after this one; a send cannot fail before.
        let _ = self.ask.send(());
        self.last = Instant::now();
        self.commits = 0;
    }
}

/// The checkpoint thread: asked by the store thread ([`CheckpointPacer`]), it copies the
/// log back into the database file. A checkpoint syncs the file to
/// disk; here that wait stalls no deposit. It ends with the store thread, after a last one.
fn checkpoint(store: Store, asked: mpsc::Receiver<()>) {
    while asked.recv().is_ok() {
        // Asks that piled up while a slow disk held the last checkpoint: one does for all.
        while asked.try_recv().is_ok() {}
        // A failed checkpoint loses nothing (the log keeps every commit); the next one, or
        // SQLite's when the last connection closes, carries on.
        let _ = store.checkpoint();
    }
    let _ = store.checkpoint();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_committed_asks_for_no_checkpoint() {
        let (ask, asked) = mpsc::channel();
        let mut pacer = CheckpointPacer::new(ask);
        assert_eq!(pacer.due_in(), None);
        pacer.ask_if_due();
        assert!(asked.try_recv().is_err());
    }

    #[test]
    fn a_checkpoint_is_asked_for_a_second_after_the_last_one_not_at_every_commit() {
        let (ask, asked) = mpsc::channel();
        let mut pacer = CheckpointPacer::new(ask);
        for _ in 0..10 {
            pacer.committed();
        }
        assert!(asked.try_recv().is_err(), "asked before its time");
        let wait = pacer.due_in().expect("commits to copy");
        assert!(wait > Duration::ZERO && wait <= CHECKPOINT_EVERY);

        pacer.last -= CHECKPOINT_EVERY;
        pacer.committed();
        assert!(asked.try_recv().is_ok(), "a second passed: one checkpoint");
        assert_eq!(pacer.due_in(), None, "everything is asked for");
    }

    #[test]
    fn a_flood_of_commits_asks_for_a_checkpoint_sooner() {
        let (ask, asked) = mpsc::channel();
        let mut pacer = CheckpointPacer::new(ask);
        for _ in 0..MAX_COMMITS_PER_CHECKPOINT {
            pacer.committed();
        }
        assert_eq!(asked.try_iter().count(), 1);
    }

    #[test]
    fn a_store_thread_gone_quiet_asks_for_a_checkpoint_of_its_last_commit() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("lodge.db")).unwrap();
        let (calls, queue) = mpsc::channel::<Call>();
        let (ask, asked) = mpsc::channel();
        let serving = std::thread::spawn(move || serve(store, queue, Some(ask)));
        let (done, committed) = mpsc::channel();
        let call: Call = Box::new(StoreCall {
            call: |s: &Store| s.upsert_target("t", "t", "a target"),
            then: move |result: Result<(), StoreError>| {
                result.unwrap();
                done.send(()).unwrap();
            },
            result: None,
        });
        calls.send(call).unwrap();
        committed.recv().unwrap();

        // No further call comes; the thread wakes up by itself to ask.
        let asked_at = asked.recv_timeout(CHECKPOINT_EVERY * 3);
        assert!(asked_at.is_ok(), "no checkpoint asked for a quiet thread");
        drop(calls);
        serving.join().unwrap();
    }

    #[test]
    fn a_call_that_fails_halfway_costs_the_other_calls_of_its_group_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("lodge.db")).unwrap();
        let datasets =
            crate::bench::data::tiny_datasets(&store, &dir.path().join("tiny"), 3).unwrap();
        store.upsert_target("t", "t", "a target").unwrap();
        let reader = store.reopen().unwrap();
        let (calls, queue) = mpsc::channel::<Call>();
        let (answers, answered) = mpsc::channel();
        let enqueue = |name: &'static str, items: Vec<(i64, crate::content::ContentKey)>| {
            let answers = answers.clone();
            let call: Call = Box::new(StoreCall {
                call: move |s: &Store| {
                    s.enqueue_deposits("t", &items, Duration::from_secs(60))
                        .map(|queued| queued.len())
                },
                then: move |result: Result<usize, StoreError>| {
                    answers
                        .send((name, result.map_err(|e| e.to_string())))
                        .unwrap();
                },
                result: None,
            });
            call
        };
        // Queued before the thread starts, the three calls make one group. The middle one
        // queues its first job, then fails on a dataset that does not exist.
        calls.send(enqueue("first", vec![datasets[0]])).unwrap();
        let halfway = vec![datasets[1], (999_999, datasets[2].1)];
        calls.send(enqueue("halfway", halfway)).unwrap();
        calls.send(enqueue("last", vec![datasets[2]])).unwrap();
        let serving = std::thread::spawn(move || serve(store, queue, None));

        let answers: std::collections::HashMap<_, _> =
            (0..3).map(|_| answered.recv().unwrap()).collect();
        assert_eq!(answers["first"], Ok(1));
        assert_eq!(answers["last"], Ok(1));
        let failed = answers["halfway"].clone().unwrap_err();
        assert!(failed.contains("FOREIGN KEY"), "{failed}");
        drop(calls);
        serving.join().unwrap();

        let jobs_of = |n: usize| reader.jobs_of_dataset(datasets[n].0).unwrap().len();
        assert_eq!(jobs_of(0), 1, "the call before the failure committed");
        assert_eq!(jobs_of(1), 0, "the failed call left no half of itself");
        assert_eq!(jobs_of(2), 1, "the call after the failure committed");
    }
}
