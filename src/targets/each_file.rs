//! The files of one deposit, sent (or read back) a few at a time.
//!
//! A dataset of many small files — images, a time series split by day — would otherwise
//! cost one round trip per file, one after another: 20,000 files behind a 30 ms link are ten
//! minutes of waiting before a byte of the next file leaves. The targets that keep each
//! file apart (the sandbox, S3, WebDAV) send a few of a deposit's files at once
//! ([`FilesAtOnce`], four unless a named target's `files_at_once` says otherwise), as
//! rclone's `--transfers` does. InvenioRDM keeps sending one at a time: each of its files
//! takes three requests against a draft, under a rate limit of 100 a minute.
//!
//! Every file is still its own conditional write, so the order they land in changes
//! nothing the server keeps: the record, written last, is what makes a deposit.

use std::collections::HashSet;
use std::future::Future;
use std::sync::Mutex;

use futures_util::stream::{FuturesOrdered, FuturesUnordered, StreamExt};

use super::{Failure, ProgressSink};
use crate::content::{ManifestEntry, Sha256Hex};

/// How many of one deposit's files are in flight at once. The engine runs several deposits
/// at a time too (`--concurrency`, 8 by default), so with the default four a server sees up
/// to 32 uploads from one Lodge. A server that takes one upload at a time from a user (some
/// institutional WebDAV stores do, and answer more with 429 or 503) is better asked with 1;
/// a distant S3 store, where each small file is mostly a round trip, goes faster with more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilesAtOnce(usize);

impl FilesAtOnce {
    /// Four, as rclone's `--transfers`.
    pub const DEFAULT: FilesAtOnce = FilesAtOnce(4);
    /// The most a target may be set to: beyond it a deposit's files only queue at the server
    /// (times `--concurrency` deposits), where they meet its rate limit.
    pub const MOST: usize = 32;

    /// `n` files at once, from 1 to [`FilesAtOnce::MOST`].
    pub fn new(n: usize) -> Result<FilesAtOnce, String> {
        if (1..=Self::MOST).contains(&n) {
            Ok(FilesAtOnce(n))
        } else {
            Err(format!(
                "is {n}: give 1 (one file after another) to {}, or leave it out for the \
                 default {}",
                Self::MOST,
                Self::DEFAULT.0
            ))
        }
    }

    pub fn get(self) -> usize {
        self.0
    }
}

impl Default for FilesAtOnce {
    fn default() -> Self {
        FilesAtOnce::DEFAULT
    }
}

/// The files of one deposit its target is known to hold: those an earlier attempt of the
/// same job sent and the server took.
///
/// Why: a file under a megabyte is sent again on every attempt (asking whether the server
/// has it costs a round trip too), and an attempt starts no file after one fails. So a
/// dataset of a few hundred files, sent to a server that answers one request in fifty with
/// 503, needed every file to go through in one attempt, and attempt after attempt ended
/// before the last. With this, each attempt sends only what is still to send, and gets
/// further than the one before.
///
/// The engine keeps it in memory between the attempts of one job in this process, for
/// minutes at most, so a file it names is still on the server when the record is written
/// (and `lodge verify` would find one that was not). Files are named by their place in the
/// manifest, which every attempt of a job shares: its key is the manifest's.
#[derive(Debug, Default)]
pub struct FilesStored(Mutex<HashSet<usize>>);

impl FilesStored {
    /// Whether the manifest's `n`th file is known to be on the server.
    fn has(&self, n: usize) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&n)
    }

    /// The manifest's `n`th file went through.
    fn note(&self, n: usize) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(n);
    }

    /// How many files it names.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether it names none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Run `send` for each file of `manifest`, at most `at_once` at a time. With
/// `share_identical` (a layout that keeps files by digest) identical files are one upload:
/// each after the first counts as sent on `progress` and is not given to `send`. A file
/// `stored` names (an earlier attempt of the job sent it) counts as sent and is not given
/// to `send` either; each file that goes through is noted there.
///
/// The first file goes alone: a server that refuses the deposit (credentials, a missing
/// bucket, a full disk) says so once, not once for each file let out together. After a
/// failure no further file starts; the uploads already on their way finish (a file cut off
/// half-way would be one more thing for the next attempt to find and mend), and the first
/// failure is returned.
pub async fn send_each_file<'a, F, Fut>(
    manifest: &'a [ManifestEntry],
    share_identical: bool,
    at_once: FilesAtOnce,
    stored: &FilesStored,
    progress: &ProgressSink,
    mut send: F,
) -> Result<(), Failure>
where
    F: FnMut(&'a ManifestEntry) -> Fut,
    Fut: Future<Output = Result<(), Failure>>,
{
    let mut seen: HashSet<Sha256Hex> = HashSet::new();
    let mut to_send = manifest.iter().enumerate().filter(|(n, entry)| {
        let first_of_its_bytes = !share_identical || seen.insert(entry.sha256);
        let to_send = first_of_its_bytes && !stored.has(*n);
        if !to_send {
            progress(entry.size);
        }
        to_send
    });
    let mut in_flight = FuturesUnordered::new();
    let (mut first_failure, mut one_landed) = (None, false);
    loop {
        let room = if one_landed { at_once.get() } else { 1 };
        while first_failure.is_none() && in_flight.len() < room {
            match to_send.next() {
                Some((n, entry)) => {
                    let sent = send(entry);
                    in_flight.push(async move { (n, sent.await) });
                }
                None => break,
            }
        }
        match in_flight.next().await {
            Some((n, Ok(()))) => {
                stored.note(n);
                one_landed = true;
            }
            Some((n, Err(failure))) => {
                first_failure.get_or_insert(failure.naming_file(&manifest[n].path));
            }
            None => break,
        }
    }
    first_failure.map_or(Ok(()), Err)
}

/// `read` for each entry, at most `at_once` at a time, the answers in the entries' order.
/// The first failure ends the reading (nothing is written, so nothing is left half done by
/// the reads dropped with it).
pub async fn read_each_file<'a, T, F, Fut>(
    entries: impl IntoIterator<Item = &'a ManifestEntry>,
    at_once: FilesAtOnce,
    mut read: F,
) -> Result<Vec<T>, Failure>
where
    F: FnMut(&'a ManifestEntry) -> Fut,
    Fut: Future<Output = Result<T, Failure>>,
{
    // A loop rather than `stream::iter(..).map(read).buffered(..)`: the closure inside that
    // stream's type keeps the future from being `Send` for every lifetime, as
    // `#[async_trait]` asks.
    let mut entries = entries.into_iter();
    let mut in_flight = FuturesOrdered::new();
    let mut answers = Vec::new();
    loop {
        while in_flight.len() < at_once.get() {
            match entries.next() {
                Some(entry) => in_flight.push_back(read(entry)),
                None => break,
            }
        }
        match in_flight.next().await {
            Some(answer) => answers.push(answer?),
            None => return Ok(answers),
        }
    }
}

/// The first entry of each digest, in the manifest's order: the files a layout that keeps
/// files by digest holds one blob for.
pub fn one_entry_per_digest(manifest: &[ManifestEntry]) -> Vec<&ManifestEntry> {
    let mut seen = HashSet::with_capacity(manifest.len());
    manifest.iter().filter(|e| seen.insert(e.sha256)).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    use super::*;

    fn entry(path: &str, bytes: &[u8]) -> ManifestEntry {
        ManifestEntry {
            path: path.to_string(),
            size: bytes.len() as u64,
            sha256: Sha256Hex::of(bytes),
        }
    }

    fn files(n: usize) -> Vec<ManifestEntry> {
        (0..n)
            .map(|i| entry(&format!("f{i:02}.dat"), format!("bytes {i}").as_bytes()))
            .collect()
    }

    fn counting_progress() -> (ProgressSink, Arc<AtomicU64>) {
        let counted = Arc::new(AtomicU64::new(0));
        let c = counted.clone();
        (
            Arc::new(move |n| {
                c.fetch_add(n, Ordering::Relaxed);
            }),
            counted,
        )
    }

    /// Which files were started and finished, the most in flight at once, and how many had
    /// finished when each started.
    #[derive(Default)]
    struct Tally {
        in_flight: usize,
        peak: usize,
        started: Vec<String>,
        finished: Vec<String>,
        finished_at_start: Vec<usize>,
    }

    async fn upload(
        tally: &Mutex<Tally>,
        entry: &ManifestEntry,
        fails: bool,
    ) -> Result<(), Failure> {
        {
            let mut t = tally.lock().unwrap();
            t.in_flight += 1;
            t.peak = t.peak.max(t.in_flight);
            t.started.push(entry.path.clone());
            let done = t.finished.len();
            t.finished_at_start.push(done);
        }
        if fails {
            tally.lock().unwrap().in_flight -= 1;
            return Err(Failure::Ambiguous {
                status: Some(503),
                message: format!("{} was refused", entry.path),
            });
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        let mut t = tally.lock().unwrap();
        t.in_flight -= 1;
        t.finished.push(entry.path.clone());
        Ok(())
    }

    #[tokio::test]
    async fn after_the_first_file_a_deposits_files_are_sent_four_at_a_time_and_each_once() {
        let manifest = files(10);
        let tally = Mutex::new(Tally::default());
        let (progress, _) = counting_progress();
        send_each_file(
            &manifest,
            false,
            FilesAtOnce::DEFAULT,
            &FilesStored::default(),
            &progress,
            |e| upload(&tally, e, false),
        )
        .await
        .unwrap();
        let t = tally.into_inner().unwrap();
        assert_eq!(t.peak, 4);
        assert_eq!(
            t.finished_at_start[..2],
            [0, 1],
            "the first file went alone, the others once it had landed"
        );
        let mut finished = t.finished.clone();
        finished.sort();
        let all: Vec<String> = manifest.iter().map(|e| e.path.clone()).collect();
        assert_eq!(finished, all, "every file sent, none twice");
    }

    #[tokio::test]
    async fn a_target_set_to_one_file_at_a_time_sends_them_one_after_another() {
        let manifest = files(6);
        let tally = Mutex::new(Tally::default());
        let (progress, _) = counting_progress();
        let one = FilesAtOnce::new(1).unwrap();
        send_each_file(
            &manifest,
            false,
            one,
            &FilesStored::default(),
            &progress,
            |e| upload(&tally, e, false),
        )
        .await
        .unwrap();
        let t = tally.into_inner().unwrap();
        assert_eq!(t.peak, 1);
        assert_eq!(
            t.finished_at_start,
            [0, 1, 2, 3, 4, 5],
            "each after the last"
        );
    }

    #[tokio::test]
    async fn a_target_set_to_more_files_at_once_sends_that_many_after_the_first() {
        let manifest = files(20);
        let tally = Mutex::new(Tally::default());
        let (progress, _) = counting_progress();
        let nine = FilesAtOnce::new(9).unwrap();
        send_each_file(
            &manifest,
            false,
            nine,
            &FilesStored::default(),
            &progress,
            |e| upload(&tally, e, false),
        )
        .await
        .unwrap();
        assert_eq!(tally.into_inner().unwrap().peak, 9);
    }

    #[test]
    fn files_at_once_is_one_to_thirty_two() {
        assert_eq!(FilesAtOnce::default().get(), 4);
        assert_eq!(FilesAtOnce::new(1).unwrap().get(), 1);
        assert_eq!(FilesAtOnce::new(32).unwrap().get(), 32);
        for refused in [0, 33, 1000] {
            let why = FilesAtOnce::new(refused).unwrap_err();
            assert!(
                why.contains(&format!("is {refused}")) && why.contains("to 32"),
                "{why}"
            );
        }
    }

    #[tokio::test]
    async fn reads_go_as_many_at_once_as_the_target_is_set_to() {
        let manifest = files(12);
        let tally = Mutex::new(Tally::default());
        for (n, peak) in [(1, 1), (4, 4), (6, 6)] {
            *tally.lock().unwrap() = Tally::default();
            read_each_file(&manifest, FilesAtOnce::new(n).unwrap(), |e| {
                upload(&tally, e, false)
            })
            .await
            .unwrap();
            assert_eq!(tally.lock().unwrap().peak, peak, "set to {n}");
        }
    }

    #[tokio::test]
    async fn after_a_failure_no_file_starts_and_those_on_their_way_finish() {
        let manifest = files(10);
        let tally = Mutex::new(Tally::default());
        let (progress, _) = counting_progress();
        let failed = send_each_file(
            &manifest,
            false,
            FilesAtOnce::DEFAULT,
            &FilesStored::default(),
            &progress,
            |e| upload(&tally, e, e.path == "f01.dat"),
        )
        .await
        .unwrap_err();
        assert!(
            failed.to_string().contains("f01.dat was refused"),
            "{failed}"
        );
        let t = tally.into_inner().unwrap();
        let mut started = t.started;
        started.sort();
        assert_eq!(
            started,
            ["f00.dat", "f01.dat", "f02.dat", "f03.dat", "f04.dat"]
        );
        let mut finished = t.finished;
        finished.sort();
        assert_eq!(finished, ["f00.dat", "f02.dat", "f03.dat", "f04.dat"]);
    }

    /// The next attempt of a job sends only the files the last one did not get through:
    /// those it noted count as sent and are not sent again.
    #[tokio::test]
    async fn the_next_attempt_sends_only_the_files_the_last_did_not_get_through() {
        let manifest = files(10);
        let stored = FilesStored::default();
        let tally = Mutex::new(Tally::default());
        let (progress, _) = counting_progress();
        send_each_file(
            &manifest,
            false,
            FilesAtOnce::DEFAULT,
            &stored,
            &progress,
            |e| upload(&tally, e, e.path == "f01.dat"),
        )
        .await
        .unwrap_err();
        // f00 alone, then f01 (refused) to f04 together: four went through.
        assert_eq!(stored.len(), 4);

        let tally = Mutex::new(Tally::default());
        let (progress, counted) = counting_progress();
        send_each_file(
            &manifest,
            false,
            FilesAtOnce::DEFAULT,
            &stored,
            &progress,
            |e| upload(&tally, e, false),
        )
        .await
        .unwrap();
        let mut started = tally.into_inner().unwrap().started;
        started.sort();
        assert_eq!(
            started,
            [
                "f01.dat", "f05.dat", "f06.dat", "f07.dat", "f08.dat", "f09.dat"
            ]
        );
        // (The uploads here report no bytes: what is counted is what was not sent again.)
        let went_through: u64 = [0, 2, 3, 4].iter().map(|&n| manifest[n].size).sum();
        assert_eq!(
            counted.load(Ordering::Relaxed),
            went_through,
            "those count as sent"
        );
        assert_eq!(stored.len(), 10);
    }

    #[tokio::test]
    async fn a_server_refusing_the_first_file_is_asked_once() {
        let manifest = files(10);
        let tally = Mutex::new(Tally::default());
        let (progress, _) = counting_progress();
        let refused = send_each_file(
            &manifest,
            false,
            FilesAtOnce::DEFAULT,
            &FilesStored::default(),
            &progress,
            |e| upload(&tally, e, true),
        )
        .await
        .unwrap_err();
        assert!(refused.to_string().contains("f00.dat"), "{refused}");
        assert_eq!(tally.into_inner().unwrap().started, ["f00.dat"]);
    }

    #[tokio::test]
    async fn identical_files_are_one_upload_where_the_layout_shares_them() {
        let manifest = vec![
            entry("a/same.csv", b"1,2"),
            entry("b/same.csv", b"1,2"),
            entry("other.csv", b"3,4"),
        ];
        let (progress, counted) = counting_progress();
        let tally = Mutex::new(Tally::default());
        send_each_file(
            &manifest,
            true,
            FilesAtOnce::DEFAULT,
            &FilesStored::default(),
            &progress,
            |e| upload(&tally, e, false),
        )
        .await
        .unwrap();
        let mut started = tally.into_inner().unwrap().started;
        started.sort();
        assert_eq!(started, ["a/same.csv", "other.csv"]);
        assert_eq!(
            counted.load(Ordering::Relaxed),
            3,
            "the copy counts as sent"
        );

        let tally = Mutex::new(Tally::default());
        send_each_file(
            &manifest,
            false,
            FilesAtOnce::DEFAULT,
            &FilesStored::default(),
            &progress,
            |e| upload(&tally, e, false),
        )
        .await
        .unwrap();
        assert_eq!(
            tally.into_inner().unwrap().started.len(),
            3,
            "each under its name"
        );
    }

    #[tokio::test]
    async fn reads_come_back_in_the_manifests_order() {
        let manifest = files(9);
        let read = read_each_file(&manifest, FilesAtOnce::DEFAULT, |e| async move {
            // The later files answer first.
            let wait = 100 - e.path[1..3].parse::<u64>().unwrap();
            tokio::time::sleep(Duration::from_millis(wait)).await;
            Ok(e.path.clone())
        })
        .await
        .unwrap();
        let paths: Vec<String> = manifest.iter().map(|e| e.path.clone()).collect();
        assert_eq!(read, paths);
    }

    #[test]
    fn one_entry_per_digest_keeps_the_first_of_each() {
        let manifest = vec![entry("x", b"1"), entry("y", b"2"), entry("z", b"1")];
        let kept: Vec<&str> = one_entry_per_digest(&manifest)
            .iter()
            .map(|e| e.path.as_str())
            .collect();
        assert_eq!(kept, ["x", "y"]);
    }
}
