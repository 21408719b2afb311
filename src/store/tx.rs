//! A write transaction. On SQLite its statements, `BEGIN IMMEDIATE` and `COMMIT` included,
//! come from the connection's statement cache: rusqlite's own `Transaction` re-parses `BEGIN`
//! and `COMMIT` every time, which showed as a sixth of the queue's CPU time in profiles.
//!
//! Inside a SQLite group transaction ([`super::Store::begin_group`]) no such unit is opened:
//! the work joins the group's transaction (see [`super::Store`]'s `write`). On PostgreSQL it
//! is a plain `BEGIN` ... `COMMIT` at Read Committed, with the session's lock and statement
//! timeouts (see [`super::postgres`]).

use super::Result;
use super::sql::Db;

/// Rolled back if dropped before `commit`.
pub(super) struct WriteTx<'c> {
    db: Db<'c>,
    open: bool,
}

impl<'c> WriteTx<'c> {
    pub fn begin(db: Db<'c>) -> Result<WriteTx<'c>> {
        match db {
            // The write lock is taken up front, so the transaction never has to be retried
            // halfway.
            Db::Lite(conn) => {
                conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
            }
            Db::Pg(session) => session.batch("BEGIN")?,
        }
        Ok(WriteTx { db, open: true })
    }

    pub fn commit(mut self) -> Result<()> {
        match self.db {
            Db::Lite(conn) => {
                conn.prepare_cached("COMMIT")?.execute([])?;
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
                let _ = conn.execute_batch("ROLLBACK");
            }
            Db::Pg(session) => {
                let _ = session.batch("ROLLBACK");
            }
        }
    }
}
