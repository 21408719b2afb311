//! Undoing on a server what an attempt dropped midway leaves open there.
//!
//! An attempt is dropped, not finished, when its deposit is stopped: `lodge deposit`
//! interrupted with Ctrl-C, the window closed or paused, a lease lost. Whatever it had begun
//! on the server and would have ended in its own error path is then left as it is. For most
//! of what Lodge writes that is harmless (a whole file under its digest is simply there),
//! but an S3 multipart upload begun and never completed or aborted keeps its parts, and
//! their storage bill, until a lifecycle rule removes them; nothing else ever would.
//!
//! [`UndoOnDrop`] holds such an undo while the work is open. Dropped still armed, it runs
//! the undo as a task of its own; [`finish`] lets a process about to exit wait for those
//! tasks (and for attempts still being dropped) a bounded time.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Undos armed (their work still open) or running, in this process.
static PENDING: AtomicUsize = AtomicUsize::new(0);

type Undo = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// An undo that runs if this is dropped before [`UndoOnDrop::disarm`].
#[must_use = "dropping it at once runs the undo"]
pub struct UndoOnDrop {
    undo: Option<Undo>,
}

impl UndoOnDrop {
    /// Arm `undo` (not started until it is needed).
    pub fn new(undo: impl Future<Output = ()> + Send + 'static) -> UndoOnDrop {
        PENDING.fetch_add(1, Ordering::SeqCst);
        UndoOnDrop {
            undo: Some(Box::pin(undo)),
        }
    }

    /// The work was ended (completed, or undone where it failed): nothing to undo.
    pub fn disarm(mut self) {
        self.undo = None;
    }
}

impl Drop for UndoOnDrop {
    fn drop(&mut self) {
        let Some(undo) = self.undo.take() else {
            PENDING.fetch_sub(1, Ordering::SeqCst);
            return;
        };
        // The count drops when the undo ends, or when its task is dropped unfinished (the
        // runtime shut down first).
        let done = Done;
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    undo.await;
                    drop(done);
                });
            }
            // No runtime to run it on (dropped outside one): left, as before this existed.
            Err(_) => drop(done),
        }
    }
}

/// Counts an undo as ended when dropped.
struct Done;

impl Drop for Done {
    fn drop(&mut self) {
        PENDING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How many undos are armed or running now.
pub fn pending() -> usize {
    PENDING.load(Ordering::SeqCst)
}

/// Wait until no undo is armed or running, at most `within`: for a process about to exit,
/// after its engine was told to stop (whose attempts, dropped meanwhile, start theirs).
/// Returns at once when there is none.
pub async fn finish(within: Duration) {
    let end = Instant::now() + within;
    while pending() > 0 && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    #[tokio::test]
    async fn an_undo_runs_when_dropped_armed_and_not_when_disarmed() {
        let (ran, kept) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let undo = |flag: &Arc<AtomicBool>| {
            let flag = flag.clone();
            async move { flag.store(true, Ordering::SeqCst) }
        };
        drop(UndoOnDrop::new(undo(&ran)));
        UndoOnDrop::new(undo(&kept)).disarm();
        finish(Duration::from_secs(5)).await;
        assert!(ran.load(Ordering::SeqCst), "the armed undo ran");
        assert!(!kept.load(Ordering::SeqCst), "the disarmed one did not");
    }
}
