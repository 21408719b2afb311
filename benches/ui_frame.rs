//! Window benchmark with 100,000 datasets in the store, the real window code driven headless
//! (layout and tessellation, no GPU): the time from start to the first frame and to the first
//! frame with every row loaded, then the wall time per frame with the datasets table at the
//! top and scrolled to the middle — the measurement `lodge bench` also runs
//! ([`lodge::bench::ui_frame`]).
//!
//! `cargo bench --bench ui_frame` (release). Goal: under 4 ms per frame.

use lodge::bench::ui_frame::measure;

const DATASETS: usize = 100_000;
const FRAMES: usize = 300;

fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let runtime = tokio::runtime::Runtime::new()?;
    let f = measure(dir.path(), DATASETS, FRAMES, runtime.handle())?;
    println!(
        "start -> first frame: {:.1} ms; start -> first frame with {DATASETS} rows: {:.0} ms",
        f.first_frame.as_secs_f64() * 1e3,
        f.all_rows.as_secs_f64() * 1e3
    );
    println!(
        "frame, table at the top: {:.2} ms (goal < 4 ms)",
        f.top.as_secs_f64() * 1e3
    );
    println!(
        "frame, table scrolled down: {:.2} ms (goal < 4 ms)",
        f.scrolled.as_secs_f64() * 1e3
    );
    Ok(())
}
