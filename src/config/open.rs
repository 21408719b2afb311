//! From a target name or URL to an open [`Target`]: look the name up in the config, resolve
//! its credentials, check transport security, and build the S3, WebDAV, sandbox, DataCite or
//! InvenioRDM/Zenodo client.

use std::path::Path;
use std::sync::Arc;

use reqwest::Url;

use super::{Config, ConfigError, TargetConfig, credentials};
use crate::targets::Target;
use crate::targets::each_file::FilesAtOnce;
use crate::targets::http::check_transport;
use crate::targets::probe::ProbeReport;
use crate::targets::s3::{S3Location, S3Options, S3Target};
use crate::targets::secret::CredentialsFix;
use crate::targets::webdav::WebDavTarget;

/// A target as a front end lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetSummary {
    pub name: String,
    pub url: String,
    /// `s3`, `webdav`, `sandbox`, `datacite`, `zenodo` or `invenio`.
    pub kind: String,
    /// The identity deposits are recorded under (no credentials in it).
    pub scope_id: String,
    /// Where its secret comes from, in words (never the secret).
    pub credentials: String,
    /// Its other settings, in words (`region eu-west-1; endpoint http://...`); empty with
    /// none.
    pub settings: String,
}

impl Config {
    /// Every configured target, by name.
    pub fn summaries(&self) -> Vec<TargetSummary> {
        self.targets
            .iter()
            .map(|(name, t)| TargetSummary {
                name: name.clone(),
                url: t.url.clone(),
                kind: t.url.split(['+', ':']).next().unwrap_or("").to_string(),
                scope_id: scope_id_of(name, t).unwrap_or_else(|e| format!("(invalid: {e})")),
                credentials: describe_credentials(t),
                settings: describe_settings(t),
            })
            .collect()
    }
}

/// The settings of `t` besides its URL and credentials, as `target add` takes them.
fn describe_settings(t: &TargetConfig) -> String {
    let mut said = Vec::new();
    if let Some(endpoint) = &t.endpoint {
        said.push(format!("endpoint {endpoint}"));
    }
    if let Some(region) = &t.region {
        said.push(format!("region {region}"));
    }
    if let Some(bytes) = t.multipart_threshold {
        said.push(format!(
            "multipart from {}",
            crate::wording::human_bytes(bytes)
        ));
    }
    if let Some(bytes) = t.part_size {
        said.push(format!("parts of {}", crate::wording::human_bytes(bytes)));
    }
    if let Some(n) = t.files_at_once {
        said.push(crate::wording::count_of(
            n as u64,
            "file at once",
            "files at once",
        ));
    }
    if t.allow_insecure {
        said.push("plain http allowed".into());
    }
    said.join("; ")
}

fn describe_credentials(t: &TargetConfig) -> String {
    if t.takes_token() {
        return match &t.secret_env {
            Some(v) => format!("token from {}", env_var(v)),
            None => "token from the keyring or secrets file".into(),
        };
    }
    let Some(user) = describe_user(t) else {
        // A secret without its user (an S3 secret key without the access key id) is of no
        // use alone: said, not "none".
        return match &t.secret_env {
            Some(v) => format!(
                "secret from {}, but no user or access key id (--user)",
                env_var(v)
            ),
            None => "none".into(),
        };
    };
    let secret = match &t.secret_env {
        Some(v) => format!("secret from {}", env_var(v)),
        None => "secret from the keyring or secrets file".into(),
    };
    format!("{user}, {secret}")
}

/// An environment variable a target's credentials come from, as `$NAME`; a setting that is
/// no variable's name (a config edited by hand with the secret itself pasted in, or
/// `$LAB_SECRET`) is not shown, in case it is the secret: opening the target says what to fix.
fn env_var(setting: &str) -> String {
    match is_variable_name(setting) {
        true => format!("${setting}"),
        false => "a setting that is no environment variable's name (not shown, in case it is \
                  the secret itself)"
            .into(),
    }
}

/// The credentials of a target whose secret should be stored but is not, in words.
pub fn describe_credentials_without_secret(t: &TargetConfig) -> String {
    if t.takes_token() {
        return "no token stored yet".into();
    }
    let user = describe_user(t).unwrap_or_else(|| "no user".into());
    format!("{user}, no secret stored yet")
}

fn describe_user(t: &TargetConfig) -> Option<String> {
    match (&t.user, &t.user_env) {
        (Some(u), _) => Some(format!("user {u}")),
        (None, Some(v)) => Some(format!("user from {}", env_var(v))),
        (None, None) => None,
    }
}

/// A name from the config, or a URL used as it is: its name and configuration.
pub fn resolve(config: &Config, name_or_url: &str) -> Result<(String, TargetConfig), ConfigError> {
    if let Some(t) = config.targets.get(name_or_url) {
        return Ok((name_or_url.to_string(), t.clone()));
    }
    if let Some(broken) = config.broken.get(name_or_url) {
        return Err(ConfigError::new(broken.problem.clone()));
    }
    if name_or_url.contains("://") {
        if let Some((shown, why)) = crate::targets::http::credentials_in_url(name_or_url) {
            return Err(ConfigError::new(format!("target '{shown}': {why}")));
        }
        let url = crate::targets::with_lowercase_scheme(name_or_url).into_owned();
        return Ok((
            url.clone(),
            TargetConfig {
                url,
                ..TargetConfig::default()
            },
        ));
    }
    Err(ConfigError::new(format!(
        "{}: {}",
        no_such_target(config, name_or_url),
        how_to_name(name_or_url)
    )))
}

/// What to give instead of a name that is not saved: a repository's kind typed as a name
/// (`zenodo`) gets that kind's URL, to save under a name with its token or to give with a
/// token for the run; any other name, `lodge target add` or the URL forms.
fn how_to_name(name: &str) -> String {
    let by_url = |example: &str, also: &str| {
        let word = quoted(example);
        format!(
            "save it with its token, `lodge target add {name} {word} --secret-stdin`{also}, \
             or give its URL with the token in --token or LODGE_TOKEN, `--target {word}`"
        )
    };
    match name.to_ascii_lowercase().as_str() {
        "zenodo" => by_url(
            "zenodo+https://zenodo.org",
            " (zenodo+https://sandbox.zenodo.org to try it)",
        ),
        "invenio" | "inveniordm" => by_url("invenio+https://HOST", ""),
        "datacite" => by_url(
            "datacite+https://api.datacite.org?prefix=10.XXXXX&repository=ORG.REPO",
            "",
        ),
        "sandbox" => "add it with `lodge target add sandbox URL`, or give its URL, e.g. \
             `--target sandbox+http://127.0.0.1:8080` for a `lodge sandbox --addr 127.0.0.1:8080`"
            .to_string(),
        _ => format!(
            "add it with `lodge target add {name} URL`, or give a URL: sandbox+http://HOST:PORT, \
             s3://BUCKET/PREFIX, webdav+https://HOST/PATH, zenodo+https://zenodo.org, \
             invenio+https://HOST or datacite+https://api.datacite.org?prefix=…&repository=…"
        ),
    }
}

/// `there is no target named 'lob' (did you mean 'lab'? known: lab, s3)`.
pub fn no_such_target(config: &Config, name: &str) -> String {
    let known: Vec<&str> = config.targets.keys().map(String::as_str).collect();
    let meant = crate::wording::closest(name, known.iter().copied(), 0.6)
        .map(|m| format!("did you mean '{m}'? "))
        .unwrap_or_default();
    // The entries not valid are named too: the one meant may be among them.
    let not_valid = match config.broken.keys().map(String::as_str).collect::<Vec<_>>() {
        names if names.is_empty() => String::new(),
        names => format!("; not valid, so not used: {}", names.join(", ")),
    };
    format!(
        "there is no target named '{name}' ({meant}known: {}{not_valid})",
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    )
}

/// The identity of a configured target, without its credentials.
pub fn scope_id_of(name: &str, t: &TargetConfig) -> Result<String, ConfigError> {
    identity_of(name, t).map(|(scope, _)| scope)
}

/// The identity of a configured target and, when it keeps a folder per dataset, where those
/// folders are ([`crate::targets::Target::datasets_base`]); no credentials needed.
pub fn identity_of(name: &str, t: &TargetConfig) -> Result<(String, Option<String>), ConfigError> {
    open_with(name, t, None, None, None)
        .map(|target| (target.scope_id().to_string(), target.datasets_base()))
}

/// Who opens a target: what its messages tell a person to do when the server refuses the
/// credentials it has stored depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenedFor {
    /// Run the `lodge target add` that saves them again.
    CommandLine,
    /// Edit the target in Settings.
    Window,
}

/// Open a target from its configuration for the command line; `token` is the sandbox's
/// bearer token (a saved DataCite, Zenodo or InvenioRDM target uses its own stored token).
pub fn open_target_spec(
    config_path: &Path,
    name: &str,
    t: &TargetConfig,
    token: Option<String>,
) -> Result<Arc<dyn Target>, ConfigError> {
    open_target_for(config_path, name, t, token, OpenedFor::CommandLine)
}

/// Open a target from its configuration, for the command line or for the window.
pub fn open_target_for(
    config_path: &Path,
    name: &str,
    t: &TargetConfig,
    token: Option<String>,
    opened_for: OpenedFor,
) -> Result<Arc<dyn Target>, ConfigError> {
    // A setting the target cannot open with (a hand-edited bucket name, say) is said before
    // a missing secret: the command that stores the secret would be refused for it.
    let settings_first = |missing: ConfigError| settings_problem(name, t).unwrap_or(missing);
    if t.takes_token() {
        // Its own token, never the run's: `LODGE_TOKEN` set for a sandbox must not be sent
        // to Zenodo.
        let token = credentials::resolve_token(config_path, name, t).map_err(settings_first)?;
        return open_with(
            name,
            t,
            None,
            Some(token.expose().to_string()),
            Some(opened_for),
        );
    }
    let creds = credentials::resolve(config_path, name, t).map_err(settings_first)?;
    open_with(name, t, creds, token, Some(opened_for))
}

/// Why target `name` cannot be opened as it is configured, its credentials aside (a URL,
/// bucket or setting it refuses), if it cannot.
fn settings_problem(name: &str, t: &TargetConfig) -> Option<ConfigError> {
    open_with(name, t, None, None, None).err()
}

/// What the window says of target `name`, saved without its secret: a setting it cannot
/// open with first (the secret, typed in, would only meet that refusal), else where in
/// Settings the secret is typed.
pub fn missing_secret_in_window(name: &str, t: &TargetConfig) -> ConfigError {
    settings_problem(name, t)
        .unwrap_or_else(|| ConfigError::new(credentials::missing_secret_in_window(name, t)))
}

/// The `lodge target add` that saves target `name` as `t` is, with `credentials` added:
/// what a message tells a person to run, keeping the target's other settings (`target add`
/// replaces the whole entry). A target given by URL, not saved, is named NAME.
pub fn add_command(name: &str, t: &TargetConfig, credentials: &str) -> String {
    let name = if super::check_name(name).is_ok() && !name.contains("://") {
        name
    } else {
        "NAME"
    };
    // Quoted as a shell needs them, so the command runs as printed.
    let mut words = vec![format!("lodge target add {name} {}", quoted(&t.url))];
    let settings = [
        ("--endpoint", t.endpoint.clone()),
        ("--region", t.region.clone()),
        (
            "--multipart-threshold",
            t.multipart_threshold.map(|n| n.to_string()),
        ),
        ("--part-size", t.part_size.map(|n| n.to_string())),
        ("--files-at-once", t.files_at_once.map(|n| n.to_string())),
    ];
    for (flag, value) in settings {
        if let Some(value) = value {
            words.push(format!("{flag} {}", quoted(&value)));
        }
    }
    if t.allow_insecure {
        words.push("--allow-insecure".into());
    }
    if !credentials.is_empty() {
        words.push(credentials.to_string());
    }
    words.join(" ")
}

/// `v` as one word of a shell command (quoted where it needs to be), so a command that
/// Lodge suggests runs as printed.
pub(super) fn quoted(v: &str) -> String {
    shlex::try_quote(v).map_or_else(|_| v.to_string(), |q| q.into_owned())
}

/// An environment variable's name as a shell writes it: `[A-Za-z_][A-Za-z0-9_]*`.
fn is_variable_name(var: &str) -> bool {
    let mut chars = var.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// S3's limits for a part (5 MiB to 5 GiB, the last one aside): settings outside them
/// would be refused by the server on the first large file, with an error naming neither.
fn check_multipart(t: &TargetConfig) -> Result<(), String> {
    const MIN: u64 = 5 << 20;
    const MAX: u64 = 5 << 30;
    if let Some(part) = t.part_size
        && !(MIN..=MAX).contains(&part)
    {
        return Err(format!(
            "part_size (--part-size) is {part} bytes: S3 takes parts of 5 MiB ({MIN} bytes) \
             to 5 GiB ({MAX} bytes)"
        ));
    }
    if let Some(threshold) = t.multipart_threshold
        && threshold < MIN
    {
        return Err(format!(
            "multipart_threshold (--multipart-threshold) is {threshold} bytes: it must be at \
             least 5 MiB ({MIN} bytes), S3's smallest part; smaller files go in one PUT"
        ));
    }
    Ok(())
}

/// The target's `files_at_once`, refused when out of range or set on a target that sends no
/// files a few at a time.
fn files_at_once(url: &str, t: &TargetConfig) -> Result<FilesAtOnce, String> {
    match t.files_at_once {
        None => Ok(FilesAtOnce::DEFAULT),
        Some(n) => check_files_at_once(url, n)
            .map_err(|why| format!("files_at_once (--files-at-once) {why}")),
    }
}

/// `n` files at once as a setting of the target at `url`, or why it cannot be one, worded to
/// follow the setting's name: out of range, or a target whose files go one at a time by
/// design (InvenioRDM, Zenodo) or that keeps none (DataCite).
pub fn check_files_at_once(url: &str, n: usize) -> Result<FilesAtOnce, String> {
    let url = crate::targets::with_lowercase_scheme(url.trim());
    if crate::targets::is_token_target_url(&url) {
        return Err(
            "is for the targets that keep each file apart (S3, WebDAV, the sandbox): \
             InvenioRDM and Zenodo are sent a draft's files one at a time, under their rate \
             limit, and DataCite keeps no files; leave it out"
                .into(),
        );
    }
    FilesAtOnce::new(n)
}

fn open_with(
    name: &str,
    t: &TargetConfig,
    creds: Option<crate::targets::secret::UserSecret>,
    token: Option<String>,
    // `None`: opened for its identity alone, with no credentials.
    opened_for: Option<OpenedFor>,
) -> Result<Arc<dyn Target>, ConfigError> {
    let for_identity = opened_for.is_none();
    // Where refused credentials are put right: `command` is the `lodge target add` that
    // saves them again.
    let fix = |command: String| match opened_for {
        Some(OpenedFor::Window) => CredentialsFix::Settings,
        _ => CredentialsFix::Command(command),
    };
    let err = |m: String| ConfigError::new(format!("target '{name}': {m}"));
    let url = &*crate::targets::with_lowercase_scheme(&t.url);
    // A config file written by hand (or before this check) may hold one.
    if let Some((_, why)) = crate::targets::http::credentials_in_url(url) {
        return Err(err(why));
    }
    if let Some(endpoint) = t.endpoint.as_deref()
        && let Some((_, why)) = crate::targets::http::credentials_in_url(endpoint)
    {
        return Err(err(format!("its endpoint is refused: {why}")));
    }
    for (setting, var) in [
        ("user_env (--access-key-env)", &t.user_env),
        ("secret_env (--secret-env)", &t.secret_env),
    ] {
        if let Some(var) = var
            && !is_variable_name(var)
        {
            // Not shown: `--secret-env $LAB_SECRET` hands over the secret itself.
            return Err(err(format!(
                "{setting} takes the name of an environment variable (letters, digits and \
                 '_', not starting with a digit), and what was given is not one; it is not \
                 shown here in case it is the secret itself. Give the variable's name: \
                 `--secret-env LAB_SECRET`, not `--secret-env $LAB_SECRET`"
            )));
        }
    }
    let files_at_once = files_at_once(url, t).map_err(err)?;
    if url.starts_with("s3://") {
        check_multipart(t).map_err(err)?;
        let location =
            S3Location::parse(url, t.endpoint.as_deref(), t.region.as_deref()).map_err(err)?;
        check_transport(&location.endpoint, t.allow_insecure).map_err(err)?;
        let creds = match creds {
            Some(c) => c,
            None if for_identity => crate::targets::secret::UserSecret {
                user: String::new(),
                secret: crate::targets::secret::Secret::new(""),
            },
            None => {
                let add = add_command(name, t, "--access-key-env VAR --secret-env VAR");
                return Err(err(format!(
                    "S3 needs an access key and secret: `{add}` (or --secret-stdin)"
                )));
            }
        };
        let defaults = S3Options::default();
        let options = S3Options {
            multipart_threshold: t
                .multipart_threshold
                .unwrap_or(defaults.multipart_threshold),
            part_size: t.part_size.unwrap_or(defaults.part_size),
            files_at_once,
            ..defaults
        };
        // Where a wrong region is put right: the `lodge target add` that keeps everything
        // else, its REGION filled in by the message that knows it.
        let region_fix = fix(credentials::resave_command(
            name,
            &TargetConfig {
                region: Some(crate::targets::s3::REGION_PLACEHOLDER.into()),
                ..t.clone()
            },
        ));
        return Ok(Arc::new(
            S3Target::new(name, location, creds, options)
                .map_err(err)?
                .region_set_by(region_fix)
                .credentials_stored_by(fix(credentials::add_secret_command(
                    name,
                    t,
                    match &t.secret_env {
                        Some(var) => format!("--secret-env {var}"),
                        None => "--secret-stdin".into(),
                    }
                    .as_str(),
                )))
                .secret_from_env(t.secret_env.clone())
                // As `credentials::resolve` reads it: a user given outright wins.
                .access_key_from_env(t.user_env.clone().filter(|_| t.user.is_none())),
        ));
    }
    if let Some(rest) = url.strip_prefix("webdav+") {
        let parsed = Url::parse(rest).map_err(|e| err(format!("'{url}': {e}")))?;
        let transport = check_transport(&parsed, t.allow_insecure);
        // A fragment names no folder: the deposits would go to the folder before it,
        // without a word. The query is the layout's (`?layout=folders`), the target's own
        // check below refuses any other.
        if parsed.fragment().is_some() {
            return Err(err(format!(
                "'{url}' has a '#' part, which names no WebDAV folder and would be dropped: \
                 give the folder's URL alone, and write a '#' in a folder's name as %23"
            )));
        }
        // Both problems at once, when it has both: one fix does not reveal the next.
        let target = match (transport, WebDavTarget::new(name, rest, creds)) {
            (Ok(()), Ok(target)) => target,
            (Err(insecure), Ok(_)) => return Err(err(insecure)),
            (Ok(()), Err(e)) => return Err(err(e)),
            (Err(insecure), Err(e)) => return Err(err(format!("{e}; and {insecure}"))),
        }
        .with_files_at_once(files_at_once)
        .credentials_stored_by(fix(credentials::add_secret_command(
            name,
            t,
            "--secret-stdin",
        )));
        return Ok(Arc::new(target.secret_from_env(t.secret_env.clone())));
    }
    if let Some(rest) = url.strip_prefix("sandbox+") {
        let parsed = Url::parse(rest).map_err(|e| err(format!("'{url}': {e}")))?;
        check_transport(&parsed, t.allow_insecure).map_err(err)?;
        let target = crate::targets::sandbox::SandboxTarget::new(rest, token)
            .map_err(|reason| err(format!("'{url}' is not a target URL: {reason}")))?
            .with_files_at_once(files_at_once);
        // Given by URL, it has no name but its URL.
        return Ok(if name == url {
            Arc::new(target)
        } else {
            Arc::new(target.named(name))
        });
    }
    if crate::targets::is_token_target_url(url) {
        let opened: Result<Arc<dyn Target>, String> = match url.split_once('+') {
            Some(("datacite", rest)) => {
                crate::targets::datacite::DataCiteTarget::new(rest, token).map(|t| Arc::new(t) as _)
            }
            Some((kind, rest)) => crate::targets::invenio::InvenioTarget::new(
                if kind == "zenodo" {
                    "zenodo"
                } else {
                    "invenio"
                },
                rest,
                token,
            )
            .map(|t| Arc::new(t) as _),
            None => unreachable!("a token target's URL has its kind in front"),
        };
        return opened.map_err(|reason| err(format!("'{url}' cannot be used: {reason}")));
    }
    if let Some(problem) = plain_address_problem(url, opened_for.unwrap_or(OpenedFor::CommandLine))
    {
        return Err(err(problem));
    }
    Err(err(format!(
        "'{url}' is not a target URL. Kinds a named target can have: s3://bucket/prefix, \
         webdav+https://host/path, sandbox+http://127.0.0.1:PORT, zenodo+https://zenodo.org, \
         invenio+https://HOST, datacite+https://api.datacite.org?prefix=…&repository=…"
    )))
}

/// What is wrong with a plain `http(s)://` address given as a target's URL, and the target
/// URLs it most likely means; `None` for any other text. Said in the words of where it was
/// typed: flags for the command line, the form's fields for the window.
pub fn plain_address_problem(url: &str, typed_in: OpenedFor) -> Option<String> {
    let hint = kind_to_put_in_front(url, typed_in)?;
    Some(format!(
        "'{url}' is not a target URL: it needs its kind in front, since one HTTP address \
         cannot say what answers there. {hint}"
    ))
}

/// For a plain `http(s)://` address, the target URLs it most likely means, written out
/// with the address given: a Zenodo, DataCite or S3 host gets its own kind; any other
/// host, the kinds that speak plain HTTP.
fn kind_to_put_in_front(url: &str, typed_in: OpenedFor) -> Option<String> {
    let parsed = Url::parse(url).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    let host = parsed.host_str()?.to_ascii_lowercase();
    let origin = parsed.origin().ascii_serialization();
    let trimmed = url.trim_end_matches('/');
    let zenodo = host == "zenodo.org" || host.ends_with(".zenodo.org");
    let datacite = host == "datacite.org" || host.ends_with(".datacite.org");
    let aws = host.ends_with(".amazonaws.com");
    Some(match typed_in {
        OpenedFor::CommandLine if zenodo => {
            format!(
                "Zenodo is `--target zenodo+{origin}`, with its token in --token or LODGE_TOKEN"
            )
        }
        OpenedFor::CommandLine if datacite => format!(
            "DataCite is `--target 'datacite+{origin}?prefix=10.XXXXX&repository=ORG.REPO'`, \
             with the repository's password in --token or LODGE_TOKEN"
        ),
        OpenedFor::CommandLine if aws => {
            "an S3 bucket is `lodge target add NAME s3://BUCKET/PREFIX --region REGION` with its \
             access key (--access-key-env VAR --secret-env VAR)"
                .to_string()
        }
        OpenedFor::CommandLine => format!(
            "Lodge's sandbox is sandbox+{trimmed}, a WebDAV store webdav+{trimmed}, an \
             InvenioRDM site invenio+{origin} (with --token); an S3-compatible store is added \
             with `lodge target add NAME s3://BUCKET/PREFIX --endpoint {origin}`"
        ),
        // The window's form: its fields, not flags.
        OpenedFor::Window if zenodo => format!(
            "Zenodo is zenodo+{origin}, with its token in \"Password, secret key or token\""
        ),
        OpenedFor::Window if datacite => format!(
            "DataCite is datacite+{origin}?prefix=10.XXXXX&repository=ORG.REPO, with the \
             repository's password in \"Password, secret key or token\""
        ),
        OpenedFor::Window if aws => "an S3 bucket is s3://BUCKET/PREFIX, with its region in \
             \"S3 region\" and its access key id and secret key in the two fields below"
            .to_string(),
        OpenedFor::Window => format!(
            "Lodge's sandbox is sandbox+{trimmed}, a WebDAV store webdav+{trimmed}, an \
             InvenioRDM site invenio+{origin} (with its token); an S3-compatible store is \
             s3://BUCKET/PREFIX with {origin} in \"S3 endpoint\""
        ),
    })
}

/// The window's "Test connection": run the target's checks, a sandbox started with
/// `--token` given `token`.
pub async fn test_named(
    config_path: &Path,
    name: &str,
    token: Option<String>,
) -> Result<ProbeReport, ConfigError> {
    let config = Config::load(config_path)?;
    let (name, t) = resolve(&config, name)?;
    if credentials::lacks_stored_secret(config_path, &name, &t)? {
        return Err(missing_secret_in_window(&name, &t));
    }
    let target = open_target_for(config_path, &name, &t, token, OpenedFor::Window)?;
    Ok(target.probe().await)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A secret's variable saved without a user is said, with what is missing; no
    /// credentials at all is "none".
    #[test]
    fn a_secret_without_its_user_is_described_as_such_not_as_none() {
        let s3 = |secret_env: Option<&str>| TargetConfig {
            url: "s3://lab-data/other".into(),
            secret_env: secret_env.map(str::to_string),
            ..TargetConfig::default()
        };
        assert_eq!(
            describe_credentials(&s3(Some("LAB_SECRET"))),
            "secret from $LAB_SECRET, but no user or access key id (--user)"
        );
        assert_eq!(describe_credentials(&s3(None)), "none");
    }

    /// A secret pasted by hand where the variable's name goes is never printed by
    /// `target list`; neither is a user setting that is no variable's name.
    #[test]
    fn a_secret_pasted_where_its_variables_name_goes_is_not_shown() {
        let pasted = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYSECRET";
        let s3 = TargetConfig {
            url: "s3://lab-data/other".into(),
            user_env: Some("$LAB_USER".into()),
            secret_env: Some(pasted.into()),
            ..TargetConfig::default()
        };
        let said = describe_credentials(&s3);
        assert!(
            !said.contains(pasted) && !said.contains("LAB_USER"),
            "{said}"
        );
        assert_eq!(
            said,
            "user from a setting that is no environment variable's name (not shown, in case it \
             is the secret itself), secret from a setting that is no environment variable's \
             name (not shown, in case it is the secret itself)"
        );
    }

    #[test]
    fn a_saved_token_target_opens_by_name_with_the_identity_its_url_has() {
        for url in [
            "zenodo+https://sandbox.zenodo.org",
            "invenio+https://data.example.org/",
            "datacite+https://api.test.datacite.org?prefix=10.1234&repository=ORG.REPO",
        ] {
            let t = TargetConfig {
                url: url.into(),
                ..TargetConfig::default()
            };
            assert!(t.takes_token() && t.keeps_secret(), "{url}");
            let by_name = open_with("saved", &t, None, Some("t".into()), Some(OpenedFor::Window))
                .unwrap_or_else(|e| panic!("{url}: {e}"));
            let by_url = crate::targets::open_target(url, None).unwrap();
            assert_eq!(
                by_name.scope_id(),
                by_url.scope_id(),
                "one deposit, one scope"
            );
            assert_eq!(scope_id_of("saved", &t).unwrap(), by_url.scope_id());
        }
    }

    #[test]
    fn the_suggested_add_command_keeps_every_setting_quoted_for_a_shell() {
        let t = TargetConfig {
            url: "s3://lab data/runs".into(),
            endpoint: Some("http://127.0.0.1:9".into()),
            region: Some("eu-west-1".into()),
            part_size: Some(8 << 20),
            files_at_once: Some(16),
            allow_insecure: true,
            ..TargetConfig::default()
        };
        let said = add_command("lab-s3", &t, "--secret-stdin");
        assert_eq!(
            shlex::split(&said).unwrap(),
            [
                "lodge",
                "target",
                "add",
                "lab-s3",
                "s3://lab data/runs",
                "--endpoint",
                "http://127.0.0.1:9",
                "--region",
                "eu-west-1",
                "--part-size",
                "8388608",
                "--files-at-once",
                "16",
                "--allow-insecure",
                "--secret-stdin",
            ]
        );
        assert!(add_command("s3://lab/x", &t, "").starts_with("lodge target add NAME "));
    }

    #[test]
    fn files_at_once_is_listed_with_the_settings_and_counts_as_many() {
        let mut t = TargetConfig {
            url: "webdav+https://dav.example.org/lab".into(),
            files_at_once: Some(1),
            ..TargetConfig::default()
        };
        assert_eq!(describe_settings(&t), "1 file at once");
        t.files_at_once = Some(8);
        assert_eq!(describe_settings(&t), "8 files at once");
        t.files_at_once = None;
        assert_eq!(describe_settings(&t), "");
    }

    #[test]
    fn a_webdav_url_with_two_problems_is_refused_naming_both() {
        let t = TargetConfig {
            url: "webdav+http://dav.example.org/remote.php/dav?x=1".into(),
            ..TargetConfig::default()
        };
        let said = identity_of("dav", &t).unwrap_err().to_string();
        assert!(
            said.contains("'x' is not an option") && said.contains("plain http"),
            "{said}"
        );
        let one = TargetConfig {
            allow_insecure: true,
            ..t
        };
        let said = identity_of("dav", &one).unwrap_err().to_string();
        assert!(!said.contains("plain http"), "{said}");
    }

    #[test]
    fn a_plain_http_address_is_answered_with_the_kinds_it_may_be_written_out() {
        let said = kind_to_put_in_front("http://127.0.0.1:8080/", OpenedFor::CommandLine).unwrap();
        assert!(
            said.contains("sandbox+http://127.0.0.1:8080,")
                && said.contains("webdav+http://127.0.0.1:8080,")
                && said.contains("invenio+http://127.0.0.1:8080 ")
                && said.contains("s3://BUCKET/PREFIX --endpoint http://127.0.0.1:8080`"),
            "{said}"
        );
        let said =
            kind_to_put_in_front("https://sandbox.zenodo.org/deposit", OpenedFor::CommandLine)
                .unwrap();
        assert!(
            said.contains("`--target zenodo+https://sandbox.zenodo.org`"),
            "{said}"
        );
        let said =
            kind_to_put_in_front("https://api.test.datacite.org", OpenedFor::CommandLine).unwrap();
        assert!(
            said.contains(
                "'datacite+https://api.test.datacite.org?prefix=10.XXXXX&repository=ORG.REPO'"
            ),
            "{said}"
        );
        let said = kind_to_put_in_front(
            "https://my-bucket.s3.eu-west-1.amazonaws.com",
            OpenedFor::CommandLine,
        )
        .unwrap();
        assert!(said.contains("s3://BUCKET/PREFIX --region"), "{said}");
        assert_eq!(
            kind_to_put_in_front("ftp://files.example.org/x", OpenedFor::CommandLine),
            None
        );
        assert_eq!(kind_to_put_in_front("lab", OpenedFor::CommandLine), None);
    }
}
