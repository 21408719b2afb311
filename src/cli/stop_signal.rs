//! The signals that ask a long command to stop: Ctrl-C (SIGINT) at a terminal, and SIGTERM,
//! which `kill`, `timeout`, cron and systemd send. Both get the same orderly stop.

use anyhow::Context;

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
