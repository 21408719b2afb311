//! One batch of jobs that the engine works through to the end (`lodge deposit`, `lodge
//! retry`): which jobs its workers may claim, and the rows they ended with.
//!
//! The rows of jobs that ended under this engine are kept as their outcomes commit, so the
//! batch's end reads back only the jobs that ended elsewhere (another process, another
//! machine) or have not ended. Reading all of them back was a serial pause at the end of
//! every batch (about 14 ms for 5,000 jobs) with the other core idle.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use crate::store::JobRow;

pub(super) struct Batch {
    /// The jobs in the order they were asked for (a job asked for twice is there twice).
    order: Vec<i64>,
    /// The same jobs, shared by every claim of the batch and every look at it (a batch can
    /// hold thousands).
    ids: Arc<HashSet<i64>>,
    /// The last row this engine committed for each job of the batch.
    rows: Mutex<HashMap<i64, JobRow>>,
}

/// How the batch's jobs ended: for each job asked for, in order, the row kept from its
/// outcome if it ended under this engine; and the jobs to read from the store instead.
pub(super) struct EndedRows {
    pub rows: Vec<(i64, Option<JobRow>)>,
    /// The jobs with no ended row kept, each once.
    pub to_read: Vec<i64>,
}

impl Batch {
    pub fn of(order: Vec<i64>) -> Batch {
        Batch {
            ids: Arc::new(order.iter().copied().collect()),
            order,
            rows: Mutex::default(),
        }
    }

    pub fn ids(&self) -> &Arc<HashSet<i64>> {
        &self.ids
    }

    /// Keep `job` as committed by this engine, if it is one of the batch's. Called in
    /// commit order, so the row kept is the job's latest.
    pub fn committed(&self, job: &JobRow) {
        if self.ids.contains(&job.id) {
            let mut rows = self.rows.lock().unwrap_or_else(|p| p.into_inner());
            rows.insert(job.id, job.clone());
        }
    }

    /// The rows of the jobs that ended under this engine, and which jobs to read instead.
    pub fn ended_rows(&self) -> EndedRows {
        let kept = self.rows.lock().unwrap_or_else(|p| p.into_inner());
        let mut to_read = Vec::new();
        let mut unread = HashSet::new();
        let rows = self
            .order
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
        JobRow::for_tests(id, state)
    }

    #[test]
    fn only_jobs_that_ended_under_this_engine_are_not_read_back() {
        let batch = Batch::of(vec![1, 2, 3, 2]);
        batch.committed(&row(1, JobState::Running));
        batch.committed(&row(1, JobState::Deposited));
        batch.committed(&row(2, JobState::Waiting));
        batch.committed(&row(9, JobState::Deposited));
        let ended = batch.ended_rows();
        let states: Vec<(i64, Option<JobState>)> = ended
            .rows
            .iter()
            .map(|(id, r)| (*id, r.as_ref().map(|r| r.state)))
            .collect();
        assert_eq!(
            states,
            [
                (1, Some(JobState::Deposited)),
                (2, None),
                (3, None),
                (2, None)
            ]
        );
        assert_eq!(ended.to_read, [2, 3], "each job to read once, in order");
    }
}
