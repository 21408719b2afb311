//! Small helpers for what the command line prints: times, progress bars, commands to paste
//! (sizes and counts are worded in [`crate::wording`]).

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::store::{EventRow, JobRow, Store};

/// `println!` for the command line: when what reads the output has gone (`lodge add … |
/// head -1`, a pager quit early) the line is dropped and the command goes on with its work,
/// where `println!` would panic in the middle of it. (Commands that only read the store and
/// print end quietly at once instead: `end_quietly_when_the_reader_goes` in `cli.rs`.)
macro_rules! say {
    () => { $crate::cli::output::say_line(&mut std::io::stdout(), format_args!("")) };
    ($($arg:tt)*) => { $crate::cli::output::say_line(&mut std::io::stdout(), format_args!($($arg)*)) };
}
pub(crate) use say;

/// [`say!`] on standard error (`eprintln!`'s place).
macro_rules! say_err {
    ($($arg:tt)*) => { $crate::cli::output::say_err_line(&mut std::io::stderr(), format_args!($($arg)*)) };
}
pub(crate) use say_err;

/// One line to `out`. A failed write (the reader has gone) is not an error of the command's:
/// its work is done or still to do, and is what its exit status reports. A `lodge` command
/// it suggests gets the `--db` this one was given ([`suggest_with_db`]).
///
/// A control character a terminal would act on is written as its escape
/// ([`crate::wording::for_a_terminal`]): a folder named with an escape sequence (data from
/// elsewhere) must not clear the screen or retitle the terminal when its name is printed.
pub fn say_line(out: &mut impl Write, line: std::fmt::Arguments<'_>) {
    if let Err(e) = write_said(out, line) {
        note_write_error(e);
    }
}

/// [`say_line`] for standard error: a failure to write there is no output cut short (a
/// script reads the output, not the warnings), so it is not kept.
pub fn say_err_line(out: &mut impl Write, line: std::fmt::Arguments<'_>) {
    let _ = write_said(out, line);
}

/// `line` written to `out` as [`say_line`] says.
fn write_said(out: &mut impl Write, line: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    let line = line.to_string();
    // A JSON document (`--json`) gets JSON's own escapes, which keep it JSON; serde_json
    // writes DEL and the C1 controls as they are, which a terminal may act on.
    let line = match line.trim_start().starts_with(['{', '[']) {
        true => crate::wording::json_for_a_terminal(&line),
        false => crate::wording::for_a_terminal(&line),
    };
    match DB_FLAG.get() {
        Some(flag) => writeln!(out, "{}", with_db_flag(&line, flag)),
        None => writeln!(out, "{line}"),
    }
}

/// The first error met writing the output, other than its reader going away (a closed
/// pipe: `lodge history | head -1`): a full disk, a closed descriptor. Said at the end, and
/// the command then exits 2, so that a script does not take a cut-short export for a whole
/// one.
static WRITE_ERROR: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Keep `e` as [`WRITE_ERROR`] unless it is a closed pipe, or one is kept already.
pub fn note_write_error(e: std::io::Error) {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return;
    }
    let mut kept = WRITE_ERROR.lock().unwrap_or_else(|e| e.into_inner());
    kept.get_or_insert_with(|| crate::wording::io_cause(&e));
}

/// Why the output could not be written, after flushing what is left of it; `None` when all
/// of it was (or its reader went away).
pub fn output_failed() -> Option<String> {
    if let Err(e) = std::io::stdout().flush() {
        note_write_error(e);
    }
    WRITE_ERROR
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
}

/// `--db X` as this run was given it on its command line, for the commands it suggests.
static DB_FLAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// This run was given `--db db` on its command line (not by `LODGE_DB`): every `lodge`
/// command it suggests gets it too, or run as printed it would work on another store (the
/// default file, or `LODGE_DB`'s). A password in a PostgreSQL URL is left out (Lodge then
/// takes it from `PGPASSWORD` or `~/.pgpass`, as `psql` does), never printed.
pub fn suggest_with_db(db: &std::path::Path) {
    let shown = without_password(&db.to_string_lossy());
    let _ = DB_FLAG.set(format!("--db {}", shell_word(&shown)));
}

/// `text`, when it is a URL with a password, without the password (Lodge takes it from
/// `PGPASSWORD` or `~/.pgpass`, as `psql` does): for a command Lodge prints to be run.
pub fn without_password(text: &str) -> String {
    match url::Url::parse(text) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(None);
            url.to_string()
        }
        _ => text.to_string(),
    }
}

/// `line` with `flag` after the `lodge` of each command it quotes (`` `lodge retry 3` ``).
/// Not in a JSON document (`--json`): a quoted path there would be unescaped quotes.
fn with_db_flag(line: &str, flag: &str) -> String {
    if line.trim_start().starts_with(['{', '[']) {
        return line.to_string();
    }
    // Not where the command names its database already (`lodge --db PATH add DIR`): a
    // second --db would be refused.
    let mut out = String::with_capacity(line.len() + flag.len());
    let mut parts = line.split("`lodge ");
    out.push_str(parts.next().unwrap_or_default());
    for rest in parts {
        out.push_str("`lodge ");
        if !rest.starts_with("--db ") {
            out.push_str(flag);
            out.push(' ');
        }
        out.push_str(rest);
    }
    out
}

/// How the note under a `running` job says it is taken over: by a command of its own, or
/// by the one said once below the list with the other items left on its target.
pub enum TakeOver<'a> {
    Command(&'a str),
    SaidBelow,
    /// A job of the dataset's key before its last scan or edit (this job's number): no
    /// `lodge deposit` sends it now, so none takes it over; `lodge cancel` ends it.
    EarlierKey(i64),
}

/// Under a job that is `running`: who is sending it, or, when that process has ended (a
/// crash, a kill, a closed laptop lid) or its lease has run out, that nothing is and how
/// it is taken up again (`resume`).
pub fn running_note(job: &JobRow, resume: TakeOver<'_>) -> Option<String> {
    use crate::engine::{owner_alive, owner_text};
    let owner = job.lease_owner.as_deref()?;
    let expires = job.lease_expires?;
    let holder = owner_text(owner);
    let takes_over = match &resume {
        TakeOver::Command(command) => {
            format!(
                "`{command}` takes it over (with the same key, looking first whether it landed)"
            )
        }
        TakeOver::SaidBelow => {
            "the `lodge deposit` below the list takes it over with the others".to_string()
        }
        TakeOver::EarlierKey(job) => format!(
            "it is of the dataset's earlier key, which no `lodge deposit` sends now (a deposit \
             sends the current one): `lodge cancel {job}` ends it"
        ),
    };
    let cancel;
    let resume = match resume {
        TakeOver::Command(command) => command,
        TakeOver::SaidBelow => "lodge deposit",
        TakeOver::EarlierKey(job) => {
            cancel = format!("lodge cancel {job}");
            &cancel
        }
    };
    Some(if owner_alive(owner) == Some(false) {
        format!("sent by {holder}, which has ended: nothing is sending it now; {takes_over}")
    } else if expires < crate::store::now_ms() {
        format!(
            "sent by {holder}, whose lease ran out at {}: {takes_over}",
            time_text(expires)
        )
    } else if owner_alive(owner).is_none() {
        // Another machine's: this one cannot tell whether it still runs.
        format!(
            "held by {holder}, which is sending it or sends it next (another machine: if that \
             process has ended, its lease runs out at {} and then `{resume}` takes it over)",
            time_text(expires)
        )
    } else {
        // Each of a deposit's senders takes its next item while it sends one (so no sender
        // waits on the store): a running item is being sent, or is next.
        format!("held by {holder}, which is sending it or sends it next")
    })
}

/// `text` followed by spaces to fill `width` columns of a terminal, as `{:<width$}` would
/// for text of one column a character: a Chinese, Japanese or Korean character takes two.
/// Text as wide or wider is left as it is.
pub fn padded(text: &str, width: usize) -> String {
    let shown = unicode_width::UnicodeWidthStr::width(text);
    format!("{text}{}", " ".repeat(width.saturating_sub(shown)))
}

/// Who sends a `running` job, for `--json`: `{"process", "program", "ended",
/// "lease_until"}`, where `program` is `window` or the command (`deposit`) of a Lodge of
/// this machine that runs, else null; `ended` is true once that process of this machine
/// has ended, false while it runs, null when this machine cannot tell (another machine's);
/// null for a job no one holds.
pub fn sender_json(job: &JobRow) -> serde_json::Value {
    use crate::engine::{owner_alive, owner_process, owner_program};
    match (&job.lease_owner, job.lease_expires) {
        (Some(owner), Some(until)) => serde_json::json!({
            "process": owner_process(owner),
            "program": owner_program(owner).map(|p| p.name().to_string()),
            "ended": owner_alive(owner).map(|alive| !alive),
            "lease_until": time_text(until),
        }),
        _ => serde_json::Value::Null,
    }
}

/// `text` as one word of a shell command a person can paste: as it is when that is safe,
/// else quoted (a path with a space, say).
pub fn shell_word(text: &str) -> std::borrow::Cow<'_, str> {
    // Only a NUL byte cannot be quoted, and no path or name holds one.
    shlex::try_quote(text).unwrap_or(std::borrow::Cow::Borrowed(text))
}

pub use crate::history_file::{check_json, time_text};

/// A progress bar for hashing a folder, drawn on stderr only when it is a terminal: a
/// spinner while the folder is walked (its size not known yet: a bar would be drawn full),
/// then the bytes hashed, with the files done beside them.
pub fn hash_progress_bar(root: &Path) -> ProgressBar {
    let name = root.file_name().map(|n| n.to_string_lossy().into_owned());
    let name = crate::wording::for_a_terminal(&name.unwrap_or_default()).into_owned();
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
        .with_style(
            ProgressStyle::with_template("looking through {prefix} {spinner} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        )
        .with_prefix(name);
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// The bar [`hash_progress_bar`] turns into once the folder's size is known.
fn hashing_style() -> ProgressStyle {
    // What varies in length last, cut to the terminal's width: a line that wrapped would
    // be drawn again on two rows at each step.
    ProgressStyle::with_template(
        "hashing {prefix} [{bar:20}] {bytes}/{total_bytes} eta {eta} {wide_msg}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ")
}

/// Hashing's progress on a [`hash_progress_bar`], stopped when `stop` is raised (Ctrl-C):
/// the folder being hashed is then recorded not at all.
pub struct HashBar {
    pub bar: ProgressBar,
    pub stop: super::stop_signal::StopFlag,
}

impl HashBar {
    pub fn new(root: &Path, stop: &super::stop_signal::StopFlag) -> HashBar {
        HashBar {
            bar: hash_progress_bar(root),
            stop: stop.clone(),
        }
    }
}

impl crate::content::HashWatch for HashBar {
    fn progress(&self, p: crate::content::HashProgress) {
        if self.bar.length().is_none() {
            self.bar.disable_steady_tick();
            self.bar.set_style(hashing_style());
        }
        self.bar.set_length(p.bytes_total);
        self.bar.set_position(p.bytes_done);
        // Many small files make few bytes: the files done say how far it is too.
        self.bar
            .set_message(format!("{}/{} files", p.files_done, p.files_total));
    }

    fn cancelled(&self) -> bool {
        self.stop.raised()
    }
}

/// A bytes progress bar for reading a deposit back (`lodge verify --bytes`), drawn on
/// stderr only when it is a terminal: over `total` bytes, or (`None`: a repair, which may
/// read it twice) a count of the bytes read so far.
pub fn read_back_bar(what: &str, total: Option<u64>) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    let template = match total {
        Some(_) => "reading back {msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        None => "reading back {msg}: {bytes} {bytes_per_sec}",
    };
    bar.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(crate::wording::for_a_terminal(what).into_owned());
    bar
}

/// A progress bar over items, on stderr.
pub fn items_progress_bar(total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{what} [{{bar:24}}] {{pos}}/{{len}} {{msg}} elapsed {{elapsed}}"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar
}

/// The bytes of the uploads in flight, for the deposit bar's message: a batch of one large
/// dataset would otherwise show 0/1 until its last byte was sent.
#[derive(Default)]
pub struct BytesInFlight {
    jobs: HashMap<i64, (u64, u64)>,
    /// Jobs that ended: a progress report that arrives after the outcome is stale.
    ended: HashSet<i64>,
}

impl BytesInFlight {
    /// A job's upload has sent `sent` of `total` bytes.
    pub fn sent(&mut self, job: i64, sent: u64, total: u64) {
        if !self.ended.contains(&job) {
            self.jobs.insert(job, (sent, total));
        }
    }

    /// A job changed state: its upload is over (a retry starts again from nothing), for
    /// good if the job `ended`.
    pub fn changed(&mut self, job: i64, ended: bool) {
        self.jobs.remove(&job);
        if ended {
            self.ended.insert(job);
        }
    }

    /// "120.5 MiB/286.1 MiB" sent, summed over the uploads in flight; empty when they
    /// are less than a mebibyte together (small datasets take no time to send, and their
    /// figures would only flicker).
    pub fn message(&self) -> String {
        let (sent, total) = self
            .jobs
            .values()
            .fold((0, 0), |(s, t), (sent, total)| (s + sent, t + total));
        if total < 1024 * 1024 {
            return String::new();
        }
        format!(
            "{}/{}",
            crate::wording::human_bytes(sent),
            crate::wording::human_bytes(total)
        )
    }
}

/// Datasets' names for log lines, read from the store once each (a removed dataset's as
/// its removal logged it, `soil (removed)`).
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
        // The removal's own line names the dataset already.
        if e.kind == crate::store::EventKind::Removed && store.dataset(id).ok().flatten().is_none()
        {
            return None;
        }
        self.known
            .entry(id)
            .or_insert_with(|| match store.dataset(id).ok().flatten() {
                Some(d) => Some(d.name),
                None => store
                    .removed_dataset_row(id)
                    .ok()
                    .flatten()
                    .map(|r| format!("{} (removed)", r.name)),
            })
            .clone()
    }
}

/// What to run about a deposit whose last check logged `found` (the damage, as logged) on
/// the target `scope`: `--repair` when files are missing (what it sends again), else the
/// check itself, which says what can mend the rest. It names the target: without, the
/// command checks the dataset's deposits on every target (one wanting a token it is not
/// given fails the run).
pub(super) fn damage_hint(store: &Store, found: &str, dataset: i64, scope: &str) -> String {
    let target = super::target_arg::target_argument(store, scope);
    let target = shell_word(&target);
    // A target that takes its token with each run is asked nothing without it.
    let token = match super::target_arg::needs_token(store, scope) {
        true => " --token TOKEN",
        false => "",
    };
    if found.contains(" is missing") {
        let repair = format!("`lodge verify {dataset} --target {target} --repair{token}`");
        match folder_gone_here(store, dataset) {
            Some(path) => format!(
                "its folder {} is not there (moved or deleted): `lodge add` it where it is \
                 now, then {repair} sends lost files again",
                crate::wording::on_one_line(&path)
            ),
            None => format!("{repair} sends lost files again"),
        }
    } else {
        format!("`lodge verify {dataset} --target {target}{token}` says what can mend it")
    }
}

/// The folder of `dataset`, added on this machine, when it is not there and no dataset
/// added here with its key has its folder here: a repair would have nothing to send from.
pub(super) fn folder_gone_here(store: &Store, dataset: i64) -> Option<String> {
    let d = store.dataset(dataset).ok()??;
    let here = |path: &str| std::path::Path::new(path).is_dir();
    if here(&d.path) || store.added_elsewhere(d.id).ok()?.is_some() {
        return None;
    }
    let copies = store.copies_of_key(&d.key?, Some(d.id)).ok()?;
    crate::engine::first_copy_here(copies)
        .is_none()
        .then_some(d.path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_an_escape_sequence_is_printed_harmless() {
        let mut out = Vec::new();
        say_line(
            &mut out,
            format_args!("   1 plot\u{1b}[2J\u{7}\r\u{9b}31m  new\n\tnote"),
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "   1 plot\\u{1b}[2J\\u{7}\\r\\u{9b}31m  new\n\tnote\n"
        );
        let plain = crate::wording::for_a_terminal("plain");
        assert!(matches!(plain, std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn a_job_another_machine_sends_says_when_its_lease_runs_out() {
        let until = crate::store::now_ms() + 3_600_000;
        let job = JobRow {
            lease_owner: Some("labpc2.invalid/4242/0000abcd".into()),
            lease_expires: Some(until),
            ..JobRow::for_tests(9, crate::store::JobState::Running)
        };
        let said = running_note(&job, TakeOver::Command("lodge deposit --target lab 3")).unwrap();
        assert_eq!(
            said,
            format!(
                "held by process 4242 on labpc2.invalid, which is sending it or sends it \
                 next (another machine: if that process has ended, its lease runs out at {} \
                 and then `lodge deposit --target lab 3` takes it over)",
                time_text(until)
            )
        );
    }

    #[test]
    fn a_suggested_command_gets_the_db_the_run_was_given() {
        assert_eq!(
            with_db_flag(
                "failed — retry with `lodge retry 3`, or `lodge retry --all-failed`",
                "--db /data/lab.db"
            ),
            "failed — retry with `lodge --db /data/lab.db retry 3`, or `lodge --db \
             /data/lab.db retry --all-failed`"
        );
        assert_eq!(
            with_db_flag(
                "start it with `lodge --db /x.db add DIR`",
                "--db /data/lab.db"
            ),
            "start it with `lodge --db /x.db add DIR`",
            "a command naming its database keeps it alone"
        );
        let json = "{\n  \"note\": \"`lodge retry 3`\"\n}";
        assert_eq!(with_db_flag(json, "--db \"/data/Curie's.db\""), json);
    }

    #[test]
    fn a_path_in_a_suggested_command_is_quoted_only_when_the_shell_needs_it() {
        assert_eq!(shell_word("/data/soil-cores"), "/data/soil-cores");
        assert_eq!(shell_word("/data/soil cores"), "'/data/soil cores'");
        assert_eq!(shell_word("/data/Curie's cores"), "\"/data/Curie's cores\"");
    }

    #[test]
    fn the_bytes_in_flight_sum_the_uploads_still_going() {
        let mut uploads = BytesInFlight::default();
        assert_eq!(uploads.message(), "", "nothing in flight, nothing said");
        uploads.sent(1, 512 * 1024, 2 * 1024 * 1024);
        uploads.sent(2, 1024 * 1024, 1024 * 1024);
        uploads.sent(1, 1024 * 1024, 2 * 1024 * 1024);
        assert_eq!(uploads.message(), "2.0 MiB/3.0 MiB");
        uploads.changed(2, true);
        assert_eq!(uploads.message(), "1.0 MiB/2.0 MiB");
        uploads.sent(2, 1024 * 1024, 1024 * 1024);
        assert_eq!(
            uploads.message(),
            "1.0 MiB/2.0 MiB",
            "job 2 ended: a late report is stale"
        );
        uploads.changed(1, false);
        assert_eq!(
            uploads.message(),
            "",
            "job 1 waits to retry: nothing is being sent"
        );
        uploads.sent(3, 100, 4000);
        assert_eq!(
            uploads.message(),
            "",
            "a few kilobytes are not worth a figure"
        );
    }
}
