//! Hashing scanned files: digests, the stat-keyed cache, progress and files that change.

use std::fs;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use lodge::content::{
    ContentError, FileStamp, HashCache, HashProgress, HashWatch, MemoryHashCache, Metadata,
    NoHashCache, Sha256Hex, hash_files, prepare_dataset, scan_folder,
};

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn no_progress(_: HashProgress) {}

/// A cache that counts what it is asked and told.
#[derive(Default)]
struct CountingCache {
    inner: MemoryHashCache,
    lookups: AtomicUsize,
    hits: AtomicUsize,
    remember_calls: AtomicUsize,
    remembered: AtomicUsize,
}

impl HashCache for CountingCache {
    fn lookup_many(&self, stamps: &[FileStamp]) -> Vec<Option<Sha256Hex>> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        let out = self.inner.lookup_many(stamps);
        self.hits
            .fetch_add(out.iter().filter(|d| d.is_some()).count(), Ordering::SeqCst);
        out
    }
    fn remember(&self, entries: &[(FileStamp, Sha256Hex)]) {
        self.remember_calls.fetch_add(1, Ordering::SeqCst);
        self.remembered.fetch_add(entries.len(), Ordering::SeqCst);
        self.inner.remember(entries);
    }
}

fn sample_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "small.txt", b"hello");
    write(dir.path(), "empty", b"");
    write(dir.path(), "big.bin", &vec![7u8; 3 * 1024 * 1024 + 17]);
    write(dir.path(), "sub/mid.bin", &vec![1u8; 300 * 1024]);
    dir
}

/// Asks to stop once it has been told of `after` bytes hashed; counts what it was told.
struct StopAfter {
    after: u64,
    seen: Mutex<Vec<HashProgress>>,
}

impl HashWatch for StopAfter {
    fn progress(&self, progress: HashProgress) {
        self.seen.lock().unwrap().push(progress);
    }
    fn cancelled(&self) -> bool {
        let seen = self.seen.lock().unwrap();
        seen.last().is_some_and(|p| p.bytes_done >= self.after)
    }
}

#[test]
fn a_watch_that_asks_to_stop_ends_hashing_within_a_mib_a_thread_and_nothing_is_cached() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..4 {
        write(
            dir.path(),
            &format!("part{n}.bin"),
            &vec![n as u8; 16 * 1024 * 1024],
        );
    }
    let report = scan_folder(dir.path()).unwrap();
    let cache = CountingCache::default();
    let watch = StopAfter {
        after: 1,
        seen: Mutex::new(Vec::new()),
    };
    let err = hash_files(&report, &cache, &watch).unwrap_err();
    assert!(matches!(err, ContentError::Cancelled), "{err}");
    assert_eq!(
        err.to_string(),
        "hashing was stopped before it ended: nothing of this scan was recorded"
    );
    let done = watch.seen.lock().unwrap().last().unwrap().bytes_done;
    let threads = rayon::current_num_threads() as u64;
    assert!(
        done <= (threads + 1) * 1024 * 1024,
        "{done} bytes hashed of 64 MiB before stopping, on {threads} threads"
    );
    assert_eq!(cache.remember_calls.load(Ordering::SeqCst), 0);

    // The same folder with a watch that never asks hashes to the end.
    let whole = hash_files(&report, &cache, &no_progress).unwrap();
    assert_eq!(whole.len(), 4);
}

#[test]
fn digests_are_sha256_of_contents_in_report_order() {
    let dir = sample_folder();
    let report = scan_folder(dir.path()).unwrap();
    let hashed = hash_files(&report, &NoHashCache, &no_progress).unwrap();
    assert_eq!(hashed.len(), report.files.len());
    for (h, f) in hashed.iter().zip(&report.files) {
        assert_eq!(h.file, *f);
        assert_eq!(h.sha256, Sha256Hex::of(&fs::read(&f.abs_path).unwrap()));
    }
}

#[test]
fn sha256_reader_streams_the_known_digest_and_counts_bytes() {
    let (digest, n) = lodge::content::sha256_reader(&b"abc"[..]).unwrap();
    assert_eq!(
        digest.to_hex(),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(n, 3);
    let big = vec![42u8; 1_000_003];
    assert_eq!(
        lodge::content::sha256_reader(&big[..]).unwrap(),
        (Sha256Hex::of(&big), 1_000_003)
    );
}

#[test]
fn progress_only_grows_and_reaches_the_totals() {
    let dir = sample_folder();
    let report = scan_folder(dir.path()).unwrap();
    let seen: Mutex<Vec<HashProgress>> = Mutex::default();
    hash_files(&report, &NoHashCache, &|p| seen.lock().unwrap().push(p)).unwrap();
    let seen = seen.into_inner().unwrap();
    let last = *seen.last().unwrap();
    assert_eq!(last.bytes_done, report.total_bytes);
    assert_eq!(last.bytes_total, report.total_bytes);
    assert_eq!(last.files_done, 4);
    assert_eq!(last.files_total, 4);
    assert!(
        seen.windows(2)
            .all(|w| w[0].bytes_done <= w[1].bytes_done && w[0].files_done <= w[1].files_done)
    );
    // The 3 MiB file reports along the way, not only when it is done.
    assert!(seen.len() >= 4 + 2, "{seen:?}");
}

#[test]
fn cache_is_looked_up_once_and_told_the_fresh_digests_once() {
    let dir = sample_folder();
    let report = scan_folder(dir.path()).unwrap();
    let cache = CountingCache::default();
    hash_files(&report, &cache, &no_progress).unwrap();
    assert_eq!(cache.lookups.load(Ordering::SeqCst), 1);
    assert_eq!(cache.hits.load(Ordering::SeqCst), 0);
    assert_eq!(cache.remember_calls.load(Ordering::SeqCst), 1);
    assert_eq!(cache.remembered.load(Ordering::SeqCst), 4);
}

/// Proof that a cached file is not read: its bytes are changed in place while its stamp
/// (size, mtime to the nanosecond, inode) is restored, and the old digest comes back.
#[test]
fn a_second_hash_with_a_warm_cache_reads_no_file() {
    let dir = sample_folder();
    let cache = CountingCache::default();
    let first = hash_files(&scan_folder(dir.path()).unwrap(), &cache, &no_progress).unwrap();

    let path = dir.path().join("small.txt");
    let mtime = fs::metadata(&path).unwrap().modified().unwrap();
    fs::write(&path, b"HELLO").unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();

    let report = scan_folder(dir.path()).unwrap();
    let seen: Mutex<Vec<HashProgress>> = Mutex::default();
    let second = hash_files(&report, &cache, &|p| seen.lock().unwrap().push(p)).unwrap();
    assert_eq!(cache.hits.load(Ordering::SeqCst), 4);
    assert_eq!(
        cache.remember_calls.load(Ordering::SeqCst),
        1,
        "nothing new to remember"
    );
    let digests = |v: &[lodge::content::HashedFile]| v.iter().map(|h| h.sha256).collect::<Vec<_>>();
    assert_eq!(digests(&first), digests(&second));
    assert_ne!(second[2].sha256, Sha256Hex::of(b"HELLO"));
    // Cached files count as done at once.
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].bytes_done, report.total_bytes);
    assert_eq!(seen[0].files_done, 4);
}

#[test]
fn a_touched_file_is_hashed_again() {
    let dir = sample_folder();
    let cache = CountingCache::default();
    hash_files(&scan_folder(dir.path()).unwrap(), &cache, &no_progress).unwrap();
    write(dir.path(), "small.txt", b"HELLO!");
    let hashed = hash_files(&scan_folder(dir.path()).unwrap(), &cache, &no_progress).unwrap();
    assert_eq!(cache.hits.load(Ordering::SeqCst), 3);
    assert_eq!(cache.remembered.load(Ordering::SeqCst), 5);
    assert_eq!(hashed[2].sha256, Sha256Hex::of(b"HELLO!"));
}

#[test]
fn a_file_changed_after_the_scan_is_an_error_asking_for_a_rescan() {
    let dir = sample_folder();
    let report = scan_folder(dir.path()).unwrap();
    write(dir.path(), "sub/mid.bin", b"shorter now");
    let err = hash_files(&report, &NoHashCache, &no_progress).unwrap_err();
    assert!(
        matches!(err, ContentError::ChangedWhileHashing { .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("sub/mid.bin") && text.contains("rescan"),
        "{text}"
    );
}

#[test]
fn a_file_removed_after_the_scan_is_an_error_naming_it() {
    let dir = sample_folder();
    let report = scan_folder(dir.path()).unwrap();
    fs::remove_file(dir.path().join("big.bin")).unwrap();
    let err = hash_files(&report, &NoHashCache, &no_progress).unwrap_err();
    assert!(
        matches!(err, ContentError::ChangedWhileHashing { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("big.bin"), "{err}");
}

/// Mode 000 only blocks reading for a user that is not root; as root the file stays readable
/// and there is nothing to check.
#[cfg(unix)]
#[test]
fn an_unreadable_file_is_an_error_naming_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = sample_folder();
    let locked = dir.path().join("sub/mid.bin");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::File::open(&locked).is_ok() {
        eprintln!(
            "note: SKIPPED an_unreadable_file_is_an_error_naming_it: running with privileges \
             (root?) that open a mode-000 file anyway"
        );
        return;
    }
    let err =
        prepare_dataset(dir.path(), &Metadata::default(), &NoHashCache, &no_progress).unwrap_err();
    assert!(matches!(err, ContentError::Unreadable { .. }), "{err:?}");
    assert!(err.to_string().contains("sub/mid.bin"), "{err}");
}

/// Asks to stop only once the hashing threads are done: as a Ctrl-C that comes while the
/// digests are cached and the document keyed, after the last file was read.
struct StopAfterHashing;

impl HashWatch for StopAfterHashing {
    fn progress(&self, _: HashProgress) {}
    fn cancelled(&self) -> bool {
        rayon::current_thread_index().is_none()
    }
}

#[test]
fn a_stop_asked_once_the_files_are_hashed_records_nothing_of_the_folder() {
    let dir = sample_folder();
    let db = tempfile::tempdir().unwrap();
    let store = lodge::store::Store::open(&db.path().join("lodge.db")).unwrap();
    let recorded =
        lodge::catalog::record_folder(&store, dir.path(), &Metadata::default(), &StopAfterHashing);
    match recorded {
        Err(lodge::catalog::CatalogError::Content(ContentError::Cancelled)) => {}
        Err(other) => panic!("expected a stop, got {other}"),
        Ok(_) => panic!("expected a stop, and the folder was recorded"),
    }
    assert!(store.datasets().unwrap().is_empty());
}
