//! `lodge bench`: measure Lodge against its references on this machine and print one table
//! (see [`crate::bench`]). Exit status 1 if a row is wrong (not merely slow), 2 on an error,
//! such as a reference tool that is not installed.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::output::{say, say_err};
use crate::bench::{self, Options, RowKind, Sizes, Verdict};
use crate::targets::each_file::FilesAtOnce;
use crate::wording::count_of;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Small inputs (for the test suite): the table shape, not meaningful figures.
    #[arg(long)]
    pub quick: bool,
    /// Measure only these rows.
    #[arg(long, value_enum, num_args = 1.., value_name = "ROW")]
    pub only: Vec<RowKind>,
    /// Generate the inputs here and keep them for the next run (default: a temporary folder,
    /// removed afterwards).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Size of the hashing dataset in MiB (default 1024; 16 with --quick).
    #[arg(long, value_name = "MIB")]
    pub hash_size: Option<u64>,
    /// Size of the uploaded file in MiB (default 2048; 8 with --quick).
    #[arg(long, value_name = "MIB")]
    pub upload_size: Option<u64>,
    /// Files of the rescan (default 100,000; 2,000 with --quick).
    #[arg(long, value_name = "N")]
    pub rescan_files: Option<usize>,
    /// Tiny datasets deposited (default 5,000; 100 with --quick).
    #[arg(long, value_name = "N")]
    pub deposits: Option<usize>,
    /// Small files of the files row's one dataset (default 2,000; 100 with --quick).
    #[arg(long, value_name = "N")]
    pub files: Option<usize>,
    /// Files in flight at once in the files row, on both sides: the target's
    /// `files_at_once` for Lodge, `--parallel-max` for curl (1 to 32, default 4).
    #[arg(long, value_name = "N")]
    pub files_at_once: Option<usize>,
    /// Datasets in the window (default 100,000; 2,000 with --quick).
    #[arg(long, value_name = "N")]
    pub gui_rows: Option<usize>,
}

pub async fn bench(args: BenchArgs) -> anyhow::Result<ExitCode> {
    if cfg!(debug_assertions) {
        say_err!(
            "warning: this lodge is a debug build, so its figures are not Lodge's: build with \
             `cargo build --release` and run target/release/lodge bench"
        );
    }
    let mut sizes = if args.quick {
        Sizes::quick()
    } else {
        Sizes::full()
    };
    let mib = |m: u64| m * bench::data::MIB;
    sizes.hash_bytes = args.hash_size.map_or(sizes.hash_bytes, mib);
    sizes.upload_bytes = args.upload_size.map_or(sizes.upload_bytes, mib);
    sizes.rescan_files = args.rescan_files.unwrap_or(sizes.rescan_files);
    sizes.deposits = args.deposits.unwrap_or(sizes.deposits);
    sizes.many_files = args.files.unwrap_or(sizes.many_files);
    sizes.gui_rows = args.gui_rows.unwrap_or(sizes.gui_rows);
    if let Some(n) = args.files_at_once {
        sizes.files_at_once =
            FilesAtOnce::new(n).map_err(|why| anyhow::anyhow!("--files-at-once {why}"))?;
    }
    anyhow::ensure!(
        sizes.hash_bytes > 0 && sizes.upload_bytes > 0,
        "--hash-size and --upload-size must be at least 1 (MiB)"
    );
    anyhow::ensure!(
        sizes.rescan_files > 0 && sizes.deposits > 0 && sizes.many_files > 0 && sizes.gui_rows > 0,
        "--rescan-files, --deposits, --files and --gui-rows must be at least 1"
    );
    let options = Options {
        sizes,
        only: args.only,
        work_dir: args.work_dir,
        lodge_exe: std::env::current_exe()
            .map_err(|e| anyhow::anyhow!("cannot find the running lodge binary: {e}"))?,
    };
    say!("machine: {}", bench::machine());
    let rows = bench::run(&options, &|step| say_err!("measuring {step}")).await?;
    say!();
    // Line by line, as all output is written: a failed write is said, not a panic.
    for line in bench::table(&rows).lines() {
        say!("{line}");
    }
    say!();
    say!("ratio: Lodge's speed relative to the reference (above 1: faster)");
    let below = rows
        .iter()
        .filter(|r| r.verdict == Verdict::BelowGoal)
        .count();
    if below > 0 {
        say!(
            "{} below goal: measure again on a quiet machine",
            count_of(below as u64, "row", "rows")
        );
    }
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| r.measure.clone())
        .collect();
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        say!("FAILED: {}", failed.join("; "));
        Ok(ExitCode::from(1))
    }
}
