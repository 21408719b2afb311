//! Generated benchmark data: pseudo-random files (never sparse), the hashing dataset (one
//! big file and many 2 MiB parts), folders of many small files, and tiny recorded datasets.
//! Files that already exist with the right size are kept, so a kept work folder is reused.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::catalog::record_folder;
use crate::content::{ContentKey, Creator, Metadata};
use crate::store::Store;

pub const MIB: u64 = 1024 * 1024;

/// Write `size` pseudo-random bytes (xorshift: the content does not matter to SHA-256, but
/// it must not be a sparse file or compress to nothing).
pub fn write_random_file(path: &Path, size: u64, seed: u64) -> anyhow::Result<()> {
    if fs::metadata(path).is_ok_and(|m| m.len() == size) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let file =
        fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = BufWriter::with_capacity(MIB as usize, file);
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
        out.write_all(&block[..n as usize])
            .with_context(|| format!("cannot write {}", path.display()))?;
        left -= n;
    }
    out.flush()
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The hashing dataset in `root`: a quarter of `total` in `big.bin`, the rest in 2 MiB parts
/// under `parts/` (1 GiB gives one 256 MiB file and 384 parts).
pub fn hashing_dataset(root: &Path, total: u64) -> anyhow::Result<()> {
    let big = total / 4;
    write_random_file(&root.join("big.bin"), big, 0)?;
    let part = 2 * MIB;
    let parts = (total - big).div_ceil(part);
    for i in 0..parts {
        let size = part.min(total - big - i * part);
        write_random_file(&root.join(format!("parts/part-{i:04}.bin")), size, i + 1)?;
    }
    Ok(())
}

/// `count` small text files in `root`, 1,000 per folder.
pub fn small_files(root: &Path, count: usize) -> anyhow::Result<()> {
    const PER_FOLDER: usize = 1_000;
    for i in 0..count {
        let dir = root.join(format!("batch-{:03}", i / PER_FOLDER));
        if i % PER_FOLDER == 0 {
            fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let path = dir.join(format!("sample-{i:06}.txt"));
        if !path.exists() {
            fs::write(&path, format!("sample {i}\nvalue {}\n", i * 7919 % 10007))
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(())
}

/// Metadata that passes validation, with this title.
pub fn bench_metadata(title: String) -> Metadata {
    Metadata {
        title,
        creators: vec![Creator::named("Bench, Mark")],
        publisher: "Lodge bench".into(),
        publication_year: Some(2026),
        ..Metadata::default()
    }
}

/// `count` one-file datasets under `dir`, recorded in `store`: (dataset id, key).
pub fn tiny_datasets(
    store: &Store,
    dir: &Path,
    count: usize,
) -> anyhow::Result<Vec<(i64, ContentKey)>> {
    let mut datasets = Vec::with_capacity(count);
    for n in 0..count {
        let root: PathBuf = dir.join(format!("{n:05}"));
        fs::create_dir_all(&root).with_context(|| format!("cannot create {}", root.display()))?;
        fs::write(root.join("value.txt"), format!("{n}\n"))
            .with_context(|| format!("cannot write in {}", root.display()))?;
        let recorded = record_folder(
            store,
            &root,
            &bench_metadata(format!("Tiny dataset {n}")),
            &|_| {},
        )
        .with_context(|| format!("cannot record {}", root.display()))?;
        datasets.push((recorded.id, recorded.prepared.key()));
    }
    Ok(datasets)
}
