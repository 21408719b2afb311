//! What the benchmark needs from the machine: the reference tools (found on `PATH`, or a
//! loud error naming the tool and how to install it), child processes timed with their peak
//! resident memory, and this process's CPU time.

use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

/// How to install the reference tools.
pub const INSTALL_HINT: &str = "install it (Debian/Ubuntu: apt-get install openssl curl; Fedora: dnf install openssl curl; \
     macOS: brew install openssl curl)";

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
    /// Peak resident memory in bytes (Unix: from the kernel's accounting of the child).
    pub peak_rss: Option<u64>,
    pub stdout: String,
    pub stderr: String,
}

/// Run `command` to the end; its output is captured.
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
    let (status, peak_rss) = wait_with_rusage(child)?;
    let elapsed = started.elapsed();
    Ok(Finished {
        status,
        elapsed,
        peak_rss,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

fn read_all(from: &mut impl std::io::Read) -> String {
    let mut bytes = Vec::new();
    let _ = from.read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Wait for the child with `wait4`, which reports the child's own peak RSS (`ru_maxrss`).
#[cfg(unix)]
fn wait_with_rusage(child: std::process::Child) -> anyhow::Result<(ExitStatus, Option<u64>)> {
    use std::os::unix::process::ExitStatusExt;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our own child, not yet reaped (std's handle is never waited on);
        // both pointers are to live locals.
        let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if got == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e).context(format!("cannot wait for process {pid}"));
        }
    }
    // Linux reports kilobytes; macOS bytes.
    let scale = if cfg!(target_os = "macos") { 1 } else { 1024 };
    let peak = (usage.ru_maxrss as u64).saturating_mul(scale);
    drop(child);
    Ok((ExitStatus::from_raw(status), Some(peak)))
}

#[cfg(not(unix))]
fn wait_with_rusage(mut child: std::process::Child) -> anyhow::Result<(ExitStatus, Option<u64>)> {
    Ok((child.wait().context("cannot wait for the child")?, None))
}

/// CPU time (user + system) this process has used so far (Linux, from /proc; zero
/// elsewhere).
pub fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses and may contain spaces.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<u64> = rest
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let ticks = fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}
