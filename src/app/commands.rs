//! What each [`Command`] does, on the runtime: every store call runs on the blocking pool,
//! every outcome goes back to the window as an [`Update`], every problem as a [`Notice`]
//! that names the thing and the fix.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::config_watch::ConfigStamp;
use super::export::{ExportFormat, write_history};
use super::model::Notice;
use super::service::{Command, Repaint, ServiceConfig};
use super::settings::{Settings, this_year};
use super::update::{CheckOf, DatasetJobs, Details, FolderChanged, Update};
use crate::catalog::{RecordedDataset, record_folder, scan_dataset_folder};
use crate::content::{HashProgress, HashWatch, Metadata, SkippedEntry, metadata_from_folder};
use crate::engine::Engine;
use crate::engine::requeue::{LeftAsItWas, why_left};
use crate::sandbox::RunningSandbox;
use crate::store::{
    DatasetSummary, Dismiss, Enqueued, EventRow, JobRow, JobState, Store, StoreError,
};
use crate::targets::{ReadBack, Target};
use crate::wording::{access_not_enforced, count_of, sentence};

/// Hashing progress is sent at most this often per folder.
const PROGRESS_EVERY: Duration = Duration::from_millis(50);

/// A folder picker that answers faster than this without a folder had no dialog to show.
const NO_PICKER_WITHIN: Duration = Duration::from_millis(1500);

/// The sending side of the update channel: every send also asks for a repaint.
#[derive(Clone)]
pub(super) struct Outbox {
    tx: std::sync::mpsc::Sender<Update>,
    repaint: Repaint,
    /// Ids of log events this window's engines reported, which went to the window with
    /// them, kept until the log watcher reaches them ([`Outbox::not_reported`]); `None`
    /// while no watcher runs, so nothing is kept that no one would take away.
    reported: Arc<Mutex<Option<BTreeSet<i64>>>>,
}

/// While alive, a log watcher runs: [`Outbox`] keeps the ids of events its engines report
/// for it to leave out. Dropped however the watcher ends, which drops the ids too. A window
/// runs one watcher (`watch_shared_store`); a second guard would share the first's ids, and
/// whichever is dropped first stops the keeping.
pub(super) struct LogWatch(Arc<Mutex<Option<BTreeSet<i64>>>>);

impl Drop for LogWatch {
    fn drop(&mut self) {
        *lock(&self.0) = None;
    }
}

/// A check the window asked for, running: the window is told it ended when this is
/// dropped, however it ends (a notice, an error, a panic unwinding the task).
pub(super) struct CheckRunning {
    out: Outbox,
    of: Option<CheckOf>,
}

impl Drop for CheckRunning {
    fn drop(&mut self) {
        if let Some(of) = self.of.take() {
            self.out.send(Update::CheckEnded(of));
        }
    }
}

impl Outbox {
    /// See [`CheckRunning`].
    pub(super) fn check_running(&self, of: CheckOf) -> CheckRunning {
        CheckRunning {
            out: self.clone(),
            of: Some(of),
        }
    }

    pub fn new(tx: std::sync::mpsc::Sender<Update>, repaint: Repaint) -> Outbox {
        Outbox {
            tx,
            repaint,
            reported: Arc::default(),
        }
    }

    /// A log watcher starts: from now until the returned guard is dropped, the ids of
    /// events this window's engines report are kept for [`Outbox::not_reported`].
    pub fn watch_log(&self) -> LogWatch {
        lock(&self.reported).get_or_insert_default();
        LogWatch(self.reported.clone())
    }

    /// A log event reported by this window's engine (and sent to the window with it).
    /// Kept only while a log watcher runs ([`Outbox::watch_log`]).
    pub fn reported(&self, event_id: i64) {
        if let Some(reported) = lock(&self.reported).as_mut() {
            reported.insert(event_id);
        }
    }

    /// Of `events` read from the log (oldest first), those this window's engines did not
    /// report: the window has the others, and the jobs they changed, already. Every id up
    /// to the newest of them is forgotten, so only ids the reader has yet to reach are kept.
    /// An event read before its engine reported it is passed on: shown once all the same
    /// (the window keeps event ids), its job read once more.
    pub fn not_reported(&self, events: Vec<EventRow>) -> Vec<EventRow> {
        let Some(newest) = events.last().map(|e| e.id) else {
            return events;
        };
        let mut kept = lock(&self.reported);
        let Some(reported) = kept.as_mut() else {
            return events;
        };
        let others = events
            .into_iter()
            .filter(|e| !reported.contains(&e.id))
            .collect();
        *reported = reported.split_off(&(newest + 1));
        others
    }

    pub fn send(&self, update: Update) {
        if self.tx.send(update).is_ok() {
            (self.repaint)();
        }
    }

    pub fn notice(&self, notice: Notice) {
        self.send(Update::Notice(notice));
    }
}

/// The running background side: store, engine, sandbox and what commands share.
pub(super) struct Core {
    store: Arc<Store>,
    /// The current engine; replaced (and its run restarted) when targets change.
    engine: Mutex<Arc<Engine>>,
    sandbox: Mutex<Option<RunningSandbox>>,
    /// The in-process sandbox's target, registered with every engine.
    sandbox_target: Arc<dyn Target>,
    /// Its label in the picker ([`super::startup::sandbox_label`]).
    sandbox_label: String,
    config: ServiceConfig,
    settings: Mutex<Settings>,
    out: Outbox,
    shutdown: CancellationToken,
    /// The engine's current run; `None` while paused.
    engine_run: Mutex<Option<CancellationToken>>,
    /// Folders being added right now (canonical paths).
    adding: Mutex<HashSet<String>>,
    /// Rows whose folders are being hashed (a placeholder's or a rescan's), each with the
    /// flag its Stop sets.
    hashing: Mutex<HashMap<i64, Arc<AtomicBool>>>,
    next_placeholder: AtomicI64,
    /// The configured targets left out of the picker, by name, with the problem the window
    /// was told of: a reload (after any target is saved) warns again only of what changed.
    left_out_said: Mutex<BTreeMap<String, String>>,
    /// The version of the config file the targets were last opened from.
    config_stamp: Mutex<ConfigStamp>,
    /// The targets as they were last opened (by this window's Settings or after a change
    /// outside it), by name: what a change outside the window is told against.
    targets_opened: Mutex<BTreeMap<String, crate::config::TargetConfig>>,
    /// Held while the targets are written or opened again, so that the config file's
    /// watcher does not open them a second time after a save in Settings.
    targets_changing: tokio::sync::Mutex<()>,
}

/// The hashing of one row's folder as the window sees it: its progress (at most every
/// PROGRESS_EVERY, and at the end) and its Stop.
struct RowHashing {
    row: i64,
    out: Outbox,
    last: Mutex<Instant>,
    stop: Arc<AtomicBool>,
}

impl HashWatch for RowHashing {
    fn progress(&self, p: HashProgress) {
        let mut last = lock(&self.last);
        if last.elapsed() >= PROGRESS_EVERY || p.bytes_done == p.bytes_total {
            *last = Instant::now();
            self.out.send(Update::HashProgress {
                row: self.row,
                done: p.bytes_done,
                total: p.bytes_total,
            });
        }
    }

    fn cancelled(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn folder_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

impl Core {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        store: Arc<Store>,
        engine: Arc<Engine>,
        sandbox: RunningSandbox,
        sandbox_target: Arc<dyn Target>,
        sandbox_label: String,
        config: ServiceConfig,
        settings: Settings,
        out: Outbox,
        shutdown: CancellationToken,
        left_out_said: BTreeMap<String, String>,
        config_stamp: ConfigStamp,
    ) -> Core {
        Core {
            store,
            engine: Mutex::new(engine),
            sandbox: Mutex::new(Some(sandbox)),
            sandbox_target,
            sandbox_label,
            config,
            settings: Mutex::new(settings),
            out,
            shutdown,
            engine_run: Mutex::new(None),
            adding: Mutex::new(HashSet::new()),
            hashing: Mutex::new(HashMap::new()),
            next_placeholder: AtomicI64::new(-1),
            left_out_said: Mutex::new(left_out_said),
            config_stamp: Mutex::new(config_stamp),
            targets_opened: Mutex::default(),
            targets_changing: tokio::sync::Mutex::new(()),
        }
    }

    /// Run a store call on the blocking pool.
    pub(super) async fn db<T, F>(&self, f: F) -> Result<T, String>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
    {
        let store = self.store.clone();
        match tokio::task::spawn_blocking(move || f(&store)).await {
            Ok(r) => r.map_err(|e| e.to_string()),
            Err(e) => Err(format!("a database task failed: {e}")),
        }
    }

    pub async fn handle(self: Arc<Self>, command: Command) {
        match command {
            Command::AddFolders(paths) => self.add_folders(paths),
            Command::PickFolder => self.pick_folder().await,
            Command::StopHashing { row } => {
                if let Some(stop) = lock(&self.hashing).get(&row) {
                    stop.store(true, Ordering::Relaxed);
                }
            }
            Command::SetMetadata {
                id,
                metadata,
                then_deposit,
            } => self.set_metadata(id, *metadata, then_deposit).await,
            Command::Deposit { ids, target } => self.deposit(ids, target).await,
            Command::Retry { jobs } => self.retry(jobs).await,
            Command::Dismiss { jobs } => self.dismiss(jobs).await,
            Command::RetryAllFailed { target, leave_out } => {
                // The failed deposits the rows show, as the button counts them: not one of an
                // earlier key (the dataset rescanned since) nor one whose key landed since,
                // which a retry would leave as it was. The History names those.
                let retryable = move |s: &Store| {
                    let (mut ids, mut held) = (Vec::new(), Vec::new());
                    for job in s.jobs(&s.failed_job_ids(Some(&target))?)? {
                        if !matches!(why_left(s, &job)?, LeftAsItWas::Unexplained) {
                            continue;
                        }
                        match job.dataset_id.filter(|d| leave_out.contains(d)) {
                            Some(_) => held.extend(job.dataset_name.clone()),
                            None => ids.push(job.id),
                        }
                    }
                    Ok((ids, held))
                };
                match self.db(retryable).await {
                    Ok((ids, held)) => {
                        if !held.is_empty() {
                            let (its, it) = match held.len() {
                                1 => ("its details hold", "it"),
                                _ => ("their details hold", "each"),
                            };
                            self.out.notice(Notice::warning(format!(
                                "Not retried: {} — {its} edits not saved. Save them and \
                                 deposit {it}, or Undo them and retry {it}: Retry all failed \
                                 sends only what is saved.",
                                held.join(", ")
                            )));
                        }
                        match (ids.is_empty(), held.is_empty()) {
                            (true, true) => self
                                .out
                                .notice(Notice::info("No failed deposits to retry.")),
                            (true, false) => {}
                            (false, _) => self.retry(ids).await,
                        }
                    }
                    Err(e) => self.out.notice(Notice::error(format!(
                        "Cannot list the failed deposits: {e}"
                    ))),
                }
            }
            Command::Remove { id } => self.remove(id).await,
            Command::Pause => self.pause_by_user(),
            Command::Resume => self.resume_by_user(),
            Command::LoadDetails { id } => self.load_details(id).await,
            Command::LoadDatasetJobs { id } => {
                let jobs = self.db(move |s| s.jobs_of_dataset(id)).await;
                self.out
                    .send(Update::DatasetJobs(DatasetJobs { dataset: id, jobs }));
            }
            Command::LoadHistory => {
                match self.db(|s| Ok((s.history()?, s.paused_targets()?))).await {
                    Ok((rows, paused)) => {
                        self.out.send(Update::PausedTargets(paused));
                        self.out.send(Update::History(rows));
                    }
                    Err(e) => self
                        .out
                        .notice(Notice::error(format!("Cannot read the history: {e}"))),
                }
            }
            Command::ExportHistory { format, jobs } => self.export(format, jobs).await,
            Command::SaveSettings(settings) => self.save_settings(settings).await,
            Command::FillInIncomplete(settings) => self.clone().fill_in_incomplete(settings).await,
            Command::CheckFolders => self.check_folders().await,
            Command::CheckGoneFolders => self.check_gone_folders().await,
            Command::ShowFolder(path) => {
                if let Err(e) = self.config.opener.open(&path) {
                    let shown = format!("{:?}", path.display().to_string());
                    let why = e.to_string().replace(&shown, "the folder");
                    self.out.notice(Notice::error(format!(
                        "Cannot open the folder {} in a file manager: {}. Open it yourself.",
                        path.display(),
                        plain_opener_error(&why, "the folder")
                    )));
                }
            }
            Command::OpenRecord(url) => {
                // A record on a private bucket opens by a signed link; the message names the
                // record's own URL, which is what a person copies.
                let link = self.engine().link_to_open(&url);
                if let Err(e) = self.config.opener.open(&link) {
                    self.out
                        .notice(Notice::error(browser_did_not_open(&url, &link, &e)));
                }
            }
            Command::SetSandboxFaults(faults) => {
                if let Some(s) = lock(&self.sandbox).as_ref() {
                    s.set_faults(faults);
                }
            }
            Command::SaveTarget(form) => self.save_target(form).await,
            Command::RemoveTarget(name) => self.remove_target(name).await,
            Command::TestTarget(name) => self.test_target(name).await,
            Command::VerifyDeposit { job, read } => {
                let _ends = self.out.check_running(CheckOf::Deposit(job));
                self.verify_deposit(job, read, false).await
            }
            Command::VerifyDatasets { ids, target } => {
                let _ends = self.out.check_running(CheckOf::Target(target.clone()));
                self.verify_datasets(ids, target).await
            }
            Command::RepairDeposit { job } => {
                let _ends = self.out.check_running(CheckOf::Deposit(job));
                self.verify_deposit(job, ReadBack::Sizes, true).await
            }
        }
    }

    /// The engine deposits run on now.
    pub(super) fn engine(&self) -> Arc<Engine> {
        lock(&self.engine).clone()
    }

    pub(super) fn config(&self) -> &ServiceConfig {
        &self.config
    }

    pub(super) fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// See the field: the targets left out of the picker the window was told of.
    pub(super) fn left_out_said(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        lock(&self.left_out_said)
    }

    /// See the field: the config file's version the targets were last opened from.
    pub(super) fn config_stamp(&self) -> ConfigStamp {
        lock(&self.config_stamp).clone()
    }

    pub(super) fn set_config_stamp(&self, stamp: ConfigStamp) {
        *lock(&self.config_stamp) = stamp;
    }

    /// See the field: the targets as they were last opened, by name.
    pub(super) fn targets_opened(&self) -> BTreeMap<String, crate::config::TargetConfig> {
        lock(&self.targets_opened).clone()
    }

    /// The targets now open are `configured`.
    pub(super) fn set_targets_opened(&self, configured: &[super::ConfiguredTarget]) {
        *lock(&self.targets_opened) = configured
            .iter()
            .filter(|t| !t.unreadable_config)
            .map(|t| (t.summary.name.clone(), t.config.clone()))
            .collect();
    }

    /// See the field: held while the targets are written or opened again.
    pub(super) fn targets_changing(&self) -> &tokio::sync::Mutex<()> {
        &self.targets_changing
    }

    pub(super) fn sandbox_target(&self) -> &Arc<dyn Target> {
        &self.sandbox_target
    }

    pub(super) fn sandbox_label(&self) -> &str {
        &self.sandbox_label
    }

    pub(super) fn out(&self) -> &Outbox {
        &self.out
    }

    /// Take `now`, the settings file as read again (changed outside this window), as the
    /// saved settings: `false` when it holds what the window has already.
    pub(super) fn settings_read_again(&self, now: Settings) -> bool {
        let mut settings = lock(&self.settings);
        if *settings == now {
            return false;
        }
        *settings = now.clone();
        self.out.send(Update::Settings(now));
        true
    }

    pub(super) fn shutdown_token(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// Deposit with `engine` from now on: a running engine is stopped (its attempts in
    /// flight finish) and the new one started in its place; a paused one stays paused.
    pub(super) fn replace_engine(self: &Arc<Self>, engine: Arc<Engine>) {
        *lock(&self.engine) = engine;
        let running = lock(&self.engine_run).take();
        if let Some(token) = running {
            token.cancel();
            self.resume();
        }
    }

    /// Start claiming work (again).
    pub fn resume(self: &Arc<Self>) {
        let mut run = lock(&self.engine_run);
        if run.is_some() {
            return;
        }
        let token = self.shutdown.child_token();
        *run = Some(token.clone());
        drop(run);
        self.out.send(Update::EngineRunning(true));
        let core = self.clone();
        tokio::spawn(async move {
            let engine = core.engine();
            let result = engine.run_forever(token.clone()).await;
            let mut run = lock(&core.engine_run);
            if run
                .as_ref()
                .is_some_and(|t| t.is_cancelled() || result.is_err())
            {
                *run = None;
            }
            drop(run);
            if let Err(e) = result {
                core.out.send(Update::EngineRunning(false));
                core.out.notice(Notice::error(format!(
                    "Deposits stopped: {e}. Press Resume to start them again."
                )));
            }
        });
    }

    /// The Pause button: stop claiming new work, and remember it, so that the next start
    /// of the window opens paused too.
    fn pause_by_user(&self) {
        self.pause();
        let file = &self.config.paths.paused_file;
        let written = file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(file, b"paused by the window's Pause button\n"));
        if let Err(e) = written {
            self.out.notice(Notice::warning(format!(
                "Deposits are paused, but Lodge could not note it in {} ({e}): if the window \
                 is closed, its next start sends what is queued.",
                file.display()
            )));
        }
    }

    /// The Resume button: start claiming work again, and forget the pause.
    fn resume_by_user(self: &Arc<Self>) {
        let file = &self.config.paths.paused_file;
        match std::fs::remove_file(file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => self.out.notice(Notice::warning(format!(
                "Deposits resumed, but Lodge could not remove {} ({e}): the next start of \
                 the window opens paused. Delete the file to stop that.",
                file.display()
            ))),
        }
        self.resume();
    }

    /// Stop claiming new work; attempts in flight finish.
    fn pause(&self) {
        if let Some(token) = lock(&self.engine_run).take() {
            token.cancel();
        }
        self.out.send(Update::EngineRunning(false));
    }

    /// Stop everything before the process exits.
    pub async fn stop(&self) {
        self.pause();
        let sandbox = lock(&self.sandbox).take();
        if let Some(s) = sandbox {
            s.shutdown().await;
        }
    }

    async fn add_folder(self: Arc<Self>, path: PathBuf) {
        let name = folder_name(&path);
        let meta = match tokio::fs::metadata(&path).await {
            Ok(m) => m,
            Err(e) => {
                return self.out.notice(Notice::warning(format!(
                    "Cannot add {}: {e}. Check that the folder exists and that you may read it.",
                    path.display()
                )));
            }
        };
        if !meta.is_dir() {
            return self.out.notice(Notice::warning(format!(
                "{name} is a file, not a folder: add the folder that holds the dataset's files \
                 (drop it onto the window, or paste its path)."
            )));
        }
        let root = match tokio::fs::canonicalize(&path).await {
            Ok(p) => p,
            Err(e) => {
                return self.out.notice(Notice::warning(format!(
                    "Cannot resolve the folder {}: {e}.",
                    path.display()
                )));
            }
        };
        let text = root.to_string_lossy().into_owned();
        if !lock(&self.adding).insert(text.clone()) {
            return self.out.notice(Notice::info(format!(
                "{name} is already being added; it was not added twice."
            )));
        }
        let known = {
            let text = text.clone();
            self.db(move |s| s.dataset_by_path(&text)).await
        };
        match known {
            Ok(Some(d)) => {
                lock(&self.adding).remove(&text);
                // Given again where it is: a row that said its folder was gone (it was put
                // back) says so no more.
                self.check_gone_folders().await;
                return self.out.notice(Notice::info(format!(
                    "{name} is already in the list (dataset {}); it was not added twice.",
                    d.id
                )));
            }
            Ok(None) => {}
            Err(e) => {
                lock(&self.adding).remove(&text);
                return self
                    .out
                    .notice(Notice::error(format!("Cannot add {name}: {e}")));
            }
        }
        let row = self.next_placeholder.fetch_sub(1, Ordering::Relaxed);
        let stopped = self.hashing_started(row);
        self.out.send(Update::HashStarted {
            row,
            path: text.clone(),
            name: name.clone(),
        });
        let core = self.clone();
        let root2 = root.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let mut notes = Vec::new();
            // A folder moved here: its metadata (and so its key) comes with it.
            let progress = core.hash_progress(row);
            let moved_from = crate::catalog::moved_from(&core.store, &root2, &progress)
                .ok()
                .flatten();
            // A folder taken off the list and added again: its metadata comes back.
            let taken_up = match moved_from {
                None => crate::catalog::taken_up_again(&core.store, &root2.to_string_lossy())
                    .ok()
                    .flatten(),
                Some(_) => None,
            };
            let mut metadata = match metadata_from_folder(&root2) {
                _ if taken_up.is_some() => {
                    let (removed, mut metadata) = taken_up.expect("just matched");
                    notes.push(Notice::info(format!(
                        "Metadata of {} taken from dataset {} ({}), this folder's until it \
                         was removed from the list.",
                        folder_name(&root2),
                        removed.id,
                        removed.name
                    )));
                    if let Ok(Some((m, _))) = metadata_from_folder(&root2) {
                        metadata.fill_lacking_from(&m);
                    }
                    metadata
                }
                _ if moved_from.is_some() => {
                    let old = moved_from.as_ref().expect("just matched");
                    notes.push(Notice::info(format!(
                        "Metadata of {} taken from the dataset added from {}: the same \
                         files, in a folder that is gone.",
                        folder_name(&root2),
                        old.path
                    )));
                    let mut metadata = old.metadata.clone();
                    if let Ok(Some((m, _))) = metadata_from_folder(&root2) {
                        metadata.fill_lacking_from(&m);
                    }
                    metadata
                }
                Ok(Some((m, from))) => {
                    notes.push(Notice::info(format!(
                        "Metadata of {} prefilled from {}.",
                        folder_name(&root2),
                        folder_name(&from)
                    )));
                    for doi in crate::content::dois_cited(&from) {
                        let said = crate::wording::doi_cited(&folder_name(&from), &doi);
                        notes.push(Notice::warning(format!(
                            "{}: {}",
                            folder_name(&root2),
                            sentence(&said)
                        )));
                    }
                    let give_instead = "in its details (Funding, Communities, Contributors...)";
                    for note in crate::content::citation_notes(&from, give_instead) {
                        notes.push(Notice::warning(format!(
                            "{}: {}",
                            folder_name(&root2),
                            sentence(&note)
                        )));
                    }
                    let give_related = "in its details (Related works, as References)";
                    for note in crate::content::unsent_reference_notes(&from, give_related) {
                        notes.push(Notice::warning(format!(
                            "{}: {}",
                            folder_name(&root2),
                            sentence(&note)
                        )));
                    }
                    let not_carried = crate::content::fields_not_carried(&from);
                    if !not_carried.is_empty() {
                        notes.push(Notice::warning(format!(
                            "{} of {} also gives {}, which Lodge does not send: add them on \
                             the record's page once it is deposited.",
                            folder_name(&from),
                            folder_name(&root2),
                            not_carried.join(", ")
                        )));
                    }
                    if not_carried
                        .iter()
                        .any(|f| f.starts_with(crate::content::UNSENT_GRANTS))
                    {
                        notes.push(Notice::warning(format!(
                            "Such a grant in {} of {} is an id in Zenodo's list of awards, without \
                             its funder's name: give the funder, its ROR or Crossref Funder ID \
                             and the award's number in the Funding field (European \
                             Commission; funder-id=00k4n6c32; award=NUMBER), and a deposit to \
                             Zenodo finds the award in its list.",
                            folder_name(&from),
                            folder_name(&root2),
                        )));
                    }
                    m
                }
                Ok(None) => Metadata::default(),
                Err(e) => {
                    // Who may read the files, when a `.zenodo.json` says so readably: kept,
                    // so that they are not published openly because the rest was not read.
                    let access = crate::content::access_kept_by_folder(&root2);
                    let kept = match &access {
                        Some(kept) if kept.unread.is_some() => format!(
                            " Its .zenodo.json says who may read the files, and that could \
                             not be read either: they are kept {} until you choose otherwise \
                             in the details' File access.",
                            kept.access.describe()
                        ),
                        Some(kept) => format!(
                            " Its files are kept {}, as its .zenodo.json says.",
                            kept.access.describe()
                        ),
                        None => String::new(),
                    };
                    notes.push(Notice::warning(format!(
                        "Could not prefill the metadata of {}: {e}. Fill it in by hand.{kept}",
                        folder_name(&root2)
                    )));
                    Metadata {
                        access: access.map(|kept| kept.access).unwrap_or_default(),
                        ..Metadata::default()
                    }
                }
            };
            lock(&core.settings).apply_defaults(&mut metadata, &folder_name(&root2), this_year());
            let recorded = core.record(row, &root2, &metadata);
            if recorded.is_ok()
                && let Ok(Some(overlap)) =
                    crate::catalog::overlap(&core.store, &root2.to_string_lossy())
            {
                notes.push(Notice::info(overlap_notice(&folder_name(&root2), &overlap)));
            }
            if let Ok(recorded) = &recorded
                && let Ok(moved) = crate::catalog::moved_here(
                    &core.store,
                    recorded.id,
                    &recorded.prepared.fingerprint(),
                )
            {
                for old in moved {
                    notes.push(Notice::info(format!(
                        "{} has the same files as the dataset added from {}, a folder that \
                         is gone: if it moved here, remove that row ({}) from the list (what \
                         it deposited stays).",
                        folder_name(&root2),
                        old.path,
                        old.name
                    )));
                }
            }
            (notes, recorded.map(|r| (r, metadata)))
        })
        .await;
        lock(&self.adding).remove(&text);
        self.hashing_over(row);
        match outcome {
            Ok((notes, Ok((recorded, metadata)))) => {
                notes.into_iter().for_each(|n| self.out.notice(n));
                if let Some(left_out) = left_out_notice(&name, &recorded.prepared.report.skipped) {
                    self.out.notice(left_out);
                }
                let manifest = &recorded.prepared.document.manifest;
                if let Some(note) =
                    crate::content::case_collision_note(manifest.iter().map(|e| e.path.as_str()))
                {
                    self.out.notice(Notice::warning(format!("{name}: {note}.")));
                }
                self.out.send(Update::DatasetSaved {
                    placeholder: Some(row),
                    summary: summary(&text, &name, &metadata, &recorded),
                });
            }
            Ok((_, Err(_))) if stopped.load(Ordering::Relaxed) => {
                self.out.send(Update::HashEnded { row });
                self.out.notice(Notice::info(format!(
                    "Stopped adding {name}: nothing of it was recorded."
                )));
            }
            Ok((_, Err(e))) => {
                self.out.send(Update::HashEnded { row });
                self.out
                    .notice(Notice::error(format!("Cannot add {name}: {e}")));
            }
            Err(e) => {
                self.out.send(Update::HashEnded { row });
                self.out
                    .notice(Notice::error(format!("Adding {name} failed: {e}")));
            }
        }
    }

    /// Scan, hash and record (blocking), reporting progress for `row`.
    fn record(
        &self,
        row: i64,
        root: &Path,
        metadata: &Metadata,
    ) -> Result<RecordedDataset, String> {
        let progress = self.hash_progress(row);
        record_folder(&self.store, root, metadata, &progress).map_err(|e| e.to_string())
    }

    /// How hashing the folder of row `row` tells the window how far it is, and learns that
    /// the person pressed its Stop.
    fn hash_progress(&self, row: i64) -> RowHashing {
        RowHashing {
            row,
            out: self.out.clone(),
            last: Mutex::new(Instant::now() - PROGRESS_EVERY),
            // Registered by hashing_started; a row that was not has no Stop to press.
            stop: lock(&self.hashing).get(&row).cloned().unwrap_or_default(),
        }
    }

    /// Row `row` starts hashing: the flag its Stop sets.
    fn hashing_started(&self, row: i64) -> Arc<AtomicBool> {
        let stop = Arc::new(AtomicBool::new(false));
        lock(&self.hashing).insert(row, stop.clone());
        stop
    }

    /// Row `row` is done hashing, or stopped.
    fn hashing_over(&self, row: i64) {
        lock(&self.hashing).remove(&row);
    }

    /// Add each folder, hashing them side by side.
    fn add_folders(self: &Arc<Self>, paths: impl IntoIterator<Item = PathBuf>) {
        for path in paths {
            let core = self.clone();
            tokio::spawn(async move { core.add_folder(path).await });
        }
    }

    async fn pick_folder(self: Arc<Self>) {
        let asked = Instant::now();
        // Several folders at once: a week's field runs are often added together.
        let picked = rfd::AsyncFileDialog::new()
            .set_title("Add dataset folders (one or more)")
            .pick_folders()
            .await;
        match picked {
            Some(folders) => self.add_folders(folders.iter().map(|f| f.path().to_path_buf())),
            None if asked.elapsed() < NO_PICKER_WITHIN => self.out.notice(Notice::warning(
                "No folder picker is available on this desktop (no XDG desktop portal \
                 answered). Drop the folder onto the window instead, or copy its path and \
                 paste it here (Ctrl+V).",
            )),
            None => {}
        }
    }

    /// Look again at every folder: gone (moved or deleted meanwhile), as the window says at
    /// its start, or back again (put back where it was); changed since its last scan.
    async fn check_folders(&self) {
        self.check_gone_folders().await;
        let changed = self
            .db(|s| crate::catalog::folders_changed(s, |_| true))
            .await;
        // A failed look says nothing new: the rows keep what they showed.
        if let Ok(changed) = changed {
            self.out.send(Update::FoldersChanged(
                changed
                    .iter()
                    .map(|(d, change)| FolderChanged::of(d, change))
                    .collect(),
            ));
        }
    }

    /// Look again at which folders are gone: one `stat` each, no walk.
    async fn check_gone_folders(&self) {
        if let Ok(gone) = self.db(crate::catalog::folders_gone).await {
            self.out.send(Update::FoldersGoneAsChecked(
                gone.iter().map(|d| d.id).collect(),
            ));
        }
    }

    async fn set_metadata(self: Arc<Self>, id: i64, metadata: Metadata, then: Option<String>) {
        if !self.clone().rekey(id, metadata).await {
            return;
        }
        self.load_details(id).await;
        if let Some(target) = then {
            self.deposit(vec![id], target).await;
        }
    }

    /// Save new metadata for dataset `id`: rescan (cheap, hash cache) and re-key, the row
    /// showing the hashing. False (with a notice) when it could not be saved.
    async fn rekey(self: Arc<Self>, id: i64, metadata: Metadata) -> bool {
        let dataset = match self.db(move |s| s.dataset(id)).await {
            Ok(Some(d)) => d,
            Ok(None) => {
                self.out.notice(Notice::error(format!(
                    "Dataset {id} is no longer in the store; add its folder again."
                )));
                return false;
            }
            Err(e) => {
                self.out
                    .notice(Notice::error(format!("Cannot read dataset {id}: {e}")));
                return false;
            }
        };
        let root = PathBuf::from(&dataset.path);
        // A Rescan saves the metadata as it is; an edit saves new metadata, which re-keys
        // the folder as it is now (the key covers its files too), so it needs the folder.
        let cannot = match metadata == dataset.metadata {
            true => format!("Cannot rescan {}", dataset.name),
            false => format!(
                "Cannot save the metadata of {} (saving it re-keys the folder as it is now)",
                dataset.name
            ),
        };
        if !root.is_dir() && !matches!(self.db(move |s| s.is_added_here(id)).await, Ok(true)) {
            // On a shared store: another machine's folder, not a missing one.
            self.out.notice(Notice::error(format!(
                "{cannot}: it was added on another machine, and its folder {} is not on \
                 this one. Rescan or edit it there.",
                dataset.path
            )));
            return false;
        }
        if !root.is_dir() {
            self.out.send(Update::FoldersGone(vec![id]));
            self.out.notice(Notice::error(format!(
                "{cannot}: its folder {} is gone (moved or deleted). Drop the folder where it \
                 is now onto the window to add it there, or remove {} from the list (what it \
                 deposited stays).",
                dataset.path, dataset.name
            )));
            return false;
        }
        let stopped = self.hashing_started(id);
        self.out.send(Update::HashStarted {
            row: id,
            path: dataset.path.clone(),
            name: dataset.name.clone(),
        });
        let core = self.clone();
        let m = metadata.clone();
        let recorded = tokio::task::spawn_blocking(move || core.record(id, &root, &m))
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
        self.hashing_over(id);
        match recorded {
            Ok(recorded) => {
                self.out.send(Update::DatasetSaved {
                    placeholder: None,
                    summary: summary(&dataset.path, &dataset.name, &metadata, &recorded),
                });
                true
            }
            Err(_) if stopped.load(Ordering::Relaxed) => {
                self.out.send(Update::HashEnded { row: id });
                self.out.notice(Notice::info(format!(
                    "Stopped rescanning {}: it keeps its key and metadata from before{}.",
                    dataset.name,
                    match metadata == dataset.metadata {
                        true => "",
                        false => " (the edited metadata was not saved)",
                    }
                )));
                false
            }
            Err(e) => {
                self.out.send(Update::HashEnded { row: id });
                self.out.notice(Notice::error(format!("{cannot}: {e}")));
                false
            }
        }
    }

    async fn deposit(self: &Arc<Self>, ids: Vec<i64>, target: String) {
        let deadline = self.config.engine.retry.deadline;
        let scope = target.clone();
        let result = self
            .db(move |s| {
                let mut items = Vec::new();
                let mut refused = Vec::new();
                // Restricted or embargoed files about to be sent (not replayed), to say
                // where the target does not enforce that.
                let mut restricted = Vec::new();
                // Folders with files added since their scan, about to be sent as scanned
                // (without them): the deposit says so, as `lodge deposit` does. A file
                // changed or gone, the deposit refuses itself.
                let mut grown = Vec::new();
                let mut damaged = Vec::new();
                for id in ids {
                    let Some(d) = s.dataset(id)? else { continue };
                    let problems = d.metadata.problems();
                    match d.key {
                        Some(key) if problems.is_empty() => {
                            let sent = s.lookup_result(&target, &key)?.is_none();
                            if !sent
                                && let Some(check) = s.latest_check(&target, &key)?
                                && let Some((false, found)) =
                                    crate::engine::verify::verdict_of(&check)
                            {
                                damaged.push((d.name.clone(), found.to_string()));
                            }
                            if !d.metadata.access.is_open() && sent {
                                restricted.push((d.name.clone(), d.metadata.access.clone()));
                            }
                            if sent
                                && let Some(crate::catalog::FolderChange::Files(changes)) =
                                    crate::catalog::change_since_scan(s, &d)?
                                && changes.added > 0
                                && changes.removed == 0
                                && changes.modified == 0
                            {
                                grown.push((d.name.clone(), changes.added));
                            }
                            items.push((id, key));
                        }
                        _ => refused.push((d.name, problems)),
                    }
                }
                let mut events: Vec<_> = s.resume_target(&target)?.into_iter().collect();
                let resumed = !events.is_empty();
                let queued = s.enqueue_deposits(&target, &items, deadline)?;
                let job_ids: Vec<i64> = queued.iter().map(|(q, _)| q.job_id()).collect();
                // A dataset of the same content as another of this press (the same key)
                // shares the deposit queued for that one: a copy, not one queued before.
                let new_now: HashSet<i64> = queued
                    .iter()
                    .filter_map(|(q, _)| match q {
                        Enqueued::New(id) => Some(*id),
                        _ => None,
                    })
                    .collect();
                let (copies, already) = queued.iter().fold((0, 0), |(c, a), (q, _)| match q {
                    Enqueued::AlreadyQueued(id) if new_now.contains(id) => (c + 1, a),
                    Enqueued::AlreadyQueued(_) => (c, a + 1),
                    _ => (c, a),
                });
                // Recorded as replays at once: nothing waits for the engine.
                let replayed = queued
                    .iter()
                    .filter(|(q, _)| matches!(q, Enqueued::Replayed(_)))
                    .count();
                events.extend(queued.into_iter().filter_map(|(_, e)| e));
                let jobs = s.jobs(&job_ids)?;
                let not_new = already + copies + replayed;
                Ok(DepositPressed {
                    jobs,
                    events,
                    refused,
                    already,
                    copies,
                    not_new,
                    resumed,
                    restricted,
                    grown,
                    damaged,
                })
            })
            .await;
        match result {
            Ok(DepositPressed {
                jobs,
                events,
                refused,
                already,
                copies,
                not_new,
                resumed,
                restricted,
                grown,
                damaged,
            }) => {
                // The engine's idle workers start on them now, not at their next look.
                self.engine().wake();
                if !damaged.is_empty() {
                    self.out
                        .notice(Notice::warning(damaged_replay_notice(&damaged)));
                }
                if !grown.is_empty() {
                    self.out
                        .notice(Notice::warning(grown_folders_notice(&grown)));
                    // Their rows say Changed since scan, with Rescan, from now on.
                    self.check_folders().await;
                }
                if let Some(target) = self.engine().target(&scope) {
                    let said: Vec<String> = restricted
                        .iter()
                        .filter_map(|(name, access)| {
                            access_not_enforced(access, &**target)
                                .map(|note| sentence(&format!("{name}: {note}")))
                        })
                        .collect();
                    // One for a few; a batch's are summed up, not a notice each.
                    match said.len() {
                        0 => {}
                        1..=3 => said
                            .into_iter()
                            .for_each(|s| self.out.notice(Notice::warning(s))),
                        n => self.out.notice(Notice::warning(format!(
                            "{n} of these datasets have restricted or embargoed files, but {} \
                             does not enforce that: there they are as readable as the store's \
                             own permissions make them (each record notes the access chosen).",
                            target.label()
                        ))),
                    }
                }
                for (name, problems) in refused {
                    let list: Vec<String> = problems
                        .iter()
                        .map(|p| format!("{}: {}", p.field, p.message_without_flag()))
                        .collect();
                    self.out.notice(Notice::warning(format!(
                        "{name} was not queued: its metadata is incomplete ({}). Fix it in the \
                         details panel.",
                        list.join("; ")
                    )));
                }
                let new = jobs.len() - not_new;
                let paused = lock(&self.engine_run).is_none();
                self.out.send(Update::Logged(events));
                self.out.send(Update::Jobs(jobs));
                if new > 0 && paused {
                    self.out.notice(
                        Notice::info(format!(
                            "{} queued; deposits are paused: press Resume to send them.",
                            count_of(new as u64, "deposit", "deposits")
                        ))
                        .while_deposits_paused(),
                    );
                }
                if copies > 0 {
                    self.out.notice(Notice::info(format!(
                        "{} the same content as another dataset queued with {} (the same \
                         key): each content is deposited once, for all its copies.",
                        count_of(copies as u64, "dataset holds", "datasets hold"),
                        if copies == 1 { "it" } else { "them" }
                    )));
                }
                // A dataset on the queue already (its row says Queued, Uploading or
                // Waiting to retry) is not queued twice: say so rather than nothing.
                if already > 0 && resumed && !paused {
                    // Pressed on a row waiting for its paused target: the press lifted the
                    // pause, which is the news, not that the row was queued before.
                    self.out.notice(Notice::info(format!(
                        "The target's pause is lifted: {} waiting there {} sent now.",
                        count_of(already as u64, "deposit", "deposits"),
                        if already == 1 { "is" } else { "are" }
                    )));
                } else if already > 0 {
                    let notice = Notice::info(format!(
                        "{} on the queue already, so not queued again{}.",
                        count_of(already as u64, "deposit was", "deposits were"),
                        match (paused, already) {
                            (true, _) => "; deposits are paused: press Resume to send them",
                            (false, 1) => ": it is sent in its turn",
                            (false, _) => ": they are sent in their turn",
                        }
                    ));
                    self.out.notice(match paused {
                        true => notice.while_deposits_paused(),
                        false => notice,
                    });
                }
            }
            Err(e) => self
                .out
                .notice(Notice::error(format!("Cannot queue the deposits: {e}"))),
        }
    }

    async fn retry(self: &Arc<Self>, jobs: Vec<i64>) {
        let deadline = self.config.engine.retry.deadline;
        let result = self
            .db(move |s| {
                let done = s.retry_jobs(&jobs, deadline)?;
                let mut events = Vec::new();
                for &id in &done {
                    events.extend(s.events_for_job(id)?.pop());
                }
                // Why each job left as it was was left, in the person's words.
                let mut left = Vec::new();
                for &id in jobs.iter().filter(|id| !done.contains(id)) {
                    left.push(why_not_retried(s, id)?);
                }
                Ok((s.jobs(&done)?, events, left))
            })
            .await;
        match result {
            Ok((jobs, events, left)) => {
                if !jobs.is_empty() {
                    self.engine().wake();
                    self.out.send(Update::Logged(events));
                    self.out.send(Update::Jobs(jobs));
                }
                if !left.is_empty() {
                    let shown = left.len().min(3);
                    let more = match left.len() - shown {
                        0 => String::new(),
                        n => format!(" (and {n} more)"),
                    };
                    self.out.notice(Notice::info(format!(
                        "Not re-queued: {}{more}.",
                        left[..shown].join("; ")
                    )));
                }
            }
            Err(e) => self.out.notice(Notice::error(format!("Cannot retry: {e}"))),
        }
    }

    /// Give up on failed jobs. The rows leave them; a row whose earlier job landed (under
    /// an earlier key) shows that one again, so the window's jobs are read afresh.
    async fn dismiss(&self, jobs: Vec<i64>) {
        let result = self
            .db(move |s| {
                let before = s.last_event_id()?;
                let why = format!(
                    "dismissed in the window by {}: given up on; the history keeps it",
                    s.actor()
                );
                let answers = s.dismiss_jobs(&jobs, &why)?;
                // What the dismissal logged (the earlier failures of the same deposit too).
                let events = s.events_after(before, 1_000)?;
                Ok((answers, events, s.latest_jobs()?))
            })
            .await;
        let (answers, events, latest) = match result {
            Ok(read) => read,
            Err(e) => {
                self.out
                    .notice(Notice::error(format!("Cannot dismiss: {e}")));
                return;
            }
        };
        // The job may have moved on since the window showed it failed (a retry from a
        // terminal, another machine's): what became of it is said, not a silent click.
        let mut dismissed = Vec::new();
        let mut refused = Vec::new();
        for (job, answer) in answers {
            let name = job
                .dataset_name
                .clone()
                .unwrap_or_else(|| "a dataset".into());
            let why = match answer {
                Dismiss::Dismissed { .. } => {
                    dismissed.push(job);
                    continue;
                }
                Dismiss::AlreadyDismissed => continue,
                Dismiss::BeingDeposited { .. } => "is being deposited now".to_string(),
                Dismiss::StillToDo => format!("is {} again, still to do", job.state.as_str()),
                Dismiss::Landed => "has landed since".to_string(),
            };
            refused.push(format!("{name} (job {}) {why}", job.id));
        }
        let said = dismissed_notice(&dismissed);
        self.out.send(Update::Logged(events));
        self.out
            .send(Update::Jobs(dismissed.into_iter().chain(latest).collect()));
        if let Some(said) = said {
            self.out.notice(Notice::info(said));
        }
        if !refused.is_empty() {
            self.out.notice(Notice::info(format!(
                "Not dismissed: {}. Only a failed or refused deposit is given up on.",
                refused.join("; ")
            )));
        }
    }

    async fn remove(&self, id: i64) {
        match self.db(move |s| s.remove_dataset(id)).await {
            Ok(_) => self.out.send(Update::DatasetRemoved(id)),
            Err(e) => self
                .out
                .notice(Notice::error(format!("Cannot remove dataset {id}: {e}"))),
        }
    }

    pub(super) async fn load_details(&self, id: i64) {
        let result = self
            .db(move |s| {
                let files = s.dataset_files(id)?;
                let dataset = s.dataset(id)?;
                // A walk of the folder, without hashing: what it leaves out is not stored.
                let left_out = (dataset.as_ref())
                    .and_then(|d| scan_dataset_folder(s, std::path::Path::new(&d.path)).ok())
                    .map(|report| {
                        report
                            .skipped
                            .into_iter()
                            .filter(SkippedEntry::is_notable)
                            .collect()
                    })
                    .unwrap_or_default();
                let mut jobs = s.jobs_of_dataset(id)?;
                if let Some(key) = dataset.and_then(|d| d.key) {
                    jobs.extend(deposits_of_copies(s, id, &key, &jobs)?);
                    jobs.sort_by_key(|j| std::cmp::Reverse(j.id));
                    jobs.dedup_by_key(|j| j.id);
                }
                let jobs = jobs
                    .into_iter()
                    .map(|j| {
                        let events = s.events_for_job(j.id)?;
                        Ok((j, events))
                    })
                    .collect::<Result<Vec<_>, StoreError>>()?;
                Ok(Details {
                    dataset: id,
                    files,
                    left_out,
                    jobs,
                })
            })
            .await;
        match result {
            Ok(details) => self.out.send(Update::Details(Box::new(details))),
            Err(e) => self.out.notice(Notice::error(format!(
                "Cannot read the details of dataset {id}: {e}"
            ))),
        }
    }

    /// Write the history (every job, or just `jobs`, in the history's order) to a file.
    async fn export(&self, format: ExportFormat, jobs: Option<Vec<i64>>) {
        let dir = self.config.paths.export_dir.clone();
        let config_file = self.config.paths.config_file.clone();
        let store = self.store.clone();
        let written = tokio::task::spawn_blocking(move || {
            let mut rows = store.history().map_err(|e| e.to_string())?;
            let all = rows.len();
            if let Some(jobs) = jobs {
                let jobs: HashSet<i64> = jobs.into_iter().collect();
                rows.retain(|r| jobs.contains(&r.job));
            }
            // The files `lodge history --csv|--json` writes.
            let names = crate::config::saved_target_names(&config_file);
            let file = crate::history_file::HistoryFile::of(&store, rows, names)
                .map_err(|e| e.to_string())?;
            let rows = file.rows().len();
            let path = write_history(&dir, format, &file)?;
            Ok::<_, String>((path, rows, all))
        })
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
        match written {
            Ok((path, written, all)) => {
                let which = if written == all {
                    String::new()
                } else {
                    format!(
                        " ({} of {all}, as the search and filters show)",
                        count_of(written as u64, "job", "jobs")
                    )
                };
                self.out.notice(Notice::info(format!(
                    "History exported{which} to {}.",
                    path.display()
                )));
                self.out.send(Update::Exported(path));
            }
            Err(e) => self
                .out
                .notice(Notice::error(format!("Export failed: {e}"))),
        }
    }

    /// Fill in, from `settings`, what the incomplete datasets lack; say how many were filled
    /// and how many still lack something only a person can give.
    async fn fill_in_incomplete(self: Arc<Self>, settings: Settings) {
        let year = this_year();
        // Only this machine's: another machine's folder is not here to rescan.
        let datasets = match self.db(|s| s.datasets_here()).await {
            Ok(datasets) => datasets,
            Err(e) => {
                return self
                    .out
                    .notice(Notice::error(format!("Cannot read the datasets: {e}")));
            }
        };
        let (mut filled, mut lacking) = (0u64, 0u64);
        for d in datasets {
            if d.metadata.problems().is_empty() {
                continue;
            }
            let mut metadata = d.metadata.clone();
            settings.apply_defaults(&mut metadata, &d.name, year);
            // Re-keyed without loading each one's details: the panel shows the selected
            // row's, and would show the last one filled instead.
            if metadata != d.metadata && self.clone().rekey(d.id, metadata.clone()).await {
                filled += 1;
            }
            lacking += u64::from(!metadata.problems().is_empty());
        }
        let still = match lacking {
            0 => String::new(),
            n => format!(
                " {} still {} something the defaults do not give: see the rows marked \
                 metadata incomplete.",
                count_of(n, "dataset", "datasets"),
                if n == 1 { "lacks" } else { "lack" }
            ),
        };
        self.out.notice(Notice::info(format!(
            "Filled in {} from the defaults.{still}",
            count_of(filled, "dataset", "datasets")
        )));
    }

    /// Save `settings` and use them from now on. The service awaits this before it takes
    /// the next command; the check of a newly named shared database, which can take a
    /// while, goes on in the background.
    pub(super) async fn save_settings(self: Arc<Self>, settings: Settings) {
        let database_changed = lock(&self.settings).database.trim() != settings.database.trim();
        // A shared database newly named is tried now, while the person is here to correct a
        // typo, rather than at the next start (which it would stop).
        let try_now = settings.shared_database().filter(|_| database_changed);
        let path = &self.config.paths.settings_file;
        // Taken before the file is written, so the look for changes made outside this
        // window finds its own save no change.
        let read_before = std::mem::replace(&mut *lock(&self.settings), settings.clone());
        match settings.save_checked(path, &read_before).await {
            Ok(kept) => {
                self.out.send(Update::Settings(settings));
                self.out.notice(Notice::info(if database_changed {
                    "Settings saved. Restart Lodge to use the new database (`lodge` commands \
                     in a terminal use it from now on); the defaults apply to folders added from \
                     now on."
                } else {
                    "Settings saved; they apply to folders added from now on."
                }));
                if let Some(kept) = kept {
                    self.out.notice(Notice::warning(kept));
                }
                if let Some(location) = try_now {
                    let out = self.out.clone();
                    tokio::spawn(async move {
                        if let Some(why) = unusable_database(location).await {
                            out.notice(Notice::warning(format!(
                                "The shared database cannot be used now: {why}. Lodge tries it \
                                 again at its next start, and does not start without it: \
                                 correct it here, or empty Shared database to keep this \
                                 computer's own file."
                            )));
                        }
                    });
                }
            }
            Err(e) => {
                // Not saved: what the file holds is the window's still, changed on disk
                // since it was read or not (then the window shows the file's values).
                let now = Settings::load(path).unwrap_or(read_before);
                *lock(&self.settings) = now.clone();
                self.out.send(Update::Settings(now));
                self.out.notice(Notice::error(e));
            }
        }
    }
}

/// How long a shared database named in Settings has to answer before it is called
/// unusable (a host that drops the packets would hold the check for minutes).
const DATABASE_ANSWERS_WITHIN: Duration = Duration::from_secs(15);

/// Why the database at `location` cannot be opened now, if it cannot. Opening it creates
/// Lodge's tables there if it has none, as the next start would.
async fn unusable_database(location: crate::store::StoreLocation) -> Option<String> {
    let opening = tokio::task::spawn_blocking(move || Store::open_at(&location).map(drop));
    match tokio::time::timeout(DATABASE_ANSWERS_WITHIN, opening).await {
        Ok(Ok(Ok(()))) => None,
        Ok(Ok(Err(e))) => Some(e.to_string()),
        Ok(Err(e)) => Some(format!("opening it failed: {e}")),
        Err(_) => Some(format!(
            "it did not answer within {} s",
            DATABASE_ANSWERS_WITHIN.as_secs()
        )),
    }
}

/// The deposits of `key` (dataset `id`'s) that copies made or queued, one job for every
/// dataset with the key, where `own` (its own jobs) has none for that target: landed ones
/// by the job that recorded them (the copy may have been removed since), and those not
/// landed yet ([`Store::unlanded_deposits_of_copies`]).
fn deposits_of_copies(
    s: &Store,
    id: i64,
    key: &crate::content::ContentKey,
    own: &[JobRow],
) -> Result<Vec<JobRow>, StoreError> {
    let own_landed = |target: &str| {
        own.iter()
            .any(|j| j.target == target && j.key == *key && j.state.is_landed())
    };
    let landed: Vec<i64> = (s.results_for_key(key)?.into_iter())
        .filter(|r| !own_landed(&r.target))
        .filter_map(|r| r.job_id)
        .collect();
    let mut shared = s.jobs(&landed)?;
    shared.extend(
        (s.unlanded_deposits_of_copies(key, id)?.into_iter())
            .filter(|j| !own.iter().any(|o| o.target == j.target && o.key == *key)),
    );
    Ok(shared)
}

/// What the scan of folder `name` left out that a person would want to know of (a link to
/// data elsewhere is not deposited): up to three entries by name, then how many more.
fn left_out_notice(name: &str, skipped: &[SkippedEntry]) -> Option<Notice> {
    const NAMED: usize = 3;
    let notable: Vec<&SkippedEntry> = skipped.iter().filter(|s| s.is_notable()).collect();
    if notable.is_empty() {
        return None;
    }
    let mut named: Vec<String> = notable
        .iter()
        .take(NAMED)
        .map(|s| format!("{} ({})", s.rel_path, s.why()))
        .collect();
    if notable.len() > NAMED {
        named.push(format!("and {} more", notable.len() - NAMED));
    }
    Some(Notice::warning(format!(
        "{name}: left out of the dataset, so not deposited: {}.",
        named.join("; ")
    )))
}

/// What a press of Deposit queued, and what it has to say about it.
struct DepositPressed {
    /// The jobs of the datasets queued (new, joined, or replayed at once).
    jobs: Vec<JobRow>,
    /// What the store logged: the queueing, the replays, a pause lifted.
    events: Vec<crate::store::EventRow>,
    /// Datasets not queued, with their metadata's problems.
    refused: Vec<(String, Vec<crate::content::FieldProblem>)>,
    /// Datasets whose deposit was on the queue already.
    already: usize,
    /// Datasets of this press with the key of another of it: one deposit for both.
    copies: usize,
    /// Of `jobs`, those not queued anew by this press.
    not_new: usize,
    /// The press lifted the target's pause.
    resumed: bool,
    /// Datasets with restricted or embargoed files about to be sent (name, access).
    restricted: Vec<(String, crate::content::FileAccess)>,
    /// Folders given files since their scan, sent without them (name, files added).
    grown: Vec<(String, usize)>,
    /// Datasets whose deposit there replays, though its last check found it damaged
    /// (name, what was found): the press mends nothing, and is said not to.
    damaged: Vec<(String, String)>,
}

/// What a deposit says of datasets it replays whose last check found them `damaged`
/// (name, what was found): the replay sends nothing, so mends nothing; the details'
/// Repair and Verify are what do.
fn damaged_replay_notice(damaged: &[(String, String)]) -> String {
    let what = match damaged {
        [(name, found)] => format!("{name} was found damaged when last checked ({found})"),
        _ => format!(
            "{} were found damaged when last checked",
            (damaged.iter())
                .map(|(name, _)| name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!(
        "{what}: a deposit replays a landed deposit and sends nothing, so it mends nothing. \
         In the details, Repair sends lost files again where the target takes them, and \
         Verify checks again."
    )
}

/// What a deposit says of folders `grown` (name, files added) since their scan: they are
/// sent as scanned, without the new files, and Rescan takes them in (a new key).
fn grown_folders_notice(grown: &[(String, usize)]) -> String {
    let named: Vec<String> = (grown.iter())
        .map(|(name, added)| format!("{name} ({})", count_of(*added as u64, "file", "files")))
        .collect();
    let (these, each, it) = match grown.len() {
        1 => ("This deposit is", "its", "it"),
        _ => ("These deposits are", "each one's", "each"),
    };
    format!(
        "Files added since the last scan: {}. {these} of the folder as scanned, without \
         them. To include them, Rescan {it} (a new key), then deposit again; {each} deposit \
         of the content as scanned stays.",
        named.join(", ")
    )
}

/// The row of a freshly recorded folder.
fn summary(
    path: &str,
    name: &str,
    metadata: &Metadata,
    recorded: &RecordedDataset,
) -> DatasetSummary {
    DatasetSummary {
        id: recorded.id,
        path: path.to_string(),
        name: name.to_string(),
        metadata: metadata.normalized(),
        key: Some(recorded.prepared.key()),
        fingerprint: Some(recorded.prepared.fingerprint().to_hex()),
        file_count: recorded.prepared.files.len() as u64,
        total_bytes: recorded.prepared.report.total_bytes,
    }
}

/// What the window says when a folder just added overlaps other datasets' folders.
fn overlap_notice(name: &str, overlap: &str) -> String {
    format!(
        "{name} {overlap}: the files in common go into the deposit of each. If that is not \
         what you meant, remove one from the list (its folder is not touched)."
    )
}

/// Why `retry` left job `id` as it was ([`why_left`]), in the window's words.
fn why_not_retried(s: &Store, id: i64) -> Result<String, StoreError> {
    let job = s.job(id)?;
    let name = job
        .dataset_name
        .clone()
        .unwrap_or_else(|| format!("job {id}"));
    Ok(match why_left(s, &job)? {
        LeftAsItWas::NotFailed => {
            format!("{name} (job {id}) is {}, not failed", job.state.as_str())
        }
        LeftAsItWas::Landed { identifier, .. } => {
            format!("{name} (job {id}) landed since as {identifier}, through a later deposit")
        }
        LeftAsItWas::DatasetRemoved {
            folder,
            added_again: Some(again),
            ..
        } => format!(
            "{} (job {id}) was removed from the list; its folder is on it again as {}: \
             deposit that",
            folder.unwrap_or(name),
            again.name
        ),
        LeftAsItWas::DatasetRemoved { folder, .. } => format!(
            "{} (job {id}) was removed from the list: add its folder again, then deposit",
            folder.unwrap_or(name)
        ),
        LeftAsItWas::Rescanned(_) => format!(
            "{name} (job {id}) was scanned again since, under another key: deposit it as it is now"
        ),
        LeftAsItWas::AnotherOnItsWay(_) => {
            format!("{name} (job {id}) has another deposit of its key on the way")
        }
        LeftAsItWas::Superseded(later) => format!(
            "{name} (job {id}) was deposited again since, as job {} ({}){}",
            later.id,
            later.state.as_str(),
            match later.state {
                JobState::Failed => ": retry that one",
                _ => "",
            }
        ),
        LeftAsItWas::Unexplained => format!("{name} (job {id}) was left as it is"),
    })
}

/// Why no browser showed the record at `url`, opened by `link`. The opener's error repeats
/// what it was given: a signed link (a pass to the record for an hour) is left out of it, as
/// of anything the window logs; the record's own address is what a person copies.
fn browser_did_not_open(url: &str, link: &str, e: &std::io::Error) -> String {
    let why = e
        .to_string()
        .replace(&format!("{link:?}"), "the link")
        .replace(link, "the link");
    let why = plain_opener_error(&why, "the link");
    format!(
        "Cannot open {url} in a web browser: {why}. Is a default web browser set? Copy the \
         link and open it yourself."
    )
}

/// The `open` crate's "Launcher \"gio\" \"open\" WHAT failed with
/// ExitStatus(unix_wait_status(512))", where `what` stands for WHAT, in words: "`gio open`
/// ended with exit status 2". Any other error is kept as it is.
fn plain_opener_error(why: &str, what: &str) -> String {
    let Some((launcher, status)) = why
        .strip_prefix("Launcher ")
        .and_then(|rest| rest.split_once(" failed with "))
    else {
        return why.to_string();
    };
    let program = launcher
        .split(&format!(" {what}"))
        .next()
        .unwrap_or(launcher)
        .replace('"', "");
    let exit_code = status
        .strip_prefix("ExitStatus(unix_wait_status(")
        .and_then(|s| s.strip_suffix("))"))
        .and_then(|s| s.parse::<i32>().ok())
        .map(|wait_status| wait_status >> 8);
    match exit_code {
        Some(code) => format!("`{program}` ended with exit status {code}"),
        None => format!("`{program}` failed ({status})"),
    }
}

/// What the window says of the deposits it gave up on: only a failed one can be queued
/// again by the History's Retry (a refused one is sent again by depositing the dataset).
fn dismissed_notice(dismissed: &[JobRow]) -> Option<String> {
    let refused = dismissed
        .iter()
        .filter(|j| j.state == JobState::Rejected)
        .count() as u64;
    let failed = dismissed.len() as u64 - refused;
    let them = |n: u64| if n == 1 { "it" } else { "them" };
    match (failed, refused) {
        (0, 0) => None,
        (failed, 0) => Some(format!(
            "Dismissed {}: given up on. The History keeps {}; its Retry queues {} again with \
             the same key.",
            count_of(failed, "failed deposit", "failed deposits"),
            them(failed),
            if failed == 1 { "it" } else { "one" },
        )),
        (0, refused) => Some(format!(
            "Dismissed {}: given up on. The History keeps {}.",
            count_of(refused, "refused deposit", "refused deposits"),
            them(refused),
        )),
        (failed, refused) => Some(format!(
            "Dismissed {} and {}: given up on. The History keeps them; its Retry queues a \
             failed one again with the same key.",
            count_of(failed, "failed deposit", "failed deposits"),
            count_of(refused, "refused deposit", "refused deposits"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::SkipReason;

    /// Only a failed deposit is promised the History's Retry: a refused one is sent again
    /// by depositing its dataset.
    #[test]
    fn the_dismissal_notice_promises_a_retry_only_for_failed_deposits() {
        let job = |id, state| JobRow::for_tests(id, state);
        let failed = job(1, JobState::Failed);
        let refused = job(2, JobState::Rejected);
        assert_eq!(dismissed_notice(&[]), None);
        assert_eq!(
            dismissed_notice(std::slice::from_ref(&failed)).as_deref(),
            Some(
                "Dismissed 1 failed deposit: given up on. The History keeps it; its Retry \
                 queues it again with the same key."
            )
        );
        assert_eq!(
            dismissed_notice(&[refused.clone(), job(3, JobState::Rejected)]).as_deref(),
            Some("Dismissed 2 refused deposits: given up on. The History keeps them.")
        );
        assert_eq!(
            dismissed_notice(&[failed, refused]).as_deref(),
            Some(
                "Dismissed 1 failed deposit and 1 refused deposit: given up on. The History \
                 keeps them; its Retry queues a failed one again with the same key."
            )
        );
    }

    #[test]
    fn a_browser_that_does_not_open_is_reported_by_the_records_address_not_its_signed_link() {
        let url = "http://127.0.0.1:9000/lab/records/k.json";
        let link = "http://127.0.0.1:9000/lab/records/k.json?X-Amz-Signature=abc123";
        // What the `open` crate says when every launcher fails.
        let e = std::io::Error::other(format!(
            "Launcher \"gio\" \"open\" {link:?} failed with ExitStatus(unix_wait_status(512))"
        ));
        let said = browser_did_not_open(url, link, &e);
        assert!(!said.contains("abc123"), "{said}");
        assert!(
            said.starts_with(&format!("Cannot open {url} in a web browser")),
            "{said}"
        );
        assert!(
            said.contains(": `gio open` ended with exit status 2. Is a default web browser set?"),
            "{said}"
        );
        assert!(!said.contains("unix_wait_status"), "{said}");
    }

    #[test]
    fn an_opener_error_of_another_shape_is_kept_as_it_is() {
        let said = plain_opener_error("No such file or directory (os error 2)", "the link");
        assert_eq!(said, "No such file or directory (os error 2)");
        let said = plain_opener_error(
            "Launcher \"xdg-open\" the folder failed with signal 9",
            "the folder",
        );
        assert_eq!(said, "`xdg-open` failed (signal 9)");
    }

    fn skipped(rel_path: &str, reason: SkipReason) -> SkippedEntry {
        SkippedEntry {
            rel_path: rel_path.into(),
            reason,
        }
    }

    fn logged(id: i64) -> EventRow {
        EventRow::for_tests(id, crate::store::EventKind::Attempt)
    }

    fn ids(events: &[EventRow]) -> Vec<i64> {
        events.iter().map(|e| e.id).collect()
    }

    #[test]
    fn the_log_watcher_skips_events_the_engine_reported_and_forgets_those_it_passed() {
        let (tx, _rx) = std::sync::mpsc::channel();
        let out = Outbox::new(tx, Arc::new(|| {}));
        let _watching = out.watch_log();
        for id in [2, 3, 5, 9] {
            out.reported(id);
        }
        let read = out.not_reported((1..=6).map(logged).collect());
        assert_eq!(
            ids(&read),
            [1, 4, 6],
            "a terminal's events and the window's own others"
        );
        assert_eq!(ids(&out.not_reported(Vec::new())), Vec::<i64>::new());
        // Reported after the watcher read past it: not held, and not skipped later.
        out.reported(4);
        let read = out.not_reported((7..=10).map(logged).collect());
        assert_eq!(ids(&read), [7, 8, 10]);
        assert_eq!(
            lock(&out.reported).as_ref().map(BTreeSet::len),
            Some(0),
            "nothing kept past the reader"
        );
    }

    #[test]
    fn reported_events_are_kept_only_while_a_log_watcher_runs() {
        let (tx, _rx) = std::sync::mpsc::channel();
        let out = Outbox::new(tx, Arc::new(|| {}));
        out.reported(1);
        assert!(
            lock(&out.reported).is_none(),
            "kept with no watcher to take it"
        );

        let watching = out.watch_log();
        out.reported(2);
        assert_eq!(
            ids(&out.not_reported((1..=3).map(logged).collect())),
            [1, 3]
        );
        out.reported(4);
        drop(watching);
        assert!(
            lock(&out.reported).is_none(),
            "the watcher's ids outlive it"
        );
        out.reported(5);
        assert!(lock(&out.reported).is_none());
    }

    #[test]
    fn only_data_left_out_is_news_and_a_long_list_is_cut_to_three_names() {
        let quiet = [
            skipped(".DS_Store", SkipReason::SystemFile),
            skipped(".lodgeignore", SkipReason::Ignored),
            skipped("sub/.lodgeignore", SkipReason::Ignored),
        ];
        assert_eq!(left_out_notice("ds", &quiet), None);
        let links: Vec<SkippedEntry> = (1..=5)
            .map(|i| skipped(&format!("link{i}"), SkipReason::Symlink))
            .chain([skipped("x.tmp", SkipReason::Ignored)])
            .collect();
        let notice = left_out_notice("ds", &links).expect("a notice");
        assert_eq!(notice.level, crate::app::NoticeLevel::Warning);
        assert_eq!(
            notice.text,
            "ds: left out of the dataset, so not deposited: \
             link1 (a symbolic link, never followed: not deposited); \
             link2 (a symbolic link, never followed: not deposited); \
             link3 (a symbolic link, never followed: not deposited); and 3 more."
        );
    }
}
