//! The store: datasets, the durable job queue, the dedup results and the event log, in a
//! SQLite file (one machine) or in PostgreSQL (a lab's machines sharing one queue and one
//! dedup store).
//!
//! Every query Lodge makes lives in this module, behind [`Store`]'s methods, and is written
//! once for both databases (see [`sql`]).
//! Writes that belong together commit together: a deposit's result, its job's state and its
//! log event are one transaction (invariant 4), and a worker's fencing token is checked in
//! that same transaction (invariant 7).

/// A job still to be done (queued, running or waiting), as a SQL condition: the predicate
/// of the partial indexes on `jobs` (schema V3), which SQLite uses only for a query that
/// repeats it word for word. For `concat!`.
macro_rules! active_job {
    () => {
        "ended_at IS NULL"
    };
}

/// A job `j` that replayed its own dataset's deposit (a deposit run again, answered from
/// the store with no request), as a SQL condition: a row reports the job that deposited it
/// instead, the one its result names, or the one that landed it before the replay once the
/// result was forgotten (`lodge forget`). A copy's replay of another dataset's record is
/// not one. For `concat!`; the job is `j`.
macro_rules! replay_of_its_own_deposit {
    () => {
        "(j.state = 'existing' AND j.attempts = 0
          AND (EXISTS (SELECT 1 FROM results r JOIN jobs o ON o.id = r.job_id
                       WHERE r.target = j.target AND r.operation = j.operation
                         AND r.content_key = j.content_key
                         AND o.dataset_id = j.dataset_id AND o.id <> j.id)
               OR EXISTS (SELECT 1 FROM jobs o
                          WHERE o.target = j.target AND o.content_key = j.content_key
                            AND o.dataset_id = j.dataset_id AND o.id < j.id
                            AND o.attempts > 0 AND o.state IN ('deposited', 'existing'))))"
    };
}

/// A failed job `j` (a dead letter) still waiting for the user, as a SQL condition: its key
/// has not landed since through another job, no later job of its scope took its place (one
/// queued again by a deposit, or failed in its turn: that one is the one to retry), and
/// its dataset is still listed and has not
/// moved on to another key that has landed on this target since. The others are history:
/// `retry --all-failed` leaves them, and the totals do not count them. (One whose dataset
/// was rescanned and not deposited since stays: `retry` says how to deposit it now.)
/// For `concat!`.
macro_rules! still_to_retry {
    () => {
        concat!(
            "j.dismissed_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM results r WHERE r.target = j.target
                     AND r.operation = j.operation AND r.content_key = j.content_key)
         AND ",
            no_later_job_of_its_scope!(),
            "
         AND EXISTS (SELECT 1 FROM datasets d WHERE d.id = j.dataset_id
                     AND (d.content_key = j.content_key
                          OR NOT EXISTS (SELECT 1 FROM results n WHERE n.target = j.target
                                         AND n.operation = j.operation
                                         AND n.content_key = d.content_key)))"
        )
    };
}

/// An ended job `j` that no later job of its scope (target, operation, key) took the place
/// of: a deposit run again made a new job, queued or ended in its turn, and that one is what
/// the status shows, the totals count and `retry` sends. As a SQL condition, for `concat!`.
macro_rules! no_later_job_of_its_scope {
    () => {
        "NOT EXISTS (SELECT 1 FROM jobs later WHERE later.target = j.target
                     AND later.operation = j.operation AND later.content_key = j.content_key
                     AND later.id > j.id)"
    };
}

mod clock;
mod datasets;
mod events;
mod file_kind;
mod hash_cache;
mod jobs;
mod location;
mod notices;
mod overview;
mod pg_password;
mod postgres;
mod reports;
mod schema;
mod sql;
mod targets;
mod trouble;
mod tx;

use rusqlite::config::DbConfig;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use file_kind::{own_file_beside, refuse_a_database_not_lodges};

pub use datasets::{AttemptInput, DatasetRow, FileScan, NewDataset, RemovedDataset};
pub use events::{EventKind, EventRow, NONE_FOUND, NewEvent};
pub use jobs::{
    Cancel, Claim, ClaimFilter, Dismiss, Enqueued, Finish, JobRow, JobState, KeyCopy, Lease,
    replays_by_original,
};
pub use location::{StoreLocation, url_not_a_database_file};
pub use notices::EventNotices;
pub use overview::{DatasetSummary, ResultFingerprint};
pub use postgres::waiting_for as shared_database_waited_for;
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
    #[error(
        "the Lodge database {path} is a folder: give a file, such as {}",
        path.join("lodge.db").display()
    )]
    IsAFolder { path: PathBuf },
    #[error(
        "the Lodge database {path} is not a regular file (a device, a pipe or a socket): give \
         a file's path, such as {}",
        own_file_beside(path).display()
    )]
    NotAFile { path: PathBuf },
    #[error(
        "{url} looks like a URL, and Lodge's database is a SQLite file (a path) or a shared \
         PostgreSQL database given as postgres://USER@HOST:PORT/DB; nothing was created. Check \
         what --db or LODGE_DB gives (postgres:// or postgresql://, with two slashes), or give \
         a file's path"
    )]
    UrlNotADatabase { url: String },
    #[error(
        "{path} is not a Lodge database: it does not start as an SQLite database does (were it \
         Lodge's, its first page would be damaged: restore it from a backup); Lodge has not \
         changed it. Check the path given by --db or LODGE_DB, or give Lodge a file of its \
         own, such as {}",
        own_file_beside(path).display()
    )]
    NotADatabase { path: PathBuf },
    #[error(
        "{path} is another program's SQLite database (its tables: {tables}), not a Lodge \
         database; Lodge has not changed it. Check the path given by --db or LODGE_DB: give \
         Lodge a file of its own, such as {}",
        own_file_beside(path).display()
    )]
    AnotherProgramsDatabase { path: PathBuf, tables: String },
    #[error(
        "the Lodge database {path} was written by a newer Lodge (schema {version}, this Lodge \
         knows up to {known}); Lodge has not changed it. Use a newer Lodge, or another --db"
    )]
    NewerSchema {
        path: PathBuf,
        version: i64,
        known: i64,
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
        "no dataset matches '{selector}'{}: give its number, its folder, its name or the first 8 \
         or more characters of its key (see `lodge status`)",
        match meant {
            Some(m) => format!(" (did you mean '{m}'?)"),
            None if selector.len() < 8 && selector.chars().all(|c| c.is_ascii_digit()) =>
                " (no dataset has that number, and it is too short for a key prefix)".to_string(),
            None if selector.len() < 8 && selector.chars().all(|c| c.is_ascii_hexdigit()) =>
                " (too short for a key prefix)".to_string(),
            None => String::new(),
        }
    )]
    NoSuchDataset {
        selector: String,
        /// The name nearest to what was typed, if one is near.
        meant: Option<String>,
    },
    /// A folder given that is another machine's dataset's, on a shared database: on this
    /// machine that path is no dataset's.
    #[error(
        "'{folder}' is the folder of dataset {id} ({name}) on {origin}, not of a dataset \
         added on this machine: give its number, {id}, to mean that dataset, or `lodge add` \
         the folder here to list this machine's copy"
    )]
    FolderOfAnotherMachine {
        folder: String,
        id: i64,
        name: String,
        origin: String,
    },
    #[error(
        "dataset {id}, {folder}, was removed from the list: `lodge history {id}` and `lodge log \
         --dataset {id}` show what it left; `lodge add` its folder to take it up again"
    )]
    RemovedDataset {
        id: i64,
        /// Its name and folder as its removal logged them.
        folder: String,
    },
    #[error(
        "'{selector}' names more than one dataset: {matches}. Give its number or its folder \
         instead{}",
        if *same_folder { " (the folder names the one added on this machine)" } else { "" }
    )]
    AmbiguousDataset {
        selector: String,
        /// The datasets it names, "ID (FOLDER)", the first five; with the machine each was
        /// added on where two have one folder.
        matches: String,
        /// Two of them have one folder, added on two machines of a shared store.
        same_folder: bool,
    },
    #[error("no job {0} (see `lodge status` or `lodge history`)")]
    NoSuchJob(i64),
    #[error("stored data is damaged: {0}")]
    Corrupt(String),
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    /// An error PostgreSQL reported; `transient` ones (lost connection, lock or statement
    /// timeout, deadlock) are retried by the store before they reach a caller.
    #[error("PostgreSQL: {message}")]
    Postgres { message: String, transient: bool },
    /// The shared database could not be reached for longer than the store waits.
    #[error(
        "cannot reach the Lodge database {location}: {reason}; {}",
        postgres::what_to_check(.reason)
    )]
    Unavailable { location: String, reason: String },
    /// A shared database with none of Lodge's tables, opened for work on what it holds
    /// ([`Store::open_started_at_waiting`]): nothing was written there.
    #[error(
        "no Lodge database at {location}: it has none of Lodge's tables, so nothing has been \
         added with it yet (Lodge wrote nothing there). {}",
        postgres::how_to_start(location)
    )]
    NotStarted { location: String },
    /// A shared database URL naming (or, without a name, opening) one of the PostgreSQL
    /// server's own databases, which Lodge does not start: nothing was written there.
    #[error(
        "'{name}' is the PostgreSQL server's own database, not one for Lodge (Lodge wrote \
         nothing there): create one (`createdb lodge`, or `CREATE DATABASE lodge;` in psql), \
         give it at the URL's end and start it with `lodge --db {instead} add DIR`"
    )]
    ServersOwnDatabase { name: String, instead: String },
    /// The group transaction a call ran in could not commit: the call's effect is undone.
    #[error("the database could not commit: {0}")]
    GroupCommit(String),
    /// [`StoreError::GroupCommit`] where SQLite said why (a full disk, say): kept as its
    /// error, so that what is wrong with the file is told as such.
    #[error("the database could not commit: {source}")]
    GroupCommitFailed {
        #[source]
        source: rusqlite::Error,
    },
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

impl StoreError {
    /// What each call of a group is told when the group's commit failed with `self`.
    pub fn for_each_of_a_group(&self) -> StoreError {
        match self {
            StoreError::Sql(rusqlite::Error::SqliteFailure(code, message)) => {
                StoreError::GroupCommitFailed {
                    source: rusqlite::Error::SqliteFailure(*code, message.clone()),
                }
            }
            other => StoreError::GroupCommit(other.to_string()),
        }
    }

    /// Worth trying the same transaction again (PostgreSQL's lost connections and timeouts).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            StoreError::Postgres {
                transient: true,
                ..
            }
        )
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> StoreError {
        postgres::classify(e)
    }
}

/// What a write-ahead log checkpoint did: frames in the log, and how many of them are now
/// in the database file (fewer when a reader still needs older pages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpointed {
    pub log_frames: i64,
    pub copied_frames: i64,
}

/// A handle on one Lodge database. Cheap to share behind an `Arc`; each `Store` is one
/// connection, so several processes (or several `Store`s) can use one database at once.
pub struct Store {
    backend: Mutex<Backend>,
    location: StoreLocation,
    actor: String,
    /// How long a SQLite call waits for another connection's write lock.
    lock_wait: Duration,
    /// This machine's name, as datasets record where they were added.
    host: String,
    /// With PostgreSQL, the hash cache stays in a SQLite file on this machine: it describes
    /// this machine's files.
    local_cache: Option<Box<Store>>,
    /// A group transaction is open on this connection ([`Store::begin_group`]).
    in_group: AtomicBool,
    /// A unit of work failed inside the open group and may have written part of itself.
    group_spoiled: AtomicBool,
}

enum Backend {
    Lite(rusqlite::Connection),
    /// `None` while the connection is lost; the next call reconnects.
    Pg(Option<sql::PgSession>),
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
        data_dir().join("lodge.db")
    }

    /// Open (creating if needed) and migrate the SQLite database at `path`, waiting up to
    /// [`DEFAULT_LOCK_WAIT`] for locks other processes hold.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_waiting(path, DEFAULT_LOCK_WAIT)
    }

    /// [`Store::open`], waiting up to `lock_wait` whenever another connection holds the
    /// write lock (SQLite's busy timeout). Connections made by [`Store::reopen`] wait as long.
    pub fn open_waiting(path: &Path, lock_wait: Duration) -> Result<Store> {
        Store::open_at_waiting(&StoreLocation::File(path.to_path_buf()), lock_wait)
    }

    /// Open and migrate the database at `location`: a SQLite file or a PostgreSQL URL.
    pub fn open_at(location: &StoreLocation) -> Result<Store> {
        Store::open_at_waiting(location, DEFAULT_LOCK_WAIT)
    }

    /// [`Store::open_at`] with a lock wait for SQLite files (PostgreSQL sessions have their
    /// own lock timeout and retry).
    pub fn open_at_waiting(location: &StoreLocation, lock_wait: Duration) -> Result<Store> {
        Store::open_location(location, lock_wait, postgres::Tables::StartThem)
    }

    /// [`Store::open_at_waiting`] for work on what a database holds already: a PostgreSQL
    /// database without Lodge's tables is refused ([`StoreError::NotStarted`]), not given
    /// them, since a command that only reads would find nothing there anyway, and the
    /// database named may well be the wrong one (a server's `postgres` maintenance database).
    /// A SQLite file likewise, when it is there already but empty or without tables (a
    /// copy cut short, the wrong file): Lodge writes nothing to it. One not there yet is
    /// started, as by [`Store::open_at_waiting`].
    pub fn open_started_at_waiting(location: &StoreLocation, lock_wait: Duration) -> Result<Store> {
        Store::open_location(location, lock_wait, postgres::Tables::MustBeThere)
    }

    fn open_location(
        location: &StoreLocation,
        lock_wait: Duration,
        tables: postgres::Tables,
    ) -> Result<Store> {
        match location {
            StoreLocation::File(path) => Store::open_file(path, lock_wait, tables),
            StoreLocation::Postgres(url) => {
                let session = postgres::connect(url)?;
                postgres::migrate(&session, url, tables)?;
                let cache_path = std::env::var_os("LODGE_HASH_CACHE")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| data_dir().join("hash-cache.db"));
                Ok(Store {
                    backend: Mutex::new(Backend::Pg(Some(session))),
                    location: location.clone(),
                    actor: default_actor(),
                    lock_wait,
                    host: this_host(),
                    local_cache: Some(Box::new(Store::open_file(
                        &cache_path,
                        lock_wait,
                        postgres::Tables::StartThem,
                    )?)),
                    in_group: AtomicBool::new(false),
                    group_spoiled: AtomicBool::new(false),
                })
            }
        }
    }

    fn open_file(path: &Path, lock_wait: Duration, tables: postgres::Tables) -> Result<Store> {
        if let Some(url) = location::url_not_a_database_file(path) {
            return Err(StoreError::UrlNotADatabase { url });
        }
        if path.is_dir() {
            return Err(StoreError::IsAFolder {
                path: path.to_path_buf(),
            });
        }
        // /dev/null and the like: SQLite opens them and then fails at its first write with
        // an I/O error that would read as a disk's.
        if std::fs::metadata(path).is_ok_and(|md| !md.is_file()) {
            return Err(StoreError::NotAFile {
                path: path.to_path_buf(),
            });
        }
        // A file there already must be a started store when the command only works on
        // what is there; one not there yet is Lodge's to start.
        let must_be_started = tables == postgres::Tables::MustBeThere && path.exists();
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
        let mut conn = rusqlite::Connection::open(path).map_err(open_err)?;
        conn.busy_timeout(lock_wait).map_err(open_err)?;
        // Before anything writes to it (switching to WAL does): another program's database
        // is left as it is, not given Lodge's tables.
        refuse_a_database_not_lodges(&conn, path, must_be_started)?;
        // Every hot query is a cached statement; the default cache (16) is smaller than
        // the set the queue uses, and re-preparing shows in profiles.
        conn.set_prepared_statement_cache_capacity(64);
        // Plan each statement once. Without the query planner stability guarantee, SQLite
        // looks at bound values while planning (a `LIMIT ?`, a value matched against a
        // partial index) and then throws the plan away whenever such a value is bound
        // again: the queue's claim query was planned anew on every claim.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
            .map_err(open_err)?;
        // Switching a new file to WAL takes its lock without waiting on the busy handler:
        // when another connection is creating the file, or closing as the last one, it
        // answers "database is locked" at once. Wait for that to pass.
        let give_up = std::time::Instant::now() + lock_wait;
        let mut pause = Duration::from_millis(5);
        loop {
            match conn.pragma_update(None, "journal_mode", "WAL") {
                Err(e) if is_busy(&e) && std::time::Instant::now() < give_up => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(100));
                }
                done => break done.map_err(open_err)?,
            }
        }
        // NORMAL is durable in WAL mode across process crashes (what the queue promises);
        // only a power loss can drop the last commits, never corrupt them.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(open_err)?;
        // A statement inside a transaction keeps undo copies of the pages it changes (the
        // statement journal), which SQLite spills to a temporary file past 64 KiB: two
        // writes per page. They are only needed until the statement ends; keep them in
        // memory.
        conn.pragma_update(None, "temp_store", "MEMORY")
            .map_err(open_err)?;
        // Two processes opening a new file at once both see version 0; the loser's first
        // statement fails ("table already exists") once the winner commits. Read the version
        // again and carry on from there.
        // Foreign keys are off while migrating (a table rebuilt by dropping the old one
        // would take the rows that refer to it along); each migration that rebuilds one
        // checks them before it commits. On for everything after.
        conn.pragma_update(None, "foreign_keys", "OFF")
            .map_err(open_err)?;
        let mut tries = 0;
        while let Err(source) = schema::migrations().to_latest(&mut conn) {
            tries += 1;
            let busy = matches!(&source, rusqlite_migration::Error::RusqliteError { err, .. } if is_busy(err));
            // The file itself failed (a full disk, a read-only folder, damaged pages): said
            // as the database's trouble, not as a schema this Lodge does not know.
            if let rusqlite_migration::Error::RusqliteError { err, .. } = &source
                && err
                    .sqlite_error_code()
                    .is_some_and(trouble::DatabaseTrouble::is_the_files)
                && !busy
            {
                let rusqlite_migration::Error::RusqliteError { err, .. } = source else {
                    unreachable!("matched above")
                };
                return Err(open_err(err));
            }
            if tries == 5 || !(busy || source.to_string().contains("already exists")) {
                return Err(StoreError::Migrate {
                    path: path.to_path_buf(),
                    source,
                });
            }
            std::thread::sleep(Duration::from_millis(50 * tries));
        }
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(open_err)?;
        Ok(Store {
            backend: Mutex::new(Backend::Lite(conn)),
            location: StoreLocation::File(path.to_path_buf()),
            actor: default_actor(),
            lock_wait,
            host: this_host(),
            local_cache: None,
            in_group: AtomicBool::new(false),
            group_spoiled: AtomicBool::new(false),
        })
    }

    /// Where the database is.
    pub fn location(&self) -> &StoreLocation {
        &self.location
    }

    /// What to warn of when a SQLite file this store writes is on a network file system:
    /// the database itself, or, on a shared PostgreSQL store, this machine's hash cache
    /// (in the data folder, often a home folder that every machine of a lab mounts).
    pub fn network_warning(&self) -> Option<String> {
        let Some(cache) = &self.local_cache else {
            return self.location.network_warning();
        };
        let StoreLocation::File(path) = &cache.location else {
            return None;
        };
        let kind = location::network_file_system(path)?;
        Some(location::on_network_file_system(
            "Lodge's hash cache",
            path,
            kind,
            "Point LODGE_HASH_CACHE at a file on a local disk (e.g. \
             /var/tmp/lodge-hash-cache.db): it only speeds up rescans of this machine's folders",
        ))
    }

    /// The files of this machine that hold the store (the SQLite database with its log,
    /// shared-memory and rollback files; on PostgreSQL, the local hash cache's), canonical
    /// and absolute: a scan of a dataset folder that holds them leaves them out.
    pub fn own_files(&self) -> Vec<PathBuf> {
        let mut files = match &self.location {
            StoreLocation::File(path) => {
                let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
                let dir = std::fs::canonicalize(dir.unwrap_or(Path::new(".")));
                match (dir, path.file_name()) {
                    (Ok(dir), Some(name)) => ["", "-wal", "-shm", "-journal"]
                        .iter()
                        .map(|suffix| {
                            let mut name = name.to_os_string();
                            name.push(suffix);
                            dir.join(name)
                        })
                        .collect(),
                    _ => Vec::new(),
                }
            }
            StoreLocation::Postgres(_) => Vec::new(),
        };
        if let Some(local) = &self.local_cache {
            files.extend(local.own_files());
        }
        files
    }

    /// Who this handle writes events as (`user@host`).
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// How long a call waits for another connection's write lock.
    pub fn lock_wait(&self) -> Duration {
        self.lock_wait
    }

    /// This machine's name (`LODGE_HOST` overrides it, for machines that share one name).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// Open another connection to the same database, for a thread of its own.
    pub fn reopen(&self) -> Result<Store> {
        Store::open_at_waiting(&self.location, self.lock_wait)
    }

    /// Start a group transaction (group commit): until [`Store::commit_group`] or
    /// [`Store::rollback_group`], every store call on this connection joins it, and all of
    /// them become durable together when it commits. Callers may act on a call's result
    /// only after the group has committed.
    ///
    /// The calls share the group's transaction with no undo of their own (a savepoint per
    /// call copied every page it touched, a sixth of the store's work): a unit of work that
    /// fails may leave part of itself written, so it *spoils* the group
    /// ([`Store::group_spoiled`]), and the group must be rolled back and its calls run
    /// again, each in a transaction of its own.
    ///
    /// Meant for a connection that one thread owns (an engine's store thread, see
    /// [`Store::reopen`]): a call from another thread during the group would join it.
    /// On PostgreSQL every call is its own transaction (shorter locks across machines), so
    /// this does nothing.
    pub fn begin_group(&self) -> Result<()> {
        if let Backend::Lite(conn) = &*self.lock() {
            conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
            self.group_spoiled.store(false, Ordering::Relaxed);
            self.in_group.store(true, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Whether a unit of work failed inside the open group: it must not be committed.
    pub fn group_spoiled(&self) -> bool {
        self.group_spoiled.load(Ordering::Relaxed)
    }

    /// Commit the group started by [`Store::begin_group`]; on failure, roll it all back.
    /// A spoiled group is never committed: it is rolled back and this says why.
    pub fn commit_group(&self) -> Result<()> {
        if self.group_spoiled() {
            self.rollback_group();
            return Err(StoreError::GroupCommit(
                "a call in the group failed; the group was rolled back".into(),
            ));
        }
        if let Backend::Lite(conn) = &*self.lock() {
            self.in_group.store(false, Ordering::Relaxed);
            let committed = conn.prepare_cached("COMMIT")?.execute([]);
            if let Err(e) = committed {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(e.into());
            }
        }
        Ok(())
    }

    /// Undo everything the group started by [`Store::begin_group`] wrote.
    pub fn rollback_group(&self) {
        if let Backend::Lite(conn) = &*self.lock() {
            self.in_group.store(false, Ordering::Relaxed);
            self.group_spoiled.store(false, Ordering::Relaxed);
            // Fails only when SQLite already rolled the transaction back itself.
            let _ = conn.execute_batch("ROLLBACK");
        }
    }

    /// Another connection to this store, for taking the write-ahead log's checkpoints off
    /// a connection that has left them to others ([`Store::leave_checkpoints_to_others`]);
    /// `None` on PostgreSQL, which has no such log to tend.
    pub fn reopen_for_checkpoints(&self) -> Result<Option<Store>> {
        match self.location {
            StoreLocation::File(_) => self.reopen().map(Some),
            StoreLocation::Postgres(_) => Ok(None),
        }
    }

    /// Leave WAL checkpoints to someone else ([`Store::checkpoint`] on another connection):
    /// a checkpoint syncs the database file, and on a connection that serves every call of
    /// an engine that wait would stall them all. Nothing to do on PostgreSQL.
    pub fn leave_checkpoints_to_others(&self) -> Result<()> {
        if let Backend::Lite(conn) = &*self.lock() {
            conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        }
        Ok(())
    }

    /// Longest wait of a checkpoint's RESTART step for the writer and readers; see
    /// [`Store::checkpoint`].
    const RESTART_WAIT: Duration = Duration::from_millis(50);

    /// Copy what the write-ahead log holds back into the database file and have the next
    /// write start the log from its beginning. `None` on PostgreSQL.
    ///
    /// First a PASSIVE checkpoint copies the bulk while the writer carries on. Under a
    /// steady stream of commits it never catches up with the log's end, so the log would
    /// never start over: it grew by every commit (160 MB in a 5,000-deposit batch), each
    /// one landing on newly allocated file blocks. A RESTART checkpoint then waits for the
    /// writer's current transaction, copies the few frames logged meanwhile, and lets the
    /// log start over, so it stays about one checkpoint interval long and reuses its blocks
    /// (on ext4 that made a deposit batch about 5% faster).
    pub fn checkpoint(&self) -> Result<Option<Checkpointed>> {
        let Backend::Lite(conn) = &*self.lock() else {
            return Ok(None);
        };
        let run = |mode: &str| {
            conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |r| {
                Ok((
                    r.get::<_, i64>(0)? != 0,
                    Checkpointed {
                        log_frames: r.get(1)?,
                        copied_frames: r.get(2)?,
                    },
                ))
            })
        };
        let (_, copied) = run("PASSIVE")?;
        // The RESTART holds the write lock while it waits for readers of the old log (in
        // any process) to finish: wait only briefly, never the store's whole lock wait,
        // or one long read would stall every claim and outcome behind it. Busy only means
        // the log goes on growing until the next checkpoint.
        conn.busy_timeout(Self::RESTART_WAIT)?;
        let restarted = run("RESTART");
        conn.busy_timeout(self.lock_wait)?;
        match restarted? {
            (false, restarted) => Ok(Some(restarted)),
            (true, _) => Ok(Some(copied)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Backend> {
        // A panic while holding the lock cannot leave a transaction open (a unit rolls back
        // when it fails), so a poisoned lock is still a usable connection.
        self.backend.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Run `f` on the database. On PostgreSQL a lost connection is re-opened and `f` run
    /// again after a transient error (see [`postgres::run`]), so `f` must be repeatable:
    /// a read, or a [`Store::write`].
    fn with<T>(&self, mut f: impl FnMut(sql::Db<'_>) -> Result<T>) -> Result<T> {
        let mut backend = self.lock();
        match &mut *backend {
            Backend::Lite(conn) => f(sql::Db::Lite(conn)),
            Backend::Pg(session) => postgres::run(session, &self.location, f),
        }
    }

    /// Run `f` as one read transaction: one consistent view, and on SQLite one lock for a
    /// whole batch of reads instead of one per statement.
    fn read<T>(&self, mut f: impl FnMut(sql::Db<'_>) -> Result<T>) -> Result<T> {
        self.with(|db| match db {
            sql::Db::Lite(conn) if conn.is_autocommit() => {
                conn.prepare_cached("BEGIN")?.execute([])?;
                let out = f(db);
                let end = if out.is_ok() { "COMMIT" } else { "ROLLBACK" };
                conn.prepare_cached(end)?.execute([])?;
                out
            }
            _ => f(db),
        })
    }

    /// Run `f` as one write transaction: all of it commits, or none of it. Inside a group
    /// ([`Store::begin_group`]) it is part of the group's transaction, and if it fails it
    /// spoils the group, which then commits none of it either.
    fn write<T>(&self, mut f: impl FnMut(sql::Db<'_>) -> Result<T>) -> Result<T> {
        self.with(|db| {
            if self.in_group.load(Ordering::Relaxed) {
                let out = f(db);
                if out.is_err() {
                    self.group_spoiled.store(true, Ordering::Relaxed);
                }
                return out;
            }
            let tx = tx::WriteTx::begin(db)?;
            let out = f(db)?;
            tx.commit()?;
            Ok(out)
        })
    }
}

impl Store {
    /// Longest wait of [`Store::write_briefly`] for another connection's write lock.
    const BRIEF_LOCK_WAIT: Duration = Duration::from_millis(250);

    /// [`Store::write`] for work that may be skipped when the database is busy (the hash
    /// cache): it waits at most a quarter of a second for another connection's write lock,
    /// not the whole lock wait (`--db-wait`), so a database someone else holds costs a
    /// command one wait, at the write that matters, not one more for each cache write.
    fn write_briefly<T>(&self, mut f: impl FnMut(sql::Db<'_>) -> Result<T>) -> Result<T> {
        if self.in_group.load(Ordering::Relaxed) {
            return self.write(f);
        }
        self.with(|db| match db {
            sql::Db::Lite(conn) => {
                conn.busy_timeout(Self::BRIEF_LOCK_WAIT.min(self.lock_wait))?;
                let out = tx::WriteTx::begin(db).and_then(|tx| {
                    let out = f(db)?;
                    tx.commit()?;
                    Ok(out)
                });
                conn.busy_timeout(self.lock_wait)?;
                out
            }
            _ => {
                let tx = tx::WriteTx::begin(db)?;
                let out = f(db)?;
                tx.commit()?;
                Ok(out)
            }
        })
    }
}

/// Lodge's folder in the platform's data directory.
fn data_dir() -> PathBuf {
    directories::ProjectDirs::from("org", "Lodge", "lodge")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// This machine's name: `LODGE_HOST` when set (for machines that share one name, and for
/// tests), else the host name.
pub fn this_host() -> String {
    std::env::var("LODGE_HOST")
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| gethostname::gethostname().to_string_lossy().into_owned())
}

fn default_actor() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_else(|_| "someone".into());
    format!("{user}@{}", this_host())
}

/// SQLite's "database is locked" (another connection holds the lock it needs).
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that leaves checkpoints to others, and the connection that takes them, on
    /// `lodge.db` in `dir`.
    fn writer_and_checkpoints(dir: &Path) -> (Store, Store) {
        let writer = Store::open(&dir.join("lodge.db")).unwrap();
        let checkpoints = writer
            .reopen_for_checkpoints()
            .unwrap()
            .expect("a SQLite file");
        writer.leave_checkpoints_to_others().unwrap();
        (writer, checkpoints)
    }

    /// `commits` commits of one 2 KB target each, numbered from `from`.
    fn write_targets(writer: &Store, from: usize, commits: usize) {
        for n in from..from + commits {
            let scope = format!("sandbox+http://127.0.0.1:{n}");
            writer
                .upsert_target(&scope, &scope, &"x".repeat(2000))
                .unwrap();
        }
    }

    #[test]
    fn a_connection_that_leaves_checkpoints_to_others_keeps_its_commits_in_the_log_until_one_runs()
    {
        let dir = tempfile::tempdir().unwrap();
        let (writer, checkpoints) = writer_and_checkpoints(dir.path());
        // More pages than SQLite's own rule (1,000) would let pile up before checkpointing.
        write_targets(&writer, 0, 1500);
        let done = checkpoints.checkpoint().unwrap().expect("a SQLite file");
        assert!(
            done.log_frames > 1000,
            "no checkpoint ran on the writer's commits: {done:?}"
        );
        assert_eq!(
            done.copied_frames, done.log_frames,
            "nobody reads: all copied"
        );
    }

    #[test]
    fn after_a_checkpoint_the_next_commits_start_the_log_from_its_beginning() {
        let dir = tempfile::tempdir().unwrap();
        let (writer, checkpoints) = writer_and_checkpoints(dir.path());
        let log = dir.path().join("lodge.db-wal");
        write_targets(&writer, 0, 300);
        let grown = std::fs::metadata(&log).unwrap().len();
        let done = checkpoints.checkpoint().unwrap().unwrap();
        assert_eq!(done.copied_frames, done.log_frames, "all copied: {done:?}");
        // Fewer commits than before: started over, they stay within the old length.
        write_targets(&writer, 300, 100);
        assert_eq!(
            std::fs::metadata(&log).unwrap().len(),
            grown,
            "the log grew past its old end instead of starting over"
        );
    }

    #[test]
    fn a_checkpoint_waits_only_briefly_for_a_long_reader_and_the_writer_carries_on() {
        let dir = tempfile::tempdir().unwrap();
        let (writer, checkpoints) = writer_and_checkpoints(dir.path());
        writer.upsert_target("a", "a", "first").unwrap();
        // Another process's long read, on the log as it was.
        let reader = rusqlite::Connection::open(dir.path().join("lodge.db")).unwrap();
        reader
            .execute_batch("BEGIN; SELECT count(*) FROM targets;")
            .unwrap();
        writer.upsert_target("b", "b", "second").unwrap();

        let started = std::time::Instant::now();
        checkpoints.checkpoint().unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the checkpoint waited {:?} for the reader (the store's lock wait is 30 s)",
            started.elapsed()
        );
        writer.upsert_target("c", "c", "third").unwrap();
        reader.execute_batch("COMMIT").unwrap();
    }

    #[test]
    fn connections_opening_and_closing_one_database_at_once_all_open_it() {
        // Lodge's window and a command line started together (on a first run, too), or
        // tests sharing one hash cache file: while one connection creates the file, or
        // closes as the last one (checkpointing and removing the log), the others wait
        // rather than fail with "database is locked".
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lodge.db");
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(6));
        let openers: Vec<_> = (0..6)
            .map(|_| {
                let (path, barrier) = (path.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    for round in 0..40 {
                        let store =
                            Store::open(&path).map_err(|e| format!("round {round}: {e}"))?;
                        store
                            .upsert_target("t", "t", "a target")
                            .map_err(|e| e.to_string())?;
                    }
                    Ok::<(), String>(())
                })
            })
            .collect();
        for opener in openers {
            let opened = opener.join().unwrap();
            assert!(opened.is_ok(), "{opened:?}");
        }
    }
}
