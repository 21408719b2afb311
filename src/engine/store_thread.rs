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
        let call: Call = Box::new(move |store: &Store| {
            let result = f(store);
            Box::new(move |commit_error: Option<&str>| {
                let result = match commit_error {
                    Some(e) => Err(StoreError::GroupCommit(e.to_string())),
                    None => result,
                };
                let _ = tx.send(result);
            })
        });
        self.calls.send(call).map_err(|_| StoreThreadGone)?;
        Ok(rx)
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
    let mut commits: u64 = 0;
    while let Ok(first) = queue.recv() {
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
        commits += 1;
        if let Some(checkpointer) = &checkpoints
            && commits.is_multiple_of(COMMITS_PER_CHECKPOINT)
        {
            let _ = checkpointer.send(());
        }
    }
}

/// Group commits between two checkpoints. SQLite's own rule is a checkpoint once the log
/// holds 1,000 pages; a group commit writes a handful.
const COMMITS_PER_CHECKPOINT: u64 = 400;

/// The checkpoint thread: asked by the store thread after every [`COMMITS_PER_CHECKPOINT`]
/// commits, it copies the log back into the database file. A checkpoint syncs the file to
/// disk; here that wait stalls no deposit. It ends with the store thread, after a last one.
fn checkpoint(store: Store, asked: mpsc::Receiver<()>) {
    while asked.recv().is_ok() {
        // A failed checkpoint loses nothing (the log keeps every commit); the next one, or
        // SQLite's when the last connection closes, carries on.
        let _ = store.checkpoint();
    }
    let _ = store.checkpoint();
}
