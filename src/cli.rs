//! The command line: argument parsing and dispatch. Each command lives in its own file under
//! `cli/` and only calls into the library; this is Lodge's public interface for batches, so
//! the names of commands and flags are kept stable.

mod add;
mod bench;
mod defaults;
mod deposit;
mod dry_run;
mod folder;
mod incomplete;
mod output;
mod parse_hint;
mod report;
mod show;
mod stop_signal;
mod target;
mod target_arg;
mod verify;

pub use parse_hint::hint_after_refusal;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::engine::{EngineConfig, RetryPolicy};
use crate::store::{DatabaseTrouble, Store, StoreLocation};
use output::say_err;

/// Lodge: deposit research datasets exactly once, however often a deposit is retried,
/// crashed or re-run.
#[derive(Debug, Parser)]
#[command(name = "lodge", version, about, long_about = None)]
pub struct Cli {
    /// The Lodge database: a file, or postgres://USER@HOST:PORT/DB for one queue and dedup
    /// store shared by a lab's machines. Default: the shared database named in the window's
    /// Settings, else lodge.db in the platform data directory.
    #[arg(long, global = true, env = "LODGE_DB", value_name = "PATH|URL")]
    pub db: Option<PathBuf>,

    /// How long to wait when another process holds the database's write lock (e.g. 30s).
    #[arg(long, global = true, env = "LODGE_DB_WAIT", value_name = "DURATION",
          value_parser = parse_db_wait, default_value = "30s")]
    pub db_wait: Duration,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Add (or update) a dataset folder: scan, hash, key. Prints the dataset id and its key.
    Add(add::AddArgs),
    /// Rescan datasets (unchanged files cost one stat each) and update their keys.
    Scan(add::ScanArgs),
    /// Remove datasets from the list. What they deposited stays: the records, `lodge
    /// history` and the log. The folders are not touched.
    Remove {
        /// Datasets by number, folder, name or key prefix (8 or more characters).
        #[arg(required = true, value_name = "DATASET")]
        datasets: Vec<String>,
    },
    /// One dataset: its folder, key, the metadata a deposit will send (and what it lacks),
    /// the files of its last scan, and every deposit of it.
    Show {
        /// The dataset: its number, folder, name or key prefix (8 or more characters).
        #[arg(value_name = "DATASET")]
        dataset: String,
        /// List every file (by default the first 20).
        #[arg(long)]
        files: bool,
        /// Machine-readable output (always every file).
        #[arg(long)]
        json: bool,
    },
    /// Deposit datasets into a target; returns when every item has landed, failed or was
    /// rejected. Exit status 0 only if all landed.
    Deposit(deposit::DepositArgs),
    /// Every dataset with its state per target, then totals.
    // `dismissed` is taken (to say that `lodge history` lists those), not offered.
    #[command(mut_arg("states", |a| a.value_parser(
        clap::builder::PossibleValuesParser::new(
            report::DATASET_STATES
                .into_iter()
                .chain(report::JOB_STATES)
                .map(clap::builder::PossibleValue::new)
                .chain([clap::builder::PossibleValue::new("dismissed").hide(true)])
        )
    )))]
    Status {
        #[command(flatten)]
        filter: report::ItemFilter,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Every deposit job ever run from this store.
    #[command(mut_arg("states", |a| a.value_parser(
        clap::builder::PossibleValuesParser::new(report::JOB_STATES.into_iter().chain(["dismissed"]))
    )))]
    History {
        #[command(flatten)]
        filter: report::ItemFilter,
        /// Only these jobs (the numbers other commands print, `job 12` or `#12`; repeatable).
        #[arg(long = "job", value_name = "JOB", value_parser = parse_job)]
        jobs: Vec<i64>,
        /// One JSON array of every job, with its dataset, target, state, record and times.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// The same as CSV, one row per job with a header row, for a spreadsheet.
        #[arg(long)]
        csv: bool,
    },
    /// Re-queue failed jobs with the same key, then run them.
    Retry(deposit::RetryArgs),
    /// Take jobs off the queue: each ends failed (`lodge retry` puts it back).
    #[command(group(clap::ArgGroup::new("which").required(true).args(["jobs", "target"])))]
    Cancel {
        /// Job numbers (see `lodge status` or `lodge history`).
        #[arg(value_parser = parse_job)]
        jobs: Vec<i64>,
        /// Every job still to do for this target (name or URL): a mistyped URL's, say.
        #[arg(long, value_parser = parse_target)]
        target: Option<String>,
    },
    /// Give up on failed or refused deposits (a mistyped target's, say): they leave
    /// `status`, its totals and `retry --all-failed`. The history and the log keep them,
    /// and `lodge retry JOB` still queues a failed one again with the same key.
    #[command(group(clap::ArgGroup::new("which").required(true).args(["jobs", "target"])))]
    Dismiss {
        /// Job numbers (see `lodge status` or `lodge history`).
        #[arg(value_parser = parse_job)]
        jobs: Vec<i64>,
        /// Every failed or refused deposit to this target (name or URL).
        #[arg(long, value_parser = parse_target)]
        target: Option<String>,
    },
    /// Check that the repositories still hold what was deposited: each landed deposit's
    /// record, and every file by its size or (--bytes) its SHA-256. Changes nothing on the
    /// servers; each finding goes into the log. Exit status 0 only if every deposit checked
    /// is intact.
    Verify(verify::VerifyArgs),
    /// The event log: attempts, retries, replays, reconciliations, outcomes.
    Log {
        /// Keep printing new events as they are written (by any process).
        #[arg(long)]
        follow: bool,
        /// Start with the last N events (a note says when earlier ones are left out).
        #[arg(long, default_value_t = 200)]
        tail: usize,
        /// Every event from the first (an audit's export), not only the last --tail.
        #[arg(long, conflicts_with = "tail")]
        all: bool,
        /// Only this dataset's events (its number, folder, name or key prefix of 8 or more characters).
        #[arg(long, value_name = "DATASET", conflicts_with = "job")]
        dataset: Option<String>,
        /// Only this job's events (numbers from `lodge status` or `lodge history`).
        #[arg(long, value_name = "JOB", value_parser = parse_job)]
        job: Option<i64>,
        /// One JSON object per line (JSON Lines), for scripts and monitoring.
        #[arg(long)]
        json: bool,
    },
    /// Forget recorded deposit results (they are kept forever by default). The next deposit
    /// of a forgotten key asks the server again, which still arbitrates.
    Forget {
        /// Forget results recorded longer ago than this (e.g. 90d, 26weeks, 2years).
        #[arg(long, value_parser = parse_age, value_name = "AGE")]
        older_than: Duration,
        /// Only results of this target (name or URL).
        #[arg(long, value_parser = parse_target)]
        target: Option<String>,
        /// Forget them. Without it, says what would be forgotten, and forgets nothing.
        #[arg(long)]
        yes: bool,
    },
    /// Run Lodge's local sandbox repository server.
    Sandbox(SandboxArgs),
    /// Named targets (sandbox, S3, WebDAV, InvenioRDM, Zenodo, DataCite) in the config file,
    /// and their credentials.
    #[command(subcommand)]
    Target(target::TargetCommand),
    /// Print a tab-completion script for a shell, e.g. `lodge completions bash >
    /// ~/.local/share/bash-completion/completions/lodge`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Measure Lodge against its references on this machine (hashing vs openssl, rescan,
    /// guarded vs raw deposits, replay, upload vs curl, window frame time) and print one
    /// table. Build with --release first; openssl and curl must be installed.
    Bench(bench::BenchArgs),
}

/// `lodge sandbox` options.
#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// The sandbox keeps no Lodge database (its data is in --data): the global `--db` and
    /// `--db-wait` are taken here, unused, and left out of its help.
    #[arg(id = "db", long = "db", hide = true)]
    pub unused_db: Option<PathBuf>,
    #[arg(id = "db_wait", long = "db-wait", hide = true, value_parser = parse_db_wait)]
    pub unused_db_wait: Option<Duration>,
    /// Address to listen on (loopback; port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:8080", value_parser = parse_loopback_addr)]
    pub addr: std::net::SocketAddr,
    /// Folder for the sandbox's records and blobs.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// Require this token: `Authorization: Bearer TOKEN` from Lodge, the password a browser
    /// asks for on the records page and a record's link.
    #[arg(long, env = "LODGE_SANDBOX_TOKEN", value_parser = parse_token)]
    pub token: Option<String>,
    /// Probability of committing a write, then closing with no response.
    #[arg(long, value_parser = parse_probability, default_value_t = 0.0)]
    pub drop_after_commit: f64,
    /// Probability of answering 503 before committing.
    #[arg(long, value_parser = parse_probability, default_value_t = 0.0)]
    pub fail_before_commit: f64,
    /// Probability of answering 429 with Retry-After.
    #[arg(long, value_parser = parse_probability, default_value_t = 0.0)]
    pub rate_limit: f64,
    /// Seconds sent in Retry-After with --rate-limit.
    #[arg(long, default_value_t = 1)]
    pub retry_after: u64,
    /// Probability of closing the connection before reading the body.
    #[arg(long, value_parser = parse_probability, default_value_t = 0.0)]
    pub reset: f64,
    /// Probability of committing a write, then answering 504 Gateway Timeout.
    #[arg(long, value_parser = parse_probability, default_value_t = 0.0)]
    pub timeout_after_commit: f64,
    /// Added latency per request, in milliseconds.
    #[arg(long, default_value_t = 0)]
    pub latency_ms: u64,
    /// Seed for the fault generator (reproducible runs).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Repository id the DataCite emulation (`/dois`) accepts.
    #[arg(long, default_value = "LODGE.SANDBOX", value_parser = parse_datacite_repository)]
    pub datacite_repository: String,
    /// Password the DataCite emulation accepts.
    #[arg(long, default_value = "sandbox")]
    pub datacite_password: String,
    /// DOI prefix the DataCite emulation owns (a local, unregistered one by default).
    #[arg(long, default_value = "10.80000", value_parser = parse_datacite_prefix)]
    pub datacite_prefix: String,
}

/// Retry and lease settings shared by `deposit` and `retry`.
#[derive(Debug, Clone, Args)]
pub struct EngineArgs {
    /// Deposits in flight at once (1 to 256).
    #[arg(long, value_parser = parse_concurrency, default_value_t = 4)]
    pub concurrency: usize,
    /// Attempts per item before it is failed (at least 1).
    #[arg(long, value_parser = parse_at_least_one::<u32>, default_value_t = 8)]
    pub max_attempts: u32,
    /// First backoff (doubles each attempt, full jitter).
    #[arg(long, value_parser = parse_duration, default_value = "500ms")]
    pub retry_base: Duration,
    /// Largest backoff.
    #[arg(long, value_parser = parse_duration, default_value = "60s")]
    pub retry_cap: Duration,
    /// No retry is scheduled later than this after an item was queued.
    #[arg(long, value_parser = parse_duration, default_value = "1h")]
    pub deadline: Duration,
    /// Longest wait accepted from a server's Retry-After.
    #[arg(long, value_parser = parse_duration, default_value = "10m")]
    pub retry_after_cap: Duration,
    /// How long a worker's claim on an item lasts without renewal (at least 1s).
    #[arg(long, value_parser = parse_lease, default_value = "30s")]
    pub lease: Duration,
}

impl EngineArgs {
    /// The settings that cannot hold together, named with the fix: a first backoff longer
    /// than the longest would be cut to it at once (none would ever double).
    pub fn check(&self) -> anyhow::Result<()> {
        if self.retry_base > self.retry_cap {
            anyhow::bail!(
                "--retry-base {} is longer than --retry-cap {}: no wait is longer than the cap, \
                 so the backoff would never grow; give a base shorter than the cap (the \
                 defaults are 500ms and 60s)",
                humantime::format_duration(self.retry_base),
                humantime::format_duration(self.retry_cap)
            );
        }
        Ok(())
    }

    pub fn config(&self) -> EngineConfig {
        EngineConfig {
            concurrency: self.concurrency,
            retry: RetryPolicy {
                base: self.retry_base,
                factor: 2.0,
                cap: self.retry_cap,
                max_attempts: self.max_attempts,
                deadline: self.deadline,
                retry_after_cap: self.retry_after_cap,
            },
            lease: self.lease,
            poll: Duration::from_millis(200),
        }
    }
}

/// A duration of at most a year: a longer one is a typo, and the store's times (ms since
/// 1970) would overflow adding it.
fn parse_duration(s: &str) -> Result<Duration, String> {
    const YEAR: Duration = Duration::from_secs(366 * 24 * 3600);
    parse_at_most(s, "a duration", (YEAR, "a year"), "500ms, 30s, 10m, 1h, 7d")
}

/// How old a recorded result must be to be forgotten: years are what a person means here
/// (a lab keeps results for some), so up to a century, past which it is a typo.
fn parse_age(s: &str) -> Result<Duration, String> {
    const CENTURY: Duration = Duration::from_secs(100 * 366 * 24 * 3600);
    // humantime reads `m` as minutes and `M` as months: an age of results to forget, given
    // as `6m`, is as likely meant as half a year, and minutes would forget nearly every one.
    let units = s.split(|c: char| c.is_ascii_digit() || c.is_whitespace() || c == '.');
    if let Some(unit) = units.into_iter().find(|unit| *unit == "m" || *unit == "M") {
        let number: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
        return Err(format!(
            "'{s}': `{unit}` could be minutes or months; write {number}months, or {number}min \
             for minutes"
        ));
    }
    parse_at_most(s, "an age", (CENTURY, "a century"), "90d, 26weeks, 2years")
}

/// `s` as a duration no longer than `longest` (its length, and in words); the errors name
/// `what` it should be and `examples` of one (not humantime's "expected number at 0").
fn parse_at_most(
    s: &str,
    what: &str,
    longest: (Duration, &str),
    examples: &str,
) -> Result<Duration, String> {
    let d = humantime::parse_duration(s).map_err(|e| match e {
        // A number too large for any duration: longer than the longest, not no duration.
        humantime::DurationError::NumberOverflow => {
            format!("'{s}' is longer than {}; write e.g. {examples}", longest.1)
        }
        _ => format!("'{s}' is not {what}: write e.g. {examples} (a number and a unit)"),
    })?;
    if d > longest.0 {
        return Err(format!(
            "'{s}' is longer than {}; write e.g. {examples}",
            longest.1
        ));
    }
    Ok(d)
}

/// How long to wait for the database's write lock: SQLite counts it in milliseconds in a
/// 32-bit number (24 days); a day is already far past any wait a person means.
fn parse_db_wait(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d > Duration::from_secs(24 * 3600) {
        return Err(format!(
            "'{s}' is longer than a day; write e.g. 30s, 5m, 1h"
        ));
    }
    Ok(d)
}

/// Deposits in flight: 1 to 256. Each is a task with its own buffers; more than a few
/// dozen only queue on the same servers and cores, and a million would exhaust memory.
fn parse_concurrency(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=256).contains(&n) => Ok(n),
        Ok(n) if n > 256 => Err(format!(
            "{n} is more than 256 deposits in flight, which only queue on the same servers \
             and cores; give e.g. 4 or 16"
        )),
        _ => Err(format!(
            "'{s}' is not a whole number of at least 1 (and at most 256); give e.g. 4"
        )),
    }
}

/// A count that must be at least 1 (deposits in flight, attempts): 0 would do nothing, so
/// it is refused rather than quietly taken as 1.
fn parse_at_least_one<T: std::str::FromStr + PartialOrd + From<u8>>(s: &str) -> Result<T, String> {
    match s.parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        _ => Err(format!(
            "'{s}' is not a whole number of at least 1; give e.g. 4"
        )),
    }
}

/// A lease: renewed every third of its length while an attempt runs, so one shorter than a
/// second would lapse during an ordinary request and hand the job to another worker.
fn parse_lease(s: &str) -> Result<Duration, String> {
    let lease = parse_duration(s)?;
    if lease < Duration::from_secs(1) {
        return Err(format!(
            "'{s}' is too short for a lease: a worker renews it while its request runs, so \
             give at least 1s (the default is 30s)"
        ));
    }
    Ok(lease)
}

/// A bearer token: an empty one (often an unset variable in a script) would only earn a 401
/// later, or a sandbox that accepts `Bearer ` with nothing after it.
/// A target's name or URL as typed or pasted: the spaces around it are not part of it (a
/// name has none, a URL cannot begin with one).
fn parse_target(s: &str) -> Result<String, String> {
    match s.trim() {
        "" => Err(
            "the target is empty: give a name from `lodge target list`, or a URL such \
                   as sandbox+http://127.0.0.1:8080"
                .to_string(),
        ),
        target => Ok(target.to_string()),
    }
}

/// A job's number, as `lodge status` and `lodge history` list it (`job 12`); a `#` before
/// it is taken too.
fn parse_job(s: &str) -> Result<i64, String> {
    let digits = s.trim().trim_start_matches('#');
    match digits.parse::<i64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "'{s}' is not a job number: give the numbers `lodge status` or `lodge history` \
             list (job N), e.g. 12"
        )),
    }
}

fn parse_token(s: &str) -> Result<String, String> {
    const EMPTY: &str = "the token is empty: give the token, or leave out both the flag and its environment variable";
    if s.trim().is_empty() {
        return Err(EMPTY.to_string());
    }
    Ok(s.to_string())
}

/// `--datacite-prefix`: what a DataCite target's `prefix=` takes (the sandbox prints a
/// target URL with it, which Lodge would refuse).
fn parse_datacite_prefix(s: &str) -> Result<String, String> {
    match crate::targets::datacite::prefix_problem(s) {
        None => Ok(s.to_string()),
        Some(problem) => Err(problem),
    }
}

/// `--datacite-repository`: an id a target URL can carry (`&repository=ORG.REPO`).
fn parse_datacite_repository(s: &str) -> Result<String, String> {
    let ok = !s.is_empty() && !s.contains(|c: char| c.is_whitespace() || c == '&' || c == '#');
    match ok {
        true => Ok(s.to_string()),
        false => Err(format!(
            "'{s}' is no repository id: give one like LODGE.SANDBOX (no spaces, & or #)"
        )),
    }
}

/// The sandbox's address: loopback only. It is for trying Lodge and for tests on this
/// machine, over plain HTTP and without a token by default; Lodge itself refuses plain
/// HTTP to any other host, so a sandbox on the network could not be deposited to anyway.
fn parse_loopback_addr(s: &str) -> Result<std::net::SocketAddr, String> {
    // `localhost` is this machine's loopback, whatever the resolver says of it.
    let port_of_localhost = s
        .get(..10)
        .filter(|host| host.eq_ignore_ascii_case("localhost:"))
        .map(|_| &s[10..]);
    let addr: std::net::SocketAddr = match port_of_localhost {
        Some(port) => format!("127.0.0.1:{port}").parse(),
        None => s.parse(),
    }
    .map_err(|_| format!("'{s}' is not an address and port: give one like 127.0.0.1:8080"))?;
    if !addr.ip().is_loopback() {
        return Err(format!(
            "the sandbox listens on this machine's loopback only, not on {}: give \
             127.0.0.1:{} (or [::1]:{})",
            addr.ip(),
            addr.port(),
            addr.port()
        ));
    }
    Ok(addr)
}

fn parse_probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!(
            "'{s}' is not a probability: give a number from 0 to 1, e.g. 0.3"
        )),
    }
}

/// The database a command uses: `--db`/`LODGE_DB` or the default one, and how long to wait
/// for another process's lock on it.
#[derive(Clone, Debug)]
pub struct Database {
    pub path: PathBuf,
    pub wait: Duration,
    /// Whether the path was given (`--db` or `LODGE_DB`) rather than the default one.
    pub given: bool,
    /// The settings file, when `path` is the shared database it names.
    pub from_settings: Option<PathBuf>,
    /// Why the settings file could not be read, said when the database is opened (this
    /// computer's own file is used then, as the window does).
    pub settings_problem: Option<String>,
}

impl Database {
    /// The database the window would use: `given` (`--db` or `LODGE_DB`), else the shared
    /// database named in the window's Settings (the file `settings`), else this computer's
    /// own file. A lab member who chose the shared database in the window finds the same
    /// datasets and queue with `lodge status`.
    pub fn chosen(given: Option<PathBuf>, wait: Duration, settings: &Path) -> Database {
        let mut db = Database {
            given: given.is_some(),
            path: given.unwrap_or_else(Store::default_path),
            wait,
            from_settings: None,
            settings_problem: None,
        };
        if db.given {
            return db;
        }
        match crate::settings::Settings::load(settings) {
            Ok(s) => {
                if let Some(StoreLocation::Postgres(url)) = s.shared_database() {
                    db.path = PathBuf::from(url);
                    db.from_settings = Some(settings.to_path_buf());
                }
            }
            Err(problem) => db.settings_problem = Some(problem),
        }
        db
    }

    /// Open it, creating a database file (and its folder) that does not exist yet: a file,
    /// or a `postgres://` URL for a store shared by a lab's machines. For `lodge add`, the
    /// command that puts something in a database.
    pub fn open(&self) -> anyhow::Result<Store> {
        // Said when this starts one, so that a mistyped --db (or a copy cut short to nothing)
        // is not taken for the database that holds the lab's history.
        let started = match StoreLocation::from(self.path.clone()) {
            StoreLocation::File(path) => match std::fs::metadata(&path) {
                Err(_) => Some(format!(
                    "started a new Lodge database at {}",
                    path.display()
                )),
                Ok(md) if md.is_file() && md.len() == 0 => Some(format!(
                    "{} was an empty file: started a new Lodge database in it",
                    path.display()
                )),
                Ok(_) => None,
            },
            StoreLocation::Postgres(_) => None,
        };
        let store = self.open_with(Store::open_at_waiting)?;
        if let Some(started) = started {
            say_err!("note: {started}");
        }
        Ok(store)
    }

    /// [`Database::open`] with `opener`, which opens the store at a location.
    fn open_with(
        &self,
        opener: fn(&StoreLocation, Duration) -> Result<Store, crate::store::StoreError>,
    ) -> anyhow::Result<Store> {
        if let Some(problem) = &self.settings_problem {
            say_err!(
                "warning: {problem}. Until then this command uses this computer's own database \
                 (a shared database named there is not used)"
            );
        }
        let location = StoreLocation::from(self.path.clone());
        let store = match (opener(&location, self.wait), &self.from_settings) {
            (Ok(store), _) => store,
            (Err(e), None) => return Err(e.into()),
            (Err(e), Some(settings)) => anyhow::bail!(
                "{}. It is the shared database named in the window's Settings ({}): correct \
                 or empty it there (empty uses this computer's own file), or choose another \
                 database for one command with --db",
                e.to_string().trim_end_matches('.'),
                settings.display()
            ),
        };
        for warning in store
            .network_warning()
            .into_iter()
            .chain(store.clock_warning())
        {
            say_err!("warning: {warning}");
        }
        Ok(store)
    }

    /// Open it for a command that works on what is already there. A database file given by
    /// `--db` or `LODGE_DB` that does not exist is most likely a typo: say so, and create
    /// nothing, rather than make an empty database (and folders) and report it empty, as if
    /// the history were gone. The default database is created as by [`Database::open`], so
    /// a first `lodge status` simply says there is nothing yet. A PostgreSQL database
    /// without Lodge's tables is refused the same way, and given none.
    pub fn open_existing(&self) -> anyhow::Result<Store> {
        if let StoreLocation::File(path) = StoreLocation::from(self.path.clone())
            && self.given
            && !path.exists()
            // A URL of another kind: opening it says so, rather than "start it here".
            && crate::store::url_not_a_database_file(&path).is_none()
        {
            anyhow::bail!(
                "no Lodge database at {}: nothing has been added with it yet. Check the path \
                 given by --db or LODGE_DB, or start this database with `lodge --db {} add DIR`",
                path.display(),
                path.display()
            );
        }
        self.open_with(Store::open_started_at_waiting)
    }

    /// What to tell the user when `error` is about the database file itself (locked,
    /// damaged, disk full, read-only), naming the file and the fix.
    pub fn trouble(&self, error: &anyhow::Error) -> Option<String> {
        let cause = error
            .chain()
            .find_map(|e| e.downcast_ref::<rusqlite::Error>())
            .map(|e| e.to_string())
            .unwrap_or_default();
        DatabaseTrouble::of(error.as_ref()).map(|t| t.explain(&self.path, self.wait, &cause))
    }
}

/// The most an exiting command waits for uploads its stopped deposits leave open to be
/// aborted ([`crate::targets::cleanup`]).
const CLEANUP_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Run the command of the parsed arguments; with none, print the help (the `lodge` binary
/// opens its window instead, when it has one).
pub fn run_parsed(cli: Cli) -> ExitCode {
    let Some(command) = cli.command else {
        use clap::CommandFactory;
        let _ = Cli::command().print_help();
        return ExitCode::SUCCESS;
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            say_err!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Given on the command line (not by LODGE_DB, which a suggested command gets anyway).
    if let Some(given) = &cli.db
        && std::env::var_os("LODGE_DB").is_none_or(|env| env != given.as_os_str())
    {
        output::suggest_with_db(given);
    }
    let db = Database::chosen(cli.db, cli.db_wait, &crate::settings::settings_path());
    let result = runtime.block_on(async {
        let result = run(&db, command).await;
        // A deposit stopped midway (Ctrl-C) may have left an upload open on a server: the
        // task aborting it runs before the runtime goes (returns at once when none does).
        crate::targets::cleanup::finish(CLEANUP_WAIT).await;
        result
    });
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            match db.trouble(&e) {
                Some(explained) => say_err!("error: {explained}"),
                None => say_err!("error: {}", error_text(&e)),
            }
            ExitCode::from(2)
        }
    };
    // The output cut short (a full disk, a closed descriptor): the command's work may be done,
    // but what it printed is not whole, and a script must not take it for whole.
    match output::output_failed() {
        Some(why) => {
            say_err!(
                "error: the output could not be written whole ({why}): what was written is \
                 cut short; free space or write it elsewhere, then run the command again"
            );
            ExitCode::from(2)
        }
        None => code,
    }
}

/// The error line: the error and its causes, each once ([`crate::wording::with_causes`]).
fn error_text(error: &anyhow::Error) -> String {
    crate::wording::with_causes(error.as_ref())
}

/// For a command that only reads the store and prints: end quietly when what reads its
/// output goes away (`lodge log | head`), as other command-line tools do, instead of
/// panicking on the closed pipe. Rust ignores SIGPIPE; this restores the default for the
/// rest of the process. Never for a command that talks to a server (a repository, or a
/// PostgreSQL store): a write to a socket the server closed raises SIGPIPE too, and must
/// stay an error that is reported.
fn end_quietly_when_the_reader_goes() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default, before any other thread of
    // this command runs code that could care, has no memory-safety requirements.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

async fn run(db: &Database, command: Command) -> anyhow::Result<ExitCode> {
    let reads_a_file_and_prints = matches!(
        command,
        Command::Show { .. }
            | Command::Status { .. }
            | Command::History { .. }
            | Command::Log { .. }
            | Command::Completions { .. }
    );
    if reads_a_file_and_prints
        && matches!(StoreLocation::from(db.path.clone()), StoreLocation::File(_))
    {
        end_quietly_when_the_reader_goes();
    }
    match command {
        Command::Add(args) => add::add(db, args).await,
        Command::Scan(args) => add::scan(db, args).await,
        Command::Remove { datasets } => add::remove(db, &datasets),
        Command::Show {
            dataset,
            files,
            json,
        } => show::show(db, &dataset, files, json),
        Command::Deposit(args) => (deposit::deposit(db, args).await)
            .map_err(|e| deposit::when_the_database_went(e, "deposit")),
        Command::Retry(args) => (deposit::retry(db, args).await)
            .map_err(|e| deposit::when_the_database_went(e, "retry")),
        Command::Cancel { jobs, target } => deposit::cancel(db, &jobs, target.as_deref()),
        Command::Dismiss { jobs, target } => deposit::dismiss(db, &jobs, target.as_deref()),
        Command::Verify(args) => verify::verify(db, args).await,
        Command::Status { filter, json } => report::status(db, &filter, json),
        Command::History {
            filter,
            jobs,
            json,
            csv,
        } => report::history(db, &filter, &jobs, json, csv),
        Command::Log {
            follow,
            tail,
            all,
            dataset,
            job,
            json,
        } => {
            let tail = if all { usize::MAX } else { tail };
            report::log(db, follow, tail, dataset.as_deref(), job, json).await
        }
        Command::Forget {
            older_than,
            target,
            yes,
        } => report::forget(db, older_than, target, yes),
        Command::Target(command) => target::run(db, command).await,
        Command::Bench(args) => bench::bench(args).await,
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "lodge", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Sandbox(args) => {
            let config = crate::sandbox::SandboxConfig {
                addr: args.addr,
                data_dir: args.data,
                token: args.token,
                faults: crate::sandbox::FaultConfig {
                    drop_after_commit: args.drop_after_commit,
                    fail_before_commit: args.fail_before_commit,
                    rate_limit: args.rate_limit,
                    retry_after_secs: args.retry_after,
                    reset: args.reset,
                    timeout_after_commit: args.timeout_after_commit,
                    latency_ms: args.latency_ms,
                    seed: args.seed,
                },
            };
            let datacite = crate::sandbox::DataCiteAccount {
                repository: args.datacite_repository,
                password: args.datacite_password,
                prefix: args.datacite_prefix,
            };
            let stop = stop_signal::stop_requested();
            crate::sandbox::serve_until(config, datacite, stop).await?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::error_text;

    /// The DataCite emulation's prefix and repository are ones a target URL takes: the
    /// sandbox prints that URL, which Lodge must not refuse.
    #[test]
    fn the_sandboxs_datacite_prefix_and_repository_make_a_target_lodge_takes() {
        for (prefix, repository) in [("10.80000", "LODGE.SANDBOX"), ("10.5072", "LAB")] {
            let prefix = super::parse_datacite_prefix(prefix).unwrap();
            let repository = super::parse_datacite_repository(repository).unwrap();
            let url =
                format!("datacite+http://127.0.0.1:8080?prefix={prefix}&repository={repository}");
            assert!(crate::targets::open_target(&url, None).is_ok(), "{url}");
        }
        for prefix in ["80000", "10.", "10.1/x", "10.1 ", ""] {
            let refused = super::parse_datacite_prefix(prefix).unwrap_err();
            assert!(
                refused.contains("is not a DOI prefix"),
                "{prefix}: {refused}"
            );
        }
        for repository in ["", "A B", "A&B"] {
            assert!(
                super::parse_datacite_repository(repository).is_err(),
                "{repository}"
            );
        }
    }

    /// The sandbox takes `localhost` for this machine's loopback; any other host is
    /// refused, naming the loopback address to give.
    #[test]
    fn the_sandbox_listens_on_localhost_as_on_the_loopback_and_nowhere_else() {
        for given in ["localhost:8090", "LocalHost:8090", "127.0.0.1:8090"] {
            assert_eq!(
                super::parse_loopback_addr(given).unwrap(),
                "127.0.0.1:8090".parse().unwrap(),
                "{given}"
            );
        }
        let refused = super::parse_loopback_addr("0.0.0.0:8090").unwrap_err();
        assert!(refused.contains("give 127.0.0.1:8090"), "{refused}");
        let refused = super::parse_loopback_addr("localhost").unwrap_err();
        assert!(
            refused.contains("give one like 127.0.0.1:8080"),
            "{refused}"
        );
    }

    /// `m` is minutes to humantime and `M` months: an age asked in either is refused with
    /// both spelt out, not read as minutes (forgetting nearly every result).
    #[test]
    fn an_age_in_m_is_refused_as_minutes_or_months() {
        for (given, unit) in [("6m", "m"), ("6M", "M"), ("1y 6m", "m")] {
            let said = super::parse_age(given).unwrap_err();
            assert!(
                said.contains(&format!("`{unit}` could be minutes or months")),
                "{given}: {said}"
            );
        }
        assert_eq!(
            super::parse_age("6m").unwrap_err(),
            "'6m': `m` could be minutes or months; write 6months, or 6min for minutes"
        );
        assert_eq!(
            super::parse_age("6months").unwrap().as_secs(),
            6 * 2_630_016
        );
        assert_eq!(super::parse_age("6min").unwrap().as_secs(), 360);
    }

    #[test]
    fn a_duration_or_age_that_is_no_number_is_refused_with_examples_not_the_parsers_words() {
        let said = super::parse_age("banana").unwrap_err();
        assert_eq!(
            said,
            "'banana' is not an age: write e.g. 90d, 26weeks, 2years (a number and a unit)"
        );
        for said in [
            super::parse_duration("fast").unwrap_err(),
            super::parse_lease("fast").unwrap_err(),
            super::parse_db_wait("fast").unwrap_err(),
        ] {
            assert_eq!(
                said,
                "'fast' is not a duration: write e.g. 500ms, 30s, 10m, 1h, 7d (a number and a unit)"
            );
        }
        assert_eq!(
            super::parse_duration("5").unwrap_err(),
            "'5' is not a duration: write e.g. 500ms, 30s, 10m, 1h, 7d (a number and a unit)"
        );
        // A number too large for any duration is one too long, as a year and a day is.
        for huge in ["999999999999999999d", "367d"] {
            assert_eq!(
                super::parse_duration(huge).unwrap_err(),
                format!("'{huge}' is longer than a year; write e.g. 500ms, 30s, 10m, 1h, 7d")
            );
        }
    }

    /// A first backoff longer than the longest is refused, naming both and the defaults.
    #[test]
    fn a_retry_base_longer_than_its_cap_is_refused() {
        use clap::Parser;
        #[derive(Parser)]
        struct Flags {
            #[command(flatten)]
            engine: super::EngineArgs,
        }
        let flags = |args: &[&str]| {
            Flags::try_parse_from(std::iter::once("lodge").chain(args.iter().copied()))
                .unwrap()
                .engine
        };
        let said = flags(&["--retry-base", "2s", "--retry-cap", "1s"])
            .check()
            .unwrap_err()
            .to_string();
        assert!(
            said.starts_with("--retry-base 2s is longer than --retry-cap 1s"),
            "{said}"
        );
        flags(&["--retry-base", "1s", "--retry-cap", "1s"])
            .check()
            .unwrap();
        flags(&[]).check().unwrap();
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot open {path}: {source}")]
    struct OpenFailed {
        path: &'static str,
        #[source]
        source: std::io::Error,
    }

    #[test]
    fn an_error_line_names_each_cause_once() {
        let io = || std::io::Error::other("permission denied");
        // A cause its error already quotes is not repeated...
        let quoted = anyhow::Error::new(OpenFailed {
            path: "/data/lodge.db",
            source: io(),
        });
        assert_eq!(
            error_text(&quoted),
            "cannot open /data/lodge.db: permission denied"
        );
        // ...one it does not is added, as anyhow's context chain would.
        let wrapped = anyhow::Error::new(io()).context("cannot read the folder /data");
        assert_eq!(
            error_text(&wrapped),
            "cannot read the folder /data: permission denied"
        );
    }
}
