//! The sandbox's SQLite file: one table of records, unique on the content key.
//!
//! Identifiers are minted from the row's sequence number in the same IMMEDIATE transaction
//! that checks for and inserts the record, so two concurrent creates of one key can never both
//! succeed and the sequence never has a duplicate.

use std::path::Path;
use std::sync::Mutex;

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
-- DOIs of the DataCite emulation: the attributes as DataCite returns them, as JSON text.
CREATE TABLE IF NOT EXISTS dois (
    doi        TEXT PRIMARY KEY COLLATE NOCASE,
    attributes TEXT NOT NULL
);
PRAGMA user_version = 1;
";

const COLUMNS: &str = "seq, key, title, created_at, document";

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
        let seq: i64 = tx.query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM records", [], |r| {
            r.get(0)
        })?;
        tx.execute(
            "INSERT INTO records (seq, key, title, created_at, document)
             VALUES (?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?4)",
            params![seq, key, title, document],
        )?;
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

    pub fn count_dois(&self) -> rusqlite::Result<u64> {
        let conn = self.lock();
        conn.query_row("SELECT COUNT(*) FROM dois", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
    }
}

fn find(conn: &Connection, key: &str) -> rusqlite::Result<Option<RecordRow>> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM records WHERE key = ?1"),
        [key],
        row,
    )
    .optional()
}
