//! The sandbox's SQLite file: one table of records, unique on the content key.
//!
//! Identifiers are minted from the row's sequence number in the same IMMEDIATE transaction
//! that checks for and inserts the record, so two concurrent creates of one key can never both
//! succeed and the sequence never has a duplicate. The sandbox's own records are never
//! deleted, so the next number after the largest is new; the InvenioRDM emulation's drafts
//! are (discarded), so its ids come from a counter kept apart (`minted`), which a discarded
//! draft does not move back: an id is never used twice, as InvenioRDM never reuses one.

use std::path::Path;
use std::sync::{LazyLock, Mutex};

use anyhow::Context as _;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// A stored record.
#[derive(Clone, Debug)]
pub(crate) struct RecordRow {
    pub seq: i64,
    pub key: String,
    pub title: String,
    pub created_at: String,
    /// The canonical JSON of the document, as text.
    pub document: String,
}

impl RecordRow {
    pub fn identifier(&self) -> String {
        identifier(self.seq)
    }
}

/// `sbx-000001` for sequence number 1.
pub(crate) fn identifier(seq: i64) -> String {
    format!("sbx-{seq:06}")
}

/// Result of an attempt to create a record.
pub(crate) enum Insert {
    Created(RecordRow),
    Exists(RecordRow),
}

pub(crate) struct Db {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS records (
    seq        INTEGER PRIMARY KEY,
    key        TEXT NOT NULL UNIQUE,
    title      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    document   TEXT NOT NULL
);
-- Records and drafts of the InvenioRDM emulation. `data` is the record's JSON as last
-- written by the client (metadata, access, files.enabled).
CREATE TABLE IF NOT EXISTS invenio_records (
    seq       INTEGER PRIMARY KEY,
    id        TEXT NOT NULL UNIQUE,
    published INTEGER NOT NULL DEFAULT 0,
    data      TEXT NOT NULL,
    created   TEXT NOT NULL,
    updated   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS invenio_files (
    record_id TEXT NOT NULL,
    key       TEXT NOT NULL,
    status    TEXT NOT NULL,
    size      INTEGER,
    md5       TEXT,
    content   BLOB,
    PRIMARY KEY (record_id, key)
);
-- Requests of the InvenioRDM emulation to include a work (all versions of a record, by
-- its parent) in a community: one per work and community, as InvenioRDM keeps one open.
CREATE TABLE IF NOT EXISTS invenio_requests (
    seq       INTEGER PRIMARY KEY,
    parent    TEXT NOT NULL,
    record    TEXT NOT NULL,
    community TEXT NOT NULL,
    created   TEXT NOT NULL,
    UNIQUE (parent, community)
);
-- The last number each kind of identifier was minted from, where rows are deleted: the
-- InvenioRDM emulation's records, whose newest draft may be discarded, and whose id must
-- not then be given to the next record (a new version of the discarded draft's work would
-- become one of that record's).
CREATE TABLE IF NOT EXISTS minted (
    name TEXT PRIMARY KEY,
    last INTEGER NOT NULL
);
-- DOIs of the DataCite emulation: the attributes as DataCite returns them, as JSON text.
CREATE TABLE IF NOT EXISTS dois (
    doi        TEXT PRIMARY KEY COLLATE NOCASE,
    attributes TEXT NOT NULL
);
PRAGMA user_version = 1;
";

const COLUMNS: &str = "seq, key, title, created_at, document";

/// Bring a sandbox database made by an earlier Lodge up to date: the InvenioRDM emulation's
/// records gain a parent, the record all versions of one work share (NULL: the record is
/// its own, the first version). Decided by the column itself, not `user_version`, which
/// an earlier Lodge's schema sets back to 1 on every open.
fn upgrade(conn: &Connection) -> rusqlite::Result<()> {
    let has_parent: bool = conn.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info('invenio_records') WHERE name = 'parent'",
        [],
        |r| r.get(0),
    )?;
    if !has_parent {
        conn.execute_batch(
            "BEGIN IMMEDIATE;
             ALTER TABLE invenio_records ADD COLUMN parent TEXT;
             CREATE INDEX IF NOT EXISTS invenio_records_by_parent ON invenio_records(parent);
             COMMIT;",
        )?;
    }
    // A database without the counter starts it at the largest id there: one discarded
    // before cannot be known, but none discarded from now on is minted again.
    conn.execute(
        "INSERT INTO minted (name, last)
         SELECT 'invenio_records', COALESCE(MAX(seq), 0) FROM invenio_records WHERE true
         ON CONFLICT (name) DO NOTHING",
        [],
    )?;
    Ok(())
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RecordRow> {
    Ok(RecordRow {
        seq: r.get(0)?,
        key: r.get(1)?,
        title: r.get(2)?,
        created_at: r.get(3)?,
        document: r.get(4)?,
    })
}

impl Db {
    /// Open (or create) the database at `path`, in WAL mode with a busy timeout.
    pub fn open(path: &Path) -> anyhow::Result<Db> {
        let conn = Connection::open(path)
            .with_context(|| format!("cannot open the sandbox database {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .and_then(|_| conn.pragma_update(None, "synchronous", "NORMAL"))
            .and_then(|_| conn.execute_batch(SCHEMA))
            .and_then(|_| upgrade(&conn))
            .with_context(|| {
                format!(
                    "cannot write the sandbox database {} (is the folder writable?)",
                    path.display()
                )
            })?;
        Ok(Db {
            conn: Mutex::new(conn),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite consistent (transactions roll back).
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn find(&self, key: &str) -> rusqlite::Result<Option<RecordRow>> {
        let conn = self.lock();
        find(&conn, key)
    }

    /// Create the record for `key` unless one exists, atomically.
    pub fn insert(&self, key: &str, title: &str, document: &str) -> rusqlite::Result<Insert> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if let Some(existing) = find(&tx, key)? {
            return Ok(Insert::Exists(existing));
        }
        // Nothing deletes a record here, so the number after the largest was never used.
        let seq: i64 = tx
            .prepare_cached("SELECT COALESCE(MAX(seq), 0) + 1 FROM records")?
            .query_row([], |r| r.get(0))?;
        tx.prepare_cached(
            "INSERT INTO records (seq, key, title, created_at, document)
             VALUES (?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?4)",
        )?
        .execute(params![seq, key, title, document])?;
        let created = find(&tx, key)?.ok_or(rusqlite::Error::QueryReturnedNoRows)?;
        tx.commit()?;
        Ok(Insert::Created(created))
    }

    pub fn count_records(&self) -> rusqlite::Result<u64> {
        let conn = self.lock();
        conn.query_row("SELECT COUNT(*) FROM records", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
    }

    /// One page of records ordered by identifier, without their documents' text.
    pub fn page(&self, offset: u64, limit: u64) -> rusqlite::Result<Vec<RecordRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT seq, key, title, created_at, '' FROM records ORDER BY seq LIMIT ?1 OFFSET ?2",
        )?;
        stmt.query_map(params![limit as i64, offset as i64], row)?
            .collect()
    }
}

/// A record or draft of the InvenioRDM emulation.
#[derive(Clone, Debug)]
pub(crate) struct InvenioRow {
    pub id: String,
    pub published: bool,
    pub data: String,
    pub created: String,
    pub updated: String,
    /// The first version of the work this record is a version of (its own id if it is).
    pub parent: String,
}

/// A file of an InvenioRDM draft.
#[derive(Clone, Debug)]
pub(crate) struct InvenioFile {
    pub key: String,
    pub status: String,
    pub size: Option<i64>,
    pub md5: Option<String>,
}

fn invenio_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<InvenioRow> {
    Ok(InvenioRow {
        id: r.get(0)?,
        published: r.get(1)?,
        data: r.get(2)?,
        created: r.get(3)?,
        updated: r.get(4)?,
        parent: r.get(5)?,
    })
}

/// Insert a draft of the work `parent` (`None`: a work of its own) and return its id,
/// minted from the next number of the `minted` counter, never from the table's largest
/// row, which a discarded newest draft would give again. The counter also passes any row
/// an earlier Lodge, which knew no counter, added to the same file.
fn insert_draft(
    tx: &rusqlite::Transaction<'_>,
    data: &str,
    parent: Option<&str>,
) -> rusqlite::Result<String> {
    let seq: i64 = tx.query_row(
        "INSERT INTO minted (name, last)
         VALUES ('invenio_records', (SELECT COALESCE(MAX(seq), 0) + 1 FROM invenio_records))
         ON CONFLICT (name) DO UPDATE SET last = max(last + 1, excluded.last)
         RETURNING last",
        [],
        |r| r.get(0),
    )?;
    let id = format!("{:05}-{:05}", seq / 100_000, seq % 100_000);
    tx.execute(
        &format!(
            "INSERT INTO invenio_records (seq, id, published, data, created, updated, parent)
             VALUES (?1, ?2, 0, ?3, {NOW}, {NOW}, ?4)"
        ),
        params![seq, id, data, parent],
    )?;
    Ok(id)
}

const INVENIO_COLUMNS: &str = "id, published, data, created, updated, coalesce(parent, id)";
const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

impl Db {
    /// Create a draft of a work of its own.
    pub fn invenio_create(&self, data: &str) -> rusqlite::Result<InvenioRow> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let id = insert_draft(&tx, data, None)?;
        let row = tx.query_row(
            &format!("SELECT {INVENIO_COLUMNS} FROM invenio_records WHERE id = ?1"),
            [&id],
            invenio_row,
        )?;
        tx.commit()?;
        Ok(row)
    }

    /// A new version of the published record `of`: a draft of the same work with its
    /// metadata but no files, and no publication date or version (a new version has its
    /// own). If the work has a draft version already, that one: a work has at most one,
    /// as in InvenioRDM. `None` if `of` is not a published record.
    pub fn invenio_new_version(&self, of: &str) -> rusqlite::Result<Option<InvenioRow>> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let select = format!("SELECT {INVENIO_COLUMNS} FROM invenio_records");
        let Some(record) = tx
            .query_row(
                &format!("{select} WHERE id = ?1 AND published = 1"),
                [of],
                invenio_row,
            )
            .optional()?
        else {
            return Ok(None);
        };
        let pending = tx
            .query_row(
                &format!("{select} WHERE coalesce(parent, id) = ?1 AND published = 0"),
                [&record.parent],
                invenio_row,
            )
            .optional()?;
        if let Some(draft) = pending {
            return Ok(Some(draft));
        }
        let mut data: serde_json::Value =
            serde_json::from_str(&record.data).unwrap_or(serde_json::Value::Null);
        if let Some(metadata) = data["metadata"].as_object_mut() {
            metadata.remove("publication_date");
            metadata.remove("version");
        }
        let id = insert_draft(&tx, &data.to_string(), Some(&record.parent))?;
        let draft = tx.query_row(&format!("{select} WHERE id = ?1"), [&id], invenio_row)?;
        tx.commit()?;
        Ok(Some(draft))
    }

    /// Ask for the work of published record `record` (its parent) to be included in
    /// `community`: the new request's number, or `None` when the work has one already.
    pub fn invenio_request_inclusion(
        &self,
        record: &InvenioRow,
        community: &str,
    ) -> rusqlite::Result<Option<i64>> {
        let conn = self.lock();
        let made = conn.execute(
            &format!(
                "INSERT INTO invenio_requests (parent, record, community, created)
                 VALUES (?1, ?2, ?3, {NOW}) ON CONFLICT (parent, community) DO NOTHING"
            ),
            params![record.parent, record.id, community],
        )?;
        Ok((made == 1).then(|| conn.last_insert_rowid()))
    }

    /// The inclusion requests of the work of `record` (by its parent): number, the record
    /// they were asked for, community, oldest first.
    pub fn invenio_requests(
        &self,
        record: &InvenioRow,
    ) -> rusqlite::Result<Vec<(i64, String, String)>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT seq, record, community FROM invenio_requests WHERE parent = ?1 ORDER BY seq",
        )?;
        let rows = stmt.query_map([&record.parent], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect()
    }

    /// Replace a draft's data (metadata, access, files options). `None` if `id` is not a
    /// draft.
    pub fn invenio_update_draft(
        &self,
        id: &str,
        data: &str,
    ) -> rusqlite::Result<Option<InvenioRow>> {
        let conn = self.lock();
        let changed = conn.execute(
            &format!(
                "UPDATE invenio_records SET data = ?2, updated = {NOW}
                 WHERE id = ?1 AND published = 0"
            ),
            params![id, data],
        )?;
        if changed == 0 {
            return Ok(None);
        }
        conn.query_row(
            &format!("SELECT {INVENIO_COLUMNS} FROM invenio_records WHERE id = ?1"),
            [id],
            invenio_row,
        )
        .optional()
    }

    /// Where `row` stands among its work's versions: its index (1 for the first) and
    /// whether it is the latest published one.
    pub fn invenio_version_of(&self, row: &InvenioRow) -> rusqlite::Result<(i64, bool)> {
        let conn = self.lock();
        conn.query_row(
            "SELECT count(*) FILTER (WHERE seq <= (SELECT seq FROM invenio_records WHERE id = ?2)),
                    coalesce(max(seq) FILTER (WHERE published = 1), 0)
                      = (SELECT seq FROM invenio_records WHERE id = ?2)
             FROM invenio_records WHERE coalesce(parent, id) = ?1",
            params![row.parent, row.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }

    /// The published versions of the work `parent`, first version first.
    pub fn invenio_versions(&self, parent: &str) -> rusqlite::Result<Vec<InvenioRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {INVENIO_COLUMNS} FROM invenio_records
             WHERE coalesce(parent, id) = ?1 AND published = 1 ORDER BY seq"
        ))?;
        stmt.query_map([parent], invenio_row)?.collect()
    }

    pub fn invenio_get(&self, id: &str) -> rusqlite::Result<Option<InvenioRow>> {
        let conn = self.lock();
        conn.query_row(
            &format!("SELECT {INVENIO_COLUMNS} FROM invenio_records WHERE id = ?1"),
            [id],
            invenio_row,
        )
        .optional()
    }

    /// Every record and draft, oldest first (the emulation has one user).
    pub fn invenio_all(&self) -> rusqlite::Result<Vec<InvenioRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {INVENIO_COLUMNS} FROM invenio_records ORDER BY seq"
        ))?;
        stmt.query_map([], invenio_row)?.collect()
    }

    /// The `limit` records and drafts made last, newest first.
    pub fn invenio_latest(&self, limit: u64) -> rusqlite::Result<Vec<InvenioRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {INVENIO_COLUMNS} FROM invenio_records ORDER BY seq DESC LIMIT ?1"
        ))?;
        stmt.query_map([limit as i64], invenio_row)?.collect()
    }

    pub fn count_invenio(&self) -> rusqlite::Result<u64> {
        let conn = self.lock();
        conn.query_row("SELECT COUNT(*) FROM invenio_records", [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|n| n as u64)
    }

    pub fn invenio_publish(&self, id: &str) -> rusqlite::Result<bool> {
        let conn = self.lock();
        Ok(conn.execute(
            &format!(
                "UPDATE invenio_records SET published = 1, updated = {NOW}
                 WHERE id = ?1 AND published = 0"
            ),
            [id],
        )? == 1)
    }

    /// Delete a draft (never a published record) and its files.
    pub fn invenio_delete_draft(&self, id: &str) -> rusqlite::Result<bool> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let n = tx.execute(
            "DELETE FROM invenio_records WHERE id = ?1 AND published = 0",
            [id],
        )?;
        tx.execute("DELETE FROM invenio_files WHERE record_id = ?1", [id])?;
        tx.commit()?;
        Ok(n == 1)
    }

    pub fn invenio_files(&self, id: &str) -> rusqlite::Result<Vec<InvenioFile>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT key, status, size, md5 FROM invenio_files WHERE record_id = ?1 ORDER BY key",
        )?;
        stmt.query_map([id], |r| {
            Ok(InvenioFile {
                key: r.get(0)?,
                status: r.get(1)?,
                size: r.get(2)?,
                md5: r.get(3)?,
            })
        })?
        .collect()
    }

    /// The stored bytes of a file, if it has any.
    pub fn invenio_file_bytes(&self, id: &str, key: &str) -> rusqlite::Result<Option<Vec<u8>>> {
        let conn = self.lock();
        Ok(conn
            .query_row(
                "SELECT content FROM invenio_files WHERE record_id = ?1 AND key = ?2",
                params![id, key],
                |r| r.get::<_, Option<Vec<u8>>>(0),
            )
            .optional()?
            .flatten())
    }

    /// Start a file; starting it again is harmless while it is pending.
    pub fn invenio_file_init(&self, id: &str, key: &str) -> rusqlite::Result<()> {
        let conn = self.lock();
        conn.execute(
            "INSERT INTO invenio_files (record_id, key, status) VALUES (?1, ?2, 'pending')
             ON CONFLICT (record_id, key) DO NOTHING",
            params![id, key],
        )?;
        Ok(())
    }

    /// Store a file's bytes; `false` if the file was never started.
    pub fn invenio_file_content(
        &self,
        id: &str,
        key: &str,
        bytes: &[u8],
    ) -> rusqlite::Result<bool> {
        let conn = self.lock();
        Ok(conn.execute(
            "UPDATE invenio_files SET content = ?3, size = ?4, status = 'pending', md5 = NULL
             WHERE record_id = ?1 AND key = ?2",
            params![id, key, bytes, bytes.len() as i64],
        )? == 1)
    }

    /// Commit a file: its MD5 is computed from the stored bytes. `None` if it has no content.
    pub fn invenio_file_commit(
        &self,
        id: &str,
        key: &str,
    ) -> rusqlite::Result<Option<InvenioFile>> {
        use md5::Digest as _;
        let conn = self.lock();
        let content: Option<Option<Vec<u8>>> = conn
            .query_row(
                "SELECT content FROM invenio_files WHERE record_id = ?1 AND key = ?2",
                params![id, key],
                |r| r.get(0),
            )
            .optional()?;
        let Some(Some(bytes)) = content else {
            return Ok(None);
        };
        let md5 = format!("md5:{}", hex::encode(md5::Md5::digest(&bytes)));
        conn.execute(
            "UPDATE invenio_files SET status = 'completed', md5 = ?3 WHERE record_id = ?1 AND key = ?2",
            params![id, key, md5],
        )?;
        Ok(Some(InvenioFile {
            key: key.to_string(),
            status: "completed".into(),
            size: Some(bytes.len() as i64),
            md5: Some(md5),
        }))
    }
}

/// A DOI of the DataCite emulation.
pub(crate) enum DoiInsert {
    Created,
    Taken,
}

impl Db {
    /// The stored attributes (JSON text) of a DOI, any case.
    pub fn doi(&self, doi: &str) -> rusqlite::Result<Option<String>> {
        let conn = self.lock();
        conn.query_row("SELECT attributes FROM dois WHERE doi = ?1", [doi], |r| {
            r.get(0)
        })
        .optional()
    }

    /// Register `doi` with `attributes` unless it is taken, atomically.
    pub fn insert_doi(&self, doi: &str, attributes: &str) -> rusqlite::Result<DoiInsert> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let existing: Option<String> = tx
            .query_row("SELECT attributes FROM dois WHERE doi = ?1", [doi], |r| {
                r.get(0)
            })
            .optional()?;
        if existing.is_some() {
            return Ok(DoiInsert::Taken);
        }
        tx.execute(
            "INSERT INTO dois (doi, attributes) VALUES (?1, ?2)",
            params![doi, attributes],
        )?;
        tx.commit()?;
        Ok(DoiInsert::Created)
    }

    /// Replace the attributes of `doi`, which exists; false when it does not.
    pub fn update_doi(&self, doi: &str, attributes: &str) -> rusqlite::Result<bool> {
        let conn = self.lock();
        conn.execute(
            "UPDATE dois SET attributes = ?2 WHERE doi = ?1",
            params![doi, attributes],
        )
        .map(|changed| changed == 1)
    }

    /// The `limit` DOIs made last, newest first, with their attributes (JSON text).
    pub fn latest_dois(&self, limit: u64) -> rusqlite::Result<Vec<(String, String)>> {
        let conn = self.lock();
        let mut stmt =
            conn.prepare("SELECT doi, attributes FROM dois ORDER BY rowid DESC LIMIT ?1")?;
        stmt.query_map([limit as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect()
    }

    pub fn count_dois(&self) -> rusqlite::Result<u64> {
        let conn = self.lock();
        conn.query_row("SELECT COUNT(*) FROM dois", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
    }
}

/// The record of `key`. This and the statements of [`Db::insert`] run on every record
/// request, so they are prepared once per connection (rusqlite's statement cache), not
/// parsed anew each time.
fn find(conn: &Connection, key: &str) -> rusqlite::Result<Option<RecordRow>> {
    static SQL: LazyLock<String> =
        LazyLock::new(|| format!("SELECT {COLUMNS} FROM records WHERE key = ?1"));
    conn.prepare_cached(&SQL)?.query_row([key], row).optional()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sandbox_database_of_an_earlier_lodge_gains_record_parents_and_keeps_its_records() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sandbox.db");
        {
            // As Lodge before record versions left it.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA).unwrap();
            conn.execute(
                "INSERT INTO invenio_records (seq, id, published, data, created, updated)
                 VALUES (1, '00000-00001', 1, '{\"metadata\": {\"title\": \"Old\"}}', 'then', 'then')",
                [],
            )
            .unwrap();
        }
        let db = Db::open(&path).unwrap();
        let old = db.invenio_get("00000-00001").unwrap().unwrap();
        assert_eq!(old.parent, "00000-00001", "the first version is its own");
        let next = db.invenio_new_version("00000-00001").unwrap().unwrap();
        assert_eq!(next.parent, "00000-00001");
        assert_eq!(db.invenio_version_of(&next).unwrap(), (2, false));
        assert_eq!(db.invenio_version_of(&old).unwrap(), (1, true));
        drop(db);
        // Opened again, nothing is upgraded twice.
        let db = Db::open(&path).unwrap();
        assert_eq!(db.invenio_all().unwrap().len(), 2);
    }

    #[test]
    fn the_id_of_a_discarded_newest_draft_is_never_minted_again_even_in_an_earlier_lodges_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sandbox.db");
        {
            // As an earlier Lodge left it: a published record, and a draft made after it.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA).unwrap();
            conn.execute_batch(
                "INSERT INTO invenio_records (seq, id, published, data, created, updated)
                 VALUES (1, '00000-00001', 1, '{}', 'then', 'then'),
                        (2, '00000-00002', 0, '{}', 'then', 'then');",
            )
            .unwrap();
        }
        let db = Db::open(&path).unwrap();
        assert!(db.invenio_delete_draft("00000-00002").unwrap());
        assert_eq!(db.invenio_create("{}").unwrap().id, "00000-00003");
        let made = db.invenio_create("{}").unwrap().id;
        assert!(db.invenio_delete_draft(&made).unwrap());
        drop(db);
        let db = Db::open(&path).unwrap();
        assert_eq!(
            db.invenio_create("{}").unwrap().id,
            "00000-00005",
            "not the discarded {made}'s, after the file is opened again either"
        );
    }
}
