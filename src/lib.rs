//! Lodge: exactly-once deposits of research datasets into repositories.
//!
//! The library is the whole of Lodge except the front ends: [`content`] turns a folder into a
//! manifest and a [`content::ContentKey`], [`store`] keeps datasets, the durable job queue, the
//! dedup results and the event log in SQLite or a shared PostgreSQL, [`engine`] runs guarded deposits with retries and
//! leases, [`targets`] speaks to the repositories, [`config`] names them, and [`sandbox`] is Lodge's own local
//! repository server. The command line ([`cli`]) only parses arguments and calls into these;
//! [`bench`] measures Lodge against reference tools (`lodge bench`, `cargo bench`). The
//! desktop window ([`ui`] over the application service [`app`]) is the `desktop` feature,
//! on by default.

#[cfg(feature = "desktop")]
pub mod app;
pub mod bench;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod content;
pub mod engine;
pub mod history_file;
pub mod sandbox;
pub mod settings;
pub mod store;
pub mod targets;
#[cfg(feature = "desktop")]
pub mod ui;
pub mod wording;
