//! The window's *Verify*, *Verify bytes* and *Repair* of a deposit that landed, and
//! *Verify deposited* of many, on the runtime: read back what the target holds of each
//! (record and file sizes; every byte when asked, or when its last check found bytes
//! changed, see [`read_back_for`]), with Repair first sending again the files it lost; tell
//! the person in a notice, and put what was found and done in the deposit's log.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;

use super::commands::{Core, Outbox};
use super::model::Notice;
use super::update::Update;
use crate::content::ContentDocument;
use crate::engine::repair::{
    Repair, log_repair, mended_by_repair, repair_deposit, what_is_left, what_was_sent,
};
use crate::engine::verify::{
    SilenceWatch, Verification, draft_to_ask, landed_deposits, log_finding, manifest_of,
    published_since, read_back_for,
};
use crate::store::{EventRow, JobRow};
use crate::targets::{Discrepancy, ProgressSink, ReadBack, Target};
use crate::wording::{count_of, sentence};

/// Where the window lists a dataset's files with their SHA-256, for advice that needs one.
const FILE_LIST: &str = "its details' Files, with each file's SHA-256";

impl Core {
    /// Verify the deposit `job` landed, reading it back as `asked`, or (`repair`) repair it.
    pub(super) async fn verify_deposit(self: Arc<Self>, job: i64, asked: ReadBack, repair: bool) {
        let doing = if repair { "repair" } else { "verify" };
        let found = self
            .db(move |s| {
                let job = s.job(job)?;
                let document = manifest_of(s, &job);
                let read = read_back_for(s, &job, asked);
                // A repair sends from a folder here with the deposit's key.
                let sent_from = crate::engine::repair::from_a_folder_here(s, &job);
                Ok((job, document, read, sent_from))
            })
            .await;
        let (job, document, read, sent_from) = match found {
            Ok(found) => found,
            Err(e) => {
                return self.out().notice(Notice::error(format!(
                    "Cannot {doing} job {job}: cannot read it from the database: {e}"
                )));
            }
        };
        let name = job
            .dataset_name
            .clone()
            .unwrap_or_else(|| format!("job {}", job.id));
        let Some(target) = self.engine().target(&job.target).cloned() else {
            return self.out().notice(Notice::error(format!(
                "Cannot {doing} {name}: {} is not one of this window's targets. Add it in \
                 Settings, under Targets, or run `lodge verify` with its token",
                job.target
            )));
        };
        let document = match document {
            Ok(document) => document,
            Err(why) => {
                return self
                    .out()
                    .notice(Notice::error(format!("Cannot {doing} {name}: {why}")));
            }
        };
        let subject = Subject {
            name: name.clone(),
            label: target.label(),
            // Said where a notice has little room: an S3 or WebDAV record by its key.
            recorded: crate::wording::short_identifier(job.identifier.as_deref().unwrap_or(""))
                .into_owned(),
            repairable: target.files_can_be_put_back().is_ok(),
            replaces_wrong_size: target.replaces_wrong_size_files(),
            rewrites_gone_records: target.rewrites_gone_records(),
        };
        // Reading every byte back can take a while: a bar under the deposit shows how far.
        let progress = read_back_progress(self.out(), job.id, read, document.total_size());
        let logged_job = job.clone();
        let (notice, logged) = if repair {
            let done =
                repair_deposit(target.as_ref(), &sent_from, &document, read, &progress).await;
            let notice = subject.repair_notice(&done);
            let logged = self.db(move |s| log_repair(s, &logged_job, &done)).await;
            (notice, logged)
        } else {
            let watch = SilenceWatch::default();
            let (found, logged) = self
                .check_logged(target.as_ref(), &watch, &job, &document, read, &progress)
                .await;
            (subject.check_notice(&found), logged)
        };
        self.read_back_over(job.id, read);
        match logged {
            Ok(events) if events.is_empty() => {}
            Ok(events) => self.out().send(Update::Logged(events)),
            Err(e) => self.out().notice(Notice::warning(format!(
                "What the {doing} of {name} found could not be logged: {e}"
            ))),
        }
        self.out()
            .notice(notice.while_damaged(job.key, &job.target));
        if let Some(dataset) = job.dataset_id {
            // The details show the job's events: the check is one now.
            self.load_details(dataset).await;
        }
    }

    /// The check of job `job` by `read` is over: its bar, if it had one, goes.
    fn read_back_over(&self, job: i64, read: ReadBack) {
        if read == ReadBack::Bytes {
            self.out().send(Update::ReadBack {
                job,
                progress: None,
            });
        }
    }

    /// Check one deposit (unless `watch` says its server stopped answering) and put the
    /// finding into its log: what was found, and the events logged (or why they could not
    /// be).
    async fn check_logged(
        &self,
        target: &dyn Target,
        watch: &SilenceWatch,
        job: &JobRow,
        document: &ContentDocument,
        read: ReadBack,
        progress: &ProgressSink,
    ) -> (Verification, Result<Vec<EventRow>, String>) {
        let name = job.dataset_name.as_deref().unwrap_or("the deposit");
        let found = watch
            .check(target, name, job, document, read, progress)
            .await;
        let (logged_job, finding) = (job.clone(), found.clone());
        let mut logged = self
            .db(move |s| log_finding(s, &logged_job, &finding).map(Vec::from_iter))
            .await;
        // A draft published on the repository's pages since is a draft no more: logged, so
        // its row and details cite it.
        if !matches!(found, Verification::Unknown(_))
            && let Ok(events) = &mut logged
        {
            let asked = job.clone();
            if let Ok(Some(record)) = self.db(move |s| draft_to_ask(s, &asked)).await
                && let Ok(Some(true)) = target.draft_published(&job.key, &record).await
            {
                let published = job.clone();
                match self
                    .db(move |s| s.log_published(&published, &published_since(&record)))
                    .await
                {
                    Ok(event) => events.push(event),
                    Err(e) => {
                        return (found, Err(e));
                    }
                }
            }
        }
        (found, logged)
    }

    /// *Verify deposited*: check, by record and file sizes, every deposit the datasets `ids`
    /// landed on `target` (the latest of each key, earlier keys too, as `lodge verify`
    /// does), a few at a time. One notice sums up; each finding goes into its deposit's
    /// log, so a damaged deposit's row says so.
    pub(super) async fn verify_datasets(self: Arc<Self>, ids: Vec<i64>, target: String) {
        let Some(on) = self.engine().target(&target).cloned() else {
            return self.out().notice(Notice::error(format!(
                "Cannot verify: {target} is not one of this window's targets"
            )));
        };
        let label = on.label();
        let scope = target.clone();
        let listed = self
            .db(move |s| {
                let mut found = Vec::new();
                // Two copies of one folder share one deposit: it is checked once.
                let mut listed = std::collections::HashSet::new();
                // The datasets with a deposit there (the button's count): a dataset's
                // earlier keys' deposits are checked too, so there can be more deposits.
                let mut datasets = 0;
                for id in ids {
                    let landed = landed_deposits(s, id, Some(&scope))?;
                    datasets += usize::from(!landed.is_empty());
                    for job in landed {
                        if !listed.insert(job.id) {
                            continue;
                        }
                        let document = manifest_of(s, &job);
                        let read = read_back_for(s, &job, ReadBack::Sizes);
                        found.push((job, document, read));
                    }
                }
                Ok((found, datasets))
            })
            .await;
        let (deposits, datasets) = match listed {
            Ok(listed) => listed,
            Err(e) => {
                return self.out().notice(Notice::error(format!(
                    "Cannot verify: cannot read the deposits from the database: {e}"
                )));
            }
        };
        if deposits.is_empty() {
            return self
                .out()
                .notice(Notice::info(format!("No deposits on {label} to verify.")));
        }
        if deposits.len() > 5 {
            // Many checks take a while over a real network: say they started.
            // Its findings, when they come, take this notice's place.
            self.out().notice(
                Notice::info(format!(
                    "Verifying {} deposits on {label}; a notice follows when it is done.",
                    deposits.len()
                ))
                .about(verify_topic(&label)),
            );
        }
        // A few at a time: a slow repository answers a HEAD in a round trip or two. Once
        // the server has not answered one, the rest are not sent (see SilenceWatch).
        let watch = Arc::new(SilenceWatch::default());
        let checked: Vec<(String, Option<String>, Verification)> =
            futures_util::stream::iter(deposits)
                .map(|(job, document, read)| {
                    let (this, on, watch) = (self.clone(), on.clone(), watch.clone());
                    async move {
                        let name = job
                            .dataset_name
                            .clone()
                            .unwrap_or_else(|| format!("job {}", job.id));
                        let found = match document {
                            Ok(document) => {
                                let progress = read_back_progress(
                                    this.out(),
                                    job.id,
                                    read,
                                    document.total_size(),
                                );
                                let (found, logged) = this
                                    .check_logged(
                                        on.as_ref(),
                                        &watch,
                                        &job,
                                        &document,
                                        read,
                                        &progress,
                                    )
                                    .await;
                                this.read_back_over(job.id, read);
                                match logged {
                                    Ok(events) if !events.is_empty() => {
                                        this.out().send(Update::Logged(events))
                                    }
                                    Ok(_) => {}
                                    Err(e) => this.out().notice(Notice::warning(format!(
                                        "What the check of {name} found could not be logged: {e}"
                                    ))),
                                }
                                found
                            }
                            Err(why) => Verification::Unknown(why),
                        };
                        (name, job.identifier.clone(), found)
                    }
                })
                .buffer_unordered(4)
                .collect()
                .await;
        self.out().notice(
            batch_notice(&label, &told_apart(checked), datasets).about(verify_topic(&label)),
        );
    }
}

/// What a check of every deposit on the target labelled `label` is news of: its start,
/// then its findings.
fn verify_topic(label: &str) -> String {
    format!("verify {label}")
}

/// What a check of job `job` reading back as `read` tells of its progress: by bytes, the
/// window's bar under the deposit (of `total` bytes, at most ten reports a second, through
/// `out`); by sizes, nothing. [`Core::read_back_over`] takes the bar away.
fn read_back_progress(out: &Outbox, job: i64, read: ReadBack, total: u64) -> ProgressSink {
    if read == ReadBack::Sizes {
        return Arc::new(|_| {});
    }
    let out = out.clone();
    let read_so_far = Mutex::new((0u64, None::<Instant>));
    Arc::new(move |n| {
        let mut state = read_so_far.lock().unwrap_or_else(|p| p.into_inner());
        state.0 += n;
        if state
            .1
            .is_none_or(|told| told.elapsed() >= Duration::from_millis(100))
        {
            state.1 = Some(Instant::now());
            out.send(Update::ReadBack {
                job,
                progress: Some((state.0.min(total), total)),
            });
        }
    })
}

/// The checked deposits named by their datasets, and where one dataset has several (two
/// records of it, from deposits of its earlier contents, say) by its record too.
fn told_apart(checked: Vec<(String, Option<String>, Verification)>) -> Vec<(String, Verification)> {
    let mut times: std::collections::HashMap<String, usize> = Default::default();
    for (name, _, _) in &checked {
        *times.entry(name.clone()).or_default() += 1;
    }
    checked
        .into_iter()
        .map(|(name, record, found)| match record {
            Some(record) if times[&name] > 1 => (format!("{name} {record}"), found),
            _ => (name, found),
        })
        .collect()
}

/// What a *Verify deposited* found, as one notice: how many are intact, and the damaged and
/// unchecked ones by name with what was found (three of each, then how many more). Unchecked
/// ones are grouped by why: a server that refused the credentials says so once, not once a
/// deposit. Where the `datasets` checked had more deposits than one each (their earlier
/// keys'), both counts are said.
fn batch_notice(label: &str, checked: &[(String, Verification)], datasets: usize) -> Notice {
    let mut intact = 0;
    let mut damaged = Vec::new();
    // Each reason a check could not be made, in the order first met, with the deposits.
    let mut unknown: Vec<(&str, Vec<String>)> = Vec::new();
    for (name, found) in checked {
        match found {
            Verification::Intact(_) => intact += 1,
            Verification::Damaged(damage) => damaged.push(format!("{name} ({})", listed(damage))),
            Verification::Unknown(why) => match unknown.iter_mut().find(|(w, _)| w == why) {
                Some((_, names)) => names.push(name.clone()),
                None => unknown.push((why, vec![name.clone()])),
            },
        }
    }
    let some = |names: &[String]| match names.len() {
        0..=3 => names.join(", "),
        n => format!("{} and {} more", names[..3].join(", "), n - 3),
    };
    let of_datasets = match datasets {
        n if n == checked.len() => String::new(),
        1 => " of the 1 dataset".to_string(),
        n => format!(" of the {n} datasets"),
    };
    if damaged.is_empty() && unknown.is_empty() {
        return Notice::info(match checked.len() {
            1 => format!("The deposit on {label} is intact (record and file sizes)."),
            n => format!(
                "All {n} deposits{of_datasets} on {label} are intact (record and file sizes)."
            ),
        });
    }
    let total = count_of(checked.len() as u64, "deposit", "deposits");
    let mut said = format!("Of {total}{of_datasets} on {label}, {intact} intact");
    if !damaged.is_empty() {
        said += &format!(
            "; damaged: {}. Each damaged deposit's details offer Repair where its lost files \
             can be sent again",
            some(&damaged)
        );
    }
    if !unknown.is_empty() {
        let groups: Vec<String> = unknown
            .iter()
            .map(|(why, names)| format!("{} ({why})", some(names)))
            .collect();
        said += &format!("; could not be checked: {}", groups.join("; "));
    }
    Notice::error(said + ".")
}

/// The deposit a notice is about.
struct Subject {
    name: String,
    label: String,
    recorded: String,
    /// Whether its target can have lost files sent again (Repair).
    repairable: bool,
    /// Whether its target replaces a file of the wrong size when Repair sends it (WebDAV).
    replaces_wrong_size: bool,
    /// Whether Repair writes its record again when it is gone (S3, WebDAV).
    rewrites_gone_records: bool,
}

impl Subject {
    /// What a check found, as a notice.
    fn check_notice(&self, found: &Verification) -> Notice {
        let Subject {
            name,
            label,
            recorded,
            repairable,
            replaces_wrong_size,
            rewrites_gone_records,
        } = self;
        match found {
            Verification::Intact(what) => Notice::info(format!(
                "{name} is intact on {label} (record {recorded}): {what}."
            )),
            Verification::Damaged(damage) => {
                // Repair sends lost files again (and on WebDAV files of the wrong size); other
                // damage (other bytes under a file's name, a record gone) it cannot mend,
                // and the notice says what can.
                let lost = |d: &Discrepancy| {
                    mended_by_repair(d, *replaces_wrong_size, *rewrites_gone_records)
                };
                let rest: Vec<Discrepancy> = damage.iter().filter(|d| !lost(d)).cloned().collect();
                let mut advice = Vec::new();
                if damage.iter().any(lost) {
                    advice.push(match repairable {
                        true => "Repair, under the deposit, sends what was lost again".to_string(),
                        false => "Put the lost files back on the server from the dataset's folder"
                            .to_string(),
                    });
                }
                if !rest.is_empty() {
                    advice.push(crate::wording::capitalized(&what_is_left(&rest, FILE_LIST)));
                }
                Notice::error(format!(
                    "{name} is damaged on {label} (record {recorded}): {}. {}.",
                    listed(damage),
                    advice.join(". ")
                ))
            }
            Verification::Unknown(why) => Notice::error(format!(
                "Cannot verify {name} on {label}: {}",
                sentence(why)
            )),
        }
    }

    /// What a repair did and found, as a notice.
    fn repair_notice(&self, done: &Repair) -> Notice {
        let Subject {
            name,
            label,
            recorded,
            ..
        } = self;
        match done {
            Repair::NothingSent {
                found: Verification::Damaged(damage),
                why,
            } => Notice::error(format!(
                "{name} is damaged on {label} (record {recorded}): {}. Not repaired: {}.",
                listed(damage),
                why.as_deref()
                    .unwrap_or("nothing it lost can be sent again")
            )),
            Repair::NothingSent { found, .. } => self.check_notice(found),
            Repair::PutBack {
                files,
                record,
                after,
            } => {
                let sent = format!("sent again {}", what_was_sent(files, *record));
                match after {
                    Verification::Intact(what) => Notice::info(format!(
                        "{name} is repaired on {label} (record {recorded}): {sent}; now \
                         intact: {what}."
                    )),
                    Verification::Damaged(left) => Notice::error(format!(
                        "{name} on {label} (record {recorded}): {sent}, but it is still \
                         damaged: {}. {}.",
                        listed(left),
                        crate::wording::capitalized(&what_is_left(left, FILE_LIST))
                    )),
                    Verification::Unknown(why) => Notice::warning(format!(
                        "{name} on {label}: {sent}, but the check after it could not be \
                         made: {}",
                        sentence(why)
                    )),
                }
            }
            Repair::SendFailed {
                files, sent, error, ..
            } => Notice::error(format!(
                "The repair of {name} on {label} {} {} It is still damaged; once that is seen \
                 to, press Repair again.",
                match (sent.is_empty(), files.is_empty()) {
                    (true, _) => format!("stopped while sending {} again:", files.join(", ")),
                    (false, true) => format!("sent again {}, then stopped:", sent.join(", ")),
                    (false, false) => format!(
                        "sent again {}, then stopped while sending {}:",
                        sent.join(", "),
                        files.join(", ")
                    ),
                },
                sentence(&error.to_string())
            )),
        }
    }
}

fn listed(damage: &[Discrepancy]) -> String {
    damage
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::model::NoticeLevel;

    fn damaged(path: &str) -> Verification {
        Verification::Damaged(vec![Discrepancy::FileMissing { path: path.into() }])
    }

    /// A file left short is offered to Repair where the target replaces such files
    /// (WebDAV), and elsewhere is to be removed on the server by hand.
    #[test]
    fn a_short_file_is_offered_to_repair_only_where_repair_replaces_it() {
        let short = Verification::Damaged(vec![Discrepancy::SizeDiffers {
            path: "a.csv".into(),
            expected: 100,
            found: 3,
        }]);
        let subject = |replaces_wrong_size| Subject {
            name: "soil".into(),
            label: "Lab".into(),
            recorded: "r1".into(),
            repairable: true,
            replaces_wrong_size,
            rewrites_gone_records: replaces_wrong_size,
        };
        let on_webdav = subject(true).check_notice(&short).text;
        assert!(
            on_webdav.contains("Repair, under the deposit, sends what was lost again"),
            "{on_webdav}"
        );
        assert!(!on_webdav.contains("remove that file"), "{on_webdav}");
        let on_s3 = subject(false).check_notice(&short).text;
        assert!(on_s3.contains("The server holds other bytes"), "{on_s3}");
        assert!(!on_s3.contains("Repair, under"), "{on_s3}");
    }

    #[test]
    fn a_read_back_by_bytes_reports_its_progress_ten_times_a_second_at_most() {
        let (tx, rx) = std::sync::mpsc::channel();
        let out = Outbox::new(tx, Arc::new(|| {}));
        let by_sizes = read_back_progress(&out, 7, ReadBack::Sizes, 4096);
        by_sizes(1024);
        assert!(rx.try_recv().is_err(), "a check by sizes shows no bar");

        let by_bytes = read_back_progress(&out, 7, ReadBack::Bytes, 4096);
        by_bytes(1024);
        by_bytes(1024);
        std::thread::sleep(Duration::from_millis(110));
        by_bytes(4096);
        let told: Vec<Option<(u64, u64)>> = rx
            .try_iter()
            .map(|u| match u {
                Update::ReadBack { job: 7, progress } => progress,
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        // The first chunk at once, the second held back, the third after a pause (a
        // repair's second read cannot go past the whole).
        assert_eq!(told, [Some((1024, 4096)), Some((4096, 4096))]);
    }

    #[test]
    fn two_deposits_of_one_dataset_are_told_apart_by_their_records() {
        let damaged = || Verification::Unknown("x".into());
        let named = told_apart(vec![
            ("soil".into(), Some("sbx-2".into()), damaged()),
            ("soil".into(), Some("sbx-4".into()), damaged()),
            ("lake".into(), Some("sbx-5".into()), damaged()),
        ]);
        let names: Vec<&str> = named.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["soil sbx-2", "soil sbx-4", "lake"]);
    }

    #[test]
    fn a_verify_deposited_notice_counts_the_intact_and_names_three_of_the_rest() {
        let one = [("soil".to_string(), Verification::Intact("1 file".into()))];
        let notice = batch_notice("Local sandbox", &one, 1);
        assert_eq!(
            notice.text,
            "The deposit on Local sandbox is intact (record and file sizes)."
        );

        let mut many: Vec<(String, Verification)> = (1..=4)
            .map(|i| (format!("run{i}"), damaged("a.csv")))
            .collect();
        many.push(("lake".into(), Verification::Intact("2 files".into())));
        many.push((
            "pond".into(),
            Verification::Unknown("the server could not be asked".into()),
        ));
        let notice = batch_notice("S3", &many, 6);
        assert_eq!(notice.level, NoticeLevel::Error);
        assert_eq!(
            notice.text,
            "Of 6 deposits on S3, 1 intact; damaged: run1 (a.csv is missing), run2 (a.csv is \
             missing), run3 (a.csv is missing) and 1 more. Each damaged deposit's details \
             offer Repair where its lost files can be sent again; could not be checked: pond \
             (the server could not be asked)."
        );
    }

    /// *Verify deposited (313)* counts datasets; their earlier keys' deposits are checked
    /// too: the notice says both counts where they differ.
    #[test]
    fn a_verify_deposited_notice_counts_deposits_and_datasets_where_they_differ() {
        let intact = |name: &str| (name.to_string(), Verification::Intact("1 file".into()));
        let three = [intact("soil sbx-1"), intact("soil sbx-2"), intact("lake")];
        assert_eq!(
            batch_notice("Local sandbox", &three, 2).text,
            "All 3 deposits of the 2 datasets on Local sandbox are intact (record and file \
             sizes)."
        );
        let mut some_damaged = three.to_vec();
        some_damaged.push(("pond".into(), damaged("a.csv")));
        assert_eq!(
            batch_notice("S3", &some_damaged, 3).text,
            "Of 4 deposits of the 3 datasets on S3, 3 intact; damaged: pond (a.csv is \
             missing). Each damaged deposit's details offer Repair where its lost files can be \
             sent again."
        );
    }

    #[test]
    fn deposits_that_could_not_be_checked_for_one_reason_are_named_with_it_once() {
        let refused = "the server could not be asked: not authorised (HTTP 401)";
        let after = "not checked: the server refused Lodge's credentials for the check of run1";
        let mut checked: Vec<(String, Verification)> = (1..=2)
            .map(|i| (format!("run{i}"), Verification::Unknown(refused.into())))
            .collect();
        checked.extend((3..=7).map(|i| (format!("run{i}"), Verification::Unknown(after.into()))));
        let notice = batch_notice("WebDAV", &checked, 7);
        assert_eq!(
            notice.text,
            format!(
                "Of 7 deposits on WebDAV, 0 intact; could not be checked: run1, run2 \
                 ({refused}); run3, run4, run5 and 2 more ({after})."
            )
        );
    }
}
