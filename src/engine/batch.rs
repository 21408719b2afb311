//! One batch of jobs that the engine works through to the end (`lodge deposit`, `lodge
//! retry`): which jobs its workers may claim, whether all of them are queued yet, and the
//! rows they ended with.
//!
//! A batch the engine queues itself ([`Engine::deposit_batch`](super::Engine)) grows while
//! its workers already deposit: queueing thousands of datasets is one serial pause
//! otherwise, with the second core idle. And the rows of jobs that ended under this engine
//! are kept as their outcomes commit, so the batch's end reads back only the jobs that
//! ended elsewhere (another process, another machine) or have not ended.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::store::JobRow;

pub(super) struct Batch {
    /// The jobs queued for the batch so far. Replaced, not changed, when it grows: a claim
    /// on the store thread holds the set it was sent with.
    ids: Mutex<Arc<HashSet<i64>>>,
    /// The jobs in the order they were asked for (a job asked for twice is there twice).
    order: Mutex<Vec<i64>>,
    /// Every job of the batch is queued: until then it cannot be settled.
    queued_all: AtomicBool,
    /// The last row this engine committed for each job of the batch.
    rows: Mutex<HashMap<i64, JobRow>>,
}

/// How the batch's jobs ended: the rows kept from their outcomes, in the order asked for,
/// and the jobs to read from the store instead.
pub(super) struct EndedRows {
    /// One entry per job asked for; no row where the job is to be read.
    pub rows: Vec<(i64, Option<JobRow>)>,
    /// The jobs with no ended row kept, each once.
    pub to_read: Vec<i64>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Batch {
    /// A batch of jobs already queued.
    pub fn of(ids: Vec<i64>) -> Batch {
        let batch = Batch::growing();
        batch.add(&ids);
        batch.all_queued();
        batch
    }

    /// A batch whose jobs are still being queued: [`Batch::add`] them, then say
    /// [`Batch::all_queued`].
    pub fn growing() -> Batch {
        Batch {
            ids: Mutex::default(),
            order: Mutex::default(),
            queued_all: AtomicBool::new(false),
            rows: Mutex::default(),
        }
    }

    pub fn add(&self, ids: &[i64]) {
        lock(&self.order).extend_from_slice(ids);
        let mut current = lock(&self.ids);
        let mut grown = HashSet::clone(&current);
        grown.extend(ids.iter().copied());
        *current = Arc::new(grown);
    }

    pub fn all_queued(&self) {
        self.queued_all.store(true, Ordering::Release);
    }

    pub fn is_all_queued(&self) -> bool {
        self.queued_all.load(Ordering::Acquire)
    }

    /// The jobs queued for the batch so far.
    pub fn ids(&self) -> Arc<HashSet<i64>> {
        lock(&self.ids).clone()
    }

    pub fn contains(&self, id: i64) -> bool {
        lock(&self.ids).contains(&id)
    }

    /// Keep `job` as committed by this engine (called in commit order, so the last row
    /// kept is the job's latest).
    pub fn committed(&self, job: &JobRow) {
        lock(&self.rows).insert(job.id, job.clone());
    }

    /// The rows of the jobs that ended under this engine, and which jobs to read instead.
    pub fn ended_rows(&self) -> EndedRows {
        let order = lock(&self.order);
        let kept = lock(&self.rows);
        let mut to_read = Vec::new();
        let mut unread = HashSet::new();
        let rows = order
            .iter()
            .map(|&id| match kept.get(&id) {
                Some(job) if job.state.is_terminal() => (id, Some(job.clone())),
                _ => {
                    if unread.insert(id) {
                        to_read.push(id);
                    }
                    (id, None)
                }
            })
            .collect();
        EndedRows { rows, to_read }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::JobState;

    fn row(id: i64, state: JobState) -> JobRow {
        JobRow {
            id,
            dataset_id: Some(id),
            dataset_path: None,
            dataset_name: None,
            target: "sandbox+http://127.0.0.1:1".into(),
            operation: "deposit".into(),
            key: "00".repeat(32).parse().expect("64 hex characters"),
            state,
            attempts: 1,
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
        }
    }

    #[test]
    fn a_growing_batch_is_not_all_queued_until_told_and_each_claim_sees_the_set_it_was_sent_with() {
        let batch = Batch::growing();
        batch.add(&[1, 2]);
        let sent_with = batch.ids();
        batch.add(&[3]);
        assert!(!batch.is_all_queued());
        assert_eq!(sent_with.len(), 2, "an earlier claim's set does not change");
        assert!(batch.contains(3) && batch.ids().len() == 3);
        batch.all_queued();
        assert!(batch.is_all_queued());
    }

    #[test]
    fn only_jobs_that_ended_under_this_engine_are_not_read_back() {
        let batch = Batch::of(vec![1, 2, 3, 2]);
        batch.committed(&row(1, JobState::Running));
        batch.committed(&row(1, JobState::Deposited));
        batch.committed(&row(2, JobState::Waiting));
        let ended = batch.ended_rows();
        let states: Vec<Option<JobState>> = ended
            .rows
            .iter()
            .map(|(_, r)| r.as_ref().map(|r| r.state))
            .collect();
        assert_eq!(states, [Some(JobState::Deposited), None, None, None]);
        assert_eq!(ended.to_read, [2, 3], "each job to read once, in order");
    }
}
