//! Whether a file given as the Lodge database is Lodge's to open. A `--db` that points at
//! the wrong file (a dataset's file, another program's SQLite database) is refused before
//! anything is written to it: migrating would give another program's database Lodge's
//! tables, and switching it to WAL would change how that program finds it.
//!
//! The file is looked at through SQLite's connection, never opened by Lodge itself while
//! SQLite may hold it (see [`starts_as_sqlite`]).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::schema::{LODGE_TABLES, SQLITE_LATEST};
use super::{Result, StoreError};

/// The first 16 bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Whether the file at `path` starts as an SQLite database does. Called only once SQLite
/// itself has refused the file: opening a database file with a descriptor of our own, and
/// closing it, drops every POSIX lock this process's SQLite connections hold on it (SQLite's
/// own warning), and a window holds several.
fn starts_as_sqlite(path: &Path) -> bool {
    let mut head = Vec::with_capacity(SQLITE_HEADER.len());
    match std::fs::File::open(path) {
        Ok(file) => match file.take(SQLITE_HEADER.len() as u64).read_to_end(&mut head) {
            Ok(_) => head == SQLITE_HEADER,
            // Unreadable: say what SQLite said.
            Err(_) => true,
        },
        Err(_) => true,
    }
}

/// Refuse a file that is not a database at all (SQLite cannot read it, and it does not start
/// as an SQLite file; one that does is damaged, which the caller explains); an SQLite
/// database that has tables but none of Lodge's schema versions (Lodge's migrations count
/// in `user_version`, from its first table on), or a schema version but not Lodge's tables
/// ([`LODGE_TABLES`]): another program's; and a Lodge database of a schema version past the
/// last this Lodge knows: a newer Lodge's, which this one must not write. With
/// `must_be_started`, also a file with no tables at all (empty: a copy cut short).
pub(super) fn refuse_a_database_not_lodges(
    conn: &rusqlite::Connection,
    path: &Path,
    must_be_started: bool,
) -> Result<()> {
    let open_err = |source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    };
    let read_version = || -> Result<i64> {
        match conn.query_row("PRAGMA user_version", [], |r| r.get(0)) {
            Ok(version) => Ok(version),
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::NotADatabase)
                    && !starts_as_sqlite(path) =>
            {
                Err(StoreError::NotADatabase {
                    path: path.to_path_buf(),
                })
            }
            Err(e) => Err(open_err(e)),
        }
    };
    let read_tables = || -> Result<Vec<String>> {
        conn.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             ORDER BY name",
        )
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(open_err)
    };
    // The version and the tables of one moment: another process (or connection) creating
    // the file may commit its schema between two reads, and its tables with the version
    // from before would read as another program's database. Read again until the version
    // is the same on both sides of the tables. The first read of the file is where SQLite
    // finds out whether it is a database at all.
    let (version, tables) = loop {
        let version = read_version()?;
        let tables = read_tables()?;
        if read_version()? == version {
            break (version, tables);
        }
    };
    let lodges = LODGE_TABLES
        .iter()
        .all(|t| tables.iter().any(|have| have == t));
    // A new (or emptied) file: Lodge's to start, unless only what is there is wanted.
    if version == 0 && tables.is_empty() {
        if must_be_started {
            return Err(StoreError::NotStarted {
                location: path.display().to_string(),
            });
        }
        return Ok(());
    }
    if version != 0 && lodges {
        if version > SQLITE_LATEST {
            return Err(StoreError::NewerSchema {
                path: path.to_path_buf(),
                version,
                known: SQLITE_LATEST,
            });
        }
        return Ok(());
    }
    if tables.is_empty() {
        return Err(StoreError::AnotherProgramsDatabase {
            path: path.to_path_buf(),
            tables: "none".to_string(),
        });
    }
    Err(StoreError::AnotherProgramsDatabase {
        path: path.to_path_buf(),
        tables: some_tables(&tables),
    })
}

/// A file for Lodge's own database beside `path`, to suggest instead of it.
pub(super) fn own_file_beside(path: &Path) -> PathBuf {
    let folder = path.parent().unwrap_or(Path::new("."));
    let beside = folder.join("lodge.db");
    if beside == path {
        folder.join("lodge").join("lodge.db")
    } else {
        beside
    }
}

/// Another program's tables, as a refusal names them: the first five, and how many more.
pub(super) fn some_tables(tables: &[String]) -> String {
    let mut named = tables
        .iter()
        .take(5)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if tables.len() > 5 {
        named.push_str(&format!(" and {} more", tables.len() - 5));
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// What opening `path` as Lodge's database says, which must be a refusal that leaves
    /// the file byte for byte as it was and starts no write-ahead log beside it.
    fn refusal_leaving_untouched(path: &Path) -> String {
        let before = std::fs::read(path).unwrap();
        let said = Store::open(path).err().expect("refused").to_string();
        assert_eq!(std::fs::read(path).unwrap(), before, "untouched: {said}");
        let mut log = path.as_os_str().to_owned();
        log.push("-wal");
        assert!(!Path::new(&log).exists(), "a log was started: {said}");
        said
    }

    /// Connections opening one new file at once (the hash cache of a test process's
    /// PostgreSQL stores, a lab's machines starting together): each is Lodge's, none is
    /// refused as another program's for reading the schema the first one was committing.
    #[test]
    fn a_new_file_opened_by_many_at_once_is_lodges_to_every_one() {
        for _ in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("hash-cache.db");
            let barrier = std::sync::Barrier::new(8);
            std::thread::scope(|s| {
                let opened: Vec<_> = (0..8)
                    .map(|_| {
                        s.spawn(|| {
                            barrier.wait();
                            Store::open(&path).map(|_| ()).map_err(|e| e.to_string())
                        })
                    })
                    .collect();
                for open in opened {
                    open.join().unwrap().unwrap();
                }
            });
        }
    }

    #[test]
    fn a_file_that_is_not_a_database_is_refused_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("scan.tif");
        std::fs::write(&data, b"II*\0 some image bytes").unwrap();
        let said = refusal_leaving_untouched(&data);
        assert!(
            said.starts_with(&format!(
                "{} is not a Lodge database: it does not start as an SQLite database does",
                data.display()
            )),
            "{said}"
        );
        assert!(
            said.ends_with(&format!(
                "such as {}",
                dir.path().join("lodge.db").display()
            )),
            "{said}"
        );
    }

    #[test]
    fn another_programs_database_is_refused_and_gets_no_tables_of_lodges() {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("notes.sqlite");
        let conn = rusqlite::Connection::open(&other).unwrap();
        conn.execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);")
            .unwrap();
        drop(conn);

        let said = refusal_leaving_untouched(&other);
        assert!(
            said.starts_with(&format!(
                "{} is another program's SQLite database (its tables: notes)",
                other.display()
            )),
            "{said}"
        );
    }

    #[test]
    fn another_programs_database_with_a_schema_version_is_refused_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        for version in [3, 5, 9] {
            let other = dir.path().join(format!("app{version}.sqlite"));
            let conn = rusqlite::Connection::open(&other).unwrap();
            conn.execute_batch(&format!(
                "CREATE TABLE datasets (id INTEGER PRIMARY KEY, doi TEXT);
                 PRAGMA user_version = {version};"
            ))
            .unwrap();
            drop(conn);

            let said = refusal_leaving_untouched(&other);
            assert!(
                said.starts_with(&format!(
                    "{} is another program's SQLite database (its tables: datasets)",
                    other.display()
                )),
                "user_version {version}: {said}"
            );
        }
    }

    #[test]
    fn a_newer_lodges_database_is_named_as_such_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let newer = dir.path().join("lodge.db");
        drop(Store::open(&newer).unwrap());
        let conn = rusqlite::Connection::open(&newer).unwrap();
        conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
        let newer_version = crate::store::schema::SQLITE_LATEST + 1;
        conn.pragma_update(None, "user_version", newer_version)
            .unwrap();
        drop(conn);

        let said = refusal_leaving_untouched(&newer);
        assert_eq!(
            said,
            format!(
                "the Lodge database {} was written by a newer Lodge (schema {newer_version}, \
                 this Lodge knows up to {}); Lodge has not changed it. Use a newer Lodge, or \
                 another --db",
                newer.display(),
                crate::store::schema::SQLITE_LATEST
            )
        );
    }

    #[test]
    fn a_new_an_empty_and_a_lodge_database_all_open() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.db");
        drop(Store::open(&new).expect("a new file"));
        drop(Store::open(&new).expect("the same file, now Lodge's"));
        let empty = dir.path().join("empty.db");
        std::fs::write(&empty, b"").unwrap();
        drop(Store::open(&empty).expect("an empty file"));
    }

    /// Opened for work on what it holds (`lodge status`, `history`...), a file there already
    /// that is empty (a copy cut short) or an SQLite database without tables is refused,
    /// and left as it was: not started as an empty store that would report no history. A
    /// file not there yet is started, as before.
    #[test]
    fn an_empty_file_opened_for_what_it_holds_is_refused_and_left_as_it_was() {
        use crate::store::{StoreError, StoreLocation};
        let dir = tempfile::tempdir().unwrap();
        let wait = std::time::Duration::from_secs(1);
        let empty = dir.path().join("cut-short.db");
        std::fs::write(&empty, b"").unwrap();
        let tableless = dir.path().join("tableless.db");
        rusqlite::Connection::open(&tableless)
            .unwrap()
            .execute_batch("VACUUM")
            .unwrap();
        for path in [&empty, &tableless] {
            let before = std::fs::read(path).unwrap();
            let refused = Store::open_started_at_waiting(&StoreLocation::File(path.clone()), wait);
            assert!(
                matches!(refused, Err(StoreError::NotStarted { .. })),
                "{}",
                path.display()
            );
            assert_eq!(std::fs::read(path).unwrap(), before, "untouched");
        }
        let new = dir.path().join("new.db");
        drop(Store::open_started_at_waiting(&StoreLocation::File(new.clone()), wait).unwrap());
        drop(Store::open_started_at_waiting(&StoreLocation::File(new), wait).unwrap());
    }

    #[test]
    fn the_file_suggested_instead_is_never_the_one_refused() {
        assert_eq!(
            own_file_beside(Path::new("/data/x.db")),
            Path::new("/data/lodge.db")
        );
        assert_eq!(
            own_file_beside(Path::new("/data/lodge.db")),
            Path::new("/data/lodge/lodge.db")
        );
    }
}
