//! Hashing the files of a scanned folder: streaming SHA-256, in parallel, biggest files first,
//! with a stat-keyed cache so that an unchanged file is never read twice.
//!
//! A file's digest is cached under its [`FileStamp`] (path, size, mtime, inode). The cache is
//! reached only through the [`HashCache`] trait, so the store can back it with SQLite while
//! tests and the GUI use [`MemoryHashCache`].

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use sha2::Digest;

use super::{ContentError, ScanReport, ScannedFile, Sha256Hex};

/// Size of the read buffer used when hashing a file.
pub const HASH_BUFFER_BYTES: usize = 256 * 1024;

/// Progress is reported at most once per this many bytes per worker (and once per file).
const PROGRESS_EVERY_BYTES: u64 = 1024 * 1024;

/// What identifies a file's content without reading it: if none of these changed, the file's
/// digest has not either.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileStamp {
    pub abs_path: PathBuf,
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Inode number on Unix, 0 elsewhere.
    pub file_id: u64,
}

impl FileStamp {
    /// Stamp of `path` with one `symlink_metadata` call (a symlink is stamped, not followed).
    pub fn of(path: &Path) -> io::Result<FileStamp> {
        let md = fs::symlink_metadata(path)?;
        Ok(FileStamp::from_metadata(path.to_path_buf(), &md))
    }

    /// Stamp from metadata already at hand (the scan gets it from the directory walk).
    pub fn from_metadata(abs_path: PathBuf, md: &fs::Metadata) -> FileStamp {
        let (mtime_ns, file_id) = stat_fields(md);
        FileStamp {
            abs_path,
            size: md.len(),
            mtime_ns,
            file_id,
        }
    }
}

#[cfg(unix)]
fn stat_fields(md: &fs::Metadata) -> (i64, u64) {
    use std::os::unix::fs::MetadataExt;
    let ns = md
        .mtime()
        .saturating_mul(1_000_000_000)
        .saturating_add(md.mtime_nsec());
    (ns, md.ino())
}

#[cfg(not(unix))]
fn stat_fields(md: &fs::Metadata) -> (i64, u64) {
    let ns = md
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    (ns, 0)
}

/// A store of file digests keyed by [`FileStamp`].
pub trait HashCache: Send + Sync {
    /// One result per stamp, in order; None = not cached. Called once per scan with all
    /// stamps (so a SQLite impl can use one transaction).
    fn lookup_many(&self, stamps: &[FileStamp]) -> Vec<Option<Sha256Hex>>;
    /// Remember freshly computed digests (called once per scan, batch).
    fn remember(&self, entries: &[(FileStamp, Sha256Hex)]);
}

/// A cache that never hits and forgets everything: every file is read.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHashCache;

impl HashCache for NoHashCache {
    fn lookup_many(&self, stamps: &[FileStamp]) -> Vec<Option<Sha256Hex>> {
        vec![None; stamps.len()]
    }
    fn remember(&self, _entries: &[(FileStamp, Sha256Hex)]) {}
}

/// An in-memory cache, for tests and for a long-running GUI.
#[derive(Debug, Default)]
pub struct MemoryHashCache(Mutex<HashMap<FileStamp, Sha256Hex>>);

impl MemoryHashCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of remembered digests.
    pub fn len(&self) -> usize {
        self.map().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<FileStamp, Sha256Hex>> {
        // A panic while holding the lock cannot leave the map half-updated.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl HashCache for MemoryHashCache {
    fn lookup_many(&self, stamps: &[FileStamp]) -> Vec<Option<Sha256Hex>> {
        let map = self.map();
        stamps.iter().map(|s| map.get(s).copied()).collect()
    }
    fn remember(&self, entries: &[(FileStamp, Sha256Hex)]) {
        let mut map = self.map();
        for (stamp, digest) in entries {
            map.insert(stamp.clone(), *digest);
        }
    }
}

/// How far hashing has got. `bytes_done` and `files_done` never decrease between calls.
#[derive(Clone, Copy, Debug, Default)]
pub struct HashProgress {
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub files_done: u64,
    pub files_total: u64,
}

/// Who watches a folder being hashed: told how far it has got, and asked between reads
/// whether to stop (a person who dropped the wrong folder, a terabyte on a network share).
/// Any `Fn(HashProgress)` is one that never asks to stop.
pub trait HashWatch: Sync {
    /// How far hashing has got; called from the hashing threads, one call at a time.
    fn progress(&self, progress: HashProgress);
    /// Whether to stop: hashing then ends with [`ContentError::Cancelled`] at its next
    /// read (within a MiB per thread).
    fn cancelled(&self) -> bool {
        false
    }
}

impl<F: Fn(HashProgress) + Sync> HashWatch for F {
    fn progress(&self, progress: HashProgress) {
        self(progress)
    }
}

/// A scanned file with its content digest.
#[derive(Clone, Debug)]
pub struct HashedFile {
    pub file: ScannedFile,
    pub sha256: Sha256Hex,
}

/// SHA-256 of everything `r` yields, read through a fixed 256 KiB buffer; also returns the
/// number of bytes read.
pub fn sha256_reader(r: impl Read) -> io::Result<(Sha256Hex, u64)> {
    let mut buf = vec![0u8; HASH_BUFFER_BYTES];
    let streamed = sha256_stream(r, &mut buf, &mut |_| ControlFlow::Continue(()))?;
    Ok(streamed.expect("never stopped"))
}

/// SHA-256 of everything `r` yields, and its length; `on_bytes` is told of each read and
/// may stop the stream (`None`).
fn sha256_stream(
    mut r: impl Read,
    buf: &mut [u8],
    on_bytes: &mut dyn FnMut(u64) -> ControlFlow<()>,
) -> io::Result<Option<(Sha256Hex, u64)>> {
    let mut hasher = sha2::Sha256::new();
    let mut total = 0u64;
    loop {
        let n = match r.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        total += n as u64;
        if on_bytes(n as u64).is_break() {
            return Ok(None);
        }
    }
    Ok(Some((Sha256Hex(hasher.finalize().into()), total)))
}

/// Progress shared by the hashing workers; the watch is told under the lock so that the
/// figures it sees only grow.
struct ProgressSink<'a> {
    state: Mutex<HashProgress>,
    watch: &'a dyn HashWatch,
}

impl ProgressSink<'_> {
    fn add(&self, bytes: u64, files: u64) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.bytes_done += bytes;
        state.files_done += files;
        self.watch.progress(*state);
    }
}

fn changed(file: &ScannedFile) -> ContentError {
    ContentError::ChangedWhileHashing {
        path: file.abs_path.clone(),
    }
}

fn io_error(file: &ScannedFile, source: io::Error) -> ContentError {
    if source.kind() == io::ErrorKind::NotFound {
        changed(file)
    } else {
        ContentError::Unreadable {
            path: file.abs_path.clone(),
            source,
        }
    }
}

/// Those of `files` that cannot be opened for reading (their permissions, say), each with
/// its path and [`ContentError::Unreadable`]: opening is enough to know, without reading.
/// One gone since its scan is not among them (that is a change, said when it is met).
pub(super) fn unopenable<'a>(
    files: impl Iterator<Item = &'a ScannedFile>,
) -> Vec<(PathBuf, ContentError)> {
    files
        .filter_map(|file| {
            let source = File::open(&file.abs_path).err()?;
            Some((file.abs_path.clone(), io_error(file, source)))
        })
        .filter(|(_, e)| matches!(e, ContentError::Unreadable { .. }))
        .collect()
}

/// Hash one file and check that it still matches the stamp taken when it was scanned.
fn hash_one(
    file: &ScannedFile,
    buf: &mut [u8],
    progress: &ProgressSink<'_>,
) -> Result<Sha256Hex, ContentError> {
    let reader = File::open(&file.abs_path).map_err(|e| io_error(file, e))?;
    let mut unreported = 0u64;
    let streamed = sha256_stream(reader, buf, &mut |n| {
        unreported += n;
        if unreported >= PROGRESS_EVERY_BYTES {
            progress.add(unreported, 0);
            unreported = 0;
            if progress.watch.cancelled() {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })
    .map_err(|e| io_error(file, e))?;
    let Some((digest, read)) = streamed else {
        return Err(ContentError::Cancelled);
    };
    let after = FileStamp::of(&file.abs_path).map_err(|e| io_error(file, e))?;
    let stamp = &file.stamp;
    if read != stamp.size
        || after.size != stamp.size
        || after.mtime_ns != stamp.mtime_ns
        || after.file_id != stamp.file_id
    {
        return Err(changed(file));
    }
    progress.add(unreported, 1);
    Ok(digest)
}

/// SHA-256 of every file in `report`, in the order of `report.files`.
///
/// Looks all stamps up in `cache` first (one call); cached files count as done without being
/// read. The rest are hashed in parallel on the rayon pool, biggest first, and the new
/// digests are given to `cache.remember` in one call. A file whose size or mtime differs
/// after hashing from when it was scanned is [`ContentError::ChangedWhileHashing`].
/// `progress` is called from the hashing threads, about once per MiB and once per file, one
/// call at a time (under a lock, so that its figures only grow): keep it cheap.
pub fn hash_files(
    report: &ScanReport,
    cache: &dyn HashCache,
    progress: &dyn HashWatch,
) -> Result<Vec<HashedFile>, ContentError> {
    let files = &report.files;
    let stamps: Vec<FileStamp> = files.iter().map(|f| f.stamp.clone()).collect();
    let mut cached = cache.lookup_many(&stamps);
    drop(stamps);
    cached.resize(files.len(), None);

    let mut todo: Vec<usize> = (0..files.len()).filter(|&i| cached[i].is_none()).collect();
    // Biggest first: a huge file started last would leave the other cores idle.
    todo.sort_by(|&a, &b| {
        files[b]
            .stamp
            .size
            .cmp(&files[a].stamp.size)
            .then(a.cmp(&b))
    });

    let cached_files = (files.len() - todo.len()) as u64;
    let cached_bytes: u64 = files
        .iter()
        .zip(&cached)
        .filter(|(_, c)| c.is_some())
        .map(|(f, _)| f.stamp.size)
        .sum();
    let sink = ProgressSink {
        state: Mutex::new(HashProgress {
            bytes_done: 0,
            bytes_total: files.iter().map(|f| f.stamp.size).sum(),
            files_done: 0,
            files_total: files.len() as u64,
        }),
        watch: progress,
    };
    sink.add(cached_bytes, cached_files);

    if !todo.is_empty() {
        let fresh: Vec<OnceLock<Sha256Hex>> = (0..todo.len()).map(|_| OnceLock::new()).collect();
        // The failure of the file earliest in `report.files`, so the error is deterministic.
        let failure: Mutex<Option<(usize, ContentError)>> = Mutex::new(None);
        let stop = AtomicBool::new(false);
        let next = AtomicUsize::new(0);
        let workers = rayon::current_num_threads().clamp(1, todo.len());
        rayon::scope(|s| {
            for _ in 0..workers {
                s.spawn(|_| {
                    let mut buf = vec![0u8; HASH_BUFFER_BYTES];
                    while !stop.load(Ordering::Relaxed) {
                        if sink.watch.cancelled() {
                            stop.store(true, Ordering::Relaxed);
                            let mut f = failure.lock().unwrap_or_else(|e| e.into_inner());
                            f.get_or_insert((usize::MAX, ContentError::Cancelled));
                            break;
                        }
                        let slot = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&index) = todo.get(slot) else { break };
                        match hash_one(&files[index], &mut buf, &sink) {
                            Ok(digest) => {
                                let _ = fresh[slot].set(digest);
                            }
                            Err(e) => {
                                stop.store(true, Ordering::Relaxed);
                                let mut f = failure.lock().unwrap_or_else(|e| e.into_inner());
                                if f.as_ref().is_none_or(|(i, _)| index < *i) {
                                    *f = Some((index, e));
                                }
                            }
                        }
                    }
                });
            }
        });
        if let Some((index, e)) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
            let ContentError::Unreadable { .. } = e else {
                return Err(e);
            };
            // The other files not hashed yet may be unreadable too: name every one now, not
            // one per scan. Opening each is enough to know.
            let first = (files[index].abs_path.clone(), e);
            let not_hashed = (todo.iter().enumerate())
                .filter(|&(slot, &other)| other != index && fresh[slot].get().is_none())
                .map(|(_, &other)| &files[other]);
            let more = unopenable(not_hashed);
            return Err(ContentError::unreadable_together(&report.root, first, more));
        }
        let mut remembered = Vec::with_capacity(todo.len());
        for (slot, &index) in todo.iter().enumerate() {
            let digest = *fresh[slot].get().ok_or_else(|| changed(&files[index]))?;
            cached[index] = Some(digest);
            remembered.push((files[index].stamp.clone(), digest));
        }
        cache.remember(&remembered);
    }

    files
        .iter()
        .zip(cached)
        .map(|(file, digest)| {
            Ok(HashedFile {
                file: file.clone(),
                sha256: digest.ok_or_else(|| changed(file))?,
            })
        })
        .collect()
}
