//! One task at a time per key, within this process. The targets that keep files apart from
//! their records (WebDAV, S3) send each stored file (by digest, or by its path in a
//! dataset's folder) from one deposit at a time, so that a second deposit of the same file
//! waits and then finds it there whole: on WebDAV, whose servers write a PUT's
//! body as it arrives, it would otherwise find it half written and take it for what a cut-off
//! upload left; on S3 it would send the file again beside the first.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// Locks by key, made when first asked for and dropped once nobody holds or waits for them.
pub struct KeyedLock<K> {
    locks: Mutex<HashMap<K, Arc<AsyncMutex<()>>>>,
}

impl<K> Default for KeyedLock<K> {
    fn default() -> Self {
        KeyedLock {
            locks: Mutex::new(HashMap::new()),
        }
    }
}

/// Held while the key's work runs; dropping it lets the next task in.
pub struct KeyGuard<'a, K: Hash + Eq + Copy> {
    owner: &'a KeyedLock<K>,
    guard: Option<OwnedMutexGuard<()>>,
}

impl<K: Hash + Eq + Copy> KeyedLock<K> {
    /// Wait until no other task holds `key`, then hold it.
    pub async fn hold(&self, key: K) -> KeyGuard<'_, K> {
        let lock = self.map().entry(key).or_default().clone();
        KeyGuard {
            owner: self,
            guard: Some(lock.lock_owned().await),
        }
    }

    /// How many keys are held or waited for (the map holds no others).
    pub fn len(&self) -> usize {
        self.map().len()
    }

    /// Whether no key is held or waited for.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<K, Arc<AsyncMutex<()>>>> {
        // The map is only ever left whole (no panics while it is locked), so a poisoned lock
        // still holds a usable map.
        self.locks.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<K: Hash + Eq + Copy> Drop for KeyGuard<'_, K> {
    fn drop(&mut self) {
        let mut map = self.owner.map();
        self.guard = None;
        // Under the map's lock nobody can take a new handle to a key's lock, so a count of
        // one (the map's own) means no task holds or waits for it. Every key is looked at,
        // not only this one: a task that stopped waiting (its deposit cancelled) leaves its
        // key behind, and the map holds only the few blobs being sent.
        map.retain(|_, lock| Arc::strong_count(lock) > 1);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn tasks_holding_one_key_run_one_at_a_time_and_other_keys_run_beside_them() {
        let locks = Arc::new(KeyedLock::<u8>::default());
        let inside = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let most = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let mut tasks = Vec::new();
        for i in 0..16u8 {
            let (locks, inside, most) = (locks.clone(), inside.clone(), most.clone());
            tasks.push(tokio::spawn(async move {
                let key = i % 2;
                let _held = locks.hold(key).await;
                let now = inside[key as usize].fetch_add(1, Ordering::SeqCst) + 1;
                most[key as usize].fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
                inside[key as usize].fetch_sub(1, Ordering::SeqCst);
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(most[0].load(Ordering::SeqCst), 1);
        assert_eq!(most[1].load(Ordering::SeqCst), 1);
        assert!(locks.is_empty(), "no lock is kept once nobody wants it");
    }

    #[tokio::test]
    async fn a_key_whose_waiter_gave_up_is_not_kept() {
        let locks = KeyedLock::<u8>::default();
        let first = locks.hold(1).await;
        let mut waiting = Box::pin(locks.hold(1));
        assert!(
            tokio::time::timeout(Duration::from_millis(20), &mut waiting)
                .await
                .is_err()
        );
        drop(first);
        // The waiter is cancelled before it was let in (its deposit stopped).
        drop(waiting);
        let other = locks.hold(2).await;
        drop(other);
        assert!(
            locks.is_empty(),
            "the given-up key went with the next release"
        );
    }

    #[tokio::test]
    async fn a_key_waited_for_stays_until_its_last_holder_is_done() {
        let locks = KeyedLock::<u8>::default();
        let first = locks.hold(7).await;
        let second = locks.hold(7);
        tokio::pin!(second);
        assert!(
            tokio::time::timeout(Duration::from_millis(20), &mut second)
                .await
                .is_err(),
            "the second waits while the first holds the key"
        );
        drop(first);
        assert_eq!(locks.len(), 1, "kept for the one waiting");
        let second = second.await;
        drop(second);
        assert!(locks.is_empty());
    }
}
