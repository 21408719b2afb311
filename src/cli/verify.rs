//! `lodge verify`: read back what the repositories hold of each landed deposit of the chosen
//! datasets, and say whether it is still whole: the record of the key, and every file by its
//! size or (`--bytes`) by the SHA-256 of its bytes. A fixity check: it changes nothing on
//! the servers, and only adds its findings to each deposit's log. With `--repair` it also
//! sends again the files a deposit lost ([`crate::engine::repair`]).

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::Database;
use super::add::select_datasets;
use super::output::{read_back_bar, shell_word};
use super::output::{say, say_err};
use super::target_arg::{open_by_scope, takes_token_per_run, target_argument};
use crate::content::ContentKey;
use crate::engine::repair::{
    Repair, log_repair, mended_by_repair, repair_watched, what_is_left, what_was_sent,
};
use crate::engine::verify::{
    SilenceWatch, Verification, landed_deposits, log_finding, manifest_of, note_publication,
    read_back_for,
};
use crate::store::{JobRow, Store};
use crate::targets::{Discrepancy, ProgressSink, ReadBack, Target};
use crate::wording::count_of;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Every dataset in the store.
    #[arg(long, conflicts_with = "datasets")]
    pub all: bool,
    /// Datasets by number, folder, name or key prefix (8 or more characters).
    pub datasets: Vec<String>,
    /// Only deposits on this target (a name from `lodge target list`, or a URL).
    #[arg(long, value_parser = super::parse_target)]
    pub target: Option<String>,
    /// Read every file back and compare its SHA-256 (finds bytes changed in place; costs a
    /// download of everything). By default only the records and the files' sizes are read.
    #[arg(long)]
    pub bytes: bool,
    /// Send again, from the dataset's folder, the files a damaged deposit lost on the server
    /// (the sandbox, S3 and WebDAV): conditional writes add only what is missing, and the
    /// record is left as it is. Then check again.
    #[arg(long)]
    pub repair: bool,
    /// Machine-readable output: one object per deposit checked, with its verdict (`intact`,
    /// `damaged`, `unknown`) and what was found.
    #[arg(long)]
    pub json: bool,
    /// Bearer token for the targets, if they need one.
    #[arg(long, env = "LODGE_TOKEN", hide_env_values = true, value_parser = super::parse_token)]
    pub token: Option<String>,
}

/// One landed deposit to check: the latest job that landed a key on a target.
struct Deposit {
    dataset: i64,
    name: String,
    job: JobRow,
    /// The deposit is of a key the dataset had before its last scan or edit: one of two
    /// (or more) deposits of it on the target, told apart in the lines.
    earlier_key: bool,
}

impl Deposit {
    /// "dataset 3 ocean-temps on Local sandbox at …, record ID", for the text lines (a
    /// dataset's number said as such: `#12` is a job's elsewhere).
    fn head(&self, target: &str) -> String {
        let earlier = match self.earlier_key {
            true => format!(" (its earlier key's deposit, job {})", self.job.id),
            false => String::new(),
        };
        format!(
            "dataset {} {}{earlier} on {target}, record {}",
            self.dataset,
            self.name,
            self.job.identifier.as_deref().unwrap_or_default()
        )
    }
}

pub async fn verify(db: &Database, args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let store = Arc::new(db.open_existing()?);
    let only = (args.target.as_deref())
        .map(|t| super::target_arg::stored_target_scope(&store, t))
        .transpose()?;
    let datasets = select_datasets(&store, &args.datasets, args.all)?;
    let mut deposits = Vec::new();
    let mut checked_jobs = std::collections::HashSet::new();
    let selected: std::collections::HashSet<i64> = datasets.iter().map(|d| d.id).collect();
    // With --all, the datasets with nothing to check are counted, not listed one by one
    // (a weekly `verify --all` would print a line for each); named ones are each answered.
    let mut unlisted = 0u64;
    for dataset in &datasets {
        let found = landed_deposits(&store, dataset.id, only.as_deref())?;
        if found.is_empty() && args.all {
            unlisted += 1;
        } else if found.is_empty() && !args.json {
            say!(
                "-        dataset {} {}: no deposit to check{}",
                dataset.id,
                dataset.name,
                match &args.target {
                    Some(t) => format!(" on {t}"),
                    None => String::new(),
                }
            );
        }
        // Two copies of one folder share one deposit: it is checked once, under the
        // dataset whose job made it when that one is checked too (the copy whose folder
        // is here, when the other's is gone), else under the first.
        let found = found.into_iter().filter(|job| {
            let its_own_elsewhere = job
                .dataset_id
                .is_some_and(|own| own != dataset.id && selected.contains(&own));
            !its_own_elsewhere && checked_jobs.insert(job.id)
        });
        deposits.extend(found.map(|job| Deposit {
            dataset: dataset.id,
            name: dataset.name.clone(),
            earlier_key: dataset.key.is_some_and(|key| key != job.key),
            job,
        }));
    }
    // With --all, the records of datasets taken off the list too: they stay on the servers
    // (`remove` says so), and a weekly `verify --all` goes on checking them.
    if args.all {
        let mut scopes: std::collections::HashSet<(String, ContentKey)> = (deposits.iter())
            .map(|d| (d.job.target.clone(), d.job.key))
            .collect();
        let names: std::collections::HashMap<i64, String> = (store.removed_datasets()?)
            .into_iter()
            .map(|r| (r.id, r.name))
            .collect();
        // Newest first: the first landed job of each scope is its latest.
        for row in store.history()? {
            let landed = matches!(row.state.as_str(), "deposited" | "existing");
            if row.name.is_some()
                || !landed
                || row.identifier.is_none()
                || only.as_deref().is_some_and(|t| row.target != t)
            {
                continue;
            }
            let job = store.job(row.job)?;
            if !scopes.insert((job.target.clone(), job.key)) {
                continue;
            }
            let dataset = row.dataset.unwrap_or_default();
            let name = names.get(&dataset).map_or("a dataset", String::as_str);
            deposits.push(Deposit {
                dataset,
                name: format!("{name} (removed)"),
                job,
                earlier_key: false,
            });
        }
    }
    if unlisted > 0 && !args.json {
        say!(
            "{} no deposit{}; not checked",
            match unlisted {
                1 => "1 dataset has".to_string(),
                n => format!("{n} datasets have"),
            },
            match &args.target {
                Some(t) => format!(" on {t}"),
                None => String::new(),
            }
        );
    }
    if deposits.is_empty()
        && let Some(named) = &args.target
    {
        // Deposited, but not there: a mistyped target (a port, a name) must not pass for
        // a check that found nothing wrong.
        let mut elsewhere = std::collections::BTreeSet::new();
        for dataset in &datasets {
            for job in landed_deposits(&store, dataset.id, None)? {
                elsewhere.insert(target_argument(&store, &job.target));
            }
        }
        if !elsewhere.is_empty() {
            let list: Vec<String> = elsewhere.into_iter().collect();
            anyhow::bail!(
                "no deposit of {} is on {named}; they are on {}: check the name or URL \
                 (`lodge status` lists each deposit's target)",
                match datasets.len() {
                    1 => "this dataset".to_string(),
                    n => format!("these {n} datasets"),
                },
                list.join(", ")
            );
        }
    }
    if deposits.is_empty() {
        match args.json {
            true => say!("[]"),
            false => say!("nothing to verify: deposit datasets first (`lodge deposit`)"),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let read = if args.bytes {
        ReadBack::Bytes
    } else {
        ReadBack::Sizes
    };
    let targets = open_targets(&store, &deposits, args.token.clone());
    if !args.json {
        // A deposit whose last check found bytes changed in place is read back whole
        // whatever was asked (only that finds it again): the header says so.
        let whole_anyway = match read {
            ReadBack::Sizes => deposits
                .iter()
                .filter(|d| {
                    crate::engine::verify::read_back_for(&store, &d.job, read) == ReadBack::Bytes
                })
                .count() as u64,
            ReadBack::Bytes => 0,
        };
        // Where every deposit is on a target that keeps no files (DataCite), its record is
        // all there is to check, whatever was asked.
        let records_only = deposits
            .iter()
            .all(|d| matches!(targets.get(&d.job.target), Some(Ok(t)) if !t.keeps_files()));
        // All of them read back whole: the header says that, not sizes then bytes.
        let all_whole = whole_anyway > 0 && whole_anyway == deposits.len() as u64;
        say!(
            "checking {} {}{}",
            count_of(deposits.len() as u64, "deposit", "deposits"),
            match (records_only, read) {
                (true, _) => "by record (the target keeps no files to read back)",
                (false, ReadBack::Sizes) if !all_whole => {
                    "by record and file sizes (--bytes reads every byte back)"
                }
                (false, _) => "by record and every file's bytes read back",
            },
            match (whole_anyway, deposits.len()) {
                (0, _) => String::new(),
                (_, 1) => ", as its last check found bytes changed".into(),
                _ if all_whole => ", as their last checks found bytes changed".into(),
                (n, _) => format!(
                    "; {n} of them read back whole, as their last checks found bytes changed"
                ),
            }
        );
    }

    // One watch per target: a server that does not answer one check is not asked again.
    let mut watches: BTreeMap<String, SilenceWatch> = BTreeMap::new();
    let (mut intact, mut damaged, mut unknown) = (0u64, 0u64, 0u64);
    // Targets a check could not reach (scope → label), for the word about each at the end.
    let mut unreachable: BTreeMap<String, String> = BTreeMap::new();
    // The datasets whose damaged deposits lost files (which --repair sends again: missing
    // ones, and on a server that replaces them, files of the wrong size), and the rest.
    let (mut lost_in, mut not_repairable) = (std::collections::BTreeSet::new(), Vec::new());
    // The datasets of what a repair does not mend, whose file lists the advice names.
    let mut not_repairable_in = std::collections::BTreeSet::new();
    // Whether any of them lost its record (written again by --repair on S3 and WebDAV).
    let mut records_lost = false;
    let mut json = Vec::new();
    for deposit in &deposits {
        let watch = watches.entry(deposit.job.target.clone()).or_default();
        let finding = check(
            &store,
            &targets,
            deposit,
            read,
            args.repair,
            !args.json,
            watch,
        )
        .await;
        match &finding.verdict {
            Verification::Intact(_) => intact += 1,
            Verification::Damaged(found) => {
                damaged += 1;
                let (replaces_wrong_size, rewrites_records) = match targets.get(&deposit.job.target)
                {
                    Some(Ok(target)) => (
                        target.replaces_wrong_size_files(),
                        target.rewrites_gone_records(),
                    ),
                    _ => (false, false),
                };
                for d in found {
                    match mended_by_repair(d, replaces_wrong_size, rewrites_records) {
                        true => {
                            lost_in.insert((deposit.dataset, deposit.job.key.to_hex()));
                            records_lost |= matches!(d, Discrepancy::RecordGone { .. });
                        }
                        false => {
                            not_repairable.push(d.clone());
                            not_repairable_in.insert(deposit.dataset);
                        }
                    }
                }
            }
            Verification::Unknown(_) => {
                unknown += 1;
                unreachable.insert(deposit.job.target.clone(), finding.label.clone());
            }
        }
        match args.json {
            true => json.push(as_json(deposit, &finding)),
            false => print_text(&deposit.head(&finding.label), &finding),
        }
    }
    let exit = if damaged + unknown == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };
    if args.json {
        say!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(exit);
    }
    let mut summary = vec![format!("{intact} intact")];
    if damaged > 0 {
        summary.push(format!("{damaged} damaged"));
    }
    if unknown > 0 {
        summary.push(format!("{unknown} could not be checked"));
    }
    say!("{}", summary.join(", "));
    // The window's own sandbox answers only while the window is open: say so, not only
    // "is the repository running?".
    let port_file = crate::sandbox::window::port_file();
    for (scope, label) in &unreachable {
        if crate::sandbox::window::is_window_sandbox(scope, &port_file) {
            say!(
                "{}.",
                crate::wording::capitalized(&crate::sandbox::window::closed_window_hint(label))
            );
        }
    }
    for (scope, watch) in &watches {
        // A saved target's refusal says how its credentials are corrected: only a target
        // given by URL, whose token comes with each run, needs a word more.
        if watch.refused_credentials() && takes_token_per_run(scope) {
            say!("{}", token_hint(&store, scope, &args));
        }
    }
    if damaged > 0 && !args.repair {
        say!(
            "`lodge deposit` does not send a landed deposit again (it replays it from the \
             store)."
        );
        // A removed dataset cannot be repaired by its number: a dataset on the list with its
        // key (its folder added again, or a copy) is, else its folder is to add again.
        let on_the_list = store.datasets()?;
        let mut readd = Vec::new();
        let lost_in: std::collections::BTreeSet<i64> = lost_in
            .into_iter()
            .filter_map(|(dataset, key)| {
                if on_the_list.iter().any(|d| d.id == dataset) {
                    return Some(dataset);
                }
                let copy = on_the_list
                    .iter()
                    .find(|d| d.key.is_some_and(|k| k.to_hex() == key));
                if copy.is_none() {
                    readd.push(dataset);
                }
                copy.map(|d| d.id)
            })
            .collect();
        for dataset in readd {
            let folder = store
                .removed_dataset(dataset)?
                .unwrap_or_else(|| format!("dataset {dataset}"));
            // Its folder on the list again, with other content (a newer key): what was
            // deposited is no longer in it, and adding it again adds nothing.
            let listed_again = match store.removed_dataset_row(dataset)? {
                Some(removed) => store.dataset_by_path(&removed.path)?,
                None => None,
            };
            match listed_again {
                Some(again) => say!(
                    "Lost from the deposit of {folder}, removed from the list: its folder is \
                     listed again as dataset {} {} with other content (another key), so the \
                     files as they were deposited are no longer in it and Lodge cannot send \
                     them again. Put them back on the server from a copy of the folder as it \
                     was (the check above names them), or leave that deposit as it is.",
                    again.id,
                    again.name
                ),
                None => say!(
                    "Lost from the deposit of {folder}, removed from the list: `lodge add` its \
                     folder again (it takes up its metadata, so its key), then `lodge verify \
                     NUMBER --repair` with the number it gets sends them again."
                ),
            }
        }
        if !lost_in.is_empty() {
            let datasets: Vec<String> = lost_in.iter().map(i64::to_string).collect();
            // The check as it was asked for: on the target named, if one was, with the
            // token it was given (said as TOKEN: a secret is not printed).
            let mut on = match &args.target {
                Some(target) => format!(" --target {}", shell_word(target)),
                None => String::new(),
            };
            if args.token.is_some() {
                on.push_str(" --token TOKEN");
            }
            let show = match datasets.as_slice() {
                [one] => one.clone(),
                _ => "DATASET".to_string(),
            };
            // A repair sends from the folder: another machine's dataset (a shared database)
            // whose folder is not here is repaired on that machine.
            let mut away: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for &id in &lost_in {
                let here = on_the_list
                    .iter()
                    .any(|d| d.id == id && std::path::Path::new(&d.path).is_dir());
                if !here && let Some(origin) = store.added_elsewhere(id)? {
                    away.entry(origin).or_default().push(id.to_string());
                }
            }
            let run_where = match away.iter().next() {
                Some((origin, ids)) if away.len() == 1 && ids.len() == lost_in.len() => {
                    format!(" on {origin}, where the folder is,")
                }
                _ => String::new(),
            };
            say!(
                "Lost {}: `lodge verify {}{on} --repair`{run_where} sends them again from the \
                 dataset's folder, or put them back on the server yourself (`lodge show {show} \
                 --files` lists each file with its SHA-256).",
                match records_lost {
                    true => "files or records",
                    false => "files",
                },
                datasets.join(" ")
            );
            if run_where.is_empty() {
                for (origin, ids) in &away {
                    say!(
                        "  {} added on {origin}, whose folder is there: repair on {origin}.",
                        match ids.as_slice() {
                            [one] => format!("dataset {one} was"),
                            _ => format!("datasets {} were", ids.join(", ")),
                        }
                    );
                }
            }
            // A folder moved or deleted here, with no folder here of the same key to send
            // from: the repair has nothing to send until it is added where it is now.
            for d in on_the_list.iter().filter(|d| lost_in.contains(&d.id)) {
                if let Some(path) = super::output::folder_gone_here(&store, d.id) {
                    say!(
                        "  dataset {} {}'s folder {} is not there (moved or deleted): `lodge \
                         add` it where it is now first; the repair then sends from it.",
                        d.id,
                        d.name,
                        crate::wording::on_one_line(&path)
                    );
                }
            }
        }
        if !not_repairable.is_empty() {
            let one = match not_repairable_in.iter().collect::<Vec<_>>()[..] {
                [one] => Some(*one),
                _ => None,
            };
            let rest = what_is_left(
                &not_repairable,
                &crate::engine::repair::file_list_command(one),
            );
            match lost_in.is_empty() {
                false => say!("The rest: {rest}."),
                true => say!("{}.", crate::wording::capitalized(&rest)),
            }
        }
    }
    Ok(exit)
}

/// What to do about a target given by URL whose server refused the token of a check (or
/// wanted one). `--token` is one for all the targets a run checks, so the command named
/// checks that target alone, of the datasets this run was given, as this run would have.
fn token_hint(store: &Store, scope: &str, args: &VerifyArgs) -> String {
    let target = target_argument(store, scope);
    let mut words: Vec<String> = match args.all {
        true => vec!["--all".into()],
        false => args
            .datasets
            .iter()
            .map(|d| shell_word(d).into_owned())
            .collect(),
    };
    words.push(format!("--target {}", shell_word(&target)));
    for (given, flag) in [(args.bytes, "--bytes"), (args.repair, "--repair")] {
        if given {
            words.push(flag.into());
        }
    }
    let command = format!(
        "`lodge verify {} --token TOKEN` (or LODGE_TOKEN)",
        words.join(" ")
    );
    match args.token.is_some() {
        true => format!(
            "{target} refused the token given (--token is one for every target checked): \
             check its deposits with its own, {command}"
        ),
        false => {
            format!("{target} needs a token to be read: check its deposits with it, {command}")
        }
    }
}

/// Each target the deposits are on, opened once; why not, for one that cannot be.
fn open_targets(
    store: &Store,
    deposits: &[Deposit],
    token: Option<String>,
) -> BTreeMap<String, Result<Arc<dyn Target>, String>> {
    let mut keys: BTreeMap<String, Vec<ContentKey>> = BTreeMap::new();
    for d in deposits {
        keys.entry(d.job.target.clone())
            .or_default()
            .push(d.job.key);
    }
    keys.into_iter()
        .map(|(scope, keys)| {
            // A deposit is verified where it is: sending it elsewhere checks nothing.
            let fix = (
                "verify",
                "if it was a saved target that was removed, add it again under a name with \
                 its credentials (`lodge target add NAME URL ...`, the URL and settings it \
                 had), then verify",
            );
            let opened = open_by_scope(store, &scope, token.clone(), &keys, fix)
                .map_err(|e| format!("{e:#}"));
            (scope, opened)
        })
        .collect()
}

/// What became of one deposit: the target's label (or scope, when it could not be
/// opened), the verdict that stands, and what a repair did (`--repair`).
struct Finding {
    label: String,
    verdict: Verification,
    repair: Option<Repair>,
    /// Where the target keeps each damaged file, by manifest path, where its files have an
    /// address of their own ([`crate::targets::Target::file_address`]).
    addresses: BTreeMap<String, String>,
    /// What the check found of a draft published since on the repository's pages.
    published: Option<String>,
}

/// How long a check runs before the command says it is still waiting for the server.
const SLOW_CHECK: Duration = Duration::from_secs(15);

/// Check (and with `repair`, repair) one deposit, and log what was found and done. With
/// `bar`, a check that reads bytes back shows its progress on a terminal. `watch` is the
/// deposit's target's: once its server has not answered a check, no more are sent to it.
async fn check(
    store: &Store,
    targets: &BTreeMap<String, Result<Arc<dyn Target>, String>>,
    deposit: &Deposit,
    read: ReadBack,
    repair: bool,
    bar: bool,
    watch: &SilenceWatch,
) -> Finding {
    let job = &deposit.job;
    let unknown = |label: String, why: String| Finding {
        label,
        verdict: Verification::Unknown(why),
        repair: None,
        addresses: BTreeMap::new(),
        published: None,
    };
    let target = match targets.get(&job.target) {
        Some(Ok(target)) => target,
        Some(Err(why)) => {
            return unknown(job.target.clone(), format!("cannot open the target: {why}"));
        }
        None => return unknown(job.target.clone(), "the target was not opened".into()),
    };
    if let Some(why) = watch.silence() {
        return unknown(target.label(), why);
    }
    let document = match manifest_of(store, job) {
        Ok(document) => document,
        Err(why) => return unknown(target.label(), why),
    };
    let read = read_back_for(store, job, read);
    let bar = (bar && read == ReadBack::Bytes).then(|| {
        // A repair reads the deposit back twice when it sends anything: no total to show.
        let total = (!repair).then(|| document.total_size());
        read_back_bar(&deposit.head(&target.label()), total)
    });
    let progress: ProgressSink = match bar.clone() {
        Some(bar) => Arc::new(move |n| bar.inc(n)),
        None => Arc::new(|_| {}),
    };
    // What was found (and done) goes into the deposit's log, so `lodge log` keeps the
    // history of the checks and repairs.
    let finding = if repair {
        let sent_from = crate::engine::repair::from_a_folder_here(
            store,
            &from_the_checked_folder(store, deposit),
        );
        let repair = repair_watched(
            watch,
            target.as_ref(),
            &deposit.name,
            &sent_from,
            &document,
            read,
            &progress,
        )
        .await;
        if let Err(e) = log_repair(store, job, &repair) {
            say_err!("warning: the repair of job {} was not logged: {e}", job.id);
        }
        Finding {
            label: target.label(),
            addresses: damaged_files_at(target.as_ref(), job, &document, &repair.verdict()),
            verdict: repair.verdict(),
            repair: Some(repair),
            published: None,
        }
    } else {
        let checking = watch.check(
            target.as_ref(),
            &deposit.name,
            job,
            &document,
            read,
            &progress,
        );
        let waiting_on = match read {
            // Reading a large deposit back takes the time its bytes take: not the server's
            // slowness.
            ReadBack::Bytes => format!(
                "reading its {} back from the server to hash them",
                crate::wording::human_bytes(document.manifest.iter().map(|e| e.size).sum())
            ),
            ReadBack::Sizes => "the server is slow to answer or busy (Lodge waits up to 2 \
                                minutes for an answer)"
                .to_string(),
        };
        let verdict = said_if_slow(checking, &deposit.head(&target.label()), &waiting_on).await;
        if let Err(e) = log_finding(store, job, &verdict) {
            say_err!("warning: the check of job {} was not logged: {e}", job.id);
        }
        Finding {
            label: target.label(),
            addresses: damaged_files_at(target.as_ref(), job, &document, &verdict),
            verdict,
            repair: None,
            published: None,
        }
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // A draft published on the repository's pages since is no draft any more: said, and
    // logged so every view cites it.
    let mut finding = finding;
    if !matches!(finding.verdict, Verification::Unknown(_)) {
        match note_publication(store, target.as_ref(), job).await {
            Ok(event) => finding.published = event.map(|e| e.message),
            Err(e) => say_err!(
                "warning: the publication of job {} was not logged: {e}",
                job.id
            ),
        }
    }
    finding
}

/// Where `target` keeps each file `verdict` found damaged, by manifest path.
fn damaged_files_at(
    target: &dyn crate::targets::Target,
    job: &JobRow,
    document: &crate::content::ContentDocument,
    verdict: &Verification,
) -> BTreeMap<String, String> {
    let Verification::Damaged(found) = verdict else {
        return BTreeMap::new();
    };
    found
        .iter()
        .filter_map(Discrepancy::file)
        .filter_map(|path| {
            let entry = document.manifest.iter().find(|e| e.path == path)?;
            let at = target.file_address(&job.key, document, entry)?;
            Some((path.to_string(), at))
        })
        .collect()
}

/// Run `checking`; if it takes longer than [`SLOW_CHECK`], say once (on stderr) what it is
/// still waiting on, so a slow or hung server does not look like Lodge hung.
async fn said_if_slow<T>(checking: impl Future<Output = T>, head: &str, waiting_on: &str) -> T {
    let say = |line: &str| say_err!("{line}");
    told_if_slow(checking, SLOW_CHECK, head, waiting_on, say).await
}

/// [`said_if_slow`] with the wait and where the line goes given.
async fn told_if_slow<T>(
    checking: impl Future<Output = T>,
    slow: Duration,
    head: &str,
    waiting_on: &str,
    tell: impl FnOnce(&str),
) -> T {
    tokio::pin!(checking);
    tokio::select! {
        done = &mut checking => done,
        () = tokio::time::sleep(slow) => {
            tell(&format!("still checking {head} after {} s: {waiting_on}", slow.as_secs()));
            checking.await
        }
    }
}

/// The deposit's job as a repair sends its files: from the folder of the dataset being
/// checked, when the deposit is another dataset's of the same key (one removed from the list
/// since, whose folder was added again; a copy's). The same key is the same files.
fn from_the_checked_folder(store: &Store, deposit: &Deposit) -> JobRow {
    let job = &deposit.job;
    if job.dataset_id == Some(deposit.dataset) {
        return job.clone();
    }
    match store.dataset(deposit.dataset) {
        Ok(Some(d)) if d.key == Some(job.key) => JobRow {
            dataset_id: Some(d.id),
            dataset_path: Some(d.path),
            ..job.clone()
        },
        _ => job.clone(),
    }
}

fn print_text(head: &str, finding: &Finding) {
    if let Some(Repair::PutBack { files, record, .. }) = &finding.repair {
        say!(
            "repaired {head}: sent again {}",
            what_was_sent(files, *record)
        );
    }
    match &finding.verdict {
        Verification::Intact(what) => say!("intact   {head}: {what}"),
        Verification::Damaged(found) => {
            say!("DAMAGED  {head}:");
            for d in found {
                match d.file().and_then(|path| finding.addresses.get(path)) {
                    Some(at) => say!("           {d}\n             at {at}"),
                    None => say!("           {d}"),
                }
            }
        }
        Verification::Unknown(why) => say!("UNKNOWN  {head}: {why}"),
    }
    if let Some(published) = &finding.published {
        say!("           {published}");
    }
    match &finding.repair {
        Some(Repair::NothingSent { why: Some(why), .. }) => {
            say!("           not repaired: {why}");
        }
        Some(Repair::SendFailed {
            files, sent, error, ..
        }) => {
            // What went back before it stopped is back (the damage above is what is left).
            if !sent.is_empty() {
                say!("           sent again {}", sent.join(", "));
            }
            match files.is_empty() {
                true => say!("           not repaired: {error}"),
                false => say!(
                    "           not repaired: sending {} again stopped: {error}",
                    files.join(", ")
                ),
            }
        }
        _ => {}
    }
}

fn as_json(deposit: &Deposit, finding: &Finding) -> serde_json::Value {
    let (verdict, found): (&str, Vec<String>) = match &finding.verdict {
        Verification::Intact(what) => ("intact", vec![what.clone()]),
        Verification::Damaged(found) => {
            ("damaged", found.iter().map(ToString::to_string).collect())
        }
        Verification::Unknown(why) => ("unknown", vec![why.clone()]),
    };
    let job = &deposit.job;
    let mut out = serde_json::json!({
        "dataset": deposit.dataset,
        "name": deposit.name,
        "job": job.id,
        "target": job.target,
        "target_label": finding.label,
        "key": job.key.to_hex(),
        "earlier_key": deposit.earlier_key,
        "identifier": job.identifier,
        "url": job.url,
        "verdict": verdict,
        "found": found,
        // Where the target keeps each damaged file, by manifest path.
        "found_at": finding.addresses,
        // A draft found published since on the repository's pages: what was logged.
        "published_since": finding.published,
    });
    // With --repair: the files sent again, and why nothing was, when so.
    if let Some(repair) = &finding.repair {
        let (sent, record, not_repaired): (&[String], bool, Option<&str>) = match repair {
            Repair::NothingSent { why, .. } => (&[], false, why.as_deref()),
            Repair::PutBack { files, record, .. } => (files, *record, None),
            Repair::SendFailed { sent, error, .. } => (sent, false, Some(error.as_str())),
        };
        out["repaired"] = serde_json::json!(sent);
        out["record_written_again"] = serde_json::json!(record);
        out["not_repaired"] = serde_json::json!(not_repaired);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_check_still_waiting_past_the_limit_says_once_what_it_waits_on_then_finishes() {
        let (answer, answered) = tokio::sync::oneshot::channel::<&str>();
        let mut told = Vec::new();
        // The server "answers" only once the line is said: the check cannot end first.
        let verdict = told_if_slow(
            async { answered.await.unwrap() },
            Duration::from_millis(10),
            "ds1 on lab",
            "reading the deposit back from the server",
            |line| {
                told.push(line.to_string());
                answer.send("intact").unwrap();
            },
        )
        .await;
        assert_eq!(verdict, "intact");
        assert_eq!(
            told,
            ["still checking ds1 on lab after 0 s: reading the deposit back from the server"]
        );
    }

    #[tokio::test]
    async fn a_quick_check_says_nothing_more() {
        let mut told = Vec::new();
        let verdict = told_if_slow(
            std::future::ready("intact"),
            SLOW_CHECK,
            "ds1 on lab",
            "the server",
            |line| told.push(line.to_string()),
        )
        .await;
        assert_eq!(verdict, "intact");
        assert!(told.is_empty(), "{told:?}");
    }
}
