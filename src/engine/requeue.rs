//! Why a retry left a job as it was (`lodge retry`, the window's Retry): the store
//! re-queues only failed jobs whose content is still the dataset's and whose key has not
//! landed since; each front end says the reason found here in its own words.

use crate::store::{DatasetRow, JobRow, JobState, Store, StoreError};

/// The reason a job was not re-queued.
#[derive(Clone, Debug)]
pub enum LeftAsItWas {
    /// It is not failed (landed, rejected, or still to be done).
    NotFailed,
    /// Its key landed there since, as `identifier`, through job `by` (if known).
    Landed { identifier: String, by: Option<i64> },
    /// Its dataset was removed from Lodge; its name and folder (`ds001 (/data/ds001)`) as
    /// the removal logged them, and the dataset its folder was added as again since, if
    /// it was.
    DatasetRemoved {
        folder: Option<String>,
        /// The removed dataset's folder alone, as the removal logged it.
        path: Option<String>,
        added_again: Option<Box<DatasetRow>>,
    },
    /// Its dataset was scanned again since under another key: what the job was to deposit
    /// is no longer in the folder.
    Rescanned(Box<DatasetRow>),
    /// Another job for the same key is already on its way.
    AnotherOnItsWay(Box<JobRow>),
    /// A later job for the same key ended too (failed, refused): that one is the deposit
    /// the status shows, and the one to retry.
    Superseded(Box<JobRow>),
    /// None of the above was found (the job changed meanwhile, say).
    Unexplained,
}

/// Why `job` (left as it was by [`Store::retry_jobs`]) was not re-queued.
pub fn why_left(store: &Store, job: &JobRow) -> Result<LeftAsItWas, StoreError> {
    if job.state != JobState::Failed {
        return Ok(LeftAsItWas::NotFailed);
    }
    if let Some(landed) = store.lookup_result(&job.target, &job.key)? {
        return Ok(LeftAsItWas::Landed {
            identifier: landed.identifier,
            by: landed.job_id,
        });
    }
    let dataset = match job.dataset_id {
        Some(d) => store.dataset(d)?,
        None => None,
    };
    let Some(dataset) = dataset else {
        // The removal logged its name and folder; the same folder on the list again is
        // another dataset now, which a deposit sends (this job's content, if the folder
        // holds it still, lands as a replay or under its key).
        let removed = match store.dataset_id_of_job_logged(job.id)? {
            Some(id) => store.removed_dataset_row(id)?,
            None => None,
        };
        let added_again = match &removed {
            Some(r) => store.dataset_by_path(&r.path)?.map(Box::new),
            None => None,
        };
        let folder = removed.as_ref().map(|r| format!("{} ({})", r.name, r.path));
        return Ok(LeftAsItWas::DatasetRemoved {
            folder,
            path: removed.map(|r| r.path),
            added_again,
        });
    };
    if dataset.key != Some(job.key) {
        return Ok(LeftAsItWas::Rescanned(Box::new(dataset)));
    }
    // The scope's other jobs, whichever dataset queued them (a copy of the folder shares
    // the key), as `Store::retry_jobs` weighs them; newest first.
    let same_scope = store.other_jobs_of_scope(job)?;
    if let Some(other) = same_scope.iter().find(|j| !j.state.is_terminal()) {
        return Ok(LeftAsItWas::AnotherOnItsWay(Box::new(other.clone())));
    }
    Ok(match same_scope.into_iter().find(|j| j.id > job.id) {
        Some(later) => LeftAsItWas::Superseded(Box::new(later)),
        None => LeftAsItWas::Unexplained,
    })
}
