//! Shared test helpers: temporary labs with a real SQLite store, dataset folders, sandboxes
//! on loopback, engines with fast retries, and the `lodge` binary.
#![allow(dead_code)]

pub mod cli;
pub mod fake;
pub mod postgres;
pub mod proxy;
pub mod s3;
pub mod scratch;
pub mod servers;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use lodge::catalog::record_folder;
use lodge::content::{ContentKey, Creator, Metadata};
use lodge::engine::{Engine, EngineConfig, RetryPolicy};
use lodge::sandbox::{FaultConfig, RunningSandbox, SandboxConfig};
use lodge::store::{EventKind, JobRow, Store};
use lodge::targets::{Target, open_target};
use tokio_util::sync::CancellationToken;

#[allow(unused_imports)]
pub use cli::{
    DepositedToBoth, FAST, add_titled, add_titled_with, added_titled_with, added_with_zenodo_json,
    assert_all, deposit_all_refused_unsent, deposited_to_invenio_and_datacite, key_in, lodge,
    lodge_in, lodge_said, lodge_with, run, run_with_stdin, text,
};

/// A temporary folder holding datasets, stores and sandbox data.
pub struct Lab {
    pub dir: tempfile::TempDir,
}

impl Lab {
    pub fn new() -> Lab {
        Lab {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// A store file in the lab (several calls with one name share the file).
    pub fn store(&self, name: &str) -> Arc<Store> {
        Arc::new(Store::open(&self.path(name)).expect("open store"))
    }

    /// A dataset folder with these files.
    pub fn folder(&self, name: &str, files: &[(&str, &[u8])]) -> PathBuf {
        let root = self.path(name);
        for (rel, bytes) in files {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
        root
    }

    /// A small dataset folder whose content depends on `n`.
    pub fn numbered_folder(&self, n: usize) -> PathBuf {
        self.folder(
            &format!("datasets/ds{n:03}"),
            &[
                ("data.csv", format!("id,value\n{n},{}\n", n * n).as_bytes()),
                ("README.txt", b"shared readme"),
            ],
        )
    }

    /// A sandbox on a free loopback port with its data in the lab.
    pub async fn sandbox(&self, name: &str, faults: FaultConfig) -> RunningSandbox {
        self.start_sandbox(name, None, faults).await
    }

    /// A sandbox that answers every write with 503 before committing it: each deposit
    /// fails until its retries are spent.
    pub async fn failing_sandbox(&self, name: &str) -> RunningSandbox {
        let faults = FaultConfig {
            fail_before_commit: 1.0,
            ..FaultConfig::default()
        };
        self.start_sandbox(name, None, faults).await
    }

    /// A sandbox started with `--token TOKEN`: 401 without the token.
    pub async fn sandbox_with_token(&self, name: &str, token: &str) -> RunningSandbox {
        self.start_sandbox(name, Some(token.into()), FaultConfig::default())
            .await
    }

    pub async fn start_sandbox(
        &self,
        name: &str,
        token: Option<String>,
        faults: FaultConfig,
    ) -> RunningSandbox {
        RunningSandbox::start(SandboxConfig {
            addr: "127.0.0.1:0".parse().unwrap(),
            data_dir: self.path(name),
            token,
            faults,
        })
        .await
        .expect("start sandbox")
    }
}

/// Metadata that passes validation.
pub fn metadata(title: &str) -> Metadata {
    Metadata {
        title: title.into(),
        creators: vec![Creator::named("Curie, Marie")],
        publisher: "Lodge test lab".into(),
        publication_year: Some(2026),
        ..Metadata::default()
    }
}

/// Append `n` events to `store`'s log that belong to no dataset or job ("filler 0", ...):
/// a log longer than a reader shows at once.
pub fn log_filler_events(store: &Store, n: usize) {
    for i in 0..n {
        store
            .append_event(&lodge::store::NewEvent {
                kind: Some(lodge::store::EventKind::Rescanned),
                message: format!("filler {i}"),
                ..Default::default()
            })
            .expect("append an event");
    }
}

/// Scan and record a folder; returns its dataset id and key.
pub fn add(store: &Store, root: &Path, metadata: &Metadata) -> (i64, ContentKey) {
    let recorded = record_folder(store, root, metadata, &|_| {}).expect("record folder");
    (recorded.id, recorded.prepared.key())
}

/// Retries in milliseconds, so fault tests finish quickly.
pub fn fast_config() -> EngineConfig {
    EngineConfig {
        concurrency: 4,
        retry: RetryPolicy {
            base: Duration::from_millis(5),
            factor: 2.0,
            cap: Duration::from_millis(50),
            max_attempts: 8,
            deadline: Duration::from_secs(120),
            retry_after_cap: Duration::from_millis(50),
        },
        lease: Duration::from_secs(10),
        poll: Duration::from_millis(20),
    }
}

pub fn target_of(sandbox: &RunningSandbox) -> Arc<dyn Target> {
    open_target(&sandbox.target_url(), None).expect("sandbox target")
}

/// Queue these datasets for `target` and run an engine until they settle.
pub async fn deposit(
    store: &Arc<Store>,
    target: &Arc<dyn Target>,
    datasets: &[(i64, ContentKey)],
    config: EngineConfig,
) -> Vec<JobRow> {
    let deadline = config.retry.deadline;
    // The engine first: it records the target, which the queued jobs refer to.
    let engine = engine_for(store, target, config);
    let ids: Vec<i64> = datasets
        .iter()
        .map(|(id, key)| {
            store
                .enqueue_deposit(*id, target.scope_id(), key, deadline)
                .expect("enqueue")
                .0
                .job_id()
        })
        .collect();
    run_jobs(&engine, ids).await
}

/// An engine over `store` that can reach `target`.
pub fn engine_for(
    store: &Arc<Store>,
    target: &Arc<dyn Target>,
    config: EngineConfig,
) -> Arc<Engine> {
    let mut engine = Engine::new(store.clone(), config).expect("engine");
    engine.add_target(target.clone()).expect("add target");
    Arc::new(engine)
}

/// Run `engine` over these queued jobs until they settle; the rows they ended with.
pub async fn run_jobs(engine: &Arc<Engine>, ids: Vec<i64>) -> Vec<JobRow> {
    engine
        .run_batch(ids, CancellationToken::new())
        .await
        .expect("run batch")
}

/// The message of `job`'s first logged event of `kind` (what the live log showed).
pub fn logged(store: &Store, job: i64, kind: EventKind) -> String {
    store
        .events_for_job(job)
        .unwrap()
        .into_iter()
        .find(|e| e.kind == kind)
        .unwrap_or_else(|| panic!("job {job} logged no {kind:?} event"))
        .message
}

/// `GET base/path` as JSON.
pub async fn get_json(sandbox: &RunningSandbox, path: &str) -> serde_json::Value {
    reqwest::get(format!("{}{path}", sandbox.base_url()))
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON")
}

/// `GET base/path` of the sandbox's InvenioRDM emulation, with its account's token, as
/// JSON (`/api/records/ID`, `/api/user/records`, ...).
pub async fn invenio_json(sandbox: &RunningSandbox, path: &str) -> serde_json::Value {
    reqwest::Client::new()
        .get(format!("{}{path}", sandbox.base_url()))
        .bearer_auth(sandbox.invenio_account().token)
        .send()
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON")
}

/// `GET /dois/{doi}` of the sandbox's DataCite emulation, with the repository's own
/// credentials.
pub async fn get_doi(sandbox: &RunningSandbox, doi: &str) -> reqwest::Response {
    let account = sandbox.datacite_account();
    reqwest::Client::new()
        .get(format!("{}/dois/{doi}", sandbox.base_url()))
        .basic_auth(account.repository, Some(account.password))
        .send()
        .await
        .expect("GET the DOI")
}

/// The DOI `doi` as the sandbox's DataCite emulation holds it (its JSON:API document).
pub async fn get_doi_json(sandbox: &RunningSandbox, doi: &str) -> serde_json::Value {
    get_doi(sandbox, doi).await.json().await.expect("JSON")
}
