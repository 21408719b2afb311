//! Deposit throughput: tiny datasets deposited by the engine (store, queue, leases, events)
//! into an in-process sandbox, against the same conditional PUTs sent raw by the same HTTP
//! client with no store; then a replay of the finished batch, which must send no request.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio_util::sync::CancellationToken;

use super::data::tiny_datasets;
use super::tools::cpu_time;
use crate::engine::{Engine, EngineConfig};
use crate::sandbox::{FaultConfig, RunningSandbox, SandboxConfig};
use crate::store::Store;
use crate::targets::{DepositRequest, open_target};

/// One side of the comparison.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub elapsed: Duration,
    /// CPU time of this whole process (client, sandbox and store) during the run.
    pub cpu: Duration,
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
    pub raw: Option<Run>,
    pub guarded: Option<Run>,
    pub replay: Option<Run>,
}

async fn sandbox(dir: &Path) -> anyhow::Result<RunningSandbox> {
    RunningSandbox::start(SandboxConfig {
        addr: "127.0.0.1:0".parse().expect("a socket address"),
        data_dir: dir.to_path_buf(),
        token: None,
        faults: FaultConfig::default(),
    })
    .await
}

/// Prepare `items` tiny datasets in `dir`, then run the chosen sides with `concurrency`
/// deposits in flight.
pub async fn measure(
    dir: &Path,
    items: usize,
    concurrency: usize,
    sides: Sides,
) -> anyhow::Result<DepositFigures> {
    let store = Arc::new(Store::open(&dir.join("deposit.db"))?);
    let datasets = {
        let (store, dir) = (store.clone(), dir.join("tiny"));
        tokio::task::spawn_blocking(move || tiny_datasets(&store, &dir, items)).await??
    };
    let mut figures = DepositFigures {
        items,
        concurrency,
        raw: None,
        guarded: None,
        replay: None,
    };

    if sides != Sides::GuardedOnly {
        // Raw: the target's own conditional PUTs, no store, no queue.
        let server = sandbox(&dir.join("raw-sandbox")).await?;
        let target = open_target(&server.target_url(), None)?;
        let mut documents = Vec::with_capacity(items);
        for (id, key) in &datasets {
            let doc = store
                .document(key)?
                .context("a recorded dataset has a document")?;
            let root = store.dataset(*id)?.context("a recorded dataset")?.path;
            documents.push((*key, doc, std::path::PathBuf::from(root)));
        }
        let documents = Arc::new(documents);
        let cpu = cpu_time();
        let started = Instant::now();
        // The same shape as the engine: `concurrency` tasks on the runtime's workers, each
        // taking the next item, so the two sides differ only by the store.
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
        figures.raw = Some(Run {
            elapsed: started.elapsed(),
            cpu: cpu_time() - cpu,
            requests: server.stats().requests,
        });
        server.shutdown().await;
    }
    if sides == Sides::RawOnly {
        return Ok(figures);
    }

    // Guarded: the engine, with the store in the loop; then the replay.
    let server = sandbox(&dir.join("sandbox")).await?;
    let target = open_target(&server.target_url(), None)?;
    let config = EngineConfig {
        concurrency,
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(store.clone(), config.clone())?;
    engine.add_target(target.clone())?;
    let engine = Arc::new(engine);
    let run = |label: &'static str| {
        let (engine, store, datasets, target) =
            (engine.clone(), store.clone(), &datasets, target.clone());
        let deadline = config.retry.deadline;
        let server = &server;
        async move {
            let before = server.stats().requests;
            let cpu = cpu_time();
            let started = Instant::now();
            let ids: Vec<i64> = store
                .enqueue_deposits(target.scope_id(), datasets, deadline)?
                .into_iter()
                .map(|(e, _)| e.job_id())
                .collect();
            let jobs = engine.run_batch(ids, CancellationToken::new()).await?;
            let run = Run {
                elapsed: started.elapsed(),
                cpu: cpu_time() - cpu,
                requests: server.stats().requests - before,
            };
            let unlanded = jobs.iter().filter(|j| !j.state.is_landed()).count();
            anyhow::ensure!(
                unlanded == 0,
                "{label}: {unlanded} of {} deposits did not land",
                jobs.len()
            );
            Ok::<Run, anyhow::Error>(run)
        }
    };
    figures.guarded = Some(run("guarded deposits").await?);
    figures.replay = Some(run("replay").await?);
    server.shutdown().await;
    Ok(figures)
}
