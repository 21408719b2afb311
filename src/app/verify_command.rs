//! The window's *Verify* of a deposit that landed, on the runtime: read back what the target
//! holds of it (record and file sizes), tell the person in a notice, and put the finding in
//! the deposit's log.

use std::sync::Arc;

use super::commands::Core;
use super::model::Notice;
use super::update::Update;
use crate::engine::verify::{Verification, check_deposit, log_finding, manifest_of};
use crate::targets::ReadBack;

impl Core {
    pub(super) async fn verify_deposit(self: Arc<Self>, job: i64) {
        let found = self
            .db(move |s| {
                let job = s.job(job)?;
                let document = manifest_of(s, &job);
                Ok((job, document))
            })
            .await;
        let (job, document) = match found {
            Ok(found) => found,
            Err(e) => {
                return self.out().notice(Notice::error(format!(
                    "Cannot verify job {job}: cannot read it from the database: {e}"
                )));
            }
        };
        let name = job
            .dataset_name
            .clone()
            .unwrap_or_else(|| format!("job {}", job.id));
        let recorded = job.identifier.clone().unwrap_or_default();
        let Some(target) = self.engine().target(&job.target).cloned() else {
            return self.out().notice(Notice::error(format!(
                "Cannot verify {name}: {} is not one of this window's targets. Add it in \
                 Settings → Targets, or run `lodge verify` with its token",
                job.target
            )));
        };
        let document = match document {
            Ok(document) => document,
            Err(why) => {
                return self
                    .out()
                    .notice(Notice::error(format!("Cannot verify {name}: {why}")));
            }
        };
        let label = target.label();
        let verification = check_deposit(target.as_ref(), &job, &document, ReadBack::Sizes).await;
        let (logged_job, finding) = (job.clone(), verification.clone());
        match self
            .db(move |s| log_finding(s, &logged_job, &finding))
            .await
        {
            Ok(Some(event)) => self.out().send(Update::Logged(vec![event])),
            Ok(None) => {}
            Err(e) => self.out().notice(Notice::warning(format!(
                "The check of {name} could not be logged: {e}"
            ))),
        }
        let notice = match verification {
            Verification::Intact(what) => Notice::info(format!(
                "{name} is intact on {label} (record {recorded}): {what}."
            )),
            Verification::Damaged(found) => Notice::error(format!(
                "{name} is damaged on {label} (record {recorded}): {}. Put back what is \
                 missing or changed on the server from the dataset's folder.",
                found
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            Verification::Unknown(why) => {
                Notice::error(format!("Cannot verify {name} on {label}: {why}."))
            }
        };
        self.out().notice(notice);
        if let Some(dataset) = job.dataset_id {
            // The details show the job's events: the check is one now.
            self.load_details(dataset).await;
        }
    }
}
