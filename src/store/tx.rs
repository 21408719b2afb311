//! A write transaction. On SQLite its statements, `BEGIN IMMEDIATE` and `COMMIT` included,
//! come from the connection's statement cache: rusqlite's own `Transaction` re-parses `BEGIN`
//! and `COMMIT` every time, which showed as a sixth of the queue's CPU time in profiles.
//!
//! Inside a SQLite group transaction ([`super::Store::begin_group`]) the same unit becomes a
//! savepoint: it still commits or rolls back as a whole, and becomes durable when the group
//! commits. On PostgreSQL it is a plain `BEGIN` ... `COMMIT` at Read Committed, with the
//! session's lock and statement timeouts (see [`super::postgres`]).

use super::Result;
use super::sql::Db;

/// Rolled back if dropped before `commit`.
pub(super) struct WriteTx<'c> {
    db: Db<'c>,
    open: bool,
    /// A savepoint inside a group transaction rather than a transaction of its own.
    nested: bool,
}

impl<'c> WriteTx<'c> {
    pub fn begin(db: Db<'c>) -> Result<WriteTx<'c>> {
        let nested = match db {
            Db::Lite(conn) => {
                let nested = !conn.is_autocommit();
                let sql = if nested {
                    "SAVEPOINT lodge_unit"
                } else {
                    // The write lock is taken up front, so the transaction never has to be
                    // retried halfway.
                    "BEGIN IMMEDIATE"
                };
                conn.prepare_cached(sql)?.execute([])?;
                nested
            }
            Db::Pg(session) => {
                session.batch("BEGIN")?;
                false
            }
        };
        Ok(WriteTx {
            db,
            open: true,
            nested,
        })
    }

    pub fn commit(mut self) -> Result<()> {
        match self.db {
            Db::Lite(conn) => {
                let sql = if self.nested {
                    "RELEASE lodge_unit"
                } else {
                    "COMMIT"
                };
                conn.prepare_cached(sql)?.execute([])?;
            }
            Db::Pg(session) => session.batch("COMMIT")?,
        }
        self.open = false;
        Ok(())
    }
}

impl Drop for WriteTx<'_> {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        // Nothing sensible to do if even the rollback fails: SQLite rolls back an open
        // transaction when the connection is next used or closed, and PostgreSQL when the
        // session ends (a lost session is re-opened before the next use).
        match self.db {
            Db::Lite(conn) => {
                let sql = if self.nested {
                    "ROLLBACK TO lodge_unit; RELEASE lodge_unit"
                } else {
                    "ROLLBACK"
                };
                let _ = conn.execute_batch(sql);
            }
            Db::Pg(session) => {
                let _ = session.batch("ROLLBACK");
            }
        }
    }
}
