//! Read-only views: the dedup results, per-dataset status, totals and the history.

use super::jobs::REQUEUED_BY_RETRY;
use super::sql::{Row, args};
use super::{OPERATION_DEPOSIT, Result, Store, StoreError, now_ms};
use crate::content::ContentKey;
use crate::targets::EarlierRecord;

/// A recorded result: what a scope produced.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DepositResult {
    pub target: String,
    pub operation: String,
    pub key: String,
    pub identifier: String,
    pub url: Option<String>,
    /// `created` or `existing`.
    pub outcome: String,
    pub fingerprint: String,
    pub job_id: Option<i64>,
    pub recorded_at: i64,
}

fn result_from_row(r: &Row<'_, '_>) -> Result<DepositResult> {
    Ok(DepositResult {
        target: r.get(0)?,
        operation: r.get(1)?,
        key: r.get(2)?,
        identifier: r.get(3)?,
        url: r.get(4)?,
        outcome: r.get(5)?,
        fingerprint: r.get(6)?,
        job_id: r.get(7)?,
        recorded_at: r.get(8)?,
    })
}

const RESULT_COLUMNS: &str =
    "target, operation, content_key, identifier, url, outcome, fingerprint, job_id, recorded_at";

/// One line of `lodge status`: a dataset, with its current key, and the latest job that
/// deposits that key to one target (or none yet).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StatusRow {
    pub dataset: i64,
    pub name: String,
    pub path: String,
    pub key: Option<String>,
    pub target: Option<String>,
    /// The job's state; `existing` (with the job that landed it) when another dataset with
    /// the same key deposited it; `new` when the dataset was never queued; `changed` when it was queued
    /// for this target only under earlier keys (it was rescanned since, and its current
    /// content has not been deposited there).
    pub state: String,
    pub job: Option<i64>,
    pub identifier: Option<String>,
    pub url: Option<String>,
    /// Every attempt its job made, those before a `retry` too, as the history counts them.
    pub attempts: u32,
    pub last_error: Option<String>,
    /// When `changed`: the identifier the latest deposit of an earlier key got there.
    pub earlier_identifier: Option<String>,
    /// When the row reports another dataset's job (a copy with the same key that queued
    /// this content for both, to land or landed): that dataset's id.
    pub shared_with: Option<i64>,
}

/// Totals shown under `lodge status`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Totals {
    /// Deposits answered from the store with no request sent.
    pub replays: u64,
    /// Times a server answered a write that the record already existed (412, 409, "already
    /// taken"): what the server counts as its conflicts.
    pub conflicts: u64,
    /// Times a look-up found the record of a key before a retry, or before giving up (an
    /// attempt's answer was lost): the server was asked, not written to.
    pub found_by_lookup: u64,
    /// Retries scheduled.
    pub retries: u64,
    /// Jobs in the dead-letter state whose key has not landed since (those `retry
    /// --all-failed` re-queues).
    pub failed: u64,
    /// Refused jobs whose refusal still stands: of the dataset's current key, not landed
    /// since.
    pub rejected: u64,
    /// Jobs still queued, running or waiting.
    pub pending: u64,
    /// Age in seconds of the oldest pending job.
    pub oldest_pending_age_secs: Option<f64>,
}

/// One line of `lodge history`: a job, what it produced and when.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct HistoryRow {
    pub job: i64,
    pub dataset: Option<i64>,
    pub name: Option<String>,
    pub title: Option<String>,
    pub target: String,
    pub key: String,
    pub state: String,
    pub identifier: Option<String>,
    pub url: Option<String>,
    /// Every attempt it made, those before a `retry` too (a job's own count starts again
    /// at each retry).
    pub attempts: u32,
    pub last_error: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    /// When a person gave up on it (`lodge dismiss`), if they did.
    pub dismissed_at: Option<i64>,
    /// Who queued it (`user@host`, as its first event names them): on a shared database,
    /// which of a lab's people and machines asked for the deposit.
    pub queued_by: Option<String>,
}

impl Store {
    /// The recorded result of a deposit scope, if any. This is the replay fast path.
    pub fn lookup_result(&self, target: &str, key: &ContentKey) -> Result<Option<DepositResult>> {
        self.with(|db| {
            db.opt(
                &format!(
                    "SELECT {RESULT_COLUMNS} FROM results
                     WHERE target = ?1 AND operation = ?2 AND content_key = ?3"
                ),
                args![target, OPERATION_DEPOSIT, key.to_hex()],
                result_from_row,
            )
        })
    }

    /// The records `targets` (one work's: [`crate::targets::same_work_scopes`]) gave earlier
    /// versions of dataset `dataset_id`, newest first, each once: the identifiers of its
    /// jobs there that landed under a key other than `key`, each with that key (the newest
    /// job's, for a record several landed as). The newest may be gone since: a draft
    /// discarded, a record deleted.
    pub fn earlier_version_records(
        &self,
        dataset_id: i64,
        targets: &[String],
        key: &ContentKey,
    ) -> Result<Vec<EarlierRecord>> {
        let all = self.with(|db| {
            let mut all = Vec::new();
            // One target at a time (at most two: a site's drafting and publishing ones),
            // newest job first across them.
            for target in targets {
                all.extend(db.all(
                    "SELECT id, identifier, content_key FROM jobs
                     WHERE dataset_id = ?1 AND target = ?2 AND content_key <> ?3
                       AND (state = 'deposited' OR state = 'existing')
                       AND identifier IS NOT NULL",
                    args![dataset_id, target, key.to_hex()],
                    |r| {
                        let key: String = r.get(2)?;
                        let record = EarlierRecord {
                            identifier: r.get(1)?,
                            key: key
                                .parse()
                                .map_err(|_| StoreError::Corrupt(format!("content key '{key}'")))?,
                        };
                        Ok((r.get::<i64>(0)?, record))
                    },
                )?);
            }
            all.sort_by_key(|(id, _)| std::cmp::Reverse(*id));
            Ok(all)
        })?;
        let mut seen = std::collections::HashSet::new();
        Ok(all
            .into_iter()
            .map(|(_, record)| record)
            .filter(|record| seen.insert(record.identifier.clone()))
            .collect())
    }

    /// Results on any target for `key`, oldest first: each target's scope looked up on the
    /// results' key index.
    pub fn results_for_key(&self, key: &ContentKey) -> Result<Vec<DepositResult>> {
        self.with(|db| {
            db.all(
                &format!(
                    "SELECT {RESULT_COLUMNS} FROM results
                     WHERE (target, operation, content_key) IN
                           (SELECT t.scope_id, ?2, ?1 FROM targets t)
                     ORDER BY recorded_at"
                ),
                args![key.to_hex(), OPERATION_DEPOSIT],
                result_from_row,
            )
        })
    }

    /// Results on any target whose data fingerprint is `fingerprint`.
    ///
    /// Found through the documents with that fingerprint and each target's results for
    /// their keys (index lookups both): a result's key and target always have their rows
    /// there, since a result is only recorded for a job, which refers to both. An index on
    /// the results' own fingerprint column would cost a random page per recorded result.
    pub fn results_with_fingerprint(&self, fingerprint: &str) -> Result<Vec<DepositResult>> {
        self.with(|db| {
            db.all(
                &format!(
                    "SELECT {RESULT_COLUMNS} FROM results
                     WHERE (target, operation, content_key) IN
                           (SELECT t.scope_id, ?2, d.content_key
                            FROM documents d CROSS JOIN targets t WHERE d.fingerprint = ?1)
                     ORDER BY recorded_at"
                ),
                args![fingerprint, OPERATION_DEPOSIT],
                result_from_row,
            )
        })
    }

    /// Every dataset with its latest job per target (a dataset never queued appears once,
    /// with state `new`).
    pub fn status_rows(&self) -> Result<Vec<StatusRow>> {
        self.with(|db| {
            db.all(
                // Per dataset and target: the targets it was queued for or its key has a
                // result on (deposited by another dataset with the same key); the latest
                // job of the dataset's current key (what the row reports), passing over
                // replays of the dataset's own deposit (deposit run again: the job that
                // deposited it stays the one reported) and its failed or rejected jobs
                // once the key has landed since through another job (its folder's copy
                // sent it); else the result; else the latest that landed for an earlier
                // key; else, when a copy with the same key queued this content there and it
                // has not landed (queued, running, failed, refused), that copy's job, which
                // sends it for both. A row reporting the result reports the job that landed
                // it too (its copy's, for one deposited through a copy). Jobs a person dismissed (gave up on) are passed over
                // throughout: a deposit given up on, and nothing else, leaves no line.
                concat!(
                    "WITH latest AS (SELECT dataset_id, target, max(id) AS id FROM jobs
                                 WHERE dataset_id IS NOT NULL AND dismissed_at IS NULL
                                 GROUP BY dataset_id, target),
                      -- Results for keys the dataset had before (its log of adds and
                      -- rescans keeps them): a copy of a folder deposited through its
                      -- twin's job has no job of its own to remember them by. Those events
                      -- belong to no job: `job_id IS NULL` reads them through the events'
                      -- job index instead of the whole log.
                      past AS (SELECT e.dataset_id, r.target, max(r.identifier) AS identifier
                               FROM (SELECT DISTINCT dataset_id, content_key FROM events
                                     WHERE job_id IS NULL
                                       AND kind IN ('added', 'rescanned', 'edited')
                                       AND dataset_id IS NOT NULL) e
                               JOIN datasets pd ON pd.id = e.dataset_id
                                               AND pd.content_key <> e.content_key
                               JOIN results r ON r.content_key = e.content_key
                                             AND r.operation = ?1
                               GROUP BY e.dataset_id, r.target),
                      twin AS (SELECT d.id AS dataset_id, j.target, max(j.id) AS id
                               FROM datasets d JOIN jobs j
                                 ON j.content_key = d.content_key AND j.dataset_id <> d.id
                               WHERE j.operation = ?1 AND j.dismissed_at IS NULL
                                 AND j.state NOT IN ('deposited', 'existing')
                               GROUP BY d.id, j.target),
                      scopes AS (SELECT dataset_id, target FROM latest
                                 UNION
                                 SELECT d.id, r.target FROM datasets d JOIN results r
                                   ON r.content_key = d.content_key AND r.operation = ?1
                                 UNION
                                 SELECT dataset_id, target FROM past
                                 UNION
                                 SELECT dataset_id, target FROM twin),
                      current AS (SELECT j.dataset_id, j.target, max(j.id) AS id
                                  FROM jobs j JOIN datasets d
                                    ON d.id = j.dataset_id AND d.content_key = j.content_key
                                  WHERE j.dismissed_at IS NULL
                                    AND NOT ",
                    replay_of_its_own_deposit!(),
                    "
                                    -- A copy's replay of the record another dataset's job
                                    -- made (one since removed too): reported as a copy
                                    -- deposited with it is, by that job (the result's),
                                    -- naming that dataset while it is listed.
                                    AND NOT (j.state = 'existing' AND j.attempts = 0
                                      AND EXISTS (SELECT 1 FROM results r
                                                  JOIN jobs o ON o.id = r.job_id
                                                  WHERE r.target = j.target
                                                    AND r.operation = j.operation
                                                    AND r.content_key = j.content_key
                                                    AND (o.dataset_id IS NULL
                                                         OR o.dataset_id <> j.dataset_id)))
                                    AND NOT (j.state IN ('failed', 'rejected')
                                      AND EXISTS (SELECT 1 FROM results r
                                                  WHERE r.target = j.target
                                                    AND r.operation = ?1
                                                    AND r.content_key = j.content_key))
                                  GROUP BY j.dataset_id, j.target),
                      landed AS (SELECT dataset_id, target, max(id) AS id FROM jobs
                                 WHERE dataset_id IS NOT NULL
                                   AND state IN ('deposited', 'existing')
                                 GROUP BY dataset_id, target)
                 SELECT d.id, d.name, d.path, d.content_key, s.target,
                        CASE WHEN s.target IS NULL THEN 'new'
                             WHEN c.id IS NOT NULL THEN j.state
                             WHEN r.identifier IS NOT NULL THEN 'existing'
                             WHEN tj.id IS NOT NULL THEN tj.state
                             ELSE 'changed' END,
                        coalesce(j.id, tj.id, rj.id), coalesce(j.identifier, r.identifier),
                        coalesce(j.url, r.url),
                        coalesce(j.attempts_before + j.attempts,
                                 tj.attempts_before + tj.attempts,
                                 rj.attempts_before + rj.attempts, 0),
                        coalesce(j.last_error, tj.last_error),
                        CASE WHEN c.id IS NULL AND r.identifier IS NULL
                             THEN coalesce(earlier.identifier, p.identifier) END,
                        coalesce(tj.dataset_id,
                                 CASE WHEN rj.dataset_id <> d.id THEN rj.dataset_id END)
                 FROM datasets d
                 LEFT JOIN scopes s ON s.dataset_id = d.id
                 LEFT JOIN current c ON c.dataset_id = d.id AND c.target = s.target
                 LEFT JOIN jobs j ON j.id = c.id
                 LEFT JOIN results r ON c.id IS NULL AND r.target = s.target
                                    AND r.operation = ?1 AND r.content_key = d.content_key
                 LEFT JOIN jobs rj ON rj.id = r.job_id
                 LEFT JOIN twin t ON c.id IS NULL AND r.identifier IS NULL
                                 AND t.dataset_id = d.id AND t.target = s.target
                 LEFT JOIN jobs tj ON tj.id = t.id
                 LEFT JOIN landed e ON e.dataset_id = d.id AND e.target = s.target
                 LEFT JOIN jobs earlier ON earlier.id = e.id
                 LEFT JOIN past p ON p.dataset_id = d.id AND p.target = s.target
                 ORDER BY d.id, s.target"
                ),
                args![OPERATION_DEPOSIT],
                |r| {
                    Ok(StatusRow {
                        dataset: r.get(0)?,
                        name: r.get(1)?,
                        path: r.get(2)?,
                        key: r.get(3)?,
                        target: r.get(4)?,
                        state: r.get(5)?,
                        job: r.get(6)?,
                        identifier: r.get(7)?,
                        url: r.get(8)?,
                        attempts: r.get(9)?,
                        last_error: r.get(10)?,
                        earlier_identifier: r.get(11)?,
                        shared_with: r.get(12)?,
                    })
                },
            )
        })
    }

    /// Counters over the whole store.
    pub fn totals(&self) -> Result<Totals> {
        self.with(|db| {
            let count = |sql: &str| -> Result<u64> {
                Ok(db.one(sql, args![], |r| r.get::<i64>(0))? as u64)
            };
            // Pending since it was put on the queue: a failed job `retry` re-queued is
            // pending since then, not since it was first queued.
            let oldest: Option<i64> = db.one(
                concat!(
                    "SELECT min(coalesce(
                        (SELECT max(e.at) FROM events e
                         WHERE e.job_id = j.id AND e.kind = 'queued' AND e.message LIKE ?1),
                        j.created_at))
                     FROM jobs j WHERE ",
                    active_job!()
                ),
                args![format!("{REQUEUED_BY_RETRY}%")],
                |r| r.get(0),
            )?;
            Ok(Totals {
                replays: count("SELECT count(*) FROM events WHERE kind = 'replay'")?,
                conflicts: count("SELECT count(*) FROM events WHERE kind = 'existing'")?,
                // A look-up that found no record is logged as `reconciled` too, beginning
                // with `NONE_FOUND`; every other `reconciled` found one.
                found_by_lookup: count(&format!(
                    "SELECT count(*) FROM events WHERE kind = 'reconciled' \
                     AND message NOT LIKE '{}%'",
                    super::NONE_FOUND
                ))?,
                retries: count("SELECT count(*) FROM events WHERE kind = 'retry_scheduled'")?,
                // Dead letters still to retry: not those given up on, nor those whose key
                // landed since through a later job (what `retry --all-failed` re-queues, too).
                failed: count(concat!(
                    "SELECT count(*) FROM jobs j WHERE state = 'failed' AND ",
                    still_to_retry!()
                ))?,
                // Refusals that still stand: not those given up on, of a key the dataset
                // has left (it was rescanned or edited since) or that landed since, nor a
                // removed dataset's, nor one deposited again since (a later job took its
                // place). The history keeps every one.
                rejected: count(concat!(
                    "SELECT count(*) FROM jobs j WHERE state = 'rejected'
                     AND dismissed_at IS NULL
                     AND NOT EXISTS (SELECT 1 FROM results r WHERE r.target = j.target
                                     AND r.operation = j.operation
                                     AND r.content_key = j.content_key)
                     AND EXISTS (SELECT 1 FROM datasets d WHERE d.id = j.dataset_id
                                 AND d.content_key = j.content_key)
                     AND ",
                    no_later_job_of_its_scope!()
                ))?,
                pending: count(concat!("SELECT count(*) FROM jobs WHERE ", active_job!()))?,
                oldest_pending_age_secs: oldest.map(|t| (now_ms() - t).max(0) as f64 / 1000.0),
            })
        })
    }

    /// Every job ever queued, newest first.
    pub fn history(&self) -> Result<Vec<HistoryRow>> {
        self.with(|db| {
            let title = if db.is_postgres() {
                "doc.document::json -> 'metadata' ->> 'title'"
            } else {
                "json_extract(doc.document, '$.metadata.title')"
            };
            db.all(
                &format!(
                    "SELECT j.id,
                            -- A removed dataset's jobs keep its number through their log.
                            COALESCE(j.dataset_id, (
                                SELECT e.dataset_id FROM events e
                                WHERE e.job_id = j.id AND e.dataset_id IS NOT NULL
                                ORDER BY e.id LIMIT 1)),
                            d.name, {title},
                            j.target, j.content_key, j.state, j.identifier, j.url,
                            j.attempts_before + j.attempts,
                            j.last_error, j.created_at, j.updated_at, j.dismissed_at,
                            (SELECT e.actor FROM events e WHERE e.job_id = j.id
                             ORDER BY e.id LIMIT 1)
                     FROM jobs j
                     LEFT JOIN datasets d ON d.id = j.dataset_id
                     LEFT JOIN documents doc ON doc.content_key = j.content_key
                     ORDER BY j.id DESC"
                ),
                args![],
                |r| {
                    Ok(HistoryRow {
                        job: r.get(0)?,
                        dataset: r.get(1)?,
                        name: r.get(2)?,
                        title: r.get(3)?,
                        target: r.get(4)?,
                        key: r.get(5)?,
                        state: r.get(6)?,
                        identifier: r.get(7)?,
                        url: r.get(8)?,
                        attempts: r.get(9)?,
                        last_error: r.get(10)?,
                        created_at: r.get(11)?,
                        updated_at: r.get(12)?,
                        dismissed_at: r.get(13)?,
                        queued_by: r.get(14)?,
                    })
                },
            )
        })
    }

    /// Forget recorded results older than `age` (all targets, or one). Lodge keeps results
    /// forever unless this is called: a forgotten result means the next deposit of that key
    /// asks the server again (which still arbitrates). Returns how many were removed.
    /// How many results [`Store::forget_results`] would forget, by target, in order.
    pub fn results_older_than(
        &self,
        older_than_ms: i64,
        target: Option<&str>,
    ) -> Result<Vec<(String, u64)>> {
        let before = now_ms() - older_than_ms;
        self.with(|db| {
            db.all(
                "SELECT target, count(*) FROM results
                 WHERE recorded_at < ?1 AND (CAST(?2 AS TEXT) IS NULL OR target = ?2)
                 GROUP BY target ORDER BY target",
                args![before, target],
                |r| Ok((r.get(0)?, r.get::<i64>(1)? as u64)),
            )
        })
    }

    /// Drop the results recorded longer ago than `older_than_ms` (of `target` alone, when
    /// given), logging, in the same transaction, how many of each target's went and `why`
    /// (`lodge forget --older-than 90d`, say). Returns how many went.
    pub fn forget_results(
        &self,
        older_than_ms: i64,
        target: Option<&str>,
        why: &str,
    ) -> Result<u64> {
        let before = now_ms() - older_than_ms;
        self.write(|db| {
            let by_target: Vec<(String, i64)> = db.all(
                "SELECT target, count(*) FROM results
                 WHERE recorded_at < ?1 AND (CAST(?2 AS TEXT) IS NULL OR target = ?2)
                 GROUP BY target ORDER BY target",
                args![before, target],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            let mut total = 0;
            for (target, n) in by_target {
                total += db.run(
                    "DELETE FROM results WHERE recorded_at < ?1 AND target = ?2",
                    args![before, &target],
                )? as u64;
                let event = super::NewEvent {
                    target: Some(target),
                    kind: Some(super::EventKind::Forgotten),
                    message: format!(
                        "{} forgotten ({why}): a deposit of their keys asks the server again; \
                         the records stay there",
                        crate::wording::count_of(n as u64, "recorded result", "recorded results")
                    ),
                    ..super::NewEvent::default()
                };
                super::events::insert_event(db, &event, &self.actor)?;
            }
            Ok(total)
        })
    }
}
