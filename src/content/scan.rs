//! Scanning a dataset folder: which files are in the dataset, under which relative names, and
//! what was left out and why.
//!
//! The walk costs one `stat` per file (the stamp used by the hash cache comes from it), so a
//! rescan of an unchanged folder is cheap. Symlinks are never followed, system files
//! (`.DS_Store`, `Thumbs.db`, `desktop.ini`, `.git`) are skipped, and gitignore-style patterns
//! in `.lodgeignore` files (in the folder and its subfolders) leave files out.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};
use unicode_normalization::{UnicodeNormalization, is_nfc};

use super::{ContentError, FileStamp};

/// Name of the ignore files that leave paths out of a dataset.
pub const IGNORE_FILE_NAME: &str = ".lodgeignore";

/// Names of files that operating systems and tools leave behind; never part of a dataset.
const SYSTEM_FILE_NAMES: &[&str] = &[".DS_Store", "Thumbs.db", "desktop.ini"];

/// A file that is part of the dataset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScannedFile {
    /// Path relative to the scanned folder, `/`-separated, Unicode NFC.
    pub rel_path: String,
    pub abs_path: PathBuf,
    pub stamp: FileStamp,
}

/// Why an entry of the folder is not part of the dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// A symbolic link; links are named in the report, never followed.
    Symlink,
    /// `.DS_Store`, `Thumbs.db`, `desktop.ini` or a `.git` folder (or `.git` file).
    SystemFile,
    /// Matched a pattern in a `.lodgeignore` file, or is a `.lodgeignore` file.
    Ignored,
    /// Neither a regular file, a folder nor a symlink (a FIFO, socket or device).
    NotARegularFile,
    /// The Lodge database in use (or its log or lock file), kept in the folder: it changes
    /// as Lodge works, and it is Lodge's, not the dataset's.
    LodgeDatabase,
    /// A folder with no file of the dataset in it (empty, or holding only what is left out):
    /// a deposit carries files, so the folder does not arrive. Only the outermost such
    /// folder is listed.
    NoFiles,
}

/// An entry of the folder left out of the dataset. An ignored folder is listed once, not
/// file by file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedEntry {
    /// Path relative to the scanned folder, `/`-separated; a name that is not UTF-8 is shown
    /// with U+FFFD (it is not deposited, so it does not have to be valid).
    pub rel_path: String,
    pub reason: SkipReason,
}

impl SkippedEntry {
    /// Why it was left out, in words ("a symbolic link, never followed: not deposited").
    pub fn why(&self) -> &'static str {
        match self.reason {
            SkipReason::Symlink => "a symbolic link, never followed: not deposited",
            SkipReason::SystemFile => "a system file",
            SkipReason::Ignored if self.is_ignore_file() => {
                "Lodge's ignore file, not part of the data"
            }
            SkipReason::Ignored => "matched by .lodgeignore",
            SkipReason::NotARegularFile => "not a regular file (a pipe, socket or device)",
            SkipReason::LodgeDatabase => "Lodge's own database, which changes as Lodge works",
            SkipReason::NoFiles => {
                "a folder with no files to deposit: repositories keep files, not \
                 empty folders"
            }
        }
    }

    /// Whether this is a `.lodgeignore` file itself.
    pub fn is_ignore_file(&self) -> bool {
        self.rel_path.rsplit('/').next() == Some(IGNORE_FILE_NAME)
    }

    /// Whether a person would want to hear of it: data that is not deposited (a link, a
    /// file a pattern matched, a pipe), not the system files and ignore files that never are.
    pub fn is_notable(&self) -> bool {
        match self.reason {
            SkipReason::SystemFile => false,
            SkipReason::Ignored => !self.is_ignore_file(),
            SkipReason::Symlink
            | SkipReason::NotARegularFile
            | SkipReason::LodgeDatabase
            | SkipReason::NoFiles => true,
        }
    }
}

/// The result of scanning a folder.
#[derive(Clone, Debug)]
pub struct ScanReport {
    /// The folder, canonical and absolute.
    pub root: PathBuf,
    /// The dataset's files, sorted by `rel_path` (byte order).
    pub files: Vec<ScannedFile>,
    /// What was left out, sorted by `rel_path`.
    pub skipped: Vec<SkippedEntry>,
    /// Sum of the sizes of `files`.
    pub total_bytes: u64,
}

fn is_system_name(name: &OsStr) -> bool {
    name.to_str()
        .is_some_and(|n| n == ".git" || SYSTEM_FILE_NAMES.iter().any(|s| s.eq_ignore_ascii_case(n)))
}

/// The relative path of a file that will be deposited: must be UTF-8; `/`-separated, NFC.
fn strict_rel_path(root: &Path, path: &Path) -> Result<String, ContentError> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let text = rel.to_str().ok_or_else(|| {
        // Named down to the first name that is not UTF-8: a folder's, if it is one.
        let mut named = root.to_path_buf();
        for part in rel.components() {
            named.push(part);
            if part.as_os_str().to_str().is_none() {
                break;
            }
        }
        ContentError::NonUtf8Name {
            path: named.to_string_lossy().into_owned(),
        }
    })?;
    let text = if std::path::MAIN_SEPARATOR == '/' {
        text
    } else {
        &text.replace(std::path::MAIN_SEPARATOR, "/")
    };
    // A manifest path is `/`-separated: a backslash in a name reads as a separator on
    // Windows and is refused by repositories; a control character (a newline, an escape)
    // cannot be shown or typed. Refused at the scan, not at the deposit.
    let what = if text.contains('\\') {
        Some("a backslash (\\)")
    } else if text.chars().any(char::is_control) {
        Some("a control character (a newline, a tab or an escape)")
    } else {
        None
    };
    if let Some(what) = what {
        return Err(ContentError::UnusableName {
            // Control characters as escapes (`\n`), a backslash as it is.
            path: crate::wording::on_one_line(&path.to_string_lossy()).into_owned(),
            what,
        });
    }
    Ok(if is_nfc(text) {
        text.to_owned()
    } else {
        text.nfc().collect()
    })
}

/// What to say of files whose paths differ only in case (`Data.csv`, `data.csv`), if any:
/// a server that ignores case in names keeps one file for both where it keeps files by
/// name, and the second one's conditional write is answered "already there". Not refused,
/// since most servers (S3, Linux shares) and every layout by digest keep both.
pub fn case_collision_note<'a>(paths: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let named = case_collisions(paths)?;
    Some(format!(
        "{named} differ only in case: a server that ignores case in names (a WebDAV share \
         on Windows or macOS, say) keeps one file for both where files are kept by name \
         (`?layout=folders`); rename one to deposit both there"
    ))
}

/// The pairs of `paths` that differ only in case, named (`Data.csv and data.csv`; the
/// first three, and how many more), if any.
pub fn case_collisions<'a>(paths: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut seen: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
    let mut pairs = Vec::new();
    for path in paths {
        if let Some(first) = seen.insert(path.to_lowercase(), path) {
            pairs.push(format!("{first} and {path}"));
        }
    }
    match pairs.len() {
        0 => None,
        1..=3 => Some(pairs.join("; ")),
        n => Some(format!("{} and {} more", pairs[..3].join("; "), n - 3)),
    }
}

/// Where the file a manifest calls `rel` (NFC, `/`-separated) is under `root` on disk.
/// Names are kept in the manifest in NFC, but a disk may hold them in another form (macOS
/// writes NFD, and such files arrive on Linux by copy or archive), so a part of the path
/// that is not there as written is found among its folder's entries by its NFC form; the
/// scan refused two names equal in NFC, so at most one matches. When nothing matches, the
/// plain join, so that the caller's error names the path it expected.
pub fn on_disk(root: &Path, rel: &str) -> PathBuf {
    let direct = root.join(rel);
    if rel.is_ascii() || direct.symlink_metadata().is_ok() {
        return direct;
    }
    let mut at = root.to_path_buf();
    for part in rel.split('/') {
        let next = at.join(part);
        if next.symlink_metadata().is_ok() {
            at = next;
            continue;
        }
        let found = std::fs::read_dir(&at).ok().and_then(|entries| {
            entries.flatten().find(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|name| name.nfc().eq(part.chars()))
            })
        });
        match found {
            Some(entry) => at = entry.path(),
            None => return direct,
        }
    }
    at
}

/// The relative path of a skipped entry, for display only.
fn lossy_rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let text = rel.to_string_lossy();
    let text = if std::path::MAIN_SEPARATOR == '/' {
        text.into_owned()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    };
    text.nfc().collect()
}

/// The path an `ignore` error is about (or `fallback`), and its I/O error.
fn walk_error(err: ignore::Error, fallback: &Path) -> ContentError {
    fn path_of(err: &ignore::Error) -> Option<&Path> {
        match err {
            ignore::Error::WithPath { path, .. } => Some(path),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                path_of(err)
            }
            ignore::Error::Partial(errs) => errs.iter().find_map(path_of),
            _ => None,
        }
    }
    let path = path_of(&err).unwrap_or(fallback).to_path_buf();
    let message = err.to_string();
    let source = err
        .into_io_error()
        .unwrap_or_else(|| io::Error::other(message));
    ContentError::Unreadable { path, source }
}

/// Whether the folder `root` can be listed: an error naming it (not one of its files) when
/// it cannot, so that a folder its user may not open is not taken for one with an
/// unreadable file or citation in it.
pub fn folder_opens(root: &Path) -> Result<(), ContentError> {
    match fs::read_dir(root) {
        Ok(_) => Ok(()),
        Err(source)
            if matches!(
                source.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Err(ContentError::NotAFolder {
                path: root.to_path_buf(),
            })
        }
        Err(source) => Err(ContentError::UnopenableFolder {
            path: root.to_path_buf(),
            source,
        }),
    }
}

/// Walk `root` and list the files of the dataset it holds.
///
/// Errors: `root` is not a folder; a file that would be deposited has a name that is not
/// UTF-8, or two names are equal once in NFC; a folder or file cannot be read; a
/// `.lodgeignore` has a bad pattern; nothing is left to deposit.
pub fn scan_folder(root: &Path) -> Result<ScanReport, ContentError> {
    scan_folder_leaving_out(root, &[])
}

/// [`scan_folder`], leaving out the files `lodge_files` names (canonical absolute paths):
/// the database of the store in use and its companions, should the folder hold them.
pub fn scan_folder_leaving_out(
    root: &Path,
    lodge_files: &[PathBuf],
) -> Result<ScanReport, ContentError> {
    let md = fs::metadata(root).map_err(|source| match source.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => ContentError::NotAFolder {
            path: root.to_path_buf(),
        },
        _ => ContentError::Unreadable {
            path: root.to_path_buf(),
            source,
        },
    })?;
    if !md.is_dir() {
        return Err(ContentError::NotAFolder {
            path: root.to_path_buf(),
        });
    }
    let root = fs::canonicalize(root).map_err(|source| ContentError::Unreadable {
        path: root.to_path_buf(),
        source,
    })?;
    folder_opens(&root)?;

    // `.git` folders are pruned by the walk's filter, which can only report them through
    // shared state.
    let pruned: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
    let walk = {
        let pruned = Arc::clone(&pruned);
        WalkBuilder::new(&root)
            .standard_filters(false)
            .hidden(false)
            .parents(false)
            .ignore(false)
            .git_ignore(false)
            .git_global(false)
            .git_exclude(false)
            .require_git(false)
            .follow_links(false)
            .add_custom_ignore_filename(IGNORE_FILE_NAME)
            .filter_entry(move |entry| {
                let is_git = entry.depth() > 0
                    && entry.file_name() == ".git"
                    && entry.file_type().is_some_and(|t| t.is_dir());
                if is_git {
                    pruned
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(entry.path().to_path_buf());
                }
                !is_git
            })
            .build_parallel()
    };

    // The walk runs on several threads (the stats dominate a rescan); each collects on its
    // own and merges into `shared` when it finishes.
    let shared = Mutex::new(Collected::default());
    walk.visit(&mut CollectorBuilder {
        root: &root,
        shared: &shared,
    });
    let Collected {
        mut files,
        mut skipped,
        dirs,
        saw_ignore_file,
        error,
        mut bad_names,
        mut unreadable,
    } = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some((_, error)) = error {
        return Err(error);
    }
    if !unreadable.is_empty() {
        // The files the walk could list may be unreadable too; hashing would meet them one
        // at a time, so they are named with the rest now.
        unreadable.extend(super::hash::unopenable(files.iter()));
    }
    if let Some(first) = unreadable.pop() {
        return Err(ContentError::unreadable_together(&root, first, unreadable));
    }
    // In the order of their paths, whichever thread met them; the files of one folder whose
    // own name is the trouble (not UTF-8) are that folder's one refusal.
    bad_names.sort_by(|a, b| a.0.cmp(&b.0));
    let mut said = std::collections::HashSet::new();
    bad_names.retain(|(_, e)| said.insert(e.to_string()));
    match bad_names.len() {
        0 => {}
        1 => return Err(bad_names.remove(0).1),
        _ => {
            return Err(ContentError::UnusableNames {
                root: root.clone(),
                each: bad_names.into_iter().map(|(_, e)| e.to_string()).collect(),
            });
        }
    }

    let pruned = std::mem::take(&mut *pruned.lock().unwrap_or_else(|e| e.into_inner()));
    skipped.extend(pruned.into_iter().map(|p| (p, SkipReason::SystemFile)));
    if saw_ignore_file {
        let ignored = ignored_entries(&dirs, &files, &skipped)?;
        skipped.extend(ignored.into_iter().map(|p| (p, SkipReason::Ignored)));
    }

    if !lodge_files.is_empty() {
        let (own, data): (Vec<ScannedFile>, Vec<ScannedFile>) = files
            .into_iter()
            .partition(|f| lodge_files.contains(&f.abs_path));
        files = data;
        skipped.extend(
            own.into_iter()
                .map(|f| (f.abs_path, SkipReason::LodgeDatabase)),
        );
    }
    skipped.extend(
        folders_without_files(&root, &dirs, &files)
            .into_iter()
            .map(|p| (p, SkipReason::NoFiles)),
    );
    files.sort_unstable_by(|a, b| a.rel_path.cmp(&b.rel_path));
    if let Some(pair) = files.windows(2).find(|w| w[0].rel_path == w[1].rel_path) {
        return Err(ContentError::NormalizationClash {
            rel_path: pair[0].rel_path.clone(),
            first: pair[0].abs_path.clone(),
            second: pair[1].abs_path.clone(),
        });
    }
    let mut skipped: Vec<SkippedEntry> = skipped
        .into_iter()
        .map(|(path, reason)| SkippedEntry {
            rel_path: lossy_rel_path(&root, &path),
            reason,
        })
        .collect();
    skipped.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));

    if files.is_empty() {
        return Err(ContentError::EmptyFolder { path: root });
    }
    let total_bytes = files.iter().map(|f| f.stamp.size).sum();
    Ok(ScanReport {
        root,
        files,
        skipped,
        total_bytes,
    })
}

/// The outermost folders under `root` (of `dirs`, the folders walked) with none of
/// `files` in them, at any depth.
fn folders_without_files(root: &Path, dirs: &[PathBuf], files: &[ScannedFile]) -> Vec<PathBuf> {
    // Each file marks its folder and the folders above it, up to one marked already.
    let mut holding: HashSet<&Path> = HashSet::with_capacity(dirs.len());
    for file in files {
        let mut at = file.abs_path.parent();
        while let Some(dir) = at {
            if !holding.insert(dir) || dir == root {
                break;
            }
            at = dir.parent();
        }
    }
    dirs.iter()
        .filter(|d| d.as_path() != root && !holding.contains(d.as_path()))
        .filter(|d| d.parent().is_none_or(|p| p == root || holding.contains(p)))
        .cloned()
        .collect()
}

/// What the walk found, per thread and then merged.
#[derive(Default)]
struct Collected {
    files: Vec<ScannedFile>,
    skipped: Vec<(PathBuf, SkipReason)>,
    dirs: Vec<PathBuf>,
    saw_ignore_file: bool,
    /// The error about the path that sorts first, so that the error reported does not depend
    /// on thread timing when a folder has several problems.
    error: Option<(PathBuf, ContentError)>,
    /// Every file whose name a deposit cannot carry, with why.
    bad_names: Vec<(PathBuf, ContentError)>,
    /// Every file or folder under the root that could not be read ([`ContentError::Unreadable`]):
    /// the walk goes on past them, so that all are named at once.
    unreadable: Vec<(PathBuf, ContentError)>,
}

impl Collected {
    fn fail(&mut self, path: PathBuf, error: ContentError) {
        if self.error.as_ref().is_none_or(|(p, _)| path < *p) {
            self.error = Some((path, error));
        }
    }

    fn merge(&mut self, other: Collected) {
        self.bad_names.extend(other.bad_names);
        self.unreadable.extend(other.unreadable);
        self.files.extend(other.files);
        self.skipped.extend(other.skipped);
        self.dirs.extend(other.dirs);
        self.saw_ignore_file |= other.saw_ignore_file;
        if let Some((path, error)) = other.error {
            self.fail(path, error);
        }
    }

    /// Sort one walk entry into files, skipped entries or folders.
    fn take(&mut self, root: &Path, item: Result<DirEntry, ignore::Error>) -> WalkState {
        let entry = match item {
            Ok(entry) => entry,
            Err(e) => {
                let error = walk_error(e, root);
                match &error {
                    // A folder or file below the root that cannot be read is noted and the
                    // walk goes on: every such entry is said at once, not one per scan.
                    ContentError::Unreadable { path, .. } if path.as_path() != root => {
                        self.unreadable.push((path.clone(), error));
                        return WalkState::Continue;
                    }
                    _ => self.fail(root.to_path_buf(), error),
                }
                return WalkState::Quit;
            }
        };
        if let Some(err) = entry.error() {
            // An ignore file in this folder could not be read or parsed.
            let path = entry.path().join(IGNORE_FILE_NAME);
            let message = err.to_string();
            self.fail(path.clone(), ContentError::BadIgnoreFile { path, message });
            return WalkState::Quit;
        }
        let Some(file_type) = entry.file_type() else {
            return WalkState::Continue;
        };
        if file_type.is_dir() {
            self.dirs.push(entry.into_path());
            return WalkState::Continue;
        }
        if entry.depth() == 0 {
            return WalkState::Continue;
        }
        let name = entry.file_name();
        let reason = if file_type.is_symlink() {
            Some(SkipReason::Symlink)
        } else if name == IGNORE_FILE_NAME {
            self.saw_ignore_file = true;
            Some(SkipReason::Ignored)
        } else if is_system_name(name) {
            Some(SkipReason::SystemFile)
        } else if !file_type.is_file() {
            Some(SkipReason::NotARegularFile)
        } else {
            None
        };
        if let Some(reason) = reason {
            self.skipped.push((entry.into_path(), reason));
            return WalkState::Continue;
        }
        // A name a deposit cannot carry is noted and the walk goes on: every such name is
        // said at once, not one rename, and scan, at a time.
        let rel_path = match strict_rel_path(root, entry.path()) {
            Ok(rel_path) => rel_path,
            Err(error) => {
                self.bad_names.push((entry.into_path(), error));
                return WalkState::Continue;
            }
        };
        let md = match entry.metadata() {
            Ok(md) => md,
            Err(e) => {
                let error = walk_error(e, entry.path());
                self.unreadable.push((entry.into_path(), error));
                return WalkState::Continue;
            }
        };
        let stamp = FileStamp::from_metadata(entry.into_path(), &md);
        self.files.push(ScannedFile {
            rel_path,
            abs_path: stamp.abs_path.clone(),
            stamp,
        });
        WalkState::Continue
    }
}

struct CollectorBuilder<'a> {
    root: &'a Path,
    shared: &'a Mutex<Collected>,
}

impl<'s> ParallelVisitorBuilder<'s> for CollectorBuilder<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Collector {
            root: self.root,
            shared: self.shared,
            local: Collected::default(),
        })
    }
}

/// One walking thread's collector; hands its findings over when the thread is done.
struct Collector<'a> {
    root: &'a Path,
    shared: &'a Mutex<Collected>,
    local: Collected,
}

impl ParallelVisitor for Collector<'_> {
    fn visit(&mut self, item: Result<DirEntry, ignore::Error>) -> WalkState {
        self.local.take(self.root, item)
    }
}

impl Drop for Collector<'_> {
    fn drop(&mut self) {
        let local = std::mem::take(&mut self.local);
        self.shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .merge(local);
    }
}

/// Entries that the walk left out because of `.lodgeignore` patterns: children of visited
/// folders that the walk did not yield. Costs one extra directory read per folder, and only
/// runs when the folder has a `.lodgeignore`.
fn ignored_entries(
    dirs: &[PathBuf],
    files: &[ScannedFile],
    skipped: &[(PathBuf, SkipReason)],
) -> Result<Vec<PathBuf>, ContentError> {
    let seen: HashSet<&Path> = dirs
        .iter()
        .map(PathBuf::as_path)
        .chain(files.iter().map(|f| f.abs_path.as_path()))
        .chain(skipped.iter().map(|(p, _)| p.as_path()))
        .collect();
    let mut out = Vec::new();
    for dir in dirs {
        let unreadable = |source| ContentError::Unreadable {
            path: dir.clone(),
            source,
        };
        for child in fs::read_dir(dir).map_err(unreadable)? {
            let path = child.map_err(unreadable)?.path();
            if !seen.contains(path.as_path()) {
                out.push(path);
            }
        }
    }
    Ok(out)
}
