//! Fixity checks of deposits that landed (`lodge verify`, the window's *Verify*): read back
//! what the target holds of a deposit ([`Target::holdings`]) and compare it with the
//! manifest and the record Lodge recorded. Nothing is written to a server; the finding goes
//! into the deposit's log ([`log_finding`]).

use std::collections::HashSet;
use std::time::Duration;

use crate::content::ContentDocument;
use crate::store::{EventKind, EventRow, JobRow, Store, StoreError};
use crate::targets::holdings::{OTHER_BYTES, files_checked};
use crate::targets::{Discrepancy, Failure, FailureClass, ProgressSink, ReadBack, Target};

/// What a check of one deposit found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verification {
    /// Record and files as deposited; says what was checked ("2 files, 1.2 KiB: sizes
    /// match").
    Intact(String),
    Damaged(Vec<Discrepancy>),
    /// The server could not be asked, or Lodge lacks what to compare with.
    Unknown(String),
}

/// How the log line of a check that found damage begins; what was found follows.
pub const DAMAGE_FOUND: &str = "verify found: ";

/// How the log line of a check that found the deposit whole begins; what was checked
/// follows.
pub const FOUND_INTACT: &str = "verified intact: ";

/// A check's event (`verified` or `damaged`) as a verdict: whether it found the deposit
/// intact, and what it found or checked, without the lead-in. `None` for other events.
pub fn verdict_of(check: &EventRow) -> Option<(bool, &str)> {
    match check.kind {
        EventKind::Verified => Some((
            true,
            check
                .message
                .strip_prefix(FOUND_INTACT)
                .unwrap_or(&check.message),
        )),
        EventKind::Damaged => Some((
            false,
            check
                .message
                .strip_prefix(DAMAGE_FOUND)
                .unwrap_or(&check.message),
        )),
        _ => None,
    }
}

impl Verification {
    /// The deposit's log line, or `None` for a check that found nothing out.
    pub fn log_message(&self) -> Option<String> {
        match self {
            Verification::Intact(what) => Some(format!("{FOUND_INTACT}{what}")),
            Verification::Damaged(found) => Some(format!(
                "{DAMAGE_FOUND}{}",
                found
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            Verification::Unknown(_) => None,
        }
    }
}

/// Put what a check found into the deposit's log (a check that found nothing out, because
/// the server could not be asked, is not logged). The logged event, if any.
pub fn log_finding(
    store: &Store,
    job: &JobRow,
    verification: &Verification,
) -> Result<Option<EventRow>, StoreError> {
    let Some(message) = verification.log_message() else {
        return Ok(None);
    };
    let intact = matches!(verification, Verification::Intact(_));
    store.log_verification(job, intact, &message).map(Some)
}

/// Which drafting targets' deposits are published, as far as the store knows: by a deposit
/// of the same key to the site's publishing target, or found so by a check
/// ([`note_publication`]).
pub fn published_records(store: &Store) -> Result<crate::targets::PublishedRecords, StoreError> {
    let results = store.result_fingerprints()?;
    let mut published = crate::targets::PublishedRecords::from_results(
        results
            .iter()
            .map(|r| (r.target.as_str(), r.identifier.as_str(), r.url.as_deref())),
    );
    for (scope, identifier) in store.published_drafts()? {
        published.note_published_draft(&scope, &identifier);
    }
    Ok(published)
}

/// Before asking whether `job`'s deposit was published since ([`note_publication`]): its
/// record, when a drafting target left it a draft and nothing Lodge knows says otherwise.
pub fn draft_to_ask(store: &Store, job: &JobRow) -> Result<Option<String>, StoreError> {
    let Some(record) = job.identifier.clone() else {
        return Ok(None);
    };
    if !job.state.is_landed() || !crate::targets::scope_makes_drafts(&job.target) {
        return Ok(None);
    }
    Ok(published_records(store)?
        .is_draft(&job.target, Some(&record))
        .then_some(record))
}

/// The message a check logs when it finds draft `record` published since.
pub fn published_since(record: &str) -> String {
    format!("published since on the repository's pages: {record} is public now, no draft")
}

/// After a check of `job`'s deposit: where a drafting target left it a draft, whether it
/// was published since on the repository's pages; if so, that is logged (once: a deposit
/// known published is not asked again) and the event returned. A server that cannot be
/// asked leaves it as it was: that is not a check's finding.
pub async fn note_publication(
    store: &Store,
    target: &dyn Target,
    job: &JobRow,
) -> Result<Option<EventRow>, StoreError> {
    let Some(record) = draft_to_ask(store, job)? else {
        return Ok(None);
    };
    match target.draft_published(&job.key, &record).await {
        Ok(Some(true)) => store
            .log_published(job, &published_since(&record))
            .map(Some),
        Ok(_) | Err(_) => Ok(None),
    }
}

/// The deposits of a dataset to check: the latest job that landed each (target, key), oldest
/// first; only those on target `only` when given.
pub fn landed_deposits(
    store: &Store,
    dataset: i64,
    only: Option<&str>,
) -> Result<Vec<JobRow>, StoreError> {
    let mut seen = HashSet::new();
    // Newest first: the first landed job of each scope is its latest.
    let mut jobs: Vec<JobRow> = store
        .jobs_of_dataset(dataset)?
        .into_iter()
        .filter(|j| j.state.is_landed() && j.identifier.is_some())
        .filter(|j| only.is_none_or(|t| j.target == t))
        .filter(|j| seen.insert((j.target.clone(), j.key)))
        .collect();
    // A deposit run again (a replay, or the server's "exists") is a landed job too; the
    // deposit to check is the one that holds the record, as `status` and `show` name it,
    // so a check is logged under it.
    for job in &mut jobs {
        if let Some(result) = store.lookup_result(&job.target, &job.key)?
            && let Some(holder) = result.job_id.filter(|j| *j != job.id)
            && let Ok(held) = store.job(holder)
            && held.state.is_landed()
            && held.dataset_id == job.dataset_id
        {
            *job = held;
        }
    }
    jobs.reverse();
    // Its current key deposited by another dataset (a copy of its folder: one deposit for
    // both) is its deposit too, where it has none of its own.
    if let Some(row) = store.dataset(dataset)?
        && let (Some(key), Some(fingerprint)) = (row.key, row.fingerprint)
    {
        let hex = key.to_hex();
        for result in store.results_with_fingerprint(&fingerprint.to_string())? {
            if result.key != hex || only.is_some_and(|t| result.target != t) {
                continue;
            }
            let Some(job) = result.job_id else { continue };
            let job = store.job(job)?;
            if job.state.is_landed() && seen.insert((job.target.clone(), job.key)) {
                jobs.push(job);
            }
        }
        // A result `forget` dropped leaves the job that landed it in the history, and the
        // record on the server: still this key's deposit there (newest landed first).
        for job in store.deposit_jobs_of_key(&key)? {
            let landed = job.state.is_landed() && job.identifier.is_some();
            if landed
                && only.is_none_or(|t| job.target == t)
                && seen.insert((job.target.clone(), job.key))
            {
                jobs.push(job);
            }
        }
    }
    Ok(jobs)
}

/// How to read back `job`'s deposit when `asked` is how the person asked: by bytes if they
/// asked so, and also when the deposit's latest check found bytes changed in place, which
/// only reading bytes finds (a check by sizes would call such a deposit intact).
pub fn read_back_for(store: &Store, job: &JobRow, asked: ReadBack) -> ReadBack {
    let found_other_bytes = match store.latest_check(&job.target, &job.key) {
        Ok(Some(check)) => check.kind == EventKind::Damaged && check.message.contains(OTHER_BYTES),
        // Without the log's word, the check is as the person asked.
        Ok(None) | Err(_) => false,
    };
    if found_other_bytes {
        ReadBack::Bytes
    } else {
        asked
    }
}

/// The manifest to check `job`'s deposit against, or why there is none.
pub fn manifest_of(store: &Store, job: &JobRow) -> Result<ContentDocument, String> {
    match store.document(&job.key) {
        Ok(Some(document)) => Ok(document),
        Ok(None) => Err(format!(
            "Lodge no longer has the manifest of key {}",
            job.key.short()
        )),
        Err(e) => Err(format!("cannot read its manifest: {e}")),
    }
}

/// Times a check asks a server that is busy or drops the connection before it says the
/// deposit could not be checked.
const READ_TRIES: u32 = 4;

/// Longest wait between those tries, whatever the server's `Retry-After` asks.
const LONGEST_READ_WAIT: Duration = Duration::from_secs(30);

/// No new try once a check has taken this long: a server that hangs until the read
/// timeout (two minutes) is asked once, not four times, before the check is unknown.
const NO_TRY_AFTER: Duration = Duration::from_secs(60);

/// Check the deposit `job` landed on `target`, whose manifest is `document`; `progress` is
/// told of the bytes read back.
pub async fn check_deposit(
    target: &dyn Target,
    job: &JobRow,
    document: &ContentDocument,
    read: ReadBack,
    progress: &ProgressSink,
) -> Verification {
    check_once(target, job, document, read, progress).await.0
}

/// Checks of many deposits on one target share one of these. Once the server has not
/// answered one check (it stayed busy, dropped the connection or hung through every try,
/// or could not be reached), the checks after it are not sent: each would wait as long
/// in vain (a server that hangs holds each for the two-minute read timeout). Nor once it
/// refused Lodge's credentials (401, 403): asking again with the same ones is refused
/// again, and some servers lock an account after a run of refusals. They end unknown,
/// saying why, and a later `verify` checks them.
#[derive(Default)]
pub struct SilenceWatch {
    /// Why the server is taken as silent: how it fell silent, and the words for the checks
    /// not sent.
    silent: std::sync::Mutex<Option<(Unanswered, String)>>,
}

/// Why checks on a target stop being sent after one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unanswered {
    /// The server stayed busy, dropped the connection, hung or could not be reached.
    Silent,
    /// It refused Lodge's credentials.
    Refused,
}

impl SilenceWatch {
    /// [`check_deposit`], unless the server already did not answer an earlier check;
    /// `name` is what the person calls the deposit (its dataset's name).
    pub async fn check(
        &self,
        target: &dyn Target,
        name: &str,
        job: &JobRow,
        document: &ContentDocument,
        read: ReadBack,
        progress: &ProgressSink,
    ) -> Verification {
        if let Some(why) = self.silence() {
            return Verification::Unknown(why);
        }
        let (found, unanswered) = check_once(target, job, document, read, progress).await;
        if let Some(unanswered) = unanswered {
            // The first check that went unanswered says why for all that follow.
            self.lock().get_or_insert_with(|| {
                let why = match unanswered {
                    Unanswered::Silent => format!(
                        "not checked: the server did not answer the check of {name}; check \
                         again when it does"
                    ),
                    Unanswered::Refused => format!(
                        "not checked: the server refused Lodge's credentials for the check of \
                         {name}; check again once they are corrected"
                    ),
                };
                (unanswered, why)
            });
        }
        found
    }

    /// Whether checks stopped because the server refused the credentials.
    pub fn refused_credentials(&self) -> bool {
        matches!(*self.lock(), Some((Unanswered::Refused, _)))
    }

    /// Why checks on this target are no longer sent, if they are not.
    pub fn silence(&self) -> Option<String> {
        self.lock().as_ref().map(|(_, why)| why.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(Unanswered, String)>> {
        self.silent.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// [`check_deposit`], and whether the server did not answer at all (busy, dropped, hung or
/// unreachable through every try) or refused the credentials, as opposed to answering with
/// what it holds.
async fn check_once(
    target: &dyn Target,
    job: &JobRow,
    document: &ContentDocument,
    read: ReadBack,
    progress: &ProgressSink,
) -> (Verification, Option<Unanswered>) {
    let recorded = job.identifier.as_deref().unwrap_or_default();
    let mut tries = 0;
    let started = std::time::Instant::now();
    let holdings = loop {
        tries += 1;
        match target.holdings(&job.key, document, read, progress).await {
            Ok(holdings) => break holdings,
            // The record's place holds something else: damage, not a server that cannot
            // answer.
            Err(Failure::Conflict { message }) => {
                let replaced = Discrepancy::RecordReplaced {
                    message,
                    written_again: target.rewrites_gone_records(),
                };
                return (Verification::Damaged(vec![replaced]), None);
            }
            // Reading is safe to repeat: a busy server (429, 503) or a dropped connection
            // is asked again, after the wait it asks for, before the check is unknown. Not
            // a server that cannot be reached at all (connection refused): every deposit
            // on it would wait through the tries in vain.
            Err(failure)
                if tries < READ_TRIES
                    && started.elapsed() < NO_TRY_AFTER
                    && (matches!(failure, Failure::Wait { .. })
                        || failure.class() == FailureClass::RetryAmbiguous) =>
            {
                let backoff = Duration::from_millis(500 << tries.min(3));
                let wait = failure
                    .retry_after()
                    .unwrap_or(backoff)
                    .min(LONGEST_READ_WAIT);
                tokio::time::sleep(wait).await;
            }
            Err(failure) => {
                let unanswered = if matches!(failure, Failure::Unauthorized { .. }) {
                    Some(Unanswered::Refused)
                } else if matches!(failure, Failure::Wait { .. } | Failure::NotSent { .. })
                    || failure.class() == FailureClass::RetryAmbiguous
                {
                    Some(Unanswered::Silent)
                } else {
                    None
                };
                let why = format!("the server could not be asked: {failure}");
                return (Verification::Unknown(why), unanswered);
            }
        }
    };
    let found = holdings.discrepancies(document, recorded);
    if !found.is_empty() {
        return (Verification::Damaged(found), None);
    }
    let intact = Verification::Intact(if holdings.files.is_empty() {
        "the record is there (this target keeps no files)".to_string()
    } else {
        files_checked(document, read)
    });
    (intact, None)
}
