//! What the benchmark needs from the machine: the reference tools (found on `PATH`, or a
//! loud error naming the tool and how to install it), child processes timed with their peak
//! resident memory (Linux), this process's CPU time, and the `cargo bench` targets' settings
//! from the environment.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

/// How to install the reference tools.
pub const INSTALL_HINT: &str = "install it (Debian/Ubuntu: apt-get install openssl curl; Fedora: dnf install openssl curl; \
     macOS: brew install openssl curl)";

/// A whole-number setting of a `cargo bench` target from the environment variable `name`,
/// `default` when unset, and at least `least` (1 for a count of datasets, rounds or deposits
/// in flight, where 0 would measure nothing). A value that is not a whole number, or is
/// below `least`, is an error naming the variable rather than the default: `1ms` for a
/// latency must not quietly measure with none.
pub fn env_count(name: &str, default: usize, least: usize) -> anyhow::Result<usize> {
    count_setting(name, std::env::var(name), default, least)
}

fn count_setting(
    name: &str,
    value: Result<String, std::env::VarError>,
    default: usize,
    least: usize,
) -> anyhow::Result<usize> {
    let refused = |got: String| {
        anyhow::anyhow!(
            "{name} must be a whole number of at least {least} (got {got}); unset it for {default}"
        )
    };
    match value {
        Err(std::env::VarError::NotPresent) => Ok(default),
        Ok(value) => match value.trim().parse() {
            Ok(n) if n >= least => Ok(n),
            _ => Err(refused(format!("'{value}'"))),
        },
        Err(std::env::VarError::NotUnicode(value)) => Err(refused(format!("{value:?}"))),
    }
}

/// The reference tool `name` on `PATH`; `why` says which row compares against it.
pub fn require_tool(name: &str, why: &str) -> anyhow::Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{name} is not installed (not found on PATH): {why}, and a benchmark without its \
                 reference is not run; {INSTALL_HINT}"
            )
        })
}

#[cfg(unix)]
fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &std::path::Path) -> bool {
    path.is_file() || path.with_extension("exe").is_file()
}

/// A finished child process.
pub struct Finished {
    pub status: ExitStatus,
    pub elapsed: Duration,
    /// Peak resident memory in bytes (Linux: the child's own `VmHWM`).
    pub peak_rss: Option<u64>,
    pub stdout: String,
    pub stderr: String,
}

/// How often a running child's memory high-water mark is read.
const RSS_POLL: Duration = Duration::from_millis(5);

/// Run `command` to the end; its output is captured and its peak resident memory read.
///
/// The peak is the child's `VmHWM` (the high-water mark of its own address space, which only
/// grows) read every few milliseconds until it exits. `wait4`'s `ru_maxrss` would not do: the
/// kernel charges a child that was started from a big process with that process's memory.
pub fn run_measured(mut command: Command) -> anyhow::Result<Finished> {
    let program = command.get_program().to_string_lossy().to_string();
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot start {program}"))?;
    // Read the pipes on threads so a chatty child never blocks on a full pipe.
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || read_all(&mut out));
    let err = std::thread::spawn(move || read_all(&mut err));
    let proc_dir = PathBuf::from(format!("/proc/{}", child.id()));
    let parent_cmdline = std::fs::read("/proc/self/cmdline").unwrap_or_default();
    let mut peak_rss = None;
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .with_context(|| format!("cannot wait for {program}"))?
        {
            break status;
        }
        // Until the child has replaced itself with the program, /proc shows this process.
        let cmdline = std::fs::read(proc_dir.join("cmdline")).unwrap_or_default();
        if !cmdline.is_empty() && cmdline != parent_cmdline {
            peak_rss = high_water_mark(&proc_dir).or(peak_rss);
        }
        std::thread::sleep(RSS_POLL);
    };
    let elapsed = started.elapsed();
    Ok(Finished {
        status,
        elapsed,
        peak_rss,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// `VmHWM` of a running process, in bytes (None once it has exited, or off Linux).
fn high_water_mark(proc_dir: &std::path::Path) -> Option<u64> {
    let status = std::fs::read_to_string(proc_dir.join("status")).ok()?;
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

fn read_all(from: &mut impl std::io::Read) -> String {
    let mut bytes = Vec::new();
    let _ = from.read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// CPU time (user + system) this process has used so far (Linux, from /proc; zero
/// elsewhere).
pub fn cpu_time() -> Duration {
    stat_cpu_time(Path::new("/proc/self/stat"))
}

/// CPU time (user + system) so far of each of this process's threads whose name starts
/// with one of `names`, by thread id, on Linux; empty elsewhere.
pub fn threads_cpu_times(names: &[&str]) -> HashMap<String, Duration> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return HashMap::new();
    };
    tasks
        .flatten()
        .filter(|task| {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            names.iter().any(|n| comm.trim_end().starts_with(n))
        })
        .map(|task| {
            let tid = task.file_name().to_string_lossy().into_owned();
            (tid, stat_cpu_time(&task.path().join("stat")))
        })
        .collect()
}

/// CPU time the threads named `names` used since the snapshot `before`
/// ([`threads_cpu_times`]): each thread's own difference, so a thread that ended meanwhile
/// (an earlier engine's) drops out instead of cancelling the others' time, and a thread
/// that started meanwhile counts whole.
pub fn threads_cpu_since(names: &[&str], before: &HashMap<String, Duration>) -> Duration {
    threads_cpu_times(names)
        .into_iter()
        .map(|(tid, now)| now.saturating_sub(before.get(&tid).copied().unwrap_or_default()))
        .sum()
}

/// User + system time from a `/proc/…/stat` file (clock ticks of 10 ms).
fn stat_cpu_time(stat: &Path) -> Duration {
    let stat = std::fs::read_to_string(stat).unwrap_or_default();
    // Fields after the command name, which is in parentheses and may contain spaces.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<u64> = rest
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let ticks = fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A thread named `name` that burns `cpu` of CPU time, then waits for `stop`.
    fn busy_thread(
        name: &str,
        cpu: Duration,
    ) -> (std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>) {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let (ready, burnt) = std::sync::mpsc::channel::<()>();
        let handle = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                // Its own CPU time, not the clock: a busy test machine may run it less.
                let own = Path::new("/proc/thread-self/stat");
                let started = Instant::now();
                while stat_cpu_time(own) < cpu && started.elapsed() < Duration::from_secs(20) {
                    std::hint::black_box(started.elapsed());
                }
                ready.send(()).unwrap();
                let _ = stopped.recv();
            })
            .unwrap();
        burnt.recv().unwrap();
        (stop, handle)
    }

    #[test]
    fn a_thread_that_ends_between_snapshots_does_not_cancel_the_time_of_the_others() {
        let names = ["lodge-cputest"];
        let (stop_old, old) = busy_thread("lodge-cputest-old", Duration::from_millis(300));
        let before = threads_cpu_times(&names);
        stop_old.send(()).unwrap();
        old.join().unwrap();
        let (stop_new, new) = busy_thread("lodge-cputest-new", Duration::from_millis(100));

        let used = threads_cpu_since(&names, &before);
        stop_new.send(()).unwrap();
        new.join().unwrap();
        // The new thread's 100 ms (in 10 ms ticks), not less the old one's 300 ms.
        assert!(
            used >= Duration::from_millis(100) && used < Duration::from_millis(250),
            "{used:?}"
        );
    }
}

/// `lodge --db DB deposit --all --target TARGET_URL` run by `lodge_exe` as a child process
/// (so its peak memory is its own), with a config file of its own in `run_dir` and no
/// target or token from the environment; an error with what it printed unless it succeeded.
pub async fn lodge_deposit_all(
    lodge_exe: &Path,
    db: &Path,
    run_dir: &Path,
    target_url: &str,
) -> anyhow::Result<Finished> {
    let mut lodge = Command::new(lodge_exe);
    lodge
        .arg("--db")
        .arg(db)
        .args(["deposit", "--all", "--target", target_url])
        .env("LODGE_CONFIG", run_dir.join("config.toml"))
        .env_remove("LODGE_TARGET")
        .env_remove("LODGE_TOKEN");
    let run = tokio::task::spawn_blocking(move || run_measured(lodge)).await??;
    ensure_ok("lodge deposit", &run)?;
    Ok(run)
}

/// An error naming `what`, its exit status and what it printed, unless it succeeded.
pub fn ensure_ok(what: &str, run: &Finished) -> anyhow::Result<()> {
    anyhow::ensure!(
        run.status.success(),
        "{what} failed ({}):\n{}{}",
        run.status,
        run.stdout,
        run.stderr
    );
    Ok(())
}

#[cfg(test)]
mod settings_tests {
    use super::*;
    use std::env::VarError;

    #[test]
    fn a_bench_setting_that_is_not_a_whole_number_or_is_too_small_is_an_error_naming_it() {
        let unset = count_setting("LODGE_BENCH_ITEMS", Err(VarError::NotPresent), 5000, 1);
        assert_eq!(unset.unwrap(), 5000);
        let set = count_setting("LODGE_BENCH_ITEMS", Ok(" 300 ".into()), 5000, 1);
        assert_eq!(set.unwrap(), 300);
        let none = count_setting("LODGE_BENCH_LATENCY_MS", Ok("0".into()), 0, 0);
        assert_eq!(none.unwrap(), 0, "no latency is a latency");

        let zero = count_setting("LODGE_BENCH_CONCURRENCY", Ok("0".into()), 8, 1)
            .unwrap_err()
            .to_string();
        assert!(zero.contains("LODGE_BENCH_CONCURRENCY"), "{zero}");
        assert!(zero.contains("at least 1"), "{zero}");
        let typo = count_setting("LODGE_BENCH_LATENCY_MS", Ok("1ms".into()), 0, 0)
            .unwrap_err()
            .to_string();
        assert!(typo.contains("LODGE_BENCH_LATENCY_MS"), "{typo}");
        assert!(typo.contains("'1ms'"), "{typo}");
    }
}
