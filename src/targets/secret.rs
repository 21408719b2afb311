//! Secrets in memory: a string that never shows itself in `Debug` or `Display`, so a
//! credential cannot end up in a log line, an error message or the store by accident.

/// A password, secret key or token. Read it with [`Secret::expose`] only where it is sent.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The secret itself, for signing or an `Authorization` header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// A user (or access key id) and its secret.
#[derive(Clone, Debug)]
pub struct UserSecret {
    pub user: String,
    pub secret: Secret,
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_secret_never_prints_itself() {
        let s = super::Secret::new("hunter2");
        assert!(!format!("{s:?} {s}").contains("hunter2"));
        assert_eq!(s.expose(), "hunter2");
    }
}

/// Where a person puts right a target's stored user name and secret, for the message that
/// says the server refused them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CredentialsFix {
    /// The `lodge target add` that saves them again (the command line).
    Command(String),
    /// The window's Settings: Targets, Edit next to the target.
    Settings,
}
