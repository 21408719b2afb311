//! Deposit throughput: guarded deposits (store, queue, leases, events) against the same
//! conditional PUTs sent raw by the same HTTP client with no store, then a replay of the
//! finished batch — the measurement `lodge bench` also runs ([`lodge::bench::deposit`]).
//! Run with `cargo bench --bench deposit` (LODGE_BENCH_ITEMS, default 5000;
//! LODGE_BENCH_CONCURRENCY, default 8; LODGE_BENCH_ROUNDS, default 3, each side's median
//! counts; LODGE_BENCH_ONLY=raw|guarded runs one side, for profiling;
//! LODGE_BENCH_LATENCY_MS, default 0, is added by the sandbox to every request, to see the
//! comparison behind a repository's round trip — the goal is measured without).

use std::time::Duration;

use lodge::bench::deposit::{Run, Sides, measure};
use lodge::bench::tools::env_count;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let items = env_count("LODGE_BENCH_ITEMS", 5000, 1)?;
    let concurrency = env_count("LODGE_BENCH_CONCURRENCY", 8, 1)?;
    let rounds = env_count("LODGE_BENCH_ROUNDS", 3, 1)?;
    let latency_ms = env_count("LODGE_BENCH_LATENCY_MS", 0, 0)?;
    let sides = match std::env::var("LODGE_BENCH_ONLY")
        .unwrap_or_default()
        .as_str()
    {
        "raw" => Sides::RawOnly,
        "guarded" => Sides::GuardedOnly,
        "" => Sides::Both,
        other => anyhow::bail!(
            "LODGE_BENCH_ONLY must be raw or guarded (got '{other}'); unset it for both"
        ),
    };
    let lab = tempfile::tempdir()?;
    eprintln!("preparing {items} tiny datasets…");
    let latency = Duration::from_millis(latency_ms as u64);
    let f = measure(lab.path(), items, concurrency, sides, rounds, latency).await?;

    let added = if latency_ms > 0 {
        format!(", the server adding {latency_ms} ms to every request")
    } else {
        String::new()
    };
    println!(
        "deposit throughput, {items} tiny datasets, concurrency {concurrency}, \
         median of {rounds} rounds per side{added}"
    );
    println!(
        "{:<34} {:>10} {:>12} {:>10} {:>14}",
        "", "seconds", "items/s", "requests", "CPU ms/item"
    );
    let per_item = |cpu: Duration| cpu.as_secs_f64() * 1000.0 / items as f64;
    let line = |name: &str, run: &Option<Run>| {
        if let Some(r) = run {
            println!(
                "{name:<34} {:>10.2} {:>12.0} {:>10} {:>14.3}",
                r.elapsed.as_secs_f64(),
                r.items_per_s(items),
                r.requests,
                per_item(r.cpu)
            );
        }
    };
    line("raw conditional PUTs (no store)", &f.raw);
    line("guarded deposits (lodge engine)", &f.guarded);
    line("replay of the finished batch", &f.replay);
    for (side, runs) in [("raw", &f.raw_rounds), ("guarded", &f.guarded_rounds)] {
        let rounds: Vec<String> = runs
            .iter()
            .map(|r| {
                let calls = match r.store_calls {
                    0 => String::new(),
                    n => format!(", {:.2} store calls/item", n as f64 / items as f64),
                };
                format!(
                    "{:.2} s ({:.3} CPU ms/item, store threads {:.3}{calls})",
                    r.elapsed.as_secs_f64(),
                    per_item(r.cpu),
                    per_item(r.store_cpu)
                )
            })
            .collect();
        println!("{side} rounds: {}", rounds.join(", "));
    }
    if let (Some(raw), Some(guarded), Some(replay)) = (f.raw, f.guarded, f.replay) {
        let goal = if latency_ms > 0 {
            "the goal, >= 0.8, is measured with no added latency"
        } else {
            "goal >= 0.8"
        };
        println!(
            "guarded / raw = {:.3} ({goal}); replay sent {} requests (goal 0)",
            guarded.items_per_s(items) / raw.items_per_s(items),
            replay.requests
        );
    }
    Ok(())
}
