//! `lodge status`, `history`, `log` and `forget`: read what the store knows.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::process::ExitCode;
use std::time::Duration;

use super::Database;
use super::deposit::{how_to_resume, refusal_hint, rescan_hint, retry_hint};
use super::output::{DatasetNames, check_json, padded, time_text};
use super::output::{say, say_err};
use super::target_arg::{deposit_command, target_argument, where_it_sends};
use crate::catalog::FolderChange;
use crate::engine::verify::verdict_of;
use crate::store::{DatasetRow, EventKind, EventRow, StatusRow, Store, StoreError};
use crate::wording::{count_of, on_one_line};

/// The states `--state` takes: a job's, and `unfinished` (queued, running and waiting).
pub const JOB_STATES: [&str; 8] = [
    "queued",
    "running",
    "waiting",
    "unfinished",
    "deposited",
    "existing",
    "failed",
    "rejected",
];

/// What `lodge status` also calls a dataset for a target, though no job has these states:
/// never queued there, or queued only under keys before its last scan.
pub const DATASET_STATES: [&str; 2] = ["new", "changed"];

/// Which lines of `status` or `history` to print. Totals are always the whole store's.
#[derive(Debug, Default, clap::Args)]
pub struct ItemFilter {
    /// Only these datasets (number, folder, name or key prefix of 8 or more characters); all by default.
    #[arg(value_name = "DATASET")]
    pub datasets: Vec<String>,
    /// Only items in this state (repeatable; `unfinished` is queued, running and waiting
    /// together).
    #[arg(long = "state", value_name = "STATE", value_parser = JOB_STATES)]
    pub states: Vec<String>,
    /// Only items of this target (name or URL).
    #[arg(long, value_name = "TARGET", value_parser = super::parse_target)]
    pub target: Option<String>,
}

/// The dataset `selector` names (number, folder, name or key prefix); or, for a dataset
/// removed from the list, its number, or its name or folder as its removal logged them
/// (every removed one of that name): its jobs and events stay, under it. Anything else is
/// the error naming the selector.
fn dataset_or_removed(store: &Store, selector: &str, listing: Listing) -> anyhow::Result<Vec<i64>> {
    // `#12` is how job numbers are written: a job is not a dataset.
    if let Some(job) = selector.strip_prefix('#')
        && !job.is_empty()
        && job.bytes().all(|b| b.is_ascii_digit())
    {
        anyhow::bail!(
            "'{selector}' is a job's number, and these are datasets: `lodge history --job \
             {job}` lists that job (`lodge log --job {job}` its events)"
        );
    }
    let e = match super::add::select_datasets(store, &[selector.to_string()], false) {
        Ok(named) => return Ok(vec![named[0].id]),
        Err(e) => e,
    };
    // `status` lists the datasets on the list: a removed one's deposits are in the history.
    let left = |ids: &[i64], they: &str| match listing {
        Listing::History => format!("; what {they} left:"),
        Listing::Status => {
            let ids: Vec<String> = ids.iter().map(i64::to_string).collect();
            format!(
                ", so `status` has no line for {}; `lodge history {}` lists what {they} \
                 deposited",
                if ids.len() == 1 { "it" } else { "them" },
                ids.join(" ")
            )
        }
    };
    let by_number = selector.bytes().all(|b| b.is_ascii_digit());
    match e.downcast_ref::<StoreError>() {
        Some(StoreError::RemovedDataset { id, .. }) if by_number => {
            say_err!(
                "dataset {id} was removed from the list{}",
                left(&[*id], "it")
            );
            Ok(vec![*id])
        }
        Some(StoreError::AmbiguousDataset { .. }) => Err(e),
        _ => {
            let removed = super::add::removed_named(store, selector)?;
            if removed.is_empty() {
                return Err(e);
            }
            let named: Vec<String> = removed
                .iter()
                .map(|r| format!("{} {} ({})", r.id, r.name, on_one_line(&r.path)))
                .collect();
            let ids: Vec<i64> = removed.iter().map(|r| r.id).collect();
            say_err!(
                "{} removed from the list{}",
                match named.len() {
                    1 => format!("dataset {} was", named[0]),
                    _ => format!("datasets {} were", named.join(", ")),
                },
                left(
                    &ids,
                    match named.len() {
                        1 => "it",
                        _ => "they",
                    }
                )
            );
            Ok(removed.into_iter().map(|r| r.id).collect())
        }
    }
}

/// Which report a dataset filter is for: `status` lists the datasets on the list, `history`
/// every job, a removed dataset's too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listing {
    Status,
    History,
}

/// An [`ItemFilter`] with its names looked up: the test of a line's dataset, target and
/// state.
struct Wanted {
    /// The datasets named, by id; `None` when none were (every dataset).
    datasets: Option<HashSet<i64>>,
    /// The target's identity, when one was named.
    target: Option<String>,
    states: Vec<String>,
}

impl Wanted {
    /// Whether a line of `dataset` on `target` in `state` is wanted.
    fn wants(&self, dataset: Option<i64>, target: Option<&str>, state: &str) -> bool {
        (self.datasets.as_ref()).is_none_or(|d| dataset.is_some_and(|id| d.contains(&id)))
            && self.wants_beside_dataset(target, state)
    }

    /// [`Wanted::wants`] for the target and state alone (a line that is a named dataset's
    /// another way: a copy's deposit of its key).
    fn wants_beside_dataset(&self, target: Option<&str>, state: &str) -> bool {
        self.target.as_deref().is_none_or(|t| target == Some(t))
            && (self.states.is_empty()
                || self.states.iter().any(|s| {
                    s == state
                        || (s == "unfinished" && matches!(state, "queued" | "running" | "waiting"))
                }))
    }
}

impl ItemFilter {
    /// The test of a line's dataset, target and state, with the names looked up once (an
    /// unknown one is an error).
    fn resolve(&self, store: &Store, listing: Listing) -> anyhow::Result<Wanted> {
        let datasets: Option<HashSet<i64>> = match self.datasets.is_empty() {
            true => None,
            false => Some(
                self.datasets
                    .iter()
                    .map(|selector| dataset_or_removed(store, selector, listing))
                    .collect::<anyhow::Result<Vec<_>>>()?
                    .into_iter()
                    .flatten()
                    .collect(),
            ),
        };
        let target = match &self.target {
            Some(name_or_url) => Some(super::target_arg::stored_target_scope(store, name_or_url)?),
            None => None,
        };
        Ok(Wanted {
            datasets,
            target,
            states: self.states.clone(),
        })
    }

    fn is_empty(&self) -> bool {
        self.datasets.is_empty() && self.states.is_empty() && self.target.is_none()
    }
}

/// A process sending deposits to a target now, as a person reads it.
struct Sender {
    text: String,
    /// The window works its targets' whole queue; a `lodge deposit` only the jobs it was
    /// given (and one on another machine is not known).
    works_the_queue: bool,
}

/// Who is sending deposits to each target now (a live lease, by a process not known to
/// have ended), by target: the first found.
fn senders_by_target(store: &Store) -> anyhow::Result<HashMap<String, Sender>> {
    let leased: Vec<i64> = store
        .live_leases()?
        .into_iter()
        .map(|(job, ..)| job)
        .collect();
    let mut senders = HashMap::new();
    for job in store.jobs(&leased)? {
        if crate::engine::is_being_sent(&job)
            && let Some(owner) = &job.lease_owner
        {
            (senders.entry(job.target.clone())).or_insert_with(|| Sender {
                text: crate::engine::owner_text(owner),
                works_the_queue: crate::engine::owner_program(owner)
                    == Some(crate::engine::LodgeProgram::Window),
            });
        }
    }
    Ok(senders)
}

/// What the totals' pending jobs that no item lists are, a line each: a removed dataset's
/// job still on the queue, or one of a dataset's earlier key. No `lodge deposit` sends
/// either (it runs the jobs of the datasets it is given); a window working the target's
/// queue ends them rejected. `listed` are the items' jobs, `datasets` those listed.
fn pending_not_listed(
    store: &crate::store::Store,
    listed: &HashSet<i64>,
    datasets: &HashMap<i64, String>,
) -> anyhow::Result<Vec<String>> {
    let unlisted: Vec<i64> = store
        .active_job_ids(None)?
        .into_iter()
        .filter(|j| !listed.contains(j))
        .collect();
    let mut lines = Vec::new();
    for job in store.jobs(&unlisted)? {
        let name = job.dataset_name.as_deref().unwrap_or_default();
        let line = match job.dataset_id.filter(|d| datasets.contains_key(d)) {
            None => {
                // A removed dataset's job keeps no dataset: its removal's log line names it.
                let removed = match store.dataset_id_of_job_logged(job.id)? {
                    Some(id) => store.removed_dataset_row(id)?,
                    None => None,
                };
                let whose = match &removed {
                    Some(d) => format!("removed dataset {} {}'s", d.id, d.name),
                    None => "a removed dataset's".to_string(),
                };
                // Its folder added again (the same key): that dataset's deposit carries
                // the job on.
                let copy = store.copies_of_key(&job.key, None)?.into_iter().next();
                match (copy, removed) {
                    (Some(copy), _) => format!(
                        "pending job {} is {whose}, no item above; dataset {} {} has its key: \
                         `{}` carries it on (else `lodge cancel {}` ends it)",
                        job.id,
                        copy.dataset_id,
                        copy.name,
                        deposit_command(store, &job.target, copy.dataset_id),
                        job.id
                    ),
                    (None, removed) => format!(
                        "pending job {} is {whose}, no item above: no `lodge deposit` sends it \
                         now (a window working this target's queue ends it rejected); `lodge \
                         cancel {}` ends it{}",
                        job.id,
                        job.id,
                        removed
                            .map(|d| format!(
                                ", or `lodge add {}` adds the folder again to deposit it",
                                super::output::shell_word(&d.path)
                            ))
                            .unwrap_or_default()
                    ),
                }
            }
            Some(dataset) => format!(
                "pending job {} is of dataset {dataset} {name}'s earlier key (rescanned or its \
                 metadata edited since), no item above: no `lodge deposit` sends it now; \
                 `lodge log --job {}` shows it, `lodge cancel {}` ends it",
                job.id, job.id, job.id
            ),
        };
        lines.push(line);
    }
    Ok(lines)
}

/// A `new` line on `target` for each dataset of `rows` that has none there (never queued
/// there, nor deposited there by a copy with its key).
fn not_on_target(rows: &[StatusRow], target: &str) -> Vec<StatusRow> {
    let there: HashSet<i64> = rows
        .iter()
        .filter(|r| r.target.as_deref() == Some(target))
        .map(|r| r.dataset)
        .collect();
    let mut seen = HashSet::new();
    rows.iter()
        .filter(|r| !there.contains(&r.dataset) && seen.insert(r.dataset))
        .map(|r| StatusRow {
            dataset: r.dataset,
            name: r.name.clone(),
            path: r.path.clone(),
            key: r.key.clone(),
            target: Some(target.to_string()),
            state: "new".into(),
            job: None,
            identifier: None,
            url: None,
            attempts: 0,
            last_error: None,
            earlier_identifier: None,
            shared_with: None,
        })
        .collect()
}

pub fn status(db: &Database, filter: &ItemFilter, json: bool) -> anyhow::Result<ExitCode> {
    // Taken by `--state` so as to say where they are, rather than clap's nearest value.
    if filter.states.iter().any(|s| s == "dismissed") {
        anyhow::bail!(
            "deposits given up on (dismissed) leave `lodge status`: `lodge history --state \
             dismissed` lists them"
        );
    }
    let store = db.open_existing()?;
    let wanted = filter.resolve(&store, Listing::Status)?;
    let all_rows = store.status_rows()?;
    // Every dataset's name, for a row that reports a copy's job (the copy may be filtered out).
    let all_names: HashMap<i64, String> = all_rows
        .iter()
        .map(|r| (r.dataset, r.name.clone()))
        .collect();
    let listed = all_rows.len();
    let failed_item_jobs: HashSet<i64> = all_rows
        .iter()
        .filter(|r| r.state == "failed")
        .filter_map(|r| r.job)
        .collect();
    let failed_items = all_rows.iter().filter(|r| r.state == "failed").count() as u64;
    let listed_jobs: HashSet<i64> = all_rows.iter().filter_map(|r| r.job).collect();
    let mut all_rows = all_rows;
    if let Some(target) = &wanted.target {
        // Asked about one target, a dataset not deposited there is new there, whatever
        // went elsewhere: "what is left to send to the lab's repository?"
        all_rows.extend(not_on_target(&all_rows, target));
    }
    let rows: Vec<StatusRow> = all_rows
        .into_iter()
        .filter(|r| wanted.wants(Some(r.dataset), r.target.as_deref(), &r.state))
        .collect();
    let totals = store.totals()?;
    // Each landed deposit's latest check (`lodge verify`, the window's Verify), by target
    // and key: a deposit found damaged says so under its row.
    let checks: HashMap<(String, String), EventRow> = store
        .latest_checks()?
        .into_iter()
        .filter_map(|c| Some(((c.target.clone()?, c.content_key.clone()?), c)))
        .collect();
    let check_of = |r: &StatusRow| -> Option<&EventRow> {
        if !matches!(r.state.as_str(), "deposited" | "existing") {
            return None;
        }
        checks.get(&(r.target.clone()?, r.key.clone()?))
    };
    let working_on = senders_by_target(&store)?;
    let names = super::target_arg::TargetNames::load();
    let window_port = crate::sandbox::window::port_file();
    let window_can_send = |scope: &str| {
        names.saved(scope).is_some()
            || crate::sandbox::window::is_window_sandbox(scope, &window_port)
    };
    // A drafting target's deposit stays a draft until a deposit to its site's publishing
    // target publishes it.
    let published = crate::engine::verify::published_records(&store)?;
    let is_draft = |r: &StatusRow| {
        matches!(r.state.as_str(), "deposited" | "existing")
            && r.target
                .as_deref()
                .is_some_and(|t| published.is_draft(t, r.identifier.as_deref()))
    };
    // This machine's window paused by its Pause button (and so when it is next opened).
    let window_paused = crate::settings::window_paused_path().exists();
    // What a deposit would refuse of each dataset not deposited yet (its metadata's
    // problems): `new` alone would not say it cannot go as it is.
    let mut refused_for: HashMap<i64, Vec<String>> = HashMap::new();
    if rows.iter().any(|r| r.state == "new") {
        for d in store.datasets()? {
            let problems = d.metadata.problems();
            if !problems.is_empty() {
                refused_for.insert(d.id, problems.into_iter().map(|p| p.message).collect());
            }
        }
    }
    let refused_for = |r: &StatusRow| {
        (r.state == "new")
            .then(|| refused_for.get(&r.dataset))
            .flatten()
    };
    let gone: Vec<DatasetRow> = crate::catalog::folders_gone(&store)?
        .into_iter()
        .filter(|d| rows.iter().any(|r| r.dataset == d.id))
        .collect();
    // A folder changed since its scan is not deposited as it is, whatever its rows say.
    let changed =
        crate::catalog::folders_changed(&store, |id| rows.iter().any(|r| r.dataset == id))?;
    // Why each unfinished item's target is paused, if it is: such an item stays queued
    // until the user acts, and its state alone would not say so.
    let mut paused_targets: HashMap<String, Option<String>> = HashMap::new();
    let mut paused = Vec::with_capacity(rows.len());
    for r in &rows {
        let reason = match &r.target {
            Some(t) if matches!(r.state.as_str(), "queued" | "waiting" | "running") => {
                if !paused_targets.contains_key(t) {
                    paused_targets.insert(t.clone(), store.target_paused(t)?);
                }
                paused_targets[t].clone()
            }
            _ => None,
        };
        paused.push(reason);
    }
    if json {
        // Who sends each running item, and whether that process still runs.
        let mut senders = HashMap::new();
        for r in rows.iter().filter(|r| r.state == "running") {
            if let Some(job) = r.job {
                senders.insert(job, super::output::sender_json(&store.job(job)?));
            }
        }
        let items: Vec<serde_json::Value> = rows
            .iter()
            .zip(&paused)
            .map(|(r, paused)| {
                serde_json::json!({
                    "dataset": r.dataset,
                    "name": r.name,
                    "path": r.path,
                    "key": r.key,
                    "target": r.target,
                    // The name it is saved under, as the text shows it and `history --json`
                    // has it (null when it is not saved).
                    "target_name": r.target.as_deref().and_then(|t| names.saved(t)),
                    "state": r.state,
                    "job": r.job,
                    "identifier": r.identifier,
                    "url": r.url,
                    "attempts": r.attempts,
                    "last_error": r.last_error,
                    "earlier_identifier": r.earlier_identifier,
                    "shared_with": r.shared_with,
                    "draft": is_draft(r),
                    "paused": paused,
                    "last_check": check_of(r).and_then(check_json),
                    "folder_gone": gone.iter().any(|d| d.id == r.dataset),
                    "changed_since_scan": changed
                        .iter()
                        .find(|(d, _)| d.id == r.dataset)
                        .map(|(_, change)| change.to_json()),
                    "sender": r.job.and_then(|j| senders.get(&j)),
                    "retry_due": retry_due(&store, r).ok().flatten().map(time_text),
                    "metadata_problems": refused_for(r),
                })
            })
            .collect();
        let out = serde_json::json!({ "items": items, "totals": totals });
        say!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    if listed == 0 && !store.removed_datasets()?.is_empty() {
        say!(
            "no datasets on the list (those removed keep their deposits in `lodge history`): \
             add one with `lodge add DIR`"
        );
    } else if listed == 0 {
        say!("no datasets yet: add one with `lodge add DIR`");
    } else if rows.is_empty() {
        say!("no items match (of {listed}); `lodge status` lists every one");
    }
    if let Some(scope) = &wanted.target {
        super::target_arg::note_if_never_used(&store, scope)?;
    }
    // Running items nothing sends now (their process killed, or their lease run out), by
    // target: one command takes over all of a target's, said after the list.
    let mut left_running = HashSet::new();
    let mut left_by_target: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    // How many each target has: where more than one, each item's note points to that one
    // command rather than repeat a command of its own.
    let mut left_on: HashMap<String, HashSet<i64>> = HashMap::new();
    for r in rows.iter().filter(|r| r.state == "running") {
        if let (Some(job), Some(scope)) = (r.job, &r.target)
            && !crate::engine::is_being_sent(&store.job(job)?)
        {
            left_on.entry(scope.clone()).or_default().insert(job);
        }
    }
    for (r, paused) in rows.iter().zip(&paused) {
        let key = r
            .key
            .as_deref()
            .map(|k| &k[..12])
            .unwrap_or("(not scanned)");
        let scope = r.target.as_deref().unwrap_or("-");
        let target = names.of(scope);
        let id = r.identifier.as_deref().unwrap_or("");
        let job = r.job.map(|j| format!("job {j}")).unwrap_or_default();
        if r.target.is_none() {
            // No job anywhere: nothing to say of a target, a job or its attempts.
            say!(
                "{:>4} {} {key} {:<10} not deposited anywhere yet",
                r.dataset,
                padded(&r.name, 24),
                r.state
            );
        } else if r.state == "new" {
            // Listed for the target asked about, where it has no job.
            say!(
                "{:>4} {} {key} {:<10} {target}: not deposited there yet",
                r.dataset,
                padded(&r.name, 24),
                r.state
            );
        } else {
            // A changed item has neither a record nor a job for its new key: no gaps.
            let attempts = format!("attempts {}", r.attempts);
            let rest: Vec<&str> = [target, id, &job, &attempts]
                .into_iter()
                .filter(|part| !part.is_empty())
                .collect();
            say!(
                "{:>4} {} {key} {:<10} {}",
                r.dataset,
                padded(&r.name, 24),
                r.state,
                rest.join(" ")
            );
        }
        if let Some(copy) = r.shared_with {
            say!("       {}", shared_deposit_note(&all_names, copy, r.job));
        }
        if let Some(problems) = refused_for(r) {
            let more = match problems.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            say!(
                "       a deposit would refuse it as it is: {}{more}; `lodge show {}` says what \
                 to add",
                problems[0],
                r.dataset
            );
        }
        if let Some(e) = &r.last_error
            && !matches!(r.state.as_str(), "deposited" | "existing")
            && paused.as_ref() != Some(e)
        {
            say!("       last error: {e}");
        }
        // A refusal stays until what it names is put right, or it is given up on: where.
        if r.state == "rejected"
            && let Some(job) = r.job
        {
            let job = store.job(job)?;
            let hint = format!(
                "{}{}",
                rescan_hint(&store, &job),
                refusal_hint(&job, store.target_url(scope)?.as_deref())
            );
            let hint = hint.trim_start_matches(" — ");
            match (hint.is_empty(), hint.contains("dismiss")) {
                (true, _) => say!("       give it up: `lodge dismiss {}`", job.id),
                (false, true) => say!("       {hint}"),
                (false, false) => say!("       {hint}; or give it up: `lodge dismiss {}`", job.id),
            }
        }
        if is_draft(r) {
            say!("       {}", super::show::DRAFT_NOTE);
        }
        if r.state == "running"
            && let Some(job) = r.job
        {
            let job = store.job(job)?;
            let resume = deposit_command(&store, scope, r.dataset);
            let left_with_others =
                (left_on.get(scope)).is_some_and(|jobs| jobs.len() > 1 && jobs.contains(&job.id));
            let resume = match left_with_others {
                true => super::output::TakeOver::SaidBelow,
                false => super::output::TakeOver::Command(&resume),
            };
            if let Some(note) = super::output::running_note(&job, resume) {
                say!("       {note}");
            }
            if !crate::engine::is_being_sent(&job) && left_running.insert(job.id) {
                left_by_target
                    .entry(scope.to_string())
                    .or_default()
                    .push(r.dataset);
            }
        }
        // Nothing sends a queued job but a process working on its target: say which, the
        // one at work there now if one is (another started beside it would only share the
        // queue).
        if matches!(r.state.as_str(), "queued" | "waiting") && paused.is_none() {
            // A retry waits out its backoff (or the server's Retry-After) before anything
            // sends it: "now" would have the deposit named seem to hang.
            let when = match retry_due(&store, r)? {
                Some(due) => format!(
                    "at {}, when its next attempt is due (a retry waits out its backoff, or \
                     the server's Retry-After)",
                    time_text(due)
                ),
                None => "now".to_string(),
            };
            match working_on.get(scope) {
                Some(sender) if sender.works_the_queue => say!(
                    "       on the queue of {target}, which {} is working on: it sends \
                     it in its turn{}",
                    sender.text,
                    match when.as_str() {
                        "now" => String::new(),
                        _ => format!(", {when}"),
                    }
                ),
                // A `lodge deposit` sends only the jobs it was given: maybe not this one.
                Some(sender) => say!(
                    "       on the queue of {target}, which {} is working on: it sends it in \
                     its turn if that deposit was given it (if not, `{}`{} sends it{})",
                    sender.text,
                    deposit_command(&store, scope, r.dataset),
                    where_it_sends(&store, r.dataset),
                    match when.as_str() {
                        "now" => String::new(),
                        _ => format!(" {when}"),
                    }
                ),
                // The window on this machine was paused by its Pause button: it holds
                // back what it would send, which a deposit here would send unasked.
                None if window_paused => say!(
                    "       on the queue: this machine's window holds its deposits paused \
                     (its Resume sends it), or `{}`{} sends it {when}",
                    deposit_command(&store, scope, r.dataset),
                    where_it_sends(&store, r.dataset)
                ),
                // The window sends to the targets it can pick (the saved ones, and its own
                // sandbox): one given by URL in a terminal only a deposit sends.
                None if window_can_send(scope) => say!(
                    "       on the queue: the window sends it while it works on {target}, or \
                     `{}`{} sends it {when}",
                    deposit_command(&store, scope, r.dataset),
                    where_it_sends(&store, r.dataset)
                ),
                None => say!(
                    "       on the queue: `{}`{} sends it {when}",
                    deposit_command(&store, scope, r.dataset),
                    where_it_sends(&store, r.dataset)
                ),
            }
        }
        if let Some(reason) = paused {
            // What `--target` takes: the saved target's name, or its URL (an S3 target's
            // identity is no URL).
            let argument = target_argument(&store, scope);
            let named = super::output::shell_word(&argument);
            say!(
                "       {target} is paused: {reason} — {}, then deposit it again \
                 (or give up what waits for it: `lodge cancel --target {named}` takes it off \
                 the queue, then `lodge dismiss --target {named}`)",
                how_to_resume(reason, scope),
            );
        }
        if let Some(check) = check_of(r)
            && let Some((false, found)) = verdict_of(check)
        {
            say!(
                "       DAMAGED when checked {}: {found} ({})",
                time_text(check.at),
                super::output::damage_hint(&store, found, r.dataset, scope)
            );
        }
        if r.state == "changed" {
            let before = match &r.earlier_identifier {
                // A rescan or a metadata edit gives a new key: either may be what changed.
                Some(id) => format!("deposited as {id} under its earlier key (before its last rescan or metadata edit)"),
                None => "its earlier key went here (before its last rescan or metadata edit), not deposited".to_string(),
            };
            say!(
                "       {before}; this content is not deposited here yet: `{}`",
                deposit_command(&store, scope, r.dataset)
            );
        }
    }
    if !filter.is_empty() && !rows.is_empty() {
        say!("{} of {listed} shown; totals for every item:", rows.len());
    } else if !filter.is_empty() {
        say!("totals for every item:");
    }
    say!(
        "replays {}, conflicts (server said exists) {}, found by look-up {}, retries {}, failed {}, \
         rejected {}, pending {}{}",
        totals.replays,
        totals.conflicts,
        totals.found_by_lookup,
        totals.retries,
        totals.failed,
        totals.rejected,
        totals.pending,
        totals
            .oldest_pending_age_secs
            .map(|s| format!(", oldest pending {s:.0} s"))
            .unwrap_or_default()
    );
    // The totals count jobs; the items are each dataset's latest per target. A failed job
    // of a dataset's earlier key (scanned again since, its new key not landed there) is in
    // the history only. Said under a filtered list too: its totals are the whole store's,
    // and a count no line explains reads as a job lost.
    if totals.failed > failed_items {
        let not_items = totals.failed - failed_items;
        // Their numbers, for the command that gives them up (a retry cannot send them).
        let jobs: Vec<String> = store
            .failed_job_ids(None)?
            .into_iter()
            .filter(|j| !failed_item_jobs.contains(j))
            .map(|j| j.to_string())
            .collect();
        let jobs = jobs_to_dismiss(&jobs, "JOB...");
        let it = if not_items == 1 { "it" } else { "them" };
        say!(
            "of the failed, {} of a dataset's earlier key (scanned again since), not an item \
             above: `lodge history --state failed` lists {it}, and `lodge dismiss {jobs}` \
             gives {it} up",
            count_of(not_items, "is a job", "are jobs"),
        );
    }
    if totals.pending > 0 {
        for line in pending_not_listed(&store, &listed_jobs, &all_names)? {
            say!("{line}");
        }
    }
    // Failed items wait for the user; say the one command that re-queues them. A failed
    // job whose key landed since through another job is not one of them.
    let retryable: HashSet<i64> = store.failed_job_ids(None)?.into_iter().collect();
    // A copy's row reports its twin's job: one job, named once.
    let mut named = HashSet::new();
    let failed: Vec<i64> = rows
        .iter()
        .filter(|r| r.state == "failed")
        .filter_map(|r| r.job)
        .filter(|j| retryable.contains(j) && named.insert(*j))
        .collect();
    if let Some(line) = retry_hint(&store, failed.clone()) {
        say!("{line}");
        // A retry cannot help a deposit to a target that is gone for good, or mistyped.
        let targets: HashSet<String> = store
            .jobs(&failed)?
            .into_iter()
            .map(|job| job.target)
            .collect();
        let (it, its) = match (failed.len(), targets.len()) {
            (1, _) => ("it", "its target"),
            (_, 1) => ("them", "their target"),
            _ => ("them", "their targets"),
        };
        let numbers: Vec<String> = failed.iter().map(i64::to_string).collect();
        // Too many to list: all of one target's are given up on by naming the target.
        let many = match targets.iter().next() {
            Some(scope) if targets.len() == 1 => format!(
                "--target {}",
                super::output::shell_word(&super::target_arg::target_argument(&store, scope))
            ),
            _ => "JOB... | --target NAME|URL".to_string(),
        };
        let jobs = jobs_to_dismiss(&numbers, &many);
        say!(
            "to give up on {it} instead ({its} gone for good, or mistyped): \
             `lodge dismiss {jobs}`"
        );
    }
    for (scope, datasets) in left_by_target.iter().filter(|(_, d)| d.len() > 1) {
        say!(
            "{} items on {} were left running by processes that have ended or whose leases ran \
             out: `{}` takes them all over (with the same keys, looking first whether each \
             landed)",
            datasets.len(),
            names.of(scope),
            super::target_arg::deposit_command_for(&store, scope, datasets)
        );
    }
    if !changed.is_empty() {
        say!("folders changed since their last scan (a deposit sends the folder as scanned):");
        for (d, change) in &changed {
            say!("{:>4} {}: {}", d.id, d.name, change.describe());
        }
        // A folder that cannot be scanned now has its fix in its line; a scan would fail.
        let ids: Vec<String> = changed
            .iter()
            .filter(|(_, change)| matches!(change, FolderChange::Files(_)))
            .map(|(d, _)| d.id.to_string())
            .collect();
        if !ids.is_empty() {
            let (them, are) = match ids.len() {
                1 => ("it", "it is"),
                _ => ("them", "they are"),
            };
            say!(
                "`lodge scan {}` keys {them} as {are} now; deposit again to send that",
                ids.join(" ")
            );
        }
    }
    // A gone folder whose content is on the list again (added where it moved to, or a
    // copy of it): its old row is what is left to take off, not a folder to add.
    let mut moved = Vec::new();
    let mut gone_for_now = Vec::new();
    for d in gone {
        let here = match d.key {
            Some(key) => crate::engine::first_copy_here(store.copies_of_key(&key, Some(d.id))?),
            None => None,
        };
        match here {
            Some(copy) => moved.push((d, copy)),
            None => gone_for_now.push(d),
        }
    }
    for (d, copy) in &moved {
        say!(
            "folder gone: {} {} ({}); its content is on the list as dataset {} {} ({}), \
             where it moved to or a copy: `lodge remove {}` takes the old row off (what it \
             deposited stays)",
            d.id,
            d.name,
            on_one_line(&d.path),
            copy.dataset_id,
            copy.name,
            on_one_line(&copy.path),
            d.id
        );
    }
    let gone = gone_for_now;
    if !gone.is_empty() {
        let named: Vec<String> = gone
            .iter()
            .map(|d| format!("{} {} ({})", d.id, d.name, on_one_line(&d.path)))
            .collect();
        let ids: Vec<String> = gone.iter().map(|d| d.id.to_string()).collect();
        let (each, them, they) = match gone.len() {
            1 => ("it", "it", "it"),
            _ => ("each", "them", "they"),
        };
        say!(
            "folders gone (moved or deleted): {}. Add {each} where it is now (`lodge add \
             NEWPATH`); `lodge remove {}` takes {them} off the list (what {they} deposited \
             stays)",
            named.join(", "),
            ids.join(" "),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The line under a row that reports the job of `copy`, another dataset with the same key:
/// one job sends the content for both, so a retry of it is the row's too.
/// When a `waiting` item's next attempt is due (unix ms), if that is still to come.
fn retry_due(store: &Store, row: &StatusRow) -> anyhow::Result<Option<i64>> {
    let Some(job) = row.job.filter(|_| row.state == "waiting") else {
        return Ok(None);
    };
    let due = store.job(job)?.not_before;
    Ok((due > crate::store::now_ms()).then_some(due))
}

fn shared_deposit_note(names: &HashMap<i64, String>, copy: i64, job: Option<i64>) -> String {
    let name = names.get(&copy).map(String::as_str).unwrap_or("(removed)");
    let job = job.map(|j| format!(" (job {j})")).unwrap_or_default();
    format!(
        "the same key as dataset {copy} {name}: its deposit{job} is this one's too (one \
         record for both)"
    )
}

/// What `lodge dismiss` is given for the jobs numbered `jobs`: their numbers, up to five;
/// past that, `many` (the command's usage), rather than a line of numbers.
fn jobs_to_dismiss(jobs: &[String], many: &str) -> String {
    match jobs.len() {
        ..=5 => jobs.join(" "),
        _ => many.to_string(),
    }
}

pub fn history(
    db: &Database,
    filter: &ItemFilter,
    jobs: &[i64],
    json: bool,
    csv: bool,
) -> anyhow::Result<ExitCode> {
    let store = db.open_existing()?;
    let wanted = filter.resolve(&store, Listing::History)?;
    // A job that does not exist is named as `lodge log --job` names it.
    for id in jobs {
        store.job(*id)?;
    }
    let all_rows = store.history()?;
    let listed = all_rows.len();
    // Who queued each is said where more than one person or machine did (a shared
    // database), over every job, not the ones a filter leaves: one machine's own file would
    // repeat one name on every line, and a filter (a target, the failed) would hide who.
    let queued_by_many = (all_rows.iter())
        .filter_map(|r| r.queued_by.as_deref())
        .collect::<HashSet<&str>>()
        .len()
        > 1;
    // A named dataset's deposits are also those of its key a copy made or queued (one job
    // for every dataset with the key): by key, the named dataset each is of.
    let mut named_keys: HashMap<String, (i64, String)> = HashMap::new();
    for id in wanted.datasets.iter().flatten() {
        if let Some(d) = store.dataset(*id)?
            && let Some(key) = d.key
        {
            named_keys.entry(key.to_hex()).or_insert((d.id, d.name));
        }
    }
    // Of each line listed for a copy's deposit: the named dataset it is of.
    let mut shared: HashMap<i64, &(i64, String)> = HashMap::new();
    let rows: Vec<_> = all_rows
        .into_iter()
        // A job given up on is `dismissed` to `--state`, as the window's filter has it: not
        // among the failed still to retry.
        .filter(|r| jobs.is_empty() || jobs.contains(&r.job))
        .filter(|r| {
            let state = match r.dismissed_at {
                Some(_) => "dismissed",
                None => &r.state,
            };
            if wanted.wants(r.dataset, Some(&r.target), state) {
                return true;
            }
            match named_keys.get(&r.key) {
                Some(of) if wanted.wants_beside_dataset(Some(&r.target), state) => {
                    shared.insert(r.job, of);
                    true
                }
                _ => false,
            }
        })
        .collect();
    // A removed dataset's jobs keep its name, as its removal logged it; the file formats
    // are the window's Export's.
    let file = crate::history_file::HistoryFile::of(
        &store,
        rows,
        crate::config::saved_target_names(&crate::config::config_path()),
    )?;
    if json {
        say!("{}", serde_json::to_string_pretty(&file.to_json()?)?);
    } else if csv {
        file.write_csv(std::io::stdout())?;
    } else {
        let rows = file.rows();
        let removed: Vec<bool> = (0..rows.len()).map(|i| file.removed(i)).collect();
        if listed == 0 {
            say!("no deposits yet");
        } else if rows.is_empty() {
            say!("no jobs match (of {listed}); `lodge history` lists every one");
        }
        if let Some(scope) = &wanted.target {
            super::target_arg::note_if_never_used(&store, scope)?;
        }
        let names = super::target_arg::TargetNames::load();
        for (r, removed) in rows.iter().zip(&removed) {
            let by = match (&r.queued_by, queued_by_many) {
                (Some(who), true) => format!(" (queued by {who})"),
                _ => String::new(),
            };
            // An S3 or WebDAV record's identifier is its address: said once, not twice.
            let url = r
                .url
                .as_deref()
                .filter(|u| Some(*u) != r.identifier.as_deref());
            // Every attempt, those before a retry too; a replay made none.
            let attempts = match r.attempts {
                0 => String::new(),
                n => format!(" ({})", count_of(n, "attempt", "attempts")),
            };
            say!(
                "{} job {:<5} {:<9} {} {} {}{}{attempts}{by}{}",
                time_text(r.updated_at),
                r.job,
                r.state,
                padded(
                    &match (&r.name, removed) {
                        (Some(name), false) => name.clone(),
                        (Some(name), true) => format!("{name} (removed)"),
                        (None, _) => "(removed)".to_string(),
                    },
                    24
                ),
                names.of(&r.target),
                r.identifier.as_deref().unwrap_or("-"),
                url.map(|u| format!(" {u}")).unwrap_or_default(),
                match r.dismissed_at {
                    Some(_) => " (dismissed: given up on)",
                    None => "",
                }
            );
            if let Some((id, name)) = shared.get(&r.job) {
                say!(
                    "       {name}'s deposit too (dataset {id}, a copy with the same key: one \
                     deposit for both)"
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One event a line: `TIME KIND NAME: job N MESSAGE [attempt, HTTP status, delay] (who)`.
/// One event as a line of `lodge log`: its time, kind, dataset, job, `target` (when it is
/// to be named), words, and who.
fn print_event(e: &EventRow, name: Option<String>, target: Option<&str>) {
    let mut extra = Vec::new();
    // An attempt's message says which attempt it is already.
    if let Some(a) = e.attempt.filter(|_| e.kind != EventKind::Attempt) {
        extra.push(format!("attempt {a}"));
    }
    if let Some(s) = e.http_status {
        extra.push(format!("HTTP {s}"));
    }
    if let Some(d) = e.delay_ms {
        let wait = std::time::Duration::from_millis(d.try_into().unwrap_or_default());
        extra.push(format!("delay {}", crate::wording::wait_text(wait)));
    }
    let name = name.map(|n| format!("{n}: ")).unwrap_or_default();
    let job = e.job_id.map(|j| format!("job {j} ")).unwrap_or_default();
    let job = match target {
        Some(target) => format!("{job}({target}) "),
        None => job,
    };
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(" [{}]", extra.join(", "))
    };
    say!(
        "{} {:<15} {name}{job}{}{extra} ({})",
        time_text(e.at),
        e.kind.as_str(),
        e.message,
        e.actor
    );
}

/// Which events `lodge log` prints.
enum LogFilter {
    All,
    /// One dataset's (or every removed dataset's of one name).
    Dataset(Vec<i64>),
    Job(i64),
}

impl LogFilter {
    fn wants(&self, e: &EventRow) -> bool {
        match self {
            LogFilter::All => true,
            LogFilter::Dataset(ids) => e.dataset_id.is_some_and(|id| ids.contains(&id)),
            LogFilter::Job(id) => e.job_id == Some(*id),
        }
    }
}

pub async fn log(
    db: &Database,
    follow: bool,
    tail: usize,
    dataset: Option<&str>,
    job: Option<i64>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let store = db.open_existing()?;
    let names = RefCell::new(DatasetNames::default());
    // With more than one target, each deposit's line names its target (each may mint
    // `sbx-000001`).
    let targets = super::target_arg::TargetNames::load();
    let many_targets = store.target_scopes()?.len() > 1;
    let print_event = |e: &EventRow| {
        let name = names.borrow_mut().of(&store, e);
        match json {
            // The text leaves the name off a removal's own line, which names the dataset;
            // a JSON line has it in its field all the same.
            true => {
                let name = name.or_else(|| {
                    crate::store::RemovedDataset::from_event(e)
                        .map(|d| format!("{} (removed)", d.name))
                });
                say!("{}", event_json(e, name))
            }
            false => {
                let target = (e.target.as_deref())
                    .filter(|scope| many_targets && !e.message.contains(scope))
                    .map(|scope| targets.of(scope))
                    .filter(|name| !e.message.contains(name));
                print_event(e, name, target)
            }
        }
    };
    let filter = match (dataset, job) {
        // One name, one dataset (or the error naming it), a removed one's number included.
        (Some(selector), _) => {
            LogFilter::Dataset(dataset_or_removed(&store, selector, Listing::History)?)
        }
        // Named the way `lodge retry` names a job that does not exist.
        (None, Some(id)) => LogFilter::Job(store.job(id)?.id),
        (None, None) => LogFilter::All,
    };
    let last = last_event_id(&store)?;
    // Said before the events (an export piped to a file would otherwise be quietly short).
    let left_out = |shown: usize| {
        say_err!(
            "note: only the last {} shown, the earlier ones left out: `--tail N` shows more, \
             `--all` every one",
            count_of(shown as u64, "event", "events")
        )
    };
    let mut after = match filter {
        // A tail past every event shows them all (one past i64::MAX would wrap).
        LogFilter::All => {
            let after = last
                .saturating_sub(i64::try_from(tail).unwrap_or(i64::MAX))
                .max(0);
            let first = store.events_after(0, 1)?.first().map(|e| e.id);
            if tail > 0 && first.is_some_and(|first| first <= after) {
                left_out(tail);
            }
            after
        }
        // One job's or dataset's events: the last `tail` of them, read through the jobs.
        LogFilter::Job(id) => {
            let events = store.events_for_job(id)?;
            if tail > 0 && events.len() > tail {
                left_out(tail);
            }
            print_last(&events, tail, print_event);
            last
        }
        LogFilter::Dataset(ref ids) => {
            let mut events = Vec::new();
            for id in ids {
                events.extend(store.events_for_dataset(*id)?);
            }
            events.sort_by_key(|e| e.id);
            events.dedup_by_key(|e| e.id);
            if tail > 0 && events.len() > tail {
                left_out(tail);
            }
            print_last(&events, tail, print_event);
            last
        }
    };
    const PAGE: usize = 1000;
    loop {
        let events = store.events_after(after, PAGE)?;
        for e in &events {
            if filter.wants(e) {
                print_event(e);
            }
            after = e.id;
        }
        // A full page: more are waiting, follow or not.
        if events.len() == PAGE {
            continue;
        }
        if !follow {
            break;
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(300)) => {}
            _ = tokio::signal::ctrl_c() => break,
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The last `tail` of `events` (oldest first).
fn print_last(events: &[EventRow], tail: usize, print: impl Fn(&EventRow)) {
    events
        .iter()
        .skip(events.len().saturating_sub(tail))
        .for_each(print);
}

/// One event as a line of JSON (`lodge log --json`): the stored fields, the time also as
/// text, the dataset's name as the text log shows it (`dataset_name`), and nothing left out
/// when empty, so every line has the same keys.
fn event_json(e: &EventRow, dataset_name: Option<String>) -> serde_json::Value {
    serde_json::json!({
        "id": e.id,
        "time": time_text(e.at),
        "at_ms": e.at,
        "kind": e.kind,
        "job": e.job_id,
        "dataset": e.dataset_id,
        "dataset_name": dataset_name,
        "target": e.target,
        "key": e.content_key,
        "attempt": e.attempt,
        "http_status": e.http_status,
        "delay_ms": e.delay_ms,
        "message": e.message,
        "actor": e.actor,
    })
}

fn last_event_id(store: &Store) -> anyhow::Result<i64> {
    Ok(store.last_event_id()?)
}

/// `lodge forget`: drop recorded results older than `older_than` (of `target` alone, when
/// given). The record of a deposit is what keeps a deposit run again from asking the server
/// at all, so nothing is forgotten without `yes`: without it, what would be is said.
pub fn forget(
    db: &Database,
    older_than: Duration,
    target: Option<String>,
    yes: bool,
) -> anyhow::Result<ExitCode> {
    let store = db.open_existing()?;
    let target = match target {
        Some(name_or_url) => Some(super::target_arg::stored_target_scope(
            &store,
            &name_or_url,
        )?),
        None => None,
    };
    let age = older_than.as_millis() as i64;
    let by_target = store.results_older_than(age, target.as_deref())?;
    let total: u64 = by_target.iter().map(|(_, n)| n).sum();
    if total == 0 {
        say!(
            "nothing to forget: no result was recorded longer ago than {}",
            age_text(older_than)
        );
        // A target this database never used is most likely a typo: say so.
        if let Some(scope) = target.as_deref() {
            super::target_arg::note_if_never_used(&store, scope)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let names = super::target_arg::TargetNames::load();
    // A lab's shared database: what is forgotten is forgotten for every machine on it.
    let shared = match store.location() {
        crate::store::StoreLocation::Postgres(_) => format!(
            " of the shared database {}, for every machine that uses it",
            store.location()
        ),
        crate::store::StoreLocation::File(_) => String::new(),
    };
    if !yes {
        say!(
            "would forget {}{shared}:",
            count_of(total, "recorded result", "recorded results")
        );
        for (scope, n) in &by_target {
            say!("  {n} of {}", names.of(scope));
        }
        // InvenioRDM and Zenodo find a key's record by a search of the account's records,
        // which can lag a deposit made moments before; the others refuse a second write.
        let searched: Vec<&str> = by_target
            .iter()
            .map(|(scope, _)| scope.as_str())
            .filter(|scope| scope.starts_with("invenio+") || scope.starts_with("zenodo+"))
            .collect();
        if !searched.is_empty() {
            say!(
                "note: a forgotten deposit to {} is found again by a search of the \
                 repository's records, which can lag behind a deposit made minutes before",
                searched
                    .iter()
                    .map(|scope| names.of(scope))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        say!(
            "nothing was forgotten: a deposit run again of a forgotten key asks the server \
             instead of replaying the record. To forget them: `{}`",
            forget_command(older_than, target.as_deref(), &store)
        );
        return Ok(ExitCode::FAILURE);
    }
    let why = format!("`lodge forget --older-than {}`", age_text(older_than));
    let n = store.forget_results(age, target.as_deref(), &why)?;
    say!(
        "forgot {}{shared}; the servers still hold the records (`lodge log` keeps what went)",
        count_of(n, "recorded result", "recorded results")
    );
    Ok(ExitCode::SUCCESS)
}

/// The `lodge forget` that forgets what was asked, confirmed.
fn forget_command(older_than: Duration, target: Option<&str>, store: &Store) -> String {
    let target = target
        .map(|scope| {
            let argument = super::target_arg::target_argument(store, scope);
            format!(" --target {}", super::output::shell_word(&argument))
        })
        .unwrap_or_default();
    format!(
        "lodge forget --older-than {}{target} --yes",
        age_text(older_than)
    )
}

/// An age as `--older-than` takes it, in whole years, months, days, hours or seconds:
/// `2years`, `90d`, `0s`. A year and a month are `humantime`'s, as `--older-than` read
/// them (365.25 and 30.44 days): `2years` is no whole number of days or hours.
fn age_text(age: Duration) -> String {
    const YEAR: u64 = 31_557_600;
    const MONTH: u64 = 2_630_016;
    let secs = age.as_secs();
    match secs {
        0 => "0s".into(),
        YEAR => "1year".into(),
        MONTH => "1month".into(),
        s if s % YEAR == 0 => format!("{}years", s / YEAR),
        s if s % MONTH == 0 => format!("{}months", s / MONTH),
        s if s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3_600 == 0 => format!("{}h", s / 3_600),
        s if s % 60 == 0 => format!("{}min", s / 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_age_is_written_back_as_it_was_given_and_reads_as_the_same_age() {
        for given in [
            "2years", "1years", "3months", "1month", "90d", "26weeks", "36h", "30min", "0s",
        ] {
            let age = humantime::parse_duration(given).unwrap();
            let written = age_text(age);
            assert_eq!(humantime::parse_duration(&written).unwrap(), age, "{given}");
        }
        assert_eq!(
            age_text(humantime::parse_duration("2years").unwrap()),
            "2years"
        );
        assert_eq!(
            age_text(humantime::parse_duration("3months").unwrap()),
            "3months"
        );
        assert_eq!(
            age_text(humantime::parse_duration("26weeks").unwrap()),
            "182d"
        );
        for (given, written) in [("1y", "1year"), ("1month", "1month"), ("30min", "30min")] {
            let age = humantime::parse_duration(given).unwrap();
            assert_eq!(age_text(age), written, "{given}");
        }
    }
}
