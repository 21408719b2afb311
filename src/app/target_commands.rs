//! The Settings commands for targets, on the runtime: save, remove and test a named target,
//! then rebuild the engine with every configured target so deposits can go to them.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::commands::Core;
use super::config_watch::ConfigStamp;
use super::model::Notice;
use super::startup::forward_engine_events;
use super::targets::{self, ConfiguredTarget, TargetField, TargetForm};
use super::update::Update;
use crate::wording::count_of;

impl Core {
    pub(super) async fn save_target(self: Arc<Self>, form: TargetForm) {
        let _changing = self.targets_changing().lock().await;
        let path = self.config().paths.config_file.clone();
        let editing = form.editing.is_some();
        let saved = tokio::task::spawn_blocking(move || targets::save(&path, form))
            .await
            .unwrap_or_else(|e| {
                Err(vec![(
                    TargetField::Form,
                    format!("saving the target failed: {e}"),
                )])
            });
        match saved {
            Ok(name) => {
                let configured = self.reload_targets().await.unwrap_or_default();
                // Editing a target is the user acting on a pause (new credentials, say).
                let scope = configured
                    .into_iter()
                    .find(|t| t.summary.name == name)
                    .map(|t| t.summary.scope_id)
                    .filter(|scope| !scope.is_empty());
                let resumed = match scope {
                    Some(scope) if editing => self.resume_saved(&name, scope).await,
                    _ => false,
                };
                self.out().notice(Notice::info(format!(
                    "Target '{name}' {}; it is in the target picker.{}",
                    if editing { "changed" } else { "added" },
                    if resumed {
                        " Its pause is lifted: what waited there is sent now."
                    } else {
                        ""
                    }
                )));
                // Last, so a window that sees the save done also has its log line.
                self.out().send(Update::TargetSaved(name));
            }
            Err(problems) => self.out().send(Update::TargetRefused(problems)),
        }
    }

    /// Lift the pause of target `name` (recorded as `scope`), if it was paused; whether
    /// it was.
    pub(super) async fn resume_saved(self: &Arc<Self>, name: &str, scope: String) -> bool {
        let store = self.store().clone();
        let resumed = tokio::task::spawn_blocking(move || {
            store.resume_target(&scope).map_err(|e| e.to_string())
        })
        .await
        .unwrap_or_else(|e| Err(format!("a database task failed: {e}")));
        match resumed {
            Ok(Some(event)) => {
                // What waited there is claimable now: the idle workers look at once.
                self.engine().wake();
                self.out().send(Update::Logged(vec![event]));
                true
            }
            Ok(None) => false,
            Err(e) => {
                self.out().notice(Notice::warning(format!(
                    "Cannot lift the pause of '{name}': {e}. Press Deposit on a dataset to \
                     lift it."
                )));
                false
            }
        }
    }

    pub(super) async fn remove_target(self: Arc<Self>, name: String) {
        let _changing = self.targets_changing().lock().await;
        let path = self.config().paths.config_file.clone();
        let n = name.clone();
        let removed = tokio::task::spawn_blocking(move || targets::remove(&path, &n))
            .await
            .unwrap_or_else(|e| Err(format!("removing the target failed: {e}")));
        match removed {
            Ok(removed) => {
                self.reload_targets().await;
                // Jobs still to do there stay queued (the command line can still run them
                // by URL): say so, and how to take them off.
                let left = match removed.scope.clone() {
                    Some(scope) => self
                        .db(move |s| s.active_job_ids(Some(&scope)))
                        .await
                        .map(|ids| ids.len())
                        .unwrap_or(0),
                    None => 0,
                };
                let what = match removed.kept_secret {
                    true => format!("Target '{name}' and its stored secret removed"),
                    false => format!("Target '{name}' removed"),
                };
                let queued = match (left, &removed.scope) {
                    (0, _) | (_, None) => String::new(),
                    (n, Some(scope)) => {
                        let (is, it) = if n == 1 {
                            ("is", "it")
                        } else {
                            ("are", "them")
                        };
                        format!(
                            " {} for it {is} still queued: add the target again to send {it}, \
                             or `lodge cancel --target {scope}` takes {it} off the queue.",
                            count_of(n as u64, "deposit", "deposits"),
                        )
                    }
                };
                let notice = format!("{what}; its deposit history stays.{queued}");
                match left {
                    0 => self.out().notice(Notice::info(notice)),
                    _ => self.out().notice(Notice::warning(notice)),
                }
            }
            Err(e) => self
                .out()
                .notice(Notice::error(format!("Cannot remove target '{name}': {e}"))),
        }
    }

    pub(super) async fn test_target(self: Arc<Self>, name: String) {
        self.out().send(Update::TargetTesting(name.clone()));
        let path = self.config().paths.config_file.clone();
        let token = self.config().sandbox_token.clone();
        let report = crate::config::test_named(&path, &name, token)
            .await
            .map_err(|e| e.to_string());
        self.out().send(Update::TargetTested { name, report });
    }

    /// Open every configured target again, start a new engine with them and tell the window.
    /// Returns the configured targets, or `None` (the window told why) when they could not
    /// be opened.
    pub(super) async fn reload_targets(self: &Arc<Self>) -> Option<Vec<ConfiguredTarget>> {
        let store = self.store().clone();
        let engine_config = self.config().engine.clone();
        let sandbox = self.sandbox_target().clone();
        let path = self.config().paths.config_file.clone();
        let token = self.config().sandbox_token.clone();
        let label = self.sandbox_label().to_string();
        // Before reading: a change made while it is read is seen by the next look.
        self.set_config_stamp(ConfigStamp::of(&path));
        let built = tokio::task::spawn_blocking(move || {
            targets::register_all(
                store,
                engine_config,
                sandbox,
                &label,
                &path,
                token.as_deref(),
            )
        })
        .await
        .unwrap_or_else(|e| Err(format!("opening the targets failed: {e}")));
        let registered = match built {
            Ok(r) => r,
            Err(e) => {
                self.out().notice(Notice::error(format!(
                    "The targets could not be opened again, so deposits still use the old \
                     list: {e}. Restart Lodge."
                )));
                return None;
            }
        };
        let engine = Arc::new(registered.engine);
        forward_engine_events(
            &engine,
            self.store().clone(),
            self.out().clone(),
            self.shutdown_token().clone(),
        );
        self.replace_engine(engine);
        self.set_targets_opened(&registered.configured);
        // Saving one target reloads them all: a problem the window was already told of is
        // not told again, only a new or different one.
        let left_out = left_out_of_picker(&registered.configured);
        let said = std::mem::replace(&mut *self.left_out_said(), left_out.clone());
        for (name, problem) in &left_out {
            if said.get(name) != Some(problem) {
                self.out().notice(Notice::warning(format!(
                    "Target '{name}' is not in the picker: {problem}"
                )));
            }
        }
        self.out().send(Update::Targets {
            picker: registered.picker,
            configured: registered.configured.clone(),
        });
        Some(registered.configured)
    }
}

/// The configured targets that could not be opened (so are not in the picker), by name,
/// with why.
pub(super) fn left_out_of_picker(configured: &[ConfiguredTarget]) -> BTreeMap<String, String> {
    configured
        .iter()
        .filter(|t| !t.unreadable_config)
        .filter_map(|t| Some((t.summary.name.clone(), t.problem.clone()?)))
        .collect()
}

/// What the window says when the config file could not be read (no saved target is then
/// listed or used), if it could not.
pub(super) fn unreadable_config_notice(configured: &[ConfiguredTarget]) -> Option<String> {
    let t = configured.iter().find(|t| t.unreadable_config)?;
    Some(format!(
        "{} Until it is fixed the window lists and uses no saved target, only the local \
         sandbox; it reads the file again once it changes.",
        crate::wording::sentence(&crate::wording::capitalized(
            t.problem
                .as_deref()
                .unwrap_or("the config file cannot be read")
        ))
    ))
}
