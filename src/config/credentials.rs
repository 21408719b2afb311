//! Where a target's secret comes from, in order: the environment variable the target names
//! (`secret_env`), the OS keyring (the `keyring` crate: Keychain, Windows Credential Manager,
//! Secret Service), or `secrets.toml` beside the config file, created with mode 0600, where no
//! keyring is available. Never the SQLite store, never printed.
//!
//! `LODGE_NO_KEYRING=1` skips the keyring (tests, headless machines that should use the file).

use std::path::{Path, PathBuf};

use super::{ConfigError, TargetConfig};
use crate::targets::secret::{Secret, UserSecret};

const KEYRING_SERVICE: &str = "lodge";

/// Where a stored secret went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecretStore {
    Keyring,
    File(PathBuf),
}

impl std::fmt::Display for SecretStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SecretStore::Keyring => f.write_str("the OS keyring"),
            SecretStore::File(p) => write!(f, "{} (mode 0600)", p.display()),
        }
    }
}

/// `secrets.toml` beside the config file.
pub fn secrets_path(config_path: &Path) -> PathBuf {
    config_path
        .parent()
        .unwrap_or(Path::new("."))
        .join("secrets.toml")
}

fn keyring_enabled() -> bool {
    std::env::var_os("LODGE_NO_KEYRING").is_none_or(|v| v.is_empty() || v == "0")
}

/// Run a keyring call on its own thread: some backends block on their own runtime, which
/// must not happen inside Lodge's.
fn on_keyring<T: Send>(f: impl FnOnce() -> Option<T> + Send) -> Option<T> {
    if !keyring_enabled() {
        return None;
    }
    std::thread::scope(|s| s.spawn(f).join().ok().flatten())
}

fn keyring_account(name: &str) -> String {
    format!("target/{name}")
}

/// Store a target's secret: in the keyring when there is one, else in the secrets file.
pub fn store_secret(
    config_path: &Path,
    name: &str,
    secret: &Secret,
) -> Result<SecretStore, ConfigError> {
    let account = keyring_account(name);
    let stored = on_keyring(|| {
        let entry = keyring::Entry::new(KEYRING_SERVICE, &account).ok()?;
        entry.set_password(secret.expose()).ok()?;
        // Some backends accept a write and forget it: read it back.
        (entry.get_password().ok()? == secret.expose()).then_some(())
    });
    if stored.is_some() {
        return Ok(SecretStore::Keyring);
    }
    let path = secrets_path(config_path);
    let mut secrets = read_secrets_file(&path)?;
    secrets.insert(name.to_string(), secret.expose().to_string());
    write_secrets_file(&path, &secrets)?;
    Ok(SecretStore::File(path))
}

/// Forget a target's stored secret (keyring and file).
pub fn forget_secret(config_path: &Path, name: &str) -> Result<(), ConfigError> {
    let account = keyring_account(name);
    on_keyring(|| {
        keyring::Entry::new(KEYRING_SERVICE, &account)
            .ok()?
            .delete_credential()
            .ok()
    });
    let path = secrets_path(config_path);
    let mut secrets = read_secrets_file(&path)?;
    if secrets.remove(name).is_some() {
        write_secrets_file(&path, &secrets)?;
    }
    Ok(())
}

fn stored_secret(config_path: &Path, name: &str) -> Result<Option<Secret>, ConfigError> {
    let account = keyring_account(name);
    if let Some(s) = on_keyring(|| {
        keyring::Entry::new(KEYRING_SERVICE, &account)
            .ok()?
            .get_password()
            .ok()
    }) {
        return Ok(Some(Secret::new(s)));
    }
    Ok(read_secrets_file(&secrets_path(config_path))?
        .remove(name)
        .map(Secret::new))
}

/// Whether a secret is stored under target name `name` (in the keyring or the file).
pub fn has_stored_secret(config_path: &Path, name: &str) -> Result<bool, ConfigError> {
    Ok(stored_secret(config_path, name)?.is_some())
}

/// Whether target `name` keeps a secret (a user's, or a token) that should be stored (it
/// names no `secret_env`) but is not, in the keyring or the secrets file.
pub fn lacks_stored_secret(
    config_path: &Path,
    name: &str,
    target: &TargetConfig,
) -> Result<bool, ConfigError> {
    Ok(target.keeps_secret()
        && target.secret_env.is_none()
        && stored_secret(config_path, name)?.is_none())
}

/// What target `name` lacks when [`lacks_stored_secret`]: `a user but no secret`, or for a
/// DataCite, Zenodo or InvenioRDM target `no token`.
pub fn what_is_missing(target: &TargetConfig) -> &'static str {
    if target.takes_token() {
        "no token"
    } else {
        "a user but no secret"
    }
}

/// Where the window says the secret of target `name` is typed when
/// [`lacks_stored_secret`]: in Settings, not piped to the command the command line's
/// message names. (`config::missing_secret_in_window` says a refused setting first.)
pub(super) fn missing_secret_in_window(name: &str, target: &TargetConfig) -> String {
    format!(
        "target '{name}' has {} stored: in Settings, Targets, press Edit next to it, type it \
         under Password, secret key or token and press Save target",
        if target.takes_token() {
            "no token"
        } else {
            "a user but no password or secret key"
        }
    )
}

/// What to run to give target `name` (a user, no secret; or a token target with no token)
/// its secret: the whole `target add` command, since it replaces the entry, with the
/// target's own URL, settings and user.
pub fn how_to_add_the_secret(name: &str, target: &TargetConfig) -> String {
    let what = if target.takes_token() {
        "the token"
    } else {
        "the secret"
    };
    format!(
        "store one with `{}` (it reads {what} from standard input: paste it, then Ctrl+D), \
         or name the environment variable that holds it with `{}`",
        add_secret_command(name, target, "--secret-stdin"),
        add_secret_command(name, target, "--secret-env VAR")
    )
}

/// The `lodge target add` that gives target `name` a secret (`secret_flag`:
/// `--secret-stdin` or `--secret-env VAR`), keeping its URL, settings and user (a DataCite,
/// Zenodo or InvenioRDM target has none: its token is all it needs).
pub fn add_secret_command(name: &str, target: &TargetConfig, secret_flag: &str) -> String {
    let user = match (&target.user, &target.user_env) {
        _ if target.takes_token() => String::new(),
        (Some(u), _) => format!("--user {} ", super::open::quoted(u)),
        (None, Some(var)) => format!("--access-key-env {var} "),
        (None, None) => "--user USER ".into(),
    };
    super::add_command(name, target, &format!("{user}{secret_flag}"))
}

/// The `lodge target add` that saves target `name` as `target` is, its credentials kept:
/// the user (or the variable its access key id is read from) and the variable its secret is
/// read from are repeated; a secret stored in the keyring or the secrets file stays stored
/// (`target add` without `--secret-stdin` keeps it), so none is asked for.
pub fn resave_command(name: &str, target: &TargetConfig) -> String {
    let mut credentials = Vec::new();
    if !target.takes_token() {
        match (&target.user, &target.user_env) {
            (Some(u), _) => credentials.push(format!("--user {}", super::open::quoted(u))),
            (None, Some(var)) => credentials.push(format!("--access-key-env {var}")),
            (None, None) => {}
        }
    }
    if let Some(var) = &target.secret_env {
        credentials.push(format!("--secret-env {var}"));
    }
    super::add_command(name, target, &credentials.join(" "))
}

/// The token of a saved DataCite, Zenodo or InvenioRDM target: from the environment
/// variable it names, else the keyring or the secrets file.
pub fn resolve_token(
    config_path: &Path,
    name: &str,
    target: &TargetConfig,
) -> Result<Secret, ConfigError> {
    if let Some(var) = &target.secret_env {
        return Ok(Secret::new(env_var(name, var, "its token")?));
    }
    stored_secret(config_path, name)?.ok_or_else(|| {
        ConfigError::new(format!(
            "target '{name}' has no token stored: {}",
            how_to_add_the_secret(name, target)
        ))
    })
}

fn env_var(name: &str, var: &str, what: &str) -> Result<String, ConfigError> {
    std::env::var(var).map_err(|_| {
        ConfigError::new(format!(
            "target '{name}': the environment variable {var} ({what}) is not set: export it, \
             or change the target with `lodge target add {name} ...`"
        ))
    })
}

/// The credentials of a target, or `None` when it has none configured.
pub fn resolve(
    config_path: &Path,
    name: &str,
    target: &TargetConfig,
) -> Result<Option<UserSecret>, ConfigError> {
    let user = match (&target.user, &target.user_env) {
        (Some(u), _) => Some(u.clone()),
        (None, Some(var)) => Some(env_var(name, var, "its user or access key id")?),
        (None, None) => None,
    };
    let secret = match &target.secret_env {
        Some(var) => Some(Secret::new(env_var(name, var, "its secret")?)),
        // A sandbox takes none: one stored under its name is another target's, left from
        // before the name was given to the sandbox.
        None if crate::config::refuse_sandbox_credentials(name, &target.url).is_err() => None,
        None => stored_secret(config_path, name)?,
    };
    match (user, secret) {
        (Some(user), Some(secret)) => Ok(Some(UserSecret { user, secret })),
        (None, None) => Ok(None),
        (Some(_), None) => Err(ConfigError::new(format!(
            "target '{name}' has a user but no secret: {}",
            how_to_add_the_secret(name, target)
        ))),
        (None, Some(_)) => Err(ConfigError::new(format!(
            "target '{name}' has a secret but no user or access key id: add --user ID or \
             --access-key-env VAR with `lodge target add {name} ...`"
        ))),
    }
}

fn read_secrets_file(
    path: &Path,
) -> Result<std::collections::BTreeMap<String, String>, ConfigError> {
    #[derive(serde::Deserialize, Default)]
    struct File {
        #[serde(default)]
        secrets: std::collections::BTreeMap<String, String>,
    }
    match std::fs::read_to_string(path) {
        Ok(text) => toml::from_str::<File>(&text)
            .map(|f| f.secrets)
            .map_err(|e| {
                ConfigError::new(format!(
                    "the secrets file {} is not valid TOML ({}): fix or delete it",
                    path.display(),
                    e.message()
                ))
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Default::default()),
        Err(e) => Err(ConfigError::new(format!(
            "cannot read the secrets file {}: {e}",
            path.display()
        ))),
    }
}

fn write_secrets_file(
    path: &Path,
    secrets: &std::collections::BTreeMap<String, String>,
) -> Result<(), ConfigError> {
    let io = |e: std::io::Error| {
        ConfigError::new(format!(
            "cannot write the secrets file {}: {e}",
            path.display()
        ))
    };
    // The serializer quotes what a bare key cannot hold: a target named "lab.dav" would
    // otherwise be read back as a table "lab" with a key "dav".
    #[derive(serde::Serialize)]
    struct File<'a> {
        secrets: &'a std::collections::BTreeMap<String, String>,
    }
    let body = toml::to_string(&File { secrets })
        .map_err(|e| ConfigError::new(format!("cannot encode the secrets: {e}")))?;
    let text = format!("# Lodge target secrets. Keep this file private (mode 0600).\n{body}");
    write_private(path, &text).map_err(io)
}

/// Write `text` to `path` atomically (a temporary file beside it, synced, then renamed
/// over it), readable by its owner alone (mode 0600 on Unix): for a file that holds a
/// secret (the secrets file; the window's settings, whose shared database URL may hold
/// its password).
pub(crate) fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(&tmp)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn the_secrets_file_is_private_and_round_trips() {
        use std::os::unix::fs::PermissionsExt;
        // SAFETY: tests in this module do not read the environment concurrently.
        unsafe { std::env::set_var("LODGE_NO_KEYRING", "1") };
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        let went = store_secret(&config, "dav", &Secret::new("s3cr\"et")).unwrap();
        assert_eq!(went, SecretStore::File(dir.path().join("secrets.toml")));
        let mode = std::fs::metadata(dir.path().join("secrets.toml"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let t = TargetConfig {
            url: "webdav+http://127.0.0.1:1/x".into(),
            user: Some("alice".into()),
            ..TargetConfig::default()
        };
        let c = resolve(&config, "dav", &t).unwrap().unwrap();
        assert_eq!(c.secret.expose(), "s3cr\"et");
        forget_secret(&config, "dav").unwrap();
        assert!(resolve(&config, "dav", &t).is_err());

        // A name with a dot (names may have one) is one key, beside the others.
        let secret_of = |name: &str| {
            let c = resolve(&config, name, &t).unwrap().unwrap();
            c.secret.expose().to_string()
        };
        store_secret(&config, "dav", &Secret::new("one")).unwrap();
        store_secret(&config, "lab.dav", &Secret::new("two")).unwrap();
        assert_eq!(secret_of("dav"), "one");
        assert_eq!(secret_of("lab.dav"), "two");
        forget_secret(&config, "lab.dav").unwrap();
        assert!(resolve(&config, "lab.dav", &t).is_err());
        assert_eq!(secret_of("dav"), "one");
    }
}
