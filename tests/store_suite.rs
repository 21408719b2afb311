//! The store's contract, run unchanged against both backends: a SQLite file and a
//! PostgreSQL database (a throwaway cluster on loopback, see `support::postgres`). Each case
//! is written once against `Store` and instantiated for each backend by `store_suite!`.

mod support;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use lodge::content::ContentKey;
use lodge::store::{
    Cancel, Claim, ClaimFilter, Dismiss, Enqueued, EventKind, Finish, JobState, Lease, Store,
    StoreError, StoreLocation,
};
use lodge::targets::{EarlierRecord, RecordRef};
use support::{Lab, metadata};

const TARGET: &str = "sandbox+http://127.0.0.1:9";

/// Where a case's database lives; `open` gives another connection to the same one.
struct Backend {
    location: StoreLocation,
    lab: Lab,
}

impl Backend {
    fn sqlite() -> Backend {
        let lab = Lab::new();
        Backend {
            location: StoreLocation::File(lab.path("lodge.db")),
            lab,
        }
    }

    fn postgres() -> Backend {
        let lab = Lab::new();
        support::postgres::local_hash_cache();
        Backend {
            location: StoreLocation::Postgres(support::postgres::shared().new_database()),
            lab,
        }
    }

    fn open(&self) -> Arc<Store> {
        Arc::new(Store::open_at(&self.location).expect("open store"))
    }

    /// Run `sql` on this backend's database as another process would, past the store.
    fn sql(&self, sql: &str) {
        match &self.location {
            StoreLocation::File(path) => {
                rusqlite::Connection::open(path)
                    .unwrap()
                    .execute_batch(sql)
                    .unwrap();
            }
            StoreLocation::Postgres(url) => {
                let database = url.rsplit('/').next().expect("a database in the URL");
                support::postgres::shared().sql(database, sql);
            }
        }
    }

    /// A recorded dataset with its key, queued for TARGET.
    fn queued(&self, store: &Store, n: usize) -> (i64, ContentKey, i64) {
        let root = self.lab.numbered_folder(n);
        let (id, key) = support::add(store, &root, &metadata(&format!("Dataset {n}")));
        let job = store
            .enqueue_deposit(id, TARGET, &key, Duration::from_secs(3600))
            .unwrap()
            .0
            .job_id();
        (id, key, job)
    }
}

fn filter() -> ClaimFilter {
    ClaimFilter {
        targets: vec![TARGET.into()],
        ..Default::default()
    }
}

fn claim(store: &Store, owner: &str, lease: Duration) -> Lease {
    match store.claim(owner, lease, 8, &filter()).unwrap() {
        Claim::Attempt { lease, .. } => *lease,
        other => panic!("expected an attempt, got {other:?}"),
    }
}

/// Dataset `n` queued for TARGET, claimed and failed (a 503 through every attempt): its
/// key and job.
fn failed_once(b: &Backend, store: &Store, n: usize) -> (ContentKey, i64) {
    let (_, key, job) = b.queued(store, n);
    let lease = claim(store, "w1", Duration::from_secs(60));
    let failed = Finish::Failed {
        error: "gave up".into(),
        http_status: Some(503),
    };
    store.finish(&lease, &failed).unwrap();
    (key, job)
}

fn landed(identifier: &str) -> Finish {
    Finish::Landed {
        record: RecordRef {
            identifier: identifier.into(),
            url: None,
        },
        created: true,
        kind: EventKind::Created,
        message: format!("created {identifier}"),
        http_status: Some(201),
    }
}

fn with_target(store: &Store) {
    store.upsert_target(TARGET, TARGET, "test sandbox").unwrap();
}

// ---- the cases ----

fn enqueueing_a_scope_twice_joins_the_active_job(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (id, key, job) = b.queued(&store, 1);
    let (again, event) = store
        .enqueue_deposit(id, TARGET, &key, Duration::from_secs(60))
        .unwrap();
    assert_eq!(again, Enqueued::AlreadyQueued(job));
    assert!(event.is_none());
}

fn a_claim_bumps_the_fence_counts_the_attempt_and_holds_the_job(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (_, _, job) = b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    assert_eq!(lease.job.id, job);
    assert_eq!(lease.fence, 1);
    assert_eq!(lease.job.attempts, 1);
    assert_eq!(lease.job.state, JobState::Running);
    // Held: nothing else is due.
    assert!(matches!(
        store
            .claim("w2", Duration::from_secs(60), 8, &filter())
            .unwrap(),
        Claim::Idle
    ));
}

fn an_expired_lease_is_taken_over_and_the_late_result_refused(b: Backend) {
    let first = b.open();
    let second = b.open();
    with_target(&first);
    b.queued(&first, 1);
    let stale = claim(&first, "w1", Duration::from_millis(1));
    std::thread::sleep(Duration::from_millis(20));
    let fresh = claim(&second, "w2", Duration::from_secs(60));
    assert_eq!(fresh.fence, stale.fence + 1);
    let refused = first.finish(&stale, &landed("stale-1")).unwrap_err();
    assert!(
        matches!(refused, StoreError::StaleLease { .. }),
        "{refused}"
    );
    let (job, _) = second.finish(&fresh, &landed("fresh-1")).unwrap();
    assert_eq!(job.state, JobState::Deposited);
    assert_eq!(job.identifier.as_deref(), Some("fresh-1"));
}

/// The same scope queued again once its key landed is a replay at once: its job ends
/// `existing` with the recorded identifier and a replay event in the enqueue's own
/// transaction, and nothing waits on the queue for it (a stopped run leaves none behind).
fn a_recorded_result_makes_the_next_job_of_the_scope_a_replay(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (id, key, _) = b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    store.finish(&lease, &landed("42")).unwrap();
    let (again, event) = store
        .enqueue_deposit(id, TARGET, &key, Duration::from_secs(60))
        .unwrap();
    let Enqueued::Replayed(job) = again else {
        panic!("expected a replay, got {again:?}")
    };
    let job = store.job(job).unwrap();
    assert_eq!(job.state, JobState::Existing);
    assert_eq!(job.identifier.as_deref(), Some("42"));
    assert_eq!(job.attempts, 0, "nothing sent");
    let event = event.expect("the replay is logged");
    assert_eq!(event.kind, EventKind::Replay);
    assert_eq!(event.job_id, Some(job.id));
    assert!(
        event.message.contains("no request sent"),
        "{}",
        event.message
    );
    assert!(matches!(
        store
            .claim("w1", Duration::from_secs(60), 8, &filter())
            .unwrap(),
        Claim::Idle
    ));
    assert_eq!(store.totals().unwrap().pending, 0);
    assert_eq!(
        store
            .lookup_result(TARGET, &key)
            .unwrap()
            .unwrap()
            .identifier,
        "42"
    );
}

fn a_finish_run_again_after_its_commit_answers_what_was_recorded(b: Backend) {
    // A COMMIT whose answer was lost is run again by the store: the second run must find
    // the first, not refuse it or record twice.
    let store = b.open();
    with_target(&store);
    b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    let (first, event) = store.finish(&lease, &landed("7")).unwrap();
    let (again, same_event) = store.finish(&lease, &landed("7")).unwrap();
    assert_eq!(again.state, first.state);
    assert_eq!(same_event.id, event.id);
    assert_eq!(store.events_for_job(first.id).unwrap().len(), 3); // queued, attempt, created
}

fn concurrent_claimers_never_share_a_job(b: Backend) {
    let setup = b.open();
    with_target(&setup);
    let jobs: HashSet<i64> = (0..40).map(|n| b.queued(&setup, n).2).collect();
    let claimers: Vec<_> = (0..6)
        .map(|w| {
            let store = b.open();
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                loop {
                    match store
                        .claim(&format!("w{w}"), Duration::from_secs(60), 8, &filter())
                        .unwrap()
                    {
                        Claim::Attempt { lease, .. } => {
                            store
                                .finish(&lease, &landed(&format!("r{}", lease.job.id)))
                                .unwrap();
                            mine.push(lease.job.id);
                        }
                        Claim::Idle => return mine,
                        Claim::Replayed { .. } => panic!("nothing was recorded before"),
                    }
                }
            })
        })
        .collect();
    let mut claimed: Vec<i64> = claimers
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    claimed.sort();
    let unique: HashSet<i64> = claimed.iter().copied().collect();
    assert_eq!(
        claimed.len(),
        unique.len(),
        "a job was claimed twice: {claimed:?}"
    );
    assert_eq!(unique, jobs);
    assert_eq!(setup.totals().unwrap().pending, 0);
}

fn a_failed_job_is_requeued_with_the_same_key(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (key, job) = failed_once(&b, &store, 1);
    assert_eq!(store.failed_job_ids(Some(TARGET)).unwrap(), vec![job]);
    assert_eq!(
        store.retry_jobs(&[job], Duration::from_secs(60)).unwrap(),
        vec![job]
    );
    let again = claim(&store, "w1", Duration::from_secs(60));
    assert_eq!(again.job.id, job);
    assert_eq!(again.job.key, key);
    assert_eq!(again.job.attempts, 1);
}

/// A failed job `retry` re-queued is pending since then, not since it was first queued a
/// day before: the totals' oldest pending age counts from the re-queue.
fn a_requeued_job_is_pending_since_its_requeue(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (_, job) = failed_once(&b, &store, 1);
    let day_ms = 24 * 3600 * 1000;
    b.sql(&format!(
        "UPDATE jobs SET created_at = created_at - {day_ms} WHERE id = {job}"
    ));
    let age = |store: &Store| store.totals().unwrap().oldest_pending_age_secs;
    assert_eq!(age(&store), None, "nothing pending");

    store.retry_jobs(&[job], Duration::from_secs(60)).unwrap();
    let requeued = age(&store).expect("one pending");
    assert!(
        requeued < 3600.0,
        "pending since the re-queue: {requeued} s"
    );
    // A job queued long ago and never failed is as old as it is.
    let (_, _, other) = b.queued(&store, 2);
    b.sql(&format!(
        "UPDATE jobs SET created_at = created_at - {day_ms} WHERE id = {other}"
    ));
    let oldest = age(&store).expect("two pending");
    assert!(oldest >= 86_400.0, "queued a day ago: {oldest} s");
}

/// A retry starts the job's count of attempts again (each round has its own bound), but the
/// history counts every attempt it made: two here, one a round.
fn the_history_counts_a_retried_jobs_attempts_of_every_round(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (_, job) = failed_once(&b, &store, 1);
    store.retry_jobs(&[job], Duration::from_secs(60)).unwrap();
    let again = claim(&store, "w1", Duration::from_secs(60));
    assert_eq!(again.job.attempts, 1, "the round's own count starts again");
    store.finish(&again, &landed("rec-1")).unwrap();

    let history = store.history().unwrap();
    let row = history.iter().find(|r| r.job == job).unwrap();
    assert_eq!(row.state, "deposited");
    assert_eq!(row.attempts, 2, "{row:?}");
    assert_eq!(store.job(job).unwrap().attempts, 1);
    // Who queued it: the handle whose events its first was.
    assert_eq!(row.queued_by.as_deref(), Some(store.actor()), "{row:?}");
}

/// A failed deposit queued again (a `deposit` run anew makes a new job) is taken over by
/// the new job: while it is on the queue nothing is failed, and once it fails too it is the
/// one to retry, not the first (which `retry` leaves as history, and the totals do not
/// count).
fn a_failed_job_deposited_again_leaves_only_the_later_job_to_retry(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (dataset, key, first) = b.queued(&store, 1);
    store.cancel_jobs(&[first], "cancelled by hand").unwrap();
    assert_eq!(store.totals().unwrap().failed, 1);
    let (again, _) = store
        .enqueue_deposit(dataset, TARGET, &key, Duration::from_secs(3600))
        .unwrap();
    let second = again.job_id();
    assert_ne!(second, first);
    assert_eq!(
        store.totals().unwrap().failed,
        0,
        "its deposit is queued again"
    );
    assert!(store.failed_job_ids(None).unwrap().is_empty());
    assert!(
        store
            .retry_jobs(&[first], Duration::from_secs(60))
            .unwrap()
            .is_empty(),
        "the later job is on its way"
    );

    store.cancel_jobs(&[second], "cancelled by hand").unwrap();
    assert_eq!(store.totals().unwrap().failed, 1);
    assert_eq!(store.failed_job_ids(None).unwrap(), [second]);
    assert!(
        store
            .retry_jobs(&[first], Duration::from_secs(60))
            .unwrap()
            .is_empty(),
        "the first stays history"
    );
    assert_eq!(
        store
            .retry_jobs(&[second], Duration::from_secs(60))
            .unwrap(),
        [second]
    );

    // A refusal deposited again is taken over the same way: the totals count it no more
    // once a later job of its scope is on the queue.
    store.cancel_jobs(&[second], "cancelled by hand").unwrap();
    let (other, other_key, refused) = b.queued(&store, 2);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    assert_eq!(lease.job.id, refused);
    store
        .finish(
            &lease,
            &Finish::Rejected {
                error: "rejected: 422 title".into(),
                http_status: Some(422),
            },
        )
        .unwrap();
    assert_eq!(store.totals().unwrap().rejected, 1);
    store
        .enqueue_deposit(other, TARGET, &other_key, Duration::from_secs(3600))
        .unwrap();
    assert_eq!(store.totals().unwrap().rejected, 0);
}

/// The same for a later job queued by a copy of the folder (the same key, another
/// dataset): the first stays history, and why it is not re-queued names the copy's job.
fn a_failed_job_whose_key_a_copy_deposits_again_names_the_copys_job(b: Backend) {
    use lodge::engine::requeue::{LeftAsItWas, why_left};
    let store = b.open();
    with_target(&store);
    let (one, two, key) = two_copies(&b, &store);
    let (first, _) = store
        .enqueue_deposit(one, TARGET, &key, Duration::from_secs(3600))
        .unwrap();
    let first = first.job_id();
    store.cancel_jobs(&[first], "cancelled by hand").unwrap();
    let (copys, _) = store
        .enqueue_deposit(two, TARGET, &key, Duration::from_secs(3600))
        .unwrap();
    let copys = copys.job_id();
    assert!(store.failed_job_ids(None).unwrap().is_empty());
    assert!(
        store
            .retry_jobs(&[first], Duration::from_secs(60))
            .unwrap()
            .is_empty()
    );
    match why_left(&store, &store.job(first).unwrap()).unwrap() {
        LeftAsItWas::AnotherOnItsWay(other) => assert_eq!(other.id, copys),
        other => panic!("expected the copy's job on its way, got {other:?}"),
    }
    store.cancel_jobs(&[copys], "cancelled by hand").unwrap();
    match why_left(&store, &store.job(first).unwrap()).unwrap() {
        LeftAsItWas::Superseded(later) => assert_eq!(later.id, copys),
        other => panic!("expected the copy's later job, got {other:?}"),
    }
}

fn a_failed_job_whose_dataset_moved_on_to_another_key_is_not_requeued(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (_, key, job) = b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    let gave_up = Finish::Failed {
        error: "gave up".into(),
        http_status: Some(503),
    };
    store.finish(&lease, &gave_up).unwrap();
    let (_, new_key) = support::add(&store, &b.lab.numbered_folder(1), &metadata("Renamed"));
    assert_ne!(new_key, key);
    assert!(
        store
            .retry_jobs(&[job], Duration::from_secs(60))
            .unwrap()
            .is_empty(),
        "the content it was to deposit is no longer the folder's"
    );
    assert_eq!(store.job(job).unwrap().state, JobState::Failed);
    assert!(matches!(
        store
            .claim("w1", Duration::from_secs(60), 8, &filter())
            .unwrap(),
        Claim::Idle
    ));
}

fn a_failed_job_whose_scope_landed_since_is_neither_listed_failed_nor_requeued(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (dataset, key, failed) = b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    let gave_up = Finish::Failed {
        error: "gave up".into(),
        http_status: Some(503),
    };
    store.finish(&lease, &gave_up).unwrap();
    assert_eq!(store.failed_job_ids(None).unwrap(), vec![failed]);

    // Deposited again, the dataset gets a new job for the scope, which lands.
    let later = store
        .enqueue_deposit(dataset, TARGET, &key, Duration::from_secs(3600))
        .unwrap()
        .0
        .job_id();
    assert_ne!(later, failed);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    assert_eq!(lease.job.id, later);
    store.finish(&lease, &landed("r-1")).unwrap();

    assert!(store.failed_job_ids(None).unwrap().is_empty());
    assert!(store.failed_job_ids(Some(TARGET)).unwrap().is_empty());
    assert!(
        store
            .retry_jobs(&[failed], Duration::from_secs(60))
            .unwrap()
            .is_empty(),
        "the scope has landed: nothing is left to retry"
    );
    assert_eq!(
        store.job(failed).unwrap().state,
        JobState::Failed,
        "history kept"
    );
}

fn a_queued_job_of_a_removed_dataset_is_taken_over_when_its_folder_is_added_again(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (removed, key, job) = b.queued(&store, 1);
    store.remove_dataset(removed).unwrap();
    assert_eq!(store.job(job).unwrap().dataset_id, None);

    let (again, same_key) = support::add(&store, &b.lab.numbered_folder(1), &metadata("Dataset 1"));
    assert_eq!(same_key, key);
    let (joined, event) = store
        .enqueue_deposit(again, TARGET, &key, Duration::from_secs(3600))
        .unwrap();
    assert_eq!(joined, Enqueued::AlreadyQueued(job));
    assert_eq!(store.job(job).unwrap().dataset_id, Some(again));
    let event = event.expect("the takeover is logged");
    assert_eq!(event.job_id, Some(job));
    assert!(
        event.message.contains("taken over by dataset"),
        "{}",
        event.message
    );

    // Joined again by the same dataset: nothing more to take over, nothing logged.
    let (_, none) = store
        .enqueue_deposit(again, TARGET, &key, Duration::from_secs(3600))
        .unwrap();
    assert!(none.is_none());
}

/// A leased job can send the files of another dataset with its key (its own folder is gone,
/// say): under the fence, logged, and the outcome then names that dataset.
fn a_leased_job_is_handed_to_a_copy_of_its_key_under_the_fence(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (own, key, job) = b.queued(&store, 1);
    let (other, other_key, _) = b.queued(&store, 2);
    let copy_folder = b.lab.folder(
        "copies/ds001",
        &[
            ("data.csv", b"id,value\n1,1\n"),
            ("README.txt", b"shared readme"),
        ],
    );
    let (copy, copy_key) = support::add(&store, &copy_folder, &metadata("Dataset 1"));
    assert_eq!(copy_key, key, "a copy of the folder has its key");

    let copies = store.copies_of_key(&key, Some(own)).unwrap();
    assert_eq!(
        copies.iter().map(|c| c.dataset_id).collect::<Vec<_>>(),
        vec![copy],
        "the dataset itself and other keys are not copies"
    );
    let the_copy = copies[0].clone();

    let mut lease = claim(&store, "w1", Duration::from_secs(60));
    assert_eq!(lease.job.id, job);
    let mut stale = Lease {
        fence: lease.fence - 1,
        ..lease.clone()
    };
    assert!(matches!(
        store.hand_job_to_copy(&mut stale, &the_copy, "why"),
        Err(StoreError::StaleLease { .. })
    ));
    assert_eq!(store.job(job).unwrap().dataset_id, Some(own));

    // A dataset whose key is not the job's (rescanned since it was listed) is not taken.
    let not_a_copy = lodge::store::KeyCopy {
        dataset_id: other,
        ..the_copy.clone()
    };
    assert_ne!(other_key, key);
    assert!(
        store
            .hand_job_to_copy(&mut lease, &not_a_copy, "why")
            .unwrap()
            .is_none()
    );
    assert_eq!(store.job(job).unwrap().dataset_id, Some(own));

    let (input, event) = store
        .hand_job_to_copy(&mut lease, &the_copy, "the folder is gone")
        .unwrap()
        .expect("handed to the copy");
    assert_eq!(input.dataset_key, Some(key));
    assert_eq!(input.files.len(), 2);
    assert!(input.document.is_some());
    assert_eq!(event.dataset_id, Some(copy));
    assert_eq!(event.job_id, Some(job));
    assert_eq!(event.message, "the folder is gone");
    assert_eq!(lease.job.dataset_id, Some(copy));
    assert_eq!(
        lease.job.dataset_path.as_deref(),
        Some(the_copy.path.as_str())
    );

    let (finished, _) = store.finish(&lease, &landed("r-1")).unwrap();
    assert_eq!(finished, store.job(job).unwrap(), "the outcome as stored");
    assert_eq!(finished.dataset_id, Some(copy));
}

fn a_removed_datasets_id_is_not_given_to_the_next_one(b: Backend) {
    let store = b.open();
    let (first, _) = support::add(&store, &b.lab.numbered_folder(1), &metadata("One"));
    let (newest, _) = support::add(&store, &b.lab.numbered_folder(2), &metadata("Two"));
    store.remove_dataset(newest).unwrap();
    let (next, _) = support::add(&store, &b.lab.numbered_folder(3), &metadata("Three"));
    assert!(
        next > newest && newest > first,
        "ids {first}, {newest} (removed), then {next}: a log line or a note naming {newest} \
         must not come to mean another dataset"
    );
}

fn rescanning_a_dataset_uses_up_no_dataset_numbers(b: Backend) {
    let store = b.open();
    let folder = b.lab.numbered_folder(1);
    let (first, _) = support::add(&store, &folder, &metadata("One"));
    // A weekly rescan, and a change of metadata, save the same folder again.
    for title in ["One", "One", "One, revised"] {
        let (again, _) = support::add(&store, &folder, &metadata(title));
        assert_eq!(again, first, "the same folder is the same dataset");
    }
    let (second, _) = support::add(&store, &b.lab.numbered_folder(2), &metadata("Two"));
    assert_eq!(
        second,
        first + 1,
        "the second folder ever added is dataset {}, not {second}: saving a folder again \
         must not use up numbers that `lodge deposit N` shows and takes",
        first + 1
    );
}

/// A dataset's life is in the log, once per change: `added` when its folder joins the
/// list, `rescanned` (saying what changed) when its files move its key on, `edited` when its
/// metadata alone does, `removed` when it leaves. An open window learns of work done in a terminal from these.
fn adding_rescanning_and_removing_a_dataset_are_each_logged_once(b: Backend) {
    let store = b.open();
    let folder = b.lab.numbered_folder(1);
    let before = store.last_event_id().unwrap();
    let dataset_events = |store: &Store| -> Vec<(EventKind, String)> {
        store
            .events_after(before, 100)
            .unwrap()
            .into_iter()
            .map(|e| {
                assert_eq!(e.job_id, None, "a dataset's change is no job's: {e:?}");
                (e.kind, e.message)
            })
            .collect()
    };

    let (id, first_key) = support::add(&store, &folder, &metadata("Soil"));
    support::add(&store, &folder, &metadata("Soil"));
    let (_, retitled) = support::add(&store, &folder, &metadata("Soil, revised"));
    std::fs::write(folder.join("data.csv"), "id,value\n1,2\n").unwrap();
    let (_, refilled) = support::add(&store, &folder, &metadata("Soil, revised"));
    assert!(store.remove_dataset(id).unwrap());
    assert!(
        !store.remove_dataset(id).unwrap(),
        "gone already: nothing to remove"
    );

    let logged = dataset_events(&store);
    let kinds: Vec<EventKind> = logged.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        kinds,
        [
            EventKind::Added,
            EventKind::Edited,
            EventKind::Rescanned,
            EventKind::Removed
        ],
        "a rescan that finds the folder as it was logs nothing: {logged:#?}"
    );
    let message = |i: usize| logged[i].1.as_str();
    assert_eq!(message(0), "added with 2 files, 26 B");
    assert_eq!(
        message(1),
        format!(
            "its metadata changed; key {}… is now {}…",
            first_key.short(),
            retitled.short()
        )
    );
    assert!(
        message(2).starts_with("scanned again: its files changed; key")
            && message(2).ends_with(&format!("is now {}…", refilled.short())),
        "{}",
        message(2)
    );
    assert!(
        message(3).starts_with("removed ds001 (")
            && message(3).ends_with("what it deposited stays"),
        "{}",
        message(3)
    );
    let all = store.events_after(before, 100).unwrap();
    assert!(all.iter().all(|e| e.dataset_id == Some(id)));
    assert_eq!(
        all[2].content_key.as_deref(),
        Some(refilled.to_hex().as_str())
    );
}

fn a_name_two_datasets_share_is_refused_naming_both_folders(b: Backend) {
    let store = b.open();
    let older = b.lab.folder("2024/raw", &[("a.csv", b"2024")]);
    let newer = b.lab.folder("2025/raw", &[("a.csv", b"2025")]);
    let (first, _) = support::add(&store, &older, &metadata("Raw 2024"));
    let (second, _) = support::add(&store, &newer, &metadata("Raw 2025"));
    let refused = store.find_dataset("raw").unwrap_err().to_string();
    for (id, folder) in [(first, &older), (second, &newer)] {
        let folder = folder.canonicalize().unwrap();
        let named = format!("{id} ({})", folder.display());
        assert!(refused.contains(&named), "{named} missing from: {refused}");
    }
    assert!(
        refused.contains("Give its number or its folder"),
        "{refused}"
    );
    // Either folder, or number, is one dataset.
    assert_eq!(store.find_dataset(&second.to_string()).unwrap().id, second);
}

fn a_shared_store_measures_this_machines_clock_against_the_servers(b: Backend) {
    let store = b.open();
    match &b.location {
        // One machine's clock times every lease of a file: nothing to compare.
        StoreLocation::File(_) => assert_eq!(store.clock_offset_ms().unwrap(), None),
        // The server runs on this machine here, so the two clocks agree.
        StoreLocation::Postgres(_) => {
            let offset = store
                .clock_offset_ms()
                .unwrap()
                .expect("measured on PostgreSQL");
            assert!(
                offset.abs() < 1_000,
                "offset {offset} ms from a server on this machine"
            );
        }
    }
    assert_eq!(store.clock_warning(), None);
    // Its files (the database, or the hash cache beside a shared store) are on a local disk.
    assert_eq!(store.network_warning(), None);
}

fn datasets_overlapping_a_folder_are_those_inside_it_or_around_it(b: Backend) {
    let store = b.open();
    let survey = b
        .lab
        .folder("survey", &[("a.csv", b"1"), ("raw/b.csv", b"2")]);
    let sibling = b.lab.folder("survey-2", &[("c.csv", b"3")]);
    let (raw, _) = support::add(&store, &survey.join("raw"), &metadata("Raw"));
    let (outer, _) = support::add(&store, &survey, &metadata("Survey"));
    support::add(&store, &sibling, &metadata("Sibling"));
    let overlapping = |path: &std::path::Path| -> Vec<i64> {
        let path = path.canonicalize().unwrap();
        store
            .datasets_overlapping(path.to_str().unwrap())
            .unwrap()
            .into_iter()
            .map(|d| d.id)
            .collect()
    };
    assert_eq!(overlapping(&survey), vec![raw], "itself left out");
    assert_eq!(overlapping(&survey.join("raw")), vec![outer]);
    assert!(
        overlapping(&sibling).is_empty(),
        "a common name prefix is not nesting"
    );
}

fn a_retry_waits_with_its_error_and_a_release_keeps_it_giving_back_an_attempt_not_made(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (_, _, job) = b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    let not_before = lodge::store::now_ms() - 1;
    let (waiting, _) = store
        .finish(
            &lease,
            &Finish::Retry {
                not_before,
                delay: Duration::from_millis(1),
                error: "503 busy".into(),
                http_status: Some(503),
            },
        )
        .unwrap();
    assert_eq!(waiting.state, JobState::Waiting);
    assert_eq!(waiting.not_before, not_before);
    assert_eq!(waiting.last_error.as_deref(), Some("503 busy"));
    assert_eq!(waiting.last_status, Some(503));
    assert_eq!(waiting.lease_owner, None);

    // Claimed again (attempt 2), then given back before anything was sent: the attempt is
    // not counted, the job is queued, and the last error stays what the server said.
    let second = claim(&store, "w1", Duration::from_secs(60));
    assert_eq!(second.job.attempts, 2);
    let (released, event) = store
        .finish(
            &second,
            &Finish::Release {
                message: "back on the queue".into(),
                not_before: None,
                attempt_made: false,
            },
        )
        .unwrap();
    assert_eq!(released.id, job);
    assert_eq!(released.state, JobState::Queued);
    assert_eq!(released.attempts, 1);
    assert_eq!(released.last_error.as_deref(), Some("503 busy"));
    assert_eq!(released.last_status, Some(503));
    assert_eq!(released.identifier, None);
    assert_eq!(event.kind, EventKind::Queued);

    // A landing clears the error and records the identifier.
    let third = claim(&store, "w1", Duration::from_secs(60));
    let (done, _) = store.finish(&third, &landed("sbx-000001")).unwrap();
    assert_eq!(done.state, JobState::Deposited);
    assert_eq!(done.identifier.as_deref(), Some("sbx-000001"));
    assert_eq!(done.last_error, None);
    assert_eq!(done.last_status, Some(201));
}

fn the_event_log_is_append_only_and_names_who_wrote_it(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (_, _, job) = b.queued(&store, 1);
    let events = store.events_for_job(job).unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, EventKind::Queued);
    assert_eq!(events[0].actor, store.actor());
    assert!(store.actor().contains('@'), "{}", store.actor());
    assert_eq!(store.last_event_id().unwrap(), events[0].id);
}

fn a_verification_is_logged_under_its_job_and_leaves_the_job_as_it_was(b: Backend) {
    let store = b.open();
    with_target(&store);
    b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    let (landed, _) = store.finish(&lease, &landed("7")).unwrap();
    let intact = store
        .log_verification(&landed, true, "verified intact: 2 files")
        .unwrap();
    let damaged = store
        .log_verification(&landed, false, "verify found: a.csv is missing")
        .unwrap();
    assert_eq!(
        (intact.kind, damaged.kind),
        (EventKind::Verified, EventKind::Damaged)
    );
    assert!(damaged.kind.is_problem() && !intact.kind.is_problem());
    let events = store.events_for_job(landed.id).unwrap();
    assert_eq!(events[events.len() - 2..], [intact, damaged]);
    assert_eq!(
        events.last().unwrap().message,
        "verify found: a.csv is missing"
    );
    assert_eq!(
        store.job(landed.id).unwrap(),
        landed,
        "the job is unchanged"
    );
}

/// A check and a repair of a removed dataset's deposit (the deposit of a copy kept, say)
/// are logged under that dataset still, which the job itself no longer names: its log
/// reads "soil-cores (removed)", not a line of no dataset.
fn a_check_of_a_removed_datasets_deposit_is_logged_under_that_dataset(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (dataset, _, _) = b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    let (landed, _) = store.finish(&lease, &landed("7")).unwrap();
    assert!(store.remove_dataset(dataset).unwrap());
    let job = store.job(landed.id).unwrap();
    assert_eq!(job.dataset_id, None, "the job no longer names it");
    let checked = store
        .log_verification(&job, true, "verified intact: 2 files")
        .unwrap();
    let repaired = store.log_repair(&job, "sent a.csv again").unwrap();
    assert_eq!(
        (checked.dataset_id, repaired.dataset_id),
        (Some(dataset), Some(dataset))
    );
}

fn the_latest_check_of_each_deposit_is_kept_apart_from_older_ones(b: Backend) {
    let store = b.open();
    with_target(&store);
    b.queued(&store, 1);
    b.queued(&store, 2);
    let first = claim(&store, "w1", Duration::from_secs(60));
    let (one, _) = store.finish(&first, &landed("1")).unwrap();
    let second = claim(&store, "w1", Duration::from_secs(60));
    let (two, _) = store.finish(&second, &landed("2")).unwrap();
    assert_eq!(store.latest_checks().unwrap(), [], "nothing checked yet");

    store.log_verification(&one, true, "intact").unwrap();
    let one_damaged = store
        .log_verification(&one, false, "a.csv is missing")
        .unwrap();
    let two_intact = store.log_verification(&two, true, "intact").unwrap();
    assert_eq!(
        store.latest_checks().unwrap(),
        [one_damaged, two_intact.clone()],
        "one per deposit, its latest, oldest first"
    );

    let one_intact = store
        .log_verification(&one, true, "put back; intact")
        .unwrap();
    assert_eq!(
        store.latest_checks().unwrap(),
        [two_intact.clone(), one_intact]
    );

    // Found damaged, its result forgotten, and the record made anew by the next deposit:
    // the check was of the record before, and no longer stands.
    let two_damaged = store
        .log_verification(&two, false, "the record is gone")
        .unwrap();
    std::thread::sleep(Duration::from_millis(5));
    // What would be forgotten, counted by target first, is what is.
    assert_eq!(
        store.results_older_than(0, Some(TARGET)).unwrap(),
        [(TARGET.to_string(), 2)]
    );
    assert_eq!(store.results_older_than(0, Some("other")).unwrap(), []);
    assert_eq!(store.forget_results(0, Some(TARGET), "a test").unwrap(), 2);
    assert_eq!(store.results_older_than(0, None).unwrap(), []);
    // What went is in the log, by target, with why.
    let forgotten: Vec<_> = (store.events_after(0, 10_000).unwrap().into_iter())
        .filter(|e| e.kind == EventKind::Forgotten)
        .collect();
    assert_eq!(forgotten.len(), 1, "{forgotten:?}");
    assert_eq!(forgotten[0].target.as_deref(), Some(TARGET));
    assert!(
        forgotten[0]
            .message
            .starts_with("2 recorded results forgotten (a test)"),
        "{forgotten:?}"
    );
    let again = store
        .enqueue_deposit(
            two.dataset_id.unwrap(),
            TARGET,
            &two.key,
            Duration::from_secs(60),
        )
        .unwrap()
        .0
        .job_id();
    let lease = claim(&store, "w1", Duration::from_secs(60));
    assert_eq!(lease.job.id, again);
    std::thread::sleep(Duration::from_millis(5));
    let (made_anew, _) = store.finish(&lease, &landed("3")).unwrap();
    assert_eq!(made_anew.state, JobState::Deposited);
    let checked: Vec<Option<i64>> = store
        .latest_checks()
        .unwrap()
        .iter()
        .map(|c| c.job_id)
        .collect();
    assert_eq!(checked, [Some(one.id)], "not two's damaged check");
    assert_eq!(store.latest_check(TARGET, &two.key).unwrap(), None);
    assert!(two_damaged.kind == EventKind::Damaged);
}

fn reports_read_the_same_on_every_backend(b: Backend) {
    let store = b.open();
    with_target(&store);
    b.queued(&store, 1);
    b.queued(&store, 2);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    store.finish(&lease, &landed("1")).unwrap();
    let history = store.history().unwrap();
    assert_eq!(history.len(), 2);
    assert!(
        history
            .iter()
            .all(|h| h.title.as_deref().unwrap().starts_with("Dataset "))
    );
    let status = store.status_rows().unwrap();
    assert_eq!(status.len(), 2);
    assert_eq!(store.totals().unwrap().pending, 1);
    assert_eq!(store.latest_jobs().unwrap().len(), 2);
    assert_eq!(store.result_fingerprints().unwrap().len(), 1);
    assert_eq!(store.dataset_summaries().unwrap().len(), 2);
    assert_eq!(store.forget_results(-1, Some(TARGET), "a test").unwrap(), 1);
}

/// A copy of the lab's folder 1 (the same files, so with the same metadata the same key),
/// in a folder of its own.
fn copy_of_folder_1(b: &Backend) -> std::path::PathBuf {
    let copy = b.lab.path("copy-of-1");
    std::fs::create_dir_all(&copy).unwrap();
    for file in ["data.csv", "README.txt"] {
        std::fs::copy(b.lab.numbered_folder(1).join(file), copy.join(file)).unwrap();
    }
    copy
}

/// A copy of a folder deposited through its twin's job (one job for the shared key) and
/// changed since is "changed", with the record its old content has: its adds and rescans
/// in the log keep its earlier keys, since it has no job of its own.
fn status_reports_a_changed_copy_deposited_through_its_twin_as_changed(b: Backend) {
    let store = b.open();
    with_target(&store);
    b.queued(&store, 1);
    let copy = copy_of_folder_1(&b);
    let (twin, _) = support::add(&store, &copy, &metadata("Dataset 1"));
    let lease = claim(&store, "w1", Duration::from_secs(60));
    store.finish(&lease, &landed("first-1")).unwrap();
    let twin_row = |store: &Store| {
        let rows = store.status_rows().unwrap();
        rows.into_iter().find(|r| r.dataset == twin).unwrap()
    };
    assert_eq!(
        twin_row(&store).state,
        "existing",
        "deposited through its twin"
    );

    std::fs::write(copy.join("more.csv"), "id\n2\n").unwrap();
    support::add(&store, &copy, &metadata("Dataset 1"));
    let changed = twin_row(&store);
    assert_eq!(changed.state, "changed");
    assert_eq!(changed.target.as_deref(), Some(TARGET));
    assert_eq!(changed.earlier_identifier.as_deref(), Some("first-1"));
}

/// A copy queued through its twin's job (one job for the shared key) reports that job
/// while it has not landed: queued, then failed, with the twin named; not "new", and not
/// missing from the target's rows. Once the retry lands it, the copy reads "existing",
/// still naming that job and its twin, with its attempts.
fn status_reports_a_copy_whose_twins_deposit_has_not_landed_by_that_deposit(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (first, key, job) = b.queued(&store, 1);
    let copy = copy_of_folder_1(&b);
    let (twin, _) = support::add(&store, &copy, &metadata("Dataset 1"));
    let twin_row = |store: &Store| {
        let rows = store.status_rows().unwrap();
        rows.into_iter().find(|r| r.dataset == twin).unwrap()
    };
    let queued = twin_row(&store);
    assert_eq!(queued.state, "queued", "{queued:?}");
    assert_eq!(queued.target.as_deref(), Some(TARGET));
    assert_eq!((queued.job, queued.shared_with), (Some(job), Some(first)));

    let lease = claim(&store, "w1", Duration::from_secs(60));
    let gave_up = Finish::Failed {
        error: "gave up after 8 attempts".into(),
        http_status: Some(503),
    };
    store.finish(&lease, &gave_up).unwrap();
    let failed = twin_row(&store);
    assert_eq!(failed.state, "failed", "{failed:?}");
    assert_eq!((failed.job, failed.shared_with), (Some(job), Some(first)));
    assert_eq!(failed.attempts, 1);
    assert_eq!(
        failed.last_error.as_deref(),
        Some("gave up after 8 attempts")
    );
    let own = store.status_rows().unwrap();
    let own = own.iter().find(|r| r.dataset == first).unwrap();
    assert_eq!((own.state.as_str(), own.shared_with), ("failed", None));
    let pending = store.unlanded_deposits_of_copies(&key, twin).unwrap();
    let pending: Vec<(i64, JobState)> = pending.iter().map(|j| (j.id, j.state)).collect();
    assert_eq!(pending, [(job, JobState::Failed)]);
    assert!(
        store
            .unlanded_deposits_of_copies(&key, first)
            .unwrap()
            .is_empty(),
        "the twin queued none"
    );

    store.retry_jobs(&[job], Duration::from_secs(60)).unwrap();
    let lease = claim(&store, "w1", Duration::from_secs(60));
    store.finish(&lease, &landed("first-1")).unwrap();
    let landed = twin_row(&store);
    assert_eq!(landed.state, "existing", "{landed:?}");
    assert_eq!(landed.identifier.as_deref(), Some("first-1"));
    assert_eq!((landed.job, landed.shared_with), (Some(job), Some(first)));
    assert_eq!(
        landed.attempts, 2,
        "the failed attempt and the one that landed"
    );
    let own = store.status_rows().unwrap();
    let own = own.iter().find(|r| r.dataset == first).unwrap();
    assert_eq!((own.state.as_str(), own.shared_with), ("deposited", None));
    assert!(
        store
            .unlanded_deposits_of_copies(&key, twin)
            .unwrap()
            .is_empty(),
        "landed"
    );
}

/// The same, when the key its twin deposited was one an edit of its metadata gave it: an
/// edit's entry in the log keeps that key as a rescan's does.
fn status_reports_a_copy_edited_since_its_twin_deposited_it_as_changed(b: Backend) {
    let store = b.open();
    with_target(&store);
    b.queued(&store, 1);
    let copy = copy_of_folder_1(&b);
    // Added under other metadata, then edited to its twin's: the twin's key, by an edit.
    let (twin, _) = support::add(&store, &copy, &metadata("Not yet titled"));
    support::add(&store, &copy, &metadata("Dataset 1"));
    let lease = claim(&store, "w1", Duration::from_secs(60));
    store.finish(&lease, &landed("first-1")).unwrap();

    support::add(&store, &copy, &metadata("Dataset 1, revised"));
    let rows = store.status_rows().unwrap();
    let changed = rows.into_iter().find(|r| r.dataset == twin).unwrap();
    assert_eq!(changed.state, "changed", "{changed:?}");
    assert_eq!(changed.earlier_identifier.as_deref(), Some("first-1"));
}

fn status_reports_a_rescanned_dataset_as_changed_not_as_its_earlier_deposit(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (id, first_key, _) = b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    store.finish(&lease, &landed("first-1")).unwrap();
    let row = |store: &Store| {
        let mut rows = store.status_rows().unwrap();
        assert_eq!(rows.len(), 1, "{rows:?}");
        rows.remove(0)
    };
    let before = row(&store);
    assert_eq!(before.state, "deposited");
    assert_eq!(before.identifier.as_deref(), Some("first-1"));
    assert_eq!(before.key, Some(first_key.to_hex()));

    // The folder gains a file and is scanned again: a new key, not deposited anywhere.
    let root = b.lab.numbered_folder(1);
    std::fs::write(root.join("more.csv"), "id\n2\n").unwrap();
    let (again, second_key) = support::add(&store, &root, &metadata("Dataset 1"));
    assert_eq!(again, id);
    assert_ne!(second_key, first_key);
    let changed = row(&store);
    assert_eq!(changed.state, "changed");
    assert_eq!(changed.key, Some(second_key.to_hex()));
    assert_eq!(changed.target.as_deref(), Some(TARGET));
    assert_eq!((changed.job, changed.identifier), (None, None));
    assert_eq!(changed.earlier_identifier.as_deref(), Some("first-1"));
    // A target that links versions makes the new key the next version of that record.
    assert_eq!(
        store
            .earlier_version_records(id, &[TARGET.into()], &second_key)
            .unwrap(),
        [EarlierRecord {
            identifier: "first-1".into(),
            key: first_key
        }],
        "with the key it was deposited under, which its record carries"
    );
    assert!(
        store
            .earlier_version_records(id, &[TARGET.into()], &first_key)
            .unwrap()
            .is_empty(),
        "no record of another key came before the first"
    );
    assert!(
        store
            .earlier_version_records(id, &["sandbox+http://127.0.0.1:1".into()], &second_key)
            .unwrap()
            .is_empty(),
        "another target's records are not its versions"
    );

    // Deposited in turn, the row is the new job's.
    let (job, _) = store
        .enqueue_deposit(id, TARGET, &second_key, Duration::from_secs(3600))
        .unwrap();
    assert_eq!(row(&store).state, "queued");
    let lease = claim(&store, "w1", Duration::from_secs(60));
    store.finish(&lease, &landed("second-2")).unwrap();
    let after = row(&store);
    assert_eq!(after.state, "deposited");
    assert_eq!(after.job, Some(job.job_id()));
    assert_eq!(after.identifier.as_deref(), Some("second-2"));
    assert_eq!(after.earlier_identifier, None);
    // A third key: every earlier record, newest first (the newest may be gone by then).
    let third: ContentKey = "ab".repeat(32).parse().unwrap();
    let identifiers: Vec<String> = store
        .earlier_version_records(id, &[TARGET.into()], &third)
        .unwrap()
        .into_iter()
        .map(|earlier| earlier.identifier)
        .collect();
    assert_eq!(identifiers, ["second-2", "first-1"]);
}

/// Dataset `dataset`'s deposit of `key` to TARGET, queued, claimed and landed as
/// `identifier`: the lease it landed under.
fn landed_by(store: &Store, dataset: i64, key: &ContentKey, identifier: &str) -> Lease {
    store
        .enqueue_deposit(dataset, TARGET, key, Duration::from_secs(3600))
        .unwrap();
    let lease = claim(store, "w1", Duration::from_secs(60));
    store.finish(&lease, &landed(identifier)).unwrap();
    lease
}

/// Two copies of one folder with the same metadata, added: two datasets, one key.
fn two_copies(b: &Backend, store: &Store) -> (i64, i64, ContentKey) {
    let files: &[(&str, &[u8])] = &[("data.csv", b"id\n1\n")];
    let (one, key) = support::add(store, &b.lab.folder("copies/one", files), &metadata("Copy"));
    let (two, same) = support::add(store, &b.lab.folder("copies/two", files), &metadata("Copy"));
    assert_eq!(key, same);
    (one, two, key)
}

/// A copy's deposit is its twin's, found through the recorded result, and still found
/// through the twin's job once `forget` has dropped that result: what `verify` checks.
fn a_copys_deposit_is_its_twins_job_and_stays_so_after_forget(b: Backend) {
    use lodge::engine::verify::landed_deposits;
    let store = b.open();
    with_target(&store);
    let (one, two, key) = two_copies(&b, &store);
    let lease = landed_by(&store, one, &key, "copy-1");
    let ids = |jobs: Vec<lodge::store::JobRow>| jobs.iter().map(|j| j.id).collect::<Vec<_>>();

    assert_eq!(
        ids(landed_deposits(&store, two, None).unwrap()),
        [lease.job.id]
    );
    assert_eq!(store.forget_results(-60_000, None, "a test").unwrap(), 1);
    assert_eq!(
        ids(landed_deposits(&store, two, Some(TARGET)).unwrap()),
        [lease.job.id]
    );
    assert!(
        landed_deposits(&store, two, Some("elsewhere"))
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        ids(store.deposit_jobs_of_key(&key).unwrap()),
        [lease.job.id]
    );
}

fn status_reports_a_dataset_whose_key_another_dataset_deposited_as_existing(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (one, two, key) = two_copies(&b, &store);
    let lease = landed_by(&store, one, &key, "copy-1");

    let rows = store.status_rows().unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    let second = rows.iter().find(|r| r.dataset == two).unwrap();
    assert_eq!(second.state, "existing", "{second:?}");
    assert_eq!(second.target.as_deref(), Some(TARGET));
    assert_eq!(second.identifier.as_deref(), Some("copy-1"));
    // The job that landed it is its copy's, and said to be.
    assert_eq!(
        (second.job, second.shared_with, second.attempts),
        (Some(lease.job.id), Some(one), 1)
    );
    assert_eq!(second.earlier_identifier, None);
}

/// A dataset whose own job was rejected (its folder gone, say) and whose key then landed
/// through its copy's job reads as deposited there, not as the rejection.
fn status_reports_a_rejected_dataset_whose_key_landed_since_through_its_copy_as_existing(
    b: Backend,
) {
    let store = b.open();
    with_target(&store);
    let (one, two, key) = two_copies(&b, &store);
    let rejected = store
        .enqueue_deposit(one, TARGET, &key, Duration::from_secs(3600))
        .unwrap()
        .0
        .job_id();
    let lease = claim(&store, "w1", Duration::from_secs(60));
    let refused = Finish::Rejected {
        error: "changed since scan: the folder is gone".into(),
        http_status: None,
    };
    store.finish(&lease, &refused).unwrap();
    let row = |dataset: i64| {
        let rows = store.status_rows().unwrap();
        rows.into_iter().find(|r| r.dataset == dataset).unwrap()
    };
    assert_eq!(row(one).state, "rejected", "nothing landed yet");
    assert_eq!(row(one).job, Some(rejected));

    landed_by(&store, two, &key, "copy-1");

    let first = row(one);
    assert_eq!(first.state, "existing", "{first:?}");
    assert_eq!(first.identifier.as_deref(), Some("copy-1"));
    assert_eq!(first.last_error, None);
    assert_eq!(row(two).state, "deposited");
    assert_eq!(
        store.job(rejected).unwrap().state,
        JobState::Rejected,
        "history kept"
    );
}

fn status_reports_a_dataset_deposited_again_by_the_job_that_deposited_it(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (one, two, key) = two_copies(&b, &store);
    let replay = |dataset: i64| match store
        .enqueue_deposit(dataset, TARGET, &key, Duration::from_secs(3600))
        .unwrap()
    {
        (Enqueued::Replayed(job), _) => job,
        other => panic!("expected a replay, got {other:?}"),
    };
    let lease = landed_by(&store, one, &key, "copy-1");
    let first = lease.job.id;
    // `lodge deposit` run again for the same dataset: a replay, no request.
    replay(one);
    // The copy deposited: a replay of the first dataset's record.
    let copys = replay(two);

    let rows = store.status_rows().unwrap();
    let row = |d: i64| rows.iter().find(|r| r.dataset == d).unwrap();
    assert_eq!(row(one).state, "deposited", "{:?}", row(one));
    assert_eq!(
        (row(one).job, row(one).attempts),
        (Some(first), 1),
        "the job that deposited it, with its attempt"
    );
    assert_eq!(row(one).identifier.as_deref(), Some("copy-1"));
    // The copy's replay is reported as a copy deposited with it is: by the job that made
    // the record, naming its dataset (its own replay made no attempt).
    assert_eq!(row(two).state, "existing", "{:?}", row(two));
    assert_eq!(
        (row(two).job, row(two).shared_with, row(two).attempts),
        (Some(first), Some(one), 1),
        "{:?}",
        row(two)
    );
    assert_eq!(row(two).identifier.as_deref(), Some("copy-1"));

    // The window's rows, as it opens, show the first's deposit by its job, the copy's by
    // its replay (its badge says Already deposited).
    let latest = store.latest_jobs().unwrap();
    let job_of = |d: i64| -> Vec<i64> {
        latest
            .iter()
            .filter(|j| j.dataset_id == Some(d))
            .map(|j| j.id)
            .collect()
    };
    assert_eq!(job_of(one), vec![first], "the job that deposited it");
    assert_eq!(job_of(two), vec![copys], "the copy's replay");

    // Its result forgotten (`lodge forget`): still the job that deposited it, not its
    // replay, in both.
    assert_eq!(store.forget_results(-60_000, None, "a test").unwrap(), 1);
    let rows = store.status_rows().unwrap();
    let row = rows.iter().find(|r| r.dataset == one).unwrap();
    assert_eq!(
        (row.state.as_str(), row.job, row.attempts),
        ("deposited", Some(first), 1),
        "{row:?}"
    );
    let latest = store.latest_jobs().unwrap();
    let of_one: Vec<i64> = latest
        .iter()
        .filter(|j| j.dataset_id == Some(one))
        .map(|j| j.id)
        .collect();
    assert_eq!(of_one, vec![first]);
}

fn cancel_ends_a_queued_job_failed_leaves_a_leased_one_and_retry_brings_it_back(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (_, _, leased) = b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    assert_eq!(lease.job.id, leased);
    let (_, _, queued) = b.queued(&store, 2);
    assert_eq!(
        store.active_job_ids(Some(TARGET)).unwrap(),
        [leased, queued]
    );
    assert!(
        store
            .active_job_ids(Some("sandbox+http://elsewhere"))
            .unwrap()
            .is_empty()
    );

    let answers = store
        .cancel_jobs(&[leased, queued], "cancelled by hand")
        .unwrap();
    assert_eq!(
        answers[0].1,
        Cancel::BeingDeposited { by: "w1".into() },
        "a job under a live lease is left alone"
    );
    assert_eq!(answers[0].0.state, JobState::Running);
    assert_eq!(answers[1].1, Cancel::Cancelled);
    let cancelled = &answers[1].0;
    assert_eq!(cancelled.state, JobState::Failed);
    assert_eq!(cancelled.last_error.as_deref(), Some("cancelled by hand"));
    assert_eq!(store.active_job_ids(None).unwrap(), [leased]);
    assert!(
        store
            .events_for_job(queued)
            .unwrap()
            .iter()
            .any(|e| e.kind == EventKind::Failed && e.message.contains("cancelled by hand")),
        "the log says who ended it and why"
    );
    // Cancelling again: it has ended.
    assert_eq!(
        store.cancel_jobs(&[queued], "again").unwrap()[0].1,
        Cancel::Ended
    );
    // A job whose lease ran out is taken off, and its holder can no longer record.
    store.expire_lease(leased, lease.fence).unwrap();
    assert_eq!(
        store.cancel_jobs(&[leased], "lease ran out").unwrap()[0].1,
        Cancel::Cancelled
    );
    assert!(matches!(
        store.finish(&lease, &landed("late")),
        Err(StoreError::StaleLease { .. })
    ));
    // `retry` puts a cancelled job back with its key.
    assert_eq!(
        store
            .retry_jobs(&[queued], Duration::from_secs(60))
            .unwrap(),
        [queued]
    );
    assert_eq!(store.job(queued).unwrap().state, JobState::Queued);
}

/// Giving up on a failed deposit (a mistyped target's, say) takes it out of the status, its
/// totals and `retry --all-failed`, with the earlier failures of the same deposit, and
/// leaves a job still to do alone; the history and the log keep it, and a retry of its
/// number brings it back.
fn dismissing_a_failed_deposit_takes_it_and_its_earlier_failures_out_of_the_status(b: Backend) {
    let store = b.open();
    with_target(&store);
    let (dataset, key, first) = b.queued(&store, 1);
    store.cancel_jobs(&[first], "cancelled by hand").unwrap();
    let second = store
        .enqueue_deposit(dataset, TARGET, &key, Duration::from_secs(3600))
        .unwrap()
        .0
        .job_id();
    assert_ne!(second, first, "a new job after the first ended");
    store.cancel_jobs(&[second], "cancelled by hand").unwrap();
    let (_, _, queued) = b.queued(&store, 2);
    let line_of = |store: &Store| {
        store
            .status_rows()
            .unwrap()
            .into_iter()
            .find(|r| r.dataset == dataset)
            .unwrap()
    };
    let before = line_of(&store);
    assert_eq!(
        (before.state.as_str(), before.job),
        ("failed", Some(second))
    );
    // The later failure is the one standing (to retry); the first is history, though a
    // dismissal of the deposit gives up on both.
    assert_eq!(store.totals().unwrap().failed, 1);
    assert_eq!(store.failed_job_ids(Some(TARGET)).unwrap(), [second]);
    assert_eq!(store.standing_failures(TARGET).unwrap(), [first, second]);

    let ended_at = store.job(second).unwrap().updated_at;
    let answers = store
        .dismiss_jobs(&[second, queued], "given up by hand")
        .unwrap();
    assert_eq!(
        answers[0].1,
        Dismiss::Dismissed {
            earlier: vec![first]
        }
    );
    assert!(answers[0].0.dismissed_at.is_some());
    assert_eq!(
        answers[0].0.updated_at, ended_at,
        "when it ended stays the history's time"
    );
    assert_eq!(
        answers[1].1,
        Dismiss::StillToDo,
        "a job still to do is left alone"
    );
    assert_eq!(answers[1].0.state, JobState::Queued);
    assert!(
        store.job(first).unwrap().dismissed_at.is_some(),
        "the earlier failure too"
    );
    // Each is logged, the earlier one naming the job it went with.
    let said: Vec<(Option<i64>, String)> = store
        .events_after(0, 1_000)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EventKind::Dismissed)
        .map(|e| (e.job_id, e.message))
        .collect();
    assert_eq!(
        said,
        [
            (
                Some(first),
                format!("given up by hand (with job {second}, of the same deposit)")
            ),
            (Some(second), "given up by hand".to_string()),
        ]
    );

    let after = line_of(&store);
    assert_eq!(
        (after.state.as_str(), after.target.as_deref(), after.job),
        ("new", None, None),
        "a deposit given up on, and nothing else, leaves no line"
    );
    assert_eq!(store.totals().unwrap().failed, 0);
    assert!(store.failed_job_ids(None).unwrap().is_empty());
    assert!(store.standing_failures(TARGET).unwrap().is_empty());
    assert_eq!(
        store
            .latest_jobs()
            .unwrap()
            .iter()
            .map(|j| j.id)
            .collect::<Vec<_>>(),
        [queued],
        "the window's rows load without it"
    );
    let history = store.history().unwrap();
    assert!(
        history
            .iter()
            .filter(|h| h.job == first || h.job == second)
            .all(|h| h.state == "failed" && h.dismissed_at.is_some()),
        "{history:?}"
    );
    assert!(
        store
            .events_for_job(second)
            .unwrap()
            .iter()
            .any(|e| e.kind == EventKind::Dismissed && e.message == "given up by hand"),
        "the log says it was given up on"
    );
    assert_eq!(
        store.dismiss_jobs(&[second], "again").unwrap()[0].1,
        Dismiss::AlreadyDismissed
    );
    // One being deposited now is left to its deposit.
    let lease = claim(&store, "w1", Duration::from_secs(60));
    assert_eq!(lease.job.id, queued);
    assert_eq!(
        store.dismiss_jobs(&[queued], "again").unwrap()[0].1,
        Dismiss::BeingDeposited { by: "w1".into() }
    );

    // A retry of its number puts it back, with its key, no longer dismissed.
    assert_eq!(
        store
            .retry_jobs(&[second], Duration::from_secs(60))
            .unwrap(),
        [second]
    );
    let back = store.job(second).unwrap();
    assert_eq!((back.state, back.dismissed_at), (JobState::Queued, None));
    let line = line_of(&store);
    assert_eq!((line.state.as_str(), line.job), ("queued", Some(second)));
}

fn a_second_open_finds_the_schema_migrated(b: Backend) {
    let first = b.open();
    with_target(&first);
    b.queued(&first, 1);
    drop(first);
    let again = b.open();
    assert_eq!(again.datasets().unwrap().len(), 1);
}

fn a_dataset_remembers_the_machine_it_was_added_on(b: Backend) {
    let store = b.open();
    with_target(&store);
    b.queued(&store, 1);
    // The claim hands the worker where the folder is, to leave it to that machine.
    match store
        .claim("w1", Duration::from_secs(60), 8, &filter())
        .unwrap()
    {
        Claim::Attempt { input, .. } => assert_eq!(input.origin.as_deref(), Some(store.host())),
        other => panic!("expected an attempt, got {other:?}"),
    }
}

fn the_same_data_under_other_metadata_finds_the_earlier_deposit(b: Backend) {
    let store = b.open();
    with_target(&store);
    let files: &[(&str, &[u8])] = &[("data.csv", b"a,b\n1,2\n")];
    let first = support::add(&store, &b.lab.folder("first", files), &metadata("First"));
    let second = support::add(&store, &b.lab.folder("second", files), &metadata("Second"));
    assert_ne!(first.1, second.1, "other metadata, another key");
    store
        .enqueue_deposit(first.0, TARGET, &first.1, Duration::from_secs(60))
        .unwrap();
    let lease = claim(&store, "w1", Duration::from_secs(60));
    store.finish(&lease, &landed("first-1")).unwrap();

    let fingerprint = store
        .document(&second.1)
        .unwrap()
        .unwrap()
        .fingerprint()
        .to_hex();
    let same = store.results_with_fingerprint(&fingerprint).unwrap();
    assert_eq!(same.len(), 1, "{same:?}");
    assert_eq!(same[0].identifier, "first-1");
    assert_eq!(same[0].target, TARGET);
    assert_eq!(
        same[0].fingerprint, fingerprint,
        "a result carries its document's data fingerprint"
    );
    let other_data = store
        .document(&b.queued(&store, 9).1)
        .unwrap()
        .unwrap()
        .fingerprint()
        .to_hex();
    assert!(
        store
            .results_with_fingerprint(&other_data)
            .unwrap()
            .is_empty()
    );
    // By key: the first's record, and nothing for the second's (same data, other key).
    let by_key = store.results_for_key(&first.1).unwrap();
    assert_eq!(by_key.len(), 1, "{by_key:?}");
    assert_eq!(by_key[0].identifier, "first-1");
    assert!(store.results_for_key(&second.1).unwrap().is_empty());
}

/// The claim and every kind of outcome answer the job exactly as the store now holds it:
/// the engine and the GUI act on these rows without reading them again.
fn a_claim_and_every_outcome_answer_the_job_as_stored(b: Backend) {
    let store = b.open();
    with_target(&store);
    let finishes = [
        landed("sbx-1"),
        Finish::Landed {
            record: RecordRef {
                identifier: "sbx-2".into(),
                url: Some("http://127.0.0.1:9/records/sbx-2".into()),
            },
            created: false,
            kind: EventKind::Existing,
            message: "server says it already exists".into(),
            http_status: Some(412),
        },
        Finish::Retry {
            not_before: lodge::store::now_ms() + 60_000,
            delay: Duration::from_secs(60),
            error: "503 busy".into(),
            http_status: Some(503),
        },
        Finish::Failed {
            error: "gave up".into(),
            http_status: Some(500),
        },
        Finish::Rejected {
            error: "422 title missing".into(),
            http_status: Some(422),
        },
        Finish::Release {
            message: "stopped".into(),
            not_before: None,
            attempt_made: false,
        },
        Finish::Release {
            message: "stopped mid-upload".into(),
            not_before: Some(lodge::store::now_ms() + 5_000),
            attempt_made: true,
        },
        Finish::LeaveForOthers {
            message: "folder on another machine".into(),
        },
        Finish::PauseTarget {
            error: "401 token refused".into(),
            http_status: Some(401),
        },
    ];
    for (n, finish) in finishes.into_iter().enumerate() {
        let (_, _, job) = b.queued(&store, n);
        // This case's job only: earlier ones may still be queued.
        let only = ClaimFilter {
            job_ids: Some(Arc::new(HashSet::from([job]))),
            ..filter()
        };
        let mut lease = match store
            .claim("w1", Duration::from_secs(60), 8, &only)
            .unwrap()
        {
            Claim::Attempt { lease, .. } => *lease,
            other => panic!("expected an attempt, got {other:?}"),
        };
        assert_eq!(lease.job, store.job(job).unwrap(), "claim of job {n}");
        assert!(
            store
                .renew_lease(&mut lease, Duration::from_secs(90))
                .unwrap()
        );
        let what = format!("{finish:?}");
        let (answered, event) = store.finish(&lease, &finish).unwrap();
        assert_eq!(answered, store.job(job).unwrap(), "after {what}");
        assert_eq!(event.job_id, Some(job));
        if store.target_paused(TARGET).unwrap().is_some() {
            store.resume_target(TARGET).unwrap();
        }
    }
}

/// A target whose server once refused credentials is known for it after its pause is
/// lifted: a sandbox used by URL then wants `--token` in the commands Lodge suggests.
fn a_target_that_refused_credentials_once_is_known_for_it_after_its_pause(b: Backend) {
    let store = b.open();
    with_target(&store);
    assert!(!store.target_ever_refused_credentials(TARGET).unwrap());
    let (_, _, job) = b.queued(&store, 0);
    let only = ClaimFilter {
        job_ids: Some(Arc::new(HashSet::from([job]))),
        ..filter()
    };
    let lease = match store
        .claim("w1", Duration::from_secs(60), 8, &only)
        .unwrap()
    {
        Claim::Attempt { lease, .. } => *lease,
        other => panic!("expected an attempt, got {other:?}"),
    };
    let refused = Finish::PauseTarget {
        error: "401 token refused".into(),
        http_status: Some(401),
    };
    store.finish(&lease, &refused).unwrap();
    store.resume_target(TARGET).unwrap();
    assert!(store.target_ever_refused_credentials(TARGET).unwrap());
    assert!(
        !store
            .target_ever_refused_credentials("sandbox+http://127.0.0.1:2")
            .unwrap(),
        "another target's refusal is its own"
    );
}

/// The queued event says which job, dataset, target and key, at attempt 0.
fn a_queued_job_logs_its_scope(b: Backend) {
    let store = b.open();
    with_target(&store);
    let root = b.lab.numbered_folder(1);
    let (dataset, key) = support::add(&store, &root, &metadata("Dataset 1"));
    let (queued, event) = store
        .enqueue_deposit(dataset, TARGET, &key, Duration::from_secs(60))
        .unwrap();
    let event = event.expect("a new job logs that it was queued");
    assert_eq!(event.kind, EventKind::Queued);
    assert_eq!(event.job_id, Some(queued.job_id()));
    assert_eq!(event.dataset_id, Some(dataset));
    assert_eq!(event.target.as_deref(), Some(TARGET));
    assert_eq!(event.content_key, Some(key.to_hex()));
    assert_eq!(event.attempt, Some(0));
    assert_eq!(store.events_for_job(queued.job_id()).unwrap(), vec![event]);
}

fn jobs_are_read_in_the_order_asked_and_a_missing_one_is_named(b: Backend) {
    let store = b.open();
    with_target(&store);
    let ids: Vec<i64> = (1..=4).map(|n| b.queued(&store, n).2).collect();
    let read =
        |asked: &[i64]| -> Vec<i64> { store.jobs(asked).unwrap().iter().map(|j| j.id).collect() };
    assert_eq!(read(&ids), ids, "one run of consecutive ids");
    let shuffled = [ids[2], ids[0], ids[1], ids[3], ids[0]];
    assert_eq!(read(&shuffled), shuffled, "out of order, and twice");
    assert!(read(&[]).is_empty());
    for (job, id) in store.jobs(&ids).unwrap().iter().zip(&ids) {
        assert_eq!(
            job,
            &store.job(*id).unwrap(),
            "a job read in a run is the job"
        );
    }
    let missing = ids[3] + 1000;
    match store.jobs(&[ids[0], ids[1], missing]) {
        Err(StoreError::NoSuchJob(id)) => assert_eq!(id, missing),
        other => panic!("expected the missing job named, got {other:?}"),
    }
    match store.jobs(&[ids[2], ids[3], ids[3] + 1]) {
        Err(StoreError::NoSuchJob(id)) => assert_eq!(id, ids[3] + 1),
        other => panic!("expected the missing job at the end of a run, got {other:?}"),
    }
    // The largest id there can be is a job missing like any other, not an overflow.
    for asked in [
        vec![i64::MAX],
        vec![i64::MAX - 1, i64::MAX],
        vec![ids[0], i64::MAX],
    ] {
        match store.jobs(&asked) {
            Err(StoreError::NoSuchJob(id)) => assert!(id >= i64::MAX - 1, "{id}"),
            other => panic!("expected {asked:?} named missing, got {other:?}"),
        }
    }
}

/// A target keeps the URL it was last opened from, for `lodge retry` to open it again.
fn a_target_keeps_the_url_it_was_last_opened_from(b: Backend) {
    let store = b.open();
    assert_eq!(store.target_url(TARGET).unwrap(), None, "never opened");
    store
        .upsert_target(TARGET, "datacite+http://h?prefix=10.1&state=draft", "first")
        .unwrap();
    store
        .upsert_target(
            TARGET,
            "datacite+http://h?prefix=10.1&state=publish",
            "again",
        )
        .unwrap();
    assert_eq!(
        store.target_url(TARGET).unwrap().as_deref(),
        Some("datacite+http://h?prefix=10.1&state=publish")
    );
}

/// A run that gave a target a token on the command line is remembered, past later runs
/// that gave none (they were refused, or not sent).
fn a_target_given_a_token_once_is_known_for_it(b: Backend) {
    let store = b.open();
    store.upsert_target(TARGET, TARGET, "a sandbox").unwrap();
    assert!(!store.target_took_token(TARGET).unwrap());
    store.note_target_took_token(TARGET).unwrap();
    store.upsert_target(TARGET, TARGET, "a sandbox").unwrap();
    assert!(store.target_took_token(TARGET).unwrap());
    assert!(!store.target_took_token("another").unwrap());
}

/// A target paused by a worker is listed with why, others are not, and a resumed one is
/// no longer: what the window's History reads to tell a queued job that waits for the
/// person from one that waits for its turn.
fn paused_targets_are_listed_with_why_until_resumed(b: Backend) {
    let store = b.open();
    with_target(&store);
    store
        .upsert_target(
            "sandbox+http://elsewhere",
            "sandbox+http://elsewhere",
            "other",
        )
        .unwrap();
    assert!(store.paused_targets().unwrap().is_empty());
    b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    let pause = Finish::PauseTarget {
        error: "not authorised (HTTP 401): token refused".into(),
        http_status: Some(401),
    };
    store.finish(&lease, &pause).unwrap();
    let paused = store.paused_targets().unwrap();
    assert_eq!(paused.len(), 1, "{paused:?}");
    assert_eq!(paused[0].0, TARGET);
    assert!(paused[0].1.contains("token refused"), "{paused:?}");
    store.resume_target(TARGET).unwrap();
    assert!(store.paused_targets().unwrap().is_empty());
}

macro_rules! store_suite {
    ($backend:ident: $($case:ident),* $(,)?) => {
        mod $backend {
            $(
                #[test]
                fn $case() {
                    super::$case(super::Backend::$backend());
                }
            )*
        }
    };
}

macro_rules! every_backend {
    ($($case:ident),* $(,)?) => {
        store_suite!(sqlite: $($case),*);
        store_suite!(postgres: $($case),*);
    };
}

every_backend!(
    a_target_that_refused_credentials_once_is_known_for_it_after_its_pause,
    enqueueing_a_scope_twice_joins_the_active_job,
    status_reports_a_rescanned_dataset_as_changed_not_as_its_earlier_deposit,
    status_reports_a_changed_copy_deposited_through_its_twin_as_changed,
    status_reports_a_copy_whose_twins_deposit_has_not_landed_by_that_deposit,
    status_reports_a_copy_edited_since_its_twin_deposited_it_as_changed,
    status_reports_a_dataset_whose_key_another_dataset_deposited_as_existing,
    a_copys_deposit_is_its_twins_job_and_stays_so_after_forget,
    status_reports_a_dataset_deposited_again_by_the_job_that_deposited_it,
    status_reports_a_rejected_dataset_whose_key_landed_since_through_its_copy_as_existing,
    cancel_ends_a_queued_job_failed_leaves_a_leased_one_and_retry_brings_it_back,
    dismissing_a_failed_deposit_takes_it_and_its_earlier_failures_out_of_the_status,
    a_claim_bumps_the_fence_counts_the_attempt_and_holds_the_job,
    an_expired_lease_is_taken_over_and_the_late_result_refused,
    a_recorded_result_makes_the_next_job_of_the_scope_a_replay,
    a_finish_run_again_after_its_commit_answers_what_was_recorded,
    concurrent_claimers_never_share_a_job,
    a_failed_job_is_requeued_with_the_same_key,
    a_requeued_job_is_pending_since_its_requeue,
    the_history_counts_a_retried_jobs_attempts_of_every_round,
    a_failed_job_deposited_again_leaves_only_the_later_job_to_retry,
    a_failed_job_whose_key_a_copy_deposits_again_names_the_copys_job,
    a_failed_job_whose_dataset_moved_on_to_another_key_is_not_requeued,
    a_failed_job_whose_scope_landed_since_is_neither_listed_failed_nor_requeued,
    datasets_overlapping_a_folder_are_those_inside_it_or_around_it,
    a_shared_store_measures_this_machines_clock_against_the_servers,
    a_name_two_datasets_share_is_refused_naming_both_folders,
    a_removed_datasets_id_is_not_given_to_the_next_one,
    rescanning_a_dataset_uses_up_no_dataset_numbers,
    adding_rescanning_and_removing_a_dataset_are_each_logged_once,
    a_queued_job_of_a_removed_dataset_is_taken_over_when_its_folder_is_added_again,
    a_leased_job_is_handed_to_a_copy_of_its_key_under_the_fence,
    a_retry_waits_with_its_error_and_a_release_keeps_it_giving_back_an_attempt_not_made,
    the_event_log_is_append_only_and_names_who_wrote_it,
    a_verification_is_logged_under_its_job_and_leaves_the_job_as_it_was,
    a_check_of_a_removed_datasets_deposit_is_logged_under_that_dataset,
    the_latest_check_of_each_deposit_is_kept_apart_from_older_ones,
    reports_read_the_same_on_every_backend,
    a_second_open_finds_the_schema_migrated,
    a_dataset_remembers_the_machine_it_was_added_on,
    the_same_data_under_other_metadata_finds_the_earlier_deposit,
    a_claim_and_every_outcome_answer_the_job_as_stored,
    a_queued_job_logs_its_scope,
    jobs_are_read_in_the_order_asked_and_a_missing_one_is_named,
    a_target_keeps_the_url_it_was_last_opened_from,
    a_target_given_a_token_once_is_known_for_it,
    paused_targets_are_listed_with_why_until_resumed,
);

/// A result for `key` written straight into a SQLite backend's file, as another process
/// (another machine's job, an older Lodge) would have recorded it: `identifier`, created.
fn result_written_by_another_process(b: &Backend, key: &ContentKey, identifier: &str) {
    let StoreLocation::File(path) = &b.location else {
        unreachable!("a SQLite backend")
    };
    rusqlite::Connection::open(path)
        .unwrap()
        .execute(
            "INSERT INTO results (target, operation, content_key, identifier, url, outcome,
                                  fingerprint, job_id, recorded_at)
             VALUES (?1, 'deposit', ?2, ?3, NULL, 'created', 'f', NULL, 0)",
            rusqlite::params![TARGET, key.to_hex(), identifier],
        )
        .unwrap();
}

/// A landing whose scope got a result from elsewhere after the claim looked (another
/// machine's job, on a shared store) joins that result: the job ends `existing` with the
/// earlier identifier, and the result is not replaced. SQLite only: the result is written
/// straight into the file, as another process would.
#[test]
fn a_landing_after_another_result_for_the_scope_joins_it() {
    let b = Backend::sqlite();
    let store = b.open();
    with_target(&store);
    let (_, key, job) = b.queued(&store, 1);
    let lease = claim(&store, "w1", Duration::from_secs(60));
    result_written_by_another_process(&b, &key, "theirs-1");

    let (joined, _) = store.finish(&lease, &landed("mine-2")).unwrap();
    assert_eq!(joined.state, JobState::Existing);
    assert_eq!(joined.identifier.as_deref(), Some("theirs-1"));
    assert_eq!(joined, store.job(job).unwrap());
    let result = store
        .lookup_result(TARGET, &key)
        .unwrap()
        .expect("a result");
    assert_eq!(result.identifier, "theirs-1", "the earlier result stands");
}

/// A job queued before its key's result was recorded (by a Lodge that queued replays, or
/// a result written by another process meanwhile) is still a replay when claimed: nothing
/// is sent. SQLite only: the result is written straight into the file.
#[test]
fn a_job_queued_before_its_keys_result_was_recorded_is_replayed_when_claimed() {
    let b = Backend::sqlite();
    let store = b.open();
    with_target(&store);
    let (_, key, queued) = b.queued(&store, 1);
    result_written_by_another_process(&b, &key, "theirs-1");
    match store
        .claim("w1", Duration::from_secs(60), 8, &filter())
        .unwrap()
    {
        Claim::Replayed { job, events } => {
            assert_eq!(job.id, queued);
            assert_eq!(job.state, JobState::Existing);
            assert_eq!(job.identifier.as_deref(), Some("theirs-1"));
            assert_eq!(job.attempts, 0, "nothing sent");
            assert!(events.iter().any(|e| e.kind == EventKind::Replay));
        }
        other => panic!("expected a replay, got {other:?}"),
    }
}

/// In a group commit (SQLite) the calls share one transaction with no undo of their own: a
/// unit of work that fails halfway (here the second job of a batch names no dataset) spoils
/// the group, which then commits nothing, not even the calls before it. The engine's store
/// thread runs such a group's calls again one by one.
#[test]
fn a_unit_that_fails_halfway_spoils_its_group_and_the_group_commits_nothing() {
    let b = Backend::sqlite();
    let store = b.open();
    with_target(&store);
    let added = |n: usize| support::add(&store, &b.lab.numbered_folder(n), &metadata("Data"));
    let ((first, first_key), (second, second_key)) = (added(1), added(2));
    let (_, third_key) = added(3);
    let hour = Duration::from_secs(3600);

    store.begin_group().unwrap();
    store
        .enqueue_deposit(first, TARGET, &first_key, hour)
        .unwrap();
    let halfway =
        store.enqueue_deposits(TARGET, &[(second, second_key), (999_999, third_key)], hour);
    assert!(halfway.is_err(), "a job for a dataset that does not exist");
    assert!(store.group_spoiled());
    assert!(
        matches!(store.commit_group(), Err(StoreError::GroupCommit(_))),
        "a spoiled group was committed"
    );
    assert!(store.jobs_of_dataset(first).unwrap().is_empty());
    assert!(store.jobs_of_dataset(second).unwrap().is_empty());

    // The connection carries on outside the group.
    assert!(!store.group_spoiled());
    store
        .enqueue_deposit(first, TARGET, &first_key, hour)
        .unwrap();
    assert_eq!(store.jobs_of_dataset(first).unwrap().len(), 1);
}
