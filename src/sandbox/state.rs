//! State shared by every connection of one sandbox: database, blob store, faults, counters.

use std::sync::atomic::{AtomicU64, Ordering};

use super::blobs::BlobStore;
use super::db::Db;
use super::faults::Faults;
use super::{FaultConfig, SandboxStats};

/// In-memory counters since start (not persisted).
#[derive(Default)]
pub(crate) struct Counters {
    /// Requests to `/blobs` and `/records`, faulted ones included.
    pub requests: AtomicU64,
    /// 201 answers to `PUT /records/{key}`.
    pub creates: AtomicU64,
    /// 412 answers to `PUT /records/{key}`.
    pub conflicts: AtomicU64,
    /// File contents received by the InvenioRDM emulation.
    pub invenio_uploads: AtomicU64,
}

pub(crate) struct App {
    /// The DataCite emulation's account; changeable while running.
    pub datacite: std::sync::RwLock<super::DataCiteAccount>,
    /// The InvenioRDM emulation's user and its rate-limit window.
    pub invenio: std::sync::RwLock<super::InvenioAccount>,
    pub invenio_window: std::sync::Mutex<super::invenio::RateWindow>,
    pub db: Db,
    pub blobs: BlobStore,
    /// `http://HOST:PORT`, used to build record URLs.
    pub base_url: String,
    pub token: Option<String>,
    pub faults: Faults,
    pub counters: Counters,
}

impl App {
    pub fn new(
        db: Db,
        blobs: BlobStore,
        base_url: String,
        token: Option<String>,
        faults: FaultConfig,
    ) -> Self {
        App {
            datacite: std::sync::RwLock::new(super::DataCiteAccount::default()),
            invenio: std::sync::RwLock::new(super::InvenioAccount::default()),
            invenio_window: std::sync::Mutex::new(Default::default()),
            db,
            blobs,
            base_url,
            token,
            faults: Faults::new(faults),
            counters: Counters::default(),
        }
    }

    pub fn datacite_account(&self) -> super::DataCiteAccount {
        self.datacite
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn record_url(&self, key: &str) -> String {
        format!("{}/records/{key}", self.base_url)
    }

    /// Records and blobs from the database and the disk; the rest from the counters. A
    /// failure to read the database or the folder counts as zero rather than failing.
    pub fn stats(&self) -> SandboxStats {
        SandboxStats {
            records: self.db.count_records().unwrap_or(0),
            blobs: self.blobs.count().unwrap_or(0),
            creates: self.counters.creates.load(Ordering::Relaxed),
            conflicts: self.counters.conflicts.load(Ordering::Relaxed),
            requests: self.counters.requests.load(Ordering::Relaxed),
        }
    }
}
