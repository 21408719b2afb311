//! Throwaway PostgreSQL clusters on loopback for the team-mode tests: `initdb` into a
//! temporary folder, `pg_ctl start` on a free port, trust authentication. A cluster is
//! stopped and its folder removed when its value is dropped, or, for the shared one that
//! lives in a `static`, by a watchdog when the test process ends. PostgreSQL comes from the
//! machine's packages (`scripts/install/postgres.sh`, run by `scripts/test`); a missing one
//! fails the test loudly.
//!
//! As root (CI), the cluster runs as the `postgres` user, since PostgreSQL refuses to run as
//! root.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

pub struct PgCluster {
    bin: PathBuf,
    data: PathBuf,
    log: PathBuf,
    port: u16,
    dir: PathBuf,
    /// The `postgres` user's password, for a cluster that asks for one over TCP.
    password: Option<String>,
}

fn pg_bin() -> PathBuf {
    if let Some(dir) = std::env::var_os("LODGE_TEST_PG_BIN") {
        return PathBuf::from(dir);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    found.sort();
    found.pop().unwrap_or_else(|| {
        panic!(
            "PostgreSQL's server programs (initdb, pg_ctl) are not installed: run \
             scripts/install/postgres.sh (scripts/test does), or set LODGE_TEST_PG_BIN — the \
             team-mode tests need a real PostgreSQL and never skip"
        )
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// `program args`, as the `postgres` user when we are root.
fn as_cluster_user(program: &Path) -> Command {
    if is_root() {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(program);
        cmd
    } else {
        Command::new(program)
    }
}

fn run(mut cmd: Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl PgCluster {
    /// A new cluster of its own (for a test that stops and starts it).
    pub fn start_new() -> PgCluster {
        PgCluster::start_new_with(None)
    }

    /// A new cluster whose `postgres` user must give `password` over TCP (SCRAM), as a
    /// lab's server would; its URLs carry no password.
    pub fn start_new_with_password(password: &str) -> PgCluster {
        PgCluster::start_new_with(Some(password))
    }

    fn start_new_with(password: Option<&str>) -> PgCluster {
        let bin = pg_bin();
        let dir = tempfile::tempdir().unwrap().keep();
        let data = dir.join("data");
        let log = dir.join("postgres.log");
        if is_root() {
            // The cluster's user must reach its folder.
            run(
                {
                    let mut c = Command::new("chown");
                    c.arg("postgres").arg(&dir);
                    c
                },
                "chown the cluster folder",
            );
        }
        let mut initdb = as_cluster_user(&bin.join("initdb"));
        initdb
            .arg("-D")
            .arg(&data)
            .args(["-U", "postgres", "--no-sync", "-E", "UTF8"]);
        match password {
            None => {
                initdb.arg("--auth=trust");
            }
            Some(password) => {
                let file = dir.join("pwfile");
                std::fs::write(&file, format!("{password}\n")).unwrap();
                if is_root() {
                    run(
                        {
                            let mut c = Command::new("chown");
                            c.arg("postgres").arg(&file);
                            c
                        },
                        "chown the password file",
                    );
                }
                initdb
                    .args(["--auth-local=trust", "--auth-host=scram-sha-256"])
                    .arg(format!("--pwfile={}", file.display()));
            }
        }
        run(initdb, "initdb");
        let cluster = PgCluster {
            bin,
            data,
            log,
            port: free_port(),
            dir,
            password: password.map(str::to_string),
        };
        cluster.start();
        cluster.watch();
        cluster
    }

    /// Start (or start again) the cluster on its port.
    pub fn start(&self) {
        let mut ctl = as_cluster_user(&self.bin.join("pg_ctl"));
        ctl.arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(&self.log)
            .arg("-o")
            .arg(format!(
                "-c listen_addresses=127.0.0.1 -p {} -c unix_socket_directories={} \
                 -c fsync=off -c max_connections=200",
                self.port,
                self.data.display()
            ))
            .args(["-w", "start"])
            .stdout(Stdio::null());
        run(ctl, "pg_ctl start");
    }

    /// Stop at once, as a crash would: no checkpoint, sessions cut.
    pub fn stop_immediately(&self) {
        let mut ctl = as_cluster_user(&self.bin.join("pg_ctl"));
        ctl.arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"]);
        run(ctl, "pg_ctl stop");
    }

    /// `pg_ctl stop` for this cluster, immediate (no checkpoint: its data is thrown away).
    fn stop_now(&self) -> Command {
        let mut ctl = as_cluster_user(&self.bin.join("pg_ctl"));
        ctl.arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"]);
        ctl
    }

    /// Stop the cluster and remove its folder when this test process ends, if it is still
    /// there then (a `static` cluster is never dropped).
    fn watch(&self) {
        super::scratch::remove_when_process_ends(&self.dir, Some(&self.stop_now()));
    }

    /// A new, empty database on this cluster; its URL.
    pub fn new_database(&self) -> String {
        static N: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "lodge_{}_{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        let mut create = self.client("createdb");
        create.arg(&name);
        run(create, "createdb");
        self.url(&name)
    }

    /// The cluster's client program `program` (`createdb`, `psql`), connecting over TCP as
    /// the `postgres` user, with its password when the cluster asks for one.
    fn client(&self, program: &str) -> Command {
        let mut cmd = Command::new(self.bin.join(program));
        cmd.args([
            "-h",
            "127.0.0.1",
            "-p",
            &self.port.to_string(),
            "-U",
            "postgres",
        ]);
        if let Some(password) = &self.password {
            cmd.env("PGPASSWORD", password);
        }
        cmd
    }

    /// Run `sql` on `database` as the `postgres` user (`psql -c`).
    pub fn sql(&self, database: &str, sql: &str) {
        let mut psql = self.client("psql");
        psql.args(["-d", database, "-v", "ON_ERROR_STOP=1", "-c", sql]);
        run(psql, "psql");
    }

    /// The cluster's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The folder holding the cluster's data and log.
    pub fn folder(&self) -> &Path {
        &self.dir
    }

    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }
}

impl Drop for PgCluster {
    /// Stop the cluster (it may be stopped already) and remove its folder.
    fn drop(&mut self) {
        let _ = self
            .stop_now()
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The cluster shared by this test binary.
pub fn shared() -> &'static PgCluster {
    static CLUSTER: OnceLock<PgCluster> = OnceLock::new();
    CLUSTER.get_or_init(PgCluster::start_new)
}

/// With PostgreSQL the hash cache is a file on this machine: one for this whole test
/// process, set before its first PostgreSQL store opens.
pub fn local_hash_cache() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = super::scratch::process_folder();
        // SAFETY: set once, before the first PostgreSQL store of this process opens, to a
        // folder that lives as long as the process.
        unsafe { std::env::set_var("LODGE_HASH_CACHE", dir.join("hash-cache.db")) };
        dir
    })
}
