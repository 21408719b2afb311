//! The store's own work per guarded deposit, without HTTP, the engine or a second thread:
//! queue a batch of tiny datasets, then claim and record each one in group commits the
//! size the engine's store thread sees (about two deposits, a claim and an outcome each),
//! — the store calls of `lodge deposit`, in one thread. (The engine no longer reads a
//! batch's jobs back at its end: it keeps the rows its outcomes committed. The check that
//! every deposit landed reads them here, outside the measured round.)
//!
//! The deposit benchmark's ratio moves with everything else on the machine; this one
//! isolates the store, and under callgrind it counts instructions, which do not move at
//! all from one run to the next:
//!
//! ```sh
//! cargo bench --bench store_queue            # CPU µs per deposit, median of the rounds
//! cargo bench --bench store_queue --no-run   # then, for instructions per deposit:
//! LODGE_BENCH_ITEMS=1000 LODGE_BENCH_ROUNDS=2 valgrind --tool=callgrind \
//!     --collect-atstart=no --toggle-collect='*store_round*' target/release/deps/store_queue-*
//! ```
//!
//! It ends with what an open window spends reading the last round's log as it would while
//! that batch ran ([`window_catch_up`]).
//!
//! `LODGE_BENCH_ITEMS` (default 5000), `LODGE_BENCH_ROUNDS` (default 5; each round queues
//! the batch for another target), `LODGE_BENCH_GROUP` (deposits per group commit, default 2).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lodge::bench::data::tiny_datasets;
use lodge::bench::tools::{cpu_time, env_count};
use lodge::content::ContentKey;
use lodge::store::{Claim, ClaimFilter, EventKind, Finish, Lease, Store};
use lodge::targets::RecordRef;

fn main() -> anyhow::Result<()> {
    let items = env_count("LODGE_BENCH_ITEMS", 5000, 1)?;
    let rounds = env_count("LODGE_BENCH_ROUNDS", 5, 1)?;
    let group = env_count("LODGE_BENCH_GROUP", 2, 1)?;
    let lab = tempfile::tempdir()?;
    eprintln!("preparing {items} tiny datasets…");
    let store = Store::open(&lab.path().join("store.db"))?;
    let datasets = tiny_datasets(&store, &lab.path().join("tiny"), items)?;

    println!("store work per guarded deposit, {items} tiny datasets, {group} per group commit");
    let mut per_deposit = Vec::with_capacity(rounds);
    let mut last_round_log = (0, 0);
    for round in 0..rounds {
        let target = format!("sandbox+http://127.0.0.1:{}", 10_000 + round);
        let logged_before = store.last_event_id()?;
        let cpu = cpu_time();
        let ids = store_round(&store, &target, &datasets, group)?;
        last_round_log = (logged_before, store.last_event_id()?);
        let micros = (cpu_time() - cpu).as_secs_f64() * 1e6 / items as f64;
        let unlanded = store
            .jobs(&ids)?
            .iter()
            .filter(|j| !j.state.is_landed())
            .count();
        anyhow::ensure!(unlanded == 0, "{unlanded} deposits did not land");
        println!("round {round}: {micros:.1} CPU µs per deposit");
        per_deposit.push(micros);
    }
    per_deposit.sort_by(f64::total_cmp);
    println!("median: {:.1} CPU µs per deposit", per_deposit[rounds / 2]);

    let looks = window_catch_up(&store, last_round_log, WINDOW_SEES_PER_S)?;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "an open window reading the last round's log as it would at {WINDOW_SEES_PER_S} \
         deposits/s: {} looks, each {:.2} ms (events {:.2} ms, their jobs {:.2} ms; of the \
         window's own batch, the events only), {:.1}% of one core",
        looks.count,
        ms(looks.events + looks.jobs),
        ms(looks.events),
        ms(looks.jobs),
        (looks.events + looks.jobs).as_secs_f64() / WINDOW_LOOKS_EVERY.as_secs_f64() * 100.0
    );
    Ok(())
}

/// Deposits a second for [`window_catch_up`]: about what the engine does with the sandbox.
const WINDOW_SEES_PER_S: usize = 3500;
/// How often an open window looks at a SQLite store's log (`store/notices.rs`).
const WINDOW_LOOKS_EVERY: Duration = Duration::from_millis(500);

/// What one look of [`window_catch_up`] took, on average.
struct WindowLooks {
    count: usize,
    events: Duration,
    jobs: Duration,
}

/// What an open window spends on another process's batch: each time the log grows (at most
/// every [`WINDOW_LOOKS_EVERY`]) it reads the events logged since its last look and the
/// jobs they touched (`watch_shared_store` in `app/startup.rs`). Of a batch it runs itself
/// it reads the events only: its engine reported them, and their jobs, already. Replays
/// the events logged between the two ids `log` in the slices such looks would see at
/// `per_s` deposits a second (three events each), timing each part (one thread, so the
/// time is its CPU).
fn window_catch_up(store: &Store, log: (i64, i64), per_s: usize) -> anyhow::Result<WindowLooks> {
    let per_look = 3 * per_s * WINDOW_LOOKS_EVERY.as_millis() as usize / 1000;
    let (mut last, end) = log;
    let (mut count, mut events_took, mut jobs_took) = (0, Duration::ZERO, Duration::ZERO);
    while last < end {
        let started = Instant::now();
        let events = store.events_after(last, per_look)?;
        events_took += started.elapsed();
        let Some(newest) = events.last() else { break };
        last = newest.id;
        let started = Instant::now();
        let mut jobs: Vec<i64> = events.iter().filter_map(|e| e.job_id).collect();
        jobs.sort_unstable();
        jobs.dedup();
        std::hint::black_box(store.jobs(&jobs)?);
        jobs_took += started.elapsed();
        count += 1;
    }
    let each = count.max(1) as u32;
    Ok(WindowLooks {
        count,
        events: events_took / each,
        jobs: jobs_took / each,
    })
}

/// Queue every dataset for `target`, deposit each (claim, then record it landed) in group
/// commits of `group` claims and `group` outcomes; returns the batch's jobs.
#[inline(never)]
fn store_round(
    store: &Store,
    target: &str,
    datasets: &[(i64, ContentKey)],
    group: usize,
) -> anyhow::Result<Vec<i64>> {
    store.upsert_target(target, target, "store benchmark")?;
    let ids: Vec<i64> = store
        .enqueue_deposits(target, datasets, Duration::from_secs(3600))?
        .into_iter()
        .map(|(queued, _)| queued.job_id())
        .collect();
    let filter = ClaimFilter {
        targets: vec![target.to_string()],
        job_ids: Some(Arc::new(ids.iter().copied().collect::<HashSet<_>>())),
        skip: HashSet::new(),
    };
    // As in the engine, an outcome is recorded in a later group than its claim.
    let mut in_flight: Vec<Lease> = Vec::new();
    let mut landed = 0u64;
    loop {
        store.begin_group()?;
        let mut claimed = 0;
        for _ in 0..group {
            if let Claim::Attempt { lease, .. } =
                store.claim("bench/1/0", Duration::from_secs(30), 8, &filter)?
            {
                in_flight.push(*lease);
                claimed += 1;
            }
        }
        while in_flight.len() > group || (claimed == 0 && !in_flight.is_empty()) {
            let lease = in_flight.remove(0);
            landed += 1;
            let identifier = format!("sandbox:{landed}");
            store.finish(
                &lease,
                &Finish::Landed {
                    message: format!("created {identifier}"),
                    record: RecordRef {
                        url: Some(format!("http://127.0.0.1:1/records/{}", lease.job.key)),
                        identifier,
                    },
                    created: true,
                    kind: EventKind::Created,
                    http_status: Some(201),
                },
            )?;
        }
        store.commit_group()?;
        if claimed == 0 && in_flight.is_empty() {
            break;
        }
    }
    Ok(ids)
}
