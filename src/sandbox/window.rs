//! The window's own local sandbox, as the command line sees it. The window runs a sandbox
//! inside itself, on the loopback port it used last time (kept in `sandbox-port` in Lodge's
//! data folder, so its deposits keep one identity across restarts); it answers only while
//! the window is open. A terminal that cannot reach it says that, rather than asking
//! whether "the repository" is running.

use std::path::{Path, PathBuf};

/// Where the window keeps its sandbox's port, in the platform's data folder
/// (`~/.local/share/lodge/sandbox-port` on Linux).
pub fn port_file() -> PathBuf {
    directories::ProjectDirs::from("org", "Lodge", "lodge")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from("."))
        .join("sandbox-port")
}

/// Whether `scope` (a target's identity) is the sandbox of the window whose port is kept
/// in `port_file`.
pub fn is_window_sandbox(scope: &str, port_file: &Path) -> bool {
    let Some(port) = std::fs::read_to_string(port_file)
        .ok()
        .and_then(|p| p.trim().parse::<u16>().ok())
    else {
        return false;
    };
    scope == format!("sandbox+http://127.0.0.1:{port}")
}

/// What a terminal says when the window's sandbox could not be asked.
pub fn closed_window_hint(label: &str) -> String {
    format!(
        "{label} is the Lodge window's own local sandbox, which answers only while the window \
         is open: open Lodge, then run the command again"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_windows_sandbox_is_known_by_the_port_it_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sandbox-port");
        assert!(!is_window_sandbox("sandbox+http://127.0.0.1:34477", &file));
        std::fs::write(&file, "34477").unwrap();
        assert!(is_window_sandbox("sandbox+http://127.0.0.1:34477", &file));
        assert!(!is_window_sandbox("sandbox+http://127.0.0.1:8080", &file));
        assert!(!is_window_sandbox(
            "webdav+http://127.0.0.1:34477/dav",
            &file
        ));
    }
}
