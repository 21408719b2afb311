//! Deposit throughput: tiny datasets deposited by the engine (store, queue, leases, events)
//! into an in-process sandbox, against the same conditional PUTs sent raw by the same HTTP
//! client with no store; then a replay of the finished batch, which must send no request.
//! Each side runs several rounds, taking turns; the figures are each side's median.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio_util::sync::CancellationToken;

use super::data::tiny_datasets;
use super::tools::{cpu_time, threads_cpu_since, threads_cpu_times};
use crate::content::{ContentDocument, ContentKey};
use crate::engine::{Engine, EngineConfig, STORE_THREADS};
use crate::sandbox::{FaultConfig, RunningSandbox, SandboxConfig};
use crate::store::Store;
use crate::targets::{DepositRequest, open_target};

/// One side of the comparison.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub elapsed: Duration,
    /// CPU time of this whole process (client, sandbox and store) during the run.
    pub cpu: Duration,
    /// Of that, the engine's store and checkpoint threads (zero on the raw side).
    pub store_cpu: Duration,
    /// Calls the engine made to its store thread (zero on the raw side).
    pub store_calls: u64,
    /// Requests the sandbox saw.
    pub requests: u64,
}

impl Run {
    pub fn items_per_s(&self, items: usize) -> f64 {
        items as f64 / self.elapsed.as_secs_f64()
    }
}

/// Which sides to run (one alone is for profiling).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sides {
    Both,
    RawOnly,
    GuardedOnly,
}

pub struct DepositFigures {
    pub items: usize,
    pub concurrency: usize,
    /// Rounds of each side; the figures are each side's median round.
    pub rounds: usize,
    pub raw: Option<Run>,
    pub guarded: Option<Run>,
    pub replay: Option<Run>,
    /// Every round of each side, in the order they ran.
    pub raw_rounds: Vec<Run>,
    pub guarded_rounds: Vec<Run>,
}

/// A sandbox on a free loopback port, keeping its data in `dir`, adding `latency` to every
/// request.
pub(super) async fn sandbox(dir: &Path, latency: Duration) -> anyhow::Result<RunningSandbox> {
    RunningSandbox::start(SandboxConfig {
        addr: "127.0.0.1:0".parse().expect("a socket address"),
        data_dir: dir.to_path_buf(),
        token: None,
        faults: FaultConfig {
            latency_ms: latency.as_millis().try_into().unwrap_or(u64::MAX),
            ..FaultConfig::default()
        },
    })
    .await
}

/// The run with the median time (the slower middle one of an even count).
fn median(mut runs: Vec<Run>) -> Option<Run> {
    runs.sort_by_key(|r| r.elapsed);
    runs.get(runs.len() / 2).copied()
}

/// Prepare `items` tiny datasets in `dir`, then run the chosen sides `rounds` times each
/// with `concurrency` deposits in flight, and replay the last guarded round.
///
/// The sides take turns (raw first in odd rounds, guarded first in even ones), each round
/// against a sandbox of its own — for the guarded side another target, so the same
/// datasets are new deposits there. On a shared machine the speed of the disk and of the
/// CPUs drifts from one second to the next; taking turns and the median keep that drift
/// from deciding the comparison.
///
/// The sandbox adds `server_latency` to every request it serves. The goal's figure is
/// measured with none: the server then answers in microseconds, on the same two cores, and
/// every bit of the store's work shows. A real repository's round trip hides it, which a
/// latency of a millisecond or more shows.
pub async fn measure(
    dir: &Path,
    items: usize,
    concurrency: usize,
    sides: Sides,
    rounds: usize,
    server_latency: Duration,
) -> anyhow::Result<DepositFigures> {
    let store = Arc::new(Store::open(&dir.join("deposit.db"))?);
    let datasets = {
        let (store, dir) = (store.clone(), dir.join("tiny"));
        tokio::task::spawn_blocking(move || tiny_datasets(&store, &dir, items)).await??
    };
    let mut documents = Vec::with_capacity(items);
    for (id, key) in &datasets {
        let doc = store
            .document(key)?
            .context("a recorded dataset has a document")?;
        let root = store.dataset(*id)?.context("a recorded dataset")?.path;
        documents.push((*key, doc, PathBuf::from(root)));
    }
    let documents = Arc::new(documents);

    let rounds = rounds.max(1);
    let (mut raw, mut guarded, mut replay) = (Vec::new(), Vec::new(), None);
    for round in 0..rounds {
        let raw_first = round % 2 == 0;
        for raw_turn in [raw_first, !raw_first] {
            if raw_turn && sides != Sides::GuardedOnly {
                let server =
                    sandbox(&dir.join(format!("raw-sandbox-{round}")), server_latency).await?;
                raw.push(raw_side(&server, &documents, concurrency).await?);
                server.shutdown().await;
            }
            if !raw_turn && sides != Sides::RawOnly {
                let server = sandbox(&dir.join(format!("sandbox-{round}")), server_latency).await?;
                let engine = engine_for(&store, &server, concurrency)?;
                guarded.push(guarded_side(&engine, &server, &datasets, "guarded deposits").await?);
                if round + 1 == rounds {
                    replay = Some(guarded_side(&engine, &server, &datasets, "replay").await?);
                }
                server.shutdown().await;
            }
        }
    }
    Ok(DepositFigures {
        items,
        concurrency,
        rounds,
        raw: median(raw.clone()),
        guarded: median(guarded.clone()),
        replay,
        raw_rounds: raw,
        guarded_rounds: guarded,
    })
}

/// The target's own conditional PUTs, no store, no queue: `concurrency` tasks on the
/// runtime's workers, each taking the next item — the engine's shape, so the two sides
/// differ only by the store.
async fn raw_side(
    server: &RunningSandbox,
    documents: &Arc<Vec<(ContentKey, ContentDocument, PathBuf)>>,
    concurrency: usize,
) -> anyhow::Result<Run> {
    let target = open_target(&server.target_url(), None)?;
    let cpu = cpu_time();
    let started = Instant::now();
    let next = Arc::new(AtomicUsize::new(0));
    let mut senders = tokio::task::JoinSet::new();
    for _ in 0..concurrency {
        let (documents, next, target) = (documents.clone(), next.clone(), target.clone());
        senders.spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((key, document, root)) = documents.get(i) else {
                    return Ok::<(), anyhow::Error>(());
                };
                let request = DepositRequest {
                    key: *key,
                    document,
                    root,
                    earlier_records: &[],
                    files_stored: &crate::targets::FilesStored::default(),
                };
                target.upload(&request, Arc::new(|_| {})).await?;
                target.create_record(&request).await?;
            }
        });
    }
    while let Some(done) = senders.join_next().await {
        done.context("a raw sender panicked")?
            .context("a raw conditional PUT failed")?;
    }
    Ok(Run {
        elapsed: started.elapsed(),
        cpu: cpu_time() - cpu,
        store_cpu: Duration::ZERO,
        store_calls: 0,
        requests: server.stats().requests,
    })
}

fn engine_for(
    store: &Arc<Store>,
    server: &RunningSandbox,
    concurrency: usize,
) -> anyhow::Result<Arc<Engine>> {
    let config = EngineConfig {
        concurrency,
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(store.clone(), config)?;
    engine.add_target(open_target(&server.target_url(), None)?)?;
    Ok(Arc::new(engine))
}

/// The engine, with the store in the loop: queue every dataset for the sandbox's target
/// and run the batch until each has landed.
async fn guarded_side(
    engine: &Arc<Engine>,
    server: &RunningSandbox,
    datasets: &[(i64, ContentKey)],
    label: &str,
) -> anyhow::Result<Run> {
    let store = engine.store();
    let scope = open_target(&server.target_url(), None)?
        .scope_id()
        .to_string();
    let before = server.stats().requests;
    let cpu = cpu_time();
    let store_cpu = threads_cpu_times(&STORE_THREADS);
    let store_calls = engine.store_calls();
    let started = Instant::now();
    let ids: Vec<i64> = store
        .enqueue_deposits(&scope, datasets, engine.config().retry.deadline)?
        .into_iter()
        .map(|(e, _)| e.job_id())
        .collect();
    let jobs = engine.run_batch(ids, CancellationToken::new()).await?;
    let run = Run {
        elapsed: started.elapsed(),
        cpu: cpu_time() - cpu,
        store_cpu: threads_cpu_since(&STORE_THREADS, &store_cpu),
        store_calls: engine.store_calls() - store_calls,
        requests: server.stats().requests - before,
    };
    let unlanded = jobs.iter().filter(|j| !j.state.is_landed()).count();
    anyhow::ensure!(
        unlanded == 0,
        "{label}: {unlanded} of {} deposits did not land",
        jobs.len()
    );
    Ok(run)
}
