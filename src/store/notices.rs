//! Notices that events were logged, so that an open window shows work other processes do
//! (a `lodge deposit` in a terminal, another machine in team mode) as it happens: on
//! PostgreSQL the `events` table's `NOTIFY` ([`super::postgres::listen`]), on a SQLite file
//! a look at the log's newest event twice a second ([`poll`]). SQLite has no way to tell
//! another process's connection that something was committed, and reading one id off the
//! end of a b-tree costs microseconds.

use std::time::Duration;

use super::Store;

/// A stream of notices: the id of a new event, or 0 for "catch up" (read everything after
/// the last event seen). A missed notice is no loss: readers fetch every event after the
/// last one they saw.
pub struct EventNotices {
    pub receiver: tokio::sync::mpsc::UnboundedReceiver<i64>,
    /// Whether the database answers, as far as the listening session knows (PostgreSQL:
    /// false from the moment its session is lost until a new one listens again). A SQLite
    /// file, on this machine, always answers: its sender is gone at once.
    pub reachable: tokio::sync::watch::Receiver<bool>,
}

/// How often [`poll`] looks at the end of the log.
const POLL_EVERY: Duration = Duration::from_millis(500);

/// Look at the newest event of `store` (a connection of its own) every [`POLL_EVERY`] and
/// send its id when it grew, until the receiver is dropped.
pub(super) fn poll(store: Store) -> EventNotices {
    let (tx, receiver) = tokio::sync::mpsc::unbounded_channel();
    let _ = std::thread::Builder::new()
        .name("lodge-poll".into())
        .spawn(move || {
            // Whatever was logged before the first look: readers catch up.
            let mut seen = store.last_event_id().unwrap_or(0);
            if tx.send(0).is_err() {
                return;
            }
            while !tx.is_closed() {
                std::thread::sleep(POLL_EVERY);
                // A moment when the database cannot be read (locked past its wait) is
                // skipped; the next look finds the same events.
                if let Ok(newest) = store.last_event_id()
                    && newest > seen
                {
                    seen = newest;
                    if tx.send(newest).is_err() {
                        return;
                    }
                }
            }
        });
    EventNotices {
        receiver,
        reachable: tokio::sync::watch::channel(true).1,
    }
}
