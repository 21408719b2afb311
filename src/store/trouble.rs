//! When the database file itself is the problem — locked by another process, damaged, on a
//! full disk, read-only — the user is told which file, what is wrong with it and what to do,
//! instead of SQLite's one-line code. Lodge never repairs or recreates the file on its own:
//! every one of these errors leaves it as it was.

use std::error::Error;
use std::path::Path;
use std::time::Duration;

use rusqlite::ErrorCode;

/// What is wrong with the database file, when an error is about the file rather than a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatabaseTrouble {
    /// Another connection holds the write lock, and kept it for longer than Lodge waits.
    Locked,
    /// The file is not an SQLite database, or its pages are damaged.
    Damaged,
    /// The disk holding the file (or its write-ahead log) is full.
    DiskFull,
    /// The file or its folder cannot be written.
    ReadOnly,
    /// Reading or writing the file (or its companions, `-wal` and `-shm`) failed at the
    /// disk: most often a full disk, or one disconnected.
    DiskIo,
}

impl DatabaseTrouble {
    /// The trouble behind `err`, looking through its whole chain of causes.
    pub fn of(err: &(dyn Error + 'static)) -> Option<DatabaseTrouble> {
        let mut next: Option<&(dyn Error + 'static)> = Some(err);
        while let Some(e) = next {
            if let Some(sql) = e.downcast_ref::<rusqlite::Error>() {
                return sql.sqlite_error_code().and_then(Self::of_code);
            }
            next = e.source();
        }
        None
    }

    fn of_code(code: ErrorCode) -> Option<DatabaseTrouble> {
        match code {
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => Some(DatabaseTrouble::Locked),
            ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => Some(DatabaseTrouble::Damaged),
            ErrorCode::DiskFull => Some(DatabaseTrouble::DiskFull),
            ErrorCode::ReadOnly => Some(DatabaseTrouble::ReadOnly),
            ErrorCode::SystemIoFailure | ErrorCode::CannotOpen => Some(DatabaseTrouble::DiskIo),
            _ => None,
        }
    }

    /// Whether an error of this code is about the database file (or its disk), not about
    /// what a statement asked.
    pub fn is_the_files(code: ErrorCode) -> bool {
        Self::of_code(code).is_some()
    }

    /// What to tell the user about the database at `path`; `waited` is how long Lodge waited
    /// for a lock. `cause` is SQLite's own words, kept for whoever has to dig further.
    pub fn explain(self, path: &Path, waited: Duration, cause: &str) -> String {
        let path = path.display();
        match self {
            DatabaseTrouble::Locked => format!(
                "the Lodge database {path} is locked by another process (another lodge command, \
                 the Lodge window, or a database tool holding a write transaction) and stayed \
                 locked for the {} Lodge waits ({cause}): let that process finish or close it, \
                 then run the command again (--db-wait waits longer); nothing was recorded by \
                 the step that waited",
                humantime::format_duration(waited)
            ),
            DatabaseTrouble::Damaged => format!(
                "the Lodge database {path} is damaged ({cause}); Lodge has not changed it. Keep \
                 a copy of the file, then restore it from a backup (with Lodge closed, and \
                 {path}-wal and {path}-shm moved away first: SQLite would play the damaged \
                 file's log into the backup), or recover what it holds \
                 with `sqlite3 {path} .recover | sqlite3 recovered.db` (where that sqlite3's \
                 .recover fails, as 3.40's does, `.dump` in its place) and use \
                 `--db recovered.db`"
            ),
            DatabaseTrouble::DiskFull => format!(
                "the disk holding the Lodge database {path} is full ({cause}): free some space \
                 on it (or use --db with a database on another disk), then run the command \
                 again; the step that could not be written was rolled back, everything \
                 recorded before it is kept"
            ),
            DatabaseTrouble::DiskIo => format!(
                "the Lodge database {path} could not be read or written on its disk ({cause}): \
                 most often its disk is full or was disconnected. Free some space on it, or \
                 connect it again (or use --db with a database on another disk), then run the \
                 command again; the step that failed was not recorded, everything recorded \
                 before it is kept"
            ),
            DatabaseTrouble::ReadOnly => format!(
                "the Lodge database {path} cannot be written ({cause}): give your user write \
                 access to the file and its folder, or use --db with another database"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_and_damaged_databases_are_recognised_through_wrapping_errors() {
        let busy = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            Some("database is locked".into()),
        );
        let wrapped = crate::store::StoreError::Sql(busy);
        assert_eq!(DatabaseTrouble::of(&wrapped), Some(DatabaseTrouble::Locked));
        let notadb = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_NOTADB),
            None,
        );
        assert_eq!(DatabaseTrouble::of(&notadb), Some(DatabaseTrouble::Damaged));
        let other = rusqlite::Error::QueryReturnedNoRows;
        assert_eq!(DatabaseTrouble::of(&other), None);
        // SQLITE_IOERR_SHMMAP, what a disk with no byte free gives when the `-shm` file
        // cannot grow.
        let shm = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(4874), None);
        assert_eq!(DatabaseTrouble::of(&shm), Some(DatabaseTrouble::DiskIo));
        let said =
            DatabaseTrouble::DiskIo.explain(Path::new("/data/lodge.db"), Duration::ZERO, "x");
        assert!(
            said.contains("most often its disk is full or was disconnected"),
            "{said}"
        );
        // A group's commit that failed on a full disk is told to each of its calls as a
        // full disk, not as words alone.
        let full = crate::store::StoreError::Sql(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            Some("database or disk is full".into()),
        ));
        let told = full.for_each_of_a_group();
        assert_eq!(DatabaseTrouble::of(&told), Some(DatabaseTrouble::DiskFull));
        assert_eq!(
            told.to_string(),
            "the database could not commit: database or disk is full"
        );
    }
}
