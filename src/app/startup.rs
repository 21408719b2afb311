//! Opening everything the app needs, off the UI thread: the store, the settings, the
//! in-process sandbox (on the loopback port it used last time when free), the engine with the
//! sandbox and every configured target, and its event forwarder; then the first picture of every dataset.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use super::commands::{Core, Outbox};
use super::config_watch::{ConfigStamp, watch_config_file};
use super::model::Notice;
use super::service::ServiceConfig;
use super::settings::Settings;
use super::target_commands::left_out_of_picker;
use super::targets::register_all;
use super::update::{FolderChanged, Startup, Update};
use crate::engine::{Engine, EngineEvent};
use crate::sandbox::{RunningSandbox, SandboxConfig};
use crate::store::{EventKind, EventRow, JobRow, JobState, Store, StoreError, StoreLocation};
use crate::targets::{is_changed_since_scan, open_target};

/// What the picker calls the built-in sandbox.
pub const SANDBOX_LABEL: &str = "Local sandbox — test deposits, nothing leaves this computer";

/// The local sandbox's label in the picker: [`SANDBOX_LABEL`], or, while another window
/// holds its usual port (`stand_in`: this window's port, the usual one), one that names the
/// stand-in port wherever the window names the target (the picker, *Deposit to*, the
/// details), since what it deposits is listed under that port only.
pub fn sandbox_label(stand_in: Option<(u16, u16)>) -> String {
    match stand_in {
        None => SANDBOX_LABEL.to_string(),
        Some((port, usual)) => format!(
            "Local sandbox on port {port} — this run only: another Lodge window has its usual \
             port {usual}; test deposits, nothing leaves this computer"
        ),
    }
}

/// How many recent events the log starts with.
const RECENT_EVENTS: i64 = 500;

pub(super) async fn open(
    config: ServiceConfig,
    out: Outbox,
    shutdown: CancellationToken,
) -> Result<Arc<Core>, String> {
    let paths = config.paths.clone();
    let (store, settings, settings_problem, saved_port) = {
        let paths = paths.clone();
        tokio::task::spawn_blocking(move || {
            let (settings, problem) = match Settings::load(&paths.settings_file) {
                Ok(s) => {
                    let title = s.title_problem().map(|p| {
                        format!(
                            "The default title saved in Settings is not given to new folders: \
                             {p}. Correct it in Settings."
                        )
                    });
                    let creator = s.creator_problem().map(|p| {
                        format!(
                            "An id saved in Settings is left out of the creator new folders \
                             get: {p}. Correct it in Settings."
                        )
                    });
                    let problem = match (title, creator) {
                        (Some(title), Some(creator)) => Some(format!("{title} {creator}")),
                        (title, creator) => title.or(creator),
                    };
                    (s, problem)
                }
                Err(problem) => (
                    Settings::default(),
                    Some(crate::wording::capitalized(&problem)),
                ),
            };
            // `--db`/`LODGE_DB` first, then the shared database named in Settings.
            let (location, from_settings) = match settings.shared_database() {
                Some(shared) if !paths.db_from_command_line => (shared, true),
                _ => (StoreLocation::from(paths.db.clone()), false),
            };
            let store = Store::open_at(&location).map_err(|e| match from_settings {
                // Settings opens without a store: that is where it is corrected.
                true => format!(
                    "{e}. It is the shared database named in Settings: correct it there, or \
                     empty it to use this computer's own file, then start Lodge again"
                ),
                false => e.to_string(),
            })?;
            let port = std::fs::read_to_string(&paths.sandbox_port_file)
                .ok()
                .and_then(|t| t.trim().parse::<u16>().ok());
            Ok::<_, String>((Arc::new(store), settings, problem, port))
        })
        .await
        .map_err(|e| format!("starting Lodge failed: {e}"))??
    };

    let sandbox = start_sandbox(&config, saved_port).await?;
    let port = sandbox.addr().port();
    // The saved port is the local sandbox's identity (its scope): what was deposited there
    // shows as deposited only under it. Another window holding it keeps it; this window's
    // stand-in port is for this run only. Otherwise best effort: a different port next time
    // only means a different sandbox scope.
    let held_by_another_window = match saved_port {
        Some(saved) if saved != port => is_lodge_sandbox(saved).await,
        _ => false,
    };
    if !held_by_another_window {
        let _ = tokio::fs::write(&paths.sandbox_port_file, port.to_string()).await;
    }
    let target = open_target(&sandbox.target_url(), None).map_err(|e| e.to_string())?;

    let label = sandbox_label(match (held_by_another_window, saved_port) {
        (true, Some(usual)) => Some((port, usual)),
        _ => None,
    });
    let config_stamp;
    let registered = {
        let store = store.clone();
        let target = target.clone();
        let engine_config = config.engine.clone();
        let config_file = paths.config_file.clone();
        config_stamp = ConfigStamp::of(&config_file);
        let token = config.sandbox_token.clone();
        let label = label.clone();
        tokio::task::spawn_blocking(move || {
            register_all(
                store,
                engine_config,
                target,
                &label,
                &config_file,
                token.as_deref(),
            )
        })
        .await
        .map_err(|e| format!("starting the deposit engine failed: {e}"))??
    };
    let engine = Arc::new(registered.engine);
    forward_engine_events(&engine, store.clone(), out.clone(), shutdown.clone());
    let targets = registered.picker;
    let configured = registered.configured;
    // What a change to the config file outside the window is told against.
    let opened = configured.clone();
    let left_out = left_out_of_picker(&configured);
    let mut problems: Vec<String> = left_out
        .iter()
        .map(|(name, p)| format!("Target '{name}' is not in the picker: {p}"))
        .collect();
    problems.extend(super::target_commands::unreadable_config_notice(
        &configured,
    ));
    if held_by_another_window && let Some(saved) = saved_port {
        problems.push(format!(
            "Another Lodge window is open, with the local sandbox on its usual port {saved}. \
             This window's local sandbox is on port {port} until it closes, and what it \
             deposits there is listed under that port, as another target: deposit to the \
             local sandbox from the other window."
        ));
    }
    problems.extend(store.network_warning());
    let clock = {
        let store = store.clone();
        tokio::task::spawn_blocking(move || store.clock_warning())
            .await
            .ok()
            .flatten()
    };
    problems.extend(clock.map(|w| format!("Careful: {w}")));
    let startup = {
        let store = store.clone();
        // Shown in the window: a PostgreSQL URL without its password.
        let db = std::path::PathBuf::from(store.location().to_string());
        tokio::task::spawn_blocking(move || {
            let last = store.last_event_id()?;
            // Every paused target, the picker's and those used from the command line (the
            // History says which queued jobs wait on one).
            let paused = store.paused_targets()?;
            let latest_jobs = store.latest_jobs()?;
            Ok::<_, crate::store::StoreError>(Startup {
                db,
                db_given: paths.db_from_command_line,
                actor: store.actor().to_string(),
                targets,
                configured,
                datasets: store.dataset_summaries()?,
                landed_after_lost_answer: landed_after_lost_answer(&store, &latest_jobs)?,
                latest_jobs,
                results: store.result_fingerprints()?,
                published_drafts: store.published_drafts()?,
                earlier_events: last > RECENT_EVENTS
                    && (store.events_after(0, 1)?.first())
                        .is_some_and(|first| first.id <= last - RECENT_EVENTS),
                recent_events: store.events_after(last - RECENT_EVENTS, RECENT_EVENTS as usize)?,
                removed: store.removed_datasets()?,
                checks: store.latest_checks()?,
                paused_targets: paused,
                settings: settings.clone(),
                settings_problem,
            })
        })
        .await
        .map_err(|e| format!("loading the datasets failed: {e}"))?
        .map_err(|e| format!("cannot read the Lodge database {}: {e}", paths.db.display()))?
    };
    let settings = startup.settings.clone();
    let last_event = startup.recent_events.last().map_or(0, |e| e.id);
    let known = startup.datasets.iter().map(|d| d.id).collect();
    out.send(Update::Started(Box::new(startup)));
    watch_shared_store(
        store.clone(),
        last_event,
        known,
        out.clone(),
        shutdown.clone(),
    );
    for p in problems {
        out.send(Update::Notice(Notice::warning(p)));
    }
    note_folders_since_scan(store.clone(), out.clone());
    let core = Arc::new(Core::new(
        store,
        engine,
        sandbox,
        target,
        label,
        config,
        settings,
        out,
        shutdown.clone(),
        left_out,
        config_stamp,
    ));
    core.set_targets_opened(&opened);
    watch_config_file(core.clone(), shutdown);
    Ok(core)
}

async fn start_sandbox(
    config: &ServiceConfig,
    saved_port: Option<u16>,
) -> Result<RunningSandbox, String> {
    let sandbox_config = |port: u16| SandboxConfig {
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        data_dir: config.paths.sandbox_dir.clone(),
        token: None,
        faults: config.sandbox_faults.clone(),
    };
    if let Some(port) = saved_port
        && let Ok(sandbox) = RunningSandbox::start(sandbox_config(port)).await
    {
        return Ok(sandbox);
    }
    RunningSandbox::start(sandbox_config(0)).await.map_err(|e| {
        format!(
            "cannot start the local sandbox with its data in {}: {e:#}",
            config.paths.sandbox_dir.display()
        )
    })
}

/// Whether a Lodge sandbox answers on loopback `port` (another window's, most likely):
/// its `/stats` reads as a sandbox's.
async fn is_lodge_sandbox(port: u16) -> bool {
    let Ok(client) = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(2))
        .build()
    else {
        return false;
    };
    let Ok(response) = client
        .get(format!("http://127.0.0.1:{port}/stats"))
        .send()
        .await
    else {
        return false;
    };
    response
        .json::<serde_json::Value>()
        .await
        .is_ok_and(|stats| stats.get("records").is_some() && stats.get("creates").is_some())
}

/// Say, once the window is up, which of this machine's datasets have lost their folders
/// (moved or deleted since they were added), and which folders changed since their last
/// scan. Either way a row's last state is of the folder as scanned: a deposit or rescan of
/// a lost one could only be refused, and a changed one is deposited as it was until it is
/// rescanned. One stat per dataset, and a walk of each folder still there (no hashing), off
/// the window's thread.
fn note_folders_since_scan(store: Arc<Store>, out: Outbox) {
    tokio::task::spawn_blocking(move || {
        let Ok(gone) = crate::catalog::folders_gone(&store) else {
            return;
        };
        out.send(Update::FoldersGone(gone.iter().map(|d| d.id).collect()));
        let named: Vec<String> = gone
            .iter()
            .map(|d| format!("{} ({})", d.name, d.path))
            .collect();
        if let Some(notice) = missing_folders_notice(&named) {
            out.send(Update::Notice(Notice {
                while_gone: gone.iter().map(|d| d.id).collect(),
                ..Notice::warning(notice)
            }));
        }
        let Ok(changed) = crate::catalog::folders_changed(&store, |_| true) else {
            return;
        };
        let unscannable = changed
            .iter()
            .filter(|(_, c)| matches!(c, crate::catalog::FolderChange::Unscannable(_)))
            .count();
        let changed: Vec<(String, FolderChanged)> = changed
            .iter()
            .map(|(d, change)| (d.name.clone(), FolderChanged::of(d, change)))
            .collect();
        let named: Vec<String> = changed
            .iter()
            .map(|(name, c)| format!("{name} ({})", c.what))
            .collect();
        out.send(Update::FoldersChanged(
            changed.into_iter().map(|(_, c)| c).collect(),
        ));
        if let Some(notice) = changed_folders_notice(&named, unscannable) {
            out.send(Update::Notice(Notice::info(notice)));
        }
    });
}

/// "a, b, c and 2 more": the first three of `named`, and how many others.
fn first_three(named: &[String]) -> String {
    const NAMED: usize = 3;
    let (first, rest) = named.split_at(named.len().min(NAMED));
    match rest.len() {
        0 => first.join(", "),
        n => format!("{} and {n} more", first.join(", ")),
    }
}

/// The notice for the datasets in `gone` (each "name (folder)"), naming the first three.
fn missing_folders_notice(gone: &[String]) -> Option<String> {
    let (whose, each) = match gone.len() {
        0 => return None,
        1 => ("The folder of 1 dataset is", "it"),
        _ => ("The folders of these datasets are", "each"),
    };
    Some(format!(
        "{whose} gone (moved or deleted): {}. Drop {each} where it is now onto the \
         window to add it there, or remove its row (what it deposited stays).",
        first_three(gone)
    ))
}

/// The notice for the datasets in `changed` (each "name (what changed)"), naming the
/// first three; `unscannable` of them cannot be scanned as they are now (emptied, a file
/// unreadable), so a Rescan of those could only be refused until that is fixed.
fn changed_folders_notice(changed: &[String], unscannable: usize) -> Option<String> {
    let (whose, each, its) = match changed.len() {
        0 => return None,
        1 => ("The folder of 1 dataset", "it", "its"),
        _ => ("The folders of these datasets", "each", "each one's"),
    };
    let rescan = format!("Rescan {each} ({its} row's Rescan) to deposit the files as they are now");
    let advice = match unscannable {
        0 => rescan,
        n if n == changed.len() => format!(
            "fix what stops the scan, then {}",
            rescan.replacen("Rescan", "rescan", 1)
        ),
        _ => format!("{rescan} (a folder that cannot be scanned needs that fixed first)"),
    };
    Some(format!(
        "{whose} changed since the last scan: {}. A deposit sends a folder as it was \
         scanned: {advice}.",
        first_three(changed)
    ))
}

/// Pass every engine event on to the window. If the window fell behind and events were
/// dropped, reload the latest jobs so no row stays stale.
pub(super) fn forward_engine_events(
    engine: &Arc<Engine>,
    store: Arc<Store>,
    out: Outbox,
    shutdown: CancellationToken,
) {
    let mut events = engine.subscribe();
    tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                e = events.recv() => e,
                _ = shutdown.cancelled() => return,
            };
            match event {
                Ok(e) => {
                    if let EngineEvent::Logged(row) = &e {
                        out.reported(row.id);
                    }
                    let paused = match &e {
                        EngineEvent::Logged(row) if row.kind == EventKind::Paused => {
                            row.target.clone()
                        }
                        _ => None,
                    };
                    // A deposit refused because its files changed may have found the
                    // whole folder gone: the row then says Folder missing, not Rescan.
                    let gone = match &e {
                        EngineEvent::JobChanged(job)
                            if job.state == JobState::Rejected
                                && job.last_error.as_deref().is_some_and(is_changed_since_scan)
                                && job
                                    .dataset_path
                                    .as_deref()
                                    .is_some_and(|p| !std::path::Path::new(p).is_dir()) =>
                        {
                            job.dataset_id
                        }
                        _ => None,
                    };
                    // A job that found its record after its own lost answer reads as
                    // deposited, not as the server's already: its log says which.
                    if let EngineEvent::JobChanged(job) = &e
                        && might_have_landed_after_lost_answer(job)
                    {
                        let (store, job) = (store.clone(), job.clone());
                        let found = tokio::task::spawn_blocking(move || {
                            landed_after_lost_answer(&store, std::slice::from_ref(&job))
                        });
                        if let Ok(Ok(jobs)) = found.await
                            && !jobs.is_empty()
                        {
                            out.send(Update::LandedAfterLostAnswer(jobs));
                        }
                    }
                    out.send(Update::Engine(e));
                    if let Some(dataset) = gone {
                        out.send(Update::FoldersGone(vec![dataset]));
                    }
                    // The event says that a target paused; the store says why (and whether
                    // it still is).
                    if let Some(scope) = paused {
                        let (store, s) = (store.clone(), scope.clone());
                        if let Ok(Ok(reason)) =
                            tokio::task::spawn_blocking(move || store.target_paused(&s)).await
                        {
                            out.send(Update::TargetPaused { scope, reason });
                        }
                    }
                }
                Err(RecvError::Lagged(_)) => {
                    let store = store.clone();
                    if let Ok(Ok((landed, jobs))) = tokio::task::spawn_blocking(move || {
                        let jobs = store.latest_jobs()?;
                        Ok::<_, StoreError>((landed_after_lost_answer(&store, &jobs)?, jobs))
                    })
                    .await
                    {
                        out.send(Update::LandedAfterLostAnswer(landed));
                        out.send(Update::JobsReloaded(jobs));
                    }
                }
                Err(RecvError::Closed) => return,
            }
        }
    });
}

/// How long the shared database may not answer before the window says so: a restart's
/// moment is no news.
const UNREACHABLE_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Say when the shared database at `location` stops answering (for longer than `grace`)
/// and when it answers again: until then, what the window does that needs it waits, and a
/// person would otherwise see nothing happen.
fn say_when_unreachable(
    mut reachable: tokio::sync::watch::Receiver<bool>,
    location: String,
    grace: std::time::Duration,
    out: Outbox,
    shutdown: CancellationToken,
) {
    tokio::spawn(async move {
        let mut said = false;
        loop {
            tokio::select! {
                changed = reachable.changed() => if changed.is_err() { return },
                _ = shutdown.cancelled() => return,
            }
            let answers = *reachable.borrow_and_update();
            if answers && said {
                said = false;
                out.notice(Notice::info(format!(
                    "The shared database {location} answers again."
                )));
            } else if !answers && !said {
                tokio::select! {
                    _ = tokio::time::sleep(grace) => {}
                    _ = shutdown.cancelled() => return,
                }
                if !*reachable.borrow() {
                    said = true;
                    out.notice(Notice::warning(unreachable_notice(&location)));
                }
            }
        }
    });
}

/// What the window says while the shared database at `location` does not answer.
fn unreachable_notice(location: &str) -> String {
    format!(
        "The shared database {location} does not answer. Lodge keeps trying: what the window \
         does now waits for it (up to 10 minutes) and goes on once it answers; nothing is \
         lost."
    )
}

/// Show what other processes do with the store (a `lodge deposit` or `lodge add` in a
/// terminal; in team mode, other machines' workers): on each notice, read the events after
/// the last one seen, the jobs they touched and the datasets they added, rescanned or
/// removed, and pass them on like this process's own. Events this window's engine reported
/// are left out, with their jobs (during a batch of its own that was most of each read:
/// `cargo bench --bench store_queue`); others this process logged itself arrive twice and
/// are shown once (the model keeps event ids).
fn watch_shared_store(
    store: Arc<Store>,
    mut last: i64,
    mut known: HashSet<i64>,
    out: Outbox,
    shutdown: CancellationToken,
) {
    let Some(mut notices) = store.event_notices() else {
        return;
    };
    say_when_unreachable(
        notices.reachable.clone(),
        store.location().to_string(),
        UNREACHABLE_GRACE,
        out.clone(),
        shutdown.clone(),
    );
    let watching = out.watch_log();
    tokio::spawn(async move {
        // However this task ends, the engine's event ids stop being kept for it.
        let _watching = watching;
        loop {
            tokio::select! {
                notice = notices.receiver.recv() => if notice.is_none() { return },
                _ = shutdown.cancelled() => return,
            }
            // A burst of notices is one read.
            while notices.receiver.try_recv().is_ok() {}
            let s = store.clone();
            let unknown = known.clone();
            let reported = out.clone();
            let read = tokio::task::spawn_blocking(move || {
                let events = s.events_after(last, 10_000)?;
                let newest = events.last().map(|e| e.id);
                let events = reported.not_reported(events);
                let mut jobs: Vec<i64> = events.iter().filter_map(|e| e.job_id).collect();
                jobs.sort_unstable();
                jobs.dedup();
                let datasets = dataset_updates(&s, &events, &unknown)?;
                // A target paused elsewhere (a terminal's deposit had its token refused):
                // the store says which are paused now, and why.
                let paused = match events.iter().any(|e| e.kind == EventKind::Paused) {
                    true => Some(s.paused_targets()?),
                    false => None,
                };
                let mut jobs = s.jobs(&jobs)?;
                // A job given up on elsewhere leaves its row, and the job before it of the
                // same target, if one landed, takes its place: the latest jobs come after.
                if events.iter().any(|e| e.kind == EventKind::Dismissed) {
                    jobs.extend(s.latest_jobs()?);
                }
                let landed = landed_after_lost_answer(&s, &jobs)?;
                Ok::<_, crate::store::StoreError>((newest, events, jobs, landed, datasets, paused))
            })
            .await;
            let Ok(Ok((Some(newest), events, jobs, landed, datasets, paused))) = read else {
                continue;
            };
            last = newest;
            for update in datasets {
                match &update {
                    Update::DatasetFound(summary) | Update::DatasetSaved { summary, .. } => {
                        known.insert(summary.id)
                    }
                    Update::DatasetRemoved(id) => known.remove(id),
                    _ => false,
                };
                out.send(update);
            }
            if let Some(paused) = paused {
                out.send(Update::PausedTargets(paused));
            }
            if !events.is_empty() {
                out.send(Update::Logged(events));
            }
            if !landed.is_empty() {
                out.send(Update::LandedAfterLostAnswer(landed));
            }
            if !jobs.is_empty() {
                out.send(Update::Jobs(jobs));
            }
        }
    });
}

/// Whether `job` may have landed after its own lost answer: it ended `existing` after an
/// attempt (a replay makes none). Only such jobs' logs are read.
fn might_have_landed_after_lost_answer(job: &JobRow) -> bool {
    job.state == JobState::Existing && job.attempts_in_all() > 0
}

/// Those of `jobs` that landed `existing` on finding their record after their own attempt's
/// answer was lost ([`crate::engine::landed_after_lost_answer`]), read from their logs.
fn landed_after_lost_answer(store: &Store, jobs: &[JobRow]) -> Result<Vec<i64>, StoreError> {
    let mut landed = Vec::new();
    for job in jobs
        .iter()
        .filter(|j| might_have_landed_after_lost_answer(j))
    {
        if crate::engine::landed_after_lost_answer(&store.events_for_job(job.id)?) {
            landed.push(job.id);
        }
    }
    Ok(landed)
}

/// What the window changes of its datasets for `events` logged elsewhere, in their order: a
/// dataset rescanned comes as it is now (its new key), a removed one goes, and one the
/// window does not know (added, or met in another event, say a deposit from another
/// machine) gets a row. Each is read as it is now, so a burst of changes to one dataset
/// ends as the store has it.
fn dataset_updates(
    store: &Store,
    events: &[EventRow],
    known: &HashSet<i64>,
) -> Result<Vec<Update>, crate::store::StoreError> {
    let mut updates = Vec::new();
    let mut found = HashSet::new();
    for e in events {
        let Some(id) = e.dataset_id else {
            continue;
        };
        match e.kind {
            EventKind::Removed => updates.push(Update::DatasetRemoved(id)),
            EventKind::Rescanned | EventKind::Edited => {
                if let Some(summary) = store.dataset_summary(id)? {
                    updates.push(Update::DatasetSaved {
                        placeholder: None,
                        summary,
                    });
                }
            }
            _ if !known.contains(&id) && found.insert(id) => {
                if let Some(summary) = store.dataset_summary(id)? {
                    updates.push(Update::DatasetFound(summary));
                }
            }
            _ => {}
        }
    }
    Ok(updates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_window_says_once_when_the_shared_database_stops_answering_and_when_it_is_back() {
        use std::time::Duration;
        let (tx, rx) = std::sync::mpsc::channel();
        let out = Outbox::new(tx, Arc::new(|| {}));
        let (answers, reachable) = tokio::sync::watch::channel(true);
        let grace = Duration::from_millis(200);
        let location = "postgres://lab@db.example/lodge".to_string();
        say_when_unreachable(reachable, location, grace, out, CancellationToken::new());
        let said = || -> Vec<String> {
            rx.try_iter()
                .filter_map(|u| match u {
                    Update::Notice(n) => Some(n.text),
                    _ => None,
                })
                .collect()
        };
        // A moment's loss (a restart) is no news.
        answers.send_replace(false);
        tokio::time::sleep(grace / 4).await;
        answers.send_replace(true);
        tokio::time::sleep(grace * 2).await;
        assert_eq!(said(), Vec::<String>::new());
        // A loss that lasts is said once, and its end.
        answers.send_replace(false);
        tokio::time::sleep(grace * 3).await;
        let lost = said();
        assert_eq!(lost.len(), 1, "{lost:?}");
        assert!(
            lost[0]
                .starts_with("The shared database postgres://lab@db.example/lodge does not answer"),
            "{lost:?}"
        );
        answers.send_replace(true);
        tokio::time::sleep(grace / 4).await;
        assert_eq!(
            said(),
            ["The shared database postgres://lab@db.example/lodge answers again."]
        );
    }

    #[test]
    fn the_missing_folders_notice_names_three_and_counts_the_rest() {
        assert_eq!(missing_folders_notice(&[]), None);
        let five: Vec<String> = (1..=5).map(|i| format!("run{i} (/data/run{i})")).collect();
        let said = missing_folders_notice(&five).unwrap();
        assert!(
            said.starts_with(
                "The folders of these datasets are gone (moved or deleted): run1 (/data/run1), \
                 run2 (/data/run2), run3 (/data/run3) and 2 more. Drop each where it is now"
            ),
            "{said}"
        );
    }

    #[test]
    fn the_changed_folders_notice_says_what_changed_and_to_rescan() {
        assert_eq!(changed_folders_notice(&[], 0), None);
        let one = ["soil (1 file modified)".to_string()];
        assert_eq!(
            changed_folders_notice(&one, 0).unwrap(),
            "The folder of 1 dataset changed since the last scan: soil (1 file modified). A \
             deposit sends a folder as it was scanned: Rescan it (its row's Rescan) to deposit \
             the files as they are now."
        );
        let four: Vec<String> = (1..=4).map(|i| format!("run{i} (1 file added)")).collect();
        let said = changed_folders_notice(&four, 0).unwrap();
        assert!(
            said.contains("run3 (1 file added) and 1 more. ") && said.contains("Rescan each"),
            "{said}"
        );
    }

    #[test]
    fn a_folder_that_cannot_be_scanned_is_to_be_fixed_before_its_rescan() {
        let emptied = ["soil (cannot be scanned as it is now: no files)".to_string()];
        assert_eq!(
            changed_folders_notice(&emptied, 1).unwrap(),
            "The folder of 1 dataset changed since the last scan: soil (cannot be scanned as \
             it is now: no files). A deposit sends a folder as it was scanned: fix what stops \
             the scan, then rescan it (its row's Rescan) to deposit the files as they are now."
        );
        let both = [
            "soil (1 file added)".to_string(),
            "cores (cannot be scanned as it is now: no files)".to_string(),
        ];
        assert!(changed_folders_notice(&both, 1).unwrap().ends_with(
            "Rescan each (each one's row's Rescan) to deposit the files as they \
                     are now (a folder that cannot be scanned needs that fixed first)."
        ));
    }
}
