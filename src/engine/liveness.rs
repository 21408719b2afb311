//! Who holds a lease, and whether that holder still lives.
//!
//! A lease names its owner as `HOST/PID/NONCE`. An expired lease is reclaimed by anyone
//! (that is what leases are for). As a courtesy after a crash, a lease held by a process of
//! this same machine that no longer exists is expired at once instead of after its full
//! term: if the check is ever wrong (a recycled pid), nothing breaks, because the next claim
//! bumps the fencing token and the old holder can no longer record anything.

use std::path::Path;
use std::sync::Arc;

use super::EngineError;
use crate::store::Store;

fn host() -> String {
    crate::store::this_host()
}

/// This process's lease owner name.
pub fn lease_owner() -> String {
    format!(
        "{}/{}/{:08x}",
        host(),
        std::process::id(),
        rand::random::<u32>()
    )
}

/// Whether `owner` (a lease's holder) is this process: a job it holds is cut short if the
/// process ends now (the window asks before it closes).
pub fn held_by_this_process(owner: &str) -> bool {
    let mut parts = owner.split('/');
    parts.next() == Some(host().as_str())
        && parts.next().and_then(|pid| pid.parse::<u32>().ok()) == Some(std::process::id())
}

/// `Some(false)` when `owner` is a process of this machine known to be gone; `Some(true)`
/// when it runs; `None` when we cannot tell (another machine, or no `/proc`).
pub fn owner_alive(owner: &str) -> Option<bool> {
    let mut parts = owner.split('/');
    let (h, pid) = (parts.next()?, parts.next()?.parse::<u32>().ok()?);
    if h != host() || !Path::new("/proc/self").exists() {
        return None;
    }
    Some(process_runs(pid))
}

/// Whether process `pid` of this machine runs: it exists and has not ended. A process killed
/// while its parent (a shell, a test harness) has not yet collected it stays in `/proc` as a
/// zombie (state `Z`) until then; it holds nothing and will never send again.
fn process_runs(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat"))
    else {
        return false;
    };
    // `PID (COMMAND) STATE ...`: the command may itself hold spaces and parentheses, so the
    // state is the first field after the last `)`.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next());
    !matches!(state, Some("Z" | "X" | "x"))
}

/// Expire the live leases held by dead processes of this machine.
pub async fn expire_leases_of_dead_processes(
    store: &Arc<Store>,
    me: &str,
) -> Result<(), EngineError> {
    let store = store.clone();
    let me = me.to_string();
    tokio::task::spawn_blocking(move || expire_dead_leases(&store, &me)).await?
}

/// [`expire_leases_of_dead_processes`], on this thread (it blocks): for a command that
/// acts on jobs a killed process left leased (`lodge cancel`), which would otherwise be
/// told they are being deposited.
pub fn expire_dead_leases(store: &Store, me: &str) -> Result<(), EngineError> {
    for (job, fence, owner) in store.live_leases()? {
        if owner != me && owner_alive(&owner) == Some(false) {
            store.expire_lease(job, fence)?;
        }
    }
    Ok(())
}

/// Whether a worker is sending `job` now: it runs under a lease that has not run out, held
/// by a process not known to have ended. (Removing its dataset does not stop it: it lands
/// as the folder was scanned.)
pub fn is_being_sent(job: &crate::store::JobRow) -> bool {
    job.state == crate::store::JobState::Running
        && job
            .lease_expires
            .is_some_and(|t| t > crate::store::now_ms())
        && job
            .lease_owner
            .as_deref()
            .is_some_and(|owner| owner_alive(owner) != Some(false))
}

/// The process a lease `owner` names, as a person reads it: "process 6573 on lab-pc";
/// when it is a Lodge of this machine that runs, what it is too: "the Lodge window (process
/// 6573 on lab-pc)", "lodge deposit (process 6573 on lab-pc)". (Not in backquotes: the
/// command line adds its `--db` to every `` `lodge `` command it prints, and this names a
/// command run, not one to run.)
pub fn owner_text(owner: &str) -> String {
    let process = owner_process(owner);
    match owner_program(owner) {
        Some(program) => format!("{program} ({process})"),
        None => process,
    }
}

/// The process a lease `owner` names, and nothing more: "process 6573 on lab-pc".
pub fn owner_process(owner: &str) -> String {
    let mut parts = owner.split('/');
    match (parts.next(), parts.next()) {
        (Some(host), Some(pid)) => format!("process {pid} on {host}"),
        _ => owner.to_string(),
    }
}

/// A Lodge that holds a lease: the window, or a command of the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LodgeProgram {
    Window,
    /// The command (`deposit`, `retry`, `verify`), never its arguments, which may hold a
    /// token.
    Command(String),
}

impl LodgeProgram {
    /// For `--json`: `window`, or the command's name.
    pub fn name(&self) -> &str {
        match self {
            LodgeProgram::Window => "window",
            LodgeProgram::Command(command) => command,
        }
    }
}

impl std::fmt::Display for LodgeProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LodgeProgram::Window => f.write_str("the Lodge window"),
            LodgeProgram::Command(command) => write!(f, "lodge {command}"),
        }
    }
}

/// What the process a lease `owner` names is, when it is a Lodge running on this machine.
/// `None` for another machine's, an ended one, or a pid another program has since.
pub fn owner_program(owner: &str) -> Option<LodgeProgram> {
    let mut parts = owner.split('/');
    let (h, pid) = (parts.next()?, parts.next()?.parse::<u32>().ok()?);
    if h != host() {
        return None;
    }
    let cmdline = std::fs::read(Path::new("/proc").join(pid.to_string()).join("cmdline")).ok()?;
    let args: Vec<String> = (cmdline.split(|b| *b == 0))
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    program_of(&args)
}

/// The Lodge that the command line `args` (the program first) runs, if it runs one.
fn program_of(args: &[String]) -> Option<LodgeProgram> {
    let program = Path::new(args.first()?).file_name()?.to_string_lossy();
    if program != "lodge" {
        return None;
    }
    let mut rest = args[1..].iter();
    while let Some(arg) = rest.next() {
        // The global options that take a value: the value is not the command.
        if arg == "--db" || arg == "--db-wait" {
            rest.next();
        } else if !arg.starts_with('-') {
            return Some(LodgeProgram::Command(arg.clone()));
        }
    }
    Some(LodgeProgram::Window)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lodge_holding_a_lease_is_named_by_its_command_and_other_programs_are_not() {
        let program = |line: &str| {
            let args: Vec<String> = line.split(' ').map(String::from).collect();
            program_of(&args).map(|p| p.to_string())
        };
        assert_eq!(
            program("/usr/bin/lodge --db /tmp/x.db deposit --target t --all --token s3cret")
                .as_deref(),
            Some("lodge deposit")
        );
        assert_eq!(
            program("lodge --db-wait 5s retry --all-failed").as_deref(),
            Some("lodge retry")
        );
        assert_eq!(
            program("/opt/lodge/lodge --db lab.db").as_deref(),
            Some("the Lodge window")
        );
        assert_eq!(program("/usr/bin/python3 lodge deposit"), None);
        // This test's own process is no Lodge.
        assert_eq!(owner_program(&lease_owner()), None);
    }

    #[test]
    fn this_process_is_alive_and_other_hosts_are_unknown() {
        let me = lease_owner();
        if Path::new("/proc/self").exists() {
            assert_eq!(owner_alive(&me), Some(true));
            assert_eq!(
                owner_alive(&format!("{}/{}/0", host(), u32::MAX - 1)),
                Some(false)
            );
        }
        assert_eq!(owner_alive("some-other-host/1/0"), None);
    }

    #[test]
    fn a_killed_process_its_parent_has_not_collected_is_not_alive() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        // `true` ends at once; until `wait`, it stays in /proc as a zombie.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let owner = format!("{}/{}/0", host(), child.id());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let stat = Path::new("/proc").join(child.id().to_string()).join("stat");
        while !std::fs::read_to_string(&stat).is_ok_and(|s| s.contains(") Z")) {
            assert!(
                std::time::Instant::now() < deadline,
                "the child never ended"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(stat.exists(), "the zombie is still listed in /proc");
        assert_eq!(owner_alive(&owner), Some(false));
        child.wait().unwrap();
        assert_eq!(owner_alive(&owner), Some(false));
    }

    #[test]
    fn an_owner_is_named_by_its_process_and_host() {
        assert_eq!(owner_text("lab-pc/6573/c58df0a5"), "process 6573 on lab-pc");
        assert_eq!(owner_text("odd"), "odd");
    }

    #[test]
    fn a_lease_is_held_by_this_process_only_under_its_host_and_pid() {
        assert!(held_by_this_process(&lease_owner()));
        let pid = std::process::id();
        assert!(!held_by_this_process(&format!("{}/{}/0", host(), pid + 1)));
        assert!(!held_by_this_process(&format!("some-other-host/{pid}/0")));
        assert!(!held_by_this_process(""));
    }
}
