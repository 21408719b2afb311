//! `lodge deposit --dry-run`: what a deposit would replay, create or refuse, said line by
//! line as the real run would, with nothing sent to the target or recorded in the store.

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

use super::deposit::{copy_standing_in, refusal_before_queueing};
use super::output::say;
use crate::content::ContentKey;
use crate::engine::check_unchanged;
use crate::store::{DatasetRow, DepositResult, Store};
use crate::targets::Target;

/// Say what depositing `ready` (each dataset with its key, and `recorded`: the result its
/// scope holds already, if any) to `target` would do; `refused`: how many were refused
/// before these (not scanned, metadata incomplete). Exit status 0 only if none is refused
/// or left for another machine.
pub(super) fn print(
    store: &Store,
    target: &dyn Target,
    ready: &[(DatasetRow, ContentKey)],
    recorded: &[Option<DepositResult>],
    mut refused: usize,
    given: &str,
) -> anyhow::Result<ExitCode> {
    // Keys this run would create, by the first dataset that has each: a copy of a
    // folder shares that deposit, as in the real run.
    let mut creating: HashMap<ContentKey, &str> = HashMap::new();
    let (mut replays, mut shares, mut taken_up, mut left) = (0u64, 0u64, 0u64, 0u64);
    // Every recorded result: which drafts of a site were published since.
    let results = store.result_fingerprints()?;
    let published = crate::engine::verify::published_records(store)?;
    let work_scopes = crate::targets::same_work_scopes(target.scope_id());
    let names = super::target_arg::TargetNames::load();
    for ((d, key), result) in ready.iter().zip(recorded) {
        let name = &d.name;
        if let Some(r) = result {
            say!(
                "replay   {name}: already deposited as {} (no request)",
                r.identifier
            );
            replays += 1;
            continue;
        }
        // As the engine does, a folder that is gone sends a copy's files (one with the
        // same key whose folder is here), which are checked instead.
        // `sender`: the dataset whose files go, and so the one a rescan is of.
        let (sender, root, from_copy) = match copy_standing_in(store, d, key)? {
            Some(copy) => {
                let why = format!(
                    " (sending the files of {} at {}, which has the same key: this \
                     dataset's folder is gone)",
                    copy.name, copy.path
                );
                (copy.dataset_id, copy.path, why)
            }
            None => (d.id, d.path.clone(), String::new()),
        };
        // Another machine's dataset whose folder is not here: the real run leaves its job
        // for a machine that can read it, and refuses nothing.
        if !Path::new(&root).is_dir()
            && let Some(origin) = store.added_elsewhere(sender)?
        {
            say!(
                "left     {name}: cannot read {} on this machine: the dataset was added on \
                 {origin}; a deposit leaves it for a machine that can read it",
                crate::wording::on_one_line(&root)
            );
            left += 1;
            continue;
        }
        let files = store.dataset_files(sender)?;
        if let Err(f) = check_unchanged(Path::new(&root), &files) {
            // As the real run says it: with the rescan that fixes it, where one can.
            let hint = match Path::new(&root).is_dir() {
                true => format!(
                    " — {}, then deposit again",
                    super::deposit::scan_command(store, sender)
                ),
                false => String::new(),
            };
            say!("refused  {name}: {f}{hint}");
            refused += 1;
            continue;
        }
        // A file Lodge may not open (its permissions) fails the real run at once: a stat
        // alone does not tell, so each file is opened, and nothing read.
        if let Some(unreadable) = files.iter().find_map(|f| {
            let path = crate::content::on_disk(Path::new(&root), &f.rel_path);
            match std::fs::File::open(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                    Some(crate::targets::Failure::reading_local_file(&path, "", &e))
                }
                _ => None,
            }
        }) {
            say!("refused  {name}: {unreadable}");
            refused += 1;
            continue;
        }
        if let Some(refusal) = refusal_before_queueing(store, target, key, &root)? {
            say!("refused  {name}: {refusal}");
            refused += 1;
            continue;
        }
        let note = d
            .fingerprint
            .map(|f| store.results_with_fingerprint(&f.to_hex()))
            .transpose()?
            .unwrap_or_default()
            .into_iter()
            .find(|r| r.key != key.to_hex())
            .map(|r| {
                format!(
                    " (same data as {} on {})",
                    r.identifier,
                    names.of(&r.target)
                )
            })
            .unwrap_or_default();
        let earlier = match target.links_versions() {
            true => (store.earlier_version_records(d.id, &work_scopes, key)?)
                .into_iter()
                .next()
                .map(|earlier| earlier.identifier),
            false => None,
        };
        // An earlier content's draft on this site, not published as far as the store knows:
        // a record takes a new version only once published. The real run asks the site
        // (it may have been published on its pages since) and is refused while it is a
        // draft; sending nothing, the dry run cannot tell which, and says both.
        let waiting_draft = earlier.as_ref().filter(|earlier| {
            results.iter().any(|r| {
                r.identifier == **earlier
                    && work_scopes.contains(&r.target)
                    && published.is_draft(&r.target, Some(earlier))
            })
        });
        let version = match (&earlier, waiting_draft) {
            (Some(draft), Some(_)) => format!(
                ", the next version of record {draft} if it is published: Lodge last saw it \
                 as a draft, and the deposit asks the site; while {draft} is a draft it is \
                 refused (publish {draft} first)"
            ),
            (Some(earlier), None) => format!(", the next version of record {earlier}"),
            (None, _) => String::new(),
        };
        if let Some(first) = creating.get(key) {
            say!(
                "shares   {name}: {first}'s deposit (the same key {}): one record for both",
                key.short()
            );
            shares += 1;
            continue;
        }
        creating.insert(*key, name);
        let elsewhere: Vec<(String, String)> = store
            .results_for_key(key)?
            .into_iter()
            .map(|r| (r.target, r.identifier))
            .collect();
        match target.plan_beside(key, &elsewhere) {
            // Not a new record: one another target's deposit made (a DOI, a draft).
            Some(plan) => {
                say!(
                    "takes up {name}: key {}, {plan}{version}{note}{from_copy}",
                    key.short()
                );
                taken_up += 1;
            }
            None => say!(
                "create   {name}: key {}{version}{note}{from_copy}",
                key.short()
            ),
        }
    }
    // One line of totals, as a real run ends with (refused before queueing included).
    let mut totals = vec![format!(
        "{} would be created",
        creating.len() as u64 - taken_up
    )];
    for (n, what) in [
        (taken_up, "would take up a record made already"),
        (replays, "replayed"),
        (shares, "share another's deposit"),
        (left, "left for the machine that added them"),
        (refused as u64, "refused"),
    ] {
        if n > 0 {
            totals.push(format!("{n} {what}"));
        }
    }
    say!(
        "dry run: {}; nothing was sent or recorded",
        totals.join(", ")
    );
    // Nothing was asked of the server either: whether it answers, and takes the
    // credentials given, shows only at the real run, unless checked first.
    if creating.len() as u64 > 0 {
        // A target never deposited to has no URL in the store (nor does a dry run record
        // one), and its identity is not always a URL that opens it (a DataCite target's
        // `state=publish`): the `--target` given then, which opened it just now.
        let target_arg = match super::target_arg::target_argument(store, target.scope_id()) {
            known if known == target.scope_id() => given.to_string(),
            known => known,
        };
        let token = match super::target_arg::needs_token(store, target.scope_id()) {
            true => " --token TOKEN",
            false => "",
        };
        say!(
            "the target was not asked: `lodge target test {}{token}` checks that it answers \
             and takes the credentials, without depositing",
            super::output::shell_word(&target_arg)
        );
    }
    Ok(if refused == 0 && left == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
