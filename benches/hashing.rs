//! Hashing throughput: `hash_files` (parallel, no cache) against `openssl dgst -sha256` over
//! the same 1 GiB of files (one 256 MiB file and 384 of 2 MiB) — the measurement `lodge
//! bench` also runs ([`lodge::bench::hashing`]). A missing openssl is an error.
//!
//! Run with `cargo bench --bench hashing`. The data is generated in a temporary folder, or in
//! `$LODGE_BENCH_DIR/hashing` (kept and reused) when that is set.

use std::path::PathBuf;

use lodge::bench::data::{MIB, hashing_dataset};
use lodge::bench::hashing::measure;

fn main() -> anyhow::Result<()> {
    let _temp;
    let root: PathBuf = match std::env::var_os("LODGE_BENCH_DIR") {
        Some(dir) => PathBuf::from(dir).join("hashing"),
        None => {
            _temp = tempfile::tempdir()?;
            _temp.path().to_path_buf()
        }
    };
    println!("generating 1 GiB in {} ...", root.display());
    hashing_dataset(&root, 1024 * MIB)?;
    let f = measure(&root)?;
    println!(
        "{} files, {:.0} MiB, {} rayon threads; files are in the page cache (just written)",
        f.files,
        f.bytes as f64 / MIB as f64,
        rayon::current_num_threads()
    );
    println!(
        "lodge hash_files : {:7.3} s  {:8.1} MB/s",
        f.lodge.as_secs_f64(),
        f.lodge_mb_per_s()
    );
    println!(
        "openssl dgst     : {:7.3} s  {:8.1} MB/s (one process, one core)",
        f.openssl.as_secs_f64(),
        f.openssl_mb_per_s()
    );
    println!(
        "ratio lodge/openssl: {:.2}x (goal 1.7x)",
        f.lodge_mb_per_s() / f.openssl_mb_per_s()
    );
    println!(
        "digests agree    : {}",
        if f.disagreements == 0 {
            "yes".to_string()
        } else {
            format!("NO ({} files differ)", f.disagreements)
        }
    );
    anyhow::ensure!(
        f.disagreements == 0,
        "Lodge and openssl disagree on digests"
    );
    Ok(())
}
