//! `lodge deposit` and `lodge retry`: queue jobs, run the engine until they settle, report.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use tokio_util::sync::CancellationToken;

use super::add::select_datasets;
use super::defaults::WindowDefaults;
use super::folder::FolderNow;
use super::incomplete::{Incomplete, print_incomplete};
use super::output::{BytesInFlight, DatasetNames, items_progress_bar, time_text};
use super::output::{say, say_err};
use super::target_arg::{
    deposit_command, open_by_scope, open_deposit_target, takes_token_per_run, where_it_sends,
};
use super::{Database, EngineArgs};
use crate::content::ContentKey;
use crate::engine::requeue::{LeftAsItWas, why_left};
use crate::engine::verify::verdict_of;
use crate::engine::{Engine, EngineEvent, first_copy_here, folder_is_gone};
use crate::store::{
    Cancel, DatasetRow, Dismiss, EventKind, EventRow, JobRow, JobState, KeyCopy, Store,
};
use crate::targets::{DepositRequest, Target, is_changed_since_scan};
use crate::wording::count_of;

#[derive(Debug, Args)]
pub struct DepositArgs {
    /// Where to deposit: a target name from `lodge target list`, or a URL such as
    /// sandbox+http://127.0.0.1:8080.
    #[arg(long, env = "LODGE_TARGET", value_parser = super::parse_target)]
    pub target: String,
    /// Bearer token for the target, if it needs one.
    #[arg(long, env = "LODGE_TOKEN", hide_env_values = true, value_parser = super::parse_token)]
    pub token: Option<String>,
    /// Print what would be replayed, created or refused; change nothing anywhere.
    #[arg(long)]
    pub dry_run: bool,
    /// Every dataset in the store.
    #[arg(long, conflicts_with = "datasets")]
    pub all: bool,
    /// Datasets by number, folder, name or key prefix (8 or more characters).
    pub datasets: Vec<String>,
    /// Print every event, attempts included.
    #[arg(long, short)]
    pub verbose: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Debug, Args)]
pub struct RetryArgs {
    /// Every failed job.
    #[arg(long, conflicts_with = "jobs")]
    pub all_failed: bool,
    /// Job numbers (see `lodge status` or `lodge history`).
    #[arg(value_parser = super::parse_job)]
    pub jobs: Vec<i64>,
    /// Only re-queue; do not run the jobs now.
    #[arg(long)]
    pub queue_only: bool,
    /// Bearer token for the jobs' targets, if they need one.
    #[arg(long, env = "LODGE_TOKEN", hide_env_values = true, value_parser = super::parse_token)]
    pub token: Option<String>,
    #[arg(long, short)]
    pub verbose: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// What to do when a failed job's target cannot be opened again for its retry: after
/// saving an S3 target again, and otherwise.
const RETRY_ELSEWHERE: (&str, &str) = (
    "retry",
    "deposit those datasets with `lodge deposit --target URL` (the target's full URL) instead",
);

pub async fn deposit(db: &Database, args: DepositArgs) -> anyhow::Result<ExitCode> {
    args.engine.check()?;
    let store = Arc::new(db.open_existing()?);
    let datasets = select_datasets(&store, &args.datasets, args.all)?;
    let keys: Vec<ContentKey> = datasets.iter().filter_map(|d| d.key).collect();
    let target = open_deposit_target(&store, &args.target, args.token.clone(), &keys)?;
    if datasets.is_empty() {
        say!("no datasets: add one with `lodge add DIR`");
        return Ok(ExitCode::SUCCESS);
    }

    // Refuse what cannot be deposited before anything is queued.
    let mut refused = 0usize;
    let mut ready = Vec::new();
    let mut incomplete: Vec<Incomplete> = Vec::new();
    let defaults = WindowDefaults::if_any(&crate::settings::settings_path());
    for d in datasets {
        let problems = d.metadata.problems();
        match d.key {
            None => {
                say!(
                    "refused  {}: not scanned yet (run `lodge scan {}`)",
                    d.name,
                    d.id
                );
                refused += 1;
            }
            Some(_) if !problems.is_empty() => {
                let folder = Path::new(&d.path).file_name().unwrap_or_default();
                let added_elsewhere = store.added_elsewhere(d.id)?.map(|m| (d.id, m));
                // A folder of that path here is another machine's dataset's namesake.
                let citation_error = match added_elsewhere {
                    Some(_) => None,
                    None => Incomplete::citation_error_in(Path::new(&d.path)),
                };
                incomplete.push(Incomplete {
                    defaults_fill: defaults
                        .as_ref()
                        .map(|w| w.would_fill(&d.metadata, &folder.to_string_lossy()))
                        .unwrap_or_default(),
                    name: d.name.clone(),
                    path: d.path.clone(),
                    problems: problems.iter().map(ToString::to_string).collect(),
                    citation_error,
                    added_elsewhere,
                });
                refused += 1;
            }
            Some(key) => ready.push((d, key)),
        }
    }
    print_incomplete(
        &incomplete,
        &|name| format!("refused  {name}: metadata incomplete"),
        &|n, names| {
            format!("refused  {n} datasets, each with the same incomplete metadata: {names}")
        },
    );

    // What the store already holds for each (a replay), read once for the notes and the
    // dry run.
    let recorded = ready
        .iter()
        .map(|(_, key)| store.lookup_result(target.scope_id(), key))
        .collect::<Result<Vec<_>, _>>()?;
    // A deposit is of the content as scanned: say so where the folder has moved on since.
    for ((d, key), result) in ready.iter().zip(&recorded) {
        if let Some(note) = drift_note(&store, d, result.is_some())? {
            say!("note     {}: {note}", d.name);
        }
        if result.is_none()
            && let Some(note) = crate::wording::access_not_enforced(&d.metadata.access, &*target)
        {
            say!("note     {}: {note}", d.name);
        }
        // A deposit found damaged replays like any other: running `deposit` again does not
        // mend it, and the reader would take "existing" for "fine".
        if result.is_some()
            && let Some(check) = store.latest_check(target.scope_id(), key)?
            && let Some((false, found)) = verdict_of(&check)
        {
            say!(
                "note     {}: found DAMAGED when checked {}: {found}; a deposit replays it \
                 and sends nothing: {}",
                d.name,
                time_text(check.at),
                super::output::damage_hint(&store, found, d.id, target.scope_id())
            );
        }
    }

    if args.dry_run {
        return super::dry_run::print(&store, &*target, &ready, &recorded, refused, &args.target);
    }

    // What the target would refuse before sending anything (a DOI whose landing page is
    // another target's record not made yet, more files than Zenodo takes) is refused here,
    // as the dry run said, and not queued to be refused when it runs.
    let mut queueable = Vec::with_capacity(ready.len());
    for ((d, key), result) in ready.into_iter().zip(&recorded) {
        if result.is_none()
            && let Some(refusal) = refusal_before_queueing(&store, &*target, &key, &d.path)?
        {
            say!("refused  {}: {refusal}", d.name);
            refused += 1;
            continue;
        }
        queueable.push((d, key));
    }
    let ready = queueable;

    let config = args.engine.config();
    let mut engine = Engine::new(store.clone(), config.clone())?;
    engine.add_target(target.clone())?;
    // Called by the name it is saved under, as its pause was, not by its identity.
    if store.resume_target(target.scope_id())?.is_some() {
        say!(
            "{} resumed",
            super::target_arg::TargetNames::load().of(target.scope_id())
        );
    }
    let items: Vec<(i64, crate::content::ContentKey)> =
        ready.iter().map(|(d, key)| (d.id, *key)).collect();
    // Datasets with the same key (copies of one folder with the same metadata) are one
    // scope: they share its one job, run once and reported under each dataset's name.
    let queued: Vec<i64> = store
        .enqueue_deposits(target.scope_id(), &items, config.retry.deadline)?
        .into_iter()
        .map(|(enqueued, _)| enqueued.job_id())
        .collect();
    let mut job_ids = queued.clone();
    let mut seen = HashSet::new();
    job_ids.retain(|id| seen.insert(*id));
    let run = run_jobs(Arc::new(engine), job_ids, args.verbose, Finish::RunAgain).await?;
    let jobs: HashMap<i64, JobRow> = run.jobs.into_iter().map(|job| (job.id, job)).collect();
    let lines: Vec<Outcome> = ready
        .iter()
        .zip(&queued)
        .filter_map(|((d, _), id)| {
            let job = jobs.get(id)?.clone();
            // Another dataset's job with the same key; not this one's own job, whose dataset
            // was removed meanwhile (no dataset any more).
            // By number too where the names are alike (one folder added on two machines).
            let shared_with = match job.dataset_id {
                Some(other) if other != d.id => Some(match job.dataset_name.clone() {
                    Some(name) if name == d.name => format!("dataset {other} {name}"),
                    Some(name) => name,
                    None => job.key.short(),
                }),
                _ => None,
            };
            Some(Outcome {
                name: d.name.clone(),
                shared_with,
                job,
            })
        })
        .collect();
    Ok(run.stopped.exit_code(summarize(&store, &lines, refused)))
}

/// What `target` refuses of `key`'s deposit before sending anything, with where it is
/// fixed: said by the dry run, and instead of queueing by the real one.
pub(super) fn refusal_before_queueing(
    store: &Store,
    target: &dyn Target,
    key: &ContentKey,
    root: &str,
) -> anyhow::Result<Option<String>> {
    let Some(document) = store.document(key)? else {
        return Ok(None);
    };
    let refusal = target.refusal_before_sending(&DepositRequest {
        key: *key,
        document: &document,
        root: Path::new(root),
        earlier_records: &[],
        files_stored: &crate::targets::FilesStored::default(),
    });
    Ok(refusal.map(|f| {
        let f = f.to_string();
        // A DOI's landing page is another target's record: no metadata to fix.
        match crate::targets::datacite::waits_for_landing(&f) {
            true => format!("{f} — then deposit it here again"),
            false => f,
        }
    }))
}

/// The copy whose files a deposit of `d` would send, as the engine chooses it: when `d`'s
/// folder is gone, the first other dataset with its key whose folder is here.
pub(super) fn copy_standing_in(
    store: &Store,
    d: &DatasetRow,
    key: &ContentKey,
) -> anyhow::Result<Option<KeyCopy>> {
    if !folder_is_gone(Path::new(&d.path)) {
        return Ok(None);
    }
    Ok(first_copy_here(store.copies_of_key(key, Some(d.id))?))
}

/// What a deposit of `d` should say about its folder having changed since its last scan,
/// if it has. A replay sends nothing, so it repeats the earlier deposit of the scanned
/// content: any change is worth a note. A new deposit checks every scanned file before it
/// sends anything and refuses a changed one itself; what it cannot see is a file added
/// since, which would be left out.
fn drift_note(store: &Store, d: &DatasetRow, replay: bool) -> anyhow::Result<Option<String>> {
    // Moved, deleted, or on another machine of a shared store: a replay does not need the
    // folder, and a new deposit says what it found when it looks.
    let FolderNow::Readable { changed, added, .. } = FolderNow::of(store, d)? else {
        return Ok(None);
    };
    let rescan = format!("{}, then deposit again", scan_command(store, d.id));
    if let Some(changed) = changed {
        return Ok(replay.then(|| {
            format!(
                "{changed}. This replays the deposit of the content as scanned; to deposit \
                 the folder as it is now, {rescan}"
            )
        }));
    }
    let Some(first) = added.first() else {
        return Ok(None);
    };
    let others = match added.len() {
        1 => String::new(),
        2 => " and 1 other file".to_string(),
        n => format!(" and {} other files", n - 1),
    };
    let it = if added.len() == 1 { "it" } else { "them" };
    let what = if replay {
        "this replays the deposit of the content as scanned".to_string()
    } else {
        format!("this deposit is of the content as scanned, without {it}")
    };
    Ok(Some(format!(
        "{first}{others} added since the last scan; {what}. To include {it}, {rescan}"
    )))
}

pub async fn retry(db: &Database, args: RetryArgs) -> anyhow::Result<ExitCode> {
    args.engine.check()?;
    let store = Arc::new(db.open_existing()?);
    // Jobs left on the queue of a target paused since (its credentials refused): the pause
    // said to run the command again once that is fixed, and this is that command.
    let paused: BTreeMap<String, String> = store.paused_targets()?.into_iter().collect();
    // Jobs a killed process left running (a `retry` or `deposit` cut short): nothing sends
    // them until one takes them over, and running the command again is how a person does.
    crate::engine::expire_dead_leases(&store, &crate::engine::lease_owner())?;
    let left_running =
        |job: &JobRow| job.state == JobState::Running && !crate::engine::is_being_sent(job);
    let (ids, held) = if args.all_failed {
        let failed = store.failed_job_ids(None)?;
        let mut held = Vec::new();
        for scope in paused.keys() {
            held.extend(store.jobs(&store.active_job_ids(Some(scope))?)?);
        }
        let held_now: HashSet<i64> = held.iter().map(|j| j.id).collect();
        for job in store.jobs(&store.active_job_ids(None)?)? {
            // Of a dataset's current key only: an earlier key's job sends nothing now
            // (`lodge status` names it, with `lodge cancel`).
            let current = match job.dataset_id {
                Some(id) => store.dataset(id)?.is_some_and(|d| d.key == Some(job.key)),
                None => false,
            };
            if left_running(&job) && current && !held_now.contains(&job.id) {
                held.push(job);
            }
        }
        if failed.is_empty() && held.is_empty() {
            say!("no failed jobs: nothing to retry (`lodge status` shows every job's state)");
            return Ok(ExitCode::SUCCESS);
        }
        (failed, held)
    } else if args.jobs.is_empty() {
        anyhow::bail!("name the jobs to retry (numbers from `lodge status`) or pass --all-failed");
    } else {
        let held = store
            .jobs(&args.jobs)?
            .into_iter()
            .filter(|j| {
                (j.state == JobState::Queued && paused.contains_key(&j.target)) || left_running(j)
            })
            .collect();
        (args.jobs.clone(), held)
    };
    let held = match args.queue_only {
        true => Vec::new(),
        false => held,
    };
    // The failed jobs the store will re-queue: one it leaves as it was (landed since, its
    // dataset removed or rescanned, another job on its way) needs no target, and is said
    // below; so a target removed since cannot hold back the others.
    let mut failed: Vec<JobRow> = Vec::new();
    if !args.queue_only {
        for job in store.jobs(&ids)? {
            if job.state == JobState::Failed
                && matches!(why_left(&store, &job)?, LeftAsItWas::Unexplained)
            {
                failed.push(job);
            }
        }
    }
    // Open every target to run the jobs on first: if one cannot be opened, nothing is
    // re-queued, unless all failed jobs were asked for: then that target's are left failed
    // (said below) and the others go. (Only re-queueing needs none.)
    let mut targets: BTreeMap<String, Arc<dyn Target>> = BTreeMap::new();
    let mut unopened: BTreeMap<String, String> = BTreeMap::new();
    let to_run: Vec<JobRow> = failed.iter().chain(&held).cloned().collect();
    for job in &to_run {
        if targets.contains_key(&job.target) || unopened.contains_key(&job.target) {
            continue;
        }
        let keys: Vec<ContentKey> = to_run
            .iter()
            .filter(|j| j.target == job.target)
            .map(|j| j.key)
            .collect();
        match open_by_scope(
            &store,
            &job.target,
            args.token.clone(),
            &keys,
            RETRY_ELSEWHERE,
        ) {
            Ok(target) => {
                targets.insert(job.target.clone(), target);
            }
            Err(e) if args.all_failed => {
                unopened.insert(job.target.clone(), format!("{e:#}"));
            }
            Err(e) => return Err(e),
        }
    }
    let left_unopened: Vec<i64> = to_run
        .iter()
        .filter(|j| unopened.contains_key(&j.target))
        .map(|j| j.id)
        .collect();
    let ids: Vec<i64> = ids
        .into_iter()
        .filter(|id| !left_unopened.contains(id))
        .collect();
    let held: Vec<JobRow> = held
        .into_iter()
        .filter(|j| !left_unopened.contains(&j.id))
        .collect();
    let config = args.engine.config();
    let requeued = store.retry_jobs(&ids, config.retry.deadline)?;
    let mut failed_left = false;
    // A job left as it was whose key has not landed (rejected, failed for good, or still
    // on the queue) is not done: like `deposit`, the command then exits 1.
    let mut unlanded_left = !left_unopened.is_empty();
    let held_ids: HashSet<i64> = held.iter().map(|j| j.id).collect();
    for id in ids
        .iter()
        .filter(|id| !requeued.contains(id) && !held_ids.contains(id))
    {
        let job = store.job(*id)?;
        // An older failed job of a scope whose newest this very command re-queued: that
        // one sends the key, and its outcome is the command's.
        if job.state == JobState::Failed
            && let LeftAsItWas::AnotherOnItsWay(other) = why_left(&store, &job)?
            && (requeued.contains(&other.id) || held_ids.contains(&other.id))
        {
            say!(
                "job {id} is retried as job {}, the newer job for the same key",
                other.id
            );
            continue;
        }
        failed_left |= job.state == JobState::Failed;
        unlanded_left |= store.lookup_result(&job.target, &job.key)?.is_none();
        say!("{}", not_retried(&store, &job)?);
    }
    for (scope, why) in &unopened {
        let jobs: Vec<String> = to_run
            .iter()
            .filter(|j| &j.target == scope)
            .map(|j| j.id.to_string())
            .collect();
        say!(
            "{} {} left as {} {}: {why}",
            if jobs.len() == 1 { "job" } else { "jobs" },
            jobs.join(", "),
            if jobs.len() == 1 { "it" } else { "they" },
            if jobs.len() == 1 { "was" } else { "were" }
        );
        say!(
            "  a target that was mistyped, or is gone for good: `lodge dismiss --target {}` \
             gives up on {}",
            super::output::shell_word(&super::target_arg::target_argument(&store, scope)),
            if jobs.len() == 1 { "it" } else { "them" }
        );
    }
    let names = super::target_arg::TargetNames::load();
    for job in &held {
        match job.state {
            JobState::Running => say!(
                "job {} was left running by {}, which has ended: taking it over now",
                job.id,
                job.lease_owner
                    .as_deref()
                    .map_or("a process".to_string(), crate::engine::owner_text)
            ),
            _ => say!(
                "job {} waited on the queue while {} was paused: sending it now",
                job.id,
                names.of(&job.target)
            ),
        }
    }
    if requeued.is_empty() && held.is_empty() && failed_left {
        say!("nothing was re-queued");
    } else if requeued.is_empty() && held.is_empty() && left_unopened.is_empty() {
        say!("nothing to retry: only failed jobs are retried");
    } else if !requeued.is_empty() {
        say!(
            "re-queued {} with the same key",
            count_of(requeued.len() as u64, "job", "jobs")
        );
    }
    let left_code = match unlanded_left {
        true => ExitCode::from(1),
        false => ExitCode::SUCCESS,
    };
    if args.queue_only || (requeued.is_empty() && held.is_empty()) {
        return Ok(left_code);
    }
    // A job that failed (elsewhere) after the look above is re-queued too; open its target.
    for job in store.jobs(&requeued)? {
        if !targets.contains_key(&job.target) {
            let target = open_by_scope(
                &store,
                &job.target,
                args.token.clone(),
                &[job.key],
                RETRY_ELSEWHERE,
            )?;
            targets.insert(job.target.clone(), target);
        }
    }
    let mut engine = Engine::new(store.clone(), config)?;
    for target in targets.values() {
        store.resume_target(target.scope_id())?;
        engine.add_target(target.clone())?;
    }
    let mut run: Vec<i64> = requeued;
    run.extend(held.iter().map(|j| j.id));
    let finish = Finish::DepositsNamedBelow;
    let run = run_jobs(Arc::new(engine), run, args.verbose, finish).await?;
    // Each job under its dataset's name, then the copies (the same key) it was for too, as
    // `deposit` reports them.
    let mut lines: Vec<Outcome> = Vec::new();
    for job in run.jobs {
        let copies = store.copies_of_key(&job.key, job.dataset_id)?;
        let outcome = Outcome::of(job);
        let shares: Vec<Outcome> = (copies.into_iter())
            .map(|copy| Outcome {
                name: copy.name,
                shared_with: Some(outcome.name.clone()),
                job: outcome.job.clone(),
            })
            .collect();
        lines.push(outcome);
        lines.extend(shares);
    }
    let code = summarize(&store, &lines, 0);
    Ok(run
        .stopped
        .exit_code(if unlanded_left { left_code } else { code }))
}

/// `lodge cancel`: take jobs off the queue (they end failed, and `retry` puts them back).
pub fn cancel(db: &Database, jobs: &[i64], target: Option<&str>) -> anyhow::Result<ExitCode> {
    let store = db.open_existing()?;
    // A deposit killed mid-job (kill -9, a crash) left its lease behind: its jobs are not
    // being deposited, and are cancelled like any other.
    crate::engine::expire_dead_leases(&store, &crate::engine::lease_owner())?;
    let ids = match target {
        Some(name_or_url) => {
            let scope = super::target_arg::stored_target_scope(&store, name_or_url)?;
            let ids = store.active_job_ids(Some(&scope))?;
            if ids.is_empty() {
                say!("no job still to do for {scope}: nothing to cancel");
                super::target_arg::note_if_never_used(&store, &scope)?;
                return Ok(ExitCode::SUCCESS);
            }
            ids
        }
        None => jobs.to_vec(),
    };
    let mut cancelled = 0u64;
    let mut left = false;
    // Named, as every job's error is read on every machine of a shared database.
    let why = format!("cancelled by {} (`lodge cancel`)", store.actor());
    for (job, answer) in store.cancel_jobs(&ids, &why)? {
        let id = job.id;
        match answer {
            Cancel::Cancelled => {
                cancelled += 1;
                // `retry` brings it back only when nothing since stands in its way (its
                // dataset removed or rescanned, its key landed): else say what does.
                match why_left(&store, &job)? {
                    LeftAsItWas::Unexplained | LeftAsItWas::NotFailed => {
                        say!("cancelled job {id}: now failed; `lodge retry {id}` queues it again")
                    }
                    _ => say!(
                        "cancelled job {id}: now failed. {}",
                        failed_not_retried(&store, &job)?
                    ),
                }
            }
            Cancel::BeingDeposited { by } => {
                left = true;
                // Another machine's process may have ended unseen: its lease says when the
                // job is free again.
                let other_machine = job
                    .lease_owner
                    .as_deref()
                    .is_some_and(|o| crate::engine::owner_alive(o).is_none());
                let until = match (other_machine, job.lease_expires) {
                    (true, Some(at)) => format!(
                        " (on another machine; if it has ended there, its lease runs out at \
                         {} and the job can be cancelled then)",
                        time_text(at)
                    ),
                    _ => String::new(),
                };
                say!(
                    "job {id} is being deposited now (by {by}): left alone; stop that deposit \
                     (Ctrl-C), then cancel it{until}"
                );
            }
            Cancel::Ended => say!(
                "job {id} has ended ({}): nothing to cancel",
                job.state.as_str()
            ),
        }
    }
    say!("{} cancelled", count_of(cancelled, "job", "jobs"));
    Ok(if left {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `lodge dismiss`: give up on failed or refused deposits. They leave the status and
/// `retry --all-failed`; the history keeps them.
pub fn dismiss(db: &Database, jobs: &[i64], target: Option<&str>) -> anyhow::Result<ExitCode> {
    let store = db.open_existing()?;
    // A deposit killed mid-job left its lease behind: its job is not being deposited.
    crate::engine::expire_dead_leases(&store, &crate::engine::lease_owner())?;
    let scope = target
        .map(|t| super::target_arg::stored_target_scope(&store, t))
        .transpose()?;
    let ids = match &scope {
        Some(scope) => store.standing_failures(scope)?,
        None => {
            // Each job once, in the order given.
            let mut seen = HashSet::new();
            jobs.iter().copied().filter(|id| seen.insert(*id)).collect()
        }
    };
    if let Some(scope) = &scope
        && ids.is_empty()
    {
        say!("nothing failed or refused for {scope}: nothing to dismiss");
        super::target_arg::note_if_never_used(&store, scope)?;
    }
    let why = format!(
        "dismissed by {} (`lodge dismiss`): given up on; the history keeps it",
        store.actor()
    );
    let mut dismissed = 0u64;
    let mut left = false;
    for (job, answer) in store.dismiss_jobs(&ids, &why)? {
        let id = job.id;
        match answer {
            Dismiss::Dismissed { earlier } => {
                dismissed += 1 + earlier.len() as u64;
                let with = match earlier.as_slice() {
                    [] => String::new(),
                    [one] => format!(" with job {one} before it, of the same deposit"),
                    more => format!(
                        " with jobs {} before it, of the same deposit",
                        more.iter()
                            .map(i64::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                say!(
                    "dismissed job {id} ({}){with}: it leaves `lodge status`{}",
                    job.state.as_str(),
                    back_by_retry(&store, &job)?
                );
            }
            Dismiss::AlreadyDismissed => say!(
                "job {id} was dismissed before: nothing to do{}",
                back_by_retry(&store, &job)?
            ),
            Dismiss::BeingDeposited { by } => {
                left = true;
                say!(
                    "job {id} is being deposited now (by {by}): left alone; should it fail, \
                     dismiss it then"
                );
            }
            Dismiss::StillToDo => {
                left = true;
                say!(
                    "job {id} is {}, still to do: left alone; `lodge cancel {id}` takes it off \
                     the queue (it ends failed), then dismiss it",
                    job.state.as_str()
                );
            }
            Dismiss::Landed => say!(
                "job {id} landed ({}): nothing to give up on",
                job.state.as_str()
            ),
        }
    }
    // What waits for the target is not given up on by this: said, with what ends it.
    if let (Some(scope), Some(name_or_url)) = (&scope, target) {
        let to_do = store.active_job_ids(Some(scope))?.len();
        if to_do > 0 {
            left = true;
            let (are, them, end) = match to_do {
                1 => ("job is", "it", "it ends"),
                _ => ("jobs are", "them", "they end"),
            };
            say!(
                "{to_do} {are} still to do there: left alone; `lodge cancel --target {}` takes \
                 {them} off the queue ({end} failed; one being deposited now is left to its \
                 deposit), then dismiss {them}",
                super::output::shell_word(name_or_url)
            );
        }
    }
    say!("{} dismissed", count_of(dismissed, "job", "jobs"));
    Ok(if left {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// What brings a dismissed job back, when something can: `retry` of a failed one that it
/// would re-queue (not one whose dataset was removed or rescanned since, whose key landed
/// since, or whose key another job is on its way with), as "; `lodge retry N` …"; for a
/// refused one, the deposit of its dataset.
fn back_by_retry(store: &Store, job: &JobRow) -> anyhow::Result<String> {
    // A refusal is not retried: its dataset is deposited again once its cause is put right,
    // unless its content landed there since.
    if job.state == JobState::Rejected {
        if let Some(landed) = landed_since(store, job)? {
            return Ok(format!(
                "; the same content is deposited there since, as {landed}"
            ));
        }
        return Ok(match job.dataset_id {
            Some(dataset) => format!(
                "; once what refused it is put right, `{}` deposits the dataset again",
                deposit_command(store, &job.target, dataset)
            ),
            None => String::new(),
        });
    }
    Ok(match why_left(store, job)? {
        LeftAsItWas::Unexplained => format!(
            "; `lodge retry {}` queues it again with the same key",
            job.id
        ),
        _ => String::new(),
    })
}

/// Run the engine over a batch with a progress bar and a live log; Ctrl-C stops gracefully
/// (jobs in flight go back on the queue and are reconciled next time).
async fn run_jobs(
    engine: Arc<Engine>,
    job_ids: Vec<i64>,
    verbose: bool,
    finish: Finish,
) -> anyhow::Result<JobsRun> {
    let bar = items_progress_bar(job_ids.len() as u64, "depositing");
    let mut events = engine.subscribe();
    let printer_bar = bar.clone();
    let batch: std::collections::HashSet<i64> = job_ids.iter().copied().collect();
    let store = engine.store().clone();
    // The batch's names in one read, rather than one read per line as outcomes arrive.
    let jobs_now = store.jobs(&job_ids).unwrap_or_default();
    let mut names = DatasetNames::of_jobs(&jobs_now);
    // Finished already (a replay is recorded as it is queued): counted from the start, as
    // no change of theirs will come.
    bar.inc(jobs_now.iter().filter(|j| j.state.is_terminal()).count() as u64);
    let printer = tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        let mut uploads = BytesInFlight::default();
        loop {
            match events.recv().await {
                Ok(EngineEvent::Logged(e)) => {
                    let routine = matches!(e.kind, EventKind::Attempt | EventKind::Queued);
                    if verbose || !routine {
                        let name = names
                            .of(&store, &e)
                            .map(|n| format!("{n}: "))
                            .unwrap_or_default();
                        let job = e.job_id.map(|j| format!("job {j} ")).unwrap_or_default();
                        let line = format!("{:<15} {name}{job}{}", e.kind.as_str(), e.message);
                        // A hidden bar (output is not a terminal) prints nothing itself.
                        if printer_bar.is_hidden() {
                            say_err!("{line}");
                        } else {
                            printer_bar.println(crate::wording::for_a_terminal(&line));
                        }
                    }
                }
                Ok(EngineEvent::JobChanged(job)) => {
                    if batch.contains(&job.id) && job.state.is_terminal() {
                        printer_bar.inc(1);
                    }
                    uploads.changed(job.id, job.state.is_terminal());
                    printer_bar.set_message(uploads.message());
                }
                Ok(EngineEvent::Progress {
                    job, sent, total, ..
                }) if batch.contains(&job) => {
                    uploads.sent(job, sent, total);
                    printer_bar.set_message(uploads.message());
                }
                Ok(EngineEvent::Progress { .. }) => {}
                Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => break,
            }
        }
    });
    let shutdown = CancellationToken::new();
    let on_signal = shutdown.clone();
    let signal_bar = bar.clone();
    // On a line of its own, not at the end of the bar's.
    let say_above = move |bar: &indicatif::ProgressBar, line: &str| match bar.is_hidden() {
        true => say_err!("{line}"),
        false => bar.suspend(|| say_err!("{line}")),
    };
    tokio::spawn(async move {
        // Ctrl-C, or SIGTERM from `timeout`, cron or systemd: the same orderly stop.
        if super::stop_signal::stop_requested().await.is_ok() {
            say_above(
                &signal_bar,
                &format!(
                    "stopping: items in flight go back on the queue ({finish}); Ctrl-C again \
                     stops Lodge at once"
                ),
            );
            on_signal.cancel();
        }
        // The orderly stop needs the database (to give jobs back): one that does not
        // answer holds it up. A second signal ends the process as a crash would, which
        // loses nothing: what was in flight is taken over once its lease runs out.
        if super::stop_signal::stop_requested().await.is_ok() {
            say_above(
                &signal_bar,
                "stopped at once: what was in flight is taken over by the next deposit once \
                 its lease runs out (it looks the record up first)",
            );
            std::process::exit(super::stop_signal::STOPPED_EXIT.into());
        }
    });
    say_while_the_database_waits(bar.clone(), say_above);
    let jobs = engine.run_batch(job_ids, shutdown.clone()).await;
    drop(engine);
    let _ = printer.await;
    bar.finish_and_clear();
    Ok(JobsRun {
        jobs: jobs?,
        stopped: Stopped(shutdown.is_cancelled()),
    })
}

/// A run (`lodge COMMAND`, a deposit or a retry) ended by `e`: when that is the shared
/// database not answering for longer than the store waits, what became of the run's items
/// and how to go on, after the error itself.
pub(super) fn when_the_database_went(e: anyhow::Error, command: &str) -> anyhow::Error {
    use crate::engine::EngineError;
    use crate::store::StoreError;
    let unavailable = e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<StoreError>(),
            Some(StoreError::Unavailable { .. })
        ) || matches!(
            cause.downcast_ref::<EngineError>(),
            Some(EngineError::Store(StoreError::Unavailable { .. }))
        )
    });
    match unavailable {
        true => anyhow::anyhow!(
            "{e}. Nothing is lost: what this run had not finished stays queued (an item being \
             sent is taken over once its lease runs out, without a second record); run the \
             same `lodge {command}` again once the database answers"
        ),
        false => e,
    }
}

/// How long the shared database may not answer before a deposit says so: a restart's
/// moment is no news.
const UNANSWERED_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Say, above `bar`, when the shared database stops answering (for longer than
/// [`UNANSWERED_GRACE`]) and when it answers again: meanwhile the run seems to do nothing.
fn say_while_the_database_waits(
    bar: indicatif::ProgressBar,
    say_above: impl Fn(&indicatif::ProgressBar, &str) + Send + 'static,
) {
    let mut waiting = crate::store::shared_database_waited_for();
    tokio::spawn(async move {
        let mut said: Option<String> = None;
        loop {
            let now = waiting.borrow_and_update().clone();
            match (now, &said) {
                (None, Some(location)) => {
                    say_above(
                        &bar,
                        &format!("the shared database {location} answers again"),
                    );
                    said = None;
                }
                (Some(location), None) => {
                    tokio::time::sleep(UNANSWERED_GRACE).await;
                    if waiting.borrow().is_some() {
                        say_above(
                            &bar,
                            &format!(
                                "the shared database {location} does not answer: Lodge keeps \
                                 trying (up to 10 minutes) and carries on once it answers; \
                                 nothing is lost"
                            ),
                        );
                        said = Some(location);
                    }
                    continue;
                }
                _ => {}
            }
            if waiting.changed().await.is_err() {
                return;
            }
        }
    });
}

/// How the items a stopped run leaves on the queue are sent, as its stop says.
#[derive(Clone, Copy)]
enum Finish {
    /// `lodge deposit`: run again, it sends what is left.
    RunAgain,
    /// `lodge retry`: run again, it finds nothing failed to re-queue; each item left is
    /// named at the end with the deposit that sends it.
    DepositsNamedBelow,
}

impl std::fmt::Display for Finish {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Finish::RunAgain => "run the command again to finish",
            Finish::DepositsNamedBelow => {
                "each left is named below with the `lodge deposit` that sends it"
            }
        })
    }
}

/// What [`run_jobs`] ended with: the jobs as they stand, and whether Ctrl-C or SIGTERM
/// stopped the run.
struct JobsRun {
    jobs: Vec<JobRow>,
    stopped: Stopped,
}

/// Whether a run was stopped by Ctrl-C or SIGTERM.
#[derive(Clone, Copy)]
struct Stopped(bool);

impl Stopped {
    /// The exit status of a run that would end with `code`: a stop that left work undone
    /// ends 130, as a shell's after Ctrl-C, so a script tells it from a deposit that failed;
    /// one that came after everything landed changes nothing.
    fn exit_code(self, code: ExitCode) -> ExitCode {
        match self.0 && code != ExitCode::SUCCESS {
            true => ExitCode::from(super::stop_signal::STOPPED_EXIT),
            false => code,
        }
    }
}

/// Why `lodge retry` leaves a job named to it alone, and what would move it instead.
fn not_retried(store: &Store, job: &JobRow) -> anyhow::Result<String> {
    let id = job.id;
    let state = job.state.as_str();
    if job.state == JobState::Failed {
        return failed_not_retried(store, job);
    }
    Ok(match job.state {
        JobState::Deposited => format!(
            "job {id} is deposited as {}: nothing to retry",
            job.identifier.as_deref().unwrap_or("?")
        ),
        JobState::Existing if job.is_replay() => format!(
            "job {id} replayed the deposit recorded as {}, with no request: nothing to retry",
            job.identifier.as_deref().unwrap_or("?")
        ),
        JobState::Existing => format!(
            "job {id} landed as {} (the record existed already): nothing to retry",
            job.identifier.as_deref().unwrap_or("?")
        ),
        // The same content landed there since (the cause put right, then deposited again):
        // nothing is left to send.
        JobState::Rejected if let Some(landed) = landed_since(store, job)? => format!(
            "job {id} was {} — the same content is deposited there since, as {landed}: \
             nothing to retry",
            refusal_of(job)
        ),
        // Refused by Lodge itself: a file changed since the scan, and scanned again since
        // (its dataset has another key now): the rescan is made; what is left is its deposit,
        // or nothing when that landed.
        JobState::Rejected
            if !rescan_hint(store, job).is_empty()
                && let Some(dataset) = job.dataset_id
                && let Some(now) = store.dataset(dataset)?.and_then(|d| d.key)
                && now != job.key =>
        {
            match store.lookup_result(&job.target, &now)? {
                Some(landed) => format!(
                    "job {id} was {} — its dataset was scanned again since, and its content as \
                     it is now is deposited there as {}: nothing to retry",
                    refusal_of(job),
                    landed.identifier
                ),
                None => format!(
                    "job {id} was {} — its dataset was scanned again since: `{}` sends it as it \
                     is now",
                    refusal_of(job),
                    deposit_command(store, &job.target, dataset)
                ),
            }
        }
        // Refused by Lodge itself: a file changed since the scan. The rescan is the fix.
        JobState::Rejected if !rescan_hint(store, job).is_empty() => format!(
            "job {id} was {} — a retry would send what was scanned, not what the folder \
             holds{}",
            refusal_of(job),
            rescan_hint(store, job)
        ),
        // Refused by Lodge itself, its folder not there as a folder: nothing was sent.
        JobState::Rejected if job.last_error.as_deref().is_some_and(is_changed_since_scan) => {
            format!(
                "job {id} was {} — Lodge refused it before sending anything, and its folder is \
                 not there now: put the folder back, or `lodge add` it where it is now, then \
                 deposit it again",
                refusal_of(job)
            )
        }
        JobState::Rejected => format!(
            "job {id} was {} — the server would refuse it again the same way; fix that, then \
             deposit the dataset again{}",
            refusal_of(job),
            match job.dataset_id {
                Some(dataset) => format!(": `{}`", deposit_command(store, &job.target, dataset)),
                None => String::new(),
            }
        ),
        // Queued, running or waiting: not ended, so already on its way, by the deposit of
        // its dataset while the dataset is listed with the job's key.
        _ => {
            let dataset = match job.dataset_id {
                Some(dataset) => store.dataset(dataset)?,
                None => None,
            };
            match dataset {
                Some(d) if d.key == Some(job.key) => format!(
                    "job {id} is {state}, still to be done: `{}` runs it (`lodge cancel {id}` \
                     takes it off the queue)",
                    deposit_command(store, &job.target, d.id)
                ),
                Some(d) => format!(
                    "job {id} is {state}, of {}'s earlier key (scanned again or its metadata \
                     edited since): no `lodge deposit` sends it now; `{}` sends the dataset as \
                     it is, and `lodge cancel {id}` ends this job",
                    d.name,
                    deposit_command(store, &job.target, d.id)
                ),
                None => match store.copies_of_key(&job.key, None)?.into_iter().next() {
                    Some(copy) => format!(
                        "job {id} is {state}, of a dataset removed from the list; dataset {} \
                         {} has its key: `{}` carries it on (`lodge cancel {id}` ends it)",
                        copy.dataset_id,
                        copy.name,
                        deposit_command(store, &job.target, copy.dataset_id)
                    ),
                    None => format!(
                        "job {id} is {state}, of a dataset removed from the list: no `lodge \
                         deposit` sends it now (a window working this target's queue ends it \
                         rejected); `lodge cancel {id}` ends it"
                    ),
                },
            }
        }
    })
}

/// For a job that did not land: the deposit of its key to its target that landed since
/// (another job's), as "IDENTIFIER (job N)", if one did.
fn landed_since(store: &Store, job: &JobRow) -> anyhow::Result<Option<String>> {
    Ok(store
        .lookup_result(&job.target, &job.key)?
        .map(|landed| match landed.job_id {
            Some(by) if by != job.id => format!("{} (job {by})", landed.identifier),
            _ => landed.identifier,
        }))
}

/// For a job the server (or Lodge's check of what it takes) refused: where what it names
/// is fixed. Sent again unchanged, it would be refused the same way.
pub(super) fn refusal_hint(job: &JobRow, target_url: Option<&str>) -> String {
    match (&job.dataset_path, job.last_error.as_deref()) {
        // Of the target, not the dataset (its bucket or folder missing): the cause names
        // the fix; or the deposit there is given up.
        // A DOI's landing page is another target's record, not yet there: no metadata to fix.
        (_, Some(error))
            if error.starts_with("rejected")
                && crate::targets::datacite::waits_for_landing(error) =>
        {
            " — then deposit it here again".to_string()
        }
        // The target's prefix is another repository's: its URL is to fix, not the dataset.
        (_, Some(error))
            if error.starts_with("rejected")
                && crate::targets::datacite::prefix_not_the_repositorys(error) =>
        {
            format!(
                " — the target's prefix= is not one of its repository's: give the \
                 repository's own prefix in the target's URL ({}), then deposit again; or \
                 give it up: `lodge dismiss {}`",
                prefix_fix(&job.target, target_url),
                job.id
            )
        }
        (_, Some(error)) if error.starts_with("rejected") && error.contains(": target '") => {
            format!(
                " — then deposit again; or give it up there: `lodge dismiss {}`",
                job.id
            )
        }
        // The server's copy of a sent file is missing or not what its checksum says (one
        // damaged or replaced there): the files, not the metadata.
        (_, Some(error)) if error.starts_with("rejected") && error.contains(": manifest[") => {
            format!(
                " — the server does not hold a file as it was sent: deposit again, which sends \
                 what is missing; a file it holds damaged under that checksum is to be removed \
                 there first (`lodge verify --all` checks the deposits that share it); or give \
                 it up there: `lodge dismiss {}`",
                job.id
            )
        }
        // Too large for the server: the files are to change (or the target), not the
        // metadata; the refusal names the limit and where large files go.
        (Some(_), Some(error)) if error.starts_with("rejected (HTTP 413)") => format!(
            " — once the file fits, add the folder again and deposit it; or give it up \
             there: `lodge dismiss {}`",
            job.id
        ),
        // An S3 bucket or a WebDAV folder keeps files and a record and checks no metadata:
        // what it refused is the request, its place or its settings.
        (_, Some(error))
            if error.starts_with("rejected")
                && (job.target.starts_with("s3:") || job.target.starts_with("webdav+")) =>
        {
            let names = super::target_arg::TargetNames::load();
            let target = match (names.saved(&job.target), target_url) {
                (Some(name), _) => name.to_string(),
                (None, Some(url)) => url.to_string(),
                (None, None) => job.target.clone(),
            };
            format!(
                " — the server refused the request, not the metadata: check the target \
                 (`lodge target test {}` says what it answers), then deposit again; or give \
                 it up there: `lodge dismiss {}`",
                super::output::shell_word(&target),
                job.id
            )
        }
        (Some(path), Some(error)) if job.dataset_id.is_some() && error.starts_with("rejected") => {
            format!(
                " — fix what it names (the metadata: `lodge add {}` with the flags that \
                 change it, or the window's details), then deposit again",
                super::output::shell_word(path)
            )
        }
        _ => String::new(),
    }
}

/// Where a DataCite target whose prefix is not its repository's (`scope`, opened from
/// `url`) gets the right one: the command that names the repository's prefixes, and the
/// URL with PREFIX where one goes (its scheme and the rest as they were).
fn prefix_fix(scope: &str, url: Option<&str>) -> String {
    let url = url.unwrap_or(scope);
    let with_placeholder = match url.split_once("prefix=") {
        Some((before, after)) => {
            let rest = after.find('&').map(|at| &after[at..]).unwrap_or_default();
            format!("{before}prefix=PREFIX{rest}")
        }
        None => url.to_string(),
    };
    match super::target_arg::TargetNames::load().saved(scope) {
        Some(name) => format!(
            "`lodge target test {name}` names them; `lodge target add {name} \
             '{with_placeholder}'` with one for PREFIX"
        ),
        None => format!(
            "`lodge target test '{url}'` names them; then use '{with_placeholder}' with one \
             for PREFIX"
        ),
    }
}

/// A rejected job's recorded cause after "was": as recorded when it says "rejected"
/// itself (a server's refusal), else within "rejected (…)".
fn refusal_of(job: &JobRow) -> String {
    match job.last_error.as_deref() {
        Some(cause) if cause.starts_with("rejected") => cause.to_string(),
        Some(cause) => format!("rejected ({cause})"),
        None => "rejected (no cause recorded)".to_string(),
    }
}

/// Why the store left a failed job as it was ([`why_left`]), and what to do about it.
fn failed_not_retried(store: &Store, job: &JobRow) -> anyhow::Result<String> {
    let id = job.id;
    Ok(match why_left(store, job)? {
        LeftAsItWas::Landed { identifier, by } => {
            // A job queued again for a key that had landed (a run stopped before its replay,
            // then cancelled) follows the deposit, not the other way round.
            let when = match by {
                Some(j) if j < id => format!(" already, by job {j} before it"),
                Some(j) => format!(" since by job {j}"),
                None => " since".to_string(),
            };
            format!(
                "job {id} failed, but its key was deposited there{when}, as {identifier}: \
                 nothing to retry"
            )
        }
        LeftAsItWas::DatasetRemoved {
            folder,
            added_again: Some(again),
            ..
        } => format!(
            "job {id} failed, but its dataset{} was removed from Lodge; its folder is on the \
             list again as dataset {} ({}): deposit that, `{}`; or give this job up: `lodge \
             dismiss {id}`",
            folder.map(|f| format!(", {f},")).unwrap_or_default(),
            again.id,
            again.name,
            deposit_command(store, &job.target, again.id)
        ),
        LeftAsItWas::DatasetRemoved { folder, path, .. } => {
            // A copy still listed (the same key) holds the same content: depositing it sends
            // what this job was to.
            match store.copies_of_key(&job.key, None)?.into_iter().next() {
                Some(copy) => format!(
                    "job {id} failed, but its dataset{} was removed from Lodge; dataset {} \
                     ({}) has the same content (the same key): deposit that, `{}`; or give \
                     this job up: `lodge dismiss {id}`",
                    folder.map(|f| format!(", {f},")).unwrap_or_default(),
                    copy.dataset_id,
                    copy.name,
                    deposit_command(store, &job.target, copy.dataset_id)
                ),
                None => format!(
                    "job {id} failed, but its dataset{} was removed from Lodge: add its folder \
                     again (`lodge add {}`), then deposit it; or give it up: `lodge dismiss \
                     {id}`",
                    folder.map(|f| format!(", {f},")).unwrap_or_default(),
                    path.as_deref()
                        .map(super::output::shell_word)
                        .unwrap_or("DIR".into())
                ),
            }
        }
        LeftAsItWas::Rescanned(dataset) => {
            let now = dataset
                .key
                .map(|k| format!(", now {}", k.short()))
                .unwrap_or_default();
            format!(
                "job {id} failed, but {} was scanned again since it was queued and its key \
                 changed ({}{now}): what the job was to deposit is no longer in the folder. \
                 Deposit the folder as it is now: `{}`; or give this job up: `lodge dismiss \
                 {id}`",
                dataset.name,
                job.key.short(),
                deposit_command(store, &job.target, dataset.id)
            )
        }
        LeftAsItWas::AnotherOnItsWay(other) => format!(
            "job {id} failed, but job {} for the same key is {}, still to be done: `{}` runs \
             it",
            other.id,
            other.state.as_str(),
            match other.dataset_id {
                Some(dataset) => deposit_command(store, &other.target, dataset),
                None => "lodge deposit".to_string(),
            }
        ),
        LeftAsItWas::Superseded(later) => format!(
            "job {id} failed, but its key was deposited again since, as job {} ({}){}",
            later.id,
            later.state.as_str(),
            match later.state {
                JobState::Failed =>
                    format!(": that is the one to retry, `lodge retry {}`", later.id),
                _ => ": its outcome is the one that stands".to_string(),
            }
        ),
        LeftAsItWas::NotFailed | LeftAsItWas::Unexplained => {
            format!("job {id} failed and was not re-queued")
        }
    })
}

/// Why a queued job was given back to the shared queue by this machine, if it was: its
/// folder is on the machine that added it.
fn left_for_another_machine(store: &Store, job: &JobRow) -> Option<String> {
    let last = store.events_for_job(job.id).ok()?.pop()?;
    (job.state == JobState::Queued
        && last.kind == EventKind::LeftForOthers
        && last.actor == store.actor())
    .then_some(last.message)
}

/// What the user does about a target paused for `reason`, before running the command
/// again: a refused token is given again per run, or stored again for a saved DataCite,
/// Zenodo or InvenioRDM target (DataCite's 401 names its repository id too); other saved
/// credentials are fixed in the config; anything else is fixed where it says.
pub(super) fn how_to_resume(reason: &str, target: &str) -> String {
    if !crate::targets::is_paused_for_credentials(reason) {
        return "fix that".into();
    }
    let fix = if let Some(fix) = super::target_arg::stored_token_fix(target) {
        fix
    } else if takes_token_per_run(target) {
        "give the right token with --token (or LODGE_TOKEN)".into()
    } else {
        "fix the credentials".into()
    };
    // DataCite refuses a repository id it does not know as it refuses a wrong password, so
    // the right password alone may not do (`target test` says so too).
    match target.starts_with("datacite+") && reason.contains("HTTP 401") {
        true => format!("{DATACITE_401}, and {fix}"),
        false => fix,
    }
}

/// What DataCite's 401 may mean besides a wrong password.
const DATACITE_401: &str = "DataCite's 401 is for the repository id or its password: check \
                            repository= in the target's URL (the id you sign in to Fabrica \
                            with)";

/// Whether the job's record was found by the look-up before a retry, after an attempt
/// whose answer was lost.
fn found_after_lost_answer(events: &[EventRow]) -> bool {
    events.last().map(|e| e.kind) == Some(EventKind::Reconciled) && answer_lost_in(events)
}

/// Why a job ended `existing`, from the event that landed it: the store had the result
/// (a replay), the server answered that the record exists, or reconciliation found the
/// record an earlier attempt made although its answer was lost. Without the last the line
/// would read as though someone else had deposited it before.
///
/// An "exists" after an attempt of this job whose outcome was unknown is most likely that
/// attempt's own record (a server that cannot be looked the key up in first, or one whose
/// look-up missed it); an "exists" that changed the record says how ("it was a draft DOI
/// and is findable now").
fn how_it_existed(events: &[EventRow]) -> String {
    let Some(last) = events.last() else {
        return "already deposited".into();
    };
    let unknown_before = answer_lost_in(events);
    match last.kind {
        EventKind::Replay => "recorded already: no request sent".into(),
        // Found by the look-up before a retry: after a lost answer, that attempt may have
        // made it, or a deposit before it (another run's, another machine's, one whose
        // result was forgotten since); after an answer that said nothing was made (a 503),
        // it was the server's already.
        EventKind::Reconciled if unknown_before => "found after an attempt whose answer was \
                                                    lost: made by that attempt, or by an \
                                                    earlier deposit of the same content"
            .into(),
        EventKind::Reconciled => {
            "the server already had it, found by the look-up before a retry".into()
        }
        EventKind::Existing => {
            let change = last
                .message
                .strip_prefix(EXISTS_AND)
                .and_then(|rest| rest.rsplit_once(": "))
                .map(|(change, _)| change);
            match (change, unknown_before) {
                (Some(change), _) => format!("the server had it, and {change}"),
                (None, true) => "the server had it: most likely this job's earlier attempt \
                                 made it, whose answer was lost"
                    .into(),
                (None, false) => "the server already had it".into(),
            }
        }
        _ => "already deposited".into(),
    }
}

use crate::engine::EXISTS_AND;
use crate::engine::answer_lost_in;

/// Before the retry advice of a deposit that failed on the window's own local sandbox: that
/// it answers only while the window is open (else nothing).
fn window_sandbox_word(target: &str) -> String {
    use crate::sandbox::window::{closed_window_hint, is_window_sandbox, port_file};
    match is_window_sandbox(target, &port_file()) {
        true => format!("{}; ", closed_window_hint(target)),
        false => String::new(),
    }
}

/// How one item of a batch ended: the job that ran it, under the name of the dataset the
/// item was for (another dataset's job when the two have the same key).
struct Outcome {
    name: String,
    /// The dataset whose job this is, when it is not this item's own.
    shared_with: Option<String>,
    job: JobRow,
}

impl Outcome {
    fn of(job: JobRow) -> Outcome {
        Outcome {
            name: job.dataset_name.clone().unwrap_or_else(|| job.key.short()),
            shared_with: None,
            job,
        }
    }
}

/// For a job refused because its files changed after the scan: the rescan that fixes it
/// (a retry would only be refused again: the job keeps its key). Not when the folder is
/// gone: a scan cannot help, and the refusal says what can.
pub(super) fn rescan_hint(store: &Store, job: &JobRow) -> String {
    let folder_here = job
        .dataset_path
        .as_deref()
        .is_some_and(|p| Path::new(p).is_dir());
    match (job.dataset_id, job.last_error.as_deref()) {
        (Some(dataset), Some(error)) if folder_here && is_changed_since_scan(error) => {
            format!(" — {}, then deposit again", scan_command(store, dataset))
        }
        _ => String::new(),
    }
}

/// "`lodge scan N`", said with the machine it runs on when dataset `dataset` was added on
/// another one (a shared database): only that machine scans it.
pub(super) fn scan_command(store: &Store, dataset: i64) -> String {
    match store.added_elsewhere(dataset).ok().flatten() {
        Some(origin) => format!("`lodge scan {dataset}` on {origin}"),
        None => format!("`lodge scan {dataset}`"),
    }
}

/// With several failed items, one command that retries them all (each item's own line
/// already names its `lodge retry N`).
fn retry_all_hint(store: &Store, outcomes: &[Outcome]) -> Option<String> {
    let failed: Vec<i64> = outcomes
        .iter()
        .filter(|o| o.job.state == JobState::Failed)
        .map(|o| o.job.id)
        .collect();
    if failed.len() < 2 {
        return None;
    }
    let items = failed.len();
    let jobs: HashSet<i64> = failed.iter().copied().collect();
    let hint = retry_hint(store, failed)?;
    // Copies with one key share one deposit: "5 failed" above, but 4 deposits to retry.
    let shared = format!("(of {items} datasets: copies with the same key share one)");
    Some(match jobs.len() {
        n if n == items => hint,
        1 => hint.replacen(
            "the failed item",
            &format!("the failed deposit {shared}"),
            1,
        ),
        n => hint.replacen(
            &format!("the {n} failed"),
            &format!("the {n} failed deposits {shared}"),
            1,
        ),
    })
}

/// One command that re-queues `failed` jobs with their keys: `--all-failed` when they are
/// every failed job in the store, else their numbers. `None` for none.
pub(super) fn retry_hint(store: &Store, mut failed: Vec<i64>) -> Option<String> {
    failed.sort_unstable();
    failed.dedup();
    if failed.is_empty() {
        return None;
    }
    // One job reads best by its number, even when it is the only failed one.
    let command = match store.failed_job_ids(None) {
        Ok(all) if failed.len() > 1 && all == failed => "lodge retry --all-failed".to_string(),
        _ => format!(
            "lodge retry {}",
            failed
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        ),
    };
    // Sent to a target that takes a token given on the command line, the retry needs it
    // too: without it the target answers 401 and is paused.
    let targets: std::collections::HashSet<String> = (store.jobs(&failed).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|job| job.target)
        .collect();
    let command = match targets
        .iter()
        .any(|t| super::target_arg::needs_token(store, t))
    {
        true => format!("{command} --token TOKEN"),
        false => command,
    };
    Some(match failed.len() {
        1 => format!("to retry the failed item with the same key: `{command}`"),
        n => format!("to retry the {n} failed with the same keys: `{command}`"),
    })
}

/// One line per item, then the counts; exit 0 only if everything landed.
fn summarize(store: &Store, outcomes: &[Outcome], refused: usize) -> ExitCode {
    // A paused target by the name it is saved under, as `status` calls it.
    let names = super::target_arg::TargetNames::load();
    // Which drafting targets' deposits were published since (a store that cannot say
    // leaves them drafts, as their targets made them).
    let published = crate::engine::verify::published_records(store).unwrap_or_default();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    // Existing because an attempt of this job made the record and its answer was lost: a
    // record this run made, which "existing" alone would not tell.
    let mut made_here = 0;
    // Items a stop (Ctrl-C) left unfinished, by target: one command sends all of a target's.
    let mut unfinished: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    // Items left for the machine that added their dataset, by that machine and target.
    let mut left_for: BTreeMap<(String, String), Vec<i64>> = BTreeMap::new();
    let mut all_landed = refused == 0;
    // A run over several targets (`retry --all-failed`) says which each landed at: the same
    // dataset may be on the list twice.
    let targets: std::collections::HashSet<&str> =
        outcomes.iter().map(|o| o.job.target.as_str()).collect();
    let at_where = |job: &JobRow| match targets.len() > 1 {
        true => format!(" at {}", names.of(&job.target)),
        false => String::new(),
    };
    for Outcome {
        name,
        shared_with,
        job,
    } in outcomes
    {
        let at = at_where(job);
        let shared = shared_with
            .as_ref()
            .map(|other| format!(" (same key as {other}: one deposit for both)"))
            .unwrap_or_default();
        // Left a draft (not public) by a drafting target, unless published since.
        let draft = match job.state.is_landed()
            && published.is_draft(&job.target, job.identifier.as_deref())
        {
            true => " (as draft)",
            false => "",
        };
        // The line, and what it counts as in the totals: a job of a paused target is still
        // queued, but "queued" would not tell the reader that it waits on them.
        let (line, counted_as) = match job.state {
            JobState::Deposited => (
                format!(
                    "deposited {name}{at} -> {}{draft}{shared}",
                    job.identifier.as_deref().unwrap_or("?")
                ),
                job.state.as_str(),
            ),
            JobState::Existing => {
                let events = store.events_for_job(job.id).unwrap_or_default();
                made_here += usize::from(found_after_lost_answer(&events));
                let how = how_it_existed(&events);
                (
                    format!(
                        "existing  {name}{at} -> {}{draft} ({how}){shared}",
                        job.identifier.as_deref().unwrap_or("?"),
                    ),
                    job.state.as_str(),
                )
            }
            JobState::Failed => (
                format!(
                    "failed    {name} (job {}){shared} at {}: {} — {}retry with `lodge retry {}{}`",
                    job.id,
                    names.of(&job.target),
                    job.last_error.as_deref().unwrap_or("unknown error"),
                    window_sandbox_word(&job.target),
                    job.id,
                    match super::target_arg::needs_token(store, &job.target) {
                        true => " --token TOKEN",
                        false => "",
                    }
                ),
                job.state.as_str(),
            ),
            JobState::Rejected => (
                format!(
                    "rejected  {name} (job {}){shared} at {}: {}{}{}",
                    job.id,
                    names.of(&job.target),
                    job.last_error.as_deref().unwrap_or("refused"),
                    rescan_hint(store, job),
                    refusal_hint(job, store.target_url(&job.target).ok().flatten().as_deref())
                ),
                job.state.as_str(),
            ),
            other => {
                let paused = store.target_paused(&job.target).ok().flatten();
                match paused {
                    Some(reason) => {
                        let fix = how_to_resume(&reason, &job.target);
                        let line = format!(
                            "paused    {name} (job {}): {} is paused: {reason} — {fix}, then run the command again",
                            job.id,
                            names.of(&job.target)
                        );
                        (line, "paused")
                    }
                    None => match left_for_another_machine(store, job) {
                        Some(why) => {
                            if let Some(dataset) = job.dataset_id
                                && let Ok(Some(origin)) = store.added_elsewhere(dataset)
                            {
                                let datasets =
                                    (left_for.entry((origin, job.target.clone()))).or_default();
                                if !datasets.contains(&dataset) {
                                    datasets.push(dataset);
                                }
                            }
                            (
                                format!("left      {name} (job {}): {why}", job.id),
                                "left for the machine that added them",
                            )
                        }
                        // Stopped (Ctrl-C) before it ended: the deposit that sends it,
                        // whichever command queued it (`retry` would not see it again: it is
                        // no longer failed).
                        None => {
                            if let Some(dataset) = job.dataset_id {
                                let datasets = unfinished.entry(job.target.clone()).or_default();
                                if !datasets.contains(&dataset) {
                                    datasets.push(dataset);
                                }
                            }
                            (
                                format!(
                                    "{:<9} {name} (job {}): not finished; {}",
                                    other.as_str(),
                                    job.id,
                                    match job.dataset_id {
                                        Some(dataset) => format!(
                                            "`{}`{} sends it",
                                            deposit_command(store, &job.target, dataset),
                                            where_it_sends(store, dataset)
                                        ),
                                        None => "run the command again".to_string(),
                                    }
                                ),
                                other.as_str(),
                            )
                        }
                    },
                }
            }
        };
        say!("{line}");
        *counts.entry(counted_as).or_default() += 1;
        all_landed &= job.state.is_landed();
    }
    let mut parts: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    if refused > 0 {
        parts.push(format!("{refused} refused before queueing"));
    }
    // Already counted above as what they landed as: said apart, not added to the sum.
    let shared = outcomes.iter().filter(|o| o.shared_with.is_some()).count();
    // Of all the items, whatever became of them: not of the count said just before.
    let shared = match (shared, outcomes.len()) {
        (0, _) => String::new(),
        (n, total) => format!(
            "; {n} of the {total} {} through another dataset's deposit of the same key (a \
             copy of its folder: one deposit for both)",
            match n {
                1 => "goes",
                _ => "go",
            }
        ),
    };
    let made_here = match made_here {
        0 => String::new(),
        n => format!(
            "; {n} of the existing found after an attempt whose answer was lost (made by \
             it, or by an earlier deposit of the same content)"
        ),
    };
    say!("{}{made_here}{shared}", parts.join(", "));
    if let Some(line) = retry_all_hint(store, outcomes) {
        say!("{line}");
    }
    // What is left for another machine is sent there: by which command.
    for ((origin, target), datasets) in &left_for {
        say!(
            "to send what is left for {origin}: `{}` on {origin}",
            super::target_arg::deposit_command_for(store, target, datasets)
        );
    }
    for (target, datasets) in unfinished.iter().filter(|(_, d)| d.len() > 1) {
        say!(
            "to send the {} not finished at {} (with the same keys, looking first whether each \
             landed): `{}`",
            datasets.len(),
            names.of(target),
            super::target_arg::deposit_command_for(store, target, datasets)
        );
    }
    if all_landed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NONE_FOUND;

    #[test]
    fn a_stopped_run_ends_130_unless_everything_had_landed() {
        let failed = ExitCode::from(1);
        assert_eq!(Stopped(true).exit_code(failed), ExitCode::from(130));
        assert_eq!(
            Stopped(true).exit_code(ExitCode::SUCCESS),
            ExitCode::SUCCESS
        );
        assert_eq!(Stopped(false).exit_code(failed), failed);
    }

    fn event(id: i64, kind: EventKind, message: &str) -> EventRow {
        EventRow::for_tests_saying(id, kind, message)
    }

    #[test]
    fn a_rejection_is_said_once_whoever_refused() {
        let with = |error: &str| JobRow {
            last_error: Some(error.into()),
            ..JobRow::for_tests(1, JobState::Rejected)
        };
        assert_eq!(
            refusal_of(&with("rejected (HTTP 409): doi: has already been taken")),
            "rejected (HTTP 409): doi: has already been taken"
        );
        assert_eq!(
            refusal_of(&with("changed since scan: /d/a.csv: modified")),
            "rejected (changed since scan: /d/a.csv: modified)"
        );
    }

    /// A refusal of the metadata is fixed in the metadata; one of the target (its bucket or
    /// folder missing) is fixed there, or given up, never by editing the dataset.
    #[test]
    fn a_refusal_of_the_target_does_not_send_the_reader_to_the_metadata() {
        let with = |error: &str| JobRow {
            dataset_path: Some("/data/ds1".into()),
            last_error: Some(error.into()),
            ..JobRow::for_tests(4, JobState::Rejected)
        };
        let of_metadata = refusal_hint_of(&with("rejected (HTTP 422): title: must not be empty"));
        assert!(
            of_metadata.contains("the metadata: `lodge add /data/ds1`"),
            "{of_metadata}"
        );
        let of_target = refusal_hint_of(&with(
            "rejected (HTTP 404): target 'lab-s3': bucket 'x' does not exist (HTTP 404 \
             NoSuchBucket): create it or fix the URL",
        ));
        assert_eq!(
            of_target,
            " — then deposit again; or give it up there: `lodge dismiss 4`"
        );
        let damaged_there = refusal_hint_of(&with(
            "rejected (HTTP 422): manifest[0].size: 'a.csv': the manifest says 20 bytes but \
             blob sha256:ab has 15",
        ));
        assert!(!damaged_there.contains("metadata"), "{damaged_there}");
        assert!(
            damaged_there.contains("the server does not hold a file as it was sent")
                && damaged_there.contains("dismiss 4"),
            "{damaged_there}"
        );
        let too_large = refusal_hint_of(&with(
            "rejected (HTTP 413): size: the server takes no request this large (scan.tif is \
             larger than the 64 MiB this InvenioRDM emulation keeps a file)",
        ));
        assert!(!too_large.contains("metadata"), "{too_large}");
        assert!(
            too_large.contains("once the file fits, add the folder again")
                && too_large.contains("dismiss 4"),
            "{too_large}"
        );
        // A WebDAV server's 400 (a path it reads as an absolute URI, say) is the request's,
        // not the metadata's: it checks none.
        let dav = JobRow {
            target: "webdav+http://127.0.0.1:9/lodge".into(),
            ..with("rejected (HTTP 400): record: Absolute URI not allowed")
        };
        let of_dav = refusal_hint(&dav, Some("webdav+http://127.0.0.1:9/lodge"));
        assert!(!of_dav.contains("lodge add"), "{of_dav}");
        assert!(
            of_dav.contains(
                "the server refused the request, not the metadata: check the target (`lodge \
                 target test webdav+http://127.0.0.1:9/lodge` says what it answers)"
            ) && of_dav.contains("dismiss 4"),
            "{of_dav}"
        );
    }

    /// [`refusal_hint`] of a job whose target's URL is not known.
    fn refusal_hint_of(job: &JobRow) -> String {
        refusal_hint(job, None)
    }

    #[test]
    fn a_prefix_not_the_repositorys_is_fixed_in_the_targets_own_url() {
        let fix = prefix_fix(
            "datacite+http://127.0.0.1:9/10.99999",
            Some("datacite+http://127.0.0.1:9?prefix=10.99999&repository=LAB.DATA"),
        );
        assert_eq!(
            fix,
            "`lodge target test 'datacite+http://127.0.0.1:9?prefix=10.99999&repository=LAB.DATA'` \
             names them; then use 'datacite+http://127.0.0.1:9?prefix=PREFIX&repository=LAB.DATA' \
             with one for PREFIX"
        );
    }

    #[test]
    fn an_exists_is_said_with_what_it_changed_and_after_a_lost_answer_as_most_likely_its_own() {
        let attempt = event(1, EventKind::Attempt, "attempt 1 of 8");
        let exists = event(3, EventKind::Existing, "server says it already exists: r-1");
        assert_eq!(
            how_it_existed(&[attempt.clone(), exists.clone()]),
            "the server already had it"
        );
        let lost = event(
            2,
            EventKind::RetryScheduled,
            "retry in 1 s after attempt 1: outcome unknown (HTTP 504): Gateway Timeout",
        );
        assert_eq!(
            how_it_existed(&[attempt.clone(), lost.clone(), exists.clone()]),
            "the server had it: most likely this job's earlier attempt made it, whose answer \
             was lost"
        );
        // The look-up before the retry found none: the attempt whose answer was lost made
        // nothing, and another deposit made it since.
        let none_found = event(3, EventKind::Reconciled, &format!("{NONE_FOUND} (the ...)"));
        assert_eq!(
            how_it_existed(&[attempt.clone(), lost, none_found, exists]),
            "the server already had it"
        );
        let raised = event(
            3,
            EventKind::Existing,
            &format!("{EXISTS_AND}it was a draft DOI and is findable now: 10.80000/x"),
        );
        assert_eq!(
            how_it_existed(&[attempt, raised]),
            "the server had it, and it was a draft DOI and is findable now"
        );
        assert_eq!(
            how_it_existed(&[event(1, EventKind::Replay, "replayed")]),
            "recorded already: no request sent"
        );
    }

    #[test]
    fn a_record_found_by_the_look_up_is_said_to_be_this_jobs_only_after_a_lost_answer() {
        let attempt = event(1, EventKind::Attempt, "attempt 1 of 8");
        let found = event(
            4,
            EventKind::Reconciled,
            "reconciled: the server already has r-1",
        );
        let waited = event(
            2,
            EventKind::RetryScheduled,
            "retry in 1 s after attempt 1: server busy (HTTP 503): nothing was committed",
        );
        assert_eq!(
            how_it_existed(&[attempt.clone(), waited, found.clone()]),
            "the server already had it, found by the look-up before a retry"
        );
        let lost = event(
            2,
            EventKind::RetryScheduled,
            "retry in 1 s after attempt 1: outcome unknown (connection reset)",
        );
        assert_eq!(
            how_it_existed(&[attempt, lost, found]),
            "found after an attempt whose answer was lost: made by that attempt, or by an \
             earlier deposit of the same content"
        );
    }
}
