//! Lodge's local sandbox repository: a real HTTP server on loopback with its own SQLite file.
//!
//! The sandbox behaves like a small content-addressed repository: blobs are uploaded to
//! `PUT /blobs/sha256/{hex}` and verified against their digest, and a record is created once
//! per content key with `PUT /records/{key}` and `If-None-Match: *`, receiving a sequential,
//! server-minted identifier (`sbx-000001`, ...). Faults (latency, resets, 429, 503, and
//! "committed but the response was lost") can be injected to exercise Lodge's exactly-once
//! machinery. See `routes.rs` for the HTTP surface.
//!
//! Layout of this module: `server.rs` accept loop and per-connection kill switch, `routes.rs`
//! handlers, `requests.rs` what a request says (path, headers, record body; pure, fuzzed),
//! `db.rs` SQLite, `blobs.rs` blob files, `faults.rs` fault decisions, `page.rs` the HTML
//! index page, `state.rs` shared state and counters; `window.rs` the window's own sandbox as
//! the command line sees it.

mod blobs;
mod datacite;
mod db;
mod faults;
mod invenio;
mod invenio_affiliations;
mod invenio_communities;
mod invenio_vocabularies;
mod page;
pub mod requests;
mod routes;
mod server;
mod state;
pub mod window;

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;

use state::App;

/// How long [`RunningSandbox::shutdown`] waits for in-flight connections before closing them.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Probabilities (0.0..=1.0) of each injected fault, per request to `/blobs` or `/records`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultConfig {
    /// Commit the write, then close the connection without a response.
    pub drop_after_commit: f64,
    /// Answer 503 before committing anything.
    pub fail_before_commit: f64,
    /// Answer 429 with `Retry-After: retry_after_secs`.
    pub rate_limit: f64,
    pub retry_after_secs: u64,
    /// Close the connection before reading the request body.
    pub reset: f64,
    /// Commit the write, then answer 504 Gateway Timeout (as a proxy that gave up would).
    pub timeout_after_commit: f64,
    /// Added to every request to `/blobs` and `/records`.
    pub latency_ms: u64,
    /// Seed of the fault generator, for reproducible runs.
    pub seed: Option<u64>,
}

/// How to run a sandbox.
#[derive(Clone, Debug)]
pub struct SandboxConfig {
    /// Address to bind; port 0 picks a free port.
    pub addr: SocketAddr,
    /// Folder for the sandbox's SQLite file and blobs; created if missing.
    pub data_dir: PathBuf,
    /// When set, every request to `/blobs` and `/records`, and the records page, needs the
    /// token: `Authorization: Bearer TOKEN`, or Basic credentials with the token as password.
    pub token: Option<String>,
    pub faults: FaultConfig,
}

pub use datacite::DataCiteAccount;
pub use invenio::InvenioAccount;

/// Counters served at `GET /stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SandboxStats {
    pub records: u64,
    pub blobs: u64,
    pub creates: u64,
    pub conflicts: u64,
    pub requests: u64,
}

/// A sandbox server running on the current tokio runtime.
pub struct RunningSandbox {
    addr: SocketAddr,
    data_dir: PathBuf,
    app: Arc<App>,
    shutdown: tokio::sync::watch::Sender<bool>,
    server: tokio::task::JoinHandle<()>,
}

impl RunningSandbox {
    /// Bind, open (or create) the data folder and serve until [`RunningSandbox::shutdown`].
    pub async fn start(config: SandboxConfig) -> anyhow::Result<RunningSandbox> {
        let data_dir = config.data_dir.clone();
        let (db, blobs) = tokio::task::spawn_blocking(move || open_data_dir(&data_dir))
            .await
            .context("opening the sandbox data folder")??;
        let listener = bind(config.addr).await?;
        let addr = listener
            .local_addr()
            .with_context(|| format!("cannot read the address bound for {}", config.addr))?;
        let app = Arc::new(App::new(
            db,
            blobs,
            format!("http://{addr}"),
            config.token.clone(),
            config.faults.clone(),
        ));
        let (shutdown, shutdown_rx) = tokio::sync::watch::channel(false);
        let server = tokio::spawn(server::accept_loop(
            listener,
            routes::router(app.clone()),
            shutdown_rx,
        ));
        Ok(RunningSandbox {
            addr,
            data_dir: config.data_dir,
            app,
            shutdown,
            server,
        })
    }

    /// The address actually bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL of the HTTP API: `http://HOST:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The folder holding `sandbox.db` and `blobs/`.
    pub fn data_dir(&self) -> &std::path::Path {
        &self.data_dir
    }

    /// The target URL for Lodge: `sandbox+http://HOST:PORT`.
    pub fn target_url(&self) -> String {
        format!("sandbox+http://{}", self.addr())
    }

    /// Change the injected faults while running. A configuration with a seed restarts the
    /// fault generator from that seed.
    pub fn set_faults(&self, faults: FaultConfig) {
        self.app.faults.set(faults);
    }

    /// Use this DataCite account (repository id, password, prefix) from now on.
    pub fn set_datacite_account(&self, account: DataCiteAccount) {
        *self.app.datacite.write().unwrap_or_else(|e| e.into_inner()) = account;
    }

    /// The DataCite account the emulation accepts.
    pub fn datacite_account(&self) -> DataCiteAccount {
        self.app.datacite_account()
    }

    /// The DataCite target URL for this sandbox: `datacite+http://HOST:PORT?prefix=...`.
    pub fn datacite_target_url(&self) -> String {
        let a = self.datacite_account();
        format!(
            "datacite+http://{}?prefix={}&repository={}",
            self.addr, a.prefix, a.repository
        )
    }

    /// Use this InvenioRDM user (token, rate limit) from now on.
    pub fn set_invenio_account(&self, account: InvenioAccount) {
        *self.app.invenio.write().unwrap_or_else(|e| e.into_inner()) = account;
    }

    pub fn invenio_account(&self) -> InvenioAccount {
        self.app.invenio_account()
    }

    /// The InvenioRDM target URL for this sandbox: `invenio+http://HOST:PORT`.
    pub fn invenio_target_url(&self) -> String {
        format!("invenio+http://{}", self.addr)
    }

    /// File contents the InvenioRDM emulation has received (each `PUT .../content`).
    pub fn invenio_uploads(&self) -> u64 {
        self.app
            .counters
            .invenio_uploads
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Published records and drafts of the InvenioRDM emulation.
    pub fn invenio_counts(&self) -> (u64, u64) {
        let rows = self.app.db.invenio_all().unwrap_or_default();
        let published = rows.iter().filter(|r| r.published).count() as u64;
        (published, rows.len() as u64 - published)
    }

    /// How many DOIs the DataCite emulation holds.
    pub fn doi_count(&self) -> u64 {
        self.app.db.count_dois().unwrap_or(0)
    }

    /// Current counters (the same as `GET /stats`).
    pub fn stats(&self) -> SandboxStats {
        self.app.stats()
    }

    /// Stop accepting, finish in-flight requests (for at most [`SHUTDOWN_GRACE`]), close the
    /// database.
    pub async fn shutdown(self) {
        let _ = self.shutdown.send(true);
        let _ = self.server.await;
        // The last reference to the database goes with `self.app` here.
    }
}

/// Create the data folder if needed and open the database and blob store in it, with errors
/// that name the path.
fn open_data_dir(dir: &std::path::Path) -> anyhow::Result<(db::Db, blobs::BlobStore)> {
    if dir.is_file() {
        anyhow::bail!(
            "the sandbox data folder {} is a file: give a folder for the sandbox's records and \
             blobs (it is made if missing)",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the sandbox data folder {}", dir.display()))?;
    let blobs = blobs::BlobStore::open(dir)?;
    let db = db::Db::open(&dir.join("sandbox.db"))?;
    Ok((db, blobs))
}

async fn bind(addr: SocketAddr) -> anyhow::Result<tokio::net::TcpListener> {
    match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => Ok(l),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => Err(anyhow::anyhow!(
            "address {addr} is in use: pick another with --addr"
        )),
        Err(e) if e.kind() == std::io::ErrorKind::AddrNotAvailable => Err(anyhow::anyhow!(
            "address {addr} is not an address of this machine: pick another with --addr"
        )),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(anyhow::anyhow!(
            "not allowed to listen on {addr} (ports below 1024 need privileges): pick another with --addr"
        )),
        Err(e) => Err(anyhow::Error::new(e).context(format!("cannot listen on {addr}"))),
    }
}

/// Run a sandbox until `stop` (for `lodge sandbox`, Ctrl-C or SIGTERM): prints
/// `Lodge sandbox listening on http://ADDR (data: DIR)` first, then the `lodge deposit`
/// commands that reach it and its emulations and the address of its records page, and shuts
/// down gracefully.
pub async fn serve_until(
    config: SandboxConfig,
    datacite: DataCiteAccount,
    stop: impl std::future::Future<Output = anyhow::Result<()>>,
) -> anyhow::Result<()> {
    let config_token = config.token.clone();
    // The default password is no secret (it is in `--help`): the line can be run as it is.
    // One of the person's own choosing is not printed.
    let (datacite_password, which_password) =
        if datacite.password == DataCiteAccount::default().password {
            (datacite.password.clone(), "")
        } else {
            (
                "PASSWORD".to_string(),
                " (PASSWORD: the one given with --datacite-password)",
            )
        };
    let sandbox = RunningSandbox::start(config).await?;
    sandbox.set_datacite_account(datacite);
    // Whoever started the sandbox may stop reading after the first line (a script that
    // wants the address): a closed stdout is no reason to stop serving.
    let (token, password) = if config_token.is_some() {
        (
            " --token TOKEN",
            " (a browser asks for a user name, any, and a password: the token)",
        )
    } else {
        ("", "")
    };
    let _ = writeln!(
        std::io::stdout().lock(),
        "Lodge sandbox listening on {} (data: {})\n\
         Deposit here: lodge deposit --target {}{token} --all\n\
         DataCite emulation: lodge deposit --target '{}' --token {datacite_password} --all{which_password}\n\
         InvenioRDM emulation: lodge deposit --target {} --token {} --all\n\
         Its records in a browser: {}/{password}",
        sandbox.base_url(),
        sandbox.data_dir().display(),
        sandbox.target_url(),
        sandbox.datacite_target_url(),
        sandbox.invenio_target_url(),
        sandbox.invenio_account().token,
        sandbox.base_url(),
    );
    let stopped = stop.await;
    sandbox.shutdown().await;
    stopped?;
    Ok(())
}
