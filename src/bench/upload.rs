//! Upload of one large file: `lodge deposit` run as a child process (so its peak resident
//! memory is its own) into an in-process sandbox, against `curl --upload-file` of the same
//! file to the same server's blob endpoint. Lodge goes first, with `If-None-Match: *` on a
//! new blob; curl's plain PUT then makes the server read, hash and store all of it again.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::Context;

use super::data::{bench_metadata, write_random_file};
use super::deposit::sandbox;
use super::tools::{ensure_ok, lodge_deposit_all, require_tool, run_measured};
use crate::catalog::record_folder;
use crate::store::Store;

pub struct UploadFigures {
    pub bytes: u64,
    pub lodge: Duration,
    /// Peak resident memory of the `lodge deposit` process, in bytes.
    pub lodge_peak_rss: Option<u64>,
    pub curl: Duration,
}

impl UploadFigures {
    pub fn lodge_mb_per_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.lodge.as_secs_f64()
    }
    pub fn curl_mb_per_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.curl.as_secs_f64()
    }
}

/// `data_dir` holds the generated file (kept for reuse), `run_dir` the store and the
/// sandbox; `lodge_exe` is the `lodge` binary to run.
pub async fn measure(
    data_dir: &Path,
    run_dir: &Path,
    bytes: u64,
    lodge_exe: &Path,
) -> anyhow::Result<UploadFigures> {
    let curl = require_tool(
        "curl",
        "the upload row compares against `curl --upload-file`",
    )?;
    let folder = data_dir.join("upload");
    let db = run_dir.join("upload.db");
    let digest = {
        let (folder, db) = (folder.clone(), db.clone());
        tokio::task::spawn_blocking(move || -> anyhow::Result<String> {
            write_random_file(&folder.join("big.bin"), bytes, 7)?;
            let store = Store::open(&db)?;
            let recorded = record_folder(
                &store,
                &folder,
                &bench_metadata("Large upload".into()),
                &|_| {},
            )?;
            let entry = recorded.prepared.document.manifest.first();
            Ok(entry
                .context("the upload folder has its file")?
                .sha256
                .to_hex())
        })
        .await??
    };
    let server = sandbox(&run_dir.join("upload-sandbox"), Duration::ZERO).await?;
    let lodge = lodge_deposit_all(lodge_exe, &db, run_dir, &server.target_url()).await?;

    let mut put = Command::new(&curl);
    put.args([
        "--silent",
        "--show-error",
        "--fail",
        "--output",
        "/dev/null",
    ])
    .arg("--upload-file")
    .arg(folder.join("big.bin"))
    .arg(format!("{}/blobs/sha256/{digest}", server.base_url()));
    let curl = tokio::task::spawn_blocking(move || run_measured(put)).await??;
    ensure_ok("curl --upload-file", &curl)?;
    server.shutdown().await;
    Ok(UploadFigures {
        bytes,
        lodge: lodge.elapsed,
        lodge_peak_rss: lodge.peak_rss,
        curl: curl.elapsed,
    })
}
