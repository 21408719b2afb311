//! The conformance cases: each takes a target kind and must hold for every kind.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use lodge::content::{ContentDocument, ContentKey, Metadata, Sha256Hex};
use lodge::engine::repair::{Repair, repair_deposit};
use lodge::engine::verify::{Verification, check_deposit};
use lodge::engine::{Engine, EngineConfig};
use lodge::store::{EventKind, JobRow, JobState, Store};
use lodge::targets::each_file::FilesAtOnce;
use lodge::targets::{Discrepancy, FileHeld, ProgressSink, ReadBack};
use tokio_util::sync::CancellationToken;

use crate::env::{Env, Kind, MULTIPART_THRESHOLD, PART_SIZE};
use crate::support::proxy::{Action, Rule};
use crate::support::*;

/// A progress sink for a check whose progress the case does not look at.
fn quiet() -> ProgressSink {
    Arc::new(|_| {})
}

/// Check the deposit `job` made on `env`'s target, by `read`, with no progress shown.
async fn check_on(
    env: &Env,
    job: &JobRow,
    document: &ContentDocument,
    read: ReadBack,
) -> Verification {
    check_deposit(env.target.as_ref(), job, document, read, &quiet()).await
}

/// Repair the deposit `job` made on `env`'s target, checking by `read`, with no progress
/// shown.
async fn repair_on(env: &Env, job: &JobRow, document: &ContentDocument, read: ReadBack) -> Repair {
    repair_deposit(env.target.as_ref(), job, document, read, &quiet()).await
}

/// A dataset deposited to a kind's target, as the cases that read a deposit back start:
/// its lab, target, store, `(id, key)`, the job that landed it (alone in `jobs`), the
/// identifier it recorded and its manifest.
struct Deposited {
    lab: Lab,
    env: Env,
    store: Arc<Store>,
    ds: (i64, ContentKey),
    jobs: Vec<JobRow>,
    recorded: String,
    document: ContentDocument,
}

impl Deposited {
    /// Deposit the folder `folder` makes in the lab, titled `title`, to `kind`'s target.
    async fn of(kind: Kind, folder: impl FnOnce(&Lab) -> PathBuf, title: &str) -> Deposited {
        let lab = Lab::new();
        let env = Env::new(kind, &lab).await;
        let store = lab.store("lodge.db");
        let ds = add(&store, &folder(&lab), &metadata(title));
        let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
        assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
        let recorded = jobs[0].identifier.clone().unwrap();
        let document = store.document(&ds.1).unwrap().unwrap();
        Deposited {
            lab,
            env,
            store,
            ds,
            jobs,
            recorded,
            document,
        }
    }
}

/// Blob files at least this big are HEADed first by every target.
const BIG: usize = (1 << 20) + 4096;

fn big_bytes(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2654435761).to_le_bytes()[0] ^ seed)
        .collect()
}

/// The DELETE requests the target was sent, by path.
fn deletes_sent(env: &Env) -> Vec<String> {
    env.proxy
        .log()
        .into_iter()
        .filter(|(method, _)| method == "DELETE")
        .map(|(_, path)| path)
        .collect()
}

pub async fn create(kind: Kind) {
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(1), &metadata("Created"));
    let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    assert_eq!(env.records().await, 1);
    assert_eq!(
        jobs[0].identifier.as_deref(),
        Some(env.identifier(&ds.1).await.as_str())
    );
}

pub async fn replay_makes_no_request(kind: Kind) {
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(2), &metadata("Replayed"));
    let first = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(first[0].state, JobState::Deposited);
    let before = env.proxy.requests();
    let again = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(again[0].state, JobState::Existing);
    assert_eq!(again[0].identifier, first[0].identifier);
    assert_eq!(env.proxy.requests(), before, "a replay sends no request");
    assert_eq!(env.records().await, 1);
}

pub async fn response_lost_after_commit_gives_the_original_identifier(kind: Kind) {
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(3), &metadata("Lost reply"));
    let (method, path_contains) = env.record_write(&ds.1);
    env.proxy.add_rule(Rule {
        method,
        path_contains,
        action: Action::DropAfterCommit,
        times: 1,
    });
    let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
    let job = &jobs[0];
    assert_eq!(
        job.identifier.as_deref(),
        Some(env.identifier(&ds.1).await.as_str())
    );
    assert_eq!(env.records().await, 1, "no duplicate record");
    if kind == Kind::InvenioDrafts {
        // A key's draft cannot be told done from its key alone (which files it lacks is
        // the manifest's to say): the retry resumes it, sending none of its files again.
        assert_eq!(job.state, JobState::Deposited, "{job:?}");
        let log = env.proxy.log();
        for name in ["data.csv", "README.txt"] {
            let fragment = format!("/files/{name}/content");
            let sent = log
                .iter()
                .filter(|(m, p)| m == "PUT" && p.contains(&fragment))
                .count();
            assert_eq!(sent, 1, "{name} sent once: {log:?}");
        }
        return;
    }
    assert_eq!(job.state, JobState::Existing, "{job:?}");
    let events = store.events_for_job(job.id).unwrap();
    assert!(
        events
            .iter()
            .any(|e| e.kind == EventKind::Reconciled && e.message.contains("already has")),
        "{events:#?}"
    );
}

pub async fn eight_concurrent_deposits_make_one_record(kind: Kind) {
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let folder = lab.numbered_folder(4);
    let mut runs = Vec::new();
    for i in 0..8 {
        // Eight machines: separate stores, only the server between them.
        let store = lab.store(&format!("machine{i}.db"));
        let ds = add(&store, &folder, &metadata("Raced"));
        let target = env.target.clone();
        runs.push(tokio::spawn(async move {
            deposit(&store, &target, &[ds], fast_config()).await
        }));
    }
    let mut identifiers = std::collections::HashSet::new();
    for run in runs {
        let jobs = run.await.unwrap();
        assert!(jobs[0].state.is_landed(), "{:?}", jobs[0]);
        identifiers.insert(jobs[0].identifier.clone().unwrap());
    }
    assert_eq!(
        identifiers.len(),
        1,
        "every machine sees the same identifier"
    );
    assert_eq!(env.records().await, 1);
}

/// The first batch into a new place, sent all at once, every dataset holding one same
/// file: every deposit lands on its first attempt. Concurrent deposits do not race each
/// other to set the place up (on WebDAV, two MKCOLs of one folder, the loser of which
/// wsgidav answers with a 500), nor to send the shared file (on WebDAV, whose server writes
/// a file as it arrives, a second deposit found it half written, took it for what a cut-off
/// upload left and deleted it under the first).
pub async fn a_first_batch_sent_at_once_lands_each_deposit_on_its_first_attempt(kind: Kind) {
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    // Large enough to be still arriving while the other deposits find it there.
    let shared = big_bytes(9, 12 * BIG);
    let datasets: Vec<_> = (0..8)
        .map(|i| {
            let own = format!("row {i}\n");
            let folder = lab.folder(
                &format!("batch/ds{i}"),
                &[
                    ("calibration.bin", &shared[..]),
                    ("data.csv", own.as_bytes()),
                ],
            );
            add(&store, &folder, &metadata(&format!("First batch {i}")))
        })
        .collect();
    let config = EngineConfig {
        concurrency: 8,
        ..fast_config()
    };
    let jobs = deposit(&store, &env.target, &datasets, config).await;
    for job in &jobs {
        assert_eq!(job.state, JobState::Deposited, "{job:?}");
        assert_eq!(
            job.attempts,
            1,
            "job {}: {:#?}",
            job.id,
            store.events_for_job(job.id).unwrap()
        );
    }
    assert_eq!(env.records().await, 8);
    let deleted = deletes_sent(&env);
    assert!(
        deleted.is_empty(),
        "nothing a deposit of this batch sent is taken for a cut-off upload: {deleted:?}"
    );
}

pub async fn same_key_on_another_target_is_independent(kind: Kind) {
    let lab = Lab::new();
    let a = Env::new(kind, &lab).await;
    let b = Env::new(kind, &lab).await;
    assert_ne!(a.target.scope_id(), b.target.scope_id());
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(5), &metadata("Twice"));
    let on_a = deposit(&store, &a.target, &[ds], fast_config()).await;
    let on_b = deposit(&store, &b.target, &[ds], fast_config()).await;
    assert_eq!(on_a[0].state, JobState::Deposited);
    assert_eq!(
        on_b[0].state,
        JobState::Deposited,
        "not a replay of the other target"
    );
    assert_eq!((a.records().await, b.records().await), (1, 1));
}

pub async fn large_file_deposits_and_verifies(kind: Kind) {
    assert!(kind.stores_files(), "only for targets that hold files");
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let size = (2 * PART_SIZE + (1 << 20)) as usize;
    assert!(size as u64 >= MULTIPART_THRESHOLD);
    let bytes = big_bytes(9, size);
    let digest = Sha256Hex::of(&bytes);
    let folder = lab.folder("large", &[("large.bin", &bytes), ("small.txt", b"small")]);
    let ds = add(&store, &folder, &metadata("Large"));
    let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let held = env.blob(&digest).await;
    assert_eq!(held.len(), size, "the server holds the whole file");
    assert_eq!(
        Sha256Hex::of(&held),
        digest,
        "the server holds the same bytes"
    );
    if kind.is_s3() {
        let log = env.proxy.log();
        let parts = log
            .iter()
            .filter(|(m, p)| m == "PUT" && p.contains("partNumber="))
            .count();
        assert_eq!(parts, 3, "sent by multipart upload in 3 parts: {log:?}");
        assert!(
            log.iter()
                .any(|(m, p)| m == "POST" && p.contains("uploads"))
        );
    }
}

pub async fn empty_file_deposits_and_reads_back_empty(kind: Kind) {
    assert!(kind.stores_files(), "only for targets that hold files");
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let folder = lab.folder("empty", &[("empty.dat", b""), ("data.csv", b"1")]);
    let ds = add(&store, &folder, &metadata("Empty file"));
    let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    assert_eq!(env.records().await, 1);
    // (InvenioRDM's files are found by their bytes, which an empty file cannot tell apart
    // from a missing one: its publish, which needs every file committed, stands for it.)
    if !kind.is_invenio() {
        let held = env.blob(&Sha256Hex::of(b"")).await;
        assert!(held.is_empty(), "the server holds it, empty");
    }
}

pub async fn killed_mid_upload_resumes_without_resending_blobs(kind: Kind) {
    assert!(kind.stores_files(), "only for targets that hold files");
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let files: Vec<Vec<u8>> = (0..3).map(|i| big_bytes(i, BIG)).collect();
    let digests: Vec<Sha256Hex> = files.iter().map(|f| Sha256Hex::of(f)).collect();
    let folder = lab.folder(
        "three",
        &[
            ("a.bin", &files[0]),
            ("b.bin", &files[1]),
            ("c.bin", &files[2]),
        ],
    );
    let ds = add(&store, &folder, &metadata("Killed"));

    // The third file hangs on its way out; the job is "killed" once the first two have
    // landed (one after the other, or beside it: targets send a few files at once).
    let (third_reached, kill) = (CancellationToken::new(), CancellationToken::new());
    env.proxy.add_rule(Rule {
        method: "PUT",
        path_contains: env.file_fragment("c.bin", &digests[2]),
        action: Action::Stall(third_reached.clone()),
        times: 1,
    });
    let batch = deposit_until_stopped(&store, &env, ds, &kill);
    third_reached.cancelled().await;
    let first_two: Vec<String> = ["a.bin", "b.bin"]
        .iter()
        .zip(&digests[..2])
        .map(|(name, d)| env.file_fragment(name, d))
        .collect();
    let landed = |answered: &[(String, String, u16)], fragment: &str| {
        answered
            .iter()
            .any(|(m, p, status)| m == "PUT" && p.contains(fragment) && *status < 300)
    };
    for _ in 0..600 {
        let answered = env.proxy.answered();
        if first_two.iter().all(|f| landed(&answered, f)) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    kill.cancel();
    let first = batch.await.unwrap().unwrap();
    assert!(!first[0].state.is_terminal(), "{:?}", first[0]);
    let answered = env.proxy.answered();
    assert!(
        first_two.iter().all(|f| landed(&answered, f)),
        "the first two files landed before the kill: {answered:?}"
    );

    env.proxy.clear_log();
    let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let log = env.proxy.log();
    for (name, d) in ["a.bin", "b.bin"].iter().zip(&digests[..2]) {
        let fragment = env.file_fragment(name, d);
        assert!(
            !log.iter().any(|(m, p)| m == "PUT" && p.contains(&fragment)),
            "a finished blob was sent again: {log:?}"
        );
    }
    let third = env.file_fragment("c.bin", &digests[2]);
    assert!(log.iter().any(|(m, p)| m == "PUT" && p.contains(&third)));
    assert!(
        env.blob(&digests[2]).await == files[2],
        "the third file landed intact"
    );
    assert_eq!(env.records().await, 1);
}

/// The deposit of `ds` to `env`'s target, run in a task of its own until it ends or `stop`
/// is cancelled (as a `lodge deposit` interrupted, or killed, is).
fn deposit_until_stopped(
    store: &Arc<Store>,
    env: &Env,
    ds: (i64, ContentKey),
    stop: &CancellationToken,
) -> tokio::task::JoinHandle<Result<Vec<JobRow>, lodge::engine::EngineError>> {
    let config = fast_config();
    let deadline = config.retry.deadline;
    let mut engine = Engine::new(store.clone(), config).expect("engine");
    engine.add_target(env.target.clone()).unwrap();
    let job = store
        .enqueue_deposit(ds.0, env.target.scope_id(), &ds.1, deadline)
        .unwrap()
        .0
        .job_id();
    let (engine, stop) = (Arc::new(engine), stop.clone());
    tokio::spawn(async move { engine.run_batch(vec![job], stop).await })
}

/// A file refused for a moment (503) fails the attempt; the next attempt sends it and the
/// files not yet sent, and not again the ones the first got through: each attempt gets
/// further than the last, however many files a dataset has.
pub async fn an_attempts_files_that_went_through_are_not_sent_again(kind: Kind) {
    assert!(kind.stores_files(), "only for targets that hold files");
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let files: Vec<(String, Vec<u8>)> = (0..6)
        .map(|n| (format!("part-{n}.csv"), format!("part,{n}\n").into_bytes()))
        .collect();
    let named: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    let ds = add(&store, &lab.folder("parts", &named), &metadata("Parts"));
    let fragment = |n: usize| env.file_fragment(&files[n].0, &Sha256Hex::of(&files[n].1));
    env.proxy.add_rule(Rule {
        method: "PUT",
        path_contains: fragment(3),
        action: Action::Unavailable,
        times: 1,
    });
    let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    assert!(jobs[0].attempts > 1, "the refusal failed an attempt");
    let log = env.proxy.log();
    for (n, (name, _)) in files.iter().enumerate() {
        let puts = log
            .iter()
            .filter(|(m, p)| m == "PUT" && p.contains(&fragment(n)))
            .count();
        let expected = if n == 3 { 2 } else { 1 };
        assert_eq!(puts, expected, "{name}: {log:?}");
    }
    assert_eq!(env.records().await, 1);
    // The retry looked the key up first: no record yet, which is not to say nothing of the
    // attempt before landed (its files, a drafting site's draft, are taken up).
    let events = store.events_for_job(jobs[0].id).unwrap();
    assert!(
        events.iter().any(|e| e.kind == EventKind::Reconciled
            && e.message
                == "reconciled: no record of this key on the server yet (the \
                             attempts before did not finish it)"),
        "{events:#?}"
    );
}

/// Ten small files in a folder (and their names and bytes), and a rule for each on `env`'s
/// proxy holding its PUT's answer 300 ms, as a distant server would: long enough for every
/// file let out at once to be on its way together.
fn ten_slow_files(lab: &Lab, env: &Env) -> (PathBuf, Vec<(String, Vec<u8>)>) {
    let files: Vec<(String, Vec<u8>)> = (0..10)
        .map(|i| {
            (
                format!("day-{i:02}.csv"),
                format!("t,v\n{i},{}\n", i * 7).into_bytes(),
            )
        })
        .collect();
    slow_down(env, "PUT", &files);
    let listed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    (lab.folder("ten-days", &listed), files)
}

/// Ten slow files ([`ten_slow_files`]) deposited as one dataset to a target.
struct TenFilesDeposited {
    store: Arc<Store>,
    dataset: (i64, ContentKey),
    /// The job that deposited them (asserted deposited).
    job: JobRow,
    /// The files' names and bytes.
    files: Vec<(String, Vec<u8>)>,
}

async fn deposit_ten_slow_files(lab: &Lab, env: &Env) -> TenFilesDeposited {
    let store = lab.store("lodge.db");
    let (folder, files) = ten_slow_files(lab, env);
    let dataset = add(&store, &folder, &metadata("Ten days"));
    let mut jobs = deposit(&store, &env.target, &[dataset], fast_config()).await;
    let job = jobs.remove(0);
    assert_eq!(job.state, JobState::Deposited, "{job:?}");
    TenFilesDeposited {
        store,
        dataset,
        job,
        files,
    }
}

/// Hold the answer to `method` of each of `files` 300 ms, once.
fn slow_down(env: &Env, method: &'static str, files: &[(String, Vec<u8>)]) {
    for (name, bytes) in files {
        env.proxy.add_rule(Rule {
            method,
            path_contains: env.file_fragment(name, &Sha256Hex::of(bytes)),
            action: Action::Delay(std::time::Duration::from_millis(300)),
            times: 1,
        });
    }
}

/// A dataset of many files does not wait for each file's answer before sending the next:
/// as many go out at once as the target is set to (`files_at_once`, four by default: 1 for a
/// server that takes one upload at a time, more for a distant store), each once, and every
/// one lands whole; `verify` reads no more back at a time.
pub async fn a_datasets_files_go_out_as_many_at_once_as_set(kind: Kind, at_once: FilesAtOnce) {
    assert!(kind.stores_files(), "only for targets that hold files");
    let lab = Lab::new();
    let env = Env::sending_files_at_once(kind, &lab, at_once).await;
    let TenFilesDeposited {
        store,
        dataset,
        job,
        files,
    } = deposit_ten_slow_files(&lab, &env).await;
    assert_eq!(
        env.proxy.peak_in_flight(),
        at_once.get(),
        "files sent at once: {:?}",
        env.proxy.log()
    );
    let file_puts = |log: &[(String, String)]| {
        files
            .iter()
            .map(|(name, bytes)| {
                let fragment = env.file_fragment(name, &Sha256Hex::of(bytes));
                log.iter()
                    .filter(|(m, p)| m == "PUT" && p.contains(&fragment))
                    .count()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        file_puts(&env.proxy.log()),
        vec![1; files.len()],
        "each file sent once"
    );
    assert_eq!(env.records().await, 1);

    let document = store.document(&dataset.1).unwrap().unwrap();
    slow_down(&env, "GET", &files);
    env.proxy.reset_peak_in_flight();
    let check = check_on(&env, &job, &document, ReadBack::Bytes).await;
    assert!(
        matches!(check, Verification::Intact(_)),
        "every file landed whole: {check:?}"
    );
    assert_eq!(
        env.proxy.peak_in_flight(),
        at_once.get(),
        "files read back at once: {:?}",
        env.proxy.log()
    );
}

/// A file the server (or a proxy before it) refuses as too large is named in the refusal:
/// of a dataset's many files, it is the one a person splits or sends elsewhere. Refused
/// once, for good: sending it again sends the same size.
pub async fn a_file_refused_as_too_large_is_named_in_the_refusal(kind: Kind) {
    assert!(kind.stores_files(), "only for targets that hold files");
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let big = (
        "plate-07.tif".to_string(),
        b"II*\0 pretend this is a very large scan".to_vec(),
    );
    let small = (
        "notes.txt".to_string(),
        b"plates scanned at 600 dpi".to_vec(),
    );
    env.proxy.add_rule(Rule {
        method: "PUT",
        path_contains: env.file_fragment(&big.0, &Sha256Hex::of(&big.1)),
        action: Action::Answer {
            status: 413,
            content_type: "text/html",
            body: "<html><head><title>413 Request Entity Too Large</title></head><body>\
                   <center><h1>413 Request Entity Too Large</h1></center><hr><center>nginx\
                   </center></body></html>"
                .into(),
        },
        times: usize::MAX,
    });
    let folder = lab.folder(
        "plates",
        &[(&big.0, big.1.as_slice()), (&small.0, small.1.as_slice())],
    );
    let ds = add(&store, &folder, &metadata("Plates"));
    let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert_eq!(jobs[0].attempts, 1, "not retried");
    assert_eq!(jobs[0].last_status, Some(413));
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains("file 'plate-07.tif'"),
        "names the file: {error}"
    );
    assert!(error.contains("no request this large"), "{error}");
    assert!(!error.contains("notes.txt"), "{error}");
    // (A drafting target's draft made by this attempt is discarded: the error says so when
    // it could not be.)
    assert_eq!(env.records().await, 0, "{error}");
}

pub async fn wrong_credentials_pause_the_target_without_a_loop(kind: Kind) {
    let lab = Lab::new();
    let (env, proxy) = Env::with_wrong_credentials(kind, &lab).await;
    let store = lab.store("lodge.db");
    let datasets: Vec<_> = (50..53)
        .map(|n| add(&store, &lab.numbered_folder(n), &metadata(&format!("D{n}"))))
        .collect();
    let jobs = deposit(&store, &env.target, &datasets, fast_config()).await;
    assert!(jobs.iter().all(|j| j.state == JobState::Queued), "{jobs:?}");
    let paused = store.target_paused(env.target.scope_id()).unwrap();
    let reason = paused.expect("the target is paused");
    assert!(
        reason.contains("40"),
        "the reason names the HTTP status: {reason}"
    );
    if kind.is_s3() || kind.is_webdav() {
        assert!(
            reason.contains("target '"),
            "the reason names the target and the fix: {reason}"
        );
    }
    assert!(jobs.iter().all(|j| j.attempts <= 1), "{jobs:?}");
    let attempts: usize = jobs.iter().map(|j| j.attempts as usize).sum();
    assert_eq!(
        proxy.requests(),
        attempts,
        "one refused request per attempt, no loop: {:?}",
        proxy.log()
    );
}

pub async fn validation_error_is_terminal(kind: Kind) {
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let no_title = Metadata {
        title: String::new(),
        ..metadata("x")
    };
    let ds = add(&store, &lab.numbered_folder(6), &no_title);
    let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert_eq!(jobs[0].attempts, 1);
    assert!(jobs[0].last_error.as_deref().unwrap().contains("title"));
    let events = store.events_for_job(jobs[0].id).unwrap();
    assert!(!events.iter().any(|e| e.kind == EventKind::RetryScheduled));
    assert_eq!(env.records().await, 0);
}

pub async fn verify_finds_a_fresh_deposit_intact(kind: Kind) {
    let Deposited {
        lab,
        env,
        store,
        ds,
        recorded,
        document,
        ..
    } = Deposited::of(kind, |lab| lab.numbered_folder(8), "Verified").await;
    for read in [ReadBack::Sizes, ReadBack::Bytes] {
        // The bytes read back, as a progress bar would count them.
        let read_back = Arc::new(AtomicU64::new(0));
        let counter: ProgressSink = {
            let read_back = read_back.clone();
            Arc::new(move |n| {
                read_back.fetch_add(n, Ordering::Relaxed);
            })
        };
        let held = env
            .target
            .holdings(&ds.1, &document, read, &counter)
            .await
            .unwrap();
        assert_eq!(held.discrepancies(&document, &recorded), [], "{read:?}");
        assert_eq!(held.record.as_ref().unwrap().identifier, recorded);
        assert_eq!(
            env.target.keeps_files(),
            kind.stores_files(),
            "what the target says of its files (the window offers Verify bytes by it)"
        );
        if kind.stores_files() {
            assert_eq!(held.files.len(), document.manifest.len(), "{read:?}");
            for ((path, file), entry) in held.files.iter().zip(&document.manifest) {
                assert_eq!(path, &entry.path);
                let sha256 = (read == ReadBack::Bytes).then_some(entry.sha256);
                assert_eq!(
                    file,
                    &FileHeld::Present {
                        size: entry.size,
                        sha256
                    },
                    "{path} by {read:?}"
                );
            }
        } else {
            assert!(held.files.is_empty(), "DataCite keeps no files");
        }
        let expected = match read {
            ReadBack::Bytes if kind.stores_files() => document.total_size(),
            _ => 0,
        };
        assert_eq!(
            read_back.load(Ordering::Relaxed),
            expected,
            "progress of the bytes read back by {read:?}"
        );
    }
    // A key never deposited has no record there.
    let other = add(&store, &lab.numbered_folder(9), &metadata("Never sent"));
    let other_doc = store.document(&other.1).unwrap().unwrap();
    let held = env
        .target
        .holdings(&other.1, &other_doc, ReadBack::Sizes, &quiet())
        .await
        .unwrap();
    assert_eq!(held.record, None);
}

pub async fn verify_names_a_lost_file_and_bytes_changed_in_place(kind: Kind) {
    assert!(kind.stores_files(), "only for targets that hold files");
    let tampered = |lab: &Lab| {
        lab.folder(
            "tampered",
            &[("lost.csv", b"1,2,3\n"), ("changed.txt", b"original")],
        )
    };
    let Deposited {
        lab: _lab,
        env,
        ds,
        recorded,
        document,
        ..
    } = Deposited::of(kind, tampered, "Tampered").await;

    env.tamper("lost.csv", &Sha256Hex::of(b"1,2,3\n"), None)
        .await;
    env.tamper(
        "changed.txt",
        &Sha256Hex::of(b"original"),
        Some(b"ORIGINAL"),
    )
    .await;

    let by_sizes = env
        .target
        .holdings(&ds.1, &document, ReadBack::Sizes, &quiet())
        .await
        .unwrap();
    assert_eq!(
        by_sizes.discrepancies(&document, &recorded),
        [Discrepancy::FileMissing {
            path: "lost.csv".into()
        }],
        "sizes find the lost file, not bytes changed in place"
    );
    let by_bytes = env
        .target
        .holdings(&ds.1, &document, ReadBack::Bytes, &quiet())
        .await
        .unwrap();
    assert_eq!(
        by_bytes.discrepancies(&document, &recorded),
        [
            Discrepancy::BytesDiffer {
                path: "changed.txt".into(),
                found: Sha256Hex::of(b"ORIGINAL")
            },
            Discrepancy::FileMissing {
                path: "lost.csv".into()
            },
        ]
    );
}

/// `lodge verify` names a damaged file by where the target keeps it: each file's address
/// reads back its bytes there. Targets that keep files in their records (InvenioRDM) or
/// none (DataCite) give none.
pub async fn a_files_address_is_where_the_target_keeps_it(kind: Kind) {
    let two_files = |lab: &Lab| {
        lab.folder(
            "addressed",
            &[("data.csv", b"1,2\n"), ("notes/read me #1.txt", b"notes")],
        )
    };
    let Deposited {
        lab: _lab,
        env,
        ds,
        document,
        ..
    } = Deposited::of(kind, two_files, "Addressed").await;
    for entry in &document.manifest {
        let at = env.target.file_address(&ds.1, &document, entry);
        match kind {
            Kind::Invenio | Kind::InvenioDrafts | Kind::DataCite => assert_eq!(at, None),
            _ => {
                let at = at.unwrap_or_else(|| panic!("{kind:?} gives {}'s address", entry.path));
                let held = env.read_at(&at).await;
                assert_eq!(Sha256Hex::of(&held), entry.sha256, "{at}");
            }
        }
    }
}

pub async fn verify_finds_a_record_gone_or_replaced(kind: Kind) {
    let Deposited {
        lab: _lab,
        env,
        ds,
        jobs,
        document,
        ..
    } = Deposited::of(kind, |lab| lab.numbered_folder(10), "Record lost").await;

    env.tamper_record(&ds.1).await;
    let found = check_on(&env, &jobs[0], &document, ReadBack::Sizes).await;
    let Verification::Damaged(found) = found else {
        panic!("the record's loss is damage: {found:?}")
    };
    assert_eq!(found.len(), 1, "{found:?}");
    match kind {
        // Records kept as objects or files: something else now stands in the record's place.
        Kind::S3 | Kind::S3Folders | Kind::WebDav | Kind::WebDavFolders => assert!(
            matches!(&found[0], Discrepancy::RecordReplaced { message, written_again: true }
                if message.contains("not Lodge's record")),
            "{found:?}"
        ),
        _ => assert_eq!(
            found[0],
            Discrepancy::RecordGone {
                recorded: jobs[0].identifier.clone().unwrap()
            }
        ),
    }
    // A repair writes no second record in its place, and says so.
    let records = env.records().await;
    let repair = repair_on(&env, &jobs[0], &document, ReadBack::Sizes).await;
    let Repair::NothingSent { why: Some(why), .. } = &repair else {
        panic!("a lost record is not repaired: {repair:?}")
    };
    match kind {
        // What stands there is moved away by a person; then a repair writes the record.
        Kind::S3 | Kind::S3Folders | Kind::WebDav | Kind::WebDavFolders => assert!(
            why.contains("which Lodge does not overwrite: move it away on the server"),
            "{why}"
        ),
        _ => assert!(why.contains("does not write a second record"), "{why}"),
    }
    assert_eq!(env.records().await, records);
}

/// A record deleted from the server: where the target keeps it under a name its key alone
/// decides (S3, WebDAV), a repair writes it again there, so it is the identifier Lodge
/// recorded and still the one record; where the server mints identifiers, a repair writes
/// none (that would be a second record) and says so.
pub async fn a_deleted_record_is_written_again_by_repair_only_where_its_key_names_it(kind: Kind) {
    let Deposited {
        lab: _lab,
        env,
        ds,
        jobs,
        recorded,
        document,
        ..
    } = Deposited::of(kind, |lab| lab.numbered_folder(11), "Record deleted").await;
    let records = env.records().await;
    env.delete_record(&ds.1).await;
    let found = check_on(&env, &jobs[0], &document, ReadBack::Sizes).await;
    assert_eq!(
        found,
        Verification::Damaged(vec![Discrepancy::RecordGone {
            recorded: recorded.clone()
        }])
    );

    let repair = repair_on(&env, &jobs[0], &document, ReadBack::Sizes).await;
    match kind {
        Kind::S3 | Kind::S3Folders | Kind::WebDav | Kind::WebDavFolders => {
            let Repair::PutBack {
                files,
                record,
                after,
            } = &repair
            else {
                panic!("the record is written again: {repair:?}")
            };
            assert!(files.is_empty() && *record, "{repair:?}");
            assert!(matches!(after, Verification::Intact(_)), "{after:?}");
            assert_eq!(env.identifier(&ds.1).await, recorded, "the same identifier");
            assert_eq!(env.records().await, records, "one record, as before");
        }
        _ => {
            let Repair::NothingSent { why: Some(why), .. } = &repair else {
                panic!("no record is written where the server mints identifiers: {repair:?}")
            };
            assert!(why.contains("does not write a second record"), "{why}");
            assert_eq!(env.records().await, records - 1, "none written");
        }
    }
}

pub async fn repair_puts_back_a_lost_file_and_leaves_the_record_alone(kind: Kind) {
    assert!(kind.stores_files(), "only for targets that hold files");
    let repaired = |lab: &Lab| {
        lab.folder(
            "repaired",
            &[("lost.csv", b"1,2,3\n"), ("kept.txt", b"kept")],
        )
    };
    let Deposited {
        lab: _lab,
        env,
        ds,
        jobs,
        recorded,
        document,
        ..
    } = Deposited::of(kind, repaired, "Repaired").await;
    env.tamper("lost.csv", &Sha256Hex::of(b"1,2,3\n"), None)
        .await;
    let records = env.records().await;

    let repair = repair_on(&env, &jobs[0], &document, ReadBack::Sizes).await;
    match env.target.files_can_be_put_back() {
        Ok(()) => {
            let Repair::PutBack { files, after, .. } = &repair else {
                panic!("the lost file is sent again: {repair:?}")
            };
            assert_eq!(files, &["lost.csv"]);
            assert!(matches!(after, Verification::Intact(_)), "{after:?}");
            // Every byte is back, under the record Lodge recorded, which is the only one.
            let held = env
                .target
                .holdings(&ds.1, &document, ReadBack::Bytes, &quiet())
                .await
                .unwrap();
            assert_eq!(held.discrepancies(&document, &recorded), []);
        }
        Err(why) => {
            assert!(kind.is_invenio(), "{kind:?}: {why}");
            assert_eq!(
                repair,
                Repair::NothingSent {
                    found: Verification::Damaged(vec![Discrepancy::FileMissing {
                        path: "lost.csv".into()
                    }]),
                    why: Some(why.to_string())
                }
            );
        }
    }
    assert_eq!(env.records().await, records, "no record written");
}

pub async fn repair_does_not_overwrite_other_bytes_under_a_files_name(kind: Kind) {
    assert!(kind.stores_files(), "only for targets that hold files");
    let overwritten = |lab: &Lab| {
        lab.folder(
            "overwritten",
            &[("lost.csv", b"4,5,6\n"), ("changed.txt", b"mine")],
        )
    };
    let Deposited {
        lab: _lab,
        env,
        jobs,
        document,
        ..
    } = Deposited::of(kind, overwritten, "Overwritten").await;
    env.tamper("lost.csv", &Sha256Hex::of(b"4,5,6\n"), None)
        .await;
    env.tamper("changed.txt", &Sha256Hex::of(b"mine"), Some(b"MINE"))
        .await;

    let repair = repair_on(&env, &jobs[0], &document, ReadBack::Bytes).await;
    let changed = Discrepancy::BytesDiffer {
        path: "changed.txt".into(),
        found: Sha256Hex::of(b"MINE"),
    };
    if env.target.files_can_be_put_back().is_err() {
        assert!(matches!(repair, Repair::NothingSent { .. }), "{repair:?}");
        return;
    }
    let Repair::PutBack { files, after, .. } = &repair else {
        panic!("the lost file is sent again: {repair:?}")
    };
    assert_eq!(files, &["lost.csv"]);
    assert_eq!(after, &Verification::Damaged(vec![changed.clone()]));
    // Only other bytes are left: nothing is sent, and the person is told what to do.
    let again = repair_on(&env, &jobs[0], &document, ReadBack::Bytes).await;
    let Repair::NothingSent {
        found,
        why: Some(why),
    } = &again
    else {
        panic!("nothing a conditional write can put back: {again:?}")
    };
    assert_eq!(found, &Verification::Damaged(vec![changed]));
    assert!(why.contains("remove that file on the server"), "{why}");
}

/// What an upload cut off leaves on a server that writes a PUT's body as it arrives
/// (wsgidav, and many WebDAV servers): the first part of a file under the blob's name. The
/// next deposit finds it short and sends the file again whole, a small file (sent straight
/// away, answered "already there") and a large one (looked up first) alike, and the deposit
/// checks intact.
pub async fn a_file_cut_off_by_an_interrupted_upload_is_sent_again_whole(kind: Kind) {
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let small = big_bytes(7, 500_000);
    let large = big_bytes(8, BIG);
    let folder = lab.folder("cut", &[("small.bin", &small), ("large.bin", &large)]);
    let ds = add(&store, &folder, &metadata("Cut off"));
    let document = store.document(&ds.1).unwrap().unwrap();
    for (name, bytes) in [("small.bin", &small), ("large.bin", &large)] {
        let cut = Some(&bytes[..100_000]);
        env.tamper_in(&ds.1, &document, name, &Sha256Hex::of(bytes), cut)
            .await;
    }

    let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    assert_eq!(
        deletes_sent(&env).len(),
        2,
        "each part left by a cut-off upload was found, and replaced"
    );
    for bytes in [&small, &large] {
        assert!(
            env.blob(&Sha256Hex::of(bytes)).await == *bytes,
            "the file is whole on the server"
        );
    }
    let check = check_on(&env, &jobs[0], &document, ReadBack::Bytes).await;
    assert!(matches!(check, Verification::Intact(_)), "{check:?}");
}

/// On such a server, a file found short may be another process's upload of it still
/// arriving (a lab's other machine depositing a dataset that shares it): it is watched, and
/// left to its writer while it grows, never deleted under it. The deposit lands once the
/// file is whole.
pub async fn a_file_still_arriving_from_another_upload_is_left_to_it(kind: Kind) {
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let shared = big_bytes(5, 800_000);
    let digest = Sha256Hex::of(&shared);
    let folder = lab.folder("arriving", &[("shared.bin", &shared)]);
    let ds = add(&store, &folder, &metadata("Still arriving"));
    let document = store.document(&ds.1).unwrap().unwrap();
    let arrived = |end: usize| {
        env.tamper_in(
            &ds.1,
            &document,
            "shared.bin",
            &digest,
            Some(&shared[..end]),
        )
    };
    arrived(100_000).await;

    // The other upload: 100,000 bytes more every 150 ms, whole after about a second.
    let other_upload = async {
        for end in (200_000..=800_000).step_by(100_000) {
            tokio::time::sleep(std::time::Duration::from_millis(150)).await;
            arrived(end).await;
        }
    };
    let datasets = [ds];
    let (jobs, ()) = tokio::join!(
        deposit(&store, &env.target, &datasets, fast_config()),
        other_upload
    );
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let deleted = deletes_sent(&env);
    assert!(deleted.is_empty(), "left to its writer: {deleted:?}");
    // Whether the deposit saw it whole a second later or waited for it on a later attempt
    // ("is still arriving from another upload") depends on the timing; either way it lands.
    assert!(env.blob(&digest).await == shared, "the file is whole");
}

/// A deposit made before Lodge checked such files (its record written over a file left
/// short) is damaged; a repair sends the file again whole.
pub async fn repair_replaces_a_file_left_short_by_a_cut_off_upload(kind: Kind) {
    let whole = big_bytes(9, 300_000);
    let folder = |lab: &Lab| lab.folder("short", &[("short.bin", &whole[..])]);
    let Deposited {
        lab: _lab,
        env,
        jobs,
        document,
        ..
    } = Deposited::of(kind, folder, "Short").await;
    let digest = Sha256Hex::of(&whole);
    env.tamper("short.bin", &digest, Some(&whole[..1000])).await;
    let short = Discrepancy::SizeDiffers {
        path: "short.bin".into(),
        expected: 300_000,
        found: 1000,
    };
    let found = check_on(&env, &jobs[0], &document, ReadBack::Sizes).await;
    assert_eq!(found, Verification::Damaged(vec![short]));

    let repair = repair_on(&env, &jobs[0], &document, ReadBack::Bytes).await;
    let Repair::PutBack { files, after, .. } = &repair else {
        panic!("the short file is sent again: {repair:?}")
    };
    assert_eq!(files, &["short.bin"]);
    assert!(matches!(after, Verification::Intact(_)), "{after:?}");
    assert!(env.blob(&digest).await == whole, "the file is whole again");
}

/// A deleted bucket is not a lost record and lost files: verify says the bucket is gone,
/// naming it, and leaves the deposit unknown rather than damaged (a repair could only be
/// refused); a deposit to it is refused once, naming it too.
pub async fn a_deleted_bucket_is_named_by_verify_not_taken_for_lost_files(kind: Kind) {
    let Deposited {
        lab,
        env,
        store,
        jobs,
        document,
        ..
    } = Deposited::of(kind, |lab| lab.numbered_folder(31), "Bucket gone").await;
    env.delete_bucket().await;
    let names_the_bucket =
        |said: &str| said.contains("bucket 'lodge-") && said.contains("does not exist");
    for read in [ReadBack::Sizes, ReadBack::Bytes] {
        let found = check_on(&env, &jobs[0], &document, read).await;
        let Verification::Unknown(why) = &found else {
            panic!("not damaged, unknown: {found:?}")
        };
        assert!(names_the_bucket(why), "{why}");
    }
    let other = add(
        &store,
        &lab.numbered_folder(32),
        &metadata("After the bucket"),
    );
    let after = deposit(&store, &env.target, &[other], fast_config()).await;
    assert_eq!(after[0].state, JobState::Rejected, "{:?}", after[0]);
    assert_eq!(after[0].attempts, 1, "not retried");
    let error = after[0].last_error.clone().unwrap();
    assert!(names_the_bucket(&error), "{error}");
}

/// On a store that keeps whole objects (S3), a blob of another size already under a file's
/// digest (written there by another tool) is not this file: the deposit is refused naming
/// it, a small file (sent straight away, answered "already there") and a large one (looked
/// up first) alike, and no record is written over it.
pub async fn a_blob_of_another_size_under_a_files_digest_is_refused_not_taken(kind: Kind) {
    for (name, len) in [("small.bin", 400_000), ("large.bin", BIG)] {
        let lab = Lab::new();
        let env = Env::new(kind, &lab).await;
        let store = lab.store("lodge.db");
        let bytes = big_bytes(11, len);
        let folder = lab.folder("squatted", &[(name, &bytes)]);
        let ds = add(&store, &folder, &metadata("Squatted"));
        env.tamper(name, &Sha256Hex::of(&bytes), Some(&bytes[..1000]))
            .await;

        let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
        assert_eq!(jobs[0].state, JobState::Rejected, "{name}: {:?}", jobs[0]);
        let error = jobs[0].last_error.clone().unwrap_or_default();
        assert!(
            error.contains(&format!("holds 1000 bytes, not {len} ({name}); remove it")),
            "{error}"
        );
        assert_eq!(env.records().await, 0, "no record over a damaged file");
    }
}

/// A repair on a target that leaves a file of another size under its digest's name (S3's
/// default layout): the lost file is sent again all the same, the repair says so (it said
/// "stopped while sending" the lost file, which was back), and what is left is the
/// other-size file, with its fix.
pub async fn a_repair_stopped_by_a_file_of_another_size_says_what_it_sent_before(kind: Kind) {
    let bytes: (&[u8], &[u8]) = (b"1,2,3\n", b"measured\n");
    let Deposited {
        lab: _lab,
        env,
        ds,
        jobs,
        document,
        ..
    } = Deposited::of(
        kind,
        |lab: &Lab| lab.folder("mixed", &[("lost.csv", bytes.0), ("short.csv", bytes.1)]),
        "Mixed",
    )
    .await;
    env.tamper("lost.csv", &Sha256Hex::of(bytes.0), None).await;
    env.tamper("short.csv", &Sha256Hex::of(bytes.1), Some(b"4 by"))
        .await;

    let repair = repair_on(&env, &jobs[0], &document, ReadBack::Sizes).await;
    let Repair::SendFailed {
        files,
        sent,
        error,
        found,
    } = &repair
    else {
        panic!("the other-size file stops it: {repair:?}")
    };
    assert_eq!(sent, &["lost.csv"], "{repair:?}");
    assert!(files.is_empty(), "{repair:?}");
    assert!(
        error.contains("holds 4 bytes, not 9 (short.csv)"),
        "{error}"
    );
    let Verification::Damaged(left) = found else {
        panic!("still damaged: {found:?}")
    };
    assert!(
        left.iter().all(|d| d.file() == Some("short.csv")),
        "only the other-size file is left: {left:?}"
    );
    assert!(
        env.blob(&Sha256Hex::of(bytes.0)).await == bytes.0,
        "lost.csv is back"
    );
    let check = check_on(&env, &jobs[0], &document, ReadBack::Sizes).await;
    assert_eq!(&check, found, "{ds:?}");
}

/// A multipart upload left open by a process killed mid-upload (its parts billed until a
/// lifecycle rule removes them) is aborted when a later deposit completes the same blob.
/// It stayed open for good.
pub async fn an_upload_left_open_by_a_killed_process_is_aborted_once_the_blob_lands(kind: Kind) {
    assert_eq!(kind, Kind::S3, "multipart uploads are S3's");
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let size = (2 * PART_SIZE) as usize;
    assert!(size as u64 >= MULTIPART_THRESHOLD);
    let bytes = big_bytes(13, size);
    let digest = Sha256Hex::of(&bytes);
    let folder = lab.folder("left-open", &[("large.bin", &bytes)]);
    let ds = add(&store, &folder, &metadata("Left open"));
    // What a killed `lodge deposit` leaves: an upload of the blob, begun and never ended.
    env.open_multipart_upload(&digest).await;
    assert_eq!(env.open_uploads(&digest).await, 1);

    let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    assert_eq!(env.blob(&digest).await.len(), size);
    assert_eq!(
        env.open_uploads(&digest).await,
        0,
        "the one left open is aborted"
    );
}

/// On a server that ignores case in names, a dataset's `Data.csv` and `data.csv` are one
/// file where files are kept by name (`?layout=folders`): the second's conditional write
/// is answered "already there". Neither is taken for the other, whatever their sizes, nor
/// written over it: the deposit is refused naming both, and no record is written. A server
/// that keeps case keeps both.
pub async fn files_differing_only_in_case_on_a_server_that_ignores_case_are_refused(kind: Kind) {
    assert!(kind.keeps_folders(), "files kept by name");
    for (upper, lower) in [
        (&b"id,value\n1,2\n"[..], &b"id,value\n3,4\n"[..]),
        (&b"id,value\n1,2\n"[..], &b"id,value\n1,2\n3,4\n5,6\n"[..]),
    ] {
        let lab = Lab::new();
        let env = Env::new(kind, &lab).await;
        env.proxy.ignore_case_in_names();
        let store = lab.store("lodge.db");
        let folder = lab.folder("cased", &[("Data.csv", upper), ("data.csv", lower)]);
        let ds = add(&store, &folder, &metadata("Cased"));
        let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
        assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
        let error = jobs[0].last_error.clone().unwrap();
        assert!(
            error.contains("Data.csv") && error.contains("data.csv") && error.contains("case"),
            "names both files and why: {error}"
        );
        assert_eq!(
            env.records().await,
            0,
            "no record of a deposit missing a file"
        );
    }
    // A server that keeps case keeps both: nothing is refused there.
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let folder = lab.folder("cased", &[("Data.csv", b"1\n"), ("data.csv", b"2\n")]);
    let ds = add(&store, &folder, &metadata("Cased"));
    let jobs = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let kept = env.dataset_files().await;
    for name in ["/Data.csv", "/data.csv"] {
        assert!(kept.iter().any(|p| p.ends_with(name)), "{name} in {kept:?}");
    }
}

/// A deposit stopped while its large file is on its way (Ctrl-C, the window closed or
/// paused) aborts the multipart upload it began: nothing is left open on the server to be
/// billed until a lifecycle rule finds it, even if that file is never deposited again.
pub async fn an_upload_begun_by_a_stopped_deposit_is_aborted(kind: Kind) {
    assert_eq!(kind, Kind::S3, "multipart uploads are S3's");
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let store = lab.store("lodge.db");
    let bytes = big_bytes(17, (2 * PART_SIZE) as usize);
    let digest = Sha256Hex::of(&bytes);
    let folder = lab.folder("stopped", &[("large.bin", &bytes)]);
    let ds = add(&store, &folder, &metadata("Stopped"));
    // The second part hangs on its way out; the deposit is stopped once it does.
    let (part_reached, stop) = (CancellationToken::new(), CancellationToken::new());
    env.proxy.add_rule(Rule {
        method: "PUT",
        path_contains: "partNumber=2".into(),
        action: Action::Stall(part_reached.clone()),
        times: 1,
    });
    let batch = deposit_until_stopped(&store, &env, ds, &stop);
    part_reached.cancelled().await;
    assert_eq!(env.open_uploads(&digest).await, 1, "the upload is open");
    stop.cancel();
    let stopped = batch.await.unwrap().unwrap();
    assert!(!stopped[0].state.is_terminal(), "{:?}", stopped[0]);
    lodge::targets::cleanup::finish(std::time::Duration::from_secs(10)).await;
    assert_eq!(
        env.open_uploads(&digest).await,
        0,
        "the stopped deposit's upload is aborted"
    );
}

/// "Open record" in the window: the link a web browser opens for a deposit's record shows
/// the record to someone holding none of Lodge's credentials, or has the server ask for a
/// password (WebDAV's Basic challenge, which a browser turns into a prompt). A private S3
/// bucket refuses its record's own URL (moto does, as AWS does), so S3's link is signed.
pub async fn the_record_link_a_browser_opens_shows_the_record(kind: Kind) {
    let d = Deposited::of(kind, |lab| lab.numbered_folder(31), "Opened").await;
    let url = d.jobs[0]
        .url
        .clone()
        .expect("a landed deposit has a record URL");
    let mut engine = Engine::new(d.store.clone(), fast_config()).unwrap();
    engine.add_target(d.env.target.clone()).unwrap();
    let link = engine.link_to_open(&url);

    let resp = reqwest::get(&link).await.unwrap();
    let status = resp.status().as_u16();
    let challenge = resp
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = resp.text().await.unwrap();
    match status {
        200 => assert!(
            body.contains(&d.recorded) || body.contains(&d.ds.1.to_string()),
            "{link} shows neither the record's identifier {} nor its key: {body}",
            d.recorded
        ),
        401 => assert!(
            challenge.to_ascii_lowercase().starts_with("basic"),
            "{link}: 401 without a Basic challenge a browser would ask for ({challenge:?})"
        ),
        _ => panic!("a browser opening {link} (the record {url}) gets HTTP {status}: {body}"),
    }
}

/// `?layout=folders`: a person browsing the bucket or the share finds the dataset in
/// `datasets/TITLE-KEY12/` with its files under their own names and folders (spaces, `#`
/// `(`, `%`, `?` and letters beyond ASCII included), two identical files both there, nothing under
/// `blobs/`; a verify by bytes reads them there, and the same key deposited again makes no
/// second folder.
pub async fn each_file_is_kept_under_its_own_name_in_the_datasets_folder(kind: Kind) {
    assert!(kind.keeps_folders(), "only for the folders layout");
    let files: &[(&str, &[u8])] = &[
        ("README.md", b"# Soil moisture\n"),
        ("raw/site A (1) #1.csv", b"t,v\n1,0.31\n"),
        ("raw/Ölmühle/copy.csv", b"t,v\n1,0.31\n"),
        ("notes/100% done?.txt", b"yes"),
    ];
    let Deposited {
        lab,
        env,
        store,
        ds,
        jobs,
        document,
        ..
    } = Deposited::of(
        kind,
        |lab| lab.folder("soil", files),
        "Soil moisture, site A (2025)",
    )
    .await;
    let folder = format!(
        "datasets/Soil-moisture-site-A-2025-{}",
        &ds.1.to_hex()[..12]
    );
    let mut expected: Vec<String> = files
        .iter()
        .map(|(path, _)| format!("{folder}/{path}"))
        .collect();
    expected.sort();
    assert_eq!(env.dataset_files().await, expected);
    if kind.is_s3() {
        for (path, bytes) in files {
            assert_eq!(
                env.s3_object(&format!("dep/{folder}/{path}")).await,
                *bytes,
                "{path}"
            );
        }
    }
    let log = env.proxy.log();
    assert!(
        !log.iter().any(|(_, path)| path.contains("/blobs/")),
        "nothing is kept by digest: {log:?}"
    );
    let checked = check_on(&env, &jobs[0], &document, ReadBack::Bytes).await;
    assert!(matches!(checked, Verification::Intact(_)), "{checked:?}");

    // Another machine (another store) with a copy of the folder under another name: the
    // same key, so the same folder on the server, which already has it all.
    let elsewhere = lab.store("elsewhere.db");
    let copy = add(
        &elsewhere,
        &lab.folder("soil copy", files),
        &metadata("Soil moisture, site A (2025)"),
    );
    assert_eq!(copy.1, ds.1);
    let jobs = deposit(&elsewhere, &env.target, &[copy], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Existing, "{:?}", jobs[0]);
    assert_eq!(env.dataset_files().await, expected, "no second folder");
    assert_eq!(env.records().await, 1);
    drop(store);
}

/// A file store's two layouts on one prefix are two targets, the layout being part of the
/// identity: a key deposited in the other layout is not found by this one's look-up, and a
/// deposit here sends its files where this layout keeps them and makes its own record (it
/// took the other's record for its own, with its folder left empty). Each verifies whole by
/// its bytes, and a replay of either makes no request.
pub async fn a_deposit_in_the_other_layout_of_the_prefix_is_not_taken_for_this_ones(kind: Kind) {
    let lab = Lab::new();
    let env = Env::new(kind, &lab).await;
    let other = env.target_in_the_other_layout();
    assert_ne!(other.scope_id(), env.target.scope_id());
    let store = lab.store("lodge.db");
    let ds = add(
        &store,
        &lab.folder(
            "soil",
            &[
                ("raw/site A.csv", b"t,v\n1,0.31\n"),
                ("README.md", b"# Soil\n"),
            ],
        ),
        &metadata("Soil moisture"),
    );
    let document = store.document(&ds.1).unwrap().unwrap();

    let there = deposit(&store, &other, &[ds], fast_config()).await;
    assert_eq!(there[0].state, JobState::Deposited, "{:?}", there[0]);
    assert_eq!(
        env.target.lookup(&ds.1).await.unwrap(),
        None,
        "the other layout's record is not this layout's"
    );

    let here = deposit(&store, &env.target, &[ds], fast_config()).await;
    assert_eq!(here[0].state, JobState::Deposited, "{:?}", here[0]);
    assert_ne!(here[0].identifier, there[0].identifier);
    if kind.keeps_folders() {
        let folder = format!("datasets/Soil-moisture-{}", &ds.1.to_hex()[..12]);
        assert_eq!(
            env.dataset_files().await,
            [
                format!("{folder}/README.md"),
                format!("{folder}/raw/site A.csv")
            ],
            "the files are in the dataset's folder"
        );
    }
    let checked = check_on(&env, &here[0], &document, ReadBack::Bytes).await;
    assert!(matches!(checked, Verification::Intact(_)), "{checked:?}");
    let checked = check_deposit(
        other.as_ref(),
        &there[0],
        &document,
        ReadBack::Bytes,
        &quiet(),
    )
    .await;
    assert!(matches!(checked, Verification::Intact(_)), "{checked:?}");

    let sent = env.proxy.log().len();
    for target in [&env.target, &other] {
        let again = deposit(&store, target, &[ds], fast_config()).await;
        assert_eq!(again[0].state, JobState::Existing, "{:?}", again[0]);
    }
    assert_eq!(env.proxy.log().len(), sent, "replays make no request");
    drop(store);
}

/// A deposit to the folders layout made before its records were kept apart from the default
/// layout's (at `records/KEY.json`, recorded so) still checks whole, by its bytes; a look-up
/// does not take that record for this layout's, as it may be the other layout's.
pub async fn a_folders_deposit_recorded_where_records_were_kept_before_checks_whole(kind: Kind) {
    assert!(kind.keeps_folders(), "only for the folders layout");
    let Deposited {
        env,
        store,
        ds,
        jobs,
        document,
        ..
    } = Deposited::of(kind, |lab| lab.numbered_folder(2), "Kept before").await;
    env.move_record_where_it_was_kept_before(&ds.1).await;
    let mut job = jobs[0].clone();
    let recorded = job.identifier.clone().unwrap();
    assert!(
        recorded.ends_with(&format!("/records/{}.folders.json", ds.1)),
        "{recorded}"
    );
    job.identifier = Some(recorded.replace(".folders.json", ".json"));

    let checked = check_on(&env, &job, &document, ReadBack::Bytes).await;
    assert!(matches!(checked, Verification::Intact(_)), "{checked:?}");
    assert_eq!(env.target.lookup(&ds.1).await.unwrap(), None);
    drop(store);
}

/// A server that checks signatures (moto with its IAM, as AWS) takes a deposit whose files
/// are named with every kind of punctuation, under a prefix with `+` and `(`, in the
/// folders layout: each object key is encoded in its URL as the server encodes it before
/// checking the signature. A check by bytes reads them back.
pub async fn file_names_with_punctuation_are_signed_as_the_server_reads_them() {
    use lodge::targets::s3::{S3Location, S3Target};
    let (endpoint, user) = crate::support::servers::start_moto_checking_signatures().await;
    let location = S3Location::parse(
        "s3://lab-signed/runs+(2026)?layout=folders",
        Some(&endpoint),
        None,
    )
    .unwrap();
    let (status, body) = crate::support::s3::request_as(
        &user,
        reqwest::Method::PUT,
        location.bucket_url(),
        Vec::new(),
    )
    .await;
    assert!(
        status.is_success(),
        "create the bucket: HTTP {status}: {body:?}"
    );
    let target: Arc<dyn lodge::targets::Target> =
        Arc::new(S3Target::new("signed", location, user, crate::env::s3_options()).unwrap());

    let lab = Lab::new();
    let store = lab.store("lodge.db");
    let files: &[(&str, &[u8])] = &[
        ("raw (v2)/site A, b=2+c;d@e!.csv", b"t,v\n1,2\n"),
        ("notes ~'$&*[x].txt", b"notes"),
        ("Ölmühle 100%.txt", b"oil"),
    ];
    let ds = add(
        &store,
        &lab.folder("odd", files),
        &metadata("Odd names (2026)"),
    );
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let document = store.document(&ds.1).unwrap().unwrap();
    let checked = check_deposit(
        target.as_ref(),
        &jobs[0],
        &document,
        ReadBack::Bytes,
        &quiet(),
    )
    .await;
    assert!(matches!(checked, Verification::Intact(_)), "{checked:?}");
    // (Open record's presigned link is not tried here: moto checking signatures reads
    // them from the Authorization header alone. The link is checked against moto
    // without auth, in the_record_link_a_browser_opens_shows_the_record.)
}
