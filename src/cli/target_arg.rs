//! What `--target` names, for `deposit`, `retry`, `forget` and `target test`: a saved
//! target or a URL, opened (with its token) or only identified (its scope), and the target
//! a job was queued for, opened again from what the store kept of it.

use std::sync::Arc;

use anyhow::Context;

use super::output::say_err;
use crate::config::{Config, config_path, open_target_spec, resolve, scope_id_of};
use crate::content::ContentKey;
use crate::store::Store;
use crate::targets::{Target, open_target};

/// A target by name (from the config file) or URL.
pub(super) fn open_cli_target(
    name_or_url: &str,
    token: Option<String>,
) -> anyhow::Result<Arc<dyn Target>> {
    let path = config_path();
    let config = config_for(&path, name_or_url.contains("://"))?;
    if used_by_url_only(&config, name_or_url) {
        let token = token.or_else(|| saved_token_for_url(&config, &path, name_or_url));
        return Ok(open_target(name_or_url, token)?);
    }
    // A saved S3 target's identity, as `status` and `target list` print it
    // (`s3:ENDPOINT/BUCKET/PREFIX`, which is no URL): that target, with its credentials.
    // (Another kind's identity is its URL, which `saved_as_url` finds.)
    if !config.targets.contains_key(name_or_url)
        && crate::targets::s3::S3Location::from_scope_id(name_or_url).is_some()
        && let Some((name, spec)) = configured_with_scope(&config, name_or_url)
    {
        say_err!(
            "note: {name_or_url} is target '{name}': its saved credentials and settings are used"
        );
        note_token_unused(name, spec, token.as_deref());
        return Ok(open_target_spec(&path, name, spec, token)?);
    }
    let (name, spec) = resolve(&config, name_or_url)?;
    let (name, spec) = saved_as_url(&config, &name, &spec).unwrap_or((name, spec));
    note_token_unused(&name, &spec, token.as_deref());
    Ok(open_target_spec(&path, &name, &spec, token)?)
}

/// For an S3 or WebDAV URL that is not a saved name: the saved target that is the same
/// place (the same identity), if one is, said in a note, so that its credentials and
/// settings are used.
/// A WebDAV or S3 URL carries none: without them the server would refuse the deposit and
/// pause the saved target too, which shares the place.
fn saved_as_url(
    config: &Config,
    name: &str,
    spec: &crate::config::TargetConfig,
) -> Option<(String, crate::config::TargetConfig)> {
    if config.targets.contains_key(name) || !crate::targets::layout::url_lays_out_files(name) {
        return None;
    }
    let scope = scope_id_of(name, spec).ok()?;
    // The same identity; else the one saved target given this URL as it is written (an S3
    // target with its own endpoint: the URL alone names AWS's).
    let (saved, saved_spec) = configured_with_scope(config, &scope).or_else(|| {
        let mut written = config
            .targets
            .iter()
            .filter(|(_, saved)| saved.url.trim() == name);
        let one = written.next()?;
        written.next().is_none().then_some(one)
    })?;
    say_err!(
        "note: {name} is where target '{saved}' deposits: its saved credentials and settings \
         are used"
    );
    Some((saved.clone(), saved_spec.clone()))
}

/// For a DataCite, Zenodo or InvenioRDM URL given without `--token`: the token stored with
/// the saved target that is the same place (the same identity), if one is, said in a note.
/// Without it the server would refuse the deposit and pause the target, though the right
/// token is saved.
fn saved_token_for_url(config: &Config, path: &std::path::Path, url: &str) -> Option<String> {
    let scope = open_target(url, None).ok()?.scope_id().to_string();
    let (name, spec) = configured_with_scope(config, &scope)?;
    let token = crate::config::credentials::resolve_token(path, name, spec).ok()?;
    say_err!("note: {url} is where target '{name}' deposits: the token saved with it is sent");
    Some(token.expose().to_string())
}

/// A saved DataCite, Zenodo or InvenioRDM target sends its own stored token: one given for
/// the run (`--token`, `LODGE_TOKEN`) is not used, and a note says so.
fn note_token_unused(name: &str, spec: &crate::config::TargetConfig, token: Option<&str>) {
    if token.is_none() {
        return;
    }
    if spec.takes_token() {
        say_err!(
            "note: target '{name}' sends the token saved with it; the one given with --token \
             (or LODGE_TOKEN) is for targets given by URL and for sandboxes, and is not used"
        );
    } else if spec.url.trim_start().starts_with("s3://") {
        // S3 signs each request with an access key and its secret: a token has no place.
        say_err!(
            "note: target '{name}' (S3) signs its requests with its access key and secret; the \
             token given with --token (or LODGE_TOKEN) is not used"
        );
    } else if spec.url.trim_start().starts_with("webdav+") {
        // WebDAV signs in with a user name and password: a token has no place.
        say_err!(
            "note: target '{name}' (WebDAV) signs in with its user name and password; the \
             token given with --token (or LODGE_TOKEN) is not used"
        );
    }
}

/// The config file at `path`. When it cannot be read and the target needs nothing from it
/// (`by_url`: a URL that carries all a deposit needs), a note says so and an empty config
/// stands in: a typo in one saved target does not stop deposits by URL.
fn config_for(path: &std::path::Path, by_url: bool) -> anyhow::Result<Config> {
    match Config::load(path) {
        Ok(config) => Ok(config),
        Err(e) if by_url => {
            say_err!("note: {e}; going by the URL alone (saved targets wait until that is fixed)");
            Ok(Config::default())
        }
        Err(e) => Err(e.into()),
    }
}

/// Whether `--target` gives a DataCite, Zenodo or InvenioRDM URL, used with a token for
/// the run: there is nothing in the config file to resolve.
fn used_by_url_only(config: &Config, name_or_url: &str) -> bool {
    crate::targets::is_token_target_url(name_or_url) && !config.targets.contains_key(name_or_url)
}

/// The scope (the target's identity in the store) of what `--target` names, without
/// opening it with credentials: a saved target's, or a URL's.
pub(super) fn cli_target_scope(name_or_url: &str) -> anyhow::Result<String> {
    let config = config_for(&config_path(), name_or_url.contains("://"))?;
    if used_by_url_only(&config, name_or_url) {
        return Ok(open_target(name_or_url, None)?.scope_id().to_string());
    }
    // The identity itself, as `status` and `show` print a target no longer saved (for an
    // S3 target, `s3:ENDPOINT/BUCKET/PREFIX`, which is no URL).
    if configured_with_scope(&config, name_or_url).is_some()
        || crate::targets::s3::S3Location::from_scope_id(name_or_url).is_some()
    {
        // (An S3 identity also when its target was removed since: its jobs and results
        // are still in the store, to cancel, list or forget.)
        return Ok(name_or_url.to_string());
    }
    let (name, spec) = resolve(&config, name_or_url)?;
    Ok(scope_id_of(&name, &spec)?)
}

/// [`cli_target_scope`] for a command about what `store` holds (`cancel`, `dismiss`,
/// `forget`, `status`, `history`, `verify`): an identity the store knows is taken as it
/// is; a name no longer saved (a target removed since) is refused with the identities
/// of the targets this store knows that are not saved, which `--target` takes, as `lodge
/// status` shows them.
pub(super) fn stored_target_scope(store: &Store, name_or_url: &str) -> anyhow::Result<String> {
    // An identity as `status` prints it is taken as it is, even where it is no URL that
    // opens a target (a DataCite identity leaves out the repository and the state).
    let known = store.target_scopes()?;
    if known.iter().any(|scope| scope == name_or_url) {
        return Ok(name_or_url.to_string());
    }
    let error = match cli_target_scope(name_or_url) {
        Ok(scope) => return Ok(scope),
        Err(e) if name_or_url.contains("://") => return Err(e),
        Err(e) => e,
    };
    let names = TargetNames::load();
    let unsaved: Vec<String> = known
        .into_iter()
        .filter(|scope| names.saved(scope).is_none())
        .map(|scope| super::output::shell_word(&scope).into_owned())
        .collect();
    if unsaved.is_empty() {
        return Err(error);
    }
    anyhow::bail!(
        "{error:#}. A target removed since is given by its identity, as `lodge status` shows \
         it; this database's targets not saved now: {}",
        unsaved.join(", ")
    )
}

/// Said when `scope` (what `--target` named) was never deposited to from `store`: most
/// likely a typo, or another spelling of a target's address (`localhost` for `127.0.0.1`),
/// which an empty answer would pass off as "all clear". Names the targets it has used.
pub(super) fn note_if_never_used(store: &Store, scope: &str) -> anyhow::Result<()> {
    if store.target_url(scope)?.is_some() {
        return Ok(());
    }
    let names = TargetNames::load();
    let used: Vec<String> = store
        .target_scopes()?
        .iter()
        .map(|used| super::output::shell_word(names.of(used)).into_owned())
        .collect();
    let used = match used.is_empty() {
        true => "none yet".to_string(),
        false => used.join(", "),
    };
    say_err!(
        "note: nothing was ever deposited to {scope} from this database; the targets it has \
         used: {used}"
    );
    Ok(())
}

/// The target jobs were queued for, to send `keys` again: the configured target with that
/// identity, else the URL it was last opened from (which the store keeps: for DataCite it
/// holds the prefix, repository and state that the identity leaves out). When it cannot be
/// opened, the error ends with what to do: `then` (the command to run again, after saving a
/// removed S3 target anew) or `fix` (for any other target).
pub(super) fn open_by_scope(
    store: &Store,
    scope_id: &str,
    token: Option<String>,
    keys: &[ContentKey],
    (then, fix): (&str, &str),
) -> anyhow::Result<Arc<dyn Target>> {
    let path = config_path();
    let config = config_for(&path, takes_token_per_run(scope_id))?;
    if let Some((name, spec)) = configured_with_scope(&config, scope_id) {
        if spec.takes_token() {
            // A DataCite target's landing pages may come from the store.
            return open_deposit_target(store, name, token, keys);
        }
        return Ok(open_target_spec(&path, name, spec, token)?);
    }
    let url = store
        .target_url(scope_id)?
        .unwrap_or_else(|| scope_id.to_string());
    // A saved S3 target's identity is no URL, and its endpoint and credentials were in
    // the config: only saving it again opens it.
    if url == scope_id
        && let Some(add) = s3_add_again(scope_id)
    {
        let add_again = match s3_moved_hint(store, &config, scope_id, keys) {
            Some(moved) => format!("{moved} To send them to {scope_id} as before, add it again"),
            None => "Add it again".to_string(),
        };
        anyhow::bail!(
            "cannot open {scope_id}: it is a saved S3 target's identity, and no target in {} \
             has it any more. {add_again} (`{add}`), then {then}",
            path.display()
        );
    }
    open_deposit_target(store, &url, token, keys).with_context(|| {
        format!("cannot open {scope_id} again from what Lodge recorded of it: {fix}")
    })
}

/// Where a saved S3 target now keeps the bucket and prefix of identity `scope_id` at
/// another endpoint or region (its endpoint mistyped, then put right): the deposit that
/// sends the datasets of `keys` there, and the dismiss that gives up on the jobs left on
/// the old identity. `None` when no saved target has them.
fn s3_moved_hint(
    store: &Store,
    config: &Config,
    scope_id: &str,
    keys: &[ContentKey],
) -> Option<String> {
    use crate::targets::s3::S3Location;
    let (url, _) = S3Location::from_scope_id(scope_id)?;
    let (name, now) = config.targets.iter().find_map(|(name, spec)| {
        let now = scope_id_of(name, spec).ok()?;
        let (now_url, endpoint) = S3Location::from_scope_id(&now)?;
        (now_url == url && now != scope_id).then_some((name, endpoint))
    })?;
    let mut names: Vec<String> = store
        .datasets()
        .unwrap_or_default()
        .into_iter()
        .filter(|d| d.key.is_some_and(|k| keys.contains(&k)))
        .map(|d| super::output::shell_word(&d.name).into_owned())
        .collect();
    names.dedup();
    let datasets = match names.is_empty() {
        true => "DATASET".to_string(),
        false => names.join(" "),
    };
    Some(format!(
        "Target '{name}' now keeps {url} at {now}: to send the datasets there, deposit them \
         (`lodge deposit --target {name} {datasets}`) and give up on the jobs left here \
         (`lodge dismiss --target {}`).",
        super::output::shell_word(scope_id)
    ))
}

/// The `lodge target add` that saves an S3 target with identity `scope_id`
/// (`s3:ENDPOINT/BUCKET/PREFIX`) again; `None` for any other identity.
fn s3_add_again(scope_id: &str) -> Option<String> {
    let (url, endpoint) = crate::targets::s3::S3Location::from_scope_id(scope_id)?;
    let spec = crate::config::TargetConfig {
        url,
        endpoint: Some(endpoint),
        ..Default::default()
    };
    Some(crate::config::add_command(
        "NAME",
        &spec,
        "--access-key-env VAR --secret-env VAR",
    ))
}

/// The configured target with this identity, if one has it.
fn configured_with_scope<'a>(
    config: &'a Config,
    scope_id: &str,
) -> Option<(&'a String, &'a crate::config::TargetConfig)> {
    config
        .targets
        .iter()
        .find(|(name, spec)| scope_id_of(name, spec).is_ok_and(|s| s == scope_id))
}

/// What the reports (`status`, `history`, `show`) call each target: the name it is saved
/// under in the config file, else its identity (a sandbox's URL, or `s3:ENDPOINT/BUCKET`
/// for an S3 target no longer saved). A config file that cannot be read names none: the
/// reports still print, by identity.
pub(super) struct TargetNames {
    names: std::collections::HashMap<String, String>,
    /// Where each saved target that keeps a folder per dataset keeps them, by identity.
    datasets_bases: std::collections::HashMap<String, String>,
}

impl TargetNames {
    pub(super) fn load() -> TargetNames {
        let mut names = std::collections::HashMap::new();
        let mut datasets_bases = std::collections::HashMap::new();
        if let Ok(config) = Config::load(&config_path()) {
            // By name, so two saved names for one place give the first, every time.
            for (name, spec) in &config.targets {
                if let Ok((scope, base)) = crate::config::identity_of(name, spec) {
                    if let Some(base) = base {
                        datasets_bases.entry(scope.clone()).or_insert(base);
                    }
                    names.entry(scope).or_insert_with(|| name.clone());
                }
            }
        }
        TargetNames {
            names,
            datasets_bases,
        }
    }

    /// Where the saved target with this identity keeps the folder of the deposit of `key`
    /// of a dataset titled `title`, when it keeps a folder per dataset.
    pub(super) fn dataset_folder(
        &self,
        scope_id: &str,
        key: &crate::content::ContentKey,
        title: &str,
    ) -> Option<String> {
        let base = self.datasets_bases.get(scope_id)?;
        Some(crate::targets::layout::dataset_folder_address(
            base, key, title,
        ))
    }

    /// The saved name of the target with this identity, else the identity.
    pub(super) fn of<'a>(&'a self, scope_id: &'a str) -> &'a str {
        self.saved(scope_id).unwrap_or(scope_id)
    }

    /// The name the target with this identity is saved under, if it is.
    pub(super) fn saved(&self, scope_id: &str) -> Option<&str> {
        self.names.get(scope_id).map(String::as_str)
    }
}

/// What to give `--target` in a command Lodge suggests for the target with this identity:
/// its name in the config file, else the URL it was last opened from (the identity itself
/// is no URL for a saved S3 or WebDAV target).
pub(super) fn target_argument(store: &Store, scope_id: &str) -> String {
    if let Some(name) = TargetNames::load().saved(scope_id) {
        return name.to_string();
    }
    store
        .target_url(scope_id)
        .ok()
        .flatten()
        .unwrap_or_else(|| scope_id.to_string())
}

/// Whether `scope_id` is a target whose token comes with each run (`--token`), not from a
/// saved target's credentials: a sandbox, or a DataCite, Zenodo or InvenioRDM target given
/// by URL.
pub(super) fn takes_token_per_run(scope_id: &str) -> bool {
    scope_id.starts_with("sandbox+")
        || (crate::targets::is_token_target_url(scope_id) && saved_token_target(scope_id).is_none())
}

/// The `lodge deposit` that sends dataset `dataset` to the target with identity
/// `scope_id`, as it can be run: `--target` as [`target_argument`] gives it, and for a
/// DataCite, Zenodo or InvenioRDM target used by URL (its token given with each run), or a
/// sandbox that once refused to go without one, the `--token` it needs.
pub(super) fn deposit_command(store: &Store, scope_id: &str, dataset: i64) -> String {
    deposit_command_for(store, scope_id, &[dataset])
}

/// Where [`deposit_command`] of dataset `dataset` sends it: `" on HOST"` for a dataset
/// another machine added (a shared database) whose folder is not on this one, nor a copy of
/// it with its key (which would stand in): run here, it would only be left for HOST again.
/// Empty where it runs here.
pub(super) fn where_it_sends(store: &Store, dataset: i64) -> String {
    let Ok(Some(origin)) = store.added_elsewhere(dataset) else {
        return String::new();
    };
    let Ok(Some(row)) = store.dataset(dataset) else {
        return String::new();
    };
    let readable = |path: &str| std::path::Path::new(path).is_dir();
    let copy_here = row.key.is_some_and(|key| {
        (store.copies_of_key(&key, Some(dataset)).ok())
            .is_some_and(|copies| copies.iter().any(|c| readable(&c.path)))
    });
    match readable(&row.path) || copy_here {
        true => String::new(),
        false => format!(" on {origin}"),
    }
}

/// [`deposit_command`] for several datasets at once: `lodge deposit --target lab 3 4 7`.
pub(super) fn deposit_command_for(store: &Store, scope_id: &str, datasets: &[i64]) -> String {
    let datasets: Vec<String> = datasets.iter().map(i64::to_string).collect();
    let token = if needs_token(store, scope_id) {
        " --token TOKEN"
    } else {
        ""
    };
    format!(
        "lodge deposit --target {} {}{token}",
        super::output::shell_word(&target_argument(store, scope_id)),
        datasets.join(" ")
    )
}

/// Whether a command sending to `scope_id` must be given `--token`: a target used by its
/// URL (not saved with its token) whose kind takes one, or a sandbox started with one.
pub(super) fn needs_token(store: &Store, scope_id: &str) -> bool {
    match crate::targets::is_token_target_url(scope_id) {
        true => saved_token_target(scope_id).is_none(),
        false => scope_id.starts_with("sandbox+") && sandbox_wants_token(store, scope_id),
    }
}

/// Whether the sandbox at `scope_id` wants a token (it was started with `--token`): it ever
/// refused Lodge for want of it, or a run gave it one. Asked once a run for each: the
/// reports ask for every row.
fn sandbox_wants_token(store: &Store, scope_id: &str) -> bool {
    static ASKED: std::sync::Mutex<Vec<(String, bool)>> = std::sync::Mutex::new(Vec::new());
    let mut asked = ASKED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, wants)) = asked.iter().find(|(scope, _)| scope == scope_id) {
        return *wants;
    }
    // Refused for want of it, or given it from the first (and so never refused).
    let wants = store
        .target_ever_refused_credentials(scope_id)
        .unwrap_or(false)
        || store.target_took_token(scope_id).unwrap_or(false);
    asked.push((scope_id.to_string(), wants));
    wants
}

/// The DataCite, Zenodo or InvenioRDM target saved with identity `scope_id`, if there is
/// one: its name and configuration.
fn saved_token_target(scope_id: &str) -> Option<&'static (String, crate::config::TargetConfig)> {
    if !crate::targets::is_token_target_url(scope_id) {
        return None;
    }
    // Read once a run: the reports ask for each paused row, and working out a target's
    // identity builds its HTTP client.
    static SAVED: std::sync::OnceLock<Vec<(String, (String, crate::config::TargetConfig))>> =
        std::sync::OnceLock::new();
    let saved = SAVED.get_or_init(|| {
        let Ok(config) = Config::load(&config_path()) else {
            return Vec::new();
        };
        config
            .targets
            .into_iter()
            .filter(|(_, spec)| spec.takes_token())
            .filter_map(|(name, spec)| Some((scope_id_of(&name, &spec).ok()?, (name, spec))))
            .collect()
    });
    saved
        .iter()
        .find(|(scope, _)| scope == scope_id)
        .map(|(_, target)| target)
}

/// The saved target whose token a URL given in its place was sent (see
/// `saved_token_for_url`), when that URL is not the target's own: a DataCite URL of the
/// same prefix with another `repository=`, say. `None` for a saved name, a URL given with
/// its own token, or the saved target's own URL.
pub(super) fn token_borrowed_from(name_or_url: &str, token_given: bool) -> Option<String> {
    if token_given || !name_or_url.contains("://") {
        return None;
    }
    let scope = open_target(name_or_url, None).ok()?.scope_id().to_string();
    let (name, spec) = saved_token_target(&scope)?;
    let own = crate::targets::with_lowercase_scheme(spec.url.trim());
    (own != crate::targets::with_lowercase_scheme(name_or_url.trim())).then(|| name.clone())
}

/// What to do when a saved DataCite, Zenodo or InvenioRDM target (identity `scope_id`) had
/// its token refused: store the right one (or put it in the variable it is read from).
/// `None` for any other target.
pub(super) fn stored_token_fix(scope_id: &str) -> Option<String> {
    let (name, spec) = saved_token_target(scope_id)?;
    Some(match &spec.secret_env {
        Some(var) => format!("put the right token in ${var}, where target '{name}' reads it"),
        None => format!(
            "store the right token with `{}`",
            crate::config::credentials::add_secret_command(name, spec, "--secret-stdin")
        ),
    })
}

/// Open the target (a name or a URL); a DataCite target with `landing_from=` gets the
/// landing page of each of `keys` from the record its deposit to that other target
/// recorded ([`crate::engine::landing::landing_of`]: a draft told apart).
pub(super) fn open_deposit_target(
    store: &Store,
    name_or_url: &str,
    token: Option<String>,
    keys: &[ContentKey],
) -> anyhow::Result<Arc<dyn Target>> {
    let path = config_path();
    let config = config_for(&path, name_or_url.contains("://"))?;
    // A saved DataCite target: its URL, with its own stored token.
    let (url, token) = match config.targets.get(name_or_url) {
        Some(spec) if crate::targets::with_lowercase_scheme(&spec.url).starts_with("datacite+") => {
            note_token_unused(name_or_url, spec, token.as_deref());
            let stored = crate::config::credentials::resolve_token(&path, name_or_url, spec)?;
            let url = crate::targets::with_lowercase_scheme(&spec.url).into_owned();
            (url, Some(stored.expose().to_string()))
        }
        None if name_or_url.starts_with("datacite+") => {
            let token = token.or_else(|| saved_token_for_url(&config, &path, name_or_url));
            (name_or_url.to_string(), token)
        }
        _ => (name_or_url.to_string(), token),
    };
    if let Some(rest) = url.strip_prefix("datacite+") {
        let target =
            crate::targets::datacite::DataCiteTarget::new(rest, token).map_err(|reason| {
                anyhow::anyhow!("'{url}' is not a usable DataCite target: {reason}")
            })?;
        if let Some(from) = target.landing_from().map(str::to_string) {
            // A URL, or the name of a saved target.
            let from_scope = cli_target_scope(&from)?;
            let mut pages = std::collections::HashMap::new();
            for key in keys {
                if let Some(landing) = crate::engine::landing::landing_of(store, &from_scope, key)?
                {
                    pages.insert(key.to_hex(), landing);
                }
            }
            return Ok(Arc::new(target.with_landing_pages(pages)));
        }
        return Ok(Arc::new(target));
    }
    open_cli_target(&url, token)
}
