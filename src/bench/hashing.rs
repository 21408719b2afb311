//! Hashing throughput: Lodge's `hash_files` (parallel, no cache) against `openssl dgst
//! -sha256` (one process, one core) over the same generated files, and whether the two agree
//! on every digest.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Context;

use super::tools::require_tool;
use crate::content::{NoHashCache, hash_files, scan_folder};

pub struct HashingFigures {
    pub files: usize,
    pub bytes: u64,
    pub lodge: Duration,
    pub openssl: Duration,
    /// Files whose digest differs between the two (must be 0).
    pub disagreements: usize,
}

impl HashingFigures {
    pub fn lodge_mb_per_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.lodge.as_secs_f64()
    }
    pub fn openssl_mb_per_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.openssl.as_secs_f64()
    }
}

/// Hash every file under `root` both ways. The files should be in the page cache (just
/// written) so both read from memory.
pub fn measure(root: &Path) -> anyhow::Result<HashingFigures> {
    let openssl = require_tool(
        "openssl",
        "the hashing row compares against `openssl dgst -sha256`",
    )?;
    let report = scan_folder(root)?;
    let started = Instant::now();
    let hashed = hash_files(&report, &NoHashCache, &|_| {})?;
    let lodge = started.elapsed();

    let paths: Vec<&Path> = report.files.iter().map(|f| f.abs_path.as_path()).collect();
    let started = Instant::now();
    let out = Command::new(&openssl)
        .args(["dgst", "-sha256"])
        .args(&paths)
        .output()
        .with_context(|| format!("cannot run {}", openssl.display()))?;
    let elapsed = started.elapsed();
    anyhow::ensure!(
        out.status.success(),
        "openssl dgst -sha256 failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    // Lines are `SHA2-256(PATH)= HEX` (or `SHA256(PATH)= HEX` in older versions).
    let text = String::from_utf8_lossy(&out.stdout);
    let theirs: std::collections::HashMap<&str, &str> = text
        .lines()
        .filter_map(|l| {
            let (head, hex) = l.rsplit_once("= ")?;
            let path = head.split_once('(')?.1.strip_suffix(')')?;
            Some((path, hex.trim()))
        })
        .collect();
    let disagreements = hashed
        .iter()
        .filter(|h| {
            let path = h.file.abs_path.to_string_lossy();
            theirs.get(path.as_ref()) != Some(&h.sha256.to_hex().as_str())
        })
        .count();
    Ok(HashingFigures {
        files: hashed.len(),
        bytes: report.total_bytes,
        lodge,
        openssl: elapsed,
        disagreements,
    })
}
