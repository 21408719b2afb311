//! Where a Lodge database is: a SQLite file on this machine, or a PostgreSQL database that a
//! lab's machines share (`--db postgres://USER@HOST:PORT/DB`).

use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreLocation {
    File(PathBuf),
    /// A `postgres://` or `postgresql://` URL, as given.
    Postgres(String),
}

impl StoreLocation {
    /// Read what a person gave as `--db`, `LODGE_DB` or in Settings.
    pub fn parse(text: &str) -> StoreLocation {
        let trimmed = text.trim();
        let lower = trimmed.to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            // The scheme as PostgreSQL's client reads it: "Postgres://" is no URL to it.
            let (scheme, rest) = trimmed.split_once("://").expect("just matched");
            StoreLocation::Postgres(format!("{}://{rest}", scheme.to_ascii_lowercase()))
        } else {
            StoreLocation::File(PathBuf::from(text))
        }
    }

    /// What to warn of before using a database file on a network file system (NFS, SMB,
    /// a cluster file system): SQLite's locks do not hold there, so two machines using the
    /// file at once (a home folder mounted on every machine of a lab, say) can corrupt it.
    pub fn network_warning(&self) -> Option<String> {
        let StoreLocation::File(path) = self else {
            return None;
        };
        network_file_system(path).map(|kind| {
            on_network_file_system(
                "Lodge's database",
                path,
                kind,
                "Keep it on a local disk (--db or LODGE_DB, e.g. /var/tmp/lodge.db), or share \
                 one queue between machines with team mode (--db postgres://…)",
            )
        })
    }
}

/// A database "file" given as a URL of another kind (`postgress://…`, `mysql://…`,
/// `postgresql:/db`) or as a PostgreSQL URL with its slashes missing (`postgres:lab@db/x`,
/// `postgres//lab@db/x`, `lab@db.example:5432/lodge`), which would otherwise become a file
/// of that odd name in the current folder while the person believes they use a shared
/// database: the URL as said back (its password hidden). `None` for a path, or for a file
/// of that name that exists.
pub fn url_not_a_database_file(path: &Path) -> Option<String> {
    let text = path.to_str()?;
    let url_like = scheme_then_slash(text) || postgres_without_slashes(text);
    // A folder of that name here (`backup:` holding `lodge.db`) makes it a path after all.
    let a_folder_here = path.parent().is_some_and(Path::is_dir);
    (url_like && !path.exists() && !a_folder_here).then(|| without_password(text))
}

/// `SCHEME:/…`, as a URL begins. (A scheme of two letters at least: `C:/data/lodge.db` is
/// a Windows path.)
fn scheme_then_slash(text: &str) -> bool {
    text.split_once(':').is_some_and(|(scheme, rest)| {
        scheme.len() >= 2
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            && rest.starts_with('/')
    })
}

/// A PostgreSQL URL whose `://` went missing: `postgres` or `postgresql` then `:`, `//` or
/// `@` (`postgres/lodge.db` is a folder's file), or a first part `USER@HOST:PORT`.
fn postgres_without_slashes(text: &str) -> bool {
    let lower = text.trim().to_ascii_lowercase();
    let after_scheme = ["postgresql", "postgres"]
        .iter()
        .find_map(|scheme| lower.strip_prefix(scheme));
    let first = text.split('/').next().unwrap_or_default();
    let user_host_port = first.split_once('@').is_some_and(|(_, host)| {
        host.rsplit_once(':')
            .is_some_and(|(_, port)| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
    });
    after_scheme.is_some_and(|rest| rest.starts_with([':', '@']) || rest.starts_with("//"))
        || user_host_port
}

impl From<PathBuf> for StoreLocation {
    fn from(path: PathBuf) -> StoreLocation {
        match path.to_str() {
            Some(text) => StoreLocation::parse(text),
            None => StoreLocation::File(path),
        }
    }
}

/// "WHAT PATH is on a network file system (KIND)", why that is a danger, and `fix`.
pub(super) fn on_network_file_system(what: &str, path: &Path, kind: &str, fix: &str) -> String {
    format!(
        "{what} {} is on a network file system ({kind}). SQLite's locks do not hold there, so \
         two machines using it at once can corrupt it. {fix}",
        path.display()
    )
}

/// The kind of network file system `path` is on (the file need not exist yet: its nearest
/// existing folder is asked), if it is on one.
pub(super) fn network_file_system(path: &Path) -> Option<&'static str> {
    let existing = path.ancestors().find(|p| p.exists())?;
    file_system_kind(existing)
}

#[cfg(target_os = "linux")]
fn file_system_kind(path: &Path) -> Option<&'static str> {
    let stat = rustix::fs::statfs(path).ok()?;
    // f_type is a signed word of the platform's size; the magic numbers are 32-bit.
    network_magic(stat.f_type as u64 as u32)
}

#[cfg(target_os = "macos")]
fn file_system_kind(path: &Path) -> Option<&'static str> {
    let stat = rustix::fs::statfs(path).ok()?;
    let name: Vec<u8> = stat
        .f_fstypename
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    match name.as_slice() {
        b"nfs" => Some("nfs"),
        b"smbfs" => Some("smb"),
        b"afpfs" => Some("afp"),
        b"webdav" => Some("webdav"),
        _ => None,
    }
}

#[cfg(windows)]
fn file_system_kind(path: &Path) -> Option<&'static str> {
    // A share named by its server (\\server\share\...); a mapped drive letter is not seen.
    use std::path::{Component, Prefix};
    match path.components().next() {
        Some(Component::Prefix(p))
            if matches!(p.kind(), Prefix::UNC(..) | Prefix::VerbatimUNC(..)) =>
        {
            Some("a network share")
        }
        _ => None,
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
fn file_system_kind(_path: &Path) -> Option<&'static str> {
    None
}

/// Linux's file system magic numbers (`statfs(2)`, `linux/magic.h`) of the network and
/// cluster file systems, by name. FUSE is left out: most FUSE file systems are local.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn network_magic(magic: u32) -> Option<&'static str> {
    Some(match magic {
        0x6969 => "nfs",
        0x517b => "smb",
        0xff53_4d42 => "cifs",
        0xfe53_4d42 => "smb2",
        0x0102_1997 => "9p",
        0x5346_414f => "afs",
        0x00c3_6400 => "ceph",
        0x7375_7245 => "coda",
        0x0116_1970 => "gfs2",
        0x7461_636f => "ocfs2",
        0x0bd0_0bd0 => "lustre",
        0x4750_4653 => "gpfs",
        0x1983_0326 => "beegfs",
        _ => return None,
    })
}

/// For messages: a file's path, or the URL with any password hidden.
impl fmt::Display for StoreLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreLocation::File(path) => write!(f, "{}", path.display()),
            StoreLocation::Postgres(url) => write!(f, "{}", without_password(url)),
        }
    }
}

/// A PostgreSQL URL with its password shown as `***`: all between the user's name and the
/// last `@`, so that a password holding an `@`, `/` or `#` not percent-encoded (which moves
/// where a URL parser sees the host begin) does not show in part either.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let Some((userinfo, host)) = rest.rsplit_once('@') else {
        return url.to_string();
    };
    match userinfo.split_once(':') {
        Some((user, _)) if !user.contains(['/', '?', '#']) => {
            format!("{scheme}://{user}:***@{host}")
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{StoreLocation, network_magic, on_network_file_system};
    use std::path::Path;

    #[test]
    fn a_url_of_another_kind_is_no_database_file_and_a_path_is() {
        use super::url_not_a_database_file as url_of;
        for url in [
            "postgress://lab@db.example:5432/lodge",
            "mysql://lab@db.example/lodge",
            "postgresql:/lodge",
            "postgres:postgres@127.0.0.1:18150/lodge",
            "postgres//lab@db.example/lodge",
            "postgres@db.example:5432/lodge",
            "lab@db.example:5432/lodge",
            "PostgreSQL:lab@db.example/lodge",
        ] {
            assert_eq!(url_of(Path::new(url)).as_deref(), Some(url), "{url}");
        }
        assert_eq!(
            url_of(Path::new("postgress://lab:secret@db.example/lodge")).as_deref(),
            Some("postgress://lab:***@db.example/lodge")
        );
        for path in [
            "lodge.db",
            "/var/tmp/lodge.db",
            "C:/data/lodge.db",
            "./a:b/lodge.db",
            "postgres-backup/lodge.db",
            "postgres/lodge.db",
            "postgres.db",
            "me@home/lodge.db",
        ] {
            assert_eq!(url_of(Path::new(path)), None, "{path}");
        }
    }

    #[test]
    fn a_path_into_a_folder_whose_name_ends_in_a_colon_is_a_path() {
        let folder = tempfile::Builder::new()
            .prefix("backup")
            .suffix(":")
            .tempdir_in(".")
            .unwrap();
        let name = folder.path().file_name().unwrap().to_str().unwrap();
        let path = format!("{name}/lodge.db");
        assert_eq!(super::url_not_a_database_file(Path::new(&path)), None);
    }

    #[test]
    fn a_postgres_scheme_in_capitals_is_read_as_postgres() {
        assert_eq!(
            StoreLocation::parse("Postgres://lab@db.example/lodge"),
            StoreLocation::Postgres("postgres://lab@db.example/lodge".into())
        );
    }

    #[test]
    fn network_and_cluster_file_systems_are_told_from_local_ones() {
        assert_eq!(network_magic(0x6969), Some("nfs"));
        assert_eq!(network_magic(0xff53_4d42), Some("cifs"));
        assert_eq!(network_magic(0x4750_4653), Some("gpfs"));
        // ext4, tmpfs, btrfs, xfs and FUSE are not.
        for local in [0xef53, 0x0102_1994, 0x9123_683e, 0x5846_5342, 0x6573_5546] {
            assert_eq!(network_magic(local), None, "{local:#x}");
        }
    }

    #[test]
    fn a_database_on_a_local_disk_gets_no_warning_and_postgres_none_either() {
        let dir = tempfile::tempdir().unwrap();
        // Not created yet: its folder is asked.
        let file = StoreLocation::File(dir.path().join("not-yet/lodge.db"));
        assert_eq!(file.network_warning(), None);
        let shared = StoreLocation::parse("postgres://lab@db.example/lodge");
        assert_eq!(shared.network_warning(), None);
        // What one on NFS is told: the file, the file system, and both ways out.
        let said = on_network_file_system(
            "Lodge's database",
            Path::new("/home/me/.local/share/lodge/lodge.db"),
            "nfs",
            "Keep it on a local disk (--db or LODGE_DB), or use team mode (--db postgres://…)",
        );
        for part in [
            "/home/me/.local/share/lodge/lodge.db is on a network file system (nfs)",
            "--db or LODGE_DB",
            "--db postgres://",
        ] {
            assert!(said.contains(part), "{part}: {said}");
        }
    }

    #[test]
    fn postgres_urls_are_recognised_and_their_passwords_hidden() {
        let at = StoreLocation::parse("postgres://lab:secret@db.example:5432/lodge");
        assert!(matches!(at, StoreLocation::Postgres(_)));
        assert_eq!(at.to_string(), "postgres://lab:***@db.example:5432/lodge");
        // A password with '@', '/' and '#' not percent-encoded shows no part of it.
        let at = StoreLocation::parse("postgres://lab:p@ss/w:rd#1@db.example:5432/lodge");
        assert_eq!(at.to_string(), "postgres://lab:***@db.example:5432/lodge");
        let no_password = "postgres://lab@db.example/lodge";
        assert_eq!(StoreLocation::parse(no_password).to_string(), no_password);
        assert!(matches!(
            StoreLocation::parse("/home/me/lodge.db"),
            StoreLocation::File(_)
        ));
    }
}
