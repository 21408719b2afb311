//! The chaos harness: datasets deposited through a fault mix while the depositing process is
//! killed with SIGKILL at random moments and restarted, then four processes depositing from
//! one store at once; at the end the server's records are compared with the store and one
//! line is printed:
//!
//! `datasets=N faults=F kills=K duplicates=D lost=L mismatched=M`
//!
//! The same scenario runs against two repositories: Lodge's sandbox with its own fault
//! options (F = retries the store recorded), and moto (S3) behind the test proxy's seeded
//! fault mix, reached by the child processes as a named S3 target (F = faults the proxy
//! injected). For S3, "duplicates" counts record writes the server accepted more than once,
//! and a record is "mismatched" unless its body names its key and the store's manifest, every
//! blob of that manifest is in the bucket with its size, and the store holds its URL.
//!
//! The test suite runs a short form; `scripts/chaos` runs the full one through the same code,
//! sized by `LODGE_CHAOS_DATASETS` and `LODGE_CHAOS_KILLS` (sandbox) and
//! `LODGE_CHAOS_S3_DATASETS` and `LODGE_CHAOS_S3_KILLS` (S3); `LODGE_CHAOS_SEED` seeds both.

mod support;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use lodge::content::{ContentDocument, ContentKey, Metadata};
use lodge::sandbox::{FaultConfig, RunningSandbox};
use lodge::store::Store;
use lodge::targets::s3::S3Location;
use rand::{Rng, SeedableRng};
use support::proxy::{FaultMix, Proxy};
use support::*;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Mixed datasets: sizes from bytes to a megabyte, files shared between datasets, and pairs
/// with identical data under different metadata.
fn make_datasets(
    lab: &Lab,
    folder: &str,
    title: &str,
    n: usize,
    rng: &mut impl Rng,
) -> Vec<(PathBuf, Metadata)> {
    let shared = vec![b'x'; 64 * 1024];
    (0..n)
        .map(|i| {
            let size = match i % 10 {
                0 => 1 << 20,
                1..=3 => 20_000,
                _ => 200,
            };
            let data: Vec<u8> = (0..size).map(|_| rng.random()).collect();
            let name = format!("{folder}/ds{i:05}");
            let mut files: Vec<(&str, &[u8])> = vec![("data.bin", &data)];
            if i % 3 == 0 {
                files.push(("shared/common.bin", &shared));
            }
            let root = if i % 7 == 6 {
                // Same data as the previous dataset, other metadata.
                let prev = lab.path(&format!("{folder}/ds{:05}", i - 1));
                let copy = lab.path(&name);
                copy_dir(&prev, &copy);
                copy
            } else {
                lab.folder(&name, &files)
            };
            (root, metadata(&format!("{title} {i}")))
        })
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::create_dir_all(to).unwrap();
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The moto bucket's prefix the chaos deposits go under.
const S3_PREFIX: &str = "chaos";
/// Name of the S3 target in the children's config file.
const S3_TARGET: &str = "chaos-s3";
/// Environment variables the S3 target reads its key from.
const S3_KEY_ENV: (&str, &str) = ("LODGE_CHAOS_ACCESS_KEY", "LODGE_CHAOS_SECRET_KEY");

/// Where the chaos deposits go.
enum Repository {
    /// Lodge's sandbox with its own fault options.
    Sandbox(RunningSandbox),
    /// moto behind the fault proxy; the children reach it as a named target in `config`.
    S3 {
        proxy: Proxy,
        bucket: String,
        config: PathBuf,
    },
}

/// What the server holds for one content key.
struct ServerRecord {
    identifiers: Vec<String>,
    /// The record and what it points to are whole (see the module doc).
    whole: bool,
}

impl Repository {
    async fn sandbox(lab: &Lab, seed: u64) -> Repository {
        let faults = FaultConfig {
            drop_after_commit: 0.15,
            fail_before_commit: 0.1,
            rate_limit: 0.05,
            retry_after_secs: 1,
            reset: 0.05,
            timeout_after_commit: 0.05,
            latency_ms: 3,
            seed: Some(seed),
        };
        Repository::Sandbox(lab.sandbox("sbx", faults).await)
    }

    /// A fresh bucket on moto, a fault proxy in front of it, and the named target.
    async fn s3(lab: &Lab, seed: u64) -> Repository {
        let moto = support::servers::moto();
        let bucket = support::servers::unique("chaos");
        support::s3::create_bucket(moto, &bucket).await;
        let proxy = Proxy::start(moto).await;
        proxy.set_faults(Some(FaultMix {
            drop_after_commit: 0.1,
            unavailable: 0.05,
            rate_limit: 0.05,
            retry_after_secs: 1,
            reset: 0.05,
            latency_spike: 0.05,
            spike: Duration::from_millis(300),
            seed,
        }));
        let endpoint = proxy.url();
        let url = format!("s3://{bucket}/{S3_PREFIX}");
        let repository = Repository::S3 {
            proxy,
            bucket,
            config: lab.path("config/config.toml"),
        };
        let out = repository
            .command(&lab.path("lodge.db"))
            .args(["target", "add", S3_TARGET, &url, "--endpoint", &endpoint])
            .args([
                "--access-key-env",
                S3_KEY_ENV.0,
                "--secret-env",
                S3_KEY_ENV.1,
            ])
            .output()
            .expect("lodge target add");
        assert!(
            out.status.success(),
            "lodge target add: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        repository
    }

    /// `--target` of the children.
    fn target(&self) -> String {
        match self {
            Repository::Sandbox(s) => s.target_url(),
            Repository::S3 { .. } => S3_TARGET.into(),
        }
    }

    /// `lodge` with the database and whatever the target needs.
    fn command(&self, db: &Path) -> Command {
        let mut cmd = lodge(db);
        if let Repository::S3 { config, .. } = self {
            cmd.env("LODGE_CONFIG", config)
                .env("LODGE_NO_KEYRING", "1")
                .env(S3_KEY_ENV.0, support::s3::ACCESS_KEY)
                .env(S3_KEY_ENV.1, support::s3::SECRET_KEY);
        }
        cmd
    }

    /// Turn the faults off (the audit reads with none).
    fn faults_off(&self) {
        match self {
            Repository::Sandbox(s) => s.set_faults(FaultConfig::default()),
            Repository::S3 { proxy, .. } => proxy.set_faults(None),
        }
    }

    /// Faults met: retries recorded in the store (sandbox) or faults injected (S3).
    fn faults(&self, store: &Store) -> u64 {
        match self {
            Repository::Sandbox(_) => store.totals().unwrap().retries,
            Repository::S3 { proxy, .. } => proxy.faults_injected(),
        }
    }

    /// Every record on the server by content key, and how many writes created a record that
    /// already existed.
    async fn records(&self, store: &Store) -> (HashMap<String, ServerRecord>, usize) {
        match self {
            Repository::Sandbox(sandbox) => {
                let mut server: HashMap<String, ServerRecord> = HashMap::new();
                let mut page = 1;
                loop {
                    let path = format!("/records?page={page}&per_page=1000");
                    let body = get_json(sandbox, &path).await;
                    let records = body["records"].as_array().unwrap().clone();
                    for r in &records {
                        let key = r["key"].as_str().unwrap().to_string();
                        let id = r["identifier"].as_str().unwrap().to_string();
                        // The sandbox refuses a record whose blobs are missing.
                        let entry = server.entry(key).or_insert(ServerRecord {
                            identifiers: Vec::new(),
                            whole: true,
                        });
                        entry.identifiers.push(id);
                    }
                    if records.len() < 1000 {
                        break;
                    }
                    page += 1;
                }
                let duplicates = server.values().filter(|r| r.identifiers.len() > 1).count()
                    + (sandbox.stats().creates as usize).saturating_sub(server.len());
                (server, duplicates)
            }
            Repository::S3 { proxy, bucket, .. } => {
                s3_records(proxy, bucket, store, support::servers::moto()).await
            }
        }
    }
}

/// The bucket's records, each checked whole, and the record writes moto accepted (200) more
/// than once for one object.
async fn s3_records(
    proxy: &Proxy,
    bucket: &str,
    store: &Store,
    moto: &str,
) -> (HashMap<String, ServerRecord>, usize) {
    let through_proxy = S3Location::parse(
        &format!("s3://{bucket}/{S3_PREFIX}"),
        Some(&proxy.url()),
        None,
    )
    .unwrap();
    let blobs: HashMap<String, u64> =
        support::s3::list_objects(moto, bucket, &format!("{S3_PREFIX}/blobs/"))
            .await
            .into_iter()
            .map(|o| (o.key, o.size))
            .collect();
    let mut server = HashMap::new();
    for object in support::s3::list_objects(moto, bucket, &format!("{S3_PREFIX}/records/")).await {
        let name = object.key.rsplit('/').next().unwrap();
        let key_hex = name.trim_end_matches(".json").to_string();
        let key: ContentKey = key_hex.parse().expect("a record named by its key");
        let body = support::s3::get_object(moto, bucket, &object.key)
            .await
            .expect("a listed record can be read");
        let record: serde_json::Value = serde_json::from_slice(&body).expect("record JSON");
        let document: Option<ContentDocument> = store.document(&key).unwrap();
        let whole = document.is_some_and(|doc| {
            record["key"] == key_hex
                && record["manifest"] == serde_json::to_value(&doc.manifest).unwrap()
                && doc.manifest.iter().all(|entry| {
                    blobs.get(&through_proxy.blob_key(&entry.sha256)) == Some(&entry.size)
                })
        });
        let identifier = through_proxy
            .object_url(&through_proxy.record_key(&key))
            .to_string();
        server.insert(
            key_hex,
            ServerRecord {
                identifiers: vec![identifier],
                whole,
            },
        );
    }
    let mut accepted: HashMap<String, usize> = HashMap::new();
    for (method, path, status) in proxy.answered() {
        if method == "PUT" && path.contains(&format!("/{S3_PREFIX}/records/")) && status == 200 {
            *accepted.entry(path).or_default() += 1;
        }
    }
    let duplicates = accepted.values().map(|n| n - 1).sum();
    (server, duplicates)
}

fn spawn_deposit(repository: &Repository, db: &Path) -> Child {
    let log = std::fs::File::create(db.with_extension("last-run.log")).expect("run log");
    repository
        .command(db)
        .args(["deposit", "--all", "--target", &repository.target()])
        .args(["--max-attempts", "100"])
        .args([
            "--retry-base",
            "5ms",
            "--retry-cap",
            "100ms",
            "--retry-after-cap",
            "200ms",
        ])
        .args(["--lease", "3s", "--deadline", "1h"])
        .stdout(log.try_clone().expect("run log"))
        .stderr(log)
        .spawn()
        .expect("spawn lodge deposit")
}

async fn wait(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            started.elapsed() < limit,
            "lodge deposit did not finish in {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Phase 1 (one process, killed `kills` times and restarted), phase 2 (four processes on one
/// store), then the audit; prints the summary line and asserts it is clean.
async fn run_chaos(lab: &Lab, repository: &Repository, n: usize, kills: u64, seed: u64) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");

    // Phase 1: one process, killed K times at random moments and restarted.
    let mut keys = HashMap::new();
    for (root, m) in &make_datasets(lab, "chaos", "Chaos dataset", n / 2, &mut rng) {
        let (_, key) = add(&store, root, m);
        keys.insert(key.to_hex(), root.clone());
    }
    let mut killed = 0;
    let mut child = spawn_deposit(repository, &db);
    while killed < kills {
        tokio::time::sleep(Duration::from_millis(rng.random_range(150..900))).await;
        if child.try_wait().unwrap().is_some() {
            break; // finished before this kill; what is left is already exercised
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        killed += 1;
        child = spawn_deposit(repository, &db);
    }
    let status = wait(&mut child, Duration::from_secs(1200)).await;
    let last_run = std::fs::read_to_string(db.with_extension("last-run.log")).unwrap_or_default();
    let not_landed: Vec<&str> = last_run
        .lines()
        .filter(|l| !l.starts_with("deposited") && !l.starts_with("existing"))
        .filter(|l| !l.contains("retry_scheduled") && !l.contains("reconciled"))
        .collect();
    assert!(
        status.success(),
        "the last run must land everything: {not_landed:#?}"
    );

    // Phase 2: four processes on one store at once, on datasets with other metadata.
    let second = make_datasets(lab, "chaos2", "Second phase", n - n / 2, &mut rng);
    for (root, m) in &second {
        let (_, key) = add(&store, root, m);
        keys.insert(key.to_hex(), root.clone());
    }
    let mut four: Vec<Child> = (0..4).map(|_| spawn_deposit(repository, &db)).collect();
    for child in &mut four {
        let status = wait(child, Duration::from_secs(1200)).await;
        assert!(status.success());
    }

    // Compare the server with the store (with the faults off: this is the audit).
    repository.faults_off();
    let (server, duplicates) = repository.records(&store).await;
    let mut lost = 0;
    let mut mismatched = 0;
    let mut seen = HashSet::new();
    for row in &store.status_rows().unwrap() {
        let key = row.key.clone().unwrap();
        seen.insert(key.clone());
        let landed = matches!(row.state.as_str(), "deposited" | "existing");
        match server.get(&key) {
            None => lost += 1,
            Some(record)
                if !landed
                    || !record.whole
                    || row.identifier.as_deref() != Some(record.identifiers[0].as_str()) =>
            {
                mismatched += 1
            }
            Some(_) => {}
        }
    }
    lost += keys.keys().filter(|k| !seen.contains(*k)).count();
    let faults = repository.faults(&store);
    let line = format!(
        "datasets={} faults={faults} kills={killed} duplicates={duplicates} lost={lost} mismatched={mismatched}",
        keys.len()
    );
    println!("{line}");
    assert_eq!((duplicates, lost, mismatched), (0, 0, 0), "{line}");
    assert_eq!(
        server.len(),
        keys.len(),
        "records the store does not know: {line}"
    );
    assert!(faults > 0, "the fault mix must have been hit: {line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chaos_kills_and_concurrent_processes_leave_no_duplicate_loss_or_mismatch() {
    let n = env_number("LODGE_CHAOS_DATASETS", 60) as usize;
    let kills = env_number("LODGE_CHAOS_KILLS", 2);
    let seed = env_number("LODGE_CHAOS_SEED", 2026);
    let lab = Lab::new();
    let sandbox = Repository::sandbox(&lab, seed).await;
    run_chaos(&lab, &sandbox, n, kills, seed).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chaos_against_s3_behind_a_faulty_proxy_leaves_no_duplicate_loss_or_mismatch() {
    let n = env_number("LODGE_CHAOS_S3_DATASETS", 60) as usize;
    let kills = env_number("LODGE_CHAOS_S3_KILLS", 2);
    let seed = env_number("LODGE_CHAOS_SEED", 2026);
    let lab = Lab::new();
    let s3 = Repository::s3(&lab, seed).await;
    run_chaos(&lab, &s3, n, kills, seed).await;
}
