//! The hash cache: digests of files on this machine, valid while size, modification time and
//! file id are unchanged, so a rescan of unchanged files costs one `stat` each.

use rusqlite::params;

use super::{Result, Store};

/// One cached digest: (absolute path, size, mtime in ns, file id) -> SHA-256 hex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedDigest {
    pub abs_path: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub file_id: u64,
    pub sha256: String,
}

impl Store {
    /// Look up many files at once (one transaction). `None` where the cache has nothing
    /// valid for that exact (path, size, mtime, file id).
    pub fn cached_digests(&self, files: &[(String, u64, i64, u64)]) -> Result<Vec<Option<String>>> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let mut out = Vec::with_capacity(files.len());
        {
            let mut stmt = tx.prepare_cached(
                "SELECT sha256 FROM hash_cache
                 WHERE abs_path = ?1 AND size = ?2 AND mtime_ns = ?3 AND file_id = ?4",
            )?;
            for (path, size, mtime, id) in files {
                let mut rows = stmt.query(params![path, *size as i64, mtime, *id as i64])?;
                out.push(match rows.next()? {
                    Some(r) => Some(r.get(0)?),
                    None => None,
                });
            }
        }
        tx.commit()?;
        Ok(out)
    }

    /// Remember digests (one transaction), replacing what was cached for those paths.
    pub fn remember_digests(&self, entries: &[CachedDigest]) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO hash_cache (abs_path, size, mtime_ns, file_id, sha256)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (abs_path) DO UPDATE SET size = excluded.size,
                    mtime_ns = excluded.mtime_ns, file_id = excluded.file_id,
                    sha256 = excluded.sha256",
            )?;
            for e in entries {
                stmt.execute(params![
                    e.abs_path,
                    e.size as i64,
                    e.mtime_ns,
                    e.file_id as i64,
                    e.sha256
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}
