//! Rescan cost: a folder of many small unchanged files prepared once with a cold hash cache,
//! then scanned and hashed again with the warm cache (about one `stat` per file, no reads),
//! against a plain single-threaded walk that `stat`s the same files and does nothing else.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::content::{HashCache, Metadata, hash_files, prepare_dataset, scan_folder};

pub struct RescanFigures {
    pub files: usize,
    /// The first preparation: scan, read and hash everything, fill the cache.
    pub cold: Duration,
    /// Each warm rescan (scan + cached hash).
    pub warm: Vec<Duration>,
    /// The plain stat walk of the same tree (the reference), after the rescans.
    pub stat_walk: Duration,
}

impl RescanFigures {
    /// The median warm rescan.
    pub fn warm_median(&self) -> Duration {
        let mut sorted = self.warm.clone();
        sorted.sort();
        sorted.get(sorted.len() / 2).copied().unwrap_or_default()
    }
}

/// One cold preparation, then `rounds` warm rescans of `root` through `cache`, then the
/// stat walk.
pub fn measure(root: &Path, cache: &dyn HashCache, rounds: usize) -> anyhow::Result<RescanFigures> {
    let started = Instant::now();
    let cold = prepare_dataset(root, &Metadata::default(), cache, &|_| {})?;
    let cold_elapsed = started.elapsed();
    let mut warm = Vec::with_capacity(rounds);
    for _ in 0..rounds.max(1) {
        let started = Instant::now();
        let report = scan_folder(root)?;
        let hashed = hash_files(&report, cache, &|_| {})?;
        warm.push(started.elapsed());
        anyhow::ensure!(
            hashed.len() == cold.files.len(),
            "the rescan found {} files, the first scan {}",
            hashed.len(),
            cold.files.len()
        );
    }
    let started = Instant::now();
    let walked = stat_walk(root)?;
    let stat_walk = started.elapsed();
    anyhow::ensure!(
        walked == cold.files.len(),
        "the stat walk found {walked} files, Lodge's scan {}",
        cold.files.len()
    );
    Ok(RescanFigures {
        files: cold.files.len(),
        cold: cold_elapsed,
        warm,
        stat_walk,
    })
}

/// Walk `root` with `std::fs`, `stat` every entry, count the files.
pub fn stat_walk(root: &Path) -> anyhow::Result<usize> {
    let mut files = 0;
    let mut folders = vec![root.to_path_buf()];
    while let Some(dir) = folders.pop() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))?;
        for entry in entries {
            let path = entry
                .with_context(|| format!("cannot list {}", dir.display()))?
                .path();
            let meta = std::fs::symlink_metadata(&path)
                .with_context(|| format!("cannot stat {}", path.display()))?;
            if meta.is_dir() {
                folders.push(path);
            } else if meta.is_file() {
                files += 1;
            }
        }
    }
    Ok(files)
}
