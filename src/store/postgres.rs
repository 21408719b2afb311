//! The PostgreSQL side of the store: opening a session, migrating, telling transient errors
//! from real ones, waiting out a database restart, and listening for other machines' events.
//!
//! A session's socket is driven by a small runtime on a thread of its own; the store talks
//! to it through the client's channels (see [`super::sql::block_on`]), so a store call blocks
//! its caller exactly as a SQLite call does.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::sql::{Db, PgSession};
use super::{EventNotices, Result, StoreError, StoreLocation, schema};

/// How long a call waits for a lost database to come back before it gives up.
fn patience() -> Duration {
    std::env::var("LODGE_PG_PATIENCE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map(Duration::from_secs)
        .unwrap_or(Duration::from_secs(600))
}

/// The session's limits: no statement waits on a lock or runs forever, so a stuck peer
/// becomes a transient error (retried), never a hang and never a skipped dedup check.
const SESSION_SETTINGS: &str = "SET lock_timeout = '10s';
     SET statement_timeout = '60s';
     SET idle_in_transaction_session_timeout = '120s';
     SET application_name = 'lodge'";

/// Open a session on `url`.
pub(super) fn connect(url: &str) -> Result<PgSession> {
    let unavailable = |reason: String| StoreError::Unavailable {
        location: StoreLocation::Postgres(url.to_string()).to_string(),
        reason: match unencoded_password_hint(url) {
            Some(hint) => format!("{reason} {hint}"),
            None => reason,
        },
    };
    let (ready, client) = mpsc::channel();
    let url_owned = url.to_string();
    std::thread::Builder::new()
        .name("lodge-postgres".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready.send(Err(e.to_string()));
                    return;
                }
            };
            runtime.block_on(async move {
                let config = match session_config(&url_owned) {
                    Ok(config) => config,
                    Err(e) => {
                        let _ = ready.send(Err(e));
                        return;
                    }
                };
                let connecting = config.connect(tokio_postgres::NoTls);
                match tokio::time::timeout(Duration::from_secs(10), connecting).await {
                    Ok(Ok((client, connection))) => {
                        let _ = ready.send(Ok(client));
                        // Runs until the session ends; the client sees it closed.
                        let _ = connection.await;
                    }
                    Ok(Err(e)) => {
                        // The cause (refused, not resolved, bad password) is in its sources.
                        let _ = ready.send(Err(crate::wording::with_causes(&e)));
                    }
                    Err(_) => {
                        let _ = ready.send(Err("no answer within 10 s".into()));
                    }
                }
            })
        })
        .map_err(|e| unavailable(e.to_string()))?;
    let client = client
        .recv()
        .map_err(|_| unavailable("the connection thread stopped".into()))?
        .map_err(unavailable)?;
    let session = PgSession::new(client);
    session.batch(SESSION_SETTINGS)?;
    Ok(session)
}

/// What to check when the database cannot be reached for `reason`: the password the server
/// refused or asked for, else that it runs and the URL is right.
pub(super) fn what_to_check(reason: &str) -> std::borrow::Cow<'static, str> {
    // As libpq does, a password file others can read is not used: said, or the password
    // in it looks ignored for no reason.
    if reason.contains("password missing")
        && let Some(file) = super::pg_password::password_file_not_private()
    {
        return format!(
            "the server asks for a password: {} holds passwords but others can read it, so \
             it is not used (as psql does not): `chmod 600 {}`; or put the password in the \
             URL or in PGPASSWORD",
            file.display(),
            file.display()
        )
        .into();
    }
    advice_for(reason).into()
}

/// [`what_to_check`], where nothing but `reason` decides it.
fn advice_for(reason: &str) -> &'static str {
    if reason.contains("password authentication failed") {
        "the server refused the password: check it (in the URL, or in PGPASSWORD or \
         ~/.pgpass for a URL without one)"
    } else if reason.contains("password missing") {
        "the server asks for a password: put it in the URL, or in PGPASSWORD or ~/.pgpass"
    } else if reason.contains("database \"") && reason.contains("does not exist") {
        "the server has no database of that name: create it (`createdb -h HOST -p PORT -U \
         USER NAME`, or `CREATE DATABASE name;` in psql), or fix the name at the URL's end; \
         `lodge add DIR` then gives it Lodge's tables"
    } else if reason.contains("too many clients") {
        "the server has no connection left (its max_connections): run fewer Lodge processes \
         or a lower --concurrency, or raise max_connections in postgresql.conf"
    } else if reason.contains("role \"") && reason.contains("does not exist") {
        "the server has no user of that name: fix the user in the URL \
         (postgres://USER@HOST:PORT/DATABASE), or have it made (`createuser NAME`)"
    } else if reason.contains("does not support TLS") {
        "the server takes no TLS connections: take sslmode=require off the URL (on this \
         machine or a network you trust), or have ssl turned on in postgresql.conf"
    } else {
        "check that PostgreSQL is running and the URL is right"
    }
}

/// What to do about a database `location` (a file's path, or a URL said back) that has
/// none of Lodge's tables. A PostgreSQL server's own databases (`postgres`, the templates)
/// are not to be given them: a database of Lodge's own is made for it.
pub(super) fn how_to_start(location: &str) -> String {
    let server_db = location
        .strip_prefix("postgres://")
        .or_else(|| location.strip_prefix("postgresql://"))
        .and_then(|rest| rest.split('?').next())
        .and_then(|rest| rest.rsplit_once('/'))
        .map(|(_, name)| name)
        .filter(|name| matches!(*name, "postgres" | "template0" | "template1"));
    match server_db {
        // The command names the new database itself: run with this --db, it would be
        // given this one again.
        Some(name) => format!(
            "'{name}' is the PostgreSQL server's own database, not one for Lodge: create one \
             (`createdb lodge`, or `CREATE DATABASE lodge;` in psql), give it at the URL's end \
             and start it with `lodge --db {} add DIR`",
            lodge_database_beside(location)
        ),
        None => "Check the database named by --db, LODGE_DB or the window's Settings, or start \
                 this one with `lodge add DIR` on it"
            .into(),
    }
}

/// `url` naming a database `lodge` on the same server, as the same user with the same
/// settings (`?sslmode=...`), without its password (taken from `PGPASSWORD` or `~/.pgpass`): for a command Lodge prints.
fn lodge_database_beside(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut beside) => {
            beside.set_path("/lodge");
            let _ = beside.set_password(None);
            beside.to_string()
        }
        Err(_) => "postgres://USER@HOST:PORT/lodge".into(),
    }
}

/// Why `url` may not say what was meant: a password with `@`, `/` or `#` in it, not
/// percent-encoded, moves where the URL's host and database seem to begin.
fn unencoded_password_hint(url: &str) -> Option<&'static str> {
    let rest = url.split_once("://")?.1;
    let userinfo_cut_short = rest.contains('@') && rest.split('@').next()?.contains(['/', '#']);
    (rest.matches('@').count() > 1 || userinfo_cut_short).then_some(
        "(a password holding @, /, : or # must be percent-encoded in the URL: @ as %40, / as \
         %2F, : as %3A, # as %23)",
    )
}

/// The connection settings of `url`, its password (when the URL has none) from
/// `PGPASSWORD` or the password file, as `psql` takes it.
fn session_config(url: &str) -> std::result::Result<tokio_postgres::Config, String> {
    let mut config: tokio_postgres::Config = url
        .parse()
        .map_err(|e: tokio_postgres::Error| crate::wording::with_causes(&e))?;
    if let Some(password) = super::pg_password::password_for(&config) {
        config.password(password);
    }
    Ok(config)
}

/// What [`migrate`] does with a database that has none of Lodge's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tables {
    /// Make them: the database is Lodge's to start (`lodge add`, the window).
    StartThem,
    /// Refuse it ([`StoreError::NotStarted`]): a command that works on what is there.
    MustBeThere,
}

/// Bring the schema up to date, one migrator at a time across every machine.
pub(super) fn migrate(session: &PgSession, url: &str, tables: Tables) -> Result<()> {
    let db = Db::Pg(session);
    db.batch("BEGIN; SELECT pg_advisory_xact_lock(74112026);")?;
    let applied = (|| {
        refuse_another_programs_database(&db, url)?;
        // The server's own databases (the one a URL without a name opens, too) are not
        // to be given Lodge's tables: a database of its own is made for it. Said before
        // "not started", whose fix (`lodge add` on it) would be refused here.
        if !has_lodge_schema(&db)? {
            let name: String = db.one("SELECT current_database()::text", &[], |r| r.get(0))?;
            if matches!(name.as_str(), "postgres" | "template0" | "template1") {
                return Err(StoreError::ServersOwnDatabase {
                    name,
                    instead: lodge_database_beside(url),
                });
            }
        }
        if tables == Tables::MustBeThere && !has_lodge_schema(&db)? {
            return Err(StoreError::NotStarted {
                location: StoreLocation::Postgres(url.to_string()).to_string(),
            });
        }
        // Made only where missing: a user who may use Lodge's tables but not create any
        // (no CREATE on the schema) opens a database whose schema is up to date.
        if !has_lodge_schema(&db)? {
            db.batch("CREATE TABLE IF NOT EXISTS lodge_schema (version BIGINT NOT NULL)")?;
        }
        let version: i64 = db.one(
            "SELECT coalesce(max(version), 0) FROM lodge_schema",
            &[],
            |r| r.get(0),
        )?;
        let all = schema::postgres_migrations();
        if version as usize > all.len() {
            return Err(StoreError::NewerSchema {
                path: StoreLocation::Postgres(url.to_string()).to_string().into(),
                version,
                known: all.len() as i64,
            });
        }
        for (i, migration) in all.iter().enumerate().skip(version as usize) {
            db.batch(migration)?;
            db.run(
                "INSERT INTO lodge_schema (version) VALUES (?1)",
                super::sql::args![(i + 1) as i64],
            )?;
        }
        Ok(())
    })();
    match applied {
        Ok(()) => db.batch("COMMIT"),
        Err(e) => {
            let _ = db.batch("ROLLBACK");
            Err(cannot_create_tables(e, url))
        }
    }
}

/// `e`, when it is PostgreSQL refusing the user the right to create Lodge's tables
/// (SQLSTATE 42501), with the database named and what its owner can do.
fn cannot_create_tables(e: StoreError, url: &str) -> StoreError {
    match e {
        // (Refused one of the tables already there, it says what to grant itself.)
        StoreError::Postgres { message, .. }
            if message.ends_with("(42501)") && !message.contains(NO_USE_OF_THE_TABLES) =>
        {
            let location = StoreLocation::Postgres(url.to_string()).to_string();
            StoreError::Postgres {
                message: format!(
                    "{message}: the user of {location} may not create Lodge's tables there. \
                     Have the database's owner grant it (`GRANT CREATE ON SCHEMA public TO \
                     USER`), or make that user the database's owner (`ALTER DATABASE DB \
                     OWNER TO USER`), or give Lodge a database of its own"
                ),
                transient: false,
            }
        }
        other => other,
    }
}

/// A database with tables and no `lodge_schema` is another program's: Lodge writes none of
/// its own tables there (they could collide with that program's: a `jobs` table), as it
/// refuses another program's SQLite file. A database with no tables is Lodge's to start.
fn refuse_another_programs_database(db: &Db<'_>, url: &str) -> Result<()> {
    if has_lodge_schema(db)? {
        return Ok(());
    }
    let tables: Vec<String> = db.all(
        "SELECT table_name::text FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
         ORDER BY table_name",
        &[],
        |r| r.get(0),
    )?;
    if tables.is_empty() {
        return Ok(());
    }
    let named = super::file_kind::some_tables(&tables);
    Err(StoreError::Unavailable {
        location: StoreLocation::Postgres(url.to_string()).to_string(),
        reason: format!(
            "it is not a Lodge database: it holds another program's tables ({named}) and \
             none of Lodge's, so Lodge wrote nothing there. Give Lodge a database of its \
             own (`createdb lodge` on that server, then --db postgres://…/lodge)"
        ),
    })
}

/// Whether the database has Lodge's schema table (it was started by Lodge).
fn has_lodge_schema(db: &Db<'_>) -> Result<bool> {
    db.one("SELECT to_regclass('lodge_schema') IS NOT NULL", &[], |r| {
        r.get(0)
    })
}

/// Sort PostgreSQL's errors: the ones a retry of the whole transaction can cure are
/// transient.
pub(super) fn classify(e: tokio_postgres::Error) -> StoreError {
    let transient = e.is_closed()
        || match e.code() {
            // Connection exceptions (class 08), serialization failure, deadlock, lock
            // timeout, statement timeout, shutdown, cannot connect now.
            Some(code) => {
                let code = code.code();
                code.starts_with("08")
                    || matches!(
                        code,
                        "40001" | "40P01" | "55P03" | "57014" | "57P01" | "57P02" | "57P03"
                    )
            }
            // No SQLSTATE: the socket itself failed.
            None => true,
        };
    let message = match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => e.to_string(),
    };
    let message = match message.starts_with("permission denied for table")
        || message.starts_with("permission denied for sequence")
    {
        true => format!("{message}{NO_USE_OF_THE_TABLES}"),
        false => message,
    };
    StoreError::Postgres { message, transient }
}

/// Said after PostgreSQL refuses the user one of Lodge's tables (or their sequences):
/// they are there, so what is missing is the right to use them, not to create them.
const NO_USE_OF_THE_TABLES: &str = ": Lodge's tables are there, but this user may not use \
     them all. Have the database's owner grant it (`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL \
     TABLES IN SCHEMA public TO USER; GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO \
     USER`), or use the database as its owner";

/// The shared database a call of this process is waiting for (it stopped answering), if
/// one is, so that a command can say why it seems to do nothing ([`waiting_for`]).
static WAITING: std::sync::LazyLock<tokio::sync::watch::Sender<Option<String>>> =
    std::sync::LazyLock::new(|| tokio::sync::watch::channel(None).0);

/// Whether [`WAITING`] names a database: checked before it is cleared, so that a call that
/// succeeds, the usual case, takes no lock.
static SOME_WAIT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The shared database (its location, password masked) this process's calls are waiting
/// for, `None` while every call is answered.
pub fn waiting_for() -> tokio::sync::watch::Receiver<Option<String>> {
    WAITING.subscribe()
}

fn note_waiting(location: &StoreLocation) {
    if !SOME_WAIT.swap(true, std::sync::atomic::Ordering::Relaxed) {
        WAITING.send_replace(Some(location.to_string()));
    }
}

fn note_answered() {
    if SOME_WAIT.load(std::sync::atomic::Ordering::Relaxed)
        && SOME_WAIT.swap(false, std::sync::atomic::Ordering::Relaxed)
    {
        WAITING.send_replace(None);
    }
}

/// Run `f` on the session in `slot`, re-opening the session and running `f` again after a
/// transient error, until [`patience`] runs out. This is how workers "wait and carry on"
/// through a database restart.
///
/// A COMMIT whose answer was lost may have taken effect; running the transaction again is
/// safe because every write transaction in the store is fenced or conditional: a repeated
/// outcome finds its own earlier commit (see `jobs::check_fence`), a repeated claim leaves
/// at worst a lease that expires.
pub(super) fn run<T>(
    slot: &mut Option<PgSession>,
    location: &StoreLocation,
    mut f: impl FnMut(Db<'_>) -> Result<T>,
) -> Result<T> {
    let url = match location {
        StoreLocation::Postgres(url) => url.as_str(),
        StoreLocation::File(_) => unreachable!("a PostgreSQL session for a file"),
    };
    let give_up = Instant::now() + patience();
    let mut pause = Duration::from_millis(100);
    loop {
        let last_error = match slot {
            Some(session) => match f(Db::Pg(session)) {
                Err(e) if e.is_transient() => {
                    if session.client.is_closed() {
                        *slot = None;
                    }
                    e
                }
                done => {
                    note_answered();
                    return done;
                }
            },
            None => match connect(url) {
                Ok(session) => {
                    *slot = Some(session);
                    continue;
                }
                Err(e) => e,
            },
        };
        note_waiting(location);
        if Instant::now() >= give_up {
            // Still waited for: the database has not answered, so nothing may say it does
            // (the next call that gets an answer clears it).
            return Err(match last_error {
                StoreError::Postgres { message, .. } => StoreError::Unavailable {
                    location: location.to_string(),
                    reason: message,
                },
                other => other,
            });
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_secs(2));
    }
}

/// Listen on `url` for new events (the `events` table's trigger notifies each) until the
/// receiver is dropped, re-opening the session after it is lost.
pub(super) fn listen(url: &str) -> EventNotices {
    let (tx, receiver) = tokio::sync::mpsc::unbounded_channel();
    let (answers, reachable) = tokio::sync::watch::channel(true);
    let url = url.to_string();
    let _ = std::thread::Builder::new()
        .name("lodge-listen".into())
        .spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(listen_forever(url, tx, answers));
        });
    EventNotices {
        receiver,
        reachable,
    }
}

/// Listen for events until `tx`'s receiver is dropped; `answers` says whether a session
/// listens now.
async fn listen_forever(
    url: String,
    tx: tokio::sync::mpsc::UnboundedSender<i64>,
    answers: tokio::sync::watch::Sender<bool>,
) {
    use futures_util::StreamExt;
    use tokio_postgres::AsyncMessage;
    while !tx.is_closed() {
        let connecting = async {
            session_config(&url)
                .ok()?
                .connect(tokio_postgres::NoTls)
                .await
                .ok()
        };
        let Some((client, mut connection)) = connecting.await else {
            answers.send_replace(false);
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        };
        let mut messages =
            futures_util::stream::poll_fn(move |cx| connection.poll_message(cx)).boxed();
        // The LISTEN's own answer arrives through the connection, which only moves while
        // `messages` is polled: send it, then poll both.
        let listening = client.batch_execute("LISTEN lodge_events");
        tokio::pin!(listening);
        let mut listened = false;
        loop {
            tokio::select! {
                done = &mut listening, if !listened => {
                    if done.is_err() { break; }
                    listened = true;
                    answers.send_replace(true);
                    // Anything that happened while not listening: readers catch up.
                    let _ = tx.send(0);
                }
                message = messages.next() => match message {
                    Some(Ok(AsyncMessage::Notification(n))) => {
                        let id = n.payload().parse().unwrap_or(0);
                        if tx.send(id).is_err() { return; }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => break,
                },
                _ = tx.closed() => return,
            }
        }
        answers.send_replace(false);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::{how_to_start, unencoded_password_hint, what_to_check};

    #[test]
    fn a_database_that_does_not_exist_is_to_be_created() {
        let gone = "db error: FATAL: database \"lodgee\" does not exist";
        assert!(
            what_to_check(gone).starts_with("the server has no database of that name: create it"),
            "{}",
            what_to_check(gone)
        );
    }

    #[test]
    fn the_servers_own_database_is_not_offered_lodges_tables() {
        for url in [
            "postgres://lab@db.example:5432/postgres",
            "postgresql://lab:***@db.example/template1?sslmode=disable",
        ] {
            let said = how_to_start(url);
            assert!(
                said.contains("is the PostgreSQL server's own database")
                    && said.contains("createdb lodge"),
                "{url}: {said}"
            );
        }
        // The command to start it names the new database, not the one given.
        assert!(
            how_to_start("postgres://lab:pw@db.example:5432/postgres?sslmode=require").ends_with(
                "start it with `lodge --db postgres://lab@db.example:5432/lodge?sslmode=require \
                     add DIR`"
            ),
            "{}",
            how_to_start("postgres://lab:pw@db.example:5432/postgres")
        );
        let lodges = how_to_start("postgres://lab@db.example/lodge");
        assert!(
            lodges.contains("start this one with `lodge add DIR`"),
            "{lodges}"
        );
        assert!(how_to_start("/data/lodge.db").contains("start this one"));
    }

    #[test]
    fn a_refused_or_missing_password_is_what_to_check() {
        let refused = "db error: FATAL: password authentication failed for user \"lab\"";
        assert!(what_to_check(refused).starts_with("the server refused the password"));
        let missing = "invalid configuration: password missing";
        assert!(what_to_check(missing).starts_with("the server asks for a password"));
        assert!(what_to_check("Connection refused (os error 111)").contains("is running"));
    }

    /// Each way the server turns a connection away is named with its own fix, not "check
    /// that PostgreSQL is running".
    #[test]
    fn a_full_server_an_unknown_user_and_no_tls_are_each_named_with_their_fix() {
        for (reason, fix) in [
            (
                "db error: FATAL: sorry, too many clients already",
                "raise max_connections",
            ),
            (
                "db error: FATAL: role \"nouser\" does not exist",
                "the server has no user of that name",
            ),
            (
                "error performing TLS handshake: server does not support TLS",
                "take sslmode=require off the URL",
            ),
        ] {
            let said = what_to_check(reason);
            assert!(said.contains(fix), "{reason}: {said}");
            assert!(!said.contains("is running"), "{reason}: {said}");
        }
    }

    #[test]
    fn a_password_not_percent_encoded_is_pointed_out() {
        let hint = unencoded_password_hint("postgres://lab:p@ss/w:rd#1@db.example:5432/lodge");
        assert!(hint.is_some_and(|h| h.contains("%40")), "{hint:?}");
        assert_eq!(
            unencoded_password_hint("postgres://lab:p%40ss@db.example:5432/lodge"),
            None
        );
        assert_eq!(
            unencoded_password_hint("postgres://lab@db.example/lodge"),
            None
        );
    }
}
