//! One small SQL layer over the two databases the store runs on: a SQLite file (one
//! machine) and PostgreSQL (a lab's shared queue). The store's queries are written once, with
//! SQLite's `?N` placeholders, and run on either; the few places where the dialects differ
//! ask [`Db::is_postgres`].
//!
//! Values cross the layer as [`Value`] (null, integer or text: all the store keeps) and come
//! back through [`Row::get`], so the row decoders are shared too.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;

use super::{Result, StoreError};

/// A parameter of a query.
#[derive(Clone, Debug)]
pub(super) enum Value<'a> {
    Null,
    Int(i64),
    Text(Cow<'a, str>),
}

macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl From<$t> for Value<'_> {
            fn from(v: $t) -> Self {
                Value::Int(v as i64)
            }
        }
        impl From<&$t> for Value<'_> {
            fn from(v: &$t) -> Self {
                Value::Int(*v as i64)
            }
        }
    )*};
}
int_value!(i64, i32, u32, u16, usize, u64);

impl From<bool> for Value<'_> {
    fn from(v: bool) -> Self {
        Value::Int(v as i64)
    }
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(v: &'a str) -> Self {
        Value::Text(Cow::Borrowed(v))
    }
}

impl<'a> From<&'a String> for Value<'a> {
    fn from(v: &'a String) -> Self {
        Value::Text(Cow::Borrowed(v))
    }
}

impl<'a> From<Cow<'a, str>> for Value<'a> {
    fn from(v: Cow<'a, str>) -> Self {
        Value::Text(v)
    }
}

impl From<String> for Value<'_> {
    fn from(v: String) -> Self {
        Value::Text(Cow::Owned(v))
    }
}

impl<'a, T: Into<Value<'a>>> From<Option<T>> for Value<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}

impl<'a, T: Clone + Into<Value<'a>>> From<&Option<T>> for Value<'a> {
    fn from(v: &Option<T>) -> Self {
        v.clone().map_or(Value::Null, Into::into)
    }
}

/// The parameters of a query: `args![a, b, c]`.
macro_rules! args {
    ($($v:expr),* $(,)?) => {
        &[$($crate::store::sql::Value::from($v)),*][..]
    };
}
pub(super) use args;

impl rusqlite::ToSql for Value<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(i) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            Value::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
        })
    }
}

impl tokio_postgres::types::ToSql for Value<'_> {
    fn to_sql(
        &self,
        ty: &tokio_postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> std::result::Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>>
    {
        use tokio_postgres::types::{IsNull, Type};
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::BOOL => (*i != 0).to_sql(ty, out),
                _ => Err(format!("an integer cannot be sent as {ty}").into()),
            },
            Value::Text(s) => s.as_ref().to_sql(ty, out),
        }
    }

    fn accepts(_: &tokio_postgres::types::Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

/// A value read back: what a column held.
pub(super) enum Cell {
    Null,
    Int(i64),
    Text(String),
}

/// A type a column can be read as.
pub(super) trait FromCell: Sized {
    fn from_cell(cell: Cell) -> std::result::Result<Self, &'static str>;
}

macro_rules! int_from_cell {
    ($($t:ty),*) => {$(
        impl FromCell for $t {
            fn from_cell(cell: Cell) -> std::result::Result<Self, &'static str> {
                match cell {
                    Cell::Int(i) => <$t>::try_from(i).map_err(|_| "an integer out of range"),
                    Cell::Null => Err("null where a number was expected"),
                    Cell::Text(_) => Err("text where a number was expected"),
                }
            }
        }
    )*};
}
int_from_cell!(i64, i32, u32, u16, u64);

impl FromCell for bool {
    fn from_cell(cell: Cell) -> std::result::Result<Self, &'static str> {
        i64::from_cell(cell).map(|i| i != 0)
    }
}

impl FromCell for String {
    fn from_cell(cell: Cell) -> std::result::Result<Self, &'static str> {
        match cell {
            Cell::Text(s) => Ok(s),
            Cell::Null => Err("null where text was expected"),
            Cell::Int(_) => Err("a number where text was expected"),
        }
    }
}

impl<T: FromCell> FromCell for Option<T> {
    fn from_cell(cell: Cell) -> std::result::Result<Self, &'static str> {
        match cell {
            Cell::Null => Ok(None),
            other => T::from_cell(other).map(Some),
        }
    }
}

/// One row of a result, from either database.
pub(super) enum Row<'a, 'b> {
    Lite(&'a rusqlite::Row<'b>),
    Pg(&'a tokio_postgres::Row),
}

impl Row<'_, '_> {
    /// Column `i` (from 0) as a `T`.
    pub fn get<T: FromCell>(&self, i: usize) -> Result<T> {
        let cell = match self {
            Row::Lite(r) => {
                use rusqlite::types::ValueRef;
                match r.get_ref(i)? {
                    ValueRef::Null => Cell::Null,
                    ValueRef::Integer(n) => Cell::Int(n),
                    ValueRef::Real(f) => Cell::Int(f as i64),
                    ValueRef::Text(t) | ValueRef::Blob(t) => {
                        Cell::Text(match std::str::from_utf8(t) {
                            Ok(text) => text.to_owned(),
                            Err(_) => String::from_utf8_lossy(t).into_owned(),
                        })
                    }
                }
            }
            Row::Pg(r) => {
                use tokio_postgres::types::Type;
                let ty = r.columns()[i].type_().clone();
                match ty {
                    Type::INT8 => r
                        .try_get::<_, Option<i64>>(i)?
                        .map_or(Cell::Null, Cell::Int),
                    Type::INT4 => r
                        .try_get::<_, Option<i32>>(i)?
                        .map_or(Cell::Null, |n| Cell::Int(n.into())),
                    Type::INT2 => r
                        .try_get::<_, Option<i16>>(i)?
                        .map_or(Cell::Null, |n| Cell::Int(n.into())),
                    Type::BOOL => r
                        .try_get::<_, Option<bool>>(i)?
                        .map_or(Cell::Null, |b| Cell::Int(b.into())),
                    _ => r
                        .try_get::<_, Option<String>>(i)?
                        .map_or(Cell::Null, Cell::Text),
                }
            }
        };
        T::from_cell(cell).map_err(|what| StoreError::Corrupt(format!("column {i}: {what}")))
    }
}

/// A live PostgreSQL session. Its socket is driven on a thread of its own, so the store's
/// blocking calls work from any thread, async runtime workers included.
pub(super) struct PgSession {
    pub client: tokio_postgres::Client,
    statements: RefCell<HashMap<String, tokio_postgres::Statement>>,
}

impl PgSession {
    pub fn new(client: tokio_postgres::Client) -> PgSession {
        PgSession {
            client,
            statements: RefCell::new(HashMap::new()),
        }
    }

    fn statement(&self, sql: &str) -> Result<tokio_postgres::Statement> {
        if let Some(s) = self.statements.borrow().get(sql) {
            return Ok(s.clone());
        }
        let prepared = block_on(self.client.prepare(&dollar_placeholders(sql)))?;
        self.statements
            .borrow_mut()
            .insert(sql.to_string(), prepared.clone());
        Ok(prepared)
    }

    fn query(&self, sql: &str, args: &[Value<'_>]) -> Result<Vec<tokio_postgres::Row>> {
        let stmt = self.statement(sql)?;
        let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> =
            args.iter().map(|a| a as _).collect();
        Ok(block_on(self.client.query(&stmt, &params))?)
    }

    fn execute(&self, sql: &str, args: &[Value<'_>]) -> Result<u64> {
        let stmt = self.statement(sql)?;
        let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> =
            args.iter().map(|a| a as _).collect();
        Ok(block_on(self.client.execute(&stmt, &params))?)
    }

    pub fn batch(&self, sql: &str) -> Result<()> {
        Ok(block_on(self.client.batch_execute(sql))?)
    }
}

/// Wait for a PostgreSQL future. The client's futures only talk to the connection task over
/// channels, so a plain executor suffices and no runtime is entered.
pub(super) fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures_executor::block_on(f)
}

/// `?1` -> `$1`: the store's queries are written with SQLite's numbered placeholders.
fn dollar_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(|n| n.is_ascii_digit()) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

/// The database a store call runs on.
#[derive(Clone, Copy)]
pub(super) enum Db<'c> {
    Lite(&'c rusqlite::Connection),
    Pg(&'c PgSession),
}

impl<'c> Db<'c> {
    pub fn is_postgres(&self) -> bool {
        matches!(self, Db::Pg(_))
    }

    /// Run a statement; the number of rows it changed.
    pub fn run(&self, sql: &str, args: &[Value<'_>]) -> Result<usize> {
        match self {
            Db::Lite(c) => Ok(c.prepare_cached(sql)?.execute(args_lite(args).as_slice())?),
            Db::Pg(s) => Ok(s.execute(sql, args)? as usize),
        }
    }

    /// Every row, each read by `f`.
    pub fn all<T>(
        &self,
        sql: &str,
        args: &[Value<'_>],
        mut f: impl FnMut(&Row<'_, '_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        match self {
            Db::Lite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                let mut rows = stmt.query(args_lite(args).as_slice())?;
                let mut out = Vec::new();
                while let Some(r) = rows.next()? {
                    out.push(f(&Row::Lite(r))?);
                }
                Ok(out)
            }
            Db::Pg(s) => s.query(sql, args)?.iter().map(|r| f(&Row::Pg(r))).collect(),
        }
    }

    /// Read rows in order until `pick` breaks with an answer; `None` when the rows run out
    /// first. SQLite reads no row past that one; PostgreSQL fetches them all first.
    pub fn scan<T>(
        &self,
        sql: &str,
        args: &[Value<'_>],
        mut pick: impl FnMut(&Row<'_, '_>) -> Result<ControlFlow<Option<T>>>,
    ) -> Result<Option<T>> {
        match self {
            Db::Lite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                let mut rows = stmt.query(args_lite(args).as_slice())?;
                while let Some(r) = rows.next()? {
                    if let ControlFlow::Break(answer) = pick(&Row::Lite(r))? {
                        return Ok(answer);
                    }
                }
                Ok(None)
            }
            Db::Pg(s) => {
                for r in s.query(sql, args)?.iter() {
                    if let ControlFlow::Break(answer) = pick(&Row::Pg(r))? {
                        return Ok(answer);
                    }
                }
                Ok(None)
            }
        }
    }

    /// The first row, if there is one.
    pub fn opt<T>(
        &self,
        sql: &str,
        args: &[Value<'_>],
        f: impl FnOnce(&Row<'_, '_>) -> Result<T>,
    ) -> Result<Option<T>> {
        match self {
            Db::Lite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                let mut rows = stmt.query(args_lite(args).as_slice())?;
                match rows.next()? {
                    Some(r) => f(&Row::Lite(r)).map(Some),
                    None => Ok(None),
                }
            }
            Db::Pg(s) => match s.query(sql, args)?.first() {
                Some(r) => f(&Row::Pg(r)).map(Some),
                None => Ok(None),
            },
        }
    }

    /// Run an `INSERT` of one row into a table keyed by `id`; the new row's id.
    ///
    /// SQLite reports it as the connection's last rowid: its `RETURNING` would buffer the
    /// row in a temporary b-tree that every run creates and tears down, a cost that showed
    /// in the queue's profiles. PostgreSQL says it with `RETURNING id`.
    pub fn insert(&self, sql: &str, args: &[Value<'_>]) -> Result<i64> {
        match self {
            Db::Lite(c) => {
                c.prepare_cached(sql)?.execute(args_lite(args).as_slice())?;
                Ok(c.last_insert_rowid())
            }
            Db::Pg(_) => self.one(&format!("{sql} RETURNING id"), args, |r| r.get(0)),
        }
    }

    /// Run an `INSERT … ON CONFLICT DO NOTHING` of one row into a table keyed by `id`: the
    /// new row's id, or `None` when a conflict left the table as it was. As for
    /// [`Db::insert`], SQLite answers without `RETURNING`.
    pub fn insert_if_new(&self, sql: &str, args: &[Value<'_>]) -> Result<Option<i64>> {
        match self {
            Db::Lite(c) => {
                let changed = c.prepare_cached(sql)?.execute(args_lite(args).as_slice())?;
                Ok((changed == 1).then(|| c.last_insert_rowid()))
            }
            Db::Pg(_) => self.opt(&format!("{sql} RETURNING id"), args, |r| r.get(0)),
        }
    }

    /// Exactly one row (a query that always yields one, such as an aggregate).
    pub fn one<T>(
        &self,
        sql: &str,
        args: &[Value<'_>],
        f: impl FnOnce(&Row<'_, '_>) -> Result<T>,
    ) -> Result<T> {
        self.opt(sql, args, f)?
            .ok_or_else(|| StoreError::Corrupt(format!("no row from: {}", first_line(sql))))
    }

    /// Statements without parameters or results, separated by `;`.
    pub fn batch(&self, sql: &str) -> Result<()> {
        match self {
            Db::Lite(c) => Ok(c.execute_batch(sql)?),
            Db::Pg(s) => s.batch(sql),
        }
    }
}

fn args_lite<'v>(args: &'v [Value<'_>]) -> Vec<&'v dyn rusqlite::ToSql> {
    args.iter().map(|a| a as &dyn rusqlite::ToSql).collect()
}

fn first_line(sql: &str) -> &str {
    sql.trim().lines().next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbered_placeholders_become_dollars() {
        assert_eq!(
            super::dollar_placeholders("a = ?1 AND (?12 IS NULL) AND b = '?'"),
            "a = $1 AND ($12 IS NULL) AND b = '?'"
        );
    }
}
