//! [`AppService`]: the window's handle on the core. It starts the background side on the
//! tokio runtime (store, sandbox, engine), takes [`Command`]s, and hands back [`Update`]s
//! that the window applies to its [`Model`] each frame without waiting.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::commands::Outbox;
use super::export::ExportFormat;
use super::model::{Model, Notice};
use super::paths::AppPaths;
use super::settings::Settings;
use super::startup;
use super::targets::TargetForm;
use super::update::Update;
use crate::content::Metadata;
use crate::engine::EngineConfig;
use crate::sandbox::FaultConfig;
use crate::targets::ReadBack;

/// Asks the window to draw again (the GUI passes `egui::Context::request_repaint`).
pub type Repaint = Arc<dyn Fn() + Send + Sync>;

/// How the window hands a folder or a record's link to the desktop (a file manager, a web
/// browser): the system's opener, or in tests one that notes what it was given. Every
/// *Show folder* and *Open record* goes through it, so a failure becomes a notice.
#[derive(Clone)]
pub struct Opener(Arc<OpenFn>);

type OpenFn = dyn Fn(&std::ffi::OsStr) -> std::io::Result<()> + Send + Sync;

impl Opener {
    /// The desktop's own (`xdg-open` and the like, `open` on macOS, `start` on Windows).
    pub fn system() -> Opener {
        Opener(Arc::new(|what| open::that_detached(what)))
    }

    /// One that calls `open` instead.
    pub fn new(
        open: impl Fn(&std::ffi::OsStr) -> std::io::Result<()> + Send + Sync + 'static,
    ) -> Opener {
        Opener(Arc::new(open))
    }

    pub fn open(&self, what: impl AsRef<std::ffi::OsStr>) -> std::io::Result<()> {
        (self.0)(what.as_ref())
    }
}

impl std::fmt::Debug for Opener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Opener")
    }
}

/// How the service starts.
#[derive(Clone, Debug)]
pub struct ServiceConfig {
    pub paths: AppPaths,
    pub engine: EngineConfig,
    /// Faults the in-process sandbox injects (none for normal use).
    pub sandbox_faults: FaultConfig,
    /// Open with deposits paused (nothing is claimed until Resume): demos and snapshots.
    pub start_paused: bool,
    /// The token a sandbox started with `--token` wants, sent to the configured sandbox
    /// targets (deposits, Test, Verify), as `--token` is on the command line. A person gives
    /// it by starting Lodge with `LODGE_TOKEN` set ([`ServiceConfig::platform`]).
    pub sandbox_token: Option<String>,
    /// Where folders and links are opened ([`Opener::system`] for a person).
    pub opener: Opener,
}

impl ServiceConfig {
    /// The app as a person runs it: platform directories, default retries, no faults;
    /// `db` is the database given by `--db` or `LODGE_DB` (the default one when `None`).
    pub fn platform(db: Option<PathBuf>) -> ServiceConfig {
        ServiceConfig {
            paths: AppPaths::platform(db),
            engine: EngineConfig::default(),
            sandbox_faults: FaultConfig::default(),
            start_paused: false,
            sandbox_token: std::env::var("LODGE_TOKEN").ok().filter(|t| !t.is_empty()),
            opener: Opener::system(),
        }
    }
}

/// Something a person asked for. Each runs on the runtime and answers with [`Update`]s.
#[derive(Clone, Debug)]
pub enum Command {
    /// Add dropped or picked folders (files get a "not a folder" notice).
    AddFolders(Vec<PathBuf>),
    /// Open the system folder picker, then add what was picked.
    PickFolder,
    /// Stop hashing the folder of row `row` (a folder being added, or rescanned): nothing
    /// of that scan is recorded.
    StopHashing {
        row: i64,
    },
    /// Save new metadata: rescan (cheap, hash cache) and re-key; then optionally deposit to
    /// the target with this scope id.
    SetMetadata {
        id: i64,
        metadata: Box<Metadata>,
        then_deposit: Option<String>,
    },
    /// Queue deposits of these datasets to a target (datasets whose metadata has problems are
    /// refused with a notice).
    Deposit {
        ids: Vec<i64>,
        target: String,
    },
    /// Re-queue failed jobs with the same key.
    Retry {
        jobs: Vec<i64>,
    },
    /// Give up on failed deposits (a target gone for good, say): they leave the rows'
    /// status and Retry all failed; the history keeps them, and its Retry brings one back.
    Dismiss {
        jobs: Vec<i64>,
    },
    /// Re-queue the failed deposits to `target` the rows show, except the datasets of
    /// `leave_out` (whose details hold edits not saved: a retry sends what is saved).
    RetryAllFailed {
        target: String,
        leave_out: Vec<i64>,
    },
    /// Forget a dataset (its jobs, results and events stay as history).
    Remove {
        id: i64,
    },
    /// Stop claiming new work (jobs in flight finish).
    Pause,
    Resume,
    LoadDetails {
        id: i64,
    },
    /// Read every job of dataset `id` (its remove confirmation lists them).
    LoadDatasetJobs {
        id: i64,
    },
    LoadHistory,
    /// Write the history to a file in the export folder: every job, or (`jobs`) those the
    /// History view shows once its search and filters narrow it.
    ExportHistory {
        format: ExportFormat,
        jobs: Option<Vec<i64>>,
    },
    SaveSettings(Settings),
    /// Give every dataset whose metadata is incomplete what these defaults have and it lacks
    /// (each is re-keyed, as any metadata edit is).
    FillInIncomplete(Settings),
    /// Look again for dataset folders changed since their last scan (the window came back
    /// into focus: a person may have been editing files elsewhere).
    CheckFolders,
    /// Look again only at which folders are gone (a `stat` each): sent now and then while a
    /// row says its folder is gone, which a person may put back.
    CheckGoneFolders,
    /// Open a folder in the system's file manager.
    ShowFolder(PathBuf),
    /// Open a deposit's record (its URL) in the system's web browser.
    OpenRecord(String),
    /// Change the faults the in-process sandbox injects (tests, demos).
    SetSandboxFaults(FaultConfig),
    /// Add or change a named target (its secret, if typed, goes to the keyring or the
    /// private secrets file); the engine then restarts with every configured target.
    SaveTarget(TargetForm),
    /// Remove a named target and its stored secret.
    RemoveTarget(String),
    /// Run a target's checks: reachable, credentials, conditional writes.
    TestTarget(String),
    /// Check that the target still holds what this job deposited: the record, and each
    /// file at its size or (`read: Bytes`) every byte read back; a notice says what was
    /// found, and the deposit's log keeps it.
    VerifyDeposit {
        job: i64,
        read: ReadBack,
    },
    /// Check, by record and file sizes, every deposit the datasets `ids` landed on `target`
    /// (the latest of each key); one notice sums up, each deposit's log keeps its finding.
    VerifyDatasets {
        ids: Vec<i64>,
        target: String,
    },
    /// Send again the files the server lost of what this job deposited (a deposit found
    /// damaged), then check it; a notice says what was done and found, the log keeps both.
    RepairDeposit {
        job: i64,
    },
}

/// What the window remembers of itself ([`AppPaths::view_file`]) could not be written:
/// the file, and the system's reason. Said as the window's warning: what that costs and
/// what to look at.
#[derive(Debug)]
pub struct ViewNotWritten {
    pub file: PathBuf,
    pub cause: std::io::Error,
}

impl std::fmt::Display for ViewNotWritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let folder = self.file.parent().unwrap_or(&self.file);
        write!(
            f,
            "Lodge could not write {} ({}), the file in which the window keeps the picked \
             target and the list's order for the next time it opens. The next window may not \
             open on the target picked now, nor sorted as now: check that Lodge may write in \
             {} (the folder's permissions) and that its disk has free space.",
            self.file.display(),
            self.cause,
            folder.display()
        )
    }
}

impl std::error::Error for ViewNotWritten {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.cause)
    }
}

/// The window's handle on the background side.
pub struct AppService {
    commands: mpsc::UnboundedSender<Command>,
    updates: std::sync::mpsc::Receiver<Update>,
    shutdown: CancellationToken,
    /// [`AppPaths::view_file`].
    view_file: PathBuf,
}

/// At most this many updates are applied per frame, so a burst never stalls a frame.
const UPDATES_PER_FRAME: usize = 5_000;

impl AppService {
    /// Start the background side on `runtime`: it opens the store and the sandbox, loads the
    /// rows, starts the engine and then serves commands. Returns at once.
    pub fn start(runtime: &Handle, config: ServiceConfig, repaint: Repaint) -> AppService {
        let (commands, command_rx) = mpsc::unbounded_channel();
        let (tx, updates) = std::sync::mpsc::channel();
        let shutdown = CancellationToken::new();
        let out = Outbox::new(tx, repaint);
        let view_file = config.paths.view_file.clone();
        runtime.spawn(serve(config, out, command_rx, shutdown.clone()));
        AppService {
            commands,
            updates,
            shutdown,
            view_file,
        }
    }

    /// What the window last remembered of itself ([`AppPaths::view_file`]); `None` when
    /// nothing was written yet or it cannot be read (the window then opens as it would the
    /// first time).
    pub fn remembered_view<T: serde::de::DeserializeOwned>(&self) -> Option<T> {
        let text = std::fs::read_to_string(&self.view_file).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Write what the window remembers of itself now, not at its exit: a window killed or
    /// crashed would otherwise reopen on an older pick. Written beside and renamed over,
    /// so a write cut short leaves the one before. A few hundred bytes, on a person's
    /// action (a pick, a sort): written on the window's thread.
    pub fn remember_view<T: serde::Serialize>(&self, view: &T) -> Result<(), ViewNotWritten> {
        // The file named is the one the failing step was at: the one written beside, or
        // the view file itself.
        let at = |file: &std::path::Path| {
            let file = file.to_path_buf();
            move |cause| ViewNotWritten { file, cause }
        };
        let text = serde_json::to_string(view).map_err(|e| at(&self.view_file)(e.into()))?;
        if let Some(dir) = self.view_file.parent() {
            std::fs::create_dir_all(dir).map_err(at(dir))?;
        }
        let written = self.view_file.with_extension("json.new");
        std::fs::write(&written, text).map_err(at(&written))?;
        std::fs::rename(&written, &self.view_file).map_err(at(&self.view_file))
    }

    /// Ask for something; the answer comes back as updates.
    pub fn send(&self, command: Command) {
        // Fails only after shutdown, when nobody is listening any more.
        let _ = self.commands.send(command);
    }

    /// Apply the updates that have arrived (never waits). Returns how many were applied.
    pub fn drain(&self, model: &mut Model) -> usize {
        let mut n = 0;
        while n < UPDATES_PER_FRAME {
            match self.updates.try_recv() {
                Ok(update) => {
                    model.apply(update);
                    n += 1;
                }
                Err(_) => break,
            }
        }
        n
    }

    /// Cancelled when the window closes: the engine stops claiming and the sandbox stops.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }
}

impl Drop for AppService {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn serve(
    config: ServiceConfig,
    out: Outbox,
    mut commands: mpsc::UnboundedReceiver<Command>,
    shutdown: CancellationToken,
) {
    // Paused by the Pause button when the window last closed: it opens paused, and says so.
    let paused_by_user = config.paths.paused_file.exists();
    let start_paused = config.start_paused || paused_by_user;
    let settings_file = config.paths.settings_file.clone();
    let core = match startup::open(config, out.clone(), shutdown.clone()).await {
        Ok(core) => core,
        Err(message) => {
            out.send(Update::StartFailed(message));
            serve_settings_only(settings_file, out, commands, shutdown).await;
            return;
        }
    };
    if !start_paused {
        core.resume();
    } else if paused_by_user {
        out.notice(Notice::info(
            "Deposits are paused, as they were when Lodge was last closed: press Resume to \
             send what is queued.",
        ));
    }
    loop {
        let command = tokio::select! {
            c = commands.recv() => c,
            _ = shutdown.cancelled() => None,
        };
        let Some(command) = command else { break };
        // Settings are saved before the next command is taken, so a folder dropped just
        // after Save gets the defaults just saved (the window closes Settings at once).
        if let Command::SaveSettings(settings) = command {
            core.clone().save_settings(settings).await;
            continue;
        }
        let core = core.clone();
        tokio::spawn(async move { core.handle(command).await });
    }
    core.stop().await;
}

/// Lodge could not start (its database could not be opened). Settings, where a shared
/// database that stops the start is corrected, still shows what is saved and saves it;
/// the rest waits for the next start.
async fn serve_settings_only(
    path: PathBuf,
    out: Outbox,
    mut commands: mpsc::UnboundedReceiver<Command>,
    shutdown: CancellationToken,
) {
    // The form shows what is saved: a Save must not put the defaults over it.
    let mut read = Settings::load(&path).unwrap_or_default();
    out.send(Update::Settings(read.clone()));
    loop {
        let command = tokio::select! {
            c = commands.recv() => c,
            _ = shutdown.cancelled() => None,
        };
        let Some(command) = command else { break };
        let Command::SaveSettings(settings) = command else {
            continue;
        };
        match settings.save_checked(&path, &read).await {
            Ok(kept) => {
                read = settings.clone();
                out.send(Update::Settings(settings));
                out.notice(Notice::info(
                    "Settings saved. Start Lodge again to use them.",
                ));
                if let Some(kept) = kept {
                    out.notice(Notice::warning(kept));
                }
            }
            Err(e) => {
                if let Ok(now) = Settings::load(&path)
                    && now != read
                {
                    read = now.clone();
                    out.send(Update::Settings(now));
                }
                out.notice(Notice::error(e));
            }
        }
    }
}
