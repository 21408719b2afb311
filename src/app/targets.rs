//! Configured targets in the app: reading them from the config file, opening each one for the
//! engine and the target picker, and saving, removing and testing them from Settings. The
//! secret typed into the form goes straight to [`credentials::store_secret`] (OS keyring or
//! the private secrets file); it is never kept in the model, the config file or the log.

use std::path::Path;
use std::sync::Arc;

use super::update::TargetInfo;
use crate::config::{Config, TargetConfig, TargetSummary, check_name, credentials};
use crate::engine::{Engine, EngineConfig};
use crate::store::Store;
use crate::targets::Target;
use crate::targets::each_file::FilesAtOnce;
use crate::targets::probe::ProbeReport;
use crate::targets::secret::Secret;

/// A configured target as Settings lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfiguredTarget {
    pub summary: TargetSummary,
    /// Its entry in the config file (no secrets in it), to prefill the Edit form.
    pub config: TargetConfig,
    /// Why it is not in the target picker (it could not be opened), if it is not.
    pub problem: Option<String>,
    /// It has a user whose password or secret key should be stored but is not.
    pub secret_missing: bool,
    /// Not a target: the config file itself could not be read (`problem` says why, the
    /// summary's URL is its path), so no saved target is listed or used until it is fixed.
    pub unreadable_config: bool,
}

/// What the Add / Edit form says when "Save target" is pressed.
#[derive(Clone, Debug, Default)]
pub struct TargetForm {
    /// The target being edited; `None` adds a new one.
    pub editing: Option<String>,
    pub name: String,
    pub url: String,
    /// S3 only; empty means the default.
    pub endpoint: String,
    pub region: String,
    /// User name (WebDAV) or access key id (S3); empty keeps an environment variable set in
    /// the config file, if any.
    pub user: String,
    /// The password or secret key as typed; `None` keeps the stored one.
    pub secret: Option<Secret>,
    pub allow_insecure: bool,
    /// How many of a deposit's files go at once (S3, WebDAV, the sandbox), as typed; empty
    /// means the default.
    pub files_at_once: String,
}

/// The form field a problem belongs next to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetField {
    Name,
    Url,
    /// An S3 target's endpoint.
    Endpoint,
    User,
    Secret,
    FilesAtOnce,
    /// Not one field: the config file itself.
    Form,
}

/// How "Test connection" went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetTest {
    Running,
    Done(ProbeReport),
    /// The target could not even be opened (config, credentials).
    Error(String),
}

/// The engine with every target registered, and what the window shows of them.
pub(super) struct Registered {
    pub engine: Engine,
    pub picker: Vec<TargetInfo>,
    pub configured: Vec<ConfiguredTarget>,
}

/// Build an engine over `store` with the sandbox and every configured target that opens
/// (blocking: run it on the blocking pool). Targets that do not open are listed with their
/// problem and left out of the picker.
pub(super) fn register_all(
    store: Arc<Store>,
    engine_config: EngineConfig,
    sandbox: Arc<dyn Target>,
    sandbox_label: &str,
    config_path: &Path,
    token: Option<&str>,
) -> Result<Registered, String> {
    let mut engine = Engine::new(store.clone(), engine_config)
        .map_err(|e| format!("starting the deposit engine failed: {e}"))?;
    let mut picker = vec![TargetInfo {
        scope_id: sandbox.scope_id().to_string(),
        label: sandbox_label.to_string(),
        puts_back_files: sandbox.files_can_be_put_back().is_ok(),
        repairs_sizes: sandbox.replaces_wrong_size_files(),
        repairs_records: sandbox.rewrites_gone_records(),
        keeps_files: sandbox.keeps_files(),
        makes_drafts: sandbox.makes_drafts(),
        datasets_base: sandbox.datasets_base(),
    }];
    engine
        .add_target(sandbox)
        .map_err(|e| format!("cannot register the sandbox target: {e}"))?;
    let config = match Config::load(config_path) {
        Ok(c) => c,
        Err(e) => {
            // The sandbox still works; Settings shows nothing until the file is fixed.
            return Ok(Registered {
                engine,
                picker,
                configured: vec![ConfiguredTarget {
                    summary: TargetSummary {
                        name: "(config file)".into(),
                        url: config_path.display().to_string(),
                        kind: String::new(),
                        scope_id: String::new(),
                        credentials: String::new(),
                        settings: String::new(),
                    },
                    config: TargetConfig::default(),
                    problem: Some(e.to_string()),
                    secret_missing: false,
                    unreadable_config: true,
                }],
            });
        }
    };
    let mut configured = Vec::new();
    for mut summary in config.summaries() {
        let t = config.targets[&summary.name].clone();
        let secret_missing =
            crate::config::credentials::lacks_stored_secret(config_path, &summary.name, &t)
                .unwrap_or(false);
        let opened = if secret_missing {
            // Said for the window, where the password is typed in Settings (not piped to a
            // command, as the command line's message says); a refused setting first.
            summary.credentials = crate::config::describe_credentials_without_secret(&t);
            Err(crate::config::missing_secret_in_window(&summary.name, &t).to_string())
        } else {
            open_one(config_path, &summary.name, &t, &picker, token, &store)
        };
        let problem = match opened {
            Ok(target) => {
                picker.push(TargetInfo {
                    scope_id: target.scope_id().to_string(),
                    label: format!("{} — {}", summary.name, summary.url),
                    puts_back_files: target.files_can_be_put_back().is_ok(),
                    repairs_sizes: target.replaces_wrong_size_files(),
                    repairs_records: target.rewrites_gone_records(),
                    keeps_files: target.keeps_files(),
                    makes_drafts: target.makes_drafts(),
                    datasets_base: target.datasets_base(),
                });
                engine.add_target(target).err().map(|e| {
                    picker.pop();
                    format!("cannot register target '{}': {e}", summary.name)
                })
            }
            Err(e) => Some(e),
        };
        configured.push(ConfiguredTarget {
            summary,
            config: t,
            problem,
            secret_missing,
            unreadable_config: false,
        });
    }
    // Listed, with what is wrong, to fix in Settings; never opened.
    for (name, broken) in config.broken {
        let url = broken.url.unwrap_or_default();
        configured.push(ConfiguredTarget {
            summary: TargetSummary {
                name,
                kind: url.split(['+', ':']).next().unwrap_or("").to_string(),
                url: url.clone(),
                scope_id: String::new(),
                credentials: String::new(),
                settings: String::new(),
            },
            config: TargetConfig {
                url,
                ..TargetConfig::default()
            },
            problem: Some(broken.problem),
            secret_missing: false,
            unreadable_config: false,
        });
    }
    configured.sort_by(|a, b| a.summary.name.cmp(&b.summary.name));
    Ok(Registered {
        engine,
        picker,
        configured,
    })
}

fn open_one(
    config_path: &Path,
    name: &str,
    t: &TargetConfig,
    known: &[TargetInfo],
    token: Option<&str>,
    store: &Arc<Store>,
) -> Result<Arc<dyn Target>, String> {
    // A sandbox started with --token takes its token with each run, as on the command
    // line: the window's is `ServiceConfig::sandbox_token` (LODGE_TOKEN).
    let target = crate::config::open_target_for(
        config_path,
        name,
        t,
        token.map(str::to_string),
        crate::config::OpenedFor::Window,
    )
    .map_err(|e| e.to_string())?;
    let target = match with_landing_lookup(config_path, name, t, store)? {
        Some(datacite) => datacite,
        None => target,
    };
    if let Some(same) = known.iter().find(|k| k.scope_id == target.scope_id()) {
        return Err(format!(
            "target '{name}' is the same place as '{}' ({}): remove one of them",
            same.label.split(" — ").next().unwrap_or(&same.label),
            target.scope_id()
        ));
    }
    Ok(target)
}

/// A DataCite target whose landing pages come from another target (`landing_from=`, a saved
/// target's name or a URL), opened again so that each deposit looks its page up in the
/// store: the record its dataset's deposit to that target got, a draft told apart
/// ([`crate::engine::landing::landing_of`]). `None` for any other target.
/// Called once [`crate::config::open_target_for`] has opened it, so its URL and token are
/// known to be good.
fn with_landing_lookup(
    config_path: &Path,
    name: &str,
    t: &TargetConfig,
    store: &Arc<Store>,
) -> Result<Option<Arc<dyn Target>>, String> {
    use crate::targets::datacite::DataCiteTarget;
    let url = crate::targets::with_lowercase_scheme(&t.url);
    let Some(rest) = url.strip_prefix("datacite+") else {
        return Ok(None);
    };
    let token = credentials::resolve_token(config_path, name, t).map_err(|e| e.to_string())?;
    let target = DataCiteTarget::new(rest, Some(token.expose().to_string()))
        .map_err(|e| format!("target '{name}': {e}"))?;
    let Some(from) = target.landing_from() else {
        return Ok(None);
    };
    let config = Config::load(config_path).map_err(|e| e.to_string())?;
    let from_scope = crate::config::resolve(&config, from)
        .and_then(|(from_name, spec)| crate::config::scope_id_of(&from_name, &spec))
        .map_err(|e| format!("target '{name}': its landing_from= names no target: {e}"))?;
    let store = store.clone();
    let lookup: crate::targets::datacite::LandingLookup = Arc::new(move |key| {
        crate::engine::landing::landing_of(&store, &from_scope, key).map_err(|e| e.to_string())
    });
    Ok(Some(Arc::new(target.with_landing_lookup(lookup))))
}

/// The name a form's URL is checked under while the name typed is not one.
const STAND_IN_NAME: &str = "target";

/// Check and save the form to the config file, storing a typed secret (blocking). Returns
/// the target's name, or every problem found, each with the field it belongs to: the
/// fields' own checks all at once (a name and a URL both wrong are said together), then
/// what depends on them passing.
pub(super) fn save(
    config_path: &Path,
    form: TargetForm,
) -> Result<String, Vec<(TargetField, String)>> {
    let name = form.name.trim().to_string();
    let secret = form.secret.filter(|s| !s.expose().is_empty());
    let mut config =
        Config::load(config_path).map_err(|e| vec![(TargetField::Form, e.to_string())])?;
    let mut problems = Vec::new();
    if let Err(e) = check_name(&name) {
        problems.push((TargetField::Name, e.to_string()));
    }
    let existing = match &form.editing {
        // An entry not valid is written anew from the form.
        Some(old) if config.broken.contains_key(old) => TargetConfig::default(),
        Some(old) => config.targets.get(old).cloned().ok_or_else(|| {
            vec![(
                TargetField::Form,
                format!("target '{old}' is no longer in the config file: add it again"),
            )]
        })?,
        None if config.targets.contains_key(&name) || config.broken.contains_key(&name) => {
            problems.push((
                TargetField::Name,
                format!(
                    "a target named '{name}' already exists: choose another name, or press \
                     Edit next to it"
                ),
            ));
            TargetConfig::default()
        }
        None => TargetConfig::default(),
    };
    let text = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
    let files_at_once =
        files_at_once_typed(&form.url, &form.files_at_once).unwrap_or_else(|message| {
            problems.push((TargetField::FilesAtOnce, message));
            None
        });
    let mut t = TargetConfig {
        url: form.url.trim().to_string(),
        endpoint: text(&form.endpoint),
        region: text(&form.region),
        allow_insecure: form.allow_insecure,
        files_at_once,
        ..existing
    };
    if let Some(user) = text(&form.user) {
        t.user = Some(user);
        t.user_env = None;
    } else {
        t.user = None;
    }
    if secret.is_some() {
        // A typed secret replaces one named by an environment variable.
        t.secret_env = None;
    }
    // The URL is checked under a name that passes, whatever the name typed: its own
    // problems are said beside the name's. Under a stand-in name they begin with no name
    // (they would name "target 'target'"): each is shown beside its own field.
    let name_ok = check_name(&name).is_ok();
    let checked_as = if name_ok {
        name.as_str()
    } else {
        STAND_IN_NAME
    };
    let said = |e: crate::config::ConfigError| {
        let message = e.to_string();
        match message.strip_prefix(&format!("target '{STAND_IN_NAME}': ")) {
            Some(rest) if !name_ok => rest.to_string(),
            _ => message,
        }
    };
    if t.url.is_empty() {
        problems.push((
            TargetField::Url,
            "the URL is required: s3://bucket/prefix, webdav+https://host/path, \
             sandbox+http://127.0.0.1:PORT, zenodo+https://zenodo.org, invenio+https://HOST or \
             datacite+https://api.datacite.org?prefix=…&repository=…"
                .into(),
        ));
    } else if let Some(problem) =
        crate::config::plain_address_problem(&t.url, crate::config::OpenedFor::Window)
    {
        // Said in the form's words (its fields), not the command line's flags.
        problems.push((TargetField::Url, problem));
    } else if let Err(e) = crate::config::scope_id_of(checked_as, &t) {
        // A URL that is right without the endpoint: the endpoint is what to fix.
        let without_endpoint = TargetConfig {
            endpoint: None,
            ..t.clone()
        };
        let field = match t.endpoint.is_some()
            && crate::config::scope_id_of(checked_as, &without_endpoint).is_ok()
        {
            true => TargetField::Endpoint,
            false => TargetField::Url,
        };
        problems.push((field, said(e)));
    }
    // S3's own fields, filled in for a target of another kind: saved, they would be listed
    // with it as if they applied.
    let s3 = crate::targets::with_lowercase_scheme(&t.url).starts_with("s3://");
    if !t.url.is_empty() && !s3 && (t.endpoint.is_some() || t.region.is_some()) {
        problems.push((
            TargetField::Endpoint,
            "\"S3 endpoint\" and \"S3 region\" are for S3 targets (s3://bucket/prefix) only: \
             empty them for this target (its URL says where the server is)"
                .into(),
        ));
    }
    if secret.is_some()
        && let Err(e) = crate::config::refuse_sandbox_credentials(checked_as, &t.url)
    {
        problems.push((TargetField::Secret, said(e)));
    }
    if (t.user.is_some() || t.user_env.is_some())
        && let Err(e) = crate::config::refuse_token_target_user(checked_as, &t.url)
    {
        problems.push((TargetField::User, said(e)));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let one =
        |field: TargetField| move |e: crate::config::ConfigError| vec![(field, e.to_string())];
    // The place the name stood for until now: a secret stored for it is that place's, not
    // to be sent to another.
    let was = config.place_of(&name);
    config
        .set_target(&name, t.clone())
        .map_err(one(TargetField::Url))?;
    let moved =
        was.filter(|was| crate::config::scope_id_of(&name, &t).is_ok_and(|now| now != *was));
    let old_secret_stays = secret.is_none() && t.secret_env.is_none();
    let old_secret_stored = match &moved {
        Some(_) if old_secret_stays => {
            credentials::has_stored_secret(config_path, &name).map_err(one(TargetField::Form))?
        }
        _ => false,
    };
    if let Some(was) = moved.filter(|_| old_secret_stored && t.keeps_secret()) {
        return Err(vec![(
            TargetField::Secret,
            format!(
                "the password, secret key or token stored for '{name}' is the one of {was}, \
                 where it pointed until now: type this place's"
            ),
        )]);
    }
    // A place that takes no secret: the old one's goes.
    let drop_old_secret = old_secret_stored;
    let has_user = t.user.is_some() || t.user_env.is_some();
    match &secret {
        Some(_) if !t.keeps_secret() => {
            return Err(vec![(
                TargetField::User,
                "a password or secret key needs a user name (WebDAV) or access key id (S3): \
                 fill in the user"
                    .into(),
            )]);
        }
        Some(secret) => {
            credentials::store_secret(config_path, &name, secret)
                .map_err(one(TargetField::Secret))?;
        }
        None if t.takes_token()
            && credentials::lacks_stored_secret(config_path, &name, &t)
                .map_err(one(TargetField::Form))? =>
        {
            return Err(vec![(
                TargetField::Secret,
                format!(
                    "target '{name}' has no token stored: type it here (Zenodo or \
                     InvenioRDM: a personal access token; DataCite: the repository's password)"
                ),
            )]);
        }
        None if has_user
            && t.secret_env.is_none()
            && credentials::resolve(config_path, &name, &t).is_err() =>
        {
            return Err(vec![(
                TargetField::Secret,
                format!(
                    "target '{name}' has a user but no stored password or secret key: type it \
                     here"
                ),
            )]);
        }
        None => {}
    }
    config.save(config_path).map_err(one(TargetField::Form))?;
    if drop_old_secret {
        credentials::forget_secret(config_path, &name).map_err(one(TargetField::Form))?;
    }
    Ok(name)
}

/// What removing a target took away.
pub(super) struct RemovedTarget {
    /// It kept a secret in the keyring or the secrets file (now forgotten).
    pub kept_secret: bool,
    /// Its identity in the store, if it could be worked out (to find jobs left for it).
    pub scope: Option<String>,
}

/// Remove a target and its stored secret from the config (blocking).
pub(super) fn remove(config_path: &Path, name: &str) -> Result<RemovedTarget, String> {
    let mut config = Config::load(config_path).map_err(|e| e.to_string())?;
    let scope = config.place_of(name);
    let target = config.targets.get(name).cloned();
    if !config.remove_target(name) {
        return Err(format!(
            "there is no target named '{name}' in {} any more",
            config_path.display()
        ));
    }
    config.save(config_path).map_err(|e| e.to_string())?;
    credentials::forget_secret(config_path, name).map_err(|e| e.to_string())?;
    Ok(RemovedTarget {
        kept_secret: target.is_some_and(|t| t.secret_env.is_none() && t.keeps_secret()),
        scope,
    })
}

/// The form's *Files at once* as the config file keeps it: empty is the default (none
/// written), else a number the target at `url` takes.
fn files_at_once_typed(url: &str, typed: &str) -> Result<Option<usize>, String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Ok(None);
    }
    let n = typed.parse::<usize>().map_err(|_| {
        format!(
            "'{typed}' is not a number: give 1 (one file after another) to {}, or leave it \
             empty for the default {}",
            FilesAtOnce::MOST,
            FilesAtOnce::DEFAULT.get()
        )
    })?;
    crate::config::check_files_at_once(url, n)
        .map(|_| Some(n))
        .map_err(|why| format!("Files at once {why}"))
}

impl TargetForm {
    /// The form to edit a configured target: everything but the secret.
    pub fn edit(target: &ConfiguredTarget) -> TargetForm {
        let c = &target.config;
        TargetForm {
            editing: Some(target.summary.name.clone()),
            name: target.summary.name.clone(),
            url: c.url.clone(),
            endpoint: c.endpoint.clone().unwrap_or_default(),
            region: c.region.clone().unwrap_or_default(),
            user: c.user.clone().unwrap_or_default(),
            secret: None,
            allow_insecure: c.allow_insecure,
            files_at_once: c.files_at_once.map(|n| n.to_string()).unwrap_or_default(),
        }
    }
}
