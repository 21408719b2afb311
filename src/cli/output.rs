//! Small helpers for what the command line prints: times, progress bars, commands to paste
//! (sizes and counts are worded in [`crate::wording`]).

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::store::{EventRow, JobRow, Store};

/// `text` as one word of a shell command a person can paste: as it is when that is safe,
/// else quoted (a path with a space, say).
pub fn shell_word(text: &str) -> std::borrow::Cow<'_, str> {
    // Only a NUL byte cannot be quoted, and no path or name holds one.
    shlex::try_quote(text).unwrap_or(std::borrow::Cow::Borrowed(text))
}

/// Unix ms as an RFC 3339 UTC time, to the second.
pub fn time_text(ms: i64) -> String {
    let t = UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64);
    humantime::format_rfc3339_seconds(t).to_string()
}

/// A bytes progress bar for hashing a folder, drawn on stderr only when it is a terminal.
pub fn hash_progress_bar(root: &Path) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "hashing {msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_message(
        root.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    );
    bar
}

/// A progress bar over items, on stderr.
pub fn items_progress_bar(total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{what} [{{bar:30}}] {{pos}}/{{len}} {{msg}} elapsed {{elapsed}}"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar
}

/// Datasets' names for log lines, read from the store once each (a removed dataset has
/// none, and its lines go without).
#[derive(Default)]
pub struct DatasetNames {
    known: HashMap<i64, Option<String>>,
}

impl DatasetNames {
    /// Names known already: those of `jobs`' datasets (a batch's, read in one go).
    pub fn of_jobs(jobs: &[JobRow]) -> DatasetNames {
        let known = jobs
            .iter()
            .filter_map(|j| Some((j.dataset_id?, j.dataset_name.clone())))
            .collect();
        DatasetNames { known }
    }

    /// The name of `e`'s dataset. A blocking read, once per dataset: quick enough for the
    /// live log's task, which prints each outcome as it comes.
    pub fn of(&mut self, store: &Store, e: &EventRow) -> Option<String> {
        let id = e.dataset_id?;
        self.known
            .entry(id)
            .or_insert_with(|| store.dataset(id).ok().flatten().map(|d| d.name))
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_in_a_suggested_command_is_quoted_only_when_the_shell_needs_it() {
        assert_eq!(shell_word("/data/soil-cores"), "/data/soil-cores");
        assert_eq!(shell_word("/data/soil cores"), "'/data/soil cores'");
        assert_eq!(shell_word("/data/Curie's cores"), "\"/data/Curie's cores\"");
    }
}
