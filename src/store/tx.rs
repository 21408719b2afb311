//! A write transaction whose statements, `BEGIN IMMEDIATE` and `COMMIT` included, come from
//! the connection's statement cache. rusqlite's own `Transaction` re-parses `BEGIN` and
//! `COMMIT` every time, which showed as a sixth of the queue's CPU time in profiles.
//!
//! Inside a group transaction ([`super::Store::run_group`]) the same unit becomes a
//! savepoint: it still commits or rolls back as a whole, and becomes durable when the group
//! commits.

use std::ops::Deref;

use rusqlite::{Connection, Params, Row};

use super::Result;

/// `BEGIN IMMEDIATE` (the write lock is taken up front, so the transaction never has to be
/// retried halfway) ... `COMMIT`; rolled back if dropped before `commit`.
pub(super) struct WriteTx<'c> {
    conn: &'c Connection,
    open: bool,
    /// A savepoint inside a group transaction rather than a transaction of its own.
    nested: bool,
}

impl<'c> WriteTx<'c> {
    pub fn begin(conn: &'c Connection) -> Result<WriteTx<'c>> {
        let nested = !conn.is_autocommit();
        let sql = if nested {
            "SAVEPOINT lodge_unit"
        } else {
            "BEGIN IMMEDIATE"
        };
        conn.prepare_cached(sql)?.execute([])?;
        Ok(WriteTx {
            conn,
            open: true,
            nested,
        })
    }

    pub fn commit(mut self) -> Result<()> {
        let sql = if self.nested {
            "RELEASE lodge_unit"
        } else {
            "COMMIT"
        };
        self.conn.prepare_cached(sql)?.execute([])?;
        self.open = false;
        Ok(())
    }

    /// Execute a cached statement; returns the number of rows changed.
    pub fn run<P: Params>(&self, sql: &str, params: P) -> Result<usize> {
        Ok(self.conn.prepare_cached(sql)?.execute(params)?)
    }

    /// Query exactly one row with a cached statement.
    pub fn one<T, P, F>(&self, sql: &str, params: P, f: F) -> Result<T>
    where
        P: Params,
        F: FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    {
        Ok(self.conn.prepare_cached(sql)?.query_row(params, f)?)
    }
}

impl Deref for WriteTx<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Drop for WriteTx<'_> {
    fn drop(&mut self) {
        if self.open {
            // Nothing sensible to do if even the rollback fails: SQLite rolls back an open
            // transaction when the connection is next used or closed.
            let sql = if self.nested {
                "ROLLBACK TO lodge_unit; RELEASE lodge_unit"
            } else {
                "ROLLBACK"
            };
            let _ = self.conn.execute_batch(sql);
        }
    }
}
