//! Where the desktop app keeps its files: the store, the sandbox's data, the settings file,
//! exported history and the targets' config file. Platform directories by default; one folder for tests and demos.

use std::path::{Path, PathBuf};

use crate::store::Store;

/// Every file location the app uses.
#[derive(Clone, Debug)]
pub struct AppPaths {
    /// The Lodge database (the same one the command line uses by default): a file, or a
    /// `postgres://` URL given by `--db` or `LODGE_DB`.
    pub db: PathBuf,
    /// `db` was chosen by `--db` or `LODGE_DB`, and wins over the database named in Settings.
    pub db_from_command_line: bool,
    /// The in-process sandbox's records and blobs.
    pub sandbox_dir: PathBuf,
    /// The loopback port the sandbox used last time, so its target (and the dedup scope)
    /// stays the same across restarts.
    pub sandbox_port_file: PathBuf,
    /// Settings (JSON): never in the database.
    pub settings_file: PathBuf,
    /// Present while the window's deposits are paused by its Pause button, so that a
    /// window closed paused opens paused: what was held back is not sent unasked.
    pub paused_file: PathBuf,
    /// What the window remembers from one run to the next (the picked target, the list's
    /// order), written as soon as it changes: a window killed or crashed reopens on the
    /// target picked last, not on one that a Deposit all ready would wrongly go to.
    pub view_file: PathBuf,
    /// Where "Export CSV/JSON" writes.
    pub export_dir: PathBuf,
    /// The named targets (TOML, shared with the command line); their secrets live in the OS
    /// keyring or `secrets.toml` beside it.
    pub config_file: PathBuf,
}

impl AppPaths {
    /// The platform's directories (`~/.local/share/lodge`, `~/.config/lodge` on Linux);
    /// `db`, when given (`lodge --db PATH|URL` or `LODGE_DB`), is the database instead of
    /// the default one, as it is for the command line.
    pub fn platform(db: Option<PathBuf>) -> AppPaths {
        let dirs = directories::ProjectDirs::from("org", "Lodge", "lodge");
        let data = dirs
            .as_ref()
            .map(|d| d.data_dir().to_path_buf())
            .unwrap_or_else(|| PathBuf::from("."));
        let export_dir = directories::UserDirs::new()
            .and_then(|u| u.download_dir().map(Path::to_path_buf))
            .unwrap_or_else(|| data.join("exports"));
        AppPaths {
            db_from_command_line: db.is_some(),
            db: db.unwrap_or_else(Store::default_path),
            sandbox_dir: data.join("sandbox"),
            sandbox_port_file: crate::sandbox::window::port_file(),
            settings_file: crate::settings::settings_path(),
            paused_file: crate::settings::window_paused_path(),
            view_file: crate::settings::window_view_path(),
            export_dir,
            config_file: crate::config::config_path(),
        }
    }

    /// Everything under one folder (tests, demos).
    pub fn in_dir(dir: &Path) -> AppPaths {
        AppPaths {
            db: dir.join("lodge.db"),
            db_from_command_line: false,
            sandbox_dir: dir.join("sandbox"),
            sandbox_port_file: dir.join("sandbox-port"),
            settings_file: dir.join("settings.json"),
            paused_file: dir.join("window-paused"),
            view_file: dir.join("window-view.json"),
            export_dir: dir.join("exports"),
            config_file: dir.join("config.toml"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_given_on_the_command_line_is_the_windows_and_wins_over_settings() {
        let given = PathBuf::from("/data/lab/lodge.db");
        let paths = AppPaths::platform(Some(given.clone()));
        assert_eq!(paths.db, given);
        assert!(paths.db_from_command_line);
        let default = AppPaths::platform(None);
        assert_eq!(default.db, Store::default_path());
        assert!(!default.db_from_command_line);
    }
}
