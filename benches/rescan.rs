//! Rescan cost: 100,000 small unchanged files, prepared once with a cold cache, then scanned
//! and hashed again with the warm cache (which should cost about one `stat` per file and read
//! none) — with the in-memory cache and with the SQLite hash cache of a real Lodge store,
//! which is what `lodge scan` uses.
//!
//! Run with `cargo bench --bench rescan`. The files are generated in a temporary folder, or in
//! `$LODGE_BENCH_DIR/rescan` (kept and reused) when that is set.

use std::fs;
use std::path::PathBuf;
use std::time::Instant;

use lodge::content::{
    HashCache, MemoryHashCache, Metadata, hash_files, prepare_dataset, scan_folder,
};
use lodge::store::Store;

const FILES: usize = 100_000;
const PER_FOLDER: usize = 1_000;

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
    for i in 0..FILES {
        let dir = root.join(format!("batch-{:03}", i / PER_FOLDER));
        if i % PER_FOLDER == 0 {
            fs::create_dir_all(&dir)?;
        }
        let path = dir.join(format!("sample-{i:06}.txt"));
        if !path.exists() {
            fs::write(path, format!("sample {i}\nvalue {}\n", i * 7919 % 10007))?;
        }
    }
    println!(
        "{FILES} files in {} ready in {:.1} s",
        root.display(),
        start.elapsed().as_secs_f64()
    );

    let memory = MemoryHashCache::new();
    rounds("in-memory cache", &root, &memory)?;
    let db = tempfile::tempdir()?;
    let store = Store::open(&db.path().join("lodge.db"))?;
    rounds("SQLite hash cache (the Lodge store)", &root, &store)?;
    Ok(())
}

/// One cold preparation, then three warm rescans through `cache`.
fn rounds(name: &str, root: &std::path::Path, cache: &dyn HashCache) -> anyhow::Result<()> {
    println!("-- {name}");
    let metadata = Metadata::default();
    let start = Instant::now();
    let cold = prepare_dataset(root, &metadata, cache, &|_| {})?;
    let cold_secs = start.elapsed().as_secs_f64();
    println!("cold prepare_dataset (scan + read + hash all) : {cold_secs:7.3} s");
    for round in 1..=3 {
        let start = Instant::now();
        let report = scan_folder(root)?;
        let scanned = start.elapsed().as_secs_f64();
        let hashed = hash_files(&report, cache, &|_| {})?;
        let total = start.elapsed().as_secs_f64();
        assert_eq!(hashed.len(), cold.files.len());
        println!(
            "warm rescan #{round} (scan {scanned:.3} s + cached hash {:.3} s) : {total:7.3} s  \
             = {:.1} µs per file  (goal: under 2 s)",
            total - scanned,
            total * 1e6 / FILES as f64
        );
    }
    Ok(())
}
