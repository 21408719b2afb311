//! Team mode: several `lodge` processes (standing for a lab's machines) on one PostgreSQL
//! store and one sandbox. Each key is created once whatever the processes do at once; a
//! worker paused past its lease cannot record; PostgreSQL killed mid-batch and started again
//! loses and duplicates nothing; a job whose folder is on another machine is left for it;
//! every store hears of other machines' events at once; the shared database chosen in the
//! window's Settings is the commands' default too.

mod support;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use lodge::sandbox::{FaultConfig, RunningSandbox};
use lodge::store::{EventKind, JobState, NewEvent, Store, StoreLocation};
use support::cli::{FAST, text};
use support::postgres::{PgCluster, local_hash_cache, shared};
use support::{Lab, get_json};

/// `lodge` on the shared store `url`, as machine `host`.
fn lodge_on(url: &str, host: &str) -> Command {
    let mut cmd = support::lodge(Path::new(url));
    cmd.env("LODGE_HOST", host).env(
        "LODGE_HASH_CACHE",
        local_hash_cache().join(format!("{host}.db")),
    );
    cmd
}

fn deposit(url: &str, host: &str, target: &str, extra: &[&str]) -> Command {
    let mut cmd = lodge_on(url, host);
    cmd.args(["deposit", "--target", target, "--all"])
        .args(FAST)
        .args(["--max-attempts", "30"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn add_all(url: &str, host: &str, folders: &[std::path::PathBuf]) {
    for (n, folder) in folders.iter().enumerate() {
        let title = format!("Team dataset {n}");
        let out = lodge_on(url, host)
            .args(support::add_titled(folder, &title))
            .output()
            .unwrap();
        assert!(out.status.success(), "add: {}", text(&out));
    }
}

fn wait_for(child: Child, limit: Duration) -> Output {
    let pid = child.id();
    let waiter = std::thread::spawn(move || child.wait_with_output().unwrap());
    let started = Instant::now();
    while !waiter.is_finished() {
        if started.elapsed() > limit {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("lodge deposit did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    waiter.join().unwrap()
}

fn open(url: &str) -> Store {
    local_hash_cache();
    Store::open_at(&StoreLocation::Postgres(url.into())).unwrap()
}

/// The identifier the sandbox holds for `key`, asking again past the sandbox's own
/// injected faults (which apply to reads too).
async fn server_identifier(sandbox: &RunningSandbox, key: &str) -> Option<String> {
    let url = format!("{}/records/{key}", sandbox.base_url());
    for _ in 0..50 {
        if let Ok(response) = reqwest::get(&url).await
            && response.status() == reqwest::StatusCode::OK
            && let Ok(json) = response.json::<serde_json::Value>().await
        {
            return json["identifier"].as_str().map(str::to_string);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the sandbox never answered GET {url}");
}

/// Every dataset's job agrees with the sandbox: landed, and under the identifier the
/// server holds for its key.
async fn assert_store_agrees_with_server(store: &Store, sandbox: &RunningSandbox, n: usize) {
    let stats = get_json(sandbox, "/stats").await;
    assert_eq!(stats["records"], n, "server records: {stats}");
    assert_eq!(stats["creates"], n, "a key was created twice: {stats}");
    let datasets = store.datasets().unwrap();
    assert_eq!(datasets.len(), n);
    for d in datasets {
        let key = d.key.unwrap();
        let job = store.jobs_of_dataset(d.id).unwrap().remove(0);
        assert!(job.state.is_landed(), "{} is {:?}", d.name, job.state);
        assert_eq!(
            server_identifier(sandbox, &key.to_hex()).await,
            job.identifier,
            "{}: store and server disagree",
            d.name
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_processes_on_one_postgres_store_create_each_key_once() {
    let lab = Lab::new();
    let url = shared().new_database();
    let sandbox = lab
        .sandbox(
            "sandbox",
            FaultConfig {
                drop_after_commit: 0.15,
                fail_before_commit: 0.1,
                rate_limit: 0.05,
                retry_after_secs: 1,
                reset: 0.05,
                latency_ms: 5,
                seed: Some(7),
                ..FaultConfig::default()
            },
        )
        .await;
    let folders: Vec<_> = (0..24).map(|n| lab.numbered_folder(n)).collect();
    add_all(&url, "ws1", &folders);

    let target = sandbox.target_url();
    let workers: Vec<Child> = (0..4)
        .map(|w| {
            deposit(
                &url,
                &format!("ws{}", w + 1),
                &target,
                &["--concurrency", "3"],
            )
            .spawn()
            .unwrap()
        })
        .collect();
    for child in workers {
        let out = wait_for(child, Duration::from_secs(120));
        assert!(out.status.success(), "a worker failed: {}", text(&out));
    }
    let store = open(&url);
    assert_store_agrees_with_server(&store, &sandbox, 24).await;
    // Every process's view agrees with the server, not only this one's.
    for w in 1..=4 {
        let out = lodge_on(&url, &format!("ws{w}"))
            .args(["status", "--json"])
            .output()
            .unwrap();
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let rows = status["items"].as_array().unwrap();
        assert_eq!(rows.len(), 24, "ws{w} sees another number of datasets");
        for row in rows {
            let key = row["key"].as_str().unwrap();
            assert_eq!(
                row["identifier"].as_str().map(str::to_string),
                server_identifier(&sandbox, key).await,
                "ws{w}: {row}"
            );
        }
    }
    // The other machines' work is in the log, named by machine.
    let actors: std::collections::HashSet<String> = store
        .events_after(0, 100_000)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EventKind::Attempt)
        .map(|e| e.actor)
        .collect();
    assert!(actors.len() > 1, "only {actors:?} worked");
}

/// One machine's refused token pauses the target for that machine alone: another machine
/// on the same shared database, sending with the right token meanwhile, goes on until its
/// batch has landed, and its status names no pause; the first machine's job waits, paused,
/// until its own user acts.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_token_refused_on_one_machine_pauses_that_machine_alone() {
    let lab = Lab::new();
    let url = shared().new_database();
    let slow = FaultConfig {
        latency_ms: 300,
        ..FaultConfig::default()
    };
    let sandbox = lab
        .start_sandbox("sandbox", Some("right".into()), slow)
        .await;
    let target = sandbox.target_url();
    let alphas: Vec<_> = (1..=6).map(|n| lab.numbered_folder(n)).collect();
    add_all(&url, "alpha", &alphas);
    add_all(&url, "beta", &[lab.numbered_folder(7)]);
    let ids: Vec<String> = (1..=6).map(|n| n.to_string()).collect();
    let alpha = lodge_on(&url, "alpha")
        .args(["deposit", "--target", &target, "--token", "right"])
        .args(["--concurrency", "1"])
        .args(&ids)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once alpha's first deposit has landed, beta gives a wrong token.
    let started = Instant::now();
    while sandbox.stats().records == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "alpha sent nothing"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let beta = lodge_on(&url, "beta")
        .args(["deposit", "--target", &target, "--token", "wrong", "7"])
        .output()
        .unwrap();
    assert_eq!(beta.status.code(), Some(1), "{}", text(&beta));
    assert!(text(&beta).contains("is paused"), "{}", text(&beta));

    let alpha = wait_for(alpha, Duration::from_secs(120));
    assert!(
        alpha.status.success(),
        "alpha was stopped: {}",
        text(&alpha)
    );
    assert_eq!(
        sandbox.stats().records,
        6,
        "alpha's six landed, beta's none"
    );
    let status = |host: &str| {
        text(
            &lodge_on(&url, host)
                .args(["status", "--target", &target])
                .output()
                .unwrap(),
        )
    };
    assert!(
        !status("alpha").contains("is paused"),
        "{}",
        status("alpha")
    );
    assert!(status("beta").contains("is paused"), "{}", status("beta"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_paused_past_its_lease_cannot_record_its_stale_result() {
    let lab = Lab::new();
    let url = shared().new_database();
    // Slow enough that the first worker is mid-request when it is paused.
    let sandbox = lab
        .sandbox(
            "sandbox",
            FaultConfig {
                latency_ms: 1500,
                ..FaultConfig::default()
            },
        )
        .await;
    add_all(&url, "ws1", &[lab.numbered_folder(1)]);
    let target = sandbox.target_url();
    let store = open(&url);

    let first = deposit(&url, "ws1", &target, &["--lease", "1s"])
        .spawn()
        .unwrap();
    let pid = first.id().to_string();
    // Wait until the first worker holds the job.
    let started = Instant::now();
    let job = loop {
        let job = store.jobs_of_dataset(1).unwrap().into_iter().next();
        if let Some(job) = job.filter(|j| j.state == JobState::Running) {
            break job;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "never claimed");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        Command::new("kill")
            .args(["-STOP", &pid])
            .status()
            .unwrap()
            .success()
    );
    std::thread::sleep(Duration::from_millis(1500));

    // Another machine takes the expired lease over and finishes the job.
    let second = deposit(&url, "ws2", &target, &["--lease", "10s"])
        .output()
        .unwrap();
    assert!(second.status.success(), "{}", text(&second));
    let done = store.job(job.id).unwrap();
    assert!(done.state.is_landed(), "{:?}", done.state);
    assert!(done.fence > job.fence);

    // The paused worker wakes up and tries to record: refused by the fence.
    assert!(
        Command::new("kill")
            .args(["-CONT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let first = wait_for(first, Duration::from_secs(60));
    let events = store.events_for_job(job.id).unwrap();
    assert!(
        events.iter().any(|e| e.kind == EventKind::StaleLease),
        "no stale-lease refusal: {events:#?}\n{}",
        text(&first)
    );
    let after = store.job(job.id).unwrap();
    assert_eq!(
        after.identifier, done.identifier,
        "the stale result overwrote the job"
    );
    assert_eq!(get_json(&sandbox, "/stats").await["records"], 1);
}

/// A batch of `n` datasets, added on `ws1` to a database of a cluster of its own, being
/// deposited by `ws1` (`concurrency` at a time) to a sandbox answering after `latency_ms`,
/// once `landed` of them have landed: the database can be stopped under it.
struct BatchUnderWay {
    lab: Lab,
    cluster: PgCluster,
    url: String,
    sandbox: RunningSandbox,
    worker: Child,
}

async fn batch_under_way(
    n: usize,
    concurrency: &str,
    latency_ms: u64,
    landed: u64,
) -> BatchUnderWay {
    batch_under_way_with(n, concurrency, latency_ms, landed, &[]).await
}

/// [`batch_under_way`], the deposit run with the environment variables `env` set.
async fn batch_under_way_with(
    n: usize,
    concurrency: &str,
    latency_ms: u64,
    landed: u64,
    env: &[(&str, &str)],
) -> BatchUnderWay {
    let lab = Lab::new();
    let cluster = PgCluster::start_new();
    let url = cluster.new_database();
    let sandbox = lab
        .sandbox(
            "sandbox",
            FaultConfig {
                latency_ms,
                ..FaultConfig::default()
            },
        )
        .await;
    let folders: Vec<_> = (0..n).map(|n| lab.numbered_folder(n)).collect();
    add_all(&url, "ws1", &folders);
    let worker = deposit(
        &url,
        "ws1",
        &sandbox.target_url(),
        &["--concurrency", concurrency],
    )
    .envs(env.iter().copied())
    .spawn()
    .unwrap();
    let started = Instant::now();
    while get_json(&sandbox, "/stats").await["records"]
        .as_u64()
        .unwrap()
        < landed
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "nothing landed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    BatchUnderWay {
        lab,
        cluster,
        url,
        sandbox,
        worker,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_killed_mid_batch_and_started_again_loses_and_duplicates_nothing() {
    // Part of the batch landed: crash the database under it.
    let BatchUnderWay {
        lab: _lab,
        cluster,
        url,
        sandbox,
        worker,
    } = batch_under_way(30, "4", 40, 5).await;
    cluster.stop_immediately();
    tokio::time::sleep(Duration::from_secs(2)).await;
    cluster.start();

    let out = wait_for(worker, Duration::from_secs(180));
    assert!(
        out.status.success(),
        "the worker did not carry on: {}",
        text(&out)
    );
    let store = open(&url);
    assert_store_agrees_with_server(&store, &sandbox, 30).await;
}

/// While the shared database does not answer, a deposit says so (it seems to do nothing
/// else), and a stop waits for it to give its jobs back: a second Ctrl-C ends it at once,
/// losing nothing, as a crash would. The next run, once the database is back, finishes the
/// batch with one record each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deposit_says_when_the_database_does_not_answer_and_a_second_ctrl_c_ends_it() {
    let BatchUnderWay {
        lab: _lab,
        cluster,
        url,
        sandbox,
        worker,
    } = batch_under_way(8, "2", 300, 1).await;
    cluster.stop_immediately();
    tokio::time::sleep(Duration::from_secs(5)).await;
    let interrupt = || {
        let sent = Command::new("kill")
            .args(["-INT", &worker.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    };
    interrupt();
    tokio::time::sleep(Duration::from_millis(500)).await;
    interrupt();
    let out = wait_for(worker, Duration::from_secs(30));
    let said = text(&out);
    cluster.start();
    assert_eq!(out.status.code(), Some(130), "{said}");
    for words in [
        "does not answer: Lodge keeps trying (up to 10 minutes) and carries on once it \
         answers; nothing is lost",
        "Ctrl-C again stops Lodge at once",
        "stopped at once: what was in flight is taken over by the next deposit",
    ] {
        assert!(said.contains(words), "{words:?} in {said}");
    }

    let again = wait_for(
        deposit(&url, "ws1", &sandbox.target_url(), &[])
            .spawn()
            .unwrap(),
        Duration::from_secs(120),
    );
    assert!(again.status.success(), "{}", text(&again));
    let store = open(&url);
    assert_store_agrees_with_server(&store, &sandbox, 8).await;
}

/// A call that gives up waiting for the shared database (its patience, 10 minutes unless
/// `LODGE_PG_PATIENCE_SECS` says otherwise, run out) does not make the deposit say the
/// database answers again while it is still down.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_given_up_is_not_said_as_the_database_answering_again() {
    let BatchUnderWay {
        lab: _lab,
        cluster,
        worker,
        ..
    } = batch_under_way_with(6, "2", 300, 1, &[("LODGE_PG_PATIENCE_SECS", "5")]).await;
    tokio::task::block_in_place(|| cluster.stop_immediately());
    let out = tokio::task::block_in_place(|| wait_for(worker, Duration::from_secs(90)));
    let said = text(&out);
    tokio::task::block_in_place(|| cluster.start());
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("does not answer: Lodge keeps trying"),
        "{said}"
    );
    assert!(!said.contains("answers again"), "it never did: {said}");
    assert!(
        said.contains("Nothing is lost: what this run had not finished stays queued")
            && said.contains("run the same `lodge deposit` again once the database answers"),
        "{said}"
    );
}

/// `forget` on a shared database says that what it forgets is forgotten for every machine
/// that uses it, before and after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forgetting_on_a_shared_database_says_it_is_for_every_machine() {
    let lab = Lab::new();
    let url = shared().new_database();
    let sandbox = lab.sandbox("sandbox", FaultConfig::default()).await;
    add_all(&url, "alpha", &[lab.numbered_folder(1)]);
    let out = deposit(&url, "alpha", &sandbox.target_url(), &[])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    for (args, words) in [
        (
            &["forget", "--older-than", "0s"][..],
            "would forget 1 recorded result of the shared database",
        ),
        (
            &["forget", "--older-than", "0s", "--yes"][..],
            "forgot 1 recorded result of the shared database",
        ),
    ] {
        let out = lodge_on(&url, "beta").args(args).output().unwrap();
        let t = text(&out);
        assert!(
            t.contains(words) && t.contains("for every machine that uses it"),
            "{t}"
        );
    }
}

/// A job of another machine's dataset whose folder this machine cannot read is sent from
/// this machine's own copy of that folder (the same key), not left waiting for the other
/// machine: one record, the job handed to the copy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_of_another_machines_dataset_is_sent_from_this_machines_copy() {
    let AwayFromBeta {
        lab, url, sandbox, ..
    } = AwayFromBeta::new().await;
    let copy = lab.folder(
        "beta/ds001",
        &[
            ("data.csv", b"id,value\n1,1\n"),
            ("README.txt", b"shared readme"),
        ],
    );
    add_all(&url, "beta", std::slice::from_ref(&copy));
    let store = open(&url);
    let key = |id: i64| store.dataset(id).unwrap().unwrap().key;
    assert_eq!(key(1), key(2), "the same files and metadata");
    let alphas = store.dataset(1).unwrap().unwrap().path;

    let on_beta = deposit(&url, "beta", &sandbox.target_url(), &[])
        .output()
        .unwrap();
    let said = text(&on_beta);
    assert!(on_beta.status.success(), "{said}");
    assert!(!said.contains("left for a machine"), "{said}");
    assert_eq!(get_json(&sandbox, "/stats").await["records"], 1);
    let job = store.jobs_of_dataset(2).unwrap().remove(0);
    assert_eq!(
        job.state,
        JobState::Deposited,
        "handed to beta's copy: {job:?}"
    );
    let handed = store.events_for_job(job.id).unwrap();
    assert!(
        handed.iter().any(|e| e.message.contains(&format!(
            "ds001 was added on alpha, and its folder {alphas} is not on beta"
        ))),
        "{handed:?}"
    );
}

/// Dataset 1 added on machine alpha, its folder then moved away (as it is on machine beta,
/// which does not have it), and a sandbox to deposit to.
struct AwayFromBeta {
    lab: Lab,
    url: String,
    sandbox: lodge::sandbox::RunningSandbox,
    /// Where alpha's folder is, and where it was moved.
    folder: std::path::PathBuf,
    away: std::path::PathBuf,
}

impl AwayFromBeta {
    async fn new() -> AwayFromBeta {
        let lab = Lab::new();
        let url = shared().new_database();
        let sandbox = lab.sandbox("sandbox", FaultConfig::default()).await;
        let folder = lab.numbered_folder(1);
        add_all(&url, "alpha", std::slice::from_ref(&folder));
        let away = lab.path("elsewhere");
        std::fs::rename(&folder, &away).unwrap();
        AwayFromBeta {
            lab,
            url,
            sandbox,
            folder,
            away,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_whose_folder_is_on_another_machine_is_left_for_it_and_every_hint_names_that_machine()
{
    let AwayFromBeta {
        lab,
        url,
        sandbox,
        folder,
        away,
    } = AwayFromBeta::new().await;

    // A dry run on beta says what the real run does: left for alpha, not refused as gone.
    let dry = deposit(&url, "beta", &sandbox.target_url(), &["--dry-run"])
        .output()
        .unwrap();
    let said = text(&dry);
    assert_eq!(dry.status.code(), Some(1), "{said}");
    assert!(
        said.contains("left     ds001: cannot read ")
            && said.contains("the dataset was added on alpha; a deposit leaves it for a machine"),
        "{said}"
    );
    assert!(
        said.contains("1 left for the machine that added them") && !said.contains("refused"),
        "{said}"
    );

    let on_beta = deposit(&url, "beta", &sandbox.target_url(), &[])
        .output()
        .unwrap();
    let said = text(&on_beta);
    assert!(!on_beta.status.success(), "{said}");
    assert!(
        said.contains("added on alpha") && said.contains("left for a machine that can read it"),
        "{said}"
    );
    assert!(
        said.contains("left      ds001 (job 1)"),
        "the summary names it: {said}"
    );
    assert!(
        said.contains(&format!(
            "to send what is left for alpha: `lodge deposit --target {} 1` on alpha",
            sandbox.target_url()
        )),
        "and how it is sent: {said}"
    );
    assert_eq!(get_json(&sandbox, "/stats").await["records"], 0);
    let store = open(&url);
    let last = store.events_for_job(1).unwrap().pop().unwrap();
    assert_eq!(last.kind, EventKind::LeftForOthers);
    let left = store.jobs_of_dataset(1).unwrap().remove(0);
    assert_eq!(left.state, JobState::Queued);
    assert_eq!(left.attempts, 0, "leaving a job is not an attempt");
    // `status` on beta names the machine its deposit command works on.
    let status = lodge_on(&url, "beta").arg("status").output().unwrap();
    let said = text(&status);
    assert!(
        said.contains(&format!(
            "`lodge deposit --target {} 1` on alpha sends it now",
            sandbox.target_url()
        )),
        "{said}"
    );
    // `show` on beta says where the folder is, and does not offer to remove the dataset:
    // that would take it off alpha's list too.
    let show = lodge_on(&url, "beta").args(["show", "1"]).output().unwrap();
    let said = text(&show);
    assert!(show.status.success(), "{said}");
    assert!(
        said.contains("note: the folder is on alpha, where the dataset was added"),
        "{said}"
    );
    assert!(!said.contains("lodge remove"), "{said}");

    // Back on alpha, where the folder is, the same job lands.
    std::fs::rename(&away, &folder).unwrap();
    let on_alpha = deposit(&url, "alpha", &sandbox.target_url(), &[])
        .output()
        .unwrap();
    assert!(on_alpha.status.success(), "{}", text(&on_alpha));
    assert_store_agrees_with_server(&store, &sandbox, 1).await;

    // A file the server lost: the repair, which sends from the folder, is alpha's.
    let key = store.dataset(1).unwrap().unwrap().key.unwrap();
    let lost = store.document(&key).unwrap().unwrap().manifest[0].sha256;
    std::fs::remove_file(sandbox.data_dir().join(format!("blobs/sha256/{lost}"))).unwrap();
    std::fs::rename(&folder, &away).unwrap();
    let verify = lodge_on(&url, "beta")
        .args(["verify", "1"])
        .output()
        .unwrap();
    let said = text(&verify);
    assert_eq!(verify.status.code(), Some(1), "{said}");
    assert!(
        said.contains("`lodge verify 1 --repair` on alpha, where the folder is, sends them again"),
        "{said}"
    );
    std::fs::rename(&away, &folder).unwrap();

    // A file changed after alpha's scan, the folder readable on beta too: beta's deposit
    // refuses it, and the rescan it names is alpha's.
    std::fs::write(folder.join("more.csv"), "id\n2\n").unwrap();
    let first = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap() != "more.csv")
        .unwrap();
    std::fs::write(&first, "changed after the scan").unwrap();
    let other = lab.sandbox("other", FaultConfig::default()).await;
    let on_beta = deposit(&url, "beta", &other.target_url(), &[])
        .output()
        .unwrap();
    let said = text(&on_beta);
    assert!(!on_beta.status.success(), "{said}");
    assert!(
        said.contains("`lodge scan 1` on alpha, then deposit again"),
        "{said}"
    );

    // Removed on beta, it is off every machine's list, which the removal says.
    let removed = lodge_on(&url, "beta")
        .args(["remove", "1"])
        .output()
        .unwrap();
    let said = text(&removed);
    assert!(removed.status.success(), "{said}");
    assert!(
        said.contains("it was added on alpha: it is off the list there too"),
        "{said}"
    );
}

/// Another machine's dataset given by its folder is named, with its machine and the
/// number that gives it here, not "no dataset matches" with advice to give its folder.
#[test]
fn another_machines_dataset_given_by_its_folder_is_named_with_its_number() {
    let lab = Lab::new();
    let url = shared().new_database();
    let folder = lab.numbered_folder(1);
    add_all(&url, "alpha", std::slice::from_ref(&folder));
    let path = folder.canonicalize().unwrap().display().to_string();
    let named = format!(
        "'{path}' is the folder of dataset 1 (ds001) on alpha, not of a dataset added on this \
         machine: give its number, 1, to mean that dataset"
    );

    let shown = lodge_on(&url, "beta")
        .args(["show", &path])
        .output()
        .unwrap();
    let said = text(&shown);
    assert_ne!(shown.status.code(), Some(0), "{said}");
    assert!(said.contains(&named), "{said}");
    assert!(!said.contains("no dataset matches"), "{said}");
    let by_number = lodge_on(&url, "beta").args(["show", "1"]).output().unwrap();
    assert!(by_number.status.success(), "{}", text(&by_number));
    // So is a deposit of it by its folder, given as typed (relative): not "a folder, but
    // not one of Lodge's datasets", whose `lodge add` would make a second dataset.
    let deposited = lodge_on(&url, "beta")
        .current_dir(folder.parent().unwrap())
        .args([
            "deposit",
            "--target",
            "sandbox+http://127.0.0.1:9",
            "./ds001",
        ])
        .output()
        .unwrap();
    let said = text(&deposited);
    assert_ne!(deposited.status.code(), Some(0), "{said}");
    assert!(said.contains(&named), "{said}");
    assert!(!said.contains("not one of Lodge's datasets"), "{said}");
}

/// A deposit on one machine refusing another machine's dataset for incomplete metadata
/// names that machine and the dataset's number: a `lodge add` of its folder's path here
/// would change this machine's own dataset of that path, or add one, not that one.
#[test]
fn incomplete_metadata_of_another_machines_dataset_is_to_be_fixed_on_that_machine() {
    let lab = Lab::new();
    let url = shared().new_database();
    let folder = lab.numbered_folder(1);
    let out = lodge_on(&url, "alpha")
        .arg("add")
        .arg(&folder)
        .args(["--title", "Untitled run"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let path = folder.canonicalize().unwrap().display().to_string();

    let out = deposit(&url, "beta", "sandbox+http://127.0.0.1:9", &[])
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "dataset 1 was added on alpha, where its folder is: fix it there, with `lodge add \
             {path}` and the flags named above on alpha"
        )),
        "{said}"
    );
    assert!(!said.contains("fix with `lodge add"), "{said}");
    // On the machine that added it, the fix is its own `lodge add`.
    let out = deposit(&url, "alpha", "sandbox+http://127.0.0.1:9", &[])
        .output()
        .unwrap();
    let said = text(&out);
    assert!(
        said.contains(&format!(
            "fix with `lodge add {path}` and the flags named above"
        )),
        "{said}"
    );
}

/// A scan on one machine of a dataset another machine added (its folder is that one's,
/// even at the same path here) is refused, and `scan --all` leaves it to its machine:
/// neither makes it a second dataset of this machine's.
#[test]
fn a_scan_of_a_dataset_another_machine_added_is_left_to_that_machine() {
    let lab = Lab::new();
    let url = shared().new_database();
    let folder = lab.numbered_folder(1);
    add_all(&url, "alpha", std::slice::from_ref(&folder));
    let store = open(&url);
    let ids =
        |store: &Store| -> Vec<i64> { store.datasets().unwrap().iter().map(|d| d.id).collect() };
    assert_eq!(ids(&store), [1]);

    let named = lodge_on(&url, "beta").args(["scan", "1"]).output().unwrap();
    let said = text(&named);
    assert_eq!(named.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "error: dataset 1 ({}) was added on alpha, whose folder it is: scan it there \
             (`lodge scan 1` on alpha). To make the folder at that path on this machine a \
             dataset of its own: `lodge add ",
            folder.canonicalize().unwrap().display()
        )),
        "{said}"
    );
    assert_eq!(ids(&store), [1], "no dataset of beta's made");

    let all = lodge_on(&url, "beta")
        .args(["scan", "--all"])
        .output()
        .unwrap();
    let said = text(&all);
    assert!(all.status.success(), "{said}");
    assert!(
        said.contains(
            "left 1 dataset added on another machine: each is scanned on the machine that added it"
        ),
        "{said}"
    );
    assert_eq!(ids(&store), [1]);

    // On its own machine it scans as ever.
    std::fs::write(folder.join("more.csv"), "id\n2\n").unwrap();
    let home = lodge_on(&url, "alpha")
        .args(["scan", "1"])
        .output()
        .unwrap();
    assert!(home.status.success(), "{}", text(&home));
    assert_eq!(ids(&store), [1]);
    assert_eq!(store.dataset(1).unwrap().unwrap().file_count, 3);

    // The folder at that path on beta made a dataset of its own: its name names both, and
    // the error says which machine added which.
    add_all(&url, "beta", std::slice::from_ref(&folder));
    assert_eq!(ids(&store), [1, 2]);
    let named = lodge_on(&url, "beta")
        .args(["show", "ds001"])
        .output()
        .unwrap();
    let said = text(&named);
    assert_eq!(named.status.code(), Some(2), "{said}");
    let path = folder.canonicalize().unwrap();
    assert!(
        said.contains(&format!(
            "'ds001' names more than one dataset: 1 ({0}, added on alpha), 2 ({0}, added on \
             this machine). Give its number or its folder instead (the folder names the one \
             added on this machine)",
            path.display()
        )),
        "{said}"
    );
}

/// A machine whose clock is off (libfaketime moves this one process's clock, not the
/// server's) is told so by every command: its leases would be misjudged.
#[test]
fn a_machine_whose_clock_is_off_is_warned_and_one_in_time_is_not() {
    let lab = Lab::new();
    let url = shared().new_database();
    add_all(&url, "alpha", &[lab.numbered_folder(1)]);
    let status = |clock: Option<&str>| {
        let mut cmd = lodge_on(&url, "alpha");
        if let Some(offset) = clock {
            // Only this process's wall clock: its timers and waits keep the real one.
            let lodge = cmd.get_program().to_owned();
            let mut faked = Command::new("faketime");
            faked.args(["-f", offset]).arg(lodge);
            for (key, value) in cmd.get_envs() {
                match value {
                    Some(v) => faked.env(key, v),
                    None => faked.env_remove(key),
                };
            }
            faked.env("DONT_FAKE_MONOTONIC", "1");
            cmd = faked;
        }
        let out = cmd
            .arg("status")
            .output()
            .expect("faketime (scripts/install/postgres.sh)");
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let ahead = status(Some("+90s"));
    assert!(
        ahead.contains(
            "warning: this machine's clock is 90 s ahead of the shared database server's"
        ),
        "{ahead}"
    );
    let behind = status(Some("-2m"));
    assert!(
        behind.contains("120 s behind the shared database server's"),
        "{behind}"
    );
    assert!(
        !status(None).contains("clock"),
        "a clock in time says nothing"
    );
}

/// `lodge` as a person runs it in a terminal: no `--db` or `LODGE_DB`, the platform
/// directories under `home` (where the window keeps its settings file).
fn lodge_at_home(home: &Path) -> Command {
    let mut cmd = support::lodge(Path::new("unused"));
    cmd.env_remove("LODGE_DB")
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("LODGE_HASH_CACHE", local_hash_cache().join("home.db"));
    cmd
}

/// The window's settings file under `home`, naming `database` as the shared one.
fn save_window_settings(home: &Path, text: &str) {
    let file = home.join("config/lodge/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

#[test]
fn a_shared_database_chosen_in_the_windows_settings_is_the_commands_default() {
    let lab = Lab::new();
    let url = shared().new_database();
    add_all(&url, "alpha", &[lab.numbered_folder(1)]);
    let home = lab.path("home");
    save_window_settings(&home, &serde_json::json!({ "database": url }).to_string());

    let out = lodge_at_home(&home)
        .args(["status", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = status["items"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "the shared store's dataset: {status}");
    assert_eq!(
        rows[0]["path"].as_str(),
        lab.numbered_folder(1).canonicalize().unwrap().to_str()
    );
    assert!(
        !home.join("data/lodge/lodge.db").exists(),
        "no file of this computer's was made"
    );
    // --db still wins, for one command.
    let out = lodge_at_home(&home)
        .args(["--db", lab.path("own.db").to_str().unwrap()])
        .args(support::add_titled(&lab.numbered_folder(2), "Mine"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(lab.path("own.db").exists());
}

/// The database's URL without its password, as Lodge prints it in the commands it
/// suggests, connects with the password from `PGPASSWORD` or the password file, as `psql`
/// does; a password file that others can read is not used (as libpq does not); with no
/// password found, the server's refusal says so.
#[test]
fn a_url_without_its_password_takes_it_from_pgpassword_or_the_password_file() {
    let cluster = PgCluster::start_new_with_password("lab-pw");
    let url = cluster.new_database();
    let lab = Lab::new();
    let nowhere = lab.path("no-pgpass");
    let folder = lab.numbered_folder(1);
    let add = |password: Option<&str>, file: &Path| {
        let mut cmd = lodge_on(&url, "alpha");
        // `add` makes Lodge's tables, as the first command on a new database.
        cmd.args(support::add_titled(&folder, "Cores"))
            .env("PGPASSFILE", file);
        match password {
            Some(p) => cmd.env("PGPASSWORD", p),
            None => cmd.env_remove("PGPASSWORD"),
        };
        cmd.output().unwrap()
    };
    let refused_saying = |password: Option<&str>, said: &str| {
        let out = add(password, &nowhere);
        assert!(
            !out.status.success() && text(&out).contains(said),
            "{said}: {}",
            text(&out)
        );
    };
    refused_saying(
        None,
        "the server asks for a password: put it in the URL, or in PGPASSWORD",
    );
    refused_saying(Some("not-it"), "the server refused the password: check it");

    let out = add(Some("lab-pw"), &nowhere);
    assert!(out.status.success(), "PGPASSWORD: {}", text(&out));

    let file = lab.path("pgpass");
    std::fs::write(
        &file,
        format!(
            "# the lab's database\n127.0.0.1:{}:*:postgres:lab-pw\n",
            cluster.port()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let out = add(None, &file);
        assert!(
            !out.status.success(),
            "a file others can read: {}",
            text(&out)
        );
        // Said, with the fix, not left to look like a password ignored for no reason.
        assert!(
            text(&out).contains(&format!(
                "{} holds passwords but others can read it, so it is not used (as psql does \
                 not): `chmod 600 {}`",
                file.display(),
                file.display()
            )),
            "{}",
            text(&out)
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let out = add(None, &file);
    assert!(out.status.success(), "the password file: {}", text(&out));
}

/// A database whose user may not create tables in it (PostgreSQL 15 and later give only the
/// owner that right in the public schema): refused naming the database and what its owner
/// can grant, and nothing is added.
#[test]
fn a_database_the_user_may_not_create_tables_in_is_named_with_what_to_grant() {
    let cluster = shared();
    let url = cluster.new_database();
    let database = url.rsplit('/').next().unwrap().to_string();
    let role = format!("guest_{}", std::process::id());
    cluster.sql(&database, &format!("CREATE ROLE {role} LOGIN"));
    cluster.sql(&database, "REVOKE CREATE ON SCHEMA public FROM PUBLIC");
    let as_guest = url.replace("postgres://postgres@", &format!("postgres://{role}@"));
    let lab = Lab::new();
    let out = lodge_on(&as_guest, "alpha")
        .args(support::add_titled(&lab.numbered_folder(1), "Cores"))
        .output()
        .unwrap();
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(
        t.contains("(42501)")
            && t.contains(&format!(
                "the user of {as_guest} may not create Lodge's tables there"
            ))
            && t.contains("GRANT CREATE ON SCHEMA public TO"),
        "{t}"
    );
    cluster.sql(
        &database,
        &format!("GRANT CREATE ON SCHEMA public TO {role}"),
    );
    let out = lodge_on(&as_guest, "alpha")
        .args(support::add_titled(&lab.numbered_folder(1), "Cores"))
        .output()
        .unwrap();
    assert!(out.status.success(), "granted, it starts: {}", text(&out));
}

/// A database the owner started (one dataset added), and a login role of its own on it,
/// named `prefix` and this process's id, with no grants yet.
struct RoleOnStartedDatabase {
    cluster: &'static PgCluster,
    url: String,
    database: String,
    lab: Lab,
    role: String,
    /// `url` as that role.
    as_role: String,
}

impl RoleOnStartedDatabase {
    fn new(prefix: &str) -> RoleOnStartedDatabase {
        let cluster = shared();
        let url = cluster.new_database();
        let database = url.rsplit('/').next().unwrap().to_string();
        let lab = Lab::new();
        add_all(&url, "owner", &[lab.numbered_folder(1)]);
        let role = format!("{prefix}_{}", std::process::id());
        cluster.sql(&database, &format!("CREATE ROLE {role} LOGIN"));
        let as_role = url.replace("postgres://postgres@", &format!("postgres://{role}@"));
        RoleOnStartedDatabase {
            cluster,
            url,
            database,
            lab,
            role,
            as_role,
        }
    }
}

/// A user given no right to Lodge's tables, or to read them only, is told what to grant:
/// the tables are there, so the right to create them is not what is missing.
#[test]
fn a_user_who_may_not_use_lodges_tables_is_told_what_to_grant() {
    let RoleOnStartedDatabase {
        cluster,
        database,
        lab,
        role,
        as_role: as_reader,
        ..
    } = RoleOnStartedDatabase::new("reader");
    let grant = "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO USER";
    let out = lodge_on(&as_reader, "reader")
        .arg("status")
        .output()
        .unwrap();
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(t.contains("(42501)") && t.contains(grant), "{t}");
    assert!(!t.contains("may not create Lodge's tables"), "{t}");

    // Reading only: what it reads works, what it writes says what to grant.
    cluster.sql(
        &database,
        &format!("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}"),
    );
    let out = lodge_on(&as_reader, "reader")
        .arg("status")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = lodge_on(&as_reader, "reader")
        .args(support::add_titled(&lab.numbered_folder(2), "Cores"))
        .output()
        .unwrap();
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(t.contains("(42501)") && t.contains(grant), "{t}");
}

/// A lab member whose user may use Lodge's tables (select, insert, update, delete) but not
/// create any works with a database the owner set up: nothing is created while the schema
/// is up to date. A schema a newer Lodge wrote is named as such, not as a database that
/// cannot be reached.
#[test]
fn a_user_who_may_not_create_tables_works_with_a_database_set_up_and_a_newer_schema_is_named() {
    let RoleOnStartedDatabase {
        cluster,
        url,
        database,
        lab,
        role,
        as_role: as_member,
    } = RoleOnStartedDatabase::new("member");
    cluster.sql(&database, "REVOKE CREATE ON SCHEMA public FROM PUBLIC");
    cluster.sql(
        &database,
        &format!(
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}; \
             GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}"
        ),
    );
    let out = lodge_on(&as_member, "member")
        .arg("status")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("ds001"), "{}", text(&out));
    add_all(&as_member, "member", &[lab.numbered_folder(2)]);

    cluster.sql(&database, "INSERT INTO lodge_schema (version) VALUES (999)");
    let out = lodge_on(&url, "owner").arg("status").output().unwrap();
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(
        t.contains("was written by a newer Lodge (schema 999, this Lodge knows up to ")
            && t.contains("Lodge has not changed it. Use a newer Lodge"),
        "{t}"
    );
    assert!(!t.contains("cannot reach"), "{t}");
}

/// The PostgreSQL server's own database, named or opened by a URL without a database's
/// name, is not given Lodge's tables by a first `add`: refused, naming a database of its
/// own to make, and nothing is written there (as `status` says of it).
#[test]
fn the_servers_own_database_is_not_given_lodges_tables() {
    let cluster = shared();
    let lab = Lab::new();
    let own = cluster.url("postgres");
    let unnamed = own.strip_suffix("/postgres").unwrap().to_string();
    for url in [&own, &unnamed] {
        let out = lodge_on(url, "alpha")
            .args(support::add_titled(&lab.numbered_folder(1), "Cores"))
            .output()
            .unwrap();
        let t = text(&out);
        assert!(!out.status.success(), "{url}: {t}");
        assert!(
            t.contains(
                "'postgres' is the PostgreSQL server's own database, not one for Lodge (Lodge \
                 wrote nothing there): create one (`createdb lodge`"
            ) && t.contains("/lodge add DIR`"),
            "{url}: {t}"
        );
        // `status` says the same: its "start it with `lodge add`" would be refused.
        let status = lodge_on(url, "alpha").arg("status").output().unwrap();
        let t = text(&status);
        assert!(
            t.contains("'postgres' is the PostgreSQL server's own database")
                && t.contains("/lodge add DIR`"),
            "{url}: {t}"
        );
        assert!(!t.contains("start this one with"), "{url}: {t}");
    }
}

#[test]
fn a_shared_database_in_settings_that_cannot_be_reached_is_named_with_where_to_change_it() {
    let lab = Lab::new();
    let home = lab.path("home");
    save_window_settings(
        &home,
        r#"{"database": "postgres://lodge@127.0.0.1:1/lodge"}"#,
    );
    let out = lodge_at_home(&home).arg("status").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    support::cli::assert_all(
        &text(&out),
        &[
            "cannot reach the Lodge database postgres://lodge@127.0.0.1:1/lodge",
            "It is the shared database named in the window's Settings (",
            "config/lodge/settings.json): correct or empty it there",
            "--db",
        ],
    );
    assert!(!home.join("data/lodge/lodge.db").exists());

    // A settings file that cannot be read is named, and this computer's file is used.
    save_window_settings(&home, r#"{"database": "postgres://lo"#);
    let out = lodge_at_home(&home).arg("status").output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    support::cli::assert_all(
        &text(&out),
        &[
            "warning: the settings file",
            "is damaged",
            "this command uses this computer's own database",
        ],
    );
}

/// A store on `url` and its event notices, once they listen: the listener says so with a 0
/// ("catch up").
async fn listening(url: &str) -> (Store, lodge::store::EventNotices) {
    let listener = open(url);
    let mut notices = listener
        .event_notices()
        .expect("PostgreSQL stores send notices");
    let first = tokio::time::timeout(Duration::from_secs(5), notices.receiver.recv())
        .await
        .expect("listening");
    assert_eq!(first, Some(0));
    (listener, notices)
}

/// The store's notices say when the shared database stops answering and when it answers
/// again (what the window tells a person, who would otherwise see nothing happen).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_notices_say_when_the_shared_database_stops_answering_and_answers_again() {
    let cluster = PgCluster::start_new();
    let url = cluster.new_database();
    let (_listener, mut notices) = listening(&url).await;
    assert!(*notices.reachable.borrow(), "answers while it runs");

    tokio::task::block_in_place(|| cluster.stop_immediately());
    tokio::time::timeout(
        Duration::from_secs(20),
        notices.reachable.wait_for(|answers| !answers),
    )
    .await
    .expect("the loss is seen")
    .unwrap();
    tokio::task::block_in_place(|| cluster.start());
    tokio::time::timeout(
        Duration::from_secs(30),
        notices.reachable.wait_for(|answers| *answers),
    )
    .await
    .expect("the return is seen")
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_store_hears_of_another_machines_events_within_a_second() {
    let url = shared().new_database();
    let (listener, mut notices) = listening(&url).await;

    let other = open(&url);
    let sent = Instant::now();
    let row = other
        .append_event(&NewEvent {
            kind: Some(EventKind::Resumed),
            message: "from another machine".into(),
            ..NewEvent::default()
        })
        .unwrap();
    let heard = tokio::time::timeout(Duration::from_secs(1), notices.receiver.recv())
        .await
        .expect("no notice within a second");
    assert_eq!(heard, Some(row.id));
    assert!(sent.elapsed() < Duration::from_secs(1));
    let seen = listener.events_after(row.id - 1, 10).unwrap();
    assert_eq!(seen[0].message, "from another machine");
    assert_eq!(seen[0].actor, other.actor());
}

/// The test helpers leave nothing behind: a cluster a test started is stopped and its
/// folder removed when it is dropped, and a folder kept for a whole process (the shared
/// cluster's, the servers' logs) is removed once that process has ended. Every run used to
/// leave about 140 MB per cluster in the temporary folder, until CI's disk filled.
#[test]
fn test_clusters_and_process_folders_are_removed_when_done() {
    let cluster = PgCluster::start_new();
    let folder = cluster.folder().to_path_buf();
    let port = cluster.port();
    assert!(folder.join("data").is_dir(), "{}", folder.display());
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    drop(cluster);
    assert!(!folder.exists(), "{} is left after drop", folder.display());
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the dropped cluster still answers on port {port}"
    );

    // A name a shell would trip over, and a command to run first (as a cluster is stopped).
    let parent = tempfile::tempdir().unwrap();
    let kept = parent.path().join("it's a $HOME folder");
    std::fs::create_dir(&kept).unwrap();
    std::fs::write(kept.join("server.log"), "log").unwrap();
    let ran_first = parent.path().join("stopped");
    let mut before = Command::new("touch");
    before.arg(&ran_first);
    let mut child = Command::new("sleep").arg("1").spawn().unwrap();
    support::scratch::remove_when_ended(child.id(), &kept, Some(&before));
    assert!(kept.exists(), "removed while its process still ran");
    child.wait().unwrap();
    let ended = Instant::now();
    while kept.exists() && ended.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        !kept.exists(),
        "{} is left after its process ended",
        kept.display()
    );
    assert!(
        ran_first.exists(),
        "the command before the removal did not run"
    );
}

/// Another program's PostgreSQL database (a lab's own `jobs` table, say) is refused,
/// naming its tables, and Lodge writes none of its own there. An empty one is Lodge's to
/// start, by `lodge add`: a command that only works on what is there (`status`) finds
/// none of Lodge's tables, says so, and makes none (it may be the wrong database).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_programs_postgres_database_is_refused_and_left_as_it_was() {
    let url = shared().new_database();
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute("CREATE TABLE jobs (id int); CREATE TABLE samples (id int)")
        .await
        .unwrap();
    let out = lodge_on(&url, "labpc1").arg("status").output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("it is not a Lodge database: it holds another program's tables (jobs, samples)"),
        "{t}"
    );
    let tables: Vec<String> = client
        .query(
            "SELECT table_name::text FROM information_schema.tables
             WHERE table_schema = 'public' ORDER BY 1",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(tables, ["jobs", "samples"], "nothing written");

    let empty = shared().new_database();
    let out = lodge_on(&empty, "labpc1").arg("status").output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("it has none of Lodge's tables, so nothing has been added with it yet"),
        "{t}"
    );
    assert!(t.contains("`lodge add DIR`"), "{t}");
    let (client, connection) = tokio_postgres::connect(&empty, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let count = "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'";
    let tables: i64 = client.query_one(count, &[]).await.unwrap().get(0);
    assert_eq!(tables, 0, "status made no tables");
    // Nor does an `add` refused before it adds anything (a mistyped folder).
    let lab = Lab::new();
    let out = (lodge_on(&empty, "labpc1"))
        .args(support::add_titled(&lab.path("no-such-folder"), "Nothing"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let tables: i64 = client.query_one(count, &[]).await.unwrap().get(0);
    assert_eq!(tables, 0, "a refused add made no tables");

    add_all(&empty, "labpc1", &[lab.numbered_folder(1)]);
    let out = lodge_on(&empty, "labpc1").arg("status").output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
}
