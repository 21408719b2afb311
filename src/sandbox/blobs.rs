//! Blob files under `DATA_DIR/blobs/sha256/HEX`, written through a temporary file in the same
//! folder and renamed into place once their digest is verified, so that a blob that can be
//! seen is always whole.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use futures_util::StreamExt as _;
use sha2::Digest as _;
use tokio::io::AsyncWriteExt as _;

use crate::content::Sha256Hex;

/// Why an upload was not stored.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BlobError {
    #[error(
        "digest mismatch: the URL names sha256:{expected} but the body hashes to sha256:{actual}"
    )]
    Mismatch { expected: String, actual: String },
    #[error("the request body could not be read: {0}")]
    Body(axum::Error),
    #[error("the blob could not be written: {0}")]
    Io(#[from] std::io::Error),
}

/// A verified upload.
pub(crate) struct Written {
    pub size: u64,
    /// False when the blob was already there (content-addressed: nothing changed).
    pub new: bool,
}

pub(crate) struct BlobStore {
    dir: PathBuf,
}

/// Removes the temporary file unless it was renamed into place, also when the upload's future
/// is dropped halfway (client gone, connection killed).
struct TempFile {
    path: PathBuf,
    kept: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Remove the temporary files of uploads that a sandbox killed mid-upload left in `dir`
/// (`.tmp-PID-...`, named by the process that wrote them), where that process is gone: they
/// would take their space for good. Another sandbox's, still running on the same folder,
/// are left alone; so is everything where this system cannot tell.
fn remove_leftovers(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(".tmp-")) else {
            continue;
        };
        let rest = rest.strip_prefix("probe-").unwrap_or(rest);
        let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|pid| pid != std::process::id() && process_is_gone(pid)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether no process `pid` runs here (known on Linux by `/proc`; elsewhere never said).
fn process_is_gone(pid: u32) -> bool {
    cfg!(target_os = "linux")
        && Path::new("/proc/self").exists()
        && !Path::new("/proc").join(pid.to_string()).exists()
}

impl BlobStore {
    /// Create `DATA_DIR/blobs/sha256` if needed and check that it is writable.
    pub fn open(data_dir: &Path) -> anyhow::Result<BlobStore> {
        let dir = data_dir.join("blobs").join("sha256");
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create the blob folder {}", dir.display()))?;
        let probe = dir.join(format!(".tmp-probe-{}", std::process::id()));
        std::fs::write(&probe, b"").with_context(|| {
            format!("the sandbox data folder {} is not writable", dir.display())
        })?;
        let _ = std::fs::remove_file(&probe);
        remove_leftovers(&dir);
        Ok(BlobStore { dir })
    }

    pub fn path(&self, digest: &Sha256Hex) -> PathBuf {
        self.dir.join(digest.to_hex())
    }

    /// The blob's size, or `None` when it is not stored.
    pub async fn size(&self, digest: &Sha256Hex) -> std::io::Result<Option<u64>> {
        match tokio::fs::metadata(self.path(digest)).await {
            Ok(m) if m.is_file() => Ok(Some(m.len())),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Number of stored blobs (files named by a full hex digest).
    pub fn count(&self) -> std::io::Result<u64> {
        let mut n = 0;
        for entry in std::fs::read_dir(&self.dir)? {
            let name = entry?.file_name();
            let name = name.to_string_lossy();
            if name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit()) {
                n += 1;
            }
        }
        Ok(n)
    }

    /// Stream `body` into a temporary file while hashing it; keep it as the blob `expected`
    /// only if the digests agree. Never holds the whole body in memory.
    pub async fn write(
        &self,
        expected: &Sha256Hex,
        body: axum::body::Body,
    ) -> Result<Written, BlobError> {
        let mut temp = TempFile {
            path: self.dir.join(format!(
                ".tmp-{}-{:016x}",
                std::process::id(),
                rand::random::<u64>()
            )),
            kept: false,
        };
        let mut file = tokio::fs::File::create(&temp.path).await?;
        let mut hasher = sha2::Sha256::new();
        let mut size = 0u64;
        let mut stream = body.into_data_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(BlobError::Body)?;
            hasher.update(&chunk);
            size += chunk.len() as u64;
            file.write_all(&chunk).await?;
        }
        let actual = Sha256Hex(hasher.finalize().into());
        if actual != *expected {
            return Err(BlobError::Mismatch {
                expected: expected.to_hex(),
                actual: actual.to_hex(),
            });
        }
        file.flush().await?;
        file.sync_all().await?;
        drop(file);
        // A hard link creates the name only if it is absent, so of two concurrent uploads of
        // one new blob exactly one is "new"; the temporary name is then removed by the guard.
        let target = self.path(expected);
        let new = match tokio::fs::hard_link(&temp.path, &target).await {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
            Err(_) => {
                // File systems without hard links: rename (atomic, last writer wins).
                let existed = self.size(expected).await?.is_some();
                tokio::fs::rename(&temp.path, &target).await?;
                temp.kept = true;
                !existed
            }
        };
        Ok(Written { size, new })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An upload's temporary file left by a sandbox killed mid-upload goes when a sandbox
    /// opens the folder again; one of a process still running stays, and so do the blobs.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_killed_sandboxs_half_uploads_are_removed_and_a_running_ones_kept() {
        let data = tempfile::tempdir().unwrap();
        let dir = data.path().join("blobs").join("sha256");
        std::fs::create_dir_all(&dir).unwrap();
        // A pid past the largest Linux hands out: no process has it.
        let gone = dir.join(".tmp-4194305-00000000000000ff");
        let mine = dir.join(format!(".tmp-{}-0000000000000001", std::process::id()));
        let blob = dir.join("a".repeat(64));
        for file in [&gone, &mine, &blob] {
            std::fs::write(file, b"x").unwrap();
        }
        BlobStore::open(data.path()).unwrap();
        assert!(!gone.exists(), "a killed process's half upload");
        assert!(mine.exists(), "a running process's");
        assert!(blob.exists());
    }
}
