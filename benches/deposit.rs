//! Deposit throughput: guarded deposits (store, queue, leases, events) against the same
//! conditional PUTs sent raw by the same HTTP client with no store, then a replay of the
//! finished batch. Run with `cargo bench --bench deposit` (LODGE_BENCH_ITEMS, default 5000;
//! LODGE_BENCH_CONCURRENCY, default 8).

use std::sync::Arc;
use std::time::{Duration, Instant};

use lodge::catalog::record_folder;
use lodge::content::{ContentKey, Creator, Metadata};
use lodge::engine::{Engine, EngineConfig};
use lodge::sandbox::{FaultConfig, RunningSandbox, SandboxConfig};
use lodge::store::Store;
use lodge::targets::{DepositRequest, open_target};
use tokio_util::sync::CancellationToken;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn sandbox(dir: &std::path::Path) -> RunningSandbox {
    RunningSandbox::start(SandboxConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.to_path_buf(),
        token: None,
        faults: FaultConfig::default(),
    })
    .await
    .expect("sandbox")
}

/// CPU time (user + system) this process has used so far, from /proc (Linux).
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses and may contain spaces.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<u64> = rest
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let ticks = fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn rate(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

#[tokio::main]
async fn main() {
    let items = env_usize("LODGE_BENCH_ITEMS", 5000);
    let concurrency = env_usize("LODGE_BENCH_CONCURRENCY", 8);
    let lab = tempfile::tempdir().expect("temp dir");
    let store = Arc::new(Store::open(&lab.path().join("lodge.db")).expect("store"));

    eprintln!("preparing {items} tiny datasets…");
    let mut datasets: Vec<(i64, ContentKey)> = Vec::with_capacity(items);
    for n in 0..items {
        let root = lab.path().join(format!("ds/{n:05}"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("value.txt"), format!("{n}\n")).unwrap();
        let metadata = Metadata {
            title: format!("Tiny dataset {n}"),
            creators: vec![Creator::named("Bench, Mark")],
            publisher: "Lodge bench".into(),
            publication_year: Some(2026),
            ..Metadata::default()
        };
        let r = record_folder(&store, &root, &metadata, &|_| {}).expect("record");
        datasets.push((r.id, r.prepared.key()));
    }

    // Raw: the target's own conditional PUTs, no store, no queue.
    let raw_server = sandbox(&lab.path().join("raw-sbx")).await;
    let raw_target = open_target(&raw_server.target_url(), None).unwrap();
    let mut documents = Vec::with_capacity(items);
    for (id, key) in &datasets {
        let doc = store.document(key).unwrap().unwrap();
        let root = store.dataset(*id).unwrap().unwrap().path;
        documents.push((*key, doc, std::path::PathBuf::from(root)));
    }
    // LODGE_BENCH_ONLY=raw|guarded runs one side (for profiling).
    let only = std::env::var("LODGE_BENCH_ONLY").unwrap_or_default();
    let documents = if only == "guarded" {
        Vec::new()
    } else {
        documents
    };
    let cpu = cpu_time();
    let started = Instant::now();
    // The same shape as the engine: `concurrency` tasks on the runtime's worker threads,
    // each taking the next item, so the two sides differ only by the store.
    let documents = Arc::new(documents);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut senders = tokio::task::JoinSet::new();
    for _ in 0..concurrency {
        let (documents, next, target) = (documents.clone(), next.clone(), raw_target.clone());
        senders.spawn(async move {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((key, doc, root)) = documents.get(i) else {
                    break;
                };
                let request = DepositRequest {
                    key: *key,
                    document: doc,
                    root,
                };
                target
                    .upload(&request, Arc::new(|_| {}))
                    .await
                    .expect("raw upload");
                target.create_record(&request).await.expect("raw record");
            }
        });
    }
    while let Some(done) = senders.join_next().await {
        done.expect("raw sender");
    }
    let raw = started.elapsed();
    let raw_cpu = cpu_time() - cpu;
    let raw_requests = raw_server.stats().requests;

    // Guarded: the engine, with the store in the loop.
    let server = sandbox(&lab.path().join("sbx")).await;
    let target = open_target(&server.target_url(), None).unwrap();
    let config = EngineConfig {
        concurrency,
        ..EngineConfig::default()
    };
    let enqueue = |store: &Store| -> Vec<i64> {
        store
            .enqueue_deposits(target.scope_id(), &datasets, config.retry.deadline)
            .unwrap()
            .into_iter()
            .map(|(e, _)| e.job_id())
            .collect()
    };
    if only == "raw" {
        println!(
            "raw only: {:.0} items/s, {:.3} CPU ms/item",
            rate(items, raw),
            raw_cpu.as_secs_f64() * 1000.0 / items as f64
        );
        return;
    }
    let mut engine = Engine::new(store.clone(), config.clone()).unwrap();
    engine.add_target(target.clone()).unwrap();
    let engine = Arc::new(engine);
    let cpu = cpu_time();
    let started = Instant::now();
    let ids = enqueue(&store);
    let jobs = engine
        .run_batch(ids, CancellationToken::new())
        .await
        .unwrap();
    let guarded = started.elapsed();
    let guarded_cpu = cpu_time() - cpu;
    assert!(jobs.iter().all(|j| j.state.is_landed()));
    let guarded_requests = server.stats().requests;

    // Replay: every key has a result; nothing may reach the server.
    let cpu = cpu_time();
    let started = Instant::now();
    let ids = enqueue(&store);
    let replayed = engine
        .run_batch(ids, CancellationToken::new())
        .await
        .unwrap();
    let replay = started.elapsed();
    let replay_cpu = cpu_time() - cpu;
    assert!(replayed.iter().all(|j| j.state.is_landed()));
    let replay_requests = server.stats().requests - guarded_requests;

    println!("deposit throughput, {items} tiny datasets, concurrency {concurrency}");
    println!(
        "{:<34} {:>10} {:>12} {:>10} {:>14}",
        "", "seconds", "items/s", "requests", "CPU ms/item"
    );
    let per_item = |cpu: Duration| cpu.as_secs_f64() * 1000.0 / items as f64;
    println!(
        "{:<34} {:>10.2} {:>12.0} {:>10} {:>14.3}",
        "raw conditional PUTs (no store)",
        raw.as_secs_f64(),
        rate(items, raw),
        raw_requests,
        per_item(raw_cpu)
    );
    println!(
        "{:<34} {:>10.2} {:>12.0} {:>10} {:>14.3}",
        "guarded deposits (lodge engine)",
        guarded.as_secs_f64(),
        rate(items, guarded),
        guarded_requests,
        per_item(guarded_cpu)
    );
    println!(
        "{:<34} {:>10.2} {:>12.0} {:>10} {:>14.3}",
        "replay of the finished batch",
        replay.as_secs_f64(),
        rate(items, replay),
        replay_requests,
        per_item(replay_cpu)
    );
    println!(
        "guarded / raw = {:.2} (goal >= 0.8); replay sent {replay_requests} requests (goal 0)",
        rate(items, guarded) / rate(items, raw)
    );
    raw_server.shutdown().await;
    server.shutdown().await;
}
