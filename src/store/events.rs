//! The append-only event log: every attempt, retry, replay, reconciliation and outcome.

use rusqlite::{Connection, params};

use super::{Result, Store, now_ms};

/// What happened. Stored as its lowercase name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
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
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
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
        }
    }

    /// Every kind, in the order of the log's vocabulary.
    pub const ALL: [EventKind; 13] = [
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

/// Append inside whatever transaction `conn` is in; returns the stored row.
pub(super) fn insert_event(conn: &Connection, e: &NewEvent, actor: &str) -> Result<EventRow> {
    let at = now_ms();
    let kind = e.kind.unwrap_or(EventKind::Attempt);
    conn.prepare_cached(
        "INSERT INTO events (at, job_id, dataset_id, target, content_key, kind, attempt,
                             http_status, delay_ms, message, actor)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        at,
        e.job_id,
        e.dataset_id,
        e.target,
        e.content_key,
        kind.as_str(),
        e.attempt,
        e.http_status,
        e.delay_ms,
        e.message,
        actor
    ])?;
    Ok(EventRow {
        id: conn.last_insert_rowid(),
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

const EVENT_COLUMNS: &str = "id, at, job_id, dataset_id, target, content_key, kind, attempt, \
                             http_status, delay_ms, message, actor";

fn event_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<EventRow> {
    let kind: String = r.get(6)?;
    Ok(EventRow {
        id: r.get(0)?,
        at: r.get(1)?,
        job_id: r.get(2)?,
        dataset_id: r.get(3)?,
        target: r.get(4)?,
        content_key: r.get(5)?,
        // An unknown kind (written by a newer Lodge, say) is an error, not silently relabelled.
        kind: EventKind::parse(&kind).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                6,
                rusqlite::types::Type::Text,
                format!("unknown event kind '{kind}'").into(),
            )
        })?,
        attempt: r.get(7)?,
        http_status: r.get(8)?,
        delay_ms: r.get(9)?,
        message: r.get(10)?,
        actor: r.get(11)?,
    })
}

impl Store {
    /// Append one event on its own.
    pub fn append_event(&self, event: &NewEvent) -> Result<EventRow> {
        let conn = self.conn();
        insert_event(&conn, event, &self.actor)
    }

    /// Events with id greater than `after`, oldest first, at most `limit`.
    pub fn events_after(&self, after: i64, limit: usize) -> Result<Vec<EventRow>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE id > ?1 ORDER BY id LIMIT ?2"
        ))?;
        let rows = stmt
            .query_map(params![after, limit as i64], event_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Every event of one job, oldest first.
    pub fn events_for_job(&self, job_id: i64) -> Result<Vec<EventRow>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE job_id = ?1 ORDER BY id"
        ))?;
        let rows = stmt
            .query_map([job_id], event_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// How many events of a kind were ever logged.
    pub fn count_events(&self, kind: EventKind) -> Result<u64> {
        let conn = self.conn();
        let n: i64 = conn.query_row(
            "SELECT count(*) FROM events WHERE kind = ?1",
            [kind.as_str()],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }
}

impl Store {
    /// Id of the newest event (0 when the log is empty).
    pub fn last_event_id(&self) -> Result<i64> {
        let conn = self.conn();
        Ok(conn.query_row("SELECT coalesce(max(id), 0) FROM events", [], |r| r.get(0))?)
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
