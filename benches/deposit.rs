//! Deposit throughput: guarded deposits (store, queue, leases, events) against the same
//! conditional PUTs sent raw by the same HTTP client with no store, then a replay of the
//! finished batch. Run with `cargo bench --bench deposit` (LODGE_BENCH_ITEMS, default 5000;
//! LODGE_BENCH_CONCURRENCY, default 8).

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
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
    let started = Instant::now();
    futures_util::stream::iter(documents.iter())
        .for_each_concurrent(concurrency, |(key, doc, root)| {
            let target = raw_target.clone();
            async move {
                let request = DepositRequest {
                    key: *key,
                    document: doc,
                    root,
                };
                target.upload(&request, Arc::new(|_| {})).await.expect("raw upload");
                target.create_record(&request).await.expect("raw record");
            }
        })
        .await;
    let raw = started.elapsed();
    let raw_requests = raw_server.stats().requests;

    // Guarded: the engine, with the store in the loop.
    let server = sandbox(&lab.path().join("sbx")).await;
    let target = open_target(&server.target_url(), None).unwrap();
    let config = EngineConfig {
        concurrency,
        ..EngineConfig::default()
    };
    let enqueue = |store: &Store| -> Vec<i64> {
        datasets
            .iter()
            .map(|(id, key)| {
                store
                    .enqueue_deposit(*id, target.scope_id(), key, config.retry.deadline)
                    .unwrap()
                    .0
                    .job_id()
            })
            .collect()
    };
    let mut engine = Engine::new(store.clone(), config.clone());
    engine.add_target(target.clone()).unwrap();
    let engine = Arc::new(engine);
    let started = Instant::now();
    let ids = enqueue(&store);
    let jobs = engine
        .run_batch(ids, CancellationToken::new())
        .await
        .unwrap();
    let guarded = started.elapsed();
    assert!(jobs.iter().all(|j| j.state.is_landed()));
    let guarded_requests = server.stats().requests;

    // Replay: every key has a result; nothing may reach the server.
    let started = Instant::now();
    let ids = enqueue(&store);
    let replayed = engine
        .run_batch(ids, CancellationToken::new())
        .await
        .unwrap();
    let replay = started.elapsed();
    assert!(replayed.iter().all(|j| j.state.is_landed()));
    let replay_requests = server.stats().requests - guarded_requests;

    println!("deposit throughput, {items} tiny datasets, concurrency {concurrency}");
    println!("{:<34} {:>10} {:>12} {:>10}", "", "seconds", "items/s", "requests");
    println!(
        "{:<34} {:>10.2} {:>12.0} {:>10}",
        "raw conditional PUTs (no store)",
        raw.as_secs_f64(),
        rate(items, raw),
        raw_requests
    );
    println!(
        "{:<34} {:>10.2} {:>12.0} {:>10}",
        "guarded deposits (lodge engine)",
        guarded.as_secs_f64(),
        rate(items, guarded),
        guarded_requests
    );
    println!(
        "{:<34} {:>10.2} {:>12.0} {:>10}",
        "replay of the finished batch",
        replay.as_secs_f64(),
        rate(items, replay),
        replay_requests
    );
    println!(
        "guarded / raw = {:.2} (goal >= 0.8); replay sent {replay_requests} requests (goal 0)",
        rate(items, guarded) / rate(items, raw)
    );
    raw_server.shutdown().await;
    server.shutdown().await;
}
