//! Small helpers for what the command line prints: sizes, times, progress bars.

use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// `1.5 MiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// `text` as one word of a shell command a person can paste: as it is when that is safe,
/// else quoted (a path with a space, say).
pub fn shell_word(text: &str) -> std::borrow::Cow<'_, str> {
    // Only a NUL byte cannot be quoted, and no path or name holds one.
    shlex::try_quote(text).unwrap_or(std::borrow::Cow::Borrowed(text))
}

/// `1 file`, `2 files`.
pub fn count_of(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_a_person_writes_them() {
        assert_eq!(human_bytes(12), "12 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
    }

    #[test]
    fn a_path_in_a_suggested_command_is_quoted_only_when_the_shell_needs_it() {
        assert_eq!(shell_word("/data/soil-cores"), "/data/soil-cores");
        assert_eq!(shell_word("/data/soil cores"), "'/data/soil cores'");
        assert_eq!(shell_word("/data/Curie's cores"), "\"/data/Curie's cores\"");
    }

    #[test]
    fn a_count_of_one_is_singular() {
        assert_eq!(count_of(1, "file", "files"), "1 file");
        assert_eq!(count_of(0, "file", "files"), "0 files");
        assert_eq!(count_of(2, "job", "jobs"), "2 jobs");
    }
}
