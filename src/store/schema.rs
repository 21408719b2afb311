//! The store's schema, as versioned migrations: the same tables, columns and versions on
//! SQLite (rusqlite_migration keeps the version in `user_version`) and on PostgreSQL (the
//! `lodge_schema` table). Add a migration at the end of both lists (SQLite's V4, a rebuild
//! PostgreSQL does not need, is the one exception); never edit one that has shipped. The
//! SQLite migrations run with foreign keys off, so a rebuilt table's rows are copied, not
//! cascaded away.

use rusqlite_migration::{M, Migrations};

const V1: &str = r#"
CREATE TABLE datasets (
    id          INTEGER PRIMARY KEY,
    path        TEXT NOT NULL UNIQUE,      -- canonical absolute folder on this machine
    name        TEXT NOT NULL,
    metadata    TEXT NOT NULL,             -- JSON of the normalised Metadata
    content_key TEXT,                      -- key of the last scan
    fingerprint TEXT,
    file_count  INTEGER NOT NULL DEFAULT 0,
    total_bytes INTEGER NOT NULL DEFAULT 0,
    added_at    INTEGER NOT NULL,          -- unix ms
    scanned_at  INTEGER
);

-- The canonical document of every key ever scanned. Immutable: a key names one document.
CREATE TABLE documents (
    content_key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    document    TEXT NOT NULL
);
CREATE INDEX documents_by_fingerprint ON documents(fingerprint);

-- What the last scan saw on disk, to notice a file that changed before it is sent.
CREATE TABLE dataset_files (
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    rel_path   TEXT NOT NULL,
    size       INTEGER NOT NULL,
    mtime_ns   INTEGER NOT NULL,
    file_id    INTEGER NOT NULL,
    sha256     TEXT NOT NULL,
    PRIMARY KEY (dataset_id, rel_path)
) WITHOUT ROWID;

-- Digests of files on this machine, valid while (size, mtime, file id) are unchanged.
CREATE TABLE hash_cache (
    abs_path TEXT PRIMARY KEY,
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    file_id  INTEGER NOT NULL,
    sha256   TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE targets (
    scope_id      TEXT PRIMARY KEY,        -- kind + endpoint + account/prefix, no credentials
    url           TEXT NOT NULL,
    label         TEXT NOT NULL,
    paused_reason TEXT,                    -- set when credentials were refused
    paused_at     INTEGER,
    added_at      INTEGER NOT NULL
);

-- The durable queue. A job is one (target, operation, key) to bring about.
CREATE TABLE jobs (
    id            INTEGER PRIMARY KEY,
    dataset_id    INTEGER REFERENCES datasets(id) ON DELETE SET NULL,
    target        TEXT NOT NULL REFERENCES targets(scope_id),
    operation     TEXT NOT NULL,
    content_key   TEXT NOT NULL REFERENCES documents(content_key),
    state         TEXT NOT NULL CHECK (state IN
                  ('queued','running','waiting','deposited','existing','failed','rejected')),
    attempts      INTEGER NOT NULL DEFAULT 0,
    not_before    INTEGER NOT NULL DEFAULT 0,  -- unix ms; a waiting job sleeps until then
    due_at        INTEGER NOT NULL DEFAULT 0,  -- unix ms; when a worker may claim it next:
                                               -- queued: now, waiting: not_before,
                                               -- running: when its lease expires
    deadline      INTEGER NOT NULL,            -- unix ms; no retry is scheduled past it
    lease_owner   TEXT,
    lease_expires INTEGER,
    fence         INTEGER NOT NULL DEFAULT 0,  -- fencing token, bumped by every claim
    last_error    TEXT,
    last_status   INTEGER,
    identifier    TEXT,
    url           TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX jobs_one_active_per_scope ON jobs(target, operation, content_key)
    WHERE state IN ('queued','running','waiting');
CREATE INDEX jobs_due ON jobs(due_at, id) WHERE state IN ('queued','running','waiting');
CREATE INDEX jobs_by_dataset ON jobs(dataset_id, target);

-- The dedup store: what each scope produced. Kept forever unless the user forgets it.
CREATE TABLE results (
    target      TEXT NOT NULL,
    operation   TEXT NOT NULL,
    content_key TEXT NOT NULL,
    identifier  TEXT NOT NULL,
    url         TEXT,
    outcome     TEXT NOT NULL CHECK (outcome IN ('created','existing')),
    fingerprint TEXT NOT NULL,
    job_id      INTEGER,
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (target, operation, content_key)
);
CREATE INDEX results_by_fingerprint ON results(fingerprint);

-- Append-only log of every attempt, retry, replay, reconciliation and outcome.
CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    at          INTEGER NOT NULL,
    job_id      INTEGER,
    dataset_id  INTEGER,
    target      TEXT,
    content_key TEXT,
    kind        TEXT NOT NULL,
    attempt     INTEGER,
    http_status INTEGER,
    delay_ms    INTEGER,
    message     TEXT NOT NULL,
    actor       TEXT NOT NULL
);
CREATE INDEX events_by_job ON events(job_id);
CREATE TRIGGER events_are_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER events_are_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"#;

/// V2: where a dataset was added (`user@host`), so a worker on another machine that cannot
/// read its folder knows to leave the job for one that can.
const V2: &str = "ALTER TABLE datasets ADD COLUMN origin TEXT NOT NULL DEFAULT '';";

/// V3: the queue's writes touch fewer pages and build no temporary b-trees.
///
/// - `jobs.ended_at`: when the job ended (deposited, existing, failed or rejected); NULL
///   while it is still to be done. The partial indexes of active jobs select on it, so a
///   claim (queued -> running) no longer rewrites its entry in the one-active-job-per-scope
///   index, a random page, as a predicate on `state` made SQLite do. A check keeps it in
///   step with `state`.
/// - The state check is written as comparisons: SQLite tests an `IN` list of more than two
///   values through a temporary b-tree built on every run of the statement.
/// - `results_by_fingerprint` goes: every result's key has a document, which has the
///   fingerprint ([`Store::results_with_fingerprint`](super::Store) looks there), and the
///   index cost each recorded result another random page.
///
/// A check cannot be altered in place, so `jobs` is rebuilt with its columns plus
/// `ended_at` (no table refers to `jobs`). A query that wants a partial index must repeat
/// its predicate word for word: `active_job!` in `store/mod.rs`.
const V3: &str = r#"
CREATE TABLE jobs_v3 (
    id            INTEGER PRIMARY KEY,
    dataset_id    INTEGER REFERENCES datasets(id) ON DELETE SET NULL,
    target        TEXT NOT NULL REFERENCES targets(scope_id),
    operation     TEXT NOT NULL,
    content_key   TEXT NOT NULL REFERENCES documents(content_key),
    state         TEXT NOT NULL CHECK (state = 'queued' OR state = 'running'
                  OR state = 'waiting' OR state = 'deposited' OR state = 'existing'
                  OR state = 'failed' OR state = 'rejected'),
    attempts      INTEGER NOT NULL DEFAULT 0,
    not_before    INTEGER NOT NULL DEFAULT 0,  -- unix ms; a waiting job sleeps until then
    due_at        INTEGER NOT NULL DEFAULT 0,  -- unix ms; when a worker may claim it next:
                                               -- queued: now, waiting: not_before,
                                               -- running: when its lease expires
    deadline      INTEGER NOT NULL,            -- unix ms; no retry is scheduled past it
    lease_owner   TEXT,
    lease_expires INTEGER,
    fence         INTEGER NOT NULL DEFAULT 0,  -- fencing token, bumped by every claim
    last_error    TEXT,
    last_status   INTEGER,
    identifier    TEXT,
    url           TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    ended_at      INTEGER,                     -- unix ms; NULL while queued, running, waiting
    CHECK ((ended_at IS NULL) = (state = 'queued' OR state = 'running' OR state = 'waiting'))
);
INSERT INTO jobs_v3 SELECT id, dataset_id, target, operation, content_key, state, attempts,
    not_before, due_at, deadline, lease_owner, lease_expires, fence, last_error,
    last_status, identifier, url, created_at, updated_at,
    CASE WHEN state IN ('queued','running','waiting') THEN NULL ELSE updated_at END
    FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_v3 RENAME TO jobs;
CREATE UNIQUE INDEX jobs_one_active_per_scope ON jobs(target, operation, content_key)
    WHERE ended_at IS NULL;
CREATE INDEX jobs_due ON jobs(due_at, id) WHERE ended_at IS NULL;
CREATE INDEX jobs_by_dataset ON jobs(dataset_id, target);
DROP INDEX results_by_fingerprint;
"#;

/// V4: a dataset id is never handed out twice. Without `AUTOINCREMENT` SQLite gives a new row
/// the largest id plus one, so removing the newest dataset and adding another gave the new
/// one the removed one's id, and with it the removed one's events in the append-only log
/// (which keeps the id). `datasets` is rebuilt with `AUTOINCREMENT` (the store runs its
/// migrations with foreign keys off, so dropping the old table neither deletes the files
/// of the last scans nor unlinks the jobs), and the sequence starts past every id the log
/// and the queue have seen. PostgreSQL's identity columns never reuse an id: no counterpart.
const V4: &str = r#"
CREATE TABLE datasets_v4 (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    path        TEXT NOT NULL UNIQUE,      -- canonical absolute folder on this machine
    name        TEXT NOT NULL,
    metadata    TEXT NOT NULL,             -- JSON of the normalised Metadata
    content_key TEXT,                      -- key of the last scan
    fingerprint TEXT,
    file_count  INTEGER NOT NULL DEFAULT 0,
    total_bytes INTEGER NOT NULL DEFAULT 0,
    added_at    INTEGER NOT NULL,          -- unix ms
    scanned_at  INTEGER,
    origin      TEXT NOT NULL DEFAULT ''   -- user@host that added it
);
INSERT INTO datasets_v4 (id, path, name, metadata, content_key, fingerprint, file_count,
                         total_bytes, added_at, scanned_at, origin)
    SELECT id, path, name, metadata, content_key, fingerprint, file_count, total_bytes,
           added_at, scanned_at, origin
    FROM datasets;
DROP TABLE datasets;
ALTER TABLE datasets_v4 RENAME TO datasets;
INSERT INTO sqlite_sequence (name, seq)
    SELECT 'datasets', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'datasets');
UPDATE sqlite_sequence SET seq = max(
        seq,
        coalesce((SELECT max(id) FROM datasets), 0),
        coalesce((SELECT max(dataset_id) FROM events), 0),
        coalesce((SELECT max(dataset_id) FROM jobs), 0))
    WHERE name = 'datasets';
"#;

/// Every SQLite migration, oldest first.
/// V5: the latest check of each deposit (`lodge verify`, the window's Verify), by scope,
/// beside the log: the window opens on each deposit's latest finding without reading the
/// whole log. A table of its own, written only by a check, so the deposits' own events pay
/// nothing for it (a partial index on `events` cost every insert a cursor on it). Filled
/// from the checks already logged.
const V5: &str = CHECKS_TABLE;

/// The table V5 adds and its rows from the log, in words SQLite and PostgreSQL both take.
const CHECKS_TABLE: &str = "CREATE TABLE deposit_checks (
    target      TEXT NOT NULL,
    content_key TEXT NOT NULL,
    event_id    BIGINT NOT NULL REFERENCES events(id),
    PRIMARY KEY (target, content_key)
);
INSERT INTO deposit_checks (target, content_key, event_id)
    SELECT target, content_key, max(id) FROM events
    WHERE kind IN ('verified', 'damaged') AND target IS NOT NULL AND content_key IS NOT NULL
    GROUP BY target, content_key;";

/// V6: a failed or refused job a person has given up on (`lodge dismiss`, the window's
/// Dismiss), when they did. It stays in the history and the log, and leaves the status,
/// its totals and `retry --all-failed`; `retry` of its number clears the mark. Only an
/// ended job that did not land can carry it. The same words on PostgreSQL (its V5).
const V6: &str = "ALTER TABLE jobs ADD COLUMN dismissed_at BIGINT
    CHECK (dismissed_at IS NULL OR state = 'failed' OR state = 'rejected');";

/// V7: the attempts a job made before its latest `retry` (which starts its count again,
/// each round having its own bound and deadline), so the history says how often it was
/// sent in all. The same words on PostgreSQL (its V6).
const V7: &str = "ALTER TABLE jobs ADD COLUMN attempts_before BIGINT NOT NULL DEFAULT 0;";

/// V8: a scope's jobs found by its target and key, whatever their state: a failed job is
/// history once a later job of its scope took its place (`no_later_job_of_its_scope!` in
/// the status's totals and `retry --all-failed`), which without it reads every later job
/// of the store. The same words on PostgreSQL (its V7).
const V8: &str = "CREATE INDEX jobs_by_scope ON jobs(target, content_key);";

/// V9: a target's pause is the pause of the user and machine (the actor) whose credentials
/// or settings the server refused, not of every machine on a shared database: each
/// machine gives its own (a lab's colleague's mistyped token must not stop the others). A
/// pause from before (no actor known) holds for everyone, as it did, until one lifts it.
/// `targets.paused_reason` and `paused_at` stay, empty and unread (SQLite drops a column
/// only by rebuilding its table). The same words on PostgreSQL (its V8).
const V9: &str = "CREATE TABLE target_pauses (
    scope_id  TEXT NOT NULL REFERENCES targets(scope_id),
    actor     TEXT NOT NULL,
    reason    TEXT NOT NULL,
    paused_at BIGINT NOT NULL,
    PRIMARY KEY (scope_id, actor)
);
INSERT INTO target_pauses (scope_id, actor, reason, paused_at)
    SELECT scope_id, '', paused_reason, coalesce(paused_at, 0) FROM targets
    WHERE paused_reason IS NOT NULL;
UPDATE targets SET paused_reason = NULL, paused_at = NULL;";

/// V10: whether a run ever sent a target a token given on the command line (`--token`,
/// `LODGE_TOKEN`): a sandbox started with `--token` says so only by refusing a request
/// without it, and one given its token from the first never refuses. The commands Lodge
/// suggests for it later (`lodge retry`, `lodge verify`) then carry `--token TOKEN`. The
/// same words on PostgreSQL (its V9).
const V10: &str = "ALTER TABLE targets ADD COLUMN token_given BIGINT NOT NULL DEFAULT 0;";

/// The schema version the last of [`migrations`] leaves a SQLite database at (its
/// `user_version`): a database beyond it was written by a newer Lodge.
pub const SQLITE_LATEST: i64 = 10;

/// Tables every Lodge database has had since V1 (later versions rebuild some, under the same
/// names): an SQLite file with a schema version but without them is another program's.
pub const LODGE_TABLES: [&str; 5] = ["datasets", "documents", "events", "jobs", "results"];

pub fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(V1),
        M::up(V2),
        M::up(V3),
        M::up(V4).foreign_key_check(),
        M::up(V5),
        M::up(V6),
        M::up(V7),
        M::up(V8),
        M::up(V9),
        M::up(V10),
    ])
}

/// V1 in PostgreSQL's words: 64-bit integers, identity keys, and the append-only rule and
/// the live-update notice as trigger functions.
const PG_V1: &str = r#"
CREATE TABLE datasets (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    path        TEXT NOT NULL,
    name        TEXT NOT NULL,
    metadata    TEXT NOT NULL,
    content_key TEXT,
    fingerprint TEXT,
    file_count  BIGINT NOT NULL DEFAULT 0,
    total_bytes BIGINT NOT NULL DEFAULT 0,
    added_at    BIGINT NOT NULL,
    scanned_at  BIGINT
);
CREATE TABLE documents (
    content_key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    document    TEXT NOT NULL
);
CREATE INDEX documents_by_fingerprint ON documents(fingerprint);
CREATE TABLE dataset_files (
    dataset_id BIGINT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    rel_path   TEXT NOT NULL,
    size       BIGINT NOT NULL,
    mtime_ns   BIGINT NOT NULL,
    file_id    BIGINT NOT NULL,
    sha256     TEXT NOT NULL,
    PRIMARY KEY (dataset_id, rel_path)
);
-- Unused on PostgreSQL (each machine keeps its own hash cache), kept so both schemas match.
CREATE TABLE hash_cache (
    abs_path TEXT PRIMARY KEY,
    size     BIGINT NOT NULL,
    mtime_ns BIGINT NOT NULL,
    file_id  BIGINT NOT NULL,
    sha256   TEXT NOT NULL
);
CREATE TABLE targets (
    scope_id      TEXT PRIMARY KEY,
    url           TEXT NOT NULL,
    label         TEXT NOT NULL,
    paused_reason TEXT,
    paused_at     BIGINT,
    added_at      BIGINT NOT NULL
);
CREATE TABLE jobs (
    id            BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    dataset_id    BIGINT REFERENCES datasets(id) ON DELETE SET NULL,
    target        TEXT NOT NULL REFERENCES targets(scope_id),
    operation     TEXT NOT NULL,
    content_key   TEXT NOT NULL REFERENCES documents(content_key),
    state         TEXT NOT NULL CHECK (state IN
                  ('queued','running','waiting','deposited','existing','failed','rejected')),
    attempts      BIGINT NOT NULL DEFAULT 0,
    not_before    BIGINT NOT NULL DEFAULT 0,
    due_at        BIGINT NOT NULL DEFAULT 0,
    deadline      BIGINT NOT NULL,
    lease_owner   TEXT,
    lease_expires BIGINT,
    fence         BIGINT NOT NULL DEFAULT 0,
    last_error    TEXT,
    last_status   BIGINT,
    identifier    TEXT,
    url           TEXT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE UNIQUE INDEX jobs_one_active_per_scope ON jobs(target, operation, content_key)
    WHERE state IN ('queued','running','waiting');
CREATE INDEX jobs_due ON jobs(due_at, id) WHERE state IN ('queued','running','waiting');
CREATE INDEX jobs_by_dataset ON jobs(dataset_id, target);
CREATE TABLE results (
    target      TEXT NOT NULL,
    operation   TEXT NOT NULL,
    content_key TEXT NOT NULL,
    identifier  TEXT NOT NULL,
    url         TEXT,
    outcome     TEXT NOT NULL CHECK (outcome IN ('created','existing')),
    fingerprint TEXT NOT NULL,
    job_id      BIGINT,
    recorded_at BIGINT NOT NULL,
    PRIMARY KEY (target, operation, content_key)
);
CREATE INDEX results_by_fingerprint ON results(fingerprint);
CREATE TABLE events (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    at          BIGINT NOT NULL,
    job_id      BIGINT,
    dataset_id  BIGINT,
    target      TEXT,
    content_key TEXT,
    kind        TEXT NOT NULL,
    attempt     BIGINT,
    http_status BIGINT,
    delay_ms    BIGINT,
    message     TEXT NOT NULL,
    actor       TEXT NOT NULL
);
CREATE INDEX events_by_job ON events(job_id);
CREATE FUNCTION lodge_events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'the event log is append-only'; END $$;
CREATE TRIGGER events_are_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION lodge_events_are_append_only();
-- Every open window on every machine hears of each new event (LISTEN lodge_events).
CREATE FUNCTION lodge_notify_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_notify('lodge_events', NEW.id::text); RETURN NULL; END $$;
CREATE TRIGGER events_notify AFTER INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION lodge_notify_event();
"#;

/// V2 on PostgreSQL: the same column; a folder path names one dataset per machine.
const PG_V2: &str = "ALTER TABLE datasets ADD COLUMN origin TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX datasets_by_origin_path ON datasets(origin, path);";

/// V3 on PostgreSQL: the same `ended_at` column, check and indexes, and no
/// `results_by_fingerprint`. PostgreSQL tests `IN` lists cheaply, so its state check stays.
const PG_V3: &str = "ALTER TABLE jobs ADD COLUMN ended_at BIGINT;
UPDATE jobs SET ended_at = updated_at WHERE state NOT IN ('queued','running','waiting');
ALTER TABLE jobs ADD CONSTRAINT jobs_ended_with_state
    CHECK ((ended_at IS NULL) = (state IN ('queued','running','waiting')));
DROP INDEX jobs_one_active_per_scope;
DROP INDEX jobs_due;
CREATE UNIQUE INDEX jobs_one_active_per_scope ON jobs(target, operation, content_key)
    WHERE ended_at IS NULL;
CREATE INDEX jobs_due ON jobs(due_at, id) WHERE ended_at IS NULL;
DROP INDEX results_by_fingerprint;";

/// Every PostgreSQL migration, oldest first: the same as [`migrations`] without SQLite's V4,
/// which has nothing to change here. So PostgreSQL's version 4 is SQLite's V5, its 5
/// SQLite's V6, its 6 SQLite's V7, its 7 SQLite's V8, its 8 SQLite's V9 and its 9 SQLite's
/// V10.
pub fn postgres_migrations() -> &'static [&'static str] {
    &[PG_V1, PG_V2, PG_V3, CHECKS_TABLE, V6, V7, V8, V9, V10]
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    #[test]
    fn migrations_are_valid() {
        assert!(super::migrations().validate().is_ok());
    }

    /// What tells a Lodge database from another program's, and a newer Lodge's from this
    /// one's, holds at every version the migrations make.
    #[test]
    fn every_version_has_lodges_tables_and_the_last_is_the_latest_known() {
        let mut conn = Connection::open_in_memory().unwrap();
        for version in 1..=super::SQLITE_LATEST as usize {
            super::migrations().to_version(&mut conn, version).unwrap();
            for table in super::LODGE_TABLES {
                let found: i64 = conn
                    .query_row(
                        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                        [table],
                        |r| r.get(0),
                    )
                    .unwrap();
                assert_eq!(found, 1, "{table} at version {version}");
            }
        }
        assert_eq!(
            super::migrations().pending_migrations(&conn).unwrap(),
            0,
            "SQLITE_LATEST is the last migration's version"
        );
    }

    #[test]
    fn v5_keeps_the_latest_check_of_each_deposit_already_logged() {
        let mut conn = v2_queue();
        super::migrations().to_version(&mut conn, 4).unwrap();
        conn.execute_batch(
            "INSERT INTO events (id, at, job_id, target, content_key, kind, message, actor)
                 VALUES (10, 5, 1, 't', 'k', 'verified', 'verified intact', 'me'),
                        (11, 6, 1, 't', 'k', 'damaged', 'verify found: a is missing', 'me'),
                        (12, 7, 1, 't', 'k', 'attempt', 'attempt 2', 'me'),
                        (13, 8, 1, 'u', 'k', 'verified', 'verified intact', 'me');",
        )
        .unwrap();
        super::migrations().to_latest(&mut conn).unwrap();
        let checks: Vec<(String, i64)> = conn
            .prepare("SELECT target, event_id FROM deposit_checks ORDER BY target")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(|c| c.unwrap())
            .collect();
        assert_eq!(checks, [("t".into(), 11), ("u".into(), 13)]);
    }

    /// A target paused before pauses had actors stays paused, for everyone (actor ''), and
    /// the others are not paused.
    #[test]
    fn v9_keeps_a_pause_from_before_for_everyone() {
        let mut conn = v2_queue();
        super::migrations().to_version(&mut conn, 8).unwrap();
        conn.execute_batch(
            "INSERT INTO targets (scope_id, url, label, added_at) VALUES ('u', 'u', 'l', 1);
             UPDATE targets SET paused_reason = 'token refused', paused_at = 5
                 WHERE scope_id = 't';",
        )
        .unwrap();
        super::migrations().to_latest(&mut conn).unwrap();
        let pauses: Vec<(String, String, String, i64)> = conn
            .prepare("SELECT scope_id, actor, reason, paused_at FROM target_pauses")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(|p| p.unwrap())
            .collect();
        assert_eq!(
            pauses,
            [("t".into(), String::new(), "token refused".into(), 5)]
        );
    }

    /// A queue written at V2: one job still queued, one deposited.
    fn v2_queue() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        super::migrations().to_version(&mut conn, 2).unwrap();
        conn.execute_batch(
            "INSERT INTO targets (scope_id, url, label, added_at) VALUES ('t', 'u', 'l', 1);
             INSERT INTO documents (content_key, fingerprint, document) VALUES ('k', 'f', '{}');
             INSERT INTO datasets (id, path, name, metadata, content_key, fingerprint,
                                   file_count, total_bytes, added_at, scanned_at)
                 VALUES (7, '/d', 'd', '{}', 'k', 'f', 1, 1, 1, 1);
             INSERT INTO jobs (id, dataset_id, target, operation, content_key, state,
                               attempts, deadline, fence, identifier, created_at, updated_at)
                 VALUES (1, 7, 't', 'deposit', 'k', 'deposited', 1, 9, 1, 'sandbox:1', 1, 2),
                        (2, 7, 't', 'deposit', 'k', 'queued', 0, 9, 0, NULL, 3, 3);",
        )
        .unwrap();
        conn
    }

    #[test]
    fn v3_rebuilds_the_job_queue_keeping_every_job_and_its_rules() {
        let mut conn = v2_queue();
        super::migrations().to_latest(&mut conn).unwrap();
        // id, state, fence, identifier, ended_at
        type JobLine = (i64, String, i64, Option<String>, Option<i64>);
        let jobs: Vec<JobLine> = conn
            .prepare("SELECT id, state, fence, identifier, ended_at FROM jobs ORDER BY id")
            .unwrap()
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .unwrap()
            .map(|j| j.unwrap())
            .collect();
        assert_eq!(
            jobs,
            vec![
                (1, "deposited".into(), 1, Some("sandbox:1".into()), Some(2)),
                (2, "queued".into(), 0, None, None)
            ],
            "every job kept; the ended one ended when it was last updated"
        );
        let insert = |state: &str, ended_at: Option<i64>| {
            conn.execute(
                "INSERT INTO jobs (target, operation, content_key, state, deadline, created_at,
                                   updated_at, ended_at)
                 VALUES ('t', 'deposit', 'k', ?1, 9, 4, 4, ?2)",
                rusqlite::params![state, ended_at],
            )
        };
        // Still one active job per scope...
        assert!(insert("waiting", None).is_err(), "a second active job");
        // ...any number of ended ones...
        insert("failed", Some(4)).unwrap();
        // ...an end time exactly when the state has ended...
        assert!(
            insert("failed", None).is_err(),
            "an ended job without its end"
        );
        let requeued_with_its_end =
            conn.execute("UPDATE jobs SET state = 'queued' WHERE id = 1", []);
        assert!(requeued_with_its_end.is_err(), "an active job with an end");
        // ...and only the seven states.
        let bad = conn.execute("UPDATE jobs SET state = 'lost' WHERE id = 1", []);
        assert!(bad.is_err(), "a state outside the seven was accepted");
        // The active job is found through the due index.
        let due: i64 = conn
            .query_row(
                concat!(
                    "SELECT id FROM jobs INDEXED BY jobs_due WHERE ",
                    active_job!(),
                    " ORDER BY due_at, id"
                ),
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(due, 2);
    }

    #[test]
    fn v4_never_hands_out_a_dataset_id_twice_and_keeps_every_row_that_refers_to_one() {
        let mut conn = v2_queue();
        super::migrations().to_version(&mut conn, 3).unwrap();
        // Dataset 12 was removed: its queued event keeps its id, as the log does.
        conn.execute_batch(
            "INSERT INTO dataset_files (dataset_id, rel_path, size, mtime_ns, file_id, sha256)
                 VALUES (7, 'a.csv', 1, 1, 1, 'h');
             INSERT INTO events (at, job_id, dataset_id, kind, message, actor)
                 VALUES (5, 2, 12, 'queued', 'queued', 'me');",
        )
        .unwrap();
        conn.pragma_update(None, "foreign_keys", "OFF").unwrap();
        super::migrations().to_latest(&mut conn).unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();

        let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(
            count("SELECT count(*) FROM datasets WHERE id = 7 AND origin = ''"),
            1
        );
        assert_eq!(
            count("SELECT count(*) FROM dataset_files WHERE dataset_id = 7"),
            1
        );
        assert_eq!(count("SELECT count(*) FROM jobs WHERE dataset_id = 7"), 2);

        let add = |path: &str| -> i64 {
            conn.query_row(
                "INSERT INTO datasets (path, name, metadata, added_at) VALUES (?1, 'n', '{}', 1)
                 RETURNING id",
                [path],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(
            add("/e"),
            13,
            "past the removed dataset the log still names"
        );
        conn.execute("DELETE FROM datasets WHERE id = 13", [])
            .unwrap();
        assert_eq!(add("/f"), 14, "the newest removed is not reused either");

        // The rebuilt table is still the one the others refer to.
        conn.execute("DELETE FROM datasets WHERE id = 7", [])
            .unwrap();
        assert_eq!(count("SELECT count(*) FROM dataset_files"), 0, "cascaded");
        assert_eq!(
            count("SELECT count(*) FROM jobs WHERE dataset_id IS NULL"),
            2
        );
    }
}
