//! How sizes, counts and errors read wherever Lodge speaks to a person: the command line and
//! the window word them the same way.

use std::error::Error;

use crate::content::DocumentChanges;

/// `text` as a sentence: ended with a full stop unless it ends in one (or in a question, as
/// "… is that its address?" does), so that a cause quoted at the end of a message does not
/// read "?.".
pub fn sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '?', '!']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// A record's identifier where room is short (a table cell, a header that does not wrap).
/// An S3 or WebDAV record is named by its whole address, `…/records/KEY.json` (or
/// `KEY.folders.json` in the folders layout), whose one telling part is its key: it reads
/// `records/6741faaea150….json`, the key cut as the window cuts keys elsewhere. Other
/// identifiers (`sbx-000003`, a DOI, an InvenioRDM id) are short already and read as they
/// are. The whole identifier stays in hovers and *Copy identifier*.
pub fn short_identifier(identifier: &str) -> std::borrow::Cow<'_, str> {
    let name = identifier
        .strip_prefix("https://")
        .or_else(|| identifier.strip_prefix("http://"))
        .and_then(|rest| rest.rsplit_once("/records/"))
        .map(|(_, name)| name);
    let short = name.and_then(|name| {
        let (key, ending) = name.split_at_checked(64)?;
        let is_key = key.bytes().all(|b| b.is_ascii_hexdigit());
        (is_key && [".json", ".folders.json"].contains(&ending))
            .then(|| format!("records/{}…{ending}", &key[..12]))
    });
    match short {
        Some(short) => short.into(),
        None => identifier.into(),
    }
}

/// `text` with its first letter a capital: a clause that begins a sentence of its own.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `text` as one line of a listing: line breaks and other control characters written as
/// escapes (`\n`, `\t`, `\u{1b}`), so a stored value cannot break the listing's lines or
/// drive the terminal. Anything else is left as it is.
pub fn on_one_line(text: &str) -> std::borrow::Cow<'_, str> {
    controls_escaped(text, |_| false)
}

/// A path as one line of output, as [`on_one_line`] writes text: a folder named with a line
/// break reads `line\nbreak`, as `lodge status` lists its name.
pub fn path_on_one_line(path: &std::path::Path) -> String {
    on_one_line(&path.display().to_string()).into_owned()
}

/// `text` for a terminal: control characters written as escapes (`\u{1b}`), as
/// [`on_one_line`] writes them, but line breaks and tabs kept, so a message's own lines
/// stay lines while a folder named with an escape sequence cannot drive the terminal.
pub fn for_a_terminal(text: &str) -> std::borrow::Cow<'_, str> {
    controls_escaped(text, |c| c == '\n' || c == '\t')
}

/// A JSON document for a terminal: each control character but its own whitespace (line
/// breaks and tabs between values) written as JSON's `\u00XX` escape. Inside a string that
/// is the same JSON, and serde_json writes the whitespace of a string's own as escapes
/// already, so the document reads the same while a terminal is given nothing to act on.
pub fn json_for_a_terminal(text: &str) -> std::borrow::Cow<'_, str> {
    let escaped = |c: char| c.is_control() && !matches!(c, '\n' | '\t' | '\r');
    if !text.chars().any(escaped) {
        return text.into();
    }
    text.chars()
        .map(|c| match escaped(c) {
            true => format!("\\u{:04x}", c as u32),
            false => c.to_string(),
        })
        .collect::<String>()
        .into()
}

/// `text` with each control character but those `kept` written as its escape.
fn controls_escaped(text: &str, kept: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    let escaped = |c: char| c.is_control() && !kept(c);
    if !text.chars().any(escaped) {
        return text.into();
    }
    text.chars()
        .map(|c| match escaped(c) {
            true => c.escape_default().to_string(),
            false => c.to_string(),
        })
        .collect::<String>()
        .into()
}

/// 1536 -> "1.5 KiB".
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

/// A wait as a person reads it: "40 ms", "2.5 s", "10 min", "1 min 30 s", "2 h 5 min".
pub fn wait_text(wait: std::time::Duration) -> String {
    let ms = wait.as_millis();
    let secs = wait.as_secs();
    match secs {
        0 => format!("{ms} ms"),
        1..60 => format!("{:.1} s", wait.as_secs_f64()),
        60..3600 => match secs % 60 {
            0 => format!("{} min", secs / 60),
            s => format!("{} min {s} s", secs / 60),
        },
        _ => match (secs % 3600) / 60 {
            0 => format!("{} h", secs / 3600),
            m => format!("{} h {m} min", secs / 3600),
        },
    }
}

/// `1 file`, `2 files`.
pub fn count_of(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What made a dataset's key change, or its folder since the last scan, in words: "new
/// metadata, same files", or "files changed since the last scan: 1 file added, 2 files
/// modified" (with ", and new metadata").
pub fn document_changes(changes: &DocumentChanges) -> String {
    if !changes.files_changed() {
        return if changes.metadata {
            "new metadata, same files".to_string()
        } else {
            // The same files and metadata under another key: another encoding version.
            "changed since the last scan".to_string()
        };
    }
    let metadata = if changes.metadata {
        ", and new metadata"
    } else {
        ""
    };
    format!(
        "files changed since the last scan: {}{metadata}",
        file_changes(changes)
    )
}

/// The files' part of `changes`: "1 file added, 2 files modified".
pub fn file_changes(changes: &DocumentChanges) -> String {
    let counts: Vec<String> = [
        (changes.added, "added"),
        (changes.removed, "removed"),
        (changes.modified, "modified"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{} {what}", count_of(n as u64, "file", "files")))
    .collect();
    counts.join(", ")
}

/// Under a deposit, its replays: `replayed since: 2 times (jobs 5, 8), no request sent`.
/// `jobs` newest first, as they are listed.
pub fn replayed_since(jobs: &[i64]) -> String {
    let ids: Vec<String> = jobs.iter().rev().map(i64::to_string).collect();
    format!(
        "replayed since: {} ({} {}), no request sent",
        count_of(jobs.len() as u64, "time", "times"),
        if jobs.len() == 1 { "job" } else { "jobs" },
        ids.join(", ")
    )
}

/// Of `choices`, the one `typed` most likely meant, for a "did you mean ...?": the closest
/// by edit distance, ignoring case, if at least `at_least` alike (0 to 1). `None` when two
/// differ as little (`run` among `run1` … `run9`): naming one of them would be a guess.
pub fn closest<'a>(
    typed: &str,
    choices: impl IntoIterator<Item = &'a str>,
    at_least: f64,
) -> Option<&'a str> {
    let typed = typed.to_lowercase();
    let mut best: Option<(&str, f64)> = None;
    let mut tied = false;
    for c in choices {
        let alike = strsim::normalized_damerau_levenshtein(&typed, &c.to_lowercase());
        if alike < at_least {
            continue;
        }
        match best {
            Some((b, score)) if alike == score && !b.eq_ignore_ascii_case(c) => tied = true,
            Some((_, score)) if alike <= score => {}
            _ => {
                best = Some((c, alike));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(c, _)| c)
}

/// Why a dataset whose files are restricted or embargoed (`access`) is not kept so by
/// `target`, which keeps files but does not enforce who reads them (S3, WebDAV, the local
/// sandbox); `None` for open files, and for a target that enforces access or keeps no
/// files (DataCite, which records the access right in the DOI's metadata).
pub fn access_not_enforced(
    access: &crate::content::FileAccess,
    target: &dyn crate::targets::Target,
) -> Option<String> {
    (!access.is_open() && target.keeps_files() && !target.enforces_file_access()).then(|| {
        format!(
            "its files are to be {}, but {} does not enforce that: there they are as \
             readable as the store's own permissions make them (the record notes the access \
             chosen)",
            access.describe(),
            target.label()
        )
    })
}

/// What to know of a DOI that a citation file (`file`) gives: if it is the dataset's own,
/// the dataset was deposited before, and a deposit would be a second record with a second
/// DOI.
pub fn doi_cited(file: &str, doi: &str) -> String {
    format!(
        "{file} gives the DOI {doi}: if that is this dataset's own, it is deposited already, \
         and a deposit makes a second record with a DOI of its own (for new files, make a new \
         version of that record on its repository's page instead)"
    )
}

/// What the system said of a file or folder, in plain words: "no such file or folder",
/// "permission denied", "is a directory", without the Rust standard library's
/// "(os error 13)". An error Lodge itself made (no OS error number) reads as it was written.
/// The path is the caller's to name.
pub fn io_cause(error: &std::io::Error) -> String {
    let Some(code) = error.raw_os_error() else {
        return error.to_string();
    };
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let said = error.to_string();
            let said = said
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&said);
            let mut chars = said.chars();
            match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => said.to_string(),
            }
        }
    }
}

/// An error and its causes on one line, each cause once: many errors already end with their
/// cause's text (`cannot open X: {source}`), which would otherwise be said twice; others
/// (reqwest's, tokio-postgres's) keep the useful part in their causes alone.
pub fn with_causes(error: &(dyn Error + 'static)) -> String {
    let in_words = |e: &(dyn Error + 'static)| match e.downcast_ref::<std::io::Error>() {
        Some(io) => io_cause(io),
        None => e.to_string(),
    };
    let mut text = in_words(error);
    let mut next = error.source();
    while let Some(cause) = next {
        let said = in_words(cause);
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        next = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn a_did_you_mean_names_the_closest_choice_but_not_one_of_several_as_close() {
        assert_eq!(closest("lob", ["lab", "s3"], 0.6), Some("lab"));
        let runs: Vec<String> = (1..=9).map(|n| format!("run{n}")).collect();
        assert_eq!(closest("run", runs.iter().map(String::as_str), 0.7), None);
        assert_eq!(
            closest("run1", runs.iter().map(String::as_str), 0.7),
            Some("run1")
        );
        assert_eq!(closest("zzz", ["lab"], 0.6), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_error_reads_in_plain_words_without_the_os_error_number() {
        use std::io::{Error, ErrorKind};
        let os = |code| Error::from_raw_os_error(code);
        assert_eq!(super::io_cause(&os(libc::ENOENT)), "no such file or folder");
        assert_eq!(super::io_cause(&os(libc::EACCES)), "permission denied");
        let other = super::io_cause(&os(libc::EISDIR));
        assert!(!other.contains("os error"), "{other}");
        assert!(other.starts_with(char::is_lowercase), "{other}");
        // One Lodge wrote reads as written.
        let own = Error::new(ErrorKind::NotFound, "the record is gone");
        assert_eq!(super::io_cause(&own), "the record is gone");
        // In an error line, the cause is said so once, after what could not be done.
        let missing =
            anyhow::Error::new(os(libc::ENOENT)).context("cannot find the folder /data/x");
        assert_eq!(
            super::with_causes(missing.as_ref()),
            "cannot find the folder /data/x: no such file or folder"
        );
    }

    #[test]
    fn a_wait_reads_in_the_unit_a_person_would_use() {
        use std::time::Duration;
        let cases = [
            (Duration::from_millis(40), "40 ms"),
            (Duration::from_millis(2500), "2.5 s"),
            (Duration::from_secs(600), "10 min"),
            (Duration::from_secs(90), "1 min 30 s"),
            (Duration::from_secs(7500), "2 h 5 min"),
            (Duration::from_secs(3600), "1 h"),
        ];
        for (wait, said) in cases {
            assert_eq!(super::wait_text(wait), said);
        }
    }

    use super::*;

    #[test]
    fn a_record_named_by_its_address_reads_by_its_key_and_other_identifiers_as_they_are() {
        let key = "6741faaea150a5212625863b6fd4049bfaf47b994afed039adb6d8d95549bbd2";
        for address in [
            format!("http://127.0.0.1:9000/lab-data/deposits/records/{key}.json"),
            format!("https://dav.example.org/remote.php/dav/files/alice/lodge/records/{key}.json"),
        ] {
            assert_eq!(short_identifier(&address), "records/6741faaea150….json");
        }
        let in_folders = format!("http://127.0.0.1:9000/lab/records/{key}.folders.json");
        assert_eq!(
            short_identifier(&in_folders),
            "records/6741faaea150….folders.json"
        );
        for other in [
            "sbx-000003",
            "10.80000/xy68-wz53",
            "https://doi.org/10.80000/xy68-wz53",
            "https://example.org/records/not-a-key.json",
            "https://example.org/records/6741faaea150a5212625863b6fd4049bfaf47b994afed039adb6d8d95549bbd2.jsonx",
        ] {
            assert_eq!(short_identifier(other), other);
        }
    }

    #[test]
    fn a_value_on_one_line_shows_its_control_characters_as_escapes() {
        assert_eq!(on_one_line("Soil cores — été"), "Soil cores — été");
        assert_eq!(on_one_line("a\nb\tc\r\u{1b}[2J"), "a\\nb\\tc\\r\\u{1b}[2J");
    }

    #[test]
    fn a_changed_key_is_explained_by_what_changed() {
        let files = |added, removed, modified, metadata| DocumentChanges {
            added,
            removed,
            modified,
            metadata,
        };
        assert_eq!(
            document_changes(&files(0, 0, 0, true)),
            "new metadata, same files"
        );
        assert_eq!(
            document_changes(&files(1, 0, 2, false)),
            "files changed since the last scan: 1 file added, 2 files modified"
        );
        assert_eq!(
            document_changes(&files(0, 3, 0, true)),
            "files changed since the last scan: 3 files removed, and new metadata"
        );
    }

    #[test]
    fn replayed_since_names_the_jobs_oldest_first_in_words() {
        assert_eq!(
            replayed_since(&[8, 5]),
            "replayed since: 2 times (jobs 5, 8), no request sent"
        );
        assert_eq!(
            replayed_since(&[5]),
            "replayed since: 1 time (job 5), no request sent"
        );
    }

    #[test]
    fn sizes_read_like_a_person_writes_them() {
        assert_eq!(human_bytes(12), "12 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
    }

    #[test]
    fn a_count_of_one_is_singular() {
        assert_eq!(count_of(1u32, "file", "files"), "1 file");
        assert_eq!(count_of(0u32, "file", "files"), "0 files");
        assert_eq!(count_of(2u64, "job", "jobs"), "2 jobs");
    }
}
