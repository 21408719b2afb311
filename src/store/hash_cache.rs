//! The hash cache: digests of files on this machine, valid while size, modification time and
//! file id are unchanged, so a rescan of unchanged files costs one `stat` each. The store is
//! the [`HashCache`] the content module hashes through.

use super::sql::args;
use super::{Result, Store};
use crate::content::{FileStamp, HashCache, Sha256Hex};

impl Store {
    fn cached_digests(&self, stamps: &[FileStamp]) -> Result<Vec<Option<Sha256Hex>>> {
        if let Some(local) = &self.local_cache {
            return local.cached_digests(stamps);
        }
        self.read(|db| {
            stamps
                .iter()
                .map(|s| {
                    let hit: Option<String> = db.opt(
                        "SELECT sha256 FROM hash_cache
                         WHERE abs_path = ?1 AND size = ?2 AND mtime_ns = ?3 AND file_id = ?4",
                        args![s.abs_path.to_string_lossy(), s.size, s.mtime_ns, s.file_id],
                        |r| r.get(0),
                    )?;
                    Ok(hit.and_then(|h| h.parse().ok()))
                })
                .collect()
        })
    }

    fn remember_digests(&self, entries: &[(FileStamp, Sha256Hex)]) -> Result<()> {
        if let Some(local) = &self.local_cache {
            return local.remember_digests(entries);
        }
        // Skipped, not waited for, while another connection holds the database: the next
        // scan hashes those files again, and the command's own write does the waiting.
        self.write_briefly(|db| {
            for (s, digest) in entries {
                db.run(
                    "INSERT INTO hash_cache (abs_path, size, mtime_ns, file_id, sha256)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (abs_path) DO UPDATE SET size = excluded.size,
                        mtime_ns = excluded.mtime_ns, file_id = excluded.file_id,
                        sha256 = excluded.sha256",
                    args![
                        s.abs_path.to_string_lossy(),
                        s.size,
                        s.mtime_ns,
                        s.file_id,
                        digest.to_hex()
                    ],
                )?;
            }
            Ok(())
        })
    }
}

impl Store {
    /// Forget the digest of the file at `abs_path`: its bytes changed while its size,
    /// modification time and file id stayed (a copy that keeps times, `touch -d`), so the
    /// next scan must hash it again rather than trust the cache.
    pub fn forget_digest(&self, abs_path: &str) -> Result<()> {
        if let Some(local) = &self.local_cache {
            return local.forget_digest(abs_path);
        }
        self.write(|db| {
            db.run(
                "DELETE FROM hash_cache WHERE abs_path = ?1",
                args![abs_path],
            )
            .map(drop)
        })
    }
}

/// The cache only saves work: if the database cannot answer, files are hashed again, and a
/// failed write only means the next scan hashes them again too.
impl HashCache for Store {
    fn lookup_many(&self, stamps: &[FileStamp]) -> Vec<Option<Sha256Hex>> {
        self.cached_digests(stamps)
            .unwrap_or_else(|_| vec![None; stamps.len()])
    }

    fn remember(&self, entries: &[(FileStamp, Sha256Hex)]) {
        let _ = self.remember_digests(entries);
    }
}
