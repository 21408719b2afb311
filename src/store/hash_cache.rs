//! The hash cache: digests of files on this machine, valid while size, modification time and
//! file id are unchanged, so a rescan of unchanged files costs one `stat` each. The store is
//! the [`HashCache`] the content module hashes through.

use rusqlite::params;

use super::Store;
use crate::content::{FileStamp, HashCache, Sha256Hex};

impl Store {
    fn cached_digests(&self, stamps: &[FileStamp]) -> rusqlite::Result<Vec<Option<Sha256Hex>>> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let mut out = Vec::with_capacity(stamps.len());
        {
            let mut stmt = tx.prepare_cached(
                "SELECT sha256 FROM hash_cache
                 WHERE abs_path = ?1 AND size = ?2 AND mtime_ns = ?3 AND file_id = ?4",
            )?;
            for s in stamps {
                let mut rows = stmt.query(params![
                    s.abs_path.to_string_lossy(),
                    s.size as i64,
                    s.mtime_ns,
                    s.file_id as i64
                ])?;
                let hit = match rows.next()? {
                    Some(r) => r.get::<_, String>(0)?.parse().ok(),
                    None => None,
                };
                out.push(hit);
            }
        }
        tx.commit()?;
        Ok(out)
    }

    fn remember_digests(&self, entries: &[(FileStamp, Sha256Hex)]) -> rusqlite::Result<()> {
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
            for (s, digest) in entries {
                stmt.execute(params![
                    s.abs_path.to_string_lossy(),
                    s.size as i64,
                    s.mtime_ns,
                    s.file_id as i64,
                    digest.to_hex()
                ])?;
            }
        }
        tx.commit()
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
