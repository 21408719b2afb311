//! The chaos harness: datasets deposited through a faulty sandbox while the depositing
//! process is killed with SIGKILL at random moments and restarted, then four processes
//! depositing from one store at once; at the end the server's records are compared with the
//! store and one line is printed:
//!
//! `datasets=N faults=F kills=K duplicates=D lost=L mismatched=M`
//!
//! The test suite runs a short form; `scripts/chaos` runs the full one (1,000 datasets, 5
//! kills) through the same code, sized by `LODGE_CHAOS_DATASETS` and `LODGE_CHAOS_KILLS`.

mod support;

use std::collections::{HashMap, HashSet};
use std::process::Child;
use std::time::{Duration, Instant};

use lodge::content::Metadata;
use lodge::sandbox::FaultConfig;
use rand::{Rng, SeedableRng};
use support::*;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Mixed datasets: sizes from bytes to a megabyte, files shared between datasets, and pairs
/// with identical data under different metadata.
fn make_datasets(lab: &Lab, n: usize, rng: &mut impl Rng) -> Vec<(std::path::PathBuf, Metadata)> {
    let shared = vec![b'x'; 64 * 1024];
    (0..n)
        .map(|i| {
            let size = match i % 10 {
                0 => 1 << 20,
                1..=3 => 20_000,
                _ => 200,
            };
            let data: Vec<u8> = (0..size).map(|_| rng.random()).collect();
            let name = format!("chaos/ds{i:05}");
            let mut files: Vec<(&str, &[u8])> = vec![("data.bin", &data)];
            if i % 3 == 0 {
                files.push(("shared/common.bin", &shared));
            }
            let root = if i % 7 == 6 {
                // Same data as the previous dataset, other metadata.
                let prev = lab.path(&format!("chaos/ds{:05}", i - 1));
                let copy = lab.path(&name);
                copy_dir(&prev, &copy);
                copy
            } else {
                lab.folder(&name, &files)
            };
            (root, metadata(&format!("Chaos dataset {i}")))
        })
        .collect()
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
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

fn spawn_deposit(db: &std::path::Path, url: &str) -> Child {
    let log = std::fs::File::create(db.with_extension("last-run.log")).expect("run log");
    lodge(db)
        .args(["deposit", "--all", "--target", url, "--max-attempts", "100"])
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chaos_kills_and_concurrent_processes_leave_no_duplicate_loss_or_mismatch() {
    let n = env_number("LODGE_CHAOS_DATASETS", 60) as usize;
    let kills = env_number("LODGE_CHAOS_KILLS", 2);
    let seed = env_number("LODGE_CHAOS_SEED", 2026);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let lab = Lab::new();
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
    let sandbox = lab.sandbox("sbx", faults).await;
    let url = sandbox.target_url();
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");

    // Phase 1: one process, killed K times at random moments and restarted.
    let first_half = make_datasets(&lab, n / 2, &mut rng);
    let mut keys = HashMap::new();
    for (root, m) in &first_half {
        let (_, key) = add(&store, root, m);
        keys.insert(key.to_hex(), root.clone());
    }
    let mut killed = 0;
    let mut child = spawn_deposit(&db, &url);
    while killed < kills {
        tokio::time::sleep(Duration::from_millis(rng.random_range(150..900))).await;
        if child.try_wait().unwrap().is_some() {
            break; // finished before this kill; what is left is already exercised
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        killed += 1;
        child = spawn_deposit(&db, &url);
    }
    let status = wait(&mut child, Duration::from_secs(600)).await;
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

    // Phase 2: four processes on one store at once.
    let second_half = make_datasets(&lab, n - n / 2, &mut rng)
        .into_iter()
        .enumerate()
        .map(|(i, (root, m))| {
            let moved = lab.path(&format!("chaos2/ds{i:05}"));
            std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
            std::fs::rename(&root, &moved).unwrap();
            (
                moved,
                Metadata {
                    title: format!("Second phase {i}"),
                    ..m
                },
            )
        })
        .collect::<Vec<_>>();
    for (root, m) in &second_half {
        let (_, key) = add(&store, root, m);
        keys.insert(key.to_hex(), root.clone());
    }
    let mut four: Vec<Child> = (0..4).map(|_| spawn_deposit(&db, &url)).collect();
    for child in &mut four {
        let status = wait(child, Duration::from_secs(600)).await;
        assert!(status.success());
    }

    // Compare the server with the store (with the faults off: this is the audit).
    sandbox.set_faults(FaultConfig::default());
    let mut server: HashMap<String, Vec<String>> = HashMap::new();
    let mut page = 1;
    loop {
        let body = get_json(&sandbox, &format!("/records?page={page}&per_page=1000")).await;
        let records = body["records"].as_array().unwrap().clone();
        for r in &records {
            server
                .entry(r["key"].as_str().unwrap().to_string())
                .or_default()
                .push(r["identifier"].as_str().unwrap().to_string());
        }
        if records.len() < 1000 {
            break;
        }
        page += 1;
    }
    let duplicates = server.values().filter(|ids| ids.len() > 1).count()
        + (sandbox.stats().creates as usize).saturating_sub(server.len());
    let status = store.status_rows().unwrap();
    let mut lost = 0;
    let mut mismatched = 0;
    let mut seen = HashSet::new();
    for row in &status {
        let key = row.key.clone().unwrap();
        seen.insert(key.clone());
        let landed = matches!(row.state.as_str(), "deposited" | "existing");
        match server.get(&key) {
            None => lost += 1,
            Some(ids) if !landed || row.identifier.as_deref() != Some(ids[0].as_str()) => {
                mismatched += 1
            }
            Some(_) => {}
        }
    }
    lost += keys.keys().filter(|k| !seen.contains(*k)).count();
    let faults_seen = store.totals().unwrap().retries;
    let line = format!(
        "datasets={} faults={faults_seen} kills={killed} duplicates={duplicates} lost={lost} mismatched={mismatched}",
        keys.len()
    );
    println!("{line}");
    assert_eq!((duplicates, lost, mismatched), (0, 0, 0), "{line}");
    assert_eq!(server.len(), keys.len(), "{line}");
    assert!(faults_seen > 0, "the fault mix must have been hit: {line}");
}
