//! The signals that ask a long command to stop: Ctrl-C (SIGINT) at a terminal, and SIGTERM,
//! which `kill`, `timeout`, cron and systemd send. Both get the same orderly stop.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;

/// The exit status of a command stopped by Ctrl-C or SIGTERM before its work was done
/// (128 + SIGINT, as a shell's).
pub const STOPPED_EXIT: u8 = 130;

/// Wait until the process is asked to stop.
#[cfg(unix)]
pub async fn stop_requested() -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r.context("cannot listen for Ctrl-C")?,
        _ = term.recv() => {}
    }
    Ok(())
}

/// Wait until the process is asked to stop (Ctrl-C; there is no SIGTERM here).
#[cfg(not(unix))]
pub async fn stop_requested() -> anyhow::Result<()> {
    tokio::signal::ctrl_c()
        .await
        .context("cannot listen for Ctrl-C")
}

/// A flag the next Ctrl-C or SIGTERM raises, for work that checks it as it goes (hashing on
/// the blocking threads) rather than awaiting the signal.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// A flag the next Ctrl-C or SIGTERM raises. A task listens from now on, so neither ends
    /// the process on the spot any more: the work sees the flag and stops in order.
    pub fn on_signal() -> StopFlag {
        let flag = StopFlag::default();
        let raise = flag.clone();
        tokio::spawn(async move {
            if stop_requested().await.is_ok() {
                raise.0.store(true, Ordering::Relaxed);
            }
        });
        flag
    }

    /// Whether the process was asked to stop.
    pub fn raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
