//! Folders that live as long as the test process, and are removed after it ends.
//!
//! A `TempDir` held in a `static` (the shared PostgreSQL cluster, the servers' logs, the hash
//! cache of team mode) is never dropped, so it would be left behind by every run: a
//! PostgreSQL cluster alone is about 140 MB, and a machine that runs the suite all day fills
//! its disk. Each such folder is handed to a watchdog shell that waits for this process to
//! end and then removes it (after `before`, a command such as stopping the cluster).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Run `before` (a command, if given), then remove `path` and everything in it, once this
/// process has ended.
pub fn remove_when_process_ends(path: &Path, before: Option<&Command>) {
    remove_when_ended(std::process::id(), path, before);
}

/// Run `before`, then remove `path`, once the process `pid` has ended. The path and the
/// command reach the watchdog shell as its arguments, never spliced into its script, so no
/// character in them needs quoting.
pub fn remove_when_ended(pid: u32, path: &Path, before: Option<&Command>) {
    let mut watchdog = Command::new("bash");
    watchdog
        .arg("-c")
        .arg(
            r#"while kill -0 "$1" 2>/dev/null; do sleep 0.5; done
               if [ $# -gt 2 ]; then "${@:3}" >/dev/null 2>&1; fi
               rm -rf -- "$2""#,
        )
        .arg("watchdog")
        .arg(pid.to_string())
        .arg(path);
    if let Some(before) = before {
        watchdog.arg(before.get_program()).args(before.get_args());
    }
    let mut watchdog = watchdog
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the watchdog that removes a test folder");
    // Reap the watchdog when it ends.
    std::thread::spawn(move || watchdog.wait());
}

/// A new temporary folder removed when this process ends (not when a value is dropped).
pub fn process_folder() -> PathBuf {
    let path = tempfile::tempdir().expect("make a temporary folder").keep();
    remove_when_process_ends(&path, None);
    path
}

/// One folder for this whole test process: server logs, shared caches.
pub fn process_scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(process_folder)
}
