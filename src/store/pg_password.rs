//! The password of a `postgres://` URL written without one, found where libpq (`psql`)
//! finds it: `PGPASSWORD`, else the password file (`PGPASSFILE`, or `~/.pgpass`; on
//! Windows `%APPDATA%\postgresql\pgpass.conf`). Lodge prints its database's URL without the
//! password, so the commands it suggests work only if the password comes from one of these.
//!
//! The file's lines are `host:port:database:user:password`; `*` matches anything, `\`
//! escapes a `:` or a `\`, and `#` starts a comment. As libpq does, a file that others can
//! read (on Unix) is not used. Written here, not taken from a crate: the one published
//! parser (`postgres_secrets`) brings the synchronous `postgres` client and `nom` with it,
//! for what is fifty lines.

use std::path::{Path, PathBuf};

use tokio_postgres::config::Host;

/// The password for `config`'s first host, port, database and user, when the URL gave none.
pub(super) fn password_for(config: &tokio_postgres::Config) -> Option<String> {
    if config.get_password().is_some() {
        return None;
    }
    if let Ok(password) = std::env::var("PGPASSWORD") {
        return Some(password);
    }
    let file = password_file()?;
    if !private(&file) {
        return None;
    }
    let text = std::fs::read_to_string(&file).ok()?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(name)) => name.clone(),
        // A socket's "host" is `localhost` in the file, as libpq matches it.
        #[cfg(unix)]
        Some(Host::Unix(_)) => "localhost".to_string(),
        None => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user()?;
    // No database given: the user's own, as the server takes it.
    let database = config.get_dbname().unwrap_or(user);
    find_in(&text, &host, port, database, user)
}

/// The password file, when there is one that is not used because others can read it.
pub(super) fn password_file_not_private() -> Option<PathBuf> {
    let file = password_file()?;
    (file.is_file() && !private(&file)).then_some(file)
}

/// Where the password file is: `PGPASSFILE`, else the user's default one.
fn password_file() -> Option<PathBuf> {
    if let Some(file) = std::env::var_os("PGPASSFILE") {
        return Some(PathBuf::from(file));
    }
    if cfg!(windows) {
        let appdata = std::env::var_os("APPDATA")?;
        return Some(Path::new(&appdata).join("postgresql").join("pgpass.conf"));
    }
    let home = std::env::var_os("HOME")?;
    Some(Path::new(&home).join(".pgpass"))
}

/// Whether the file can be read by its owner alone (always so off Unix).
fn private(file: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(file).is_ok_and(|m| m.permissions().mode() & 0o077 == 0)
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        true
    }
}

/// The password of the first line of a password file's `text` that matches.
fn find_in(text: &str, host: &str, port: u16, database: &str, user: &str) -> Option<String> {
    let port = port.to_string();
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .filter_map(fields)
        .find(|f| {
            let matches = |field: &str, value: &str| field == "*" || field == value;
            matches(&f[0], host)
                && matches(&f[1], &port)
                && matches(&f[2], database)
                && matches(&f[3], user)
        })
        .map(|f| f[4].clone())
}

/// A line's five fields, its escapes undone; `None` for a line that has not five.
fn fields(line: &str) -> Option<[String; 5]> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => fields.last_mut()?.extend(chars.next()),
            // The password is the rest of the line: a `:` in it need not be escaped.
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut()?.push(c),
        }
    }
    fields.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# the lab's database\n\
                        db.lab.example:5432:lodge:lab:first\\:secret\n\
                        *:*:*:lab:any-host\n\
                        127.0.0.1:15432:lodge:other:pa\\\\ss:with:colons\n";

    #[test]
    fn the_first_matching_line_gives_the_password_its_escapes_undone() {
        let found = |host, port, db, user| find_in(FILE, host, port, db, user);
        assert_eq!(
            found("db.lab.example", 5432, "lodge", "lab").as_deref(),
            Some("first:secret")
        );
        assert_eq!(
            found("db.lab.example", 5433, "lodge", "lab").as_deref(),
            Some("any-host"),
            "another port: the wildcard line"
        );
        assert_eq!(
            found("127.0.0.1", 15432, "lodge", "other").as_deref(),
            Some("pa\\ss:with:colons")
        );
        assert_eq!(found("127.0.0.1", 5432, "lodge", "other"), None);
    }

    #[test]
    fn a_line_with_fewer_than_five_fields_matches_nothing() {
        assert_eq!(find_in("*:*:*:lab\n", "h", 5432, "d", "lab"), None);
    }
}
