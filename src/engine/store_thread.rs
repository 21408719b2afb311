//! One thread, with a connection of its own, that runs every store call of an engine.
//!
//! Workers used to run their store calls on tokio's blocking pool, where eight of them queued
//! on the connection's mutex: each hand-off woke a thread only to sleep on the lock again,
//! and under load that cost more CPU than the SQL itself. Here one thread drains a queue.
//! Calls that arrive together run in one group transaction (group commit), each as a
//! savepoint of its own, and their results are handed back only once the group has
//! committed — so a worker never acts on a claim or an outcome that is not yet durable.
//!
//! On a SQLite file a second thread, with a second connection, takes the write-ahead log's
//! checkpoints, which sync the file to disk: on the store thread that wait held up every
//! claim and outcome behind it.

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

/// Runs a call and returns what hands its result back once the group's fate is known.
type Call = Box<dyn FnOnce(&Store) -> Deliver + Send>;
type Deliver = Box<dyn FnOnce(Option<&str>) + Send>;

/// Handle to the store thread; cheap to clone. The thread ends when every handle is gone.
#[derive(Clone)]
pub struct StoreThread {
    calls: mpsc::Sender<Call>,
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
        StoreThread { calls }
    }

    /// Queue `f` on the store thread and return where its result will arrive, after it is
    /// durable. Calls run in the order they were submitted, from all workers.
    pub fn submit<T, F>(
        &self,
        f: F,
    ) -> Result<oneshot::Receiver<Result<T, StoreError>>, StoreThreadGone>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
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
        F: FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
        D: FnOnce(Result<T, StoreError>) + Send + 'static,
    {
        let call: Call = Box::new(move |store: &Store| {
            let result = f(store);
            Box::new(move |commit_error: Option<&str>| {
                then(match commit_error {
                    Some(e) => Err(StoreError::GroupCommit(e.to_string())),
                    None => result,
                })
            })
        });
        self.calls.send(call).map_err(|_| StoreThreadGone)
    }

    /// Run `f` on the store thread; its result arrives after it is durable.
    pub async fn call<T, F>(&self, f: F) -> Result<Result<T, StoreError>, StoreThreadGone>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
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
            first(&store)(None);
            continue;
        }
        // Calls that arrive while the group runs join it, up to MAX_GROUP: the busier the
        // engine, the more calls share one commit, and no call waits for company.
        let mut delivers: Vec<Deliver> = vec![first(&store)];
        while delivers.len() < MAX_GROUP {
            match queue.try_recv() {
                Ok(call) => delivers.push(call(&store)),
                Err(_) => break,
            }
        }
        let outcome = store.commit_group().err().map(|e| e.to_string());
        for deliver in delivers {
            deliver(outcome.as_deref());
        }
        if let Some(pacer) = &mut pacer {
            pacer.committed();
        }
    }
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
        let call: Call = Box::new(move |s: &Store| {
            s.upsert_target("t", "t", "a target").unwrap();
            Box::new(move |error: Option<&str>| {
                assert_eq!(error, None);
                done.send(()).unwrap();
            })
        });
        calls.send(call).unwrap();
        committed.recv().unwrap();

        // No further call comes; the thread wakes up by itself to ask.
        let asked_at = asked.recv_timeout(CHECKPOINT_EVERY * 3);
        assert!(asked_at.is_ok(), "no checkpoint asked for a quiet thread");
        drop(calls);
        serving.join().unwrap();
    }
}
