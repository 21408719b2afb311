//! Lodge's local sandbox repository: a real HTTP server on loopback with its own SQLite file.
//!
//! (Skeleton: the public API below is fixed; the implementation is being written.)

use std::net::SocketAddr;
use std::path::PathBuf;

/// Probabilities (0.0..=1.0) of each injected fault, per request to `/blobs` or `/records`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultConfig {
    /// Commit the write, then close the connection without a response.
    pub drop_after_commit: f64,
    /// Answer 503 before committing anything.
    pub fail_before_commit: f64,
    /// Answer 429 with `Retry-After: retry_after_secs`.
    pub rate_limit: f64,
    pub retry_after_secs: u64,
    /// Close the connection before reading the request body.
    pub reset: f64,
    /// Added to every request to `/blobs` and `/records`.
    pub latency_ms: u64,
    /// Seed of the fault generator, for reproducible runs.
    pub seed: Option<u64>,
}

/// How to run a sandbox.
#[derive(Clone, Debug)]
pub struct SandboxConfig {
    /// Address to bind; port 0 picks a free port.
    pub addr: SocketAddr,
    /// Folder for the sandbox's SQLite file and blobs; created if missing.
    pub data_dir: PathBuf,
    /// When set, every request to `/blobs` and `/records` needs `Authorization: Bearer TOKEN`.
    pub token: Option<String>,
    pub faults: FaultConfig,
}

/// Counters served at `GET /stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SandboxStats {
    pub records: u64,
    pub blobs: u64,
    pub creates: u64,
    pub conflicts: u64,
    pub requests: u64,
}

/// A sandbox server running on the current tokio runtime.
pub struct RunningSandbox {
    _private: (),
}

impl RunningSandbox {
    /// Bind, open (or create) the data folder and serve until [`RunningSandbox::shutdown`].
    pub async fn start(config: SandboxConfig) -> anyhow::Result<RunningSandbox> {
        let _ = config;
        todo!("sandbox server")
    }

    /// The address actually bound.
    pub fn addr(&self) -> SocketAddr {
        todo!()
    }

    /// The target URL for Lodge: `sandbox+http://HOST:PORT`.
    pub fn target_url(&self) -> String {
        format!("sandbox+http://{}", self.addr())
    }

    /// Change the injected faults while running.
    pub fn set_faults(&self, faults: FaultConfig) {
        let _ = faults;
        todo!()
    }

    /// Current counters (the same as `GET /stats`).
    pub fn stats(&self) -> SandboxStats {
        todo!()
    }

    /// Stop accepting, finish in-flight requests, close the database.
    pub async fn shutdown(self) {
        todo!()
    }
}
