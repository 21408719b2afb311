//! The store: datasets, the durable job queue, the dedup results and the event log, in SQLite.
//!
//! Every query Lodge makes lives in this module, behind [`Store`]'s methods, so that another
//! backend (PostgreSQL, for a lab sharing one queue) can stand behind the same interface.
//! Writes that belong together commit together: a deposit's result, its job's state and its
//! log event are one transaction (invariant 4), and a worker's fencing token is checked in
//! that same transaction (invariant 7).

mod datasets;
mod events;
mod hash_cache;
mod jobs;
mod overview;
mod reports;
mod schema;
mod trouble;
mod tx;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::Connection;

pub use datasets::{AttemptInput, DatasetRow, FileScan, NewDataset};
pub use events::{EventKind, EventRow, NewEvent};
pub use jobs::{Claim, ClaimFilter, Enqueued, Finish, JobRow, JobState, Lease};
pub use overview::{DatasetSummary, ResultFingerprint};
pub use reports::{DepositResult, HistoryRow, StatusRow, Totals};
pub use trouble::DatabaseTrouble;

/// The only operation so far: deposit a dataset. Part of every dedup scope.
pub const OPERATION_DEPOSIT: &str = "deposit";

/// How long a call waits for a write lock another connection holds before it gives up with
/// [`DatabaseTrouble::Locked`], unless [`Store::open_waiting`] says otherwise.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(30);

/// What went wrong in the store, naming the database file where it helps.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the Lodge database {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot create the folder {path} for the Lodge database: {source}")]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the Lodge database {path} has schema changes this Lodge does not know ({source}); use a newer Lodge or another --db"
    )]
    Migrate {
        path: PathBuf,
        #[source]
        source: rusqlite_migration::Error,
    },
    /// A worker tried to record a result after its lease was taken over (fencing token
    /// mismatch). The result is refused; the newer holder will record its own.
    #[error("job {job}: lease lost (fence {fence} is stale), result refused")]
    StaleLease { job: i64, fence: i64 },
    #[error(
        "no dataset matches '{0}': give its number, its folder or its name (see `lodge status`)"
    )]
    NoSuchDataset(String),
    #[error("'{0}' names more than one dataset: give its number or its folder instead")]
    AmbiguousDataset(String),
    #[error("no job {0} (see `lodge status` or `lodge history`)")]
    NoSuchJob(i64),
    #[error("stored data is damaged: {0}")]
    Corrupt(String),
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    /// The group transaction a call ran in could not commit: the call's effect is undone.
    #[error("the database could not commit: {0}")]
    GroupCommit(String),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// A handle on one Lodge database. Cheap to share behind an `Arc`; each `Store` is one SQLite
/// connection, so several processes (or several `Store`s) can use one file at once.
pub struct Store {
    conn: Mutex<Connection>,
    path: PathBuf,
    actor: String,
    lock_wait: Duration,
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

fn ms(d: Duration) -> i64 {
    d.as_millis().min(i64::MAX as u128) as i64
}

impl Store {
    /// The database Lodge uses when neither `--db` nor `LODGE_DB` says otherwise: `lodge.db`
    /// in the platform's data directory.
    pub fn default_path() -> PathBuf {
        directories::ProjectDirs::from("org", "Lodge", "lodge")
            .map(|d| d.data_dir().join("lodge.db"))
            .unwrap_or_else(|| PathBuf::from("lodge.db"))
    }

    /// Open (creating if needed) and migrate the database at `path`, waiting up to
    /// [`DEFAULT_LOCK_WAIT`] for locks other processes hold.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_waiting(path, DEFAULT_LOCK_WAIT)
    }

    /// [`Store::open`], waiting up to `lock_wait` whenever another connection holds the
    /// write lock (SQLite's busy timeout). Connections made by [`Store::reopen`] wait as long.
    pub fn open_waiting(path: &Path, lock_wait: Duration) -> Result<Store> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| StoreError::CreateDir {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let open_err = |source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        let mut conn = Connection::open(path).map_err(open_err)?;
        conn.busy_timeout(lock_wait).map_err(open_err)?;
        // Every hot query is a cached statement; the default cache (16) is smaller than
        // the set the queue uses, and re-preparing shows in profiles.
        conn.set_prepared_statement_cache_capacity(64);
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(open_err)?;
        // NORMAL is durable in WAL mode across process crashes (what the queue promises);
        // only a power loss can drop the last commits, never corrupt them.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(open_err)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(open_err)?;
        schema::migrations()
            .to_latest(&mut conn)
            .map_err(|source| StoreError::Migrate {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Store {
            conn: Mutex::new(conn),
            path: path.to_path_buf(),
            actor: default_actor(),
            lock_wait,
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Who this handle writes events as (`user@host`).
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// How long a call waits for another connection's write lock.
    pub fn lock_wait(&self) -> Duration {
        self.lock_wait
    }

    /// Open another connection to the same database, for a thread of its own.
    pub fn reopen(&self) -> Result<Store> {
        Store::open_waiting(&self.path, self.lock_wait)
    }

    /// Start a group transaction (group commit): until [`Store::commit_group`], each store
    /// call on this connection runs as a savepoint that commits or rolls back on its own, and
    /// all of them become durable together when the group commits. Callers may act on a
    /// call's result only after the group has committed.
    ///
    /// Meant for a connection that one thread owns (an engine's store thread, see
    /// [`Store::reopen`]): a call from another thread during the group would join it.
    pub fn begin_group(&self) -> Result<()> {
        self.conn().prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        Ok(())
    }

    /// Commit the group started by [`Store::begin_group`]; on failure, roll it all back.
    pub fn commit_group(&self) -> Result<()> {
        let conn = self.conn();
        let committed = conn.prepare_cached("COMMIT")?.execute([]);
        if let Err(e) = committed {
            let _ = conn.execute_batch("ROLLBACK");
            return Err(e.into());
        }
        Ok(())
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a transaction open (rusqlite rolls back
        // on drop), so a poisoned lock is still a usable connection.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn default_actor() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_else(|_| "someone".into());
    let host = gethostname::gethostname().to_string_lossy().into_owned();
    format!("{user}@{host}")
}
