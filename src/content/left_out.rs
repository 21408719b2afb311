//! Whether a `.lodgeignore` leaves out a file the scan took in: a pattern added (or a
//! `.lodgeignore` made) since the scan. The file itself is unchanged, so the checks of size,
//! time and bytes before a deposit pass, and the deposit would send a file the person has
//! since said to leave out (a private note, a draft). Found, it is refused as the folder
//! changed since its scan: a rescan leaves the file out, under a new key.
//!
//! The patterns are read as the scan's walk reads them ([`super::scan_folder`]): each
//! folder's `.lodgeignore` applies below it, a deeper one's match (or `!` exception) wins
//! over its parents', and a folder left out leaves out everything in it.

use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::{IGNORE_FILE_NAME, on_disk};

/// The first of `rel_paths` (relative to `root`, `/`-separated, as a manifest names them)
/// that a `.lodgeignore` in `root` now leaves out, with that `.lodgeignore`'s path. One
/// `stat` per folder the files are in when there is no `.lodgeignore`.
pub fn left_out_since_scan<'a>(
    root: &Path,
    rel_paths: impl IntoIterator<Item = &'a str>,
) -> Option<(&'a str, PathBuf)> {
    let rel_paths: Vec<&str> = rel_paths.into_iter().collect();
    // Every folder a file is in, and each of its parents, the dataset's folder too ("").
    let mut folders = std::collections::BTreeSet::from([""]);
    for rel in &rel_paths {
        let mut at = 0;
        while let Some(slash) = rel[at..].find('/') {
            at += slash + 1;
            folders.insert(&rel[..at - 1]);
        }
    }
    // Parents first: a BTreeSet orders "a" before "a/b".
    let rules: Vec<(PathBuf, Gitignore)> = folders
        .into_iter()
        .filter_map(|folder| {
            let dir = if folder.is_empty() {
                root.to_path_buf()
            } else {
                on_disk(root, folder)
            };
            let file = dir.join(IGNORE_FILE_NAME);
            if !file.is_file() {
                return None;
            }
            let mut builder = GitignoreBuilder::new(&dir);
            // A pattern the scan could not read stops the scan itself; here it is only
            // left unused (the rescan the refusal asks for names it).
            let _ = builder.add(&file);
            builder.build().ok().map(|rules| (dir, rules))
        })
        .collect();
    if rules.is_empty() {
        return None;
    }
    rel_paths.into_iter().find_map(|rel| {
        let path = on_disk(root, rel);
        // The folders it is in, outermost first, then the file itself.
        let mut steps: Vec<(PathBuf, bool)> = path
            .ancestors()
            .skip(1)
            .take_while(|p| p.starts_with(root) && *p != root)
            .map(|p| (p.to_path_buf(), true))
            .collect();
        steps.reverse();
        steps.push((path, false));
        steps
            .iter()
            .find_map(|(step, is_dir)| left_out_by(&rules, step, *is_dir))
            .map(|file| (rel, file))
    })
}

/// The `.lodgeignore` that leaves `path` out, if one does: the deepest rules above it that
/// match it decide, an exception (`!pattern`) keeping it in.
fn left_out_by(rules: &[(PathBuf, Gitignore)], path: &Path, is_dir: bool) -> Option<PathBuf> {
    for (dir, folder_rules) in rules.iter().rev() {
        if !path.starts_with(dir) || path == dir {
            continue;
        }
        match folder_rules.matched(path, is_dir) {
            Match::Ignore(_) => return Some(dir.join(IGNORE_FILE_NAME)),
            Match::Whitelist(_) => return None,
            Match::None => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    const SCANNED: [&str; 4] = ["data.csv", "notes/secret.txt", "notes/plan.md", "raw/a.bin"];

    fn left_out(dir: &tempfile::TempDir) -> Option<(String, PathBuf)> {
        left_out_since_scan(dir.path(), SCANNED).map(|(rel, file)| (rel.to_string(), file))
    }

    #[test]
    fn with_no_lodgeignore_nothing_is_left_out() {
        let dir = folder(&[("data.csv", "1"), ("notes/secret.txt", "s")]);
        assert_eq!(left_out(&dir), None);
    }

    #[test]
    fn a_pattern_added_since_the_scan_leaves_out_the_file_it_matches() {
        let dir = folder(&[(".lodgeignore", "secret.txt\n")]);
        let (rel, file) = left_out(&dir).unwrap();
        assert_eq!(rel, "notes/secret.txt");
        assert_eq!(file, dir.path().join(".lodgeignore"));
    }

    #[test]
    fn a_folder_left_out_leaves_out_what_is_in_it_and_a_deeper_exception_keeps_a_file() {
        let dir = folder(&[(".lodgeignore", "raw/\n")]);
        assert_eq!(left_out(&dir).unwrap().0, "raw/a.bin");
        let dir = folder(&[
            (".lodgeignore", "*.txt\n*.md\n"),
            ("notes/.lodgeignore", "!secret.txt\n"),
        ]);
        assert_eq!(left_out(&dir).unwrap().0, "notes/plan.md");
    }

    #[test]
    fn a_subfolders_lodgeignore_applies_below_it_only() {
        let dir = folder(&[("notes/.lodgeignore", "*.csv\nplan.md\n")]);
        let (rel, file) = left_out(&dir).unwrap();
        assert_eq!(rel, "notes/plan.md", "data.csv is above it");
        assert_eq!(file, dir.path().join("notes/.lodgeignore"));
    }
}
