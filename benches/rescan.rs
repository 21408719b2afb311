//! Rescan cost: 100,000 small unchanged files, prepared once with a cold cache, then scanned
//! and hashed again with the warm cache (which should cost about one `stat` per file and read
//! none) — with the in-memory cache and with the SQLite hash cache of a real Lodge store,
//! which is what `lodge scan` uses — against a plain stat walk of the same files. The
//! measurement is [`lodge::bench::rescan`], which `lodge bench` also runs.
//!
//! Run with `cargo bench --bench rescan`. The files are generated in a temporary folder, or in
//! `$LODGE_BENCH_DIR/rescan` (kept and reused) when that is set.

use std::path::{Path, PathBuf};
use std::time::Instant;

use lodge::bench::data::small_files;
use lodge::bench::rescan::measure;
use lodge::content::{HashCache, MemoryHashCache};
use lodge::store::Store;

const FILES: usize = 100_000;

fn main() -> anyhow::Result<()> {
    let _temp;
    let root: PathBuf = match std::env::var_os("LODGE_BENCH_DIR") {
        Some(dir) => PathBuf::from(dir).join("rescan"),
        None => {
            _temp = tempfile::tempdir()?;
            _temp.path().to_path_buf()
        }
    };
    let start = Instant::now();
    small_files(&root, FILES)?;
    println!(
        "{FILES} files in {} ready in {:.1} s",
        root.display(),
        start.elapsed().as_secs_f64()
    );
    rounds("in-memory cache", &root, &MemoryHashCache::new())?;
    let db = tempfile::tempdir()?;
    let store = Store::open(&db.path().join("lodge.db"))?;
    rounds("SQLite hash cache (the Lodge store)", &root, &store)?;
    Ok(())
}

/// One cold preparation, then three warm rescans through `cache`, then the stat walk.
fn rounds(name: &str, root: &Path, cache: &dyn HashCache) -> anyhow::Result<()> {
    println!("-- {name}");
    let f = measure(root, cache, 3)?;
    println!(
        "cold prepare_dataset (scan + read + hash all) : {:7.3} s",
        f.cold.as_secs_f64()
    );
    for (round, warm) in f.warm.iter().enumerate() {
        println!(
            "warm rescan #{} (scan + cached hash) : {:7.3} s  = {:.1} µs per file  (goal: under 2 s)",
            round + 1,
            warm.as_secs_f64(),
            warm.as_secs_f64() * 1e6 / f.files as f64
        );
    }
    println!(
        "plain stat walk of the same files (reference) : {:7.3} s",
        f.stat_walk.as_secs_f64()
    );
    Ok(())
}
