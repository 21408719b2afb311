//! Where a Lodge database is: a SQLite file on this machine, or a PostgreSQL database that a
//! lab's machines share (`--db postgres://USER@HOST:PORT/DB`).

use std::fmt;
use std::path::PathBuf;

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
            StoreLocation::Postgres(trimmed.to_string())
        } else {
            StoreLocation::File(PathBuf::from(text))
        }
    }
}

impl From<PathBuf> for StoreLocation {
    fn from(path: PathBuf) -> StoreLocation {
        match path.to_str() {
            Some(text) => StoreLocation::parse(text),
            None => StoreLocation::File(path),
        }
    }
}

/// For messages: a file's path, or the URL with any password hidden.
impl fmt::Display for StoreLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreLocation::File(path) => write!(f, "{}", path.display()),
            StoreLocation::Postgres(url) => match url::Url::parse(url) {
                Ok(mut parsed) if parsed.password().is_some() => {
                    let _ = parsed.set_password(Some("***"));
                    write!(f, "{parsed}")
                }
                _ => write!(f, "{url}"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::StoreLocation;

    #[test]
    fn postgres_urls_are_recognised_and_their_passwords_hidden() {
        let at = StoreLocation::parse("postgres://lab:secret@db.example:5432/lodge");
        assert!(matches!(at, StoreLocation::Postgres(_)));
        assert_eq!(at.to_string(), "postgres://lab:***@db.example:5432/lodge");
        assert!(matches!(
            StoreLocation::parse("/home/me/lodge.db"),
            StoreLocation::File(_)
        ));
    }
}
