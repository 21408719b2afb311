//! The targets the store knows: the URL each was last opened from (so a retry can open it
//! again), and whether it is paused because its credentials were refused, until the user
//! acts. A target's scope id is what its jobs and results are keyed by.
//!
//! A pause is the pause of the actor (user@host) whose attempt the server refused: on a
//! shared database each machine gives its own credentials, so one machine's refused token
//! stops that machine's sending, not the lab's. A pause recorded before pauses had actors
//! (actor '') holds for everyone until one lifts it.

use super::events::insert_event;
use super::sql::args;
use super::{EventKind, EventRow, NewEvent, Result, Store, now_ms};

impl Store {
    /// Make sure a target exists in the store (its scope id is what results are keyed by).
    pub fn upsert_target(&self, scope_id: &str, url: &str, label: &str) -> Result<()> {
        self.with(|db| {
            db.run(
                "INSERT INTO targets (scope_id, url, label, added_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (scope_id) DO UPDATE SET url = excluded.url, label = excluded.label",
                args![scope_id, url, label, now_ms()],
            )?;
            Ok(())
        })
    }

    /// Remember that a run sends the target `scope_id` (upserted before) a token given on
    /// the command line ([`Store::target_took_token`]).
    pub fn note_target_took_token(&self, scope_id: &str) -> Result<()> {
        self.with(|db| {
            db.run(
                "UPDATE targets SET token_given = 1 WHERE scope_id = ?1 AND token_given = 0",
                args![scope_id],
            )?;
            Ok(())
        })
    }

    /// Whether a run ever sent the target `scope_id` a token given on the command line.
    pub fn target_took_token(&self, scope_id: &str) -> Result<bool> {
        self.with(|db| {
            db.opt(
                "SELECT 1 FROM targets WHERE scope_id = ?1 AND token_given = 1",
                args![scope_id],
                |r| r.get::<i64>(0),
            )
        })
        .map(|found| found.is_some())
    }

    /// The URL a target was last opened from (see `Target::target_url`), if it ever was.
    pub fn target_url(&self, scope_id: &str) -> Result<Option<String>> {
        self.with(|db| {
            db.opt(
                "SELECT url FROM targets WHERE scope_id = ?1",
                args![scope_id],
                |r| r.get::<String>(0),
            )
        })
    }

    /// The identity of every target this store has known, in order.
    pub fn target_scopes(&self) -> Result<Vec<String>> {
        self.with(|db| {
            db.all(
                "SELECT scope_id FROM targets ORDER BY scope_id",
                args![],
                |r| r.get::<String>(0),
            )
        })
    }

    /// Why a target is paused for this store's actor, if it is.
    pub fn target_paused(&self, scope_id: &str) -> Result<Option<String>> {
        self.with(|db| {
            db.opt(
                "SELECT reason FROM target_pauses WHERE scope_id = ?1 AND actor IN (?2, '')
                 ORDER BY paused_at DESC LIMIT 1",
                args![scope_id, &self.actor],
                |r| r.get::<String>(0),
            )
        })
    }

    /// Whether the target with identity `scope_id` ever refused credentials (an event of
    /// its with HTTP 401 or 403): a sandbox used by URL that did needs `--token` each run.
    pub fn target_ever_refused_credentials(&self, scope_id: &str) -> Result<bool> {
        self.with(|db| {
            db.opt(
                "SELECT 1 FROM events WHERE target = ?1 AND http_status IN (401, 403) LIMIT 1",
                args![scope_id],
                |r| r.get::<i64>(0),
            )
        })
        .map(|found| found.is_some())
    }

    /// Every target paused for this store's actor, by scope id, with why.
    pub fn paused_targets(&self) -> Result<Vec<(String, String)>> {
        let mut paused = self.with(|db| {
            db.all(
                "SELECT scope_id, reason FROM target_pauses WHERE actor IN (?1, '')
                 ORDER BY scope_id, paused_at DESC",
                args![&self.actor],
                |r| Ok((r.get::<String>(0)?, r.get::<String>(1)?)),
            )
        })?;
        // One for each target: its latest.
        paused.dedup_by(|later, first| later.0 == first.0);
        Ok(paused)
    }

    /// Lift a pause for this store's actor (the user acted: new credentials, or asked to
    /// deposit again), and one from before pauses had actors.
    pub fn resume_target(&self, scope_id: &str) -> Result<Option<EventRow>> {
        self.write(|db| {
            let changed = db.run(
                "DELETE FROM target_pauses WHERE scope_id = ?1 AND actor IN (?2, '')",
                args![scope_id, &self.actor],
            )?;
            if changed == 0 {
                return Ok(None);
            }
            let event = NewEvent {
                target: Some(scope_id.into()),
                kind: Some(EventKind::Resumed),
                message: format!("{scope_id} resumed"),
                ..NewEvent::default()
            };
            Ok(Some(insert_event(db, &event, &self.actor)?))
        })
    }
}
