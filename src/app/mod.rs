//! The application service behind the desktop window, with no GUI code in it.
//!
//! [`AppService`] owns the connection to the core: the store, the in-process sandbox, the
//! engine running deposits, and the commands a person can give (add folders, edit metadata,
//! deposit, retry, remove, export). Commands run on the tokio runtime and report back as
//! [`Update`]s over a channel; [`Model`] applies them to an in-memory picture of every
//! dataset, so a window can draw 100,000 rows without touching the database per frame.
//! [`DedupStatus`] is the per-row answer to "where is this dataset, per target".

mod commands;
mod config_watch;
mod export;
mod model;
mod paths;
mod service;
// The settings live outside the window's module: the command line reads them too.
use crate::settings;
mod startup;
mod status;
mod target_commands;
mod targets;
mod update;
mod verify_command;

pub use export::{ExportFormat, write_history};
pub use model::{DatasetEntry, LogLevel, LogLine, Model, Notice, NoticeLevel, WorkInHand};
pub use paths::AppPaths;
pub use service::{AppService, Command, Opener, Repaint, ServiceConfig, ViewNotWritten};
pub use settings::{Settings, this_year};
pub use status::{DedupStatus, StatusKind, paused_target_fix};
pub use targets::{ConfiguredTarget, TargetField, TargetForm, TargetTest};
pub use update::{CheckOf, DatasetJobs, Details, Startup, TargetInfo, Update};
