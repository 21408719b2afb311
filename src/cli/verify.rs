//! `lodge verify`: read back what the repositories hold of each landed deposit of the chosen
//! datasets, and say whether it is still whole: the record of the key, and every file by its
//! size or (`--bytes`) by the SHA-256 of its bytes. A fixity check: it changes nothing,
//! locally or on a server.

use std::collections::{BTreeMap, HashSet};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;

use super::Database;
use super::add::select_datasets;
use super::target_arg::{cli_target_scope, open_by_scope};
use crate::content::ContentKey;
use crate::store::{JobRow, Store};
use crate::targets::{ReadBack, Target, holdings::files_checked};
use crate::wording::count_of;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Every dataset in the store.
    #[arg(long, conflicts_with = "datasets")]
    pub all: bool,
    /// Datasets by number, folder, name or key prefix.
    pub datasets: Vec<String>,
    /// Only deposits on this target (a name from `lodge target list`, or a URL).
    #[arg(long)]
    pub target: Option<String>,
    /// Read every file back and compare its SHA-256 (finds bytes changed in place; costs a
    /// download of everything). By default only the records and the files' sizes are read.
    #[arg(long)]
    pub bytes: bool,
    /// Bearer token for the targets, if they need one.
    #[arg(long, env = "LODGE_TOKEN", hide_env_values = true, value_parser = super::parse_token)]
    pub token: Option<String>,
}

/// One landed deposit to check: the latest job that landed a key on a target.
struct Deposit {
    dataset: String,
    job: JobRow,
}

/// How the check of one deposit came out.
enum Verdict {
    Intact,
    Damaged,
    Unknown,
}

pub async fn verify(db: &Database, args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let store = Arc::new(db.open_existing()?);
    let only = args.target.as_deref().map(cli_target_scope).transpose()?;
    let datasets = select_datasets(&store, &args.datasets, args.all)?;
    let mut deposits = Vec::new();
    for dataset in &datasets {
        let found = landed_deposits(&store, dataset.id, only.as_deref())?;
        if found.is_empty() {
            println!(
                "-        #{} {}: no deposit to check{}",
                dataset.id,
                dataset.name,
                match &args.target {
                    Some(t) => format!(" on {t}"),
                    None => String::new(),
                }
            );
        }
        let name = format!("#{} {}", dataset.id, dataset.name);
        deposits.extend(found.into_iter().map(|job| Deposit {
            dataset: name.clone(),
            job,
        }));
    }
    if deposits.is_empty() {
        println!("nothing to verify: deposit datasets first (`lodge deposit`)");
        return Ok(ExitCode::SUCCESS);
    }
    let read = if args.bytes {
        ReadBack::Bytes
    } else {
        ReadBack::Sizes
    };
    println!(
        "checking {} {}",
        count_of(deposits.len() as u64, "deposit", "deposits"),
        match read {
            ReadBack::Sizes => "by record and file sizes (--bytes reads every byte back)",
            ReadBack::Bytes => "by record and every file's bytes read back",
        }
    );

    let targets = open_targets(&store, &deposits, args.token.clone());
    let (mut intact, mut damaged, mut unknown) = (0u64, 0u64, 0u64);
    for deposit in &deposits {
        let verdict = check(&store, &targets, deposit, read).await;
        match verdict {
            Verdict::Intact => intact += 1,
            Verdict::Damaged => damaged += 1,
            Verdict::Unknown => unknown += 1,
        }
    }
    let mut summary = vec![format!("{intact} intact")];
    if damaged > 0 {
        summary.push(format!("{damaged} damaged"));
    }
    if unknown > 0 {
        summary.push(format!("{unknown} could not be checked"));
    }
    println!("{}", summary.join(", "));
    if damaged > 0 {
        println!(
            "`lodge deposit` does not send a landed deposit again (it replays it from the \
             store): put back what is missing or changed on the server from the dataset's \
             folder (`lodge show DATASET --files` lists each file with its SHA-256)"
        );
    }
    Ok(if damaged + unknown == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The latest landed job of each (target, key) of a dataset, oldest first; only on `only`.
fn landed_deposits(store: &Store, dataset: i64, only: Option<&str>) -> anyhow::Result<Vec<JobRow>> {
    let mut seen = HashSet::new();
    // Newest first: the first landed job of each scope is its latest.
    let mut jobs: Vec<JobRow> = store
        .jobs_of_dataset(dataset)?
        .into_iter()
        .filter(|j| j.state.is_landed() && j.identifier.is_some())
        .filter(|j| only.is_none_or(|t| j.target == t))
        .filter(|j| seen.insert((j.target.clone(), j.key)))
        .collect();
    jobs.reverse();
    Ok(jobs)
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
            let opened =
                open_by_scope(store, &scope, token.clone(), &keys).map_err(|e| format!("{e:#}"));
            (scope, opened)
        })
        .collect()
}

/// Check one deposit and print what was found.
async fn check(
    store: &Store,
    targets: &BTreeMap<String, Result<Arc<dyn Target>, String>>,
    deposit: &Deposit,
    read: ReadBack,
) -> Verdict {
    let job = &deposit.job;
    let recorded = job.identifier.as_deref().unwrap_or_default();
    let head = |target: &str| format!("{} on {target}, record {recorded}", deposit.dataset);
    let target = match targets.get(&job.target) {
        Some(Ok(target)) => target,
        Some(Err(why)) => {
            println!(
                "UNKNOWN  {}: cannot open the target: {why}",
                head(&job.target)
            );
            return Verdict::Unknown;
        }
        None => unreachable!("every deposit's target was opened"),
    };
    let head = head(&target.label());
    let document = match store.document(&job.key) {
        Ok(Some(document)) => document,
        Ok(None) => {
            println!(
                "UNKNOWN  {head}: Lodge no longer has the manifest of key {}",
                job.key.short()
            );
            return Verdict::Unknown;
        }
        Err(e) => {
            println!("UNKNOWN  {head}: cannot read its manifest: {e}");
            return Verdict::Unknown;
        }
    };
    let holdings = match target.holdings(&job.key, &document, read).await {
        Ok(holdings) => holdings,
        Err(failure) => {
            println!("UNKNOWN  {head}: the server could not be asked: {failure}");
            return Verdict::Unknown;
        }
    };
    let found = holdings.discrepancies(&document, recorded);
    if found.is_empty() {
        let what = if holdings.files.is_empty() {
            "the record is there (this target keeps no files)".to_string()
        } else {
            files_checked(&document, read)
        };
        println!("intact   {head}: {what}");
        return Verdict::Intact;
    }
    println!("DAMAGED  {head}:");
    for d in found {
        println!("           {d}");
    }
    Verdict::Damaged
}
