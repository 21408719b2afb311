//! `lodge target add|list|test|remove`: named targets in the config file, their credentials
//! (stored in the OS keyring or the private secrets file, never printed) and their self-check.

use std::io::Read;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::output::{say, say_err};
use crate::config::credentials::{
    forget_secret, how_to_add_the_secret, lacks_stored_secret, store_secret,
};
use crate::config::{
    Config, TargetConfig, config_path, describe_credentials_without_secret, no_such_target,
};
use crate::targets::probe::Outcome;
use crate::targets::secret::Secret;

#[derive(Debug, Subcommand)]
pub enum TargetCommand {
    /// Add (or replace) a named target.
    Add(AddTarget),
    /// List the configured targets (no secrets).
    List,
    /// Check a target: reachable, credentials accepted, conditional writes honoured.
    Test {
        /// A target's name, or a URL (a DataCite, Zenodo or InvenioRDM one with --token).
        #[arg(value_parser = super::parse_target)]
        name: String,
        /// The token or password to check, for a target given by URL (a saved target uses
        /// its stored one).
        #[arg(long, env = "LODGE_TOKEN", hide_env_values = true, value_parser = super::parse_token)]
        token: Option<String>,
    },
    /// Remove a target and its stored secret.
    Remove {
        #[arg(value_parser = super::parse_target)]
        name: String,
    },
}

#[derive(Debug, Args)]
pub struct AddTarget {
    /// The name to use with `deposit --target NAME`.
    pub name: String,
    /// s3://bucket/prefix, webdav+https://host/path, sandbox+http://127.0.0.1:PORT,
    /// zenodo+https://zenodo.org, invenio+https://HOST or
    /// 'datacite+https://api.datacite.org?prefix=10.X&repository=ORG.REPO'. On S3 and
    /// WebDAV, '?layout=folders' keeps each dataset's files in a folder of its own.
    #[arg(value_parser = super::parse_target)]
    pub url: String,
    /// S3 region (default us-east-1).
    #[arg(long)]
    pub region: Option<String>,
    /// S3 endpoint, e.g. https://s3.example.org (default: AWS in the region).
    #[arg(long)]
    pub endpoint: Option<String>,
    /// User name (WebDAV) or access key id (S3); an id, not a secret.
    #[arg(long, conflicts_with = "access_key_env")]
    pub user: Option<String>,
    /// Environment variable holding the user name or access key id.
    #[arg(long, alias = "user-env")]
    pub access_key_env: Option<String>,
    /// Environment variable holding the password, secret key or token.
    #[arg(long, alias = "secret-key-env", conflicts_with = "secret_stdin")]
    pub secret_env: Option<String>,
    /// Read the password, secret key or token (Zenodo, InvenioRDM; a DataCite repository's
    /// password) from standard input and store it in the OS keyring (or the private secrets
    /// file where there is no keyring).
    #[arg(long)]
    pub secret_stdin: bool,
    /// Allow plain http:// to a host that is not loopback.
    #[arg(long)]
    pub allow_insecure: bool,
    /// S3: files of at least this many bytes go by multipart upload (default 64 MiB).
    #[arg(long)]
    pub multipart_threshold: Option<u64>,
    /// S3: multipart part size in bytes (default 16 MiB).
    #[arg(long)]
    pub part_size: Option<u64>,
    /// S3, WebDAV, the sandbox: how many of a deposit's files go at once, 1 to 32 (default
    /// 4). 1 for a server that takes one upload at a time; more for a distant store of many
    /// small files.
    #[arg(long)]
    pub files_at_once: Option<usize>,
}

/// S3's own settings (`--endpoint`, `--region`, `--multipart-threshold`, `--part-size`)
/// given for a target of another kind are refused, naming them: saved, they would be listed
/// with the target as if they applied to it.
fn refuse_s3_settings_elsewhere(a: &AddTarget) -> anyhow::Result<()> {
    if a.url.trim_start().to_ascii_lowercase().starts_with("s3://") {
        return Ok(());
    }
    let given: Vec<&str> = [
        ("--endpoint", a.endpoint.is_some()),
        ("--region", a.region.is_some()),
        ("--multipart-threshold", a.multipart_threshold.is_some()),
        ("--part-size", a.part_size.is_some()),
    ]
    .into_iter()
    .filter_map(|(flag, set)| set.then_some(flag))
    .collect();
    if given.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "{} {} for S3 targets (s3://BUCKET/PREFIX) only, and '{}' is not one: leave {} out \
         (the URL says where the server is)",
        given.join(", "),
        match given.len() {
            1 => "is",
            _ => "are",
        },
        a.url,
        match given.len() {
            1 => "it",
            _ => "them",
        }
    )
}

/// The store, when there is one to look in: a database file not made yet has no jobs, and
/// is not to be made by a command about targets.
fn open_if_started(db: &super::Database) -> Option<crate::store::Store> {
    let started = match crate::store::StoreLocation::from(db.path.clone()) {
        crate::store::StoreLocation::File(file) => file.exists(),
        crate::store::StoreLocation::Postgres(_) => true,
    };
    started.then(|| db.open_existing().ok()).flatten()
}

/// What a saved target's deposits left at the place it was (`was`, its identity there)
/// before `name` was saved at another: jobs still queued there and failed ones, which no
/// deposit to `name` sends now. A line for each, with the commands that end them and the
/// one that sends their datasets to the new place.
fn left_at_the_old_place(
    store: &crate::store::Store,
    name: &str,
    was: &str,
) -> anyhow::Result<Vec<String>> {
    let old = super::output::shell_word(was);
    let mut lines = Vec::new();
    for (ids, what, ending) in [
        (
            store.active_job_ids(Some(was))?,
            ("deposit is still queued", "deposits are still queued"),
            "`lodge cancel --target {old}` takes {them} off the queue",
        ),
        (
            store.failed_job_ids(Some(was))?,
            ("deposit failed", "deposits failed"),
            "`lodge dismiss --target {old}` gives {them} up",
        ),
    ] {
        if ids.is_empty() {
            continue;
        }
        let (them, their) = match ids.len() {
            1 => ("it", "its"),
            _ => ("them", "their"),
        };
        let mut datasets: Vec<i64> = store
            .jobs(&ids)?
            .iter()
            .filter_map(|j| j.dataset_id)
            .collect();
        datasets.sort_unstable();
        datasets.dedup();
        let send = match datasets.is_empty() {
            true => String::new(),
            false => format!(
                "; `lodge deposit --target {name} {}` sends {their} {} to the new place",
                datasets
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(" "),
                if datasets.len() == 1 {
                    "dataset"
                } else {
                    "datasets"
                }
            ),
        };
        lines.push(format!(
            "note: at {was}, {} ({}): a deposit to '{name}' now goes to the new place and \
             does not send {them}; {}{send}",
            crate::wording::count_of(ids.len() as u64, what.0, what.1),
            match ids.len() {
                1 => format!("job {}", ids[0]),
                _ => format!(
                    "jobs {}",
                    ids.iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            ending.replace("{old}", &old).replace("{them}", them),
        ));
    }
    Ok(lines)
}

pub async fn run(db: &super::Database, command: TargetCommand) -> anyhow::Result<ExitCode> {
    let path = config_path();
    match command {
        TargetCommand::Add(a) => {
            let mut config = Config::load(&path)?;
            if a.secret_stdin {
                crate::config::refuse_sandbox_credentials(&a.name, &a.url)?;
            }
            refuse_s3_settings_elsewhere(&a)?;
            let target = TargetConfig {
                url: a.url,
                endpoint: a.endpoint,
                region: a.region,
                user: a.user,
                user_env: a.access_key_env,
                secret_env: a.secret_env,
                allow_insecure: a.allow_insecure,
                multipart_threshold: a.multipart_threshold,
                part_size: a.part_size,
                files_at_once: a.files_at_once,
            };
            let secret_from_env = target.secret_env.is_some();
            // Replacing a target with one of another place: the secret stored for the old
            // place is not to be sent to the new one.
            let was = config.place_of(&a.name);
            let was_not_valid = config.broken.contains_key(&a.name);
            config.set_target(&a.name, target)?;
            let now = crate::config::scope_id_of(&a.name, &config.targets[&a.name])?;
            let moved = was.as_ref().filter(|was| **was != now);
            if a.secret_stdin {
                let mut text = String::new();
                std::io::stdin().read_to_string(&mut text)?;
                let secret = text.trim_end_matches(['\n', '\r']);
                anyhow::ensure!(!secret.is_empty(), "no secret on standard input");
                // Spaces alone are no secret (an echo of an unset variable, say): nothing is
                // stored or saved.
                anyhow::ensure!(
                    !secret.trim().is_empty(),
                    "the secret on standard input is only spaces: give the secret itself \
                     (nothing was saved)"
                );
                let went = store_secret(&path, &a.name, &Secret::new(secret))?;
                say!("secret of '{}' stored in {went}", a.name);
            }
            config.save(&path)?;
            if secret_from_env {
                // The variable wins over a stored secret: one left from before would only
                // linger, unused, in the keyring or the secrets file.
                crate::config::credentials::forget_secret(&path, &a.name)?;
            }
            // Checked before it goes, to say so.
            let secret_dropped = moved.is_some()
                && !a.secret_stdin
                && !secret_from_env
                && crate::config::credentials::has_stored_secret(&path, &a.name)?;
            if secret_dropped {
                crate::config::credentials::forget_secret(&path, &a.name)?;
            }
            let scope = now;
            say!("target '{}' saved in {} ({scope})", a.name, path.display());
            if was_not_valid {
                // Its place was only guessed from its URL: not said as where it was.
                say!(
                    "  it replaces the entry '{}' that was not valid{}",
                    a.name,
                    match secret_dropped {
                        true => "; the secret stored for that one is removed",
                        false => "",
                    }
                );
            } else if let Some(was) = moved {
                say!(
                    "  it replaces '{}' at {was}{}",
                    a.name,
                    match secret_dropped {
                        true => "; the secret stored for that one is removed",
                        false => "",
                    }
                );
                if let Some(store) = open_if_started(db) {
                    for line in left_at_the_old_place(&store, &a.name, was)? {
                        say!("{line}");
                    }
                }
            }
            // Saved all the same: the variable may be set where deposits run.
            let saved = &config.targets[&a.name];
            // The target is saved by now: a secrets file that cannot be read is said, not
            // made this command's failure.
            // S3 signs every request with an access key id and its secret: one saved with
            // no access key at all is refused by any server but one that checks nothing.
            if saved.url.trim_start().starts_with("s3://")
                && saved.user.is_none()
                && saved.user_env.is_none()
            {
                let add = crate::config::add_command(
                    &a.name,
                    saved,
                    "--access-key-env VAR --secret-env VAR",
                );
                say_err!(
                    "note: '{}' has no access key id, so the server will refuse it: S3 signs \
                     each request with an access key and its secret: `{add}` (or --user \
                     KEY_ID --secret-stdin)",
                    a.name
                );
            }
            match lacks_stored_secret(&path, &a.name, saved) {
                Ok(true) => say_err!(
                    "note: '{}' has {} yet, so the server will refuse it: {}",
                    a.name,
                    crate::config::credentials::what_is_missing(saved),
                    how_to_add_the_secret(&a.name, saved)
                ),
                Ok(false) => {}
                Err(e) => say_err!("note: {e}"),
            }
            for var in [&saved.user_env, &saved.secret_env].into_iter().flatten() {
                if std::env::var_os(var).is_none() {
                    say_err!(
                        "note: ${var} is not set here; set it before `lodge target test {0}` \
                         or a deposit to '{0}'",
                        a.name
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        TargetCommand::List => {
            let config = Config::load(&path)?;
            if config.targets.is_empty() && config.broken.is_empty() {
                say!(
                    "no targets in {}: add one with `lodge target add NAME URL`",
                    path.display()
                );
            }
            for t in config.summaries() {
                say!("{:<16} {:<8} {}", t.name, t.kind, t.url);
                let target = &config.targets[&t.name];
                // A listing shows every target even when the secrets file cannot be read.
                let credentials = match lacks_stored_secret(&path, &t.name, target) {
                    Ok(true) => format!(
                        "{} (`lodge target test {}` says how to add it)",
                        describe_credentials_without_secret(target),
                        t.name
                    ),
                    Ok(false) => t.credentials,
                    Err(e) => format!("{} ({e})", t.credentials),
                };
                say!(
                    "{:<16} identity {}; credentials: {}",
                    "",
                    t.scope_id,
                    credentials
                );
                if !t.settings.is_empty() {
                    say!("{:<16} {}", "", t.settings);
                }
            }
            // The entries not valid, after the ones that work, each with its fix.
            for (name, broken) in &config.broken {
                say!(
                    "{name:<16} {:<8} {}",
                    "(invalid)",
                    broken.url.as_deref().unwrap_or("")
                );
                say!("{:<16} {}", "", broken.problem);
            }
            // Two names for one place (a config edited by hand; `target add` refuses it):
            // one target's deposits under two names, each with its own credentials.
            let summaries = config.summaries();
            for (i, t) in summaries.iter().enumerate() {
                for other in summaries[i + 1..]
                    .iter()
                    .filter(|o| o.scope_id == t.scope_id)
                {
                    say_err!(
                        "warning: '{}' and '{}' are the same place ({}): its deposits are one \
                         whatever the name, and the window lists only the first; keep one name \
                         (`lodge target remove {}`)",
                        t.name,
                        other.name,
                        t.scope_id,
                        other.name
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        TargetCommand::Test { name, token } => {
            let target = super::target_arg::open_cli_target(&name, token.clone())?;
            let report = target.probe().await;
            for check in &report.checks {
                let (mark, text) = match &check.outcome {
                    Outcome::Passed(t) => ("ok     ", t),
                    Outcome::Failed(t) => ("FAILED ", t),
                    Outcome::Skipped(t) => ("skipped", t),
                };
                say!("{mark} {}: {text}", check.name);
            }
            Ok(match report.first_failure() {
                None if report.ok() => {
                    say!("target '{name}' is ready");
                    ExitCode::SUCCESS
                }
                Some(_) if report.only_busy() => {
                    say!(
                        "target '{name}' answered but is busy now (it asked to wait): nothing \
                         to fix, test again in a moment"
                    );
                    ExitCode::from(1)
                }
                Some(check) => {
                    // A token given per run, refused or missing, is what the user fixes; a
                    // saved token target's stored one is saved again.
                    let credentials = check.name == "credentials";
                    // (A URL given with its own token sent that token, not a saved one.)
                    let own_token = name.contains("://") && token.is_some();
                    let stored_fix = super::target_arg::stored_token_fix(target.scope_id())
                        .filter(|_| !own_token);
                    let borrowed = super::target_arg::token_borrowed_from(&name, token.is_some());
                    let hint = if !credentials {
                        String::new()
                    } else if let Some(saved) = borrowed {
                        // Another URL of the saved target's place (a DataCite URL with
                        // another repository=, say) was sent that target's token: storing
                        // the token again would not mend this URL.
                        format!(
                            ": the token sent is the one saved with target '{saved}', whose URL \
                             is not this one; check this URL against `lodge target list`, test \
                             the saved one with `lodge target test {saved}`, or give this URL's \
                             token with --token"
                        )
                    } else if let Some(fix) = stored_fix {
                        format!(": {fix}")
                    } else if !(own_token
                        || super::target_arg::takes_token_per_run(target.scope_id()))
                    {
                        String::new()
                    } else if token.is_some() {
                        ": give the right token with --token (or LODGE_TOKEN)".into()
                    } else {
                        ": give its token with --token (or LODGE_TOKEN)".into()
                    };
                    say!(
                        "target '{name}' cannot be used: the {} check failed{hint}",
                        check.name
                    );
                    ExitCode::from(1)
                }
                None => ExitCode::from(1),
            })
        }
        TargetCommand::Remove { name } => {
            let mut config = Config::load(&path)?;
            let saved = config.targets.get(&name).cloned();
            anyhow::ensure!(
                config.remove_target(&name),
                "{}",
                no_such_target(&config, &name)
            );
            forget_secret(&path, &name)?;
            config.save(&path)?;
            say!("target '{name}' removed; its deposit history stays");
            // Jobs still to do there stay queued (a deposit by URL can still send them):
            // said, with how to take them off. A database not started has none.
            let scope = saved.and_then(|spec| crate::config::identity_of(&name, &spec).ok());
            if let Some((scope, _)) = scope
                && let Some(store) = open_if_started(db)
                && let Ok(left) = store.active_job_ids(Some(&scope))
                && !left.is_empty()
            {
                let (are, them) = match left.len() {
                    1 => ("is", "it"),
                    _ => ("are", "them"),
                };
                say!(
                    "note: {} for it {are} still queued: `lodge target add {name} URL` again \
                     sends {them} on its next deposit, or `lodge cancel --target {}` takes \
                     {them} off the queue",
                    crate::wording::count_of(left.len() as u64, "deposit", "deposits"),
                    super::output::shell_word(&scope)
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
