//! The append-only event log: every attempt, retry, replay, reconciliation and outcome, and
//! each dataset's arrival, change of key and removal.

use super::sql::{Db, Row, args};
use super::{Result, Store, StoreError, now_ms};
use crate::content::ContentKey;

/// How the log begins a look-up of a key that found no record of it on the server
/// ([`EventKind::Reconciled`], as is one that found the record).
pub const NONE_FOUND: &str = "reconciled: no record of this key on the server yet";

/// What happened. Stored as its lowercase name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A folder was added as a dataset.
    Added,
    /// A dataset's folder was scanned again and its key changed: its files (and maybe its
    /// metadata too). A rescan that finds it as it was logs nothing.
    Rescanned,
    /// A dataset's metadata was edited (in the window, or by `lodge add` with new flags or
    /// defaults), its files unchanged, so its key changed.
    Edited,
    /// A dataset was taken off the list. What it deposited stays, and so does its log.
    Removed,
    /// A job was put on the queue (or re-queued by `retry`).
    Queued,
    /// A worker claimed a job whose previous holder's lease had expired.
    Reclaimed,
    /// A request is about to be sent.
    Attempt,
    /// The attempt failed and another is scheduled after a delay.
    RetryScheduled,
    /// The store already had the result: nothing was sent.
    Replay,
    /// Before a retry the target was asked whether the key already landed.
    Reconciled,
    /// The server created the record.
    Created,
    /// The server said the record already exists (412, 409, "already taken").
    Existing,
    /// Terminal: the server or Lodge refused the content.
    Rejected,
    /// Retries exhausted: the job is in the dead-letter state until someone retries it.
    Failed,
    /// The target refused the credentials and is paused until the user acts.
    Paused,
    /// The user resumed a paused target.
    Resumed,
    /// A worker whose lease had been taken over tried to record a result; refused.
    StaleLease,
    /// A worker gave a job back because it cannot read the dataset's folder (it is on the
    /// machine that added it): left for a machine that can.
    LeftForOthers,
    /// `lodge verify` found the deposit whole on the server.
    Verified,
    /// `lodge verify` found the deposit's record or files gone or changed on the server.
    Damaged,
    /// `lodge verify --repair` (or the window's Repair) sent files the server had lost
    /// again; the check that followed is logged after it.
    Repair,
    /// A person gave up on a failed or refused job (`lodge dismiss`, the window's Dismiss).
    Dismissed,
    /// A check (`lodge verify`, the window's Verify) found a drafting target's deposit
    /// published since on the repository's pages: a draft no more.
    Published,
    /// `lodge forget` dropped a target's recorded results: their next deposit asks the
    /// server again. The records stay on the server.
    Forgotten,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Added => "added",
            EventKind::Rescanned => "rescanned",
            EventKind::Edited => "edited",
            EventKind::Removed => "removed",
            EventKind::Queued => "queued",
            EventKind::Reclaimed => "reclaimed",
            EventKind::Attempt => "attempt",
            EventKind::RetryScheduled => "retry_scheduled",
            EventKind::Replay => "replay",
            EventKind::Reconciled => "reconciled",
            EventKind::Created => "created",
            EventKind::Existing => "existing",
            EventKind::Rejected => "rejected",
            EventKind::Failed => "failed",
            EventKind::Paused => "paused",
            EventKind::Resumed => "resumed",
            EventKind::StaleLease => "stale_lease",
            EventKind::LeftForOthers => "left_for_others",
            EventKind::Verified => "verified",
            EventKind::Damaged => "damaged",
            EventKind::Repair => "repair",
            EventKind::Dismissed => "dismissed",
            EventKind::Published => "published",
            EventKind::Forgotten => "forgotten",
        }
    }

    /// Every kind, in the order of the log's vocabulary.
    pub const ALL: [EventKind; 24] = [
        EventKind::Added,
        EventKind::Rescanned,
        EventKind::Edited,
        EventKind::Removed,
        EventKind::Queued,
        EventKind::Reclaimed,
        EventKind::Attempt,
        EventKind::RetryScheduled,
        EventKind::Replay,
        EventKind::Reconciled,
        EventKind::Created,
        EventKind::Existing,
        EventKind::Rejected,
        EventKind::Failed,
        EventKind::Paused,
        EventKind::Resumed,
        EventKind::StaleLease,
        EventKind::LeftForOthers,
        EventKind::Verified,
        EventKind::Damaged,
        EventKind::Repair,
        EventKind::Dismissed,
        EventKind::Published,
        EventKind::Forgotten,
    ];

    pub fn parse(s: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Whether a person should notice this event (for log filters).
    pub fn is_problem(self) -> bool {
        matches!(
            self,
            EventKind::RetryScheduled
                | EventKind::Rejected
                | EventKind::Failed
                | EventKind::Paused
                | EventKind::StaleLease
                | EventKind::LeftForOthers
                | EventKind::Damaged
        )
    }
}

/// An event to append.
#[derive(Clone, Debug, Default)]
pub struct NewEvent {
    pub job_id: Option<i64>,
    pub dataset_id: Option<i64>,
    pub target: Option<String>,
    pub content_key: Option<String>,
    pub kind: Option<EventKind>,
    pub attempt: Option<u32>,
    pub http_status: Option<u16>,
    pub delay_ms: Option<i64>,
    pub message: String,
}

/// An event as stored.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EventRow {
    pub id: i64,
    /// Unix ms.
    pub at: i64,
    pub job_id: Option<i64>,
    pub dataset_id: Option<i64>,
    pub target: Option<String>,
    pub content_key: Option<String>,
    pub kind: EventKind,
    pub attempt: Option<u32>,
    pub http_status: Option<u16>,
    pub delay_ms: Option<i64>,
    pub message: String,
    /// `user@host` of the process that wrote it.
    pub actor: String,
}

#[cfg(test)]
impl EventRow {
    /// An event for unit tests: of job 7 of dataset 1, to a loopback sandbox, key a…a,
    /// logged at `id` ms by `me@here`, its message "event ID". Tests set what they are about.
    pub(crate) fn for_tests(id: i64, kind: EventKind) -> EventRow {
        EventRow {
            id,
            at: id,
            job_id: Some(7),
            dataset_id: Some(1),
            target: Some("sandbox+http://127.0.0.1:1".into()),
            content_key: Some("a".repeat(64)),
            kind,
            attempt: None,
            http_status: None,
            delay_ms: None,
            message: format!("event {id}"),
            actor: "me@here".into(),
        }
    }

    /// [`EventRow::for_tests`] with its message `message`.
    pub(crate) fn for_tests_saying(id: i64, kind: EventKind, message: &str) -> EventRow {
        EventRow {
            message: message.into(),
            ..EventRow::for_tests(id, kind)
        }
    }
}

/// Append inside whatever transaction `db` is in; returns the stored row.
pub(super) fn insert_event(db: Db<'_>, e: &NewEvent, actor: &str) -> Result<EventRow> {
    let at = now_ms();
    let kind = e.kind.unwrap_or(EventKind::Attempt);
    let id = db.insert(
        "INSERT INTO events (at, job_id, dataset_id, target, content_key, kind, attempt,
                             http_status, delay_ms, message, actor)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        args![
            at,
            e.job_id,
            e.dataset_id,
            &e.target,
            &e.content_key,
            kind.as_str(),
            e.attempt,
            e.http_status,
            e.delay_ms,
            &e.message,
            actor
        ],
    )?;
    Ok(EventRow {
        id,
        at,
        job_id: e.job_id,
        dataset_id: e.dataset_id,
        target: e.target.clone(),
        content_key: e.content_key.clone(),
        kind,
        attempt: e.attempt,
        http_status: e.http_status,
        delay_ms: e.delay_ms,
        message: e.message.clone(),
        actor: actor.to_string(),
    })
}

/// Of a `deposit_checks` row `dc`: no result of its scope was created after the check (a
/// deposit that made the record anew, after `lodge forget`, leaves the check of the record
/// before behind). A server's "exists" since says nothing new of the record: it stands.
const CHECK_STILL_STANDS: &str = "NOT EXISTS (SELECT 1 FROM results r
                     WHERE r.target = dc.target AND r.content_key = dc.content_key
                       AND r.outcome = 'created'
                       AND r.recorded_at > (SELECT c.at FROM events c WHERE c.id = dc.event_id))";

const EVENT_COLUMNS: &str = "id, at, job_id, dataset_id, target, content_key, kind, attempt, \
                             http_status, delay_ms, message, actor";

fn event_from_row(r: &Row<'_, '_>) -> Result<EventRow> {
    let kind: String = r.get(6)?;
    Ok(EventRow {
        id: r.get(0)?,
        at: r.get(1)?,
        job_id: r.get(2)?,
        dataset_id: r.get(3)?,
        target: r.get(4)?,
        content_key: r.get(5)?,
        // An unknown kind (written by a newer Lodge, say) is an error, not silently relabelled.
        kind: EventKind::parse(&kind)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown event kind '{kind}'")))?,
        attempt: r.get(7)?,
        http_status: r.get(8)?,
        delay_ms: r.get(9)?,
        message: r.get(10)?,
        actor: r.get(11)?,
    })
}

/// One event by id, inside whatever transaction `db` is in.
pub(super) fn event_by_id(db: Db<'_>, id: i64) -> Result<EventRow> {
    db.opt(
        &format!("SELECT {EVENT_COLUMNS} FROM events WHERE id = ?1"),
        args![id],
        event_from_row,
    )?
    .ok_or_else(|| StoreError::Corrupt(format!("event {id} is missing")))
}

impl Store {
    /// Append one event on its own.
    pub fn append_event(&self, event: &NewEvent) -> Result<EventRow> {
        self.with(|db| insert_event(db, event, &self.actor))
    }

    /// Events with id greater than `after`, oldest first, at most `limit`.
    pub fn events_after(&self, after: i64, limit: usize) -> Result<Vec<EventRow>> {
        self.with(|db| {
            db.all(
                &format!("SELECT {EVENT_COLUMNS} FROM events WHERE id > ?1 ORDER BY id LIMIT ?2"),
                args![after, limit],
                event_from_row,
            )
        })
    }

    /// Every event of one job, oldest first.
    pub fn events_for_job(&self, job_id: i64) -> Result<Vec<EventRow>> {
        self.with(|db| {
            db.all(
                &format!("SELECT {EVENT_COLUMNS} FROM events WHERE job_id = ?1 ORDER BY id"),
                args![job_id],
                event_from_row,
            )
        })
    }

    /// Every event of one dataset, oldest first: its own (added, rescanned) and its jobs'.
    pub fn events_for_dataset(&self, dataset_id: i64) -> Result<Vec<EventRow>> {
        self.with(|db| {
            db.all(
                &format!(
                    "SELECT {EVENT_COLUMNS} FROM events
                     WHERE dataset_id = ?1
                        OR job_id IN (SELECT id FROM jobs WHERE dataset_id = ?1)
                     ORDER BY id"
                ),
                args![dataset_id],
                event_from_row,
            )
        })
    }

    /// The latest check (a `verified` or `damaged` event) of every deposit that was ever
    /// checked, one per scope (target and key), oldest first. Not a check of a record made
    /// anew since (its result forgotten, the deposit created it again): that check was of
    /// the record before.
    pub fn latest_checks(&self) -> Result<Vec<EventRow>> {
        self.with(|db| {
            db.all(
                &format!(
                    "SELECT {EVENT_COLUMNS} FROM events
                     WHERE id IN (SELECT dc.event_id FROM deposit_checks dc
                                  WHERE {CHECK_STILL_STANDS})
                     ORDER BY id"
                ),
                args![],
                event_from_row,
            )
        })
    }

    /// The latest check of the deposit of `key` on `target`, if it was ever checked (and
    /// the record was not made anew since, as [`Store::latest_checks`]).
    pub fn latest_check(&self, target: &str, key: &ContentKey) -> Result<Option<EventRow>> {
        self.with(|db| {
            db.opt(
                &format!(
                    "SELECT {EVENT_COLUMNS} FROM events
                     WHERE id = (SELECT dc.event_id FROM deposit_checks dc
                                 WHERE dc.target = ?1 AND dc.content_key = ?2
                                   AND {CHECK_STILL_STANDS})"
                ),
                args![target, &key.to_hex()],
                event_from_row,
            )
        })
    }

    /// How many events of a kind were ever logged.
    pub fn count_events(&self, kind: EventKind) -> Result<u64> {
        let n: i64 = self.with(|db| {
            db.one(
                "SELECT count(*) FROM events WHERE kind = ?1",
                args![kind.as_str()],
                |r| r.get(0),
            )
        })?;
        Ok(n as u64)
    }

    /// Id of the newest event (0 when the log is empty).
    pub fn last_event_id(&self) -> Result<i64> {
        self.with(|db| {
            db.one("SELECT coalesce(max(id), 0) FROM events", args![], |r| {
                r.get(0)
            })
        })
    }

    /// A stream of notices that a process (any, on any machine for PostgreSQL; on this
    /// machine for a SQLite file) logged events: the id of each new event, or 0 for "catch
    /// up". `None` only when a SQLite file cannot be opened a second time.
    pub fn event_notices(&self) -> Option<super::EventNotices> {
        match self.location() {
            super::StoreLocation::Postgres(url) => Some(super::postgres::listen(url)),
            super::StoreLocation::File(_) => self.reopen().ok().map(super::notices::poll),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::EventKind;

    #[test]
    fn every_event_kind_reads_back_as_itself() {
        for kind in EventKind::ALL {
            assert_eq!(EventKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(EventKind::parse("no_such_kind"), None);
    }
}
