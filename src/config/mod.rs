//! Named targets: the TOML config file in the platform config directory (`LODGE_CONFIG`
//! overrides its path), and what a front end needs to list, add, remove, open and test them.
//!
//! ```toml
//! [targets.lab-s3]
//! url = "s3://lab-data/deposits"
//! endpoint = "https://s3.example.org"
//! region = "eu-central-1"
//! user_env = "LAB_S3_ACCESS_KEY"     # or user = "AKIA..." (an id, not a secret)
//! secret_env = "LAB_S3_SECRET_KEY"   # else the OS keyring, else secrets.toml (mode 0600)
//!
//! [targets.group-dav]
//! url = "webdav+https://dav.example.org/remote.php/dav/files/alice/lodge"
//! user = "alice"
//! ```
//!
//! No secret is ever written to this file; see [`credentials`].

pub mod credentials;
mod open;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use open::{
    OpenedFor, TargetSummary, add_command, check_files_at_once,
    describe_credentials_without_secret, identity_of, missing_secret_in_window, no_such_target,
    open_target_for, open_target_spec, plain_address_problem, resolve, scope_id_of, test_named,
};

/// Why the configuration cannot be read, written or used; the message names the fix.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl ConfigError {
    pub fn new(message: impl Into<String>) -> ConfigError {
        ConfigError(message.into())
    }
}

/// One named target as written in the config file. A key it does not know is refused, not
/// ignored: a misspelt `endpoint` would send the lab's data to AWS.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetConfig {
    /// `s3://bucket/prefix`, `webdav+https://host/path`, `sandbox+http://host:port`,
    /// `zenodo+https://zenodo.org`, `invenio+https://host` or
    /// `datacite+https://api.datacite.org?prefix=…&repository=…`.
    pub url: String,
    /// S3: the endpoint (default AWS in `region`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// S3: the region (default us-east-1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// The user name (WebDAV) or access key id (S3) itself: an id, not a secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Or the environment variable that holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_env: Option<String>,
    /// The environment variable that holds the password or secret key; without it the secret
    /// comes from the OS keyring or the secrets file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_env: Option<String>,
    /// Allow plain `http://` to a host that is not loopback.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_insecure: bool,
    /// S3: files of at least this many bytes go by multipart upload (default 64 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipart_threshold: Option<u64>,
    /// S3: multipart part size in bytes (default 16 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_size: Option<u64>,
    /// S3, WebDAV, the sandbox: how many of a deposit's files go (and are read back by
    /// `verify`) at once, 1 to 32 (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_at_once: Option<usize>,
}

impl TargetConfig {
    /// A DataCite, Zenodo or InvenioRDM target: one token is its whole credential (Zenodo's
    /// and InvenioRDM's personal access token, a DataCite repository's password; the
    /// repository id is in the URL), so it has no user.
    pub fn takes_token(&self) -> bool {
        crate::targets::is_token_target_url(self.url.trim_start())
    }

    /// Whether the target has a secret to keep: a user's password or secret key, or a token.
    pub fn keeps_secret(&self) -> bool {
        self.user.is_some() || self.user_env.is_some() || self.takes_token()
    }
}

/// The whole config file.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub targets: BTreeMap<String, TargetConfig>,
    /// The entries that are not valid (a misspelt key, a number in quotes), by name: never
    /// opened, named when asked for, and kept in the file as written when it is saved.
    /// One lab member's typo does not take every other target away.
    #[serde(skip)]
    pub broken: BTreeMap<String, BrokenEntry>,
}

/// A target's entry in the config file that is not valid.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BrokenEntry {
    /// Its `url`, where that much is a string.
    pub url: Option<String>,
    /// What is wrong, where, and the fix.
    pub problem: String,
}

/// The config file as TOML tables, each target's entry not yet read: what is left to
/// stand on when one entry is not valid.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigTables {
    #[serde(default)]
    targets: BTreeMap<String, toml::Spanned<toml::Value>>,
}

/// The names the targets in the config file at `path` are saved under, by identity (the
/// first name, by name, where two name one place); empty when the file cannot be read.
pub fn saved_target_names(path: &Path) -> std::collections::HashMap<String, String> {
    let mut names = std::collections::HashMap::new();
    if let Ok(config) = Config::load(path) {
        for (name, spec) in &config.targets {
            if let Ok(scope) = scope_id_of(name, spec) {
                names.entry(scope).or_insert_with(|| name.clone());
            }
        }
    }
    names
}

/// `LODGE_CONFIG`, or `config.toml` in the platform config directory
/// (`~/.config/lodge/config.toml` on Linux).
pub fn config_path() -> PathBuf {
    if let Some(p) = std::env::var_os("LODGE_CONFIG") {
        return PathBuf::from(p);
    }
    directories::ProjectDirs::from("org", "lodge", "lodge")
        .map(|d| d.config_dir().join("config.toml"))
        .unwrap_or_else(|| PathBuf::from("lodge-config.toml"))
}

impl Config {
    /// Read the config file; a missing file is an empty config.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) => {
                return Err(ConfigError::new(format!(
                    "cannot read the config file {}: {e}",
                    path.display()
                )));
            }
        };
        let whole = match toml::from_str::<Config>(&text) {
            Ok(config) => return Ok(config),
            Err(e) => e,
        };
        // A file that parses up to its targets' entries keeps the entries that are valid.
        let Ok(tables) = toml::from_str::<ConfigTables>(&text) else {
            return Err(ConfigError::new(format!(
                "the config file {} is not valid: {}",
                path.display(),
                invalid_because(&text, whole.span(), whole.message())
            )));
        };
        let mut config = Config::default();
        for (name, entry) in tables.targets {
            let span = entry.span();
            let value = entry.into_inner();
            let url = value.get("url").and_then(|u| u.as_str()).map(String::from);
            match value.clone().try_into::<TargetConfig>() {
                Ok(t) => {
                    config.targets.insert(name, t);
                }
                Err(e) => {
                    let at = key_at_fault(&text, &name, &value, e.message()).unwrap_or(span);
                    let problem = format!(
                        "target '{name}' in the config file {} is not valid: {}",
                        path.display(),
                        invalid_because(&text, Some(at), e.message())
                    );
                    config.broken.insert(name, BrokenEntry { url, problem });
                }
            }
        }
        Ok(config)
    }

    /// The config at [`config_path`].
    pub fn load_default() -> Result<Config, ConfigError> {
        Config::load(&config_path())
    }

    /// Write the config file (atomically: a temporary file renamed over it).
    pub fn save(&self, path: &Path) -> Result<(), ConfigError> {
        let io = |e: std::io::Error| {
            ConfigError::new(format!(
                "cannot write the config file {}: {e}",
                path.display()
            ))
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let text = toml::to_string_pretty(self)
            .map_err(|e| ConfigError::new(format!("cannot encode the config: {e}")))?;
        // Written over the file as it is, so its comments and layout stay (a lab documents
        // its targets there), and so do the entries that are not valid, as written; a file
        // that does not parse is written anew.
        let text = match std::fs::read_to_string(path) {
            Ok(old) => keeping_layout(&old, &text, &self.broken).unwrap_or(text),
            Err(_) => text,
        };
        let tmp = path.with_extension("toml.tmp");
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    /// Add or replace a target after checking that it can be opened (URL, options, transport
    /// security); credentials are not needed for that.
    pub fn set_target(&mut self, name: &str, target: TargetConfig) -> Result<(), ConfigError> {
        check_name(name)?;
        if target.user.is_some() || target.user_env.is_some() || target.secret_env.is_some() {
            refuse_sandbox_credentials(name, &target.url)?;
        }
        if target.user.is_some() || target.user_env.is_some() {
            refuse_token_target_user(name, &target.url)?;
        }
        let scope = scope_id_of(name, &target)?;
        self.check_landing_from(name, &target)?;
        // Two names for one place would be one target's deposits under two names, each
        // with its own credentials; the window would leave the second out of its picker.
        if let Some(other) = self.targets.iter().find_map(|(other, spec)| {
            (other != name && scope_id_of(other, spec).is_ok_and(|s| s == scope)).then_some(other)
        }) {
            return Err(ConfigError::new(format!(
                "target '{name}' would be the same place as '{other}' ({scope}): one place \
                 takes one name; change '{other}' instead, or remove it first"
            )));
        }
        // Written anew, an entry that was not valid is replaced.
        self.broken.remove(name);
        self.targets.insert(name.to_string(), target);
        Ok(())
    }

    /// A DataCite target's `landing_from=` names a saved target or gives a URL: a name that
    /// is neither would refuse every deposit, found out only then.
    fn check_landing_from(&self, name: &str, target: &TargetConfig) -> Result<(), ConfigError> {
        let url = crate::targets::with_lowercase_scheme(target.url.trim_start());
        let Some(rest) = url.strip_prefix("datacite+") else {
            return Ok(());
        };
        let Ok(datacite) = crate::targets::datacite::DataCiteTarget::new(rest, None) else {
            return Ok(());
        };
        let Some(from) = datacite.landing_from() else {
            return Ok(());
        };
        if from.contains("://") || (self.targets.contains_key(from) && from != name) {
            return Ok(());
        }
        Err(ConfigError::new(format!(
            "target '{name}': landing_from={from} is neither a saved target's name nor a \
             URL; {}: give one of those, or the URL of the target whose records are the \
             landing pages",
            no_such_target(self, from)
        )))
    }

    /// The identity of the place the target `name` stands for now, if it can be worked out;
    /// for an entry that is not valid, its URL's alone (a secret stored for it is then
    /// dropped, not sent to another place, when it is written anew with other settings).
    pub fn place_of(&self, name: &str) -> Option<String> {
        match (self.targets.get(name), self.broken.get(name)) {
            (Some(t), _) => scope_id_of(name, t).ok(),
            (None, Some(broken)) => {
                let url = broken.url.clone()?;
                scope_id_of(
                    name,
                    &TargetConfig {
                        url,
                        ..TargetConfig::default()
                    },
                )
                .ok()
            }
            (None, None) => None,
        }
    }

    /// Remove a target, valid or not; true if it was there.
    pub fn remove_target(&mut self, name: &str) -> bool {
        let broken = self.broken.remove(name).is_some();
        self.targets.remove(name).is_some() || broken
    }
}

/// Where in `text` the key of target `name`'s entry (`entry`) that `message` is about is
/// written: the one it names (an unknown field), or the one whose value alone is refused
/// (a number in quotes). `None` for a problem of the entry as a whole (a missing field).
fn key_at_fault(
    text: &str,
    name: &str,
    entry: &toml::Value,
    message: &str,
) -> Option<std::ops::Range<usize>> {
    let named = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split('`').next());
    let key = match named {
        Some(key) => key.to_string(),
        None => entry.as_table()?.iter().find_map(|(key, value)| {
            let mut alone = toml::Table::new();
            alone.insert("url".into(), toml::Value::String(String::new()));
            alone.insert(key.clone(), value.clone());
            toml::Value::Table(alone)
                .try_into::<TargetConfig>()
                .is_err()
                .then(|| key.clone())
        })?,
    };
    let doc = toml_edit::Document::parse(text).ok()?;
    let entry = doc.get("targets")?.get(name)?.as_table_like()?;
    entry.get_key_value(&key)?.0.span()
}

/// Why TOML `text` is not a valid config, `message` as the parser said it at `span`: the
/// line, the message and the fix. The line's text is not quoted: a password written into
/// the file by mistake is not to be printed.
fn invalid_because(text: &str, span: Option<std::ops::Range<usize>>, message: &str) -> String {
    let line = span
        .and_then(|s| text.get(..s.start))
        .map(|before| format!("line {}: ", before.matches('\n').count() + 1))
        .unwrap_or_default();
    let secret_here = ["password", "secret", "token", "key"]
        .iter()
        .any(|word| message.starts_with(&format!("unknown field `{word}")));
    let advice = if secret_here {
        "; no secret goes in this file: `lodge target add NAME URL --secret-stdin` keeps one \
         in the keyring (or the private secrets.toml), or `secret_env` names the environment \
         variable that holds it"
    } else {
        ""
    };
    // A field the file should not have (or lacks) is an entry's; anything else is the
    // file's own syntax (a bracket or a quote missing).
    let fix = match [
        "unknown field",
        "missing field",
        "invalid type",
        "invalid value",
    ]
    .iter()
    .any(|entry| message.starts_with(entry))
    {
        true => "fix or remove the entry",
        false => "fix the file there",
    };
    format!("{line}{}{advice}; {fix}", message.trim_end())
}

/// `fresh` (the config as Lodge writes it) laid over `old` (the file as it is): the
/// targets' tables and settings of `old` that `fresh` still has keep their place and the
/// comments around them; the rest is removed or added, but for the entries `broken` names,
/// kept as they are. `None` when either does not parse.
fn keeping_layout(
    old: &str,
    fresh: &str,
    broken: &BTreeMap<String, BrokenEntry>,
) -> Option<String> {
    use toml_edit::{DocumentMut, Item, Table};
    let mut doc: DocumentMut = old.parse().ok()?;
    let fresh: DocumentMut = fresh.parse().ok()?;
    let empty = Table::new();
    let wanted = fresh
        .get("targets")
        .and_then(Item::as_table)
        .unwrap_or(&empty);
    let targets = doc
        .entry("targets")
        .or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        })
        .as_table_mut()?;
    targets.retain(|name, _| wanted.contains_key(name) || broken.contains_key(name));
    for (name, settings) in wanted.iter() {
        let Some(settings) = settings.as_table() else {
            continue;
        };
        match targets.get_mut(name).and_then(Item::as_table_mut) {
            Some(kept) => {
                kept.retain(|key, _| settings.contains_key(key));
                for (key, value) in settings.iter() {
                    match kept.get_mut(key).and_then(Item::as_value_mut) {
                        // A changed value keeps the comments around it.
                        Some(item) => {
                            if let Some(value) = value.as_value() {
                                let decor = item.decor().clone();
                                *item = value.clone();
                                *item.decor_mut() = decor;
                            }
                        }
                        None => {
                            kept.insert(key, value.clone());
                        }
                    }
                }
            }
            None => {
                targets.insert(name, Item::Table(settings.clone()));
            }
        }
    }
    Some(doc.to_string())
}

/// A sandbox target keeps no user or secret: its bearer token (`lodge sandbox --token`)
/// goes with each run, so a stored one would only be ignored.
pub fn refuse_sandbox_credentials(name: &str, url: &str) -> Result<(), ConfigError> {
    if crate::targets::with_lowercase_scheme(url.trim_start()).starts_with("sandbox+") {
        return Err(ConfigError::new(format!(
            "target '{name}': a sandbox keeps no user or secret (one started with --token \
             takes its token with each deposit: --token T or LODGE_TOKEN); leave out the user \
             and the secret"
        )));
    }
    Ok(())
}

/// A DataCite, Zenodo or InvenioRDM target keeps a token and no user: a user set beside it
/// would only be ignored (DataCite's repository id goes in the URL).
pub fn refuse_token_target_user(name: &str, url: &str) -> Result<(), ConfigError> {
    let url = crate::targets::with_lowercase_scheme(url.trim_start());
    if !crate::targets::is_token_target_url(&url) {
        return Ok(());
    }
    let repository = if url.starts_with("datacite+") {
        "the repository id goes in the URL (&repository=ORG.REPO) and its password is the token"
    } else {
        "a personal access token is its one credential"
    };
    Err(ConfigError::new(format!(
        "target '{name}': a DataCite, Zenodo or InvenioRDM target has no user ({repository}): \
         leave out the user and give the token alone"
    )))
}

/// Target names: letters, digits, `-`, `_`, `.`; they must not look like URLs.
pub fn check_name(name: &str) -> Result<(), ConfigError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else if name.is_empty() {
        Err(ConfigError::new(
            "the target needs a name: up to 64 letters, digits, '-', '_' or '.' (e.g. lab-s3)",
        ))
    } else {
        Err(ConfigError::new(format!(
            "'{name}' is not a target name: use up to 64 letters, digits, '-', '_' or '.'"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_name_left_empty_is_asked_for_and_a_bad_one_is_quoted() {
        let empty = check_name("").unwrap_err().to_string();
        assert!(empty.starts_with("the target needs a name: "), "{empty}");
        assert!(!empty.contains("''"), "{empty}");
        let bad = check_name("lab s3").unwrap_err().to_string();
        assert!(bad.starts_with("'lab s3' is not a target name: "), "{bad}");
        assert!(check_name("lab-s3").is_ok());
    }

    #[test]
    fn a_file_that_is_not_toml_is_fixed_there_and_a_wrong_entry_fixed_or_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "[targets.lab\nurl = \"s3://b/p\"\n").unwrap();
        let said = Config::load(&path).unwrap_err().to_string();
        assert!(said.contains("is not valid: line 1: "), "{said}");
        assert!(said.ends_with("; fix the file there"), "{said}");
        std::fs::write(&path, "[target.lab]\nurl = \"s3://b/p\"\n").unwrap();
        let said = Config::load(&path).unwrap_err().to_string();
        assert!(said.contains("line 1: unknown field `target`"), "{said}");
        assert!(said.ends_with("; fix or remove the entry"), "{said}");
        std::fs::write(&path, "[targets.lab]\nurl = \"s3://b/p\"\ncolour = 1\n").unwrap();
        let config = Config::load(&path).unwrap();
        let said = &config.broken["lab"].problem;
        assert!(
            said.starts_with(&format!(
                "target 'lab' in the config file {} is not valid: line 3: unknown field `colour`",
                path.display()
            )),
            "{said}"
        );
        assert!(said.ends_with("; fix or remove the entry"), "{said}");
    }

    /// One entry not valid leaves the others to use; asked for by name it is refused with
    /// its problem, and a name not saved lists it as not used.
    #[test]
    fn an_entry_not_valid_is_set_aside_and_named_when_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let text = "[targets.a]\nurl = \"s3://b/p\"\n\n[targets.lab]\nurl = \"s3://b/q\"\n\
                    part_size = \"16M\"\n\n[targets.z]\nfiles_at_once = 2\n";
        std::fs::write(&path, text).unwrap();
        let config = Config::load(&path).unwrap();
        assert_eq!(config.targets.keys().collect::<Vec<_>>(), ["a"]);
        let lab = &config.broken["lab"];
        assert_eq!(lab.url.as_deref(), Some("s3://b/q"));
        assert!(
            lab.problem.contains("line 6: invalid type: string \"16M\""),
            "{lab:?}"
        );
        // A field missing is the entry's, said at its header.
        let z = &config.broken["z"].problem;
        assert!(z.contains("line 8: missing field `url`"), "{z}");
        let refused = open::resolve(&config, "lab").unwrap_err().to_string();
        assert_eq!(refused, lab.problem);
        let unknown = open::resolve(&config, "lob").unwrap_err().to_string();
        assert!(
            unknown.contains("(known: a; not valid, so not used: lab, z)"),
            "{unknown}"
        );
    }

    /// Saving keeps an entry not valid as it is written (a lab's config is written by
    /// hand too) until it is written anew or removed.
    #[test]
    fn saving_keeps_an_entry_not_valid_as_written_until_replaced_or_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let broken = "[targets.lab]\n# the lab's bucket\nurl = \"s3://b/q\"\nregion = 4\n";
        std::fs::write(&path, broken).unwrap();
        let mut config = Config::load(&path).unwrap();
        let s3 = |url: &str| TargetConfig {
            url: url.into(),
            ..TargetConfig::default()
        };
        config.set_target("a", s3("s3://lab-b/p")).unwrap();
        config.save(&path).unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        assert!(written.starts_with(broken), "{written}");
        assert!(Config::load(&path).unwrap().broken.contains_key("lab"));

        config.set_target("lab", s3("s3://lab-b/q")).unwrap();
        config.save(&path).unwrap();
        let written = Config::load(&path).unwrap();
        assert!(written.broken.is_empty(), "{written:?}");
        assert_eq!(written.targets["lab"], s3("s3://lab-b/q"));
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .contains("# the lab's bucket")
        );

        std::fs::write(&path, broken).unwrap();
        let mut config = Config::load(&path).unwrap();
        assert!(config.remove_target("lab"));
        config.save(&path).unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        assert!(!written.contains("lab"), "{written}");
    }

    #[test]
    fn saving_keeps_the_files_comments_and_the_order_of_what_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "# Lab targets: ask Ana before changing the bucket.\n\
             [targets.lab-s3]\n\
             url = \"s3://lab-data/p\"\n\
             # MinIO in room 2\n\
             endpoint = \"http://127.0.0.1:9000\"   # not AWS\n\
             \n\
             # Retired in May.\n\
             [targets.old-dav]\n\
             url = \"webdav+https://dav.example.org/lab\"\n",
        )
        .unwrap();
        let mut c = Config::load(&path).unwrap();
        assert!(c.remove_target("old-dav"));
        let mut s3 = c.targets["lab-s3"].clone();
        s3.region = Some("eu-west-1".into());
        c.set_target("lab-s3", s3).unwrap();
        c.set_target(
            "box",
            TargetConfig {
                url: "sandbox+http://127.0.0.1:8470".into(),
                ..TargetConfig::default()
            },
        )
        .unwrap();
        c.save(&path).unwrap();

        let text = std::fs::read_to_string(&path).unwrap();
        for kept in [
            "# Lab targets: ask Ana before changing the bucket.",
            "# MinIO in room 2\nendpoint = \"http://127.0.0.1:9000\"   # not AWS",
        ] {
            assert!(text.contains(kept), "{text}");
        }
        assert!(
            !text.contains("old-dav") && !text.contains("Retired"),
            "{text}"
        );
        assert!(text.contains("region = \"eu-west-1\""), "{text}");
        assert_eq!(Config::load(&path).unwrap(), c, "{text}");
    }

    #[test]
    fn a_second_name_for_a_saved_targets_place_is_refused_naming_the_first() {
        let s3 = |endpoint: &str| TargetConfig {
            url: "s3://lab-data/p".into(),
            endpoint: Some(endpoint.into()),
            ..TargetConfig::default()
        };
        let mut c = Config::default();
        c.set_target("labs3", s3("http://127.0.0.1:9000")).unwrap();
        let e = c
            .set_target("typo", s3("http://127.0.0.1:9000"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("target 'typo' would be the same place as 'labs3'")
                && e.contains("change 'labs3' instead, or remove it first"),
            "{e}"
        );
        assert!(!c.targets.contains_key("typo"), "nothing saved");
        // The same name changed, and a second name once the first has moved, are saved.
        c.set_target("labs3", s3("http://127.0.0.1:9000")).unwrap();
        c.set_target("labs3", s3("http://127.0.0.1:9001")).unwrap();
        c.set_target("typo", s3("http://127.0.0.1:9000")).unwrap();
    }

    #[test]
    fn config_round_trips_through_toml() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c/config.toml");
        let mut c = Config::default();
        c.set_target(
            "lab-s3",
            TargetConfig {
                url: "s3://lab-data/p".into(),
                endpoint: Some("http://127.0.0.1:9000".into()),
                user_env: Some("AK".into()),
                secret_env: Some("SK".into()),
                ..TargetConfig::default()
            },
        )
        .unwrap();
        c.save(&path).unwrap();
        assert_eq!(Config::load(&path).unwrap(), c);
        assert!(c.set_target("bad name", TargetConfig::default()).is_err());
    }

    #[test]
    fn a_datacite_targets_landing_from_is_a_saved_targets_name_or_a_url() {
        let mut c = Config::default();
        let dois = |from: &str| TargetConfig {
            url: format!(
                "datacite+https://api.test.datacite.org?prefix=10.1234&repository=ORG.REPO\
                 &state=publish&landing_from={from}"
            ),
            ..TargetConfig::default()
        };
        let refused = c.set_target("dois", dois("lab")).unwrap_err().to_string();
        assert!(
            refused.starts_with(
                "target 'dois': landing_from=lab is neither a saved target's name nor a URL; \
                 there is no target named 'lab'"
            ),
            "{refused}"
        );
        assert!(c.targets.is_empty(), "nothing saved");
        c.set_target("dois", dois("sandbox+http://127.0.0.1:8080"))
            .unwrap();
        c.set_target(
            "lab",
            TargetConfig {
                url: "sandbox+http://127.0.0.1:8080".into(),
                ..TargetConfig::default()
            },
        )
        .unwrap();
        c.set_target("dois", dois("lab")).unwrap();
        // Not itself: its own records have no landing pages to give.
        assert!(c.set_target("lab2", dois("lab2")).is_err());
    }

    #[test]
    fn plain_http_to_a_remote_host_is_refused_unless_allowed() {
        let mut c = Config::default();
        let mut t = TargetConfig {
            url: "webdav+http://dav.example.org/x".into(),
            ..TargetConfig::default()
        };
        let e = c.set_target("dav", t.clone()).unwrap_err().to_string();
        assert!(e.contains("allow_insecure"), "{e}");
        t.allow_insecure = true;
        c.set_target("dav", t).unwrap();
    }
}
