//! Hashing throughput: `hash_files` (parallel, no cache) against `openssl dgst -sha256` over
//! the same 1 GiB of files (one 256 MiB file and a few hundred smaller ones).
//!
//! Run with `cargo bench --bench hashing`. The data is generated in a temporary folder, or in
//! `$LODGE_BENCH_DIR/hashing` (kept and reused) when that is set.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use lodge::content::{NoHashCache, hash_files, scan_folder};

const MIB: u64 = 1024 * 1024;
const BIG_FILE: u64 = 256 * MIB;
const SMALL_FILES: u64 = 384;
const SMALL_FILE: u64 = 2 * MIB; // 384 x 2 MiB + 256 MiB = 1 GiB

/// Write `size` pseudo-random bytes (xorshift; the content does not matter to SHA-256, but
/// it must not be a sparse file).
fn write_file(path: &Path, size: u64, seed: u64) -> std::io::Result<()> {
    if fs::metadata(path).is_ok_and(|m| m.len() == size) {
        return Ok(());
    }
    let mut out = BufWriter::with_capacity(MIB as usize, fs::File::create(path)?);
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut block = vec![0u8; MIB as usize];
    let mut left = size;
    while left > 0 {
        for chunk in block.chunks_exact_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk.copy_from_slice(&x.to_le_bytes());
        }
        let n = left.min(MIB);
        out.write_all(&block[..n as usize])?;
        left -= n;
    }
    out.flush()
}

fn main() -> anyhow::Result<()> {
    let _temp;
    let root: PathBuf = match std::env::var_os("LODGE_BENCH_DIR") {
        Some(dir) => PathBuf::from(dir).join("hashing"),
        None => {
            _temp = tempfile::tempdir()?;
            _temp.path().to_path_buf()
        }
    };
    fs::create_dir_all(root.join("parts"))?;
    println!("generating 1 GiB in {} ...", root.display());
    write_file(&root.join("big.bin"), BIG_FILE, 0)?;
    for i in 0..SMALL_FILES {
        write_file(
            &root.join(format!("parts/part-{i:04}.bin")),
            SMALL_FILE,
            i + 1,
        )?;
    }

    let report = scan_folder(&root)?;
    let bytes = report.total_bytes as f64;
    let paths: Vec<&Path> = report.files.iter().map(|f| f.abs_path.as_path()).collect();
    println!(
        "{} files, {:.0} MiB, {} rayon threads; files are in the page cache (just written)",
        paths.len(),
        bytes / MIB as f64,
        rayon::current_num_threads()
    );

    let start = Instant::now();
    let hashed = hash_files(&report, &NoHashCache, &|_| {})?;
    let lodge_secs = start.elapsed().as_secs_f64();
    let lodge_mbps = bytes / 1e6 / lodge_secs;
    println!("lodge hash_files : {lodge_secs:7.3} s  {lodge_mbps:8.1} MB/s");

    let start = Instant::now();
    match Command::new("openssl")
        .args(["dgst", "-sha256"])
        .args(&paths)
        .output()
    {
        Err(e) => println!("openssl          : not run ({e}); install openssl to compare"),
        Ok(out) if !out.status.success() => println!(
            "openssl          : failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Ok(out) => {
            let secs = start.elapsed().as_secs_f64();
            let mbps = bytes / 1e6 / secs;
            println!("openssl dgst     : {secs:7.3} s  {mbps:8.1} MB/s (one process, one core)");
            println!("ratio lodge/openssl: {:.2}x", lodge_mbps / mbps);
            // Same digests, or the comparison means nothing.
            let text = String::from_utf8_lossy(&out.stdout);
            let big = hashed
                .iter()
                .find(|h| h.file.rel_path == "big.bin")
                .map(|h| h.sha256.to_hex())
                .unwrap_or_default();
            let agrees = text
                .lines()
                .any(|l| l.contains("big.bin") && l.ends_with(&big));
            println!("digests agree    : {}", if agrees { "yes" } else { "NO" });
        }
    }
    Ok(())
}
