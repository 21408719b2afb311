//! Snapshot images of the window (rendered on the CPU by wgpu, lavapipe on Debian): the empty
//! window, a table with every status once, the details panel with validation errors, and the
//! history view. Update the baselines with `UPDATE_SNAPSHOTS=1 cargo test --test ui_snapshots`.
//!
//! Determinism: a fixed window size and egui's built-in fonts, a fixed clock (every time is
//! shown masked), deposits paused while seeded states are shown, and the sandbox on a port
//! chosen here but never rendered (log messages show targets by label).

mod gui;
mod support;

use egui_kittest::kittest::Queryable;
use std::collections::HashSet;
use std::time::Duration;

use egui_kittest::SnapshotOptions;
use lodge::app::{AppPaths, Update};
use lodge::content::Metadata;
use lodge::sandbox::FaultConfig;
use lodge::store::{Claim, ClaimFilter, EventKind, Finish, Lease, Store};
use lodge::targets::RecordRef;
use lodge::ui::{Clock, View};

use gui::{Window, config};
use support::{Lab, add, metadata};

/// The "now" of every snapshot (2026-03-01 12:00:00 UTC).
const NOW: i64 = 1_772_366_400_000;

fn options() -> SnapshotOptions {
    // lavapipe and llvmpipe differ by a few anti-aliased pixels.
    SnapshotOptions::new().threshold(1.0).max_failed_pixels(200)
}

fn freeze(w: &mut Window) {
    w.harness.state_mut().clock = Clock::Fixed(NOW);
    for _ in 0..3 {
        w.harness.step();
    }
}

#[test]
fn snapshot_empty_window_shows_the_drop_hint() {
    let mut w = Window::open(FaultConfig::default());
    freeze(&mut w);
    w.harness.snapshot_options("empty_window", &options());
}

/// A loopback port that is free now, for the app's sandbox (so jobs can be seeded for its
/// target before it starts).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

fn claim_one(store: &Store, target: &str, job: i64) -> Lease {
    let filter = ClaimFilter {
        targets: vec![target.to_string()],
        job_ids: Some(std::sync::Arc::new(HashSet::from([job]))),
        ..Default::default()
    };
    match store
        .claim("seed@test", Duration::from_secs(3600), 8, &filter)
        .expect("claim")
    {
        Claim::Attempt { lease, .. } => *lease,
        other => panic!("expected an attempt, got {other:?}"),
    }
}

fn record(n: u32, port: u16) -> RecordRef {
    RecordRef {
        identifier: format!("sandbox-{n}"),
        url: Some(format!("http://127.0.0.1:{port}/records/{n}")),
    }
}

/// A store with one dataset in each state the store can hold, made through its public API.
fn seed_mixed_store(lab: &Lab, paths: &AppPaths, port: u16) {
    let store = Store::open(&paths.db).expect("store");
    let target = format!("sandbox+http://127.0.0.1:{port}");
    store
        .upsert_target(&target, &target, "Local sandbox")
        .expect("target");
    let folder = |name: &str, body: &str| {
        lab.folder(
            &format!("data/{name}"),
            &[("values.csv", body.as_bytes()), ("README.txt", b"readme")],
        )
    };
    let day = Duration::from_secs(86_400);
    let queue = |id: i64, key| {
        store
            .enqueue_deposit(id, &target, &key, day)
            .expect("enqueue")
            .0
            .job_id()
    };

    // Deposited, and another record with the same data under other metadata.
    let (dep, dep_key) = add(
        &store,
        &folder("deposited", "1,2\n"),
        &metadata("Deposited cores"),
    );
    let lease = claim_one(&store, &target, queue(dep, dep_key));
    store
        .finish(
            &lease,
            &Finish::Landed {
                record: record(1, port),
                created: true,
                kind: EventKind::Created,
                message: "created sandbox-1".into(),
                http_status: Some(201),
            },
        )
        .expect("finish");
    let same = lab.path("data/same-data");
    std::fs::create_dir_all(lab.path("data")).unwrap();
    copy_dir(&lab.path("data/deposited"), &same);
    add(&store, &same, &metadata("Same cores, other title"));

    // Already deposited (the server said it exists).
    let (ex, ex_key) = add(
        &store,
        &folder("already-there", "3,4\n"),
        &metadata("Existing cores"),
    );
    let lease = claim_one(&store, &target, queue(ex, ex_key));
    store
        .finish(
            &lease,
            &Finish::Landed {
                record: record(2, port),
                created: false,
                kind: EventKind::Existing,
                message: "server says it already exists: sandbox-2".into(),
                http_status: Some(412),
            },
        )
        .expect("finish");

    // New, queued, uploading.
    add(
        &store,
        &folder("new-ready", "5,6\n"),
        &metadata("New cores"),
    );
    let (q, q_key) = add(
        &store,
        &folder("queued", "7,8\n"),
        &metadata("Queued cores"),
    );
    queue(q, q_key);
    let (up, up_key) = add(
        &store,
        &folder("uploading", "9,10\n"),
        &metadata("Uploading cores"),
    );
    claim_one(&store, &target, queue(up, up_key));

    // Waiting to retry, failed, rejected, changed since scan.
    let (wt, wt_key) = add(
        &store,
        &folder("waiting", "11,12\n"),
        &metadata("Waiting cores"),
    );
    let lease = claim_one(&store, &target, queue(wt, wt_key));
    store
        .finish(
            &lease,
            &Finish::Retry {
                not_before: NOW + 42_000,
                delay: Duration::from_secs(42),
                error: "server busy (HTTP 503): try again later".into(),
                http_status: Some(503),
            },
        )
        .expect("finish");
    let (fl, fl_key) = add(
        &store,
        &folder("failed", "13,14\n"),
        &metadata("Failed cores"),
    );
    let lease = claim_one(&store, &target, queue(fl, fl_key));
    store
        .finish(
            &lease,
            &Finish::Failed {
                error: "server busy (HTTP 503) after 8 attempts".into(),
                http_status: Some(503),
            },
        )
        .expect("finish");
    let (rj, rj_key) = add(
        &store,
        &folder("rejected", "15,16\n"),
        &metadata("Rejected cores"),
    );
    let lease = claim_one(&store, &target, queue(rj, rj_key));
    store
        .finish(
            &lease,
            &Finish::Rejected {
                error: "rejected (HTTP 422): title: too short".into(),
                http_status: Some(422),
            },
        )
        .expect("finish");
    let (ch, ch_key) = add(
        &store,
        &folder("changed", "17,18\n"),
        &metadata("Changed cores"),
    );
    let lease = claim_one(&store, &target, queue(ch, ch_key));
    store
        .finish(
            &lease,
            &Finish::Rejected {
                error: "changed since scan: values.csv: modified since it was scanned".into(),
                http_status: None,
            },
        )
        .expect("finish");

    // Incomplete metadata (for the details snapshot).
    add(
        &store,
        &folder("hashing", "19,20\n"),
        &metadata("Hashing cores"),
    );
    let incomplete = Metadata {
        title: "   ".into(),
        ..Metadata::default()
    };
    add(&store, &folder("untitled", "21,22\n"), &incomplete);
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// The window on the seeded store, paused, with the one transient state (hashing) given
/// by the message the hashing task sends.
fn mixed_window() -> Window {
    let lab = Lab::new();
    let mut cfg = config(&lab, FaultConfig::default());
    cfg.start_paused = true;
    let port = free_port();
    std::fs::create_dir_all(lab.path("app")).unwrap();
    std::fs::write(&cfg.paths.sandbox_port_file, port.to_string()).unwrap();
    seed_mixed_store(&lab, &cfg.paths, port);
    let mut w = Window::open_with(lab, cfg);
    assert!(
        w.app().target_id().ends_with(&format!(":{port}")),
        "the sandbox took the seeded port"
    );
    let hashing = w.row_id("hashing");
    w.harness.state_mut().model.apply(Update::HashStarted {
        row: hashing,
        path: String::new(),
        name: String::new(),
    });
    w.harness.state_mut().model.apply(Update::HashProgress {
        row: hashing,
        done: 3 << 20,
        total: 8 << 20,
    });
    freeze(&mut w);
    w
}

#[test]
fn snapshot_mixed_table_shows_each_status_once() {
    let mut w = mixed_window();
    let app = w.app();
    let kinds: HashSet<_> = app
        .model
        .rows()
        .iter()
        .map(|r| app.model.status(r, app.target_id()).kind())
        .collect();
    assert_eq!(kinds.len(), 11, "every status appears: {kinds:?}");
    w.harness.snapshot_options("mixed_table", &options());
}

#[test]
fn snapshot_details_panel_shows_validation_errors() {
    let mut w = mixed_window();
    let id = w.row_id("untitled");
    w.harness.state_mut().select(Some(id));
    w.wait("the details", |app| {
        app.model.details.as_ref().is_some_and(|d| d.dataset == id)
    });
    // The details show the folder's path, a temporary folder other on every run: the
    // snapshot shows a fixed one.
    let mut summary = Store::open(&AppPaths::in_dir(&w.lab.path("app")).db)
        .expect("store")
        .dataset_summary(id)
        .expect("read")
        .expect("the dataset");
    summary.path = "/home/ada/data/untitled".into();
    w.harness.state_mut().model.apply(Update::DatasetSaved {
        placeholder: None,
        summary,
    });
    freeze(&mut w);
    w.harness
        .snapshot_options("details_validation_errors", &options());
}

#[test]
fn snapshot_history_view() {
    let mut w = mixed_window();
    w.harness.state_mut().view = View::History;
    w.wait("the history", |app| {
        app.model.history.as_ref().is_some_and(|h| h.len() == 8)
    });
    freeze(&mut w);
    w.harness.snapshot_options("history_view", &options());
}

/// A refused row's Edit opens its details at their top, where the refusal's cause is said:
/// also when the row was selected already and its details scrolled down (Edit otherwise
/// seemed to do nothing).
#[test]
fn a_refused_rows_edit_opens_its_details_at_their_top() {
    let mut w = mixed_window();
    w.harness.set_size(egui::vec2(1024.0, 600.0));
    let id = w.row_id("rejected");
    w.harness.state_mut().select(Some(id));
    w.wait("the details", |app| {
        app.model.details.as_ref().is_some_and(|d| d.dataset == id)
    });
    w.harness.run_steps(2);
    w.harness.get_by_label("Resource type").scroll_to_me();
    w.harness.run_steps(3);
    // The details' heading names the dataset, as its row does: the one in the panel.
    let heading = |w: &Window| {
        let panel = w.app().details.drawn().expect("the details are drawn");
        (w.harness.query_all_by_label("rejected"))
            .map(|n| n.rect())
            .find(|r| r.left() >= panel.left())
            .expect("the details' heading")
    };
    let panel = w.app().details.drawn().expect("the details are drawn");
    assert!(heading(&w).top() < panel.top(), "scrolled past the heading");
    w.harness.get_by_label("Edit").click();
    w.harness.run_steps(3);
    assert!(
        heading(&w).top() >= panel.top(),
        "the heading {:?} is in view in {panel:?}",
        heading(&w)
    );
}
