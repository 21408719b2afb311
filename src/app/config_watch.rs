//! Targets added, changed or removed in the config file by something other than this window
//! (`lodge target add` in a terminal, an editor) reach the picker without a restart, and so
//! do secrets changed in the private secrets file beside it (a password corrected there by
//! hand): the targets paused because the server refused their credentials are tried again.
//!
//! The files are looked at every couple of seconds. When one has changed, the targets are
//! opened again, as after a save in Settings, but only once this window sends nothing:
//! opening them again starts a new engine, and the old one's uploads in flight would be cut
//! short (they go back on the queue, and start over).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio_util::sync::CancellationToken;

use super::commands::Core;
use super::model::Notice;
use crate::config::TargetConfig;
use crate::engine::held_by_this_process;

/// How often the config file is looked at.
pub(super) const LOOK_EVERY: Duration = Duration::from_secs(2);

/// One version of the config file and of the secrets file beside it, as far as a look at
/// them tells: each one's modification time and size, or none when there is no such file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ConfigStamp {
    config: FileStamp,
    secrets: FileStamp,
}

type FileStamp = Option<(SystemTime, u64)>;

impl ConfigStamp {
    /// The stamp of the config file at `path` and of its secrets file.
    pub(super) fn of(path: &Path) -> ConfigStamp {
        ConfigStamp {
            config: file_stamp(path),
            secrets: file_stamp(&crate::config::credentials::secrets_path(path)),
        }
    }
}

/// The modification time and size of the file at `path`; none when there is no such file.
fn file_stamp(path: &Path) -> FileStamp {
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()))
}

/// The settings file changed (edited by hand, saved by `lodge` elsewhere, or by this window,
/// which then holds its values already): its defaults are the window's from now on, as
/// they are already `lodge add --defaults`'s. One that cannot be read is said, and the
/// window keeps what it has (its Save keeps the damaged file beside the new one).
fn look_at_settings(core: &Core, path: &Path) {
    match crate::settings::Settings::load(path) {
        Ok(now) => {
            if core.settings_read_again(now) {
                core.out().notice(Notice::info(format!(
                    "The settings file {} was changed outside this window: its defaults apply \
                     to folders added from now on, and Settings shows them.",
                    path.display()
                )));
            }
        }
        Err(e) => core.out().notice(Notice::warning(format!(
            "Changed outside this window, {} The window keeps the settings it has.",
            crate::wording::sentence(&e)
        ))),
    }
}

/// Watch the config file until `shutdown`, opening the targets again when it changes; and
/// the settings file, taking its defaults again when it changes.
pub(super) fn watch_config_file(core: Arc<Core>, shutdown: CancellationToken) {
    tokio::spawn(async move {
        let settings_file = core.config().paths.settings_file.clone();
        let mut settings_stamp = file_stamp(&settings_file);
        loop {
            tokio::select! {
                () = tokio::time::sleep(LOOK_EVERY) => {}
                () = shutdown.cancelled() => return,
            }
            let stamp = file_stamp(&settings_file);
            if stamp != settings_stamp {
                settings_stamp = stamp;
                look_at_settings(&core, &settings_file);
            }
            let path = core.config().paths.config_file.clone();
            // Settings saving or removing a target opens them again itself: not twice.
            let Ok(_targets) = core.targets_changing().try_lock() else {
                continue;
            };
            let stamp = ConfigStamp::of(&path);
            if stamp == core.config_stamp() || sending(&core).await {
                continue;
            }
            let secrets_alone = stamp.config == core.config_stamp().config;
            // A file that cannot be read now (saved half-edited, a typo) takes no target
            // away: the window keeps what it has and says why, once for this version.
            if stamp.config.is_some()
                && let Err(e) = crate::config::Config::load(&path)
            {
                core.set_config_stamp(stamp);
                core.out().notice(Notice::warning(format!(
                    "Changed outside this window, {} The window keeps the targets it has \
                     until the file is fixed, then reads it again.",
                    crate::wording::sentence(&e.to_string())
                )));
                continue;
            }
            // What the window opened last (its own saves included): the change is told
            // against it.
            let before = core.targets_opened();
            // Could not be opened: the window was told, and the next look tries again only
            // once the file changes again.
            let Some(configured) = core.reload_targets().await else {
                continue;
            };
            if secrets_alone {
                // New credentials: what the server refused may pass now. One still wrong
                // is refused once more, and pauses its target again.
                let mut lifted = 0;
                for t in &configured {
                    if core
                        .resume_saved(&t.summary.name, t.summary.scope_id.clone())
                        .await
                    {
                        lifted += 1;
                    }
                }
                core.out().notice(Notice::info(secrets_changed_notice(
                    &crate::config::credentials::secrets_path(&path),
                    lifted,
                )));
                continue;
            }
            let now = configured
                .into_iter()
                .map(|t| (t.summary.name, t.config))
                .collect();
            core.out()
                .notice(Notice::info(changed_notice(&path, &before, &now)));
        }
    });
}

/// Whether this window's engine holds a job: one it is sending now.
async fn sending(core: &Core) -> bool {
    core.db(|s| s.live_leases())
        .await
        // Unknown is treated as busy: the next look tries again.
        .map_or(true, |leases| {
            leases
                .iter()
                .any(|(_, _, owner)| held_by_this_process(owner))
        })
}

/// The targets by name, each with its entry in the config file.
type Targets = BTreeMap<String, TargetConfig>;

/// What the window says once it has read the changed config file: the targets added, taken
/// out and changed since it last opened them, by name.
fn changed_notice(path: &Path, before: &Targets, now: &Targets) -> String {
    let quoted = |names: Vec<&String>| {
        names
            .iter()
            .map(|n| format!("'{n}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let added: Vec<&String> = now.keys().filter(|n| !before.contains_key(*n)).collect();
    let removed: Vec<&String> = before.keys().filter(|n| !now.contains_key(*n)).collect();
    let changed: Vec<&String> = now
        .iter()
        .filter(|(n, t)| before.get(*n).is_some_and(|was| was != *t))
        .map(|(n, _)| n)
        .collect();
    let mut what = Vec::new();
    for (verb, names) in [("added", added), ("removed", removed), ("changed", changed)] {
        if !names.is_empty() {
            what.push(format!("{verb} {}", quoted(names)));
        }
    }
    let what = match what.is_empty() {
        true => "no target in it changed".to_string(),
        false => what.join("; "),
    };
    format!(
        "The config file {} changed outside this window ({what}): the target picker and \
         Settings follow it now.",
        path.display()
    )
}

/// What the window says once it has read the secrets file changed outside it, with
/// `lifted` targets' pauses lifted.
fn secrets_changed_notice(path: &Path, lifted: usize) -> String {
    let lifted = match lifted {
        0 => String::new(),
        1 => " The target paused for its credentials is tried again.".into(),
        n => format!(" The {n} targets paused for their credentials are tried again."),
    };
    format!(
        "The secrets file {} changed outside this window: the targets use what it holds \
         now.{lifted}",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Targets {
        list.iter()
            .map(|s| (s.to_string(), TargetConfig::default()))
            .collect()
    }

    #[test]
    fn the_notice_names_the_targets_added_and_removed() {
        let said = changed_notice(
            Path::new("/home/me/.config/lodge/config.toml"),
            &names(&["old", "kept"]),
            &names(&["kept", "lab", "s3lab"]),
        );
        assert_eq!(
            said,
            "The config file /home/me/.config/lodge/config.toml changed outside this window \
             (added 'lab', 's3lab'; removed 'old'): the target picker and Settings follow it now."
        );
    }

    #[test]
    fn a_change_to_a_targets_settings_alone_names_that_target() {
        let before = names(&["lab", "other"]);
        let mut now = before.clone();
        now.get_mut("lab").unwrap().files_at_once = Some(2);
        let said = changed_notice(Path::new("c.toml"), &before, &now);
        assert!(said.contains("(changed 'lab')"), "{said}");
        let said = changed_notice(Path::new("c.toml"), &before, &before);
        assert!(said.contains("(no target in it changed)"), "{said}");
    }

    #[test]
    fn a_file_written_again_has_another_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        assert_eq!(ConfigStamp::of(&path), ConfigStamp::default());
        std::fs::write(&path, "a").unwrap();
        let first = ConfigStamp::of(&path);
        assert_ne!(first, ConfigStamp::default());
        std::fs::write(&path, "ab").unwrap();
        let second = ConfigStamp::of(&path);
        assert_ne!(second, first, "the size differs");
        std::fs::write(dir.path().join("secrets.toml"), "[secrets]\n").unwrap();
        let third = ConfigStamp::of(&path);
        assert_ne!(third, second, "the secrets file beside it changed");
        assert_eq!(third.config, second.config);
    }
}
