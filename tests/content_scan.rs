//! Scanning a folder: what is in a dataset, under which names, and what is left out and why.

use std::fs;
use std::path::Path;

use lodge::content::{ContentError, SkipReason, scan_folder};

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn rel_paths(root: &Path) -> Vec<String> {
    scan_folder(root)
        .unwrap()
        .files
        .into_iter()
        .map(|f| f.rel_path)
        .collect()
}

fn skipped(root: &Path) -> Vec<(String, SkipReason)> {
    scan_folder(root)
        .unwrap()
        .skipped
        .into_iter()
        .map(|s| (s.rel_path, s.reason))
        .collect()
}

#[test]
fn files_are_listed_with_slash_separated_relative_paths_sorted_bytewise() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.csv", b"b");
    write(dir.path(), "a/z.txt", b"z");
    write(dir.path(), "a/B.txt", b"B");
    write(dir.path(), "a-b", b"-");
    assert_eq!(
        rel_paths(dir.path()),
        vec!["a-b", "a/B.txt", "a/z.txt", "b.csv"]
    );
}

#[test]
fn report_has_canonical_root_sizes_and_total_bytes() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x/one", b"1");
    write(dir.path(), "two", b"22");
    let report = scan_folder(&dir.path().join("x/..")).unwrap();
    assert_eq!(report.root, fs::canonicalize(dir.path()).unwrap());
    assert_eq!(report.total_bytes, 3);
    assert_eq!(report.files[0].rel_path, "two");
    assert_eq!(report.files[0].stamp.size, 2);
    assert_eq!(report.files[0].abs_path, report.root.join("two"));
}

#[test]
fn system_files_and_git_folders_are_skipped_as_system_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.csv", b"1,2");
    write(dir.path(), ".DS_Store", b"x");
    write(dir.path(), "sub/Thumbs.db", b"x");
    write(dir.path(), "sub/desktop.ini", b"x");
    write(dir.path(), ".git/HEAD", b"ref: refs/heads/main");
    write(dir.path(), ".hidden-but-data", b"kept");
    assert_eq!(rel_paths(dir.path()), vec![".hidden-but-data", "data.csv"]);
    assert_eq!(
        skipped(dir.path()),
        vec![
            (".DS_Store".into(), SkipReason::SystemFile),
            (".git".into(), SkipReason::SystemFile),
            ("sub".into(), SkipReason::NoFiles),
            ("sub/Thumbs.db".into(), SkipReason::SystemFile),
            ("sub/desktop.ini".into(), SkipReason::SystemFile),
        ]
    );
}

/// A repository keeps files, not folders: a folder with nothing of the dataset in it
/// (empty, or holding only what is left out) does not arrive, and the scan says so, of the
/// outermost such folder only.
#[test]
fn a_folder_with_no_files_to_deposit_is_listed_once_at_its_outermost() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "raw/site-a/cores.csv", b"1,2");
    write(dir.path(), "raw/cache/.DS_Store", b"x");
    fs::create_dir_all(dir.path().join("results/figures/draft")).unwrap();
    fs::create_dir_all(dir.path().join("raw/site-b")).unwrap();
    assert_eq!(rel_paths(dir.path()), vec!["raw/site-a/cores.csv"]);
    assert_eq!(
        skipped(dir.path()),
        vec![
            ("raw/cache".into(), SkipReason::NoFiles),
            ("raw/cache/.DS_Store".into(), SkipReason::SystemFile),
            ("raw/site-b".into(), SkipReason::NoFiles),
            ("results".into(), SkipReason::NoFiles),
        ]
    );
    let said = scan_folder(dir.path()).unwrap().skipped[0].clone();
    assert!(said.is_notable());
    assert!(
        said.why()
            .contains("repositories keep files, not empty folders")
    );
}

#[test]
fn lodgeignore_patterns_leave_files_out_and_are_listed_as_ignored() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".lodgeignore", b"*.tmp\nscratch/\n!keep.tmp\n");
    write(dir.path(), "data.csv", b"1");
    write(dir.path(), "run.tmp", b"t");
    write(dir.path(), "keep.tmp", b"k");
    write(dir.path(), "scratch/a", b"a");
    write(dir.path(), "scratch/b", b"b");
    write(dir.path(), "sub/.lodgeignore", b"notes.txt\n");
    write(dir.path(), "sub/notes.txt", b"n");
    write(dir.path(), "sub/result.csv", b"r");
    write(dir.path(), "other/notes.txt", b"n");
    assert_eq!(
        rel_paths(dir.path()),
        vec!["data.csv", "keep.tmp", "other/notes.txt", "sub/result.csv"]
    );
    assert_eq!(
        skipped(dir.path()),
        vec![
            (".lodgeignore".into(), SkipReason::Ignored),
            ("run.tmp".into(), SkipReason::Ignored),
            ("scratch".into(), SkipReason::Ignored),
            ("sub/.lodgeignore".into(), SkipReason::Ignored),
            ("sub/notes.txt".into(), SkipReason::Ignored),
        ]
    );
}

#[test]
fn gitignore_files_have_no_effect() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".gitignore", b"*.csv\n");
    write(dir.path(), "data.csv", b"1");
    assert_eq!(rel_paths(dir.path()), vec![".gitignore", "data.csv"]);
}

#[cfg(unix)]
#[test]
fn symlinks_are_listed_as_skipped_and_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret/big.bin", b"not part of the dataset");
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.csv", b"1");
    std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("linked-dir"))
        .unwrap();
    std::os::unix::fs::symlink(dir.path().join("data.csv"), dir.path().join("alias.csv")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/target", dir.path().join("dangling")).unwrap();
    assert_eq!(rel_paths(dir.path()), vec!["data.csv"]);
    assert_eq!(
        skipped(dir.path()),
        vec![
            ("alias.csv".into(), SkipReason::Symlink),
            ("dangling".into(), SkipReason::Symlink),
            ("linked-dir".into(), SkipReason::Symlink),
        ]
    );
}

#[cfg(unix)]
/// A backslash or a control character in a name would be refused at the deposit (a
/// repository reads `\\` as a separator, and nobody can type a newline): the scan refuses
/// it first, naming the file and the fix.
#[test]
fn a_name_with_a_backslash_or_a_control_character_is_an_error_naming_it() {
    // Named as it is, a control character written as an escape (`\n`), a backslash as
    // it is (not doubled).
    for (name, what, named) in [
        ("back\\slash.csv", "a backslash", "back\\slash.csv'"),
        (
            "line\nbreak.csv",
            "a control character",
            "line\\nbreak.csv'",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "ok.csv", b"1");
        write(dir.path(), name, b"x");
        let err = scan_folder(dir.path()).unwrap_err();
        assert!(matches!(err, ContentError::UnusableName { .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains(what) && text.contains("rename it"), "{text}");
        assert!(text.contains(&format!("/{named}")), "{text}");
    }
}

#[cfg(unix)]
/// Several names a deposit cannot carry are refused together, each named with why, in the
/// order of their paths: one rename, and one scan, for all of them, not one at a time.
#[test]
fn every_name_a_deposit_cannot_carry_is_named_at_once() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ok.csv", b"1");
    write(dir.path(), "b/back\\slash.csv", b"x");
    write(dir.path(), "a/line\nbreak.csv", b"y");
    write(dir.path(), "c/tab\there.csv", b"z");
    let err = scan_folder(dir.path()).unwrap_err();
    assert!(matches!(err, ContentError::UnusableNames { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.starts_with("3 files in ") && text.contains("rename each, then add the folder again"),
        "{text}"
    );
    let at = |part: &str| {
        text.find(part)
            .unwrap_or_else(|| panic!("{part} in {text}"))
    };
    assert!(at("line\\nbreak.csv") < at("back\\slash.csv"), "{text}");
    assert!(at("back\\slash.csv") < at("tab\\there.csv"), "{text}");
    assert_eq!(text.matches("rename it, then add").count(), 3, "{text}");
}

#[test]
fn a_name_that_is_not_utf8_is_an_error_naming_the_path() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ok.csv", b"1");
    let bad = dir
        .path()
        .join("sub")
        .join(OsStr::from_bytes(b"caf\xe9.csv"));
    fs::create_dir_all(bad.parent().unwrap()).unwrap();
    if let Err(e) = fs::write(&bad, b"x") {
        eprintln!("note: this filesystem refuses non-UTF-8 names ({e}); nothing to check");
        return;
    }
    let err = scan_folder(dir.path()).unwrap_err();
    assert!(matches!(err, ContentError::NonUtf8Name { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("sub/caf\u{FFFD}.csv"), "{text}");
    assert!(text.contains("rename"), "{text}");
}

#[test]
fn names_are_put_in_nfc() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "cafe\u{301}.csv", b"1"); // NFD: e + combining acute
    assert_eq!(rel_paths(dir.path()), vec!["caf\u{e9}.csv"]);
}

#[test]
fn names_equal_after_nfc_are_an_error_naming_both_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "caf\u{e9}.csv", b"1");
    write(dir.path(), "cafe\u{301}.csv", b"2");
    if fs::read_dir(dir.path()).unwrap().count() < 2 {
        eprintln!("note: this filesystem normalises names itself; nothing to check");
        return;
    }
    let err = scan_folder(dir.path()).unwrap_err();
    assert!(
        matches!(err, ContentError::NormalizationClash { ref rel_path, .. } if rel_path == "caf\u{e9}.csv"),
        "{err:?}"
    );
    assert!(err.to_string().contains("rename"), "{err}");
}

#[test]
fn a_folder_without_files_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("empty-sub")).unwrap();
    write(dir.path(), ".DS_Store", b"x");
    let err = scan_folder(dir.path()).unwrap_err();
    assert!(matches!(err, ContentError::EmptyFolder { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains(&*fs::canonicalize(dir.path()).unwrap().to_string_lossy())
    );
}

#[test]
fn a_file_or_missing_path_is_not_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "file.csv", b"1");
    for path in [dir.path().join("file.csv"), dir.path().join("missing")] {
        let err = scan_folder(&path).unwrap_err();
        assert!(matches!(err, ContentError::NotAFolder { .. }), "{err:?}");
        assert!(err.to_string().contains(&*path.to_string_lossy()), "{err}");
    }
}

#[test]
fn a_bad_lodgeignore_pattern_is_an_error_naming_the_ignore_file() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".lodgeignore", b"ok\n*.{csv,tsv\n");
    write(dir.path(), "data.csv", b"1");
    let err = scan_folder(dir.path()).unwrap_err();
    assert!(matches!(err, ContentError::BadIgnoreFile { .. }), "{err:?}");
    assert!(err.to_string().contains(".lodgeignore"), "{err}");
}

/// Mode 000 only blocks reading for a user that is not root; when the test runs as root the
/// folder stays readable and there is nothing to check.
#[cfg(unix)]
#[test]
fn an_unreadable_folder_is_an_error_naming_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.csv", b"1");
    write(dir.path(), "locked/inside.csv", b"2");
    let locked = dir.path().join("locked");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let readable_anyway = fs::read_dir(&locked).is_ok();
    let result = scan_folder(dir.path());
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    if readable_anyway {
        eprintln!(
            "note: SKIPPED an_unreadable_folder_is_an_error_naming_it: running with privileges \
             (root?) that read a mode-000 folder anyway"
        );
        return;
    }
    let err = result.unwrap_err();
    assert!(matches!(err, ContentError::Unreadable { .. }), "{err:?}");
    assert!(err.to_string().contains("locked"), "{err}");
}

#[test]
fn names_differing_only_in_case_are_named_and_others_are_not() {
    use lodge::content::case_collision_note;
    let note = case_collision_note(["Data.csv", "README", "data.csv", "raw/A.txt"]).unwrap();
    assert!(
        note.starts_with("Data.csv and data.csv differ only in case"),
        "{note}"
    );
    assert!(note.contains("rename one"), "{note}");
    assert_eq!(case_collision_note(["a.csv", "b.csv", "A/b.csv"]), None);
    let folders = case_collision_note(["Raw/x", "raw/x"]).unwrap();
    assert!(folders.starts_with("Raw/x and raw/x"), "{folders}");
}
