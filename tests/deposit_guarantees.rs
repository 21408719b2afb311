//! The guarantees of a guarded deposit, against a real sandbox server over loopback and real
//! SQLite files: replays send nothing, the server arbitrates, failures are classified, leases
//! are fenced.

mod support;

use std::time::Duration;

use lodge::content::Metadata;
use lodge::sandbox::FaultConfig;
use lodge::store::{Claim, EventKind, Finish, JobState, StoreError};
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn replay_makes_one_record_returns_the_same_identifier_and_sends_nothing() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(1), &metadata("One"));

    let first = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(first[0].state, JobState::Deposited);
    let requests_after_first = sandbox.stats().requests;

    let again = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(again[0].state, JobState::Existing);
    assert_eq!(again[0].identifier, first[0].identifier);
    let stats = sandbox.stats();
    assert_eq!(stats.records, 1);
    assert_eq!(
        stats.requests, requests_after_first,
        "a replay sends no request"
    );
    let events = store.events_for_job(again[0].id).unwrap();
    assert!(events.iter().any(|e| e.kind == EventKind::Replay));
    assert!(!events.iter().any(|e| e.kind == EventKind::Attempt));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn validation_error_is_terminal_after_exactly_one_attempt() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    // The command line refuses this before queueing; the engine must still handle the
    // server's 422 as terminal if it ever gets that far.
    let no_title = Metadata {
        title: String::new(),
        ..metadata("x")
    };
    let ds = add(&store, &lab.numbered_folder(2), &no_title);

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected);
    assert_eq!(jobs[0].attempts, 1);
    assert_eq!(jobs[0].last_status, Some(422));
    assert!(jobs[0].last_error.as_deref().unwrap().contains("title"));
    let events = store.events_for_job(jobs[0].id).unwrap();
    assert_eq!(
        events
            .iter()
            .filter(|e| e.kind == EventKind::Attempt)
            .count(),
        1
    );
    assert!(!events.iter().any(|e| e.kind == EventKind::RetryScheduled));
    assert_eq!(sandbox.stats().records, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_concurrent_deposits_through_separate_connections_make_one_record() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let setup = lab.store("shared.db");
    let ds = add(&setup, &lab.numbered_folder(3), &metadata("Shared"));

    let mut runs = Vec::new();
    for _ in 0..8 {
        let store = lab.store("shared.db");
        let target = target.clone();
        runs.push(tokio::spawn(async move {
            deposit(&store, &target, &[ds], fast_config()).await
        }));
    }
    let mut identifiers = std::collections::HashSet::new();
    for run in runs {
        let jobs = run.await.unwrap();
        assert!(jobs[0].state.is_landed());
        identifiers.insert(jobs[0].identifier.clone().unwrap());
    }
    assert_eq!(
        identifiers.len(),
        1,
        "every connection sees the same identifier"
    );
    assert_eq!(sandbox.stats().records, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_separate_stores_racing_at_the_server_get_one_record() {
    // No shared queue at all: only the server's conditional write stands between them.
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let folder = lab.numbered_folder(4);
    let mut runs = Vec::new();
    for i in 0..8 {
        let store = lab.store(&format!("machine{i}.db"));
        let ds = add(&store, &folder, &metadata("Raced"));
        let target = target.clone();
        runs.push(tokio::spawn(async move {
            deposit(&store, &target, &[ds], fast_config()).await
        }));
    }
    let mut identifiers = std::collections::HashSet::new();
    let mut created = 0;
    for run in runs {
        let jobs = run.await.unwrap();
        assert!(jobs[0].state.is_landed());
        created += (jobs[0].state == JobState::Deposited) as usize;
        identifiers.insert(jobs[0].identifier.clone().unwrap());
    }
    assert_eq!(identifiers.len(), 1);
    assert_eq!(
        created, 1,
        "exactly one store saw its own write create the record"
    );
    let stats = sandbox.stats();
    assert_eq!(stats.records, 1);
    assert_eq!(stats.creates, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn same_key_on_another_target_is_an_independent_deposit() {
    let lab = Lab::new();
    let a = lab.sandbox("sbx-a", FaultConfig::default()).await;
    let b = lab.sandbox("sbx-b", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(5), &metadata("Twice"));

    let on_a = deposit(&store, &target_of(&a), &[ds], fast_config()).await;
    let on_b = deposit(&store, &target_of(&b), &[ds], fast_config()).await;
    assert_eq!(on_a[0].state, JobState::Deposited);
    assert_eq!(
        on_b[0].state,
        JobState::Deposited,
        "not a replay of the other target"
    );
    assert_eq!(a.stats().records, 1);
    assert_eq!(b.stats().records, 1);
    assert!(
        store
            .lookup_result(target_of(&a).scope_id(), &ds.1)
            .unwrap()
            .is_some()
    );
    assert!(
        store
            .lookup_result(target_of(&b).scope_id(), &ds.1)
            .unwrap()
            .is_some()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn failure_before_commit_then_success_makes_exactly_one_record() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox(
            "sbx",
            FaultConfig {
                // Per attempt: a lookup, a blob PUT and a record PUT, each failing with
                // this chance; 30 attempts make a give-up vanishingly unlikely.
                fail_before_commit: 0.3,
                seed: Some(11),
                ..FaultConfig::default()
            },
        )
        .await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let datasets: Vec<_> = (10..16)
        .map(|n| add(&store, &lab.numbered_folder(n), &metadata(&format!("D{n}"))))
        .collect();
    let mut config = fast_config();
    config.retry.max_attempts = 30;
    let jobs = deposit(&store, &target, &datasets, config).await;
    assert!(
        jobs.iter().all(|j| j.state == JobState::Deposited),
        "{jobs:?}"
    );
    assert_eq!(sandbox.stats().records, datasets.len() as u64);
    let retried_503 = jobs
        .iter()
        .flat_map(|j| store.events_for_job(j.id).unwrap())
        .filter(|e| e.kind == EventKind::RetryScheduled && e.http_status == Some(503))
        .count();
    assert!(retried_503 > 0, "the fault must have been hit");
}

/// A dataset of many files sent to a server that fails one request in ten lands: each
/// attempt sends only the files the attempts before it did not get through, so it gets
/// further than the last. (Each attempt sent every file again, and needed all sixty and its
/// record to go through at once: about one chance in a thousand.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dataset_of_many_files_lands_through_a_server_failing_now_and_then() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox(
            "sbx",
            FaultConfig {
                fail_before_commit: 0.1,
                seed: Some(7),
                ..FaultConfig::default()
            },
        )
        .await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let files: Vec<(String, Vec<u8>)> = (0..60)
        .map(|day| {
            (
                format!("day-{day:02}.csv"),
                format!("day,{day}\n").into_bytes(),
            )
        })
        .collect();
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    let daily = add(&store, &lab.folder("daily", &files), &metadata("Daily"));
    let mut config = fast_config();
    config.retry.max_attempts = 30;
    let jobs = deposit(&store, &target, &[daily], config).await;
    let job = &jobs[0];
    assert_eq!(job.state, JobState::Deposited, "{job:?}");
    let stats = sandbox.stats();
    assert_eq!((stats.records, stats.blobs), (1, 60));
    // Each file went about once: not once an attempt.
    let attempts = u64::from(job.attempts);
    assert!(attempts > 1, "the fault must have been hit");
    assert!(
        stats.requests < 120 + 4 * attempts,
        "{} requests in {attempts} attempts",
        stats.requests
    );
}

/// A dataset whose files one deposit sent already, under new metadata, and a sandbox that
/// from now on commits every write and drops its answer: the deposit of that dataset
/// (returned with its key) has one PUT, its record, whose answer is lost. Its blob is big
/// enough to be looked up with HEAD rather than sent again.
async fn a_record_whose_answer_drops() -> (
    Lab,
    lodge::sandbox::RunningSandbox,
    std::sync::Arc<dyn lodge::targets::Target>,
    std::sync::Arc<lodge::store::Store>,
    (i64, lodge::content::ContentKey),
) {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let big = vec![7u8; 2 << 20];
    let folder = lab.folder("big", &[("big.bin", &big)]);
    let first = add(&store, &folder, &metadata("First title"));
    deposit(&store, &target, &[first], fast_config()).await;

    let second = add(&store, &folder, &metadata("Second title"));
    sandbox.set_faults(FaultConfig {
        drop_after_commit: 1.0,
        ..FaultConfig::default()
    });
    (lab, sandbox, target, store, second)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn response_dropped_after_commit_retry_records_the_original_identifier() {
    let (_lab, sandbox, target, store, second) = a_record_whose_answer_drops().await;
    let jobs = deposit(&store, &target, &[second], fast_config()).await;
    let job = &jobs[0];
    assert_eq!(job.state, JobState::Existing, "{job:?}");
    let server = get_json(&sandbox, &format!("/records/{}", second.1)).await;
    assert_eq!(job.identifier.as_deref(), server["identifier"].as_str());
    assert_eq!(sandbox.stats().records, 2, "no duplicate record");
    // Found by a look-up, not by a write the server refused: no conflict, as the server
    // counts none.
    let totals = store.totals().unwrap();
    assert_eq!((totals.conflicts, totals.found_by_lookup), (0, 1));
    assert_eq!(sandbox.stats().conflicts, 0);
    let events = store.events_for_job(job.id).unwrap();
    assert!(
        events.iter().any(|e| e.kind == EventKind::Reconciled
                && e.message.contains("already has")
                // Not claimed to be this job's: another deposit of the key may have made it.
                && e.message.contains("for this key (made by an earlier attempt whose answer \
                                       was lost, or by another deposit of the same content)")),
        "{events:#?}"
    );
}

/// The answer to the last attempt allowed is lost after the server committed it: before
/// the job is called failed, the key is looked up once (as a retry would first), so it
/// ends with the server's record, not failed with the record on the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lost_answer_to_the_last_attempt_is_looked_up_before_the_job_fails() {
    let (_lab, sandbox, target, store, second) = a_record_whose_answer_drops().await;
    let mut config = fast_config();
    config.retry.max_attempts = 1;
    let jobs = deposit(&store, &target, &[second], config).await;
    let job = &jobs[0];
    assert_eq!(job.state, JobState::Existing, "{job:?}");
    assert_eq!(job.attempts, 1);
    let server = get_json(&sandbox, &format!("/records/{}", second.1)).await;
    assert_eq!(job.identifier.as_deref(), server["identifier"].as_str());
    assert_eq!(sandbox.stats().records, 2, "no duplicate record");
    let said = logged(&store, job.id, EventKind::Reconciled);
    assert!(
        said.contains("an attempt's answer was lost; looked up before giving up"),
        "{said}"
    );
}

/// The first attempt's answer is lost after the server committed; the last attempt allowed
/// fails on its look-up (a 503, "nothing was committed" of that request alone). Before the
/// job is called failed the key is looked up once more: found, the job ends with the
/// server's record; when that look fails too, the failure says an earlier answer was lost,
/// not only that nothing was committed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_job_whose_earlier_answer_was_lost_is_looked_up_before_it_fails_on_a_503() {
    use support::proxy::{Action, Proxy, Rule};
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let proxy = Proxy::start(&sandbox.base_url()).await;
    let target = lodge::targets::open_target(&format!("sandbox+http://{}", proxy.addr), None)
        .expect("the sandbox behind the proxy");
    let store = lab.store("lodge.db");
    let mut config = fast_config();
    config.retry.max_attempts = 2;
    for (n, lookups_refused) in [(1, 1), (2, 2)] {
        let ds = add(
            &store,
            &lab.numbered_folder(n),
            &metadata(&format!("Lost {n}")),
        );
        let record = format!("/records/{}", ds.1);
        proxy.add_rule(Rule {
            method: "PUT",
            path_contains: record.clone(),
            action: Action::DropAfterCommit,
            times: 1,
        });
        proxy.add_rule(Rule {
            method: "GET",
            path_contains: record.clone(),
            action: Action::Unavailable,
            times: lookups_refused,
        });
        let jobs = deposit(&store, &target, &[ds], config.clone()).await;
        let job = &jobs[0];
        let server = get_json(&sandbox, &record).await;
        if lookups_refused == 1 {
            assert_eq!(job.state, JobState::Existing, "{job:?}");
            assert_eq!(job.identifier.as_deref(), server["identifier"].as_str());
            let said = logged(&store, job.id, EventKind::Reconciled);
            assert!(said.contains("looked up before giving up"), "{said}");
        } else {
            assert_eq!(job.state, JobState::Failed, "{job:?}");
            let error = job.last_error.as_deref().unwrap_or_default();
            assert!(
                error.ends_with(lodge::engine::EARLIER_ANSWER_LOST),
                "{error}"
            );
        }
    }
    assert_eq!(sandbox.stats().records, 2, "no duplicate record");
}

/// A job whose earlier runs made more attempts than this run allows (killed mid-attempt,
/// with a larger bound) is tried once more and, failing, says why it stopped after one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_job_past_this_runs_attempt_bound_says_the_earlier_runs_count() {
    let lab = Lab::new();
    let sandbox = lab.failing_sandbox("sbx").await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(21), &metadata("Bounded"));
    // Three runs killed during their attempts: each claim counted one.
    let engine = engine_for(&store, &target, fast_config());
    drop(engine);
    store
        .enqueue_deposit(ds.0, target.scope_id(), &ds.1, Duration::from_secs(60))
        .unwrap();
    let filter = lodge::store::ClaimFilter {
        targets: vec![target.scope_id().to_string()],
        ..Default::default()
    };
    for _ in 0..3 {
        let claim = store
            .claim("killed", Duration::from_millis(20), 8, &filter)
            .unwrap();
        assert!(matches!(claim, Claim::Attempt { .. }));
        std::thread::sleep(Duration::from_millis(40));
    }
    let mut config = fast_config();
    config.retry.max_attempts = 2;
    let jobs = deposit(&store, &target, &[ds], config).await;
    let job = &jobs[0];
    assert_eq!(job.state, JobState::Failed, "{job:?}");
    let error = job.last_error.as_deref().unwrap_or_default();
    assert!(
        error.starts_with(
            "gave up after 4 attempts (this run allows 2 attempts: the attempts of the runs \
             before it count too); last: "
        ),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn expired_lease_lets_a_second_worker_finish_and_refuses_the_first() {
    let lab = Lab::new();
    let store_a = lab.store("lodge.db");
    let store_b = lab.store("lodge.db");
    let ds = add(&store_a, &lab.numbered_folder(20), &metadata("Leased"));
    store_a
        .upsert_target(
            "sandbox+http://127.0.0.1:9",
            "sandbox+http://127.0.0.1:9",
            "t",
        )
        .unwrap();
    let filter = lodge::store::ClaimFilter {
        targets: vec!["sandbox+http://127.0.0.1:9".into()],
        ..Default::default()
    };
    store_a
        .enqueue_deposit(
            ds.0,
            "sandbox+http://127.0.0.1:9",
            &ds.1,
            Duration::from_secs(60),
        )
        .unwrap();

    let Claim::Attempt { lease: first, .. } = store_a
        .claim("worker-a", Duration::from_millis(50), 8, &filter)
        .unwrap()
    else {
        panic!("the first claim gets the job")
    };
    assert!(
        matches!(
            store_b
                .claim("worker-b", Duration::from_secs(10), 8, &filter)
                .unwrap(),
            Claim::Idle
        ),
        "a live lease is not handed out twice"
    );
    std::thread::sleep(Duration::from_millis(80));
    let Claim::Attempt {
        lease: second,
        events,
        ..
    } = store_b
        .claim("worker-b", Duration::from_secs(10), 8, &filter)
        .unwrap()
    else {
        panic!("an expired lease is reclaimed")
    };
    assert!(second.fence > first.fence);
    assert_eq!(events[0].kind, EventKind::Reclaimed);
    assert_eq!(
        events[0].message,
        "the lease of worker-a ended (its time ran out, or its process did); job taken over"
    );
    assert_eq!(second.job.attempts, 2, "taking over is a new attempt");

    let record = lodge::targets::RecordRef {
        identifier: "sbx-000042".into(),
        url: None,
    };
    let landed = |id: &str| Finish::Landed {
        record: lodge::targets::RecordRef {
            identifier: id.into(),
            ..record.clone()
        },
        created: true,
        kind: EventKind::Created,
        message: "created".into(),
        http_status: Some(201),
    };
    let (done, _) = store_b.finish(&second, &landed("sbx-000042")).unwrap();
    assert_eq!(done.state, JobState::Deposited);

    let late = store_a.finish(&first, &landed("sbx-000043"));
    assert!(
        matches!(late, Err(StoreError::StaleLease { .. })),
        "{late:?}"
    );
    let result = store_a
        .lookup_result("sandbox+http://127.0.0.1:9", &ds.1)
        .unwrap()
        .unwrap();
    assert_eq!(result.identifier, "sbx-000042");
    assert_eq!(store_a.job(done.id).unwrap().state, JobState::Deposited);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn file_changed_after_scan_is_rejected_and_nothing_lands_on_the_server() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(30);
    let ds = add(&store, &folder, &metadata("Edited"));
    std::fs::write(
        folder.join("data.csv"),
        b"id,value\nedited after the scan\n",
    )
    .unwrap();

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected);
    let error = jobs[0].last_error.clone().unwrap();
    assert!(error.contains("changed since scan: "), "{error}");
    assert!(error.contains("data.csv"), "{error}");
    let stats = sandbox.stats();
    assert_eq!((stats.records, stats.blobs, stats.requests), (0, 0, 0));
}

/// A file a `.lodgeignore` leaves out since the scan is unchanged, so nothing else would
/// stop it: the deposit is refused as the folder changed since its scan, before anything is
/// sent, naming the file and the `.lodgeignore`. A private note the person said to leave
/// out is never published.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_file_left_out_by_lodgeignore_since_the_scan_is_never_sent() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let folder = lab.folder(
        "private",
        &[
            ("data.csv", b"id\n1\n"),
            ("notes/secret.txt", b"not for publication"),
        ],
    );
    let ds = add(&store, &folder, &metadata("Private"));
    std::fs::write(folder.join(".lodgeignore"), "secret.txt\n").unwrap();

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    let error = jobs[0].last_error.clone().unwrap();
    assert!(error.contains("changed since scan: "), "{error}");
    assert!(
        error.contains("notes/secret.txt") && error.contains(".lodgeignore leaves it out"),
        "{error}"
    );
    let stats = sandbox.stats();
    assert_eq!((stats.records, stats.blobs, stats.requests), (0, 0, 0));
}

/// A `touch` (or the same file copied over it) moves the modification time only: the bytes
/// are what the key says, so the deposit goes ahead, rather than being refused with a rescan
/// to make that finds nothing changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_file_touched_since_the_scan_with_the_same_bytes_is_deposited() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let folder = lab.folder("touched", &[("a.txt", b"aaaa")]);
    let ds = add(&store, &folder, &metadata("Touched"));
    let later = std::time::SystemTime::now() + Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(folder.join("a.txt"))
        .unwrap()
        .set_modified(later)
        .unwrap();

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    assert_eq!(sandbox.stats().records, 1);
}

/// An edit that keeps the size but not the modification time is found by the bytes, before
/// anything is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_same_size_edit_since_the_scan_is_refused_before_anything_is_sent() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let folder = lab.folder("edited", &[("a.txt", b"aaaa")]);
    let ds = add(&store, &folder, &metadata("Edited in place"));
    let path = folder.join("a.txt");
    std::fs::write(&path, b"bbbb").unwrap();
    let later = std::time::SystemTime::now() + Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(later)
        .unwrap();

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains("a.txt: modified since it was scanned"),
        "{error}"
    );
    assert_eq!(sandbox.stats().requests, 0, "refused before sending");
}

/// A file replaced by another of the same size and modification time (`cp -p`, `rsync -a`,
/// `touch -r`: a new file under the name) is found by its bytes too, since it is another
/// file than the one scanned, before anything is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_file_replaced_keeping_size_and_time_is_refused_before_anything_is_sent() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let folder = lab.folder("replaced", &[("a.txt", b"aaaa")]);
    let ds = add(&store, &folder, &metadata("Replaced"));
    let path = folder.join("a.txt");
    let scanned_time = std::fs::metadata(&path).unwrap().modified().unwrap();
    let replacement = folder.join("a.txt.new");
    std::fs::write(&replacement, b"bbbb").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&replacement)
        .unwrap()
        .set_modified(scanned_time)
        .unwrap();
    std::fs::rename(&replacement, &path).unwrap();

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains("a.txt: modified since it was scanned"),
        "{error}"
    );
    assert_eq!(sandbox.stats().requests, 0, "refused before sending");
}

/// A scanned file replaced by a symbolic link (to a copy elsewhere, say) is said to be one:
/// its "size" would be the length of the path the link names.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_file_replaced_by_a_symbolic_link_is_refused_saying_so() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let folder = lab.folder("linked", &[("a.csv", b"id\n1\n")]);
    let ds = add(&store, &folder, &metadata("Linked"));
    let elsewhere = lab.folder("elsewhere", &[("a.csv", b"id\n1\n")]);
    std::fs::remove_file(folder.join("a.csv")).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("a.csv"), folder.join("a.csv")).unwrap();

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains("a.csv: is now a symbolic link, which Lodge does not follow"),
        "{error}"
    );
    assert_eq!(sandbox.stats().requests, 0, "refused before sending");
}

/// A job queued for a dataset whose metadata was edited since (its key changed) sends
/// nothing, and its refusal says what changed as either may have: rescanned or edited.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_job_queued_before_its_datasets_metadata_was_edited_is_refused_saying_so() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(31);
    let (id, before) = add(&store, &folder, &metadata("Before"));
    let (same, after) = add(&store, &folder, &metadata("After"));
    assert_eq!(same, id);
    assert_ne!(after, before);

    let jobs = deposit(&store, &target, &[(id, before)], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected);
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains(
            "the dataset was rescanned or its metadata edited since this job was queued, so \
             its key changed: deposit it again"
        ),
        "{error}"
    );
    assert_eq!(sandbox.stats().requests, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn same_size_edit_with_restored_mtime_is_caught_by_hashing_the_bytes_sent() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let folder = lab.folder("sneaky", &[("a.txt", b"aaaa")]);
    let ds = add(&store, &folder, &metadata("Sneaky"));
    let path = folder.join("a.txt");
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, b"bbbb").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert!(
        jobs[0]
            .last_error
            .as_deref()
            .unwrap()
            .contains("changed since scan")
    );
    let stats = sandbox.stats();
    assert_eq!(
        (stats.records, stats.blobs),
        (0, 0),
        "the changed blob was not committed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn rate_limit_is_waited_out_honouring_retry_after() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox(
            "sbx",
            FaultConfig {
                rate_limit: 0.5,
                retry_after_secs: 1,
                seed: Some(3),
                ..FaultConfig::default()
            },
        )
        .await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(40), &metadata("Throttled"));
    let mut config = fast_config();
    config.retry.retry_after_cap = Duration::from_secs(5);
    config.retry.max_attempts = 20;
    let jobs = deposit(&store, &target, &[ds], config).await;
    assert_eq!(jobs[0].state, JobState::Deposited);
    let waits: Vec<i64> = store
        .events_for_job(jobs[0].id)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EventKind::RetryScheduled && e.http_status == Some(429))
        .map(|e| e.delay_ms.unwrap())
        .collect();
    assert!(!waits.is_empty(), "the rate limit must have been hit");
    assert!(
        waits.iter().all(|d| *d >= 1000),
        "Retry-After: 1 honoured: {waits:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn wrong_credentials_pause_the_target_without_retrying() {
    let lab = Lab::new();
    let sandbox = lab.sandbox_with_token("sbx", "right").await;
    let target = lodge::targets::open_target(&sandbox.target_url(), Some("wrong".into())).unwrap();
    let store = lab.store("lodge.db");
    let datasets: Vec<_> = (50..53)
        .map(|n| add(&store, &lab.numbered_folder(n), &metadata(&format!("D{n}"))))
        .collect();
    let jobs = deposit(&store, &target, &datasets, fast_config()).await;
    assert!(jobs.iter().all(|j| j.state == JobState::Queued), "{jobs:?}");
    let paused = store.target_paused(target.scope_id()).unwrap();
    assert!(paused.unwrap().contains("401"));
    // Workers already in flight when the first 401 arrives finish their one attempt; none
    // is retried, and nothing is sent after the pause.
    assert!(jobs.iter().all(|j| j.attempts <= 1), "{jobs:?}");
    let attempts: u64 = jobs.iter().map(|j| j.attempts as u64).sum();
    let stats = sandbox.stats();
    assert_eq!(
        stats.requests, attempts,
        "one refused request per attempt, no loop"
    );
    assert_eq!(stats.records, 0);

    // The user acts: right token, resume, deposit again.
    store.resume_target(target.scope_id()).unwrap();
    let fixed = lodge::targets::open_target(&sandbox.target_url(), Some("right".into())).unwrap();
    let jobs = deposit(&store, &fixed, &datasets, fast_config()).await;
    assert!(
        jobs.iter().all(|j| j.state == JobState::Deposited),
        "{jobs:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn exhausted_retries_fail_and_retry_requeues_with_the_same_key() {
    let lab = Lab::new();
    let sandbox = lab.failing_sandbox("sbx").await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(60), &metadata("Stubborn"));
    let mut config = fast_config();
    config.retry.max_attempts = 3;
    let jobs = deposit(&store, &target, &[ds], config.clone()).await;
    assert_eq!(jobs[0].state, JobState::Failed);
    assert_eq!(jobs[0].attempts, 3);
    assert!(
        jobs[0]
            .last_error
            .as_deref()
            .unwrap()
            .contains("gave up after 3 attempts")
    );

    let requeued = store
        .retry_jobs(&[jobs[0].id], Duration::from_secs(60))
        .unwrap();
    assert_eq!(requeued, vec![jobs[0].id]);
    // The new round counts its attempts from one; the log says how many the last took.
    let said = |message: &str| {
        let events = store.events_for_job(jobs[0].id).unwrap();
        assert!(
            events.iter().any(|e| e.message == message),
            "{message}: {events:?}"
        );
    };
    said("re-queued by retry with the same key, after 3 failed attempts");
    // A second round fails too: its retry says this round's attempts and the sum, as the
    // history counts them.
    let again = run_jobs(&engine_for(&store, &target, config.clone()), requeued).await;
    assert_eq!(
        (again[0].state, again[0].attempts_in_all()),
        (JobState::Failed, 6)
    );
    let requeued = store
        .retry_jobs(&[jobs[0].id], Duration::from_secs(60))
        .unwrap();
    said("re-queued by retry with the same key, after 3 failed attempts of this round (6 in all)");

    sandbox.set_faults(FaultConfig::default());
    let done = run_jobs(&engine_for(&store, &target, config), requeued).await;
    assert_eq!(done[0].id, jobs[0].id);
    assert_eq!(done[0].key, ds.1, "same key");
    assert_eq!(done[0].state, JobState::Deposited);
    assert_eq!(sandbox.stats().records, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_batch_ends_when_its_last_outcome_commits_not_at_the_next_poll() {
    // Workers that run out of jobs while others are still uploading wait for those outcomes;
    // with an hour-long poll and lease they must be woken by the commits themselves.
    let lab = Lab::new();
    let sandbox = lab
        .sandbox(
            "sbx",
            FaultConfig {
                latency_ms: 20,
                ..FaultConfig::default()
            },
        )
        .await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let datasets: Vec<_> = (70..76)
        .map(|n| {
            add(
                &store,
                &lab.numbered_folder(n),
                &metadata(&format!("Batch {n}")),
            )
        })
        .collect();
    let config = lodge::engine::EngineConfig {
        lease: Duration::from_secs(3600),
        poll: Duration::from_secs(3600),
        ..fast_config()
    };
    let jobs = tokio::time::timeout(
        Duration::from_secs(60),
        deposit(&store, &target, &datasets, config),
    )
    .await
    .expect("the batch ends once its outcomes are committed, not after the poll interval");
    assert!(jobs.iter().all(|j| j.state == JobState::Deposited));
    assert_eq!(sandbox.stats().records, 6);
}

/// An engine of eight workers, looking at the queue every 50 ms when idle, working on
/// any job of `target` (as a window's does) until the token is cancelled.
fn idle_engine(
    store: &std::sync::Arc<lodge::store::Store>,
    target: &std::sync::Arc<dyn lodge::targets::Target>,
) -> (
    std::sync::Arc<lodge::engine::Engine>,
    tokio_util::sync::CancellationToken,
    tokio::task::JoinHandle<Result<(), lodge::engine::EngineError>>,
) {
    let config = lodge::engine::EngineConfig {
        concurrency: 8,
        poll: Duration::from_millis(50),
        ..fast_config()
    };
    let engine = engine_for(store, target, config);
    let stop = tokio_util::sync::CancellationToken::new();
    let running = tokio::spawn({
        let engine = engine.clone();
        let stop = stop.clone();
        async move { engine.run_forever(stop).await }
    });
    (engine, stop, running)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_idle_engine_has_one_worker_look_at_the_queue_and_it_finds_another_process_jobs() {
    // A window's engine idles for hours: of its eight workers one looks at the queue on a
    // timer (two store calls a look), the others sleep until something wakes them.
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let (engine, stop, running) = idle_engine(&store, &target);

    tokio::time::sleep(Duration::from_secs(1)).await;
    // At most 20 looks fit in a second: 8 first claims, then 2 calls a look. Eight workers
    // each looking would be over 300.
    let idle_calls = engine.store_calls();
    assert!(
        idle_calls <= 60,
        "{idle_calls} store calls in one idle second with a 50 ms poll"
    );

    // Another process (its own connection, nothing to wake this engine) queues six: the
    // watcher finds them and wakes the others.
    let other = lab.store("lodge.db");
    let datasets = lodge::bench::data::tiny_datasets(&other, &lab.path("tiny"), 6).unwrap();
    let ids: Vec<i64> = other
        .enqueue_deposits(target.scope_id(), &datasets, Duration::from_secs(60))
        .unwrap()
        .into_iter()
        .map(|(queued, _)| queued.job_id())
        .collect();
    tokio::time::timeout(Duration::from_secs(30), async {
        while !other
            .jobs(&ids)
            .unwrap()
            .iter()
            .all(|j| j.state == JobState::Deposited)
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the other process's jobs are deposited by the idle engine");
    stop.cancel();
    running.await.unwrap().expect("the engine stops cleanly");
    assert_eq!(sandbox.stats().records, 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_paused_targets_retry_coming_due_does_not_keep_an_idle_engine_looking() {
    // One job of the target waits for its retry, past its time; another job's 401 paused the
    // target. No claim takes the waiting job until the person acts, so the watcher must not
    // wake for it every few milliseconds.
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    store
        .upsert_target(target.scope_id(), &target.target_url(), &target.label())
        .unwrap();
    let datasets = lodge::bench::data::tiny_datasets(&store, &lab.path("tiny"), 2).unwrap();
    store
        .enqueue_deposits(target.scope_id(), &datasets, Duration::from_secs(60))
        .unwrap();
    let filter = lodge::store::ClaimFilter {
        targets: vec![target.scope_id().to_string()],
        ..Default::default()
    };
    let claim = || match store
        .claim("seed", Duration::from_secs(60), 8, &filter)
        .unwrap()
    {
        Claim::Attempt { lease, .. } => *lease,
        other => panic!("expected an attempt, got {other:?}"),
    };
    let (waiting, pausing) = (claim(), claim());
    let now = lodge::store::now_ms();
    store
        .finish(
            &waiting,
            &Finish::Retry {
                not_before: now,
                delay: Duration::ZERO,
                error: "server busy (HTTP 503)".into(),
                http_status: Some(503),
            },
        )
        .unwrap();
    store
        .finish(
            &pausing,
            &Finish::PauseTarget {
                error: "credentials refused (HTTP 401)".into(),
                http_status: Some(401),
            },
        )
        .unwrap();

    let (engine, stop, running) = idle_engine(&store, &target);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle_calls = engine.store_calls();
    stop.cancel();
    running.await.unwrap().expect("the engine stops cleanly");
    assert!(
        idle_calls <= 60,
        "{idle_calls} store calls in one second beside a paused target's due retry"
    );
    assert_eq!(
        sandbox.stats().requests,
        0,
        "nothing sent to a paused target"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_batch_returns_its_jobs_as_their_outcomes_committed_them_in_the_order_asked() {
    // The rows come from the outcomes, not from a read at the end: they must be the stored
    // rows all the same, one per job asked for (a dataset named twice joins its own job).
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let mut datasets = lodge::bench::data::tiny_datasets(&store, &lab.path("tiny"), 40).unwrap();
    datasets.push(datasets[7]);

    let jobs = deposit(&store, &target, &datasets, fast_config()).await;

    assert_eq!(jobs.len(), datasets.len());
    for (job, (dataset, key)) in jobs.iter().zip(&datasets) {
        assert_eq!(job.dataset_id, Some(*dataset), "rows in the order asked");
        assert_eq!(job.key, *key);
        assert_eq!(job.state, JobState::Deposited);
    }
    assert_eq!(jobs[40], jobs[7], "the dataset named twice is one job");
    let ids: Vec<i64> = jobs.iter().map(|j| j.id).collect();
    assert_eq!(jobs, store.jobs(&ids).unwrap(), "the stored rows");
    assert_eq!(sandbox.stats().records, 40);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_batch_of_jobs_that_ended_before_it_returns_them_as_stored() {
    // No outcome of this engine to keep: the rows are read.
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(81), &metadata("Done before"));
    let done = deposit(&store, &target, &[ds], fast_config()).await;

    let engine = engine_for(&store, &target, fast_config());
    let again = run_jobs(&engine, vec![done[0].id]).await;
    assert_eq!(again, store.jobs(&[done[0].id]).unwrap());
    assert_eq!(again[0].state, JobState::Deposited);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_listener_hears_each_job_running_before_its_outcome() {
    // A window shows a job running from this event: it does not read its own engine's
    // events back from the log.
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    let datasets = lodge::bench::data::tiny_datasets(&store, &lab.path("tiny"), 6).unwrap();
    let engine = engine_for(&store, &target, fast_config());
    let mut heard = engine.subscribe();
    let ids: Vec<i64> = store
        .enqueue_deposits(target.scope_id(), &datasets, Duration::from_secs(60))
        .unwrap()
        .into_iter()
        .map(|(queued, _)| queued.job_id())
        .collect();

    let jobs = run_jobs(&engine, ids).await;

    let mut states: std::collections::HashMap<i64, Vec<JobState>> = Default::default();
    while let Ok(event) = heard.try_recv() {
        if let lodge::engine::EngineEvent::JobChanged(job) = event {
            states.entry(job.id).or_default().push(job.state);
        }
    }
    for job in &jobs {
        assert_eq!(
            states.get(&job.id).map(Vec::as_slice),
            Some(&[JobState::Running, JobState::Deposited][..]),
            "job {}",
            job.id
        );
    }
}

/// Uploads longer than a lease, more jobs than workers: each worker claims its next job
/// while it sends one, and holds that claim's lease (renewed, as a running job's is) until
/// it gets to it. The claim used to lapse meanwhile, and another worker of the same
/// process took the job over: each job still landed once, but with attempts counted that
/// were never made, and a log saying a live process had ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_job_claimed_ahead_is_held_through_an_upload_longer_than_its_lease() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox(
            "sbx",
            FaultConfig {
                latency_ms: 700,
                ..FaultConfig::default()
            },
        )
        .await;
    let target = target_of(&sandbox);
    let store = lab.store("lodge.db");
    // One file, then four (a request each, and each request slow): the two workers finish
    // out of step, so one claims while the other's claim made ahead waits.
    let datasets: Vec<_> = (0..6)
        .map(|n| {
            let contents: Vec<String> = (0..[1, 4][n % 2]).map(|f| format!("{n},{f}\n")).collect();
            let files: Vec<(String, &[u8])> = (contents.iter().enumerate())
                .map(|(f, c)| (format!("part{f}.csv"), c.as_bytes()))
                .collect();
            let files: Vec<(&str, &[u8])> = files.iter().map(|(p, c)| (p.as_str(), *c)).collect();
            let folder = lab.folder(&format!("slow{n}"), &files);
            add(&store, &folder, &metadata(&format!("Slow {n}")))
        })
        .collect();
    let config = lodge::engine::EngineConfig {
        concurrency: 2,
        lease: Duration::from_millis(900),
        ..fast_config()
    };
    let jobs = deposit(&store, &target, &datasets, config).await;
    assert!(
        jobs.iter().all(|j| j.state == JobState::Deposited),
        "{jobs:?}"
    );
    assert_eq!(sandbox.stats().records, 6);
    for job in &jobs {
        let events = store.events_for_job(job.id).unwrap();
        let reclaimed: Vec<_> = events
            .iter()
            .filter(|e| e.kind == EventKind::Reclaimed)
            .map(|e| e.message.clone())
            .collect();
        assert!(reclaimed.is_empty(), "job {}: {reclaimed:?}", job.id);
        assert_eq!(job.attempts, 1, "job {}: {events:?}", job.id);
    }
}
