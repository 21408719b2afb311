//! `lodge show DATASET`: one dataset as the store knows it — folder, key, the metadata that
//! will be deposited (and what is missing from it), the files of its last scan, and every
//! deposit of it, with what its latest check found (`lodge verify`) — and its folder as it
//! is now, so a researcher can check what a deposit will say before making it.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::ExitCode;

use super::Database;
use super::folder::FolderNow;
use super::output::say;
use super::output::{check_json, time_text};
use super::target_arg::{TargetNames, deposit_command};
use crate::content::{ContentDocument, Metadata, citation};
use crate::engine::verify::verdict_of;
use crate::store::{
    DatasetRow, DepositResult, EventKind, EventRow, JobRow, JobState, Store, replays_by_original,
};
use crate::wording::{count_of, human_bytes, on_one_line, replayed_since};

/// Files listed before the rest is summed up, unless `--files` asks for every one.
const FILES_SHOWN: usize = 20;

pub fn show(
    db: &Database,
    selector: &str,
    all_files: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let store = db.open_existing()?;
    let dataset = super::add::select_datasets(&store, &[selector.to_string()], false)?.remove(0);
    let document = match &dataset.key {
        Some(key) => store.document(key)?,
        None => None,
    };
    let jobs = store.jobs_of_dataset(dataset.id)?;
    let checks = latest_checks(&store, &jobs)?;
    // Why the target of each job still to be sent is paused, when it is: nothing is sent
    // there until the user acts.
    let paused: HashMap<String, String> = store.paused_targets()?.into_iter().collect();
    // Every record of the dataset's files: under its key (a copy's deposit), or another's.
    let records_of_files = match &dataset.fingerprint {
        Some(fingerprint) => store.results_with_fingerprint(&fingerprint.to_hex())?,
        None => Vec::new(),
    };
    let same_data = same_data_elsewhere(&dataset, &records_of_files);
    let through_copies = through_copies(&store, &dataset, &jobs, &records_of_files)?;
    let through_pending = match &dataset.key {
        Some(key) => store
            .unlanded_deposits_of_copies(key, dataset.id)?
            .into_iter()
            .filter(|t| !jobs.iter().any(|j| j.target == t.target && j.key == *key))
            .collect(),
        None => Vec::new(),
    };
    let folder = FolderNow::of(&store, &dataset)?;
    let deposits = Deposits {
        jobs,
        checks,
        paused,
        same_data,
        through: through_copies,
        through_pending,
        published: crate::engine::verify::published_records(&store)?,
    };
    let names = TargetNames::load();
    if json {
        let out = as_json(&names, &dataset, document.as_ref(), &deposits, &folder);
        say!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        let retryable: HashSet<i64> = store.failed_job_ids(None)?.into_iter().collect();
        print_text(
            &store,
            &names,
            &dataset,
            document.as_ref(),
            &deposits,
            &retryable,
            all_files,
        );
        print_folder(&folder, dataset.id);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_folder(folder: &FolderNow, dataset: i64) {
    match folder {
        FolderNow::Readable {
            left_out,
            changed,
            added,
        } => {
            if !left_out.is_empty() {
                say!("left out of the deposit ({}):", left_out.len());
                for s in left_out {
                    say!("  {} ({})", s.rel_path, s.why());
                }
            }
            if let Some(changed) = changed {
                say!("note: {changed}");
            }
            if !added.is_empty() {
                say!(
                    "note: added since the last scan, so not in its key: {}",
                    added.join(", ")
                );
            }
            if changed.is_some() || !added.is_empty() {
                say!(
                    "      the key above is of the folder as scanned; `lodge scan {dataset}` \
                     re-keys it as it is now"
                );
            }
        }
        FolderNow::Unreadable(why) => {
            say!("note: the folder cannot be read now: {why}");
            say!(
                "      to take the dataset off the list (what it deposited stays): \
                 `lodge remove {dataset}`"
            );
        }
        // Not gone: removing it here would take it off every machine's list.
        FolderNow::OnAnotherMachine(origin) => say!(
            "note: the folder is on {origin}, where the dataset was added (this machine cannot \
             read it): scan it or change its metadata there"
        ),
    }
}

/// How to cite the record job `j` made or found, when it landed under the dataset's current
/// key (whose metadata is the dataset's).
/// A drafting target's deposit published since is cited by its record's address, not the
/// draft's page, where Lodge has it (`published`); one still a draft is not cited, since
/// nobody can follow its link or DOI until it is published.
fn citation_of(
    d: &DatasetRow,
    j: &JobRow,
    published: &crate::targets::PublishedRecords,
) -> Option<String> {
    let identifier = j.identifier.as_deref()?;
    if published.is_draft(&j.target, Some(identifier)) {
        return None;
    }
    let url = published
        .public_url(&j.target, identifier)
        .or(j.url.as_deref());
    (j.state.is_landed() && d.key == Some(j.key)).then(|| citation(&d.metadata, identifier, url))
}

/// Said under a deposit a drafting target holds ([`crate::targets::scope_makes_drafts`]).
pub(super) const DRAFT_NOTE: &str = "a draft, not public: publish it at the repository (or \
                                     deposit to its publishing target), then cite it";

/// Identifiers (and targets) that hold this dataset's files under other metadata.
fn same_data_elsewhere(d: &DatasetRow, records: &[DepositResult]) -> Vec<(String, String)> {
    let Some(key) = &d.key else {
        return Vec::new();
    };
    records
        .iter()
        .filter(|r| r.key != key.to_hex())
        .map(|r| (r.identifier.clone(), r.target.clone()))
        .collect()
}

/// A deposit of this dataset's content made by another dataset's job (a copy of the folder:
/// one deposit for both), on a target where none of its own jobs landed that key: of its
/// current key, or of a key it had before it changed (its adds and rescans name them).
struct ThroughCopy {
    target: String,
    identifier: String,
    url: Option<String>,
    /// The job that made it, and its dataset's name (if that is still on the list).
    job: Option<i64>,
    by: Option<String>,
    /// The key deposited, and whether it is the dataset's current one.
    key: String,
    current: bool,
    /// Whether the dataset's current content has landed on that target too (by its own
    /// job or a copy's): said of an earlier key's record.
    current_there: bool,
}

fn through_copies(
    store: &Store,
    d: &DatasetRow,
    jobs: &[JobRow],
    records: &[DepositResult],
) -> anyhow::Result<Vec<ThroughCopy>> {
    let Some(key) = &d.key else {
        return Ok(Vec::new());
    };
    // Keys the dataset had before, newest first, each once.
    let mut earlier_keys: Vec<crate::content::ContentKey> = Vec::new();
    for e in store.events_for_dataset(d.id)?.iter().rev() {
        let had = matches!(
            e.kind,
            EventKind::Added | EventKind::Rescanned | EventKind::Edited
        )
        .then_some(e.content_key.as_deref())
        .flatten()
        .and_then(|k| k.parse().ok());
        if let Some(k) = had
            && k != *key
            && !earlier_keys.contains(&k)
        {
            earlier_keys.push(k);
        }
    }
    let mut candidates: Vec<(DepositResult, bool)> = records
        .iter()
        .filter(|r| r.key == key.to_hex())
        .map(|r| (r.clone(), true))
        .collect();
    for k in &earlier_keys {
        candidates.extend(store.results_for_key(k)?.into_iter().map(|r| (r, false)));
    }
    let landed_by_own_job = |target: &str, key: &str| {
        jobs.iter()
            .any(|j| j.target == target && j.key.to_hex() == key && j.state.is_landed())
    };
    let current_hex = key.to_hex();
    let mut out = Vec::new();
    for (r, current) in candidates {
        if landed_by_own_job(&r.target, &r.key) {
            continue;
        }
        let current_there = landed_by_own_job(&r.target, &current_hex)
            || records
                .iter()
                .any(|c| c.target == r.target && c.key == current_hex);
        let by = match r.job_id {
            Some(id) => store.jobs(&[id])?.pop().and_then(|j| j.dataset_name),
            None => None,
        };
        out.push(ThroughCopy {
            target: r.target,
            identifier: r.identifier,
            url: r.url,
            job: r.job_id,
            by,
            key: r.key,
            current,
            current_there,
        });
    }
    Ok(out)
}

/// The latest check of each landed deposit among `jobs` that was ever checked, by job.
fn latest_checks(store: &Store, jobs: &[JobRow]) -> anyhow::Result<HashMap<i64, EventRow>> {
    let mut checks = HashMap::new();
    for j in jobs.iter().filter(|j| j.state.is_landed()) {
        if let Some(check) = store.latest_check(&j.target, &j.key)? {
            checks.insert(j.id, check);
        }
    }
    Ok(checks)
}

/// What Lodge knows of a dataset's deposits, for `show` to print.
struct Deposits {
    /// Its jobs, every target.
    jobs: Vec<JobRow>,
    /// The latest check of each job's record, by job id.
    checks: HashMap<i64, EventRow>,
    /// Why each paused target is paused, by identity.
    paused: HashMap<String, String>,
    /// Records of the same files under other metadata: identifier and target.
    same_data: Vec<(String, String)>,
    /// Records its key (or an earlier one) got through another dataset, a copy.
    through: Vec<ThroughCopy>,
    /// Deposits of its key a copy queued that have not landed (queued, under way, failed,
    /// refused), on targets where it has no job of its own for that key.
    through_pending: Vec<JobRow>,
    /// Which drafting targets' deposits were published since, by deposits here.
    published: crate::targets::PublishedRecords,
}

fn print_text(
    store: &Store,
    names: &TargetNames,
    d: &DatasetRow,
    document: Option<&ContentDocument>,
    deposits: &Deposits,
    retryable: &HashSet<i64>,
    all_files: bool,
) {
    let Deposits {
        jobs,
        checks,
        paused,
        same_data,
        through,
        through_pending,
        published,
    } = deposits;
    say!("dataset {} {}", d.id, d.name);
    say!("  folder       {}", on_one_line(&d.path));
    match &d.key {
        Some(key) => say!("  key          {}", key.to_hex()),
        None => say!("  key          (not scanned yet: `lodge scan {}`)", d.id),
    }
    if let Some(scanned) = d.scanned_at {
        say!(
            "  scanned      {} — {}, {}",
            time_text(scanned),
            count_of(d.file_count, "file", "files"),
            human_bytes(d.total_bytes)
        );
    }
    print_metadata(&d.metadata, Path::new(&d.path));

    if let Some(doc) = document {
        say!("files ({}):", doc.manifest.len());
        let shown = if all_files {
            doc.manifest.len()
        } else {
            FILES_SHOWN
        };
        // Every file (`--files`) with its whole SHA-256, to find it on a server that keeps
        // files by digest; else the digest's start.
        let digits = if all_files { 64 } else { 12 };
        for f in doc.manifest.iter().take(shown) {
            say!(
                "  {}  {:>10}  {}",
                &f.sha256.to_hex()[..digits],
                human_bytes(f.size),
                f.path
            );
        }
        if doc.manifest.len() > shown {
            say!(
                "  … and {} more (`lodge show {} --files` lists every one)",
                doc.manifest.len() - shown,
                d.id
            );
        }
    }

    if jobs.is_empty() && through.is_empty() && through_pending.is_empty() {
        say!("deposits: none yet");
    } else {
        say!("deposits:");
        for t in through_pending {
            let by = t.dataset_name.as_deref().unwrap_or("a copy");
            say!(
                "  job {:<5} {:<10} {} — {by}'s job: a copy with the same key, one deposit for both",
                t.id,
                t.state.as_str(),
                names.of(&t.target)
            );
            if let Some(error) = &t.last_error {
                say!("            last error: {error}");
            }
            if t.state == JobState::Failed && retryable.contains(&t.id) {
                say!(
                    "            retry with the same key (for both): `lodge retry {}`",
                    t.id
                );
            }
        }
        for t in through {
            let url = t.url.as_deref().filter(|u| *u != t.identifier);
            let by = match (&t.by, t.job) {
                (Some(name), Some(job)) => format!("{name}'s job {job}"),
                (None, Some(job)) => format!("job {job}"),
                _ => "another dataset".to_string(),
            };
            let record = format!(
                "{} {}{}",
                names.of(&t.target),
                t.identifier,
                url.map(|u| format!(" {u}")).unwrap_or_default()
            );
            if !t.current {
                // Not this content's record: no citation, and say whether this one is there.
                say!(
                    "  {:<20} {record} — its earlier content (key {}), through {by}: a copy \
                     that had the same key{}",
                    "(earlier, shared)",
                    &t.key[..12],
                    if t.current_there {
                        ""
                    } else {
                        "; this content is not deposited there yet"
                    }
                );
                continue;
            }
            say!(
                "  {:<20} {record} — through {by}: a copy with the same key, one deposit for both",
                "(shared)",
            );
            match published.is_draft(&t.target, Some(&t.identifier)) {
                true => say!("            {DRAFT_NOTE}"),
                false => say!(
                    "            cite as: {}",
                    citation(
                        &d.metadata,
                        &t.identifier,
                        (published.public_url(&t.target, &t.identifier)).or(t.url.as_deref())
                    )
                ),
            }
        }
        let mut cited = std::collections::HashSet::new();
        let replays = replays_by_original(&jobs.iter().collect::<Vec<_>>());
        let folded: std::collections::HashSet<i64> = replays.values().flatten().copied().collect();
        for j in jobs.iter().filter(|j| !folded.contains(&j.id)) {
            let earlier = match &d.key {
                Some(key) if *key != j.key => format!(" (earlier key {})", j.key.short()),
                _ => String::new(),
            };
            let paused_for = paused.get(&j.target).filter(|_| !j.state.is_terminal());
            let what = match (&j.identifier, &j.url) {
                // S3 and WebDAV records are named by their address: once is enough.
                (Some(id), Some(url)) if id != url => format!("{id} {url}"),
                (Some(id), _) => id.clone(),
                // The pause's line below says it.
                _ if j.last_error.as_ref() == paused_for => String::new(),
                _ => j.last_error.clone().unwrap_or_default(),
            };
            let line = format!(
                "  job {:<5} {:<10} {} {what}{earlier}",
                j.id,
                j.state.as_str(),
                names.of(&j.target)
            );
            say!("{}", line.trim_end());
            let draft =
                j.state.is_landed() && published.is_draft(&j.target, j.identifier.as_deref());
            if draft {
                say!("            {DRAFT_NOTE}");
            }
            if let Some(again) = replays.get(&j.id) {
                say!("            {}", replayed_since(again));
            }
            if j.state == JobState::Running {
                let resume = deposit_command(store, &j.target, d.id);
                let resume = match d.key == Some(j.key) {
                    true => super::output::TakeOver::Command(&resume),
                    false => super::output::TakeOver::EarlierKey(j.id),
                };
                if let Some(note) = super::output::running_note(j, resume) {
                    say!("            {note}");
                }
            }
            if let Some(reason) = paused_for {
                say!(
                    "            {} is paused: {reason} — {}, then deposit it again (`{}`)",
                    names.of(&j.target),
                    super::deposit::how_to_resume(reason, &j.target),
                    deposit_command(store, &j.target, d.id)
                );
            }
            if let Some((intact, what)) = checks.get(&j.id).and_then(verdict_of) {
                let at = time_text(checks[&j.id].at);
                match intact {
                    true => say!("            last checked {at}: intact ({what})"),
                    false => say!(
                        "            last checked {at}: DAMAGED: {what} ({})",
                        super::output::damage_hint(store, what, d.id, &j.target)
                    ),
                }
            }
            if let Some(at) = j.dismissed_at {
                let again = match j.state {
                    JobState::Failed => format!("`lodge retry {}` queues it again", j.id),
                    _ => "a new deposit queues it again".to_string(),
                };
                say!(
                    "            dismissed (given up on) {}: out of `lodge status`; {again}",
                    time_text(at)
                );
            } else if j.state == JobState::Failed {
                if retryable.contains(&j.id) && d.key.is_some_and(|k| k != j.key) {
                    // `retry` would refuse it: what it was to send is no longer the folder.
                    say!(
                        "            scanned again since: deposit the folder as it is now \
                         (`{}`)",
                        deposit_command(store, &j.target, d.id)
                    );
                } else if retryable.contains(&j.id) {
                    say!(
                        "            retry with the same key: `lodge retry {}`",
                        j.id
                    );
                } else if let Some(later) = jobs
                    .iter()
                    .find(|o| o.target == j.target && o.key == j.key && o.state.is_landed())
                {
                    say!(
                        "            landed {} by job {} as {}",
                        if later.id < j.id { "already" } else { "since" },
                        later.id,
                        later.identifier.as_deref().unwrap_or("?")
                    );
                }
            }
            // Once per record: replays of it name the same one (a draft's none).
            if let Some(cite) = citation_of(d, j, published)
                && cited.insert(cite.clone())
            {
                say!("            cite as: {cite}");
                // Named by the title at the job's key, which the citation's condition makes
                // the dataset's own.
                if let Some(folder) = names.dataset_folder(&j.target, &j.key, &d.metadata.title) {
                    say!("            files in: {folder}");
                }
            }
        }
    }
    for (identifier, target) in same_data {
        say!(
            "note: the same files were deposited under other metadata as {identifier} on {}",
            names.of(target)
        );
    }
}

/// The metadata a deposit will send, one field a line, then what stops it being deposited.
fn print_metadata(m: &Metadata, root: &Path) {
    // Every value on its own line: one that holds a line break (refused as a problem
    // below, but it may be stored) shows it as `\n`. The description alone may run over
    // several lines; its further lines are indented under the first.
    let or_none = |s: &str| {
        if s.is_empty() {
            "—".to_string()
        } else {
            on_one_line(s).into_owned()
        }
    };
    say!("  title        {}", or_none(&m.title));
    if m.creators.is_empty() {
        say!("  creators     —");
    }
    for (i, c) in m.creators.iter().enumerate() {
        let label = if i == 0 { "creators" } else { "" };
        // As `--creator` takes it, control characters shown as escapes.
        let line = super::add::creator_text(&c.name, c);
        say!("  {label:<12} {}", on_one_line(&line));
    }
    let year = m
        .publication_year
        .map(|y| y.to_string())
        .unwrap_or_default();
    say!("  year         {}", or_none(&year));
    say!("  publisher    {}", or_none(&m.publisher));
    say!("  type         {}", on_one_line(&m.resource_type));
    let optional = [
        ("license", m.license.as_deref().map(on_one_line)),
        ("version", m.version.as_deref().map(on_one_line)),
        (
            "language",
            m.language.as_deref().map(|code| {
                // The name people read, and the code it is keyed (and sent) as.
                match crate::content::language_shown(code) {
                    name if name == code => on_one_line(code).into_owned().into(),
                    name => format!("{name} ({code})").into(),
                }
            }),
        ),
        (
            "files",
            (!m.access.is_open()).then(|| on_one_line(&m.access.describe()).into_owned().into()),
        ),
        (
            "keywords",
            (!m.keywords.is_empty()).then(|| {
                // A keyword with a comma of its own ("soil, frozen") in quotes: joined by
                // commas, it would read as two.
                let shown: Vec<String> = m
                    .keywords
                    .iter()
                    .map(|k| match k.contains(',') {
                        true => format!("\"{}\"", on_one_line(k)),
                        false => on_one_line(k).into_owned(),
                    })
                    .collect();
                shown.join(", ").into()
            }),
        ),
        (
            "communities",
            (!m.communities.is_empty()).then(|| {
                let shown: Vec<_> = m.communities.iter().map(|c| on_one_line(c)).collect();
                shown.join(", ").into()
            }),
        ),
    ];
    for (field, value) in optional {
        if let Some(v) = value {
            say!("  {field:<12} {v}");
        }
    }
    for (i, d) in m.dates.iter().enumerate() {
        // As `--date` takes it.
        let label = if i == 0 { "dates" } else { "" };
        say!("  {label:<12} {}", on_one_line(&d.describe()));
    }
    for (i, l) in m.locations.iter().enumerate() {
        // As `--location` takes it.
        let label = if i == 0 { "locations" } else { "" };
        say!("  {label:<12} {}", on_one_line(&l.describe()));
    }
    for (i, r) in m.related.iter().enumerate() {
        // As `--related` takes it.
        let label = if i == 0 { "related" } else { "" };
        say!("  {label:<12} {}", on_one_line(&r.describe()));
    }
    for (i, f) in m.funding.iter().enumerate() {
        // As `--funding` takes it.
        let label = if i == 0 { "funding" } else { "" };
        say!("  {label:<12} {}", on_one_line(&f.describe()));
    }
    for (i, c) in m.contributors.iter().enumerate() {
        // As `--contributor` takes it.
        let label = if i == 0 { "contributor" } else { "" };
        say!("  {label:<12} {}", on_one_line(&c.describe()));
    }
    // Line by line, as all output is written: a failed write is said, not a panic.
    for (label, text) in [("description", &m.description), ("methods", &m.methods)] {
        if let Some(text) = text {
            for line in indented(label, text).lines() {
                say!("{line}");
            }
        }
    }
    if let Some(note) = super::add::license_note(m) {
        say!("  note: {note}");
    }
    if let Some(note) = super::add::year_note(m, crate::content::this_year()) {
        say!("  note: {note}");
    }
    if let Some(warning) = super::add::embargo_note(m, &crate::content::today()) {
        say!("  warning: {warning}");
    }
    for note in super::add::person_notes(m) {
        say!("  note: {note}");
    }
    let problems = m.problems();
    if !problems.is_empty() {
        say!(
            "  metadata incomplete; deposit will refuse it until these are fixed \
             (`lodge add` the folder again with the flags named):"
        );
        for p in &problems {
            say!("    {p}");
        }
        if let Some(fix) = super::add::creators_fix(m, &problems, root) {
            say!("    {fix}");
        }
    }
}

/// A text of several lines (the description, the methods): the first after its `label`
/// and the others indented under it; control characters other than line breaks are escaped.
fn indented(label: &str, text: &str) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let label = if i == 0 { label } else { "" };
        out.push_str(&format!("  {label:<12} {}\n", on_one_line(line)));
    }
    out
}

fn as_json(
    names: &TargetNames,
    d: &DatasetRow,
    document: Option<&ContentDocument>,
    deposits: &Deposits,
    folder: &FolderNow,
) -> serde_json::Value {
    let (jobs, checks, paused) = (&deposits.jobs, &deposits.checks, &deposits.paused);
    let (same_data, through) = (&deposits.same_data, &deposits.through);
    let published = &deposits.published;
    let through_pending: Vec<serde_json::Value> = deposits
        .through_pending
        .iter()
        .map(|t| {
            serde_json::json!({
                "job": t.id,
                "target": t.target,
                "state": t.state.as_str(),
                "dataset": t.dataset_id,
                "dataset_name": t.dataset_name,
                "attempts": t.attempts_in_all(),
                "last_error": t.last_error,
            })
        })
        .collect();
    let folder_now = match folder {
        FolderNow::Readable {
            left_out,
            changed,
            added,
        } => serde_json::json!({
            "left_out": left_out
                .iter()
                .map(|s| serde_json::json!({"path": s.rel_path, "why": s.why()}))
                .collect::<Vec<_>>(),
            "changed_since_scan": changed,
            "added_since_scan": added,
        }),
        FolderNow::Unreadable(why) => serde_json::json!({ "problem": why }),
        FolderNow::OnAnotherMachine(origin) => serde_json::json!({
            "problem": format!("the folder is on {origin}, where the dataset was added"),
            "added_on": origin,
        }),
    };
    let files: Vec<serde_json::Value> = document
        .map(|doc| {
            doc.manifest
                .iter()
                .map(|f| serde_json::json!({"path": f.path, "size": f.size, "sha256": f.sha256.to_hex()}))
                .collect()
        })
        .unwrap_or_default();
    let deposits: Vec<serde_json::Value> = jobs
        .iter()
        .map(|j| {
            serde_json::json!({
                "job": j.id,
                "target": j.target,
                "key": j.key.to_hex(),
                "current_key": d.key == Some(j.key),
                "state": j.state.as_str(),
                "identifier": j.identifier,
                "url": j.url,
                "attempts": j.attempts_in_all(),
                "last_error": j.last_error,
                // Given up on (`lodge dismiss`): out of `status`, kept here.
                // As text, named as `history --json` names its text time (its
                // `dismissed_at` is milliseconds).
                "dismissed": j.dismissed_at.map(time_text),
                // Landed as a draft, not public until published.
                "draft": j.state.is_landed()
                    && published.is_draft(&j.target, j.identifier.as_deref()),
                // Why its target is paused, for a job still to be sent there.
                "paused": paused.get(&j.target).filter(|_| !j.state.is_terminal()),
                "citation": citation_of(d, j, published),
                // Where its files are, on a target that keeps a folder per dataset (known
                // for a deposit of the dataset's current key, whose title it is named by).
                "files_in": citation_of(d, j, published)
                    .and_then(|_| names.dataset_folder(&j.target, &j.key, &d.metadata.title)),
                "last_check": checks.get(&j.id).and_then(check_json),
            })
        })
        .collect();
    let problems: Vec<String> = d
        .metadata
        .problems()
        .iter()
        .map(|p| p.to_string())
        .collect();
    serde_json::json!({
        "dataset": d.id,
        "name": d.name,
        "path": d.path,
        "key": d.key.map(|k| k.to_hex()),
        "fingerprint": d.fingerprint.as_ref().map(|f| f.to_hex()),
        // Text, as every time named without `_at` (`*_at` are milliseconds).
        "scanned": d.scanned_at.map(time_text),
        "file_count": d.file_count,
        "total_bytes": d.total_bytes,
        "metadata": d.metadata,
        "metadata_problems": problems,
        "files": files,
        "folder_now": folder_now,
        "deposits": deposits,
        "deposited_through_copies": through
            .iter()
            .map(|t| serde_json::json!({
                "target": t.target,
                "identifier": t.identifier,
                "url": t.url,
                "job": t.job,
                "dataset_name": t.by,
                "key": t.key,
                "current_key": t.current,
                // Landed as a draft, not public until published.
                "draft": published.is_draft(&t.target, Some(&t.identifier)),
                "citation": t
                    .current
                    .then(|| citation(
                        &d.metadata,
                        &t.identifier,
                        (published.public_url(&t.target, &t.identifier)).or(t.url.as_deref()),
                    )),
            }))
            .collect::<Vec<_>>(),
        // Deposits of its key a copy queued, not landed yet: one job for both.
        "pending_through_copies": through_pending,
        "same_data_elsewhere": same_data
            .iter()
            .map(|(identifier, target)| serde_json::json!({"identifier": identifier, "target": target}))
            .collect::<Vec<_>>(),
    })
}
