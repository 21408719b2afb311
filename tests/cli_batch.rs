//! The command line as a researcher uses it: real `lodge` processes, a real sandbox on
//! loopback, real SQLite files — including `kill -9` in the middle of a batch.

mod support;

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use lodge::content::Affiliation;
use lodge::sandbox::FaultConfig;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill_9_mid_batch_then_rerun_deposits_every_dataset_exactly_once() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox(
            "sbx",
            FaultConfig {
                drop_after_commit: 0.3,
                latency_ms: 15,
                seed: Some(2026),
                ..FaultConfig::default()
            },
        )
        .await;
    let db = lab.path("lodge.db");
    add_numbered(&lab, 50);
    let url = sandbox.target_url();
    let deposit_cmd = || {
        let mut cmd = lodge(&db);
        cmd.args(["deposit", "--target", &url, "--all", "--max-attempts", "50"])
            .args(FAST)
            .args(["--lease", "3s"]);
        cmd
    };

    let mut first = deposit_cmd()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while sandbox.stats().records < 15 {
        assert!(started.elapsed() < Duration::from_secs(60), "no progress");
        assert!(
            first.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    first.kill().unwrap(); // SIGKILL: no cleanup of any kind
    first.wait().unwrap();
    let records_at_kill = sandbox.stats().records;
    assert!(records_at_kill < 50, "the kill must land mid-batch");

    let again = run(deposit_cmd()).await;
    assert!(again.status.success(), "{}", text(&again));

    let status = lodge_with(&db, &["status", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let items = json["items"].as_array().unwrap();
    assert_eq!(items.len(), 50);
    let mut identifiers = HashSet::new();
    for item in items {
        let state = item["state"].as_str().unwrap();
        assert!(state == "deposited" || state == "existing", "{item}");
        let key = item["key"].as_str().unwrap();
        let server = get_json(&sandbox, &format!("/records/{key}")).await;
        assert_eq!(
            item["identifier"], server["identifier"],
            "local = server for {key}"
        );
        identifiers.insert(item["identifier"].as_str().unwrap().to_string());
    }
    assert_eq!(identifiers.len(), 50);
    let stats = sandbox.stats();
    assert_eq!(stats.records, 50, "exactly one record per dataset");
    assert_eq!(stats.creates, 50, "no create was ever repeated");
}

/// `datasets` datasets, and a `lodge deposit --all` of them with `concurrency` in flight
/// into a sandbox that takes 200 ms a request, returned once its first request arrived:
/// a batch caught mid-way, for what a test does to it then.
async fn batch_in_flight(
    datasets: usize,
    concurrency: &str,
) -> (
    Lab,
    lodge::sandbox::RunningSandbox,
    PathBuf,
    std::process::Child,
) {
    let lab = Lab::new();
    let latency = FaultConfig {
        latency_ms: 200,
        ..FaultConfig::default()
    };
    let sandbox = lab.sandbox("sbx", latency).await;
    let db = lab.path("lodge.db");
    add_numbered(&lab, datasets);
    let child = lodge(&db)
        .args(["deposit", "--target", &sandbox.target_url(), "--all"])
        .args(["--concurrency", concurrency])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while sandbox.stats().requests == 0 {
        assert!(started.elapsed() < Duration::from_secs(30), "nothing sent");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    (lab, sandbox, db, child)
}

/// Datasets 0 to `count` - 1 of the lab's numbered folders, added to its `lodge.db` as
/// "Dataset N".
fn add_numbered(lab: &Lab, count: usize) {
    let store = lab.store("lodge.db");
    for n in 0..count {
        add(
            &store,
            &lab.numbered_folder(n),
            &metadata(&format!("Dataset {n}")),
        );
    }
}

/// The output of `child`, sent SIGTERM (what `timeout`, cron and systemd send) and ended.
async fn terminated(child: std::process::Child) -> std::process::Output {
    let term = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    output_of(child).await
}

/// The output of `child`, once it has ended.
async fn output_of(child: std::process::Child) -> std::process::Output {
    tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap()
}

/// SIGTERM (what `timeout`, cron and systemd send) stops a batch as Ctrl-C does: the items
/// in flight go back on the queue, none is left "running" with no process behind it, the
/// exit status is 130 (as a shell's after Ctrl-C, told apart from a deposit that failed),
/// and the next run finishes the batch with one record each.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_mid_batch_puts_the_items_in_flight_back_on_the_queue() {
    let (_lab, sandbox, db, child) = batch_in_flight(12, "4").await;
    let url = sandbox.target_url();
    let out = terminated(child).await;
    assert_eq!(
        out.status.code(),
        Some(130),
        "stopped before all landed: {}",
        text(&out)
    );
    assert!(
        text(&out).contains("stopping: items in flight go back on the queue"),
        "{}",
        text(&out)
    );
    // Each item left says the deposit that sends it (what `retry` queued, a second `retry`
    // would not see: it is no longer failed).
    assert!(
        text(&out).contains(&format!("not finished; `lodge deposit --target {url} ")),
        "{}",
        text(&out)
    );
    let status = lodge_with(&db, &["status", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    for item in json["items"].as_array().unwrap() {
        assert_ne!(item["state"], "running", "{item}");
    }

    let again = lodge_with(&db, &["deposit", "--target", &url, "--all"]).await;
    assert!(again.status.success(), "{}", text(&again));
    assert_eq!(sandbox.stats().records, 12);
}

/// `retry --all-failed` over jobs of two targets names the target of each line: the same
/// dataset may land on both, and two lines "deposited ds001" would not say which is which.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_retry_over_two_targets_names_each_lines_target() {
    let lab = Lab::new();
    let first = lab.sandbox("first", FaultConfig::default()).await;
    let second = lab.sandbox("second", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    add_numbered(&lab, 1);
    every_deposit_fails_once(&first, &db).await;
    every_deposit_fails_once(&second, &db).await;
    let out = lodge_with(&db, &["retry", "--all-failed"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    for sandbox in [&first, &second] {
        assert!(
            t.contains(&format!("deposited ds000 at {} -> ", sandbox.target_url())),
            "{t}"
        );
    }
    // One target: no need to say it on each line.
    add_numbered(&lab, 2);
    let out = lodge_with(&db, &["deposit", "--all", "--target", &first.target_url()]).await;
    let t = text(&out);
    assert!(t.contains("deposited ds001 -> "), "{t}");
}

/// A `lodge retry` stopped mid-way leaves what it re-queued on the queue, where a second
/// `retry` (which re-queues failed jobs) would not find it: the stop says each item left is
/// named with the deposit that sends it, and is; the status is 130.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stopped_retry_names_the_deposit_that_sends_what_it_left() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    add_numbered(&lab, 8);
    every_deposit_fails_once(&sandbox, &db).await;
    sandbox.set_faults(FaultConfig {
        latency_ms: 300,
        ..FaultConfig::default()
    });
    let before = sandbox.stats().requests;
    let child = lodge(&db)
        .args(["retry", "--all-failed", "--concurrency", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while sandbox.stats().requests == before {
        assert!(started.elapsed() < Duration::from_secs(30), "nothing sent");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let out = terminated(child).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(130), "{t}");
    assert!(
        t.contains(
            "stopping: items in flight go back on the queue (each left is named below with \
             the `lodge deposit` that sends it)"
        ),
        "{t}"
    );
    let url = sandbox.target_url();
    assert!(
        t.contains(&format!("not finished; `lodge deposit --target {url} ")),
        "{t}"
    );
    // And once for them all: the one command that sends every item left, which does.
    let all = t
        .lines()
        .find(|l| l.starts_with("to send the ") && l.contains(" not finished at "))
        .and_then(|l| l.split('`').nth(1))
        .unwrap_or_else(|| panic!("no one command for all in:\n{t}"));
    let args: Vec<&str> = all.split(' ').skip(1).collect();
    assert_eq!(args[..3], ["deposit", "--target", url.as_str()], "{all}");
    // A target given by URL (saved nowhere) is none the window can pick: `status` names
    // the deposit that sends what waits for it, not the window.
    let status = text(&lodge_with(&db, &["status"]).await);
    assert!(
        status.contains(&format!("on the queue: `lodge deposit --target {url} ")),
        "{status}"
    );
    assert!(!status.contains("the window sends it"), "{status}");
    let out = lodge_with(&db, &args).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().records, 8);
}

/// `status` while a `lodge deposit` of this machine sends a job names that command and its
/// process, so a person knows which terminal to look in (or to stop), and says the items
/// waiting on the queue are that deposit's to send (not another to start).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn status_names_the_lodge_deposit_that_sends_a_running_job() {
    // One at a time, 200 ms a request: seconds of the batch left to look at.
    let (_lab, sandbox, db, child) = batch_in_flight(8, "1").await;
    let sender = format!(
        "held by lodge deposit (process {} on {}), which is sending it or sends it next",
        child.id(),
        lodge::store::this_host()
    );
    let t = text(&lodge_with(&db, &["status"]).await);
    assert!(t.contains(&sender), "{t}");
    // What waits on the queue is said to be that deposit's to send, not another's to start.
    assert!(
        t.contains(&format!(
            "on the queue of {}, which lodge deposit (process {} on {}) is working on: it \
             sends it in its turn if that deposit was given it (if not, `lodge deposit \
             --target {} ",
            sandbox.target_url(),
            child.id(),
            lodge::store::this_host(),
            sandbox.target_url()
        )),
        "{t}"
    );
    assert!(!t.contains("sends it now"), "{t}");
    // A --db given to `status` is added to the commands it suggests, not to the one named.
    let db_flag = db.to_string_lossy().into_owned();
    let out = lodge(&db)
        .env_remove("LODGE_DB")
        .args(["--db", &db_flag, "status"])
        .output()
        .unwrap();
    assert!(text(&out).contains(&sender), "{}", text(&out));
    let status = lodge_with(&db, &["status", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let running: Vec<&serde_json::Value> = (json["items"].as_array().unwrap().iter())
        .filter(|item| item["state"] == "running")
        .collect();
    assert!(!running.is_empty(), "{json}");
    assert_eq!(running[0]["sender"]["program"], "deposit", "{json}");
    assert_eq!(
        running[0]["sender"]["process"],
        format!("process {} on {}", child.id(), lodge::store::this_host())
    );
    let out = output_of(child).await;
    assert!(out.status.success(), "{}", text(&out));
}

/// A dataset removed while its batch runs ends rejected, said as its own: not as a deposit
/// shared with another dataset of the same key, and not sent from a copy of its folder
/// added meanwhile (removing it said not to deposit it; the copy was not asked to be).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dataset_removed_mid_batch_is_rejected_as_itself_not_as_a_shared_deposit() {
    let (_lab, sandbox, db, child) = batch_in_flight(3, "1").await;
    let copy = _lab.folder(
        "elsewhere/ds002-copy",
        &[
            ("data.csv", b"id,value\n2,4\n"),
            ("README.txt", b"shared readme"),
        ],
    );
    let (_, copy_key) = add(&_lab.store("lodge.db"), &copy, &metadata("Dataset 2"));
    let original = _lab.store("lodge.db").dataset(3).unwrap().unwrap().key;
    assert_eq!(
        Some(copy_key),
        original,
        "the copy has the removed dataset's key"
    );
    // Removed by someone else (on a shared database, perhaps at another machine): the
    // refusal says who.
    let mut remove = lodge(&db);
    remove.env("USER", "ada").args(["remove", "3"]);
    let removed = run(remove).await;
    assert!(removed.status.success(), "{}", text(&removed));
    let out = output_of(child).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let folder = _lab.numbered_folder(2);
    assert!(
        t.contains(&format!(
            "the dataset ds002 ({}) was removed from Lodge (by ada@{}): add its folder again",
            folder.display(),
            lodge::store::this_host()
        )),
        "{t}"
    );
    assert!(!t.contains("same key as"), "{t}");
    assert!(!t.contains("by another dataset's deposit"), "{t}");
    assert!(t.contains("2 deposited, 1 rejected"), "{t}");
    assert_eq!(sandbox.stats().records, 2);
}

/// Two copies of a folder (the same key) make one deposit: the dry run says so, as the
/// real run then does, instead of announcing two creates.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dry_run_says_two_copies_of_a_folder_share_one_deposit() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let one = lab.folder("outer", &[("a.csv", b"1")]);
    let two = lab.folder("outer-copy", &[("a.csv", b"1")]);
    add(&store, &one, &metadata("Outer"));
    add(&store, &two, &metadata("Outer"));
    let url = sandbox.target_url();

    let dry = lodge_with(&db, &["deposit", "--all", "--target", &url, "--dry-run"]).await;
    let t = text(&dry);
    assert!(dry.status.success(), "{t}");
    assert_eq!(t.matches("create   ").count(), 1, "{t}");
    assert!(
        t.contains("shares   outer-copy: outer's deposit (the same key"),
        "{t}"
    );
    // And its totals, as a real run ends.
    assert!(
        t.contains(
            "dry run: 1 would be created, 1 share another's deposit; nothing was sent or \
             recorded"
        ),
        "{t}"
    );

    let real = lodge_with(&db, &["deposit", "--all", "--target", &url]).await;
    assert!(real.status.success(), "{}", text(&real));
    assert!(
        text(&real).contains("one deposit for both"),
        "{}",
        text(&real)
    );
    assert_eq!(sandbox.stats().records, 1);
}

/// A folder moved and added again where it is now, with its old entry still on the list:
/// the two entries have one key, so one deposit, and the job sends the files from the
/// folder that is there instead of ending both rejected as "folder gone".
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_moved_folder_added_again_deposits_from_where_it_is_now_though_its_old_entry_queued_it() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let old = lab.folder("cores", &[("a.csv", b"1,2")]);
    add(&store, &old, &metadata("Cores"));
    let moved = lab.path("archive/cores");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    fs::rename(&old, &moved).unwrap();
    add(&store, &moved, &metadata("Cores"));
    let url = sandbox.target_url();

    // The dry run says which files the deposit would send, and refuses nothing.
    let dry = lodge_with(&db, &["deposit", "--all", "--target", &url, "--dry-run"]).await;
    let t = text(&dry);
    assert!(dry.status.success(), "{t}");
    assert!(
        t.contains(&format!(
            "(sending the files of cores at {}, which has the same key: this dataset's \
             folder is gone)",
            moved.display()
        )),
        "{t}"
    );
    assert!(!t.contains("refused"), "{t}");

    // The old entry comes first, so its dataset is the one that queues the shared job.
    let out = lodge_with(&db, &["deposit", "--all", "--target", &url]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("2 deposited"), "{t}");
    assert!(!t.contains("rejected"), "{t}");
    assert_eq!(sandbox.stats().records, 1);

    let log = text(&lodge_with(&db, &["log"]).await);
    assert!(
        log.contains(&format!(
            "sending the files of cores ({}), dataset 2, which has the same key: \
             the folder of cores ({}) is gone",
            moved.display(),
            old.display()
        )),
        "{log}"
    );

    // The one deposit is checked once, under the dataset whose job made it.
    let verify = lodge_with(&db, &["verify", "--all"]).await;
    let t = text(&verify);
    assert!(verify.status.success(), "{t}");
    assert!(t.contains("intact   dataset 2 cores on"), "{t}");
    assert!(!t.contains("dataset 1 cores on"), "{t}");
}

/// The copy that stands in for a gone folder is checked as the real run checks it: changed
/// since its scan, the dry run refuses it and names the rescan of the copy, not of the
/// dataset whose folder is gone (which could only fail).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dry_run_of_a_gone_folder_whose_copy_changed_names_the_rescan_of_the_copy() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let old = lab.folder("cores", &[("a.csv", b"1,2")]);
    add(&store, &old, &metadata("Cores"));
    let moved = lab.path("archive/cores");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    fs::rename(&old, &moved).unwrap();
    add(&store, &moved, &metadata("Cores"));
    fs::write(moved.join("a.csv"), b"1,2,3").unwrap();

    let url = sandbox.target_url();
    let dry = lodge_with(&db, &["deposit", "1", "--target", &url, "--dry-run"]).await;
    let t = text(&dry);
    assert_eq!(dry.status.code(), Some(1), "{t}");
    assert!(t.contains("`lodge scan 2`, then deposit again"), "{t}");
    assert!(!t.contains("lodge scan 1"), "{t}");
}

/// `remove` says what a dataset deposited stays in the log: `log --dataset N` still shows
/// a removed dataset's events, by its number.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_removed_datasets_log_is_still_shown_by_its_number() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("One"));
    let url = sandbox.target_url();
    assert!(
        lodge_with(&db, &["deposit", "--all", "--target", &url])
            .await
            .status
            .success()
    );
    assert!(lodge_with(&db, &["remove", "1"]).await.status.success());

    let out = lodge_with(&db, &["log", "--dataset", "1"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "dataset 1 was removed from the list; what it left:",
            "created sbx-000001",
            "removed ds001",
        ],
    );
    // A number no dataset ever had is still an error.
    let out = lodge_with(&db, &["log", "--dataset", "9"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // Named where a dataset on the list is wanted, the removed one is said to be removed
    // (it was "no dataset has that number"), with where its traces are.
    let out = lodge_with(&db, &["show", "1"]).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains(&format!(
            "dataset 1, ds001 ({}), was removed from the list: `lodge history 1` and `lodge \
             log --dataset 1` show what it left",
            lab.numbered_folder(1).display()
        )),
        "{t}"
    );
    // `status` lists the datasets on the list: it says where the removed one's deposits are.
    let out = lodge_with(&db, &["status", "1"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "dataset 1 was removed from the list, so `status` has no line for it; `lodge \
           history 1` lists what it deposited",
        ],
    );
    assert!(!t.contains("what it left:"), "{t}");
}

/// `remove` says what a dataset deposited stays in `lodge history`: there and in the log it
/// keeps its name, and its name (or folder) still picks its lines out.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_removed_datasets_history_and_log_keep_its_name_and_are_found_by_it() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("One"));
    add(&store, &lab.numbered_folder(2), &metadata("Two"));
    let url = sandbox.target_url();
    deposit_all(&db, &url).await;
    let removed = lodge_with(&db, &["remove", "ds001"]).await;
    assert!(removed.status.success(), "{}", text(&removed));

    let history = lodge_with(&db, &["history"]).await;
    let t = text(&history);
    assert!(history.status.success(), "{t}");
    assert_all(&t, &["ds001 (removed)", "ds002"]);
    assert!(!t.contains("ds002 (removed)"), "{t}");
    let json = lodge_with(&db, &["history", "--json"]).await;
    let rows: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let row = |dataset: i64| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["dataset"] == dataset)
            .unwrap_or_else(|| panic!("no job of dataset {dataset} in {rows}"))
            .clone()
    };
    assert_eq!(
        (row(1)["name"].clone(), row(1)["removed"].clone()),
        ("ds001".into(), true.into())
    );
    assert_eq!(
        (row(2)["name"].clone(), row(2)["removed"].clone()),
        ("ds002".into(), false.into())
    );

    // By its name, and by its folder, as before it was removed.
    let folder = lab.numbered_folder(1).display().to_string();
    for named in ["ds001", folder.as_str()] {
        let history = lodge_with(&db, &["history", named]).await;
        let t = text(&history);
        assert!(history.status.success(), "{t}");
        assert_all(
            &t,
            &[
                &format!("dataset 1 ds001 ({folder}) was removed from the list; what it left:"),
                "ds001 (removed)",
            ],
        );
        assert_eq!(t.matches(" job ").count(), 1, "{t}");
        let log = lodge_with(&db, &["log", "--dataset", named]).await;
        let t = text(&log);
        assert!(log.status.success(), "{t}");
        assert_all(&t, &["ds001 (removed): job 1 ", "removed ds001 ("]);
        assert!(!t.contains("ds002"), "{t}");
    }
    // A name no dataset ever had is still an error.
    let out = lodge_with(&db, &["history", "ds009"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no dataset matches"), "{}", text(&out));

    // Named where a dataset on the list is wanted, by its name or its folder (which is
    // still on disk), the removed one is said to be removed, as its number says: not "no
    // dataset matches", nor "not one of Lodge's datasets".
    for named in ["ds001", folder.as_str()] {
        for command in ["show", "scan", "remove"] {
            let out = lodge_with(&db, &[command, named]).await;
            let t = text(&out);
            assert_eq!(out.status.code(), Some(2), "{command} {named}: {t}");
            assert!(
                t.contains(&format!(
                    "dataset 1, ds001 ({folder}), was removed from the list: `lodge history 1` \
                     and `lodge log --dataset 1` show what it left; `lodge add` its folder"
                )),
                "{command} {named}: {t}"
            );
        }
    }
}

/// A folder taken off the list and added again takes up its metadata as it was: the same
/// files make the same key, and its deposit replays the record made before, rather than
/// ask for the metadata again and (typed a little differently) make a second record.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_removed_folder_added_again_takes_up_its_metadata_and_its_record() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(1);
    let (_, key) = add(&store, &folder, &metadata("One"));
    let url = sandbox.target_url();
    deposit_all(&db, &url).await;
    assert!(lodge_with(&db, &["remove", "1"]).await.status.success());

    let path = folder.to_string_lossy().into_owned();
    let out = lodge_with(&db, &["add", &path]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "metadata taken from dataset 1 (ds001), this folder's until it was removed from \
             the list",
            &format!("key {}", key.to_hex()),
        ],
    );
    assert!(!t.contains("metadata incomplete"), "{t}");
    let t = deposit_all(&db, &url).await;
    assert!(t.contains("recorded already: no request sent"), "{t}");
    assert_eq!(sandbox.stats().records, 1, "no second record");

    // Flags given with it still change what they name.
    assert!(lodge_with(&db, &["remove", "ds001"]).await.status.success());
    let out = lodge_with(&db, &["add", &path, "--title", "One, again"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    let show = text(&lodge_with(&db, &["show", "ds001"]).await);
    assert!(show.contains("One, again"), "{show}");
    assert!(!show.contains(&key.to_hex()[..12]), "another key: {show}");
}

/// A deposit run again leaves a replay job; `verify` checks the deposit that made the
/// record, and logs its finding under that job, the one `status` names.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn verify_logs_its_finding_under_the_job_that_made_the_record_not_a_replay() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("One"));
    let url = sandbox.target_url();
    for _ in 0..2 {
        deposit_all(&db, &url).await;
    }
    let history = store.history().unwrap();
    assert_eq!(history.len(), 2, "the deposit and its replay: {history:?}");
    let out = lodge_with(&db, &["verify", "--all"]).await;
    assert!(out.status.success(), "{}", text(&out));
    let verified = |job: i64| {
        store
            .events_for_job(job)
            .unwrap()
            .iter()
            .any(|e| e.kind == lodge::store::EventKind::Verified)
    };
    assert!(verified(1), "under the job that made the record");
    assert!(!verified(2), "not under the replay");
}

/// The same files deposited before under other metadata are noted when a folder is added
/// with them (naming the dataset whose deposit it was), not again at each rescan of it
/// unchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_same_data_deposited_under_other_metadata_is_noted_once_with_whose_it_was() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let files: &[(&str, &[u8])] = &[("data.csv", b"id\n1\n")];
    add(&store, &lab.folder("first", files), &metadata("First"));
    let url = sandbox.target_url();
    deposit_all(&db, &url).await;

    let second = lab.folder("second", files);
    let out = run({
        let mut c = lodge(&db);
        c.arg("add").arg(&second).args(["--title", "Second"]);
        c
    })
    .await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains(&format!(
            "note: the same data was already deposited under other metadata as sbx-000001 on \
             {url} (by first's deposit)"
        )),
        "{t}"
    );
    let t = text(&lodge_with(&db, &["scan", "second"]).await);
    assert!(t.contains("unchanged"), "{t}");
    assert!(!t.contains("the same data was already deposited"), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dry_run_sends_nothing_and_records_nothing() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("One"));
    let events_before = store.last_event_id().unwrap();

    let out = run({
        let mut c = lodge(&db);
        c.args([
            "deposit",
            "--dry-run",
            "--all",
            "--target",
            &sandbox.target_url(),
        ]);
        c
    })
    .await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("create   ds001"), "{}", text(&out));
    assert_eq!(sandbox.stats().requests, 0);
    assert_eq!(store.last_event_id().unwrap(), events_before);
    assert!(store.history().unwrap().is_empty(), "no job was queued");
    // The server was not asked either: it says so, and names the check that asks it.
    let test = format!("lodge target test {}", sandbox.target_url());
    assert!(
        text(&out).contains(&format!(
            "the target was not asked: `{test}` checks that it answers and takes the \
             credentials, without depositing"
        )),
        "{}",
        text(&out)
    );

    // A scanned file changed since: refused, naming the rescan, as the real run does.
    let folder = lab.numbered_folder(1);
    let file = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_file())
        .unwrap();
    std::fs::write(&file, "changed, and longer than it was\n").unwrap();
    let out = lodge_with(
        &db,
        &[
            "deposit",
            "--dry-run",
            "--all",
            "--target",
            &sandbox.target_url(),
        ],
    )
    .await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &["refused  ds001:", "— `lodge scan 1`, then deposit again"],
    );
    assert_eq!(sandbox.stats().requests, 0);

    // The check the first dry run named asks the server, and deposits nothing.
    let args: Vec<&str> = test.split(' ').skip(1).collect();
    let checked = lodge_with(&db, &args).await;
    assert!(checked.status.success(), "{}", text(&checked));
    assert!(
        store.history().unwrap().is_empty(),
        "the check queued nothing"
    );
    assert_eq!(sandbox.stats().records, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_folder_changed_since_its_scan_is_noted_at_deposit_and_status_after_a_rescan_says_it_is_not_deposited()
 {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let (one, two) = (lab.numbered_folder(1), lab.numbered_folder(2));
    let (first, _) = add(&store, &one, &metadata("One"));
    let (second, _) = add(&store, &two, &metadata("Two"));
    let deposit = |datasets: &[i64], dry_run: bool| {
        let mut c = lodge(&db);
        c.args(["deposit", "--target", &sandbox.target_url()]);
        c.args(datasets.iter().map(|d| d.to_string()));
        if dry_run {
            c.arg("--dry-run");
        }
        run(c)
    };
    let out = deposit(&[first], false).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(!text(&out).contains("note"), "{}", text(&out));

    // Edited after its deposit: the replay says it repeats the scanned content.
    fs::write(one.join("data.csv"), "id,value\n1,2\n").unwrap();
    let out = deposit(&[first], false).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "note     ds001: changed since scan",
            "data.csv",
            "This replays the deposit of the content as scanned",
            &format!("`lodge scan {first}`, then deposit again"),
            "existing  ds001 -> sbx-000001 (recorded already: no request sent)",
        ],
    );

    // Files added before a first deposit: they are named, and left out as the key says.
    fs::write(two.join("extra-1.csv"), "x").unwrap();
    fs::write(two.join("extra-2.csv"), "y").unwrap();
    for dry_run in [true, false] {
        let out = deposit(&[second], dry_run).await;
        let t = text(&out);
        assert!(out.status.success(), "{t}");
        assert_all(
            &t,
            &[
                "note     ds002: extra-1.csv and 1 other file added since the last scan",
                "this deposit is of the content as scanned, without them",
                &format!("To include them, `lodge scan {second}`"),
            ],
        );
    }
    // A folder gone since its deposit needs no note: the replay does not read it.
    fs::remove_dir_all(&one).unwrap();
    let out = deposit(&[first], false).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(!text(&out).contains("note"), "{}", text(&out));
    assert_eq!(sandbox.stats().records, 2, "each dataset deposited once");
    let manifest = store.dataset_files(second).unwrap();
    assert_eq!(manifest.len(), 2, "the key is still the scanned content's");

    // Scanned again, its status is its new content's: not deposited yet, and says so.
    let mut scan = lodge(&db);
    scan.args(["scan", &second.to_string()]);
    let out = run(scan).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("files changed since the last scan: 2 files added (key was"),
        "the rescan says what changed: {}",
        text(&out)
    );
    let mut status = lodge(&db);
    status.arg("status");
    let t = text(&run(status).await);
    assert_all(
        &t,
        &[
            "ds002",
            " changed ",
            "deposited as sbx-000002 under its earlier key (before its last rescan or metadata \
             edit)",
            &format!("`lodge deposit --target {} {second}`", sandbox.target_url()),
        ],
    );
}

/// `lodge --db PATH` with no command opens the window on that database (here there is no
/// display, which it says) rather than printing the help as if nothing had been asked.
#[cfg(all(feature = "desktop", target_os = "linux"))]
#[test]
fn a_database_given_without_a_command_opens_the_window_not_the_help() {
    let lab = Lab::new();
    let out = lodge(&lab.path("other.db"))
        .arg("--db")
        .arg(lab.path("lodge.db"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("no display to open the Lodge window on") && !t.contains("Usage:"),
        "{t}"
    );
    assert!(!lab.path("lodge.db").exists(), "nothing was created");
}

#[cfg(unix)]
#[test]
fn add_lists_what_the_scan_left_out_and_why() {
    let lab = Lab::new();
    let folder = lab.folder(
        "field-notes",
        &[
            ("data.csv", b"a,b\n1,2\n"),
            (".lodgeignore", b"*.tmp\n"),
            ("draft.tmp", b"scratch"),
            (".DS_Store", b"finder"),
        ],
    );
    std::os::unix::fs::symlink(folder.join("data.csv"), folder.join("latest.csv")).unwrap();
    let out = lodge(&lab.path("lodge.db"))
        .arg("add")
        .arg(&folder)
        .args(["--title", "Notes", "--creator", "Curie, Marie"])
        .args(["--publisher", "Lab", "--year", "2026"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "1 file,",
            "skipped .lodgeignore (Lodge's ignore file, not part of the data)",
            "skipped draft.tmp (matched by .lodgeignore)",
            "skipped .DS_Store (a system file)",
            "skipped latest.csv (a symbolic link, never followed: not deposited)",
        ],
    );
}

#[cfg(unix)]
#[test]
fn add_of_a_folder_with_much_left_out_names_ten_and_counts_the_rest() {
    let lab = Lab::new();
    let mut files: Vec<(String, Vec<u8>)> = vec![("data.csv".into(), b"a\n".to_vec())];
    // A .DS_Store beside the data in each of 15 folders, and 12 links.
    files.extend((0..15).map(|i| (format!("day{i:02}/.DS_Store"), b"finder".to_vec())));
    files.extend((0..15).map(|i| (format!("day{i:02}/obs.csv"), b"1\n".to_vec())));
    let files: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (p.as_str(), &b[..])).collect();
    let folder = lab.folder("survey", &files);
    for i in 0..12 {
        std::os::unix::fs::symlink(folder.join("data.csv"), folder.join(format!("link{i:02}")))
            .unwrap();
    }
    let out = lodge(&lab.path("lodge.db"))
        .arg("add")
        .arg(&folder)
        .args(["--title", "Survey", "--creator", "Curie, Marie"])
        .args(["--publisher", "Lab", "--year", "2026"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_eq!(t.matches("  skipped link").count(), 10, "{t}");
    assert!(!t.contains("skipped day00/.DS_Store"), "{t}");
    assert!(
        t.contains(
            "  skipped as well: 2 more (`lodge show 1` lists every one); 15 system files \
             (.DS_Store, Thumbs.db, desktop.ini, .git, .lodgeignore)"
        ),
        "{t}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn status_names_a_pending_job_of_an_earlier_key_that_no_item_lists() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(1);
    let (id, key) = add(&store, &folder, &metadata("One"));
    // A deposit stopped part-way, then the folder changed and was scanned again.
    let scope = "sandbox+http://127.0.0.1:9";
    store.upsert_target(scope, scope, "a sandbox").unwrap();
    let (queued, _) = store
        .enqueue_deposit(id, scope, &key, Duration::from_secs(3600))
        .unwrap();
    fs::write(folder.join("data.csv"), "changed since\n").unwrap();
    let out = lodge_with(&db, &["scan", &id.to_string()]).await;
    assert!(out.status.success(), "{}", text(&out));

    let out = lodge_with(&db, &["status"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "pending 1",
            &format!(
                "pending job {job} is of dataset {id} ds001's earlier key (rescanned or its \
                 metadata edited since), no item above: no `lodge deposit` sends it now; \
                 `lodge log --job {job}` shows it, `lodge cancel {job}` ends it",
                job = queued.job_id()
            ),
        ],
    );
    // A filtered listing's totals are said to be everything's, and the job they count
    // that no item shows is named there too: a count no line explains reads as a job lost.
    let out = lodge_with(&db, &["status", "--state", "unfinished"]).await;
    assert_all(
        &text(&out),
        &[
            "no items match (of 1)",
            "pending 1",
            &format!(
                "pending job {} is of dataset {id} ds001's earlier key",
                queued.job_id()
            ),
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn remove_takes_datasets_off_the_list_and_keeps_what_they_deposited() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let folder_one = lab.numbered_folder(1);
    let (one, _) = add(&store, &folder_one, &metadata("One"));
    let (two, _) = add(&store, &lab.numbered_folder(2), &metadata("Two"));
    let deposit = |id: i64| {
        lodge_with(
            &db,
            &[
                "deposit",
                "--target",
                &sandbox.target_url(),
                &id.to_string(),
            ],
        )
    };
    let out = deposit(one).await;
    assert!(out.status.success(), "{}", text(&out));

    // A typo among the names removes nothing.
    let out = lodge_with(&db, &["remove", &one.to_string(), "no-such-dataset"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no dataset matches 'no-such-dataset'"));
    assert_eq!(store.datasets().unwrap().len(), 2, "nothing was removed");

    let out = lodge_with(&db, &["remove", &one.to_string()]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("removed dataset {one} ds001")),
        "{}",
        text(&out)
    );
    let left: Vec<i64> = store.datasets().unwrap().iter().map(|d| d.id).collect();
    assert_eq!(left, vec![two]);
    assert!(
        folder_one.join("data.csv").exists(),
        "the folder is not touched"
    );
    let history = store.history().unwrap();
    assert_eq!(history.len(), 1, "the deposit stays in the history");
    assert_eq!(history[0].identifier.as_deref(), Some("sbx-000001"));
    assert_eq!(sandbox.stats().records, 1);

    // A dataset with a job on the queue (a deposit stopped part-way): removed, with a note.
    let two_key = store.dataset(two).unwrap().unwrap().key.unwrap();
    let (queued, _) = store
        .enqueue_deposit(
            two,
            &sandbox.target_url(),
            &two_key,
            Duration::from_secs(3600),
        )
        .unwrap();
    let out = lodge_with(&db, &["remove", "ds002"]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "note: job {} is still on the queue and will end rejected",
            queued.job_id()
        )),
        "{}",
        text(&out)
    );
    assert!(store.datasets().unwrap().is_empty());
    // Its removal's line in the JSON log names it, as every other line of it does.
    let out = lodge_with(&db, &["log", "--json", "--dataset", &two.to_string()]).await;
    let removal: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l["kind"] == "removed")
        .collect();
    assert_eq!(removal.len(), 1, "{}", text(&out));
    assert_eq!(removal[0]["dataset_name"], "ds002 (removed)");
    // status's totals count it pending though no item lists it: it says which job it is.
    let out = lodge_with(&db, &["status"]).await;
    let folder_two = lab.numbered_folder(2);
    assert_all(
        &text(&out),
        &[
            "no datasets on the list (those removed keep their deposits in `lodge history`)",
            "pending 1",
            &format!(
                "pending job {id} is removed dataset {two} ds002's, no item above: no `lodge \
                 deposit` sends it now (a window working this target's queue ends it \
                 rejected); `lodge cancel {id}` ends it, or `lodge add {}` adds the folder \
                 again to deposit it",
                folder_two.display(),
                id = queued.job_id(),
            ),
        ],
    );

    // Its folder added again before the job ran: the deposit carries that job on, rather
    // than joining it only to be told the dataset was removed.
    let (again, _) = add(&store, &lab.numbered_folder(2), &metadata("Two"));
    let out = lodge_with(&db, &["status"]).await;
    assert_all(
        &text(&out),
        &[&format!(
            "pending job {id} is removed dataset {two} ds002's, no item above; dataset {again} \
             ds002 has its key: `lodge deposit --target {} {again}` carries it on (else \
             `lodge cancel {id}` ends it)",
            sandbox.target_url(),
            id = queued.job_id(),
        )],
    );
    let out = deposit(again).await;
    assert!(out.status.success(), "{}", text(&out));
    let job = store.job(queued.job_id()).unwrap();
    assert_eq!(job.state, lodge::store::JobState::Deposited, "{job:?}");
    assert_eq!(job.dataset_id, Some(again));
    assert_eq!(sandbox.stats().records, 2);
    store.remove_dataset(again).unwrap();

    // A folder moved away: its rescan fails and names the way to take it off the list.
    let moved = lab.numbered_folder(3);
    let (three, _) = add(&store, &moved, &metadata("Three"));
    fs::rename(&moved, lab.path("moved-elsewhere")).unwrap();
    let out = lodge_with(&db, &["scan", &three.to_string()]).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("`lodge remove {three}`")),
        "{}",
        text(&out)
    );
}

/// `log --tail N` prints the last N events however many there are (they are read a page
/// of 1000 at a time), and `--dataset` includes the dataset's own events, not only its
/// jobs'.
#[test]
fn log_tail_past_a_page_prints_the_newest_and_a_datasets_log_has_its_own_events() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let (id, _) = add(&store, &lab.numbered_folder(1), &metadata("One"));
    support::log_filler_events(&store, 1500);
    let last = store.events_after(0, 10_000).unwrap().last().unwrap().id;
    let out = lodge(&db)
        .args(["log", "--json", "--tail", "1200"])
        .output()
        .unwrap();
    // The earlier ones left out are said, on standard error (the lines stay JSON).
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "note: only the last 1200 events shown, the earlier ones left out: `--tail N` shows \
         more, `--all` every one\n"
    );
    let ids: Vec<i64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(ids.len(), 1200);
    assert_eq!(*ids.last().unwrap(), last, "the newest is there");
    assert_eq!(ids[0], last - 1199);
    // A tail past every event (past i64::MAX, past u64::MAX's half) shows them all, as
    // `--all` does, with nothing said left out.
    for tail in [
        &["--tail", "9223372036854775808"][..],
        &["--tail", "10000000000000000000"],
        &["--all"],
    ] {
        let out = lodge(&db)
            .args(["log", "--json"])
            .args(tail)
            .output()
            .unwrap();
        assert!(out.stderr.is_empty(), "{tail:?}: {}", text(&out));
        assert!(out.status.success(), "{tail:?}: {}", text(&out));
        assert_eq!(text(&out).lines().count() as i64, last, "{tail:?}");
    }

    let out = lodge(&db)
        .args(["log", "--json", "--dataset", &id.to_string()])
        .output()
        .unwrap();
    let lines: Vec<serde_json::Value> = text(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.iter().any(|l| l["kind"] == "added"), "{lines:?}");
    // Each line names its dataset as the text log does, not by its number alone.
    assert!(
        lines
            .iter()
            .all(|l| l["dataset"] == id && l["dataset_name"] == "ds001"),
        "{lines:?}"
    );
}

/// With more than one target, `log` names each deposit's target: two sandboxes both mint
/// `sbx-000001`, and the lines would otherwise read the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn log_names_each_deposits_target_when_there_is_more_than_one() {
    let lab = Lab::new();
    let first = lab.sandbox("one", FaultConfig::default()).await;
    let second = lab.sandbox("two", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("One"));
    for sandbox in [&first, &second] {
        let out = lodge_with(
            &db,
            &["deposit", "--all", "--target", &sandbox.target_url()],
        )
        .await;
        assert!(out.status.success(), "{}", text(&out));
    }
    let log = text(&lodge_with(&db, &["log", "--dataset", "ds001"]).await);
    assert_all(
        &log,
        &[
            &format!("ds001: job 1 ({}) created sbx-000001", first.target_url()),
            &format!("ds001: job 2 ({}) created sbx-000001", second.target_url()),
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn log_of_one_dataset_or_one_job_shows_only_its_events() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let (one, _) = add(&store, &lab.numbered_folder(1), &metadata("One"));
    let (two, _) = add(&store, &lab.numbered_folder(2), &metadata("Two"));
    let out = lodge_with(
        &db,
        &["deposit", "--all", "--target", &sandbox.target_url()],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));
    let job_of = |dataset| store.jobs_of_dataset(dataset).unwrap()[0].id;
    let (job_one, job_two) = (job_of(one), job_of(two));
    let log = |args: &[&str]| {
        let out = lodge(&db).arg("log").args(args).output().unwrap();
        (out.status.code(), text(&out))
    };

    let (code, t) = log(&["--dataset", "ds002"]);
    assert_eq!(code, Some(0), "{t}");
    // Each line names its dataset; an attempt's says its number once.
    assert!(
        t.contains(&format!("ds002: job {job_two} created sbx-")),
        "{t}"
    );
    let attempt = t
        .lines()
        .find(|l| l.contains(" attempt "))
        .expect("an attempt");
    assert!(
        attempt.contains(&format!("ds002: job {job_two} attempt 1 of 8 to "))
            && !attempt.contains("[attempt"),
        "{attempt}"
    );
    assert!(
        !t.contains(&format!("job {job_one} ")),
        "only ds002's events: {t}"
    );
    let (code, t) = log(&["--job", &job_one.to_string(), "--tail", "1"]);
    assert_eq!(code, Some(0), "{t}");
    // (Standard output, then the note on standard error.)
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 2, "the last event only, and the note: {t}");
    assert_eq!(
        lines[1],
        "note: only the last 1 event shown, the earlier ones left out: `--tail N` shows more, \
         `--all` every one"
    );
    assert!(t.contains(&format!("job {job_one} created sbx-")), "{t}");

    // As JSON Lines: one object a line, every key on every line.
    let (code, t) = log(&["--dataset", "ds002", "--json"]);
    assert_eq!(code, Some(0), "{t}");
    let events: Vec<serde_json::Value> = t
        .lines()
        .map(|l| serde_json::from_str(l).expect("a line of JSON"))
        .collect();
    assert!(events.len() >= 4, "added, queued, attempt, created: {t}");
    assert_eq!(events[0]["kind"], "added", "the dataset's own event: {t}");
    assert!(
        events
            .iter()
            .all(|e| e["dataset"] == two && (e["job"] == job_two || e["job"].is_null()))
    );
    let created = events.last().unwrap();
    assert_eq!(created["kind"], "created");
    assert_eq!(created["http_status"], 201);
    assert!(created["delay_ms"].is_null() && created["time"].is_string());

    let (code, t) = log(&["--job", "99"]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("no job 99"), "{t}");
    let (code, t) = log(&["--dataset", "no-such"]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("no dataset matches 'no-such'"), "{t}");
}

#[cfg(unix)]
#[test]
fn a_report_piped_into_a_reader_that_stops_early_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("Piped"));
    drop(store);
    for report in [&["status"][..], &["history"], &["log"], &["show", "1"]] {
        // The reader (`| head -1` that has had its line) is gone before lodge writes.
        let mut child = lodge(&db)
            .args(report)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{report:?}: {stderr}");
        // Ended by SIGPIPE (13), as `cat` or `grep` would be, or done before it wrote.
        assert!(
            out.status.success() || out.status.signal() == Some(13),
            "{report:?} ended {:?}: {stderr}",
            out.status
        );
    }
}

/// A command that changes something finishes its work when what reads its output has
/// gone (`lodge add … | head -1`, a pager quit early): it used to panic at its first line,
/// leaving the rest of its folders unadded.
#[test]
fn a_command_whose_reader_stops_early_still_does_all_its_work() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let folders: Vec<_> = (1..=3).map(|n| lab.numbered_folder(n)).collect();
    let mut child = lodge(&db)
        .arg("add")
        .args(&folders)
        .args(["--title", "Run {folder}", "--creator", "Curie, Marie"])
        .args(["--publisher", "Lab", "--year", "2026"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Both readers are gone before lodge writes a line.
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert!(status.success(), "ended {status:?}");
    let added = lab.store("lodge.db").datasets().unwrap();
    assert_eq!(added.len(), 3, "every folder added");
    assert!(added.iter().all(|d| d.key.is_some()));
}

#[test]
fn adding_a_folder_again_with_new_metadata_says_the_files_are_the_same() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let folder = lab.numbered_folder(1);
    let add = |title: &str| {
        let out = lodge(&db)
            .arg("add")
            .arg(&folder)
            .args(["--title", title, "--creator", "Curie, Marie"])
            .args(["--publisher", "Lab", "--year", "2026"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        text(&out)
    };
    add("Soil cores");
    let again = add("Soil cores");
    assert!(again.contains("unchanged since the last scan"), "{again}");
    let retitled = add("Soil cores, 2025 campaign");
    assert!(
        retitled.contains("new metadata, same files (key was"),
        "{retitled}"
    );
    assert!(!retitled.contains("files changed"), "{retitled}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dataset_named_by_number_name_and_folder_at_once_is_deposited_and_counted_once() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let folder = lab.folder("soil", &[("data.csv", b"id\n1\n")]);
    let (id, key) = add(&store, &folder, &metadata("Soil"));
    drop(store);

    let mut cmd = lodge(&db);
    cmd.args(["deposit", "--target", &sandbox.target_url()])
        .args([&id.to_string(), "soil", folder.to_str().unwrap()]);
    let out = run(cmd).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_eq!(t.matches("deposited soil -> sbx-000001").count(), 1, "{t}");
    assert!(t.contains("1 deposited"), "{t}");
    assert!(!t.contains("3 deposited"), "{t}");

    // A key prefix needs 8 characters; a shorter one says so rather than "no match".
    let short = &key.to_hex()[..4];
    let out = lodge_with(&db, &["show", short]).await;
    assert!(!out.status.success());
    assert_all(
        &text(&out),
        &[
            "too short for a key prefix",
            "the first 8 or more characters of its key",
        ],
    );
    let out = lodge_with(&db, &["show", &key.to_hex()[..8]]).await;
    assert!(out.status.success(), "{}", text(&out));
    // Digits alone may be a number or a prefix: both are named.
    let out = lodge_with(&db, &["show", "6352"]).await;
    assert_all(
        &text(&out),
        &["no dataset has that number, and it is too short for a key prefix"],
    );
}

/// `lodge deposit --all --target URL` on `db`, which must succeed; what it printed.
async fn deposit_all(db: &Path, url: &str) -> String {
    let out = lodge_with(db, &["deposit", "--all", "--target", url]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    t
}

/// A lab with `n` small datasets ("Run N") deposited into its sandbox by `lodge deposit`.
async fn deposited_runs(n: usize) -> (Lab, lodge::sandbox::RunningSandbox) {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    deposit_runs(&lab, n, &sandbox.target_url()).await;
    (lab, sandbox)
}

/// Add `n` small datasets ("Run 1", …) to the lab's `lodge.db`.
fn add_runs(lab: &Lab, n: usize) {
    let store = lab.store("lodge.db");
    for n in 1..=n {
        add(
            &store,
            &lab.numbered_folder(n),
            &metadata(&format!("Run {n}")),
        );
    }
}

/// Add `n` small datasets and deposit them all to `url` with `lodge deposit`.
async fn deposit_runs(lab: &Lab, n: usize, url: &str) {
    add_runs(lab, n);
    let out = lodge_with(
        &lab.path("lodge.db"),
        &["deposit", "--all", "--target", url],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn verify_asks_a_busy_server_again_rather_than_report_its_deposits_unchecked() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let proxy = support::proxy::Proxy::start(&sandbox.base_url()).await;
    deposit_runs(&lab, 6, &format!("sandbox+{}", proxy.url())).await;
    let db = lab.path("lodge.db");

    // Now the server is busy: a record's lookup answers 503, and two file reads 429
    // (Retry-After: 0). Each try that meets one uses it up, so every check gets through
    // within its four tries, if it asks again; the files of a check are read together, so
    // which check meets which answer is left to timing.
    use support::proxy::{Action, Rule};
    proxy.clear_log();
    proxy.add_rule(Rule {
        method: "GET",
        path_contains: "/records/".into(),
        action: Action::Unavailable,
        times: 1,
    });
    proxy.add_rule(Rule {
        method: "HEAD",
        path_contains: "/blobs/".into(),
        action: Action::RateLimit {
            retry_after_secs: 0,
        },
        times: 2,
    });
    let out = lodge_with(&db, &["verify", "--all"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("6 intact"), "{t}");
    assert!(!t.contains("could not"), "{t}");
    let lookups = proxy
        .log()
        .iter()
        .filter(|(method, path)| method == "GET" && path.contains("/records/"))
        .count();
    assert!(
        lookups >= 6 + 2,
        "the checks the busy answers met were asked again: {lookups} lookups, {:?}",
        proxy.log()
    );
}

/// A refused job whose content landed on the target since (here: a file changed after the
/// scan, then put back as it was, and the dataset deposited again) is not to be retried or
/// put right: `retry` and `dismiss` name the deposit that landed, and send nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn retry_and_dismiss_of_a_refusal_name_the_deposit_of_its_content_that_landed_since() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let folder = lab.folder("put-back", &[("x.csv", b"AAAA\n"), ("README.txt", b"r")]);
    let store = lab.store("lodge.db");
    add(&store, &folder, &metadata("Put back"));
    drop(store);
    let file = folder.join("x.csv");
    let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
    let deposit = || {
        lodge_with(
            &db,
            &["deposit", "--all", "--target", &sandbox.target_url()],
        )
    };

    std::fs::write(&file, b"changed after the scan\n").unwrap();
    let refused = deposit().await;
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert!(
        text(&refused).contains("changed since scan"),
        "{}",
        text(&refused)
    );
    std::fs::write(&file, b"AAAA\n").unwrap();
    let put_back = std::fs::File::options().write(true).open(&file).unwrap();
    put_back.set_modified(mtime).unwrap();
    let landed = deposit().await;
    assert!(landed.status.success(), "{}", text(&landed));
    let requests = sandbox.stats().requests;

    let retry = lodge_with(&db, &["retry", "1"]).await;
    assert_all(
        &text(&retry),
        &[
            "job 1 was rejected",
            "the same content is deposited there since, as sbx-000001 (job 2): nothing to retry",
        ],
    );
    let dismiss = lodge_with(&db, &["dismiss", "1"]).await;
    assert!(dismiss.status.success(), "{}", text(&dismiss));
    assert_all(
        &text(&dismiss),
        &[
            "dismissed job 1 (rejected): it leaves `lodge status`; the same content is deposited there since, as sbx-000001 (job 2)",
        ],
    );
    assert!(!text(&dismiss).contains("put right"), "{}", text(&dismiss));
    assert_eq!(sandbox.stats().requests, requests, "nothing sent");
}

/// A file whose bytes change while its size and modification time stay (a copy that keeps
/// times, `touch -d`) is caught as it is sent; the rejection's rescan then sees the change
/// (the hash cache forgets the file), and the next deposit sends the file as it is now.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_change_that_keeps_size_and_time_is_rejected_and_the_rescan_it_names_finds_it() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let folder = lab.folder("kept-times", &[("x.csv", b"AAAA\n"), ("README.txt", b"r")]);
    let store = lab.store("lodge.db");
    let (id, before) = add(&store, &folder, &metadata("Kept times"));
    drop(store);
    let file = folder.join("x.csv");
    let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::fs::write(&file, b"BBBB\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(mtime)
        .unwrap();

    let deposit = || {
        lodge_with(
            &db,
            &["deposit", "--all", "--target", &sandbox.target_url()],
        )
    };
    let out = deposit().await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &["rejected  kept-times", "content changed (SHA-256 now "],
    );
    assert_eq!(sandbox.stats().records, 0);

    let out = lodge_with(&db, &["scan", &id.to_string()]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(!t.contains("unchanged"), "the rescan sees the change: {t}");
    let after = lab
        .store("lodge.db")
        .dataset(id)
        .unwrap()
        .unwrap()
        .key
        .unwrap();
    assert_ne!(after, before);
    let out = deposit().await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().records, 1);
}

/// A dataset's folder moved, then added where it is now, brings its metadata along from
/// the entry left behind: the same content key, so depositing it replays the record made
/// before instead of asking for the metadata again (and, retyped a little differently,
/// making a second record of the same files).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_moved_folder_added_where_it_is_now_keeps_its_metadata_and_its_key() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(1);
    let (old, key) = add(&store, &folder, &metadata("Before the move"));
    drop(store);
    let deposit = |what: &str| {
        let what = what.to_string();
        let url = sandbox.target_url();
        let db = db.clone();
        async move { lodge_with(&db, &["deposit", "--target", &url, &what]).await }
    };
    let out = deposit(&old.to_string()).await;
    assert!(out.status.success(), "{}", text(&out));

    let moved = lab.path("archive/ds001");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    fs::rename(&folder, &moved).unwrap();
    let out = lodge_with(&db, &["add", &moved.to_string_lossy()]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains(&format!(
            "metadata taken from dataset {old} (ds001): the same files, whose folder {} is gone",
            folder.display()
        )),
        "{t}"
    );
    assert!(
        t.contains(&format!("key {}", key.to_hex())),
        "the same key: {t}"
    );
    let out = deposit(&moved.to_string_lossy()).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        sandbox.stats().records,
        1,
        "no second record of the same files"
    );
}

/// Dataset 1 queued as job 1 for a sandbox target, and claimed for ten minutes by process
/// `pid` of this machine (as a `lodge deposit` there would). The target's scope is returned.
fn job_leased_to(lab: &Lab, store: &lodge::store::Store, pid: u32) -> &'static str {
    let (id, key) = add(store, &lab.numbered_folder(1), &metadata("One"));
    let scope = "sandbox+http://127.0.0.1:9";
    store.upsert_target(scope, scope, "a sandbox").unwrap();
    store
        .enqueue_deposits(scope, &[(id, key)], std::time::Duration::from_secs(3600))
        .unwrap();
    let owner = format!("{}/{pid}/cafe", lodge::store::this_host());
    let filter = lodge::store::ClaimFilter {
        targets: vec![scope.into()],
        ..Default::default()
    };
    let claimed = store
        .claim(&owner, std::time::Duration::from_secs(600), 8, &filter)
        .unwrap();
    assert!(matches!(claimed, lodge::store::Claim::Attempt { .. }));
    scope
}

/// The pid of a process of this machine that has ended: it names no process any more.
fn an_ended_process() -> u32 {
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    pid
}

/// A deposit killed mid-job (kill -9) leaves its lease behind; `status` and `show` say its
/// process is gone and what takes the job over, and `cancel` sees that its process is gone
/// and cancels the job, instead of saying it is being deposited.
#[test]
fn status_show_and_cancel_see_that_a_jobs_depositing_process_was_killed() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let pid = an_ended_process();
    let scope = job_leased_to(&lab, &store, pid);

    // Until then `status` and `show` say that nothing sends it, and what takes it over,
    // rather than only "running".
    for report in [&["status"][..], &["show", "1"]] {
        let t = text(&lodge(&db).args(report).output().unwrap());
        assert!(t.contains("running"), "{report:?}: {t}");
        assert!(
            t.contains(&format!(
                "sent by process {pid} on {}, which has ended: nothing is sending it now; \
                 `lodge deposit --target {scope} 1` takes it over",
                lodge::store::this_host()
            )),
            "{report:?}: {t}"
        );
    }
    let json: serde_json::Value = serde_json::from_slice(
        &lodge(&db)
            .args(["status", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let sender = &json["items"][0]["sender"];
    assert_eq!(
        sender["process"],
        format!("process {pid} on {}", lodge::store::this_host())
    );
    assert_eq!(sender["ended"], true, "{json}");
    assert!(sender["lease_until"].is_string(), "{json}");

    // Cancelled by another person: the job's error names who (on a shared database it is
    // read on every machine).
    let out = (lodge(&db).env("USER", "ada"))
        .args(["cancel", "1"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("cancelled job 1"), "{t}");
    assert!(!t.contains("being deposited"), "{t}");
    assert_eq!(store.job(1).unwrap().state, lodge::store::JobState::Failed);
    let status = text(&lodge(&db).arg("status").output().unwrap());
    let who = format!("ada@{}", lodge::store::this_host());
    assert!(
        status.contains(&format!("cancelled by {who} (`lodge cancel`)")),
        "{status}"
    );
}

/// A job left running by a killed process, of the key its dataset had before a rescan:
/// `show` says `lodge cancel` ends it, as `status` does, not a deposit (which sends the
/// current key, and would leave the job running).
#[test]
fn show_says_to_cancel_an_earlier_keys_job_a_killed_process_left_running() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let pid = an_ended_process();
    job_leased_to(&lab, &store, pid);
    std::fs::write(lab.numbered_folder(1).join("later.csv"), b"1,2\n").unwrap();
    let scan = lodge(&db).args(["scan", "1"]).output().unwrap();
    assert!(scan.status.success(), "{}", text(&scan));

    let t = text(&lodge(&db).args(["show", "1"]).output().unwrap());
    assert!(
        t.contains(
            "which has ended: nothing is sending it now; it is of the dataset's earlier key, \
             which no `lodge deposit` sends now (a deposit sends the current one): `lodge \
             cancel 1` ends it"
        ),
        "{t}"
    );
}

/// A `retry --all-failed` (or `deposit`) killed mid-job leaves its jobs running under a
/// process that has ended: running `retry --all-failed` again takes them over and sends
/// them, rather than saying there is nothing to retry while nothing sends them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn retry_all_failed_again_takes_over_the_jobs_a_killed_run_left_running() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let (id, key) = add(&store, &lab.numbered_folder(1), &metadata("One"));
    let scope = sandbox.target_url();
    store.upsert_target(&scope, &scope, "a sandbox").unwrap();
    store
        .enqueue_deposits(&scope, &[(id, key)], Duration::from_secs(3600))
        .unwrap();
    let pid = an_ended_process();
    let owner = format!("{}/{pid}/cafe", lodge::store::this_host());
    let filter = lodge::store::ClaimFilter {
        targets: vec![scope.clone()],
        ..Default::default()
    };
    let claimed = store
        .claim(&owner, Duration::from_secs(600), 8, &filter)
        .unwrap();
    assert!(matches!(claimed, lodge::store::Claim::Attempt { .. }));

    let out = lodge_with(&db, &["retry", "--all-failed"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[&format!(
            "job 1 was left running by process {pid} on {}, which has ended: taking it over now",
            lodge::store::this_host()
        )],
    );
    assert_eq!(sandbox.stats().records, 1);
    assert_eq!(
        store.job(1).unwrap().state,
        lodge::store::JobState::Deposited
    );
}

/// An item waiting out a retry's backoff (or a server's Retry-After) is said to be sent
/// when that wait ends, not "now": the deposit named would otherwise seem to hang.
#[test]
fn status_says_when_a_waiting_items_next_attempt_is_due() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let pid = an_ended_process();
    let scope = job_leased_to(&lab, &store, pid);
    let lease = store
        .live_leases()
        .unwrap()
        .into_iter()
        .map(|(job, fence, owner)| (store.job(job).unwrap(), fence, owner))
        .next()
        .unwrap();
    let due = lodge::store::now_ms() + 600_000;
    let lease = lodge::store::Lease {
        job: lease.0,
        fence: lease.1,
        owner: lease.2,
        expires_at: due,
    };
    store
        .finish(
            &lease,
            &lodge::store::Finish::Retry {
                not_before: due,
                delay: std::time::Duration::from_secs(600),
                error: "rate limited (HTTP 429)".into(),
                http_status: Some(429),
            },
        )
        .unwrap();

    let t = text(&lodge(&db).arg("status").output().unwrap());
    assert!(t.contains(" waiting "), "{t}");
    assert!(
        t.contains(&format!(
            "`lodge deposit --target {scope} 1` sends it at {}, when its next attempt is due",
            lodge::history_file::time_text(due)
        )),
        "{t}"
    );
    assert!(!t.contains("sends it now"), "{t}");
    let json: serde_json::Value = serde_json::from_slice(
        &lodge(&db)
            .args(["status", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(
        json["items"][0]["retry_due"],
        lodge::history_file::time_text(due)
    );
}

/// A deposit killed (kill -9) while it sent several items leaves each running with nothing
/// sending it: `status` says so under each, pointing to the one command said once for
/// all of a target's, which takes them all over; that command lands each exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn status_names_one_command_that_takes_over_every_item_a_killed_deposit_left() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let scope = sandbox.target_url();
    store.upsert_target(&scope, &scope, "a sandbox").unwrap();
    let items: Vec<_> = (1..=3)
        .map(|n| {
            add(
                &store,
                &lab.numbered_folder(n),
                &metadata(&format!("Item {n}")),
            )
        })
        .collect();
    store
        .enqueue_deposits(&scope, &items, std::time::Duration::from_secs(3600))
        .unwrap();
    // Two of the three claimed by a process of this machine that has ended since.
    let pid = an_ended_process();
    let owner = format!("{}/{pid}/cafe", lodge::store::this_host());
    let filter = lodge::store::ClaimFilter {
        targets: vec![scope.clone()],
        ..Default::default()
    };
    for _ in 0..2 {
        let claimed = store
            .claim(&owner, std::time::Duration::from_secs(600), 8, &filter)
            .unwrap();
        assert!(matches!(claimed, lodge::store::Claim::Attempt { .. }));
    }

    let out = lodge_with(&db, &["status"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    // Each points to the one command below, rather than repeat a command of its own.
    assert_eq!(
        t.matches(
            "which has ended: nothing is sending it now; the `lodge deposit` below the list \
             takes it over with the others"
        )
        .count(),
        2,
        "{t}"
    );
    assert!(!t.contains("takes it over (with the same key"), "{t}");
    let takeover = format!("lodge deposit --target {scope} 1 2");
    assert!(
        t.contains(&format!(
            "2 items on {scope} were left running by processes that have ended or whose leases \
             ran out: `{takeover}` takes them all over"
        )),
        "{t}"
    );
    assert_eq!(sandbox.stats().requests, 0);

    // The command said sends both (and the third, queued, is left for its own deposit).
    let args: Vec<&str> = takeover.split(' ').skip(1).collect();
    let out = lodge_with(&db, &args).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().records, 2, "{}", text(&out));
    for job in [1, 2] {
        assert!(store.job(job).unwrap().state.is_landed(), "job {job}");
    }
    let t = text(&lodge_with(&db, &["status"]).await);
    assert!(!t.contains("left running"), "{t}");
}

/// A dataset removed while a worker sends its deposit: that job goes on to land, and the
/// note says so (and who sends it), not that it waits on the queue to be rejected.
#[test]
fn removing_a_dataset_whose_deposit_is_being_sent_says_that_it_lands() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    // This test's own process, which runs: a worker sending it now.
    let pid = std::process::id();
    job_leased_to(&lab, &store, pid);

    let t = text(&lodge(&db).args(["remove", "1"]).output().unwrap());
    assert!(
        t.contains(&format!(
            "note: job 1 is being sent now by process {pid} on {}, and lands as the folder \
             was scanned",
            lodge::store::this_host()
        )),
        "{t}"
    );
    assert!(!t.contains("will end rejected"), "{t}");
}

/// A number names the dataset of that number, as Lodge's output does, even where the
/// current folder holds a folder of that name: `remove 1` must not remove another dataset.
/// `./1` names the folder.
#[test]
fn a_dataset_number_wins_over_a_folder_of_that_name_in_the_current_folder() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let (first, _) = add(&store, &lab.numbered_folder(1), &metadata("First"));
    assert_eq!(first, 1);
    let folder_named_1 = lab.folder("work/1", &[("notes.txt", b"folder named 1")]);
    // Adding it says that its name is a number, and how to name it instead.
    let added = lodge(&db)
        .arg("add")
        .arg(&folder_named_1)
        .args(["--title", "Folder named 1"])
        .output()
        .unwrap();
    let t = text(&added);
    assert!(added.status.success(), "{t}");
    assert!(
        t.contains(&format!(
            "note: this folder's name, 1, is a number: commands take a number as a dataset's \
             (`lodge show 1` shows dataset 1, ds001); name this one by its number, 2, or its \
             folder, `{}`",
            folder_named_1.display()
        )),
        "{t}"
    );
    let other = 2;
    let in_work = |args: &[&str]| {
        let mut c = lodge(&db);
        c.current_dir(lab.path("work")).args(args);
        c.output().unwrap()
    };
    let t = text(&in_work(&["show", "1"]));
    assert!(t.starts_with("dataset 1 ds001"), "{t}");
    let t = text(&in_work(&["show", "./1"]));
    assert!(t.starts_with(&format!("dataset {other} 1")), "{t}");
    let out = in_work(&["remove", "1"]);
    assert!(out.status.success(), "{}", text(&out));
    let left: Vec<i64> = store.datasets().unwrap().iter().map(|d| d.id).collect();
    assert_eq!(
        left,
        vec![other],
        "dataset 1 removed, not the folder named 1"
    );
}

/// File names written in NFD (as macOS writes them, and as they arrive by copy or archive)
/// are in the manifest in NFC, and the deposit still finds them on disk: the dataset lands,
/// is verified by its bytes, and repaired from them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dataset_whose_file_names_are_nfd_on_disk_deposits_verifies_and_repairs() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    // "Zürich/Messung-ä.csv" with the umlauts decomposed (u + U+0308), folder and file.
    let nfd = "Zu\u{308}rich/Messung-a\u{308}.csv";
    let folder = lab.folder("nfd-names", &[(nfd, b"t,v\n1,2\n"), ("README.txt", b"r")]);
    let store = lab.store("lodge.db");
    let (id, key) = add(&store, &folder, &metadata("NFD names"));
    let manifest = store.document(&key).unwrap().unwrap().manifest;
    drop(store);
    let csv = manifest
        .iter()
        .find(|e| e.path == "Zürich/Messung-ä.csv")
        .expect("the manifest names the file in NFC");

    let out = lodge_with(
        &db,
        &["deposit", "--all", "--target", &sandbox.target_url()],
    )
    .await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("deposited nfd-names -> sbx-000001"), "{t}");
    let out = lodge_with(&db, &["verify", &id.to_string(), "--bytes"]).await;
    assert!(out.status.success(), "{}", text(&out));

    // The file lost on the server is sent again from the NFD name on disk.
    std::fs::remove_file(
        sandbox
            .data_dir()
            .join(format!("blobs/sha256/{}", csv.sha256)),
    )
    .unwrap();
    let out = lodge_with(&db, &["verify", &id.to_string(), "--repair"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("repaired dataset 1 nfd-names"), "{t}");
    assert!(t.contains("Zürich/Messung-ä.csv"), "named in NFC: {t}");
}

/// Two files whose names differ only in case are added (most servers keep both), with a
/// note that a server ignoring case keeps one of them where files are kept by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn add_notes_names_that_differ_only_in_case() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let folder = lab.folder("cased", &[("Data.csv", b"aaaa\n"), ("data.csv", b"bbbb\n")]);
    let out = lodge_with(&db, &add_titled(&folder, "Cased")).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains(
            "note: Data.csv and data.csv differ only in case: a server that ignores case in \
             names"
        ),
        "{t}"
    );
}

/// A folder `name` with one file, added as dataset 1, deposited to `sandbox`, removed from
/// the list, and then its file lost by the sandbox: the folder.
async fn deposited_removed_then_lost(
    lab: &Lab,
    sandbox: &lodge::sandbox::RunningSandbox,
    name: &str,
) -> PathBuf {
    let db = lab.path("lodge.db");
    let folder = lab.folder(name, &[("data.csv", b"t,v\n1,2\n")]);
    let store = lab.store("lodge.db");
    let (_, key) = add(&store, &folder, &metadata("Removed, then lost"));
    let csv = store.document(&key).unwrap().unwrap().manifest[0].clone();
    deposit_all(&db, &sandbox.target_url()).await;
    assert!(lodge_with(&db, &["remove", "1"]).await.status.success());
    std::fs::remove_file(
        sandbox
            .data_dir()
            .join(format!("blobs/sha256/{}", csv.sha256)),
    )
    .unwrap();
    folder
}

/// A file lost from the deposit of a dataset removed from the list: the advice is not a
/// `verify N --repair` that the removal refuses, but to add the folder again; added again
/// (its metadata, so its key, taken up), it is repaired by its new number.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_file_lost_from_a_removed_datasets_deposit_is_repaired_once_its_folder_is_added_again() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let folder = deposited_removed_then_lost(&lab, &sandbox, "gone-from-list").await;

    let out = lodge_with(&db, &["verify", "--all"]).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "DAMAGED  dataset 1 gone-from-list (removed)",
            &format!(
                "Lost from the deposit of gone-from-list ({}), removed from the list: `lodge \
                 add` its folder again",
                folder.display()
            ),
        ],
    );
    assert!(!t.contains("`lodge verify 1 --repair`"), "{t}");

    let out = lodge_with(&db, &["add", &folder.to_string_lossy()]).await;
    assert!(out.status.success(), "{}", text(&out));
    let out = lodge_with(&db, &["verify", "--all"]).await;
    let t = text(&out);
    assert!(t.contains("`lodge verify 2 --repair`"), "{t}");
    let out = lodge_with(&db, &["verify", "2", "--repair"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("repaired dataset "), "{t}");
}

/// A dataset deposited, changed, rescanned and deposited again has two deposits on the
/// target: `verify` tells them apart, the earlier key's by its job, in the lines and the
/// JSON.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn verify_tells_the_deposit_of_a_datasets_earlier_key_from_its_current_one() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let folder = lab.folder("twice", &[("data.csv", b"t,v\n1,2\n")]);
    let store = lab.store("lodge.db");
    add(&store, &folder, &metadata("Twice"));
    deposit_all(&db, &sandbox.target_url()).await;
    std::fs::write(folder.join("data.csv"), b"t,v\n1,3\n").unwrap();
    assert!(lodge_with(&db, &["scan", "1"]).await.status.success());
    deposit_all(&db, &sandbox.target_url()).await;

    let out = lodge_with(&db, &["verify", "1"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "intact   dataset 1 twice (its earlier key's deposit, job 1) on ",
            "intact   dataset 1 twice on ",
        ],
    );
    let json = lodge_with(&db, &["verify", "1", "--json"]).await;
    let checked: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let earlier: Vec<(i64, bool)> = (checked.as_array().unwrap().iter())
        .map(|d| {
            (
                d["job"].as_i64().unwrap(),
                d["earlier_key"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(earlier.len(), 2, "{checked:#}");
    assert!(
        earlier.contains(&(1, true)) && earlier.contains(&(2, false)),
        "{earlier:?}"
    );
}

/// A file lost from the deposit of a dataset whose folder was moved since: the advice of
/// `status` and `verify` is to add the folder where it is now, not a repair that has no
/// folder to send from; added there (the same key), the repair by the old number sends
/// from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_file_lost_from_a_moved_folders_deposit_is_repaired_from_where_it_is_added_now() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let folder = lab.folder("moved", &[("data.csv", b"t,v\n1,2\n")]);
    let store = lab.store("lodge.db");
    let (_, key) = add(&store, &folder, &metadata("Moved, then lost"));
    let csv = store.document(&key).unwrap().unwrap().manifest[0].clone();
    deposit_all(&db, &sandbox.target_url()).await;
    let blob = sandbox
        .data_dir()
        .join(format!("blobs/sha256/{}", csv.sha256));
    std::fs::remove_file(&blob).unwrap();
    let now_at = lab.path("elsewhere");
    std::fs::rename(&folder, &now_at).unwrap();

    let out = lodge_with(&db, &["verify", "1"]).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let gone = format!(
        "dataset 1 moved's folder {} is not there (moved or deleted): `lodge add` it where it \
         is now first",
        folder.display()
    );
    assert_all(&t, &[&gone]);
    let status = text(&lodge_with(&db, &["status"]).await);
    assert_all(
        &status,
        &[&format!(
            "its folder {} is not there (moved or deleted): `lodge add` it where it is now, \
             then `lodge verify 1 --target",
            folder.display()
        )],
    );
    let refused = text(&lodge_with(&db, &["verify", "1", "--repair"]).await);
    assert_all(
        &refused,
        &["is not on this machine (moved or deleted): add it where it is now"],
    );
    assert!(!blob.exists());

    let out = lodge_with(&db, &["add", &now_at.to_string_lossy()]).await;
    assert!(out.status.success(), "{}", text(&out));
    let out = lodge_with(&db, &["verify", "1", "--repair"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("repaired dataset 1 moved"), "{t}");
    assert!(blob.exists(), "sent again from the folder where it is now");
}

/// A file lost from the deposit of a dataset removed from the list whose folder is listed
/// again with other content: adding the folder again would add nothing, and the advice
/// says the deposited files are no longer in it, not to add it and repair by number.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_file_lost_from_a_removed_datasets_deposit_whose_folder_changed_is_said_to_be_gone() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let folder = deposited_removed_then_lost(&lab, &sandbox, "changed-since").await;
    std::fs::write(folder.join("data.csv"), b"t,v\n1,3\n").unwrap();
    let out = lodge_with(&db, &["add", &folder.to_string_lossy()]).await;
    assert!(out.status.success(), "{}", text(&out));

    let out = lodge_with(&db, &["verify", "--all"]).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "DAMAGED  dataset 1 changed-since (removed)",
            "its folder is listed again as dataset 2 changed-since with other content \
             (another key), so the files as they were deposited are no longer in it",
        ],
    );
    assert!(!t.contains("`lodge add` its folder again"), "{t}");
}

/// A file lost from the deposit of a removed dataset whose copy is on the list, after
/// `forget` dropped the recorded result: the copy's `verify --repair` that the advice names
/// finds that deposit (its job, kept in the history) and sends the file again.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn after_forget_the_copy_named_by_the_repair_advice_finds_the_deposit_and_repairs_it() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    deposited_removed_then_lost(&lab, &sandbox, "original").await;
    let copy = lab.folder("original-copy", &[("data.csv", b"t,v\n1,2\n")]);
    let store = lab.store("lodge.db");
    let (copy_id, _) = add(&store, &copy, &metadata("Removed, then lost"));
    drop(store);
    let out = lodge_with(&db, &["forget", "--older-than", "0s", "--yes"]).await;
    assert!(out.status.success(), "{}", text(&out));

    let out = lodge_with(&db, &["verify", "--all"]).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let advice = format!("`lodge verify {copy_id} --repair`");
    assert!(t.contains(&advice), "{t}");
    let out = lodge_with(&db, &["verify", &copy_id.to_string(), "--repair"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains(&format!("repaired dataset {copy_id} original-copy")),
        "{t}"
    );
}

/// The server lost a file and the folder's copy has changed since it was deposited: the
/// repair cannot send the deposited bytes. It says so and what to do, and the damage the
/// check found stands (printed, exit 1, logged, shown by `status`) instead of becoming
/// "could not be checked".
/// A sandbox started with `--token`, given it from the first deposit (so it never
/// refused Lodge): the commands suggested for it later carry `--token TOKEN`, the check
/// that `status` suggests for a damaged deposit and a failed deposit's `lodge retry`;
/// without it they would be refused (401) and pause the target.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn commands_suggested_for_a_sandbox_given_its_token_from_the_first_carry_the_token() {
    let lab = Lab::new();
    let sandbox = lab.sandbox_with_token("sbx", "s3cret").await;
    let db = lab.path("lodge.db");
    let folder = lab.folder("tokened", &[("data.csv", b"t,v\n1,2\n")]);
    let store = lab.store("lodge.db");
    let (_, key) = add(&store, &folder, &metadata("Tokened"));
    let csv = store.document(&key).unwrap().unwrap().manifest[0].sha256;
    drop(store);
    let url = sandbox.target_url();
    let with_token = ["--target", url.as_str(), "--token", "s3cret"];
    let deposit = [&["deposit", "--all"][..], &with_token].concat();
    let out = lodge_with(&db, &deposit).await;
    assert!(out.status.success(), "{}", text(&out));

    std::fs::remove_file(sandbox.data_dir().join(format!("blobs/sha256/{csv}"))).unwrap();
    let verify = [&["verify", "1"][..], &with_token].concat();
    let out = lodge_with(&db, &verify).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let status = text(&lodge_with(&db, &["status"]).await);
    assert!(
        status.contains(&format!(
            "`lodge verify 1 --target {url} --repair --token TOKEN` sends lost files again"
        )),
        "{status}"
    );

    // A deposit that fails there: its retry is named with the token too.
    sandbox.set_faults(FaultConfig {
        fail_before_commit: 1.0,
        ..FaultConfig::default()
    });
    let other = lab.folder("failing", &[("data.csv", b"t,v\n3,4\n")]);
    add(&lab.store("lodge.db"), &other, &metadata("Failing"));
    let deposit = [
        &["deposit", "failing", "--max-attempts", "1"][..],
        &with_token,
    ]
    .concat();
    let out = lodge_with(&db, &deposit).await;
    assert!(
        text(&out).contains("retry with `lodge retry 2 --token TOKEN`"),
        "{}",
        text(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn repair_of_a_file_changed_in_the_folder_keeps_the_damage_and_says_put_it_back() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let folder = lab.folder(
        "changed",
        &[("data.csv", b"t,v\n1,2\n"), ("README.txt", b"r")],
    );
    let store = lab.store("lodge.db");
    let (id, key) = add(&store, &folder, &metadata("Changed since"));
    let manifest = store.document(&key).unwrap().unwrap().manifest;
    drop(store);
    let csv = manifest.iter().find(|e| e.path == "data.csv").unwrap();
    let out = lodge_with(
        &db,
        &["deposit", "--all", "--target", &sandbox.target_url()],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));

    let held = sandbox
        .data_dir()
        .join(format!("blobs/sha256/{}", csv.sha256));
    std::fs::remove_file(&held).unwrap();
    std::fs::write(folder.join("data.csv"), b"t,v\n9,9\n").unwrap();

    let id = id.to_string();
    let out = lodge_with(&db, &["verify", &id, "--repair"]).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "DAMAGED  dataset 1 changed",
            "data.csv is missing",
            "not repaired: sending data.csv again stopped: changed since scan",
            "put the deposited file back in the folder",
            "1 damaged",
        ],
    );
    assert!(!t.contains("could not be checked"), "{t}");
    assert!(!held.exists(), "the changed bytes were not sent");

    let json = lodge_with(&db, &["verify", &id, "--repair", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json[0]["verdict"], "damaged", "{json}");
    assert_eq!(json[0]["repaired"], serde_json::json!([]));
    assert!(
        json[0]["not_repaired"]
            .as_str()
            .unwrap()
            .contains("put the deposited file back"),
        "{json}"
    );

    // The finding is the deposit's last check, as a plain check's would be.
    let log = text(&lodge_with(&db, &["log", "--job", "1"]).await);
    assert_all(
        &log,
        &[
            "repair stopped while sending data.csv again: changed since scan",
            "verify found: data.csv is missing",
        ],
    );
    let status = text(&lodge_with(&db, &["status"]).await);
    assert!(status.contains("DAMAGED when checked "), "{status}");

    // With the deposited file back in the folder, the repair puts it back.
    std::fs::write(folder.join("data.csv"), b"t,v\n1,2\n").unwrap();
    let out = lodge_with(&db, &["verify", &id, "--repair"]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_all(&text(&out), &["sent again data.csv", "1 intact"]);
}

/// A server that asks to wait past the deposit's deadline (Retry-After: an hour) fails
/// the job at once, saying the wait it asked for is past the deadline, not that the
/// deadline was reached, and how a longer one waits for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_wait_asked_past_the_deadline_is_said_to_be_so() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox(
            "sbx",
            FaultConfig {
                rate_limit: 1.0,
                retry_after_secs: 3600,
                ..FaultConfig::default()
            },
        )
        .await;
    add_runs(&lab, 1);
    let db = lab.path("lodge.db");
    let url = sandbox.target_url();
    let out = lodge_with(
        &db,
        &["deposit", "--all", "--target", &url, "--deadline", "20s"],
    )
    .await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains(
            "the server asked to wait 1 h (Lodge waits at most 10 min), past the deadline ("
        ) && t.contains("from now: a longer --deadline waits for it) after 1 attempt"),
        "{t}"
    );
    assert!(!t.contains("deadline reached"), "{t}");
}

/// A server that answers no check (here busy through every try; one that hangs would hold
/// each check for the two-minute read timeout) is asked once: the deposits after the
/// first on it are not sent, and say why.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn verify_stops_asking_a_server_that_did_not_answer_one_check() {
    let (lab, sandbox) = deposited_runs(3).await;
    let db = lab.path("lodge.db");

    sandbox.set_faults(FaultConfig {
        rate_limit: 1.0,
        retry_after_secs: 0,
        ..FaultConfig::default()
    });
    let before = sandbox.stats().requests;
    let out = lodge_with(&db, &["verify", "--all"]).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "UNKNOWN  dataset 1 ds001",
            "the server could not be asked: server busy (HTTP 429)",
            "UNKNOWN  dataset 2 ds002",
            "UNKNOWN  dataset 3 ds003",
            "not checked: the server did not answer the check of ds001; check again when it does",
            "0 intact, 3 could not be checked",
        ],
    );
    assert_eq!(
        sandbox.stats().requests - before,
        4,
        "the first deposit's four tries, and nothing for the other two"
    );

    // Once the server answers, the next verify checks them all.
    sandbox.set_faults(FaultConfig::default());
    let out = lodge_with(&db, &["verify", "--all"]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("3 intact"), "{}", text(&out));
}

/// The window's own local sandbox answers only while the window is open: a `verify` or a
/// `deposit` from a terminal that finds it closed says so, where any other server is asked
/// whether it runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_windows_sandbox_reached_while_the_window_is_closed_is_said_to_need_it_open() {
    let (lab, sandbox) = deposited_runs(1).await;
    let db = lab.path("lodge.db");
    let port = sandbox.addr().port();
    sandbox.shutdown().await;
    let verify = |data_home: &Path| {
        lodge(&db)
            .env("XDG_DATA_HOME", data_home)
            .args(["verify", "--all"])
            .output()
            .unwrap()
    };
    let hint = "is the Lodge window's own local sandbox, which answers only while the window \
                is open: open Lodge, then run the command again";

    // A sandbox started by hand (no window kept this port): no word of the window.
    let t = text(&verify(&lab.path("elsewhere")));
    assert!(t.contains("refused the connection"), "{t}");
    assert!(!t.contains(hint), "{t}");

    // The port the window keeps for its sandbox.
    let data_home = lab.path("data-home");
    fs::create_dir_all(data_home.join("lodge")).unwrap();
    fs::write(data_home.join("lodge/sandbox-port"), port.to_string()).unwrap();
    let out = verify(&data_home);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains(&format!("Local sandbox at 127.0.0.1:{port} {hint}")),
        "{t}"
    );

    // So does a deposit there that fails for it, before its retry advice.
    add(
        &lab.store("lodge.db"),
        &lab.numbered_folder(2),
        &metadata("Run 2"),
    );
    let url = format!("sandbox+http://127.0.0.1:{port}");
    let out = lodge(&db)
        .env("XDG_DATA_HOME", &data_home)
        .args(["deposit", "--target", &url, "--max-attempts", "1", "2"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains(&format!("{url} {hint}; retry with `lodge retry 2`")),
        "{t}"
    );
}

/// A server that refuses the credentials of one check is not asked again with them (some
/// lock an account after a run of refusals): the other deposits on it are not sent, and a
/// target given by URL is named with the command that checks it with its own token.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn verify_stops_asking_a_server_that_refused_its_token_and_says_how_to_give_it() {
    let lab = Lab::new();
    let sandbox = lab.sandbox_with_token("sbx", "s3cret").await;
    add_runs(&lab, 3);
    let db = lab.path("lodge.db");
    let url = sandbox.target_url();
    let out = lodge_with(
        &db,
        &["deposit", "--all", "--target", &url, "--token", "s3cret"],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));

    for (token, said) in [
        (
            None,
            format!("{url} needs a token to be read: check its deposits with it"),
        ),
        (
            Some("wrong"),
            format!("{url} refused the token given (--token is one for every target checked)"),
        ),
    ] {
        let before = sandbox.stats().requests;
        let mut args = vec!["verify", "--all"];
        args.extend(token.map(|t| ["--token", t]).into_iter().flatten());
        let out = lodge_with(&db, &args).await;
        let t = text(&out);
        assert_eq!(out.status.code(), Some(1), "{t}");
        assert_all(
            &t,
            &[
                "UNKNOWN  dataset 1 ds001",
                "the server could not be asked: not authorised (HTTP 401)",
                "UNKNOWN  dataset 3 ds003",
                "not checked: the server refused Lodge's credentials for the check of ds001; \
                 check again once they are corrected",
                "0 intact, 3 could not be checked",
                &said,
                &format!("`lodge verify --all --target {url} --token TOKEN` (or LODGE_TOKEN)"),
            ],
        );
        assert_eq!(
            sandbox.stats().requests - before,
            1,
            "the first deposit's check, and nothing for the other two"
        );
    }
    // The command keeps the datasets and the repair asked for: pasted, it runs as meant.
    let out = lodge_with(&db, &["verify", "1", "2", "--repair"]).await;
    let t = text(&out);
    assert_all(
        &t,
        &[&format!(
            "`lodge verify 1 2 --target {url} --repair --token TOKEN` (or LODGE_TOKEN)"
        )],
    );

    let out = lodge_with(&db, &["verify", "--all", "--token", "s3cret"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("3 intact"), "{t}");
    assert!(!t.contains("token"), "{t}");

    // A file lost: the repair command keeps the token the check was given (not its value).
    let blobs = sandbox.data_dir().join("blobs/sha256");
    let lost = std::fs::read_dir(&blobs).unwrap().next().unwrap().unwrap();
    std::fs::remove_file(lost.path()).unwrap();
    let out = lodge_with(
        &db,
        &["verify", "--all", "--target", &url, "--token", "s3cret"],
    )
    .await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains(&format!(
            "--target {url} --token TOKEN --repair` sends them again"
        )),
        "{t}"
    );
    assert!(!t.contains("s3cret"), "{t}");
}

/// A failed job nobody waits on any more (its dataset removed, or rescanned to another key
/// that has landed since) is history: `retry --all-failed` leaves it (and exits
/// 0, for a cron job), and the totals do not count it among the failed waiting for the
/// user, as `status --state failed` does not list it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn failed_jobs_of_a_removed_dataset_or_a_since_deposited_key_are_history_not_waiting() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let kept = lab.folder("kept", &[("a.csv", b"1")]);
    add(&store, &kept, &metadata("Kept"));
    add(
        &store,
        &lab.folder("dropped", &[("b.csv", b"2")]),
        &metadata("Dropped"),
    );
    let url = sandbox.target_url();
    every_deposit_fails_once(&sandbox, &db).await;

    assert!(lodge_with(&db, &["remove", "2"]).await.status.success());
    std::fs::write(kept.join("more.csv"), b"3").unwrap();
    assert!(lodge_with(&db, &["scan", "1"]).await.status.success());
    deposit_all(&db, &url).await;

    let retry = lodge_with(&db, &["retry", "--all-failed"]).await;
    assert!(retry.status.success(), "{}", text(&retry));
    assert!(
        text(&retry).contains("no failed jobs: nothing to retry"),
        "{}",
        text(&retry)
    );
    let status = lodge_with(&db, &["status"]).await;
    assert!(text(&status).contains(", failed 0,"), "{}", text(&status));
    let json = lodge_with(&db, &["status", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["totals"]["failed"], 0, "{json}");
    // Still in the history, and a retry named by number still says why not.
    let history = text(&lodge_with(&db, &["history"]).await);
    assert_eq!(history.matches("failed").count(), 2, "{history}");
    let named = lodge_with(&db, &["retry", "1"]).await;
    assert_eq!(named.status.code(), Some(1), "{}", text(&named));
    assert!(text(&named).contains("scanned again"), "{}", text(&named));
    // The removed dataset's job names its folder, and its history is still there by its
    // number.
    let dropped = lab.path("dropped");
    let named = lodge_with(&db, &["retry", "2"]).await;
    assert_eq!(named.status.code(), Some(1), "{}", text(&named));
    assert!(
        text(&named).contains(&format!(
            "job 2 failed, but its dataset, dropped ({}), was removed from Lodge: add its \
             folder again",
            dropped.display()
        )),
        "{}",
        text(&named)
    );
    let history = lodge_with(&db, &["history", "2"]).await;
    let t = text(&history);
    assert!(history.status.success(), "{t}");
    assert!(
        t.contains("dataset 2 was removed from the list; what it left:"),
        "{t}"
    );
    assert_eq!(t.matches(" job ").count(), 1, "{t}");
    assert!(t.contains("job 2     failed    dropped (removed)"), "{t}");
    // A number no dataset ever had is still an error.
    let out = lodge_with(&db, &["history", "9"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // Its folder added again is another dataset: a retry names it and the deposit that
    // sends it, not "add its folder again".
    let (again, _) = add(&store, &dropped, &metadata("Dropped"));
    let named = lodge_with(&db, &["retry", "2"]).await;
    assert_eq!(named.status.code(), Some(1), "{}", text(&named));
    assert!(
        text(&named).contains(&format!(
            "was removed from Lodge; its folder is on the list again as dataset {again} \
             (dropped): deposit that, `lodge deposit --target"
        )) && text(&named).contains("or give this job up: `lodge dismiss 2`"),
        "{}",
        text(&named)
    );
}

/// A copy deposited through its twin's job (one deposit for both) and changed since is
/// "changed" in `status`, with the record its old content has, as the twin is: it was
/// "new", "not deposited anywhere yet", having no job of its own to remember it by.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_copy_deposited_through_its_twin_and_changed_since_is_changed_not_new() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let files: &[(&str, &[u8])] = &[("data.csv", b"id\n1\n")];
    add(&store, &lab.folder("original", files), &metadata("Copy"));
    let backup = lab.folder("backup", files);
    add(&store, &backup, &metadata("Copy"));
    let url = sandbox.target_url();
    deposit_all(&db, &url).await;

    std::fs::write(backup.join("data.csv"), b"id\n1\n2\n").unwrap();
    assert!(lodge_with(&db, &["scan", "2"]).await.status.success());
    let status = lodge_with(&db, &["status"]).await;
    let t = text(&status);
    let line = t
        .lines()
        .find(|l| l.contains(" backup "))
        .unwrap_or_default();
    assert!(line.contains(" changed "), "{t}");
    // No record and no job for the new content: the line has no gaps where they would be.
    assert!(line.ends_with(&format!(" {url} attempts 0")), "{line}");
    assert!(
        t.contains(&format!(
            "deposited as sbx-000001 under its earlier key (before its last rescan or metadata \
             edit); this content is not deposited here yet: `lodge deposit --target {url} 2`"
        )),
        "{t}"
    );
    let json = lodge_with(&db, &["status", "--state", "new", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["items"].as_array().unwrap().len(), 0, "{json}");

    // `show` lists the record of its earlier content as `status` names it (it said
    // "deposits: none yet"), with no citation: that record is not of this content.
    let show = text(&lodge_with(&db, &["show", "backup"]).await);
    assert!(!show.contains("deposits: none yet"), "{show}");
    assert!(
        show.contains(&format!("  (earlier, shared)    {url} sbx-000001 "))
            && show.contains(
                "through original's job 1: a copy that had the same key; this content is \
                 not deposited there yet"
            ),
        "{show}"
    );
    assert!(!show.contains("cite as: "), "{show}");
    let json = lodge_with(&db, &["show", "backup", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let shared = &json["deposited_through_copies"][0];
    assert_eq!(shared["identifier"], "sbx-000001");
    assert_eq!(shared["current_key"], false);
    assert!(shared["citation"].is_null(), "{json}");

    // Once its new content is deposited there, the earlier record stays listed but is no
    // longer said to leave this content undeposited.
    let out = lodge_with(&db, &["deposit", "--target", &url, "2"]).await;
    assert!(out.status.success(), "{}", text(&out));
    let show = text(&lodge_with(&db, &["show", "backup"]).await);
    assert!(
        show.contains("through original's job 1: a copy that had the same key\n"),
        "{show}"
    );
    assert!(!show.contains("not deposited there yet"), "{show}");
    assert!(show.contains("deposited  "), "its own deposit: {show}");
}

/// A dataset taken off the list leaves its record on the server (`remove` says so): a
/// weekly `verify --all` goes on checking it, named as removed, and finds it damaged when it
/// is.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn verify_all_goes_on_checking_the_records_of_a_removed_dataset() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("Kept"));
    let (gone, key) = add(&store, &lab.numbered_folder(2), &metadata("Taken off"));
    let url = sandbox.target_url();
    deposit_all(&db, &url).await;
    assert!(lodge_with(&db, &["remove", "2"]).await.status.success());

    let checked = lodge_with(&db, &["verify", "--all"]).await;
    let t = text(&checked);
    assert!(checked.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "intact   dataset 1 ds001 on ",
            "intact   dataset 2 ds002 (removed) on ",
        ],
    );

    // Its own data file (the README's bytes are ds001's too).
    let manifest = store.document(&key).unwrap().unwrap().manifest;
    let lost = manifest
        .iter()
        .find(|e| e.path == "data.csv")
        .unwrap()
        .sha256;
    std::fs::remove_file(sandbox.data_dir().join(format!("blobs/sha256/{lost}"))).unwrap();
    let checked = lodge_with(&db, &["verify", "--all"]).await;
    assert_eq!(checked.status.code(), Some(1), "{}", text(&checked));
    assert_all(
        &text(&checked),
        &[
            &format!("DAMAGED  dataset {gone} ds002 (removed) on "),
            "intact   dataset 1 ds001 on ",
        ],
    );
}

/// Two copies of one name (folders of one name in two places) are told apart by number
/// where one is reported through the other's deposit.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_copy_of_the_same_name_is_named_by_number_where_it_shares_the_deposit() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let copy_in = |parent: &str| {
        let folder = lab.path(parent).join("run12");
        fs::create_dir_all(&folder).unwrap();
        fs::write(folder.join("data.csv"), "id\n1\n").unwrap();
        folder
    };
    let (first, key) = add(&store, &copy_in("a"), &metadata("Copy"));
    let (_, same) = add(&store, &copy_in("b"), &metadata("Copy"));
    assert_eq!(key, same);

    let mut cmd = lodge(&db);
    cmd.args(["deposit", "--all", "--target", &sandbox.target_url()]);
    let t = text(&run(cmd).await);
    assert_all(
        &t,
        &[&format!(
            "deposited run12 -> sbx-000001 (same key as dataset {first} run12: one deposit for \
             both)"
        )],
    );
}

/// `lodge status` (its output `t`) reports dataset `name`, a copy of dataset 1
/// `original`, by the original's deposit: `existing` as `sbx-000001`, job 1 and its one
/// attempt, and a line naming the original.
fn reported_through_the_originals_job(t: &str, name: &str) {
    let line = (t.lines().find(|l| l.contains(&format!(" {name} ")))).unwrap_or_default();
    assert!(
        line.contains(" existing ") && line.ends_with(" sbx-000001 job 1 attempts 1"),
        "{name}: {t}"
    );
    assert_all(
        t,
        &[
            "the same key as dataset 1 original: its deposit (job 1) is this one's too (one \
           record for both)",
        ],
    );
}

/// A folder copied (or moved) after its deposit and added again: depositing the copy is a
/// replay of its own, and `status` reports it as it reports a copy deposited with the
/// original, by the job that made the record, with a line naming that dataset, not by the
/// replay's "attempts 0".
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_copy_added_after_the_deposit_and_replayed_is_reported_by_the_job_that_made_the_record() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let files: &[(&str, &[u8])] = &[("data.csv", b"id\n1\n")];
    add(&store, &lab.folder("original", files), &metadata("Copy"));
    let target = sandbox.target_url();
    deposit_all(&db, &target).await;
    add(&store, &lab.folder("later-copy", files), &metadata("Copy"));
    let replay = lodge_with(&db, &["deposit", "later-copy", "--target", &target]).await;
    assert!(
        text(&replay)
            .contains("existing  later-copy -> sbx-000001 (recorded already: no request sent)"),
        "{}",
        text(&replay)
    );

    let t = text(&lodge_with(&db, &["status"]).await);
    reported_through_the_originals_job(&t, "later-copy");
    let json = lodge_with(&db, &["status", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let items = json["items"].as_array().unwrap();
    assert_eq!(items[1]["name"], "later-copy", "{json}");
    assert_eq!(
        (&items[1]["job"], &items[1]["shared_with"]),
        (&1.into(), &1.into())
    );
    assert_eq!(items[1]["attempts"], 1, "{json}");

    // The original taken off the list, the folder added again and replayed: the deposit
    // shown is still the one that made the record.
    let removed = lodge_with(&db, &["remove", "original"]).await;
    assert!(removed.status.success(), "{}", text(&removed));
    add(&store, &lab.folder("original", files), &metadata("Copy"));
    deposit_all(&db, &target).await;
    let t = text(&lodge_with(&db, &["status"]).await);
    for name in [" original ", " later-copy "] {
        let again = (t.lines().find(|l| l.contains(name))).unwrap_or_default();
        assert!(
            again.contains(" existing ") && again.ends_with(" sbx-000001 job 1 attempts 1"),
            "{name}: {t}"
        );
    }
    assert_eq!(sandbox.stats().records, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_copies_with_one_key_make_one_record_and_each_is_reported_deposited_by_name() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let files: &[(&str, &[u8])] = &[("data.csv", b"id\n1\n")];
    let (_, key) = add(&store, &lab.folder("original", files), &metadata("Copy"));
    let (_, same) = add(&store, &lab.folder("backup", files), &metadata("Copy"));
    assert_eq!(key, same);

    let mut cmd = lodge(&db);
    cmd.args(["deposit", "--all", "--target", &sandbox.target_url()]);
    let out = run(cmd).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "deposited original -> sbx-000001\n",
            "deposited backup -> sbx-000001 (same key as original: one deposit for both)",
            "2 deposited; 1 of the 2 goes through another dataset's deposit of the same key (a \
             copy of its folder: one deposit for both)",
        ],
    );
    assert_eq!(sandbox.stats().records, 1);
    // `show` of the copy lists the deposit it shares (it said "none yet"), with how to cite it.
    let show = text(&lodge_with(&db, &["show", "backup"]).await);
    assert!(!show.contains("deposits: none yet"), "{show}");
    assert!(
        show.contains(&format!(
            "  (shared)             {} sbx-000001 ",
            sandbox.target_url()
        )) && show.contains("through original's job 1: a copy with the same key"),
        "{show}"
    );
    assert!(show.contains("cite as: "), "{show}");
    let json = lodge_with(&db, &["show", "backup", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        json["deposited_through_copies"][0]["identifier"],
        "sbx-000001"
    );
    assert_eq!(json["deposited_through_copies"][0]["job"], 1);
    assert_eq!(json["deposited_through_copies"][0]["current_key"], true);
    assert_eq!(sandbox.stats().requests, 2, "one blob, one record");

    let mut status = lodge(&db);
    status.arg("status");
    let t = text(&run(status).await);
    // With the job that landed it and its attempts (it read "attempts 0", naming no job),
    // and whose job that is.
    reported_through_the_originals_job(&t, "backup");
    let json = lodge_with(&db, &["status", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let items = json["items"].as_array().unwrap();
    assert_eq!(
        (&items[1]["job"], &items[1]["shared_with"]),
        (&1.into(), &1.into())
    );
    assert_eq!(items[0]["shared_with"], serde_json::Value::Null, "{json}");
    // The copy's deposit is the original's: verify checks it for either.
    let out = lodge_with(&db, &["verify", "backup"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("intact   dataset 2 backup on ") && t.contains("record sbx-000001"),
        "{t}"
    );
    let t = text(&lodge_with(&db, &["verify", "--all"]).await);
    assert!(
        t.contains("checking 1 deposit "),
        "one deposit, checked once: {t}"
    );

    // Where the shared job fails, the copy's line says whose job it is, and the retry
    // named is that one job.
    let failing = lab.failing_sandbox("down").await;
    let mut cmd = lodge(&db);
    cmd.args(["deposit", "--all", "--target", &failing.target_url()])
        .args(["--max-attempts", "1"]);
    let out = run(cmd).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let job = t
        .lines()
        .find_map(|l| l.strip_prefix("failed    original (job "))
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no failed line for the original in:\n{t}"));
    assert_all(
        &t,
        &[
            &format!(
                "failed    backup (job {job}) (same key as original: one deposit for both) at"
            ),
            // Two failed lines, one deposit to retry: said so, not "the failed item".
            &format!(
                "to retry the failed deposit (of 2 datasets: copies with the same key share \
                 one) with the same key: `lodge retry {job}`"
            ),
        ],
    );
    assert_eq!(failing.stats().records, 0);

    // `status` reports the copy by that job too: failed, not "new", and listed under the
    // target; the retry it names is the one job, once.
    let down = failing.target_url();
    let out = lodge_with(&db, &["status", "--target", &down]).await;
    let t = text(&out);
    let line = |name: &str| {
        t.lines()
            .find(|l| l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("no line for {name} in:\n{t}"))
            .to_string()
    };
    for name in ["original", "backup"] {
        assert!(
            line(name).contains(" failed ") && line(name).contains(&format!(" job {job} ")),
            "{t}"
        );
    }
    assert_all(
        &t,
        &[
            &format!(
                "the same key as dataset 1 original: its deposit (job {job}) is this one's \
                 too (one record for both)"
            ),
            &format!("`lodge retry {job}`"),
        ],
    );
    assert!(!t.contains(&format!("retry {job} {job}")), "{t}");
    let json = lodge_with(
        &db,
        &["status", "--target", &down, "--state", "failed", "--json"],
    )
    .await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let items = json["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{json}");
    assert_eq!(items[1]["name"], "backup");
    assert_eq!(items[1]["shared_with"], 1);
    assert_eq!(items[0]["shared_with"], serde_json::Value::Null);
    // `show` lists it among the copy's deposits, not "none yet" there.
    let show = text(&lodge_with(&db, &["show", "backup"]).await);
    assert!(!show.contains("deposits: none yet"), "{show}");
    assert_all(
        &show,
        &[
            &format!(
                "  job {job:<5} failed     {down} — original's job: a copy with the same key, \
                 one deposit for both"
            ),
            &format!("retry with the same key (for both): `lodge retry {job}`"),
        ],
    );
    let json = lodge_with(&db, &["show", "backup", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let pending = &json["pending_through_copies"];
    assert_eq!(pending.as_array().map(Vec::len), Some(1), "{json}");
    assert_eq!(pending[0]["state"], "failed");
    assert_eq!(pending[0]["dataset"], 1);
    // A retry of that job reports the copy as the deposit did.
    let mut retry = lodge(&db);
    retry.args(["retry", job, "--max-attempts", "1"]);
    let retried = text(&run(retry).await);
    assert_all(
        &retried,
        &[&format!(
            "failed    backup (job {job}) (same key as original: one deposit for both) at"
        )],
    );
    // So does its history, the job the original's, said to be the copy's too.
    let history = text(&lodge_with(&db, &["history", "backup", "--state", "failed"]).await);
    assert_all(
        &history,
        &[
            &format!(" job {job:<5} failed    original "),
            "backup's deposit too (dataset 2, a copy with the same key: one deposit for both)",
        ],
    );
    // The original removed, its failed job is the copy's to send, by a deposit of its own:
    // `remove` says so, and so does a retry of that job (which is refused).
    let removed = text(&lodge_with(&db, &["remove", "original"]).await);
    assert_all(
        &removed,
        &[&format!(
            "note: its failed deposit, job {job}, was also dataset 2 backup's (the same key): \
             `lodge deposit --target {down} 2` sends it"
        )],
    );
    let retried = lodge_with(&db, &["retry", job]).await;
    assert_all(
        &text(&retried),
        &[&format!(
            "dataset 2 (backup) has the same content (the same key): deposit that, `lodge \
             deposit --target {down} 2`"
        )],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn incomplete_metadata_is_refused_before_queueing_with_one_line_per_problem() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let folder = lab.numbered_folder(2);
    let added = run({
        let mut c = lodge(&db);
        c.arg("add").arg(&folder).args(["--title", "Only a title"]);
        c
    })
    .await;
    assert!(added.status.success(), "{}", text(&added));
    let out_text = text(&added);
    assert!(
        out_text.contains("creators: at least one creator is required"),
        "{out_text}"
    );
    assert!(out_text.contains("publisher: is required"), "{out_text}");
    assert!(
        out_text.contains("publication_year: is required"),
        "{out_text}"
    );

    let out = lodge_with(
        &db,
        &["deposit", "--all", "--target", &sandbox.target_url()],
    )
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("refused  ds002: metadata incomplete"));
    assert_eq!(sandbox.stats().requests, 0);

    // Its folder moved away: `lodge add` cannot take it where it was, so the fix named is
    // to add it where it is now, which takes its metadata with it.
    let moved = lab.path("moved-ds002");
    std::fs::rename(&folder, &moved).unwrap();
    let out = lodge_with(
        &db,
        &["deposit", "--all", "--target", &sandbox.target_url()],
    )
    .await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains(&format!(
            "its folder {} is gone: `lodge add` it where it is now, with the flags named \
             above (it takes the dataset's metadata with it)",
            folder.display()
        )),
        "{t}"
    );
    assert!(!t.contains("fix with `lodge add"), "{t}");
    let out = run({
        let mut c = lodge(&db);
        c.arg("add").arg(&moved).args([
            "--creator",
            "Curie, Marie",
            "--publisher",
            "Lab",
            "--year",
            "2026",
        ]);
        c
    })
    .await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("metadata taken from dataset"), "{t}");
    assert!(!t.contains("metadata incomplete"), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn add_prints_id_and_full_key_and_status_history_and_log_report_the_deposit() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let folder = lab.numbered_folder(3);
    let added = run({
        let mut c = lodge(&db);
        c.arg("add").arg(&folder).args([
            "--title",
            "Three",
            "--creator",
            "Curie, Marie; orcid=0000-0002-1825-0097",
            "--publisher",
            "Lab",
            "--year",
            "2026",
            "--keyword",
            "soil",
        ]);
        c
    })
    .await;
    assert!(added.status.success(), "{}", text(&added));
    let first = String::from_utf8_lossy(&added.stdout)
        .lines()
        .next()
        .unwrap()
        .to_string();
    let parts: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(parts[..3], ["dataset", "1", "key"]);
    assert_eq!(parts[3].len(), 64);
    assert!(parts[3].chars().all(|c| c.is_ascii_hexdigit()));

    let out = lodge_with(
        &db,
        &["deposit", "--all", "--target", &sandbox.target_url()],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("deposited ds003 -> sbx-000001"));

    let status = lodge_with(&db, &["status", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let item = &json["items"][0];
    for field in [
        "dataset",
        "path",
        "key",
        "target",
        "state",
        "identifier",
        "attempts",
        "last_error",
    ] {
        assert!(
            item.get(field).is_some(),
            "status item lacks {field}: {item}"
        );
    }
    assert_eq!(item["key"], parts[3]);
    assert_eq!(item["state"], "deposited");
    for field in [
        "replays",
        "conflicts",
        "found_by_lookup",
        "retries",
        "failed",
        "rejected",
        "oldest_pending_age_secs",
    ] {
        assert!(json["totals"].get(field).is_some(), "totals lack {field}");
    }

    let csv = lodge_with(&db, &["history", "--csv"]).await;
    let csv = String::from_utf8_lossy(&csv.stdout).to_string();
    assert!(csv.starts_with("job,dataset,name,title,target,key,state,identifier"));
    assert!(csv.contains("sbx-000001"));
    // A title a spreadsheet would run as a formula is written as text.
    let store = lab.store("lodge.db");
    add(
        &store,
        &lab.folder("formula", &[("f.csv", b"1")]),
        &metadata("=HYPERLINK(\"http://example.org\",\"x\")"),
    );
    let deposited = lodge_with(
        &db,
        &["deposit", "--all", "--target", &sandbox.target_url()],
    )
    .await;
    assert!(deposited.status.success(), "{}", text(&deposited));
    let csv = lodge_with(&db, &["history", "--csv"]).await;
    let csv = String::from_utf8_lossy(&csv.stdout).to_string();
    assert!(
        csv.contains("\"'=HYPERLINK(\"\"http://example.org\"\""),
        "{csv}"
    );
    // The JSON has each time as stored (ms) and as the CSV writes it.
    let json = lodge_with(&db, &["history", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let row = &json[0];
    assert!(row["created_at"].is_i64(), "{row}");
    for field in ["created", "updated"] {
        let when = row[field]
            .as_str()
            .unwrap_or_else(|| panic!("{field}: {row}"));
        assert!(when.ends_with('Z') && csv.contains(when), "{when} in {csv}");
    }

    let log = lodge_with(&db, &["log"]).await;
    let log = String::from_utf8_lossy(&log.stdout).to_string();
    assert!(
        log.contains("queued") && log.contains("attempt") && log.contains("created sbx-000001")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn failed_items_are_retried_with_one_command_and_the_same_key() {
    let lab = Lab::new();
    let sandbox = lab.failing_sandbox("sbx").await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let (_, key) = add(&store, &lab.numbered_folder(4), &metadata("Four"));
    let out = run({
        let mut c = lodge(&db);
        c.args([
            "deposit",
            "--all",
            "--target",
            &sandbox.target_url(),
            "--max-attempts",
            "2",
        ])
        .args(FAST);
        c
    })
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("failed    ds004 (job 1)"),
        "{}",
        text(&out)
    );
    assert!(
        text(&out).contains("retry_scheduled ds004: job 1 retry in"),
        "the live log shows the retry, naming the dataset: {}",
        text(&out)
    );

    // Retried while the server still fails, the round gives up after its own attempts and
    // says how many were made in all.
    let out = run({
        let mut c = lodge(&db);
        c.args(["retry", "1", "--max-attempts", "1"]).args(FAST);
        c
    })
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let failed = store.job(1).unwrap();
    assert_eq!((failed.attempts, failed.attempts_in_all()), (1, 3));
    let cause = failed.last_error.unwrap_or_default();
    assert!(
        cause.starts_with("gave up after 1 attempt (3 in all); last:"),
        "{cause}"
    );
    let show = text(&lodge_with(&db, &["show", "ds004", "--json"]).await);
    let show: serde_json::Value = serde_json::from_str(&show).unwrap();
    assert_eq!(show["deposits"][0]["attempts"], 3, "{show:#}");

    sandbox.set_faults(FaultConfig::default());
    let out = run({
        let mut c = lodge(&db);
        c.args(["retry", "--all-failed"]).args(FAST);
        c
    })
    .await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("re-queued 1 job with the same key"));
    let job = store.job(1).unwrap();
    assert_eq!(job.key, key);
    assert_eq!(job.state, lodge::store::JobState::Deposited);
    assert_eq!(sandbox.stats().records, 1);
    // The retry's round started its count again; the history and the status count the
    // three attempts before it too.
    assert_eq!(job.attempts, 1);
    let history = text(&lodge_with(&db, &["history"]).await);
    assert!(history.contains(" (4 attempts)"), "{history}");
    let status = text(&lodge_with(&db, &["status", "--json"]).await);
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["items"][0]["attempts"], 4, "{status:#}");

    // Nothing failed any more: the command says so rather than "re-queued 0 jobs".
    let out = run({
        let mut c = lodge(&db);
        c.args(["retry", "--all-failed"]).args(FAST);
        c
    })
    .await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("no failed jobs: nothing to retry"),
        "{}",
        text(&out)
    );

    // Named, a job that landed is left alone and the reply says what it is.
    let identifier = job.identifier.expect("deposited");
    let out = run({
        let mut c = lodge(&db);
        c.args(["retry", "1"]).args(FAST);
        c
    })
    .await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            &format!("job 1 is deposited as {identifier}: nothing to retry"),
            "nothing to retry: only failed jobs are retried",
        ],
    );
    assert!(!t.contains("re-queued"), "{t}");
    assert_eq!(sandbox.stats().records, 1);
}

/// One dataset (its id) deposited twice, one attempt each, into a sandbox that fails every
/// request: jobs 1 and 2, both failed, for one key.
async fn one_key_failed_twice() -> (Lab, lodge::sandbox::RunningSandbox, i64) {
    let lab = Lab::new();
    let sandbox = lab.failing_sandbox("sbx").await;
    let db = lab.path("lodge.db");
    let (id, _) = add(
        &lab.store("lodge.db"),
        &lab.numbered_folder(1),
        &metadata("N1"),
    );
    for job in 1..=2 {
        let mut c = lodge(&db);
        c.args([
            "deposit",
            "--target",
            &sandbox.target_url(),
            &id.to_string(),
        ])
        .args(["--max-attempts", "1"])
        .args(FAST);
        assert_eq!(run(c).await.status.code(), Some(1), "job {job} fails");
    }
    (lab, sandbox, id)
}

/// A failed item deposited again (rather than retried) that fails again: the later job is
/// the one the status shows and the one `retry --all-failed` sends; the first is history,
/// and a retry of it by number names the later one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_item_deposited_again_and_failed_again_is_retried_by_its_later_job() {
    let (lab, sandbox, id) = one_key_failed_twice().await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");

    let status = text(&lodge_with(&db, &["status"]).await);
    assert!(status.contains("`lodge retry 2`"), "{status}");
    assert!(!status.contains("lodge retry 1"), "{status}");
    let json: serde_json::Value =
        serde_json::from_slice(&lodge_with(&db, &["status", "--json"]).await.stdout).unwrap();
    assert_eq!(json["totals"]["failed"], 1, "{json}");

    let t = text(&lodge_with(&db, &["retry", "1", "--queue-only"]).await);
    assert!(
        t.contains(
            "job 1 failed, but its key was deposited again since, as job 2 (failed): that is \
             the one to retry, `lodge retry 2`"
        ),
        "{t}"
    );
    let t = text(&lodge_with(&db, &["retry", "--all-failed", "--queue-only"]).await);
    assert!(t.contains("re-queued 1 job"), "{t}");
    assert_eq!(store.job(2).unwrap().state, lodge::store::JobState::Queued);
    assert_eq!(store.job(1).unwrap().state, lodge::store::JobState::Failed);
    // With the later one on the queue, a retry of the first names the deposit that sends it.
    let t = text(&lodge_with(&db, &["retry", "1", "--queue-only"]).await);
    assert!(
        t.contains(&format!(
            "job 1 failed, but job 2 for the same key is queued, still to be done: `lodge \
             deposit --target {} {id}` runs it",
            sandbox.target_url()
        )),
        "{t}"
    );
}

/// `lodge retry 1 2` of two failed jobs for one key: the newer is sent, the older is said
/// to be retried as it, and the command exits 0 once that lands.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn retrying_two_failed_jobs_of_one_key_sends_the_newer_and_succeeds_when_it_lands() {
    let (lab, sandbox, _) = one_key_failed_twice().await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    sandbox.set_faults(FaultConfig::default());
    let out = lodge_with(&db, &["retry", "1", "2"]).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(
        t.contains("job 1 is retried as job 2, the newer job for the same key"),
        "{t}"
    );
    assert_eq!(
        store.job(2).unwrap().state,
        lodge::store::JobState::Deposited
    );
    assert_eq!(sandbox.stats().records, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn several_failed_items_end_with_one_command_that_retries_them_all() {
    let lab = Lab::new();
    let sandbox = lab.failing_sandbox("sbx").await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let ids: Vec<i64> = (1..=3)
        .map(|n| add(&store, &lab.numbered_folder(n), &metadata(&format!("N{n}"))).0)
        .collect();
    let deposit = |datasets: &[i64]| {
        let mut c = lodge(&db);
        c.args(["deposit", "--target", &sandbox.target_url()])
            .args(datasets.iter().map(i64::to_string))
            .args(["--max-attempts", "1"])
            .args(FAST);
        run(c)
    };

    // One failure: its own line names the command, and no second line repeats it.
    let t = text(&deposit(&ids[..1]).await);
    assert!(t.contains("retry with `lodge retry 1`"), "{t}");
    assert!(!t.contains("to retry the"), "{t}");
    let status = || lodge_with(&db, &["status"]);
    // `status` has no line per failure that names it: it ends with the command.
    let t = text(&status().await);
    assert!(
        t.contains("to retry the failed item with the same key: `lodge retry 1`"),
        "{t}"
    );

    // Two more, with job 1 still failed from before: the command names this batch's jobs.
    let t = text(&deposit(&ids[1..]).await);
    assert!(
        t.contains("to retry the 2 failed with the same keys: `lodge retry 2 3`"),
        "{t}"
    );

    // Retried and failed again, the three are every failed job there is: --all-failed
    // says it shorter.
    let retry_all = || {
        let mut c = lodge(&db);
        c.args(["retry", "--all-failed", "--max-attempts", "1"])
            .args(FAST);
        run(c)
    };
    let t = text(&retry_all().await);
    assert!(t.contains("re-queued 3 jobs"), "{t}");
    assert!(
        t.contains("to retry the 3 failed with the same keys: `lodge retry --all-failed`"),
        "{t}"
    );
    let t = text(&status().await);
    assert!(
        t.contains("to retry the 3 failed with the same keys: `lodge retry --all-failed`"),
        "{t}"
    );

    // The command it gives does what it says.
    sandbox.set_faults(FaultConfig::default());
    let out = retry_all().await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().records, 3);
    assert!(
        !text(&status().await).contains("to retry"),
        "nothing is left to retry"
    );

    // Deposited again rather than retried, a failed item gets a new job; once that lands,
    // the failed one has nothing left to do, and naming it says why.
    let (fourth, _) = add(&store, &lab.numbered_folder(4), &metadata("N4"));
    sandbox.set_faults(FaultConfig {
        fail_before_commit: 1.0,
        ..FaultConfig::default()
    });
    assert_eq!(
        deposit(&[fourth]).await.status.code(),
        Some(1),
        "job 4 fails"
    );
    let show = || lodge_with(&db, &["show", &fourth.to_string()]);
    let t = text(&show().await);
    assert!(
        t.contains("retry with the same key: `lodge retry 4`"),
        "{t}"
    );
    sandbox.set_faults(FaultConfig::default());
    assert!(deposit(&[fourth]).await.status.success(), "job 5 lands");
    let t = text(&show().await);
    assert!(t.contains("landed since by job 5 as sbx-"), "{t}");
    assert!(!t.contains("lodge retry 4"), "{t}");
    let t = text(&retry_all().await);
    assert!(t.contains("no failed jobs: nothing to retry"), "{t}");
    // The totals agree: job 4 is no dead letter any more.
    let json: serde_json::Value =
        serde_json::from_slice(&lodge_with(&db, &["status", "--json"]).await.stdout).unwrap();
    assert_eq!(json["totals"]["failed"], 0, "{json}");
    let out = run({
        let mut c = lodge(&db);
        c.args(["retry", "4"]).args(FAST);
        c
    })
    .await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("job 4 failed, but its key was deposited there since by job 5, as sbx-"),
        "{t}"
    );
    assert_eq!(sandbox.stats().records, 4);

    // A job queued after the key landed (by a Lodge that queued replays, and a run of it
    // stopped before the replay), then cancelled, comes after the deposit: the answer does
    // not say "since". Written into the file as that Lodge left it.
    let landed = store.job(5).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "INSERT INTO jobs (dataset_id, target, operation, content_key, state, deadline,
                               due_at, created_at, updated_at)
             VALUES (?1, ?2, 'deposit', ?3, 'queued', 0, 0, 0, 0)",
            rusqlite::params![fourth, landed.target, landed.key.to_hex()],
        )
        .unwrap();
    let later = 6;
    assert!(
        lodge_with(&db, &["cancel", &later.to_string()])
            .await
            .status
            .success()
    );
    let t = text(&lodge_with(&db, &["retry", &later.to_string()]).await);
    assert!(
        t.contains(&format!(
            "job {later} failed, but its key was deposited there already, by job 5 before it, \
             as sbx-"
        )),
        "{t}"
    );
    let t = text(&show().await);
    assert!(t.contains("landed already by job 5 as sbx-"), "{t}");
    assert_eq!(sandbox.stats().records, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dataset_edited_before_its_first_deposit_is_rejected_with_the_rescan_that_fixes_it() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(1);
    let (id, _) = add(&store, &folder, &metadata("One"));
    fs::write(folder.join("data.csv"), "id,value\n1,2\n").unwrap();
    let deposit = || {
        let mut c = lodge(&db);
        c.args(["deposit", "--all", "--target", &sandbox.target_url()]);
        run(c)
    };
    let out = deposit().await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "rejected  ds001 (job 1)",
            "changed since scan",
            &format!("— `lodge scan {id}`, then deposit again"),
        ],
    );
    assert_eq!(sandbox.stats().records, 0);

    // A rejected job is not retried, and the command says so with a failing exit status:
    // the job is not done, and a script should not carry on as if it were.
    let out = run({
        let mut c = lodge(&db);
        c.args(["retry", "1"]);
        c
    })
    .await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "job 1 was rejected (changed since scan: ",
            &format!("not what the folder holds — `lodge scan {id}`, then deposit again"),
            "nothing to retry: only failed jobs are retried",
        ],
    );
    assert!(
        !t.contains("the server would refuse"),
        "Lodge refused it: {t}"
    );
    assert_eq!(sandbox.stats().records, 0);

    // The command it names, then the deposit again: the folder as it is now lands. Between
    // the two, a retry of the refused job names that deposit, not the rescan made already;
    // after, it says what landed.
    let mut scan = lodge(&db);
    scan.args(["scan", &id.to_string()]);
    assert!(run(scan).await.status.success());
    let retry = || lodge_with(&db, &["retry", "1"]);
    assert_all(
        &text(&retry().await),
        &[&format!(
            "its dataset was scanned again since: `lodge deposit --target {} {id}` sends it as \
             it is now",
            sandbox.target_url()
        )],
    );
    let out = deposit().await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().records, 1);
    assert_all(
        &text(&retry().await),
        &["its content as it is now is deposited there as sbx-000001: nothing to retry"],
    );
    // The refusal no longer stands (its key is not the dataset's): history, not a total
    // a monitor would stay red on.
    let status = text(&lodge_with(&db, &["status"]).await);
    assert!(status.contains(", rejected 0,"), "{status}");

    // A folder moved away since its scan: no rescan can help, so none is suggested; the
    // refusal says what can.
    let moved = lab.numbered_folder(2);
    let (_, _) = add(&store, &moved, &metadata("Two"));
    fs::rename(&moved, moved.with_extension("moved")).unwrap();
    let t = text(&deposit().await);
    assert_all(
        &t,
        &[
            "rejected  ds002",
            "the dataset's folder is gone",
            "lodge add NEWPATH",
        ],
    );
    assert!(!t.contains("`lodge scan"), "{t}");
    assert!(
        !t.contains("rescan"),
        "a folder that is gone cannot be rescanned: {t}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_job_of_a_dataset_rescanned_since_is_not_requeued_and_the_reply_says_how_to_deposit_it_now()
 {
    let lab = Lab::new();
    let sandbox = lab.failing_sandbox("sbx").await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(4);
    let (id, old_key) = add(&store, &folder, &metadata("Four"));
    let deposit = |db: &std::path::Path| {
        let mut c = lodge(db);
        c.args(["deposit", "--all", "--target", &sandbox.target_url()])
            .args(["--max-attempts", "1"])
            .args(FAST);
        c
    };
    assert_eq!(run(deposit(&db)).await.status.code(), Some(1));
    assert_eq!(store.job(1).unwrap().state, lodge::store::JobState::Failed);

    // New metadata: the dataset's key moves on, and job 1's content is no longer what the
    // folder holds. Retrying it could only end in a refusal, so it stays as it is.
    let (_, new_key) = add(&store, &folder, &metadata("Four, revised"));
    assert_ne!(new_key, old_key);
    sandbox.set_faults(FaultConfig::default());
    let requests = sandbox.stats().requests;
    for by in [&["--all-failed"][..], &["1"][..]] {
        let out = run({
            let mut c = lodge(&db);
            c.arg("retry").args(by).args(FAST);
            c
        })
        .await;
        let t = text(&out);
        assert_eq!(out.status.code(), Some(1), "the job is not done: {t}");
        assert_all(
            &t,
            &[
                &format!(
                    "job 1 failed, but ds004 was scanned again since it was queued and its key \
                     changed ({}, now {})",
                    old_key.short(),
                    new_key.short()
                ),
                &format!("`lodge deposit --target {} {id}`", sandbox.target_url()),
                "nothing was re-queued",
            ],
        );
        assert!(!t.contains("re-queued 1"), "{t}");
    }
    assert_eq!(store.job(1).unwrap().state, lodge::store::JobState::Failed);
    assert_eq!(store.job(1).unwrap().key, old_key);
    assert_eq!(sandbox.stats().requests, requests, "nothing was sent");

    // `show` gives the same advice, not the `lodge retry 1` that would be refused.
    let shown = text(&lodge_with(&db, &["show", &id.to_string()]).await);
    assert!(
        shown.contains(&format!(
            "scanned again since: deposit the folder as it is now (`lodge deposit --target {} \
             {id}`)",
            sandbox.target_url()
        )),
        "{shown}"
    );
    assert!(!shown.contains("lodge retry 1"), "{shown}");

    // The command it names deposits the folder as it is now.
    let out = run(deposit(&db)).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().records, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_folders_are_clear_errors_that_record_nothing() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let missing = run({
        let mut c = lodge(&db);
        c.arg("add").arg(lab.path("no-such-folder"));
        c
    })
    .await;
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        text(&missing).contains("no-such-folder"),
        "{}",
        text(&missing)
    );

    std::fs::create_dir_all(lab.path("empty/.git")).unwrap();
    std::fs::write(lab.path("empty/.DS_Store"), b"x").unwrap();
    let empty = run({
        let mut c = lodge(&db);
        c.arg("add").arg(lab.path("empty"));
        c
    })
    .await;
    assert_eq!(empty.status.code(), Some(2));
    assert!(text(&empty).contains("empty"), "{}", text(&empty));

    let bad_target = lodge_with(&db, &["deposit", "--all", "--target", "ftp://example"]).await;
    assert_eq!(bad_target.status.code(), Some(2));
    assert!(
        text(&bad_target).contains("sandbox+http://"),
        "{}",
        text(&bad_target)
    );

    let store = lab.store("lodge.db");
    assert!(
        store.datasets().unwrap().is_empty(),
        "nothing half-recorded"
    );
}

/// A child process stopped when the test ends, passing or not: a failed assertion must not
/// leave a sandbox running, holding the test run's output open.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The five lines `lodge sandbox` prints when it starts, after which its standard output is
/// closed; the sandbox is stopped if they do not all come.
async fn sandbox_banner(child: &mut std::process::Child) -> Vec<String> {
    let stdout = child.stdout.take().unwrap();
    let read = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        let lines = std::io::BufReader::new(stdout).lines();
        lines.take(5).map_while(Result::ok).collect::<Vec<_>>()
    });
    match tokio::time::timeout(std::time::Duration::from_secs(20), read).await {
        Ok(lines) => lines.unwrap(),
        Err(_) => {
            child.kill().unwrap();
            panic!("lodge sandbox printed fewer than five lines in 20 s");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_command_serves_and_rejects_bad_options_by_name() {
    let lab = Lab::new();
    let a_file = lab.path("notes.txt");
    std::fs::write(&a_file, "notes").unwrap();
    let refused: [(&[&str], PathBuf, &[&str]); 3] = [
        (
            &["--drop-after-commit", "1.5"],
            lab.path("sbx"),
            &["--drop-after-commit", "not a probability"],
        ),
        (
            &["--token", ""],
            lab.path("sbx"),
            &["--token", "the token is empty"],
        ),
        (
            &[],
            a_file.clone(),
            &["the sandbox data folder", "is a file", "give a folder"],
        ),
    ];
    for (options, data, said) in refused {
        let bad = run({
            let mut c = lodge(&lab.path("x.db"));
            c.args(["sandbox", "--addr", "127.0.0.1:0"])
                .args(options)
                .arg("--data")
                .arg(&data);
            c
        })
        .await;
        let t = text(&bad);
        assert_eq!(bad.status.code(), Some(2), "{options:?}: {t}");
        assert_all(&t, said);
    }
    assert_eq!(
        std::fs::read(&a_file).unwrap(),
        b"notes",
        "the file is untouched"
    );
    // Every network interface is refused: the sandbox is for this machine.
    let everywhere = run({
        let mut c = lodge(&lab.path("x.db"));
        c.args(["sandbox", "--addr", "0.0.0.0:0", "--data"])
            .arg(lab.path("sbx"));
        c
    })
    .await;
    assert_eq!(everywhere.status.code(), Some(2), "{}", text(&everywhere));
    assert_all(
        &text(&everywhere),
        &[
            "--addr",
            "loopback only, not on 0.0.0.0",
            "give 127.0.0.1:0",
        ],
    );

    let mut child = lodge(&lab.path("x.db"))
        .args(["sandbox", "--addr", "127.0.0.1:0", "--data"])
        .arg(lab.path("sbx"))
        .stdout(Stdio::piped())
        .spawn()
        .map(KillOnDrop)
        .unwrap();
    let said = sandbox_banner(&mut child.0).await;
    let line = &said[0];
    assert!(
        line.starts_with("Lodge sandbox listening on http://127.0.0.1:"),
        "{line}"
    );
    // Its stdout is closed now (the reader is gone); it keeps serving all the same.
    let base = line
        .trim_start_matches("Lodge sandbox listening on ")
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    // The next line says how to deposit into it.
    let target = base.replace("http://", "sandbox+http://");
    assert_eq!(
        said[1],
        format!("Deposit here: lodge deposit --target {target} --all")
    );
    // Then its emulations, each line a command that deposits there as it is (the default
    // DataCite password is no secret).
    assert!(
        said[2].starts_with("DataCite emulation: lodge deposit --target 'datacite+"),
        "{}",
        said[2]
    );
    assert!(
        said[3].starts_with("InvenioRDM emulation: lodge deposit --target invenio+"),
        "{}",
        said[3]
    );
    // The last, where a person sees its records.
    assert_eq!(said[4], format!("Its records in a browser: {base}/"));
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    // Each command, pasted as it is (with --dry-run added), runs: it names what to deposit.
    let db = lab.path("banner.db");
    let folder = lab.folder("banner", &[("a.csv", b"1,2\n")]);
    let added = lodge_with(&db, &add_titled(&folder, "Banner")).await;
    assert!(added.status.success(), "{}", text(&added));
    for line in &said[1..4] {
        let command = line.split_once(": lodge ").unwrap().1;
        let args: Vec<&str> = command.split(' ').map(|a| a.trim_matches('\'')).collect();
        let dry = run({
            let mut c = lodge(&db);
            c.args(&args).arg("--dry-run");
            c
        })
        .await;
        assert!(dry.status.success(), "{line}: {}", text(&dry));
    }
    let stats = reqwest::get(format!("{base}/stats")).await.unwrap();
    assert!(stats.status().is_success(), "{}", stats.status());
    assert!(child.0.try_wait().unwrap().is_none(), "the sandbox exited");
    drop(child);

    // Started with a token, it says where the token goes, and its records page takes the
    // token as a browser's password.
    let mut child = lodge(&lab.path("x.db"))
        .args([
            "sandbox",
            "--addr",
            "127.0.0.1:0",
            "--token",
            "s3cret",
            "--datacite-password",
            "mine",
            "--data",
        ])
        .arg(lab.path("sbx-token"))
        .stdout(Stdio::piped())
        .spawn()
        .map(KillOnDrop)
        .unwrap();
    let said = sandbox_banner(&mut child.0).await;
    assert!(said[1].ends_with(" --token TOKEN --all"), "{}", said[1]);
    // A DataCite password of the person's own is not printed.
    assert!(
        said[2].ends_with(
            " --token PASSWORD --all (PASSWORD: the one given with --datacite-password)"
        ),
        "{}",
        said[2]
    );
    let page = said[4]
        .strip_prefix("Its records in a browser: ")
        .and_then(|rest| {
            rest.strip_suffix(" (a browser asks for a user name, any, and a password: the token)")
        })
        .unwrap_or_else(|| panic!("{}", said[4]))
        .to_string();
    let c = reqwest::Client::new();
    let asked = c.get(&page).send().await.unwrap();
    assert_eq!(asked.status(), reqwest::StatusCode::UNAUTHORIZED);
    let shown = c
        .get(&page)
        .basic_auth("anyone", Some("s3cret"))
        .send()
        .await
        .unwrap();
    assert!(shown.status().is_success(), "{}", shown.status());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forgotten_results_leave_the_records_and_a_new_deposit_is_answered_existing_by_the_server()
{
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("One"));
    add(&store, &lab.numbered_folder(2), &metadata("Two"));
    let deposit = || {
        let mut c = lodge(&db);
        c.args(["deposit", "--all", "--target", &sandbox.target_url()])
            .args(FAST);
        c
    };
    let first = run(deposit()).await;
    assert!(first.status.success(), "{}", text(&first));
    let identifiers: Vec<_> = (1..=2)
        .map(|job| store.job(job).unwrap().identifier.expect("deposited"))
        .collect();

    // An age no result has reached yet forgets nothing, in years as much as in days (a
    // lab's policy is often years; a year was the most it took).
    for age in ["1d", "2years"] {
        let keep = lodge_with(&db, &["forget", "--older-than", age, "--yes"]).await;
        assert!(keep.status.success(), "{age}: {}", text(&keep));
        assert!(
            text(&keep).contains("nothing to forget: no result was recorded longer ago than"),
            "{}",
            text(&keep)
        );
    }
    // An age with no unit says how to write one.
    let unitless = lodge_with(&db, &["forget", "--older-than", "90"]).await;
    assert!(!unitless.status.success());
    assert!(
        text(&unitless).contains("write e.g. 90d"),
        "{}",
        text(&unitless)
    );
    let keep = lodge_with(&db, &["forget", "--older-than", "1d"]).await;
    assert!(
        !text(&keep).contains("nothing was ever deposited"),
        "{}",
        text(&keep)
    );
    // A target this database never used (a typo in the port): said, not just "0".
    let other = "sandbox+http://127.0.0.1:1";
    let typo = lodge_with(&db, &["forget", "--older-than", "0s", "--target", other]).await;
    assert_all(
        &text(&typo),
        &[
            "nothing to forget: no result was recorded longer ago than 0s",
            "note: nothing was ever deposited to sandbox+http://127.0.0.1:1",
            "from this database; the targets it has used: sandbox+http://127.0.0.1:",
        ],
    );
    let before = sandbox.stats().requests;
    let replay = run(deposit()).await;
    assert_eq!(
        sandbox.stats().requests,
        before,
        "a replay sends nothing: {}",
        text(&replay)
    );

    // Without --yes, what would be forgotten is said, with the command that does it, and
    // nothing is forgotten.
    let asked = lodge_with(&db, &["forget", "--older-than", "0s"]).await;
    assert_eq!(asked.status.code(), Some(1), "{}", text(&asked));
    assert_all(
        &text(&asked),
        &[
            "would forget 2 recorded results:",
            &format!("  2 of {}", sandbox.target_url()),
            "nothing was forgotten: a deposit run again of a forgotten key asks the server \
             instead of replaying the record. To forget them: `lodge forget --older-than 0s \
             --yes`",
        ],
    );
    assert_eq!(store.result_fingerprints().unwrap().len(), 2, "both kept");
    let forget = lodge_with(&db, &["forget", "--older-than", "0s", "--yes"]).await;
    assert!(forget.status.success(), "{}", text(&forget));
    assert_all(
        &text(&forget),
        &["forgot 2 recorded results; the servers still hold the records"],
    );
    // The log keeps what went, and why.
    let log = lodge_with(&db, &["log", "--json"]).await;
    let forgotten: Vec<serde_json::Value> = String::from_utf8_lossy(&log.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["kind"] == "forgotten")
        .collect();
    assert_eq!(forgotten.len(), 1, "{}", text(&log));
    assert_eq!(forgotten[0]["target"], sandbox.target_url().as_str());
    assert_eq!(
        forgotten[0]["message"],
        "2 recorded results forgotten (`lodge forget --older-than 0s`): a deposit of their \
         keys asks the server again; the records stay there"
    );
    // An age in `m` is refused: minutes or months?
    let ambiguous = lodge_with(&db, &["forget", "--older-than", "6m", "--yes"]).await;
    assert_eq!(ambiguous.status.code(), Some(2), "{}", text(&ambiguous));
    assert_all(&text(&ambiguous), &["write 6months, or 6min for minutes"]);

    // With nothing recorded locally, the deposit goes to the server, which arbitrates: the
    // records it holds answer "exists", and no second record is made.
    let again = run(deposit()).await;
    assert!(again.status.success(), "{}", text(&again));
    assert_all(
        &text(&again),
        &[
            &format!(
                "existing  ds001 -> {} (the server already had it)",
                identifiers[0]
            ),
            &format!(
                "existing  ds002 -> {} (the server already had it)",
                identifiers[1]
            ),
            "2 existing",
        ],
    );
    let stats = sandbox.stats();
    assert_eq!((stats.records, stats.conflicts), (2, 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_found_after_a_lost_answer_is_reported_as_this_runs_own_not_someone_elses() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    // Big enough that its blob is looked up with HEAD: once the first dataset has sent it,
    // the second dataset's only PUT is its record.
    let big = vec![7u8; 2 << 20];
    let folder = lab.folder("big", &[("big.bin", &big)]);
    let (first, _) = add(&store, &folder, &metadata("First title"));
    let deposit = |dataset: i64| {
        let mut c = lodge(&db);
        c.args(["deposit", "--target", &sandbox.target_url()])
            .args(FAST)
            .arg(dataset.to_string());
        run(c)
    };
    let out = deposit(first).await;
    assert!(out.status.success(), "{}", text(&out));

    // Every write now commits and then loses its answer: the record the first attempt made
    // is found by the lookup before the second.
    let (second, _) = add(&store, &folder, &metadata("Second title"));
    sandbox.set_faults(FaultConfig {
        drop_after_commit: 1.0,
        ..FaultConfig::default()
    });
    let out = deposit(second).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "existing  big -> sbx-000002 (found after an attempt whose answer was lost: made \
             by that attempt, or by an earlier deposit of the same content)",
            // The totals say the record may have been made by this run, not only found there.
            "1 existing; 1 of the existing found after an attempt whose answer was lost (made \
             by it, or by an earlier deposit of the same content)",
        ],
    );
    assert!(!t.contains("the server already had it"), "{t}");
    assert_eq!(sandbox.stats().records, 2, "no duplicate record");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_prints_what_a_deposit_will_send_and_every_deposit_of_the_dataset() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    // 22 files: more than `show` lists unless asked.
    let files: Vec<(String, Vec<u8>)> = (0..22)
        .map(|i| (format!("part-{i:02}.csv"), format!("{i}\n").into_bytes()))
        .collect();
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let folder = lab.folder("survey", &files);
    let (id, key) = add(&store, &folder, &metadata("Survey 2026"));
    let show = |args: &[&str]| lodge_with(&db, &[&["show"], args].concat());

    let out = show(&["survey"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            &format!("dataset {id} survey"),
            &format!("key          {}", key.to_hex()),
            "title        Survey 2026",
            "creators     Curie, Marie",
            "year         2026",
            "publisher    Lodge test lab",
            "type         Dataset",
            "files (22):",
            "part-00.csv",
            "part-19.csv",
            &format!("… and 2 more (`lodge show {id} --files` lists every one)"),
            "deposits: none yet",
        ],
    );
    assert!(!t.contains("part-20.csv"), "{t}");
    assert!(!t.contains("metadata incomplete"), "{t}");
    let every = show(&["survey", "--files"]).await;
    assert_all(&text(&every), &["part-20.csv", "part-21.csv"]);
    // With every file, every digit of its SHA-256 (`verify` points here to find a file).
    let part_00 =
        lodge::content::Sha256Hex::of(&fs::read(folder.join("part-00.csv")).unwrap()).to_hex();
    assert!(
        text(&every).contains(&format!("  {part_00}  ")),
        "{}",
        text(&every)
    );

    let out = lodge_with(
        &db,
        &["deposit", "--target", &sandbox.target_url(), "survey"],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));
    // Landed: `show` says how to cite it, once, by its link.
    let cited = text(&show(&["survey"]).await);
    assert_all(
        &cited,
        &[&format!(
            "cite as: Curie, Marie (2026): Survey 2026. Lodge test lab. Dataset. {}/records/{}",
            sandbox.base_url(),
            key.to_hex()
        )],
    );
    // Deposited again every week: the replays are one line under the job that landed it.
    for _ in 0..2 {
        let out = lodge_with(
            &db,
            &["deposit", "--target", &sandbox.target_url(), "survey"],
        )
        .await;
        assert!(out.status.success(), "{}", text(&out));
    }
    let t = text(&show(&["survey"]).await);
    assert_all(
        &t,
        &[
            &format!("job 1     deposited  {} sbx-000001", sandbox.target_url()),
            "replayed since: 2 times (jobs 2, 3), no request sent",
        ],
    );
    assert!(!t.contains("job 2 "), "{t}");
    assert_eq!(t.matches("cite as:").count(), 1, "{t}");
    // New metadata: a new key; the deposit made under the old one is listed as such.
    let mut untitled = metadata("");
    untitled.publisher.clear();
    let (_, new_key) = add(&store, &folder, &untitled);
    let out = show(&[&id.to_string()]).await;
    let t = text(&out);
    assert_all(
        &t,
        &[
            "title        —",
            "metadata incomplete; deposit will refuse it until these are fixed",
            "title: is required",
            "publisher: is required",
            &format!("job 1     deposited  {} sbx-000001", sandbox.target_url()),
            &format!("(earlier key {})", key.short()),
        ],
    );

    let out = show(&["survey", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["key"], new_key.to_hex());
    assert_eq!(json["files"].as_array().unwrap().len(), 22, "{json:#}");
    assert_eq!(json["files"][0]["path"], "part-00.csv");
    assert_eq!(json["metadata"]["creators"][0]["name"], "Curie, Marie");
    assert_eq!(json["metadata_problems"].as_array().unwrap().len(), 2);
    let deposit = &json["deposits"][0];
    assert_eq!(deposit["identifier"], "sbx-000001");
    assert_eq!(deposit["current_key"], false);
    assert_eq!(deposit["key"], key.to_hex());
    assert!(
        deposit["citation"].is_null(),
        "not cited with metadata it was not deposited with"
    );

    // The folder as it is now: what a scan leaves out, and what changed since the scan.
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/hostname", folder.join("outside")).unwrap();
    fs::write(folder.join("part-00.csv"), "changed\n").unwrap();
    fs::write(folder.join("late.csv"), "1\n").unwrap();
    let out = show(&["survey"]).await;
    let t = text(&out);
    let mut expected = vec![
        "note: changed since scan:",
        "part-00.csv: size is now 8 bytes, was 2",
        "note: added since the last scan, so not in its key: late.csv",
    ];
    let rescan = format!("`lodge scan {id}` re-keys it as it is now");
    expected.push(&rescan);
    if cfg!(unix) {
        expected.extend(["left out of the deposit (1):", "outside (a symbolic link"]);
    }
    assert_all(&t, &expected);
    let out = show(&["survey", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["folder_now"]["added_since_scan"][0], "late.csv");
    assert!(
        json["folder_now"]["changed_since_scan"].is_string(),
        "{json:#}"
    );

    let missing = show(&["no-such-dataset"]).await;
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
    assert_all(&text(&missing), &["no dataset matches 'no-such-dataset':"]);
    let typo = show(&["survy"]).await;
    assert_eq!(typo.status.code(), Some(2), "{}", text(&typo));
    assert_all(
        &text(&typo),
        &["no dataset matches 'survy' (did you mean 'survey'?): give its number"],
    );
}

/// `lodge deposit --all` to `sandbox` while it fails every write, one attempt each: every
/// job ends failed. The sandbox answers again afterwards.
async fn every_deposit_fails_once(sandbox: &lodge::sandbox::RunningSandbox, db: &Path) {
    sandbox.set_faults(FaultConfig {
        fail_before_commit: 1.0,
        ..FaultConfig::default()
    });
    let url = sandbox.target_url();
    let out = lodge_with(
        db,
        &["deposit", "--all", "--target", &url, "--max-attempts", "1"],
    )
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    sandbox.set_faults(FaultConfig::default());
}

/// The totals count jobs, the items each dataset's latest per target: a failed job of a
/// dataset's earlier key is counted but is no item, and `status` says where it is, so the
/// two never seem to disagree; filtered, the totals say they are every item's, and the
/// line that names it stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_job_of_an_earlier_key_counted_in_the_totals_is_said_to_be_in_the_history() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(1);
    add(&store, &folder, &metadata("One"));
    every_deposit_fails_once(&sandbox, &db).await;
    std::fs::write(folder.join("more.csv"), b"3").unwrap();
    assert!(lodge_with(&db, &["scan", "1"]).await.status.success());

    let status = text(&lodge_with(&db, &["status"]).await);
    assert_all(
        &status,
        &[
            ", failed 1,",
            "of the failed, 1 is a job of a dataset's earlier key (scanned again since), not \
             an item above: `lodge history --state failed` lists it",
        ],
    );
    let filtered = text(&lodge_with(&db, &["status", "--state", "failed"]).await);
    assert_all(
        &filtered,
        &[
            "no items match (of 1)",
            "totals for every item:",
            ", failed 1,",
            "of the failed, 1 is a job of a dataset's earlier key (scanned again since)",
        ],
    );
    let history = text(&lodge_with(&db, &["history", "--state", "failed"]).await);
    assert!(history.contains("job 1"), "{history}");

    // A retry cannot send it (the folder holds other files now), and says how to give it
    // up; given up, it leaves the totals, and retrying every failed job has nothing to do.
    assert!(
        status.contains("and `lodge dismiss 1` gives it up"),
        "{status}"
    );
    let retry = lodge_with(&db, &["retry", "--all-failed", "--queue-only"]).await;
    assert_eq!(retry.status.code(), Some(1), "{}", text(&retry));
    assert!(
        text(&retry).contains("or give this job up: `lodge dismiss 1`"),
        "{}",
        text(&retry)
    );
    let out = lodge_with(&db, &["dismiss", "1"]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("dismissed job 1 (failed): it leaves `lodge status`\n"),
        "no retry is promised that would be refused: {}",
        text(&out)
    );
    let status = text(&lodge_with(&db, &["status"]).await);
    assert!(status.contains(", failed 0,"), "{status}");
    assert!(!status.contains("of the failed"), "{status}");
    let retry = lodge_with(&db, &["retry", "--all-failed"]).await;
    assert!(retry.status.success(), "{}", text(&retry));
}

/// A dataset not deposited yet whose metadata a deposit would refuse says so under its
/// `new` line, with where to see what to add: `new` alone reads as ready to go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_says_which_new_datasets_a_deposit_would_refuse_as_they_are() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("One"));
    let bare = lab.folder("bare", &[("data.csv", b"t,v\n1,2\n")]);
    let added = lodge_with(&db, &["add", &bare.to_string_lossy()]).await;
    assert!(added.status.success(), "{}", text(&added));

    let status = lodge_with(&db, &["status"]).await;
    let t = text(&status);
    assert!(status.status.success(), "{t}");
    let lines: Vec<&str> = t.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(" bare "))
        .expect("its line");
    assert!(
        lines[at + 1].starts_with("       a deposit would refuse it as it is: ")
            && lines[at + 1].ends_with("; `lodge show 2` says what to add"),
        "{t}"
    );
    assert!(
        !t.contains("lodge show 1` says what to add"),
        "ds001's metadata is complete: {t}"
    );
    let json = lodge_with(&db, &["status", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let items = json["items"].as_array().unwrap();
    assert!(items[0]["metadata_problems"].is_null(), "{json:#}");
    assert!(!items[1]["metadata_problems"].as_array().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_and_history_list_only_the_datasets_states_and_target_asked_for() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let (one, _) = add(&store, &lab.numbered_folder(1), &metadata("One"));
    add(&store, &lab.numbered_folder(2), &metadata("Two"));
    let url = sandbox.target_url();
    let out = lodge_with(&db, &["deposit", "--target", &url, &one.to_string()]).await;
    assert!(out.status.success(), "{}", text(&out));
    let status = |args: &[&str]| lodge_with(&db, &[&["status"], args].concat());
    let names = |out: &std::process::Output| -> Vec<String> {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().nth(1))
            .filter(|w| w.starts_with("ds"))
            .map(str::to_string)
            .collect()
    };

    let new = status(&["--state", "new"]).await;
    assert!(new.status.success(), "{}", text(&new));
    assert_eq!(names(&new), ["ds002"], "{}", text(&new));
    assert_all(&text(&new), &["1 of 2 shown; totals for every item:"]);

    let landed = status(&["--state", "deposited", "--state", "existing"]).await;
    assert_eq!(names(&landed), ["ds001"], "{}", text(&landed));
    let by_name = status(&["ds002", "ds001"]).await;
    assert_eq!(names(&by_name), ["ds001", "ds002"], "{}", text(&by_name));
    // Asked about one target, a dataset with nothing there is new there: what is left
    // to send to it.
    let by_target = status(&["--target", &url]).await;
    assert_eq!(
        names(&by_target),
        ["ds001", "ds002"],
        "{}",
        text(&by_target)
    );
    assert_all(
        &text(&by_target),
        &[&format!("new        {url}: not deposited there yet")],
    );
    let left = status(&["--target", &url, "--state", "new"]).await;
    assert_eq!(names(&left), ["ds002"], "{}", text(&left));
    // A target this database never used (`localhost` for `127.0.0.1`): said, with the
    // ones it used, not passed off as every dataset still to send.
    let elsewhere = url.replace("127.0.0.1", "localhost");
    for command in ["status", "history"] {
        let typo = lodge_with(&db, &[command, "--target", &elsewhere]).await;
        assert!(typo.status.success(), "{}", text(&typo));
        assert!(
            String::from_utf8_lossy(&typo.stderr).contains(&format!(
                "note: nothing was ever deposited to {elsewhere} from this database; the \
                 targets it has used: {url}"
            )),
            "{command}: {}",
            text(&typo)
        );
    }
    let used = status(&["--target", &url]).await;
    assert!(used.stderr.is_empty(), "{}", text(&used));

    let none = status(&["--state", "failed"]).await;
    assert!(none.status.success());
    assert_all(
        &text(&none),
        &["no items match (of 2); `lodge status` lists every one"],
    );

    let json = status(&["--state", "unfinished", "--state", "new", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let items = json["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{json:#}");
    assert_eq!(items[0]["name"], "ds002");

    let bad = status(&["--state", "done"]).await;
    assert_eq!(bad.status.code(), Some(2));
    assert_all(&text(&bad), &["invalid value 'done'", "unfinished"]);
    let unknown = status(&["ds009"]).await;
    assert_eq!(unknown.status.code(), Some(2));
    assert_all(&text(&unknown), &["no dataset matches 'ds009'"]);

    // `history` narrows the same way, over jobs.
    let history = |args: &[&str]| lodge_with(&db, &[&["history"], args].concat());
    let landed = history(&["ds001", "--state", "deposited"]).await;
    assert!(landed.status.success(), "{}", text(&landed));
    assert_all(&text(&landed), &["job 1", "deposited ds001"]);
    let none = history(&["ds002"]).await;
    assert_all(
        &text(&none),
        &["no jobs match (of 1); `lodge history` lists every one"],
    );
    let csv = history(&["--target", &url, "--csv"]).await;
    assert_eq!(String::from_utf8_lossy(&csv.stdout).lines().count(), 2);
    let not_a_job_state = history(&["--state", "new"]).await;
    assert_eq!(not_a_job_state.status.code(), Some(2));
    // A job by its number, as the other commands print it; `#1` is not taken for dataset 1.
    let job = history(&["--job", "#1"]).await;
    assert!(job.status.success(), "{}", text(&job));
    assert_all(&text(&job), &["job 1", "deposited ds001"]);
    let no_job = history(&["--job", "7"]).await;
    assert_eq!(no_job.status.code(), Some(2), "{}", text(&no_job));
    let hashed = history(&["#1"]).await;
    assert_eq!(hashed.status.code(), Some(2), "{}", text(&hashed));
    assert_all(
        &text(&hashed),
        &["'#1' is a job's number, and these are datasets: `lodge history --job 1`"],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dataset_folder_that_holds_the_lodge_database_leaves_it_out_and_deposits() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let project = lab.folder("project", &[("data.csv", b"1,2,3")]);
    // `cd project && lodge --db lodge.db add .`: the database, its log and its shared
    // memory are in the folder, and change with every command.
    let db = project.join("lodge.db");
    let added = lodge_with(
        &db,
        &[
            "add",
            project.to_str().unwrap(),
            "--title",
            "Project",
            "--creator",
            "Roe, Rita",
            "--publisher",
            "Lab",
            "--year",
            "2026",
        ],
    )
    .await;
    assert!(added.status.success(), "{}", text(&added));
    assert_all(
        &text(&added),
        &[
            "1 file, 5 B",
            "skipped lodge.db (Lodge's own database, which changes as Lodge works)",
        ],
    );
    let deposited = lodge_with(
        &db,
        &["deposit", "--all", "--target", &sandbox.target_url()],
    )
    .await;
    assert!(deposited.status.success(), "{}", text(&deposited));
    assert_all(&text(&deposited), &["deposited project -> sbx-000001"]);
    let key = lab.store("project/lodge.db").datasets().unwrap()[0]
        .key
        .expect("scanned");
    let record = get_json(&sandbox, &format!("/records/{key}")).await;
    let paths: Vec<&str> = record["document"]["manifest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["data.csv"], "only the data is deposited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_refused_for_the_same_missing_metadata_is_one_block_whose_command_fixes_it() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let untitled = lodge::content::Metadata {
        title: String::new(),
        ..metadata("")
    };
    let folders: Vec<PathBuf> = (1..=4).map(|n| lab.numbered_folder(n)).collect();
    for folder in &folders {
        add(&store, folder, &untitled);
    }
    let deposit = || {
        lodge_with(
            &db,
            &["deposit", "--all", "--target", &sandbox.target_url()],
        )
    };
    let out = deposit().await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let paths: Vec<String> = folders
        .iter()
        .map(|f| f.canonicalize().unwrap().display().to_string())
        .collect();
    assert_all(
        &t,
        &[
            "refused  4 datasets, each with the same incomplete metadata: ds001, ds002, ds003, \
             ds004",
            "title: is required",
            &format!(
                "fix with `lodge add {}` and the flags named above",
                paths.join(" ")
            ),
        ],
    );
    assert_eq!(t.matches("title: is required").count(), 1, "said once: {t}");

    // Added together, they are told the same way.
    let mut again = vec!["add"];
    again.extend(paths.iter().map(String::as_str));
    let added = lodge_with(&db, &again).await;
    let t = text(&added);
    assert!(added.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "metadata incomplete, the same for 4 datasets (ds001, ds002, ds003, ds004); deposit \
           will refuse them until fixed:",
        ],
    );
    assert_eq!(t.matches("title: is required").count(), 1, "said once: {t}");

    // The command it names, with a title for each, makes the batch depositable.
    let mut fix = vec!["add"];
    fix.extend(paths.iter().map(String::as_str));
    fix.extend(["--title", "Survey {folder}"]);
    assert!(lodge_with(&db, &fix).await.status.success());
    let out = deposit().await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().records, 4);
}

/// Two folders added together that lack the same metadata are told about it once.
#[test]
fn two_folders_lacking_the_same_metadata_are_told_about_it_once() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let (a, b) = (lab.numbered_folder(1), lab.numbered_folder(2));
    let out = lodge(&db)
        .args(["add", a.to_str().unwrap(), b.to_str().unwrap()])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("metadata incomplete, the same for 2 datasets (ds001, ds002)"),
        "{t}"
    );
    assert_eq!(t.matches("title: is required").count(), 1, "said once: {t}");
}

/// The window's settings file holding `settings`, under an `XDG_CONFIG_HOME` of the lab's
/// own: that folder (to give the commands) and the file.
fn window_settings_file(lab: &Lab, settings: serde_json::Value) -> (PathBuf, PathBuf) {
    let xdg = lab.path("xdg");
    let file = xdg.join("lodge/settings.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, settings.to_string()).unwrap();
    (xdg, file)
}

/// A wrong ORCID iD in the window's Settings (a hand-edited file) is left out of the
/// creator `lodge add --defaults` fills in, and said, not dropped without a word.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_with_defaults_says_a_wrong_orcid_in_the_settings_is_left_out() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let (xdg, _) = window_settings_file(
        &lab,
        serde_json::json!({
            "name": "Curie, Marie",
            "orcid": "0000-0002-1825-0098",
            "publisher": "Soil lab",
            "title": "Survey {folder}",
            "year_when_added": true,
        }),
    );
    let folder = lab.numbered_folder(1);
    let mut cmd = lodge(&db);
    cmd.env("XDG_CONFIG_HOME", &xdg)
        .args(["add", "--defaults"])
        .arg(&folder);
    let out = support::cli::run(cmd).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("hold an id that is not given to folders, left out of the creator they fill in: Your ORCID iD"),
        "{t}"
    );
    let store = lab.store("lodge.db");
    let creator = &store.datasets().unwrap()[0].metadata.creators[0];
    assert_eq!(
        (creator.name.as_str(), creator.orcid.as_deref()),
        ("Curie, Marie", None)
    );
}

/// `lodge add --defaults` gives a batch what the window's Settings hold (flags and citation
/// files first); without it, the datasets those defaults would complete say so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_with_defaults_fills_what_the_folders_lack_from_the_windows_settings() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let (xdg, settings) = window_settings_file(
        &lab,
        serde_json::json!({
            "name": "Curie, Marie",
            "affiliation": "Soil lab",
            "publisher": "Soil lab",
            "license": "CC-BY-4.0",
            "title": "Survey {folder}",
            "year_when_added": true,
        }),
    );
    let (a, b) = (lab.numbered_folder(1), lab.numbered_folder(2));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let lodge_here = |args: &[&str]| {
        let mut cmd = lodge(&db);
        cmd.env("XDG_CONFIG_HOME", &xdg).args(args);
        support::cli::run(cmd)
    };
    // The command it names runs as it is: it names the folders.
    let hint = format!(
        "or with `lodge add {a} {b} --defaults`, which fills title, creators, publication \
         year, publisher, license from the window's Settings"
    );
    let hint = hint.as_str();

    let out = lodge_here(&["add", a, b]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(&t, &["metadata incomplete, the same for 2 datasets", hint]);
    let target = sandbox.target_url();
    let out = lodge_here(&["deposit", "--all", "--target", &target]).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_all(&text(&out), &["refused  2 datasets", hint]);

    // A flag still wins over a default.
    let out = lodge_here(&["add", "--defaults", a, b, "--license", "MIT"]).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[&format!(
            "title, creators, publication year, publisher filled in from the window's Settings \
             ({})",
            settings.display()
        )],
    );
    assert!(!t.contains("incomplete"), "{t}");
    let store = lab.store("lodge.db");
    let first = store.find_dataset("ds001").unwrap();
    assert_eq!(first.metadata.title, "Survey ds001");
    assert_eq!(first.metadata.creators[0].name, "Curie, Marie");
    assert_eq!(
        first.metadata.creators[0].affiliations,
        [Affiliation::named("Soil lab")]
    );
    assert_eq!(first.metadata.license.as_deref(), Some("MIT"));
    let out = lodge_here(&["deposit", "--all", "--target", &target]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().records, 2);

    // Asked for with none set, --defaults is refused before anything is added.
    fs::write(&settings, "{}").unwrap();
    let c = lab.numbered_folder(3);
    let out = lodge_here(&["add", "--defaults", c.to_str().unwrap()]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "--defaults: the window's Settings (",
            "give no defaults yet",
        ],
    );
    assert!(store.find_dataset("ds003").is_err(), "nothing added");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_license_that_is_not_an_spdx_identifier_is_kept_with_a_note_naming_the_one_meant() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let folder = lab.numbered_folder(1);
    let folder = folder.to_str().unwrap();
    let flags = [
        "--title",
        "T",
        "--creator",
        "Roe, Rita",
        "--publisher",
        "Lab",
        "--year",
        "2026",
    ];
    let add = |license: &'static str| {
        let mut args = vec!["add", folder, "--license", license];
        args.extend(flags);
        lodge_with(&db, &args.clone())
    };
    let out = add("CC BY 4.0").await;
    assert!(out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "note: the license 'CC BY 4.0' is not an SPDX identifier, so repositories get it as \
           text only; did you mean CC-BY-4.0? (--license CC-BY-4.0)",
        ],
    );
    let shown = lodge_with(&db, &["show", "1"]).await;
    assert_all(&text(&shown), &["did you mean CC-BY-4.0?"]);
    let store = lab.store("lodge.db");
    assert_eq!(
        store
            .dataset(1)
            .unwrap()
            .unwrap()
            .metadata
            .license
            .as_deref(),
        Some("CC BY 4.0"),
        "kept as written: it is the researcher's"
    );

    let out = add("CC-BY-4.0").await;
    assert!(!text(&out).contains("SPDX"), "{}", text(&out));
}

/// "Jane Doe" would go out as an organisation named so: kept (it may be one), with a note
/// giving the "Family, Given" form, whose flag runs as printed and ends the note.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persons_name_without_a_comma_is_kept_with_a_note_giving_family_given() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let folder = lab.numbered_folder(1);
    let folder = folder.to_str().unwrap();
    let add = |creator: &str| {
        let args = [
            "add",
            folder,
            "--title",
            "T",
            "--creator",
            creator,
            "--creator",
            "British Antarctic Survey",
            "--publisher",
            "Lab",
            "--year",
            "2026",
        ]
        .map(String::from);
        let db = db.clone();
        async move { lodge_with(&db, &args.each_ref().map(String::as_str)).await }
    };
    let out = add("Jane Doe; orcid=0000-0002-1825-0097").await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    let note = "note: the creator 'Jane Doe' has no comma, so repositories take it as an \
                organisation's name; a person is written \"Family, Given\": did you mean \
                \"Doe, Jane\"? (--creator 'Doe, Jane; orcid=0000-0002-1825-0097')";
    assert_all(&t, &[note]);
    assert!(
        !t.contains("'British Antarctic Survey' has no comma"),
        "{t}"
    );
    assert_all(&text(&lodge_with(&db, &["show", "1"]).await), &[note]);
    let store = lab.store("lodge.db");
    let creators = store.dataset(1).unwrap().unwrap().metadata.creators;
    assert_eq!(creators[0].name, "Jane Doe", "kept as written");

    // The flag the note gives, as a shell would pass it.
    let flag = note
        .rsplit("--creator ")
        .next()
        .unwrap()
        .trim_end_matches(')');
    let flag = shlex::split(flag).unwrap().remove(0);
    let out = add(&flag).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(!t.contains("has no comma"), "{t}");
    let creators = store.dataset(1).unwrap().unwrap().metadata.creators;
    assert_eq!(creators[0].name, "Doe, Jane");
    assert_eq!(creators[0].orcid.as_deref(), Some("0000-0002-1825-0097"));

    // One word with an ORCID iD: a person's family name, whose given name Lodge cannot
    // guess.
    let t = text(&add("Curie; orcid=0000-0002-1825-0097").await);
    assert_all(
        &t,
        &[
            "note: the creator 'Curie' has an ORCID iD, so is a person, but no comma, so \
           repositories take it as an organisation's name; a person is written \"Family, \
           Given\" (--creator 'Curie, GIVEN; orcid=0000-0002-1825-0097')",
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_names_the_datasets_whose_folders_are_gone_and_the_commands_for_them() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let folders: Vec<PathBuf> = (1..=3).map(|n| lab.numbered_folder(n)).collect();
    for (n, folder) in folders.iter().enumerate() {
        add(&store, folder, &metadata(&format!("N{n}")));
    }
    let status = |args: &[&str]| lodge_with(&db, &[&["status"], args].concat());
    let t = text(&status(&[]).await);
    assert!(!t.contains("folders gone"), "all three are there: {t}");
    assert!(
        t.contains("   1 ds001") && t.contains("new        not deposited anywhere yet"),
        "{t}"
    );
    assert!(!t.contains("attempts 0"), "nothing to count yet: {t}");

    fs::remove_dir_all(&folders[0]).unwrap();
    fs::rename(&folders[2], lab.path("elsewhere")).unwrap();
    let t = text(&status(&[]).await);
    assert!(
        t.contains(&format!(
            "folders gone (moved or deleted): 1 ds001 ({}), 3 ds003 ({}). Add each where it \
             is now (`lodge add NEWPATH`); `lodge remove 1 3` takes them off the list",
            folders[0].display(),
            folders[2].display()
        )),
        "{t}"
    );
    // Listing one dataset names only its folder; --json says it per item.
    let t = text(&status(&["ds003"]).await);
    assert!(
        t.contains("folders gone (moved or deleted): 3 ds003"),
        "{t}"
    );
    assert!(t.contains("`lodge remove 3` takes it off the list"), "{t}");
    let out = status(&["--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let gone: Vec<bool> = json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["folder_gone"].as_bool().unwrap())
        .collect();
    assert_eq!(gone, [true, false, true], "{json:#}");

    // ds003's folder added where it moved to (the same files and metadata, the same key):
    // what is left of it is its old row to take off, not a folder to add.
    add(&store, &lab.path("elsewhere"), &metadata("N2"));
    let t = text(&status(&[]).await);
    assert!(
        t.contains(&format!(
            "folder gone: 3 ds003 ({}); its content is on the list as dataset 4 elsewhere ({}), \
             where it moved to or a copy: `lodge remove 3` takes the old row off",
            folders[2].display(),
            lab.path("elsewhere").display()
        )),
        "{t}"
    );
    assert!(
        t.contains(&format!(
            "folders gone (moved or deleted): 1 ds001 ({}). Add it where it is now (`lodge add \
             NEWPATH`); `lodge remove 1` takes it off the list",
            folders[0].display()
        )),
        "only ds001 is left to find: {t}"
    );
    // `scan` says the same of it, not to add a folder that is added already.
    let t = text(&lodge_with(&db, &["scan", "3"]).await);
    assert!(
        t.contains(&format!(
            "error: dataset 3 ({}): the folder is gone; its content is on the list as dataset \
             4 elsewhere ({}), where it moved to or a copy: `lodge remove 3` takes the old row \
             off",
            folders[2].display(),
            lab.path("elsewhere").display()
        )),
        "{t}"
    );
    assert!(!t.contains("add it where it is now"), "{t}");
}

/// A file whose modification time alone moved (a `touch`, the same file copied over it)
/// is not said modified: its bytes are read once to tell, and the next look costs a stat.
/// The same size with other bytes still is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_reads_a_touched_file_to_tell_it_unchanged_and_names_one_of_other_bytes() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(1);
    add(&store, &folder, &metadata("One"));
    let file = folder.join("data.csv");
    let later = std::time::SystemTime::now() + Duration::from_secs(3600);
    let touch = |to: std::time::SystemTime| {
        fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(to)
            .unwrap()
    };
    touch(later);
    for look in ["first", "second (from the remembered digest)"] {
        let t = text(&lodge_with(&db, &["status"]).await);
        assert!(!t.contains("changed since"), "{look} look: {t}");
    }

    // The same size, other bytes, and the time moved again.
    let mut bytes = fs::read(&file).unwrap();
    bytes[0] ^= 1;
    fs::write(&file, &bytes).unwrap();
    touch(later + Duration::from_secs(60));
    let t = text(&lodge_with(&db, &["status"]).await);
    assert!(t.contains("   1 ds001: 1 file modified\n"), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_names_the_folders_changed_since_their_scan_and_the_scan_that_keys_them_anew() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let folders: Vec<PathBuf> = (1..=4).map(|n| lab.numbered_folder(n)).collect();
    for (n, folder) in folders.iter().enumerate() {
        add(&store, folder, &metadata(&format!("N{n}")));
    }
    let status = |args: &[&str]| lodge_with(&db, &[&["status"], args].concat());
    let t = text(&status(&[]).await);
    assert!(
        !t.contains("changed since"),
        "every folder is as scanned: {t}"
    );

    // One file modified, one added (and one removed), one folder emptied; ds004 untouched.
    fs::write(folders[0].join("data.csv"), "id,value\n1,100\n").unwrap();
    fs::write(folders[1].join("notes.txt"), "taken later").unwrap();
    fs::remove_file(folders[1].join("README.txt")).unwrap();
    fs::remove_file(folders[2].join("data.csv")).unwrap();
    fs::remove_file(folders[2].join("README.txt")).unwrap();
    let t = text(&status(&[]).await);
    assert!(
        t.contains(
            "folders changed since their last scan (a deposit sends the folder as scanned):\n   \
             1 ds001: 1 file modified\n   \
             2 ds002: 1 file added, 1 file removed\n   \
             3 ds003: cannot be scanned as it is now: "
        ),
        "{t}"
    );
    assert!(!t.contains("4 ds004:"), "{t}");
    assert!(
        t.contains("`lodge scan 1 2` keys them as they are now; deposit again to send that"),
        "{t}"
    );

    // Listing one dataset checks only its folder; --json gives the counts per item.
    let t = text(&status(&["ds002"]).await);
    assert!(t.contains("`lodge scan 2` keys it as it is now"), "{t}");
    assert!(!t.contains("ds001:"), "{t}");
    let out = status(&["--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = json["items"].as_array().unwrap();
    assert_eq!(
        items[1]["changed_since_scan"],
        serde_json::json!({"added": 1, "removed": 1, "modified": 0, "unscannable": null}),
        "{json:#}"
    );
    assert!(
        items[2]["changed_since_scan"]["unscannable"].is_string(),
        "{json:#}"
    );
    assert!(items[3]["changed_since_scan"].is_null(), "{json:#}");

    // A rescan keys the folder as it is: nothing left to say of it.
    let out = lodge_with(&db, &["scan", "1"]).await;
    assert!(out.status.success(), "{}", text(&out));
    let t = text(&status(&[]).await);
    assert!(!t.contains("1 ds001:"), "{t}");
    assert!(t.contains("2 ds002: 1 file added"), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adding_a_folder_moved_from_elsewhere_names_the_old_entry_and_how_to_take_it_off() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let add = |folder: &Path, title: &str| {
        let mut c = lodge(&db);
        c.arg("add").arg(folder).args(["--title", title]).args([
            "--creator",
            "Roe, Rita",
            "--publisher",
            "Lab",
            "--year",
            "2026",
        ]);
        run(c)
    };
    let old = lab.folder("cores-2025", &[("a.csv", b"1,2"), ("b.csv", b"3,4")]);
    assert!(add(&old, "Cores").await.status.success());

    // A copy while the original is still there is a copy: nothing to say.
    let copy = lab.folder("cores-copy", &[("a.csv", b"1,2"), ("b.csv", b"3,4")]);
    let t = text(&add(&copy, "Cores").await);
    assert!(!t.contains("is gone"), "{t}");

    // Moved (and given another title): the old entry is named, with the command.
    let moved = lab.path("archive/cores-2025");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    fs::rename(&old, &moved).unwrap();
    let out = add(&moved, "Cores, archived").await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            &format!(
                "note: the same files as dataset 1 (cores-2025), whose folder {} is gone",
                old.display()
            ),
            "`lodge remove 1` takes the old entry off the list",
        ],
    );
    assert!(
        !t.contains("dataset 2 (cores-copy)"),
        "the copy is still there: {t}"
    );
    let out = lodge_with(&db, &["remove", "1"]).await;
    assert!(out.status.success(), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adding_a_folder_inside_or_around_another_dataset_says_so_and_adds_it() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let survey = lab.folder("survey", &[("a.csv", b"1,2"), ("raw/b.csv", b"3,4")]);
    let raw = survey.join("raw");
    // A sibling whose name begins with the other's is not inside it.
    let sibling = lab.folder("survey2", &[("c.csv", b"5,6")]);
    let flags = [
        "--creator",
        "Roe, Rita",
        "--publisher",
        "Lab",
        "--year",
        "2026",
    ];
    let add = |folder: &Path, title: &str| {
        let mut c = lodge(&db);
        c.arg("add")
            .arg(folder)
            .args(["--title", title])
            .args(flags);
        run(c)
    };

    let first = add(&raw, "Raw").await;
    assert!(first.status.success(), "{}", text(&first));
    assert!(
        !text(&first).contains("note: this folder"),
        "{}",
        text(&first)
    );
    let around = add(&survey, "Survey").await;
    assert!(around.status.success(), "{}", text(&around));
    assert_all(
        &text(&around),
        &[
            "dataset 2 key",
            "note: this folder holds dataset 1 (raw): the files in common go into the deposit \
             of each",
            "`lodge remove 2` takes this one off the list",
        ],
    );
    let says_nothing = |out: std::process::Output| {
        let t = text(&out);
        assert!(!t.contains("note: this folder"), "{t}");
    };
    says_nothing(add(&sibling, "Sibling").await);

    // Inside one and holding another at once; then updating it says nothing again.
    let middle = lab.folder("survey/raw/day1", &[("d.csv", b"7,8")]);
    let _ = add(&middle, "Day 1").await;
    says_nothing(add(&middle.join(".."), "Raw again").await);
    let inner = lab.folder("survey/raw/day1/probe", &[("e.csv", b"9")]);
    let both = add(&inner, "Probe").await;
    assert_all(
        &text(&both),
        &["note: this folder is inside datasets 1 (raw), 2 (survey), 4 (day1)"],
    );
    let store = lab.store("lodge.db");
    assert_eq!(store.datasets().unwrap().len(), 5, "each folder was added");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_takes_several_folders_each_its_own_dataset_and_a_bad_one_stops_only_itself() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let one = lab.numbered_folder(1);
    let two = lab.numbered_folder(2);
    fs::write(
        two.join("CITATION.cff"),
        "cff-version: 1.2.0\ntitle: Two from its citation\nauthors:\n  - family-names: Roe\n    given-names: Rita\n",
    )
    .unwrap();
    fs::create_dir_all(lab.path("empty")).unwrap();
    let add = |folders: &[&Path], flags: &[&str]| {
        let mut c = lodge(&db);
        c.arg("add").args(folders).args(flags);
        run(c)
    };
    let common = ["--publisher", "Lab", "--year", "2026"];

    // A folder that does not exist: nothing is added, and no database is made.
    let missing = add(&[&one, &lab.path("no-such-folder")], &common).await;
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
    assert_all(&text(&missing), &["no-such-folder"]);
    assert!(!db.exists(), "a mistyped folder leaves no database behind");

    // A title names one dataset.
    let titled = add(&[&one, &two], &["--title", "Same for both"]).await;
    assert_eq!(titled.status.code(), Some(2));
    assert_all(
        &text(&titled),
        &[
            "--title names one dataset, but 2 folders were given: put {folder} in it",
            "(--title \"Same for both {folder}\")",
        ],
    );

    // A guess at the placeholder is refused, for one folder as for two: the title would
    // reach the repository with the braces in it.
    for dirs in [vec![one.as_path()], vec![one.as_path(), two.as_path()]] {
        let guessed = add(&dirs, &["--title", "Run {name}"]).await;
        assert_eq!(guessed.status.code(), Some(2), "{}", text(&guessed));
        assert_all(
            &text(&guessed),
            &[
                "--title 'Run {name}': {name} is not filled in by Lodge",
                "{folder} is the one placeholder, for each folder's name: \"Run {folder}\"",
            ],
        );
        assert!(!db.exists(), "a refused title adds nothing");
    }

    // The empty folder is refused by name; the others are added, each with its own
    // citation's title where it has one, and the common flags.
    let out = add(&[&one, &lab.path("empty"), &two, &one], &common).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "dataset 1 key ",
            "dataset 2 key ",
            "has no files to deposit",
            "metadata prefilled from",
        ],
    );
    let store = lab.store("lodge.db");
    let datasets = store.datasets().unwrap();
    assert_eq!(
        datasets.len(),
        2,
        "one dataset per good folder, {one:?} once"
    );
    assert_eq!(datasets[1].metadata.title, "Two from its citation");
    assert!(
        datasets
            .iter()
            .all(|d| d.metadata.publisher == "Lab" && d.metadata.publication_year == Some(2026))
    );

    // `{folder}` gives each folder a title of its own, the flag over its citation's.
    let out = add(&[&one, &two], &["--title", "Survey run {folder}"]).await;
    assert!(out.status.success(), "{}", text(&out));
    let titles: Vec<String> = store
        .datasets()
        .unwrap()
        .into_iter()
        .map(|d| d.metadata.title)
        .collect();
    assert_eq!(titles, ["Survey run ds001", "Survey run ds002"]);

    // A dataset's name where its folder belongs: the error names the folder to give.
    let by_name = lodge_with(&db, &["add", "ds001", "--title", "Retitled"]).await;
    assert_eq!(by_name.status.code(), Some(2), "{}", text(&by_name));
    assert_all(
        &text(&by_name),
        &[
            "cannot find the folder ds001",
            &format!(
                "'ds001' names dataset 1, though: to change that dataset, give its folder: `lodge add {}",
                datasets[0].path
            ),
        ],
    );

    // Several folders missing: each is named, and none of the folders is added.
    let before = store.datasets().unwrap().len();
    let out = add(
        &[&one, Path::new("no-such-a"), Path::new("no-such-b")],
        &["--title", "T {folder}"],
    )
    .await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "2 of the 3 folders given cannot be added, so none was",
            "cannot find the folder no-such-a: check the path (it must exist and be readable): \
             no such file or folder",
            "cannot find the folder no-such-b",
        ],
    );
    assert!(!text(&out).contains("os error"), "in words: {}", text(&out));
    assert_eq!(store.datasets().unwrap().len(), before);
    // One missing folder is said the same way.
    let out = add(&[Path::new("no-such-a")], &[]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "cannot find the folder no-such-a: check the path (it must exist and be readable): \
           no such file or folder",
        ],
    );
    assert!(!text(&out).contains("os error"), "in words: {}", text(&out));
}

#[test]
fn completions_script_completes_commands_and_their_flags_in_bash() {
    let lab = Lab::new();
    let script = lodge(&lab.path("lodge.db"))
        .args(["completions", "bash"])
        .output()
        .unwrap();
    assert!(script.status.success(), "{}", text(&script));
    let path = lab.path("lodge.bash");
    fs::write(&path, &script.stdout).unwrap();
    // What bash offers after the words typed so far, as its completion machinery asks.
    let complete = |words: &str| -> String {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source '{}'; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
                 _lodge lodge \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; \
                 echo \"${{COMPREPLY[@]}}\"",
                path.display()
            ))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(complete("lodge sh"), "show");
    assert_eq!(complete("lodge status --st"), "--state");
    assert_eq!(complete("lodge completions fi"), "fish");

    let unknown = lodge(&lab.path("lodge.db"))
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert_all(&text(&unknown), &["invalid value 'tcsh'", "bash"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_all_counts_the_datasets_with_no_deposit_on_the_target_and_names_only_named_ones() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    for n in 1..=4 {
        add(
            &store,
            &lab.numbered_folder(n),
            &metadata(&format!("Set {n}")),
        );
    }
    let url = sandbox.target_url();
    let deposited = lodge_with(&db, &["deposit", "2", "--target", &url]).await;
    assert!(deposited.status.success(), "{}", text(&deposited));

    // A weekly `verify --all`: one line for the three with nothing there, not one each.
    let all = lodge_with(&db, &["verify", "--all", "--target", &url]).await;
    assert!(all.status.success(), "{}", text(&all));
    assert_all(
        &text(&all),
        &[
            &format!("3 datasets have no deposit on {url}; not checked"),
            "checking 1 deposit",
            "intact   dataset 2 ds002",
            "1 intact",
        ],
    );
    assert!(
        !text(&all).contains("no deposit to check"),
        "{}",
        text(&all)
    );

    // Named, each dataset with nothing there is still answered by name.
    let named = lodge_with(&db, &["verify", "1", "2", "3", "--target", &url]).await;
    assert!(named.status.success(), "{}", text(&named));
    assert_all(
        &text(&named),
        &[
            &format!("dataset 1 ds001: no deposit to check on {url}"),
            &format!("dataset 3 ds003: no deposit to check on {url}"),
            "intact   dataset 2 ds002",
        ],
    );
    assert!(!text(&named).contains("not checked"), "{}", text(&named));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_says_each_deposit_is_intact_then_names_the_file_the_server_lost() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let (_, key) = add(&store, &lab.numbered_folder(1), &metadata("One"));
    add(&store, &lab.numbered_folder(2), &metadata("Two"));

    let nothing = lodge_with(&db, &["verify", "--all"]).await;
    assert!(nothing.status.success(), "{}", text(&nothing));
    assert_all(
        &text(&nothing),
        &[
            "2 datasets have no deposit; not checked",
            "nothing to verify: deposit datasets first",
        ],
    );

    let mut deposit = lodge(&db);
    deposit.args(["deposit", "1", "--target", &sandbox.target_url()]);
    let deposited = run(deposit).await;
    assert!(deposited.status.success(), "{}", text(&deposited));
    let identifier = store.job(1).unwrap().identifier.expect("deposited");

    let requests = sandbox.stats().requests;
    let intact = lodge_with(&db, &["verify", "--all"]).await;
    assert!(intact.status.success(), "{}", text(&intact));
    assert_all(
        &text(&intact),
        &[
            "checking 1 deposit by record and file sizes",
            "intact   dataset 1 ds001 on Local sandbox at 127.0.0.1",
            &format!("record {identifier}: 2 files"),
            "1 dataset has no deposit; not checked",
            "1 intact",
        ],
    );
    assert!(
        sandbox.stats().requests > requests,
        "verify asks the server"
    );

    // Only the deposits on the target asked for: on another (a mistyped port, say) there
    // are none, which is no check that passed: the command fails and says where they are.
    let elsewhere = "sandbox+http://127.0.0.1:9";
    let other = lodge_with(&db, &["verify", "1", "--target", elsewhere]).await;
    assert_eq!(other.status.code(), Some(2), "{}", text(&other));
    assert_all(
        &text(&other),
        &[
            &format!("dataset 1 ds001: no deposit to check on {elsewhere}"),
            &format!(
                "no deposit of this dataset is on {elsewhere}; they are on {}: check the name \
                 or URL",
                sandbox.target_url()
            ),
        ],
    );
    assert!(
        !text(&other).contains("deposit datasets first"),
        "{}",
        text(&other)
    );
    let records = sandbox.stats().records;

    // The server loses the data file: verify says which, and fails.
    let data = store.document(&key).unwrap().unwrap().manifest;
    let lost = data.iter().find(|e| e.path == "data.csv").unwrap();
    std::fs::remove_file(
        sandbox
            .data_dir()
            .join(format!("blobs/sha256/{}", lost.sha256)),
    )
    .unwrap();
    // Where the server kept it, for a person to look.
    let lost_at = format!("{}/blobs/sha256/{}", sandbox.base_url(), lost.sha256);
    for flags in [&["verify", "1"][..], &["verify", "1", "--bytes"]] {
        let damaged = lodge_with(&db, flags).await;
        assert_eq!(damaged.status.code(), Some(1), "{}", text(&damaged));
        assert_all(
            &text(&damaged),
            &[
                "DAMAGED  dataset 1 ds001 on Local sandbox at 127.0.0.1",
                &format!("           data.csv is missing\n             at {lost_at}\n"),
                "0 intact, 1 damaged",
                "Lost files: `lodge verify 1 --repair` sends them again from the dataset's folder",
                "(`lodge show 1 --files` lists each file with its SHA-256)",
            ],
        );
    }
    // Asked of one target, the repair it names is of that target too.
    let url = sandbox.target_url();
    let on_target = lodge_with(&db, &["verify", "1", "--target", &url]).await;
    assert_all(
        &text(&on_target),
        &[&format!(
            "`lodge verify 1 --target {url} --repair` sends them again"
        )],
    );
    assert_eq!(sandbox.stats().records, records, "verify writes nothing");

    // For scripts: one object per deposit, with its verdict and what was found.
    let json = lodge_with(&db, &["verify", "--all", "--json"]).await;
    assert_eq!(json.status.code(), Some(1), "{}", text(&json));
    let checked: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        checked,
        serde_json::json!([{
            "dataset": 1,
            "name": "ds001",
            "job": 1,
            "target": sandbox.target_url(),
            "target_label": checked[0]["target_label"],
            "key": key.to_hex(),
            "earlier_key": false,
            "identifier": identifier,
            "url": checked[0]["url"],
            "verdict": "damaged",
            "found": ["data.csv is missing"],
            "found_at": {"data.csv": lost_at},
            "published_since": null,
        }])
    );
    assert!(
        checked[0]["target_label"]
            .as_str()
            .unwrap()
            .starts_with("Local sandbox at 127.0.0.1")
    );

    // Each check is in the deposit's log.
    let log = lodge_with(&db, &["log", "--job", "1"]).await;
    assert!(log.status.success(), "{}", text(&log));
    assert_all(
        &text(&log),
        &[
            "verified intact: 2 files",
            "verify found: data.csv is missing",
        ],
    );

    // The history's files carry the latest check: an export does not report a deposit
    // found damaged as only deposited.
    let json = lodge_with(&db, &["history", "--json"]).await;
    let history: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(history[0]["state"], "deposited");
    assert_eq!(history[0]["last_check"]["verdict"], "damaged");
    assert_eq!(history[0]["last_check"]["found"], "data.csv is missing");
    let csv = lodge_with(&db, &["history", "--csv"]).await;
    let mut read = csv::Reader::from_reader(csv.stdout.as_slice());
    assert_eq!(&read.headers().unwrap()[15], "last_check");
    let row = read.records().next().unwrap().unwrap();
    assert!(
        row[15].starts_with("damaged ") && row[15].ends_with(": data.csv is missing"),
        "{row:?}"
    );

    // `show` says what the deposit's latest check found, and what to do.
    let shown = lodge_with(&db, &["show", "1"]).await;
    assert_all(
        &text(&shown),
        &[
            "last checked ",
            &format!(
                "DAMAGED: data.csv is missing (`lodge verify 1 --target {} --repair` sends lost \
                 files again)",
                sandbox.target_url()
            ),
        ],
    );
    // So does `status`, under the deposit's row, and in its JSON.
    let status = lodge_with(&db, &["status"]).await;
    assert_all(
        &text(&status),
        &[
            "DAMAGED when checked ",
            &format!(
                ": data.csv is missing (`lodge verify 1 --target {} --repair` sends lost files \
                 again)",
                sandbox.target_url()
            ),
        ],
    );
    let status = lodge_with(&db, &["status", "--json"]).await;
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let items = status["items"].as_array().unwrap();
    let one = items.iter().find(|i| i["dataset"] == 1).unwrap();
    assert_eq!(one["last_check"]["verdict"], "damaged", "{one}");
    assert_eq!(one["last_check"]["found"], "data.csv is missing");
    let two = items.iter().find(|i| i["dataset"] == 2).unwrap();
    assert_eq!(
        two["last_check"],
        serde_json::Value::Null,
        "never deposited: {two}"
    );

    // --repair sends the lost file again from the dataset's folder; the record stays.
    let repaired = lodge_with(&db, &["verify", "1", "--repair"]).await;
    assert!(repaired.status.success(), "{}", text(&repaired));
    assert_all(
        &text(&repaired),
        &[
            "repaired dataset 1 ds001 on Local sandbox at 127.0.0.1",
            &format!("record {identifier}: sent again data.csv"),
            "intact   dataset 1 ds001 on Local sandbox",
            "1 intact",
        ],
    );
    let folder = std::path::PathBuf::from(store.dataset(1).unwrap().unwrap().path);
    let blob = sandbox
        .data_dir()
        .join(format!("blobs/sha256/{}", lost.sha256));
    assert_eq!(
        std::fs::read(blob).unwrap(),
        std::fs::read(folder.join("data.csv")).unwrap()
    );
    assert_eq!(sandbox.stats().records, records, "no record written");

    let shown = lodge_with(&db, &["show", "1", "--json"]).await;
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let check = &shown["deposits"][0]["last_check"];
    assert_eq!(check["verdict"], "intact", "{shown}");
    assert_eq!(check["found"], "2 files, 26 B: sizes match");
    let status = lodge_with(&db, &["status"]).await;
    assert!(!text(&status).contains("DAMAGED"), "{}", text(&status));

    // Whole again, a repair has nothing to send.
    let again = lodge_with(&db, &["verify", "1", "--repair", "--json"]).await;
    assert!(again.status.success(), "{}", text(&again));
    let checked: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(checked[0]["verdict"], "intact");
    assert_eq!(checked[0]["repaired"], serde_json::json!([]));
    assert_eq!(checked[0]["not_repaired"], serde_json::Value::Null);
    let log = lodge_with(&db, &["log", "--job", "1"]).await;
    assert_all(
        &text(&log),
        &["repair sent again 1 file the server had lost: data.csv"],
    );

    // The server's data.csv gets other bytes of its size: only reading bytes finds that,
    // and once found, every later check reads bytes, so none calls it intact by sizes.
    let held = sandbox
        .data_dir()
        .join(format!("blobs/sha256/{}", lost.sha256));
    let size = std::fs::metadata(&held).unwrap().len() as usize;
    std::fs::write(&held, vec![b'x'; size]).unwrap();
    let by_sizes = lodge_with(&db, &["verify", "1"]).await;
    assert!(by_sizes.status.success(), "{}", text(&by_sizes));
    for flags in [&["verify", "1", "--bytes"][..], &["verify", "1"]] {
        let found = lodge_with(&db, flags).await;
        assert_eq!(found.status.code(), Some(1), "{}", text(&found));
        // --repair cannot mend it: the advice is what can.
        assert_all(
            &text(&found),
            &[
                "data.csv has other bytes on the server",
                "The server holds other bytes under a file's name",
            ],
        );
        assert!(!text(&found).contains("--repair"), "{}", text(&found));
    }
    for report in [&["status"][..], &["show", "1"]] {
        let t = text(&lodge_with(&db, report).await);
        let hint = format!(
            "(`lodge verify 1 --target {}` says what can mend it)",
            sandbox.target_url()
        );
        assert!(t.contains(&hint), "{t}");
        assert!(!t.contains("--repair"), "{t}");
    }
    // The plain check's first line says it read that deposit's bytes, and why.
    let header = text(&lodge_with(&db, &["verify", "1"]).await);
    assert!(
        header.contains(
            "checking 1 deposit by record and every file's bytes read back, as its last check \
             found bytes changed"
        ),
        "{header}"
    );
    // A repair does not overwrite them, and says what to do.
    let refused = lodge_with(&db, &["verify", "1", "--repair"]).await;
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert_all(
        &text(&refused),
        &[
            "data.csv has other bytes on the server",
            "not repaired: the server holds other bytes under a file's name",
            "remove that file on the server (data.csv; a server that keeps files by digest",
            "`lodge show 1 --files`, or the window's details), then repair again",
        ],
    );
    assert_eq!(
        std::fs::read(&held).unwrap(),
        vec![b'x'; size],
        "not overwritten"
    );
    // Deposited again, it replays and sends nothing, as any recorded key does: the run
    // says that this does not mend it, and what does.
    let requests = sandbox.stats().requests;
    let again = lodge_with(&db, &["deposit", "--target", &sandbox.target_url(), "1"]).await;
    assert!(again.status.success(), "{}", text(&again));
    assert_all(
        &text(&again),
        &[
            "note     ds001: found DAMAGED when checked ",
            ": data.csv has other bytes on the server (SHA-256 ",
            &format!(
                "; a deposit replays it and sends nothing: `lodge verify 1 --target {}` says \
                 what can mend it",
                sandbox.target_url()
            ),
            "existing  ds001",
        ],
    );
    assert_eq!(sandbox.stats().requests, requests, "a replay sends nothing");
    // Removed there, the repair puts the file back, and checks every byte.
    std::fs::remove_file(&held).unwrap();
    let repaired = lodge_with(&db, &["verify", "1", "--repair"]).await;
    assert!(repaired.status.success(), "{}", text(&repaired));
    assert_all(
        &text(&repaired),
        &[
            "sent again data.csv",
            "read back, SHA-256 match",
            "1 intact",
        ],
    );
}

/// The sandbox keeps no Lodge database: its help leaves out the global `--db` and
/// `--db-wait` (which it listed as if they mattered), and a command line giving them still
/// runs it.
#[test]
fn sandbox_help_leaves_out_the_database_flags_it_does_not_use() {
    let lab = Lab::new();
    let help = lodge(&lab.path("x.db"))
        .args(["sandbox", "--help"])
        .output()
        .unwrap();
    let t = text(&help);
    assert!(help.status.success(), "{t}");
    assert!(t.contains("--data <DIR>"), "{t}");
    assert!(!t.contains("--db"), "{t}");
    let add = lodge(&lab.path("x.db"))
        .args(["add", "--help"])
        .output()
        .unwrap();
    assert!(text(&add).contains("--db <PATH|URL>"), "{}", text(&add));
}

/// The commands `lodge status` prints run as printed: a target URL with a query (a DataCite
/// target's `?prefix=…&repository=…`) is quoted, or a shell would cut it at the `&`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_command_status_prints_for_a_target_url_with_a_query_is_quoted_for_the_shell() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let folder = lab.numbered_folder(1);
    let out = lodge_with(&db, &add_titled(&folder, "Run 1")).await;
    assert!(out.status.success(), "{}", text(&out));
    let datacite = sandbox.datacite_target_url();
    assert!(datacite.contains('&'), "{datacite}");
    let password = sandbox.datacite_account().password;
    let out = lodge_with(
        &db,
        &["deposit", "1", "--target", &datacite, "--token", &password],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));
    // New metadata: a new key, not deposited there yet.
    let out = lodge_with(&db, &add_titled(&folder, "Run 1, corrected")).await;
    assert!(out.status.success(), "{}", text(&out));

    let status = text(&lodge_with(&db, &["status"]).await);
    let command = status
        .lines()
        .find_map(|l| {
            l.split_once("this content is not deposited here yet: `")
                .map(|(_, rest)| rest.trim_end_matches('`'))
        })
        .unwrap_or_else(|| panic!("{status}"));
    // The words a shell passes to `lodge` for it (a function standing in for lodge).
    let shell = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("lodge() {{ printf '%s\\n' \"$@\"; }}; {command}"))
        .output()
        .unwrap();
    let words: Vec<String> = String::from_utf8_lossy(&shell.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert!(shell.status.success(), "{command}: {shell:?}");
    // The token a target given by URL needs with each run is named where it goes.
    assert_eq!(words.len(), 6, "{command}: {words:?}");
    assert_eq!(words[..2], ["deposit", "--target"], "{command}");
    assert_eq!(words[3..], ["1", "--token", "TOKEN"], "{command}");
    // As the shell reads it, the target is the one deposited to.
    let mut run_it = words.clone();
    run_it[5] = password.clone();
    let run_it: Vec<&str> = run_it.iter().map(String::as_str).collect();
    let out = lodge_with(&db, &run_it).await;
    assert!(out.status.success(), "{command}: {}", text(&out));
    assert!(text(&out).contains("1 deposited"), "{}", text(&out));
}

/// Whether process `pid` has `file` open (Linux: its `/proc/PID/fd` links).
fn has_open(pid: u32, file: &Path) -> bool {
    fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|fds| {
            fds.flatten()
                .any(|fd| fs::read_link(fd.path()).is_ok_and(|target| target == file))
        })
        .unwrap_or(false)
}

/// Ctrl-C while `lodge add` hashes the second of its folders: the first stays added,
/// nothing of the second is recorded, the command says so and how to go on (exit status
/// 130, as a shell's), and running it again adds the rest.
#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_while_adding_keeps_the_folders_added_records_nothing_of_the_one_being_hashed_and_says_so()
{
    let lab = Lab::new();
    let small = lab.folder("small", &[("a.txt", b"a")]);
    let big = lab.folder("big", &[("notes.txt", b"n")]);
    // Sparse: no disk, and still every byte read and hashed, which takes a while.
    let data = big.join("zeros.bin");
    fs::File::create(&data).unwrap().set_len(128 << 20).unwrap();
    let add = |lab: &Lab| {
        let mut cmd = lodge_in(lab);
        cmd.args(["add", small.to_str().unwrap(), big.to_str().unwrap()])
            .args(["--title", "{folder}", "--creator", "Doe, Jane"])
            .args(["--year", "2026", "--publisher", "Lab"]);
        cmd
    };
    let out = interrupted_while_hashing(add(&lab), &data);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(130), "{t}");
    assert!(
        t.contains(&format!(
            "stopped: 1 of 2 folders added, 1 left (nothing of {} was recorded). Run the same \
             `lodge add` again to add the rest: the one added already is only checked",
            big.display()
        )),
        "{t}"
    );
    let store = lab.store("lodge.db");
    let names = || -> Vec<String> {
        let datasets = store.datasets().unwrap();
        datasets.into_iter().map(|d| d.name).collect()
    };
    assert_eq!(names(), ["small"], "nothing of the big folder was recorded");

    let again = add(&lab).output().unwrap();
    assert!(again.status.success(), "{}", text(&again));
    assert_eq!(names(), ["small", "big"]);

    // `lodge scan` stops the same way: the big file changed, so it is hashed again.
    let key = store.datasets().unwrap()[1].key;
    fs::OpenOptions::new()
        .write(true)
        .open(&data)
        .unwrap()
        .set_len(96 << 20)
        .unwrap();
    let mut scan = lodge_in(&lab);
    scan.args(["scan", "--all"]);
    let out = interrupted_while_hashing(scan, &data);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(130), "{t}");
    assert!(
        t.contains("stopped: 1 of 2 datasets scanned; the others keep their last scan"),
        "{t}"
    );
    assert_eq!(
        store.datasets().unwrap()[1].key,
        key,
        "its last scan stands"
    );
}

/// Run `cmd` and send it Ctrl-C's signal (SIGINT) once it has `file` open (hashing it):
/// what it printed, and how it ended.
fn interrupted_while_hashing(mut cmd: std::process::Command, file: &Path) -> std::process::Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !has_open(child.id(), file) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{} was never opened",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let int = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(int.success());
    child.wait_with_output().unwrap()
}

/// A run given `--db` on its command line (a lab's shared database, another file) suggests
/// commands with that `--db`: run as printed without it, they would work on another store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_suggested_by_a_run_given_db_name_that_db() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("elsewhere.db");
    add(
        &lab.store("elsewhere.db"),
        &lab.numbered_folder(1),
        &metadata("One"),
    );
    sandbox.set_faults(FaultConfig {
        fail_before_commit: 1.0,
        ..FaultConfig::default()
    });
    let mut deposit = lodge(&lab.path("default.db"));
    deposit
        .env_remove("LODGE_DB")
        .arg("--db")
        .arg(&db)
        .args(["deposit", "--all", "--max-attempts", "1", "--target"])
        .arg(sandbox.target_url());
    let out = run(deposit).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[&format!("retry with `lodge --db {} retry 1`", db.display())],
    );
    assert!(!t.contains("`lodge retry"), "{t}");
}

/// A dataset named in Japanese (two terminal columns a character) does not push its
/// row's columns out of line in `status` and `history`: each row's key, and each job's
/// target, starts at the same column.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_in_japanese_keep_the_columns_of_status_and_history_in_line() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    for name in ["土壌コア", "soil-cores"] {
        let folder = lab.folder(name, &[("data.csv", name.as_bytes())]);
        added_titled_with(&lab, &folder, "Soil cores", &[]);
    }
    let columns = |said: &str, marker: &str| -> Vec<usize> {
        said.lines()
            .filter_map(|line| {
                let at = line.find(marker)?;
                Some(unicode_width::UnicodeWidthStr::width(&line[..at]))
            })
            .collect()
    };
    let (_, status) = lodge_said(&lab, &["status"]);
    // The key follows the name: the column where "not deposited" text's key begins.
    let keys: Vec<usize> = status
        .lines()
        .filter(|l| l.contains("not deposited anywhere yet"))
        .map(|line| {
            let key = line.split_whitespace().nth(2).unwrap();
            unicode_width::UnicodeWidthStr::width(&line[..line.find(key).unwrap()])
        })
        .collect();
    assert_eq!(keys.len(), 2, "{status}");
    assert_eq!(keys[0], keys[1], "{status}");

    let url = sandbox.target_url();
    let (ok, said) = lodge_said(&lab, &["deposit", "--target", &url, "--all"]);
    assert!(ok, "{said}");
    let (_, history) = lodge_said(&lab, &["history"]);
    let targets = columns(&history, &url);
    assert_eq!(targets.len(), 2, "{history}");
    assert_eq!(targets[0], targets[1], "{history}");
}

/// A citation file's affiliation may hold a `;`, the separator of `--creator`'s parts: `show`
/// writes it `\;`, and that text given back to `--creator` is the same creator (the key does
/// not change).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_creator_shown_with_a_semicolon_in_its_affiliation_is_given_back_by_flag_unchanged() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let folder = lab.numbered_folder(1);
    fs::write(
        folder.join("CITATION.cff"),
        "cff-version: 1.2.0\ntitle: Semicolons\nauthors:\n  - family-names: O'Brien\n    \
         given-names: Siobhán\n    affiliation: \"Trinity College Dublin; Dept. of Physics\"\n",
    )
    .unwrap();
    let common = ["--publisher", "Lab", "--year", "2026"];
    let out = lodge_with(
        &db,
        &[&["add", folder.to_str().unwrap()][..], &common].concat(),
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));

    let out = lodge_with(&db, &["show", "1"]).await;
    let shown = "O'Brien, Siobhán; affiliation=Trinity College Dublin\\; Dept. of Physics";
    assert_all(&text(&out), &[shown]);

    let again = [
        &["add", folder.to_str().unwrap(), "--creator", shown][..],
        &common,
    ]
    .concat();
    let out = lodge_with(&db, &again).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(&t, &["unchanged since the last scan"]);
}

/// A citation file that cannot be read filled nothing: the deposit's refusal of the
/// incomplete metadata says so beside the flags, as the fix may be the file's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_for_incomplete_metadata_names_the_citation_file_that_could_not_be_read() {
    let lab = Lab::new();
    let db = lab.path("lodge.db");
    let folder = lab.numbered_folder(1);
    fs::write(
        folder.join("CITATION.cff"),
        "cff-version: 1.2.0\ntitle: [unclosed\n",
    )
    .unwrap();
    let out = lodge_with(&db, &["add", folder.to_str().unwrap()]).await;
    assert!(out.status.success(), "{}", text(&out));

    let out = lodge_with(
        &db,
        &["deposit", "--all", "--target", "sandbox+http://127.0.0.1:9"],
    )
    .await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "refused  ds001: metadata incomplete",
            "title: is required",
            &format!(
                "{} could not be read as citation metadata: ",
                folder
                    .canonicalize()
                    .unwrap()
                    .join("CITATION.cff")
                    .display()
            ),
            "fix the file and add the folder again",
        ],
    );
}

/// A job still on the queue whose dataset was removed: `retry` does not say a `lodge
/// deposit` runs it (none does), and `cancel` does not promise a `retry` that would refuse.
#[test]
fn retry_and_cancel_of_a_removed_datasets_queued_job_give_commands_that_work() {
    let lab = Lab::new();
    let store = lab.store("lodge.db");
    let (id, key) = add(&store, &lab.numbered_folder(1), &metadata("Removed"));
    let target = "sandbox+http://127.0.0.1:9";
    store.upsert_target(target, target, "a sandbox").unwrap();
    store
        .enqueue_deposits(target, &[(id, key)], Duration::from_secs(3600))
        .unwrap();
    let (removed, said) = lodge_said(&lab, &["remove", "1"]);
    assert!(removed, "{said}");

    let out = lodge_in(&lab).args(["retry", "1"]).output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "job 1 is queued, of a dataset removed from the list: no `lodge deposit` sends it \
             now",
            "`lodge cancel 1` ends it",
        ],
    );
    assert!(!t.contains("runs it"), "{t}");

    let out = lodge_in(&lab).args(["cancel", "1"]).output().unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "cancelled job 1: now failed. job 1 failed, but its dataset",
            &format!(
                "was removed from Lodge: add its folder again (`lodge add {}`)",
                lab.numbered_folder(1).display()
            ),
            "`lodge dismiss 1`",
        ],
    );
    assert!(!t.contains("`lodge retry 1` queues it again"), "{t}");
}

/// More failed deposits than `status` lists by number, all to one target: the command it
/// gives to give them up names that target, and works as given.
#[test]
fn status_gives_up_many_failed_deposits_of_one_target_by_naming_it() {
    let lab = Lab::new();
    let store = lab.store("lodge.db");
    let target = "sandbox+http://127.0.0.1:9";
    store.upsert_target(target, target, "a sandbox").unwrap();
    for n in 1..=6 {
        let (id, key) = add(&store, &lab.numbered_folder(n), &metadata("Mistyped"));
        store
            .enqueue_deposits(target, &[(id, key)], Duration::from_secs(3600))
            .unwrap();
    }
    let (cancelled, said) = lodge_said(&lab, &["cancel", "--target", target]);
    assert!(cancelled, "{said}");

    let (_, status) = lodge_said(&lab, &["status"]);
    let command = format!("lodge dismiss --target {target}");
    assert_all(
        &status,
        &[&format!(
            "to give up on them instead (their target gone for good, or mistyped): `{command}`"
        )],
    );
    let (dismissed, said) = lodge_said(&lab, &["dismiss", "--target", target]);
    assert!(dismissed, "{said}");
    assert_all(&said, &["6 jobs dismissed"]);
}

/// Flags written after `--` are folders to the command line, as `--` says: the refusal
/// says so, and nothing is added.
#[test]
fn flags_after_a_double_dash_are_refused_as_folders_saying_why() {
    let lab = Lab::new();
    let folder = lab.numbered_folder(1);
    let out = lodge_in(&lab)
        .args(["add", "--"])
        .arg(&folder)
        .args(["--title", "Cores"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert_all(
        &t,
        &[
            "cannot find the folder --title",
            "(after `--` every word is a folder, a flag too: put the flags before the `--`)",
        ],
    );
    assert!(!lab.path("lodge.db").exists(), "nothing added: {t}");
}

/// Two machines sharing one database (`LODGE_HOST` stands for each): `lodge history` says
/// who queued each job where more than one did, and its JSON and CSV always carry it
/// (`queued_by`); one machine's own history does not repeat its name on every line.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn history_says_who_queued_each_job_once_more_than_one_machine_did() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let as_machine = |host: &str, args: &[&str]| {
        let mut cmd = lodge(&db);
        cmd.env("LODGE_HOST", host).env("USER", "ada").args(args);
        run(cmd)
    };
    let first = lab.numbered_folder(3);
    let first = first.to_str().unwrap();
    let out = as_machine("lab-a", &support::add_titled(Path::new(first), "First")).await;
    assert!(out.status.success(), "{}", text(&out));
    let target = sandbox.target_url();
    let out = as_machine("lab-a", &["deposit", "--target", &target, "1"]).await;
    assert!(out.status.success(), "{}", text(&out));
    let history = as_machine("lab-a", &["history"]).await;
    assert!(
        !text(&history).contains("queued by"),
        "one machine: {}",
        text(&history)
    );

    let second = lab.numbered_folder(4);
    let second = second.to_str().unwrap();
    let out = as_machine("lab-b", &support::add_titled(Path::new(second), "Second")).await;
    assert!(out.status.success(), "{}", text(&out));
    let out = as_machine("lab-b", &["deposit", "--target", &target, "2"]).await;
    assert!(out.status.success(), "{}", text(&out));

    let history = text(&as_machine("lab-a", &["history"]).await);
    let line = |job: &str| {
        (history.lines())
            .find(|l| l.contains(&format!(" job {job} ")))
            .unwrap_or_else(|| panic!("no job {job} in:\n{history}"))
            .to_string()
    };
    assert!(line("1").ends_with("(queued by ada@lab-a)"), "{history}");
    assert!(line("2").ends_with("(queued by ada@lab-b)"), "{history}");
    // A filter that leaves one machine's jobs still says whose they are.
    let one = text(&as_machine("lab-a", &["history", "2"]).await);
    assert!(one.contains("(queued by ada@lab-b)"), "{one}");

    let json = as_machine("lab-b", &["history", "--json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let by: Vec<(i64, &str)> = (json.as_array().unwrap().iter())
        .map(|r| (r["job"].as_i64().unwrap(), r["queued_by"].as_str().unwrap()))
        .collect();
    assert_eq!(by, [(2, "ada@lab-b"), (1, "ada@lab-a")]);
    let csv = as_machine("lab-b", &["history", "--csv"]).await;
    let mut read = csv::Reader::from_reader(csv.stdout.as_slice());
    assert_eq!(read.headers().unwrap().get(14), Some("queued_by"));
    let by: Vec<String> = (read.records())
        .map(|r| r.unwrap()[14].to_string())
        .collect();
    assert_eq!(by, ["ada@lab-b", "ada@lab-a"]);
}
