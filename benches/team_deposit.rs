//! Team mode throughput: 4 `lodge deposit` processes on one PostgreSQL store against 1
//! process on a SQLite file, each batch of tiny datasets going to a `lodge sandbox` of its
//! own run as a separate process. Run with `cargo bench --bench team_deposit`
//! (LODGE_BENCH_ITEMS, default 5000; LODGE_BENCH_CONCURRENCY per process, default 8).
//! PostgreSQL is a throwaway cluster started here (needs PostgreSQL's server programs, as the
//! tests do: scripts/install/postgres.sh).

#[path = "../tests/support/postgres.rs"]
#[allow(dead_code)]
mod postgres;
#[path = "../tests/support/scratch.rs"]
#[allow(dead_code)]
mod scratch;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use lodge::bench::tools::env_count;
use lodge::catalog::record_folder;
use lodge::content::{Creator, Metadata};
use lodge::store::{Store, StoreLocation};

/// The release `lodge` binary next to this bench.
fn lodge_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let bin = dir.join("lodge");
    assert!(
        bin.exists(),
        "{} is missing: build it first with `cargo build --release`",
        bin.display()
    );
    bin
}

fn metadata(n: usize) -> Metadata {
    Metadata {
        title: format!("Team bench dataset {n}"),
        creators: vec![Creator::named("Curie, Marie")],
        publisher: "Lodge bench".into(),
        publication_year: Some(2026),
        ..Metadata::default()
    }
}

/// Tiny dataset folders, recorded in the store at `location`.
fn prepare(location: &StoreLocation, folders: &[PathBuf]) {
    let store = Store::open_at(location).expect("store");
    for (n, folder) in folders.iter().enumerate() {
        record_folder(&store, folder, &metadata(n), &|_| {}).expect("record");
    }
}

/// A `lodge sandbox` process on a free port; its target URL.
fn sandbox(dir: &Path) -> (Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(lodge_bin())
        .args(["sandbox", "--addr", &format!("127.0.0.1:{port}"), "--data"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "sandbox did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, format!("sandbox+http://127.0.0.1:{port}"))
}

/// `processes` deposit processes on one store at once; seconds until all are done.
fn run(db: &str, target: &str, processes: usize, concurrency: usize, cache: &Path) -> f64 {
    let started = Instant::now();
    let children: Vec<Child> = (0..processes)
        .map(|p| {
            Command::new(lodge_bin())
                .env("LODGE_DB", db)
                .env("LODGE_HOST", format!("worker{p}"))
                .env("LODGE_HASH_CACHE", cache.join(format!("{p}.db")))
                .args(["deposit", "--all", "--target", target, "--concurrency"])
                .arg(concurrency.to_string())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a deposit process failed");
    }
    started.elapsed().as_secs_f64()
}

fn main() -> anyhow::Result<()> {
    let items = env_count("LODGE_BENCH_ITEMS", 5000, 1)?;
    let concurrency = env_count("LODGE_BENCH_CONCURRENCY", 8, 1)?;
    let lab = tempfile::tempdir().unwrap();
    let cache = postgres::local_hash_cache();
    eprintln!("preparing {items} tiny datasets…");
    let folders: Vec<PathBuf> = (0..items)
        .map(|n| {
            let dir = lab.path().join(format!("datasets/ds{n:05}"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("data.csv"), format!("id,value\n{n},{}\n", n * 7)).unwrap();
            dir
        })
        .collect();

    let sqlite = lab.path().join("lodge.db");
    prepare(&StoreLocation::File(sqlite.clone()), &folders);
    let cluster = postgres::PgCluster::start_new();
    let pg = cluster.new_database();
    prepare(&StoreLocation::Postgres(pg.clone()), &folders);

    let (mut sb1, target1) = sandbox(&lab.path().join("sandbox-sqlite"));
    let sqlite_secs = run(sqlite.to_str().unwrap(), &target1, 1, concurrency, cache);
    let _ = sb1.kill();
    let (mut sb4, target4) = sandbox(&lab.path().join("sandbox-postgres"));
    let pg_secs = run(&pg, &target4, 4, concurrency, cache);
    let _ = sb4.kill();

    let rate = |s: f64| items as f64 / s;
    println!(
        "team deposit, {items} tiny datasets, {concurrency} in flight per process, {} cores",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "  1 process  on SQLite:     {:>8.0} items/s ({sqlite_secs:.1} s)",
        rate(sqlite_secs)
    );
    println!(
        "  4 processes on PostgreSQL: {:>7.0} items/s ({pg_secs:.1} s)",
        rate(pg_secs)
    );
    println!(
        "  ratio PostgreSQL x4 / SQLite x1: {:.2}",
        sqlite_secs / pg_secs
    );
    Ok(())
}
