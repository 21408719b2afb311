//! A dataset of many small files: `lodge deposit` run as a child process (as in the upload
//! row) into an in-process sandbox that adds a round trip's latency to every request,
//! against `curl --parallel --parallel-max N` sending the same files to the same server's
//! blob endpoint, N the files Lodge's target sends at once (`lodge bench --files-at-once`,
//! default 4). Both wait out the latency on every request; the row shows whether Lodge
//! keeps as many files on their way as curl does, with its checks, its hashing as it sends
//! and its record on top. Lodge goes first (conditional writes of new blobs); curl's plain
//! PUTs then make the server read, hash and store every file again.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::Context;

use super::data::{bench_metadata, small_files};
use super::deposit::sandbox;
use super::tools::{ensure_ok, lodge_deposit_all, require_tool, run_measured};
use crate::catalog::record_folder;
use crate::config::{Config, TargetConfig};
use crate::content::on_disk;
use crate::store::Store;
use crate::targets::each_file::FilesAtOnce;

pub struct ManyFilesFigures {
    pub files: usize,
    pub bytes: u64,
    /// What the sandbox added to every request.
    pub latency: Duration,
    /// Files in flight at once, on both sides.
    pub at_once: FilesAtOnce,
    pub lodge: Duration,
    /// Peak resident memory of the `lodge deposit` process, in bytes.
    pub lodge_peak_rss: Option<u64>,
    pub curl: Duration,
}

impl ManyFilesFigures {
    pub fn lodge_files_per_s(&self) -> f64 {
        self.files as f64 / self.lodge.as_secs_f64()
    }
    pub fn curl_files_per_s(&self) -> f64 {
        self.files as f64 / self.curl.as_secs_f64()
    }
}

/// `data_dir` holds the generated files (kept for reuse), `run_dir` the store, the sandbox,
/// the config file naming it and curl's list of files; `lodge_exe` is the `lodge` binary to
/// run.
pub async fn measure(
    data_dir: &Path,
    run_dir: &Path,
    files: usize,
    latency: Duration,
    at_once: FilesAtOnce,
    lodge_exe: &Path,
) -> anyhow::Result<ManyFilesFigures> {
    let curl = require_tool("curl", "the files row compares against `curl --parallel`")?;
    let folder = data_dir.join(format!("many-files-{files}"));
    let db = run_dir.join("many-files.db");
    let (blobs, bytes) = {
        let (folder, db) = (folder.clone(), db.clone());
        tokio::task::spawn_blocking(move || -> anyhow::Result<(Vec<(PathBuf, String)>, u64)> {
            small_files(&folder, files)?;
            let store = Store::open(&db)?;
            let recorded = record_folder(
                &store,
                &folder,
                &bench_metadata("Many small files".into()),
                &|_| {},
            )?;
            let manifest = &recorded.prepared.document.manifest;
            let blobs = manifest
                .iter()
                .map(|e| (on_disk(&folder, &e.path), e.sha256.to_hex()))
                .collect();
            Ok((blobs, manifest.iter().map(|e| e.size).sum()))
        })
        .await??
    };
    let server = sandbox(&run_dir.join("many-files-sandbox"), latency).await?;
    // A saved target, as a person sets how many files go at once.
    let mut config = Config::default();
    config
        .set_target(
            "bench-files",
            TargetConfig {
                url: server.target_url(),
                files_at_once: Some(at_once.get()),
                ..TargetConfig::default()
            },
        )
        .context("the files row's target")?;
    let config_file = run_dir.join("config.toml");
    config.save(&config_file)?;
    let lodge = lodge_deposit_all(lodge_exe, &db, run_dir, "bench-files").await;
    let _ = std::fs::remove_file(&config_file);
    let lodge = lodge?;

    // One upload a file, as `--config` lines (a command line of thousands of arguments
    // would outgrow the system's limit).
    let mut list = String::new();
    for (path, digest) in &blobs {
        let path = path.to_str().context("a generated file's path is UTF-8")?;
        // A quoted string of curl's config takes `\` and `"` escaped.
        let path = path.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(
            list,
            "upload-file = \"{path}\"\nurl = \"{}/blobs/sha256/{digest}\"\noutput = \"/dev/null\"",
            server.base_url()
        );
    }
    let list_file = run_dir.join("many-files-curl.conf");
    std::fs::write(&list_file, list)
        .with_context(|| format!("cannot write {}", list_file.display()))?;
    let mut put = Command::new(&curl);
    put.args([
        "--silent",
        "--show-error",
        "--fail",
        "--parallel",
        "--parallel-max",
        &at_once.get().to_string(),
        "--config",
    ])
    .arg(&list_file);
    let curl = tokio::task::spawn_blocking(move || run_measured(put)).await??;
    ensure_ok("curl --parallel", &curl)?;
    server.shutdown().await;
    Ok(ManyFilesFigures {
        files,
        bytes,
        latency,
        at_once,
        lodge: lodge.elapsed,
        lodge_peak_rss: lodge.peak_rss,
        curl: curl.elapsed,
    })
}
