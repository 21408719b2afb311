//! One thread, with a connection of its own, that runs every store call of an engine.
//!
//! Workers used to run their store calls on tokio's blocking pool, where eight of them queued
//! on the connection's mutex: each hand-off woke a thread only to sleep on the lock again,
//! and under load that cost more CPU than the SQL itself. Here one thread drains a queue.
//! Calls that arrive together run in one group transaction (group commit), each as a
//! savepoint of its own, and their results are handed back only once the group has
//! committed — so a worker never acts on a claim or an outcome that is not yet durable.

use std::sync::mpsc;

use tokio::sync::oneshot;

use crate::store::{Store, StoreError};

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
    /// Start the thread on `store`, a connection nobody else uses.
    pub fn spawn(store: Store) -> StoreThread {
        let (calls, queue) = mpsc::channel::<Call>();
        std::thread::Builder::new()
            .name("lodge-store".into())
            .spawn(move || serve(store, queue))
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

fn serve(store: Store, queue: mpsc::Receiver<Call>) {
    while let Ok(first) = queue.recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match queue.try_recv() {
                Ok(call) => group.push(call),
                Err(_) => break,
            }
        }
        if store.begin_group().is_err() {
            // Could not open a group (the database stayed locked past the busy timeout, for
            // one): run each call on its own, each committing its own transaction.
            for call in group {
                call(&store)(None);
            }
            continue;
        }
        let delivers: Vec<Deliver> = group.into_iter().map(|call| call(&store)).collect();
        let outcome = store.commit_group().err().map(|e| e.to_string());
        for deliver in delivers {
            deliver(outcome.as_deref());
        }
    }
}
